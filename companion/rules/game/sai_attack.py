"""Melee and missile attacks with their SAIs in play (V4.01c L405-437, L1015-1016, SAI table L1178-2084).

The flow's ``Game.attack`` hands the whole attack to :func:`attack`:

1. the attacker rolls (re-rolls of Rend, Bullseye, Flurry, Double Strike ... are asked by the roll);
2. the attacker's SAIs that act before the defending army saves (kills, save-or-die, maneuver-or-die,
   Roar, Scare, Seize, Slay, Swallow, Plague, Charm, Coil, Hug, Gore, Kick, Smite, Stone, Firebreath,
   Net, Web, Stun), each with its targets chosen by the attacker (``sai_targeting``);
3. the defender's save roll, with the penalties of Howl, Screech and Wave, the delayed SAIs applied
   once its faces are known (Choke, Confuse, Decapitate, Hypnotic Glare, Impale: step 2,
   L1015-1016) and Charge's combination save + melee roll;
4. damage (Cursed Bullets: part of it only spell saves reduce, L922-929), then backlash on the
   attacking army: Counter, Volley, Scorching Touch, Charge (reducible only by spell-generated
   saves) and Bash (the targeted unit may save);
5. Foul Stench and Surprise: who may not counter-attack (L907-914, L1969-1977).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..core.decisions import Decision
from ..core.ids import ArmyId, split_army_id
from ..core.state import BUA, DUA, RESERVE, Army, Unit
from . import dua, sai_rise
from . import sai_status as status
from .rolling import RollOutcome
from .sai_general import sai_reports
from .sai_rise import kill_units
from .sai_targeting import (
    health_worth_targets,
    individual_roll,
    one_unit,
    optional_units,
    pick,
    reroll_in_place,
    showed_id,
)

if TYPE_CHECKING:
    from .context import RuleContext

Flow = Generator[Decision, Any, Any]
MELEE, MISSILE = "melee", "missile"

#: effect kind -> (what the targets roll, what happens on a failure)
TARGETED = {
    "kill": (None, "kill"),
    "kill_and_bury": (None, "kill_and_bury"),
    "to_reserves": (None, "reserves"),
    "save_or_kill": ("save", "kill"),
    "save_or_kill_then_save_or_bury": ("save", "kill_then_save_or_bury"),
    "maneuver_or_kill": ("maneuver", "kill"),
    "maneuver_or_kill_then_save_or_bury": ("maneuver", "kill_then_save_or_bury"),
    "maneuver_or_net": ("maneuver", "netted"),
    "maneuver_or_stun": ("maneuver", "stunned"),
    "melee_or_web": ("melee", "webbed"),
    "save_or_reserves": ("save", "reserves_id_killed"),
    "id_to_reserves_else_kill": ("id", "reserves_else_kill"),
}
ONE_UNIT = {"roll_id_or_kill", "roll_id_or_kill_and_bury", "plague", "coil", "hug", "damage_unit"}
PRE_SAVE = (
    frozenset(TARGETED)
    | ONE_UNIT
    | {
        "charm",
        "damage_no_save",
        "charge",
        "delayed_kill_id",
        "delayed_hypnotize",
        "delayed_reroll",
        "defender_save_modifier",
    }
)
SPELL_ONLY = "damage_spell_saves_only"


@dataclass
class AttackPlan:
    """What the attacker's roll asks of the defender's save roll."""

    kind: str
    attacker: str  # army id
    delayed: list[tuple[dict[str, Any], str | None]] = field(default_factory=list)
    penalties: list[tuple[str, int]] = field(default_factory=list)
    charge: bool = False
    per_unit_melee: dict[str, int] = field(default_factory=dict)
    to_kill: list[str] = field(default_factory=list)  # killed at step 2 (Choke, Decapitate, Impale)
    glare: list[tuple[str, str | None]] = field(default_factory=list)  # (uid hypnotized, glaring unit)
    bash: list[tuple[str, int]] = field(default_factory=list)  # (attacking unit, its melee)


def rule_of(source: str) -> str:
    from ..v4.sai import SAI_RULES

    rule = SAI_RULES.get(source)
    return rule.citation if rule is not None else "V4.01c L1178-2084"


def _army(game: RuleContext, army_id: str) -> Army:
    owner, loc = split_army_id(army_id)
    return game.state.army(owner, loc)


# --------------------------------------------------------------------------- the attack


def attack(
    game: RuleContext, attacker: Army, target: Army, kind: str, counter: bool, ids_count: bool = True
) -> Flow:
    """Attack roll, SAIs, save roll, damage, backlash (V4.01c L405-411, L430-437)."""
    from ..v4.species import SPECIES_ABILITIES  # noqa: F401  (species hooks registered)

    st = game.state
    if not counter:
        status.reset_march_marks(game)
    what = "counter-attack" if counter else kind
    choices: dict[str, Any] = {}
    if kind == MISSILE and target.location == RESERVE and attacker.location != RESERVE:
        choices["Tower shot at Reserves"] = True  # Net and Web do nothing then (L1726-1728, L2069-2071)
    if kind == MISSILE and target.location != attacker.location:
        choices["target at another terrain"] = True  # Cursed Bullets needs the same terrain (L922-924)
    if not counter and (attacker.owner, attacker.location, st.turn) in game.notes.get("minor_buried", ()):
        # Javelin / Kukri Charge: a minor terrain was buried instead of maneuvering (V4.01c L784-797)
        choices["active"] = ("Javelin Charge", "Kukri Charge")
    game.notes["sai_counter"] = counter
    try:
        hits = yield from game.roll(
            attacker,
            kind,
            f"{game.player_name(attacker.owner)}: roll {game.army_label(attacker)} for {kind} ({what})",
            "V4.01c L405-411" if kind == MELEE else "V4.01c L430-437",
            counter_attack=counter,
            ids_count=ids_count,
            choices=choices,
            aimed_at=target.location,  # Wall of Fog (V4.01c L2384-2387)
        )
    finally:
        game.notes["sai_counter"] = False
    plan = AttackPlan(kind, attacker.id)
    plan.per_unit_melee = {
        uid: int(p.get("melee", 0)) for uid, p in zip(hits.uids, hits.per_unit, strict=False)
    }
    total = hits.total
    total += yield from _before_save(game, attacker, target, kind, hits, plan)
    target = st.army(target.owner, target.location)
    if total <= 0 or not target.units:
        game.say(
            f"No {kind} results: no save roll, no damage" if total <= 0 else "The defending army is gone"
        )
        yield from _foul_stench(game, attacker, target, kind, counter)
        return
    cursed = sum(
        int(r["amount"] or 0) for r, _ in sai_reports(hits, {SPELL_ONLY}) if r["source"] == "Cursed Bullets"
    )
    # saving against a counter-attack: no Scorching Touch (L937-938)
    ctx: dict[str, Any] = {"against": kind, "sai_plan": plan, "counter_attack": counter}
    if plan.charge:
        ctx["counted"] = ("save", "melee")
    saves = yield from game.roll(
        target,
        "save",
        f"{game.player_name(target.owner)}: roll {game.army_label(target)} for saves against {total} {kind}"
        + (" (Charge: a combination save and melee roll)" if plan.charge else ""),
        "V4.01c L406-411",
        need=(total, "saves to stop every hit"),
        **ctx,
    )
    status.march_marks(game)["charmed"].clear()  # charmed units sat out this save roll only (L1321-1323)
    if plan.to_kill:
        alive = [u for u in plan.to_kill if st.location[u] == target.location]
        yield from kill_units(game, alive, cause="delayed SAI")
    for uid, glarer in plan.glare:
        if st.location[uid] == target.location:
            status.set_status(game, uid, "hypnotized", attacker.owner, glarer=glarer)
    save_total = saves.totals.get("save", saves.total) if plan.charge else saves.total
    spell = spell_saves(game, st.army(target.owner, target.location)) if cursed else 0
    if cursed:
        cursed = min(cursed, total)
        normal = max(0, total - cursed - max(0, save_total - spell))
        damage = max(0, normal + cursed - spell)
        game.say(f"Cursed Bullets: {cursed} of the {total} missile only spell saves reduce (V4.01c L922-929)")
    else:
        damage = max(0, total - save_total)
    game.say(f"{total} {kind} - {save_total} saves = {damage} damage")
    yield from game.inflict(st.army(target.owner, target.location), damage)
    yield from _backlash(game, attacker, target, saves, plan)
    yield from _foul_stench(game, attacker, target, kind, counter)


def spell_saves(game: RuleContext, army: Army) -> int:
    """Save results the spells in force give this army (the only saves that reduce Counter, Volley,
    Charge, Scorching Touch and Cursed Bullets damage, L1372-1398)."""
    from ..resolution import EffectInForce
    from .rolling import ArmyRoll, resolve_army_roll

    effects = tuple(e for e in game.effects_on(army) if isinstance(e, EffectInForce) and _is_spell(e.name))
    if not effects or not army.units:
        return 0
    st = game.state
    terrain = st.terrains.get(army.location)
    unit = army.units[0]
    face = next(f for f in unit.spec.faces if not f.endswith(" ID"))
    req = ArmyRoll(
        "save",
        ((unit, (face,)),),
        terrain=None if terrain is None else terrain.kind,
        face=terrain.face if terrain else 1,
        in_reserve=army.location == RESERVE,
        against="melee",
        effects=effects,
        not_counting=frozenset({unit.uid}),
        force_points=st.force_size,
    )
    try:
        return max(0, resolve_army_roll(req).total)
    except ValueError:
        return 0


def _is_spell(name: str) -> bool:
    from ..catalogue import load_catalogue

    return load_catalogue().spell(name) is not None


# --------------------------------------------------------------------------- before the save roll


def _grouped(game: RuleContext, attacker: Army, reports: list[tuple[dict[str, Any], str | None]]) -> Flow:
    """Several faces of one SAI may be combined into one larger effect or resolved one by one
    (V4.01c L1228-1232); SAIs aimed at one unit always go one by one."""
    by_source: dict[tuple[str, str], list[tuple[dict[str, Any], str | None]]] = {}
    for r, uid in reports:
        by_source.setdefault((r["source"], r["kind"]), []).append((r, uid))
    out = []
    for (source, kind), group in by_source.items():
        if len(group) > 1 and kind not in ONE_UNIT and kind in TARGETED:
            how = yield from pick(
                game,
                attacker.owner,
                [
                    ("combine", f"Combine the {len(group)} {source} effects"),
                    ("one_by_one", "Resolve them one by one"),
                ],
                f"{source}: combine its effects or resolve them one by one?",
                "V4.01c L1228-1230",
            )
            if how == "combine":
                total = sum(int(r["amount"] or 0) for r, _ in group)
                out.append(({**group[0][0], "amount": total}, group[0][1]))
                continue
        out.extend(group)
    return out


def _before_save(
    game: RuleContext, attacker: Army, target: Army, kind: str, hits: RollOutcome, plan: AttackPlan
) -> Flow:
    """Carry out the attacker's SAIs that act before the save roll; returns extra attack results (Charm)."""
    st = game.state
    extra = 0
    reports = [(r, uid) for r, uid in sai_reports(hits, PRE_SAVE) if r["source"] != "Sneak Attack"]
    reports = yield from _grouped(game, attacker, reports)
    for r, uid in reports:
        k, source, amount = r["kind"], r["source"], int(r["amount"] or 0)
        rule = rule_of(source)
        defender = st.army(target.owner, target.location)
        if k in ("delayed_kill_id", "delayed_hypnotize", "delayed_reroll"):
            plan.delayed.append((r, uid))
            continue
        if k == "defender_save_modifier":
            plan.penalties.append((source, amount))
            continue
        if k == "charge":
            plan.charge = True
            game.say(
                f"Charge: {game.army_label(defender)} makes a combination save and melee roll instead of a "
                f"save roll and counter-attack ({rule})"
            )
            status.march_marks(game)["surprised"] = True
            continue
        if not defender.units:
            continue
        if k in TARGETED:
            targets = yield from health_worth_targets(
                game,
                attacker.owner,
                defender.units,
                amount,
                f"{source}: target up to {amount} health-worth of {game.army_label(defender)}",
                rule,
            )
            yield from _targeted(game, attacker, k, source, targets, rule)
        elif k == "charm":
            targets = yield from health_worth_targets(
                game,
                attacker.owner,
                defender.units,
                amount,
                f"Charm: target up to {amount} health-worth of {game.army_label(defender)}",
                rule,
            )
            if targets:
                charmed = Army(defender.owner, defender.location, tuple(st.units[u] for u in targets))
                out = yield from game.roll(
                    charmed,
                    kind,
                    f"{game.player_name(defender.owner)}: roll your charmed units "
                    f"for {kind}: their results join the attacker's (Charm)",
                    rule,
                    no_sai_effects=True,
                )
                status.march_marks(game)["charmed"].update(targets)
                extra += out.total
                game.say(f"Charm: {out.total} {kind} added to the attack ({rule})")
        elif k == "damage_no_save":
            game.say(f"{source}: {amount} damage to {game.army_label(defender)}, no save possible ({rule})")
            # a list, not a set: the save-or-bury rolls are asked in the army's order, so a
            # replayed log hands each recorded roll to the same die in every process
            before = [u.uid for u in defender.units]
            bury_check = source == "Firebreath"
            # no save possible, so no save roll: Open Grave does nothing (L2240-2245)
            if bury_check:
                yield from game.inflict(defender, amount, save_roll=False)
                dead = [u for u in before if st.location[u] == DUA]
                yield from save_or_bury(game, dead, source, rule)
            else:
                yield from game.inflict(defender, amount, save_roll=False)
        elif k in ONE_UNIT:
            yield from _one_unit_effect(game, attacker, defender, k, source, amount, uid, rule)
    return extra


