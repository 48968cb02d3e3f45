"""Serve the app with waitress (a production WSGI server) and tell the user where it is.

``Server`` binds at once (so the port is known, even with ``--port 0``), prints the host URL with
its token (as Jupyter does) and a QR code for pairing a tablet, then serves in the calling thread
until ``stop()`` or Ctrl-C.  Live streams never hold a request worker: each gets a thread from a
separate bounded pool (``web.streaming``).
"""

from __future__ import annotations

import logging
import socket
import sys
import threading
import time

from flask import Flask

log = logging.getLogger("companion.web")


def lan_address() -> str:
    """This machine's address on the local network (no packet is sent)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


class Server:
    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 8765, threads: int = 32):
        from waitress import create_server

        self.app = app
        self.host = host
        from .streaming import server_options, tune

        # live streams get threads of their own (web.streaming); ``threads`` serve the other requests
        self.wsgi = create_server(app, host=host, port=port, threads=threads, ident="companion",
                                  channel_timeout=60, clear_untrusted_proxy_headers=True,
                                  **server_options(app, threads))
        tune(self.wsgi)
        self.port = self.wsgi.effective_port
        shown = lan_address() if host in ("0.0.0.0", "::", "") else host
        self.base_url = f"http://{shown}:{self.port}"
        app.config["PUBLIC_URL"] = app.config.get("PUBLIC_URL") or self.base_url
        self._stopping = threading.Event()

    @property
    def host_url(self) -> str:
        return f"{self.base_url}/?token={self.app.extensions['access'].host_token}"

    def pair_url(self) -> str | None:
        store = self.app.extensions["game_store"]
        if store.game_id is None:
            return None
        code = self.app.extensions["access"].pairing_code(store.game_id)
        return f"{self.base_url}/#pair={code}"

    def banner(self, out=None) -> None:
        from .qr import qr_terminal

        out = out or sys.stdout
        print(f"Companion is serving at {self.base_url}", file=out)
        print(f"Open this URL to run the game (it carries the host token):\n    {self.host_url}", file=out)
        pair = self.pair_url()
        if pair:
            print(f"Pair a tablet by scanning this QR code (or open {pair}):", file=out)
            print(qr_terminal(pair), file=out)
        if self.host in ("127.0.0.1", "localhost", "::1"):
            print("Listening on this machine only; use --host 0.0.0.0 to let tablets on the network in.",
                  file=out)
        out.flush()

    def serve_forever(self, seconds: float | None = None) -> None:
        """Serve in this thread until stop(), Ctrl-C or ``seconds`` have passed.

        The loop polls in short rounds and checks the stop flag between them, so stopping needs no
        signal: a demo started in the background (where SIGINT is ignored) still ends on time.
        """
        if seconds is not None:
            threading.Thread(target=self._stop_after, args=(seconds,), daemon=True).start()
        wsgi = self.wsgi
        loop_map = getattr(wsgi, "_map", None)
        if loop_map is None:  # waitress's multi-socket server keeps its map public
            loop_map = wsgi.map
        try:
            while not self._stopping.is_set() and loop_map:
                wsgi.asyncore.loop(timeout=0.25, map=loop_map, use_poll=wsgi.adj.asyncore_use_poll, count=1)
        except KeyboardInterrupt:
            pass
        finally:
            self.shutdown()

    def _stop_after(self, seconds: float) -> None:
        if not self._stopping.wait(seconds):
            self.stop()

    def stop(self) -> None:
        """Stop serving (from any thread): close the live streams, then let the loop end."""
        if self._stopping.is_set():
            return
        self._stopping.set()
        self.app.extensions["game_store"].close()
        trigger = getattr(self.wsgi, "pull_trigger", None)
        if trigger is not None:  # wake the loop now rather than at the end of its round
            trigger()

    def shutdown(self) -> None:
        self._stopping.set()
        self.app.extensions["game_store"].close()
        self.app.extensions["sources"].stop()
        try:
            self.wsgi.task_dispatcher.shutdown(cancel_pending=True, timeout=3)
        except Exception:  # closing down: nothing more to do
            pass
        self.wsgi.close()
        time.sleep(0.05)
