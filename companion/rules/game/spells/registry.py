"""The spell-effect registry: what each of the 47 V4.01c spells targets, how it lasts, and its effect.

Cost, element, species, the R (Reserve) and C (Cantrip) marks come from the catalogue's spell cards
(one source of facts); this table adds what the flow needs to referee a casting (V4.01c L2085-2446):

* ``target``: the kind of target (army, opposing army, unit, units up to X health-worth, terrain,
  DUA, BUA, Summoning Pool ...), checked when the spell is announced (L473-476, L2118-2125);
* ``cumulative``: the highlighted number grows with combined castings (L2139-2153); a spell
  without one gains nothing from repeat castings on the same target (L2154-2156);
* ``duration``: instantaneous or until the caster's next turn (L2131-2137);
* ``effect``: ``effect(game, entry)`` run when the spell resolves; a generator when it asks
  for decisions.  Each game's ``extensions.spell_effects`` holds them, with the effects other modules
  give (Summon Dragon and Summon White Dragon, the Advanced Rules' spells; ``effect_for`` reads it);
* ``acts_now``: whether the spell does something as it resolves (damage, rolls, moves, choices) rather
  than only putting a lasting effect in force: every instantaneous spell does; a lasting one only
  when it says so (none of V4.01c's does).  The caster orders the spells that act now (L470-473).

An announcement entry is ``{"spell", "target", "element", "castings", "units", "to"}``: ``units``
lists the unit ids of "units" targets (or ``target`` may be that list), ``to`` the destination
terrain of Path and Rally, ``castings`` the combined castings (cost x castings).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...catalogue.tables import COLOR_ELEMENT
from ...core.damage import health_to_kill
from ...core.errors import IllegalSpell
from ...core.ids import ArmyId, is_army_id, split_army_id
from ...core.state import BUA, DUA, INSTANT, POOL, RESERVE, UNTIL_YOUR_NEXT_TURN, Army
from ..magic import AnnouncedSpell, SpellCast

if TYPE_CHECKING:
    from ...catalogue import SpellCard
    from ...core.state import Effect as LastingEffect
    from ...core.state import GameState, Unit
    from ..context import RuleContext

DOC = "V4.01c"

# Target kinds (V4.01c L2118-2125: army, unit(s), terrain, DUA or BUA).
ARMY = "any army"
OPPOSING_ARMY = "an opposing army"
FERAL_ARMY = "an army with at least one Feral unit"
TERRAIN = "any terrain"
TERRAIN_NOT_EIGHTH = "a terrain not at its eighth face"
OPPOSING_UNIT = "an opposing unit"
OWN_UNIT_AT_TERRAIN = "one of your units at a terrain (and 'to': a terrain where you have an army)"
UNITS_AT_TERRAIN = "units at one terrain, up to X health-worth"
OPPOSING_UNITS_AT_TERRAIN = "opposing units at one terrain, up to X health-worth"
OPPOSING_ARMY_UNITS = "units of one opposing army, up to X health-worth"
OPPOSING_DUA_UNITS = "units in one opposing player's DUA, up to X health-worth"
OWN_DUA = "your DUA ('dua:<you>')"
OWN_DUA_UNITS = "X health-worth of units in your DUA of the element paid"
OWN_BUA_MINOR = "a minor terrain in your BUA (its die id)"
OWN_POOL_DRAGONKIN = "a Dragonkin in your Summoning Pool of the element paid (its die id)"
OWN_DRAGONKIN = "one of your Dragonkin units of the element paid"
ELDARIM_UNIT = "an Eldarim unit of the element paid"
OWN_AMAZONS_AT_TERRAIN = "up to X of your Amazon units at one terrain (and 'to': a terrain with an Amazon)"
UNIT_LIST_KINDS = (
    UNITS_AT_TERRAIN,
    OPPOSING_UNITS_AT_TERRAIN,
    OPPOSING_ARMY_UNITS,
    OPPOSING_DUA_UNITS,
    OWN_DUA_UNITS,
    OWN_AMAZONS_AT_TERRAIN,
)

Effect = Callable[["RuleContext", dict[str, Any]], Any]


@dataclass(frozen=True)
class SpellRule:
    """One spell of V4.01c: its card facts, target kind, cumulative number, duration and effect."""

    name: str
    lines: str  # rulebook lines of its entry
    target: str
    per_casting: int | None  # the highlighted number (None: not cumulative)
    duration: str
    effect: Effect | None = None  # None: another module gives it (rulebook.build_extensions)
    up_to: bool = False  # "up to" X targets (V4.01c L1098-1102)
    lasting_acts_now: bool = False  # a lasting spell that also acts as it resolves (see ``acts_now``)

    @property
    def acts_now(self) -> bool:
        return self.duration == INSTANT or self.lasting_acts_now

    @property
    def citation(self) -> str:
        return f"{DOC} L{self.lines}"

    @property
    def cumulative(self) -> bool:
        return self.per_casting is not None

    def card(self) -> SpellCard:
        from ...catalogue import load_catalogue

        card = load_catalogue().spell(self.name)
        assert card is not None, f"{self.name} is a spell of the catalogue (SPELLS lists those only)"
        return card

    @property
    def element(self) -> str:
        color = self.card().color
        return str(COLOR_ELEMENT[color]) if color in COLOR_ELEMENT else color


SPELLS: dict[str, SpellRule] = {}


def spell(
    name: str,
    lines: str,
    target: str,
    per_casting: int | None = None,
    duration: str = INSTANT,
    up_to: bool = False,
    lasting_acts_now: bool = False,
) -> Callable[[Effect], Effect]:
    """Decorator: ``effect`` is spell `name`'s, with its facts (a table entry of ``SPELLS``)."""

    def wrap(effect: Effect) -> Effect:
        if name in SPELLS:
            raise ValueError(f"spell {name!r} has two effects ({SPELLS[name].effect} and {effect})")
        SPELLS[name] = SpellRule(name, lines, target, per_casting, duration, effect, up_to, lasting_acts_now)
        return effect

    return wrap


