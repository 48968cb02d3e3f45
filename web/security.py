"""Who may change the game: the host token, per-game pairing codes and paired tablets.

* The **host token** is kept with the game, in a small SQLite file beside the game database
  (``GAME.sqlite.tablets``, readable by its owner only), so a restarted server on the same game file
  prints the same host URL and an open host page keeps working.  ``companion serve
  --rotate-host-token`` replaces it; pages holding an old host token are told to open the host URL
  the server printed again.  Whoever opens that URL is the host: they see the pairing code and may
  do everything.
* Each game has a **pairing code** (shown as a QR code on the host's page).  A tablet that sends the
  code to ``POST /api/pair`` receives a **tablet token** for that game.  Only the host replaces the
  code (``POST /api/pairing/rotate``); each change is pushed to the host pages on the live stream.
* Guessing is limited per client address (``GuessLimiter``): after ``PAIRING_TRIES`` wrong codes
  within ``PAIRING_WINDOW_S`` seconds that address gets ``429`` with ``Retry-After`` and no code is
  checked until the window has passed.  Wrong guesses never change the code, so strangers cannot
  unpair anyone or make the host's QR code stale.
* Tokens travel in the ``X-Companion-Token`` header, never in a cookie, so a page on another site
  cannot make a browser change the game (no CSRF).  Requests without a valid token are read-only.

Tablet tokens are stored hashed (SHA-256), so tablets stay paired across a server restart.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import os
import secrets
import sqlite3
import threading
import time
from collections import deque
from functools import wraps
from pathlib import Path

from flask import Flask, current_app, g, request

from .errors import APIError, Forbidden

TOKEN_HEADER = "X-Companion-Token"
PAIRING_ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"  # no 0/O, 1/I
PAIRING_LENGTH = 6
PAIRING_TRIES = 5  # wrong codes allowed per client address ...
PAIRING_WINDOW_S = 60.0  # ... within this many seconds

_SCHEMA = """
CREATE TABLE IF NOT EXISTS pairing (game_id TEXT PRIMARY KEY, code TEXT NOT NULL, failures INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS tablets (
    token_hash TEXT PRIMARY KEY, game_id TEXT NOT NULL, name TEXT NOT NULL, paired_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS host (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL, made_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS retired_host_tokens (token_hash TEXT PRIMARY KEY, retired_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS unpaired_tablets (token_hash TEXT PRIMARY KEY, unpaired_at REAL NOT NULL);
"""

# What a page is told when its token does not give it the role it had (see Access.token_status).
ADVICE = {
    "old_host": "This page holds an old host token (the host token was replaced): open the host URL "
    "printed by the server again.",
    "other_game": "This tablet was paired with an earlier game: pair again by scanning the QR code on "
    "the host's Pairing page.",
    "unknown": "This tablet is no longer paired (the host made a new pairing code): pair again by "
    "scanning the QR code on the host's Pairing page.",
    "not_valid": "This token is not valid here (no host or tablet token of this table): pair this tablet "
    "by scanning the QR code on the Pairing page of the host, or open the host URL printed by the server.",
}


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_pairing_code() -> str:
    return "".join(secrets.choice(PAIRING_ALPHABET) for _ in range(PAIRING_LENGTH))


class TooManyTries(APIError):
    status = 429
    code = "too_many_tries"


class GuessLimiter:
    """At most ``tries`` pairing codes per client within a sliding window of ``window`` s; a right
    code forgets the client's tries, so only wrong codes add up."""

    def __init__(self, tries: int = PAIRING_TRIES, window: float = PAIRING_WINDOW_S, clock=time.monotonic):
        self.tries, self.window, self.clock = tries, window, clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, who: str, now: float) -> deque[float]:
        q = self._failures.get(who, deque())
        while q and q[0] <= now - self.window:
            q.popleft()
        return q

    def attempt(self, who: str) -> float:
        """Count a try by ``who`` at once (so parallel tries cannot slip past the limit together):
        0 when it may go ahead, else the seconds to wait (and nothing is counted)."""
        with self._lock:
            now = self.clock()
            if len(self._failures) > 4096:  # forget clients whose window has passed
                self._failures = {k: q for k, q in self._failures.items() if self._recent(k, now)}
            q = self._recent(who, now)
            if len(q) >= self.tries:
                return q[len(q) - self.tries] + self.window - now
            q.append(now)
            self._failures[who] = q
            return 0.0

    def left(self, who: str) -> int:
        """Tries ``who`` has left in the window."""
        with self._lock:
            return max(self.tries - len(self._recent(who, self.clock())), 0)

    def succeeded(self, who: str) -> None:
        """A right code: the tries counted for ``who`` are forgotten."""
        with self._lock:
            self._failures.pop(who, None)


class Access:
    """Host token, pairing codes and tablet tokens (``init_app`` stores it in ``app.extensions``).

    ``host_token`` given: it becomes the stored host token.  ``rotate``: a new random one replaces
    the stored one.  Otherwise the stored token is kept (made once, on the first start)."""

    def __init__(
        self,
        state_path: str | Path | None = None,
        host_token: str | None = None,
        rotate: bool = False,
        limiter: GuessLimiter | None = None,
    ):
        self._lock = threading.Lock()
        if state_path is not None:  # it holds the host token: readable by its owner only
            Path(state_path).touch(mode=0o600)
            os.chmod(state_path, 0o600)
        self._db = sqlite3.connect(str(state_path or ":memory:"), check_same_thread=False)
        self._db.executescript(_SCHEMA)
        self.limiter = limiter or GuessLimiter()
        self.pairing_rev = 0  # grows with every new pairing code (pages compare it)
        self.host_token = self._keep_host_token(host_token, rotate)

    def _keep_host_token(self, wanted: str | None, rotate: bool) -> str:
        with self._lock, self._db:
            row = self._db.execute("SELECT token FROM host WHERE id = 1").fetchone()
            stored = row[0] if row else None
            token = wanted or (None if rotate else stored) or secrets.token_urlsafe(24)
            if stored and stored != token:
                self._db.execute(
                    "INSERT OR REPLACE INTO retired_host_tokens VALUES (?, ?)", (_hash(stored), time.time())
                )
            self._db.execute(
                "INSERT OR REPLACE INTO host(id, token, made_at) VALUES (1, ?, ?)", (token, time.time())
            )
            self._db.execute("DELETE FROM retired_host_tokens WHERE token_hash = ?", (_hash(token),))
        return token

    def init_app(self, app: Flask) -> None:
        app.extensions["access"] = self
        self.limiter = GuessLimiter(
            int(app.config.get("PAIRING_TRIES", PAIRING_TRIES)),
            float(app.config.get("PAIRING_WINDOW_S", PAIRING_WINDOW_S)),
        )

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
        """A new code for game_id (the host's choice only: wrong guesses never replace it)."""
        with self._lock, self._db:
            code = new_pairing_code()
            self._db.execute(
                "INSERT OR REPLACE INTO pairing(game_id, code, failures) VALUES (?, ?, 0)", (game_id, code)
            )
            self.pairing_rev += 1
            return code

    def pair(self, game_id: str, code: str, name: str, client: str = "?") -> str:
        """A new tablet token for game_id if code is its pairing code; APIError otherwise.

        ``client`` (the remote address) is limited to PAIRING_TRIES wrong codes per window."""
        wait = self.limiter.attempt(client)
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            err = TooManyTries(
                f"too many wrong pairing codes from this device: wait {seconds} s, then type "
                "the code shown on the host's Pairing page (or scan its QR code)",
                field="code",
            )
            err.headers = {"Retry-After": str(seconds)}
            raise err
        expected = self.pairing_code(game_id)
        if not hmac.compare_digest(code.strip().upper().encode(), expected.encode()):
            left = self.limiter.left(client)
            raise Forbidden(
                "wrong pairing code for this game (see the QR code on the host's Pairing page"
                f"; {left} more tries allowed now)",
                code="wrong_pairing_code",
                field="code",
            )
        self.limiter.succeeded(client)
        return self.grant(game_id, name)

    def grant(self, game_id: str, name: str) -> str:
        token = secrets.token_urlsafe(24)
        with self._lock, self._db:
            self._db.execute(
                "INSERT INTO tablets(token_hash, game_id, name, paired_at) VALUES (?, ?, ?, ?)",
                (_hash(token), game_id, name, time.time()),
            )
        return token

    def tablets(self, game_id: str) -> list[dict]:
        rows = self._db.execute(
            "SELECT name, paired_at FROM tablets WHERE game_id = ? ORDER BY paired_at", (game_id,)
        ).fetchall()
        return [{"name": n, "paired_at": t} for n, t in rows]

    def revoke_all(self, game_id: str) -> int:
        """Unpair every tablet of game_id (a new pairing code); their tokens are remembered as unpaired."""
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO unpaired_tablets SELECT token_hash, ? FROM tablets WHERE game_id = ?",
                (time.time(), game_id),
            )
            return self._db.execute("DELETE FROM tablets WHERE game_id = ?", (game_id,)).rowcount

    def move_tablets(self, from_game: str, to_game: str) -> int:
        """The table switched games (web.games): tablets paired with from_game are paired with
        to_game instead, so no tablet is stranded by the host's switch."""
        with self._lock, self._db:
            return self._db.execute(
                "UPDATE tablets SET game_id = ? WHERE game_id = ?", (to_game, from_game)
            ).rowcount

    # -- roles -----------------------------------------------------------------------------
    def role(self, token: str | None, game_id: str | None) -> str:
        """'host', 'tablet' (paired to game_id) or 'viewer'."""
        if not token:
            return "viewer"
        if hmac.compare_digest(token.encode(), self.host_token.encode()):
            return "host"
        if game_id is None:
            return "viewer"
        row = self._db.execute(
            "SELECT 1 FROM tablets WHERE token_hash = ? AND game_id = ?", (_hash(token), game_id)
        ).fetchone()
        return "tablet" if row else "viewer"

    def token_status(self, token: str | None, game_id: str | None) -> str:
        """What a page's token is: 'none', 'host', 'tablet', or why it gives no role: 'old_host' (a
        replaced host token), 'other_game' (a tablet of an earlier game), 'unknown' (a tablet unpaired by a
        new pairing code), 'not_valid' (a token this table never gave)."""
        role = self.role(token, game_id)
        if role != "viewer":
            return role
        if not token:
            return "none"
        h = _hash(token)
        if self._db.execute("SELECT 1 FROM retired_host_tokens WHERE token_hash = ?", (h,)).fetchone():
            return "old_host"
        if self._db.execute("SELECT 1 FROM tablets WHERE token_hash = ?", (h,)).fetchone():
            return "other_game"
        if self._db.execute("SELECT 1 FROM unpaired_tablets WHERE token_hash = ?", (h,)).fetchone():
            return "unknown"
        return "not_valid"

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
                    raise APIError(
                        "this tablet is not paired: scan the pairing QR code on the host's page "
                        f"(send the token in the {TOKEN_HEADER} header)",
                        status=401,
                        code="not_paired",
                    )
                if have == "tablet":
                    raise Forbidden("only the host may do this")
                status = access().token_status(
                    request.headers.get(TOKEN_HEADER), current_app.extensions["game_store"].game_id
                )
                raise Forbidden(ADVICE.get(status, ADVICE["not_valid"]), code="token_not_valid")
            return fn(*args, **kwargs)

        return wrapper

    return deco