def _targeted(game: RuleContext, attacker: Army, k: str, source: str, targets: list[str], rule: str) -> Flow:
    st = game.state
    roll, failure = TARGETED[k]
    if targets:
        game.say(f"{source} targets " + ", ".join(st.units[u].name for u in targets) + f" ({rule})")
    failed: list[str] = []
    to_reserve: list[str] = []
    killed_by_id: list[str] = []
    for uid in targets:
        unit = st.units[uid]
        if roll is None:
            failed.append(uid)
            continue
        if roll == "id":
            _, faces = yield from individual_roll(
                game,
                unit,
                "save",
                f"{source}: an ID sends it to the Reserve Area, anything else kills it",
                rule,
            )
            (to_reserve if showed_id(unit, faces) else killed_by_id).append(uid)
            continue
        out, faces = yield from individual_roll(
            game,
            unit,
            roll,
            f"{source}: {roll} or suffer it",
            rule,
            against="individual" if roll == "save" else None,
        )
        if failure == "reserves_id_killed" and showed_id(unit, faces):
            killed_by_id.append(uid)
        elif out.totals.get(roll, out.total) <= 0:
            failed.append(uid)
    if failure in ("kill", "kill_then_save_or_bury"):
        yield from kill_units(game, failed, cause=source)
        if source == "Convert" and failed:
            worth = sum(st.units[u].health for u in failed)
            yield from _convert_return(game, attacker, worth, rule)
        if failure == "kill_then_save_or_bury":
            yield from save_or_bury(game, [u for u in failed if st.location[u] == DUA], source, rule)
    elif failure == "kill_and_bury":
        yield from kill_units(game, failed, cause=source, bury=True)
    elif failure in ("netted", "stunned", "webbed"):
        for uid in failed:
            status.set_status(game, uid, failure, attacker.owner)
    elif failure == "reserves":
        _to_reserves(game, failed, source, rule)
    elif failure == "reserves_id_killed":
        _to_reserves(game, failed, source, rule)
        yield from kill_units(game, killed_by_id, cause=source)
    elif failure == "reserves_else_kill":
        _to_reserves(game, to_reserve, source, rule)
        yield from kill_units(game, killed_by_id, cause=source)


