"""The server stops by itself after --seconds even where SIGINT is ignored (a job started in the
background by a shell or a service manager), and still stops on Ctrl-C."""

from __future__ import annotations

import signal
import subprocess
import sys
import time


def _start(*args: str, ignore_sigint: bool) -> subprocess.Popen:
    def prepare() -> None:
        if ignore_sigint:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    return subprocess.Popen(
        [sys.executable, "-m", "companion", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=prepare,
    )


def test_demo_with_sigint_ignored_still_stops_after_its_seconds(tmp_path):
    t0 = time.monotonic()
    proc = _start(
        "demo",
        "--seconds",
        "3",
        "--port",
        "0",
        "--pace",
        "0.05",
        "--dice",
        "typed",
        "--db",
        str(tmp_path / "d.sqlite"),
        ignore_sigint=True,
    )
    try:
        out, _ = proc.communicate(timeout=40)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out
    assert time.monotonic() - t0 < 30
    assert "serving at http://127.0.0.1:" in out


def test_serve_stops_on_ctrl_c(tmp_path):
    proc = _start("serve", "--port", "0", "--db", str(tmp_path / "g.sqlite"), ignore_sigint=False)
    try:
        for line in proc.stdout:
            if "Stop the server with Ctrl-C" in line:  # the last line of the banner
                break
        time.sleep(0.5)  # into the serving loop (a Ctrl-C during start-up ends with status 130)
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
