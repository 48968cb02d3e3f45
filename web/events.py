"""``GET /api/events``: the live stream of the game as server-sent events.

Each logged game event is sent with ``id: GAME_ID:SEQ``; a tablet that reconnects (EventSource does
so by itself, sending ``Last-Event-ID``) receives every event it missed from the durable log, so
no tablet ever misses a change.  ``?since=SEQ`` does the same for a first connection.  If the game
changed in between, the stream says ``event: reset`` and starts the new game's log from the start.
Short-lived news (camera lost, a roll read and waiting to be confirmed) arrives as
``event: notice`` without an id.  A comment line is sent every 15 s to keep idle links open.
"""

from __future__ import annotations

import json

from flask import Blueprint, Response, current_app, request

from .errors import APIError
from .jsonable import jsonable

bp = Blueprint("events", __name__)

KEEPALIVE_S = 15.0


def _parse_last_id(text: str | None) -> tuple[str | None, int]:
    if not text:
        return None, 0
    gid, _, seq = text.rpartition(":")
    try:
        n = int(seq)
    except ValueError:
        raise APIError(f"Last-Event-ID / since must be GAME:SEQ or SEQ, got {text[:40]!r}",
                       field="since") from None
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
    keepalive = float(current_app.config.get("SSE_KEEPALIVE_S", KEEPALIVE_S))

    def generate():
        nonlocal gid, seq
        nid = store.last_notice_id()
        yield "retry: 1000\n\n"
        while not store.closing:
            current = store.game_id
            if gid is not None and current != gid:
                yield _sse("reset", {"game_id": current})
                seq = 0
            gid = current
            for event in store.events_since(seq):
                e = jsonable(event)
                seq = int(e["seq"])
                yield _sse("game", e, f"{gid}:{seq}")
            for notice in store.notices_since(nid):
                nid = notice["nid"]
                yield _sse("notice", notice)
            before = (store.last_seq, store.last_notice_id(), store.game_id)
            store.wait(seq, nid, keepalive)
            if (store.last_seq, store.last_notice_id(), store.game_id) == before:
                yield ": keepalive\n\n"

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(generate(), mimetype="text/event-stream", headers=headers)