def declare(
    name: str, lines: str, target: str, per_casting: int | None = None, duration: str = INSTANT
) -> None:
    """A spell whose effect another module gives (Summon Dragon ...: ``rulebook.build_extensions``)."""
    SPELLS.setdefault(name, SpellRule(name, lines, target, per_casting, duration, None))


def effect_for(game: RuleContext, name: str) -> Effect | None:
    """The effect of spell `name` in this game (None: the game knows no effect for it)."""
    return game.extensions.spell_effects.get(name)


# ------------------------------------------------------------------------ announcement checks


def _err(msg: str, rule: SpellRule | None = None, lines: str | None = None) -> IllegalSpell:
    cite = f"{DOC} L{lines}" if lines else (rule.citation if rule else None)
    return IllegalSpell(msg, cite)


def _unit_ids(entry: Mapping[str, Any]) -> list[str]:
    units = entry.get("units")
    if units is None and isinstance(entry.get("target"), list):
        units = entry["target"]
    if units is None:
        return []
    if not isinstance(units, list) or not all(isinstance(u, str) for u in units):
        raise IllegalSpell("'units' must be a list of unit ids")
    if len(set(units)) != len(units):
        raise IllegalSpell("a unit is listed twice in 'units'")
    return list(units)


def _matches_element(unit: Unit, element: str) -> bool:
    return element in unit.spec.elements


