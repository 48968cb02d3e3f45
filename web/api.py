"""The JSON API under ``/api`` (documented in ``web/API.md``).

Reading is open to every page on the network (a read-only view); every change needs the host
token or a paired tablet's token in the ``X-Companion-Token`` header (see ``web.security``).
Each body is validated before anything is touched; rule errors from the game engine come back as
``422 {"error": "illegal_action", "message": ..., "rule": ...}`` and leave the game unchanged.
"""

from __future__ import annotations

import time

from flask import Blueprint, Response, current_app, jsonify, request

from . import play, table_profile
from .errors import APIError, Conflict, NotFound, clip_message
from .jsonable import jsonable
from .qr import qr_svg
from .security import TOKEN_HEADER, access, request_role, require
from .validation import Field, json_body

bp = Blueprint("api", __name__, url_prefix="/api")


def store():
    return current_app.extensions["game_store"]


def sources():
    return current_app.extensions["sources"]


def changed_by(source: str | None = None) -> dict:
    """Who makes this request's change, as its event records it: the host, or a paired tablet by its
    name; ``source`` says where a roll's faces came from (typed, camera, serial: a smart die, demo)."""
    if request_role() == "host":
        by = {"role": "host"}
    else:
        name = access().tablet_name(request.headers.get(TOKEN_HEADER))
        by = {"role": "tablet", "name": name[:80]} if name else {"role": "tablet"}
    if source is not None:
        by["source"] = source
    return by


def _run_engine(fn, *args):
    """Call into the game engine, turning its typed errors into 422 answers."""
    from companion.rules import GameRuleError

    try:
        return fn(*args)
    except APIError:
        raise
    except GameRuleError as exc:
        body = {
            "error": "illegal_action",
            "message": clip_message(getattr(exc, "reason", str(exc))),
            "kind": type(exc).__name__,
        }
        if getattr(exc, "rule", None):
            body["rule"] = exc.rule
        raise _Answer(body, 422) from None


class _Answer(Exception):
    def __init__(self, body: dict, status: int):
        super().__init__(body.get("message"))
        self.body, self.status = body, status


@bp.errorhandler(_Answer)
def _answer(exc: _Answer):
    return jsonify(exc.body), exc.status


def _check_expected_seq(expect) -> None:
    """Two tablets tapping at once: the second tap, made on an older view, is refused; so is a view of
    events the log does not hold (ahead of its last event: another game, or a number made up)."""
    if expect is not None and int(expect) > store().last_seq:
        raise Conflict(
            f"expect_seq {expect} is ahead of the game's log (its last event is {store().last_seq}); "
            "look again and retry",
            code="stale",
            field="expect_seq",
        )
    if expect is not None and int(expect) != store().last_seq:
        raise Conflict(
            f"the game has moved on (now at event {store().last_seq}, the page showed "
            f"{expect}); look again and retry",
            code="stale",
        )


# ---------------------------------------------------------------------------------------------
# reading


@bp.get("/health")
def health():
    streams = current_app.extensions.get("streams")  # open live streams (web.events)
    return jsonify(
        {
            "ok": True,
            "game_id": store().game_id,
            "time": time.time(),
            "streams": streams.total if streams else 0,
        }
    )


@bp.get("/state")
def state():
    """The current game as JSON: state, pending decision, staged roll, sources, your role."""
    s = store()
    role = request_role()
    with s.lock:
        body = play.state_view(s)
    body["role"] = role
    body["sources"] = sources().status()
    body["game_status"] = s.status  # in_progress, over, ended (by the host; see web.games) or None
    if "league_outbox" in current_app.extensions:  # a table of a league (web/league/table.py)
        from .league.table import league_status

        body["league"] = league_status(current_app)
    body.update(_access_view(s))
    return jsonify(jsonable(body))


def _access_view(s) -> dict:
    """What the page needs to notice a restart or a token gone stale (see web.security.ADVICE):
    ``boot_id`` changes with every server start, ``pairing_rev`` with every new pairing code."""
    from .security import ADVICE

    status = access().token_status(request.headers.get(TOKEN_HEADER), s.game_id)
    out = {
        "boot_id": current_app.config["BOOT_ID"],
        "token_status": status,
        "pairing_rev": access().pairing_rev,
    }
    if status in ADVICE:
        out["token_advice"] = ADVICE[status]
    return out


