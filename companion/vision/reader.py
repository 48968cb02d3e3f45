"""Run-time reading with ONNX models only (onnxruntime; no torch, no ultralytics).

A model bundle is a folder in ``models/`` holding ``detector.onnx`` (a YOLO detector exported by
ultralytics), ``face.onnx`` (the face reader, ``companion.vision.face_classifier``) and
``model.json`` (class names, input size, thresholds).  ``load_model("dragon-dice")`` or
``load_model("d6")`` finds a shipped bundle; a path to a bundle folder works too.

Pipeline per frame: letterbox to the detector size -> boxes (+ NMS) -> one square crop per box
from the full-resolution frame -> face reader -> ``Detections`` -> ``SeenDie`` records (what the
frame shows; matched to a roll's dice they become ``companion.readings.DieReading`` values:
``companion.vision.roll_reading``).
"""

from __future__ import annotations

import importlib.resources
import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.box_refine import BoxRefiner
from companion.vision.crops import CROP_MARGIN, CROP_SIZE, crop_die
from companion.vision.detections import Detections, box_iou
from companion.vision.onnx_session import ModelError, model_description, onnx_session, read_model_json
from companion.vision.small_dice import SUPPORT_FLOOR, SmallDicePass
from companion.vision.table_reading import apply_profile, embed_detections, load_table_parts

# The checkout's models folder: where the bundles live in the repository (and where a plain checkout
# without an install finds them).  An installed wheel carries them as the package companion_models.
MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
MODELS_PACKAGE = "companion_models"
SHIPPED = ("dragon-dice", "d6")
COCKED = "cocked"
NOT_A_DIE = "none"  # the face reader's kind for a box that holds no die (a card, a banner, a hand)


class ImageError(ValueError):
    """An input image cannot be decoded."""


def models_dir() -> Path:
    """The folder of the shipped bundles: ``COMPANION_MODELS`` when set (and not empty), else the installed package
    ``companion_models`` (a wheel, or an editable install that maps it to the checkout's ``models/``),
    else the checkout's ``models/`` folder (a plain checkout run without an install)."""
    if os.environ.get("COMPANION_MODELS"):  # set and not empty
        return Path(os.environ["COMPANION_MODELS"])
    try:
        shipped = importlib.resources.files(MODELS_PACKAGE)
    except ModuleNotFoundError:
        return MODELS_DIR
    # onnxruntime opens files by path: a package on disk (how pip installs a wheel) gives a real one
    return shipped if isinstance(shipped, Path) else MODELS_DIR


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


#: a YOLO detector's coarsest stride: an input side of free size is rounded up to a multiple of it
STRIDE = 32


