"""The league server (``companion league serve``): tables push their events, the organizer runs the
event, judges read any game.  A Flask app on one PostgreSQL database (a psycopg connection pool).

Who may do what (``X-League-Token`` header, or ``?token=`` on a page link):

* table token: ``POST /league/api/push`` and ``PUT /league/api/frames/GAME/SEQ`` (a roll's camera
  frame, JPEG) for its own table's games only (:mod:`companion.league.push`);
* organizer token: everything below, and changes (players, rounds, clock, tie-breaks, tokens);
* judge token: read-only views (tables, any game's events with their explanations, the undo trail).

Pages: ``/league/`` (organizer), ``/league/judge`` and ``/league/judge/GAME`` (judge).  JSON:
``/league/api/overview``, ``/league/api/games/GAME`` (``/frames/SEQ``: a roll's JPEG), ``/league/export.json``, ``/league/export.csv``.
Every refusal is ``{"error": code, "message": ...}`` with a 4xx status, and changes nothing.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)

from companion.league import organizer as org
from companion.league.push import (
    PushRefused,
    accept_frame,
    accept_push,
    game_log,
    issue_token,
    list_tokens,
    require,
    revoke_tokens,
)
from companion.session.pg_store import GAME_ID, connect

log = logging.getLogger("companion.league")
bp = Blueprint("league", __name__, url_prefix="/league", template_folder="templates", static_folder="static")


def create_league_app(dsn: str, *, pool_size: int = 8) -> Flask:
    """The league app on ``dsn`` (the schema is migrated before the first request)."""
    from psycopg_pool import ConnectionPool

    connect(dsn).close()  # migrate, and fail early with a clear message
    app = Flask(__name__)
    app.config.update(MAX_CONTENT_LENGTH=4 * 1024 * 1024, LEAGUE_DSN=dsn)
    pool = ConnectionPool(
        dsn, min_size=1, max_size=pool_size, kwargs={"autocommit": True}, open=True, timeout=10
    )
    app.extensions["league_pool"] = pool
    app.register_blueprint(bp)

    @app.errorhandler(PushRefused)
    def _refused(exc: PushRefused):
        return jsonify(exc.to_dict()), exc.status

    @app.errorhandler(404)
    def _nf(_exc):
        return jsonify({"error": "not_found", "message": f"no such page: {request.path}"}), 404

    @app.errorhandler(405)
    def _405(_exc):
        return jsonify(
            {"error": "method", "message": f"{request.method} is not allowed on {request.path}"}
        ), 405

    @app.errorhandler(413)
    def _413(_exc):
        return jsonify({"error": "malformed", "message": "the request body is too large"}), 413

    @app.after_request
    def _headers(resp):
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'",
        )
        return resp

    return app


class _Conn:
    """``with db() as conn``: a pooled autocommit connection for one request."""

    def __enter__(self):
        self._cm = current_app.extensions["league_pool"].connection()
        return self._cm.__enter__()

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def db() -> _Conn:
    return _Conn()


def _token() -> str | None:
    return request.headers.get("X-League-Token") or request.args.get("token") or request.form.get("token")


def _json() -> Any:
    body = request.get_json(silent=True)
    if body is None:
        raise PushRefused("malformed", "the body must be JSON (Content-Type: application/json)")
    return body


# -- tables ----------------------------------------------------------------------------------------------
@bp.post("/api/push")
def push():
    body = _json()
    with db() as conn:
        return jsonify(accept_push(conn, _token(), body))


@bp.put("/api/frames/<game_id>/<int:seq>")
def push_frame(game_id: str, seq: int):
    """A table's camera frame (image/jpeg body) for roll event ``seq`` of its own game."""
    if request.mimetype != "image/jpeg":
        raise PushRefused("malformed", "send the frame as image/jpeg")
    with db() as conn:
        return jsonify(accept_frame(conn, _token(), game_id, seq, request.get_data()))