MAX_SEQ = 2**62  # the largest sequence number a game log (SQLite INTEGER) can hold, with room


@bp.get("/log")
def event_log():
    """The event log since ``?since=SEQ`` (for pages and tools that do not use the stream)."""
    try:
        since = int(request.args.get("since", "0"))
    except ValueError:
        raise APIError("since must be an integer", field="since") from None
    if not 0 <= since <= MAX_SEQ:
        raise APIError(f"since must be 0 to {MAX_SEQ}", field="since")
    return jsonify({"game_id": store().game_id, "events": jsonable(store().events_since(since))})


@bp.get("/catalogue")
def catalogue_search():
    """Dice for force building: ``?q=TEXT&kind=unit|monster|item|dragon|terrain``."""
    q = request.args.get("q", "")
    kind = request.args.get("kind") or None
    if len(q) > 80:
        raise APIError("q is too long (at most 80 characters)", field="q")
    if kind not in (None, "unit", "monster", "item", "dragon", "terrain"):
        raise APIError("kind must be one of unit, monster, item, dragon, terrain", field="kind")
    try:
        limit = int(request.args.get("limit", "60"))
    except ValueError:
        limit = 0
    if not 1 <= limit <= 300:
        raise APIError("limit must be a whole number from 1 to 300", field="limit")
    games, editions = play.setup_choices()  # the engine's registry
    game = {k: request.args[k] for k in ("game", "edition") if request.args.get(k)}
    for key, allowed in (("game", games), ("edition", editions)):
        if key in game and game[key] not in allowed:
            raise APIError(f"{key} must be one of {', '.join(allowed)}", field=key)
    return jsonify({"dice": play.catalogue_search(q, kind, limit, game)})


@bp.get("/forces/rules")
def forces_rules():
    """The games the New game page offers, from the engine's registry: ``{"games": [{"key", "title",
    "document", "forces" (built die by die), "components" (optional components a set-up may name)}]}``."""
    return jsonify({"games": play.game_kinds()})


@bp.post("/forces/check")
def forces_check():
    """The New game page's forces checked by the game's rules, changing nothing:
    ``{"edition": "r96", "force_size": 24, "forces": [{"player", "armies": {"home": [die names], ...},
    "dragons": [die names]}]}``."""
    body = json_body(
        {
            "game": Field(str, required=False, max_len=20),
            "edition": Field(str, required=False, max_len=20),
            "force_size": Field(int, min=1, max=1000),
            "forces": Field(list, max_len=8),
        }
    )
    return jsonify(_run_engine(play.force_check, body))


MAX_NEED = 1000  # results a roll can need: far above what any army can roll


@bp.get("/odds")
def odds():
    """Exact distribution of the roll about to be made (``?army=ID&for=melee&need=5``)."""
    army = request.args.get("army") or None
    roll_for = request.args.get("for") or None
    need = request.args.get("need")
    try:
        need_n = None if need in (None, "") else int(need)
    except ValueError:
        need_n = -1
    if need_n is not None and not 0 <= need_n <= MAX_NEED:
        raise APIError(
            f"need must be a whole number of results from 0 to {MAX_NEED}, not {need!r}", field="need"
        )
    s = store()
    with s.lock:
        body = _run_engine(play.odds_view, s, army, roll_for, need_n)
    return jsonify(jsonable(body))


@bp.get("/rules/search")
def rules_search():
    """Full-text search of the indexed rule documents: ``?q=TEXT&doc=V4.01c&limit=10``."""
    from companion.rulesearch import RuleIndexError

    q = request.args.get("q", "")
    if not q.strip():
        raise APIError("q is required (the words to look for)", field="q")
    if len(q) > 200:
        raise APIError("q is too long (at most 200 characters)", field="q")
    try:
        limit = int(request.args.get("limit", "10"))
    except ValueError:
        limit = 0
    if not 1 <= limit <= 50:  # was clamped: limit=-5 gave 1 passage, limit=500 gave 50
        raise APIError("limit must be a whole number from 1 to 50", field="limit")
    path = current_app.config["RULES_INDEX"]
    from pathlib import Path

    if not Path(path).exists():
        return jsonify(
            {
                "documents": [],
                "hits": [],
                "message": "no rule documents indexed: run `companion rules index FILE...`",
            }
        )
    idx = _open_rule_index(path)
    if idx is None:
        return jsonify({"documents": [], "hits": [], "message": UNREADABLE_INDEX})
    with idx:
        try:
            label = idx.document_label(request.args.get("doc"))
        except RuleIndexError as exc:
            raise APIError(str(exc), field="doc") from None
        try:  # the current game's own rule documents first (a V4.01c game: V4.01c before 1996)
            hits = idx.search(q, limit=limit, label=label, prefer=_search_order())
        except RuleIndexError as exc:
            raise APIError(str(exc), field="q") from None
        docs = idx.documents(paths=False)  # no server paths to viewers
    return jsonify({"documents": docs, "hits": [h.to_dict() for h in hits]})