def letterbox(
    image: np.ndarray, size: int, rect: bool = False
) -> tuple[np.ndarray, float, tuple[float, float]]:
    """``image`` shrunk (or enlarged) to fit ``size`` x ``size`` and centred on grey bars; with ``rect`` the
    bars only round each side up to a multiple of ``STRIDE`` (a 16:9 frame at 512 px: 512 x 288)."""
    h, w = image.shape[:2]
    s = min(size / h, size / w)
    nh, nw = int(round(h * s)), int(round(w * s))
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
    oh, ow = (-(-nh // STRIDE) * STRIDE, -(-nw // STRIDE) * STRIDE) if rect else (size, size)
    top, left = (oh - nh) // 2, (ow - nw) // 2
    out = np.full((oh, ow, 3), 114, np.uint8)
    out[top : top + nh, left : left + nw] = resized
    return out, s, (left, top)


def vote_boxes(kept: np.ndarray, boxes: np.ndarray, scores: np.ndarray, threshold: float) -> np.ndarray:
    """Box voting: each kept box becomes the score-weighted mean of every candidate box (before
    non-maximum suppression) that overlaps it at IoU >= ``threshold``, itself included.

    The network proposes several slightly different boxes for one die; their weighted mean is
    tighter than the single best one, which is what mAP50-95 rewards (models/d6/MODEL_CARD.md)."""
    kept = np.asarray(kept, float).reshape(-1, 4)
    if not len(kept):
        return kept
    boxes, scores = np.asarray(boxes, float).reshape(-1, 4), np.asarray(scores, float).reshape(-1)
    weights = (box_iou(kept, boxes) >= threshold) * scores[None, :]  # (kept, candidates)
    total = weights.sum(1, keepdims=True)
    return np.where(total > 0, weights @ boxes / np.maximum(total, 1e-12), kept)


def _flag(meta: dict, key: str) -> bool:
    """A true/false setting of ``model.json`` (absent: false); anything else is refused, naming it."""
    value = meta.get(key, False)
    if not isinstance(value, bool):
        raise ModelError(f"{key} must be true or false, not {value!r}")
    return value


def _pins(shape: list, height: int, width: int | None = None) -> dict[str, int]:
    """The free dimensions of a detector's (batch, 3, height, width) input, pinned to one image of
    ``height`` x ``width`` (square when ``width`` is None)."""
    return {
        str(d): v
        for d, v in zip(shape, (1, 3, height, height if width is None else width), strict=True)
        if not isinstance(d, int) and d is not None
    }


class OnnxDetector:
    """A YOLO (v8/11 head) detector exported to ONNX; output (1, 4+nc, anchors).

    ``vote`` > 0 replaces each box kept by non-maximum suppression with the score-weighted mean of
    the candidates of its class that overlap it at that IoU (``vote_boxes``); 0 keeps the boxes as
    the network gave them.  ``small`` (a ``SmallDicePass``) also runs the detector over overlapping
    tiles of the frame and merges in the small dice the tiles find (``companion.vision.small_dice``).
    ``rect`` (a detector of free input size) reads a frame that is not square at its own shape, its
    sides rounded up to a multiple of ``STRIDE`` (a session pinned per shape, opened on first use),
    instead of on a square with grey bars."""

    def __init__(
        self,
        path: Path,
        imgsz: int,
        conf: float = 0.25,
        iou: float = 0.6,
        vote: float = 0.0,
        small: SmallDicePass | None = None,
        rect: bool = False,
    ):
        if not 0.0 <= vote < 1.0:
            raise ModelError(f"box_vote must be 0 (off) or an IoU below 1, not {vote!r}")
        self.session = onnx_session(path)
        inp = self.session.get_inputs()[0]
        self.input = inp.name
        fixed = [d for d in inp.shape[2:] if isinstance(d, int)]
        if fixed and fixed != [imgsz] * len(fixed):
            raise ModelError(f"{path} takes {fixed[0]} px input, but the bundle asks for {imgsz} px")
        self.imgsz, self.conf, self.iou, self.vote, self.small = imgsz, conf, iou, vote, small
        self.window_session = None
        self.path, self.rect, self.shaped = path, rect, {}
        if not fixed and len(inp.shape) == 4:  # a free input size: pinned, so it runs as fast as a fixed one
            self.session = onnx_session(path, _pins(inp.shape, imgsz))
            self.shaped = {(imgsz, imgsz): self.session}  # the sessions ``rect`` reads with, by input shape
            self.input_shape = list(inp.shape)
            if small is not None and small.window is not None:  # the same file, pinned at the window's size
                self.window_session = onnx_session(path, _pins(inp.shape, small.window))
        elif small is not None and small.window is not None:
            raise ModelError(
                f"{path} takes a fixed {imgsz} px input: small_dice 'window' needs a detector exported "
                "with a free input size"
            )
        elif rect:
            raise ModelError(
                f"{path} takes a fixed {imgsz} px input: 'rect' needs a detector of free input size"
            )

    def candidates(self, image: np.ndarray, conf: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every box the network scores at ``conf`` or more, before suppression: (boxes in ``image``
        pixels, scores, classes)."""
        lb, s, (left, top) = letterbox(image, self.imgsz, rect=self.rect)
        return self._decode(self._session_for(lb.shape[:2]), lb, conf, s, left, top, image.shape[:2])

    def _session_for(self, shape: tuple[int, int]):
        """The session for an input of ``shape`` (height, width): pinned to it, opened on first use."""
        if not self.rect:
            return self.session
        if shape not in self.shaped:
            self.shaped[shape] = onnx_session(
                self.path, _pins(self.input_shape, int(shape[0]), int(shape[1]))
            )
        return self.shaped[shape]

    def window_candidates(
        self, image: np.ndarray, window: tuple[int, int, int, int], conf: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``candidates`` of one small-die window of the frame, read at the tiles' scale by the window
        session (boxes in frame pixels)."""
        assert self.small is not None and self.small.window is not None and self.window_session is not None
        H, W = image.shape[:2]
        x1, y1, x2, y2 = window
        scale = self.small.tile_scale(self.imgsz, W, H)
        size = self.small.window
        nw, nh = min(int(round((x2 - x1) * scale)), size), min(int(round((y2 - y1) * scale)), size)
        part = cv2.resize(
            image[y1:y2, x1:x2], (nw, nh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        )
        canvas = np.full((size, size, 3), 114, np.uint8)
        canvas[:nh, :nw] = part
        b, sc, cl = self._decode(self.window_session, canvas, conf, nw / (x2 - x1), 0, 0, (y2 - y1, x2 - x1))
        return b + [x1, y1, x1, y1], sc, cl

    def _decode(self, session, lb: np.ndarray, conf: float, s: float, left: float, top: float, hw):
        x = cv2.cvtColor(lb, cv2.COLOR_BGR2RGB).transpose(2, 0, 1)[None].astype(np.float32) / 255
        out = session.run(None, {self.input: x})[0][0]  # (4+nc, A)
        scores = out[4:]
        cls = scores.argmax(0)
        best = scores[cls, np.arange(scores.shape[1])]
        keep = best >= conf
        cx, cy, w, h = out[:4, keep]
        boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], 1).reshape(-1, 4)
        H, W = hw
        boxes = np.clip((boxes - [left, top, left, top]) / s, 0, [W, H, W, H])
        return boxes, best[keep], cls[keep]

    def suppress(self, boxes: np.ndarray, sc: np.ndarray, cl: np.ndarray, conf: float) -> Detections:
        """Non-maximum suppression (and box voting) of candidate boxes."""
        if not len(boxes):
            return Detections.empty()
        idx = cv2.dnn.NMSBoxes(
            [[float(b[0]), float(b[1]), float(b[2] - b[0]), float(b[3] - b[1])] for b in boxes],
            sc.astype(float).tolist(),
            conf,
            self.iou,
        )
        idx = np.array(idx, int).reshape(-1)
        kept = boxes[idx].copy()
        if self.vote:
            for c in np.unique(cl[idx]):
                mine = cl[idx] == c
                kept[mine] = vote_boxes(kept[mine], boxes[cl == c], sc[cl == c], self.vote)
        return Detections(kept, sc[idx].astype(float), cl[idx].astype(int))

    def __call__(self, image: np.ndarray, conf: float | None = None) -> Detections:
        conf = self.conf if conf is None else conf
        if self.small is None:
            return self.suppress(*self.candidates(image, conf), conf)
        floor = min(conf, SUPPORT_FLOOR)  # faint whole-frame boxes still vouch for the tiles' boxes
        whole = self.suppress(*self.candidates(image, floor), floor)
        H, W = image.shape[:2]
        parts = []
        tiles = [t for t in self.small.windows(W, H) if self.small.worth_a_look(whole, t, conf, W, H)]
        wins = (
            self.small.windows_around(whole, conf, W, H, self.imgsz)
            if self.window_session is not None and conf > 1e-3
            else None
        )
        # small squares around the boxes that open tiles, unless they would take more pixels than the tiles
        if wins is not None and len(wins) * (self.small.window or 0) ** 2 < len(tiles) * self.imgsz**2:
            for win in wins:
                b, sc, cl = self.window_candidates(image, win, conf)
                keep = self.small.whole_in_tile(b, win, W, H) & self.small.is_small(b, W, H)
                parts.append((b[keep], sc[keep], cl[keep]))
            tiles = []
        for tile in tiles:
            x1, y1, x2, y2 = tile
            b, sc, cl = self.candidates(image[y1:y2, x1:x2], conf)
            b = b + [x1, y1, x1, y1]
            keep = self.small.whole_in_tile(b, tile, W, H) & self.small.is_small(b, W, H)
            parts.append((b[keep], sc[keep], cl[keep]))
        tiles = (
            self.suppress(*(np.concatenate(p) for p in zip(*parts, strict=True)), conf)
            if parts
            else (Detections.empty())
        )
        return self.small.merge(whole, tiles, conf)


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