# -- reading (organizer or judge) ------------------------------------------------------------------------
@bp.get("/api/overview")
def overview():
    with db() as conn:
        role, _ = require(conn, _token(), "organizer", "judge")
        return jsonify(
            {
                "role": role,
                "rounds": org.rounds(conn),
                "tables": org.tables(conn),
                "standings": org.current_standings(conn),
                "tie_breaks": org.tie_breaks(conn),
            }
        )


def _game(conn, game_id: str) -> dict:
    if not GAME_ID.match(game_id):
        raise PushRefused("malformed", "a game id is 1-64 letters, digits, '-' or '_'")
    row = conn.execute(
        "SELECT table_no, last_seq, created_at FROM games WHERE game_id = %s", (game_id,)
    ).fetchone()
    if row is None:
        raise PushRefused("not_found", f"no game {game_id}")
    events = game_log(conn, game_id)
    framed = {r[0] for r in conn.execute("SELECT seq FROM event_frames WHERE game_id = %s", (game_id,))}
    for e in events:
        e["who"] = who(e.get("by"))
        e["frame"] = e["seq"] in framed
    return {
        "game_id": game_id,
        "table": row[0],
        "last_seq": row[1],
        "created_at": row[2].isoformat(),
        "events": events,
        "undo_trail": undo_trail(events),
    }


def who(by: dict | None) -> str:
    """Who made a change, in words: "tablet 'kitchen tablet' (camera)", "host", "not recorded"."""
    if not by:
        return "not recorded"
    words = by["role"] + (f" '{by['name']}'" if by.get("name") else "")
    words += f" (asked by tablet '{by['asked_by']}')" if by.get("asked_by") else ""
    return words + (f" ({by['source']})" if by.get("source") else "")


def undo_trail(events: list[dict]) -> list[dict]:
    """Each undo: when, who made it, which events it took back (their type, player and first log line)."""
    by_seq = {e["seq"]: e for e in events}
    trail = []
    for e in events:
        if e["type"] != "undo":
            continue
        taken = [
            {
                "seq": s,
                "type": by_seq[s]["type"],
                "player": by_seq[s]["player"],
                "what": (by_seq[s]["log"] or [""])[0],
            }
            for s in e["action"].get("undid", [])
            if s in by_seq
        ]
        trail.append(
            {
                "seq": e["seq"],
                "at": e["at"],
                "player": e["player"],
                "by": e.get("by"),
                "who": who(e.get("by")),
                "undid": taken,
            }
        )
    return trail


@bp.get("/api/games/<game_id>")
def game_events(game_id: str):
    with db() as conn:
        require(conn, _token(), "organizer", "judge")
        return jsonify(_game(conn, game_id))


@bp.get("/api/games/<game_id>/frames/<int:seq>")
def game_frame(game_id: str, seq: int):
    """The camera frame roll ``seq`` was read from (JPEG), for the organizer and judges."""
    with db() as conn:
        require(conn, _token(), "organizer", "judge")
        row = conn.execute(
            "SELECT jpeg FROM event_frames WHERE game_id = %s AND seq = %s", (game_id, seq)
        ).fetchone()
    if row is None:
        raise PushRefused("not_found", f"no camera frame for event {seq} of game {game_id}")
    return Response(bytes(row[0]), mimetype="image/jpeg", headers={"Cache-Control": "private, max-age=3600"})


# -- organizer changes -------------------------------------------------------------------------------------
def _organizer(conn) -> None:
    require(conn, _token(), "organizer")


def _body() -> dict:
    if request.is_json:
        body = _json()
        if not isinstance(body, dict):
            raise PushRefused("malformed", "the body must be a JSON object")
        return body
    return request.form.to_dict()


def _done(payload: dict, status: int = 200):
    """JSON for API calls; a form post goes back to the organizer's page."""
    if request.is_json:
        return jsonify(payload), status
    return redirect(url_for("league.organizer_page", token=_token()), 303)


@bp.post("/api/players")
def add_player():
    body = _body()
    with db() as conn:
        _organizer(conn)
        return _done(org.add_player(conn, body.get("name"), body.get("force", "")), 201)


@bp.post("/api/players/<int:player_id>/drop")
def drop_player(player_id: int):
    with db() as conn:
        _organizer(conn)
        org.drop_player(conn, player_id)
        return _done({"dropped": player_id})


