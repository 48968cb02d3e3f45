"""Wires the V4 roll tables (:mod:`.sai`, :mod:`.species`, :mod:`.spells`) into the resolution
engine's plug-in :class:`~companion.rules.resolution.registry.Registry`.

The tables answer with :mod:`.contributions`, in the engine's own vocabulary (result types,
stages, ``ALL``); this module binds each answer to one roll (which units a modifier reaches; which
modifiers become reports for other rolls) as the engine's types (``SaiOutcome``, ``Modifier``,
``Report``, ``ElementOption``) and registers one hook per SAI row, per roll-changing species ability
and per roll-changing spell or lasting effect.  Call :func:`register_all` once on the edition's registry.

Choices the caller may make (``RollRequest.choices``), besides those of the engine:

* ``"<SAI name>"``: the option of an SAI that offers one (``{"Fly": "save"}``,
  ``{"Flurry": "melee"}``, ``{"Regenerate": "return units"}``);
* ``"<ability or spell name>": False``: do not use a "may" ability (counts-as);
* ``"dragon rolled Jaws"``: in a dragon attack, some attacking dragon rolled Jaws (Decapitate,
  Impale, Earthfang kill it instead of generating results);
* ``"Bash target melee"`` / ``"Bash dragon damage"``: the numbers Bash copies;
* ``"Tower shot at Reserves"``: a missile attack from a Tower at a Reserve Army (Net, Web);
* ``"in DUA"``: the rolling units are in the DUA (only save-generating SAIs work);
* ``"active"``: abilities declared earlier in the turn (``["Kukri Charge"]``);
* ``"<source> units"``: the die indexes a "double one unit" effect doubles (``{"Wilding units": "2"}``,
  ``{"Elevate units": "0"}``); without it, the unit(s) that rolled the most;
* ``"<key>@<die index>"``: a choice for one die only (``{"Bash dragon damage@3": "12"}``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from companion.rules.resolution.model import (
    ICON_RESULT,
    EffectInForce,
    ElementOption,
    Modifier,
    Report,
    RolledUnit,
    SaiOutcome,
)
from companion.rules.resolution.registry import (
    AbilityHook,
    Contribution,
    Registry,
    RollContext,
    SaiContext,
    SaiHook,
    SpellHook,
)

from . import contributions as c
from .situation import Situation

# The table modules (sai, species, spells) import this module at their end to register their
# hooks, so it imports them lazily, inside the functions below.

# --------------------------------------------------------------------------- situation


_SITUATION_KEY = "v4.situation"


def situation_of(ctx: RollContext) -> Situation:
    """The plug-in tables' view of a roll (computed once per roll when the context can memoize)."""
    memo = getattr(ctx, "_memo", None)  # fast path: the engine's RollContext memo, already filled
    if memo:
        hit: Situation | None = memo.get(_SITUATION_KEY)
        if hit is not None:
            return hit
    memo = getattr(ctx, "memo", None)
    if memo is not None:
        made: Situation = memo(_SITUATION_KEY, lambda: _situation_of(ctx))
        return made
    return _situation_of(ctx)


#: Situations of rolls with no player choices, by what they are built from (a Situation is frozen).
_SITUATIONS: dict[tuple[Any, ...], Situation] = {}


def _situation_of(ctx: RollContext) -> Situation:
    req = ctx.request
    if not req.choices:
        terrain = ctx.terrain
        try:
            key = (
                ctx.purpose,
                ctx.against,
                bool(ctx.counter_attack),
                bool(getattr(req, "counter_maneuver", False)),
                bool(getattr(req, "marching", True)),
                bool(ctx.in_reserve),
                bool(ctx.individual),
                None if terrain is None else terrain.elements,
                ctx.counted,
            )
            hit = _SITUATIONS.get(key)
        except TypeError:  # something unhashable: build it afresh
            return _build_situation(ctx)
        if hit is None:
            if len(_SITUATIONS) > 4096:
                _SITUATIONS.clear()
            hit = _SITUATIONS[key] = _build_situation(ctx)
        return hit
    return _build_situation(ctx)


