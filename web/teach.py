""" "Teach the camera your dice": the ``/teach`` page and its API (issue 20, part 3).

A player picks an army (one of the current game's, or dice chosen from the catalogue), lays its
dice down under the camera (``--camera`` or a phone on ``/phone``) and presses *Look*: the server
finds the dice on the newest frame (``POST /api/teach/look``) and the page shows each die found as
a picture with the faces its roster allows, the dice the table profile cannot read yet first.  A
tap on the right face (``POST /api/teach/label``) teaches the table profile that sighting at once
(``web.table_profile``: the file beside the game database, saved atomically).  The page shows how
many of the army's faces are known, per die too, and what the profile now reads for each die.

Reading is open (a viewer sees the page read-only); looking and teaching need the host token or
a paired tablet's.  Every field is checked before anything changes; a look is kept in memory for
a while (``LOOKS_KEPT`` most recent) and a label names it by id.
"""

from __future__ import annotations

import base64
import secrets
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from typing import Any

import numpy as np
from flask import Blueprint, current_app, jsonify, render_template, request

from companion.vision.die_pixels import small_dice_note

from .errors import APIError, Conflict
from .security import request_role, require
from .table_profile import agreed_reading, table_vision
from .validation import Field, json_body

bp = Blueprint("teach", __name__)

LOOKS_KEPT = 8
CROP_PX = 160  # the picture of each die found, as the page shows it
MAX_DICE = 60


def _catalogue():
    from companion.rules.catalogue import load_catalogue

    return load_catalogue()


def _vision():
    vision = table_vision(current_app.extensions["game_store"])
    if vision is None:  # pragma: no cover - create_app always makes one
        raise Conflict("this server reads no dice", code="no_camera_model")
    return vision


@contextmanager
def _vision_errors():
    """A missing or mismatched model, network or profile file: a 409 saying which, never a crash."""
    from companion.vision.embedding import EmbeddingError
    from companion.vision.profile import ProfileError
    from companion.vision.reader import ModelError

    try:
        yield
    except (ModelError, EmbeddingError, ProfileError) as exc:
        raise Conflict(f"the camera cannot learn here: {exc}", code="vision_unavailable") from None


class Looks:
    """The most recent looks (frame, boxes, roster) by id, so a label refers to what the page shows."""

    def __init__(self, keep: int = LOOKS_KEPT):
        self.keep = keep
        self._looks: OrderedDict[str, dict] = OrderedDict()
        self._lock = threading.Lock()

    def add(self, look: dict) -> str:
        with self._lock:
            lid = secrets.token_hex(6)
            self._looks[lid] = look
            while len(self._looks) > self.keep:
                self._looks.popitem(last=False)
            return lid

    def get(self, lid: str) -> dict:
        with self._lock:
            look = self._looks.get(lid)
        if look is None:
            raise Conflict(
                f"look {lid!r} is not (or no longer) kept: press Look again", code="stale_look", field="look"
            )
        return look


def _looks() -> Looks:
    return current_app.extensions.setdefault("teach_looks", Looks())


# ---------------------------------------------------------------------------------------------
# views


def _roster(names: list[str], field: str) -> list:
    """Catalogue dice of ``names`` (in order, repeats dropped); APIError naming the bad entry."""
    cat = _catalogue()
    out, seen = [], set()
    for i, name in enumerate(names):
        die = cat.find(name)
        if die is None:
            raise APIError(
                f"{name!r} is not a die of the catalogue", code="unknown_die", field=f"{field}[{i}]"
            )
        if die.name not in seen:
            seen.add(die.name)
            out.append(die)
    return out


def _faces(die) -> list[str]:
    return list(dict.fromkeys(f.text() for f in die.faces))


