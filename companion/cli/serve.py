"""``companion serve`` (the tablet page for a real table) and ``companion demo`` (a scripted game).

    companion serve [--camera 0] [--serial URL] [--db FILE] [--host H --port P] [--rotate-host-token] [--https]
                    [--model NAME|BUNDLE] [--before-enrolment unread|reader] [--standard-model NAME|BUNDLE]
    companion demo [--seconds N] [--dice auto|camera|simulated|typed] [--db FILE] [--seed S]
                   [--model NAME|BUNDLE]

Both serve the page with waitress, print a URL carrying the host token and a QR code to pair a
tablet.  Without a camera or a smart-dice bridge the game is played by tapping faces.

``serve`` listens on the local network (0.0.0.0) so tablets can pair by scanning; every change
needs the host token or a paired tablet's token.  ``demo`` listens on this machine only.  One
server per game file: a second ``serve`` on the same ``--db`` is refused, and so is a busy port.
``serve --https`` serves https with the table's own certificate (``web.certs``, ``web.tls``).
"""

from __future__ import annotations

import argparse
import sys

from ._argtypes import camera as camera_type
from ._argtypes import listen_host, positive, whole
from ._argtypes import port as tcp_port
from ._argtypes import seconds as seconds_type
from ._argtypes import token as token_type
from ._argtypes import turn as turn_type

MAX_THREADS = 1000  # request worker threads: each is an OS thread (the default is 32)


def _public_url(text: str) -> str:
    """--public-url: an http(s) URL with a host, without a trailing slash."""
    from urllib.parse import urlsplit

    url = urlsplit(text.strip())
    if url.scheme not in ("http", "https") or not url.hostname:
        raise argparse.ArgumentTypeError(
            f"{text[:80]!r} is not an address a tablet can open (expected http://HOST:PORT)"
        )
    return text.strip().rstrip("/")


def _common(p: argparse.ArgumentParser, port: int, host: str = "127.0.0.1") -> None:
    where = "this machine only" if host == "127.0.0.1" else "the local network, so tablets can pair"
    p.add_argument(
        "--host",
        type=listen_host,
        default=host,
        help=f"address to listen on (default {host}: {where}; 0.0.0.0 is the local network, "
        "127.0.0.1 this machine only)",
    )
    p.add_argument(
        "--port",
        type=tcp_port,
        default=port,
        help=f"port (default {port}; 0 picks a free one; a busy port is an error)",
    )
    p.add_argument(
        "--public-url",
        metavar="URL",
        type=_public_url,
        help="address tablets use to reach this server, for the QR code "
        "(default: http://THIS-MACHINE'S-LAN-ADDRESS:PORT)",
    )
    p.add_argument(
        "--token",
        type=token_type,
        help="host token to use (kept with the game file) instead of the stored one: letters, digits "
        "and - _ . ~",
    )
    p.add_argument("--rules-index", help="full-text index made by `companion rules index` (Dispute panel)")
    p.add_argument("--seconds", type=seconds_type, help="stop by itself after this many seconds")
    p.add_argument(
        "--threads",
        type=whole(1, MAX_THREADS),
        default=32,
        help=f"request worker threads, 1 to {MAX_THREADS} (live pages' streams have threads of their own)",
    )


def _lock_target(db: str, args) -> str:
    """The file whose lock says who serves this game: the game file, or for a game in a PostgreSQL
    database (``--db postgresql://...``) a file named after its table in the temporary folder."""
    if not db.startswith(("postgresql://", "postgres://")):
        return db
    import tempfile
    from pathlib import Path

    return str(
        Path(tempfile.gettempdir()) / f"companion-pg-table-{getattr(args, 'table', None) or 'none'}.sqlite"
    )


def _tls_dir(db: str, args) -> str:
    """Where --https keeps the table's certificate: --tls-dir, else beside the game file (GAME.sqlite.tls);
    for a game on PostgreSQL, companion-table-LABEL.tls in the current folder."""
    if getattr(args, "tls_dir", None):
        return args.tls_dir
    if db.startswith(("postgresql://", "postgres://")):
        return f"companion-table-{getattr(args, 'table', None) or 'none'}.tls"
    return db + ".tls"