UNREADABLE_INDEX = "the rule index cannot be read: make it again with `companion rules index FILE...`"


def _open_rule_index(path):
    """The rule index at path opened read-only, or None where it is not one (its reason in the log)."""
    from companion.rulesearch import RuleIndex, RuleIndexError

    try:
        return RuleIndex(path, create=False)
    except RuleIndexError as exc:
        from .errors import log

        log.warning("rules index: %s", exc)
        return None


def _search_order() -> tuple[str, ...]:
    from .editions import search_order

    s = store()
    with s.lock:
        state = s.session.state_dict() if s.session is not None else None
    return search_order(state)


@bp.get("/rules/cite")
def rules_cite():
    """The indexed passages a citation points at: ``?ref=V4.01c L1011-1030``."""
    from pathlib import Path

    from companion.rulesearch import RuleIndexError

    ref = request.args.get("ref", "")
    if not ref.strip():
        raise APIError("ref is required (a citation such as 'V4.01c L1011-1030')", field="ref")
    if len(ref) > 200:
        raise APIError("ref is too long (at most 200 characters)", field="ref")
    path = current_app.config["RULES_INDEX"]
    if not Path(path).exists():
        return jsonify(
            {
                "ref": ref,
                "hits": [],
                "message": "no rule documents indexed: run `companion rules index FILE...`",
            }
        )
    idx = _open_rule_index(path)
    if idx is None:
        return jsonify({"ref": ref, "hits": [], "message": UNREADABLE_INDEX})
    with idx:
        try:
            hits = idx.cited(ref)
        except RuleIndexError as exc:
            raise APIError(str(exc), field="ref") from None
    return jsonify({"ref": ref, "hits": [h.to_dict() for h in hits]})