def known_view(profile, dice: list) -> dict:
    """How many of these dice's faces the table profile knows, in all and per die."""
    per = []
    for die in dice:
        k, t = profile.known_faces([die]) if profile is not None else (0, len(set(_faces(die))))
        per.append({"die": die.name, "known": k, "total": t})
    known, total = profile.known_faces(dice) if profile is not None else (0, sum(p["total"] for p in per))
    return {"known": known, "total": total, "dice": per}


def _face_known(profile, die, text: str) -> bool:
    from companion.vision.profile import lookup_keys

    k = next(i for i, f in enumerate(die.faces) if f.text() == text)
    return profile is not None and any(key in profile for key in lookup_keys(die, k))


def _kind(die) -> str:
    from companion.vision.profile import die_kind

    return die_kind(die)


def game_armies(store) -> list[dict]:
    """The current game's armies as picked on the page: each player's armies and dragons."""
    session = getattr(store, "session", None)
    setup = getattr(getattr(session, "game", None), "setup", None)
    if not isinstance(setup, dict):
        return []
    out = []
    for p, player in enumerate(setup.get("players") or []):
        name = player.get("name") or f"player {p + 1}"
        for army, dice in (player.get("armies") or {}).items():
            if dice:
                out.append({"id": f"{p}:{army}", "label": f"{name}: {army} army", "dice": list(dice)})
        if player.get("dragons"):
            out.append({"id": f"{p}:dragons", "label": f"{name}: dragons", "dice": list(player["dragons"])})
    return out


def _reading(profile, emb, p_cocked: float, candidates: list) -> dict:
    """What the table profile reads for one die found (``table_profile.agreed_reading`` over its
    candidate dice), or unread / cocked -- never a guess."""
    if profile is None:
        return {"face": None, "die": None, "confidence": 0.0, "cocked": False, "unreadable": True}
    face, die, conf, cocked = agreed_reading(profile, emb, p_cocked, candidates)
    return {
        "face": face,
        "die": die,
        "confidence": round(conf, 3),
        "cocked": cocked,
        "unreadable": face is None and not cocked,
    }


def _likely(profile: Any, look: dict[str, Any], i: int, read: dict[str, Any]) -> list[dict[str, Any]]:
    """A die left unread (not cocked, not yet taught in this look): the known faces nearest its crop
    among its candidate dice's faces (``TableProfile.likely_faces_among``), nearest first, each as
    ``{"face", "dice"}`` (the candidate dice showing that known face).  The page marks them for the
    tap; the die stays unread until a player taps (issue 20: never a guess)."""
    if profile is None or not read["unreadable"] or i in look["taught"]:
        return []
    return [
        {"face": pairs[0][0].faces[pairs[0][1]].text(), "dice": [d.name for d, _ in pairs]}
        for pairs in profile.likely_faces_among(look["emb"][i], look["candidates"][i])
    ]


def _die_view(look: dict, i: int, profile) -> dict:
    cands = look["candidates"][i]
    read = _reading(profile, look["emb"][i], float(look["cocked"][i]), cands)
    return {
        "index": i,
        "box": [round(float(v), 1) for v in look["boxes"][i]],
        "kind": look["kinds"][i],
        "crop": look["crops"][i],
        "taught": look["taught"].get(i),
        "read": read,
        "likely": _likely(profile, look, i, read),
        "options": [
            {"die": d.name, "faces": [{"face": t, "known": _face_known(profile, d, t)} for t in _faces(d)]}
            for d in cands
        ],
    }


def _crop_data_url(frame: np.ndarray, box) -> str:
    import cv2

    from companion.vision.crops import crop_die

    crop = crop_die(frame, box, CROP_PX, 1.3)
    ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode() if ok else ""


