"""Water (V4.01c L2335-2387) and Elemental (L2388-2446) spells in the game flow, one test per spell."""

from __future__ import annotations

import pytest
from spell_support import (
    add_die,
    blank_save_total,
    cast_spells,
    drive,
    effect,
    faces_for,
    max_faces,
    new_game,
    roll_total,
    units_at,
    until_topic,
)

from companion.rules.core.state import BUA, DUA, POOL
from companion.rules.game import IllegalSpell
from companion.rules.game.dua import kill_flow
from companion.rules.game.spells import SPELLS
from companion.rules.game.spells.registry import TERRAIN


def test_watery_double_adds_one_save():
    """V4.01c L2337-2342."""
    g = new_game(species=("Coral Elves", "Undead"))
    army = "p1@frontier"
    cast_spells(g, [{"spell": "Watery Double", "target": army}])
    assert blank_save_total(g, army) == 1


def test_accelerated_growth_exchanges_a_killed_treefolk():
    """V4.01c L2343-2351 with L1159-1175: a killed 2-health Treefolk may be exchanged with a 1-health
    Treefolk of the DUA; it is not killed, the small one joins the army."""
    g = new_game(species=("Treefolk", "Undead"))
    cast_spells(g, [{"spell": "Accelerated Growth", "target": "dua:p1"}])
    oak = add_die(g, "p1", "Treefolk/Oak", "home-p1")
    small = add_die(g, "p1", "Treefolk/Pineling", DUA)
    drive(g, kill_flow(g, [oak]), [{"type": "choose", "choice": small}])
    assert g.state.location[small] == "home-p1"
    assert g.state.location[oak] == DUA


def test_accelerated_growth_targets_only_your_dua():
    """V4.01c L2343: the target is your DUA."""
    g = new_game(species=("Treefolk", "Undead"))
    with pytest.raises(IllegalSpell, match="own DUA"):
        cast_spells(g, [{"spell": "Accelerated Growth", "target": "dua:p2"}])


def test_flash_flood_reduces_the_terrain_unless_six_maneuvers():
    """V4.01c L2352-2357: the terrain drops a step unless an opposing army there rolls six maneuvers."""
    g = new_game(species=("Coral Elves", "Undead"))
    before = g.state.terrains["frontier"].face
    cast_spells(g, [{"spell": "Flash Flood", "target": "frontier"}])
    d = g.pending
    assert d.player == "p2" and d.data["roll"] == "maneuver"
    g.apply({"type": "roll", "faces": faces_for(d, "maneuver", "zero")})
    assert g.state.terrains["frontier"].face == before - 1


def test_flash_flood_held_by_six_maneuvers():
    """V4.01c L2353-2354."""
    g = new_game(species=("Coral Elves", "Undead"))
    before = g.state.terrains["frontier"].face
    cast_spells(g, [{"spell": "Flash Flood", "target": "frontier"}])
    d = g.pending
    g.apply({"type": "roll", "faces": faces_for(d, "maneuver", "max")})
    assert g.state.terrains["frontier"].face == before


def test_flash_flood_one_step_per_turn():
    """V4.01c L2355-2357: never more than one step in a player's turn from Flash Flood."""
    g = new_game(species=("Coral Elves", "Undead"))
    before = g.state.terrains["frontier"].face
    cast_spells(
        g, [{"spell": "Flash Flood", "target": "frontier"}, {"spell": "Flash Flood", "target": "frontier"}]
    )
    for _ in range(2):
        d = g.pending
        if d.kind == "roll" and d.data.get("roll") == "maneuver":
            g.apply({"type": "roll", "faces": faces_for(d, "maneuver", "zero")})
    assert g.state.terrains["frontier"].face == before - 1