def _make_server(args, db: str, camera=None, serial=None):
    """The app on db served at args.host:args.port, holding db's lock; exits with status 2 and a
    clear message when another server holds the game file or the port is taken."""
    from web import create_app
    from web.game_lock import GameFileBusy, GameFileLock
    from web.server import Server

    try:
        lock = GameFileLock(_lock_target(db, args)).acquire()
    except GameFileBusy as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    try:
        config = {
            "DB_PATH": db,
            "HOST_TOKEN": args.token,
            "CAMERA": camera,
            "SERIAL": serial,
            "ROTATE_HOST_TOKEN": bool(getattr(args, "rotate_host_token", False)),
        }
        if getattr(args, "registry", None):
            config["DICE_REGISTRY"] = args.registry
        if args.rules_index:
            config["RULES_INDEX"] = args.rules_index
        if getattr(args, "public_url", None):
            config["PUBLIC_URL"] = args.public_url.rstrip("/")
        if getattr(args, "https", False):  # the table's own certificate (web.certs), made or reused now
            config["TLS_DIR"] = _tls_dir(db, args)
        if getattr(args, "model", None):  # the camera's dice model (a bundle works wherever a name does)
            config["CAMERA_MODEL"] = args.model
        if getattr(args, "standard_model", None):  # standard dice (Battle Dice rolls): a numeral bundle
            config["STANDARD_MODEL"] = args.standard_model
        # before the table learnt its dice: nothing read (serve's default), or the glyph reader (the demo:
        # it plays the project's own renders)
        config["BEFORE_ENROLMENT"] = getattr(args, "before_enrolment", None) or (
            "reader" if getattr(args, "func", None) is _demo else "unread"
        )
        if getattr(args, "turn", None):  # the camera's and the phone's frames turned before reading
            config["CAMERA_TURN"] = args.turn
        if getattr(args, "league", None) or getattr(args, "table", None):  # companion/league
            config.update(LEAGUE_URL=args.league, LEAGUE_TABLE=args.table, LEAGUE_TOKEN=args.league_token)
        if config.get("TLS_DIR"):  # a folder it cannot write is refused before the game file is touched
            from web.certs import CertificateError, table_certificate
            from web.tls import certificate_names

            try:
                table_certificate(config["TLS_DIR"], *certificate_names(args.host, config.get("PUBLIC_URL")))
            except CertificateError as exc:
                print(f"error: --https: {exc}", file=sys.stderr)
                raise SystemExit(2) from None
        app = create_app(config)
        try:
            return Server(app, args.host, args.port, threads=args.threads, lock=lock)
        except OSError as exc:
            app.extensions["sources"].stop()
            print(
                f"error: cannot listen on {args.host} port {args.port}: {exc.strerror or exc} (is another "
                "server running there? stop it, or choose another port with --port)",
                file=sys.stderr,
            )
            raise SystemExit(2) from None
    except BaseException:
        lock.release()
        raise