def _convert_return(game: RuleContext, attacker: Army, worth: int, rule: str) -> Flow:
    st = game.state
    if not st.army(attacker.owner, attacker.location).units:
        return
    dead = [u for u in st.area(attacker.owner, DUA) if u.is_unit]
    chosen = yield from optional_units(
        game,
        attacker.owner,
        dead,
        worth,
        f"Convert: return units from your DUA to {game.army_label(attacker)}?",
        rule,
    )
    for line in dua.return_from_dua(st, chosen, attacker.owner, attacker.location, rule):
        game.say(f"Convert: {line}")


def _to_reserves(game: RuleContext, uids: list[str], source: str, rule: str) -> None:
    st = game.state
    for uid in uids:
        st.location[uid] = RESERVE
    if uids:
        game.say(
            f"{source}: " + ", ".join(st.units[u].name for u in uids) + f" flee to the Reserve Area ({rule})"
        )


def _one_unit_effect(
    game: RuleContext,
    attacker: Army,
    defender: Army,
    k: str,
    source: str,
    amount: int,
    me: str | None,
    rule: str,
) -> Flow:
    st = game.state
    uid = yield from one_unit(
        game,
        attacker.owner,
        defender.units,
        f"{source}: target one unit of {game.army_label(defender)}",
        rule,
    )
    if uid is None:
        return
    unit = st.units[uid]
    if k in ("roll_id_or_kill", "roll_id_or_kill_and_bury"):
        _, faces = yield from individual_roll(
            game, unit, "save", f"{source}: unless it shows its ID it dies", rule
        )
        if not showed_id(unit, faces):
            yield from kill_units(game, [uid], cause=source, bury=k.endswith("bury"))
    elif k == "plague":
        while uid is not None:
            out, _ = yield from individual_roll(game, unit, "save", "Plague: save or die", rule)
            if out.total > 0:
                game.say(f"Plague: {unit.name} saves; the plague stops ({rule})")
                break
            yield from kill_units(game, [uid], cause=source)
            rest = st.army(defender.owner, defender.location).units
            uid = yield from one_unit(
                game, defender.owner, rest, "Plague: target another of your units to save or die", rule
            )
            unit = st.units[uid] if uid is not None else unit
    elif k == "damage_unit":
        out, _ = yield from individual_roll(
            game, unit, "save", f"{source}: {amount} damage, save against it", rule
        )
        if amount - out.total >= unit.health:
            yield from kill_units(game, [uid], cause=source, bury=source == "Gore")
        else:
            game.say(f"{source}: {unit.name} survives ({amount} damage, {out.total} saves)")
    elif k == "coil":
        # the target takes X damage and rolls save + melee; its melee hits the coiling unit (L1346-1356)
        out, _ = yield from individual_roll(
            game,
            unit,
            "save",
            f"Coil: {amount} damage; a combination save and melee roll",
            rule,
            counted=("save", "melee"),
        )
        saves, melee = out.totals.get("save", 0), out.totals.get("melee", 0)
        if amount - saves >= unit.health:
            yield from kill_units(game, [uid], cause=source)
        yield from _hit_back(game, me, melee, source, rule)
    elif k == "hug":
        out, _ = yield from individual_roll(
            game, unit, "melee", "Hug: its melee hits the hugging unit", rule, against=None
        )
        if amount >= unit.health:
            yield from kill_units(game, [uid], cause=source)
        yield from _hit_back(game, me, out.total, source, rule)


