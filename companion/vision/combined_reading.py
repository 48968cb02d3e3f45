"""Reading a standard die's value from the numeral reader AND the table profile together (torch-free).

An enrolled standard-dice bundle (``companion vision enroll --model polyhedral-oblique``) has two
witnesses of a die's value: the reader's value probabilities among the faces of the kind it read
(``face.onnx``), and the distances of the die's embedding to the prototypes of the values the table
has taught (``TableProfile``; a value never taught has no prototype).  The rule, for each value ``v``
of the die's kind::

    score(v) = log p_reader(v | kind) - profile_weight * d(v) ** 2

with ``d(v)`` the distance to value ``v``'s prototype, or ``unknown_distance`` where the table has
none.  The highest-scoring value is read when it leads the second by at least ``min_margin[kind]``,
else the die is ``unreadable``.  With no value of the kind taught, every ``d`` is ``unknown_distance``
and the rule is the reader alone under its margin gate.  The reading's confidence is the top value's
share of ``exp(score)``.

The parameters sit in the reader bundle's ``model.json`` under ``combined_reading``, one set per
*level*: the fewest sightings among the taught values of the die's kind (0 when none is taught), the
set of the largest level not above it::

    "combined_reading": {"embedder_id": "...", "levels": {"0": {"profile_weight": 0.0,
        "unknown_distance": 1.0, "min_margin": {"d4": 9.0, ..., "d20": 3.1}}, "2": {...}, ...}}

**The die's size in the frame.** A numeral a few pixels high is read far less surely than one the
crop resolves (on the held-out test styles a d20 whose box is under 40 px is read right 28.5 % of the
time, one of 90-135 px 85.6 %: ``models/polyhedral-oblique/MODEL_CARD.md``), so a rule may also name ``size_bands`` (die box sides in frame pixels, ascending)
and per level ``min_margin_by_size``: for each die kind one margin per band (one more than there are
band edges: under the first edge, ..., from the last edge up).  A die is judged by the band of its
box's longest side in the frame; where the size is not known (a crop read alone) ``min_margin``
applies::

    "size_bands": [40, 60, 90, 135],
    "levels": {"0": {..., "min_margin_by_size": {"d20": [4.1, 3.0, 2.2, 1.6, 1.4], ...}}, ...}

**On whole frames** the finder's boxes are looser than the crops the margins were chosen on, so a rule
may name ``min_margin_floor``: per die kind, the least margin at any level and size (chosen on whole
calibration frames with the kind gate: ``bench/standard_frames.py --choose-floors``)::

    "min_margin_floor": {"d6": 1.5, "d20": 4.0}

**Dice many pixels across** (a phone's photo: at 4032 px a d20 is 80-280 px) are read far more surely
than the gates above, chosen where every die is 26-90 px, allow.  A rule may name ``large_dice``: from
``from_px`` up (a die box's longest side), a die read as a kind it names is judged by that kind's own
kind gate (in place of the bundle's ``min_kind_confidence_by_kind``) and its own margin per level (in
place of the level's margin, its size bands and the floor)::

    "large_dice": {"from_px": 90, "min_kind_confidence": {"d20": 0.5},
                   "min_margin": {"0": {"d20": 2.0}, "2": {"d20": 1.5}}}

They are chosen on the CALIBRATION styles only (``bench/enroll_standard.py --calibrate``; ``large_dice``:
``--choose-large-dice``).
``embedder_id`` names the embedding network they were chosen with: a bundle enrolled with another
network reads from its profile alone, as bundles from before the combination do.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field

import numpy as np

COMBINED_KEY = "combined_reading"
#: the section of ``COMBINED_KEY`` holding the per-kind margin floors (``CombinedRule.min_margin_floor``)
FLOOR_KEY = "min_margin_floor"


class CombinationError(ValueError):
    """A ``combined_reading`` section of a model.json is malformed (the message names the key)."""


@dataclass(frozen=True)
class Level:
    """The parameters that apply from ``sightings`` sightings per taught value up."""

    sightings: int
    profile_weight: float
    unknown_distance: float
    min_margin: dict[str, float]
    #: per die kind, one margin per size band of the rule (``CombinedRule.size_bands``); kinds not named
    #: use ``min_margin`` at every size
    min_margin_by_size: dict[str, tuple[float, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class LargeDice:
    """The gates of dice at least ``from_px`` across in the frame (``large_dice``), per kind read."""

    from_px: float
    min_kind_confidence: dict[str, float]
    #: per level (sightings, ascending; the first is 0): per kind, the margin
    min_margin: tuple[tuple[int, dict[str, float]], ...]

    def applies(self, kind: str, side_px: float | None) -> bool:
        """Whether a die read as ``kind``, ``side_px`` across (None: not known), is judged by these gates."""
        return (
            side_px is not None
            and math.isfinite(side_px)
            and side_px >= self.from_px
            and kind in self.min_kind_confidence
        )

    def margin(self, sightings: int, kind: str) -> float:
        """The margin of a large die of ``kind`` at the level of the largest sightings not above ``sightings``."""
        return [m for s, m in self.min_margin if s <= max(int(sightings), 0)][-1][kind]


@dataclass(frozen=True)
class CombinedRule:
    levels: tuple[Level, ...]  # by sightings, ascending; the first is level 0
    embedder_id: str | None
    size_bands: tuple[float, ...] = ()  # band edges in frame px (a die box's longest side), ascending
    #: per die kind, the least margin at any level and size (``min_margin_floor``, chosen on whole frames:
    #: the finder's boxes are looser than the crops the margins were chosen on); kinds not named: none
    min_margin_floor: dict[str, float] = field(default_factory=dict)
    large: LargeDice | None = None  # the gates of dice many pixels across (``large_dice``)

    def level(self, sightings: int) -> Level:
        """The level of the largest ``sightings`` not above ``sightings``."""
        return [lv for lv in self.levels if lv.sightings <= max(int(sightings), 0)][-1]

    def band(self, side_px: float | None) -> int | None:
        """The size band of a die whose box's longest side is ``side_px`` frame pixels (None: unknown)."""
        if side_px is None or not math.isfinite(side_px) or not self.size_bands:
            return None
        return bisect.bisect_right(self.size_bands, float(side_px))

    def margin(self, level: Level, kind: str, side_px: float | None = None) -> float:
        """The margin gate of a die of ``kind`` read at ``level``, ``side_px`` across in the frame."""
        if self.large is not None and self.large.applies(kind, side_px):
            return self.large.margin(level.sightings, kind)
        band = self.band(side_px)
        by_size = level.min_margin_by_size.get(kind)
        margin = level.min_margin[kind] if band is None or by_size is None else by_size[band]
        return max(margin, self.min_margin_floor.get(kind, 0.0))

    def kind_gate(self, kind: str, side_px: float | None, default: float) -> float:
        """The least reader probability of the kind read that a die of ``kind``, ``side_px`` across, must
        have (``default``: the bundle's ``min_kind_confidence_by_kind`` of the kind)."""
        if self.large is not None and self.large.applies(kind, side_px):
            return self.large.min_kind_confidence[kind]
        return default


