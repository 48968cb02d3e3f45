"""SAIs in an army's response to a dragon attack (the "Dragon Attack" column of the V4.01c SAI table),
through the dragon attack phase of the flow."""

from __future__ import annotations

from sai_arena import arena
from species_script import Script


def _dragon_game(army, faces_of_army):
    game, a, b = arena(army, [])
    st = game.state
    drake = next(u.uid for u in st.units.values() if u.name == "Dragons/Red Drake" and u.owner == "p2")
    st.location[drake] = "frontier"
    faces = {drake: ["12 Jaw"]} | {uid: list(f) for uid, f in zip(a, faces_of_army, strict=True)}
    return game, a, drake, faces


def test_decapitate_slays_a_dragon_that_rolled_jaws_l1428_1431():
    game, a, drake, faces = _dragon_game(
        ["Dwarves/Footman", "Items/Death Vorpal Sword"], [["1 Save"], ["3 Decapitate"]]
    )
    s = Script(game, faces, [("Decapitate: kill", drake)]).play(until_turn=3)
    assert "Decapitate: Dragons/Red Drake is killed" in s.log()
    assert game.state.location[drake] != "frontier"


def test_impale_slays_a_dragon_that_rolled_jaws_l1684_1687():
    game, a, drake, faces = _dragon_game(["Dracolem/Bronze Draco-Gunner"], [["4 Impale"]])
    s = Script(game, faces).play(until_turn=3)
    assert "Impale: Dragons/Red Drake is killed" in s.log()


def test_cloak_in_a_dragon_attack_adds_lasting_saves_l1335_1337():
    game, a, drake, faces = _dragon_game(["Lava Elves/Lurker in the Deep"], [["4 Cloak"]])
    faces[drake] = ["6 Claw"]
    Script(game, faces).play(until_turn=3)
    assert (
        any(e.name == "Cloak" and e.target == "p1@frontier" for e in game.state.effects)
        or game.state.location[a[0]] != "frontier"
    )


def test_earthfang_logo_slays_a_dragon_that_rolled_jaws_l2854_2857():
    game, a, drake, faces = _dragon_game(["Dwarves/Footman", "Items/Earthfang"], [["1 Save"], ["4 Logo"]])
    s = Script(game, faces).play(until_turn=3)
    assert "Earthfang: Dragons/Red Drake is killed" in s.log()


def test_a_dragon_killed_by_decapitate_lets_the_army_promote_l688_690():
    """Decapitate *kills* a Jaws dragon (V4.01c L1428-1429), an army kill: it goes back to the
    Summoning Pool (L685-686) and the army may promote as many units as possible (L688-690), unlike
    an Eldarim champion's slay, after which nobody is promoted (L2978-2983).  Eight Footmen save 8 of
    the Jaws' 12 damage; a Sergeant waits in Alice's DUA."""
    from sai_arena import put

    game, a, drake, faces = _dragon_game(
        ["Dwarves/Footman"] * 8 + ["Items/Death Vorpal Sword"], [["1 Save"]] * 8 + [["3 Decapitate"]]
    )
    sergeant = put(game, "p1", "dua", ["Dwarves/Sergeant"])[0]
    s = Script(game, faces, [("Decapitate: kill", drake), ("dragon_promotion", "promote")]).play(until_turn=3)
    assert game.state.location[drake] == "pool"
    assert any(d.topic == "dragon_promotion" for d in s.decisions)
    assert game.state.location[sergeant] == "frontier"