def _build_situation(ctx: RollContext) -> Situation:
    req = ctx.request
    purpose, against = ctx.purpose, ctx.against
    if purpose == "dragon":
        purpose, against = "save", "dragon"
    elif purpose != "save":
        against = None
    if purpose == "save" and against is None and ctx.individual:
        against = "individual"  # a unit saving alone against an effect aimed at it (V4.01c L1209-1210)
    terrain = ctx.terrain
    elements = (
        frozenset(e.value if hasattr(e, "value") else str(e) for e in terrain.elements)
        if terrain
        else frozenset()
    )
    choices = req.choices
    return Situation(
        roll_for=purpose,
        against=against,
        counter_attack=bool(ctx.counter_attack),
        counter_maneuver=bool(getattr(req, "counter_maneuver", False)),
        marching=bool(getattr(req, "marching", True)),
        at_terrain=not ctx.in_reserve and terrain is not None,
        individual=bool(ctx.individual),
        terrain_elements=elements,
        dragon_rolled_jaws=bool(choices.get("dragon rolled Jaws", False)),
        bash_target_melee=int(choices.get("Bash target melee", 0) or 0),
        bash_dragon_damage=int(choices.get("Bash dragon damage", 0) or 0),
        tower_shot_at_reserves=bool(choices.get("Tower shot at Reserves", False)),
        in_dua=bool(choices.get("in DUA", False)),
        choices={k: v for k, v in choices.items() if isinstance(k, str) and isinstance(v, str)},
        counted_override=tuple(t for t in sorted(ctx.counted) if t in c.RESULT_TYPES) or None,
    )


# --------------------------------------------------------------------------- conversions


def _unit_value(ctx: RollContext, i: int, result: str) -> int:
    """What unit ``i`` brings to ``result``: its counted results once step 5 has run (spell and
    ability hooks), else its faces read directly, SAI faces included (SAI hooks run before)."""
    counted = ctx.rolled[i].get(result, 0) + ctx.sai_results[i].get(result, 0)
    if counted or any(ctx.rolled):
        return counted
    from .sai import sai_contribution

    unit = ctx.units[i]
    situation = situation_of(ctx)
    total = 0
    for face in unit.faces:
        if face.is_id or ICON_RESULT.get(face.icon) == result:
            total += face.count
        elif face.sai is not None:  # a SAI face (catalogue.faces.Face: sai is set on those only)
            total += sai_contribution(face.sai, face.count, situation, unit.die).results.get(result, 0)
    return total


def _best_units(ctx: RollContext, result: str, k: int = 1) -> list[int]:
    """The ``k`` counting units that bring the most ``result`` (a "double one unit" choice made
    for the roller: the best for the roll unless the caller says otherwise)."""
    ranked = sorted(
        (i for i, u in enumerate(ctx.units) if u.counts and u.die.is_unit),
        key=lambda i: (-_unit_value(ctx, i, result), i),
    )
    return ranked[:k]


def _chosen_units(ctx: RollContext, source: str, k: int, index: int | None = None) -> list[int]:
    """The units the roller picked for a "double one unit" effect: ``choices["<source> units"]`` (or
    ``"<source> units@<die index>"`` for the effect of that die), die indexes of this roll (Wilding:
    "select the unit ... after the army makes each roll", V4.01c L2167-2171; Elevate, L1485-1498);
    only counting units, at most ``k``."""
    raw = ctx.request.choices.get(f"{source} units@{index}") if index is not None else None
    if raw is None:
        raw = ctx.request.choices.get(f"{source} units")
    if raw is None:
        return []
    picked = [int(x) for x in (raw.split(",") if isinstance(raw, str) else raw) if str(x).strip() != ""]
    ok = [i for i in picked if 0 <= i < len(ctx.units) and ctx.units[i].counts and ctx.units[i].die.is_unit]
    return list(dict.fromkeys(ok))[:k]


def _bound(
    m: Modifier, origin: str, units: frozenset[int] | None = None, note: str | None = None
) -> Modifier:
    """A table's modifier bound to this roll: the army's roll (only ``units`` of it when given), from
    ``origin``; an army modifier never touches an individual unit's roll (V4.01c L1050-1066)."""
    return Modifier(
        m.stage,
        m.result,
        m.amount,
        m.source,
        m.citation,
        scope="army",
        units=units,
        origin=origin,
        note=m.note if note is None else note,
    )