def announce(
    game: RuleContext, pid: str, army: Army, card: Any, entry: Mapping[str, Any], pay: str
) -> AnnouncedSpell:
    """Check one announced spell's castings and target (V4.01c L473-476, L2118-2156); returns it
    ready to be paid for and cast.  Raises ``IllegalSpell`` saying what is wrong."""
    st = game.state
    rule = SPELLS.get(card.name)
    castings = entry.get("castings", 1)
    if not isinstance(castings, int) or isinstance(castings, bool) or castings < 1:
        raise IllegalSpell(
            f"'castings' must be a whole number of at least 1, not {castings!r}", f"{DOC} L2139-2148"
        )
    if rule is None:  # a spell card V4.01c prints no rules for (Dracolem alloys): target checked generically
        target = entry.get("target")
        game.check_target(pid, card, target)
        species = "" if card.species == "Basic" else card.species
        return AnnouncedSpell(
            card.name, card.cost * castings, pay, species, str(target), card.reserve, card.color, castings
        )
    if castings > 1 and not rule.cumulative:
        raise _err(
            f"{card.name} has no cumulative number: combined castings add nothing (cast it once)",
            lines="2154-2156",
        )
    amount = (rule.per_casting or 1) * castings
    kind = rule.target
    target = entry.get("target")
    units: list[str] = _unit_ids(entry) if kind in UNIT_LIST_KINDS else []
    to = entry.get("to")
    ref = target if isinstance(target, str) else ""

    def army_ref(value: Any) -> tuple[str, str]:
        if not is_army_id(value):
            raise _err(f"{card.name} targets {kind}: give an army id '<player>@<terrain or reserve>'", rule)
        owner, loc = split_army_id(value)
        if owner not in st.player_ids or not st.army(owner, loc).units:
            raise _err(f"there is no army {value!r} to target", lines="473-476")
        return owner, loc

    if kind in (ARMY, OPPOSING_ARMY, FERAL_ARMY):
        owner, loc = army_ref(target)
        if kind == OPPOSING_ARMY and owner == pid:
            raise _err(f"{card.name} must target an opposing army, not your own", rule)
        if kind == FERAL_ARMY and not any(u.spec.species == "Feral" for u in st.army(owner, loc).units):
            raise _err(f"{card.name} must target an army with at least one Feral unit", rule)
        game.check_target(pid, card, target)
    elif kind in (TERRAIN, TERRAIN_NOT_EIGHTH):
        if target not in st.terrains:
            raise _err(f"{card.name} targets a terrain: {target!r} is not a terrain in play", rule)
        if kind == TERRAIN_NOT_EIGHTH and st.terrains[target].face == 8:
            raise _err(f"{card.name} cannot target a terrain at its eighth face", rule)
    elif kind == OWN_UNIT_AT_TERRAIN and castings > 1:
        # combined castings of a cumulative "one" (Path): that many of your units, one destination (L2139-2148)
        units = _unit_ids(entry)
        if len(units) != amount:
            raise _err(
                f"{card.name} cast {castings} times combined targets {amount} of your units: list them in "
                "'units'",
                lines="2139-2148",
            )
        for uid in units:
            _check_own_mover(st, pid, card, rule, uid, to)
        ref = units[0]
    elif kind in (OPPOSING_UNIT, OWN_UNIT_AT_TERRAIN, OWN_DRAGONKIN, ELDARIM_UNIT):
        if not isinstance(target, str) or target not in st.units or not st.units[target].is_unit:
            raise _err(f"{card.name} targets a unit: {target!r} is not a unit", rule)
        u, where = st.units[target], st.location[target]
        in_play = where in st.terrains or where == RESERVE
        if kind == OPPOSING_UNIT:
            if u.owner == pid or not in_play:
                raise _err(f"{card.name} must target an opposing unit in play", rule)
            game.check_target(pid, card, target)  # Lightning Strike once per unit: check_all
        elif kind == OWN_UNIT_AT_TERRAIN:
            _check_own_mover(st, pid, card, rule, target, to)
        elif kind == OWN_DRAGONKIN:
            if u.owner != pid or u.spec.species != "Dragonkin" or not in_play or not _matches_element(u, pay):
                raise _err(
                    f"{card.name} must target one of your Dragonkin units in play of {pay} element", rule
                )
        else:  # ELDARIM_UNIT
            if u.spec.species != "Eldarim" or not in_play or not _matches_element(u, pay):
                raise _err(f"{card.name} must target an Eldarim unit in play of {pay} element", rule)
        ref = target
    elif kind in (OWN_BUA_MINOR, OWN_POOL_DRAGONKIN):
        die = st.units.get(target) if isinstance(target, str) else None
        if kind == OWN_BUA_MINOR and (
            die is None or die.owner != pid or st.location[die.uid] != BUA or die.spec.kind != "minor_terrain"
        ):
            raise _err(f"{card.name} must target a minor terrain in your BUA", rule)
        if kind == OWN_POOL_DRAGONKIN and (
            die is None
            or die.owner != pid
            or st.location[die.uid] != POOL
            or die.spec.species != "Dragonkin"
            or pay not in die.spec.elements
        ):
            raise _err(f"{card.name} must target a Dragonkin of {pay} in your Summoning Pool", rule)
    elif kind == OWN_DUA:
        if target != f"dua:{pid}":
            raise _err(f"{card.name} targets your own DUA: 'dua:{pid}'", rule)
    elif kind in UNIT_LIST_KINDS:
        ref = _check_units(game, pid, army, card, rule, kind, units, amount, pay, to)
    else:  # pragma: no cover - a table entry with an unknown kind
        raise _err(f"{card.name}: unknown target kind {kind!r}", rule)
    species = "" if card.species == "Basic" else card.species
    return AnnouncedSpell(
        card.name,
        card.cost * castings,
        pay,
        species,
        ref,
        card.reserve,
        card.color,
        castings,
        tuple(units),
        to if isinstance(to, str) else None,
        kind,
    )


