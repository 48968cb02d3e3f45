"""Who may change the game: the host token, per-game pairing codes and paired tablets.

* At start the server makes a random **host token** and prints a URL carrying it (as Jupyter does).
  Whoever opens that URL is the host: they see the pairing code and may do everything.
* Each game has a **pairing code** (shown as a QR code on the host's page).  A tablet that sends the
  code to ``POST /api/pair`` receives a **tablet token** for that game.
* Tokens travel in the ``X-Companion-Token`` header, never in a cookie, so a page on another site
  cannot make a browser change the game (no CSRF).  Requests without a valid token are read-only.
* Too many wrong pairing codes for a game replace its code, so it cannot be guessed by trying.

Tablet tokens are stored hashed (SHA-256) in a small SQLite file beside the game database, so
tablets stay paired across a server restart.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import sqlite3
import threading
import time
from functools import wraps
from pathlib import Path

from flask import Flask, current_app, g, request

from .errors import APIError, Forbidden

TOKEN_HEADER = "X-Companion-Token"
PAIRING_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0/O, 1/I
PAIRING_LENGTH = 6
MAX_FAILED_PAIRINGS = 20

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pairing (game_id TEXT PRIMARY KEY, code TEXT NOT NULL, failures INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS tablets (
    token_hash TEXT PRIMARY KEY, game_id TEXT NOT NULL, name TEXT NOT NULL, paired_at REAL NOT NULL
);
"""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_pairing_code() -> str:
    return "".join(secrets.choice(PAIRING_ALPHABET) for _ in range(PAIRING_LENGTH))


class Access:
    """Host token, pairing codes and tablet tokens (``init_app`` stores it in ``app.extensions``)."""

    def __init__(self, state_path: str | Path | None = None, host_token: str | None = None):
        self.host_token = host_token or secrets.token_urlsafe(24)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(state_path or ":memory:"), check_same_thread=False)
        self._db.executescript(_SCHEMA)

    def init_app(self, app: Flask) -> None:
        app.extensions["access"] = self

    # -- pairing ---------------------------------------------------------------------------
    def pairing_code(self, game_id: str) -> str:
        with self._lock, self._db:
            row = self._db.execute("SELECT code FROM pairing WHERE game_id = ?", (game_id,)).fetchone()
            if row:
                return row[0]
            code = new_pairing_code()
            self._db.execute("INSERT INTO pairing(game_id, code) VALUES (?, ?)", (game_id, code))
            return code

    def rotate_pairing_code(self, game_id: str) -> str:
        with self._lock, self._db:
            code = new_pairing_code()
            self._db.execute("INSERT OR REPLACE INTO pairing(game_id, code, failures) VALUES (?, ?, 0)",
                             (game_id, code))
            return code

    def pair(self, game_id: str, code: str, name: str) -> str:
        """A new tablet token for game_id if code is its pairing code; APIError otherwise."""
        expected = self.pairing_code(game_id)
        if not hmac.compare_digest(code.strip().upper().encode(), expected.encode()):
            with self._lock, self._db:
                self._db.execute("UPDATE pairing SET failures = failures + 1 WHERE game_id = ?", (game_id,))
                failures = self._db.execute("SELECT failures FROM pairing WHERE game_id = ?",
                                            (game_id,)).fetchone()[0]
            if failures >= MAX_FAILED_PAIRINGS:
                self.rotate_pairing_code(game_id)
                raise Forbidden("wrong pairing code; too many tries, so the host's code has been replaced",
                                code="wrong_pairing_code", field="code")
            raise Forbidden("wrong pairing code for this game (see the QR code on the host's page)",
                            code="wrong_pairing_code", field="code")
        return self.grant(game_id, name)

    def grant(self, game_id: str, name: str) -> str:
        token = secrets.token_urlsafe(24)
        with self._lock, self._db:
            self._db.execute("INSERT INTO tablets(token_hash, game_id, name, paired_at) VALUES (?, ?, ?, ?)",
                             (_hash(token), game_id, name, time.time()))
        return token

    def tablets(self, game_id: str) -> list[dict]:
        rows = self._db.execute("SELECT name, paired_at FROM tablets WHERE game_id = ? ORDER BY paired_at",
                                (game_id,)).fetchall()
        return [{"name": n, "paired_at": t} for n, t in rows]

    def revoke_all(self, game_id: str) -> int:
        with self._lock, self._db:
            return self._db.execute("DELETE FROM tablets WHERE game_id = ?", (game_id,)).rowcount

    # -- roles -----------------------------------------------------------------------------
    def role(self, token: str | None, game_id: str | None) -> str:
        """'host', 'tablet' (paired to game_id) or 'viewer'."""
        if not token:
            return "viewer"
        if hmac.compare_digest(token.encode(), self.host_token.encode()):
            return "host"
        if game_id is None:
            return "viewer"
        row = self._db.execute("SELECT 1 FROM tablets WHERE token_hash = ? AND game_id = ?",
                               (_hash(token), game_id)).fetchone()
        return "tablet" if row else "viewer"

    def tablet_name(self, token: str | None) -> str | None:
        if not token:
            return None
        row = self._db.execute("SELECT name FROM tablets WHERE token_hash = ?", (_hash(token),)).fetchone()
        return row[0] if row else None


def access() -> Access:
    return current_app.extensions["access"]


def request_role() -> str:
    if "role" not in g:
        store = current_app.extensions["game_store"]
        g.role = access().role(request.headers.get(TOKEN_HEADER), store.game_id)
    return g.role


def require(role: str):
    """Decorator: 'host' needs the host token; 'tablet' needs the host token or a paired tablet."""
    allowed = {"host": {"host"}, "tablet": {"host", "tablet"}}[role]

    def deco(fn):
        @wraps(fn)
        def wrapper(*args, **kwargs):
            have = request_role()
            if have not in allowed:
                if not request.headers.get(TOKEN_HEADER):
                    raise APIError("this tablet is not paired: scan the pairing QR code on the host's page "
                                   f"(send the token in the {TOKEN_HEADER} header)",
                                   status=401, code="not_paired")
                if role == "host":
                    raise Forbidden("only the host may do this")
                raise Forbidden("this token is not paired with the current game; pair again")
            return fn(*args, **kwargs)
        return wrapper
    return deco
