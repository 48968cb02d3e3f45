"""Live streams that never take a request worker: waitress options for ``web.server.Server``.

waitress serves each request on one of a fixed pool of worker threads, and a server-sent-event
stream (``GET /api/events``) keeps its thread for as long as the page is open.  With streams
sharing that pool, as many open pages as workers (32 with the old settings, needing no token)
stopped the whole server.  Here:

* ``StreamDispatcher`` serves ordinary requests on waitress's fixed pool of request workers and
  each live stream on a thread of its own from a separate, bounded stream pool (a thread blocked in
  a condition wait costs a little memory, no CPU), so open streams never queue a page request;
* ``web.events`` refuses more than ``SSE_MAX_STREAMS`` streams in all and ``SSE_MAX_PER_CLIENT``
  per client address (``503 too_many_streams``);
* a stream whose client left is ended: waitress reads ahead on the connection
  (``channel_request_lookahead``) so it notices a closed socket, the stream checks for that every
  few seconds and writes a keep-alive comment every 15 s, and every connection has TCP keep-alive
  and a TCP user time-out (a tablet that left the network without closing is dropped once a write
  to it stays unacknowledged for 45 s);
* the connection limit and poll(2) (instead of select(2), which stops at 1024 descriptors) leave
  room for the streams and the pages.
"""

from __future__ import annotations

import socket
import threading

from waitress.task import ThreadedTaskDispatcher

STREAM_PATHS = frozenset({"/api/events"})
MAX_STREAMS = 1000  # open live streams in all
MAX_STREAMS_PER_CLIENT = 32  # open live streams from one client address


def tcp_options() -> list[tuple[int, int, int]]:
    """Options of the listening socket (Linux copies them to each accepted connection): no Nagle
    delay; keep-alive probes after 30 s idle; unacknowledged data dropped after 45 s."""
    opts = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1), (socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)]
    for name, value in (
        ("TCP_KEEPIDLE", 30),
        ("TCP_KEEPINTVL", 10),
        ("TCP_KEEPCNT", 3),
        ("TCP_USER_TIMEOUT", 45_000),
    ):
        if hasattr(socket, name):
            opts.append((socket.IPPROTO_TCP, getattr(socket, name), value))
    return opts


class StreamDispatcher(ThreadedTaskDispatcher):
    """waitress's pool of request workers for ordinary requests, plus a thread per live stream.

    A request for one of ``stream_paths`` is served on a thread started for it and ended with it,
    at most ``max_stream_threads`` at once (more wait in a queue of their own, never in the request
    queue).  Ordinary requests keep the fixed pool to themselves.
    """

    def __init__(self, stream_paths=STREAM_PATHS, max_stream_threads: int = MAX_STREAMS + 64):
        super().__init__()
        self.stream_paths = frozenset(stream_paths)
        self.max_stream_threads = max_stream_threads
        self._stream_lock = threading.Lock()
        self._stream_queue: list = []
        self.stream_threads = 0
        self._stream_no = 0

    def is_stream(self, task) -> bool:
        requests = getattr(task, "requests", None)
        request = requests[0] if requests else None
        return request is not None and not request.error and request.path in self.stream_paths

    def add_task(self, task) -> None:
        if not self.is_stream(task):
            super().add_task(task)
            return
        with self._stream_lock:
            if self.stream_threads >= self.max_stream_threads:
                self._stream_queue.append(task)
                return
            self.stream_threads += 1
            self._stream_no += 1
            name = f"stream-{self._stream_no}"
        threading.Thread(target=self._serve_streams, args=(task,), name=name, daemon=True).start()

    def _serve_streams(self, task) -> None:
        while task is not None:
            try:
                task.service()
            except BaseException:
                self.logger.exception("Exception when servicing %r", task)
            with self._stream_lock:
                task = self._stream_queue.pop(0) if self._stream_queue else None
                if task is None:
                    self.stream_threads -= 1

    def shutdown(self, cancel_pending: bool = True, timeout: float = 5) -> bool:
        with self._stream_lock:
            queued, self._stream_queue = self._stream_queue, []
        for task in queued:
            task.cancel()
        return super().shutdown(cancel_pending=cancel_pending, timeout=timeout)


def server_options(app, threads: int, max_streams: int | None = None) -> dict:
    """Extra ``waitress.create_server`` arguments: the stream-aware dispatcher (with ``threads``
    request workers), room for ``max_streams`` open streams, poll(2), read-ahead (``tune`` adds
    the TCP options once the server is made)."""
    max_streams = int(max_streams or app.config.get("SSE_MAX_STREAMS") or MAX_STREAMS)
    app.config["SSE_MAX_STREAMS"] = max_streams
    dispatcher = StreamDispatcher(max_stream_threads=max_streams + 64)
    dispatcher.set_thread_count(threads)
    return {
        "_dispatcher": dispatcher,
        "connection_limit": max_streams + 4 * threads + 100,
        "asyncore_use_poll": True,
        "channel_request_lookahead": 1,
    }


def tune(wsgi) -> None:
    """Give every connection the server accepts from now on the TCP options of ``tcp_options``."""
    wsgi.adj.socket_options = tcp_options()
