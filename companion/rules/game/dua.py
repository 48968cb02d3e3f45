"""Dead and buried unit areas: kill, bury, promote, recruit, exchange, return (V4.01c).

Two layers:

* pure state operations (``kill``, ``bury``, ``promote``, ``recruit``, ``exchange``,
  ``return_from_dua``): each validates *everything* first and raises ``IllegalAction`` without a
  change, then moves the dice all at once and returns log lines;
* ``kill_flow(game, uids, ...)``: the generator the flow uses when units die.  It lists the deaths,
  lets the registered *death hooks* decide where each one goes (Open Grave to the Reserve Area,
  Accelerated Growth / Stepped Damage exchanges, Soiled Ground burials, Replanting ...), asking
  the players through decisions when a rule says "may", then applies every move at once.

Rules (paraphrased; citations next to the code): dead units go to the DUA, buried ones from the DUA
to the BUA (L239-245); recruiting moves a small unit from the DUA to an army (L250-252); promotion
swaps a unit for one of the same species and one health more from the DUA, Dragonkin from the
Summoning Pool (L1138-1157); exchanges with the DUA are matched first and made all at once, the
army never counts as gone mid-exchange, exchanged units are never killed and individual effects on
them end (L1159-1175); killed Dragonkin return to the Summoning Pool, unless one effect kills and
buries them (L2525-2527); Dracolem are never promoted or recruited (L1157).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.errors import IllegalAction
from ..core.ids import ArmyId
from ..core.state import BUA, DUA, POOL, RESERVE, GameState, Unit

if TYPE_CHECKING:
    from .context import RuleContext

Flow = Generator[Any, Any, Any]

DOC = "V4.01c"


def _in_play(st: GameState, uid: str) -> bool:
    return st.location[uid] in st.terrains or st.location[uid] == RESERVE


def _unit(st: GameState, uid: Any, rule: str) -> Unit:
    if not isinstance(uid, str) or uid not in st.units:
        raise IllegalAction(f"{uid!r} is not a die of this game", rule)
    return st.units[uid]


def _distinct(uids: Sequence[str], rule: str) -> None:
    seen = set()
    for u in uids:
        if u in seen:
            raise IllegalAction(f"{u!r} is listed more than once", rule)
        seen.add(u)


def is_dragonkin(unit: Unit) -> bool:
    return unit.spec.species == "Dragonkin"


def is_dracolem(unit: Unit) -> bool:
    return "Dracolem" in unit.spec.species


def end_individual_effects(st: GameState, uids: Iterable[str]) -> list[str]:
    """Effects on single units end when those units are exchanged or leave play (V4.01c L1172-1173,
    L2133-2136)."""
    uids = set(uids)
    gone = [e for e in st.effects if e.target in uids]
    st.effects = [e for e in st.effects if e.target not in uids]
    return [f"{e.name} on {st.units[e.target].name} ends" for e in gone]


# --------------------------------------------------------------------------- pure operations


def kill(st: GameState, uids: Sequence[str], *, bury_too: bool = False) -> list[str]:
    """Units in play die: to their owner's DUA (V4.01c L239-241, L1104-1107, L1125-1126); a Dragonkin
    goes back to the Summoning Pool instead (L2525-2526); ``bury_too``: one effect kills and buries
    them, straight to the BUA, Dragonkin included (L2526-2527)."""
    rule = f"{DOC} L1125-1126"
    _distinct(uids, rule)
    for uid in uids:
        u = _unit(st, uid, rule)
        if not u.is_unit or not _in_play(st, uid):
            raise IllegalAction(f"{u.name} ({uid}) is not a unit in play: it cannot be killed", rule)
    for uid in uids:
        u = st.units[uid]
        st.location[uid] = BUA if bury_too else (POOL if is_dragonkin(u) else DUA)
    lines = end_individual_effects(st, uids)
    if uids:
        where = "killed and buried" if bury_too else "killed"
        lines.insert(0, f"{where.capitalize()}: " + ", ".join(st.units[u].name for u in uids))
    return lines


def bury(st: GameState, uids: Sequence[str]) -> list[str]:
    """Dead units are buried: from the DUA to the BUA (V4.01c L243-245)."""
    rule = f"{DOC} L243-245"
    _distinct(uids, rule)
    for uid in uids:
        u = _unit(st, uid, rule)
        if st.location[uid] != DUA:
            raise IllegalAction(f"{u.name} ({uid}) is not in a DUA: only dead units can be buried", rule)
    for uid in uids:
        st.location[uid] = BUA
    return ["Buried: " + ", ".join(st.units[u].name for u in uids)] if uids else []


def _army_location(st: GameState, owner: str, location: str, rule: str) -> None:
    if location not in st.terrains and location != RESERVE:
        raise IllegalAction(f"{location!r} is not a terrain or the Reserve Area", rule)
    if not st.army(owner, location).units:
        raise IllegalAction(f"{owner} has no army at {location}", rule)


def return_from_dua(
    st: GameState, uids: Sequence[str], owner: str, location: str, rule: str = f"{DOC} L2235-2238, L2398-2404"
) -> list[str]:
    """Dead units of `owner` return from the DUA to their army at `location` (Exhume, Resurrect Dead)."""
    _distinct(uids, rule)
    _army_location(st, owner, location, rule)
    for uid in uids:
        u = _unit(st, uid, rule)
        if u.owner != owner or st.location[uid] != DUA or not u.is_unit:
            raise IllegalAction(f"{u.name} ({uid}) is not a unit in {owner}'s DUA", rule)
    for uid in uids:
        st.location[uid] = location
    return ["Returned from the DUA: " + ", ".join(st.units[u].name for u in uids)] if uids else []


def recruit(st: GameState, uids: Sequence[str], owner: str, location: str) -> list[str]:
    """Move small (1 health) units from the DUA to the recruiting army (V4.01c L250-252); never a
    Dracolem (L1157).  All at once (L1145-1147)."""
    rule = f"{DOC} L250-252"
    _distinct(uids, rule)
    _army_location(st, owner, location, rule)
    for uid in uids:
        u = _unit(st, uid, rule)
        if u.owner != owner or st.location[uid] != DUA or not u.is_unit:
            raise IllegalAction(f"{u.name} ({uid}) is not a unit in {owner}'s DUA", rule)
        if u.health != 1:
            raise IllegalAction(
                f"{u.name} has {u.health} health: only small (1 health) units are recruited", rule
            )
        if is_dracolem(u):
            raise IllegalAction("Dracolem can never be recruited", f"{DOC} L1157")
    for uid in uids:
        st.location[uid] = location
    return ["Recruited: " + ", ".join(st.units[u].name for u in uids)] if uids else []


def promotion_source(unit: Unit) -> str:
    """Where a unit's promotion comes from: the Summoning Pool for Dragonkin, else the DUA (L1139-1141)."""
    return POOL if is_dragonkin(unit) else DUA