def _number(value, key: str, low: float, high: float = math.inf) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise CombinationError(f"{key}: expected a number, not {value!r}")
    if not low <= value <= high:
        raise CombinationError(f"{key}: expected a number from {low} to {high}, not {value!r}")
    return float(value)


def parse_rule(spec, kinds, where: str = "model.json") -> CombinedRule:
    """The rule of a ``combined_reading`` section; ``kinds``: the die kinds the reader names (each needs
    a ``min_margin``).  Any bad setting raises ``CombinationError`` naming its key."""
    base = f"{where}: {COMBINED_KEY}"
    if not isinstance(spec, dict):
        raise CombinationError(f"{base}: expected an object, not {spec!r}")
    bands = _size_bands(spec.get("size_bands"), f"{base}.size_bands")
    levels_spec = spec.get("levels")
    if not isinstance(levels_spec, dict) or not levels_spec:
        raise CombinationError(f"{base}.levels: expected an object of levels such as {{'0': ..., '2': ...}}")
    levels = []
    for name, lv in levels_spec.items():
        key = f"{base}.levels.{name}"
        _level(name, key)
        if not isinstance(lv, dict):
            raise CombinationError(f"{key}: expected an object, not {lv!r}")
        _require(lv, ("profile_weight", "unknown_distance", "min_margin"), key)
        margins = lv["min_margin"]
        if not isinstance(margins, dict):
            raise CombinationError(f"{key}.min_margin: expected an object per die kind, not {margins!r}")
        missing = [k for k in kinds if k not in margins]
        if missing:
            raise CombinationError(f"{key}.min_margin.{missing[0]}: missing (the reader names that kind)")
        levels.append(
            Level(
                int(name),
                _number(lv["profile_weight"], f"{key}.profile_weight", 0.0),
                _number(lv["unknown_distance"], f"{key}.unknown_distance", 0.0, 2.0),
                {k: _number(margins[k], f"{key}.min_margin.{k}", 0.0) for k in kinds},
                _margins_by_size(lv.get("min_margin_by_size"), bands, kinds, f"{key}.min_margin_by_size"),
            )
        )
    levels.sort(key=lambda lv: lv.sightings)
    if levels[0].sightings != 0:
        raise CombinationError(f"{base}.levels.0: missing (the rule for a kind with no value taught)")
    eid = spec.get("embedder_id")
    if eid is not None and not isinstance(eid, str):
        raise CombinationError(f"{base}.embedder_id: expected a string, not {eid!r}")
    floors = _per_kind(spec.get(FLOOR_KEY, {}), kinds, f"{base}.{FLOOR_KEY}", 0.0)
    large = _large_dice(spec.get("large_dice"), kinds, f"{base}.large_dice")
    return CombinedRule(tuple(levels), eid, bands, floors, large)