@bp.get("/frame.jpg")
def frame():
    """The latest camera frame with a box and label on each die read (404 without a camera)."""
    jpg = play.frame_jpeg(store(), sources(), labels=request.args.get("labels") != "0")
    if jpg is None:
        raise NotFound("no camera frame (no camera, or it is not connected)", code="no_frame")
    return Response(jpg, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@bp.get("/export")
def export():
    s = store()
    s._need_game()
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / f"game-{s.game_id}.json"
        with s.lock:
            s.session.export(out)
        data = out.read_bytes()
    return Response(
        data,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="game-{s.game_id}.json"'},
    )


# ---------------------------------------------------------------------------------------------
# pairing


@bp.post("/pair")
def pair():
    body = json_body(
        {
            "code": Field(str, max_len=32, min=1),
            "name": Field(str, required=False, max_len=40, default="tablet"),
        }
    )
    s = store()
    if s.game_id is None:
        raise Conflict("no game yet to pair with", code="no_game")
    token = access().pair(
        s.game_id, body["code"], body["name"] or "tablet", client=request.remote_addr or "?"
    )
    s.notice("paired", {"name": body["name"] or "tablet"})
    return jsonify({"token": token, "game_id": s.game_id, "role": "tablet"})


@bp.get("/pairing")
@require("host")
def pairing():
    s = store()
    s._need_game()
    code = access().pairing_code(s.game_id)
    return jsonify(
        {
            "game_id": s.game_id,
            "code": code,
            "rev": access().pairing_rev,
            **_pair_qr(code),
            "tablets": access().tablets(s.game_id),
        }
    )


@bp.post("/pairing/rotate")
@require("host")
def pairing_rotate():
    json_body({})
    s = store()
    s._need_game()
    code = access().rotate_pairing_code(s.game_id)
    revoked = access().revoke_all(s.game_id)
    s.notice("pairing", {"rev": access().pairing_rev})  # host pages fetch the new code (never sent here)
    return jsonify({"code": code, "rev": access().pairing_rev, **_pair_qr(code), "revoked": revoked})


def _pair_qr(code: str) -> dict:
    """The pairing URL and its QR code, or (no QR code) what to do where no tablet can reach it."""
    from .server import tablet_reach

    base = current_app.config.get("PUBLIC_URL") or request.host_url.rstrip("/")
    url = f"{base}/#pair={code}"
    problem = tablet_reach(base, current_app.config.get("LISTEN_HOST"))
    if problem:
        return {"url": None, "svg": None, "reachable": False, "message": problem}
    from .certs import pairing_trust  # --https: where a device trusts the table's certificate first

    return {"url": url, "svg": qr_svg(url), "reachable": True, "trust": pairing_trust()}


# ---------------------------------------------------------------------------------------------
# changing the game


# Starting, resuming and ending games (host only; tablets ask): web.games.


@bp.post("/decisions")
@require("tablet")
def decide():
    """Answer the pending decision: ``{"action": {...}, "expect_seq": N}``."""
    body = json_body({"action": Field(dict, max_len=40), "expect_seq": Field(int, required=False, min=0)})
    s = store()
    with s.lock:
        _check_expected_seq(body["expect_seq"])
        s._need_game()
        events = _run_engine(s.submit, body["action"], changed_by())
    return jsonify({"events": jsonable(events), "seq": s.last_seq})


@bp.post("/rolls")
@require("tablet")
def roll():
    """Faces for the pending roll: ``{"faces": {"UNIT_ID": "2 Melee", ...}, "confirm": true}``.

    ``confirm: false`` only stages the reading (players can still correct a die on the page);
    ``confirm: true`` (default) submits the roll to the game.
    """
    body = json_body(
        {
            "faces": Field(dict, max_len=200),
            "confirm": Field(bool, required=False, default=True),
            "source": Field(
                str, required=False, choices=("typed", "camera", "serial", "demo"), default="typed"
            ),
            "expect_seq": Field(int, required=False, min=0),
        }
    )
    s = store()
    with s.lock:
        _check_expected_seq(body["expect_seq"])
        s._need_game()
        reading = _run_engine(play.reading_from_faces, s, body["faces"], body["source"])
        if not body["confirm"]:
            s.set_reading(reading)
            return jsonify({"reading": jsonable(reading), "seq": s.last_seq})
        staged = table_profile.staged_camera_roll(s)  # the camera's frame and boxes, if it read this roll
        pending = s.session.pending()
        events = _run_engine(play.submit_reading, s, reading, changed_by(reading["source"]))
        # faces posted unlike the camera's over its staged roll are corrections of it: kept as a confirm's are
        record, record_error = (None, None)
        if staged is not None:
            posted = play.posted_over_camera(staged["reading"], reading["faces"])
            record, record_error = play.save_roll_record(s, posted, pending)
    learnt = table_profile.learn_confirmed_roll(s, staged, reading["faces"])  # "as you play"
    out = {"events": jsonable(events), "seq": s.last_seq, "learnt": learnt, "record": record}
    if record_error:
        out["record_error"] = record_error
    return jsonify(out)


@bp.post("/rolls/preview")
@require("tablet")
def roll_preview():
    """The total the engine would give these faces of the pending roll, changing nothing:
    ``{"faces": {"UNIT_ID": "2 Melee", ...}}`` (some dice may have no face yet)."""
    from .roll_entry import roll_preview as preview

    body = json_body({"faces": Field(dict, max_len=200)})
    s = store()
    with s.lock:
        s._need_game()
        out = _run_engine(preview, s, body["faces"])
    return jsonify(jsonable(out))


@bp.post("/rolls/confirm")
@require("tablet")
def roll_confirm():
    """Submit the staged reading (after any corrections): ``{"faces": {"UNIT_ID": "2 Melee"}, "rev": R,
    "expect_seq": N}``.

    ``faces`` (optional): taps on the Roll panel not sent yet, each applied as a correction of the staged
    reading (``POST /api/corrections``) before the roll is submitted, so the dice the source read keep
    their origin and a tapped die is the player's.  Every tap is checked first: one that names a die
    not in the roll or a face the die lacks is refused by name, and nothing changes.  ``rev``
    (optional): the staged reading's ``rev`` the tablet confirms; refused (409 ``stale_reading``) when
    another tablet or the camera changed the reading since.  A camera roll players corrected is kept
    for teaching the camera once the game took it (``record``: where; ``record_error``: why not)."""
    body = json_body(
        {
            "faces": Field(dict, required=False, max_len=200, default={}),
            "rev": Field(int, required=False, min=0),
            "expect_seq": Field(int, required=False, min=0),
        }
    )
    s = store()
    with s.lock:
        _check_expected_seq(body["expect_seq"])
        _check_reading_rev(s, body["rev"], "confirming it")
        taps = _run_engine(play.check_taps, s, body["faces"] or {})
        # the taps are applied to a copy and recorded only once the game has taken the roll: a confirm
        # refused after its taps were checked (the host ended the game, a rule) changes nothing
        reading = s.reading
        for uid, face in taps.items():
            reading = _run_engine(play.correct_reading, s, uid, face, reading)
        staged = table_profile.staged_camera_roll(s, reading)
        pending = s.session.pending()
        events = _run_engine(play.submit_reading, s, reading, changed_by(reading.get("source")))
        record, record_error = play.save_roll_record(s, reading, pending)
    learnt = table_profile.learn_confirmed_roll(s, staged, staged["reading"]["faces"] if staged else {})
    out = {"events": jsonable(events), "seq": s.last_seq, "learnt": learnt, "record": record}
    if record_error:
        out["record_error"] = record_error
    return jsonify(out)


def _check_reading_rev(s, rev: int | None, doing: str) -> None:
    """Refuse a tap or a confirm on a staged reading that is gone or has changed since the tablet saw it
    (``rev``: the reading's ``rev`` on that tablet; ``None``: not checked)."""
    if not s.reading:
        raise Conflict(
            "no roll is waiting: corrections and confirms apply to the roll on screen", code="no_reading"
        )
    if rev is not None and rev != s.reading.get("rev"):
        raise Conflict(
            f"the roll on screen changed since this tablet saw it (another tablet's tap, or the camera read "
            f"it again): look at it again before {doing}",
            code="stale_reading",
        )


@bp.post("/corrections")
@require("tablet")
def correct():
    """Fix one die of the staged reading: ``{"uid": "p1-3", "face": "2 Melee", "rev": R}``.

    The corrected face replaces the reading (a new ``rev``); ``rev`` (optional) is the reading the
    tablet tapped, refused (409 ``stale_reading``) when it changed since.  Nothing is written to disk
    here: a corrected camera roll is kept for the learning loop when it is confirmed.
    """
    body = json_body(
        {
            "uid": Field(str, max_len=60, min=1),
            "face": Field(str, max_len=40, min=1),
            "rev": Field(int, required=False, min=0),
        }
    )
    s = store()
    with s.lock:
        _check_reading_rev(s, body["rev"], "tapping a die")
        reading = _run_engine(play.correct_reading, s, body["uid"], body["face"])
        reading = play.told_by_taps(s, reading)  # the tap may tell the camera which die is which
        s.set_reading(reading)
        reading = s.reading
    return jsonify({"reading": jsonable(reading)})


@bp.post("/undo")
@require("tablet")
def undo():
    body = json_body(
        {
            "n": Field(int, required=False, min=1, max=50, default=1),
            "expect_seq": Field(int, required=False, min=0),
        }
    )
    s = store()
    with s.lock:
        _check_expected_seq(body["expect_seq"])
        s._need_game()
        _run_engine(s.undo, body["n"] or 1, changed_by())
    return jsonify({"seq": s.last_seq})


@bp.post("/camera/turn")
@require("host")
def camera_turn():
    """Turn the camera's and the phone's frames before reading: ``{"turn": 90}`` (degrees clockwise: 0, 90,
    180 or 270; ``serve --turn`` at run time).  The turn check starts again from no dice."""
    body = json_body({"turn": Field(int, choices=(0, 90, 180, 270))})
    src = sources()
    play.set_camera_turn(src, body["turn"])
    return jsonify(src.camera_status())


@bp.post("/sources/blink")
@require("tablet")
def blink():
    """Make a smart die blink so players can find it: ``{"die_id": "..."}``."""
    body = json_body({"die_id": Field(str, max_len=40, min=1)})
    ok = play.blink(sources(), body["die_id"])
    return jsonify({"sent": ok})
