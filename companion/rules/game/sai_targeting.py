"""Targets of SAIs and species abilities, as decisions for the player who chooses (V4.01c L1225-1238).

* "X health-worth" / "up to X health-worth" of an opponent's units: the attacker must use the effect
  to the fullest extent (L1233-1235), so the targets are a set of units whose health is the largest
  sum not above X, the same subset-sum rule as damage (``damage.legal_allocations``).
* "One unit": any one unit; SAIs aimed at one unit are always resolved one by one (L1231-1232).
* "May" effects on your own units (Ferry, Regenerate ...): any set up to X health-worth, none included.
* Rolls of targeted units are individual rolls (L1209-1210): each unit rolls alone.

Every helper here is a generator that yields ``Decision`` values like the flow and returns the answer.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from ..core import damage as dmg
from ..core.decisions import Decision, ask, ask_roll, choice, choose_validator
from ..core.errors import IllegalAllocation
from ..core.state import Army, Unit

if TYPE_CHECKING:
    from .context import RuleContext

Flow = Generator[Decision, Any, Any]

TARGETING = "V4.01c L1225-1238"


def health_worth_targets(
    game: RuleContext, chooser: str, units: Sequence[Unit], cap: int, prompt: str, rule: str
) -> Flow:
    """The chooser targets the most health-worth of `units` not above `cap` (V4.01c L1233-1235).
    Returns the uids targeted (no decision when only one set of dice is legal)."""
    rows = [(u.uid, u.name, u.health) for u in units if u.is_unit]
    legal = dmg.legal_allocations(rows, cap)
    if legal == [[]]:
        return []
    if len(legal) == 1:
        return list(legal[0])
    st = game.state
    worth = dmg.health_to_kill([h for _, _, h in rows], cap)
    opts = [{"value": s, "label": ", ".join(st.units[u].name for u in s)} for s in legal]

    def validate(action: dict[str, Any]) -> list[str]:
        try:
            return dmg.check_allocation(rows, action.get("units"), cap)
        except IllegalAllocation as exc:
            raise IllegalAllocation(f"targets: {exc.reason}", f"{rule}; {TARGETING}") from None

    answer = yield ask(
        "sai_target",
        chooser,
        "allocate",
        f"{game.player_name(chooser)}: {prompt} (units worth {worth} health)",
        f"{rule}; {TARGETING}",
        opts,
        data={"cap": cap, "health_to_target": worth},
        validate=validate,
    )
    return list(answer)


def optional_units(
    game: RuleContext, chooser: str, units: Sequence[Unit], cap: int, prompt: str, rule: str
) -> Flow:
    """A "may" choice of the chooser's own units worth at most `cap` health (none is legal)."""
    rows = [u for u in units if u.is_unit and u.health <= cap]
    if not rows:
        return []
    ids = {u.uid: u for u in rows}
    sets: list[list[str]] = [[]]
    seen: set[tuple[str, ...]] = {()}
    for k in range(1, len(rows) + 1):
        for combo in combinations(rows, k):
            if sum(u.health for u in combo) > cap:
                continue
            key = tuple(sorted(u.name for u in combo))
            if key not in seen:
                seen.add(key)
                sets.append([u.uid for u in combo])
            if len(sets) >= 64:
                break
    opts = [{"value": s, "label": ", ".join(ids[u].name for u in s) or "none"} for s in sets]

    def validate(action: dict[str, Any]) -> list[str]:
        chosen = action.get("units")
        if not isinstance(chosen, list) or not all(isinstance(u, str) for u in chosen):
            raise IllegalAllocation("'units' must be a list of unit ids", rule)
        if len(set(chosen)) != len(chosen) or any(u not in ids for u in chosen):
            raise IllegalAllocation(f"choose among {sorted(ids)}, each at most once", rule)
        total = sum(ids[u].health for u in chosen)
        if total > cap:
            raise IllegalAllocation(f"{total} health-worth is more than the {cap} allowed", rule)
        return list(chosen)

    answer = yield ask(
        "sai_target",
        chooser,
        "allocate",
        f"{game.player_name(chooser)}: {prompt} (up to {cap} health-worth, or none)",
        rule,
        opts,
        data={"cap": cap, "optional": True},
        validate=validate,
    )
    return list(answer)