def _modifiers(
    ctx: RollContext, contribution: c.Contribution, origin: str, index: int | None
) -> tuple[list[Modifier], list[Report]]:
    """The modifiers a table states (``Modifier.reach``: whose rolls), bound to this roll's units, and
    reports for those that reach other rolls."""
    mods: list[Modifier] = []
    reports: list[Report] = []
    one_unit_done: set[tuple[Any, ...]] = set()
    for m in contribution.modifiers:
        reach = m.reach
        if reach is c.Scope.ONE_UNIT:
            key = (m.stage, m.result, m.source)
            if key in one_unit_done:
                continue
            one_unit_done.add(key)
            k = sum(
                1 for o in contribution.modifiers if (o.stage, o.result, o.source) == key and o.reach is reach
            )
            picked = _chosen_units(ctx, m.source, k, index)
            chosen = picked or _best_units(ctx, m.result, k)
            if chosen:
                names = ", ".join(ctx.units[i].name for i in chosen)
                why = "the roller's choice" if picked else "the unit(s) that rolled the most"
                mods.append(
                    _bound(m, origin, frozenset(chosen), f"{m.note.split(' (unit')[0]} ({names}: {why})")
                )
        elif reach is c.Scope.THIS_ROLL:
            mods.append(_bound(m, origin))
        elif reach is c.Scope.UNITS_OF_SPECIES:
            units = ctx.species_units(m.species) if m.species else frozenset()
            if units:
                mods.append(_bound(m, origin, units))
        elif reach is c.Scope.OWN_ARMY_ROLLS:
            # Cloak: the army gets the saves now and until your next turn.
            mods.append(_bound(m, origin))
            reports.append(
                Report(
                    m.source,
                    f"{m.note} (lasting: name it as an effect on later rolls)",
                    m.amount,
                    index,
                    "lasting_modifier",
                )
            )
        else:
            kind = reach.report_kind
            if kind is None:  # the scopes this roll applies itself are handled above
                raise KeyError(reach)
            reports.append(Report(m.source, f"{m.note} [{reach.value}; {m.citation}]", m.amount, index, kind))
    for ca in contribution.counts_as:
        # a species' units; else every die of the army (Charge: "the attacking army counts all
        # maneuver results", items included; spells' counts-as name units only)
        units = (
            ctx.species_units(ca.species)
            if ca.species
            else frozenset(
                i for i, u in enumerate(ctx.units) if u.counts and (u.die.is_unit or origin == "sai")
            )
        )
        if units:
            mods.append(
                replace(
                    ca,
                    units=units,
                    origin=origin,
                    species=None,
                    note=f"{ca.source}: {ca.counts_as} results count as {ca.result}",
                )
            )
    return mods, reports


_DAMAGE_KINDS = {
    "damage_no_save": "{n} damage to {target}, no save possible",
    "damage_spell_saves_only": "{n} damage to {target}, reducible only by spell-generated saves",
    "damage_unit": "{n} damage to {target}",
    "damage": "{n} damage to {target}",
}


def _effect_text(e: c.RollEffect) -> str:
    n = "" if e.amount is None else str(e.amount)
    detail = e.detail
    if n:
        for word in ("X health-worth", "X damage", "X small", "X value", "up to X"):
            detail = detail.replace(word, word.replace("X", n))
        detail = detail.replace(" X ", f" {n} ")
    template = _DAMAGE_KINDS.get(e.kind)
    if template is not None and n:
        head = template.format(n=n, target=e.target or "the target")
        return f"{head}; {detail}" if detail and not detail.startswith("reducible") else head
    text = detail or e.kind.replace("_", " ")
    if n and n not in text:
        text = f"{text} ({n})"
    return f"{text} ({e.target}; {e.timing})" if e.target else text


def _effect_reports(contribution: c.Contribution, index: int | None) -> list[Report]:
    return [
        Report(e.source, f"{_effect_text(e)} [{e.citation}]", e.amount, index, e.kind)
        for e in contribution.effects
    ]


# --------------------------------------------------------------------------- SAI hooks