def _check_own_mover(st: GameState, pid: str, card: Any, rule: SpellRule, uid: Any, to: Any) -> None:
    """One of the caster's units at a terrain, moved to another terrain where the caster has an army."""
    if not isinstance(uid, str) or uid not in st.units or not st.units[uid].is_unit:
        raise _err(f"{card.name} targets a unit: {uid!r} is not a unit", rule)
    u, where = st.units[uid], st.location[uid]
    if u.owner != pid or where not in st.terrains:
        raise _err(f"{card.name} must target one of your units at a terrain", rule)
    if u.spec.species == "Dragonkin":
        raise _err(
            f"{card.name} cannot move a Dragonkin: it never leaves the terrain where it was "
            "summoned (V4.01c L2521)",
            rule,
        )
    if to not in st.terrains or to == where or not st.army(pid, to).units:
        raise _err(f"{card.name}: 'to' must be another terrain where you have an army", rule)


def _check_units(
    game: RuleContext,
    pid: str,
    army: Army,
    card: Any,
    rule: SpellRule,
    kind: str,
    units: list[str],
    amount: int,
    pay: str,
    to: Any,
) -> str:
    """Unit-list targets: where they are, whose, and the "up to" rule (V4.01c L1098-1102: as much
    as possible, never more)."""
    st = game.state
    if not units:
        raise _err(f"{card.name} targets {kind}: list them in 'units'", rule)
    for uid in units:
        if uid not in st.units:
            raise _err(f"{uid!r} is not a die of this game", rule)
    dice = [st.units[u] for u in units]
    places = {st.location[u] for u in units}
    owners = {d.owner for d in dice}
    if len(places) != 1:
        raise _err(f"{card.name}: the targets must all be at one place", rule)
    place = places.pop()
    if kind in (UNITS_AT_TERRAIN, OPPOSING_UNITS_AT_TERRAIN, OPPOSING_ARMY_UNITS, OWN_AMAZONS_AT_TERRAIN):
        if place not in st.terrains:
            raise _err(f"{card.name}: the targets must be at a terrain", rule)
        if kind != UNITS_AT_TERRAIN and kind != OWN_AMAZONS_AT_TERRAIN and pid in owners:
            raise _err(f"{card.name} targets opposing units only", rule)
        if kind == OPPOSING_ARMY_UNITS and len(owners) != 1:
            raise _err(f"{card.name}: the targets must be in one army", rule)
        for d in dice:
            if not d.is_unit:
                raise _err(f"{d.name} is not a unit", rule)
            if card.color == "Black" and d.owner != pid:
                game.check_target(pid, card, str(ArmyId(d.owner, place)))
        if kind == UNITS_AT_TERRAIN:
            pool = [
                u
                for u in st.units.values()
                if st.location[u.uid] == place and u.is_unit and u.owner in owners
            ]
        elif kind == OPPOSING_ARMY_UNITS:
            pool = [u for u in st.army(next(iter(owners)), place).units]
        elif kind == OPPOSING_UNITS_AT_TERRAIN:
            pool = [
                u for u in st.units.values() if st.location[u.uid] == place and u.is_unit and u.owner != pid
            ]
        else:  # Rally: count of units, not health (L2417-2420)
            if owners != {pid} or any(d.spec.species != "Amazons" for d in dice):
                raise _err(f"{card.name} targets your own Amazon units", rule)
            pool = [u for u in st.army(pid, place).units if u.spec.species == "Amazons"]
            if len(units) > amount or len(units) < min(amount, len(pool)):
                raise _err(
                    f"{card.name}: target as many of your Amazon units there as possible, up to {amount}",
                    lines="1098-1102",
                )
            if (
                to not in st.terrains
                or to == place
                or not any(u.spec.species == "Amazons" for u in st.army(pid, to).units)
            ):
                raise _err(f"{card.name}: 'to' must be another terrain where you have an Amazon unit", rule)
            return place
        _up_to(card, [d.health for d in dice], [u.health for u in pool], amount)
        return place if kind != OPPOSING_ARMY_UNITS else str(ArmyId(next(iter(owners)), place))
    if kind == OPPOSING_DUA_UNITS:
        if place != DUA or pid in owners or len(owners) != 1 or not all(d.is_unit for d in dice):
            raise _err(f"{card.name} targets units in one opposing player's DUA", rule)
        owner = next(iter(owners))
        pool = [u for u in st.area(owner, DUA) if u.is_unit]
        _up_to(card, [d.health for d in dice], [u.health for u in pool], amount)
        return f"dua:{owner}"
    if kind == OWN_DUA_UNITS:
        if place != DUA or owners != {pid}:
            raise _err(f"{card.name} targets units in your own DUA", rule)

        def fits(u: Unit) -> bool:
            return u.is_unit and (
                pay in u.spec.elements or (u.spec.species == "Amazons" and not u.spec.elements)
            )

        for d in dice:
            if not fits(d):
                raise _err(f"{d.name} does not contain {pay}, the element paying for {card.name}", rule)
        pool = [u for u in st.area(pid, DUA) if fits(u)]
        _up_to(card, [d.health for d in dice], [u.health for u in pool], amount)
        return f"dua:{pid}"
    raise _err(f"{card.name}: unknown target kind {kind!r}", rule)  # pragma: no cover


