"""Species abilities that act on the game, not only on a roll's totals (V4.01c L771-998).

Roll-changing abilities (counts-as, Bone Magic, Terrain Harmony ...) are counted by die roll
resolution (``companion.rules.v4.species``) from what the flow tells it (terrain, counter-attack,
DUA counts).  This module adds what moves dice or asks players:

* species abilities phase (L369-370): Feralization (L858-861), Winter's Fortitude (L881-884),
  Mutate (L949-966); Dragonkin Handlers (L842-850) joins the phase from the Eldarim module;
* Magic Negation's roll (L886-893) and Rapid Growth's re-roll (L968-973), before a roll is totalled;
* Foul Stench (L907-914) after a Goblin melee attack's save roll; Defensive Volley (L821-824);
* deaths: Stepped Damage (L982-984), Replanting (L975-978), and Rise from the Ashes (SAI, L1767-1781,
  written in ``sai_rise``);
* Air Flight in the retreat step (L869-872).

DUA-capped abilities use ``v4.species.dua_cap``: per 24 points of force or part thereof (L776-780),
Deadlands counting through the flow's ``dua_counts`` extension (L2638-2643).
"""

from __future__ import annotations

from collections.abc import Generator
from itertools import combinations
from typing import TYPE_CHECKING, Any

from ..core.decisions import Decision, ask
from ..core.errors import IllegalAllocation
from ..core.ids import split_army_id
from ..core.state import BUA, DUA, RESERVE, Army, Unit
from . import dua, sai_rise
from . import sai_status as status
from .sai_targeting import individual_roll, optional_units, pick, plain_roll, reroll_in_place

if TYPE_CHECKING:
    from ..resolution import EffectInForce
    from .context import RuleContext
    from .dua import Death
    from .extensions import Extensions

Flow = Generator[Decision, Any, Any]


def cite(lines: str) -> str:
    return f"V4.01c L{lines}"


def _elements(game: RuleContext, location: str) -> set[str]:
    t = game.state.terrains.get(location)
    return {e.capitalize() for e in t.kind.elements} if t is not None else set()


def dua_counts(game: RuleContext, pid: str) -> dict[str, int]:
    """Units in `pid`'s DUA per species, with the optional components' additions (Deadlands)."""
    counts: dict[str, int] = {}
    for u in game.state.area(pid, DUA):
        if u.is_unit:
            counts[u.spec.species] = counts.get(u.spec.species, 0) + 1
    for hook in game.extensions.hooks["dua_counts"]:
        counts = hook(game, pid, counts)
    return counts


def cap(game: RuleContext, pid: str, species: str, base: int) -> int:
    """min(units of `species` counted in the DUA, base x s) (L776-780)."""
    from ..v4.species import s_multiplier

    return min(dua_counts(game, pid).get(species, 0), base * s_multiplier(game.state.force_size))


def _species_units(army: Army, species: str) -> list[Unit]:
    return [u for u in army.units if u.spec.species == species]


# --------------------------------------------------------------------------- before a roll is totalled


def before_resolution(
    game: RuleContext, army: Army, roll: str, dice: list[Unit], rolled: list[list[str]], ctx: dict[str, Any]
) -> Flow:
    """Magic Negation and Rapid Growth; returns extra effects in force for this roll."""
    effects: list[EffectInForce] = []
    if ctx.get("individual") or ctx.get("order_of_play"):
        return effects
    st = game.state
    if (
        roll == "magic"
        and army.location in st.terrains
        and army.owner == st.marching
        and not ctx.get("negation")
    ):
        effects.extend((yield from _magic_negation(game, army)))
    if roll == "maneuver" and ctx.get("counter_maneuver") and "Earth" in _elements(game, army.location):
        yield from _rapid_growth(game, army, dice, rolled)
    from .spells.fire import flashfire_reroll

    yield from flashfire_reroll(game, army, roll, dice, rolled, ctx)  # Flashfire re-rolls (V4.01c L2317-2322)
    return effects


