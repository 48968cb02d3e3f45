"""Faults: the link cut and restored many times (a proxy on loopback), the league server restarted,
``kill -9`` of a table in the middle of its pushes, PostgreSQL stopped in the middle of a game; and
several tables playing at once.  Afterwards every table's every game in PostgreSQL equals its local
log, event for event (undone flags included), and nothing is stored twice."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest
from league_helpers import LeagueServer, Proxy, game_files, league_log, local_log

from companion.league.push import issue_token
from companion.session.pg_store import connect

pytestmark = pytest.mark.slow
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _table(db, league, token, *extra, seed=1) -> subprocess.Popen:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion.league.simulate",
            "--db",
            str(db),
            "--league",
            league,
            "--token",
            token,
            "--seed",
            str(seed),
            *map(str, extra),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        text=True,
    )


def _finish(proc: subprocess.Popen, timeout=120) -> dict:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


def _assert_same(dsn, folder) -> int:
    files = game_files(folder)
    assert files
    n = 0
    for game_id, path in files.items():
        local = local_log(path)
        assert league_log(dsn, game_id) == local, f"game {game_id} of {folder} differs"
        n += len(local)
    return n


def _tokens(dsn, n):
    conn = connect(dsn)
    try:
        return [issue_token(conn, "table", str(i + 1)) for i in range(n)]
    finally:
        conn.close()


def test_link_cut_and_restored_many_times(pg_dsn, tmp_path):
    tokens = _tokens(pg_dsn, 3)
    server = LeagueServer(pg_dsn)
    proxy = Proxy(server.port)
    port = server.port
    rng = random.Random(3)
    try:
        folders = [tmp_path / f"t{i}" for i in range(3)]
        procs = []
        for i, folder in enumerate(folders):
            folder.mkdir()
            procs.append(
                _table(
                    folder / "table.sqlite",
                    f"http://127.0.0.1:{proxy.port}",
                    tokens[i],
                    "--steps",
                    160,
                    "--pace",
                    0.01,
                    "--undo-every",
                    13,
                    "--games",
                    3,
                    "--batch",
                    16,
                    "--drain",
                    "--drain-seconds",
                    90,
                    seed=i + 1,
                )
            )
        for k in range(14):
            time.sleep(rng.uniform(0.05, 0.3))
            proxy.cut()
            time.sleep(rng.uniform(0.05, 0.4))
            if k == 7:  # the league server itself goes down and comes back on the same port
                server.close()
                server = LeagueServer(pg_dsn, port=port)
            proxy.restore()
        results = [_finish(p) for p in procs]
        assert all(r["waiting"] == 0 and r["steps"] > 0 for r in results)
        assert proxy.cuts == 14
        total = sum(_assert_same(pg_dsn, f) for f in folders)
        conn = connect(pg_dsn)
        assert (
            conn.execute("SELECT count(*) FROM events").fetchone()[0] == total
        )  # nothing twice, nothing else
        conn.close()
    finally:
        proxy.close()
        server.close()


def test_kill_9_in_the_middle_of_pushes(pg_dsn, tmp_path):
    [token] = _tokens(pg_dsn, 1)
    server = LeagueServer(pg_dsn)
    db = tmp_path / "table.sqlite"
    try:
        # a backlog played while the league was away
        _finish(_table(db, server.url, token, "--steps", 400, "--games", 2, "--undo-every", 17, "--no-push"))
        waiting_before = sum(len(local_log(p)) for p in game_files(tmp_path).values())
        assert waiting_before > 300
        rng = random.Random(9)
        stored = []
        for _ in range(6):  # start pushing in batches of 3, kill -9 at a random moment
            proc = _table(db, server.url, token, "--steps", 0, "--batch", 3, "--drain")
            time.sleep(rng.uniform(0.6, 1.6))
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            conn = connect(pg_dsn)
            stored.append(conn.execute("SELECT count(*) FROM events").fetchone()[0])
            conn.close()
        assert stored == sorted(stored) and 0 < stored[-1]  # progress across kills, never a loss
        result = _finish(_table(db, server.url, token, "--steps", 0, "--drain"))
        assert result["waiting"] == 0
        assert _assert_same(pg_dsn, tmp_path) == waiting_before
    finally:
        server.close()


def test_postgres_stopped_in_the_middle_of_a_game(pg_cluster, pg_dsn, tmp_path):
    tokens = _tokens(pg_dsn, 2)
    folders = [tmp_path / "a", tmp_path / "b"]
    procs = []
    for i, folder in enumerate(folders):  # these tables push straight into PostgreSQL (--league DSN)
        folder.mkdir()
        procs.append(
            _table(
                folder / "table.sqlite",
                pg_dsn,
                tokens[i],
                "--steps",
                150,
                "--pace",
                0.01,
                "--undo-every",
                11,
                "--drain",
                "--drain-seconds",
                90,
                seed=20 + i,
            )
        )
    time.sleep(1.0)
    pg_cluster.stop("immediate")
    time.sleep(2.0)  # the tables go on playing on their own logs
    pg_cluster.start_again()
    results = [_finish(p) for p in procs]
    assert all(r["steps"] == 150 and r["waiting"] == 0 for r in results)
    for folder in folders:
        _assert_same(pg_dsn, folder)


def test_tables_playing_at_once(pg_dsn, tmp_path):
    n = 6
    tokens = _tokens(pg_dsn, n)
    server = LeagueServer(pg_dsn)
    try:
        folders, procs = [], []
        for i in range(n):
            folder = tmp_path / f"t{i}"
            folder.mkdir()
            folders.append(folder)
            procs.append(
                _table(
                    folder / "table.sqlite",
                    server.url,
                    tokens[i],
                    "--steps",
                    120,
                    "--games",
                    3,
                    "--undo-every",
                    19,
                    "--drain",
                    seed=100 + i,
                )
            )
        for p in procs:
            _finish(p)
        for folder in folders:
            _assert_same(pg_dsn, folder)
        conn = connect(pg_dsn)
        tables = conn.execute("SELECT DISTINCT table_no FROM games ORDER BY 1").fetchall()
        assert [t[0] for t in tables] == [str(i + 1) for i in range(n)]
        conn.close()
    finally:
        server.close()
