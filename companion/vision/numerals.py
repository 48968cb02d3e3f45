"""Reading standard dice (Battle Dice: d4, d6, d8, d10, d12, d20) with ONNX models only.

The shipped bundle ``models/polyhedral`` holds ``face.onnx``, a small CNN
(``companion.vision.face_classifier.FaceNet``) with two heads read from a 64 px crop of one die:
``kind`` (d4..d20) and ``value`` (1..20).  Boxes come from a box finder named in ``model.json``
(``box_finder``: the shipped ``dragon-dice`` detector, trained on renders of the same dice
shapes; any class it reports counts as "a die").  The number read is restricted to the faces of
the kind read (a d8 never reads 13).

``read_standard_roll`` is the Battle Dice camera path: it reads a frame and assigns the dice to
the pending roll's slots by die size (dice of one size are interchangeable).  A roll of pip d6
only is read with the ``d6`` model, trained on real photographs.

A bundle enrolled with ``companion vision enroll`` (a table profile of the player's own dice) reads a
die's value from the reader's probabilities and the profile together when its ``model.json`` has a
``combined_reading`` rule (``companion.vision.combined_reading``), else from the profile alone.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from companion.vision import DEFAULT_STANDARD_MODEL
from companion.vision.box_refine import BoxRefiner
from companion.vision.camera_turn import TURNS, TurnCheck, turn_crops, withhold
from companion.vision.combined_reading import COMBINED_KEY, CombinationError, parse_rule, read_value
from companion.vision.crops import CROP_SIZE, crop_die
from companion.vision.detections import Detections, same_dice
from companion.vision.die_pixels import die_sides
from companion.vision.onnx_session import model_description, read_model_json
from companion.vision.profile import STANDARD_SIDES
from companion.vision.reader import (
    DiceModel,
    ImageError,
    ModelError,
    OnnxFaceReader,
    load_model,
    models_dir,
)
from companion.vision.reader_gate import KIND_BY_KIND_KEY, KIND_KEY, GateError, ReaderGate
from companion.vision.table_reading import embedding_crops, load_table_parts

NUMERAL_FORM = "numerals"
KINDS = ("d4", "d6", "d8", "d10", "d12", "d20")
SIDES = STANDARD_SIDES  # faces 1..n of each kind


@dataclass
class StandardReading:
    """One standard die read from a frame (``companion vision read --model polyhedral --json``).

    ``likely``: a die left unreadable by an enrolled bundle (not one the profile took for cocked): the
    values of its kind the table profile knows nearest what the camera saw, nearest first
    (``TableProfile.likely_values``); what the Roll panel marks for the tap.  Not a reading: ``value``
    stays None.

    ``cocked``: the reader's cocked check (``cocked_threshold`` of ``model.json``) calls the die cocked
    (leaning on an edge or another die): it is rolled again, so it has no value and is ``unreadable``."""

    box: list[float]
    kind: str
    value: int | None
    reading: str | None
    confidence: float
    unreadable: bool
    likely: list[int] = field(default_factory=list)
    cocked: bool = False

    def to_dict(self) -> dict:
        out = asdict(self)
        if not self.likely:  # the JSON of dice read without a table profile is as before
            del out["likely"]
        if not self.cocked:  # ... and of dice read by a bundle without a cocked check
            del out["cocked"]
        return out


def numeral_bundle(name_or_path: str | os.PathLike) -> Path | None:
    """The bundle folder when ``name_or_path`` names a numeral-reading bundle, else None."""
    for p in (Path(name_or_path), models_dir() / str(name_or_path)):
        meta = p / "model.json"
        if meta.is_file():
            try:
                form = json.loads(meta.read_text()).get("form")
            except (OSError, ValueError, AttributeError):  # not JSON, or not an object: not a numeral bundle
                return None
            return p if form == NUMERAL_FORM else None
    return None


def decode(
    kind_probs: np.ndarray, value_probs: np.ndarray, kinds=KINDS
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kind index, value 1..20, confidence) per die; the value is chosen among the kind's faces."""
    k = kind_probs.argmax(1)
    values = np.zeros(len(k), int)
    conf = np.zeros(len(k))
    for i, ki in enumerate(k):
        sides = SIDES[kinds[ki]]
        p = value_probs[i, :sides]
        p = p / max(p.sum(), 1e-9)
        values[i] = int(p.argmax()) + 1
        conf[i] = float(kind_probs[i, ki] * p.max())
    return k, values, conf