def _magic_negation(game: RuleContext, army: Army) -> Flow:
    """Frostwings at the terrain roll; their magic (at most their units in the DUA, 5s) is subtracted
    from the opponent's magic (L886-893)."""
    from ..resolution import EffectInForce

    rule = cite("886-893")
    st = game.state
    out = []
    for other in game.opponents_in_turn_order(army.owner):
        frost = _species_units(st.army(other, army.location), "Frostwings")
        limit = cap(game, other, "Frostwings", 5)
        if not frost or limit <= 0:
            continue
        answer = yield from pick(
            game,
            other,
            [("negate", "Roll your Frostwings for Magic Negation"), ("no", "Let the magic be")],
            f"Magic Negation: {game.army_label(army)} takes a magic action at "
            f"{st.terrains[army.location].name}",
            rule,
            topic="species_ability",
        )
        if answer != "negate":
            continue
        roller = Army(other, army.location, tuple(frost))
        res = yield from game.roll(
            roller,
            "magic",
            f"{game.player_name(other)}: roll your Frostwings for Magic Negation",
            rule,
            negation=True,
            no_sai_effects=True,
        )
        amount = min(res.total, limit)
        if amount > 0:
            out.append(EffectInForce("Magic Negation", castings=amount, target="army", hostile=True))
        game.say(f"Magic Negation: {amount} magic subtracted (rolled {res.total}, cap {limit}) ({rule})")
    return out


def _rapid_growth(game: RuleContext, army: Army, dice: list[Unit], rolled: list[list[str]]) -> Flow:
    """Treefolk that rolled no SAI may be re-rolled once, together, when counter-maneuvering at an
    earth terrain; earlier results ignored (L968-973)."""
    rule = cite("968-973")
    eligible = [
        d
        for d, f in zip(dice, rolled, strict=True)
        if d.is_unit and d.spec.species == "Treefolk" and not d.spec.find_face(f[0]).is_sai
    ]
    if not eligible:
        return
    chosen = yield from optional_units(
        game,
        army.owner,
        eligible,
        sum(u.health for u in eligible),
        "Rapid Growth: re-roll which Treefolk?",
        rule,
    )
    if not chosen:
        return
    yield from reroll_in_place(
        game, army.owner, dice, rolled, chosen, source="Rapid Growth", rule=rule, roll="maneuver"
    )
    game.say(f"Rapid Growth: {len(chosen)} Treefolk rolled again ({rule})")


# --------------------------------------------------------------------------- melee and missile


def foul_stench(game: RuleContext, attacker: Army, target: Army) -> Flow:
    """The defender picks N of its units that cannot counter-attack; N = Goblins in the attacker's
    DUA, at most 3s (L907-914)."""
    rule = cite("907-914")
    st = game.state
    if not _species_units(attacker, "Goblins"):
        return
    n = cap(game, attacker.owner, "Goblins", 3)
    defender = st.army(target.owner, target.location)
    units = list(defender.units)
    if n <= 0 or not units:
        return
    n = min(n, len(units))
    marks = status.march_marks(game)
    if n == len(units):
        chosen = [u.uid for u in units]
    else:
        sets, seen = [], set()
        for combo in combinations(units, n):
            key = tuple(sorted(u.name for u in combo))
            if key not in seen:
                seen.add(key)
                sets.append([u.uid for u in combo])
            if len(sets) >= 64:
                break
        ids = {u.uid for u in units}

        def validate(action: dict[str, Any]) -> list[str]:
            chosen = action.get("units")
            if (
                not isinstance(chosen, list)
                or len(chosen) != n
                or len(set(chosen)) != n
                or any(u not in ids for u in chosen)
            ):
                raise IllegalAllocation(f"Foul Stench: choose exactly {n} distinct units of your army", rule)
            return list(chosen)

        opts = [{"value": s, "label": ", ".join(st.units[u].name for u in s)} for s in sets]
        chosen = yield ask(
            "species_ability",
            target.owner,
            "allocate",
            f"{game.player_name(target.owner)}: Foul Stench: choose {n} unit(s) that cannot counter-attack",
            rule,
            opts,
            data={"count": n},
            validate=validate,
        )
    marks["no_counter"].update(chosen)
    game.say(
        "Foul Stench: " + ", ".join(st.units[u].name for u in chosen) + f" cannot counter-attack ({rule})"
    )


