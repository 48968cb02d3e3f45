"""A numerals bundle's finder and reader on whole frames of standard dice, replayed under any gate.

``raw_reads`` reads every frame of a ``synth.real_tables --standard`` set once, with no gate: each
finder box's kind, value and confidence, matched to the true dice as ``numerals.evaluate_frames``
matches them.  ``figures`` then gives what a bundle with a given ``ReaderGate`` reports (for an
unenrolled bundle, exactly ``evaluate_frames``' counts), and ``choose_gates`` is the frame-gate rule of
``models/polyhedral-oblique/CHANGELOG.md`` (stop 38).  ``bench/standard_frames.py`` prints them.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from companion.vision.crops import CROP_SIZE, crop_die
from companion.vision.die_pixels import die_sides
from companion.vision.numerals import KINDS, SIDES, NumeralModel, match_dice
from companion.vision.reader import read_image
from companion.vision.reader_gate import KIND_BY_KIND_KEY, ReaderGate
from companion.vision.standard_sim import _lowest_gate

#: The most of the found flat dice read as a kind that may be read wrong under that kind's gate.
MAX_WRONG = 0.01


def _replay(data: Path, read_frame, frames: int | None = None, log=None) -> dict:
    """Every frame of ``data`` read by ``read_frame(n, rec, image) -> (boxes, kinds, values, confs[, more])``
    (a box's ``conf`` is what a gate weighs; a box's value 0 where none is read; ``more``: other per-box
    lists by name, kept beside them), each box matched to the
    true dice (``numerals.match_dice``).  Arrays, one entry per box or per true die; the time of each
    ``read_frame``."""
    recs = [
        json.loads(line) for line in (Path(data) / "manifest.jsonl").read_text().splitlines() if line.strip()
    ]
    recs = recs[:frames] if frames else recs
    box: dict[str, list] = {"kind": [], "value": [], "conf": [], "truth": []}  # truth: the true die, -1 none
    die: dict[str, list] = {"kind": [], "value": [], "cocked": []}
    ms = []
    for n, rec in enumerate(recs):
        image = read_image(Path(data) / rec["image"])
        t0 = time.perf_counter()
        boxes, kinds, values, confs, *more = read_frame(n, rec, image)
        for key, per_box in (more[0] if more else {}).items():
            box.setdefault(key, []).extend(per_box)
        ms.append(1000 * (time.perf_counter() - t0))
        truth = match_dice(rec["dice"], boxes)
        box["truth"] += [-1 if i < 0 else int(i) + len(die["kind"]) for i in truth]
        for d in rec["dice"]:
            die["kind"].append(d["kind"])
            die["value"].append(int(d["value"]))
            die["cocked"].append(bool(d.get("cocked", False)))
        box["kind"] += list(kinds)
        box["value"] += [int(v) for v in values]
        box["conf"] += [float(c) for c in confs]
        if log and (n + 1) % 50 == 0:
            log(f"read {n + 1}/{len(recs)} frames")
    return {
        "frames": len(recs),
        "ms": ms,
        "box": {k: np.array(v) for k, v in box.items()},
        "die": {k: np.array(v) for k, v in die.items()},
    }


def pooled(raws: list[dict]) -> dict:
    """Several readings of ``_replay`` (``raw_reads``, ``enrolled_reads``: other frames, other widths) as one:
    their boxes and true dice end to end, each box's ``truth`` moved past the dice before it, so that
    ``figures`` and the ``choose_*`` rules weigh all their frames together.  Every reading must keep the same
    per-box arrays (refused otherwise, naming them)."""
    if not raws:
        raise ValueError("pooled: no readings to pool")
    keys = set(raws[0]["box"])
    for n, r in enumerate(raws[1:], 1):
        if set(r["box"]) != keys:
            raise ValueError(f"pooled: reading {n} keeps {sorted(r['box'])}, reading 0 keeps {sorted(keys)}")
    box: dict[str, list] = {k: [] for k in keys}
    offset = 0
    for r in raws:
        for k in keys:
            box[k].append(
                np.where(r["box"][k] >= 0, r["box"][k] + offset, -1) if k == "truth" else r["box"][k]
            )
        offset += len(r["die"]["kind"])
    return {
        "frames": sum(r["frames"] for r in raws),
        "ms": [m for r in raws for m in r["ms"]],
        # a reading without boxes (or dice) holds empty float arrays: left out, so kinds stay strings
        "box": {k: np.concatenate([a for a in v if len(a)] or v[:1]) for k, v in box.items()},
        "die": {
            k: np.concatenate([r["die"][k] for r in raws if len(r["die"][k])] or [raws[0]["die"][k]])
            for k in raws[0]["die"]
        },
    }


#: The ``conf`` of a die no gate may read: its two looks disagree (``NumeralModel.looks_disagree``).
NEVER_READ = -1.0


def raw_reads(model: NumeralModel, data: Path, log=None) -> dict:
    """Every finder box of every frame (moved by the bundle's box refiner, if any, and kept once a die),
    read without a gate (``conf``: the reader's confidence, what the reader gate weighs; ``NEVER_READ`` for
    a die whose two looks disagree, which the bundle leaves unread whatever its gate), matched to the true
    dice as ``numerals.evaluate_frames`` matches them."""

    def read_frame(n: int, rec: dict, image: np.ndarray):
        det = model.find_dice(image)
        boxes = det.xyxy.reshape(-1, 4)
        if not len(boxes):
            return boxes, [], np.zeros(0, int), np.zeros(0)
        crops = np.stack([crop_die(image, b) for b in boxes]).reshape(-1, CROP_SIZE, CROP_SIZE, 3)
        kinds, values, confs = model.read_crops(crops)
        confs = np.where(model.looks_disagree(kinds, det.refined), NEVER_READ, confs)
        return boxes, kinds, values, confs

    return _replay(data, read_frame, log=log)


def figures(raw: dict, gate: ReaderGate) -> dict:
    """Per kind and over all kinds: what a bundle with ``gate`` reads on the frames of ``raw``."""
    b, d = raw["box"], raw["die"]
    read = b["conf"] >= gate.for_dice(b["kind"]) if len(b["kind"]) else np.zeros(0, bool)
    matched = b["truth"] >= 0
    t = np.where(matched, b["truth"], 0)
    right = matched & (b["kind"] == d["kind"][t]) & (b["value"] == d["value"][t])
    flat_box = matched & ~d["cocked"][t]

    def one(mask_die: np.ndarray, mask_box: np.ndarray) -> dict:
        flat = int((mask_die & ~d["cocked"]).sum())
        fb = mask_box & flat_box
        out = {
            "flat_dice": flat,
            "found": int(fb.sum()),
            "read_right": int((fb & read & right).sum()),
            "read_wrong": int((fb & read & ~right).sum()),
            "unreadable": int((fb & ~read).sum()),
            "cocked": int((mask_die & d["cocked"]).sum()),
            "cocked_read": int((mask_box & matched & d["cocked"][t] & read).sum()),
        }
        for k in ("found", "read_right", "read_wrong", "unreadable"):
            out[k + "_rate"] = round(out[k] / max(flat, 1), 4)
        return out

    out = {"all": one(np.ones(len(d["kind"]), bool), np.ones(len(b["kind"]), bool))}
    for k in KINDS:
        out[k] = one(d["kind"] == k, (d["kind"][t] == k) & matched)
    out["all"]["phantoms_read_per_frame"] = round(float((~matched & read).sum()) / max(raw["frames"], 1), 3)
    out["all"]["false_boxes_per_frame"] = round(float((~matched).sum()) / max(raw["frames"], 1), 3)
    return out


def _kinds_read(raw: dict):
    """Per kind read on ``raw``'s boxes: (the kind, its boxes on a flat true die, every box's kind and value
    read right): what a per-kind rule weighs."""
    b, d = raw["box"], raw["die"]
    matched = b["truth"] >= 0
    t = np.where(matched, b["truth"], 0)
    flat = matched & ~d["cocked"][t]
    right = (b["kind"] == d["kind"][t]) & (b["value"] == d["value"][t])
    for k in KINDS:
        mine = flat & (b["kind"] == k)
        if mine.any():
            yield k, mine, right


def choose_gates(
    raw: dict, own: ReaderGate, max_wrong: float = MAX_WRONG, none_first: bool = False
) -> dict[str, float]:
    """The rule: per kind read, the lowest gate with <= ``max_wrong`` of the found flat dice read as that
    kind read wrong, raised to the bundle's own gate of that kind where higher.  ``none_first``: a gate
    of 0 (none) first, then ``standard_sim.MIN_CONFS`` (the kind gate of enrolled bundles)."""
    b = raw["box"]
    out = {}
    for k, mine, right in _kinds_read(raw):

        def wrong_at(g: float, m=mine, ok=right) -> float:
            return float((m & ~ok & (b["conf"] >= g)).sum()) / m.sum()

        frame_gate = 0.0 if none_first and wrong_at(0.0) <= max_wrong else _lowest_gate(wrong_at, max_wrong)
        out[k] = max(frame_gate, own.of(k))
    return out


class _Kept:
    """A reader that keeps its last answer (so a bench reads each crop once)."""

    def __init__(self, faces):
        self.faces, self.last = faces, None

    def __call__(self, crops):
        self.last = self.faces(crops)
        return self.last


class _KeptEmbedder:
    """An embedding network that keeps its last answer (what ``NumeralModel.readings`` embedded)."""

    def __init__(self, embedder):
        self.embedder, self.last = embedder, None

    def __getattr__(self, name):
        return getattr(self.embedder, name)

    def __call__(self, crops):
        self.last = self.embedder(crops)
        return self.last


def enrolled_reads(
    bundle: Path,
    data: Path,
    shots: int = 2,
    seed: int = 0,
    frames: int | None = None,
    log=None,
    margins: bool = False,
    resolution: float = 1.0,
    refiner=None,
    taught: dict | None = None,
    same_die: float | bool | None = None,
) -> dict:
    """An enrolled bundle's readings of the frames of ``data`` (``NumeralModel.readings``: the finder, the
    reader, the table profile and its ``combined_reading`` rule) with no kind gate, as ``raw_reads``
    gives them: each box's ``conf`` is the reader's probability of the kind it read where the bundle
    read a value, -1 where it left the die unread, so that ``figures(raw, kind_gate)`` is what the bundle
    reads under any kind gate (``reader_gate.KIND_KEY``); a die the rule's ``large_dice`` judges met that
    section's kind gate in the reading, and its ``conf`` is 1 (it passes any kind gate replayed).  Before each frame the bundle's profile is
    replaced by one taught ``shots`` renders of every value of every kind of every style on that table
    (``standard_styles.render_value``, the crops of the crop benches; the frame's own dice are never
    taught), as a table that enrolled its sets.  ``frames``: the first so many frames only.

    ``margins``: each box is given its top value whatever the combined rule's margin (0 for a die called
    cocked, or whose two looks disagree), and the per-box arrays ``p_kind`` (the reader's probability of
    the kind read), ``margin`` (the combined margin of the top value), ``needed`` (the margin the bundle's
    rule asks of it), ``side`` (the box's longest side, px) and ``fewest`` (the fewest sightings of the
    kind's taught values), so ``gated_by_floor`` can replay any kind gate and margin floor
    (``combined_reading.min_margin_floor``) and ``gated_by_rule`` any rule of the same levels' weights.
    ``resolution``: the frames' scale against a 1280 px frame's; the renders taught are drawn at it.
    ``refiner``: a ``box_refine.BoxRefiner`` in place of the bundle's own (``False``: none); ``same_die``:
    an IoU in place of the bundle's ``same_die`` (``False``: none); ``taught``: a
    dictionary (frame number -> the renders taught) kept between calls, so that a second reading of the
    same frames (another refiner) teaches the same renders without drawing them again."""
    from companion.vision.combined_reading import profile_distances, value_margin  # noqa: PLC0415
    from companion.vision.profile import FaceLabel, TableProfile  # noqa: PLC0415
    from companion.vision.synth.standard_styles import render_value  # noqa: PLC0415

    model = NumeralModel(Path(bundle))
    if model.profile is None:
        raise ValueError(f"{bundle} is not an enrolled bundle (no table profile)")
    model.kind_gate = ReaderGate(0.0, {}, model.kind_gate.keys)
    if margins and model.combined is None:
        raise ValueError(f"{bundle}: no combined_reading rule for this profile's network: no margins to keep")
    if refiner is not None:
        model.refiner = refiner or None
    if same_die is not None:
        model.same_die = None if same_die is False else float(same_die)
    model.read_faces = kept = _Kept(model.read_faces)  # the outputs of every box read, in its order
    model.embedder = keep_embedding = _KeptEmbedder(model.embedder)
    base = model.profile

    def read_frame(n: int, rec: dict, image: np.ndarray):
        if taught is not None and n in taught:
            crops, labels = taught[n]
        else:
            rng = np.random.default_rng([seed, n])
            crops, labels = [], []
            for style in sorted({int(d["style"]) for d in rec["dice"]}):
                for kind in KINDS:
                    for v in range(1, SIDES[kind] + 1):
                        crops += [
                            render_value(kind, v, rng, style, resolution=resolution) for _ in range(shots)
                        ]
                        labels += [FaceLabel(kind, "value", v)] * shots
            if taught is not None:
                taught[n] = (crops, labels)
        model.profile = TableProfile(base.embedder_id, base.dim, base.settings)
        model.profile.learn(np.stack(crops), labels, model.embedder)
        model.combined = model._combined_rule()
        det = model.find_dice(image)  # ``model.readings``, with the refiner's mark kept
        readings = model.read_boxes(image, det.xyxy, det.confidence, det.refined) if len(det) else []
        disagree = model.looks_disagree([r.kind for r in readings], det.refined)
        p_kind = kept.last["kind"] if readings else np.zeros((0, len(model.kinds)))
        large = model.combined.large if model.combined is not None else None
        conf = [
            -1.0
            if r.value is None
            # a die judged by ``large_dice`` has met that section's own kind gate already: it passes any
            else 1.0
            if large is not None and large.applies(r.kind, float(die_sides(np.array([r.box]))[0]))
            else float(p_kind[j, model.kinds.index(r.kind)])
            for j, r in enumerate(readings)
        ]
        values = [0 if r.value is None else int(r.value) for r in readings]
        boxes = np.array([r.box for r in readings]).reshape(-1, 4)
        if not margins:
            return boxes, [r.kind for r in readings], values, conf
        more: dict[str, list] = {
            "p_kind": [],
            "margin": [],
            "needed": [],
            "side": [],
            "fewest": [],
            "large_gate": [],
        }
        emb, pc = keep_embedding.last if readings else (None, None)
        cocked_at = model.profile.gate(standard=True)["cocked_threshold"]
        sides = die_sides(boxes)
        for j, r in enumerate(readings):
            more["p_kind"].append(float(p_kind[j, model.kinds.index(r.kind)]))
            more["side"].append(float(sides[j]))
            judged = large is not None and large.applies(r.kind, float(sides[j]))
            more["large_gate"].append(large.min_kind_confidence[r.kind] if judged else np.nan)
            more["fewest"].append(profile_distances(model.profile, emb[j], r.kind, SIDES[r.kind])[1])
            # called cocked, or its two looks disagree (``NumeralModel.looks_disagree``): never read
            if r.cocked or pc[j] >= cocked_at or disagree[j]:
                values[j] = 0
                more["margin"].append(-np.inf)
                more["needed"].append(0.0)
                continue
            v, _, margin, needed = value_margin(
                model.combined,
                r.kind,
                kept.last["value"][j, : SIDES[r.kind]],
                model.profile,
                emb[j],
                float(sides[j]),
            )
            values[j] = v
            more["margin"].append(margin)
            more["needed"].append(needed)
        return boxes, [r.kind for r in readings], values, more["p_kind"], more

    return _replay(data, read_frame, frames, log)


#: The margin floors tried per kind (``combined_reading.min_margin_floor``; the rule of
#: models/polyhedral-oblique/CHANGELOG.md, stop 39).
FLOORS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0)


def _read_under(box: dict, gate, floor) -> np.ndarray:
    """Per box kept by ``enrolled_reads(margins=True)``: read under a kind gate and a margin floor (each a
    number or one per box); a die the rule's ``large_dice`` judges keeps that section's kind gate and
    margin (no floor applies to it)."""
    large = np.asarray(box.get("large_gate", np.full(len(box["value"]), np.nan)), float)
    judged = ~np.isnan(large)
    gate = np.where(judged, large, gate)
    floor = np.where(judged, 0.0, floor)
    return (box["value"] > 0) & (box["p_kind"] >= gate) & (box["margin"] >= np.maximum(box["needed"], floor))


def gated_by_floor(raw: dict, kind_gates: dict[str, float], floors: dict[str, float]) -> dict:
    """``raw`` of ``enrolled_reads(margins=True)`` as read under ``kind_gates`` (per kind read, the least
    ``p_kind``) and ``floors`` (per kind, the least margin beside the rule's): ``figures`` of it gives what
    the bundle reads with them (a box is read when its kind probability, and its margin over the larger of
    the rule's margin and the floor, both pass)."""
    b = raw["box"]
    kinds = b["kind"]
    gate = np.array([kind_gates.get(str(k), 0.0) for k in kinds], float)
    read = _read_under(b, gate, np.array([floors.get(str(k), 0.0) for k in kinds], float))
    return {**raw, "box": {**b, "conf": read.astype(float), "value": np.where(read, b["value"], 0)}}


def gated_by_rule(raw: dict, rule, kind_gate: ReaderGate) -> dict:
    """``raw`` of ``enrolled_reads(margins=True)`` as a bundle with ``rule`` (a ``CombinedRule`` whose
    levels weigh the profile as the rule ``raw`` was read with) and ``kind_gate`` reads it: each box by
    the margin and kind gate of its kind, level and size (``large_dice`` included)."""
    b = raw["box"]
    kinds = [str(k) for k in b["kind"]]
    need = [
        rule.margin(rule.level(int(f)), k, float(side))
        for k, f, side in zip(kinds, b["fewest"], b["side"], strict=True)
    ]
    gate = [rule.kind_gate(k, float(side), kind_gate.of(k)) for k, side in zip(kinds, b["side"], strict=True)]
    read = (b["value"] > 0) & (b["p_kind"] >= np.array(gate, float)) & (b["margin"] >= np.array(need, float))
    return {**raw, "box": {**b, "conf": read.astype(float), "value": np.where(read, b["value"], 0)}}


def choose_floors(raw: dict, max_wrong: float = MAX_WRONG) -> dict[str, tuple[float, float]]:
    """The rule (per kind read): of the (kind gate, floor) pairs of ``(0,) + standard_sim.MIN_CONFS`` x
    ``FLOORS`` with at most ``max_wrong`` of the found flat dice read as that kind read wrong, the one
    that reads the most of them right (a tie: the higher gate, then the higher floor); if none holds,
    the highest of both.  Returns ``{kind: (gate, floor)}`` for the kinds read on ``raw``."""
    from companion.vision.standard_sim import MIN_CONFS  # noqa: PLC0415

    b = raw["box"]
    out = {}
    for k, mine, right in _kinds_read(raw):
        best = None
        for g in (0.0, *[float(x) for x in MIN_CONFS]):
            for f in FLOORS:
                read = _read_under(b, g, f)
                wrong = int((mine & read & ~right).sum())
                if wrong > max_wrong * mine.sum():
                    continue
                key = (int((mine & read & right).sum()), g, f)
                best = key if best is None or key > best else best
        out[k] = (best[1], best[2]) if best else (float(MIN_CONFS[-1]), FLOORS[-1])
    return out


def floors_spec(chosen: dict[str, tuple[float, float]]) -> dict[str, dict[str, float]]:
    """``choose_floors``' pairs as a bundle names them: ``min_kind_confidence_by_kind`` and
    ``combined_reading.min_margin_floor`` (a kind whose gate or floor is 0 left out: none)."""
    from companion.vision.combined_reading import FLOOR_KEY  # noqa: PLC0415

    return {
        KIND_BY_KIND_KEY: {k: g for k, (g, _) in chosen.items() if g > 0},
        FLOOR_KEY: {k: f for k, (_, f) in chosen.items() if f > 0},
    }


def choose_large_dice(
    raw: dict, kind: str = "d20", from_px: float = 90.0, max_wrong: float = 0.005
) -> dict | None:
    """``combined_reading.large_dice`` for one kind, chosen on whole CALIBRATION frames (the third rule of
    models/polyhedral-oblique/CHANGELOG.md, stop 42): ``raw`` of ``enrolled_reads(margins=True)``; over
    the boxes read as ``kind`` at least ``from_px`` across, of the (kind gate of 0 or ``MIN_CONFS``,
    margin of ``COMBINED_MARGINS``) pairs reading at most ``max_wrong`` of the found flat dice read so
    wrong, the one reading the most right (a tie: the higher gate, then the higher margin).  The margin
    holds at every level.  None when no pair within the bound reads any die right."""
    from companion.vision.standard_sim import COMBINED_MARGINS, MIN_CONFS  # noqa: PLC0415

    b = raw["box"]
    big = np.asarray(b["side"], float) >= from_px
    mine = next((m for k, m, _ in _kinds_read(raw) if k == kind), np.zeros(len(b["kind"]), bool)) & big
    if not mine.any():
        return None
    right = next(r for _, _, r in _kinds_read(raw))
    ms = np.array(COMBINED_MARGINS)
    best = None
    for g in (0.0, *[float(x) for x in MIN_CONFS]):
        read = (mine & (b["value"] > 0) & (b["p_kind"] >= g))[None] & (b["margin"][None] >= ms[:, None])
        wrong = (read & ~right[None]).sum(1)
        good = (read & right[None]).sum(1)
        for j in np.flatnonzero(wrong <= max_wrong * mine.sum()):
            key = (int(good[j]), g, float(ms[j]))
            best = key if best is None or key > best else best
    if best is None or best[0] == 0:  # a pair that reads no die right would only leave them for taps
        return None
    return {
        "from_px": float(from_px),
        "min_kind_confidence": {kind: best[1]},
        "min_margin": {"0": {kind: best[2]}},
    }