class NumeralModel:
    """Box finder + numeral reader."""

    def __init__(self, bundle: Path):
        self.bundle = Path(bundle)
        self.meta = read_model_json(self.bundle)
        if not (self.bundle / "face.onnx").is_file():
            raise ModelError(f"model bundle {self.bundle} lacks face.onnx")
        with model_description(self.bundle):  # a missing key or a value of the wrong kind: named
            self._load()

    def _load(self) -> None:
        self.name = self.meta.get("name", self.bundle.name)
        self.heads = self.meta["face_heads"]
        self.kinds = tuple(self.heads["kind"])
        self.faces = OnnxFaceReader(self.bundle / "face.onnx", self.heads)
        self.box_finder = load_model(self.meta.get("box_finder", "dragon-dice")).detector
        # a second look that moves each found box's sides to the die's edges (``box_refine``): every crop
        # (reader, embedding, cocked check) is then cut around the moved box
        self.refiner = BoxRefiner.from_meta(self.bundle, self.meta.get("box_refiner"))
        unknown = [k for k in (self.refiner.kinds or ()) if k not in self.kinds] if self.refiner else []
        if unknown:
            raise ModelError(
                f"{self.bundle}/model.json: box_refiner.kinds: {unknown[0]!r} is not a kind this reader reads"
                f" ({', '.join(self.kinds)})"
            )
        # two found (and moved) boxes overlapping at IoU above ``same_die`` are one die (``same_dice``)
        same = self.meta.get("same_die")
        if same is not None and (
            isinstance(same, bool) or not isinstance(same, (int, float)) or not 0 < same < 1
        ):
            raise ModelError(
                f"{self.bundle}/model.json: same_die must be an IoU above 0 and under 1, not {same!r}"
            )
        self.same_die = None if same is None else float(same)
        # the first look's outputs of the dice ``find_dice`` did not move, by crop: ``read_faces`` reads
        # each crop once (the same crop gives the same outputs)
        self._first_look: dict[bytes, dict[str, np.ndarray]] = {}
        try:
            self.gate = ReaderGate.parse(self.meta, self.kinds)
            self.kind_gate = ReaderGate.parse(self.meta, self.kinds, KIND_KEY, KIND_BY_KIND_KEY, default=0.0)
        except GateError as exc:
            raise ModelError(f"{self.bundle}/model.json: {exc}") from exc
        # a reader trained with the table's far side at the top (``polyhedral-oblique``) can check a frame's
        # turn (``camera_turn``); one trained on dice seen from straight above reads them any way round
        self.reads_upright = bool(self.meta.get("reads_upright", False))
        self.box_conf = float(self.meta.get("conf", 0.25))
        # the reader's cocked check: its ONNX has a ``cocked`` output (``train.standard_cocked``)
        self.cocked_threshold = self.meta.get("cocked_threshold")
        if self.cocked_threshold is not None:
            t = self.cocked_threshold
            if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0.0 < float(t) <= 1.0:
                raise ModelError(
                    f"{self.bundle}/model.json: cocked_threshold must be a number in (0, 1], not {t!r}"
                )
            if "cocked" not in self.faces.outputs:
                raise ModelError(
                    f"{self.bundle}/model.json: cocked_threshold is set but face.onnx has no 'cocked' output"
                )
            self.cocked_threshold = float(t)
        # an enrolled bundle (``companion vision enroll``) reads values from its table profile, and with
        # ``combined_reading`` from the reader and the profile together (``combined_reading``)
        self.embedder, self.profile, self.embed_crop, self.embed_margin = load_table_parts(
            self.bundle, self.meta
        )
        self.combined = self._combined_rule()

    def _combined_rule(self):
        """The ``combined_reading`` rule when this bundle has a profile of the embedding network the rule
        was chosen with (else None: the profile alone reads, as in bundles made before the rule)."""
        if COMBINED_KEY not in self.meta:
            return None
        try:  # a bad setting is refused even where no profile would use it
            rule = parse_rule(self.meta[COMBINED_KEY], self.kinds, f"{self.bundle}/model.json")
        except CombinationError as exc:
            raise ModelError(str(exc)) from exc
        if self.profile is None or rule.embedder_id not in (None, self.profile.embedder_id):
            return None
        return rule

    def read_crops(self, crops: np.ndarray) -> tuple[list[str], np.ndarray, np.ndarray]:
        """(kind, value, confidence) for uint8 crops (N, 64, 64, 3); a crop ``find_dice``'s first look read
        is not read again (``read_faces``)."""
        probs = self.read_faces(crops)
        k, v, c = decode(probs["kind"], probs["value"], self.kinds)
        return [self.kinds[i] for i in k], v, c

    def turn_confidences(self, image: np.ndarray, boxes) -> np.ndarray:
        """(dice, 4): the reader's confidence in each die of ``boxes`` with its crop turned by each of
        ``camera_turn.TURNS`` (clockwise): the evidence ``camera_turn.TurnCheck`` weighs."""
        boxes = np.asarray(boxes, float).reshape(-1, 4)
        out = np.zeros((len(boxes), len(TURNS)))
        if not len(boxes):
            return out
        crops = np.stack([crop_die(image, b) for b in boxes])
        probs = self.faces(np.concatenate([turn_crops(crops, t) for t in TURNS]))  # one run of the reader
        conf = decode(probs["kind"], probs["value"], self.kinds)[2]
        return conf.reshape(len(TURNS), len(boxes)).T

    def weigh_turn(self, check: TurnCheck, image: np.ndarray, boxes) -> bool:
        """Add the dice of ``boxes`` to ``check`` (this reader's evidence) and say whether the frames are now
        known to be turned.  A reader of dice seen from straight above reads them any way round: it weighs
        nothing (``reads_upright`` false), and neither does a frame without dice."""
        if self.reads_upright and len(boxes):
            return check.weigh(lambda: self.turn_confidences(image, boxes))
        return bool(check.needed())

    def readings(self, image: np.ndarray, conf: float | None = None) -> list[StandardReading]:
        if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise ImageError("expected a BGR colour image (H, W, 3)")
        det = self.find_dice(image, conf)
        if not len(det):
            return []
        return self.read_boxes(image, det.xyxy, det.confidence, det.refined)

    def find_dice(self, image: np.ndarray, conf: float | None = None) -> Detections:
        """The box finder's dice in ``image`` (at ``conf``, else the bundle's), their boxes moved by the
        bundle's ``box_refiner`` where it names one (``refined``), and boxes on one die kept once
        (``same_die``).  A refiner naming ``kinds`` moves only the boxes the reader first reads as one of
        them (one run of the reader over the finder's boxes; ``read_faces`` does not read again the crops
        of the boxes it leaves); one naming ``from_px`` only boxes at least that many pixels across (none
        smaller is read twice)."""
        det = self.box_finder(image, self.box_conf if conf is None else conf)
        self._first_look = {}
        if self.refiner is not None and len(det):
            move = self.refiner.large_enough(det.xyxy)  # ``box_refiner.from_px``
            if self.refiner.kinds is not None and move.any():
                crops = np.stack([crop_die(image, b) for b in det.xyxy]).reshape(-1, CROP_SIZE, CROP_SIZE, 3)
                probs = self.faces(crops)
                first = decode(probs["kind"], probs["value"], self.kinds)[0]
                move &= np.isin([self.kinds[i] for i in first], self.refiner.kinds)
                self._first_look = {
                    crops[i].tobytes(): {h: p[i] for h, p in probs.items()} for i in np.flatnonzero(~move)
                }
            if move.any():
                det.xyxy[move] = self.refiner(image, det.xyxy[move]).astype(float)
            det.refined = move
        if self.same_die is not None and len(det) > 1:
            det = det[same_dice(det.xyxy, det.confidence, self.same_die)]
        return det

    def read_faces(self, crops: np.ndarray) -> dict[str, np.ndarray]:
        """The reader's outputs (by head) for uint8 crops (N, 64, 64, 3); a crop that ``find_dice``'s first
        look read and left where it was keeps that look's outputs instead of being read again (the same
        readings as reading it twice, a frame x1.23 -> x1.09 with a d20 refiner: models/polyhedral-oblique/
        CHANGELOG.md, stop 45)."""
        seen, self._first_look = self._first_look, {}
        if not seen:  # no refiner for some kinds, or it read no die (the common frame): one run
            return self.faces(crops)
        keys = [c.tobytes() for c in crops]
        todo = [i for i, k in enumerate(keys) if k not in seen]
        if len(todo) == len(crops):
            return self.faces(crops)
        fresh = self.faces(crops[todo]) if todo else {}
        row = {i: j for j, i in enumerate(todo)}
        heads = fresh.keys() if todo else next(iter(seen.values())).keys()
        return {
            h: np.stack([fresh[h][row[i]] if i in row else seen[k][h] for i, k in enumerate(keys)])
            for h in heads
        }

    def looks_disagree(self, kinds_read, refined) -> np.ndarray:
        """Per die: moved by a refiner that names ``kinds`` because the reader first read it as one of them,
        and read as another kind on its moved box: the two looks disagree, and the die is left unread (a
        tap settles it; the rule of candidate R2, models/polyhedral-oblique/CHANGELOG.md, stop 45)."""
        kinds_read = np.asarray(kinds_read, dtype=object)
        if refined is None or self.refiner is None or self.refiner.kinds is None or not len(kinds_read):
            return np.zeros(len(kinds_read), bool)
        return np.asarray(refined, bool) & ~np.isin(kinds_read, self.refiner.kinds)

    def read_boxes(
        self,
        image: np.ndarray,
        boxes: np.ndarray,
        box_conf: np.ndarray | None = None,
        refined: np.ndarray | None = None,
    ) -> list[StandardReading]:
        """The dice in ``boxes`` (x1 y1 x2 y2 of ``image``; the box finder's confidence of each, 1 when
        not given) read as ``readings`` reads the boxes it finds; ``refined``: ``find_dice``'s mark of the
        boxes its refiner moved (a die whose two looks disagree is left unread: ``looks_disagree``)."""
        boxes = np.asarray(boxes, float).reshape(-1, 4)
        box_conf = np.ones(len(boxes)) if box_conf is None else np.asarray(box_conf, float)
        if not len(boxes):
            return []
        crops = np.stack([crop_die(image, b) for b in boxes]).reshape(-1, CROP_SIZE, CROP_SIZE, 3)
        probs = self.read_faces(crops)
        k, values, confs = decode(probs["kind"], probs["value"], self.kinds)
        kinds = [self.kinds[i] for i in k]
        disagree = self.looks_disagree(kinds, refined)
        # the cocked check: a die on an edge is rolled again (the table convention the smart-dice protocol
        # states: ../shared/protocol/smart-dice-serial.md line 37, "crooked ... needs a reroll or a
        # ruling"): no value, whatever its face reads
        tipped = (
            probs["cocked"][:, 1] >= self.cocked_threshold
            if self.cocked_threshold is not None
            else np.zeros(len(boxes), bool)
        )
        out = []
        for i in range(len(boxes)):
            c = float(box_conf[i] * confs[i])
            # the reader's own doubt, by the kind it read; a faint box still reads
            unreadable = bool(confs[i] < self.gate.of(kinds[i]) or tipped[i] or disagree[i])
            out.append(
                StandardReading(
                    [round(float(v), 1) for v in boxes[i]],
                    kinds[i],
                    None if unreadable else int(values[i]),
                    None if unreadable else str(int(values[i])),
                    round(c, 4),
                    unreadable,
                    cocked=bool(tipped[i]),
                )
            )
        if self.profile is None:
            return out
        emb, pc = self.embedder(embedding_crops(image, boxes, self.embed_crop, self.embed_margin))
        if self.combined is not None:  # the reader's value probabilities and the profile's distances
            cocked_at = self.profile.gate(standard=True)["cocked_threshold"]
            sides = die_sides(boxes)  # each die is judged by its box's size in the frame
            for i, r in enumerate(out):
                value, c = read_value(
                    self.combined,
                    r.kind,
                    probs["value"][i, : SIDES[r.kind]],
                    self.profile,
                    emb[i],
                    float(sides[i]),
                )
                # the margin weighs the values of the kind read, never the kind: the kind gate does (its
                # own for a die many pixels across: ``combined_reading.large_dice``)
                kind_gate = self.combined.kind_gate(r.kind, float(sides[i]), self.kind_gate.of(r.kind))
                if pc[i] >= cocked_at or r.cocked or disagree[i] or probs["kind"][i, k[i]] < kind_gate:
                    value = None
                r.value, r.reading = value, None if value is None else str(value)
                r.unreadable, r.confidence = value is None, round(c, 4)
                if value is None and pc[i] < cocked_at and not r.cocked:
                    r.likely = self.profile.likely_values(emb[i], r.kind)
        else:  # the value comes from the table profile alone: nearest known face or unreadable
            for i, r in enumerate(out):
                m = self.profile.read_any(emb[i], r.kind, float(pc[i]))
                ok = m.label is not None and m.label.icon == "value" and not r.cocked and not disagree[i]
                r.value, r.reading = (m.label.count, str(m.label.count)) if ok else (None, None)
                r.unreadable, r.confidence = not ok, float(m.confidence)
                if m.unreadable and not r.cocked:
                    r.likely = self.profile.likely_values(emb[i], r.kind)
        return out