def test_deluge_subtracts_maneuvers_and_missiles():
    """V4.01c L2358-2361: -3 maneuver and -3 missile at the terrain."""
    g = new_game(species=("Coral Elves", "Undead"))
    army = "p2@frontier"
    man, mis = max_faces(g, army, "maneuver"), max_faces(g, army, "missile")
    m0, s0 = roll_total(g, army, "maneuver", man), roll_total(g, army, "missile", mis)
    cast_spells(g, [{"spell": "Deluge", "target": "frontier"}])
    assert roll_total(g, army, "maneuver", man) == max(0, m0 - 3)
    assert roll_total(g, army, "missile", mis) == max(0, s0 - 3)


def test_mire_limits_the_marching_units():
    """V4.01c L2362-2373: an army marching at the terrain first rolls maneuvers and marches only with
    units up to that health-worth, for the maneuver and the action."""
    g = new_game(species=("Swamp Stalkers", "Undead"))
    cast_spells(g, [{"spell": "Mire", "target": "frontier"}])
    until_topic(g, "march")
    g.apply({"type": "choose", "choice": "p1@frontier"})
    d = g.pending
    assert d.kind == "roll" and d.data["roll"] == "maneuver"
    faces = faces_for(d, "maneuver", "zero")
    for i in (0, 1):
        faces[i] = next(f for f in d.dice[i]["faces"] if f.endswith(" ID"))
    g.apply({"type": "roll", "faces": faces})
    d = g.pending
    assert d.topic == "spell_choice"
    pick = d.choices[0]["value"].split(",")
    assert len(pick) == 2
    g.apply({"type": "choose", "choice": d.choices[0]["value"]})
    g.apply({"type": "choose", "choice": "maneuver"})
    g.apply({"type": "choose", "choice": "counter"})
    d = g.pending
    assert d.kind == "roll" and sorted(x["uid"] for x in d.dice) == sorted(pick)


def test_tidal_wave_damages_each_army_and_reduces_the_terrain():
    """V4.01c L2374-2383: four damage on each army at the terrain, less the saves of a save +
    maneuver combination roll; the terrain drops unless an army rolls four maneuvers."""
    g = new_game(species=("Scalders", "Undead"))
    before = g.state.terrains["frontier"].face
    cast_spells(g, [{"spell": "Tidal Wave", "target": "frontier"}])
    for who in ("p1", "p2"):
        d = g.pending
        assert d.player == who and d.kind == "roll"
        g.apply({"type": "roll", "faces": faces_for(d, "save", "zero")})
        d = g.pending
        if d.kind == "allocate":
            g.apply({"type": "allocate", "units": d.choices[0]["value"]})
    assert len(units_at(g, "p1", "frontier")) <= 4 and len(units_at(g, "p2", "frontier")) <= 4
    assert g.state.terrains["frontier"].face == before - 1


def test_wall_of_fog_only_on_missiles_aimed_at_the_terrain():
    """V4.01c L2384-2387: -6 missile on missile attacks aimed at an army at the terrain."""
    g = new_game(species=("Coral Elves", "Undead"))
    cast_spells(g, [{"spell": "Wall of Fog", "target": "home-p2"}])
    shooter = g.state.army("p1", "frontier")
    assert not [e for e in g.effects_on(shooter) if e.name == "Wall of Fog"]
    assert [e.name for e in g.effects_on(shooter, "home-p2")] == ["Wall of Fog"]


def test_resurrect_dead_returns_a_unit_of_the_element_paid():
    """V4.01c L2395-2405: one health-worth of units in your DUA containing the element paid returns to
    the casting army."""
    g = new_game(species=("Undead", "Dwarves"))
    dead = add_die(g, "p1", "Undead/Zombie", DUA)
    cast_spells(g, [{"spell": "Resurrect Dead", "target": [dead], "element": "Death"}])
    assert g.state.location[dead] == "home-p1"


def test_resurrect_dead_combined_castings_raise_a_bigger_unit():
    """V4.01c L2398 with L2139-2148: two combined castings return two health-worth."""
    g = new_game(species=("Undead", "Dwarves"))
    wight = add_die(g, "p1", "Undead/Wight", DUA)
    with pytest.raises(IllegalSpell, match="more than"):
        cast_spells(
            g, [{"spell": "Resurrect Dead", "units": [wight], "target": "dua:p1", "element": "Death"}]
        )
    cast_spells(
        g,
        [
            {
                "spell": "Resurrect Dead",
                "units": [wight],
                "target": "dua:p1",
                "element": "Death",
                "castings": 2,
            }
        ],
    )
    assert g.state.location[wight] == "home-p1"


