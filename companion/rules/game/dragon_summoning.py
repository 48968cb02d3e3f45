"""Summoning dragons: the effects of Summon Dragon and Summon White Dragon (V4.01c L2429-2445), with
the Ivory and Ivory Hybrid rules (L557-569) and the White Dragon rule (L576).

* Summon Dragon (7, paid with one element): one dragon that contains that element, from any player's
  Summoning Pool or from any terrain, to the target terrain.  Magic of any one element summons an
  Ivory or Ivory Hybrid Dragon from a Summoning Pool (L2433-2436); an Ivory Dragon never comes from a
  terrain (L561-562); an Ivory Hybrid comes from a terrain only by magic of its own element
  (L568-569).  Never a White Dragon (L576).
* Summon White Dragon (14, any mix of elements): one White Dragon from any Summoning Pool or terrain.

A dragon already in play is moved by a summon (FAQ95 EARTH 5.B); it keeps its owner, and returns to
its owner's Summoning Pool when it is killed or flies away.  The target is a terrain: never a Reserve
Area or a DUA (FAQ95 EARTH 5.C).

``EFFECTS`` gives both effects to each game's spell effects (``rulebook.build_extensions``); the
caster chooses which dragon when there is a choice.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ..core.decisions import Decision, choice, choose_validator
from ..core.decisions import ask as _ask
from ..core.state import POOL, GameState, Unit
from .dragon_targeting import IVORY, IVORY_HYBRID, WHITE, dragon_type

if TYPE_CHECKING:
    from .context import RuleContext

SUMMON_DRAGON = "Summon Dragon"
SUMMON_WHITE_DRAGON = "Summon White Dragon"


def can_summon(st: GameState, dragon: Unit, element: str | None, white_spell: bool, target: str) -> bool:
    """May this cast summon `dragon` to terrain `target`?  `element` is the one element of magic that
    paid for Summon Dragon (ignored for Summon White Dragon)."""
    if dragon.spec.kind != "dragon":
        return False
    where = st.location[dragon.uid]
    if where == target:
        return False  # already there: nothing to summon
    from_pool = where == POOL
    if not from_pool and where not in st.terrains:
        return False
    kind = dragon_type(dragon.spec)
    if white_spell:
        return kind == WHITE  # V4.01c L2441-2445
    if kind == WHITE:
        return False  # only Summon White Dragon summons a White Dragon (L576)
    if kind == IVORY:
        return from_pool  # any one element, from a Summoning Pool only (L558-562, L2433-2436)
    if kind == IVORY_HYBRID:
        return from_pool or element in dragon.spec.elements  # from a terrain only if it matches (L568-569)
    return element in dragon.spec.elements  # contains the element (L2431-2433)


def summonable(game: RuleContext, element: str | None, white_spell: bool, target: str) -> list[Unit]:
    st = game.state
    return [u for u in st.units.values() if can_summon(st, u, element, white_spell, target)]


def _where(game: RuleContext, u: Unit) -> str:
    loc = game.state.location[u.uid]
    if loc == POOL:
        return f"{game.player_name(u.owner)}'s Summoning Pool"
    return game.state.terrains[loc].name


def summon(game: RuleContext, cast: dict[str, Any], white_spell: bool) -> Generator[Decision, Any, list[str]]:
    """Move the chosen dragons to the target terrain, one per combined casting (the spell's "one" is
    cumulative, V4.01c L2143-2149, L2431, L2441); returns their uids (empty: nothing to summon)."""
    st = game.state
    spell = SUMMON_WHITE_DRAGON if white_spell else SUMMON_DRAGON
    target = cast["target"]
    caster = cast.get("caster") or st.marching
    assert caster is not None, "a spell has a caster (the cast's, else the marching player)"
    if target not in st.terrains:
        game.say(
            f"{spell} needs a terrain as its target: {target!r} is not one; the spell does nothing "
            "(FAQ95 EARTH 5.C)"
        )
        return []
    element = None if white_spell else str(cast.get("paid_with", ""))
    wanted = max(1, int(cast.get("castings", 1) or 1))
    came: list[str] = []
    for n in range(wanted):
        found = summonable(game, element, white_spell, target)
        if not found:
            game.say(
                f"{spell} ({element or 'any magic'}): no "
                + ("further " if came else "")
                + "dragon can answer the summons"
            )
            break
        opts, seen = [], set()
        for u in found:
            key = (u.name, u.owner, st.location[u.uid])
            if key in seen:
                continue
            seen.add(key)
            opts.append(choice(u.uid, f"{u.name.split('/', 1)[-1]} from {_where(game, u)}"))
        uid = opts[0]["value"]
        if len(opts) > 1:
            which = f" ({n + 1} of {wanted})" if wanted > 1 else ""
            uid = yield _ask(
                "summon_dragon",
                caster,
                "choice",
                f"{game.player_name(caster)}: {spell}{which}: which dragon comes to {st.terrains[target].name}?",
                "V4.01c L2429-2445, L2143-2149",
                opts,
                validate=choose_validator(opts),
            )
        d = st.units[uid]
        came_from = _where(game, d)
        st.location[uid] = target
        came.append(uid)
        game.say(
            f"{spell}: {d.name.split('/', 1)[-1]} ({game.player_name(d.owner)}'s) comes from {came_from} to "
            f"{st.terrains[target].name}"
        )
    return came


def summon_dragon(game: RuleContext, cast: dict[str, Any]) -> Generator[Decision, Any, list[str]]:
    """Summon Dragon's effect (V4.01c L2429-2436)."""
    return (yield from summon(game, cast, white_spell=False))


def summon_white_dragon(game: RuleContext, cast: dict[str, Any]) -> Generator[Decision, Any, list[str]]:
    """Summon White Dragon's effect (V4.01c L2439-2445)."""
    return (yield from summon(game, cast, white_spell=True))


EFFECTS = {SUMMON_DRAGON: summon_dragon, SUMMON_WHITE_DRAGON: summon_white_dragon}