#: What ``tally_frame`` counts per die kind.
TALLY_KEYS = ("dice", "found", "read_right", "read_wrong", "unreadable", "cocked", "cocked_read")


def match_dice(dice: list[dict], boxes) -> np.ndarray:
    """Per box of ``boxes`` (x1 y1 x2 y2), the index in ``dice`` (true dice with a ``box``) of the die it
    was matched to, -1 for none: each die in turn takes the box of highest IoU (>= 0.5) not yet taken."""
    from companion.vision.detections import box_iou  # noqa: PLC0415

    boxes = np.asarray(boxes, float).reshape(-1, 4)
    truth = np.full(len(boxes), -1)
    for i, d in enumerate(dice if len(boxes) else ()):
        iou = box_iou(np.array([d["box"]]), boxes)[0]
        order = [j for j in np.argsort(-iou) if iou[j] >= 0.5 and truth[j] < 0]
        if order:
            truth[order[0]] = i
    return truth


def tally_frame(stats: dict[str, dict], dice: list[dict], readings: list[StandardReading]) -> set[int]:
    """Add one frame to ``stats`` (kind -> ``TALLY_KEYS`` counts): each true die of ``dice`` (``kind``,
    ``value``, ``box``, ``cocked``) is matched to a reading (``match_dice``).  A flat die is found, then
    read right, read wrong (a value: the kind or the value wrong) or unreadable; a cocked die counts as
    ``cocked_read`` when read as a value.  Returns the readings matched."""
    truth = match_dice(dice, [r.box for r in readings])
    reading_of = {int(i): j for j, i in enumerate(truth) if i >= 0}
    for i, d in enumerate(dice):
        s = stats[d["kind"]]
        cocked = bool(d.get("cocked", False))
        s["cocked" if cocked else "dice"] += 1
        if i not in reading_of:
            continue
        r = readings[reading_of[i]]
        if cocked:
            s["cocked_read"] += int(r.value is not None)
            continue
        s["found"] += 1
        right = r.kind == d["kind"] and r.value == d["value"]
        s["read_right"] += int(right)
        s["read_wrong"] += int(r.value is not None and not right)
        s["unreadable"] += int(r.value is None)
    return set(reading_of.values())


