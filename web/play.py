"""Glue between the HTTP layer and the game: views of the state, set-ups, readings of rolls.

A *reading* is a roll that has been read (by the camera, the smart dice, or typed on the page)
but not yet given to the game: ``{"source", "faces": {uid: face text}, "boxes": {uid: [x,y,w,h]},
"frame": bool, "corrected": [uid...], "problems": [...], "readings": {uid: DieReading JSON}}`` (a demo adds ``"typed_by_script": [uid...]``,
faces its script typed for dice the source could not read, never shown as a player's correction).
Players check it on the Roll panel,
tap a die to fix its face (a *correction*), then confirm; only then is it submitted to the session
as one ``companion.readings.DieReading`` per die (``GameSession.submit_readings``: the source's own
reading, or a typed one for a die a player tapped), which the session gives the engine as the
``{"type": "roll", "faces": [...]}`` answer it expects and logs beside the faces.
"""

from __future__ import annotations

import json
import logging
import time
from functools import lru_cache
from pathlib import Path

from flask import current_app

from companion.readings import parse_reading
from companion.vision import DEFAULT_STANDARD_MODEL

from .editions import rules_of
from .errors import APIError, Conflict
from .staged_roll import confirmed_readings, keyed_readings

log = logging.getLogger("companion.web")


# ---------------------------------------------------------------------------------------------
# state


def state_view(store) -> dict:
    s = store.session
    if s is None:
        return {
            "game_id": None,
            "seq": store.last_seq,
            "state": None,
            "pending": None,
            "reading": None,
            "last_roll": None,
        }
    state = effects_view(s.state_dict())
    pending = s.pending()  # the engine's decision as data: dice with their face icons, cast options, need
    last_change, last_roll_event = s.last_changes()
    last_roll = last_roll_view(state.get("last_roll") if isinstance(state, dict) else None)
    if last_roll is not None and last_roll_event is not None:
        last_roll.update(
            seq=last_roll_event["seq"], by=last_roll_event["by"], who=who_made(last_roll_event["by"])
        )
    return {
        "game_id": store.game_id,
        "seq": store.last_seq,
        "state": state,
        "pending": pending,
        "reading": store.reading if pending and pending.get("kind") == "roll" else None,
        "last_roll": last_roll,
        "last_change": None if last_change is None else dict(last_change, who=who_made(last_change["by"])),
        "rules": rules_of(state),  # the rule documents this game is played by (named on the page)
    }


def effects_view(state: dict) -> dict:
    """The state with each lasting effect's army target parsed (``target_army``: ``army_parts``), so
    the page names the army without splitting its id; the session's dict is not changed."""
    if not isinstance(state, dict) or not isinstance(state.get("effects"), list):
        return state
    effects = [
        dict(e, target_army=army_parts(e.get("target"))) if isinstance(e, dict) else e
        for e in state["effects"]
    ]
    return dict(state, effects=effects)


def who_made(by: dict | None) -> str | None:
    """Who made a change, in words for the table's pages: "kitchen tablet (camera)", "the host
    (typed)", "the demo", "the command line"; None where the log did not record it."""
    if not by:
        return None
    role = by.get("role")
    words = (
        (by.get("name") or "a tablet")
        if role == "tablet"
        else {"host": "the host", "demo": "the demo", "cli": "the command line"}.get(role, str(role))
    )
    return words + (f" ({by['source']})" if by.get("source") else "")


def split_citation(text: str) -> tuple[str, str | None]:
    """'Doubled IDs (V4.01c L508)' -> ('Doubled IDs', 'V4.01c L508')."""
    t = str(text).rstrip()
    if t.endswith(")") and "(" in t:
        head, _, cite = t[:-1].rpartition("(")
        if any(tag in cite for tag in ("V4", "R96", "FAQ", "L")):
            return head.strip(), cite.strip()
    return t, None


def army_parts(text: object) -> dict | None:
    """An army id's parts as the page shows them, read by the engine's ``ArmyId``:
    ``"p1@frontier"`` -> ``{"owner": "p1", "location": "frontier", "placed": True}``; None for text
    that is not an army id (a die, a player, nothing)."""
    from companion.rules import ArmyId, InvalidId

    try:
        army = ArmyId.parse(text)
    except InvalidId:
        return None
    return {"owner": army.owner, "location": army.location, "placed": army.placed}


def last_roll_view(roll: dict | None) -> dict | None:
    """The last resolved roll, each step as ``{step, name, text, cite, before, after}`` for the Roll
    and Dispute panels (the resolution engine's explained steps; older plain strings still read)."""
    if not roll:
        return None
    steps = []
    for step in roll.get("steps") or []:
        if isinstance(step, dict):
            steps.append(
                {
                    "step": step.get("step"),
                    "name": step.get("rule") or "",
                    "text": step.get("text") or "",
                    "cite": step.get("citation"),
                    "before": step.get("before"),
                    "after": step.get("after"),
                    "result": step.get("result"),
                }
            )
        else:
            text, cite = split_citation(step)
            steps.append(
                {"step": None, "name": "", "text": text, "cite": cite, "before": None, "after": None}
            )
    out = dict(roll)
    out["steps"] = steps
    out["army_at"] = army_parts(roll.get("army"))
    return out


