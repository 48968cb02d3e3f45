"""The tablet page and its JSON API (Flask application factory).

``create_app(config)`` builds the app: blueprints for the pages (``pages``), the JSON API
(``api``) and the live stream (``events``); ``init_app`` of the game store (the SQLite game
session), the access rules (host token, pairing), and the dice sources (camera, serial link).
The app is served by waitress (see ``web.server``), never by Flask's development server.

Config keys (all optional): ``DB_PATH`` (game file; default a temporary one), ``HOST_TOKEN``
(default random), ``CAMERA`` (OpenCV index or URL), ``SERIAL`` (pyserial URL), ``RULES_INDEX``
(FTS5 file made by ``companion rules index``), ``PUBLIC_URL`` (base URL for QR codes),
``DICE_REGISTRY`` (die registry file for the smart dice), ``CORRECTIONS_DIR`` (where corrected
camera readings are saved when the vision package offers no capture API), ``START_SOURCES``
(start source threads; default True), ``ROTATE_HOST_TOKEN`` (replace the host token stored with the
game), ``PAIRING_TRIES`` / ``PAIRING_WINDOW_S`` (wrong pairing codes allowed per client and window).
``CAMERA_MODEL`` (the dice model bundle the camera reads with; default ``dragon-dice``; the table's own
dice are learnt in a profile beside the game file, ``web.table_profile``).  ``BEFORE_ENROLMENT``
("unread", the default, or "reader"): what the camera reads Dragon Dice with while the table has
learnt none of its dice: nothing (every die left for a tap), or the bundle's glyph reader, which
reads only the project's own renders (``serve --before-enrolment``).
``STANDARD_MODEL`` (the numeral bundle that reads rolls of standard dice, Battle Dice d4..d20, from the
camera and the phone: a shipped name such as ``polyhedral`` (default) or ``polyhedral-oblique``, or a
bundle made by ``companion vision enroll --model polyhedral-oblique``; a roll of d6 only is read
with ``d6``, as ``companion.vision.numerals.read_standard_roll`` decides).
``CAMERA_TURN`` (0, 90, 180 or 270: degrees clockwise the camera's and the phone's frames are turned
before they are read, so that the table's far side is at the top; ``companion.vision.camera_turn``).
``BOOT_ID`` is made anew at each start: pages compare it to notice a restart.
``TLS_DIR`` (``serve --https``): folder of the table's certificate; ``web.server.Server`` then serves
https through ``web.tls`` and the trust page ``/trust`` (``web.certs``); it sets ``TRUST_URL``.
"""

from __future__ import annotations

import logging
import secrets
import tempfile
from pathlib import Path

from flask import Flask

from companion.vision import DEFAULT_STANDARD_MODEL

from .errors import register_error_handlers


def create_app(config: dict | None = None) -> Flask:
    from companion.rulesearch import default_index_path

    from . import api, events, pages, phone
    from .security import Access
    from .sources import Sources
    from .store import GameStore

    app = Flask(__name__, static_folder="static", template_folder="templates")
    app.config.update(
        DB_PATH=str(Path(tempfile.gettempdir()) / "companion-game.sqlite"),
        HOST_TOKEN=None,
        CAMERA=None,
        SERIAL=None,
        DICE_REGISTRY=None,
        CORRECTIONS_DIR=None,
        CAMERA_MODEL="dragon-dice",
        BEFORE_ENROLMENT="unread",
        CAMERA_TURN=0,
        STANDARD_MODEL=DEFAULT_STANDARD_MODEL,
        RULES_INDEX=str(default_index_path()),
        PUBLIC_URL=None,
        START_SOURCES=True,
        MAX_CONTENT_LENGTH=256 * 1024,
        PROPAGATE_EXCEPTIONS=False,
        TRAP_HTTP_EXCEPTIONS=False,
        SEND_FILE_MAX_AGE_DEFAULT=0,
        ROTATE_HOST_TOKEN=False,
        BOOT_ID=secrets.token_hex(8),
    )
    if config:
        app.config.update(config)
    logging.getLogger("companion.web").setLevel(logging.INFO)
    from .table_profile import parse_before_enrolment

    parse_before_enrolment(app.config["BEFORE_ENROLMENT"])  # a bad setting: refused before any file opens

    if str(app.config["DB_PATH"]).startswith(("postgresql://", "postgres://")):  # on the league database
        from .league.pg_game_store import PgGameStore

        store = PgGameStore(app.config["DB_PATH"], table=app.config.get("LEAGUE_TABLE"))
        db_path = store.db_path
    else:
        db_path = Path(app.config["DB_PATH"])
        store = GameStore(db_path)
    store.init_app(app)
    if app.config.get("LEAGUE_URL"):  # a table of a league: its local log is pushed when reachable
        from .league.table import start_outbox

        start_outbox(app, db_path)
    Access(
        db_path.with_name(db_path.name + ".tablets"),
        app.config["HOST_TOKEN"],
        rotate=app.config["ROTATE_HOST_TOKEN"],
    ).init_app(app)
    sources = Sources(
        store, camera=app.config["CAMERA"], serial=app.config["SERIAL"], registry=app.config["DICE_REGISTRY"]
    )
    from . import table_profile  # the camera model and the table's own dice (web.table_profile)

    table_profile.init_app(app, store)
    for camera in (sources.camera, getattr(sources, "phone", None)):  # --camera, or a phone (web.phone)
        if camera is not None:
            camera.model = app.config["CAMERA_MODEL"]
            camera.standard_model = app.config["STANDARD_MODEL"]
            from companion.vision.camera_turn import SourceTurn

            camera.turn = SourceTurn(app.config["CAMERA_TURN"])  # a bad turn: refused before anything starts
    sources.init_app(app)

    register_error_handlers(app)
    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(events.bp)
    from . import teach  # "Teach the camera your dice" (/teach)

    app.register_blueprint(teach.bp)
    from . import games  # the table's games: library, host-only switches, tablets' requests

    app.register_blueprint(games.bp)
    app.register_blueprint(phone.bp)

    @app.after_request
    def _headers(resp):
        resp.headers.setdefault("X-Content-Type-Options", "nosniff")
        resp.headers.setdefault("Referrer-Policy", "no-referrer")
        resp.headers.setdefault("X-Frame-Options", "DENY")
        resp.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; script-src 'self'; "
            "connect-src 'self'; frame-ancestors 'none'",
        )
        return resp

    return app
