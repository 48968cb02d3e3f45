"""Choices a roller makes once the faces are known, before the roll is totalled (die roll resolution,
V4.01c L1011-1030), asked as decisions instead of chosen for the player:

* Wilding (L2167-2171): per casting in force on the rolling army, the unit whose melee and save
  results are doubled, "selected after the army makes each roll"; one unit for both results;
* Fiery Weapon (L2323-2326): in a roll counting melee and missile (the response to a dragon attack,
  L670-681), which of them gets the +2 per casting; Necromantic Wave (L2227-2233) likewise, whether
  magic counts as melee or as missile;
* Elevate (L1485-1498): the unit whose missile (missile attack) or saves (save roll against melee)
  are doubled; in a dragon attack, saves or missile first;
* Flurry against a dragon (L1571-1574): X saves, or X melee and the item rolls again;
* a "may count as" species ability (Coastal Dodge ...) in a roll counting both its types (L1083-1084);
* Fly (L1586-1587) and Create Fireminions (L1405-1406): how their results are split between the
  types a combination roll counts (L1089-1096).

The answers reach the resolution as ``choices`` (``companion.rules.v4.plugins``: ``"<name>"`` for an
option, ``"<source> units"`` for the units a "double one unit" effect doubles).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence, Set
from typing import TYPE_CHECKING, Any

from ..core.decisions import Decision, ask, choice, choose_validator
from .sai_targeting import pick

if TYPE_CHECKING:
    from ..core.state import Army, Unit
    from ..resolution import EffectInForce
    from .context import RuleContext
    from .rolling import ArmyRoll, RollOutcome

Flow = Generator[Decision, Any, Any]
TYPE_LABEL = {
    "magic": "Magic",
    "maneuver": "Maneuver",
    "melee": "Melee",
    "missile": "Missile",
    "save": "Save",
}
FIREMINION_TYPES = ("magic", "maneuver", "melee", "missile", "save")


def counted_types(roll: str, ctx: dict[str, Any]) -> tuple[str, ...]:
    """The result types a roll counts: a combination roll's own list, the response to a dragon
    attack melee, missile and saves (L670-681), else the roll's type."""
    if ctx.get("counted"):
        return tuple(ctx["counted"])
    return {"dragon": ("melee", "missile", "save")}.get(roll, (roll,))


def _sai_dice(dice: Sequence[Unit], rolled: Sequence[Sequence[str]], sai: str, skip: Set[str]) -> list[int]:
    return [
        i
        for i, (d, faces) in enumerate(zip(dice, rolled, strict=True))
        if d.uid not in skip and any(d.spec.find_face(f).sai == sai for f in faces)
    ]


def _x(d: Unit, faces: Sequence[str], sai: str) -> int:
    """X of the SAI face shown (V4.01c L1182-1190: the count printed on the face)."""
    return max(f.count for f in (d.spec.find_face(x) for x in faces) if f.sai == sai)


def compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to write `total` as `parts` ordered non-negative shares, the first share largest first."""
    if parts == 1:
        return [(total,)]
    return [
        (first, *rest) for first in range(total, -1, -1) for rest in compositions(total - first, parts - 1)
    ]


def _unit_label(d: Unit, faces: Sequence[str]) -> str:
    return f"{d.name} ({d.uid}, rolled {', '.join(faces)})"


def _choose_units(
    game: RuleContext,
    army: Army,
    dice: Sequence[Unit],
    rolled: Sequence[Sequence[str]],
    skip: Set[str],
    count: int,
    prompt: str,
    rule: str,
) -> Flow:
    """`count` different units of the roll, picked one at a time (all of them when there are no more)."""
    able = [i for i, d in enumerate(dice) if d.is_unit and d.uid not in skip]
    if len(able) <= count:
        return able
    chosen: list[int] = []
    for n in range(count):
        opts = [(str(i), _unit_label(dice[i], rolled[i])) for i in able if i not in chosen]
        which = f" ({n + 1} of {count})" if count > 1 else ""
        answer = yield from pick(game, army.owner, opts, prompt + which, rule)
        chosen.append(int(answer))
    return chosen


def _counts_as(
    game: RuleContext,
    army: Army,
    dice: Sequence[Unit],
    rolled: Sequence[Sequence[str]],
    counted: Sequence[str],
    skip: Set[str],
    choices: dict[str, Any],
) -> Flow:
    """Species abilities that let units count one rolled type as another (L1040-1048), where the
    roll counts both types: using them is the owner's choice (L1083-1084), not automatic."""
    from ..resolution.model import ICON_RESULT
    from ..v4.species import _COUNTS_AS

    st = game.state
    terrain = st.terrains.get(army.location)
    if terrain is None:
        return
    elements = set(terrain.kind.elements) | {
        e for hook in game.extensions.hooks["terrain_elements"] for e in hook(game, army)
    }
    for ability, (species, needs, source, target) in _COUNTS_AS.items():
        if source not in counted or target not in counted or (needs and not (needs & elements)):
            continue
        # the faces that give ``source`` results: its catalogue icon, and IDs
        shows = tuple(icon for icon, t in ICON_RESULT.items() if t == source) + ("ID",)
        mine = [
            (d, faces)
            for d, faces in zip(dice, rolled, strict=True)
            if d.uid not in skip and d.is_unit and d.spec.species == species
        ]
        if not any(d.spec.find_face(f).icon in shows for d, faces in mine for f in faces):
            continue
        # at most what the faces show (the engine converts no more than there is)
        most = sum(
            d.spec.find_face(f).count for d, faces in mine for f in faces if d.spec.find_face(f).icon in shows
        )
        options = [
            ("yes", f"{ability}: count all their {source} as {target}"),
            ("no", f"{ability}: keep them as {source}"),
        ]
        options += [
            (str(n), f"{ability}: count {n} {source} as {target}, keep the rest") for n in range(1, most)
        ]
        use = yield from pick(
            game,
            army.owner,
            options,
            f"{ability}: count {species}' {source} results as {target}?",
            "V4.01c L1040-1048, L1083-1084",
        )
        if use == "no":
            choices[ability] = False
        elif use != "yes":
            choices[f"{ability} amount"] = int(use)


