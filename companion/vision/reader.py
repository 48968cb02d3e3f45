"""Run-time reading with ONNX models only (onnxruntime; no torch, no ultralytics).

A model bundle is a folder in ``models/`` holding ``detector.onnx`` (a YOLO detector exported by
ultralytics), ``face.onnx`` (the face reader, ``companion.vision.face_classifier``) and
``model.json`` (class names, input size, thresholds).  ``load_model("dragon-dice")`` or
``load_model("d6")`` finds a shipped bundle; a path to a bundle folder works too.

Pipeline per frame: letterbox to the detector size -> boxes (+ NMS; ``companion.vision.detector``) -> one square crop per box
from the full-resolution frame -> face reader -> ``Detections`` -> ``SeenDie`` records (what the
frame shows; matched to a roll's dice they become ``companion.readings.DieReading`` values:
``companion.vision.roll_reading``).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.box_refine import BoxRefiner
from companion.vision.crops import CROP_MARGIN, CROP_SIZE, crop_die
from companion.vision.detections import Detections
from companion.vision.detector import OnnxDetector
from companion.vision.model_files import MODELS_DIR as MODELS_DIR
from companion.vision.model_files import MODELS_PACKAGE as MODELS_PACKAGE
from companion.vision.model_files import models_dir as models_dir
from companion.vision.onnx_session import ModelError, model_description, onnx_session, read_model_json
from companion.vision.small_dice import SmallDicePass
from companion.vision.table_reading import apply_profile, embed_detections, load_table_parts

# The checkout's models folder: where the bundles live in the repository (and where a plain checkout
# without an install finds them).  An installed wheel carries them as the package companion_models.
SHIPPED = ("dragon-dice", "d6")
COCKED = "cocked"
NOT_A_DIE = "none"  # the face reader's kind for a box that holds no die (a card, a banner, a hand)


class ImageError(ValueError):
    """An input image cannot be decoded."""


def resolve_model(name_or_path: str | os.PathLike) -> Path:
    """A shipped model name (``dragon-dice``, ``d6``) or a bundle folder -> the bundle folder."""
    p = Path(name_or_path)
    if p.is_dir() and (p / "model.json").is_file():
        return p
    if p.is_file() and p.name == "model.json":
        return p.parent
    shipped = models_dir() / str(name_or_path)
    if (shipped / "model.json").is_file():
        return shipped
    raise ModelError(
        f"unknown model {str(name_or_path)!r}: give a bundle folder (with model.json) "
        f"or one of the shipped models {', '.join(shipped_models())}"
    )


def shipped_models() -> list[str]:
    """The names of the shipped reading models (``models/*/model.json``, embedding networks left out)."""
    names = []
    for meta in sorted(models_dir().glob("*/model.json")):
        try:
            form = json.loads(meta.read_text()).get("form")
        except (OSError, ValueError, AttributeError):
            continue
        if form not in ("face-embedding", "turn-up"):  # networks other readers use, not readers
            names.append(meta.parent.name)
    return names or list(SHIPPED)


def read_image(path: str | os.PathLike) -> np.ndarray:
    p = Path(path)
    if not p.is_file():
        raise ImageError(f"no such image file: {p}")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is None:
        raise ImageError(f"{p} is not a readable image (corrupt or unsupported format)")
    return img


def _flag(meta: dict, key: str) -> bool:
    """A true/false setting of ``model.json`` (absent: false); anything else is refused, naming it."""
    value = meta.get(key, False)
    if not isinstance(value, bool):
        raise ModelError(f"{key} must be true or false, not {value!r}")
    return value


class OnnxFaceReader:
    """The face reader; ``turns`` = 2 or 4 also reads each crop turned by 180 (or 90, 180, 270)
    degrees and averages the probabilities (a die's face has no up); 8 adds the mirror image of
    each turn (for faces whose reading a mirror does not change, such as pips)."""

    def __init__(self, path: Path, heads: dict[str, list[str]], turns: int = 1):
        if turns not in (1, 2, 4, 8):
            raise ModelError(f"face_turns must be 1, 2, 4 or 8, not {turns!r}")
        self.session = onnx_session(path)
        self.heads = heads
        self.turns = turns
        self.outputs = [o.name for o in self.session.get_outputs()]

    #: Crops per run of the network: the memory of a run grows with its crops (a bench's thousands at
    #: once took more than 24 GB).
    batch = 512

    def __call__(self, crops: np.ndarray) -> dict[str, np.ndarray]:
        if len(crops) == 0:
            return {k: np.zeros((0, len(v))) for k, v in self.heads.items()}
        if len(crops) > self.batch:
            parts = [self(crops[i : i + self.batch]) for i in range(0, len(crops), self.batch)]
            return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        x = crops.transpose(0, 3, 1, 2).astype(np.float32) / 255
        n = len(x)
        if self.turns > 1:
            ks = (0, 2) if self.turns == 2 else (0, 1, 2, 3)
            views = [np.rot90(x, k, (2, 3)) for k in ks]
            if self.turns == 8:
                views += [v[..., ::-1] for v in views]
            x = np.concatenate(views)
        logits = self.session.run(self.outputs, {"crops": np.ascontiguousarray(x)})
        out = {}
        for name, z in zip(self.outputs, logits, strict=True):
            z = z - z.max(1, keepdims=True)
            e = np.exp(z)
            p = e / e.sum(1, keepdims=True)
            out[name] = p.reshape(-1, n, p.shape[1]).mean(0)
        return out


class FaceDecoder:
    """Reads (die kind, icon kind, count) jointly, keeping only faces that a die of that kind has.

    The face reader's three heads are scored as independent: p(kind) * p(icon) * p(count), over
    the (kind, icon, count) triples the catalogue prints (``faces_by_kind`` in ``model.json``),
    against p(cocked).  A d12 can then never be read as a d10-only face, and a count is only
    read with an icon it appears with.  The confidence is the chosen triple's share of the total.
    A box whose kind reads ``none`` (not a die) at p >= 0.5 is vetoed: the call returns a keep mask.
    """

    def __init__(self, heads: dict[str, list[str]], faces_by_kind: dict[str, list]):
        kinds, icons, counts = heads["kind"], heads["icon"], heads["count"]
        t = [
            (kinds.index(k), icons.index(i), counts.index(str(c)))
            for k, faces in faces_by_kind.items()
            if k in kinds
            for i, c in faces
            if i in icons and str(c) in counts
        ]
        if not t:
            raise ModelError("faces_by_kind lists no face the face reader knows")
        self.kind, self.icon, self.count = (np.array(v, int) for v in zip(*sorted(set(t)), strict=True))
        self.cocked = icons.index(COCKED) if COCKED in icons else None
        self.none = kinds.index(NOT_A_DIE) if NOT_A_DIE in kinds else None

    def __call__(self, det: Detections, probs: dict[str, np.ndarray]) -> np.ndarray:
        pk, pi, pc = probs["kind"], probs["icon"], probs["count"]
        keep = np.ones(len(det), bool)
        if self.none is not None:
            keep = pk[:, self.none] < 0.5
            pk = pk.copy()
            pk[:, self.none] = 0.0
        scores = pk[:, self.kind] * pi[:, self.icon] * pc[:, self.count]  # (n, triples)
        best = scores.argmax(1)
        rows = np.arange(len(det))
        top = scores[rows, best]
        cocked = pi[:, self.cocked] if self.cocked is not None else np.zeros(len(det))
        total = scores.sum(1) + cocked + 1e-12
        is_cocked = cocked > top
        det.face_probs, det.count_probs = pi, pc
        det.class_id = np.where(is_cocked, pk.argmax(1), self.kind[best])
        det.kind_confidence = np.where(is_cocked, pk.max(1), pk[rows, det.class_id])
        det.face_id = np.where(is_cocked, self.cocked if self.cocked is not None else -1, self.icon[best])
        det.count = np.where(is_cocked, pc.argmax(1), self.count[best])
        det.face_confidence = np.where(is_cocked, cocked, top) / total
        det.count_confidence = pc[rows, det.count]
        return keep


@dataclass
class SeenDie:
    """One die as seen in a frame, before it is matched to a unit (``companion vision read --json`` prints
    these); ``companion.vision.roll_reading.roll_readings`` makes the roll's ``DieReading`` values."""

    box: list[float]
    kind: str
    size_class: str
    colour: list[str]
    icon: str | None
    count: int | None
    reading: str | None
    confidence: float
    cocked: bool
    unreadable: bool

    def to_dict(self) -> dict:
        return asdict(self)


def shifted_boxes(boxes: np.ndarray, shift: float) -> np.ndarray:
    """Each box (x1 y1 x2 y2) and, with ``shift`` > 0, the same box moved by ``shift`` x its width
    left and right and x its height up and down: (n, 5, 4), or (n, 1, 4) with no shift.  The face
    reader reads all of them and averages, so a box a few pixels off the die's centre (the finder's
    boxes are never exact) costs less."""
    boxes = np.asarray(boxes, float).reshape(-1, 1, 4)
    if shift <= 0:
        return boxes
    w, h = boxes[..., 2] - boxes[..., 0], boxes[..., 3] - boxes[..., 1]
    moves = [(0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)]
    return np.concatenate(
        [boxes + shift * np.stack([dx * w, dy * h, dx * w, dy * h], -1) for dx, dy in moves], 1
    )


class DiceModel:
    """A loaded bundle: detector + face reader + class names."""

    def __init__(self, bundle: Path):
        self.bundle = Path(bundle)
        self.meta = read_model_json(self.bundle)
        for f in ("detector.onnx", "face.onnx"):
            if not (self.bundle / f).is_file():
                raise ModelError(f"model bundle {self.bundle} lacks {f}")
        with model_description(self.bundle):  # a missing key or a value of the wrong kind: named
            self._load()

    def _load(self) -> None:
        self.name = self.meta.get("name", self.bundle.name)
        self.det_classes: list[str] = self.meta["detector_classes"]
        self.heads: dict[str, list[str]] = self.meta["face_heads"]
        self.eval_classes: list[str] = self.meta.get("eval_classes", self.det_classes)
        self.eval_from: str = self.meta.get("eval_from", "detector")  # or "icon"
        self.detector = OnnxDetector(
            self.bundle / "detector.onnx",
            int(self.meta.get("imgsz", 320)),
            float(self.meta.get("conf", 0.25)),
            float(self.meta.get("iou", 0.6)),
            float(self.meta.get("box_vote", 0.0)),
            SmallDicePass.from_meta(self.meta.get("small_dice")),
            rect=_flag(self.meta, "rect"),
        )
        self.faces = OnnxFaceReader(
            self.bundle / "face.onnx", self.heads, int(self.meta.get("face_turns", 1))
        )
        # a second look that moves each found box's sides (``box_refine``); the faces are read in the moved box
        self.refiner = BoxRefiner.from_meta(self.bundle, self.meta.get("box_refiner"))
        self.min_face_conf = float(self.meta.get("min_face_confidence", 0.5))
        self.face_shift = float(self.meta.get("face_shift", 0.0))
        if not 0.0 <= self.face_shift < 0.5:
            raise ModelError(f"face_shift must be a share of the box from 0 to 0.5, not {self.face_shift!r}")
        crop = self.meta.get("crop", {})
        self.crop_size, self.crop_margin = (
            int(crop.get("size", CROP_SIZE)),
            float(crop.get("margin", CROP_MARGIN)),
        )
        # a face reader with a ``kind`` head names the die kind itself (the detector then only finds dice)
        if "kind" in self.heads:
            self.det_classes = list(self.heads["kind"])
        self.decoder = (
            FaceDecoder(self.heads, self.meta["faces_by_kind"])
            if ("faces_by_kind" in self.meta and {"kind", "icon", "count"} <= set(self.heads))
            else None
        )
        # an enrolled bundle (``companion vision enroll``) reads faces from its table profile
        self.embedder, self.profile, self.embed_crop, self.embed_margin = load_table_parts(
            self.bundle, self.meta
        )

    def detect(self, image: np.ndarray, conf: float | None = None) -> Detections:
        if image is None or image.ndim != 3 or image.shape[2] != 3 or image.size == 0:
            raise ImageError("expected a BGR colour image (H, W, 3)")
        det = self.detector(image, conf)
        if self.refiner is not None and len(det):
            det.xyxy = self.refiner(image, det.xyxy).astype(float)
        views = shifted_boxes(det.xyxy, self.face_shift)  # (n, views, 4)
        crops = (
            np.stack([crop_die(image, b, self.crop_size, self.crop_margin) for b in views.reshape(-1, 4)])
            if len(det)
            else np.zeros((0, self.crop_size, self.crop_size, 3), np.uint8)
        )
        probs = self.faces(crops)
        if len(det):  # the mean over each die's views
            probs = {k: p.reshape(len(det), views.shape[1], -1).mean(1) for k, p in probs.items()}
        if self.decoder is not None:
            if len(det):
                det = det[np.flatnonzero(self.decoder(det, probs))]
            if self.embedder is not None:
                embed_detections(self, image, det)
            return det
        icon = probs.get("icon")
        if icon is not None and len(det):
            det.face_probs = icon
            det.face_id = icon.argmax(1)
            det.face_confidence = icon.max(1)
        count = probs.get("count")
        if count is not None and len(det):
            det.count_probs = count
            det.count = count.argmax(1)
            det.count_confidence = count.max(1)
        if self.embedder is not None:
            embed_detections(self, image, det)
        return det

    def eval_class_ids(self, det: Detections) -> np.ndarray:
        """The class each detection counts as when scored against a dataset of ``eval_classes``."""
        return det.face_id if self.eval_from == "icon" else det.class_id

    def eval_scores(self, det: Detections) -> np.ndarray:
        return det.confidence * (det.face_confidence if self.eval_from == "icon" else det.kind_confidence)

    def readings(
        self, image: np.ndarray, det: Detections | None = None, px_per_mm: float | None = None
    ) -> list[SeenDie]:
        det = self.detect(image) if det is None else det
        from companion.vision.colour import estimate_colour, size_class  # noqa: PLC0415

        out = []
        icons = self.heads.get("icon", [])
        counts = self.heads.get("count")
        for i in range(len(det)):
            kind = self.det_classes[det.class_id[i]]
            icon = icons[det.face_id[i]] if det.face_id[i] >= 0 else None
            cocked = icon == COCKED
            if self.decoder is not None:  # the box is a die (the veto kept it): how sure is the face?
                conf = float(det.face_confidence[i])
            else:
                conf = float(
                    det.confidence[i] * det.face_confidence[i] * (det.count_confidence[i] if counts else 1.0)
                )
            unreadable = (not cocked) and (icon is None or conf < self.min_face_conf)
            cnt = int(counts[det.count[i]]) if counts and det.count[i] >= 0 else None
            if cocked or unreadable:
                text = None
            elif counts:
                text = f"{cnt} {icon}"
            else:
                text = icon
            if kind == "die" and icon and icon.startswith("dice_"):
                kind = "d6"
            box = [round(float(v), 1) for v in det.xyxy[i]]
            out.append(
                SeenDie(
                    box,
                    kind,
                    size_class(kind, box, px_per_mm),
                    estimate_colour(image, det.xyxy[i]),
                    None if (cocked or unreadable) else icon,
                    None if (cocked or unreadable) else cnt,
                    text,
                    round(conf, 4),
                    cocked,
                    unreadable,
                )
            )
        if self.profile is not None:  # faces come from the table profile (``table_reading``)
            out = apply_profile(self, det, out)
        return out


_CACHE: dict[Path, DiceModel] = {}


def load_model(name_or_path: str | os.PathLike = "dragon-dice") -> DiceModel:
    bundle = resolve_model(name_or_path).resolve()
    if bundle not in _CACHE:
        _CACHE[bundle] = DiceModel(bundle)
    return _CACHE[bundle]