#: SAIs whose answer depends on more than (name, X, situation, unit index, die): never cached.
_CONTEXT_SAIS = frozenset({"Elevate", "Trumpet", "Charge", "Bash", "Elemental Relic", "Logo"})
_CACHE_LIMIT = 8192


def _sai_hook(name: str) -> SaiHook:
    from .sai import SAI_RULES, rule_for_face, sai_contribution

    cache: dict[tuple[Any, ...], SaiOutcome | None] = {}
    cacheable = name not in _CONTEXT_SAIS

    def hook(sctx: SaiContext) -> SaiOutcome | None:
        ctx = sctx.roll
        situation = situation_of(ctx)
        if cacheable:
            key = (sctx.x, situation.key, sctx.index, sctx.reroll_number < len(sctx.unit.faces) - 1)
            try:
                return cache[key]
            except KeyError:
                pass
            out = _sai_outcome(sctx, situation)
            if len(cache) >= _CACHE_LIMIT:
                cache.clear()
            cache[key] = out
            return out
        return _sai_outcome(sctx, situation)

    def _sai_outcome(sctx: SaiContext, situation: Situation) -> SaiOutcome | None:
        ctx = sctx.roll
        die = sctx.unit.die
        situation = _per_die(situation, sctx.index)
        if _relic_cancelled(sctx):
            return SaiOutcome(
                reports=(
                    Report(
                        "Elemental Relic",
                        "another Elemental Relic rolled the same element: "
                        "no effect this roll [V4.01c L2835-2836]",
                        None,
                        sctx.index,
                        "note",
                    ),
                )
            )
        contribution = sai_contribution(name, sctx.x, situation, die)
        if (
            contribution.options
            and not contribution.rerolls
            and name not in situation.choices
            and sctx.reroll_number < len(sctx.unit.faces) - 1
        ):
            # The die was rolled again, so the roller took the option that re-rolls (Flurry's
            # melee in a dragon attack, L1570-1575), unless the caller chose otherwise.
            for option in contribution.options:
                alt = sai_contribution(
                    name, sctx.x, replace(situation, choices={**situation.choices, name: option}), die
                )
                if alt.rerolls:
                    contribution = alt
                    break
        if contribution.is_empty:
            return None
        results: dict[str, int] = {}
        for key, value in contribution.results.items():
            if value:
                results[key] = results.get(key, 0) + value
        if contribution.id_results and len(ctx.counted) >= 1:
            # Elemental champion logo: an ID worth two results of the roll's type (L1821-1824).
            # It joins with the SAI results (step 8), not at step 5 like a printed ID, because a
            # plug-in cannot add ID results; the eighth-face ID doubling (L501) is applied here.
            t = situation.primary if situation.primary in ctx.counted else sorted(ctx.counted)[0]
            doubled = ctx.terrain is not None and ctx.terrain.controlled and not ctx.individual
            results[t] = results.get(t, 0) + contribution.id_results * (2 if doubled else 1)
        mods, reports = _modifiers(ctx, contribution, "sai", sctx.index)
        reports.extend(_effect_reports(contribution, sctx.index))
        if name == "Bash" and situation.against in ("melee", "dragon") and not results.get("save"):
            reports.append(
                Report(
                    name,
                    "Bash copies the melee results of an attacking unit (or a dragon's damage): "
                    "give it as choices['Bash target melee'] / ['Bash dragon damage']",
                    None,
                    sctx.index,
                    "needs_input",
                )
            )
        if contribution.loses_automatic_saves:
            reports.append(
                Report(
                    name,
                    f"this unit's automatic saves do not count [{contribution.citation}]",
                    None,
                    sctx.index,
                    "loses_automatic_saves",
                )
            )
        if contribution.chosen:
            reports.append(
                Report(
                    name,
                    f"counted as {contribution.chosen} (options: {', '.join(contribution.options)})",
                    None,
                    sctx.index,
                    "choice",
                )
            )
        magic_elements = None
        if name in ("Attune",) or (name == "Logo" and "magic" in results and die.kind.value == "medallion"):
            magic_elements = frozenset({"any"})
        return SaiOutcome(
            results=results,
            modifiers=tuple(mods),
            reroll=contribution.rerolls,
            reports=tuple(reports),
            magic_elements=magic_elements,
        )

    hook.__name__ = f"sai_{name.lower().replace(' ', '_')}"
    hook.__doc__ = (
        f"{name}: {SAI_RULES[name].summary if name in SAI_RULES else ''} ({rule_for_face(name).citation})"
    )
    return hook