def before_totals(
    game: RuleContext,
    army: Army,
    roll: str,
    dice: Sequence[Unit],
    rolled: Sequence[Sequence[str]],
    ctx: dict[str, Any],
    skip: Set[str] = frozenset(),
) -> Flow:
    """Ask the roller's choices for this roll; returns the resolution choices to add."""
    st = game.state
    counted = counted_types(roll, ctx)
    choices: dict[str, Any] = {}
    if roll == "maneuver" or ctx.get("order_of_play"):
        counted = tuple(t for t in counted if t == "maneuver")
    army_roll = not ctx.get("individual")
    # Wilding: one unit per casting, its melee and saves doubled (L2167-2171).
    wild = sum(
        int(e.detail.get("castings", 1)) for e in st.effects if e.name == "Wilding" and e.target == army.id
    )
    if wild and army_roll and ({"melee", "save"} & set(counted)):
        units = yield from _choose_units(
            game,
            army,
            dice,
            rolled,
            skip,
            wild,
            "Wilding: double the melee and save results of which unit?",
            "V4.01c L2167-2171",
        )
        if units:
            choices["Wilding units"] = ",".join(str(i) for i in units)
    # Fiery Weapon and Necromantic Wave: the owner picks melee or missile where the roll counts both.
    either = {"melee", "missile"} <= set(counted)
    on_army = {e.name for e in st.effects if e.target == army.id}
    # Fiery Weapon: +2 melee or missile per casting, the owner's choice where both count (L2323-2326).
    if either and "Fiery Weapon" in on_army:
        choices["Fiery Weapon"] = yield from pick(
            game,
            army.owner,
            [("melee", "Fiery Weapon: add to melee"), ("missile", "Fiery Weapon: add to missile")],
            "Fiery Weapon: add its results to melee or missile?",
            "V4.01c L2323-2326",
        )
    # Necromantic Wave: magic counted as melee or missile, the owner's pick where both count (L2227-2233).
    if either and "Necromantic Wave" in on_army:
        choices["Necromantic Wave"] = yield from pick(
            game,
            army.owner,
            [
                ("melee", "Necromantic Wave: count magic as melee"),
                ("missile", "Necromantic Wave: count magic as missile"),
            ],
            "Necromantic Wave: count magic results as melee or missile?",
            "V4.01c L2227-2233",
        )
    # Elevate: double one unit's missile / saves against melee; in a dragon attack, missile or saves
    # first.  Each Elevate rolled chooses on its own.
    elevators = _sai_dice(dice, rolled, "Elevate", skip) if army_roll else []
    for i in elevators:
        rule = "V4.01c L1485-1498"
        which = f" ({dice[i].name})" if len(elevators) > 1 else ""
        kind = None
        if roll == "dragon":
            kind = yield from pick(
                game,
                army.owner,
                [
                    ("Save", "Elevate: double one unit's saves"),
                    ("Missile", "Elevate: double one unit's missile"),
                ],
                f"Elevate{which}: double saves or missile?",
                rule,
            )
            choices[f"Elevate@{i}"] = kind
        elif roll == "missile" or (roll == "save" and ctx.get("against") == "melee"):
            kind = "Missile" if roll == "missile" else "Save"
        if kind is not None:
            units = yield from _choose_units(
                game,
                army,
                dice,
                rolled,
                skip,
                1,
                f"Elevate{which}: double the {kind.lower()} results of which unit?",
                rule,
            )
            if units:
                choices[f"Elevate units@{i}"] = ",".join(str(u) for u in units)
    # "May count as" abilities in a roll counting both types: the owner decides (L1083-1084), e.g.
    # Coral Elves in Tidal Wave's save + maneuver roll keep their maneuvers to hold the terrain.
    yield from _counts_as(game, army, dice, rolled, counted, skip, choices)
    # Flurry against a dragon: X saves, or X melee and the item rolls again (L1571-1574).
    if roll == "dragon" and _sai_dice(dice, rolled, "Flurry", skip):
        choices["Flurry"] = yield from pick(
            game,
            army.owner,
            [("Save", "Flurry: X saves"), ("Melee", "Flurry: X melee and roll the item again")],
            "Flurry: saves, or melee and roll again?",
            "V4.01c L1571-1574",
        )
    # Fly and Create Fireminions in a roll counting more than one of their types: the results may be
    # split between the types the roll needs (L1089-1096).
    for sai, types, rule in (
        ("Fly", ("maneuver", "save"), "V4.01c L1586-1587, L1089-1096"),
        ("Create Fireminions", FIREMINION_TYPES, "V4.01c L1405-1406, L1089-1096"),
    ):
        options = [t for t in types if t in counted]
        shown = _sai_dice(dice, rolled, sai, skip)
        if len(options) < 2 or not shown:
            continue
        for i in shown:  # each die's results are split on their own
            x = _x(dice[i], rolled[i], sai)
            opts = [
                (
                    ",".join(f"{TYPE_LABEL[t]}:{n}" for t, n in zip(options, parts, strict=True)),
                    f"{sai}: " + ", ".join(f"{n} {t}" for t, n in zip(options, parts, strict=True) if n),
                )
                for parts in compositions(x, len(options))
            ]
            which = f" ({dice[i].name})" if len(shown) > 1 else ""
            choices[f"{sai} split@{i}"] = yield from pick(
                game, army.owner, opts, f"{sai}{which}: how do its {x} results count in this roll?", rule
            )
    return choices


