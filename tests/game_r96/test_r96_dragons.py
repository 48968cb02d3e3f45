"""1996 dragons in the flow (R96 L826-920): attacks at the start of the army owner's turn, 5/10 damage,
tail, belly, the five breaths, treasure, wing, slaying and promotion, dragon against dragon."""

from __future__ import annotations

from r96_helpers import BUA, DUA, RESERVE, cast, choose, roll, stage, started, where

from companion.rules.core.state import Unit, spec_for

FRONT = "frontier"


def dragon(game, owner, name, loc=FRONT):
    uid = f"d{len(game.state.units)}"
    game.state.units[uid] = Unit(uid, owner, spec_for(name))
    game.state.location[uid] = loc
    return uid


def board(army, dead=None, **kw):
    game = started(**kw)
    table = {("p1", FRONT): army, ("p1", "home-p1"): ["Dwarves/Footman"], ("p2", "home-p2"): ["Goblins/Thug"]}
    units = stage_later(game, table, dead)
    return game, units


def stage_later(game, table, dead):
    """Stage, but leave the frontier roll pending so that dragons can be placed before the turn starts."""
    from r96_helpers import stage as _stage

    pending = game.pending
    game._pending = None  # stage() answers a pending terrain roll; keep it for after the dragons
    units = _stage(game, table, dead=dead)
    game._pending = pending
    return units


def start(game):
    roll(game, "4")


def test_claws_then_the_army_slays_the_dragon_and_promotes():
    """R96 L872, L889-905: claws 5 damage; 10 hits slay a dragon; the army promotes all it can."""
    game, units = board(["Dwarves/Patroller"] * 4, dead={"p1": ["Dwarves/Mammoth Rider"] * 2})
    red = dragon(game, "p2", "Dragons/Red Drake")
    start(game)
    assert game.pending.topic == "dragon_roll" and game.pending.player == "p2"
    roll(game, "6 Claw")
    assert game.pending.data["roll"] == "dragon"
    log = roll(game, "3 Melee", "3 Melee", "3 Melee", "3 Melee")
    assert where(game, red) == DUA
    assert game.pending.topic == "dragon_promotion"  # the army "may promote" (R96 L902-905)
    log += choose(game, game.pending.choices[0]["value"])
    army = [u.name for u in game.state.army("p1", FRONT).units]
    assert army == ["Dwarves/Mammoth Rider", "Dwarves/Mammoth Rider"], (
        log
    )  # 2 died (5 damage -> 4 health), 2 promoted


def test_jaws_10_and_the_dragons_automatic_saves():
    """R96 L874, L893-899: jaws 10 damage; 9 hits do not slay a dragon (5 health + 5 saves)."""
    game, units = board(["Dwarves/Patroller"] * 6)
    red = dragon(game, "p2", "Dragons/Red Drake")
    start(game)
    roll(game, "12 Jaw")
    roll(game, "3 Melee", "3 Melee", "3 Melee", "2 Save", "2 Save", "ID")
    assert game.pending.topic == "id_as" and [c["value"] for c in game.pending.choices] == [
        "save",
        "melee",
        "missile",
    ]
    choose(game, "save")
    assert where(game, red) == FRONT
    assert len(game.state.army("p1", FRONT).units) == 4  # 10 - 6 saves (the ID as saves) = 4: two patrollers


def test_belly_leaves_the_dragon_without_saves():
    """R96 L843-844: on a belly 5 damage slays the dragon."""
    game, units = board(["Dwarves/Patroller"] * 2)
    red = dragon(game, "p2", "Dragons/Red Drake")
    start(game)
    roll(game, "0 Belly")
    roll(game, "3 Melee", "2 Maneuver")
    assert where(game, red) == FRONT
    game, units = board(["Dwarves/Patroller"] * 2)
    red = dragon(game, "p2", "Dragons/Red Drake")
    start(game)
    roll(game, "0 Belly")
    roll(game, "3 Melee", "3 Melee")
    assert where(game, red) == DUA


def test_tail_rolls_again():
    """R96 L876-880: tail 3 damage and the dragon rolls again while tails come up."""
    game, units = board(["Dwarves/Footman"] * 12)
    dragon(game, "p2", "Dragons/Red Drake")
    start(game)
    roll(game, "3 Tail")
    assert game.pending.topic == "dragon_roll"
    roll(game, "3 Tail")
    log = roll(game, "6 Claw")
    assert any("3 Tail, 3 Tail, 6 Claw" in line for line in log)
    log = roll(game, *["1 Melee"] * 12)
    assert any("deal 11 damage" in line for line in log)
    assert len(game.state.army("p1", FRONT).units) == 1


def test_red_breath_kills_and_buries_five_health():
    """R96 L862-863."""
    game, units = board(["Dwarves/Footman"] * 7)
    dragon(game, "p2", "Dragons/Red Drake")
    start(game)
    roll(game, "5 Breath")
    assert len(game.state.area("p1", BUA)) == 5
    assert len(game.pending.dice) == 2  # the two left respond


def test_gold_breath_turns_to_stone_units_that_roll_no_save():
    """R96 L853-856: five units chosen by the owner each roll alone; no save: dead."""
    game, units = board(["Dwarves/Footman"] * 6)
    dragon(game, "p2", "Dragons/Yellow Drake")
    start(game)
    roll(game, "5 Breath")
    assert game.pending.topic == "turn_to_stone"
    chosen = units[("p1", FRONT)][:5]
    game.apply({"type": "allocate", "units": chosen})
    for face in ("1 Save", "ID", "1 Melee", "2 Melee", "1 Save"):
        assert len(game.pending.dice) == 1
        roll(game, face)
    assert [where(game, u) for u in chosen] == [FRONT, FRONT, DUA, DUA, FRONT]


