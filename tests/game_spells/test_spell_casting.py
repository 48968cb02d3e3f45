"""Casting rules in the flow: announce-then-resolve, Dispel Magic, Cantrip, reserve casting, lost
targets, durations and expiry, cumulative castings.  Worked-example cases: V4-20, V4-21, V4-22."""

from __future__ import annotations

import pytest
from spell_support import (
    add_die,
    blank_save_total,
    cast_spells,
    effect,
    faces_for,
    max_faces,
    melee_march,
    new_game,
    roll_total,
    run_until,
    scent_of_fear_then_palsy,
    units_at,
    zero_faces,
)

from companion.rules.core.state import DUA, RESERVE
from companion.rules.game import IllegalSpell


def test_all_spells_announced_before_any_resolves():
    """V4.01c L470-478: every spell and target is announced, then they are cast one at a time."""
    g = new_game(species=("Undead", "Dwarves"))
    out = cast_spells(
        g,
        [
            {"spell": "Palsy", "target": "p2@home-p1"},
            {"spell": "Finger of Death", "target": units_at(g, "p2", "frontier")[0]},
        ],
    )
    casts = [i for i, line in enumerate(out["log"]) if " casts " in line]
    killed = [i for i, line in enumerate(out["log"]) if line.startswith("Killed")]
    assert casts == [0, 1] and killed and killed[0] > 1


def _dispel_roll(g, face: str) -> None:
    """The unit asked about Dispel Magic rolls, and shows `face`."""
    g.apply({"type": "choose", "choice": "roll"})
    g.apply({"type": "roll", "faces": [face]})


def test_dispel_magic_negates_magic_on_its_army():
    """V4.01c L1432-1448: after all spells are announced, a unit with Dispel Magic that the magic
    touches may roll; the icon negates the spells on it, its army or its terrain, not the others."""
    g = new_game(species=("Undead", "Dwarves"))
    garg = add_die(g, "p2", "Dwarves/Gargoyle", "home-p1")
    cast_spells(g, [{"spell": "Palsy", "target": "p2@home-p1"}, {"spell": "Palsy", "target": "p2@frontier"}])
    d = g.pending
    assert d.topic == "dispel" and d.player == "p2" and d.data["unit"] == garg
    _dispel_roll(g, "4 Dispel Magic")
    targets = [e.target for e in g.state.effects if e.name == "Palsy"]
    assert targets == ["p2@frontier"]
    assert g.state.spells_announced[-2]["negated"] is True


def test_dispel_magic_other_icon_does_nothing():
    """V4.01c L1441-1445: only the Dispel Magic icon negates; no other icon counts in that roll."""
    g = new_game(species=("Undead", "Dwarves"))
    add_die(g, "p2", "Dwarves/Gargoyle", "home-p1")
    cast_spells(g, [{"spell": "Palsy", "target": "p2@home-p1"}])
    _dispel_roll(g, "4 Melee")
    assert effect(g, "Palsy").target == "p2@home-p1"


def test_dispel_magic_covers_the_terrain_it_occupies():
    """V4.01c L1438-1444: a spell on the unit's terrain is negated too."""
    g = new_game(species=("Coral Elves", "Dwarves"))
    add_die(g, "p2", "Dwarves/Gargoyle", "frontier")
    cast_spells(g, [{"spell": "Blizzard", "target": "frontier"}])
    _dispel_roll(g, "4 Dispel Magic")
    assert effect(g, "Blizzard") is None


def test_dispel_magic_untouched_spells_ask_nothing():
    """V4.01c L1446-1448: magic on other units, armies or terrains is unaffected (no roll offered)."""
    g = new_game(species=("Undead", "Dwarves"))
    add_die(g, "p2", "Dwarves/Gargoyle", "home-p2")
    cast_spells(g, [{"spell": "Palsy", "target": "p2@frontier"}])
    assert g.pending.topic == "march"
    assert effect(g, "Palsy").target == "p2@frontier"