def _hit_back(game: RuleContext, me: str | None, melee: int, source: str, rule: str) -> Flow:
    st = game.state
    if me is None or melee <= 0 or st.location.get(me) in (DUA, BUA):
        return
    if melee >= st.units[me].health:
        game.say(f"{source}: {melee} melee back kills {st.units[me].name}, no save possible ({rule})")
        yield from kill_units(game, [me], cause=source)


# --------------------------------------------------------------------------- the save roll (step 2)


def before_resolution(
    game: RuleContext, army: Army, roll: str, dice: list[Unit], rolled: list[list[str]], ctx: dict[str, Any]
) -> Flow:
    """Between the faces and their resolution: delayed SAIs of the attacker act on the save roll
    (step 2, L1015-1016), penalties and Bash targets become part of the roll.  Returns
    ``(not_counting uids, extra effects, extra choices)``."""
    from ..resolution import EffectInForce

    skip: set[str] = set()
    effects: list[EffectInForce] = []
    choices: dict[str, Any] = {}
    plan: AttackPlan | None = ctx.get("sai_plan")
    if roll == "save" and plan is not None:
        for source, amount in plan.penalties:
            effects.append(EffectInForce(source, castings=amount, target="army", hostile=True))
        attacker_owner = ArmyId.parse(plan.attacker).owner
        for r, glarer in plan.delayed:
            yield from _delayed(game, army, attacker_owner, r, glarer, dice, rolled, plan, skip)
        bash = [
            d
            for d, f in zip(dice, rolled, strict=True)
            if d.uid not in skip and any(d.spec.find_face(x).sai == "Bash" for x in f)
        ]
        if bash and plan.kind == MELEE:
            attackers = [u for u in _army(game, plan.attacker).units if plan.per_unit_melee.get(u.uid, 0) > 0]
            uid = yield from one_unit(
                game,
                army.owner,
                attackers,
                "Bash: target one attacking unit (its melee becomes your saves and its damage)",
                rule_of("Bash"),
            )
            if uid is not None:
                choices["Bash target melee"] = plan.per_unit_melee[uid]
                plan.bash.append((uid, plan.per_unit_melee[uid]))
    site = ctx.get("dragon_site")
    if roll == "dragon" and site is not None:
        yield from _bash_a_dragon(game, army, dice, rolled, site, skip, choices)
    if roll in ("save", "dragon") and not ctx.get("individual"):
        yield from _save_or_other(game, army, dice, rolled, choices, regenerate=roll == "save")
    if roll == "maneuver" and ctx.get("counter_maneuver"):
        wave = status.march_marks(game).get("wave", 0)
        if wave:
            effects.append(EffectInForce("Wave", castings=wave, target="army", hostile=True))
    from . import roll_choices, species_play

    more = yield from species_play.before_resolution(game, army, roll, dice, rolled, ctx)
    effects.extend(more)
    # The roller's choices once the faces (and re-rolls) are known: Wilding, Fiery Weapon, Elevate ...
    choices.update((yield from roll_choices.before_totals(game, army, roll, dice, rolled, ctx, skip)))
    return frozenset(skip), tuple(effects), choices