def _per_die(situation: Situation, index: int | None) -> Situation:
    """Choices given for one die: ``"<key>@<die index>"`` overrides ``"<key>"`` for that die only
    (``{"Wild Growth split@2": "Save:1,promote:3"}``, ``{"Bash dragon damage@0": "12"}``)."""
    if index is None:
        return situation
    suffix = f"@{index}"
    mine = {k[: -len(suffix)]: v for k, v in situation.choices.items() if k.endswith(suffix)}
    if not mine:
        return situation
    bash = mine.pop("Bash dragon damage", None)
    out = replace(situation, choices={**situation.choices, **mine})
    if bash is not None:
        out = replace(out, bash_dragon_damage=int(bash))
    return out


def _relic_element(unit: RolledUnit) -> str | None:
    """The element an Elemental Relic shows ("*" for the SFR logo, which matches them all)."""
    if not unit.counts or "Elemental Relic" not in unit.die.name or not unit.faces:
        return None
    face = unit.faces[-1]
    if face.sai == "Logo":
        return "*"
    if face.sai == "Elemental Relic":
        return (face.label or "").replace("Element ", "") or "*"
    return None


def _relic_cancelled(sctx: SaiContext) -> bool:
    """Elemental Relics that roll the same element cancel each other (V4.01c L2835-2836)."""
    mine = _relic_element(sctx.unit)
    if mine is None:
        return False
    for i, unit in enumerate(sctx.roll.units):
        if i == sctx.index:
            continue
        other = _relic_element(unit)
        if other is not None and (other == mine or "*" in (other, mine)):
            return True
    return False


def register_sais(reg: Registry) -> None:
    """One hook per SAI face name (the three logo rows share the face name ``Logo``)."""
    from .sai import SAI_RULES

    names = {rule.name for rule in SAI_RULES.values() if not rule.name.startswith("Logo (")}
    for name in sorted(names):
        if name not in reg.sais:
            reg.sai(name)(_sai_hook(name))


# --------------------------------------------------------------------------- species hooks


def _counts_as_hook(ability: str) -> AbilityHook:
    """Fast path for the counts-as abilities: one test, one modifier on the species' units."""
    from .species import SPECIES_ABILITIES, counts_as_applies, counts_as_types

    spec = SPECIES_ABILITIES[ability]
    source, target = counts_as_types(ability)
    note = f"{ability}: {source} results count as {target}"

    cache: dict[
        tuple[Any, ...], tuple[Contribution, ...]
    ] = {}  # (situation key, units) -> answer, for rolls with no player choices

    def hook(ctx: RollContext, idx: frozenset[int]) -> Iterable[Contribution]:
        choices = ctx.request.choices
        if not choices:
            situation = situation_of(ctx)
            key = (situation.key, idx)
            out = cache.get(key)
            if out is None:
                if len(cache) >= _CACHE_LIMIT:
                    cache.clear()
                out = cache[key] = _answer(situation, idx, ())
            return out
        active = choices.get("active", ())
        if isinstance(active, str):
            active = (active,)
        return _answer(situation_of(ctx), idx, active)

    def _answer(situation: Situation, idx: frozenset[int], active: Iterable[str]) -> tuple[Contribution, ...]:
        if not counts_as_applies(ability, situation, active=active):
            return ()
        return (
            Modifier(
                "add",
                target,
                0,
                ability,
                spec.citation,
                scope="any",
                units=idx,
                counts_as=source,
                origin="species",
                optional=True,
                note=note,
            ),
        )

    hook.__name__ = f"ability_{ability.lower().replace(' ', '_')}"
    return hook


