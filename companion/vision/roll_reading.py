"""Reading a roll from a camera frame at run time: each die of the rolling army found, read and
matched to its unit, as ``DieReading`` values (``companion.readings``).

This is the production camera path (the camera source, the phone camera, the demo's camera): it
needs the shipped ONNX models, OpenCV and scipy, and never loads the renderer (``companion.vision.synth``)
or a training library::

    from companion.vision.roll_reading import read_roll, roll_readings, annotate
    read = read_roll(frame, ["Dwarves/Mammoth Rider", "Goblins/Thug"])
    read["units"]      # [{"unit": ..., "slot": 0, "face": "3 Trample", "confidence": ..., ...}, ...]
    roll_readings(read, ["u1", "u2"])   # [DieReading("u1", "3 Trample", 0.93, Source.CAMERA, box=...), ...]
    panel = annotate(frame, read["dice"], read["units"])   # BGR image with boxes and labels

Rendered rolls for the demo and the benches (``render_roll``, ``roll_video``) are in
``companion.vision.roll_frames``.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

from companion.readings import DieReading, Source, State
from companion.vision.detections import Detections


@lru_cache(maxsize=1)
def _catalogue():
    from companion.rules.catalogue import load_catalogue  # noqa: PLC0415

    return load_catalogue()


def read_roll(
    image: np.ndarray, roster: list[str], model="dragon-dice", given: dict[int, str] | None = None
) -> dict:
    """Read a frame and assign it to the rolling units: ``{"units": [...], "dice": [...], "unassigned": [...]}``.

    ``model``: a model name or folder, or a loaded ``DiceModel`` (e.g. one carrying a table profile).
    ``given``: faces players tapped, ``{slot: face text}``, for a model with a table profile: they tell
    the assignment which die is which (``assign``); ignored without a profile."""
    from companion.vision.assign import assign, roster_dice  # noqa: PLC0415
    from companion.vision.reader import load_model  # noqa: PLC0415

    m = model if hasattr(model, "readings") else load_model(model)  # a name, or a loaded model
    det = m.detect(image)
    readings = m.readings(image, det)
    units, unassigned = assign(
        roster_dice(roster, _catalogue()),
        det,
        [r.colour for r in readings],
        [r.kind for r in readings],
        m.heads,
        profile=getattr(m, "profile", None),
        given=given if getattr(m, "profile", None) is not None else None,
    )
    return {
        "units": [u.to_dict() for u in units],
        "dice": [r.to_dict() for r in readings],
        "unassigned": unassigned,
        "detections": det,
    }


def roll_readings(
    read: dict, dice: list[str], faces: list[list[str]] | None = None, frame: int | None = None
) -> list[DieReading]:
    """One ``DieReading`` per die of the roster read by ``read_roll`` (or ``numerals.read_standard_roll``),
    named ``dice[slot]`` (the roll's die ids, in the roster's order): ``read`` with its face, ``cocked``,
    or ``unreadable`` (no die matched to the unit, or a face the reader cannot tell), with the die's box
    in the frame when one was matched.  ``faces``: each die's face texts as the roll names them (the
    face is then ``faces[slot][face_index]``); without it, the face the reader named."""
    if len(dice) != len(read["units"]):
        raise ValueError(f"{len(dice)} die ids for a roster of {len(read['units'])}")
    out = []
    for unit in read["units"]:
        slot, det = unit["slot"], unit.get("detection")
        seen = read["dice"][det] if det is not None else {}
        box = tuple(float(v) for v in seen["box"]) if det is not None else None
        confidence = min(1.0, max(0.0, float(unit.get("confidence", seen.get("confidence", 0.0)))))
        common = {"name": unit["unit"], "box": box, "frame": frame, "source": Source.CAMERA}
        index = unit.get("face_index")
        face = faces[slot][index] if faces is not None and index is not None else unit.get("face")
        if det is None:
            out.append(
                DieReading(
                    dice[slot],
                    None,
                    0.0,
                    state=State.UNREADABLE,
                    problem="not seen: no die on the table matched it",
                    **common,
                )
            )
        elif unit.get("cocked"):
            out.append(
                DieReading(
                    dice[slot], None, confidence, state=State.COCKED, problem="cocked: reroll it", **common
                )
            )
        elif index is None or face is None:
            out.append(
                DieReading(
                    dice[slot],
                    None,
                    confidence,
                    state=State.UNREADABLE,
                    problem="face not read: tap it",
                    likely=_likely(unit, det, faces[slot] if faces is not None else None),
                    **common,
                )
            )
        else:
            out.append(DieReading(dice[slot], face, confidence, face_index=index, **common))
    return out


def _likely(unit: dict, det: int, faces: list[str] | None) -> tuple[str, ...]:
    """The faces the table profile found nearest an unreadable die's crop (its ``alternatives`` of that
    detection with a face index: ``TableProfile.likely_faces``; with a profile's ``offer_by``
    "assignment", also the face the unit would read on the detection another assignment gives it), as the
    roll names them."""
    out: list[str] = []
    for alt in unit.get("alternatives") or ():
        k = alt.get("face_index")
        if (alt.get("detection") != det and alt.get("from") != "assignment") or k is None:
            continue
        face = faces[k] if faces is not None and 0 <= k < len(faces) else alt.get("face")
        if face and face not in out:
            out.append(face)
    return tuple(out)


def annotate(frame: np.ndarray, detections, units: list[dict] | None = None) -> np.ndarray:
    """A copy of ``frame`` with each die's box and label (its reading, and its unit when matched).

    ``detections``: a list of reading dicts (``{"box", "reading", "cocked", "unreadable"}``) or
    ``SeenDie`` objects, or a ``Detections``.
    """
    out = frame.copy()
    if isinstance(detections, Detections):
        items = [
            {"box": list(b), "reading": None, "cocked": False, "unreadable": False} for b in detections.xyxy
        ]
    else:
        items = [d if isinstance(d, dict) else d.to_dict() for d in detections]
    unit_of = {}
    for u in units or []:
        if u.get("detection") is not None:
            unit_of[u["detection"]] = u["unit"].split("/")[-1]
    scale = max(0.35, min(out.shape[:2]) / 1400)
    for i, d in enumerate(items):
        x1, y1, x2, y2 = (int(round(v)) for v in d["box"])
        if d.get("cocked"):
            colour, text = (0, 140, 255), "COCKED: reroll"
        elif d.get("unreadable"):
            colour, text = (0, 0, 230), "unreadable"
        else:
            colour, text = (60, 200, 60), d.get("reading") or ""
        if i in unit_of:
            text = f"{unit_of[i]}: {text}"
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, 2, cv2.LINE_AA)
        (tw, th), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 1)
        ty = y1 - 4 if y1 - th - 6 > 0 else y2 + th + 4
        cv2.rectangle(out, (x1, ty - th - 3), (x1 + tw + 4, ty + 3), colour, -1)
        cv2.putText(out, text, (x1 + 2, ty), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)
    return out
