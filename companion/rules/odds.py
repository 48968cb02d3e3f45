"""Exact odds of an army roll: the probability of every total, by convolution (no sampling).

Every die of the army is fair, so each face comes up with probability 1/n.  For the roll being
made, each face is turned into what it adds under die roll resolution (V4.01c L1011-1030):

* ``normal``: non-SAI results counted at step 5 — a normal action icon of the roll's type, or an ID
  worth the unit's health (monsters: X); IDs are doubled by a controlled eighth face
  (V4.01c L508) and do not count in a Tower shot at reserves (L533-535);
* ``sai``: results an SAI generates for this roll type (the SAI table, ``companion.rules.v4.sai``),
  added at step 8, after subtracting and dividing; never during the order-of-play roll (L312-315);
* ``rerolls``: the SAI rolls the die again and the new face is applied as well (Rend, Bullseye...):
  the die's own distribution is convolved into itself until the chance left is below 1e-15.

Each die thus has a small joint distribution over (normal, sai); the army's joint distribution is
their convolution.  Army-wide modifiers are then applied in resolution order: subtract (step 6)
and divide, rounding down (step 7), act on the non-SAI subtotal only; SAI results are added
(step 8); multiply (step 9); add (step 10); results never go below 0.  At most one divider and one
multiplier count per result type (L1032-1038): the largest of each is used.

Pure: numpy arithmetic on the catalogue's faces, no I/O, no randomness.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np

from .catalogue import Die, Face, load_catalogue
from .v4.contributions import Op
from .v4.situation import Situation

REROLL_TAIL = 1e-15


class OddsError(ValueError):
    """A roll the odds cannot be computed for (unknown die, impossible modifier)."""


@dataclass(frozen=True)
class FaceValue:
    """What one face adds to the roll being made."""

    normal: int
    sai: int = 0
    rerolls: bool = False
    note: str = ""


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

    def to_dict(self, need: int | None = None) -> dict:
        support = [(k, float(p)) for k, p in enumerate(self.pmf) if p > 1e-12]
        out = {"result": self.result, "dice": self.dice, "distribution": support, "mean": self.mean,
               "mode": self.mode, "notes": list(self.notes), "need": need}
        if need is not None:
            out["p_at_least"] = self.p_at_least(need)
        return out


def face_value(die: Die, face: Face, situation: Situation, *, eighth_face: bool = False,
               ids_count: bool = True, order_of_play: bool = False) -> FaceValue:
    """What ``face`` of ``die`` adds to a roll of ``situation`` (see the module doc)."""
    primary = situation.primary
    if face.is_id:
        if not ids_count:
            return FaceValue(0, note="IDs do not count in a Tower shot at reserves (V4.01c L533-535)")
        return FaceValue(face.count * (2 if eighth_face else 1))
    if face.icon == primary:
        return FaceValue(face.count)
    if face.is_sai and not order_of_play:
        from .v4.sai import sai_contribution

        try:
            c = sai_contribution(face.sai, face.count, situation, die)
        except KeyError:
            return FaceValue(0, note=f"{face.sai}: not in the SAI table, counted as nothing")
        normal = c.id_results * (2 if eighth_face else 1)
        note = ""
        if any(m.scope.value == "the roll being resolved" for m in c.modifiers):
            note = f"{face.sai}: its modifier on this roll is not in the odds"
        return FaceValue(normal, c.total(primary), c.rerolls, note)
    return FaceValue(0)


def die_distribution(values: Sequence[FaceValue]) -> np.ndarray:
    """The joint distribution over (normal, sai) of one fair die with these faces."""
    n = len(values)
    if n == 0:
        raise OddsError("a die needs at least one face")
    shape = (max(v.normal for v in values) + 1, max(v.sai for v in values) + 1)
    base = np.zeros(shape)
    again = np.zeros(shape)
    for v in values:
        (again if v.rerolls else base)[v.normal, v.sai] += 1.0 / n
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
    out = np.zeros((max(a.shape[0], b.shape[0]), max(a.shape[1], b.shape[1])))
    out[: a.shape[0], : a.shape[1]] += a
    out[: b.shape[0], : b.shape[1]] += b
    return out


def convolve2d(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Full 2-D convolution of two small probability grids (sum of independent pairs)."""
    if a.size > b.size:
        a, b = b, a
    out = np.zeros((a.shape[0] + b.shape[0] - 1, a.shape[1] + b.shape[1] - 1))
    for i, j in zip(*np.nonzero(a), strict=True):
        out[i : i + b.shape[0], j : j + b.shape[1]] += a[i, j] * b
    return out


