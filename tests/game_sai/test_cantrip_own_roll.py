"""A Cantrip's spells and the roll the Cantrip came up in (V4.01c L1017-1019, L1036-1038, L1296-1306)."""

from __future__ import annotations

from sai_arena import Driver, arena


class CastingDriver(Driver):
    """The arena's driver, announcing `spells` at the first Cantrip cast decision."""

    def __init__(self, game, gen, faces, spells):
        super().__init__(game, gen, faces)
        self.spells = list(spells)

    def _action(self, d):
        if d.kind == "cast" and self.spells:
            out, self.spells = {"type": "cast", "spells": self.spells}, []
            return out
        return super()._action(d)


def _defend(spells):
    """Alice's War Chief (4 melee) attacks Bob's Coral Elf Enchanter and Amazon Soldier at Coastland;
    Bob's save roll shows the Enchanter's 4 Cantrip (water or air magic) and the Soldier's 1 save."""
    game, (chief,), (oracle, soldier) = arena(
        ["Amazons/War Chief"], ["Coral Elves/Enchanter", "Amazons/Soldier"]
    )
    st = game.state
    gen = game.attack(st.army("p1", "frontier"), st.army("p2", "frontier"), "melee", False)
    d = CastingDriver(game, gen, {chief: ["4 Melee"], oracle: ["4 Cantrip"], soldier: ["1 Save"]}, spells)
    d.run()
    return game, d


def test_a_cantrip_spell_that_adds_saves_counts_in_the_same_save_roll():
    """V4.01c L1017-1019: SAIs apply at step 4 and the roll modifiers they bring are applied in the
    following steps of the same roll.  Bob's Cantrip casts Watery Double (+1 save, L3284-3286) on his
    own army during his save roll: 1 + 1 = 2 saves against 4 melee, 2 damage (not 3)."""
    game, d = _defend([{"spell": "Watery Double", "target": "p2@frontier", "element": "Water"}])
    assert any(x.kind == "cast" and x.data.get("cantrip") for x in d.decisions)
    assert any("- 2 saves = 2 damage" in line for line in game.log)
    assert any("with the Cantrip spells" in line for line in game.log)


def test_without_the_cantrip_spell_the_save_roll_is_unchanged():
    """The same roll with nothing cast: 1 save, 3 damage."""
    game, _ = _defend([])
    assert any("- 1 saves = 3 damage" in line for line in game.log)
    assert not any("with the Cantrip spells" in line for line in game.log)