# ---------------------------------------------------------------------------------------------
# set-up


def build_setup(body: dict) -> dict:
    """The engine's set-up from the New game form: its game's quick start (``GameKind.quick``) fills in
    whatever is missing."""
    from companion.rules import game_for

    kind = game_for(body)
    if kind.forces is None:  # a game whose forces are not built die by die (Battle Dice)
        if len(body["players"]) != 2 or body.get("forces"):
            raise APIError(f"{kind.title}: a two-player game started with a quick start", field="players")
        return kind.quick({"game": body["game"], "players": [n.strip() for n in body["players"]]})
    names = [n.strip() for n in body["players"]]
    forces = {f["player"].strip().lower(): f for f in (body.get("forces") or [])}
    unknown = sorted(set(forces) - {n.lower() for n in names})
    if unknown:
        raise APIError(f"forces given for unknown player {unknown[0]!r}", field="forces")
    if not body.get("quick") and len(forces) != len(names):
        raise APIError("give a force for every player, or ask for a quick start", field="forces")
    players = []
    for name in names:
        p: dict = {"name": name}
        f = forces.get(name.lower())
        if f:
            armies = f["armies"]
            for army, dice in armies.items():
                if not isinstance(dice, list) or not all(isinstance(d, str) for d in dice):
                    raise APIError(f"armies.{army} of {name} must be a list of die names", field="forces")
            p["armies"] = armies
            if f.get("dragons"):
                p["dragons"] = f["dragons"]
            if f.get("home_terrain"):
                p["home"] = f["home_terrain"]
            if f.get("frontier_terrain"):
                p["frontier"] = f["frontier_terrain"]
        players.append(p)
    advanced = list(dict.fromkeys(body.get("advanced") or []))
    offered = kind.components()
    if advanced and not offered:
        raise APIError(
            f"optional components (minor terrains, items, Dragonkin, Eldarim, Dracolem) are not rules "
            f"of {kind.title}",
            field="advanced",
        )
    unknown = [c for c in advanced if c not in offered]
    if unknown:
        raise APIError(
            f"{unknown[0]!r} is not an optional component of {kind.title} (one of {', '.join(offered)})",
            field="advanced",
        )
    setup = kind.quick({"force_size": body.get("force_size") or 24, "players": players})
    if advanced:
        setup["advanced"] = advanced  # each optional component is chosen per game (the engine checks them)
    return setup


@lru_cache(maxsize=1)
def _catalogue():
    from companion.rules.catalogue import load_catalogue

    return load_catalogue()


def game_kinds() -> list[dict]:
    """The engine's games (``companion.rules.GAMES``) as the New game page needs them."""
    from companion.rules import GAMES

    return [
        {
            "key": k.key,
            "game": k.game,
            "edition": k.edition,
            "title": k.title,
            "document": k.document,
            "forces": k.forces is not None,
            "components": list(k.components()),
        }
        for k in GAMES.values()
    ]


def setup_choices() -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``game`` and ``edition`` names a set-up may give: the engine's registry (``GAMES``)."""
    from companion.rules import GAMES

    games = tuple(dict.fromkeys(k.game for k in GAMES.values()))
    editions = tuple(k.edition for k in GAMES.values() if k.edition is not None)
    return games, editions


def force_check(body: dict) -> dict:
    """Each player's force on the New game page checked by the game's own rules
    (``companion.rules.force_report``): points or health per army, the army cap, the dragons required
    and one line per rule with whether it is met.  The page adds nothing up itself."""
    from companion.rules import force_report, game_for

    game = {k: body[k] for k in ("game", "edition") if body.get(k)}
    kind = game_for(game)
    if kind.forces is None:
        raise APIError(f"{kind.title}: forces are not built die by die", field="game")
    players = []
    for i, f in enumerate(body["forces"]):
        if not isinstance(f, dict) or not isinstance(f.get("armies", {}), dict):
            raise APIError(
                "each force is {player, armies: {home: [die names], ...}, dragons: [die names]}",
                field=f"forces[{i}]",
            )
        report = force_report(game, body["force_size"], f.get("armies", {}), f.get("dragons", []))
        players.append({"player": f.get("player"), **report})
    return {"game": kind.key, "title": kind.title, "force_size": body["force_size"], "players": players}


def die_view(die, game: dict | None = None) -> dict:
    """A catalogue die for the force builder, with what it adds to a force of `game` (a set-up naming
    the game: ``{"edition": "r96"}``; V4.01c by default) by that game's rules (``companion.rules.die_points``:
    points or health; None where the game's forces cannot hold it)."""
    from companion.rules import die_points

    kind = die.kind.value
    return {
        "name": die.name,
        "kind": kind,
        "species": die.species,
        "size": die.size,
        "health": die.health,
        "elements": sorted(str(e) for e in die.elements),
        "faces": [f.text() for f in die.faces],
        "points": die_points(game or {}, die.name),
    }


