"""The tables as data (BD L130-265, L288-651) and one driven test per row, grouped by effect kind.

Every monster-table row is played from a Monster point; every Tactics, Spell and Maneuver row is
reached through the Archmage table (Spell -> Spell table, Haste -> Maneuver table, Command ->
Tactics table).  Amount rolls are answered with a d6 showing 6 (1D3 reads 3, 1D6 reads 6).
"""

from __future__ import annotations

import re

import pytest

from companion.rules.battle_dice.tables import (
    CORE_TABLES,
    MANEUVER,
    MISLABELLED_TABLES,
    MONSTER_TABLES,
    SPELL,
    TACTICS,
)


def test_table_counts_match_the_inventory():
    assert len(CORE_TABLES) == 3
    assert [len(t.rows) for t in (TACTICS, SPELL, MANEUVER)] == [6, 10, 5]
    assert len(MONSTER_TABLES) == 14
    assert sum(len(t.rows) for t in MONSTER_TABLES.values()) == 63
    assert sorted(MISLABELLED_TABLES) == ["dwarf_lord", "elf_lord", "knight"]


@pytest.mark.parametrize("key", sorted({**CORE_TABLES, **MONSTER_TABLES}))
def test_rows_are_contiguous_and_cite_lines_inside_their_table(key):
    table = {**CORE_TABLES, **MONSTER_TABLES}[key]
    expected = 1
    for row in table.rows:
        assert row.lo == expected and row.hi >= row.lo
        expected = row.hi + 1
    assert table.highest_row in (table.sides, 8)
    lo, hi = map(int, re.findall(r"\d+", table.citation))
    for row in table.rows:
        a, b = map(int, re.findall(r"\d+", row.citation))
        assert lo <= a <= b <= hi, (row.name, row.citation, table.citation)


ARCHMAGE_ROUTE = {"spell": [], "maneuver": [3], "tactics": [10]}  # Spell-table faces leading there

CASES = [(k, row) for k, t in MONSTER_TABLES.items() for row in t.rows] + [
    (k, row) for k, t in CORE_TABLES.items() for row in t.rows
]


def _case_id(case):
    key, row = case
    return f"{key}-{row.lo}-{row.name.replace(' ', '_')}"


def _start(make_game, army, monster: str):
    # A: d6, d12, d20 (17 -> one Monster point), d20 (1 -> leaves, so a destroyed die exists)
    # B: d4, d6, d6, d8
    d = make_game(
        army("A", monster, infantry=1, mage=1, monster=2), army("B", general=1, infantry=2, archer=1)
    )
    d.roll("A", [2, 3, 17, 1])
    d.roll("B", [4, 5, 3, 7])
    return d


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_every_row_does_what_its_effect_kind_says(make_game, army, case):
    key, row = case
    if key in MONSTER_TABLES:
        d = _start(make_game, army, key)
        d.roll("A", [row.lo], purpose=f"{key} table")
    else:
        d = _start(make_game, army, "archmage")
        d.roll("A", [1], purpose="archmage table")  # Spell: roll on the Spell table
        for face in ARCHMAGE_ROUTE[key]:
            d.roll("A", [face], purpose="spell table")
        d.roll("A", [row.lo], purpose=f"{key} table")
    assert d.events_of("table")[-1]["row"] == row.name
    d.run_phase_out("monster")
    a, b = d.game.data["this_turn"]["A"], d.game.data["this_turn"]["B"]
    b_dice = d.game.data["armies"]["B"]["dice"]
    for effect in row.effects:
        amount = effect.amount if isinstance(effect.amount, int) else {"1d3": 3, "1d6": 6}[effect.amount]
        kind = effect.kind
        if kind == "kill_now":
            assert len([e for e in d.events_of("destroyed") if e["player"] == "B"]) == min(amount, 4)
        elif kind == "kill_chosen":
            assert [e["cause"] for e in d.events_of("destroyed") if e["player"] == "B"] == [row.name]
        elif kind == "kill_in_phase":
            assert a["kills"][effect.phase] == amount
        elif kind == "set_to_one":
            assert sum(1 for x in b_dice if x["face"] == 1) == min(amount, 4)
        elif kind == "gain_points":
            pool = "spell" if effect.pool == "magic" else effect.pool
            assert a["gains"][pool] == amount
        elif kind == "enemy_loses_points":
            assert b["losses"][effect.pool] == amount
        elif kind == "morale":
            target = a if effect.target == "self" else b
            assert target["morale"] == [effect.sign * amount]
        elif kind == "negate":
            assert a["negate"] == amount
        elif kind == "restore":  # the departed d20 (A04) comes back without a face (R09)
            assert d.die("A04") is not None and d.die("A04")["face"] is None
        elif kind == "control":  # the first legal choice, B's d4
            assert d.die("B01") in d.game.data["armies"]["A"]["dice"]
            assert d.die("B01")["face"] == 4  # keeps its face (R10)
            assert b["casualties"] == 1  # counts as lost (R17)
        elif kind == "summon":
            gained = d.events_of("gained")
            if effect.unit:  # Vampire Drain: one new vampire d20
                assert [d.die(e["die"])["monster"] for e in gained] == ["vampire"]
            else:  # first legal type is the d4 General, 1D3 -> 3 dice, unrolled
                assert [d.die(e["die"])["sides"] for e in gained] == [4, 4, 4]
                assert all(d.die(e["die"])["face"] is None for e in gained)
        elif kind == "roll_table":
            assert any(e["table"] == effect.table for e in d.events_of("table"))
        elif kind == "hit_on":
            assert a["hit_on"][effect.unit] == effect.face
        elif kind == "initiative":
            assert a["initiative"] == ["missile"]
        elif kind == "maneuver_next_turn":
            assert a["maneuver_next_turn"] == effect.amount
        elif kind == "pick_result":  # first choice is Charge: kill 1D3
            assert d.events_of("table")[-1]["row"] == "Charge"
            assert len([e for e in d.events_of("destroyed") if e["player"] == "B"]) == 3
        else:  # pragma: no cover - a new effect kind needs a case here
            pytest.fail(f"untested effect kind {kind}")