def test_resurrect_dead_needs_the_element_paid():
    """V4.01c L2398-2399: the unit must contain the element of the magic used."""
    g = new_game(species=("Undead", "Dwarves"))
    tree = add_die(g, "p1", "Treefolk/Pineling", DUA)
    with pytest.raises(IllegalSpell, match="does not contain"):
        cast_spells(g, [{"spell": "Resurrect Dead", "units": [tree], "target": "dua:p1", "element": "Death"}])


def test_rally_moves_amazons_to_a_terrain_with_amazons():
    """V4.01c L2417-2420: up to three of your Amazon units at a terrain move to another terrain where
    you have at least one Amazon unit."""
    g = new_game(species=("Amazons", "Undead"))
    movers = units_at(g, "p1", "home-p1")[:3]
    # Amazons' magic takes the elements of their terrain (Terrain Harmony): Highland is fire and earth.
    cast_spells(
        g, [{"spell": "Rally", "units": movers, "target": "home-p1", "to": "frontier", "element": "Fire"}]
    )
    assert all(g.state.location[u] == "frontier" for u in movers)


def test_summon_dragon_targets_a_terrain():
    """V4.01c L2428-2437: the target is a terrain (the summoning itself is the dragons module's)."""
    assert SPELLS["Summon Dragon"].target == TERRAIN and SPELLS["Summon Dragon"].cumulative
    g = new_game(species=("Coral Elves", "Undead"))
    for _ in range(2):
        add_die(g, "p1", "Coral Elves/Enchanter", "home-p1")
    with pytest.raises(IllegalSpell, match="terrain"):
        cast_spells(g, [{"spell": "Summon Dragon", "target": "p2@home-p1", "element": "Air"}])


def test_summon_white_dragon_targets_a_terrain():
    """V4.01c L2438-2445."""
    assert SPELLS["Summon White Dragon"].target == TERRAIN
    assert SPELLS["Summon White Dragon"].card().cost == 14


def test_summon_white_dragon_paid_with_any_mix_of_elements():
    """V4.01c L2440-2442: any combination of magic elements pays it (air/water and earth/fire here);
    one named element alone must pay it all."""
    g = new_game(species=("Coral Elves", "Undead"))
    for _ in range(2):
        add_die(g, "p1", "Dwarves/Wizard", "home-p1")
    with pytest.raises(IllegalSpell):
        cast_spells(g, [{"spell": "Summon White Dragon", "target": "frontier", "element": "Air"}])
    cast_spells(g, [{"spell": "Summon White Dragon", "target": "frontier"}])
    entry = g.state.spells_announced[-1]
    assert entry["spell"] == "Summon White Dragon" and entry["paid_with"] == "Any"


def test_summon_dragonkin_target_checked_at_announcement():
    """V4.01c L2409-2416: a Dragonkin of the element paid in your Summoning Pool (the effect is the
    advanced-components module's)."""
    import companion.rules.game.advanced  # noqa: F401

    g = new_game(species=("Undead", "Dwarves"))
    kin = add_die(g, "p1", "Dragonkin/Dragontroop (Death)", POOL)
    air = add_die(g, "p1", "Dragonkin/Dragonfoal (Air)", POOL)
    with pytest.raises(IllegalSpell, match="Dragonkin"):
        cast_spells(g, [{"spell": "Summon Dragonkin", "target": air, "element": "Death"}])
    cast_spells(g, [{"spell": "Summon Dragonkin", "target": kin, "element": "Death"}])
    assert g.state.location[kin] == "home-p1"