def test_blue_breath_paralyses_the_army_to_saves_only():
    """R96 L858-860: the army can only roll saves against the dragon."""
    game, units = board(["Dwarves/Patroller"] * 4)
    blue = dragon(game, "p2", "Dragons/Blue Drake")
    start(game)
    roll(game, "5 Breath")
    assert game.pending.data["roll"] == "save"
    roll(game, "3 Melee", "3 Melee", "3 Melee", "3 Melee")
    assert where(game, blue) == FRONT  # 12 melee do not count
    # and this turn the army neither maneuvers nor acts
    choose(game, FRONT)
    assert game.pending.topic == "march" and game.state.march == 2


def test_green_breath_frost_halves_the_response():
    """R96 L865-867: all rolls halved (rounded down) until the owner's next turn."""
    game, units = board(["Dwarves/Patroller"] * 4)
    green = dragon(game, "p2", "Dragons/Green Drake")
    start(game)
    roll(game, "5 Breath")
    roll(game, "3 Melee", "3 Melee", "3 Melee", "3 Melee")  # 12 -> 6: not enough
    assert where(game, green) == FRONT
    assert [e.name for e in game.state.effects] == ["Frost"]


def test_black_breath_disease_buries_units_showing_their_id():
    """R96 L869-870."""
    game, units = board(["Dwarves/Footman"] * 4)
    dragon(game, "p2", "Dragons/Black Drake")
    start(game)
    roll(game, "5 Breath")
    roll(game, "ID", "1 Melee", "ID", "1 Save")
    assert len(game.state.area("p1", BUA)) == 2


def test_wing_flies_away_and_treasure_promotes():
    """R96 L881-887: a wyrm's treasure promotes one unit after the attack; a drake's wing sends it home."""
    game, units = board(["Dwarves/Footman"] * 2, dead={"p1": ["Dwarves/Sergeant"]})
    wyrm = dragon(game, "p2", "Dragons/Black Wyrm")
    start(game)
    roll(game, "1 Treasure")
    roll(game, "1 Melee", "1 Melee")
    assert game.pending.topic == "treasure"
    choose(game, game.pending.choices[0]["value"])
    assert sorted(u.name for u in game.state.army("p1", FRONT).units) == [
        "Dwarves/Footman",
        "Dwarves/Sergeant",
    ]
    assert where(game, wyrm) == FRONT
    game, units = board(["Dwarves/Footman"] * 2)
    drake = dragon(game, "p2", "Dragons/Red Drake")
    start(game)
    roll(game, "5 Wing")
    roll(game, "1 Melee", "1 Melee")
    assert where(game, drake) == DUA


def test_dragons_of_different_colours_fight_each_other_not_the_army():
    """R96 L907-915: a red and a black dragon at the army's terrain attack each other; breath negates the
    target's automatic saves."""
    game, units = board(["Dwarves/Footman"] * 2)
    red = dragon(game, "p1", "Dragons/Red Drake")
    black = dragon(game, "p2", "Dragons/Black Drake")
    start(game)
    roll(game, "5 Breath")  # red breathes on black: its saves are gone
    roll(game, "6 Claw")  # black claws red: 5 < 10
    assert where(game, red) == FRONT and where(game, black) == FRONT
    assert [e.name for e in game.state.effects] == ["Dragon breath"]
    assert len(game.state.army("p1", FRONT).units) == 2 and game.pending.topic == "march"
    game, units = board(["Dwarves/Footman"] * 2)
    red = dragon(game, "p1", "Dragons/Red Drake")
    black = dragon(game, "p2", "Dragons/Black Drake")
    start(game)
    roll(game, "12 Jaw")
    roll(game, "0 Belly")
    assert where(game, black) == DUA and where(game, red) == FRONT


def test_two_dragons_of_one_colour_attack_together():
    """R96 L917-920: melee against one dragon and missile against the other."""
    game, units = board(["Dwarves/Patroller"] * 4 + ["Dwarves/Crossbowman"] * 5)
    a = dragon(game, "p2", "Dragons/Red Drake")
    b = dragon(game, "p2", "Dragons/Red Wyrm")
    start(game)
    roll(game, "0 Belly")
    roll(game, "0 Belly")
    roll(game, "3 Melee", "3 Melee", "2 Save", "2 Save", *["1 Missile"] * 5)
    assert game.pending.topic == "dragon_hits"
    choose(game, f"{a}:{b}")
    assert where(game, a) == DUA and where(game, b) == DUA


def test_summoning_from_a_dead_unit_area():
    """R96 L826-828, L988-989: a summon sends a dragon from any dead unit area to any terrain."""
    game = started()
    units = stage(
        game,
        {
            ("p1", FRONT): ["Dwarves/Thaumaturgist"] * 3,
            ("p1", "home-p1"): ["Dwarves/Footman"],
            ("p2", "home-p2"): ["Goblins/Thug"],
        },
        faces={FRONT: 1},
    )
    choose(game, FRONT)
    choose(game, "stay")
    choose(game, "magic")
    roll(game, "3 Magic", "3 Magic", "3 Magic")
    black = next(u.uid for u in game.state.area("p2", DUA) if u.spec.kind == "dragon")
    red = next(u.uid for u in game.state.area("p1", DUA) if u.spec.kind == "dragon")
    cast(game, {"spell": "Summon Red Dragon", "dragon": red, "target": "home-p2"})
    assert where(game, red) == "home-p2" and where(game, black) == DUA and units
    assert game.state.to_dict()["dragons"][0]["location"] in ("home-p2", DUA)
    assert RESERVE not in {d["location"] for d in game.state.to_dict()["dragons"]}