def evaluate_frames(model: NumeralModel, data_dir: Path) -> dict:
    """Box finder + reader on a dataset written by ``write_numeral_dataset`` or ``synth.real_tables
    --standard`` (``manifest.jsonl`` gives every die's kind, value and box; ``"cocked": true`` for a die
    on an edge): per die kind, of the flat dice, found (IoU >= 0.5), read right, read as a wrong value
    (confidently wrong: the kind or the value), left unreadable; of the cocked dice, how many were read
    as a value (they should be rerolled); boxes matching no die (``false_boxes``)."""
    import time  # noqa: PLC0415

    from companion.vision.reader import read_image  # noqa: PLC0415

    data_dir = Path(data_dir)
    mpath = data_dir / "manifest.jsonl"
    if not mpath.is_file():
        raise ModelError(f"{data_dir}: no manifest.jsonl (the number up on every die) to score against")
    recs = [json.loads(line) for line in mpath.read_text().splitlines() if line.strip()]
    stats = {k: dict.fromkeys(TALLY_KEYS, 0) for k in KINDS}
    t, false_boxes = 0.0, 0
    for rec in recs:
        image = read_image(data_dir / rec["image"])
        t0 = time.perf_counter()
        readings = model.readings(image)
        t += time.perf_counter() - t0
        false_boxes += len(readings) - len(tally_frame(stats, rec["dice"], readings))
    total = {k: sum(s[k] for s in stats.values()) for k in TALLY_KEYS}
    per = {
        k: {
            **s,
            "recall": round(s["found"] / max(s["dice"], 1), 4),
            "accuracy": round(s["read_right"] / max(s["dice"], 1), 4),
            "accuracy_found": round(s["read_right"] / max(s["found"], 1), 4),
            "wrong": round(s["read_wrong"] / max(s["dice"], 1), 4),
        }
        for k, s in stats.items()
    }
    return {
        "model": model.name,
        "images": len(recs),
        **total,
        "recall": round(total["found"] / max(total["dice"], 1), 4),
        "accuracy": round(total["read_right"] / max(total["dice"], 1), 4),
        "accuracy_found": round(total["read_right"] / max(total["found"], 1), 4),
        "wrong": round(total["read_wrong"] / max(total["dice"], 1), 4),
        "false_boxes_per_image": round(false_boxes / max(len(recs), 1), 3),
        "per_kind": per,
        "ms_per_image": round(1000 * t / max(len(recs), 1), 1),
    }