def one_unit(
    game: RuleContext, chooser: str, units: Sequence[Unit], prompt: str, rule: str, *, optional: bool = False
) -> Flow:
    """The chooser picks one unit (any of `units`); with `optional`, "none" is allowed."""
    units = [u for u in units if u.is_unit]
    if not units:
        return None
    if len(units) == 1 and not optional:
        return units[0].uid
    opts = [choice(u.uid, f"{u.name} ({u.uid}, {u.health} health)") for u in units]
    if optional:
        opts.append(choice("none", "None"))
    answer = yield ask(
        "sai_target",
        chooser,
        "choice",
        f"{game.player_name(chooser)}: {prompt}",
        f"{rule}; {TARGETING}",
        opts,
        validate=choose_validator(opts, rule),
    )
    return None if answer == "none" else answer


def pick(
    game: RuleContext,
    chooser: str,
    options: Sequence[tuple[str, str]],
    prompt: str,
    rule: str,
    topic: str = "sai_option",
) -> Flow:
    """A plain choice among (value, label) options; no decision when there is one option."""
    if len(options) == 1:
        return options[0][0]
    opts = [choice(v, label) for v, label in options]
    return (
        yield ask(
            topic,
            chooser,
            "choice",
            f"{game.player_name(chooser)}: {prompt}",
            rule,
            opts,
            validate=choose_validator(opts, rule),
        )
    )


def individual_roll(
    game: RuleContext,
    unit: Unit,
    roll: str,
    why: str,
    rule: str,
    *,
    against: str | None = None,
    counted: tuple[str, ...] = (),
) -> Flow:
    """One targeted unit rolls alone (an individual roll, V4.01c L1209-1210).  Returns
    ``(outcome, faces)``: the resolved outcome (``totals`` per type) and the faces it showed."""
    st = game.state
    location = st.location[unit.uid]
    army = Army(unit.owner, location, (unit,))
    game.notes["sai_individual"] = True
    # in the DUA only SAIs that generate saves work (L1215-1216)
    choices = {"in DUA": True} if location not in st.terrains and location != "reserve" else {}
    try:
        out = yield from game.roll(
            army,
            roll,
            f"{game.player_name(unit.owner)}: roll {unit.name} alone ({why})",
            rule,
            individual=True,
            counted=counted,
            choices=choices,
            no_sai_effects=True,
        )
    finally:
        game.notes["sai_individual"] = False
    faces: list[str] = next(
        (f["faces"] for f in (st.last_roll or {}).get("faces", []) if f["uid"] == unit.uid), []
    )
    return out, faces


def showed_id(unit: Unit, faces: Sequence[str]) -> bool:
    """Whether the unit's roll shows its ID icon."""
    return bool(faces) and unit.spec.find_face(faces[0]).is_id


def showed_sai(unit: Unit, faces: Sequence[str], sai: str) -> bool:
    return any(unit.spec.find_face(f).sai == sai for f in faces)


def plain_roll(game: RuleContext, unit: Unit, prompt: str, rule: str) -> Flow:
    """Roll one die only to read its face (Replanting, Rise from the Ashes); returns the face text."""
    spec = [{"uid": unit.uid, "die": unit.name, "faces": list(unit.spec.faces)}]
    faces = yield ask_roll(
        "sai_roll",
        unit.owner,
        f"{game.player_name(unit.owner)}: {prompt}",
        rule,
        dice=spec,
        data={"roll": "special", "unit": unit.uid},
    )
    return faces[0]


def reroll_in_place(
    game: RuleContext,
    owner: str,
    dice: Sequence[Unit],
    rolled: list[list[str]],
    chosen: Sequence[str],
    *,
    source: str,
    rule: str,
    roll: str,
    note: str = "",
) -> Flow:
    """`owner` rolls the `chosen` uids of an army roll's `dice` again, together (one ``sai_roll`` decision,
    asked "<player>: <source>: roll again <their dice><note>" under `rule`, the citation written at the
    call site); each new face replaces that die's entry of `rolled` (parallel to `dice`) in place, the
    earlier face ignored.  Confuse and Rapid Growth re-roll this way."""
    st = game.state
    spec = [{"uid": u, "die": st.units[u].name, "faces": list(st.units[u].spec.faces)} for u in chosen]
    faces = yield ask_roll(
        "sai_roll",
        owner,
        f"{game.player_name(owner)}: {source}: roll again "
        + ", ".join(st.units[u].name for u in chosen)
        + note,
        rule,
        dice=spec,
        data={"roll": roll, "reroll": True},
    )
    index = {d.uid: i for i, d in enumerate(dice)}
    for u, face in zip(chosen, faces, strict=True):
        rolled[index[u]][:] = [face]
