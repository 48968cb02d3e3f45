"""Start a real ``companion serve`` (waitress) in its own process for a bench, on a free local port."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path


def start_server(db: Path, token: str, extra: tuple[str, ...] = ()) -> tuple[subprocess.Popen, str]:
    """Run ``companion serve`` on 127.0.0.1, port 0, with the host ``token``; returns the process and the
    URL it prints. Its later output is drained on a thread, so a chatty server never blocks on a full pipe."""
    cmd = [
        sys.executable,
        "-m",
        "companion",
        "serve",
        "--db",
        str(db),
        "--port",
        "0",
        "--host",
        "127.0.0.1",
        "--token",
        token,
        *extra,
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout
    assert out is not None
    for line in out:
        m = re.search(r"serving at (https?://\S+)", line)
        if m:
            threading.Thread(target=out.read, daemon=True).start()
            return proc, m.group(1)
    raise RuntimeError(f"server did not start (exit code {proc.wait()})")
