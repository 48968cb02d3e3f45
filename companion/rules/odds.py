"""Exact odds of an army roll: the probability of every total, by convolution (no sampling).

Every die is fair, so each face comes up with probability 1/n.  What a face adds to the roll is
found by die roll resolution itself (``companion.rules.resolution.resolve`` on that die alone, at
the army's terrain): IDs (doubled at a controlled eighth face, V4.01c L508), normal icons, SAI
results (step 8), species abilities that count one result as another (step 10) and per-unit
multipliers.  The resolution's explained steps split each face's value by the step that adds it:

* ``normal``: step 5 (the non-SAI subtotal, which army-wide subtract and divide act on);
* ``sai``: step 8 (SAI-generated results, added after subtracting and dividing);
* ``late``: steps 9-10 (per-unit multipliers, "counts as" abilities).

A face whose SAI rolls the die again (Rend, Bullseye...) adds a fresh roll of the same die: the
die's distribution is convolved into itself until the chance left is below 1e-15.

The army's distribution is the convolution of its dice.  With no army-wide modifier the face
values simply add (1-D); otherwise the joint distribution over (normal, sai, late) is kept and the
modifiers are applied in resolution order (V4.01c L1011-1030): subtract (6) and divide, rounded
down (7), on the non-SAI subtotal; SAI results added (8); multiply (9); add (10); never below 0;
at most one divider and one multiplier per result type (the largest).

Pure: numpy arithmetic and the pure resolution engine; no I/O, no randomness.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from .catalogue import Die, Face, load_catalogue
from .resolution import ALL, EffectInForce, Op, RollTerrain

REROLL_TAIL = 1e-15


class OddsError(ValueError):
    """A roll the odds cannot be computed for (unknown die, impossible modifier)."""


@dataclass(frozen=True)
class FaceValue:
    """What one face adds to the roll being made, split by the resolution step that adds it:
    ``normal`` (step 5, touched by subtract and divide), ``sai`` (step 8) and ``late`` (steps 9-10:
    per-unit multipliers and "counts as" abilities, untouched by the army's subtract/divide)."""

    normal: int
    sai: int = 0
    rerolls: bool = False
    note: str = ""
    late: int = 0

    @property
    def total(self) -> int:
        return self.normal + self.sai + self.late


@dataclass(frozen=True)
class ArmyModifier:
    """An army-wide modifier of the counted result type (a spell, an effect in force)."""

    op: Op
    amount: int
    source: str = ""


@dataclass
class Odds:
    """The exact distribution of a roll's total: ``pmf[k]`` is the probability of exactly k."""

    result: str
    dice: int
    pmf: np.ndarray
    notes: list[str] = field(default_factory=list)

    def p_at_least(self, n: int) -> float:
        if n <= 0:
            return 1.0
        return float(self.pmf[n:].sum()) if n < len(self.pmf) else 0.0

    def p_exactly(self, n: int) -> float:
        return float(self.pmf[n]) if 0 <= n < len(self.pmf) else 0.0

    @property
    def mean(self) -> float:
        return float(np.dot(np.arange(len(self.pmf)), self.pmf))

    @property
    def mode(self) -> int:
        return int(np.argmax(self.pmf))

    def to_dict(self, need: int | None = None) -> dict[str, Any]:
        support = [(k, float(p)) for k, p in enumerate(self.pmf) if p > 1e-12]
        out = {
            "result": self.result,
            "dice": self.dice,
            "distribution": support,
            "mean": self.mean,
            "mode": self.mode,
            "notes": list(self.notes),
            "need": need,
        }
        if need is not None:
            out["p_at_least"] = self.p_at_least(need)
        return out


def face_value(
    die: Die,
    face: Face,
    purpose: str,
    *,
    against: str | None = None,
    terrain: RollTerrain | None = None,
    in_reserve: bool = False,
    edition: str = "v4",
) -> FaceValue:
    """What ``face`` of ``die`` adds to a roll, by die roll resolution of that die alone
    (``companion.rules.resolution.resolve``: IDs, eighth-face doubling, SAIs, species abilities)."""
    return _face_value(die, die.faces.index(face), purpose, against, terrain, in_reserve, edition)


@lru_cache(maxsize=4096)
def _face_value(
    die: Die,
    index: int,
    purpose: str,
    against: str | None,
    terrain: RollTerrain | None,
    in_reserve: bool,
    edition: str,
) -> FaceValue:
    from .resolution import RolledUnit, RollRequest, resolve
    from .v4.sai import rerolls
    from .v4.situation import Situation

    face = die.faces[index]
    request = RollRequest(
        purpose,
        (RolledUnit(die, (face,)),),
        edition=edition,
        against=against,
        terrain=terrain,
        in_reserve=in_reserve,
    )
    resolution = resolve(request)
    total = resolution.total(purpose)
    by_step = {5: 0, 8: 0, 9: 0, 10: 0}
    for step in resolution.steps:
        if (
            step.result == purpose
            and step.before is not None
            and step.after is not None
            and step.step in by_step
        ):
            by_step[step.step] += step.after - step.before
    sai = by_step[8]
    late = by_step[9] + by_step[10]
    again = False
    if face.sai is not None and terrain is not None:  # a SAI face (only those name a SAI)
        try:
            again = rerolls(face.sai, Situation(purpose, against=against), die)
        except KeyError:
            again = False
    return FaceValue(total - sai - late, sai, again, late=late)


def die_distribution(values: Sequence[FaceValue], split: bool = True) -> np.ndarray:
    """The joint distribution over (normal, sai, late) of one fair die with these faces, or over the
    face's whole value when ``split`` is false (no army-wide modifier to apply)."""
    n = len(values)
    if n == 0:
        raise OddsError("a die needs at least one face")
    keys = [(v.normal, v.sai, v.late) if split else (v.total,) for v in values]
    shape = tuple(max(k[i] for k in keys) + 1 for i in range(len(keys[0])))
    base = np.zeros(shape)
    again = np.zeros(shape)
    for v, k in zip(values, keys, strict=True):
        (again if v.rerolls else base)[k] += 1.0 / n
    if not again.any():
        return base
    # P = base + again * P  (the re-rolled die adds a fresh roll of itself): expand the series.
    total = base.copy()
    term = base
    mass = again.sum()
    while term.sum() > REROLL_TAIL:
        term = convolve2d(again, term)
        total = _add(total, term)
        if mass >= 1.0:
            raise OddsError("every face of the die rolls again: the roll never ends")
    return total


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    out = np.zeros(tuple(max(x, y) for x, y in zip(a.shape, b.shape, strict=True)))
    out[tuple(slice(0, x) for x in a.shape)] += a
    out[tuple(slice(0, x) for x in b.shape)] += b
    return out


def convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Full N-D convolution of two small probability grids (the sum of independent values):
    one shifted, scaled copy of the larger grid per non-zero cell of the smaller one."""
    if np.count_nonzero(a) > np.count_nonzero(b):
        a, b = b, a
    out = np.zeros(tuple(x + y - 1 for x, y in zip(a.shape, b.shape, strict=True)))
    for idx in zip(*np.nonzero(a), strict=True):
        out[tuple(slice(i, i + n) for i, n in zip(idx, b.shape, strict=True))] += a[idx] * b
    return out


convolve2d = convolve


def army_joint(dice: Iterable[np.ndarray]) -> np.ndarray:
    joint = None
    for d in dice:
        joint = d if joint is None else _trim(convolve(d, joint))
    return np.ones((1,)) if joint is None else joint


def _trim(grid: np.ndarray, tail: float = REROLL_TAIL * 1e-3) -> np.ndarray:
    """Drop trailing slices (per axis) holding together less than ``tail`` of the probability."""
    keep = []
    for axis in range(grid.ndim):
        other = tuple(a for a in range(grid.ndim) if a != axis)
        mass = grid.sum(axis=other) if other else grid
        cum = np.cumsum(mass[::-1])
        keep.append(max(grid.shape[axis] - int(np.searchsorted(cum, tail, side="right")), 1))
    return grid[tuple(slice(0, k) for k in keep)]


def apply_modifiers(joint: np.ndarray, modifiers: Sequence[ArmyModifier] = ()) -> np.ndarray:
    """The total's distribution from the (normal, sai, late) joint, modifiers in resolution order."""
    if joint.ndim == 1:
        if modifiers:
            raise OddsError("army-wide modifiers need the joint split by resolution step")
        return joint
    sub = sum(m.amount for m in modifiers if m.op is Op.SUBTRACT)
    divs = [m.amount for m in modifiers if m.op is Op.DIVIDE]
    muls = [m.amount for m in modifiers if m.op is Op.MULTIPLY]
    add = sum(m.amount for m in modifiers if m.op is Op.ADD)
    if any(d <= 0 for d in divs):
        raise OddsError("a divider must be at least 1")
    div = max(divs, default=1)  # one divider per result type (V4.01c L1032-1038)
    mul = max(muls, default=1)  # one multiplier per result type
    normal, sai, late = np.meshgrid(*(np.arange(n) for n in joint.shape), indexing="ij")
    total = (np.maximum(normal - sub, 0) // div + sai) * mul + late + add  # steps 6, 7, 8, 9, 10
    total = np.maximum(total, 0)
    return np.bincount(np.broadcast_to(total, joint.shape).ravel(), weights=joint.ravel())


def modifiers_in_force(
    effects: Sequence[EffectInForce], roll_for: str, *, against: str | None = None, edition: str = "v4"
) -> tuple[list[ArmyModifier], list[str]]:
    """The army-wide modifiers that spells in force put on a roll, by the same spell tables die roll
    resolution uses (V4.01c L2085-2446), and notes for effects the exact odds leave out (unit or
    species modifiers, editions without the tables).  Spells that do not change this roll give
    nothing."""
    if not effects:
        return [], []
    if edition != "v4":
        return [], ["spells and effects in force are not included for this edition"]
    from .v4.situation import Situation
    from .v4.spells import UnknownSpell, spell_contribution

    situation = Situation(roll_for, against=against if roll_for == "save" else None)
    out: list[ArmyModifier] = []
    notes: list[str] = []
    for effect in effects:
        try:
            contribution = spell_contribution(effect.name, situation, castings=max(1, effect.castings))
        except UnknownSpell as exc:
            raise OddsError(str(exc)) from None
        if contribution is None:
            continue
        for m in contribution.modifiers:
            if m.result not in (ALL, roll_for):
                continue
            if m.reach.army_wide and m.species is None:
                out.append(ArmyModifier(Op(m.stage), m.amount, m.source))
            else:
                notes.append(f"{m.source} ({m.reach.value}) is not included in these odds")
        if contribution.counts_as:
            notes.append(f"{contribution.source}: results counted as another type are not included")
    return out, notes


def army_odds(
    dice: Sequence[str | Die],
    roll_for: str,
    *,
    against: str | None = None,
    terrain: RollTerrain | None = None,
    in_reserve: bool = False,
    edition: str = "v4",
    modifiers: Sequence[ArmyModifier] = (),
    effects: Sequence[EffectInForce] = (),
) -> Odds:
    """Exact odds of an army roll.

    ``dice``: catalogue names (or ``Die`` values) of the army's units and items; ``roll_for``:
    maneuver, melee, missile, magic or save (``against`` melee/missile/magic for saves);
    ``terrain``: where the army rolls (``resolution.RollTerrain``: type, face, eighth face
    controlled), ``None`` for the order-of-play roll (no terrain, no SAIs); ``in_reserve`` for a
    Reserve army; ``modifiers``: army-wide modifiers of the roll's result type; ``effects``:
    spells in force on the army or its terrain, turned into modifiers by :func:`modifiers_in_force`.
    """
    if roll_for not in ("maneuver", "melee", "missile", "magic", "save"):
        raise OddsError(f"no odds for a {roll_for!r} roll (maneuver, melee, missile, magic or save)")
    if roll_for == "save" and against is None:
        against = "melee"
    if roll_for != "save":
        against = None
    cat = load_catalogue()
    from_effects, effect_notes = modifiers_in_force(effects, roll_for, against=against, edition=edition)
    modifiers = [*modifiers, *from_effects]
    notes: set[str] = set(effect_notes)
    split = bool(modifiers)
    grids = []
    for d in dice:
        die = d if isinstance(d, Die) else cat.find(d)
        if die is None:
            raise OddsError(f"unknown die {d!r}")
        values = [
            _face_value(die, i, roll_for, against, terrain, in_reserve, edition)
            for i in range(len(die.faces))
        ]
        grids.append(die_distribution(values, split=split))
    pmf = apply_modifiers(army_joint(grids), modifiers)
    if terrain is not None and terrain.controlled and terrain.face == 8:
        notes.add("IDs doubled: the army controls this terrain's eighth face (V4.01c L508)")
    if terrain is None and not in_reserve:
        notes.add("order of play: maneuver results and IDs only (V4.01c L312-315)")
    for m in modifiers:
        notes.add(f"{m.source}: {m.op.value} {m.amount} (step {m.op.step})")
    return Odds(roll_for.capitalize(), len(grids), pmf, sorted(notes))