#: Spells whose penalty falls on "results" of any type (V4.01c L2196-2199, L2297-2301): in a
#: combination roll the owner places it (L1076-1084).  Palsy touches only non-maneuver results.
PENALTY_SPELLS = {"Palsy": "V4.01c L1076-1084, L2196-2199", "Ash Storm": "V4.01c L1076-1084, L2297-2301"}


def _counted_total(outcome: RollOutcome) -> int:
    return sum(outcome.totals.values()) if outcome.totals else outcome.total


def penalty_split(game: RuleContext, army: Army, request: ArmyRoll, outcome: RollOutcome) -> Flow:
    """A penalty on results in an army's combination roll (the response to a dragon attack, a roll
    counting several types): the owner says how it is split between the counted types, all of it
    where possible (L1082-1083: "All modifiers must be applied if possible"); a placement that would
    leave part of it unused is not offered, and nothing is asked when one placement is left.  The
    answer reaches the resolution as ``choices["<spell> split"]`` (``{"melee": 1, "save": 1}``), as in
    the 1996 game.  Returns ``(request, outcome)``, re-resolved when a split was chosen."""
    from dataclasses import replace

    from .rolling import resolve_army_roll

    counted = tuple(request.counted) or {"dragon": ("melee", "missile", "save")}.get(request.roll, ())
    if len(counted) < 2 or request.individual:
        return request, outcome
    penalties: dict[str, list[EffectInForce]] = {}
    for e in request.effects:
        if e.name in PENALTY_SPELLS:  # Ash Storm hits every army at its terrain, the caster's too
            penalties.setdefault(e.name, []).append(e)
    if not penalties:
        return request, outcome
    effects = [e for e in request.effects if e.name not in penalties]
    for found in penalties.values():  # one penalty per spell: castings add up (L2151-2153)
        effects.append(replace(found[0], castings=sum(max(1, e.castings) for e in found)))
    request = replace(request, effects=tuple(effects))
    for name in penalties:
        amount = next(e.castings for e in request.effects if e.name == name)
        types = [t for t in counted if not (name == "Palsy" and t == "maneuver")]
        if len(types) < 2:
            continue
        tried = []
        for parts in compositions(amount, len(types)):
            split = {t: n for t, n in zip(types, parts, strict=True) if n}
            trial = replace(request, choices=(*request.choices, (f"{name} split", split)))
            tried.append((split, _counted_total(resolve_army_roll(trial))))
        least = min(total for _, total in tried)
        legal = [split for split, total in tried if total == least]
        options = [
            (i, f"{name}: " + ", ".join(f"-{n} {t}" for t, n in split.items()))
            for i, split in enumerate(legal)
        ]
        if len(options) == 1:
            chosen = legal[0]
        else:
            opts = [choice(split, label) for split, (_, label) in zip(legal, options, strict=True)]
            chosen = yield ask(
                "penalty_split",
                army.owner,
                "choice",
                f"{game.player_name(army.owner)}: place the {name} penalty (-{amount}) on this roll's "
                f"{', '.join(types)} results (all of it where it applies)",
                PENALTY_SPELLS[name],
                opts,
                validate=choose_validator(opts, PENALTY_SPELLS[name]),
            )
        request = replace(request, choices=(*request.choices, (f"{name} split", chosen)))
        game.say(
            f"{game.player_name(army.owner)} places the {name} penalty: "
            + ", ".join(f"-{n} {t}" for t, n in chosen.items())
        )
    return request, resolve_army_roll(request)
