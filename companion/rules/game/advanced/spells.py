"""Spells of the species reference sheets for the optional components (V4.01c L2389-2426, repeated on
the Amazon and Eldarim sheets L3501-3506, L4234-4248):

* Summon Dragonkin (Any, 3; L2410-2414): one health-worth of the caster's Dragonkin in the Summoning
  Pool, of the element of the magic paid, joins the casting army.  Cumulative (its number is
  highlighted): a two-health Dragonkin needs two castings combined on it.
* Evolve Dragonkin (Eldarim, 3; L2389-2393): one of the caster's Dragonkin in play, of the element
  paid, is promoted one health (from the Summoning Pool, L1139-1141).
* Rise of the Eldarim (Eldarim, 5; L2421-2426): an Eldarim unit of the element paid is promoted one
  health (from its owner's DUA).
* Esfah's Gift (Amazons, 3; L2406-2407): a minor terrain in the caster's BUA returns to their
  Summoning Pool.

Targets are die ids (``cast["target"]``).  A target that does not fit when the spell resolves
(wrong element, wrong area) makes the spell do nothing, with a line in the log saying why.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ...core.decisions import choice, choose_validator
from ...core.ids import ArmyId
from ...core.state import BUA, DUA, POOL
from .dragonkin import element_of, is_dragonkin
from .eldarim import is_eldarim

if TYPE_CHECKING:
    from ...core.state import Unit
    from ..context import RuleContext

Flow = Generator[Any, Any, Any]
DOC = "V4.01c"


def _fail(game: RuleContext, cast: dict[str, Any], why: str, rule: str) -> None:
    game.say(f"{cast['spell']} on {cast['target']} does nothing: {why} ({DOC} {rule})")


def summon_dragonkin(game: RuleContext, cast: dict[str, Any]) -> None:
    """Summon Dragonkin (L2410-2414)."""
    st = game.state
    uid, pid = cast["target"], cast["caster"]
    unit = st.units.get(uid)
    if unit is None or not is_dragonkin(unit) or unit.owner != pid or st.location[uid] != POOL:
        return _fail(
            game, cast, "the target must be a Dragonkin in the caster's Summoning Pool", "L2410-2414"
        )
    if element_of(unit) != cast.get("paid_with"):
        return _fail(
            game, cast, f"{unit.name} is not of the {cast.get('paid_with')} magic paid", "L2410-2414"
        )
    location = ArmyId.parse(cast["army"]).location
    if location not in st.terrains or not st.army(pid, location).units:
        return _fail(game, cast, "the casting army is not at a terrain any more", "L2410-2414")
    paid = game.notes.get("dragonkin_castings", {})
    key = (st.turn, cast["army"], uid)
    paid[key] = paid.get(key, 0) + 1
    game.notes["dragonkin_castings"] = paid
    if paid[key] < unit.health:
        game.say(f"Summon Dragonkin: {paid[key]} of the {unit.health} health-worth needed for {unit.name}")
        return None
    st.location[uid] = location
    game.say(f"Summon Dragonkin: {unit.name} joins {game.army_label(cast['army'])}")
    return None


def _promote_from(game: RuleContext, cast: dict[str, Any], unit: Unit, source: str, rule: str) -> Flow:
    st = game.state
    bigger = [
        b
        for b in st.area(unit.owner, source)
        if b.is_unit and b.spec.species == unit.spec.species and b.health == unit.health + 1
    ]
    if not bigger:
        _fail(
            game,
            cast,
            f"no {unit.spec.species} unit one health larger is in the "
            f"{'Summoning Pool' if source == POOL else 'DUA'}",
            rule,
        )
        return
    opts, seen = [], set()
    for b in bigger:
        if b.name not in seen:
            seen.add(b.name)
            opts.append(choice(b.uid, f"Promote {unit.name} to {b.name}"))
    new = opts[0]["value"]
    if len(opts) > 1:
        from ...core.decisions import ask as _ask

        new = yield _ask(
            "dragonkin",
            unit.owner,
            "choice",
            f"{game.player_name(unit.owner)}: {cast['spell']}: promote {unit.name} to which unit?",
            f"{DOC} {rule}",
            opts,
            validate=choose_validator(opts),
        )
    where = st.location[unit.uid]
    st.location[unit.uid], st.location[new] = source, where
    game.say(
        f"{cast['spell']}: {unit.name} is promoted to {st.units[new].name} (the element may change, {DOC} L1149)"
    )


def evolve_dragonkin(game: RuleContext, cast: dict[str, Any]) -> Flow:
    """Evolve Dragonkin (L2389-2393)."""
    st = game.state
    unit = st.units.get(cast["target"])
    if (
        unit is None
        or not is_dragonkin(unit)
        or unit.owner != cast["caster"]
        or st.location[unit.uid] not in st.terrains
    ):
        _fail(game, cast, "the target must be one of the caster's Dragonkin in play", "L2389-2393")
        return
    if element_of(unit) != cast.get("paid_with"):
        _fail(game, cast, f"{unit.name} is not of the {cast.get('paid_with')} magic paid", "L2389-2393")
        return
    yield from _promote_from(game, cast, unit, POOL, "L2389-2393")


def rise_of_the_eldarim(game: RuleContext, cast: dict[str, Any]) -> Flow:
    """Rise of the Eldarim (L2421-2426)."""
    st = game.state
    unit = st.units.get(cast["target"])
    loc = st.location.get(cast["target"], "")
    if unit is None or not is_eldarim(unit) or not (loc in st.terrains or loc == "reserve"):
        _fail(game, cast, "the target must be an Eldarim unit in play", "L2421-2426")
        return
    if element_of(unit) != cast.get("paid_with") and len(unit.spec.elements) < 5:
        _fail(game, cast, f"{unit.name} is not of the {cast.get('paid_with')} magic paid", "L2421-2426")
        return
    yield from _promote_from(game, cast, unit, DUA, "L2421-2426")


def esfahs_gift(game: RuleContext, cast: dict[str, Any]) -> None:
    """Esfah's Gift (L2406-2407)."""
    st = game.state
    unit = st.units.get(cast["target"])
    if (
        unit is None
        or unit.spec.kind != "minor_terrain"
        or unit.owner != cast["caster"]
        or st.location[unit.uid] != BUA
    ):
        return _fail(game, cast, "the target must be a minor terrain in the caster's BUA", "L2406-2407")
    st.location[unit.uid] = POOL
    game.say(f"Esfah's Gift: {unit.name} returns to {game.player_name(unit.owner)}'s Summoning Pool")
    return None


EFFECTS = {
    "Summon Dragonkin": summon_dragonkin,
    "Evolve Dragonkin": evolve_dragonkin,
    "Rise of the Eldarim": rise_of_the_eldarim,
    "Esfah's Gift": esfahs_gift,
}