def catalogue_search(q: str, kind: str | None, limit: int, game: dict | None = None) -> list[dict]:
    cat = _catalogue()
    hits = cat.search(q) if q.strip() else list(cat.dice)
    want = {
        "unit": {"unit"},
        "monster": {"monster"},
        "dragon": {"dragon"},
        "terrain": {"terrain"},
        "item": {"equipment", "artifact", "medallion", "relic"},
    }.get(kind or "", {"unit", "monster", "equipment", "artifact", "medallion", "relic", "dragon"})
    out = []
    for die in hits:
        if die.kind.value not in want:
            continue
        try:
            out.append(die_view(die, game))
        except Exception as exc:  # a die the set-up rules cannot price: leave it out of the builder
            log.debug("catalogue: %s left out: %s", die.name, exc)
        if len(out) >= limit:
            break
    return out


# ---------------------------------------------------------------------------------------------
# readings and corrections


def _pending_roll(store) -> dict:
    pending = store.session.pending() if store.session is not None else None
    if not pending or pending.get("kind") != "roll":
        raise Conflict(
            "no roll is pending now" + (f" (waiting for: {pending['prompt']})" if pending else ""),
            code="no_roll_pending",
        )
    return pending


def _match_face(die: dict, face: str, field: str) -> str:
    """The engine's face matcher (``companion.rules.match_face``), refused as the API's error naming the
    field and the die's faces."""
    from companion.rules import IllegalRoll, match_face

    try:
        return match_face(die, face)
    except IllegalRoll:
        raise APIError(
            f"{die['die']} ({die['uid']}) has no face {face!r}; its faces are: "
            + ", ".join(dict.fromkeys(die["faces"])),
            code="impossible_face",
            field=field,
        ) from None


def _check_roll_die(dice: dict, uid, roll: str) -> None:
    """An ``unknown_die`` ``APIError`` (field ``faces.UID``) when UID is no key of DICE (``{uid: die}`` of
    the pending roll): "UID is not one of ROLL (the roll's uids)"."""
    if uid not in dice:
        raise APIError(
            f"{uid!r} is not one of {roll} ({', '.join(dice)})", code="unknown_die", field=f"faces.{uid}"
        )


def reading_from_faces(
    store,
    faces: dict,
    source: str,
    boxes: dict | None = None,
    frame=None,
    problems: list | None = None,
    readings=None,
) -> dict:
    """A reading of the pending roll from ``{uid: face}``; every uid and face is checked.  ``readings``:
    the source's ``DieReading`` values behind the faces (kept as ``readings``, ``web.staged_roll``)."""
    pending = _pending_roll(store)
    dice = {d["uid"]: d for d in pending["dice"]}
    out: dict[str, str] = {}
    for uid, face in faces.items():
        _check_roll_die(dice, uid, "the dice to roll now")
        if not isinstance(face, (str, int)) or isinstance(face, bool):
            raise APIError(f"the face of {uid} must be a face text such as '2 Melee'", field=f"faces.{uid}")
        if isinstance(face, int):
            if not 1 <= face <= len(dice[uid]["faces"]):
                raise APIError(
                    f"{dice[uid]['die']} has faces 1-{len(dice[uid]['faces'])}, not {face}",
                    code="impossible_face",
                    field=f"faces.{uid}",
                )
            out[uid] = dice[uid]["faces"][face - 1]
        else:
            out[uid] = _match_face(dice[uid], face, f"faces.{uid}")
    reading = {
        "source": source,
        "roll": pending.get("roll"),
        "army": pending.get("army"),
        "faces": out,
        "boxes": boxes or {},
        "frame": frame is not None,
        "corrected": [],
        "problems": problems or [],
        "at": time.time(),
    }
    if readings:
        reading["readings"] = keyed_readings(readings, out)
    if frame is not None:
        store.reading_frame = frame
    return reading


def vision_readings(pending: dict, read: dict, frame_no: int | None = None) -> list:
    """One ``DieReading`` per die of the pending roll from ``companion.vision.roll_reading.read_roll`` (one
    unit reading per die of the roster, in the roster's order), faces as the roll names them."""
    from companion.vision.roll_reading import roll_readings

    dice = pending["dice"]
    return roll_readings(read, [d["uid"] for d in dice], faces=[d["faces"] for d in dice], frame=frame_no)


def vision_faces(pending: dict, read: dict) -> tuple[dict, dict, dict]:
    """Faces, boxes and problems of the pending roll's dice from ``vision_readings``."""
    faces, boxes, problems = {}, {}, {}
    for r in vision_readings(pending, read):
        if r.box is not None:
            boxes[r.die] = list(r.box)
        if r.is_read:
            faces[r.die] = r.face
        else:
            problems[r.die] = "cocked: reroll it" if r.is_cocked else "not read: tap its face"
    return faces, boxes, problems


