"""``GET /api/events``: the live stream of the game as server-sent events.

Each logged game event is sent with ``id: GAME_ID:SEQ``; a tablet that reconnects (EventSource does
so by itself, sending ``Last-Event-ID``) receives every event it missed from the durable log, so
no tablet ever misses a change.  ``?since=SEQ`` does the same for a first connection.  If the game
changed in between, the stream says ``event: reset`` and starts the new game's log from the start.
Short-lived news (camera lost, a roll read and waiting to be confirmed) arrives as
``event: notice`` without an id.  A comment line is sent every 15 s to keep idle links open.
Each stream starts with ``event: hello`` carrying the server's ``boot_id`` (new at every start), so
a page that reconnects to a restarted server knows at once to look at the whole state again.

Streams do not hold request workers (``web.streaming`` serves each on a thread of its own), and
there are at most ``SSE_MAX_STREAMS`` of them in all and ``SSE_MAX_PER_CLIENT`` per client address:
one more is refused with ``503 too_many_streams``.  A stream ends soon after its client leaves
(it checks every ``SSE_CHECK_S`` seconds, and a keep-alive write to a closed socket fails).
"""

from __future__ import annotations

import json
import threading
from collections import Counter

from flask import Blueprint, Response, current_app, request

from .errors import APIError
from .jsonable import jsonable
from .streaming import MAX_STREAMS, MAX_STREAMS_PER_CLIENT

bp = Blueprint("events", __name__)

KEEPALIVE_S = 15.0
CHECK_S = 3.0  # how often an idle stream checks that its client is still there


class StreamCount:
    """Open live streams, in all and per client address (``app.extensions["streams"]``)."""

    def __init__(self):
        self._lock = threading.Lock()
        self.by_client: Counter[str] = Counter()

    @property
    def total(self) -> int:
        return sum(self.by_client.values())

    def open(self, client: str, max_total: int, max_client: int):
        """Count one more stream from ``client`` and return its release function, or refuse."""
        with self._lock:
            if self.total >= max_total:
                raise APIError(
                    f"the server has {max_total} live streams open, its limit; close a page and retry",
                    status=503,
                    code="too_many_streams",
                )
            if self.by_client[client] >= max_client:
                raise APIError(
                    f"this address has {max_client} live streams open, the limit per "
                    "client; close a page and retry",
                    status=503,
                    code="too_many_streams",
                )
            self.by_client[client] += 1
        released = threading.Event()

        def release() -> None:
            if released.is_set():
                return
            released.set()
            with self._lock:
                self.by_client[client] -= 1
                if self.by_client[client] <= 0:
                    del self.by_client[client]

        return release


def stream_count() -> StreamCount:
    return current_app.extensions.setdefault("streams", StreamCount())


def _parse_last_id(text: str | None) -> tuple[str | None, int]:
    if not text:
        return None, 0
    gid, _, seq = text.rpartition(":")
    try:
        n = int(seq)
    except ValueError:
        raise APIError(
            f"Last-Event-ID / since must be GAME:SEQ or SEQ, got {text[:40]!r}", field="since"
        ) from None
    if n < 0:
        raise APIError("since must not be negative", field="since")
    return (gid or None), n


def _sse(event: str, data, event_id: str | None = None) -> str:
    head = f"id: {event_id}\n" if event_id else ""
    return f"{head}event: {event}\ndata: {json.dumps(jsonable(data), separators=(',', ':'))}\n\n"


@bp.get("/api/events")
def stream():
    store = current_app.extensions["game_store"]
    gid, seq = _parse_last_id(request.headers.get("Last-Event-ID") or request.args.get("since"))
    config = current_app.config
    keepalive = float(config.get("SSE_KEEPALIVE_S", KEEPALIVE_S))
    check = min(keepalive, float(config.get("SSE_CHECK_S", CHECK_S)))
    gone = request.environ.get("waitress.client_disconnected") or (lambda: False)
    release = stream_count().open(
        request.remote_addr or "?",
        int(config.get("SSE_MAX_STREAMS") or MAX_STREAMS),
        int(config.get("SSE_MAX_PER_CLIENT") or MAX_STREAMS_PER_CLIENT),
    )

    boot_id = config.get("BOOT_ID")

    def generate():
        nonlocal gid, seq
        nid = store.last_notice_id()
        yield "retry: 1000\n\n" + _sse("hello", {"boot_id": boot_id})
        while not store.closing and not gone():
            current, frames = store.frames_since(seq)
            if gid is not None and current != gid:
                yield _sse("reset", {"game_id": current})
                seq = 0
                current, frames = store.frames_since(0)
            gid = current
            for n, text in frames:
                seq = n
                yield f"id: {gid}:{n}\nevent: game\ndata: {text}\n\n"
            for notice in store.notices_since(nid):
                nid = notice["nid"]
                yield _sse("notice", notice)
            before = (store.last_seq, store.last_notice_id(), store.game_id)
            waited = 0.0
            while waited < keepalive and not store.closing and not gone():
                store.wait(seq, nid, check)
                if (store.last_seq, store.last_notice_id(), store.game_id) != before:
                    break
                waited += check
            else:
                if not store.closing and not gone():
                    yield ": keepalive\n\n"

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    resp = Response(generate(), mimetype="text/event-stream", headers=headers)
    resp.call_on_close(release)
    return resp
