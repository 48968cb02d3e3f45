"""Minor terrains in the game flow (V4.01c L2595-2692); worked examples V4-09, V4-10, V4-11."""

from __future__ import annotations

import pytest
from adv_support import adv_setup, choose, next_turn, roll, started, uid_of, until, values

from companion.rules.catalogue import load_catalogue
from companion.rules.game import Game, IllegalAction, IllegalSetup
from companion.rules.game import setup as su
from companion.rules.game.advanced import minor_terrains as mt
from companion.rules.resolution import EffectInForce, RolledUnit, RollRequest, resolve

MINORS = ["Coastland Bridge", "Highland Knoll", "Deadland Woods", "Coastland Village"]


def game_with_minors(minors=MINORS, faces=None, **changes) -> Game:
    return started(adv_setup(["minor_terrains"], p0_minor_terrains=list(minors), **changes), faces)


def march_frontier(game: Game):
    until(game, "march", "p1")
    choose(game, "p1@frontier")
    return game.pending


def bring(game: Game, name: str, face: str):
    """Alice marches at the Frontier and brings `name` into play, rolling `face`."""
    d = march_frontier(game)
    assert d.topic == "minor_terrain"
    choose(game, uid_of(game, name, "p1", "pool"))
    assert game.pending.topic == "minor_terrain_roll"
    roll(game, face)


def bridge_held_at_next_march() -> Game:
    """Alice's Frontier army brought the Coastland Bridge in (Double Maneuvers) in her first turn and
    marches again in her next one: what to do with the minor terrain is pending."""
    game = game_with_minors()
    bring(game, "Coastland Bridge", "1 Double Maneuvers")
    next_turn(game)
    choose(game, "p1@frontier")
    return game


# -- allowance (V4-09) and Deadlands (V4-10, V4-11) ------------------------------------------------


def test_v4_09_minor_terrain_allowance_is_terrains_plus_one():
    """V4-09 (V4.01c L2599-2600): 2 players, 3 terrains -> 4; 3 players, 4 terrains -> 5."""
    assert mt.allowance(3) == 4 and mt.allowance(4) == 5
    assert su.minor_terrain_allowance(2) == 4 and su.minor_terrain_allowance(3) == 5
    with pytest.raises(IllegalSetup, match="allows 4"):
        Game(adv_setup(["minor_terrains"], p0_minor_terrains=MINORS + ["Deadland Bridge"]))


def test_v4_11_deadlands_counts_as_s_units_and_v4_10_scaling():
    """V4-11 (L2638-2643): one Deadlands counts as 1 unit in a 24-point game, 2 in 25-48; V4-10's
    scaling (L776-780) goes on: 49-72 -> 3."""
    assert [mt.deadlands_worth(f) for f in (15, 24, 25, 48, 49, 72)] == [1, 1, 2, 2, 3, 3]


def test_deadlands_in_play_adds_s_units_of_every_species_to_the_dua_counts():
    """L2638-2643: the flow's DUA counts (for DUA-capped abilities) gain s per Deadlands controlled."""
    game = game_with_minors()
    bring(game, "Deadland Woods", "1 Magic")
    counts = mt.dua_counts(game, "p1", {"Goblins": 2})
    assert counts["Goblins"] == 3 and counts["Undead"] == 1 and counts["Lava Elves"] == 1
    assert mt.dua_counts(game, "p2", {"Goblins": 2}) == {"Goblins": 2}


# -- bringing one into play (L2603-2612) -----------------------------------------------------------


def test_minor_terrains_start_in_the_summoning_pool():
    """L2600-2601."""
    game = game_with_minors()
    assert sorted(
        u.name.split("/")[1] for u in game.state.area("p1", "pool") if u.spec.kind == "minor_terrain"
    ) == sorted(MINORS)


