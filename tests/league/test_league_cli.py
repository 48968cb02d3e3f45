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