def read_together(store, pending: dict, read: dict, faces: dict, problems: dict) -> list[dict]:
    """Fill the dice the camera read together: ``assign``'s look-alike groups (a table profile's
    ``read_together``; models/face-embed/CHANGELOG.md, stop 41), dice whose faces are sure but not which
    die shows which.  A group is filled only when the game says every way of giving it its faces gives
    the pending roll the same results (``TableGame.same_results`` on a copy of the game, with the faces
    already read): each die then takes the best way's face and its problem goes.  ``faces`` and
    ``problems`` (``vision_faces``') change in place; returns the groups filled, ``{"dice": [uid, ...],
    "identity": how sure the group's set of dice is, "face_index": {uid: k}}``, listing the dice filled
    (a die of the group the camera read on its own is not): the page shows them as read together."""
    from companion.rules import GameRuleError

    from .game_copies import game_copy

    dice = pending["dice"]
    filled: list[dict] = []
    seen: set[tuple] = set()
    for unit in read["units"]:
        group = unit.get("together")
        if not group or tuple(group["slots"]) in seen:
            continue
        seen.add(tuple(group["slots"]))
        uids = [dice[j]["uid"] for j in group["slots"]]
        ways = [
            {uid: dice[j]["faces"][k] for uid, j, k in zip(uids, group["slots"], option, strict=True)}
            for option in group["options"]
        ]
        # a die of the group the camera read on its own keeps its face in every way, or the group is not
        # one the camera is sure of
        if any(way[uid] != faces[uid] for way in ways for uid in uids if uid in faces):
            continue
        open_ = [uid for uid in uids if uid not in faces]
        if not open_:
            continue
        try:
            same = game_copy(store).same_results([{**faces, **way} for way in ways])
        except GameRuleError as exc:  # the game refused the faces: the dice stay for a tap
            log.info("dice read together left for a tap: %s", exc)
            continue
        if same:
            for uid in open_:
                faces[uid] = ways[0][uid]
                problems.pop(uid, None)
            best = dict(zip(uids, group["options"][0], strict=True))
            filled.append(
                {
                    "dice": open_,
                    "identity": float(group["identity"]),
                    "face_index": {uid: best[uid] for uid in open_},
                }
            )
    return filled


def together_readings(readings: list, faces: dict, filled: list[dict]) -> list:
    """The ``DieReading`` values of a camera roll with the dice ``read_together`` filled read: each the face
    filled, its confidence the group's identity (how sure the group's set of dice is)."""
    from dataclasses import replace

    from companion.readings import State

    groups = {uid: g for g in filled for uid in g["dice"]}
    out = []
    for r in readings:
        g = groups.get(r.die)
        if g is not None:
            r = replace(
                r,
                face=faces[r.die],
                face_index=int(g["face_index"][r.die]),
                state=State.READ,
                problem=None,
                likely=(),
                confidence=float(g["identity"]),
            )
        out.append(r)
    return out


def check_dragon_dice_turn(read: dict, frame, turn_check) -> None:
    """Weigh the dice ``read_roll`` found in ``turn_check`` (``camera_turn.up_reader``); once it names a turn
    other than 0, no face of the frame is kept: every die not cocked is left unreadable (to tap)."""
    from companion.vision.camera_turn import weigh_dragon_dice, withhold_units

    det = read.get("detections")
    if weigh_dragon_dice(turn_check, frame, det.xyxy if det is not None else ()):
        withhold_units(read["units"])


def source_reading(source, frame) -> dict | None:
    """``camera_reading`` of a settled frame of a camera source (``web.sources.CameraSource`` or
    ``web.phone_camera.PhoneCamera``): with its models, its frame count and its turn check."""
    return camera_reading(
        source.store,
        frame,
        source.model,
        frame_no=source.frames,
        standard_model=source.standard_model,
        turn_check=source.turn,
    )


def set_camera_turn(sources, turn: int) -> None:
    """Give the camera and the phone a new turn (``companion.vision.camera_turn``); the pages are told."""
    from companion.vision.camera_turn import SourceTurn

    for camera in (sources.camera, sources.phone):
        camera.turn = SourceTurn(turn)
    sources.camera.turn_changed()
    sources.camera.store.notice("source", sources.camera_status())