def test_only_minor_terrains_sharing_an_element_or_deadlands_may_enter_play_instead_of_maneuvering():
    """L2604-2608: the Frontier is Coastland (air, water): Coastland dice and the Deadlands qualify,
    the Highland Knoll does not; taking the maneuver step stays possible."""
    game = game_with_minors()
    d = march_frontier(game)
    names = {game.state.units[v].name.split("/")[1] for v in values(d) if v != "maneuver"}
    assert names == {"Coastland Bridge", "Deadland Woods", "Coastland Village"}
    assert "maneuver" in values(d)
    choose(game, "maneuver")
    assert game.pending.topic == "maneuver"  # the normal maneuver step follows


def test_bringing_one_in_replaces_the_maneuver_step_and_its_roll_applies_at_once():
    """L2604-2612: brought in, rolled, the result is active for the army; no maneuver step."""
    game = game_with_minors()
    bring(game, "Coastland Bridge", "1 Double Maneuvers")
    st = game.state
    bridge = uid_of(game, "Coastland Bridge", "p1")
    assert st.location[bridge] == "frontier"
    effect = mt.active_result(st, bridge)
    assert effect.name == "Double Maneuvers" and effect.target == "p1@frontier"
    assert game.pending.topic == "action"  # straight to the action step


def test_id_face_turns_to_an_action_face_and_that_action_becomes_legal():
    """L2653-2667: the ID (Bridge) lets the owner pick Magic, Melee or Missile; Magic then becomes an
    alternative to the terrain's missile action."""
    game = game_with_minors()
    bring(game, "Coastland Bridge", "1 Bridge")
    d = game.pending
    assert d.topic == "minor_terrain_face" and values(d) == ["Magic", "Melee", "Missile"]
    choose(game, "Magic")
    d = game.pending
    assert d.topic == "action" and {"missile", "magic"} <= set(values(d))


def test_melee_face_gives_the_melee_action():
    """L2663-2664."""
    game = game_with_minors()
    bring(game, "Coastland Bridge", "1 Melee")
    assert "melee" in values(game.pending)


def test_double_maneuvers_doubles_the_armys_ids_in_its_maneuver_rolls():
    """L2669-2673: resolution of a maneuver roll with the result in force (IDs x2), against none."""
    cat = load_catalogue()
    foot = cat.get("Dwarves/Footman")
    units = (RolledUnit(foot, (foot.find_face("ID"),)), RolledUnit(foot, (foot.find_face("ID"),)))
    plain = resolve(RollRequest("maneuver", units)).total("maneuver")
    doubled = resolve(RollRequest("maneuver", units, effects=(EffectInForce("Double Maneuvers"),))).total(
        "maneuver"
    )
    assert (plain, doubled) == (2, 4)
    saves = resolve(RollRequest("save", units, effects=(EffectInForce("Double Maneuvers"),))).total("save")
    assert saves == 2  # only maneuver rolls


def test_double_saves_doubles_ids_in_save_rolls():
    """L2675-2676."""
    cat = load_catalogue()
    foot = cat.get("Dwarves/Footman")
    units = (RolledUnit(foot, (foot.find_face("ID"),)), RolledUnit(foot, (foot.find_face("1 Save"),)))
    assert resolve(RollRequest("save", units, effects=(EffectInForce("Double Saves"),))).total("save") == 3


@pytest.mark.parametrize(
    "name,purpose",
    [("Dust Storm", "missile"), ("Flanked", "save"), ("Flood", "maneuver"), ("Revolt", "melee")],
)
def test_disasters_halve_one_result_type(name, purpose):
    """L2678-2692: Dust Storm halves missile, Flanked saves, Flood maneuvers, Revolt melee (rounded
    down); other result types are untouched."""
    cat = load_catalogue()
    goblin = cat.get("Goblins/Thug")
    icon = purpose.capitalize()
    face = (
        next(f for f in goblin.faces if f.icon == icon) if any(f.icon == icon for f in goblin.faces) else None
    )
    units = tuple(RolledUnit(goblin, (goblin.find_face("ID"),)) for _ in range(3))
    if face is not None:
        units += (RolledUnit(goblin, (face,)),)
    plain = resolve(RollRequest(purpose, units)).total(purpose)
    halved = resolve(RollRequest(purpose, units, effects=(EffectInForce(name),))).total(purpose)
    assert halved == plain // 2 and plain >= 3
    other = "melee" if purpose != "melee" else "save"
    assert resolve(RollRequest(other, units, effects=(EffectInForce(name),))).total(other) == resolve(
        RollRequest(other, units)
    ).total(other)


