"""Reading a frame with a table profile: the glue between ``DiceModel`` and ``TableProfile``.

A bundle made by ``companion vision enroll`` has, besides the die finder and the face reader, an
``embedding`` section in its ``model.json``::

    "embedding": {"onnx": "embed.onnx", "profile": "profile.npz", "turns": 4,
                  "crop": {"size": 64, "margin": 1.15}, "reading": {"scale": ..., "max_distance": ...}}

Such a bundle still finds dice and names their kind with its detector and face reader (and drops
boxes that hold no die), but the *face* comes from the table profile only: the nearest known face
(of the die's roster entry when a roster is given, else of every face the profile knows of that
kind), or ``unreadable``; ``cocked`` comes from the embedding network's geometry head only.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import numpy as np

from companion.vision.crops import CROP_MARGIN, crop_die
from companion.vision.detections import box_problem
from companion.vision.embedding import EMBED_INPUT, EmbeddingError, FaceEmbedder
from companion.vision.model_files import embedding_model
from companion.vision.onnx_session import ModelError
from companion.vision.profile import ProfileError, TableProfile, embedder_id

#: The roster's settings (``assign``; models/face-embed/CHANGELOG.md, stops 39 and 40: the identity gate,
#: the assignment's density scale, what an unsure unit's tap is offered), chosen together: a bundle
#: enrolled before one of them existed takes them all from the shipped network's reading.
ROSTER_SETTINGS = ("min_identity", "identity_by", "assign_scale", "offer_by")


@lru_cache(maxsize=8)
def _shipped_roster_settings(eid: str) -> dict:
    """``ROSTER_SETTINGS`` of the shipped embedding network's reading, if ``eid`` is that network (they
    were chosen with it), else none: a bundle enrolled before they existed reads with them all the same."""
    try:
        folder, meta = embedding_model()
    except ModelError:
        return {}
    if embedder_id(folder / meta.get("onnx", "embed.onnx")) != eid:
        return {}
    reading = meta.get("reading", {})
    return {k: reading[k] for k in ROSTER_SETTINGS if k in reading}


def load_table_parts(bundle: Path, meta: dict):
    """(embedder, profile, crop size, crop margin) of a bundle, or Nones for a bundle without them."""
    spec = meta.get("embedding")
    if not spec:
        return None, None, EMBED_INPUT, CROP_MARGIN
    bundle = Path(bundle)
    onnx = bundle / spec.get("onnx", "embed.onnx")
    try:
        embedder = FaceEmbedder(onnx, int(spec.get("turns", 4)))
        prof_path = bundle / spec.get("profile", "profile.npz")
        eid = embedder_id(onnx)
        settings = spec.get("reading", {})
        if any(k not in settings for k in ROSTER_SETTINGS):  # chosen together: taken together
            settings = {**settings, **_shipped_roster_settings(eid)}
        profile = TableProfile.load_or_new(prof_path, eid, embedder.dim, settings)
    except (EmbeddingError, ProfileError) as exc:
        raise ModelError(f"model bundle {bundle}: {exc}") from exc
    crop = spec.get("crop", {})
    return embedder, profile, int(crop.get("size", EMBED_INPUT)), float(crop.get("margin", CROP_MARGIN))


def embedding_crops(
    image: np.ndarray, boxes: np.ndarray, size: int = EMBED_INPUT, margin: float = CROP_MARGIN
) -> np.ndarray:
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    if not len(boxes):
        return np.zeros((0, size, size, 3), np.uint8)
    return np.stack([crop_die(image, b, size, margin) for b in boxes])


def embed_detections(model, image: np.ndarray, det) -> None:
    """Fill ``det.embedding`` and ``det.cocked_prob`` (in place) from the model's embedder."""
    if model.embedder is None or not len(det):
        return
    emb, pc = model.embedder(embedding_crops(image, det.xyxy, model.embed_crop, model.embed_margin))
    det.embedding, det.cocked_prob = emb, pc