def army_joint(dice: Iterable[np.ndarray]) -> np.ndarray:
    joint = np.ones((1, 1))
    for d in dice:
        joint = _trim(convolve2d(d, joint))
    return joint


def _trim(grid: np.ndarray, tail: float = REROLL_TAIL * 1e-3) -> np.ndarray:
    """Drop trailing rows/columns holding (together) less than ``tail`` of the probability."""
    rows = np.cumsum(grid.sum(axis=1)[::-1])
    cols = np.cumsum(grid.sum(axis=0)[::-1])
    r = grid.shape[0] - int(np.searchsorted(rows, tail, side="right"))
    c = grid.shape[1] - int(np.searchsorted(cols, tail, side="right"))
    return grid[: max(r, 1), : max(c, 1)]


def apply_modifiers(joint: np.ndarray, modifiers: Sequence[ArmyModifier] = ()) -> np.ndarray:
    """The total's distribution from the (normal, sai) joint, modifiers in resolution order."""
    sub = sum(m.amount for m in modifiers if m.op is Op.SUBTRACT)
    divs = [m.amount for m in modifiers if m.op is Op.DIVIDE]
    muls = [m.amount for m in modifiers if m.op is Op.MULTIPLY]
    add = sum(m.amount for m in modifiers if m.op is Op.ADD)
    if any(d <= 0 for d in divs):
        raise OddsError("a divider must be at least 1")
    div = max(divs, default=1)  # one divider per result type (V4.01c L1032-1038)
    mul = max(muls, default=1)  # one multiplier per result type
    normal = np.arange(joint.shape[0])[:, None]
    sai = np.arange(joint.shape[1])[None, :]
    total = (np.maximum(normal - sub, 0) // div + sai) * mul + add  # steps 6, 7, 8, 9, 10
    total = np.maximum(total, 0)
    return np.bincount(np.broadcast_to(total, joint.shape).ravel(), weights=joint.ravel())


def army_odds(dice: Sequence[str | Die], roll_for: str, *, against: str | None = None,
              eighth_face: bool = False, ids_count: bool = True, order_of_play: bool = False,
              terrain: str | None = None, modifiers: Sequence[ArmyModifier] = ()) -> Odds:
    """Exact odds of an army roll.  ``dice`` are catalogue names (or ``Die`` values) of the army's
    units and items; ``roll_for`` is maneuver, melee, missile, magic or save."""
    if roll_for == "save" and against is None:
        against = "melee"
    situation = Situation(roll_for, against=against if roll_for == "save" else None)
    cat = load_catalogue()
    notes: set[str] = set()
    grids = []
    for d in dice:
        die = d if isinstance(d, Die) else cat.find(d)
        if die is None:
            raise OddsError(f"unknown die {d!r}")
        values = [face_value(die, f, situation, eighth_face=eighth_face, ids_count=ids_count,
                             order_of_play=order_of_play) for f in die.faces]
        notes.update(v.note for v in values if v.note)
        grids.append(die_distribution(values))
    pmf = apply_modifiers(army_joint(grids), modifiers)
    if eighth_face:
        notes.add("IDs doubled: the army controls this terrain's eighth face (V4.01c L508)")
    if terrain:
        notes.add(f"at {terrain}; species abilities and spells in force are not included")
    return Odds(situation.primary, len(grids), pmf, sorted(notes))
