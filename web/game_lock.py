"""One server per game file: an OS-level lock held for the life of ``companion serve``.

``GameFileLock(db).acquire()`` takes an exclusive ``flock`` on ``DB.lock`` (beside the game file)
and writes who holds it (process id, URL) into that file.  A second server on the same file is
refused with ``GameFileBusy``, whose message names the first one.  The operating system drops the
lock when the holding process ends in any way (Ctrl-C, ``kill -9``, a power cut), so a lock file
left behind by a dead server never blocks the next one: only a live holder counts.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: no flock; the lock is then advisory only
    fcntl = None


class GameFileBusy(RuntimeError):
    """Another live process serves this game file."""

    def __init__(self, db: Path, holder: dict):
        self.db, self.holder = db, holder
        who = f"process {holder['pid']}" if holder.get("pid") else "another process"
        where = f" at {holder['url']}" if holder.get("url") else ""
        super().__init__(
            f"the game file {db} is already being served by {who}{where}; open that server's "
            "page, stop it first (Ctrl-C), or choose another game file with --db"
        )


def lock_path(db: str | os.PathLike[str]) -> Path:
    db = Path(db)
    return db.with_name(db.name + ".lock")


class GameFileLock:
    def __init__(self, db: str | os.PathLike[str]):
        self.db = Path(db)
        self.path = lock_path(db)
        self._fd: int | None = None

    def acquire(self, url: str | None = None) -> GameFileLock:
        """Take the lock (at once, never waiting) or raise GameFileBusy."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)  # no O_TRUNC: the holder's note stays
        if fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                holder = _read_note(fd)
                os.close(fd)
                raise GameFileBusy(self.db, holder) from None
        self._fd = fd
        self.note(url)
        return self

    def note(self, url: str | None) -> None:
        """Write who holds the lock (pid and the URL it serves at) for a refused second server."""
        if self._fd is None:
            return
        data = json.dumps({"pid": os.getpid(), "url": url}).encode()
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, data, 0)

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        finally:
            os.close(fd)  # closing the descriptor drops the flock

    def __enter__(self) -> GameFileLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()


def _read_note(fd: int) -> dict:
    try:
        data = os.pread(fd, 4096, 0)
        note = json.loads(data.decode() or "{}")
        return note if isinstance(note, dict) else {}
    except (OSError, ValueError):
        return {}
