"""``companion league token`` and ``companion league serve`` as a person runs them."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import urllib.error
import urllib.request

from league_helpers import call

from companion.league.cluster import free_port


def test_token_then_serve(pg_dsn):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion",
            "league",
            "token",
            "--dsn",
            pg_dsn,
            "--role",
            "table",
            "--table",
            "7",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and re.fullmatch(r"t7-[\w-]{24}\n", out.stdout)
    bad = subprocess.run(
        [sys.executable, "-m", "companion", "league", "token", "--dsn", pg_dsn, "--role", "table"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode == 2 and "a table token needs a table label" in bad.stderr
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "league",
            "serve",
            "--dsn",
            pg_dsn,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--seconds",
            "30",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        lines = [proc.stdout.readline(), proc.stdout.readline()]
        organizer = re.search(r"token=(\S+)", lines[1]).group(1)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(url + "/league/api/overview", timeout=2)
            except urllib.error.HTTPError:
                break  # up (and refusing a request without a token)
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.2)
        status, body = call(url, "/league/api/overview", organizer)
        assert status == 200 and body["role"] == "organizer" and body["tables"] == []
        assert (
            call(url, "/league/api/overview", out.stdout.strip())[0] == 403
        )  # the table token reads nothing
    finally:
        proc.terminate()
        proc.wait(10)
    failing = subprocess.run(
        [
            sys.executable,
            "-m",
            "companion",
            "league",
            "serve",
            "--dsn",
            "postgresql://league@127.0.0.1:1/none",
            "--port",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert failing.returncode == 2 and "cannot reach the PostgreSQL database" in failing.stderr


def _league(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "companion", "league", *argv], capture_output=True, text=True, timeout=60
    )


def test_league_db_refuses_a_bad_port_or_name_before_making_anything(tmp_path):
    folder = tmp_path / "db"
    for argv, says in (
        (["--port", "99999"], "argument --port: 99999 is not a port"),
        (["--port", "-1"], "argument --port: -1 is not a port"),
        (["--name", "bad name;drop"], "argument --name: 'bad name;drop' is not a database name"),
    ):
        proc = _league("db", "--dir", str(folder), *argv)
        assert proc.returncode == 2 and says in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert not folder.exists()  # no cluster made, none started
    proc = _league("serve", "--dsn", "postgresql://x@127.0.0.1:1/x", "--port", "70000")
    assert proc.returncode == 2 and "argument --port: 70000 is not a port" in proc.stderr


def test_league_db_refuses_a_file_as_its_folder_and_a_stop_where_no_cluster_is(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("keep me")
    proc = _league("db", "--dir", str(path))
    assert proc.returncode == 2 and f"{path} is a file, not a folder" in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and path.read_text() == "keep me"
    proc = _league("db", "--dir", str(tmp_path / "none"), "--stop")
    assert proc.returncode == 2 and "holds no league database cluster" in proc.stderr, proc.stderr
    assert not (tmp_path / "none").exists()
