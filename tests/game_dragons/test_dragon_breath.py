"""Dragon breath against an army: five health-worth killed, then the elemental effect (V4.01c
L695-728), one test per effect, plus V4-33 (halving not cumulative) and hybrid dragons."""

from __future__ import annotations

from dragon_support import answer, army_units, new_game, passive, place, to_dragon_phase

from companion.rules.core.state import BUA, DUA, UNTIL_ITS_NEXT_TURN
from companion.rules.game.rolling import ArmyRoll, resolve_army_roll

BOB_HOME = "p2@home-p2"


def breath_game(dragon: str, bob=None, force: int = 15, extra=()):
    """Alice's `dragon` (and `extra` dragons of hers) at Bob's home; Bob's dragon phase begins."""
    mine = (f"Dragons/{dragon}",) + tuple(f"Dragons/{x}" for x in extra)
    need = -(-force // 24)
    game = new_game(force=force, bob=bob, dragons=(mine, ("Dragons/Blue Drake",) * need))
    place(game, "home-p2", dragon, *extra)
    to_dragon_phase(game)
    return game


def breathe(game):
    answer(game, "dragon_roll", faces=["5 Breath"])


def effects_on_bob(game) -> list[str]:
    return sorted(e.name for e in game.state.effects if e.target == BOB_HOME)


def halves(game, roll: str, face_icon: str) -> tuple[int, int]:
    """A roll of `roll` by Bob's remaining home army, every die on its first `face_icon` face: the total
    with the effects now in force and without."""
    st = game.state
    army = st.army("p2", "home-p2")
    dice = tuple((u, (next(f for f in u.spec.faces if f.split(" ", 1)[1] == face_icon),)) for u in army.units)
    t = st.terrains["home-p2"]
    base = ArmyRoll(roll=roll, dice=dice, terrain=t.kind, face=t.face, marching=False)
    from dataclasses import replace

    with_fx = resolve_army_roll(replace(base, effects=game.effects_on(army))).total
    return with_fx, resolve_army_roll(base).total


def big_bob():
    """Bob's home army: 7 health (5 killed by one breath leaves some to test the effect on)."""
    return {
        "home": ["Amazons/Soldier"] * 7,
        "horde": ["Amazons/Soldier"] * 5,
        "campaign": ["Amazons/Soldier"] * 3,
    }


def test_breath_kills_five_health_worth_owner_chooses():
    """Five health-worth killed, the army's owner chooses which (V4.01c L699-703)."""
    game = breath_game(
        "Ivory Drake",
        bob={
            "home": ["Amazons/War Chief", "Amazons/Warrior", "Amazons/Soldier", "Amazons/Runner"],
            "horde": ["Amazons/Soldier"] * 5,
            "campaign": ["Amazons/Soldier"] * 3,
        },
    )
    breathe(game)
    d = game.pending
    assert d.topic == "allocate" and d.player == "p2" and d.data["damage"] == 5
    names = {tuple(sorted(game.state.units[u].name for u in c["value"])) for c in d.choices}
    assert ("Amazons/War Chief", "Amazons/Warrior") in names
    assert ("Amazons/Runner", "Amazons/Soldier", "Amazons/War Chief") in names
    chosen = next(
        c["value"]
        for c in d.choices
        if sorted(game.state.units[u].name for u in c["value"]) == ["Amazons/War Chief", "Amazons/Warrior"]
    )
    game.apply({"type": "allocate", "units": chosen})
    assert sorted(army_units(game, "p2", "home-p2")) == ["Amazons/Runner", "Amazons/Soldier"]


def test_air_lightning_bolt_halves_melee_until_its_next_turn():
    """Air: Lightning Bolt, melee halved, rounded down, until the beginning of the army's next turn
    (V4.01c L709-711)."""
    game = breath_game("Blue Drake", bob=big_bob())
    breathe(game)
    assert effects_on_bob(game) == ["Lightning Bolt"]
    e = next(e for e in game.state.effects if e.name == "Lightning Bolt")
    assert e.expiry == UNTIL_ITS_NEXT_TURN
    # 2 Soldiers left rolling "1 Melee": 2 -> 1.
    assert halves(game, "melee", "Melee") == (1, 2)


def test_air_breath_halves_the_response_melee():
    """The breath effect is applied in step 4, before the army's response roll (V4.01c L661-664):
    two Soldiers rolling 2 Melee each count 2 melee, not 4."""
    game = breath_game("Blue Drake", bob=big_bob())
    breathe(game)
    d = game.pending
    game.apply({"type": "roll", "faces": ["2 Melee" for _ in d.dice]})
    assert "Against the dragons: 2 melee, 0 missile, 0 saves" in game.log


def test_death_dragon_plague_ignores_ids():
    """Death: Dragon Plague, the army ignores its ID results (V4.01c L713-714): the response IDs count
    nothing and no split is asked."""
    game = breath_game("Black Drake", bob=big_bob())
    breathe(game)
    assert effects_on_bob(game) == ["Dragon Plague"]
    d = game.pending
    game.apply({"type": "roll", "faces": ["1 ID" for _ in d.dice]})
    assert "Against the dragons: 0 melee, 0 missile, 0 saves" in game.log


def test_earth_petrify_halves_maneuver():
    """Earth: Petrify, maneuver results halved, rounded down (V4.01c L716-717)."""
    game = breath_game("Yellow Drake", bob=big_bob())
    breathe(game)
    assert effects_on_bob(game) == ["Petrify"]
    # Two Soldiers on "1 Maneuver": 2 -> 1.
    assert halves(game, "maneuver", "Maneuver") == (1, 2)


def test_water_poisonous_cloud_halves_missile():
    """Water: Poisonous Cloud, missile results halved, rounded down (V4.01c L724-725)."""
    game = breath_game(
        "Green Drake",
        bob={
            "home": ["Amazons/Darter"] * 7,
            "horde": ["Amazons/Soldier"] * 5,
            "campaign": ["Amazons/Soldier"] * 3,
        },
    )
    breathe(game)
    assert effects_on_bob(game) == ["Poisonous Cloud"]
    # Two Darters on "2 Missile": 4 -> 2.
    assert halves(game, "missile", "Missile") == (2, 4)


def test_fire_dragon_fire_buries_the_killed_that_roll_no_save():
    """Fire: Dragon Fire, the units this breath killed roll; those that make no save are buried
    (V4.01c L719-720)."""
    game = breath_game("Red Drake")
    breathe(game)
    d = game.pending
    assert d.topic == "dragon_fire_roll" and d.player == "p2" and len(d.dice) == 5
    names = [x["die"] for x in d.dice]
    faces = []
    for x in d.dice:  # the Soldier saves, everybody else rolls a maneuver
        if x["die"] == "Amazons/Soldier":
            faces.append("1 Save")
        else:
            faces.append(next(f for f in x["faces"] if f.endswith("Maneuver")))
    game.apply({"type": "roll", "faces": faces})
    st = game.state
    where = {st.units[x["uid"]].name: st.location[x["uid"]] for x in d.dice}
    assert where.pop("Amazons/Soldier") == DUA
    assert set(where.values()) == {BUA} and len(names) == 5
    assert effects_on_bob(game) == []  # fire leaves no lasting effect


def test_ivory_life_drain_has_no_further_effect():
    """Ivory: Life Drain, no effect beyond the five health-worth (V4.01c L722)."""
    game = breath_game("Ivory Drake", bob=big_bob())
    breathe(game)
    assert effects_on_bob(game) == []
    assert any("Life Drain" in line for line in game.log)
    assert len(army_units(game, "p2", "home-p2")) == 2
    assert game.pending.topic == "roll"  # straight on to the response


def test_white_terrain_empathy_kills_ten_and_gives_the_terrains_effects():
    """White: Terrain Empathy, five more health-worth killed (ten) and the breath effects of both of
    the terrain's elements (V4.01c L727-729): Swampland is earth and water, Petrify and Poisonous
    Cloud."""
    game = new_game(
        force=30,
        dragons=(("Dragons/White Drake",), ("Dragons/Blue Drake", "Dragons/Green Drake")),
        bob={
            "home": ["Amazons/Soldier"] * 12,
            "horde": ["Amazons/Soldier"] * 10,
            "campaign": ["Amazons/Soldier"] * 8,
        },
    )
    place(game, "home-p2", "White Drake")
    to_dragon_phase(game)
    breathe(game)
    assert len(army_units(game, "p2", "home-p2")) == 2
    assert effects_on_bob(game) == ["Petrify", "Poisonous Cloud"]


def test_hybrid_applies_both_effects():
    """A Hybrid's breath applies both elemental effects (V4.01c L552-553): Blue/Green gives Lightning
    Bolt and Poisonous Cloud."""
    game = breath_game("Blue / Green Drake", bob=big_bob())
    breathe(game)
    assert effects_on_bob(game) == ["Lightning Bolt", "Poisonous Cloud"]


def test_ivory_hybrid_applies_its_element_only():
    """An Ivory Hybrid applies the effect of its element (V4.01c L566)."""
    game = breath_game("Yellow / Ivory Drake", bob=big_bob())
    breathe(game)
    assert effects_on_bob(game) == ["Petrify"]


class TestV4_33:
    """V4-33 [W] Breath effects stack by kind, not by count — V4 L703-706."""

    def test_death_and_water_ignore_ids_and_halve_missile(self):
        """Death + water breath (a Black/Green hybrid): IDs ignored and missile halved together."""
        game = breath_game(
            "Black / Green Drake",
            bob={
                "home": ["Amazons/Darter"] * 7,
                "horde": ["Amazons/Soldier"] * 5,
                "campaign": ["Amazons/Soldier"] * 3,
            },
        )
        breathe(game)
        assert effects_on_bob(game) == ["Dragon Plague", "Poisonous Cloud"]
        d = game.pending
        game.apply({"type": "roll", "faces": ["1 ID", "2 Missile"][: len(d.dice)]})
        assert "Against the dragons: 0 melee, 1 missile, 0 saves" in game.log  # ID ignored, 2 -> 1

    def test_two_water_breaths_halve_missile_once(self):
        """Two Green dragons (same element: both attack the army, L595-598) breathe: missile halved
        once, not quartered."""
        game = new_game(
            force=30,
            dragons=(
                ("Dragons/Green Drake", "Dragons/Green Wyrm"),
                ("Dragons/Blue Drake", "Dragons/Red Drake"),
            ),
            bob={
                "home": ["Amazons/Darter"] * 14,
                "horde": ["Amazons/Soldier"] * 8,
                "campaign": ["Amazons/Soldier"] * 8,
            },
        )
        place(game, "home-p2", "Green Drake", "Green Wyrm")
        to_dragon_phase(game)
        answer(game, "dragon_roll", faces=["5 Breath"])
        answer(game, "dragon_roll", faces=["5 Breath"])
        assert effects_on_bob(game) == ["Poisonous Cloud"]
        assert any("not cumulative" in line for line in game.log)
        d = game.pending
        game.apply({"type": "roll", "faces": ["2 Missile" for _ in d.dice]})
        assert "Against the dragons: 0 melee, 4 missile, 0 saves" in game.log  # 4 Darters: 8 -> 4


def test_breath_effect_expires_at_the_beginning_of_the_armys_next_turn():
    """The lasting breath effects end at the beginning of the affected army's next turn
    (V4.01c L709-717), not at the dragon owner's."""
    game = breath_game("Blue Drake", bob=big_bob())
    breathe(game)
    while game.state.marching == "p2":
        game.apply(passive(game.pending))
    assert effects_on_bob(game) == ["Lightning Bolt"]  # through Alice's turn
    while game.state.marching != "p2":
        game.apply(passive(game.pending))
    assert effects_on_bob(game) == []