def can_promote(st: GameState, old: str, new: str, steps: int | None = 1) -> bool:
    """Whether in-play unit `old` may be exchanged for `new` (same owner and species, `steps` more
    health, or any larger health when ``steps`` is None), per V4.01c L1139-1157."""
    a, b = st.units.get(old), st.units.get(new)
    if a is None or b is None or not a.is_unit or not b.is_unit or a.owner != b.owner:
        return False
    if not _in_play(st, old) or st.location[new] != promotion_source(a):
        return False
    if is_dracolem(a) or is_dracolem(b) or a.spec.species != b.spec.species:
        return False
    gain = b.health - a.health
    return gain == steps if steps is not None else gain > 0


def promote(st: GameState, pairs: Sequence[tuple[str, str]], *, budget: int | None = None) -> list[str]:
    """Promote units simultaneously: each (old, new) pair swaps an in-play unit for a unit of its
    species one health larger from the DUA (Summoning Pool for Dragonkin); V4.01c L1139-1147.

    ``budget``: an ability that promotes X health-worth may raise one unit several steps or several
    units one step each (L1153-1155); the health gained must then total at most ``budget``.
    Every pair is checked before any die moves; the army never counts as gone (L1164-1170)."""
    rule = f"{DOC} L1139-1157"
    olds = [p[0] for p in pairs]
    news = [p[1] for p in pairs]
    _distinct(olds + news, rule)
    gained = 0
    for old, new in pairs:
        a, b = _unit(st, old, rule), _unit(st, new, rule)
        if is_dracolem(a):
            raise IllegalAction("Dracolem can never be promoted", f"{DOC} L1157")
        if not can_promote(st, old, new, None if budget is not None else 1):
            where = "Summoning Pool" if promotion_source(a) == POOL else "DUA"
            raise IllegalAction(
                f"{a.name} ({old}) cannot be promoted to {b.name} ({new}): it needs a unit of the same "
                f"species{' one health larger' if budget is None else ' with more health'} in the owner's {where}",
                rule,
            )
        gained += b.health - a.health
    if budget is not None and gained > budget:
        raise IllegalAction(
            f"these promotions gain {gained} health, more than the {budget} allowed", f"{DOC} L1153-1155"
        )
    return _swap(st, pairs, "Promoted")