def test_flood_halves_the_armys_maneuvers_in_the_game_and_is_buried_at_its_next_march():
    """L2686-2688: the army's maneuver rolls are halved; at the start of its next march the minor
    terrain is buried (and the army may then maneuver or bring another in)."""
    game = game_with_minors()
    bring(game, "Coastland Bridge", "1 Flood")
    st = game.state
    bridge = uid_of(game, "Coastland Bridge", "p1")
    # the flow hands the result to the resolution engine with the army's rolls
    assert [(e.name, e.target) for e in game.effects_on(st.army("p1", "frontier"))] == [("Flood", "army")]
    assert game.effects_on(st.army("p2", "frontier")) == ()
    d = next_turn(game)  # Alice's next turn
    assert st.turn == 3
    choose(game, "p1@frontier")
    assert st.location[bridge] == "bua"
    assert any("Flood ends at the start" in line for line in game.log)
    assert game.pending.topic == "minor_terrain"  # may bring another one instead of maneuvering
    assert d is not None


# -- control (L2614-2628) ------------------------------------------------------------------------


def test_later_marches_keep_reroll_or_bury_and_never_maneuver():
    """L2614-2617, L2627-2628: an army with a minor terrain keeps its result (no maneuver step), rolls
    it again, or buries it."""
    game = bridge_held_at_next_march()
    d = game.pending
    assert d.topic == "minor_terrain" and values(d) == ["keep", "reroll", "bury"]
    choose(game, "reroll")
    roll(game, "1 Double Saves")
    bridge = uid_of(game, "Coastland Bridge", "p1")
    assert mt.active_result(game.state, bridge).name == "Double Saves"
    assert game.pending.topic == "action"


def test_keeping_the_result_forfeits_the_maneuver_step():
    """L2615."""
    game = bridge_held_at_next_march()
    choose(game, "keep")
    assert game.pending.topic == "action"
    assert any("forfeits the maneuver step" in line for line in game.log)


def test_burying_instead_of_maneuvering_blocks_a_new_one_this_turn():
    """L2627-2628."""
    game = bridge_held_at_next_march()
    choose(game, "bury")
    st = game.state
    assert st.location[uid_of(game, "Coastland Bridge", "p1")] == "bua"
    assert mt.eligible(game, "p1", "frontier") == []
    assert game.pending.topic == "action"


def test_each_army_has_at_most_one_minor_terrain():
    """L2620: while the army controls one, no other is offered."""
    game = game_with_minors()
    bring(game, "Coastland Bridge", "1 Double Maneuvers")
    assert mt.eligible(game, "p1", "frontier") == []


def test_an_army_holding_an_eighth_face_may_not_bring_one_in():
    """L2621."""
    game = game_with_minors()
    st = game.state
    until(game, "march", "p1")
    st.terrains["frontier"].face, st.terrains["frontier"].controller = 8, "p1"
    assert mt.eligible(game, "p1", "frontier") == []


def test_capturing_the_eighth_face_buries_the_minor_terrain():
    """L2621-2623."""
    game = game_with_minors()
    bring(game, "Coastland Bridge", "1 Double Maneuvers")
    st = game.state
    st.terrains["frontier"].face, st.terrains["frontier"].controller = 8, "p1"
    game.cleanup()
    assert st.location[uid_of(game, "Coastland Bridge", "p1")] == "bua"
    assert mt.active_result(st, uid_of(game, "Coastland Bridge", "p1")) is None


def test_the_minor_terrain_is_buried_when_its_army_leaves():
    """L2624-2625: all the army's units leave (here: retreat to the Reserve Area)."""
    game = game_with_minors()
    bring(game, "Coastland Bridge", "1 Double Maneuvers")
    st = game.state
    d = until(game, "retreat", "p1")
    mine = [u for u in d.data["units"] if st.location[u] == "frontier" and st.units[u].is_unit]
    game.apply({"type": "retreat", "units": mine})
    assert st.location[uid_of(game, "Coastland Bridge", "p1")] == "bua"
    assert any("left the terrain" in line for line in game.log)