def defensive_volley(game: RuleContext, attacker_id: str, target: Army) -> Flow:
    """Coral Elves at an air terrain may counter-attack a missile action with missile results (L821-824)."""
    rule = cite("821-824")
    st = game.state
    owner, loc = split_army_id(attacker_id)
    attacker = st.army(owner, loc)
    defender = st.army(target.owner, target.location)
    elves = _species_units(defender, "Coral Elves")
    if not elves or not attacker.units or "Air" not in _elements(game, target.location):
        return
    answer = yield from pick(
        game,
        target.owner,
        [("counter", "Counter-attack with missile (Defensive Volley)"), ("no", "Do not counter-attack")],
        f"Defensive Volley: counter-attack {game.army_label(attacker)}?",
        rule,
        topic="counter_attack",
    )
    if answer != "counter":
        return

    volley = Army(defender.owner, defender.location, tuple(elves))
    yield from game.attack(volley, attacker, "missile", counter=True)


# --------------------------------------------------------------------------- deaths


def death_replanting(game: RuleContext, deaths: list[Death]) -> Flow:
    """Treefolk killed at a water terrain roll first; an ID sends them to the Reserve Area (L975-978)."""
    rule = cite("975-978")
    for d in deaths:
        unit = game.state.units[d.uid]
        if not d.to_dua or unit.spec.species != "Treefolk" or "Water" not in _elements(game, d.location):
            continue
        face = yield from plain_roll(
            game, unit, f"Replanting: roll {unit.name} before it goes to the DUA", rule
        )
        if unit.spec.find_face(face).is_id:
            d.dest = RESERVE
            d.notes.append(f"Replanting, {rule}")


def death_stepped_damage(game: RuleContext, deaths: list[Death]) -> Flow:
    """A killed Undead may instead be exchanged with an Undead of less health from the DUA (L982-984)."""
    rule = cite("982-984")
    st = game.state
    taken: set[str] = set()
    for d in deaths:
        unit = st.units[d.uid]
        if not d.to_dua or unit.spec.species != "Undead":
            continue
        pool = [
            u
            for u in st.area(d.owner, DUA)
            if u.is_unit and u.spec.species == "Undead" and u.health < unit.health and u.uid not in taken
        ]
        if not pool:
            continue
        seen, options = set(), [("none", f"{unit.name} goes to the DUA")]
        for u in sorted(pool, key=lambda u: (-u.health, u.uid)):
            if u.name not in seen:
                seen.add(u.name)
                options.append((u.uid, f"Exchange it with {u.name} from the DUA"))
        answer = yield from pick(
            game, d.owner, options, f"Stepped Damage: {unit.name} is killed", rule, topic="species_ability"
        )
        if answer != "none":
            d.exchange_with = answer
            taken.add(answer)


def register(ext: Extensions) -> None:
    """This module's death hooks in a game's extensions (``rulebook.build_extensions``)."""
    ext.add_death_hook(dua.ORDER_EXCHANGE, "Stepped Damage", death_stepped_damage)
    ext.add_death_hook(dua.ORDER_BEFORE_DUA, "Replanting", death_replanting)
    ext.add_death_hook(dua.ORDER_BEFORE_DUA + 1, sai_rise.SAI, sai_rise.death_hook)


# --------------------------------------------------------------------------- species abilities phase


def species_phase(game: RuleContext, pid: str) -> Flow:
    """Phase 4 of the turn (L369-370): each ability the marching player may use now."""
    # Dragonkin Handlers (L842-850) is the Eldarim module's (companion.rules.game.advanced.eldarim).
    yield from _feralization(game, pid)
    yield from _winters_fortitude(game, pid)
    yield from _mutate(game, pid)
    game.cleanup()