@bp.post("/api/rounds")
def new_round():
    body = _body()
    with db() as conn:
        _organizer(conn)
        return _done(org.new_round(conn, body.get("method"), body.get("minutes", 90)), 201)


@bp.post("/api/rounds/<int:round_no>/start")
def start_round(round_no: int):
    with db() as conn:
        _organizer(conn)
        org.start_clock(conn, round_no)
        return _done({"started": round_no})


@bp.post("/api/tie-breaks")
def tie_breaks():
    body = _body()
    value = body.get("tie_breaks")
    if isinstance(value, str):  # the page's form: comma-separated names
        value = [v.strip() for v in value.split(",") if v.strip()]
    with db() as conn:
        _organizer(conn)
        return _done({"tie_breaks": org.set_tie_breaks(conn, value)})


@bp.post("/api/tokens")
def new_token():
    body = _body()
    with db() as conn:
        _organizer(conn)
        token = issue_token(
            conn, body.get("role"), body.get("table") or None, str(body.get("label", ""))[:80]
        )
        if request.is_json:
            return jsonify({"token": token, "role": body.get("role"), "table": body.get("table")}), 201
        return render_template(
            "league_token.html",
            token=token,
            role=body.get("role"),
            table=body.get("table"),
            back=url_for("league.organizer_page", token=_token()),
        )


@bp.get("/api/tokens")
def tokens():
    """Every token the league issued (ids, never the tokens), for the organizer."""
    with db() as conn:
        _organizer(conn)
        return jsonify({"tokens": list_tokens(conn)})


@bp.post("/api/tokens/revoke")
def revoke_token():
    """Revoke ``{"id": ID}`` (from GET /api/tokens), ``{"revoke": TOKEN}`` or ``{"table": "7"}`` (every
    live token of that table): refused from the next request on."""
    body = _body()
    with db() as conn:
        _organizer(conn)
        revoked = revoke_tokens(
            conn, token=body.get("revoke"), token_id=body.get("id"), table=body.get("table")
        )
    return _done({"revoked": revoked})


@bp.get("/export.json")
def export_json():
    with db() as conn:
        _organizer(conn)
        return jsonify(org.export_json(conn))


@bp.get("/export.csv")
def export_csv():
    with db() as conn:
        _organizer(conn)
        return Response(
            org.export_csv(conn),
            mimetype="text/csv",
            headers={"Content-Disposition": "attachment; filename=standings.csv"},
        )


# -- pages -------------------------------------------------------------------------------------------------
@bp.get("/")
def organizer_page():
    token = _token()
    with db() as conn:
        _organizer(conn)
        rounds = org.rounds(conn)
        current = rounds[-1] if rounds else None
        return render_template(
            "league_organizer.html",
            token=token,
            rounds=rounds,
            current=current,
            pairings=org.pairings(conn, current["round"]) if current else [],
            tables=org.tables(conn),
            standings=org.current_standings(conn),
            tie_breaks=org.tie_breaks(conn),
            all_tie_breaks=org.TIE_BREAKS,
            players=org.players(conn),
            tokens=list_tokens(conn),
        )


@bp.get("/judge")
def judge_page():
    token = _token()
    with db() as conn:
        require(conn, token, "organizer", "judge")
        return render_template("league_judge.html", token=token, tables=org.tables(conn), game=None)


@bp.get("/judge/<game_id>")
def judge_game(game_id: str):
    token = _token()
    with db() as conn:
        require(conn, token, "organizer", "judge")
        return render_template("league_judge.html", token=token, tables=None, game=_game(conn, game_id))


def serve(app: Flask, host: str = "127.0.0.1", port: int = 0, threads: int = 16):
    """A waitress server for the league app (call ``.run()``; ``.close()`` stops it).  Returns it and
    its port (0 picks a free one)."""
    from waitress.server import create_server

    server = create_server(
        app, host=host, port=port, threads=threads, channel_timeout=30, ident="companion-league"
    )
    return server, server.effective_port