def _up_to(card: Any, chosen: Sequence[int], pool: Sequence[int], amount: int) -> None:
    """V4.01c L1098-1102: as much of the X health-worth as the targets allow, never in excess."""
    got = sum(chosen)
    if got > amount:
        raise _err(
            f"{card.name}: the targets have {got} health, more than the {amount} health-worth allowed",
            lines="1098-1102",
        )
    best = health_to_kill(list(pool), amount)
    if got < best:
        raise _err(
            f"{card.name}: the targets have {got} health but {best} health-worth can be targeted: "
            "as much as possible must be used",
            lines="1098-1102",
        )


def mixed_payment(name: str) -> str | None:
    """Summon White Dragon may be paid with any combination of magic elements (V4.01c L2438-2442):
    announced without an 'element', it is paid with "Any"."""
    from ..magic import ANY_ELEMENTS

    return ANY_ELEMENTS if name == "Summon White Dragon" else None


def check_all(casts: Sequence[SpellCast]) -> None:
    """Checks over the whole announcement: one Lightning Strike per unit per magic action (L2187-2193)."""
    struck = [c.target for c in casts if c.name == "Lightning Strike"]
    if len(struck) != len(set(struck)):
        raise IllegalSpell(
            "a unit may not be targeted by more than one Lightning Strike per magic action",
            f"{DOC} L2187-2193",
        )


def lasting(
    game: RuleContext,
    entry: Mapping[str, Any],
    target: str,
    expiry: str = UNTIL_YOUR_NEXT_TURN,
    **detail: Any,
) -> LastingEffect:
    """Put a spell's lasting effect in force; castings of the same spell by the same caster on the
    same target add up (L2139-2153), a spell without a highlighted number is not doubled (L2154-2156)."""
    st = game.state
    name = entry["spell"]
    rule = SPELLS.get(name)
    castings = int(entry.get("castings", 1))
    for e in st.effects:
        if e.name == name and e.owner == entry["caster"] and e.target == target and e.expiry == expiry:
            if rule is not None and rule.cumulative:
                e.detail["castings"] = int(e.detail.get("castings", 1)) + castings
            return e
    return game.add_effect(name, entry["caster"], target, expiry, castings=castings, **detail)