def _smart_dice_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with --serial (a URL pyserial can never open) or --registry (a file that is not a
    die registry), checked before anything starts; a bridge not plugged in yet is waited for."""
    if getattr(args, "serial", None):
        from firmware_bridge.link import url_problem

        bad = url_problem(args.serial)
        if bad:
            return f"--serial {args.serial}: {bad}"
    if getattr(args, "registry", None):
        from firmware_bridge.registry import DieRegistry, RegistryError

        try:
            DieRegistry.load_or_empty(args.registry)  # made by `companion dice pair` when missing
        except RegistryError as exc:
            return f"--registry: {exc}"
    return None


def _serve(args: argparse.Namespace) -> int:
    import logging

    from companion.session import SessionError
    from companion.vision.reader import ModelError

    from ._standard_model import DEFAULT, check_standard_model

    bad = _model_problem(args.model) if args.model else None  # a bundle named here is loaded now
    if bad:
        print(f"error: --model: {bad}", file=sys.stderr)
        return 2
    try:  # a bundle named here is loaded now, so a broken one is refused before anything starts
        check_standard_model(args.standard_model or DEFAULT, load=args.standard_model is not None)
    except ModelError as exc:
        print(f"error: --standard-model: {exc}", file=sys.stderr)
        return 2
    bad = _smart_dice_problem(args)
    if bad:
        print(f"error: {bad}", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("waitress").setLevel(logging.WARNING)
    try:
        if not str(args.db).startswith(("postgresql://", "postgres://")):
            from companion.session.library import check_table_file

            check_table_file(args.db)  # refused before its lock or any file beside it is made
        server = _make_server(args, args.db, camera=args.camera, serial=args.serial)
    except SessionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    server.banner()
    server.serve_forever(args.seconds)
    return 0


def _demo(args: argparse.Namespace) -> int:
    import logging
    import shutil
    import tempfile
    from pathlib import Path

    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    from companion.session import GameSession  # noqa: F401  (fail early if the engine is missing)
    from web.demo import vision_problem

    if args.db and Path(args.db).exists():
        print(f"error: {args.db} exists; the demo starts a fresh game (choose another --db)", file=sys.stderr)
        return 2
    named = getattr(args, "model", None)
    bad = _model_problem(named) if named else None  # checked before anything is created
    if bad:
        print(f"error: --model: {bad}", file=sys.stderr)
        return 2
    model = named or "dragon-dice"
    dice = args.dice
    problem = vision_problem(model) if dice in ("auto", "camera") else None
    if dice == "camera" and problem:
        print(
            f"error: --dice camera needs the camera pipeline and a shipped model or bundle ({model}): "
            f"{problem}",
            file=sys.stderr,
        )
        return 2
    if dice == "auto":
        dice = "typed" if problem else "camera"
    folder = None if args.db else tempfile.mkdtemp(prefix="companion-demo-")  # removed on exit
    db = args.db or str(Path(folder) / "demo-game.sqlite")
    try:
        return _run_demo(args, db, dice, problem, model)
    finally:
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
            print(
                f"Demo over: its temporary game folder {folder} was removed (keep a demo game with --db FILE).",
                flush=True,
            )


def _model_problem(name: str) -> str | None:
    """Why ``serve --model NAME`` or ``demo --model NAME`` cannot be used (an unknown name, a bundle that
    does not load), in words naming it; ``None`` when it can, or when only the camera pipeline is missing
    (``demo --dice auto`` then says so and types faces; ``--dice camera`` is refused with that reason).
    The bundle is loaded here (once: the camera reads with the loaded one)."""
    from companion.vision.reader import ModelError, load_model, resolve_model

    try:
        resolve_model(name)
    except ModelError as exc:
        return str(exc)
    try:  # a bundle that is there but broken (a bad model.json, a missing or damaged network) is refused too
        load_model(name)
    except ImportError:
        return None
    except ModelError as exc:  # names the bundle's file that is wrong
        return f"model {name!r} does not load: {exc}"
    return None


def _run_demo(args: argparse.Namespace, db: str, dice: str, vision_why: str | None, model: str) -> int:
    from web.demo import SimulatedDiceRoller, TypedRoller, VisionRoller, play_demo
    from web.play import build_setup

    server = _make_server(args, db)
    store = server.app.extensions["game_store"]
    store.create(build_setup({"players": ["Ann", "Bob"], "quick": True, "force_size": 24}), {"role": "demo"})
    pace = args.pace
    if pace is None:
        pace = 1.2 if args.seconds is None else max(0.05, min(1.2, args.seconds / 60))
    # a faster pace (tests, --seconds) also runs the simulated dice faster than real time
    speed = min(50.0, 4.0 * max(1.0, 1.2 / pace))
    roller = {
        "simulated": lambda: SimulatedDiceRoller(seed=args.seed, speed=speed),
        "camera": lambda: VisionRoller(seed=args.seed, model=model),
        "typed": lambda: TypedRoller(seed=args.seed),
    }[dice]()
    server.banner()
    print(
        f"Demo: a fresh two-player game in {db}; rolls come from "
        + {
            "simulated": "the smart-dice simulator over a serial link",
            "camera": "rendered camera frames read by the vision pipeline with the model " + model,
            "typed": "faces typed by the demo script",
        }[dice]
        + ".",
        flush=True,
    )
    if dice == "typed" and args.dice == "auto" and vision_why:
        print(f"The camera pipeline is not used: {vision_why}.", flush=True)
    print(
        "Open the host URL above in a browser to watch the scripted opening (set-up, a maneuver, a melee "
        "with its saves, a spell); when it ends, play on by tapping. Press Ctrl-C to stop the demo.",
        flush=True,
    )
    director = play_demo(store, roller, pace, out=sys.stdout)
    try:
        server.serve_forever(args.seconds)
    finally:
        director.finish()
        roller.close()
    if director.error:
        print(f"demo stopped early: {director.error}", file=sys.stderr)
        return 1
    return 0


def register(subparsers) -> None:
    s = subparsers.add_parser("serve", help="serve the tablet page for a game at the table")
    s.add_argument(
        "--camera",
        type=camera_type,
        help="camera to read dice from: an OpenCV index such as 0, asked for 1920x1080 frames (0@1280x720 asks "
        "for another size), or a video URL",
    )
    s.add_argument(
        "--turn",
        type=turn_type,
        default=0,
        help="degrees clockwise (0, 90, 180, 270) to turn the camera's and the phone's frames so that the "
        "table's far side is at the top of the picture (standard dice are read that way up; the camera "
        "status says when the dice read better turned)",
    )
    s.add_argument("--serial", help="smart-dice bridge (pyserial URL: /dev/ttyACM0, socket://host:port, ...)")
    s.add_argument(
        "--model",
        help="dice model the camera reads with: a shipped name or a bundle folder made by "
        "`companion vision enroll` (default dragon-dice); the table's own dice are learnt in "
        "a profile beside the game file (DB.profile.npz), on the /teach page and from "
        "confirmed camera rolls",
    )
    s.add_argument(
        "--before-enrolment",
        choices=("unread", "reader"),
        default="unread",
        help="what the camera reads Dragon Dice with before the table has learnt any of its dice: "
        "unread (default: every die left for a tap, never a guess) or reader (the model's glyph reader, "
        "which reads only the project's own renders)",
    )
    s.add_argument(
        "--standard-model",
        metavar="NAME|BUNDLE",
        help="model the camera and the phone read standard dice with (Battle Dice rolls, d4..d20): a "
        "shipped numeral model (polyhedral, polyhedral-oblique) or a bundle made by `companion vision "
        "enroll --corrections DIR --model polyhedral-oblique --out BUNDLE` (default polyhedral-oblique; a roll "
        "of d6 only is read with d6)",
    )
    s.add_argument("--registry", help="die registry file for the smart dice (see `companion dice pair`)")
    s.add_argument(
        "--db",
        default="companion-game.sqlite",
        help="game file (SQLite); reopened if it exists; or a postgresql:// DSN to play on a "
        "league database directly (the table's last game there is reopened)",
    )
    s.add_argument(
        "--league",
        metavar="URL-or-DSN",
        help="league to push this table's games to (http://league-server:8770 or postgresql://...); "
        "play goes on from the local file while it is unreachable",
    )
    s.add_argument("--table", help="this table's label in the league (e.g. 7)")
    s.add_argument(
        "--league-token", help="this table's token, given by the organizer (companion league token)"
    )
    s.add_argument(
        "--rotate-host-token",
        action="store_true",
        help="replace the host token kept with the game file (the old host URL stops working)",
    )
    s.add_argument(
        "--https",
        action="store_true",
        help="serve https with the table's own certificate, so tablets and phones get what browsers "
        "allow only over https (install to the home screen, open offline, keep the screen "
        "awake, the phone's live camera); each device trusts the certificate once at "
        "http://ADDRESS:PORT/trust; plain http on the port is sent to https",
    )
    s.add_argument(
        "--tls-dir",
        metavar="FOLDER",
        help="folder of the table's certificate for --https (default: beside the game file, "
        "DB.tls; the same folder keeps the same certificate authority, trusted once)",
    )
    _common(s, 8765, host="0.0.0.0")
    s.set_defaults(func=_serve)

    d = subparsers.add_parser(
        "demo",
        help="serve a fresh demo game and play a scripted opening",
        description="Start a fresh two-player game (Ann and Bob, a 24-point quick start) on a local server "
        "and play its opening by script: set-up, a maneuver, a melee with its saves, a spell. "
        "Rolls go through the same path as real ones (a reading on the Roll page, then "
        "confirmed). A die the dice source cannot read is never given a made-up face: the "
        "script types the face it rolled and marks it so, or leaves it for you to tap.",
        epilog="Open the host URL it prints in a browser to watch; when the script ends, play on by "
        "tapping. Stop with Ctrl-C (or --seconds). Without --db the game lives in a temporary "
        "folder that is removed when the demo stops.",
    )
    d.add_argument(
        "--dice",
        choices=("auto", "camera", "simulated", "typed"),
        default="auto",
        help="where the demo's rolls come from: camera (rendered frames read by the vision "
        "pipeline), simulated (smart-dice simulator on a serial link), typed (faces typed "
        "by the demo script); auto (default): camera when the pipeline and a model load, "
        "else typed, saying why",
    )
    d.add_argument(
        "--db",
        help="game file to keep the demo game in (must not exist yet; default: a "
        "temporary folder removed on exit)",
    )
    d.add_argument(
        "--pace",
        type=positive,
        help="seconds between the demo's steps (default 1.2; with --seconds, faster so the opening fits)",
    )
    d.add_argument(
        "--seed",
        type=int,
        default=7,
        help="seed of the demo's dice: the same seed rolls the same faces (default 7)",
    )
    d.add_argument(
        "--model",
        metavar="NAME|BUNDLE",
        help="dice model the camera rolls are read with and the server's camera would use: a shipped "
        "name or a bundle folder made by `companion vision enroll ... --out BUNDLE` (default "
        "dragon-dice); an unknown name or a bundle that does not load is refused before anything starts",
    )
    _common(d, 8765)
    d.set_defaults(func=_demo)