def _ability_hook(ability: str) -> AbilityHook:
    from .species import SPECIES_ABILITIES, species_contributions

    def hook(ctx: RollContext, idx: frozenset[int]) -> Iterable[Contribution]:
        species = SPECIES_ABILITIES[ability].species
        if ability == "Scorching Touch":
            return _scorching_touch(ctx, idx, species_contributions)
        situation = situation_of(ctx)
        active = ctx.request.choices.get("active", ())
        if isinstance(active, str):
            active = (active,)
        out: list[Contribution] = []
        for contribution in species_contributions(species, situation, active=active):
            if contribution.source != ability:
                continue
            mods, reports = _modifiers(ctx, contribution, "species", None)
            out.extend(mods)
            out.extend(reports)
            out.extend(_effect_reports(contribution, None))
        return out

    hook.__name__ = f"ability_{ability.lower().replace(' ', '_')}"
    return hook


def _scorching_touch(
    ctx: RollContext, idx: frozenset[int], species_contributions: Callable[..., tuple[c.Contribution, ...]]
) -> Iterable[Contribution]:
    """Scalders saving against melee at a fire terrain: one damage back per save they rolled
    (L933-938); the amount is their rolled saves (normal, ID and SAI)."""
    from .species import scorching_touch_damage

    out: list[Contribution] = []
    for contribution in species_contributions("Scalders", situation_of(ctx)):
        if contribution.source != "Scorching Touch":
            continue
        rolled = sum(ctx.rolled[i].get("save", 0) + ctx.sai_results[i].get("save", 0) for i in idx)
        damage = scorching_touch_damage(rolled)
        if damage:
            out.append(
                Report(
                    "Scorching Touch",
                    f"{damage} damage to the attacking army, reducible only by spell "
                    f"saves [{contribution.citation}]",
                    damage,
                    None,
                    "damage_spell_saves_only",
                )
            )
    return out


def _cursed_bullets(ctx: RollContext, idx: frozenset[int]) -> Iterable[Contribution]:
    """Lava Elves missile attack on an army at the same terrain (L922-929): up to N of their
    missile results only spell saves reduce; N = Lava Elves in the DUA, at most 3s.  Reported."""
    from .species import cursed_bullets

    if ctx.purpose != "missile" or ctx.terrain is None or ctx.in_reserve:
        return ()
    if ctx.request.choices.get("target at another terrain", False):
        return ()
    missile = sum(ctx.rolled[i].get("missile", 0) + ctx.sai_results[i].get("missile", 0) for i in idx)
    effect = cursed_bullets(
        missile, int(ctx.request.dua_counts.get("Lava Elves", 0)), ctx.request.force_points
    )
    if not effect.amount:
        return ()
    return (
        Report(
            "Cursed Bullets",
            f"{effect.amount} of the missile damage is reducible only by spell saves [{effect.citation}]",
            effect.amount,
            None,
            effect.kind,
        ),
    )


def _foul_stench(ctx: RollContext, idx: frozenset[int]) -> Iterable[Contribution]:
    """An army with Goblins takes a melee action (L907-914): after saving, the defender picks N units
    that cannot counter-attack; N = Goblins in the DUA, at most 3s.  Reported."""
    from .species import foul_stench

    if ctx.purpose != "melee" or ctx.counter_attack:
        return ()
    effect = foul_stench(int(ctx.request.dua_counts.get("Goblins", 0)), ctx.request.force_points)
    if not effect.amount:
        return ()
    return (
        Report(
            "Foul Stench",
            f"the defender picks {effect.amount} unit(s) that cannot counter-attack [{effect.citation}]",
            effect.amount,
            None,
            "no_counter_attack_units",
        ),
    )


def _terrain_harmony(ctx: RollContext, idx: frozenset[int]) -> Iterable[Contribution]:
    from .species import SPECIES_ABILITIES, terrain_harmony_elements

    if "magic" not in ctx.counted:
        return ()
    spec = SPECIES_ABILITIES["Terrain Harmony"]
    at_terrain = not ctx.in_reserve and ctx.terrain is not None
    elements = terrain_harmony_elements(ctx.terrain.elements if ctx.terrain else (), at_terrain=at_terrain)
    if not elements:
        return ()
    return (ElementOption(idx, frozenset(elements), "Terrain Harmony", spec.citation, replace=True),)