def test_evolve_dragonkin_needs_your_dragonkin_of_the_element():
    """V4.01c L2388-2394: one of your Dragonkin units matching the element paid."""
    g = new_game(species=("Eldarim", "Dwarves"))
    theirs = add_die(g, "p2", "Dragonkin/Dragontroop (Death)", "home-p1")
    with pytest.raises(IllegalSpell, match="Dragonkin"):
        cast_spells(g, [{"spell": "Evolve Dragonkin", "target": theirs, "element": "Death"}])


def test_rise_of_the_eldarim_needs_an_eldarim_unit_of_the_element():
    """V4.01c L2421-2427: an Eldarim unit matching the element paid."""
    g = new_game(species=("Eldarim", "Dwarves"))
    other = units_at(g, "p2", "home-p1")[0]
    with pytest.raises(IllegalSpell, match="Eldarim"):
        cast_spells(g, [{"spell": "Rise of the Eldarim", "target": other, "element": "Air"}])


def test_esfahs_gift_needs_a_minor_terrain_in_your_bua():
    """V4.01c L2406-2408: a minor terrain in your BUA goes to your Summoning Pool."""
    import companion.rules.game.advanced  # noqa: F401

    g = new_game(species=("Amazons", "Dwarves"))
    minor = add_die(g, "p1", "Terrains/Deadland Bridge", BUA)
    with pytest.raises(IllegalSpell, match="minor terrain"):
        cast_spells(g, [{"spell": "Esfah's Gift", "target": "bua:p1", "element": "Fire"}])
    cast_spells(g, [{"spell": "Esfah's Gift", "target": minor, "element": "Fire"}])
    assert g.state.location[minor] == POOL
    assert effect(g, "Esfah's Gift") is None  # instantaneous


def test_evolve_dragonkin_promotes_from_the_summoning_pool():
    """V4.01c L2388-2394 with L1139-1141: your Dragonkin of the element paid is promoted one health,
    from the Summoning Pool (effect: the advanced-components module)."""
    import companion.rules.game.advanced  # noqa: F401

    g = new_game(species=("Eldarim", "Dwarves"))
    foal = add_die(g, "p1", "Dragonkin/Dragonfoal (Air)", "home-p1")
    mount = add_die(g, "p1", "Dragonkin/Dragonmount (Air)", POOL)
    cast_spells(g, [{"spell": "Evolve Dragonkin", "target": foal, "element": "Air"}])
    d = g.pending
    if d.topic != "march":
        g.apply({"type": "choose", "choice": mount})
    assert g.state.location[mount] == "home-p1" and g.state.location[foal] == POOL


def test_rise_of_the_eldarim_promotes_from_the_dua():
    """V4.01c L2421-2427: an Eldarim unit of the element paid is promoted one health from its owner's
    DUA; the new unit may be of another element (L1149)."""
    import companion.rules.game.advanced  # noqa: F401

    g = new_game(species=("Eldarim", "Dwarves"))
    follower = units_at(g, "p1", "home-p1")[0]
    element = g.state.units[follower].spec.elements[0]
    bigger = add_die(g, "p1", "Eldarim/Morehl Devotee (Air)", DUA)
    cast_spells(g, [{"spell": "Rise of the Eldarim", "target": follower, "element": element}])
    d = g.pending
    if d.topic != "march":
        g.apply({"type": "choose", "choice": bigger})
    assert g.state.location[bigger] == "home-p1" and g.state.location[follower] == DUA


def test_flash_flood_step_limit_ends_with_the_turn():
    """V4.01c L2355-2357: the one-step limit is per player's turn; it leaves nothing lasting behind."""
    from spell_support import run_until

    g = new_game(species=("Coral Elves", "Undead"))
    cast_spells(g, [{"spell": "Flash Flood", "target": "frontier"}])
    d = g.pending
    g.apply({"type": "roll", "faces": faces_for(d, "maneuver", "zero")})
    assert any(e.name.startswith("Flash Flood:") for e in g.state.effects)
    run_until(g, lambda d: g.state.marching == "p1" and g.state.turn == 3)
    assert not any(e.name.startswith("Flash Flood") for e in g.state.effects)
