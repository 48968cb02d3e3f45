"""The table's games: ``/api/games`` (documented in ``web/API.md``).

Only the host starts, resumes or ends a game.  A paired tablet may *ask* (``POST
/api/games/requests``): the request waits, durably, in the library until the host confirms it (which
then does what was asked) or declines it; both are pushed to every page as notices.

The library keeps every game of the table (``companion.session.library``); switching games never
strands a tablet: tablets are paired with the table, so the tablets of the game left behind are
paired with the game that becomes current (``Access.move_tablets``).  A tablet that was paired with
an older game the host resumes is told to pair again (its token names the other game).
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request

from . import play
from .api import _Answer, _check_expected_seq, _run_engine, changed_by
from .errors import APIError, Conflict, NotFound
from .jsonable import jsonable
from .security import TOKEN_HEADER, access, request_role, require
from .validation import Field, json_body, validate

bp = Blueprint("games", __name__, url_prefix="/api")


GAME_CHOICES, EDITION_CHOICES = play.setup_choices()

# the body of POST /api/games (and of a tablet's request for a new game)
GAME_SPEC = {
    "players": Field(list, items=Field(str, max_len=30, min=1), max_len=6),
    "game": Field(str, required=False, choices=GAME_CHOICES, default="dragon_dice"),
    "edition": Field(str, required=False, choices=EDITION_CHOICES, default="v4"),
    "force_size": Field(int, required=False, min=3, max=120),
    "quick": Field(bool, required=False, default=False),
    # which components a game offers is the engine's (GameKind.components), checked by play.build_setup
    "advanced": Field(list, required=False, max_len=5, items=Field(str, max_len=20)),
    "forces": Field(
        list,
        required=False,
        max_len=6,
        items={
            "player": Field(str, max_len=30),
            "armies": Field(dict),
            "dragons": Field(list, required=False, items=Field(str, max_len=80), max_len=10),
            "home_terrain": Field(str, required=False, max_len=80),
            "frontier_terrain": Field(str, required=False, max_len=80),
        },
    ),
}


@bp.errorhandler(_Answer)
def _answer(exc: _Answer):
    return jsonify(exc.body), exc.status


def store():
    return current_app.extensions["game_store"]


def _setup(body: dict, prefix: str = "") -> dict:
    """The engine's set-up for a checked game body (the set-up rules are checked here too)."""
    if len(body["players"]) < 2:
        raise APIError("a game needs at least 2 players", field=prefix + "players")
    if len({p.strip().lower() for p in body["players"]}) != len(body["players"]):
        raise APIError("player names must differ", field=prefix + "players")
    return _run_engine(play.build_setup, body)


def _known_game(game_id: str) -> None:
    from companion.session.library import LibraryError

    try:
        store().library.path_of(game_id)
    except LibraryError:
        raise NotFound(
            f"no game {game_id[:40]!r} at this table (GET /api/games lists them)", code="no_such_game"
        ) from None


def _switched(old: str | None) -> None:
    """Tablets paired with the game left behind follow the table to the current game."""
    new = store().game_id
    if old and new and old != new:
        access().move_tablets(old, new)


# -- doing (host) -------------------------------------------------------------------------------
def _create(body: dict, by: dict) -> str:
    s = store()
    setup = _setup(body)
    old = s.game_id
    _run_engine(s.create, setup, by)
    _switched(old)
    return s.game_id


def _resume(game_id: str) -> None:
    _known_game(game_id)
    s = store()
    old = s.game_id
    s.resume(game_id)
    _switched(old)


def _end(game_id: str) -> None:
    _known_game(game_id)
    store().end(game_id)


@bp.get("/games")
def games():
    """The library: every game of the table and the requests waiting for the host."""
    s = store()
    return jsonify(
        jsonable(
            {
                "current": s.game_id,
                "status": s.status,
                "games": s.games(),
                "requests": s.library.requests("pending"),
            }
        )
    )


@bp.post("/games")
@require("host")
def create_game():
    """A new game (host only): ``{"players": [..], "edition": "v4", "quick": true}`` or a full
    set-up; ``"advanced": ["items", ...]`` turns on optional components of V4.01c (L2506-2508).
    The previous game stays in the library.  ``expect_seq``: the last event of the game on screen as the
    page showed it (0: none on screen); a page that did not see that game's last event is refused."""
    body = json_body({**GAME_SPEC, "expect_seq": Field(int, required=False, min=0)})
    with store().lock:
        _check_expected_seq(body.pop("expect_seq"))
        gid = _create(body, changed_by())
    return jsonify({"game_id": gid, "seq": store().last_seq}), 201