def apply_profile(model, det, readings: list) -> list:
    """Each reading's face from the table profile (the die's kind as the face reader named it).

    A standard die's face reads as ``icon`` "value", ``count`` and ``reading`` its number ("17")."""
    if model.profile is None or not len(det) or det.embedding.shape[1] == 0:
        return readings
    for i, r in enumerate(readings):
        if r.kind == "die":  # a pip-d6 bundle's finder names no kind: its dice are six-sided
            r.kind = "d6"
        m = model.profile.read_any(det.embedding[i], r.kind, float(det.cocked_prob[i]))
        r.cocked, r.unreadable, r.confidence = m.cocked, m.unreadable, float(m.confidence)
        if m.label is None:
            r.icon, r.count, r.reading = None, None, None
        else:
            r.icon, r.count, r.reading = m.label.icon, m.label.count, m.label.text
    return readings


def profile_faces(model, det) -> list[tuple[str | None, int | None, bool]]:
    """(icon, count, cocked) per detection from the table profile, as ``evaluate`` scores faces;
    an unreadable die is (None, None, False)."""
    out = []
    for i in range(len(det)):
        kind = model.det_classes[det.class_id[i]]
        m = model.profile.read_any(
            det.embedding[i], "d6" if kind == "die" else kind, float(det.cocked_prob[i])
        )
        out.append(
            (m.label.icon, m.label.count, False)
            if m.label
            else ("cocked" if m.cocked else None, None, m.cocked)
        )
    return out


def learn_confirmed_roll(
    model, frame: np.ndarray, confirmed: list[tuple[list[float], object]], save: bool = True
) -> int:
    """ "As you play": teach the model's table profile the dice of a roll players confirmed.

    ``confirmed``: (box x1 y1 x2 y2 in ``frame``, ``FaceLabel``) per die whose face was confirmed
    (after any taps that fixed it); cocked or unread dice are left out.  The profile learns them at
    once (the very next reading uses them) and, with ``save``, is written back to the bundle
    atomically.  Returns the number of sightings added."""
    if model.profile is None:
        raise ProfileError(
            f"model {model.name} has no table profile: make one with `companion vision enroll`"
        )
    if not confirmed:
        return 0
    h, w = frame.shape[:2]
    for box, _ in confirmed:
        if problem := box_problem([float(v) for v in box], w, h):
            raise ProfileError(f"box {problem}")
    crops = embedding_crops(frame, np.array([b for b, _ in confirmed]), model.embed_crop, model.embed_margin)
    model.profile.learn(crops, [lab for _, lab in confirmed], model.embedder)
    if save:
        spec = model.meta["embedding"]
        model.profile.save(Path(model.bundle) / spec.get("profile", "profile.npz"))
    return len(confirmed)


def learn_confirmed_faces(
    model,
    frame: np.ndarray,
    dice: list[tuple[str, str, list[float] | None]],
    catalogue=None,
    save: bool = True,
) -> int:
    """The hook for the session/web layer when players confirm a camera roll ("as you play").

    ``model``: a loaded ``DiceModel`` (``companion.vision.reader.load_model``); ``dice``: (catalogue die name, the
    confirmed face text such as ``"2 Melee"``, the die's box in ``frame`` or None) per die of the
    roll, after any taps that fixed faces.  Dice without a box (typed, not seen) are skipped; a
    model without a table profile learns nothing (returns 0).  A die name or face the catalogue
    does not know raises ``ProfileError`` before anything is learnt."""
    from companion.vision.profile import face_label  # noqa: PLC0415

    if not hasattr(model, "profile"):  # taking a name here would make this module import the reader back
        raise ProfileError(
            f"learn_confirmed_faces needs a loaded model (companion.vision.reader.load_model), not {model!r}"
        )
    if model.profile is None:
        return 0
    if catalogue is None:
        from companion.rules.catalogue import load_catalogue  # noqa: PLC0415

        catalogue = load_catalogue()
    confirmed = []
    for name, text, box in dice:
        if box is None:
            continue
        die = catalogue.find(name)
        if die is None:
            raise ProfileError(f"{name!r} is not a die in the catalogue")
        k = next((i for i, f in enumerate(die.faces) if f.text() == text), None)
        if k is None:
            raise ProfileError(f"{die.name} has no face {text!r}")
        confirmed.append(([float(v) for v in box], face_label(die, k)))
    return learn_confirmed_roll(model, frame, confirmed, save=save)


def write_meta(bundle: Path, meta: dict) -> None:
    (Path(bundle) / "model.json").write_text(json.dumps(meta, indent=1))