_CACHE: dict[Path, NumeralModel] = {}


def load_numeral_model(
    name_or_path: str | os.PathLike | NumeralModel = DEFAULT_STANDARD_MODEL,
) -> NumeralModel:
    """The numeral bundle of that name or folder (loaded once); a loaded ``NumeralModel`` is itself (the
    table's copy of a bundle with the profile it learnt: ``web.table_profile.StandardTableVision``)."""
    if isinstance(name_or_path, NumeralModel):
        return name_or_path
    bundle = numeral_bundle(name_or_path)
    if bundle is None:
        raise ModelError(
            f"{str(name_or_path)!r} is not a numeral-reading model bundle (model.json form "
            f"{NUMERAL_FORM!r}), e.g. the shipped 'polyhedral'"
        )
    bundle = bundle.resolve()
    if bundle not in _CACHE:
        _CACHE[bundle] = NumeralModel(bundle)
    return _CACHE[bundle]


def load_bundle(bundle: str | os.PathLike) -> NumeralModel | DiceModel:
    """A bundle folder loaded afresh as what its model.json says it is (a numeral bundle, else a Dragon
    Dice or d6 one): every file is read, so a broken bundle is a ``ModelError`` naming the bad file."""
    return NumeralModel(Path(bundle)) if numeral_bundle(bundle) is not None else DiceModel(Path(bundle))