def _recruit_or_promote_options(game: RuleContext, army: Army, species: str) -> list[tuple[str, str]]:
    st = game.state
    opts: list[tuple[str, str]] = []
    seen: set[str | tuple[str, str]] = set()  # names recruited, (unit, promoted to) pairs
    for u in st.area(army.owner, DUA):
        if u.is_unit and u.spec.species == species and u.health == 1 and u.name not in seen:
            seen.add(u.name)
            opts.append((f"recruit:{u.uid}", f"Recruit {u.name} from the DUA"))
    for a in _species_units(army, species):
        for n in st.units:
            if dua.can_promote(st, a.uid, n) and (a.name, st.units[n].name) not in seen:
                seen.add((a.name, st.units[n].name))
                opts.append((f"promote:{a.uid}:{n}", f"Promote {a.name} to {st.units[n].name}"))
    return opts


def _apply_recruit_or_promote(game: RuleContext, army: Army, answer: str, source: str) -> None:
    st = game.state
    if answer.startswith("recruit:"):
        lines = dua.recruit(st, [answer.split(":")[1]], army.owner, army.location)
    else:
        _, old, new = answer.split(":")
        lines = dua.promote(st, [(old, new)])
    for line in lines:
        game.say(f"{source}: {line}")


def _feralization(game: RuleContext, pid: str) -> Flow:
    """Each army with a Feral unit at an earth or air terrain may recruit a small Feral or promote one
    Feral (L858-861)."""
    rule = cite("858-861")
    st = game.state
    for army in st.armies(pid, include_reserve=False):
        if not _species_units(army, "Feral") or not _elements(game, army.location) & {"Earth", "Air"}:
            continue
        opts = _recruit_or_promote_options(game, st.army(pid, army.location), "Feral")
        if not opts:
            continue
        answer = yield from pick(
            game,
            pid,
            [("none", "Do nothing")] + opts,
            f"Feralization at {st.terrains[army.location].name}",
            rule,
            topic="species_ability",
        )
        if answer != "none":
            _apply_recruit_or_promote(game, st.army(pid, army.location), answer, "Feralization")


def _winters_fortitude(game: RuleContext, pid: str) -> Flow:
    """With a Frostwing at an air terrain, one Frostwing may move from the BUA to the DUA (L881-884)."""
    rule = cite("881-884")
    st = game.state
    if not any(
        _species_units(a, "Frostwings") and "Air" in _elements(game, a.location)
        for a in st.armies(pid, include_reserve=False)
    ):
        return
    buried, seen = [], set()
    for u in st.area(pid, BUA):
        if u.is_unit and u.spec.species == "Frostwings" and u.name not in seen:
            seen.add(u.name)
            buried.append((u.uid, f"Move {u.name} from the BUA to the DUA"))
    if not buried:
        return
    answer = yield from pick(
        game, pid, [("none", "Do nothing")] + buried, "Winter's Fortitude", rule, topic="species_ability"
    )
    if answer != "none":
        st.location[answer] = DUA
        game.say(f"Winter's Fortitude: {st.units[answer].name} moves from the BUA to the DUA ({rule})")