def test_lost_target_is_not_replaced():
    """V4.01c L478-480: a spell whose target is gone when it resolves does nothing."""
    g = new_game(species=("Goblins", "Dwarves"))
    three, spells = scent_of_fear_then_palsy(g)
    cast_spells(g, spells)
    assert all(g.state.location[u] == RESERVE for u in three)
    assert effect(g, "Palsy") is None
    assert g.state.spells_announced[-1]["lost"] is True


def test_lasting_spell_expires_at_the_casters_next_turn():
    """V4.01c L358-359, L2131-2132: until the beginning of the caster's next turn."""
    g = new_game(species=("Dwarves", "Undead"))
    cast_spells(g, [{"spell": "Stone Skin", "target": "p1@frontier"}])
    run_until(g, lambda d: g.state.marching == "p2")
    assert effect(g, "Stone Skin") is not None  # still there in Bob's turn
    run_until(g, lambda d: g.state.marching == "p1" and g.state.turn == 3)
    assert effect(g, "Stone Skin") is None


def test_spells_on_an_army_end_when_it_is_gone():
    """V4.01c L2133-2136: an army with no units left loses the spells on it."""
    g = new_game(species=("Undead", "Dwarves"))
    cast_spells(g, [{"spell": "Palsy", "target": "p2@frontier"}])
    for uid in units_at(g, "p2", "frontier"):
        g.state.location[uid] = DUA
    g.cleanup()
    assert effect(g, "Palsy") is None


def test_spell_on_an_army_stays_at_its_location():
    """V4.01c L2121-2123: an army spell is fixed at that army's location: units moving away leave it."""
    g = new_game(species=("Dwarves", "Undead"))
    cast_spells(g, [{"spell": "Stone Skin", "target": "p1@frontier"}])
    mover = units_at(g, "p1", "home-p2")[0]
    g.state.location[mover] = "frontier"
    assert blank_save_total(g, "p1@frontier") == 1
    assert blank_save_total(g, "p1@home-p2") == 0


def test_v4_21_three_combined_wind_walks():
    """V4-21 (V4.01c L2143-2148): three combined castings of Wind Walk add 12 maneuvers, cost 12 air."""
    g = new_game(species=("Coral Elves", "Undead"))
    for _ in range(2):
        add_die(g, "p1", "Coral Elves/Enchanter", "home-p1")
    out = cast_spells(g, [{"spell": "Wind Walk", "target": "p1@frontier", "castings": 3}])
    assert "(12 Air)" in out["log"][0]
    assert effect(g, "Wind Walk").detail["castings"] == 3
    assert roll_total(g, "p1@frontier", "maneuver", zero_faces(g, "p1@frontier", "maneuver")) == 12


def test_v4_22_palsy_three_separate_targets():
    """V4-22 (V4.01c L2149-2153): three Palsies cost 6; -1 on each of three targets."""
    g = new_game(species=("Undead", "Dwarves"))
    targets = ["p2@home-p1", "p2@home-p2", "p2@frontier"]
    before = {t: roll_total(g, t, "melee", max_faces(g, t, "melee")) for t in targets}
    cast_spells(g, [{"spell": "Palsy", "target": t} for t in targets])
    for t in targets:
        assert roll_total(g, t, "melee", max_faces(g, t, "melee")) == before[t] - 1


def test_v4_22_palsy_two_and_one():
    """V4-22 (V4.01c L2149-2153): -2 on one target and -1 on another; separate castings on one
    target add up like combined ones."""
    g = new_game(species=("Undead", "Dwarves"))
    a, b = "p2@home-p1", "p2@frontier"
    fa, fb = max_faces(g, a, "melee"), max_faces(g, b, "melee")
    ba, bb = roll_total(g, a, "melee", fa), roll_total(g, b, "melee", fb)
    cast_spells(
        g, [{"spell": "Palsy", "target": a}, {"spell": "Palsy", "target": a}, {"spell": "Palsy", "target": b}]
    )
    assert roll_total(g, a, "melee", fa) == ba - 2
    assert roll_total(g, b, "melee", fb) == bb - 1


