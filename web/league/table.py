"""A table joined to a league (``companion serve --league URL-or-DSN --table 7 --league-token T``):
the page plays on the local SQLite log as always, and an :class:`companion.league.outbox.Outbox`
thread pushes the events to the league whenever it is reachable.  ``/api/state`` carries
``league: {state: connected|offline|refused, waiting: N, ...}``, and ``/api/league`` the same alone
(the page's status pill, ``web/static/league-status.js``)."""

from __future__ import annotations

from pathlib import Path

from flask import Blueprint, Flask, current_app, jsonify

bp = Blueprint("league_table", __name__)


@bp.get("/api/league")
def league():
    """The table's league line (web/static/league-status.js shows it in the status bar)."""
    return jsonify(league_status(current_app))


def start_outbox(app: Flask, db_path: Path):
    from companion.league.outbox import Outbox, transport_for
    from companion.session import SessionError

    url, token = app.config["LEAGUE_URL"], app.config.get("LEAGUE_TOKEN")
    if str(app.config["DB_PATH"]).startswith(("postgresql://", "postgres://")):
        raise SessionError(
            "--league is for a table playing on its local SQLite file; with --db postgresql:// "
            "the game is already in the league database"
        )
    if not token:
        raise SessionError("--league needs the table's token (--league-token, given by the organizer)")
    store = app.extensions["game_store"]
    box = Outbox(db_path, transport_for(url, token), session=lambda: store.session)
    box.table = app.config.get("LEAGUE_TABLE")
    app.extensions["league_outbox"] = box
    app.register_blueprint(bp)
    if app.config.get("LEAGUE_PUSH", True):  # False: tests drive box.sync() themselves
        box.start()
    return box


def league_status(app: Flask) -> dict | None:
    box = app.extensions.get("league_outbox")
    if box is None:
        return None
    status = box.status()
    status["table"] = getattr(box, "table", None)
    return status