def camera_reading(
    store,
    frame,
    model: str = "dragon-dice",
    frame_no: int | None = None,
    standard_model: str = DEFAULT_STANDARD_MODEL,
    turn_check=None,
) -> dict | None:
    """Read a settled camera frame for the pending roll and stage it (None when no roll is pending);
    ``frame_no``: the frame's number at its source, kept in each die's reading (``DieReading.frame``).

    ``model`` reads Dragon Dice (with the table profile, when the table has one); ``standard_model``
    (``serve --standard-model``: a shipped numeral bundle such as ``polyhedral`` or
    ``polyhedral-oblique``, or a bundle enrolled from one) reads a roll of standard dice (Battle Dice,
    d4..d20), an enrolled one with the table's standard-dice profile (what confirmed rolls taught it:
    ``web.table_profile.StandardTableVision``).  The Dragon Dice table profile never reads them.
    ``turn_check`` (the source's ``camera_turn.SourceTurn``, or one ``TurnCheck``) weighs the dice read
    for the frame's turn: standard dice by the numeral reader, Dragon Dice by the ``turn-up`` network."""
    from companion.vision.numerals import SIDES, read_standard_roll
    from companion.vision.roll_reading import read_roll

    with store.lock:
        pending = store.session.pending() if store.session is not None else None
    if not pending or pending.get("kind") != "roll":
        return None
    slots = [d["die"] for d in pending["dice"]]
    if slots and all(s in SIDES for s in slots):  # Battle Dice rolls standard dice (d4..d20)
        from .table_profile import standard_vision  # what the table learnt of its standard dice, if any

        std = standard_vision(store)
        if std is not None and std.model == str(standard_model) and std.profile() is not None:
            standard_model = std.reading_model()  # the enrolled bundle with the table's standard profile
        check = getattr(turn_check, "check", turn_check)  # a source's SourceTurn, or one TurnCheck
        read = read_standard_roll(frame, slots, model=standard_model, turn_check=check)  # d6 only: `d6`
    else:
        from .table_profile import table_vision  # the table's own dice, when it has learnt some

        vision = table_vision(store)
        read = read_roll(frame, slots, model=vision.reading_model() if vision is not None else model)
        check = getattr(turn_check, "up_check", turn_check)
        if check is not None:  # Dragon Dice: the turn-up network weighs the dice found
            check_dragon_dice_turn(read, frame, check)
    faces, boxes, problems = vision_faces(pending, read)
    with store.lock:
        together = read_together(store, pending, read, faces, problems)
        reading = reading_from_faces(
            store,
            faces,
            "camera",
            boxes=boxes,
            frame=frame,
            problems=[f"{u}: {p}" for u, p in problems.items()],
            readings=together_readings(vision_readings(pending, read, frame_no), faces, together),
        )
        if together:  # which of these dice shows which face is open; the roll's results are not
            reading["together"] = together
        reading["cocked"] = [u for u, p in problems.items() if p.startswith("cocked")]  # what a confirm
        reading["unread"] = [u for u, p in problems.items() if not p.startswith("cocked")]  # may learn
        more = check.needed() if check is not None else None  # the check that weighed this roll's dice
        if more:  # the frame seemed turned: its dice are left to tap, and its crops teach nothing
            reading["turned"] = int(more)  # (``table_profile.learn_confirmed_roll``, ``save_roll_record``)
        store.set_reading(reading)
    return reading


def serial_reading(store, reading) -> None:
    """A smart die's finished roll: fill the face of the matching die of the pending roll.

    The die is matched by its registered catalogue name to the first die of that name in the
    pending roll that has no face yet from the bridge.  A cocked die or an unregistered one is
    reported to the pages, never guessed.
    """
    if reading.problem is not None or not reading.is_usable():
        problem = {"die": reading.die_id, "problem": reading.problem or "unusable"}
        if reading.registered is False:
            problem["how"] = (
                "register it with `companion dice pair --port URL --registry FILE`, then serve "
                "with --registry FILE; until then tap its face"
            )
        store.notice("serial_problem", problem)
        return
    with store.lock:
        pending = _pending_roll(store)
        current = store.reading if store.reading and store.reading.get("source") == "serial" else None
        faces = dict(current["faces"]) if current else {}
        kept = [parse_reading(r) for r in (current or {}).get("readings", {}).values()]
        die = reading.die_reading()
        for d in pending["dice"]:
            if d["die"] == die.name and d["uid"] not in faces:
                faces[d["uid"]] = die.face
                kept.append(die.for_die(d["uid"]))
                break
        else:
            store.notice(
                "serial_problem",
                {"die": reading.die_id, "problem": f"{die.name} is not among the dice to roll now"},
            )
            return
        store.set_reading(reading_from_faces(store, faces, "serial", readings=kept))


def submit_reading(store, reading: dict, by: dict | None = None) -> list:
    pending = _pending_roll(store)
    missing = [d["uid"] for d in pending["dice"] if d["uid"] not in reading["faces"]]
    if missing:
        raise APIError(
            f"no face for {', '.join(missing)}: every die of the roll needs a face",
            code="incomplete_roll",
            field="faces",
        )
    return store.submit_readings(confirmed_readings(reading, pending), by, roll_frame_jpeg(store, reading))


ROLL_FRAME_PX = 1280  # the longer side of a roll's frame kept with the game (for a judge)
ROLL_FRAME_QUALITY = 80


def roll_frame_jpeg(store, reading: dict) -> bytes | None:
    """The camera frame a roll was read from, as the JPEG kept with its event (at most
    ``ROLL_FRAME_PX`` on the longer side); None when the faces did not come from the camera."""
    frame = getattr(store, "reading_frame", None)
    if reading.get("source") != "camera" or not reading.get("frame") or frame is None:
        return None
    import cv2

    h, w = frame.shape[:2]
    if max(h, w) > ROLL_FRAME_PX:
        scale = ROLL_FRAME_PX / max(h, w)
        frame = cv2.resize(
            frame, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA
        )
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, ROLL_FRAME_QUALITY])
    return buf.tobytes() if ok else None