@bp.post("/games/<game_id>/resume")
@require("host")
def resume_game(game_id: str):
    json_body({})
    _resume(game_id)
    return jsonify({"game_id": game_id, "seq": store().last_seq, "status": store().status})


@bp.post("/games/<game_id>/end")
@require("host")
def end_game(game_id: str):
    json_body({})
    _end(game_id)
    return jsonify({"game_id": game_id, "ended": True})


# -- asking (tablets) ----------------------------------------------------------------------------
@bp.get("/games/requests")
def game_requests():
    """Requests of tablets: ``?status=pending`` (default) or ``all``."""
    status = request.args.get("status", "pending")
    if status not in ("pending", "all"):
        raise APIError("status must be pending or all", field="status")
    return jsonify({"requests": store().library.requests(None if status == "all" else "pending")})


@bp.post("/games/requests")
@require("tablet")
def ask():
    """A tablet asks the host: ``{"kind": "new", "game": {...as POST /api/games}}``,
    ``{"kind": "resume", "game_id": ID}`` or ``{"kind": "end", "game_id": ID}``."""
    from companion.session.library import LibraryError

    body = json_body(
        {
            "kind": Field(str, choices=("new", "resume", "end")),
            "game": Field(dict, required=False, max_len=10),
            "game_id": Field(str, required=False, max_len=64, min=1),
        }
    )
    kind = body["kind"]
    if kind == "new":
        if body["game"] is None:
            raise APIError(
                "a request for a new game needs 'game' (the body of POST /api/games)", field="game"
            )
        game = validate(body["game"], GAME_SPEC, prefix="game.")
        _setup(game, prefix="game.")  # an illegal set-up is refused now, not when the host confirms
        saved = {k: v for k, v in body["game"].items()}
        target = None
    else:
        if body["game_id"] is None:
            raise APIError(f"a request to {kind} a game needs 'game_id'", field="game_id")
        _known_game(body["game_id"])
        saved, target = {}, body["game_id"]
    who = (
        "host"
        if request_role() == "host"
        else (access().tablet_name(request.headers.get(TOKEN_HEADER)) or "tablet")
    )
    try:
        req = store().library.ask(kind, saved, target, who)
    except LibraryError as exc:
        raise Conflict(str(exc), code="too_many_requests") from None
    store().notice("game_request", {"request": req})
    return jsonify({"request": req}), 201


def _pending(rid: int) -> dict:
    from companion.session.library import LibraryError

    try:
        if rid > 2**62:  # past any SQLite INTEGER id: no such request
            raise LibraryError(rid)
        req = store().library.request(rid)
    except LibraryError:
        raise NotFound(f"no request {rid}", code="no_such_request") from None
    if req["status"] != "pending":
        raise Conflict(f"request {rid} was already {req['status']}", code="request_decided")
    return req


@bp.post("/games/requests/<int:rid>/confirm")
@require("host")
def confirm(rid: int):
    """The host confirms a tablet's request: it is done as if the host had asked for it."""
    json_body({})
    s = store()
    with s.lock:
        req = _pending(rid)
        if req["kind"] == "new":
            by = {"role": "host"}  # the host confirmed; the tablet that asked, by its name
            if req.get("asked_by") and req["asked_by"] != "host":
                by["asked_by"] = str(req["asked_by"])[:80]
            gid = _create(validate(req["body"], GAME_SPEC, prefix="game."), by)
        elif req["kind"] == "resume":
            _resume(req["game_id"])
            gid = req["game_id"]
        else:
            _end(req["game_id"])
            gid = req["game_id"]
        req = s.library.decide(rid, "confirmed", gid)
    s.notice("game_request_decided", {"request": req})
    return jsonify({"request": req, "game_id": s.game_id})


@bp.post("/games/requests/<int:rid>/decline")
@require("host")
def decline(rid: int):
    json_body({})
    s = store()
    with s.lock:
        _pending(rid)
        req = s.library.decide(rid, "declined")
    s.notice("game_request_decided", {"request": req})
    return jsonify({"request": req})