def _d6_readings(
    image: np.ndarray, model: str | os.PathLike | NumeralModel | None = None
) -> list[StandardReading]:
    """The dice of a roll of d6 only, read by the shipped ``d6`` model (trained on real photographs).
    ``model``: the table's standard-dice bundle; when it has a table profile, a d6 left unread (not
    cocked) carries the d6 values that profile knows nearest (``likely_values_from``)."""
    seen = load_model("d6").readings(image)
    out = []
    for r in seen:
        value = int(r.icon.split("_")[1]) if r.icon and r.icon.startswith("dice_") else None
        out.append(
            StandardReading(
                r.box, "d6", value, None if value is None else str(value), r.confidence, value is None
            )
        )
    if model is not None and _enrolled(model):  # a shipped reader has no profile: not even loaded
        likely_values_from(load_numeral_model(model), image, out, [bool(r.cocked) for r in seen])
    return out


def enrolled_bundle(name_or_path: str | os.PathLike | NumeralModel) -> bool:
    """Whether ``name_or_path`` names a numeral bundle with a table profile (``companion vision enroll``)."""
    return _enrolled(name_or_path)


def _enrolled(name_or_path: str | os.PathLike | NumeralModel) -> bool:
    """Whether ``name_or_path`` names a numeral bundle with a table profile (``companion vision enroll``)."""
    if isinstance(name_or_path, NumeralModel):
        return name_or_path.profile is not None
    bundle = numeral_bundle(name_or_path)
    if bundle is None:
        return False
    try:
        return bool(json.loads((bundle / "model.json").read_text()).get("embedding"))
    except (OSError, json.JSONDecodeError):
        return False