def _look_view(lid: str, look: dict, vision) -> dict:
    profile = vision.profile()
    dice = [_die_view(look, i, profile) for i in range(len(look["boxes"]))]
    dice.sort(key=lambda d: (not d["read"]["unreadable"], d["read"]["cocked"], d["index"]))  # unread first
    return {
        "look": lid,
        "size": look["size"],
        "dice": dice,
        "known": known_view(profile, look["roster"]),
        "faces_known": len(profile) if profile is not None else 0,
        # the dice few pixels across: the player placing the camera should move it closer; a camera the
        # wrong way round (``camera_turn``): the player should turn it before teaching
        "note": "; ".join(n for n in (small_dice_note(look["boxes"]), look.get("turn_advice")) if n) or None,
        # while the turn check names a turn, a tap is refused unless it says ``anyway`` (``label``)
        "turn_suggested": look.get("turn_suggested"),
    }


# ---------------------------------------------------------------------------------------------
# routes


@bp.get("/teach")
def page():
    return render_template("teach.html")


@bp.get("/api/teach")
def overview():
    """The game's armies (with how many of their faces are known), the model and the profile;
    ``?dice=NAME&dice=NAME``: the same counts for dice chosen from the catalogue."""
    vision = _vision()
    with _vision_errors():
        profile = vision.profile()
    cat = _catalogue()
    armies = []
    for army in game_armies(current_app.extensions["game_store"]):
        dice = [d for d in (cat.find(n) for n in dict.fromkeys(army["dice"])) if d is not None]
        armies.append(dict(army, known=known_view(profile, dice)))
    names = request.args.getlist("dice")
    if len(names) > MAX_DICE:
        raise APIError(f"at most {MAX_DICE} dice at once", field="dice")
    out = {
        "armies": armies,
        "model": vision.model,
        "profile": {
            "file": vision.path.name,
            "exists": vision.path.is_file(),
            "faces_known": len(profile) if profile else 0,
        },
        "role": request_role(),
    }
    if names:
        out["roster"] = known_view(profile, _roster(names, "dice"))
    return jsonify(out)


@bp.post("/api/teach/look")
@require("tablet")
def look():
    """Find the dice on the newest camera frame: ``{"dice": ["Dwarves/Sergeant", ...]}`` (the army)."""
    body = json_body({"dice": Field(list, items=Field(str, max_len=80, min=1), max_len=MAX_DICE)})
    if not body["dice"]:
        raise APIError("name the army's dice: pick an army or add dice", field="dice")
    roster = _roster(body["dice"], "dice")
    sources = current_app.extensions["sources"]  # the newest frame of --camera or of a phone (web.phone)
    frame = sources.latest_frame()
    if frame is None:
        raise Conflict(
            "no camera frame yet: serve with --camera, or open /phone on a paired phone and "
            "point it at the dice",
            code="no_frame",
        )
    vision = _vision()
    with _vision_errors():
        base = vision.base()
        det = base.detect(frame)
    h, w = frame.shape[:2]
    boxes = np.clip(np.asarray(det.xyxy, float).reshape(-1, 4), 0, [w, h, w, h])
    keep = [i for i, b in enumerate(boxes) if b[2] - b[0] >= 4 and b[3] - b[1] >= 4]
    boxes = boxes[keep]
    kinds = [base.det_classes[int(det.class_id[i])] for i in keep]
    with _vision_errors():
        emb, p_cocked = vision.embed(frame, boxes) if len(boxes) else (np.zeros((0, 1)), np.zeros(0))
        vision.profile()
    candidates = []
    for kind in kinds:  # the roster's dice of the kind the reader named (all of them when none is)
        same = [d for d in roster if _kind(d) == kind]
        candidates.append(same or list(roster))
    entry = {
        "frame": frame,
        "boxes": boxes,
        "kinds": kinds,
        "emb": emb,
        "cocked": p_cocked,
        "roster": roster,
        "candidates": candidates,
        "crops": [_crop_data_url(frame, b) for b in boxes],
        "taught": {},
        "size": [int(w), int(h)],
        "at": time.time(),
    }
    # a look's dice also tell which way up the frames come: dice taught turned would be learnt turned
    turn = sources.latest_turn()
    from companion.vision.camera_turn import weigh_dragon_dice

    weigh_dragon_dice(turn.up_check, frame, boxes)
    entry["turn_advice"] = turn.advice()
    more = turn.needed() if entry["turn_advice"] else None
    entry["turn_suggested"] = (turn.turn + more) % 360 if more else None
    lid = _looks().add(entry)
    return jsonify(_look_view(lid, entry, vision))