def _per_kind(spec, kinds, key: str, low: float, high: float = math.inf) -> dict[str, float]:
    """An object of die kind -> number from ``low`` to ``high`` (the section at ``key``), or
    CombinationError naming what is wrong."""
    if not isinstance(spec, dict):
        raise CombinationError(f"{key}: expected an object per die kind, not {spec!r}")
    unknown = [k for k in spec if k not in kinds]
    if unknown:
        raise CombinationError(f"{key}.{unknown[0]}: not a kind this reader reads")
    return {k: _number(v, f"{key}.{k}", low, high) for k, v in spec.items()}


def _level(name, key: str) -> int:
    """The sightings of a level named ``name`` ("0", "2", ...), or CombinationError naming ``key``."""
    if not str(name).isdigit():
        raise CombinationError(f"{key}: a level is a number of sightings (0, 1, 2, ...), not {name!r}")
    return int(name)


def _require(spec: dict, names, key: str) -> None:
    """CombinationError naming the first of ``names`` missing from ``spec`` (the section at ``key``)."""
    missing = [n for n in names if n not in spec]
    if missing:
        raise CombinationError(f"{key}.{missing[0]}: missing")


def _large_dice(spec, kinds, key: str) -> LargeDice | None:
    """The ``large_dice`` section: every kind with a kind gate has a margin at level 0 and at each level
    named, and the other way round."""
    if spec is None:
        return None
    if not isinstance(spec, dict):
        raise CombinationError(f"{key}: expected an object, not {spec!r}")
    _require(spec, ("from_px", "min_kind_confidence", "min_margin"), key)
    from_px = _number(spec["from_px"], f"{key}.from_px", 1.0, 100000.0)
    gate = _per_kind(spec["min_kind_confidence"], kinds, f"{key}.min_kind_confidence", 0.0, 1.0)
    margins = spec["min_margin"]
    if not isinstance(margins, dict) or "0" not in margins:
        raise CombinationError(f"{key}.min_margin: expected an object of levels from '0' up, not {margins!r}")
    levels = []
    for name, per in margins.items():
        where = f"{key}.min_margin.{name}"
        sightings = _level(name, where)
        if not isinstance(per, dict) or set(per) != set(gate):
            raise CombinationError(
                f"{where}: expected a margin for each kind of min_kind_confidence ({', '.join(gate)}), "
                f"not {per!r}"
            )
        levels.append((sightings, {k: _number(per[k], f"{where}.{k}", 0.0) for k in gate}))
    return LargeDice(from_px, gate, tuple(sorted(levels)))


def _size_bands(spec, key: str) -> tuple[float, ...]:
    if spec is None:
        return ()
    if not isinstance(spec, list) or not spec:
        raise CombinationError(f"{key}: expected a list of die sizes in frame pixels, such as [40, 60, 90]")
    edges = tuple(_number(v, f"{key}[{i}]", 1.0, 100000.0) for i, v in enumerate(spec))
    if any(b <= a for a, b in zip(edges, edges[1:], strict=False)):
        raise CombinationError(f"{key}: the sizes must rise, not {list(spec)!r}")
    return edges