def test_giant_nine_to_zero_row_takes_a_d10_zero(make_game, army):
    """R02: the Giant's '9-0' row is 9-10; a d10 entered as 0 is a 10."""
    d = _start(make_game, army, "giant")
    d.expect("roll", "A", "giant table")
    assert d.pending["choices"]["dice"][0]["sides"] == 10
    d.game.apply({"kind": "roll", "faces": [0]})
    assert d.events_of("table")[-1]["row"] == "Thick Hide"


@pytest.mark.parametrize("key", ["elf_lord", "dwarf_lord", "knight"])
def test_tables_printed_1d6_with_rows_7_8_roll_a_d8(make_game, army, key):
    """R01 default: d8, so rows 7-8 can happen; option d6 keeps the printed die."""
    d = _start(make_game, army, key)
    assert d.expect("roll", "A")["choices"]["dice"][0]["sides"] == 8
    d.roll("A", [8])
    assert d.events_of("table")[-1]["row"] == MONSTER_TABLES[key].rows[-1].name
    d6 = make_game(
        army("A", key, infantry=1, mage=1, monster=2),
        army("B", general=1, infantry=2, archer=1),
        options={"R01": "d6"},
    )
    d6.roll("A", [2, 3, 17, 1])
    d6.roll("B", [4, 5, 3, 7])
    assert d6.expect("roll", "A")["choices"]["dice"][0]["sides"] == 6
    with pytest.raises(ValueError, match="impossible on a d6"):
        d6.game.apply({"kind": "roll", "faces": [8]})


def test_a_kill_chosen_row_with_a_dice_amount_rolls_it_and_the_caster_picks_that_many(make_game, army):
    """An effect amount is a number or a dice expression (tables module doc); ``kill_chosen`` used to pass
    the expression on as a number of hits (found by the type checker)."""
    from companion.rules.battle_dice import effects
    from companion.rules.battle_dice.tables import SPELL, Row, RowEffect

    d = make_game(army("A", infantry=3), army("B", infantry=3))
    board = d.game.board
    for face, die in enumerate(board.army("B")["dice"], start=1):
        die["face"] = face  # different faces: which dice die matters, so the caster is asked
    row = Row(7, 7, "Death by 1D6", (RowEffect("kill_chosen", "1d6"),), "BD L207-209")
    step = effects.kill_chosen(board, "A", row.effects[0], row, SPELL)
    roll = next(step)
    assert (roll.player, roll.kind, roll.dice[0]["sides"]) == ("A", "roll", 6)
    choose = step.send({"faces": [2], "source": "typed"})
    assert (choose.player, choose.kind, choose.count) == (
        "A",
        "choose_dice",
        2,
    )  # the caster picks 2 of B's dice
    with pytest.raises(StopIteration):
        step.send({"dice": ["B01", "B03"]})
    assert [x["id"] for x in board.army("B")["dice"]] == ["B02"]
