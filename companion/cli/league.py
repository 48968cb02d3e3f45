"""``companion league``: a club night or tournament on one PostgreSQL database.

    companion league db --dir ./league-db [--port 5432]      # start PostgreSQL for the league (prints its DSN)
    companion league token --dsn DSN --role table --table 7  # a table's (or judge's, organizer's) token
    companion league token list --dsn DSN                    # every token: id, role, table, issued, revoked
    companion league token revoke --dsn DSN --table 7        # or --id ID, or --token T: refused at once
    companion league serve --dsn DSN [--port 8770]           # the organizer's and judges' pages, the tables' push API

Tables join with ``companion serve --league http://THIS-MACHINE:8770 --table 7 --league-token T``.
"""

from __future__ import annotations

import argparse
import re
import sys

from ._argtypes import port


def _db_name(text: str) -> str:
    """--name: a database name PostgreSQL and a DSN take as it is (letters, digits, '_'; 63 at most)."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,62}", text):
        raise argparse.ArgumentTypeError(
            f"{text[:80]!r} is not a database name (1-63 letters, digits or '_', not starting with a digit)"
        )
    return text


def _db(args: argparse.Namespace) -> int:
    from companion.league.cluster import ClusterError, LocalCluster
    from companion.session.pg_store import connect

    try:
        pg = LocalCluster.start(args.dir, port=args.port)
    except ClusterError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    dsn = pg.dsn(args.name)
    connect(dsn).close()
    print(f"PostgreSQL is running on 127.0.0.1:{pg.port} (data in {pg.data}); the league database:")
    print(dsn)
    print(f"stop it with: companion league db --dir {args.dir} --stop")
    return 0


def _db_stop(args: argparse.Namespace) -> int:
    from companion.league.cluster import LocalCluster, find_bin

    bin_dir = find_bin()
    if bin_dir is None:
        print("error: PostgreSQL is not installed", file=sys.stderr)
        return 2
    pg = LocalCluster(args.dir, 0, bin_dir)
    if not (pg.data / "PG_VERSION").is_file():
        print(f"error: {args.dir} holds no league database cluster (nothing to stop)", file=sys.stderr)
        return 2
    pg.stop()
    return 0


def _token(args: argparse.Namespace) -> int:
    from companion.league.push import PushRefused, issue_token, list_tokens, revoke_tokens
    from companion.session import SessionError
    from companion.session.pg_store import connect

    try:
        conn = connect(args.dsn)
        if args.action == "list":
            for t in list_tokens(conn):
                print(
                    f"{t['id']}  {t['role']:<9} {t['table'] or '-':<6} issued {t['created_at']}"
                    + (f"  REVOKED {t['revoked_at']}" if t["revoked_at"] else "")
                    + f"  {t['label']}"
                )
        elif args.action == "revoke":
            for token_id in revoke_tokens(conn, token=args.token, token_id=args.id, table=args.table):
                print(f"revoked {token_id}")
        elif args.role is None:
            print("error: issuing a token needs --role (organizer, table or judge)", file=sys.stderr)
            return 2
        else:
            print(issue_token(conn, args.role, args.table, args.label or ""))
    except (SessionError, PushRefused) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _serve(args: argparse.Namespace) -> int:
    import logging

    from companion.league.push import issue_token, token_hash
    from companion.session import SessionError
    from companion.session.pg_store import connect
    from web.league.app import create_league_app, serve

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    logging.getLogger("waitress").setLevel(logging.WARNING)
    try:
        conn = connect(args.dsn)
        token = args.organizer_token
        if token:
            conn.execute(
                "INSERT INTO league_tokens (token_hash, role, label) VALUES (%s, 'organizer', 'cli') "
                "ON CONFLICT (token_hash) DO NOTHING",
                (token_hash(token),),
            )
        else:
            token = issue_token(conn, "organizer", label="league serve")
        conn.close()
        app = create_league_app(args.dsn, pool_size=args.pool)
    except SessionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        server, port = serve(app, args.host, args.port, threads=args.threads)
    except OSError as exc:
        print(f"error: cannot listen on {args.host} port {args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    shown = "127.0.0.1" if args.host in ("0.0.0.0", "") else args.host
    print(f"League server on http://{shown}:{port}/league/", flush=True)
    print(f"Organizer: http://{shown}:{port}/league/?token={token}", flush=True)
    if args.seconds:
        import threading

        threading.Timer(args.seconds, server.close).start()
    try:
        server.run()
    except (KeyboardInterrupt, OSError):
        pass
    finally:
        app.extensions["league_pool"].close()
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("league", help="clubs and tournaments: many tables, one PostgreSQL database")
    sub = p.add_subparsers(dest="league_command", metavar="SUBCOMMAND")

    d = sub.add_parser("db", help="create (if needed) and start a PostgreSQL cluster for the league")
    d.add_argument("--dir", required=True, help="folder for the database files")
    d.add_argument("--port", type=port, default=5432, help="port (default 5432; 0 picks a free one)")
    d.add_argument("--name", type=_db_name, default="league", help="database name (default league)")
    d.add_argument("--stop", action="store_true", help="stop the cluster in --dir instead")
    d.set_defaults(func=lambda a: _db_stop(a) if a.stop else _db(a))

    t = sub.add_parser("token", help="issue (default), list or revoke tokens (only their hashes are stored)")
    t.add_argument(
        "action",
        nargs="?",
        choices=("issue", "list", "revoke"),
        default="issue",
        help="issue a token (default), list them, or revoke one (refused from the next request on)",
    )
    t.add_argument("--dsn", required=True, help="the league database (postgresql://...)")
    t.add_argument(
        "--role",
        choices=("organizer", "table", "judge"),
        help="who the token is for: the organizer, a table, or a judge",
    )
    t.add_argument("--table", help="the table's label (for --role table; revoke: every live token of it)")
    t.add_argument("--id", help="revoke: the token's id (companion league token list)")
    t.add_argument("--token", help="revoke: the token itself")
    t.add_argument("--label", help="a note kept with the token (who holds it)")
    t.set_defaults(func=_token)

    s = sub.add_parser("serve", help="the organizer's and judges' pages and the tables' push API")
    s.add_argument("--dsn", required=True, help="the league database (postgresql://...)")
    s.add_argument("--host", default="0.0.0.0", help="address to listen on (default: the local network)")
    s.add_argument("--port", type=port, default=8770, help="port (default 8770; 0 picks a free one)")
    s.add_argument(
        "--organizer-token", help="use this organizer token (registered if new) instead of a new one"
    )
    s.add_argument("--threads", type=int, default=16, help="server worker threads")
    s.add_argument("--pool", type=int, default=8, help="database connections")
    s.add_argument("--seconds", type=float, help="stop by itself after this many seconds")
    s.set_defaults(func=_serve)
    p.set_defaults(func=lambda a: (p.print_help(), 2)[1])