def test_v4_22_cost_of_three_palsies():
    """V4-22: three Palsies cost six death magic; five is not enough."""
    g = new_game(species=("Undead", "Dwarves"))
    dice = g.state.army("p1", "home-p1").units
    faces = [next(f for f in u.spec.faces if f.endswith(" ID")) for u in dice[:5]] + zero_faces(
        g, "p1@home-p1", "magic"
    )[5:]
    three = [{"spell": "Palsy", "target": "p2@home-p1"}] * 3
    with pytest.raises(IllegalSpell, match="cost 6 magic but the army rolled only 5"):
        cast_spells(g, three, faces=faces)
    cast_spells(g, three[:2])
    assert effect(g, "Palsy").detail["castings"] == 2


def test_v4_20_one_army_pays_fire_and_water_spells():
    """V4-20 (V4.01c L450-453): Scalders' magic may be split between fire and water as the spells need."""
    g = new_game(species=("Scalders", "Undead"))
    cast_spells(
        g,
        [
            {"spell": "Watery Double", "target": "p1@frontier"},
            {"spell": "Fiery Weapon", "target": "p1@frontier"},
            {"spell": "Ash Storm", "target": "home-p2"},
        ],
    )
    assert {e.name for e in g.state.effects} >= {"Watery Double", "Fiery Weapon", "Ash Storm"}


def test_non_cumulative_spell_gains_nothing_from_combined_castings():
    """V4.01c L2154-2156: a spell without a highlighted number is not cast combined."""
    g = new_game(species=("Lava Elves", "Undead"))
    with pytest.raises(IllegalSpell, match="cumulative"):
        cast_spells(g, [{"spell": "Necromantic Wave", "target": "p1@frontier", "castings": 2}])


def test_reserve_army_casts_only_spells_marked_r():
    """V4.01c L2127-2129: from the Reserve Area only spells marked R."""
    g = new_game(species=("Undead", "Dwarves"))
    for uid in units_at(g, "p1", "home-p2")[:4]:
        g.state.location[uid] = RESERVE
    g.apply({"type": "choose", "choice": "pass"})  # the second march lists the new Reserve army
    with pytest.raises(IllegalSpell, match="Reserve"):
        cast_spells(g, [{"spell": "Palsy", "target": "p2@home-p1"}], location="reserve")
    cast_spells(g, [{"spell": "Restless Dead", "target": "p1@frontier"}], location="reserve")
    assert effect(g, "Restless Dead").target == "p1@frontier"


def _roll_cantrip(g, lich: str, roll: str) -> None:
    """The pending `roll` shows 4 Cantrip on the Lich and a face worth nothing on every other die."""
    d = g.pending
    faces = faces_for(d, roll, "zero")
    faces[[x["uid"] for x in d.dice].index(lich)] = "4 Cantrip"
    g.apply({"type": "roll", "faces": faces})


def test_cantrip_in_a_melee_roll_pays_only_cantrip_spells():
    """V4.01c L1296-1306, L2108-2111: Cantrip rolled in a melee attack gives magic for spells marked C
    only, with the usual element and species rules."""
    g = new_game(species=("Undead", "Dwarves"))
    lich = add_die(g, "p1", "Undead/Lich", "home-p1")
    melee_march(g)
    _roll_cantrip(g, lich, "melee")
    d = g.pending
    assert d.topic == "cast" and d.data["cantrip"] is True and d.data["magic"] == 4
    with pytest.raises(IllegalSpell, match="Cantrip"):
        g.apply({"type": "cast", "spells": [{"spell": "Evil Eye", "target": "p2@home-p1"}]})
    g.apply({"type": "cast", "spells": [{"spell": "Palsy", "target": "p2@home-p1", "castings": 2}]})
    assert effect(g, "Palsy").detail["castings"] == 2


