"""The standard-dice reader's own doubt: below which confidence a die it reads is left ``unreadable``.

``model.json`` of a numerals bundle holds one gate for every kind (``min_face_confidence``) and may hold
one per kind (``min_face_confidence_by_kind``, chosen by ``bench/enroll_standard.py --calibrate``: for
each kind the lowest gate with at most 1 % of the calibration dice read as that kind read wrong).  A
die is judged by the gate of the kind it was **read as** (the product knows no other); a kind the
bundle does not list keeps the one gate.  An enrolled bundle reading with ``combined_reading`` judges
its dice by that rule's margins instead, and by the **kind gate** (``min_kind_confidence_by_kind``: the
reader's probability of the kind it read, chosen on whole frames by ``bench/standard_frames.py
--choose-kind-gates``), since the margins weigh the values of the kind read and never the kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

KEY = "min_face_confidence"
BY_KIND_KEY = "min_face_confidence_by_kind"
#: An enrolled bundle's kind gate (``combined_reading`` weighs the values of the kind read, never the
#: kind): the reader's probability of the kind it read, one gate per kind read; 0 where none is set.
KIND_KEY = "min_kind_confidence"
KIND_BY_KIND_KEY = "min_kind_confidence_by_kind"


class GateError(ValueError):
    """A reader gate in ``model.json`` that is not a number from 0 up, or names an unknown kind."""


def _gate(value, key: str) -> float:
    """A confidence gate: a number from 0 (every die read) up; above 1 no die is read (a bundle that only
    finds dice)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not 0.0 <= float(value) < float("inf")
    ):
        raise GateError(f"{key}: expected a number from 0 up (above 1: no die read), got {value!r}")
    return float(value)


@dataclass(frozen=True)
class ReaderGate:
    """One confidence gate for every kind, and optionally one per kind read."""

    default: float = 0.5
    by_kind: dict[str, float] = field(default_factory=dict)
    keys: tuple[str, str] = (KEY, BY_KIND_KEY)

    @classmethod
    def parse(
        cls, meta: dict, kinds, key: str = KEY, by_kind_key: str = BY_KIND_KEY, default: float = 0.5
    ) -> ReaderGate:
        """The gate of a bundle's ``model.json`` (``kinds``: the reader's kind head) under ``key`` and
        ``by_kind_key`` (the reader gate, or ``KIND_KEY`` / ``KIND_BY_KIND_KEY``: the kind gate, default 0);
        a bad value is refused naming its key."""
        one = _gate(meta.get(key, default), key)
        raw = meta.get(by_kind_key, {})
        if not isinstance(raw, dict):
            raise GateError(f"{by_kind_key}: expected an object of die kind -> number, got {raw!r}")
        unknown = [k for k in raw if k not in kinds]
        if unknown:
            raise GateError(f"{by_kind_key}.{unknown[0]}: not a kind this reader reads ({', '.join(kinds)})")
        return cls(one, {k: _gate(v, f"{by_kind_key}.{k}") for k, v in raw.items()}, (key, by_kind_key))

    def of(self, kind: str) -> float:
        """The gate a die read as ``kind`` must reach to be read."""
        return self.by_kind.get(kind, self.default)

    def for_dice(self, kinds_read) -> np.ndarray:
        """The gate of each die, by the kind it was read as (names such as ``"d20"``)."""
        return np.array([self.of(str(k)) for k in kinds_read], float)

    def to_meta(self) -> dict:
        out: dict = {self.keys[0]: self.default}
        if self.by_kind:
            out[self.keys[1]] = dict(self.by_kind)
        return out