@bp.post("/api/teach/label")
@require("tablet")
def label():
    """Teach one die of a look: ``{"look": ID, "index": N, "die": "Dwarves/Sergeant", "face": "2 Melee"}``.

    Refused (409 ``camera_turned``) while the look's frames seemed turned, unless ``"anyway": true``."""
    from companion.vision.profile import face_label

    body = json_body(
        {
            "look": Field(str, max_len=40, min=1),
            "index": Field(int, min=0),
            "die": Field(str, max_len=80, min=1),
            "face": Field(str, max_len=40, min=1),
            "anyway": Field(bool, required=False, default=False),
        }
    )
    entry = _looks().get(body["look"])
    i = body["index"]
    if entry.get("turn_suggested") is not None and not body["anyway"]:
        # a die taught from turned frames is learnt turned, and the next upright reading misses it
        raise Conflict(
            f"this look's frames seem turned, so a die taught from them would be learnt turned: turn the "
            f"picture to {entry['turn_suggested']} degrees (the Pairing page, or --turn "
            f'{entry["turn_suggested"]}) and look again, or send "anyway": true if the camera is right',
            code="camera_turned",
            field="look",
        )
    if i >= len(entry["boxes"]):
        raise APIError(
            f"look {body['look']} found {len(entry['boxes'])} dice: index {i} is out of range",
            code="bad_index",
            field="index",
        )
    die = next((d for d in entry["roster"] if d.name == body["die"]), None)
    if die is None:
        raise APIError(
            f"{body['die']!r} is not one of the dice of this look's army", code="unknown_die", field="die"
        )
    text = " ".join(body["face"].split())
    k = next((j for j, f in enumerate(die.faces) if f.text().lower() == text.lower()), None)
    if k is None:
        raise APIError(
            f"{die.name} has no face {body['face']!r}; its faces are: {', '.join(_faces(die))}",
            code="impossible_face",
            field="face",
        )
    vision = _vision()
    with vision.lock:  # checked under the lock: two tablets tapping one die at once teach it once
        if i in entry["taught"]:
            raise Conflict(
                f"die {i} of this look was already taught as {entry['taught'][i]['face']}: press Look "
                "again to teach it again",
                code="already_taught",
                field="index",
            )
        with _vision_errors():
            vision.learn(entry["frame"], [(list(entry["boxes"][i]), face_label(die, k))])
        entry["taught"][i] = {"die": die.name, "face": die.faces[k].text(), "lesson": vision.lessons}
    return _answer(entry, i, vision)


def _answer(entry: dict, i: int, vision):
    profile = vision.profile()
    return jsonify(
        {
            "die": _die_view(entry, i, profile),
            "known": known_view(profile, entry["roster"]),
            "faces_known": len(profile) if profile is not None else 0,
        }
    )


@bp.post("/api/teach/undo")
@require("tablet")
def undo():
    """Take back the last tap (a wrong face): ``{"look": ID, "index": N}``; only the table's last lesson."""
    body = json_body({"look": Field(str, max_len=40, min=1), "index": Field(int, min=0)})
    entry = _looks().get(body["look"])
    i = body["index"]
    taught = entry["taught"].get(i)
    if taught is None:
        raise Conflict(f"die {i} of this look was not taught", code="not_taught", field="index")
    vision = _vision()
    with vision.lock:
        try:
            vision.undo(taught["lesson"])
        except LookupError:
            raise Conflict(
                "only the last lesson can be taken back (the table has learnt since)",
                code="not_last_lesson",
                field="index",
            ) from None
        del entry["taught"][i]
    return _answer(entry, i, vision)
