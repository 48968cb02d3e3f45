"""Damage allocation: which units die (V4.01c L1104-1119; R96 L546-560).

"Enough units must be killed to cover all remaining damage, but never in excess of it."  Read as a
subset sum over the units' health: the health killed is the largest sum of a subset of the army's
health values that does not exceed the damage (R96-12: 2 damage on {1, 1, 2, 3} kills both 1s or the 2;
2 damage on {3, 3, 3, 3} kills nothing; 4 damage on {3, 3} kills one 3).  Every subset with that sum
is a legal choice; any other is refused.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from .errors import IllegalAllocation

RULE = "V4.01c L1113"


def health_to_kill(healths: Sequence[int], damage: int) -> int:
    """Largest subset sum of `healths` that is <= `damage`."""
    if damage <= 0:
        return 0
    reachable = 1  # bit i set: sum i reachable
    mask = (1 << (damage + 1)) - 1
    for h in healths:
        if h > 0:
            reachable = (reachable | (reachable << h)) & mask
    return reachable.bit_length() - 1


def is_legal_allocation(healths: Sequence[int], chosen: Sequence[int], damage: int) -> bool:
    """`chosen` are indexes into `healths`."""
    if len(set(chosen)) != len(chosen) or any(not 0 <= i < len(healths) for i in chosen):
        return False
    return sum(healths[i] for i in chosen) == health_to_kill(healths, damage)


def legal_allocations(units: Sequence[tuple[str, str, int]], damage: int, limit: int = 64) -> list[list[str]]:
    """Legal sets of units to kill, one per distinct multiset of dice.

    `units` are (uid, die name, health).  Units of the same die are interchangeable for the rules, so
    each distinct combination of dice is listed once (with the first uids of each die); at most
    `limit` sets are listed, the test for legality (``check_allocation``) covers every set.
    """
    target = health_to_kill([h for _, _, h in units], damage)
    if target == 0:
        return [[]]
    by_die: dict[tuple[str, int], list[str]] = {}
    for uid, die, h in units:
        by_die.setdefault((die, h), []).append(uid)
    kinds = sorted(by_die, key=lambda k: (-k[1], k[0]))
    out: list[list[str]] = []

    def walk(i: int, remaining: int, picked: list[str]) -> None:
        if len(out) >= limit:
            return
        if remaining == 0:
            out.append(list(picked))
            return
        if i == len(kinds):
            return
        die, h = kinds[i]
        uids = by_die[(die, h)]
        for n in range(min(len(uids), remaining // h), -1, -1):
            walk(i + 1, remaining - n * h, picked + uids[:n])

    walk(0, target, [])
    return out


def check_allocation(units: Sequence[tuple[str, str, int]], chosen: object, damage: int) -> list[str]:
    """Validate a chosen set of uids; returns it or raises ``IllegalAllocation`` saying why."""
    if (
        isinstance(chosen, str | bytes)
        or not isinstance(chosen, Sequence)
        or not all(isinstance(u, str) for u in chosen)
    ):
        raise IllegalAllocation("units to kill must be a list of unit ids", RULE)
    health = {uid: h for uid, _, h in units}
    unknown = [u for u in chosen if u not in health]
    if unknown:
        raise IllegalAllocation(f"{unknown} are not units of the damaged army", RULE)
    dup = [u for u, n in Counter(chosen).items() if n > 1]
    if dup:
        raise IllegalAllocation(f"{dup} listed more than once", RULE)
    target = health_to_kill(list(health.values()), damage)
    got = sum(health[u] for u in chosen)
    if got != target:
        if got > damage:
            why = f"killing {got} health is in excess of the {damage} damage"
        else:
            why = f"killing {got} health does not cover the damage: {target} health must die for {damage} damage"
        raise IllegalAllocation(why, RULE)
    return list(chosen)


def legal_subset_count(healths: Sequence[int], damage: int) -> int:
    """Number of legal uid subsets (for tests on small armies)."""
    target = health_to_kill(healths, damage)
    return sum(
        1
        for r in range(len(healths) + 1)
        for combo in combinations(range(len(healths)), r)
        if sum(healths[i] for i in combo) == target
    )