def test_a_minor_terrain_cannot_be_moved_with_units():
    """L2609-2625: it stays beside its army; a retreat listing it is refused, nothing changes."""
    game = game_with_minors()
    bring(game, "Coastland Bridge", "1 Double Maneuvers")
    st = game.state
    until(game, "retreat", "p1")
    bridge = uid_of(game, "Coastland Bridge", "p1")
    with pytest.raises(IllegalAction, match="minor terrain"):
        game.apply({"type": "retreat", "units": [bridge]})
    assert st.location[bridge] == "frontier"


def test_deadlands_may_enter_play_at_any_terrain():
    """L2604-2608, L2643: the Deadlands go anywhere; another minor terrain only where the terrain
    shares one of its elements."""
    game = game_with_minors(minors=["Deadland Woods", "Feyland Knoll"])
    d = until(game, "march", "p1")
    choose(game, "p1@home-p2")
    names = {game.state.units[v].name.split("/")[1] for v in values(game.pending) if v != "maneuver"}
    assert names == {"Deadland Woods", "Feyland Knoll"}  # Feyland (fire, water) shares water
    assert d is not None
    game2 = game_with_minors(minors=["Deadland Woods", "Flatland Knoll"])
    until(game2, "march", "p1")
    choose(game2, "p1@home-p1")  # Highland (earth, fire): Flatland (air, earth) shares earth
    names = {game2.state.units[v].name.split("/")[1] for v in values(game2.pending) if v != "maneuver"}
    assert names == {"Deadland Woods", "Flatland Knoll"}
    game3 = game_with_minors(minors=["Deadland Woods", "Coastland Knoll"])
    until(game3, "march", "p1")
    choose(game3, "p1@home-p1")  # Highland (earth, fire) and Coastland (air, water) share nothing
    names = {game3.state.units[v].name.split("/")[1] for v in values(game3.pending) if v != "maneuver"}
    assert names == {"Deadland Woods"}


def test_minor_terrains_need_the_option_when_options_are_given():
    """L2506-2508: with game options that leave minor terrains out, bringing them is refused."""
    with pytest.raises(IllegalSetup, match="minor_terrains"):
        Game(adv_setup(["items"], p0_minor_terrains=["Deadland Woods"]))


def _counter_maneuver_total(minor: str) -> int:
    """Alice brings `minor` in at the Frontier (Coastland: air, water); on Bob's turn she
    counter-maneuvers there rolling only melee faces; her maneuver total is returned."""
    game = game_with_minors(minors=[minor])
    bring(game, minor, "1 Magic")
    d = until(game, "march", "p2")
    choose(game, "p2@frontier")
    choose(game, "maneuver")
    choose(game, "counter")
    d = game.pending
    game.apply(
        {
            "type": "roll",
            "faces": [next((f for f in x["faces"] if "Magic" in f), x["faces"][0]) for x in d.dice],
        }
    )  # Bob: nothing
    d = game.pending
    assert d.player == "p1" and d.data["roll"] == "maneuver"
    game.apply(
        {
            "type": "roll",
            "faces": [next((f for f in x["faces"] if "Melee" in f), x["faces"][0]) for x in d.dice],
        }
    )
    return game.state.last_roll["total"]


def test_a_minor_terrains_elements_count_for_species_abilities():
    """L2630-2632: with the Flatland Knoll (air, earth) beside them, Dwarves at Coastland (air, water)
    have earth for Mountain Mastery (melee counts as maneuver, L828-830); the Deadland Woods (death)
    gives them nothing."""
    game = game_with_minors(minors=["Flatland Knoll"])
    bring(game, "Flatland Knoll", "1 Magic")
    assert mt.terrain_elements(game, game.state.army("p1", "frontier")) == ("Air", "Earth")
    assert mt.terrain_elements(game, game.state.army("p2", "frontier")) == ()
    assert _counter_maneuver_total("Deadland Woods") == 0
    assert _counter_maneuver_total("Flatland Knoll") >= 5