def _bash_a_dragon(
    game: RuleContext,
    army: Army,
    dice: list[Unit],
    rolled: list[list[str]],
    site: Any,
    skip: set[str],
    choices: dict[str, Any],
) -> Flow:
    """Bash in the response to a dragon attack: for each Bash rolled, the roller chooses an attacking
    dragon that inflicted damage; it takes that damage (``dragons.resolve_damage``, step 7) and Bash
    generates as many saves (V4.01c L1266-1269).  The dragons rolled at step 3, so their damage is
    known."""
    shown = [
        i
        for i, (d, f) in enumerate(zip(dice, rolled, strict=True))
        if d.uid not in skip and any(d.spec.find_face(x).sai == "Bash" for x in f)
    ]
    if not shown:
        return
    hurt = [a for a in site.on_army() if a.damage() > 0 and a.dragon.uid not in site.slain | site.sai_killed]
    if not hurt:
        game.say("Bash: no attacking dragon inflicted damage: Bash does nothing (V4.01c L1266-1269)")
        return
    options = [
        (a.dragon.uid, f"{a.dragon.name.split('/', 1)[-1]} ({a.dragon.uid}): {a.damage()} damage")
        for a in hurt
    ]
    for i in shown:
        which = f" ({dice[i].name})" if len(shown) > 1 else ""
        uid = yield from pick(
            game,
            army.owner,
            options,
            f"Bash{which}: choose an attacking dragon that inflicted damage",
            rule_of("Bash"),
        )
        dmg = next(a.damage() for a in hurt if a.dragon.uid == uid)
        choices[f"Bash dragon damage@{i}"] = str(dmg)
        site.bashed[uid] = site.bashed.get(uid, 0) + dmg