def exchange(
    st: GameState, pairs: Sequence[tuple[str, str]], *, same_species: bool = True, verb: str = "Exchanged"
) -> list[str]:
    """Exchange in-play units with units of their owner's DUA, all at once (V4.01c L1159-1175):
    match every pair first, then swap.  Exchanged units are never killed."""
    rule = f"{DOC} L1159-1175"
    olds = [p[0] for p in pairs]
    news = [p[1] for p in pairs]
    _distinct(olds + news, rule)
    for old, new in pairs:
        a, b = _unit(st, old, rule), _unit(st, new, rule)
        if not a.is_unit or not _in_play(st, old):
            raise IllegalAction(f"{a.name} ({old}) is not a unit in play", rule)
        if b.owner != a.owner or st.location[new] != DUA or not b.is_unit:
            raise IllegalAction(f"{b.name} ({new}) is not a unit in {a.owner}'s DUA", rule)
        if same_species and a.spec.species != b.spec.species:
            raise IllegalAction(f"{a.name} and {b.name} are not of the same species", rule)
    return _swap(st, pairs, verb)


def _swap(st: GameState, pairs: Sequence[tuple[str, str]], verb: str) -> list[str]:
    # Every destination is read before any die moves: the swap is simultaneous (L1164-1170).
    moves = []
    for old, new in pairs:
        a = st.units[old]
        moves.append((old, POOL if is_dragonkin(a) else DUA))
        moves.append((new, st.location[old]))
    for uid, where in moves:
        st.location[uid] = where
    lines = (
        [f"{verb}: " + ", ".join(f"{st.units[o].name} -> {st.units[n].name}" for o, n in pairs)]
        if pairs
        else []
    )
    return lines + end_individual_effects(st, [o for o, _ in pairs])


def match_promotions(st: GameState, uids: Sequence[str]) -> list[tuple[str, str]]:
    """ "Promote as many units as possible" (V4.01c L1145-1147): a largest matching of the given
    in-play units to units one health larger of their species in the DUA / Summoning Pool.
    Deterministic (uids in order; augmenting paths)."""
    cands: dict[str, list[str]] = {}
    for old in uids:
        a = st.units[old]
        src = promotion_source(a)
        cands[old] = sorted(n for n in st.units if can_promote(st, old, n) and st.location[n] == src)
    match: dict[str, str] = {}  # new -> old

    def augment(old: str, seen: set[str]) -> bool:
        for new in cands[old]:
            if new in seen:
                continue
            seen.add(new)
            if new not in match or augment(match[new], seen):
                match[new] = old
                return True
        return False

    for old in uids:
        augment(old, set())
    return sorted(((o, n) for n, o in match.items()), key=lambda p: list(uids).index(p[0]))


def promotion_choices(
    st: GameState, olds: Sequence[str], budget: int, limit: int = 48
) -> list[list[tuple[str, str]]]:
    """Every way to spend up to ``budget`` health-worth of promotion on the in-play units ``olds``:
    several units one size each, one unit several sizes, or any mix (V4.01c L1153-1156), each unit
    promoted once, each larger unit used once (all at once, L1145-1147).  Sets that swap the same
    dice names are given once; the largest gains first; at most ``limit`` sets."""
    cands: dict[str, list[list[str]]] = {}  # per unit: the larger units it may become, grouped by name
    for old in olds:
        by_name: dict[str, list[str]] = {}
        for new in sorted(st.units):
            if can_promote(st, old, new, None) and st.units[new].health - st.units[old].health <= budget:
                by_name.setdefault(st.units[new].name, []).append(new)
        cands[old] = list(by_name.values())
    found: dict[tuple[tuple[str, str], ...], list[tuple[str, str]]] = {}
    visits = [0]

    def walk(i: int, left: int, pairs: list[tuple[str, str]], used: set[str]) -> None:
        visits[0] += 1
        if len(found) >= limit * 4 or visits[0] > 20000:  # a large army: the first sets found are enough
            return
        if i == len(olds):
            if pairs:
                key = tuple(sorted((st.units[o].name, st.units[n].name) for o, n in pairs))
                found.setdefault(key, list(pairs))
            return
        old = olds[i]
        for group in cands[old]:  # one die of each name is enough: equal dice give equal sets
            new = next((n for n in group if n not in used), None)
            if new is None:
                continue
            gain = st.units[new].health - st.units[old].health
            if gain <= left:
                walk(i + 1, left - gain, [*pairs, (old, new)], used | {new})
        walk(i + 1, left, pairs, used)

    walk(0, budget, [], set())

    def gained(pairs: list[tuple[str, str]]) -> int:
        return sum(st.units[n].health - st.units[o].health for o, n in pairs)

    return sorted(found.values(), key=lambda p: (-gained(p), len(p)))[:limit]