def likely_values_from(
    bundle: NumeralModel, image: np.ndarray, readings: list[StandardReading], cocked: list[bool]
) -> None:
    """Give each unread die of ``readings`` (another reader's, e.g. the ``d6`` model's) that is not
    ``cocked`` the values of its kind ``bundle``'s table profile knows nearest its crop (embedded by the
    bundle's own network; a crop its geometry head calls cocked gets none), in place.  Nothing without
    a profile; the readings' values are never changed."""
    if bundle.profile is None:
        return
    idx = [i for i, r in enumerate(readings) if r.unreadable and r.value is None and not cocked[i]]
    if not idx:
        return
    boxes = np.array([readings[i].box for i in idx], float)
    emb, pc = bundle.embedder(embedding_crops(image, boxes, bundle.embed_crop, bundle.embed_margin))
    cocked_at = bundle.profile.gate(standard=True)["cocked_threshold"]
    for j, i in enumerate(idx):
        if pc[j] < cocked_at:
            readings[i].likely = bundle.profile.likely_values(emb[j], readings[i].kind)


def read_standard_roll(
    image: np.ndarray,
    slots: list[str],
    model: str | os.PathLike | NumeralModel = DEFAULT_STANDARD_MODEL,
    turn_check: TurnCheck | None = None,
) -> dict:
    """Read a frame for a roll of standard dice ``slots`` (``["d6", "d20", ...]``).

    Returns ``{"units": [{"slot", "unit", "detection", "face_index", "cocked"}], "dice": [...],
    "unassigned": [...]}``: each slot gets an unused die of its size read in the frame (the most
    confident first); ``face_index`` is the value minus one (the slot's faces are "1".."n").  A roll of
    d6 only is read by the ``d6`` model; ``model``'s table profile (an enrolled bundle) then only offers
    likely values for the d6 it leaves unread.  ``turn_check`` (a ``camera_turn.TurnCheck``) is given the
    numeral reader's evidence of the frame's turn from the dice it read (a d6-only roll adds none: pips
    read the same any way round); once it names a turn other than 0 every die of the frame is left
    unreadable (to tap): a reader turned away from its up reads side faces with confidence.
    """
    unknown = [s for s in slots if s not in SIDES]
    if unknown:
        raise ModelError(f"not standard dice: {', '.join(unknown)} (expected d4, d6, d8, d10, d12 or d20)")
    if slots and all(s == "d6" for s in slots):
        readings = _d6_readings(image, model)
    else:
        numeral = load_numeral_model(model)
        readings = numeral.readings(image)
        if turn_check is not None and numeral.weigh_turn(turn_check, image, [r.box for r in readings]):
            withhold(readings)  # the frames are the wrong way round: no value is trusted
    return assign_standard(readings, slots)


