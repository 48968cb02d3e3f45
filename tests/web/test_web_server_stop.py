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


def test_bad_serve_and_demo_options_are_refused_by_name_before_any_file(tmp_path, capsys):
    """--seconds inf (a timer thread's OverflowError, the server never stopping), --seconds -1 or nan,
    --threads 0 or 100000 (no worker, or 'can't start new thread'), --host '' or 999.1.1.1 (waitress's
    traceback after the game file and its neighbours were made), --host '*' (a crash), --token with a
    space or an accent (a host URL or header that breaks) and --pace 0 (ZeroDivisionError) are argparse
    errors naming the option; nothing is written."""
    import pytest

    from companion.cli import main

    db = tmp_path / "s.sqlite"
    cases = [
        ("--seconds", "inf"),
        ("--seconds", "1e400"),
        ("--seconds", "-1"),
        ("--seconds", "nan"),
        ("--threads", "0"),
        ("--threads", "100000"),
        ("--host", ""),
        ("--host", "999.1.1.1"),
        ("--host", "*"),
        ("--token", "a b"),
        ("--token", "h\u00f4te"),
        ("--token", ""),
    ]
    for option, value in cases:
        with pytest.raises(SystemExit) as stop:
            main(["serve", "--db", str(db), "--port", "0", option, value])
        err = capsys.readouterr().err
        assert stop.value.code == 2 and f"argument {option}:" in err, (option, value, err)
    with pytest.raises(SystemExit) as stop:
        main(["demo", "--db", str(db), "--port", "0", "--pace", "0"])
    assert stop.value.code == 2 and "argument --pace:" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []
