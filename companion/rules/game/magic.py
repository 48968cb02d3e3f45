"""Magic action accounting, announcement and validation (V4.01c L449-480, L2085-2156).

Step 1 totals the magic results by element: a die's results may be of any of its elements and may
be split between them (a Scalder's 4 magic: 4F/0W ... 0F/4W, V4-20).  Step 2 announces every spell
with its target; this module checks the announcement can be paid for:

* a spell of one element is paid only with magic of that element; an Elemental spell with magic of
  any *single* element (the caller names it); Ivory magic pays only Elemental spells (L2093-2100);
* a species spell only with magic from dice of that species (L466-468); items' magic counts for a
  species spell if a unit of that species is in the army (L2729);
* an army in the Reserve Area casts only spells marked R (L2127-2129);
* the total of the costs fits the magic rolled (L2104-2108); Standing Stones lets the controlling
  army count its magic as an element of that terrain (L526-528).

The spell effects themselves are not applied here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..catalogue.tables import ALL_ELEMENTS, COLOR_ELEMENT
from ..core.errors import IllegalSpell
from ..core.state import Unit

ELEMENTS = tuple(str(e) for e in ALL_ELEMENTS)
IVORY = "Ivory"
ELEMENTAL = "Elemental"
ANY_ELEMENTS = "Any"  # a spell that any combination of magic elements may pay


def magic_kinds(unit: Unit, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The kinds of magic a die's results may be counted as."""
    die = unit.spec.die
    color = getattr(die, "color", None)
    if color == "White":
        kinds = set(ELEMENTS)
    elif unit.spec.elements:
        kinds = set(unit.spec.elements)
    elif color in ("Bronze", "Silver", "Gold"):
        kinds = {color}
    else:
        kinds = {IVORY}
    kinds.update(extra)
    return tuple(sorted(kinds))


def element_splits(total: int, kinds: Sequence[str]) -> list[dict[str, int]]:
    """Every way to count `total` magic results among `kinds` (V4-20: a Scalder's 4 -> 5 ways)."""
    kinds = list(kinds)
    if not kinds:
        return []
    if len(kinds) == 1:
        return [{kinds[0]: total}]
    out = []
    for n in range(total, -1, -1):
        for rest in element_splits(total - n, kinds[1:]):
            out.append({kinds[0]: n, **rest})
    return out


@dataclass(frozen=True)
class SpellCast:
    """One announced spell: the card, the magic kind paying for it, its target."""

    name: str
    cost: int
    pay_with: str  # an element, "Ivory" never (only Elemental spells take Ivory) or an alloy
    species: str  # "" for spells any species may cast
    target: str
    reserve: bool
    color: str


@dataclass(frozen=True)
class AnnouncedSpell(SpellCast):
    """A validated announcement: ``SpellCast`` (name, cost, payment, target) plus the castings
    combined, the unit targets and the destination (Path, Rally)."""

    castings: int = 1
    units: tuple[str, ...] = ()
    to: str | None = None
    kind: str = ""


def spell_kinds_accepted(color: str, pay_with: str) -> tuple[str, ...]:
    """Magic kinds that can pay a spell of `color` when the caster pays with `pay_with`."""
    if color == ELEMENTAL and pay_with == ANY_ELEMENTS:  # Summon White Dragon (V4.01c L2438-2442)
        return (*ELEMENTS, IVORY)
    if color == ELEMENTAL:
        return (pay_with, IVORY) if pay_with in ELEMENTS else (pay_with,)
    if color == "Alloy":
        return (pay_with,)
    element = str(COLOR_ELEMENT[color]) if color in COLOR_ELEMENT else color
    return (element,)


def check_payment(
    magic_by_die: Mapping[str, int],
    dice: Mapping[str, Unit],
    casts: Sequence[SpellCast],
    extra_kinds: Sequence[str] = (),
    kinds_by_die: Mapping[str, Sequence[str]] | None = None,
) -> None:
    """Raise ``IllegalSpell`` unless the rolled magic can pay every cast at once (a max-flow check)."""
    total_cost = sum(c.cost for c in casts)
    total_magic = sum(magic_by_die.values())
    if total_cost > total_magic:
        raise IllegalSpell(
            f"the spells cost {total_cost} magic but the army rolled only {total_magic}", "V4.01c L2104-2108"
        )
    species_in_army = {u.spec.species for u in dice.values() if u.is_unit}
    # Bipartite flow: dice (capacity = magic) -> casts (demand = cost).
    suppliers = [uid for uid, n in magic_by_die.items() if n > 0]
    cap: dict[tuple[str, str], int] = {}
    graph: dict[str, set[str]] = {"S": set(), "T": set()}

    def add(a: str, b: str, c: int) -> None:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set()).add(a)
        cap[(a, b)] = cap.get((a, b), 0) + c
        cap.setdefault((b, a), 0)

    for uid in suppliers:
        add("S", "d:" + uid, magic_by_die[uid])
    for i, cast in enumerate(casts):
        add(f"c:{i}", "T", cast.cost)
        accepted = set(spell_kinds_accepted(cast.color, cast.pay_with))
        payers = 0
        for uid in suppliers:
            unit = dice[uid]
            if cast.species:
                if unit.is_unit and unit.spec.species != cast.species:
                    continue
                if not unit.is_unit and cast.species not in species_in_army:
                    continue
            kinds = set(magic_kinds(unit, extra_kinds))
            if kinds_by_die and kinds_by_die.get(uid):
                kinds = set(kinds_by_die[uid]) | set(extra_kinds)  # as the resolution engine reported them
            if accepted & kinds:
                add("d:" + uid, f"c:{i}", magic_by_die[uid])
                payers += 1
        if payers == 0:
            who = f" of {cast.species}" if cast.species else ""
            raise IllegalSpell(
                f"{cast.name} needs {cast.pay_with} magic{who}, and no die in the army rolled any",
                "V4.01c L466-468, L2093-2100",
            )
    flow = 0
    while True:  # Edmonds-Karp on a graph of a few dozen nodes
        parent: dict[str, str | None] = {"S": None}
        queue = ["S"]
        while queue and "T" not in parent:
            node = queue.pop(0)
            for nxt in graph.get(node, ()):
                if nxt not in parent and cap[(node, nxt)] > 0:
                    parent[nxt] = node
                    queue.append(nxt)
        if "T" not in parent:
            break
        path: list[tuple[str, str]] = []
        node, prev = "T", parent["T"]
        while prev is not None:
            path.append((prev, node))
            node, prev = prev, parent[prev]
        push = min(cap[e] for e in path)
        for a, b in path:
            cap[(a, b)] -= push
            cap[(b, a)] += push
        flow += push
    if flow < total_cost:
        raise IllegalSpell(
            f"the magic rolled cannot pay these spells by element and species: {flow} of {total_cost} "
            "points can be matched to dice of the right element",
            "V4.01c L456-468, L2093-2100",
        )