def _bone_magic(ctx: RollContext, idx: frozenset[int]) -> Iterable[Contribution]:
    from .species import bone_magic

    if ctx.purpose != "magic" or ctx.individual:
        return ()
    # a non-ID magic result: a magic icon or an SAI's magic (Cantrip)
    with_magic = sum(1 for i in idx if ctx.normal[i].get("magic", 0) + ctx.sai_results[i].get("magic", 0) > 0)
    if not with_magic:
        return ()
    m = bone_magic(with_magic, int(ctx.request.dua_counts.get("Undead", 0)), ctx.request.force_points)
    if m.amount <= 0:
        return ()
    return (
        Modifier(
            "add",
            "magic",
            m.amount,
            m.source,
            m.citation,
            scope="any",
            origin="species",
            optional=True,
            element="Death",
            note=f"Bone Magic: +1 magic per Undead with a non-ID magic result ({m.note})",
        ),
    )


#: Abilities answered by :func:`species.species_contributions`.
_TABLE_ABILITIES = (
    "Coastal Dodge",
    "Mountain Mastery",
    "Dwarven Might",
    "Stampede",
    "Flaming Shields",
    "Swamp Mastery",
    "Volcanic Adaptation",
    "Intangibility",
    "Born of the Swamp",
    "Javelin Charge",
    "Kukri Charge",
    "Defensive Volley",
    "Scorching Touch",
    "Rapid Growth",
)


def register_species(reg: Registry) -> None:
    from .species import _COUNTS_AS, SPECIES_ABILITIES

    for ability in _TABLE_ABILITIES:
        spec = SPECIES_ABILITIES[ability]
        if ability not in {e.name for e in reg.abilities.get(spec.species, [])}:
            make = _counts_as_hook if ability in _COUNTS_AS else _ability_hook
            reg.species_ability(spec.species, ability, citation=spec.citation)(make(ability))
    extra = {
        "Terrain Harmony": _terrain_harmony,
        "Bone Magic": _bone_magic,
        "Cursed Bullets": _cursed_bullets,
        "Foul Stench": _foul_stench,
    }
    for ability, fn in extra.items():
        spec = SPECIES_ABILITIES[ability]
        if ability not in {e.name for e in reg.abilities.get(spec.species, [])}:
            reg.species_ability(spec.species, ability, citation=spec.citation)(fn)


# --------------------------------------------------------------------------- spell hooks


def _spell_hook(name: str) -> SpellHook:
    from .spells import find_roll_spell, spell_contribution

    spell = find_roll_spell(name)

    cache: dict[tuple[Any, ...], tuple[Contribution, ...]] = {}
    cacheable = name not in ("Wilding", "Berserker Rage", "Necromantic Wave", "Magic Negation")

    def hook(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
        if not cacheable:
            return _answer(ctx, effect)
        key = (situation_of(ctx).key, effect.castings)
        try:
            return cache[key]
        except KeyError:
            pass
        out = tuple(_answer(ctx, effect))
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        cache[key] = out
        return out

    def _answer(ctx: RollContext, effect: EffectInForce) -> Iterable[Contribution]:
        situation = situation_of(ctx)
        castings = max(1, effect.castings)
        if name == "Magic Negation":
            # capped by the Frostwings in their owner's DUA, at most 5s (L886-893)
            from .species import magic_negation

            dua = int(effect.details.get("frostwings_in_dua", castings))
            castings = magic_negation(castings, dua, ctx.request.force_points).amount
            if castings <= 0:
                return ()
        contribution = spell_contribution(name, situation, castings=castings)
        if contribution is None:
            return ()
        assert spell is not None, f"{name} is a roll spell (its hook is built for one)"
        origin = "spell" if spell.is_spell else "sai"
        mods, reports = _modifiers(ctx, contribution, origin, None)
        out: list[Contribution] = [*mods, *reports, *_effect_reports(contribution, None)]
        return out

    hook.__name__ = f"spell_{name.lower().replace(' ', '_')}"
    return hook


def register_spells(reg: Registry) -> None:
    from .spells import ROLL_SPELLS

    for spell in ROLL_SPELLS.values():
        if spell.name not in reg.spells:
            reg.spell(spell.name)(_spell_hook(spell.name))


def register_all(reg: Registry) -> Registry:
    register_sais(reg)
    register_species(reg)
    register_spells(reg)
    return reg
