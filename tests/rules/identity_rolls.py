"""Random roll requests of both editions and a digest of each one's resolution, for the identity test
of the resolution engine (``test_rules_resolution_identity.py``).

The fixture ``tests/fixtures/resolution_identity.txt`` holds one line per roll, in order: the
first 12 hex digits of the SHA-256 of everything the resolution says (edition, purpose, totals,
magic by element, other results, every explained step, every report, the per-unit results, in
their order), or of the error a roll that cannot be resolved raises.  It was written by the
single-function engine (commit d632fce) before the engine became a pipeline of named steps:

    python tests/rules/identity_rolls.py > tests/fixtures/resolution_identity.txt

(run under several ``PYTHONHASHSEED`` values: a line whose digest changed with the seed lists each
digest seen, separated by ``|``).

The rolls are drawn from a fixed seed with ``random.Random``, so the same requests come back on
every run: many species, items and monsters, re-roll chains, every purpose (``dragon`` included),
saves against each attack, combination rolls, reserve and individual rolls, spells of the edition
cast on the army, the terrain or units, and the owner's choices (ID types, penalty order and split).
"""

from __future__ import annotations

import hashlib
import random
from types import MappingProxyType

from companion.rules.catalogue import load_catalogue
from companion.rules.resolution import (
    RESULT_TYPES,
    EffectInForce,
    ResolutionError,
    RolledUnit,
    RollRequest,
    RollTerrain,
    get_edition,
    resolve,
)
from companion.rules.resolution.model import AGAINST, PURPOSES

SEED = 20261126
COUNT = 4000
EDITIONS = ("v4", "r96")
TERRAINS = ("Coastland", "Flatland", "Highland", "Swampland", "Feyland", "Wasteland")
EIGHTHS = (None, "City", "Standing Stones", "Temple", "Tower")
TARGETS = ("army", "terrain", "unit", "opponent")
#: Spells that multiply or divide, drawn more often (few spells do, and those stages need rolls too).
FAVOURED = {
    "v4": ("Wilding", "Berserker Rage", "Frost Breath", "Lightning Bolt"),
    "r96": ("Burning Hands", "Wall of Fog", "Dancing Lights"),
}
SPECIES = ("Goblins", "Lava Elves", "Undead", "Frostwings", "Dwarves", "Amazons")


def _dice():
    cat = load_catalogue()
    return [d for d in cat if d.is_unit or d.is_item]


def _faces(rng: random.Random, die) -> tuple:
    faces = [rng.choice(die.faces)]
    # a SAI face may make the die roll again: sometimes give the re-roll (an invalid chain raises,
    # and the error is part of what is compared)
    while faces[-1].is_sai and len(faces) < 3 and rng.random() < 0.3:
        faces.append(rng.choice(die.faces))
    return tuple(faces)


def _choices(rng: random.Random, n: int, counted: frozenset[str], effects) -> dict:
    choices: dict = {}
    kinds = sorted(counted)
    if rng.random() < 0.15:
        choices["id_as"] = rng.choice(kinds)
    elif rng.random() < 0.1 and len(kinds) > 1:
        choices["id_as"] = {i: {kinds[0]: 1, kinds[1]: 1} for i in range(n) if rng.random() < 0.5}
    if rng.random() < 0.15:
        choices["penalty first"] = [rng.randrange(n) for _ in range(rng.randint(1, 2))]
    for e in effects:
        r = rng.random()
        if r < 0.1:
            choices[e.name] = False
        elif r < 0.2 and len(kinds) > 1:
            choices[f"{e.name} split"] = {kinds[0]: e.castings}
    return choices


def roll(rng: random.Random, dice, spells: dict[str, list[str]]) -> RollRequest:
    edition = rng.choice(EDITIONS)
    purpose = rng.choice(PURPOSES)
    individual = rng.random() < 0.1
    n = 1 if individual else rng.randint(1, 12)
    units = tuple(
        RolledUnit(die, _faces(rng, die), counts=rng.random() > 0.08)
        for die in (rng.choice(dice) for _ in range(n))
    )
    against = rng.choice(AGAINST + (None,)) if purpose == "save" else None
    counted = None
    if rng.random() < 0.12:
        counted = frozenset(rng.sample(RESULT_TYPES, rng.randint(1, 3)))
    in_reserve = rng.random() < 0.1
    terrain = None
    if not in_reserve and rng.random() < 0.95:
        controlled = rng.random() < 0.4
        terrain = RollTerrain(
            rng.choice(TERRAINS), 8 if controlled else rng.randint(1, 7), rng.choice(EIGHTHS), controlled
        )
    effects = tuple(
        EffectInForce(
            name,
            rng.randint(1, 3),
            target,
            frozenset(rng.sample(range(n), min(n, 2))) if target == "unit" else frozenset(),
            hostile=rng.random() < 0.3,
        )
        for name, target in (
            (rng.choice(FAVOURED[edition] if rng.random() < 0.25 else spells[edition]), rng.choice(TARGETS))
            for _ in range(rng.randint(0, 3))
        )
    )
    req_counted = counted if counted is not None else None
    probe = RollRequest(purpose, units, edition=edition, counted=req_counted)
    choices = _choices(rng, n, probe.counted_types(), effects)
    return RollRequest(
        purpose,
        units,
        edition=edition,
        against=against,
        counted=req_counted,
        terrain=terrain,
        in_reserve=in_reserve,
        effects=effects,
        individual=individual,
        counter_attack=rng.random() < 0.2,
        charge=rng.random() < 0.2,
        counter_maneuver=rng.random() < 0.15,
        marching=rng.random() < 0.8,
        choices=MappingProxyType(choices),
        dua_counts=MappingProxyType({s: rng.randint(0, 6) for s in rng.sample(SPECIES, rng.randint(0, 3))}),
        force_points=rng.choice((15, 24, 30, 36)),
    )


def rolls(count: int = COUNT, seed: int = SEED) -> list[RollRequest]:
    rng = random.Random(seed)
    dice = _dice()
    spells = {e: sorted(get_edition(e).spell_names) for e in EDITIONS}
    return [roll(rng, dice, spells) for _ in range(count)]


def outcome(request: RollRequest) -> str:
    """Everything the resolution of ``request`` says, in order, as text (or the error it raises)."""
    try:
        r = resolve(request, memo=False)
    except (ResolutionError, ValueError, TypeError) as exc:
        return f"error {type(exc).__name__}: {exc}"
    return repr(
        (
            r.edition,
            r.purpose,
            list(r.totals.items()),
            list(r.magic.items()),
            list(r.other.items()),
            [(s.step, s.rule, s.citation, s.text, s.result, s.before, s.after, s.source) for s in r.steps],
            [(x.source, x.text, x.amount, x.unit, x.kind) for x in r.reports],
            [list(p.items()) for p in r.per_unit],
        )
    )


def digest(request: RollRequest) -> str:
    return hashlib.sha256(outcome(request).encode()).hexdigest()[:12]


if __name__ == "__main__":
    for req in rolls():
        print(digest(req))