def check_taps(store, faces: dict) -> dict[str, str]:
    """The taps sent with a confirm (``{uid: face}``), each checked as ``correct_reading`` checks it, and
    the roll complete with them; raises ``APIError`` naming the first wrong one before anything changes.
    Returns ``{uid: face text}`` of the taps that change the staged reading."""
    pending = _pending_roll(store)
    dice = {d["uid"]: d for d in pending["dice"]}
    staged = store.reading["faces"]
    out = {}
    for uid, face in faces.items():
        _check_roll_die(dice, uid, "the dice of this roll")
        if not isinstance(face, str) or not face:
            raise APIError(f"the face of {uid} must be a face text such as '2 Melee'", field=f"faces.{uid}")
        fixed = _match_face(dice[uid], face, f"faces.{uid}")
        if staged.get(uid) != fixed:
            out[uid] = fixed
    missing = [u for u in dice if u not in staged and u not in out]
    if missing:
        raise APIError(
            f"no face for {', '.join(missing)}: every die of the roll needs a face",
            code="incomplete_roll",
            field="faces",
        )
    return out


def correct_reading(store, uid: str, face: str, reading: dict | None = None) -> dict:
    """Fix one die's face.  ``reading``: the staged reading to correct (default ``store.reading``; never
    changed, a corrected copy is returned).  Nothing is written: the record of a corrected camera roll is
    written once the roll is confirmed (``save_roll_record``), with the faces it was confirmed with.

    A die its source left without a face (not read, not seen) stays listed in the reading's
    ``unread``, so the Roll panel keeps it where it was (ordered by what the source read) and a
    confirm teaches its crop as an unread die's (``web.table_profile.confirmed_sightings``)."""
    pending = _pending_roll(store)
    dice = {d["uid"]: d for d in pending["dice"]}
    if uid not in dice:
        raise APIError(f"{uid!r} is not one of the dice of this roll", code="unknown_die", field="uid")
    fixed = _match_face(dice[uid], face, "face")
    reading = json.loads(json.dumps(store.reading if reading is None else reading))
    before = reading["faces"].get(uid)
    if before is None and uid not in reading.get("unread", []) and uid not in reading.get("cocked", []):
        reading.setdefault("unread", []).append(uid)
    reading["faces"][uid] = fixed
    own = (reading.get("readings") or {}).get(uid)
    if own and own.get("state") == "read" and own.get("face") == fixed:
        if uid in reading["corrected"]:  # tapped back to the face its source read: the source's reading again
            reading["corrected"].remove(uid)
    elif uid not in reading["corrected"]:
        reading["corrected"].append(uid)
    if uid in reading.get("typed_by_script", []):  # a player's tap replaces what a demo script typed
        reading["typed_by_script"].remove(uid)
    return reading


def told_by_taps(store, reading: dict) -> dict:
    """A camera roll of Dragon Dice read again with the faces players tapped telling the roster's
    assignment which die is which (``read_roll(..., given=...)`` with the table profile: two dice of one
    species that could each be either unit are told apart once one is tapped).  A die the camera left
    unread and nobody tapped takes the face it reads now, as the camera's reading; nothing else changes.
    ``reading`` is returned as it is when the roll is not such a roll (standard dice, no frame, a frame
    that seemed turned), the table has no profile or its profile lacks the setting ``tap_tells`` (absent
    from every shipped bundle: measured, not shipped; models/face-embed/CHANGELOG.md, stop 40), or
    nothing more is read; never changed in place."""
    import copy

    from companion.vision.assign import AssignmentError, tapped_sightings
    from companion.vision.numerals import SIDES
    from companion.vision.profile import ProfileError
    from companion.vision.reader import ModelError
    from companion.vision.roll_reading import read_roll

    from .table_profile import table_vision

    frame, vision = getattr(store, "reading_frame", None), table_vision(store)
    tapped = set(reading.get("corrected") or [])
    if reading.get("source") != "camera" or not reading.get("frame") or reading.get("turned"):
        return reading
    if frame is None or vision is None or not tapped:
        return reading
    pending = _pending_roll(store)
    if not pending["dice"] or any(d["die"] in SIDES for d in pending["dice"]):
        return reading
    model = vision.reading_model()
    if getattr(model, "profile", None) is None or not model.profile.settings.get("tap_tells"):
        return reading
    dice = _catalogue_dice(pending)
    given = {}
    for k, d in enumerate(pending["dice"]):
        face = reading["faces"].get(d["uid"])
        if d["uid"] in tapped and face in d["faces"]:
            given[k] = dice[k].faces[d["faces"].index(face)].text()
    try:
        read = read_roll(frame, [d["die"] for d in pending["dice"]], model=model, given=given)
        if model.profile.settings.get("tap_teaches"):  # the taps teach the roll's own reading (a copy)
            emb, labels = tapped_sightings(model.profile, dice, read["detections"], read["units"], given)
            if labels:
                model = copy.copy(model)
                model.profile = copy.deepcopy(model.profile)
                model.profile.add(emb, labels)
                read = read_roll(frame, [d["die"] for d in pending["dice"]], model=model, given=given)
    except (AssignmentError, ModelError, ProfileError, ValueError) as exc:
        log.warning("reading the roll again with its taps failed (the taps stand): %s", exc)
        return reading
    frame_no = next(
        (r.get("frame") for r in (reading.get("readings") or {}).values() if r.get("frame")), None
    )
    out = json.loads(json.dumps(reading))
    for r in vision_readings(pending, read, frame_no):
        if r.die in tapped or reading["faces"].get(r.die) is not None or not r.is_read:
            continue
        out["faces"][r.die] = r.face
        out.setdefault("readings", {})[r.die] = r.to_dict()
        if r.box is not None:
            out.setdefault("boxes", {})[r.die] = list(r.box)
        out["problems"] = [p for p in out.get("problems", []) if not p.startswith(f"{r.die}: ")]
        out.setdefault("read_after_taps", []).append(r.die)
    return out