def test_cantrip_not_in_maneuver_rolls():
    """V4.01c L1296-1306: Cantrip works in non-maneuver rolls only."""
    from companion.rules.game.spells.casting import cantrip_after_roll

    g = new_game(species=("Undead", "Dwarves"))
    army = g.state.army("p1", "home-p1")
    gen = cantrip_after_roll(g, army, "maneuver", None, {})
    with pytest.raises(StopIteration):
        next(gen)


def test_spell_decision_topics_are_listed():
    """Every topic the spell modules ask under is a documented topic (decisions as data)."""
    import re
    from pathlib import Path

    from companion.rules.core.decisions import TOPICS
    from companion.rules.game import spells

    src = "".join(p.read_text() for p in Path(spells.__file__).parent.glob("*.py"))
    asked = set(re.findall(r'ask\("([a-z_]+)"', src)) | set(re.findall(r'topic="([a-z_]+)"', src))
    assert asked and asked <= set(TOPICS)


def test_temple_shields_units_from_opposing_death_magic():
    """V4.01c L529-531: an army controlling a Temple cannot be affected by opponents' death magic,
    unit targets included."""
    from spell_support import units_at as _units

    g = new_game(species=("Swamp Stalkers", "Dwarves"))
    temple = g.state.terrains["home-p2"]
    temple.face, temple.controller = 8, "p2"
    targets = _units(g, "p2", "home-p2")[:3]
    with pytest.raises(IllegalSpell, match="Temple"):
        cast_spells(g, [{"spell": "Swamp Fever", "target": "p2@home-p2", "units": targets}])


def test_cantrip_in_the_defenders_save_roll():
    """V4.01c L1296-1306: Cantrip works in any non-maneuver roll, a save roll too: the defender may
    cast spells marked C with it."""
    g = new_game(species=("Dwarves", "Undead"))
    lich = add_die(g, "p2", "Undead/Lich", "home-p1")
    melee_march(g)
    d = g.pending
    g.apply({"type": "roll", "faces": faces_for(d, "melee", "max")})
    d = g.pending
    assert d.player == "p2" and d.data["roll"] == "save"
    faces = faces_for(d, "save", "zero")
    faces[[x["uid"] for x in d.dice].index(lich)] = "4 Cantrip"
    g.apply({"type": "roll", "faces": faces})
    d = g.pending
    assert d.topic == "cast" and d.player == "p2" and d.data["cantrip"]
    g.apply({"type": "cast", "spells": [{"spell": "Palsy", "target": "p1@home-p1"}]})
    assert effect(g, "Palsy").owner == "p2"


def test_dispel_magic_answers_cantrip_spells_too():
    """V4.01c L1432-1448: any magic targeting the unit's army, Cantrip magic included."""
    g = new_game(species=("Undead", "Dwarves"))
    lich = add_die(g, "p1", "Undead/Lich", "home-p1")
    add_die(g, "p2", "Dwarves/Gargoyle", "home-p1")
    melee_march(g)
    _roll_cantrip(g, lich, "melee")
    g.apply({"type": "cast", "spells": [{"spell": "Palsy", "target": "p2@home-p1"}]})
    d = g.pending
    assert d.topic == "dispel"
    _dispel_roll(g, "4 Dispel Magic")
    assert effect(g, "Palsy") is None


def test_second_players_spell_lasts_until_their_next_turn():
    """V4.01c L358-359, L2131-2132: Bob's spell lasts through Alice's turn and ends as Bob's next
    turn begins."""
    g = new_game(species=("Undead", "Dwarves"))
    run_until(g, lambda d: d.topic == "march" and d.player == "p2")
    cast_spells(g, [{"spell": "Stone Skin", "target": "p2@home-p2"}], location="home-p2", pid="p2")
    assert effect(g, "Stone Skin").owner == "p2"
    run_until(g, lambda d: g.state.marching == "p1" and g.state.turn == 3)
    assert effect(g, "Stone Skin") is not None
    run_until(g, lambda d: g.state.marching == "p2" and g.state.turn == 4)
    assert effect(g, "Stone Skin") is None