# --------------------------------------------------------------------------- deaths in the flow


@dataclass
class Death:
    """One unit being killed, and where it will end up.

    ``save_roll``: it was killed following a save roll (Open Grave needs one, L2240-2245);
    ``army_targeted``: the killing effect targeted its army.  Hooks set ``dest`` (``dua``,
    ``reserve``, ``bua``, ``pool``) or ``exchange_with`` (a DUA uid that takes its place)."""

    uid: str
    owner: str
    location: str  # where it died: terrain id or "reserve"
    save_roll: bool = True
    army_targeted: bool = True
    cause: str = ""
    dest: str = DUA
    exchange_with: str | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def army(self) -> str:
        return str(ArmyId(self.owner, self.location))

    @property
    def to_dua(self) -> bool:
        """Still on its way into the DUA (no hook has sent it elsewhere)."""
        return self.dest == DUA and self.exchange_with is None


DeathHook = Callable[["RuleContext", list[Death]], Any]  # a generator function (may yield decisions) or plain

# Orders of the death hooks (each game's ``extensions.death``, added with ``add_death_hook``): Open
# Grave (10) first, since a unit kept out of the DUA triggers no "when killed" effect (L1128-1129);
# then exchanges (20), rolls before the DUA (30), burials on entering the DUA (40).
ORDER_REDIRECT, ORDER_EXCHANGE, ORDER_BEFORE_DUA, ORDER_ENTER_DUA = 10, 20, 30, 40


def kill_flow(
    game: RuleContext,
    uids: Sequence[str],
    *,
    save_roll: bool = True,
    army_targeted: bool = True,
    cause: str = "",
    bury_too: bool = False,
) -> Flow:
    """Kill units in play, through the death hooks, then move every die at once and check control
    and elimination.  Returns the list of ``Death`` records (where each unit went)."""
    import inspect

    st = game.state
    rule = f"{DOC} L1125-1126"
    _distinct(uids, rule)
    for uid in uids:
        u = _unit(st, uid, rule)
        if not u.is_unit or not _in_play(st, uid):
            raise IllegalAction(f"{u.name} ({uid}) is not a unit in play: it cannot be killed", rule)
    deaths = [
        Death(uid, st.units[uid].owner, st.location[uid], save_roll, army_targeted, cause) for uid in uids
    ]
    ext = game.extensions
    for d in deaths:
        if bury_too:
            d.dest = BUA  # one effect kills and buries (L2526-2527)
            continue
        if is_dragonkin(st.units[d.uid]):
            d.dest = POOL  # L2525-2526
        for hook in ext.hooks["killed"]:  # optional components (advanced rules)
            d.dest = hook(game, d.uid) or d.dest
    if not bury_too:
        for _, _, hook in list(ext.death):
            result = hook(game, deaths)
            if inspect.isgenerator(result):
                yield from result
    apply_deaths(game, deaths)
    return deaths


def apply_deaths(game: RuleContext, deaths: Sequence[Death]) -> None:
    """Make every move of a batch of deaths at once (V4.01c L1164-1170), then check control."""
    st = game.state
    swaps = [(d.uid, d.exchange_with) for d in deaths if d.exchange_with is not None]
    if swaps:
        for line in exchange(st, swaps, same_species=False):
            game.say(line)
    killed = []
    for d in deaths:
        if d.exchange_with is not None:
            continue
        st.location[d.uid] = d.dest
        name = st.units[d.uid].name
        if d.dest == DUA:
            killed.append(name)
        elif d.dest == RESERVE:
            game.say(
                f"{name} is killed but goes to the Reserve Area"
                + (f" ({'; '.join(d.notes)})" if d.notes else "")
            )
        elif d.dest == BUA:
            game.say(f"{name} is killed and buried" + (f" ({'; '.join(d.notes)})" if d.notes else ""))
        elif d.dest == POOL:
            game.say(f"{name} is killed and returns to the Summoning Pool (V4.01c L2525-2526)")
    if killed:
        game.say("Killed: " + ", ".join(killed))
    for line in end_individual_effects(st, [d.uid for d in deaths if d.exchange_with is None]):
        game.say(line)
    game.check_control_and_elimination()
