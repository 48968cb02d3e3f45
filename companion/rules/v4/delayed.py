"""Step 2 of die roll resolution (V4.01c L1015-1016): SAI effects delayed from the attacker's roll
that act on the defending army's save roll, after it is rolled and before re-rolls and SAIs.

The delayed SAIs (Choke, Decapitate, Hypnotic Glare, Impale, Earthfang's logo; Confuse, which
re-rolls) report an :class:`~companion.rules.v4.contributions.RollEffect` with a ``delayed_*`` kind
when the attacker rolls them.  :func:`apply_delayed` takes those effects and the defender's rolled
units and marks the units whose results no longer count (killed or hypnotized: "none of their
results are counted towards the army's save results"), choosing targets as the rules require:
an SAI aimed at an opponent uses the most targets and health-worth it can (L1233-1235).
Confuse's targets are listed for re-rolling; their new faces come from the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations

from ..resolution.model import RolledUnit
from .contributions import RollEffect


@dataclass(frozen=True, slots=True)
class DelayedOutcome:
    """Indexes into the defender's units: ``killed`` and ``hypnotized`` no longer count for the
    save roll; ``reroll`` must be rolled again (Confuse), earlier results ignored."""

    killed: frozenset[int] = frozenset()
    hypnotized: frozenset[int] = frozenset()
    reroll: frozenset[int] = frozenset()
    notes: tuple[str, ...] = ()

    @property
    def not_counting(self) -> frozenset[int]:
        return self.killed | self.hypnotized


def _rolled_id(unit: RolledUnit) -> bool:
    return bool(unit.faces) and unit.faces[0].is_id


def _health(unit: RolledUnit) -> int:
    return int(unit.die.health or 0)


def _best_subset(
    candidates: Sequence[int], health: dict[int, int], cap: int, score: Callable[[int], int]
) -> tuple[int, ...]:
    """Most health-worth not above ``cap`` (ties: higher ``score``), by exhaustive search over the
    few candidates a save roll has (an army is a handful of dice)."""
    best: tuple[int, ...] = ()
    best_key = (0, 0, 0)
    pool = list(candidates)[:16]
    for k in range(1, len(pool) + 1):
        for combo in combinations(pool, k):
            hw = sum(health[i] for i in combo)
            if hw > cap:
                continue
            key = (hw, sum(score(i) for i in combo), -k)
            if key > best_key:
                best, best_key = combo, key
    return best


def apply_delayed(
    units: Sequence[RolledUnit], effects: Iterable[RollEffect]
) -> tuple[tuple[RolledUnit, ...], DelayedOutcome]:
    """Apply delayed SAI effects to the defender's rolled units (``RolledUnit``-like: ``die``,
    ``faces``, ``counts``).  Returns the units with ``counts=False`` where their results no longer
    count, and what happened.  Items are never targets (they are not units)."""
    units = tuple(units)
    alive = [i for i, u in enumerate(units) if u.counts and u.die.is_unit]
    health = {i: _health(units[i]) for i in alive}
    killed: set[int] = set()
    hypnotized: set[int] = set()
    reroll: set[int] = set()
    notes: list[str] = []
    for effect in effects:
        kind = effect.kind
        if not kind.startswith("delayed_"):
            continue
        ids = [i for i in alive if _rolled_id(units[i]) and i not in killed and i not in hypnotized]
        if kind == "delayed_kill_id":
            if effect.source == "Choke":
                chosen = _best_subset(ids, health, int(effect.amount or 0), lambda i: health[i])
            else:  # Decapitate, Impale, Earthfang: one unit that rolled its ID, the biggest
                chosen = (max(ids, key=lambda i: (health[i], -i)),) if ids else ()
            killed.update(chosen)
            notes.append(
                f"{effect.source}: {len(chosen)} unit(s) that rolled their ID killed [{effect.citation}]"
            )
        elif kind == "delayed_hypnotize":
            hypnotized.update(ids)
            notes.append(
                f"{effect.source}: {len(ids)} unit(s) that rolled their ID hypnotized [{effect.citation}]"
            )
        elif kind == "delayed_reroll":
            candidates = [i for i in alive if i not in killed and i not in hypnotized and i not in reroll]
            chosen = _best_subset(
                candidates, health, int(effect.amount or 0), lambda i: _save_value(units[i])
            )
            reroll.update(chosen)
            notes.append(f"{effect.source}: {len(chosen)} unit(s) to roll again [{effect.citation}]")
    out = tuple(
        replace(u, counts=False) if i in killed or i in hypnotized else u for i, u in enumerate(units)
    )
    return out, DelayedOutcome(frozenset(killed), frozenset(hypnotized), frozenset(reroll), tuple(notes))


def _save_value(unit: RolledUnit) -> int:
    """How much a unit's current face gives a save roll (the attacker re-rolls the best first)."""
    face = unit.faces[0] if unit.faces else None
    if face is None:
        return 0
    if face.is_id or face.icon == "Save":
        return face.count
    return 0
