"""The resolution engine gives, on 4,000 random rolls of both editions, exactly what the
single-function engine gave before it became a pipeline of named steps: the same totals, magic by
element, other results, explained steps, reports and per-unit results, in the same order, and the
same errors for the rolls it refuses.  The digests were written by that engine (commit d632fce;
see ``identity_rolls.py`` for the rolls and how the fixture is written).

One roll (1806: Ash Storm on a dragon-attack combination roll whose melee and missile totals tie)
has two digests: the old engine placed the tied penalty in the order of Python's string hashes, so
its explained steps came in either order from one process to the next; the first digest, melee
before missile (the order of ``RESULT_TYPES``), is the one the pipeline always gives now."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from identity_rolls import COUNT, digest, outcome, rolls

from companion.rules.resolution import get_edition, resolve

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "resolution_identity.txt"
ROLLS = rolls()


def test_every_roll_resolves_as_the_single_function_engine_did():
    expected = [line.split("|") for line in FIXTURE.read_text().split()]
    assert len(expected) == COUNT == len(ROLLS)
    got = [digest(req) for req in ROLLS]
    differ = [k for k, (a, b) in enumerate(zip(got, expected, strict=True)) if a not in b]
    assert differ == [], (
        f"{len(differ)} of {COUNT} rolls resolve differently, first {differ[:10]}; "
        f"roll {differ[0]} now gives {outcome(ROLLS[differ[0]])[:2000]}"
    )


def test_the_random_rolls_reach_every_part_of_the_engine():
    """The comparison above is only worth the rolls it covers: both editions, every purpose, rolls
    that resolve and rolls that are refused, and resolutions that go through each modifier stage,
    SAI results, re-rolls and the owner's choices."""
    seen: Counter = Counter()
    for req in ROLLS:
        seen[(req.edition, req.purpose)] += 1
        try:
            res = resolve(req, memo=False)
        except ValueError:
            seen["refused"] += 1
            continue
        seen["resolved"] += 1
        ed = get_edition(req.edition)
        numbers = {s.step for s in res.steps}
        for name in ("subtract", "divide", "multiply", "add", "sai", "reroll"):
            if ed.step_numbers.get(name) in numbers:
                seen[(req.edition, name)] += 1
        if req.choices:
            seen["choices"] += 1
        if len(req.counted_types()) > 1:
            seen["combination"] += 1
    for edition in ("v4", "r96"):
        for purpose in ("maneuver", "melee", "missile", "magic", "save", "dragon"):
            assert seen[(edition, purpose)] >= 100, (edition, purpose)
        for name in ("subtract", "divide", "multiply", "add") + (
            ("sai", "reroll") if edition == "v4" else ()
        ):
            assert seen[(edition, name)] >= 10, (edition, name, seen)
    assert seen["resolved"] >= 2000 and seen["refused"] >= 200
    assert seen["choices"] >= 300 and seen["combination"] >= 300