def _save_or_other(
    game: RuleContext,
    army: Army,
    dice: list[Unit],
    rolled: list[list[str]],
    choices: dict[str, Any],
    regenerate: bool = True,
) -> Flow:
    """In a save roll, Regenerate may return units instead of saving (L1746-1750) and Wild Growth may
    promote instead (L2072-2080): the roller chooses when the other option can do something."""
    st = game.state
    shown = {d.spec.find_face(face).sai for d, faces in zip(dice, rolled, strict=True) for face in faces}
    if regenerate and "Regenerate" in shown and any(u.is_unit for u in st.area(army.owner, DUA)):
        choices["Regenerate"] = yield from pick(
            game,
            army.owner,
            [
                ("Save", "Regenerate: count its saves"),
                ("return units", "Regenerate: return units from your DUA instead"),
            ],
            "Regenerate: saves or return units?",
            rule_of("Regenerate"),
        )
    # a promotion of any size counts (one unit may be raised several sizes, L1153-1156)
    if "Wild Growth" in shown and any(
        dua.can_promote(st, u.uid, n, None) for u in army.units for n in st.units
    ):
        # X saves or X health-worth of promotions, split as the roller likes (L2075-2078), per die.
        growers = {
            i: f.count
            for i, (d, faces) in enumerate(zip(dice, rolled, strict=True))
            for f in (d.spec.find_face(x) for x in faces)
            if f.sai == "Wild Growth"
        }
        if growers:
            for i, x in growers.items():
                opts = [
                    (f"Save:{x - k},promote:{k}", f"Wild Growth: {x - k} saves, promote {k} health-worth")
                    for k in range(x + 1)
                ]
                which = f" ({dice[i].name})" if len(growers) > 1 else ""
                choices[f"Wild Growth split@{i}"] = yield from pick(
                    game,
                    army.owner,
                    opts,
                    f"Wild Growth{which}: split its {x} results between saves and promotions",
                    rule_of("Wild Growth"),
                )