def _mutate(game: RuleContext, pid: str) -> Flow:
    """Units in an opponent's Reserve Area save or die; a Swamp Stalker army recruits or promotes up to
    the health-worth killed.  Targets: Swamp Stalkers in the DUA, at most 1s (L949-966)."""
    rule = cite("949-966")
    st = game.state
    homes = [a for a in st.armies(pid, include_reserve=False) if _species_units(a, "Swamp Stalkers")]
    n = cap(game, pid, "Swamp Stalkers", 1)
    victims = [p for p in st.active_players() if p != pid and any(u.is_unit for u in st.area(p, RESERVE))]
    if not homes or n <= 0 or not victims:
        return
    answer = yield from pick(
        game,
        pid,
        [("none", "Do not mutate")]
        + [(p, f"Mutate: target {game.player_name(p)}'s Reserve Area") for p in victims],
        "Mutate?",
        rule,
        topic="species_ability",
    )
    if answer == "none":
        return
    reserve = [u for u in st.area(answer, RESERVE) if u.is_unit]
    n = min(n, len(reserve))
    sets, seen = [], set()
    for combo in combinations(reserve, n):
        key = tuple(sorted(u.name for u in combo))
        if key not in seen:
            seen.add(key)
            sets.append([u.uid for u in combo])
        if len(sets) >= 64:
            break
    targets = sets[0]
    if len(sets) > 1:
        ids = {u.uid for u in reserve}

        def validate(action: dict[str, Any]) -> list[str]:
            chosen = action.get("units")
            if (
                not isinstance(chosen, list)
                or len(chosen) != n
                or len(set(chosen)) != n
                or any(u not in ids for u in chosen)
            ):
                raise IllegalAllocation(
                    f"Mutate: target exactly {n} distinct units in that Reserve Area", rule
                )
            return list(chosen)

        targets = yield ask(
            "species_ability",
            pid,
            "allocate",
            f"{game.player_name(pid)}: Mutate: target {n} unit(s)",
            rule,
            [{"value": s, "label": ", ".join(st.units[u].name for u in s)} for s in sets],
            data={"count": n},
            validate=validate,
        )
    failed = []
    for uid in targets:
        out, _ = yield from individual_roll(game, st.units[uid], "save", "Mutate: save or die", rule)
        if out.total <= 0:
            failed.append(uid)
    worth = sum(st.units[u].health for u in failed)
    yield from sai_rise.kill_units(game, failed, cause="Mutate")
    game.say(f"Mutate: {worth} health-worth killed ({rule})")
    while worth > 0:
        homes = [a for a in st.armies(pid, include_reserve=False) if _species_units(a, "Swamp Stalkers")]
        opts = []
        for a in homes:
            for value, label in _recruit_or_promote_options(game, a, "Swamp Stalkers"):
                opts.append((f"{a.location}|{value}", f"{label} ({st.terrains[a.location].name})"))
        if not opts:
            break
        pick_ = yield from pick(
            game,
            pid,
            [("done", "Stop")] + opts,
            f"Mutate: recruit or promote Swamp Stalkers ({worth} health-worth left)",
            rule,
            topic="species_ability",
        )
        if pick_ == "done":
            break
        loc, value = pick_.split("|", 1)
        _apply_recruit_or_promote(game, st.army(pid, loc), value, "Mutate")
        worth -= 1


# --------------------------------------------------------------------------- reserves phase


def air_flight(game: RuleContext, pid: str) -> Flow:
    """Retreat step: Firewalkers may fly from an air terrain to another air terrain where you have a
    Firewalker (L869-872).  One move at a time until the player stops."""
    rule = cite("869-872")
    st = game.state
    moved: set[str] = set()
    while True:
        air = [t for t in st.terrains if "Air" in _elements(game, t)]
        homes = [t for t in air if _species_units(st.army(pid, t), "Firewalkers")]
        opts = []
        for t in air:
            for u in status.movable(game, _species_units(st.army(pid, t), "Firewalkers")):
                if u.uid in moved:
                    continue
                for dest in homes:
                    if dest != t:
                        opts.append(
                            (
                                f"{u.uid}>{dest}",
                                f"Fly {u.name} from {st.terrains[t].name} to {st.terrains[dest].name}",
                            )
                        )
        if not opts:
            return
        answer = yield from pick(
            game, pid, [("done", "No (more) Air Flight")] + opts, "Air Flight", rule, topic="species_ability"
        )
        if answer == "done":
            return
        uid, dest = answer.split(">")
        st.location[uid] = dest
        moved.add(uid)
        game.say(f"Air Flight: {st.units[uid].name} flies to {st.terrains[dest].name} ({rule})")