def _catalogue_dice(pending: dict) -> list:
    from companion.vision.assign import roster_dice

    return roster_dice([d["die"] for d in pending["dice"]], _catalogue())


def posted_over_camera(camera: dict, faces: dict[str, str]) -> dict:
    """The camera's staged reading with ``faces`` (a whole roll posted by ``POST /api/rolls``) put over
    it, as taps would have put them: a die posted with a face other than the one the camera read (or a
    face where the camera read none) is ``corrected``, and one posted as read is the camera's.  The
    camera's reading is not changed: a copy is returned (what ``save_roll_record`` keeps)."""
    out = json.loads(json.dumps(camera))
    own = out.get("readings") or {}
    out["faces"] = dict(faces)
    out["corrected"] = [
        uid
        for uid, face in faces.items()
        if not (own.get(uid) and own[uid].get("state") == "read" and own[uid].get("face") == face)
    ]
    unread = out.setdefault("unread", [])
    for uid in faces:
        if (
            camera.get("faces", {}).get(uid) is None
            and uid not in unread
            and uid not in out.get("cocked", [])
        ):
            unread.append(uid)
    return out


def save_roll_record(store, reading: dict, pending: dict) -> tuple[str | None, str | None]:
    """The correction record of a confirmed camera roll that players corrected (``reading["corrected"]``
    not empty), written once the game has taken the roll, with every face it was confirmed with: one
    record per confirmed roll, none for a roll tapped and never confirmed.  Returns ``(path, None)``, or
    ``(None, why)`` when it could not be written: that never undoes the roll (it is in the log already),
    the confirm's answer says so.  ``(None, None)``: nothing to keep (no correction, or no frame)."""
    if not reading.get("corrected"):
        return None, None
    if reading.get("turned"):  # a record of turned crops would teach them turned
        from .table_profile import TURNED_FRAME

        return None, TURNED_FRAME
    try:
        return save_correction(store, reading, pending), None
    except Exception as exc:  # the roll is confirmed whatever happens here
        log.warning("the correction record of the confirmed roll was not written: %s", exc)
        return None, f"the frame of this roll was not kept for teaching the camera: {exc}"


def _read_pending_dice(pending: dict, reading: dict):
    """Each die of the pending roll that the reading gave both a box and a face, as
    ``(die, box, face_text)``; dice the reading has no box or no face for are left out."""
    for d in pending["dice"]:
        box = reading.get("boxes", {}).get(d["uid"])
        face_text = reading["faces"].get(d["uid"])
        if box is not None and face_text is not None:
            yield d, box, face_text


def save_correction(store, reading: dict, pending: dict) -> str | None:
    """Keep a corrected camera reading as a labelled image for the learning loop.

    The frame and every die of the reading (box, die kind, face icon and count, the corrected one
    included) go to ``companion.vision.learning.save_correction`` in ``CORRECTIONS_DIR`` (default:
    ``corrections/`` beside the game file), where ``companion vision`` fine-tunes from.  Without a
    frame (typed faces) there is nothing to learn from and nothing is saved.  A Battle Dice roll
    (standard dice) is saved as the standard-dice record enrolment reads (``save_standard_correction``).
    ``pending``: the roll the reading is of (a confirmed roll's, once the game took it).
    """
    frame = getattr(store, "reading_frame", None)
    if frame is None or not reading.get("frame"):
        return None
    from companion.vision.die_kinds import FACES_TO_KIND
    from companion.vision.learning import save_correction as save_labelled
    from companion.vision.numerals import SIDES

    folder = Path(current_app.config.get("CORRECTIONS_DIR") or Path(store.db_path).parent / "corrections")
    # one record per confirmed roll, named after the moment it was read: enrolment learns each die of
    # the frame once, with the faces the roll was confirmed with
    at = float(reading.get("at") or time.time())
    name = f"{time.strftime('%Y%m%d-%H%M%S', time.localtime(at))}-{int(at * 1000) % 1000:03d}-roll"
    if pending["dice"] and all(d["die"] in SIDES for d in pending["dice"]):  # Battle Dice: standard dice
        path = save_standard_correction(folder, name, frame, reading, pending)
        log.info("the corrected roll (%s tapped) saved as %s", ", ".join(reading["corrected"]), path)
        return str(path)
    cat = _catalogue()
    cocked = set(reading.get("cocked") or ())
    dice = []
    for d, box, face_text in _read_pending_dice(pending, reading):
        catalogue_die = cat.get(d["die"])
        face = catalogue_die.faces[d["faces"].index(face_text)] if face_text in d["faces"] else None
        dice.append(
            {
                "box": [float(v) for v in box],
                "kind": FACES_TO_KIND.get(len(catalogue_die.faces), "d6"),
                "icon": face.name if face else face_text,
                "count": face.count if face else 0,
                "cocked": d["uid"] in cocked,  # the frame shows it leaning: enrolment learns no face from it
                "die": d["die"],
            }
        )
    path = save_labelled(folder, frame, dice, name=name)
    log.info("the corrected roll (%s tapped) saved as %s", ", ".join(reading["corrected"]), path)
    return str(path)