def _delayed(
    game: RuleContext,
    army: Army,
    attacker_owner: str,
    r: dict[str, Any],
    glarer: str | None,
    dice: list[Unit],
    rolled: list[list[str]],
    plan: AttackPlan,
    skip: set[str],
) -> Flow:
    st = game.state
    source, kind, amount = r["source"], r["kind"], int(r["amount"] or 0)
    rule = rule_of(source)
    ids = [
        d
        for d, f in zip(dice, rolled, strict=True)
        if d.is_unit and d.uid not in skip and d.spec.find_face(f[0]).is_id
    ]
    if kind == "delayed_kill_id":
        if not ids:
            return
        if source == "Choke":
            chosen = yield from health_worth_targets(
                game,
                attacker_owner,
                ids,
                amount,
                f"Choke: kill up to {amount} health-worth that rolled their ID",
                rule,
            )
        else:
            one = yield from one_unit(
                game, attacker_owner, ids, f"{source}: kill one unit that rolled its ID", rule
            )
            chosen = [] if one is None else [one]
        skip.update(chosen)
        plan.to_kill.extend(chosen)
        if chosen:
            game.say(
                f"{source}: "
                + ", ".join(st.units[u].name for u in chosen)
                + f" will be killed; their results do "
                f"not count ({rule})"
            )
    elif kind == "delayed_hypnotize":
        for d in ids:
            skip.add(d.uid)
            plan.glare.append((d.uid, glarer))
        if ids:
            game.say(
                f"Hypnotic Glare: {len(ids)} unit(s) that rolled their ID are hypnotized; their results do not "
                f"count ({rule})"
            )
    elif kind == "delayed_reroll":
        units = [d for d in dice if d.is_unit and d.uid not in skip]
        chosen = yield from health_worth_targets(
            game,
            attacker_owner,
            units,
            amount,
            f"Confuse: target up to {amount} health-worth to roll again",
            rule,
        )
        if not chosen:
            return
        yield from reroll_in_place(
            game,
            army.owner,
            dice,
            rolled,
            chosen,
            source="Confuse",
            rule=rule,
            roll="save",
            note="; their earlier results are ignored",
        )
        game.say(f"Confuse: {len(chosen)} unit(s) rolled again ({rule})")


