"""Items (V4.01c L2698-2865): point values, who may carry what, carrying and dropping, and the flow's
side of every item SAI.

Items are not given to a particular unit (L2731): an army's items are legal while *some* way of
sharing them among its units respects each unit's capacity (L2751-2756, L2772-2774).  That is a
small matching problem (``carry_plan``).  Point values live in ``setup.item_points`` (L83-101,
L2700-2725).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any, TypeVar

from ...core.errors import IllegalAction, IllegalSetup
from ...core.state import BUA, RESERVE, Unit
from ..setup import item_points
from .options import ITEMS, is_on

if TYPE_CHECKING:
    from ...core.state import Army
    from ..context import RuleContext

Flow = Generator[Any, Any, Any]
DOC = "V4.01c"
HEAVY = ("Medallion", "Relic")  # a unit carrying one carries nothing else (L2772-2774)
X_VALUE = {"Small": 1, "Medium": 2, "Large": 3}  # equipment X values (L2700-2725)

__all__ = ["HEAVY", "X_VALUE", "can_carry", "carry_plan", "item_points", "rolling_items"]


def is_item(unit: Unit) -> bool:
    return unit.spec.kind == "item"


def is_heavy(item: Unit) -> bool:
    return item.spec.size in HEAVY


def can_carry(unit: Unit, item: Unit) -> bool:
    """Whether `unit` may carry and use `item` (L2529, L2751-2756, L2771).

    Dragonkin carry nothing; medallions and relics have no element, so any other unit may carry
    them; equipment and artifacts need a unit containing their element, except that Amazons and
    Dracolem carry any element and Undead only death."""
    if not unit.is_unit or unit.spec.species == "Dragonkin":
        return False
    if is_heavy(item):
        return True
    species = unit.spec.species
    if species == "Undead":
        return "Death" in item.spec.elements
    if species == "Amazons" or "Dracolem" in species:
        return True
    return bool(set(item.spec.elements) & set(unit.spec.elements))


def _match_equipment(units: Sequence[Unit], items: Sequence[Unit]) -> dict[str, str]:
    """Largest matching of equipment/artifacts to two slots per unit (Kuhn's augmenting paths),
    taking items in order."""
    slots = [(u, k) for u in units for k in (0, 1)]
    owner_of: dict[int, int] = {}  # slot index -> item index

    def augment(i: int, seen: set[int]) -> bool:
        for s, (u, _) in enumerate(slots):
            if s in seen or not can_carry(u, items[i]):
                continue
            seen.add(s)
            if s not in owner_of or augment(owner_of[s], seen):
                owner_of[s] = i
                return True
        return False

    for i in range(len(items)):
        augment(i, set())
    return {items[i].uid: slots[s][0].uid for s, i in owner_of.items()}


def carry_plan(units: Sequence[Unit], items: Sequence[Unit]) -> tuple[dict[str, str], list[Unit]]:
    """Share `items` among `units`: (item uid -> carrier uid, items nobody can carry).

    Medallions and relics each take a whole unit; equipment and artifacts two per unit.  When not
    all fit, the items kept are the first ones in the order given (the rest are the excess)."""
    carriers = [u for u in units if u.is_unit and u.spec.species != "Dragonkin"]
    heavy = [i for i in items if is_heavy(i)]
    light = [i for i in items if not is_heavy(i)]
    best: tuple[dict[str, str], list[Unit]] | None = None
    for k in range(min(len(heavy), len(carriers)), -1, -1):
        hosts_options = combinations(carriers, k) if k < len(carriers) else [tuple(carriers)]
        for hosts in _limited(hosts_options, 200):
            rest = [u for u in carriers if u not in hosts]
            plan = {h.uid: u.uid for h, u in zip(heavy[:k], hosts, strict=True)}
            plan.update(_match_equipment(rest, light))
            left = [i for i in items if i.uid not in plan]
            if best is None or len(left) < len(best[1]):
                best = (plan, left)
            if not left:
                return best
        if best is not None and len(best[1]) <= len(heavy) - k:
            break
    return best if best is not None else ({}, list(items))


_T = TypeVar("_T")


def _limited(it: Iterable[_T], n: int) -> Iterator[_T]:
    for i, x in enumerate(it):
        if i >= n:
            return
        yield x


def rolling_items(units: Sequence[Unit], items: Sequence[Unit]) -> list[Unit]:
    """Items that roll with `units`: only those a rolling unit is able to carry (L2737-2739)."""
    plan, _ = carry_plan(units, items)
    return [i for i in items if i.uid in plan]


# --------------------------------------------------------------------------- flow hooks


def check_setup(game: RuleContext) -> None:
    """At set-up every item must be in an army where units can carry it (L2733)."""
    if not is_on(game, ITEMS):
        return
    st = game.state
    for pid, armies in game.armies_at_setup.items():
        for name, uids in armies.items():
            dice = [st.units[u] for u in uids]
            _, left = carry_plan([d for d in dice if d.is_unit], [d for d in dice if is_item(d)])
            if left:
                raise IllegalSetup(
                    f"{st.player(pid).name}: the {name} army has no unit able to carry "
                    + ", ".join(i.name for i in left),
                    f"{DOC} L2733, L2751-2756",
                )


def roll_dice(game: RuleContext, army: Army, roll: str, dice: list[Unit]) -> list[Unit]:
    """Items roll in every army roll, but only with a rolling unit able to carry them (L2737-2739)."""
    if not is_on(game, ITEMS):
        return dice
    units = [d for d in dice if d.is_unit]
    items = [d for d in dice if is_item(d)]
    if not items:
        return dice
    keep = {i.uid for i in rolling_items(units, items)}
    return [d for d in dice if not is_item(d) or d.uid in keep]


def check_moves(game: RuleContext, pid: str, moves: dict[str, str]) -> None:
    """An item moves between a terrain and the Reserve Area only with a unit carrying it (L2732):
    the items moved from one place to another must be carried by the units making the same move."""
    if not is_on(game, ITEMS):
        return
    st = game.state
    groups: dict[tuple[str, str], list[Unit]] = {}
    for uid, where in moves.items():
        groups.setdefault((st.location[uid], where), []).append(st.units[uid])
    for dice in groups.values():
        items = [d for d in dice if is_item(d)]
        if not items:
            continue
        _, left = carry_plan([d for d in dice if d.is_unit], items)
        if left:
            raise IllegalAction(
                ", ".join(i.name for i in left) + " cannot move without a unit able to carry it "
                "making the same move",
                f"{DOC} L2732",
            )


def bury_options(units: Sequence[Unit], items: Sequence[Unit]) -> list[tuple[str, ...]]:
    """The sets of items an owner may bury when the army holds more than its units can carry: as few
    as the carriers force, the others still carried (L2734-2736); one per set of die names."""
    _, left = carry_plan(units, items)
    if not left:
        return []
    seen, out = set(), []
    for combo in _limited(combinations(items, len(left)), 200):
        keep = [i for i in items if i not in combo]
        if carry_plan(units, keep)[1]:
            continue
        names = tuple(sorted(i.name for i in combo))
        if names not in seen:
            seen.add(names)
            out.append(tuple(i.uid for i in combo))
    return out or [tuple(i.uid for i in left)]


def _excess(game: RuleContext) -> list[tuple[str, str, list[tuple[str, ...]]]]:
    """(owner, place, bury options) for every army or Reserve Area holding items nobody can carry."""
    st = game.state
    places = {
        (u.owner, st.location[u.uid])
        for u in st.units.values()
        if is_item(u) and (st.location[u.uid] in st.terrains or st.location[u.uid] == RESERVE)
    }
    out = []
    for owner, loc in sorted(places):
        dice = st.dice_at(owner, loc)
        options = bury_options([d for d in dice if d.is_unit], [d for d in dice if is_item(d)])
        if options:
            out.append((owner, loc, options))
    return out


def _bury(game: RuleContext, uids: Sequence[str]) -> None:
    for uid in uids:
        game.state.location[uid] = BUA
        game.say(
            f"{game.state.units[uid].name} has no unit able to carry it and is buried (V4.01c L2734-2736)"
        )


def cleanup(game: RuleContext) -> None:
    """Items beyond what the army's units can carry are buried (L2734-2736).  When the owner has a
    real choice of which (``bury_options``), ``ask_excess`` asks before the next decision."""
    if not is_on(game, ITEMS):
        return
    for _owner, _loc, options in _excess(game):
        if len(options) == 1:
            _bury(game, options[0])


def ask_excess(game: RuleContext) -> Generator[Any, Any, None]:
    """Before the game's next decision (``extensions.hooks["before_decision"]``): the owner of an army with
    more items than its units can carry says which to bury (L2734-2736)."""
    if not is_on(game, ITEMS) or game.over:
        return
    from ...core.decisions import ask as _ask
    from ...core.decisions import choice, choose_validator

    while True:
        pending = [(o, loc, opts) for o, loc, opts in _excess(game) if len(opts) > 1]
        if not pending:
            return
        owner, loc, options = pending[0]
        st = game.state
        where = "the Reserve Area" if loc == RESERVE else st.terrains[loc].name
        opts = [
            choice(",".join(uids), "Bury " + ", ".join(st.units[u].name for u in uids)) for uids in options
        ]
        pick = yield _ask(
            "item_sai",
            owner,
            "choice",
            f"{game.player_name(owner)}: your army at {where} holds more items "
            "than its units can carry: which do you bury?",
            f"{DOC} L2734-2736",
            opts,
            validate=choose_validator(opts),
        )
        _bury(game, pick.split(","))
