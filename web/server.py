"""Serve the app with waitress (a production WSGI server) and tell the user where it is.

``Server`` binds at once (so the port is known, even with ``--port 0``; a busy port is an error,
never a silent move to another one), prints the host URL with its token (as Jupyter does) and a QR
code for pairing a tablet, then serves in the calling thread until ``stop()`` or Ctrl-C.  Live
streams never hold a request worker: each gets a thread from a separate bounded pool (``web.streaming``).

Where tablets can reach the server: listening on every interface (``0.0.0.0``, what ``companion
serve`` does) the QR code carries this machine's local-network address; listening on this machine
only (``127.0.0.1``, what ``companion demo`` does) no tablet can reach it, so no QR code is shown
anywhere and ``tablet_reach`` says what to do instead.

With ``--https`` (config ``TLS_DIR``) waitress listens on loopback and ``web.tls``'s front serves
https on the address with the table's own certificate (``web.certs``); the URLs are https and the
banner says where each device trusts the certificate once (``/trust``).
"""

from __future__ import annotations

import logging
import sys
import threading
import time

from flask import Flask

from .lan import ALL_INTERFACES, is_loopback, lan_address

log = logging.getLogger("companion.web")


def tablet_reach(public_url: str | None, listen_host: str | None) -> str | None:
    """None when a tablet on the network can open ``public_url``; otherwise what to do instead.

    ``listen_host`` is the address the server listens on (None when not known, as in tests that
    use Flask's test client)."""
    from urllib.parse import urlsplit

    if listen_host is not None and listen_host not in ALL_INTERFACES and is_loopback(listen_host):
        return (
            "This server listens on this machine only, so no tablet can reach it. Stop it (Ctrl-C) "
            "and start `companion serve` (it listens on the local network), or add --host 0.0.0.0; "
            "then scan the QR code shown here with the tablet."
        )
    if public_url and is_loopback(urlsplit(public_url).hostname):
        return (
            "This machine has no local network address a tablet could reach: connect it to the "
            "table's Wi-Fi and restart `companion serve`, or give the address tablets use with "
            "--public-url http://ADDRESS:PORT."
        )
    return None


class Server:
    def __init__(self, app: Flask, host: str = "0.0.0.0", port: int = 8765, threads: int = 32, lock=None):
        """Bind host:port (OSError if it is taken); ``lock`` (a GameFileLock) is released on shutdown."""
        from waitress import create_server

        self.app = app
        self.host = host
        self.lock = lock
        from .streaming import server_options, tune

        # --https (config TLS_DIR): waitress listens on loopback, web.tls's front on host:port
        https = bool(app.config.get("TLS_DIR"))
        # live streams get threads of their own (web.streaming); ``threads`` serve the other requests
        self.wsgi = create_server(
            app,
            host="127.0.0.1" if https else host,
            port=0 if https else port,
            threads=threads,
            ident="companion",
            channel_timeout=60,
            clear_untrusted_proxy_headers=True,
            **server_options(app, threads),
        )
        tune(self.wsgi)
        self.front = None
        if https:
            from .tls import attach

            try:
                self.front = attach(self, host, port)  # binds host:port; makes the table's certificate
            except BaseException:
                self.wsgi.close()
                raise
        self.port = self.front.port if self.front else self.wsgi.effective_port
        shown = lan_address() if host in ALL_INTERFACES else host
        if ":" in shown:
            shown = f"[{shown}]"
        self.base_url = f"{'https' if https else 'http'}://{shown}:{self.port}"
        app.config["PUBLIC_URL"] = app.config.get("PUBLIC_URL") or self.base_url
        app.config["LISTEN_HOST"] = host
        if https:
            from .tls import trust_url

            app.config["TRUST_URL"] = trust_url(app.config["PUBLIC_URL"])
        if lock is not None:
            lock.note(self.base_url)
        self._stopping = threading.Event()

    @property
    def reach_problem(self) -> str | None:
        """Why tablets cannot reach this server (None when they can)."""
        return tablet_reach(self.app.config["PUBLIC_URL"], self.host)

    @property
    def host_url(self) -> str:
        return f"{self.base_url}/?token={self.app.extensions['access'].host_token}"

    def pair_url(self) -> str | None:
        store = self.app.extensions["game_store"]
        if store.game_id is None:
            return None
        code = self.app.extensions["access"].pairing_code(store.game_id)
        return f"{self.app.config['PUBLIC_URL']}/#pair={code}"

    def banner(self, out=None) -> None:
        """Where to open the game: the host URL, then how tablets pair (the QR code only where a
        tablet can reach it), and how to stop."""
        from .qr import qr_terminal

        out = out or sys.stdout
        where = (
            "this machine only"
            if self.host not in ALL_INTERFACES and is_loopback(self.host)
            else "the local network"
        )
        print(f"Companion is serving at {self.base_url} (listening on {where})", file=out)
        print(
            f"Host: open this URL to run the game (it carries the host token, which stays the same "
            f"when the server restarts on this game file; keep it private):\n    {self.host_url}",
            file=out,
        )
        if self.front is not None:
            cert = self.app.extensions["tls_certificate"]
            print(
                f"https with the table's own certificate ({cert.folder}). Each tablet or phone trusts it once: "
                f"open {self.app.config['TRUST_URL']} there and follow the steps (certificate SHA-256 "
                f"{cert.fingerprint}).",
                file=out,
            )
        problem = self.reach_problem
        pair = self.pair_url()
        if problem:
            print(f"Tablets cannot pair yet. {problem}", file=out)
        elif pair:
            print(
                "Tablets: join the same Wi-Fi as this machine, then scan this QR code with the tablet's "
                f"camera (or open {pair}):",
                file=out,
            )
            print(qr_terminal(pair), file=out)
        else:
            print(
                "Tablets: start a game on the host page; its Pairing page then shows a QR code to scan.",
                file=out,
            )
        print("Stop the server with Ctrl-C.", file=out)
        out.flush()

    def serve_forever(self, seconds: float | None = None) -> None:
        """Serve in this thread until stop(), Ctrl-C or ``seconds`` have passed.

        The loop polls in short rounds and checks the stop flag between them, so stopping needs no
        signal: a demo started in the background (where SIGINT is ignored) still ends on time.
        """
        if seconds is not None:
            threading.Thread(target=self._stop_after, args=(seconds,), daemon=True).start()
        wsgi = self.wsgi
        if self.front is not None:
            self.front.start()
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
            try:
                trigger()
            except OSError:  # the loop saw the flag first and has closed its trigger already
                pass

    def shutdown(self) -> None:
        self._stopping.set()
        self.app.extensions["game_store"].close()
        self.app.extensions["sources"].stop()
        if self.front is not None:
            self.front.stop()
        try:
            self.wsgi.task_dispatcher.shutdown(cancel_pending=True, timeout=3)
        except Exception:  # closing down: nothing more to do
            pass
        self.wsgi.close()
        if self.lock is not None:
            self.lock.release()
        time.sleep(0.05)