# --------------------------------------------------------------------------- after the save roll


def _backlash(game: RuleContext, attacker: Army, target: Army, saves: RollOutcome, plan: AttackPlan) -> Flow:
    """Damage the defender's save roll sends back to the attacking army (Counter L1372-1398, Volley
    L2024-2038, Scorching Touch L933-938, Charge L1309-1318): only spell saves reduce it; Bash
    (L1250-1269): the targeted unit takes its own melee and may save."""
    st = game.state
    back = 0
    sources = []
    for r, _ in sai_reports(saves, {SPELL_ONLY}):
        back += int(r["amount"] or 0)
        sources.append(r["source"])
    if plan.charge:
        melee = saves.totals.get("melee", 0)
        if melee:
            back += melee
            sources.append("Charge")
    for uid, melee in plan.bash:
        if st.location.get(uid) != attacker.location or melee <= 0:
            continue
        unit = st.units[uid]
        out, _ = yield from individual_roll(
            game, unit, "save", f"Bash: {melee} damage, save against it", rule_of("Bash")
        )
        if melee - out.total >= unit.health:
            yield from kill_units(game, [uid], cause="Bash")
    now = st.army(attacker.owner, attacker.location)
    if back <= 0 or not now.units:
        return
    spell = spell_saves(game, now)
    damage = max(0, back - spell)
    game.say(
        f"{' + '.join(sorted(set(sources)))}: {back} damage to {game.army_label(now)}"
        + (f" - {spell} spell saves" if spell else "")
        + " (only spell saves reduce it)"
    )
    yield from game.inflict(now, damage, save_roll=False)  # no save roll: no Open Grave (L2240-2245)


def _foul_stench(game: RuleContext, attacker: Army, target: Army, kind: str, counter: bool) -> Flow:
    from . import species_play

    if kind == MELEE and not counter:
        yield from species_play.foul_stench(game, attacker, target)


def may_counter_attack(game: RuleContext, defender: Army | None = None) -> bool:
    """Surprise and Charge leave no counter-attack (L1969-1977, L1309-1318); nor does Foul Stench
    when it bars every unit of the defending army (L907-914)."""
    marks = status.march_marks(game)
    if marks["surprised"]:
        return False
    return defender is None or any(u.uid not in marks["no_counter"] for u in defender.units)


# --------------------------------------------------------------------------- deaths and burials


def save_or_bury(game: RuleContext, dead: list[str], source: str, rule: str) -> Flow:
    """Each unit just killed rolls for saves from the DUA; without a save it is buried."""
    st = game.state
    buried = []
    for uid in dead:
        unit = st.units[uid]
        if st.location[uid] != DUA:
            continue
        out, _ = yield from individual_roll(game, unit, "save", f"{source}: save or be buried", rule)
        if out.total <= 0:
            buried.append(uid)
    if buried:
        keep = yield from sai_rise.rise_from_the_ashes(game, buried, "buried")
        buried = [u for u in buried if u not in keep]
        for line in dua.bury(st, buried):
            game.say(f"{source}: {line}")