def save_standard_correction(folder: Path, name: str, frame, reading: dict, pending: dict) -> Path:
    """A corrected camera reading of standard dice (a Battle Dice roll), saved as the record
    ``companion vision enroll --corrections DIR --model polyhedral-oblique --out BUNDLE`` reads: the
    frame (``NAME.jpg``) and ``NAME.json`` = ``{"dice": [{"box": [x1, y1, x2, y2], "kind": "d20",
    "value": 17}, ...]}``, one entry per die of the reading with a box and a face (a die the camera
    called cocked is left out: its frame does not show the value given after the reroll).  Every entry is
    checked as enrolment checks it (``companion.vision.enroll.check_die_record``) before anything is
    written; the bundle it makes is then served with ``serve --standard-model BUNDLE``."""
    from companion.vision.enroll import check_die_record
    from companion.vision.learning import write_record

    h, w = frame.shape[:2]
    dice = []
    cocked = set(reading.get("cocked") or ())
    for d, box, face_text in _read_pending_dice(pending, reading):
        if d["uid"] in cocked:
            continue
        rec = {"box": [float(v) for v in box], "kind": d["die"], "value": int(face_text)}
        check_die_record(rec, f"{d['uid']} ({d['die']})", w, h, None)  # EnrollError naming the die
        dice.append(rec)
    return write_record(folder, name, frame, {"dice": dice})  # each file whole or not at all


# ---------------------------------------------------------------------------------------------
# camera frame, odds, smart dice


def frame_jpeg(store, sources, labels: bool = True) -> bytes | None:
    """The roll's frame with a box and label (face read or corrected, unit matched) per die, drawn
    by ``companion.vision.roll_reading.annotate``; else the camera's latest frame.  ``labels=False``:
    the frame alone (the page draws the boxes and labels itself, at a readable size)."""
    import cv2

    reading = store.reading or {}
    frame = getattr(store, "reading_frame", None) if reading.get("frame") else None
    if frame is not None and not labels:
        pass
    elif frame is not None:
        from companion.vision.roll_reading import annotate

        pending = store.session.pending() if store.session is not None else None
        names = {d["uid"]: d["die"].split("/")[-1] for d in (pending or {}).get("dice", [])}
        items = []
        for uid, box in (reading.get("boxes") or {}).items():
            fixed = (
                " (fixed)"
                if uid in reading.get("corrected", [])
                else " (typed by the demo script)"
                if uid in reading.get("typed_by_script", [])
                else ""
            )
            items.append(
                {
                    "box": box,
                    "reading": f"{names.get(uid, uid)}: {reading['faces'].get(uid, '?')}{fixed}",
                    "cocked": False,
                    "unreadable": uid not in reading["faces"],
                }
            )
        frame = annotate(frame, items)
    else:
        frame = sources.latest_frame()
    if frame is None:
        return None
    ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])
    return buf.tobytes() if ok else None


def odds_view(store, army: str | None, roll_for: str | None, need: int | None) -> dict:
    """Odds of the roll about to be made (the pending roll), or of any army and roll type asked: the
    engine's ``companion.rules.odds_in_game`` (which army, its terrain, spells in force, what is needed)."""
    from companion.rules import OddsError, OddsQueryError, odds_in_game

    if store.session is None:
        return {"message": "no game yet"}
    try:
        return odds_in_game(store.session.game, army, roll_for, need)
    except OddsQueryError as exc:
        raise APIError(str(exc), field=exc.field) from None
    except OddsError as exc:
        raise APIError(str(exc), status=422, code="no_odds") from None


def blink(sources, die_id: str) -> bool:
    feed = getattr(sources.serial, "feed", None)
    if feed is None:
        raise Conflict("no smart-dice bridge is connected", code="no_bridge")
    try:
        feed.blink(die_id)
    except ValueError as exc:
        raise APIError(str(exc), field="die_id") from None
    except RuntimeError as exc:
        raise Conflict(f"the bridge is not connected: {exc}", code="no_bridge") from None
    return True