def _margins_by_size(spec, bands: tuple[float, ...], kinds, key: str) -> dict[str, tuple[float, ...]]:
    if spec is None:
        return {}
    if not bands:
        raise CombinationError(f"{key}: given, but the rule names no size_bands")
    if not isinstance(spec, dict):
        raise CombinationError(f"{key}: expected an object per die kind, not {spec!r}")
    out = {}
    for kind, margins in spec.items():
        if kind not in kinds:
            raise CombinationError(f"{key}.{kind}: not a kind the reader names ({', '.join(kinds)})")
        if not isinstance(margins, list) or len(margins) != len(bands) + 1:
            raise CombinationError(
                f"{key}.{kind}: expected {len(bands) + 1} margins (one per size band), not {margins!r}"
            )
        out[kind] = tuple(_number(m, f"{key}.{kind}[{i}]", 0.0) for i, m in enumerate(margins))
    return out


def scores(value_probs: np.ndarray, distances: np.ndarray, level: Level) -> np.ndarray:
    """(N, sides) combined scores from the reader's value probabilities among the kind's faces
    (N, sides; renormalised here) and the distances to each value's prototype (inf: none)."""
    p = np.asarray(value_probs, np.float64)
    p = p / np.maximum(p.sum(1, keepdims=True), 1e-12)
    d = np.asarray(distances, np.float64)
    d = np.where(np.isfinite(d), d, level.unknown_distance)
    return np.log(np.maximum(p, 1e-12)) - level.profile_weight * d**2


def decide(
    value_probs: np.ndarray, distances: np.ndarray, level: Level, min_margin: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(read, value index 0.., confidence, margin) per die: the top score, read when it leads the second
    by ``min_margin``."""
    s = scores(value_probs, distances, level)
    top = s.argmax(1)
    order = np.sort(s, 1)
    margin = order[:, -1] - (order[:, -2] if s.shape[1] > 1 else -np.inf)
    w = np.exp(s - order[:, -1:])
    conf = w[np.arange(len(s)), top] / w.sum(1)
    return margin >= min_margin, top, conf, margin


def profile_distances(profile, emb: np.ndarray, kind: str, sides: int) -> tuple[np.ndarray, int]:
    """(distance of ``emb`` to each value 1..sides of ``kind`` in the table profile, inf where the value
    has no prototype; the fewest sightings among the values that have one, 0 when none has)."""
    d = np.full(sides, np.inf)
    counts = []
    e = np.asarray(emb, np.float32)
    for v in range(1, sides + 1):
        key = f"any:{kind}|{v}"  # profile.FaceLabel(kind, "value", v).key()
        if key in profile:
            dot = float(np.dot(profile.prototype(key), e))
            d[v - 1] = math.sqrt(min(max(2.0 - 2.0 * dot, 0.0), 4.0))
            counts.append(profile.sightings(key))
    return d, (min(counts) if counts else 0)


def read_value(
    rule: CombinedRule,
    kind: str,
    value_probs: np.ndarray,
    profile,
    emb: np.ndarray,
    side_px: float | None = None,
) -> tuple[int | None, float]:
    """(the value read 1..sides or None for unreadable, confidence) of one die whose kind the reader
    read as ``kind``; ``value_probs``: the reader's probabilities of values 1..sides; ``side_px``: the
    longest side of the die's box in the frame (None: not known, the size-free margin applies)."""
    value, conf, margin, needed = value_margin(rule, kind, value_probs, profile, emb, side_px)
    return (value if margin >= needed else None), conf


def value_margin(
    rule: CombinedRule,
    kind: str,
    value_probs: np.ndarray,
    profile,
    emb: np.ndarray,
    side_px: float | None = None,
) -> tuple[int, float, float, float]:
    """``read_value`` before its gate: (the top value 1..sides, its confidence, its margin over the second,
    the margin the rule asks of it); the value is read when the margin is at least the one asked."""
    sides = len(value_probs)
    d, fewest = profile_distances(profile, emb, kind, sides)
    level = rule.level(fewest)
    needed = rule.margin(level, kind, side_px)
    _, top, conf, margin = decide(np.asarray(value_probs)[None], d[None], level, needed)
    return int(top[0]) + 1, float(conf[0]), float(margin[0]), float(needed)