def assign_standard(readings: list[StandardReading], slots: list[str]) -> dict:
    """Give each slot (a die size) an unused, readable die of that size, the most confident first.

    A slot left without one then gets an unused die of its size that the camera left unread but whose
    ``likely`` values the table profile offers (the most confident first): the unit keeps no value
    (``face_index`` None), and lists those values, nearest first, as its ``alternatives`` (``{"detection",
    "face", "face_index"}``, as ``assign.assign`` lists a Dragon Die's likely faces), so the die's reading
    is ``unreadable`` with its box and its ``likely`` faces (``roll_reading.roll_readings``).  An unread
    die with no likely value stays unassigned, as before.  Before that, a slot left without a readable die
    takes an unused die of its size that the cocked check called cocked (``"cocked": true``: "cocked:
    reroll it" on the Roll panel).  ``likely`` on a die that is not unreadable, a
    value twice, or a value its kind lacks is refused (``ModelError`` naming the die); nothing is assigned."""
    for i, r in enumerate(readings):
        _check_likely(i, r)
    used: set[int] = set()

    def take(size: str, fits) -> int | None:
        """The most confident unused die of ``size`` that ``fits``, now used (None: none)."""
        cands = [i for i, r in enumerate(readings) if i not in used and r.kind == size and fits(r)]
        j = max(cands, key=lambda i: readings[i].confidence) if cands else None
        if j is not None:
            used.add(j)
        return j

    units = []
    for slot, size in enumerate(slots):
        j = take(
            size, lambda r, n=SIDES[size]: not r.unreadable and r.value is not None and 1 <= r.value <= n
        )
        units.append(
            {
                "slot": slot,
                "unit": f"{size}#{slot}",
                "detection": j,
                "face_index": None if j is None else readings[j].value - 1,
                "cocked": False,
            }
        )
    # then a die the camera saw leaning (rolled again), then an unread die with values to offer
    for unit, size in zip(units, slots, strict=True):
        if unit["detection"] is None and (j := take(size, lambda r: r.cocked)) is not None:
            unit["detection"], unit["cocked"] = j, True
    for unit, size in zip(units, slots, strict=True):
        if unit["detection"] is None and (j := take(size, lambda r: r.unreadable and r.likely)) is not None:
            unit["detection"] = j
            unit["alternatives"] = [
                {"detection": j, "face": str(v), "face_index": v - 1} for v in readings[j].likely
            ]
    return {
        "units": units,
        "dice": [r.to_dict() for r in readings],
        "unassigned": [i for i in range(len(readings)) if i not in used],
    }


def _check_likely(i: int, r: StandardReading) -> None:
    """Refuse ``r.likely`` (die ``#i`` of a frame) unless it lists values of ``r.kind``, each once, on an
    unreadable die: the rules of ``DieReading.likely``, on values."""
    if not r.likely:
        return
    die = f"die #{i} ({r.kind})"
    if not r.unreadable or r.value is not None:
        raise ModelError(
            f"{die}: only an unreadable die has likely values (this one reads {r.value!r}): a read die has its value"
        )
    sides = SIDES.get(r.kind)
    bad = [
        v
        for v in r.likely
        if isinstance(v, bool) or not isinstance(v, int) or sides is None or not 1 <= v <= sides
    ]
    if bad:
        raise ModelError(f"{die}: likely value {bad[0]!r} is not a face of a {r.kind}")
    if len(set(r.likely)) != len(r.likely):
        raise ModelError(f"{die}: likely names a value twice ({list(r.likely)})")
