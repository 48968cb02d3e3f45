"""Promotion as the dragon rules use it: a treasure promotes one unit (a White Dragon's two), killing
dragons promotes as many units of the army as possible (V4.01c L666-668, L688-690, L762-765,
L1138-1157).

To promote a unit is to exchange it with a unit of the same species one health larger from its
owner's DUA (L1138-1141).  "As many as possible" matches every unit that can be promoted with a DUA
unit first and then exchanges them all at once (L1144-1147), so a unit sent to the DUA by one
exchange is never the larger unit of another; every unit of the army may take part, even one that
did not roll (L1150-1151).  Dracolem are never promoted (L1157).  Which exchanges are legal, and
the exchange itself (Dragonkin from the Summoning Pool, effects on exchanged units ending), come
from ``dua.py``; this module only asks the players.
"""

from __future__ import annotations

from collections.abc import Generator, Set
from itertools import combinations, product
from typing import TYPE_CHECKING, Any

from ..core.decisions import Decision, choice, choose_validator
from ..core.state import Army, Unit
from . import dua

if TYPE_CHECKING:
    from .context import RuleContext

CITE = "V4.01c L1138-1157"
LIMIT = 48  # options listed per decision


def _candidates(game: RuleContext, a: Unit) -> list[Unit]:
    st = game.state
    return [st.units[n] for n in st.units if dua.can_promote(st, a.uid, n)]


def single_promotions(
    game: RuleContext, army: Army, exclude: Set[str] = frozenset()
) -> list[tuple[Unit, Unit]]:
    """Distinct (army unit, larger unit) exchanges that promote one unit, by die names."""
    out, seen = [], set()
    for a in army.units:
        if a.uid in exclude:
            continue
        for d in _candidates(game, a):
            if (a.name, d.name) not in seen:
                seen.add((a.name, d.name))
                out.append((a, d))
    return out


def exchange(game: RuleContext, pairs: list[tuple[str, str]], why: str) -> None:
    """Swap each army unit with its larger unit, all at once (V4.01c L1144-1147; ``dua.promote``)."""
    for line in dua.promote(game.state, pairs):
        game.say(f"{why}: {line}")


def promote_one(
    game: RuleContext, army: Army, why: str, rule: str, exclude: Set[str] = frozenset()
) -> Generator[Decision, Any, str | None]:
    """The army's owner may promote one unit; returns the uid of the promoted (new) unit or None."""
    from ..core.decisions import ask as _ask

    pairs = single_promotions(game, army, set(exclude))
    if not pairs:
        game.say(f"{why}: no unit of {game.army_label(army)} can be promoted (no larger unit in the DUA)")
        return None
    opts = [choice("none", "Do not promote")] + [
        choice(f"{a.uid}:{d.uid}", f"Promote {a.name} to {d.name}") for a, d in pairs[:LIMIT]
    ]
    pick = yield _ask(
        "dragon_treasure",
        army.owner,
        "choice",
        f"{game.player_name(army.owner)}: {why}: promote one unit of {game.army_label(army)}?",
        rule,
        opts,
        validate=choose_validator(opts),
    )
    if pick == "none":
        return None
    old, new = str(pick).split(":")
    exchange(game, [(old, new)], why)
    return new


def promotion_groups(game: RuleContext, army: Army) -> list[tuple[list[Unit], list[Unit], int]]:
    """Per (species, health): the army's units, the larger units they may become, how many pair up."""
    groups: dict[tuple[str, int], tuple[list[Unit], dict[str, Unit]]] = {}
    for a in army.units:
        cands = _candidates(game, a)
        if cands:
            units, bigger = groups.setdefault((a.spec.species, a.health), ([], {}))
            units.append(a)
            bigger.update({d.uid: d for d in cands})
    out = []
    for units, bigger in groups.values():
        n = min(len(units), len(bigger))
        out.append((units, list(bigger.values()), n))
    return out


def _name_sets(units: list[Unit], n: int) -> list[list[Unit]]:
    """Distinct choices of `n` of `units`, told apart by die names only."""
    out, seen = [], set()
    for combo in combinations(units, n):
        key = tuple(sorted(u.name for u in combo))
        if key not in seen:
            seen.add(key)
            out.append(list(combo))
    return out


def promote_as_many(game: RuleContext, army: Army, why: str, rule: str) -> Generator[Decision, Any, int]:
    """The army may promote as many units as possible, all at once; returns how many were promoted."""
    from ..core.decisions import ask as _ask

    groups = promotion_groups(game, army)
    total = sum(n for _, _, n in groups)
    if not total:
        game.say(f"{why}: no unit of {game.army_label(army)} can be promoted")
        return 0
    opts = [choice("promote", f"Promote {total} unit(s) at once"), choice("none", "Do not promote")]
    pick = yield _ask(
        "dragon_promotion",
        army.owner,
        "choice",
        f"{game.player_name(army.owner)}: {why}: promote as many units of {game.army_label(army)} as possible?",
        rule,
        opts,
        validate=choose_validator(opts),
    )
    if pick == "none":
        return 0
    pairs: list[tuple[str, str]] = []
    for units, bigger, n in groups:
        plans = list(product(_name_sets(units, n), _name_sets(bigger, n)))[:LIMIT]
        olds, news = plans[0]
        if len(plans) > 1:
            gopts = [
                choice(str(i), ", ".join(a.name for a in o) + " -> " + ", ".join(d.name for d in nw))
                for i, (o, nw) in enumerate(plans)
            ]
            k = yield _ask(
                "dragon_promotion_units",
                army.owner,
                "choice",
                f"{game.player_name(army.owner)}: which {units[0].spec.species} units are promoted, to which?",
                CITE,
                gopts,
                validate=choose_validator(gopts),
            )
            olds, news = plans[int(k)]
        pairs += [(a.uid, d.uid) for a, d in zip(olds, news, strict=True)]
    exchange(game, pairs, why)
    return len(pairs)
