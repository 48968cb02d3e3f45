"""https in front of waitress (``companion serve --https``): a TLS-terminating front on the public port.

waitress has no TLS, so with ``--https`` it listens on loopback only and ``TLSFront`` owns the public
address.  The front is an asyncio loop (stdlib ``asyncio`` streams and ``ssl``) in one thread:

* each connection's first byte says what it is: ``0x16`` (a TLS ClientHello) is wrapped in TLS with
  the table's certificate (``web.certs``); anything else is plain http on the same port, passed on
  marked ``http`` so the app redirects it to https (``RedirectToHTTPS``), except the trust page and
  the CA download (``web.certs.TRUST_PATHS``), which a device needs before it trusts the CA;
* bytes are piped both ways as they come (a live stream's event reaches the tablet at once; writes
  wait for the slower side, so memory stays bounded); when either side closes, both are closed;
* a connection opens with one line to waitress naming the client's address and scheme, signed with
  a per-run secret (``ProxiedChannel`` reads it), so the app still sees each tablet's own address
  (pairing guess limits and stream caps are per client) and whether it came over https;
* at most ``max_connections`` connections at once (more are closed at once), a TLS handshake or a
  first byte must come within ``handshake_timeout`` s, connections get ``web.streaming``'s TCP
  options (a tablet that vanished is dropped), and ``stop()`` closes everything and ends the thread.

``attach(server)`` makes the certificate and puts the front before a ``web.server.Server``.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import ipaddress
import logging
import secrets
import socket
import ssl
import threading

from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser

from .lan import ALL_INTERFACES, lan_address

log = logging.getLogger("companion.web.tls")

TLS_RECORD_HANDSHAKE = 0x16
PREAMBLE = b"COMPANION-FRONT"
PREAMBLE_MAX = 200


def client_host(addr) -> str:
    """The client's address as the app should see it (an IPv4-mapped IPv6 address as IPv4)."""
    host = addr[0]
    try:
        ip = ipaddress.ip_address(host.split("%")[0])
    except ValueError:
        return host
    mapped = getattr(ip, "ipv4_mapped", None)
    return str(mapped) if mapped else host


def preamble(secret: str, scheme: str, addr) -> bytes:
    return b"%s %s %s %s %d\r\n" % (
        PREAMBLE,
        secret.encode(),
        scheme.encode(),
        client_host(addr).encode(),
        int(addr[1]),
    )


# ---------------------------------------------------------------------------------------------
# waitress's side: a channel that reads the front's line first


class _SchemeParser(HTTPRequestParser):
    scheme = "http"

    def parse_header(self, header_plus):
        super().parse_header(header_plus)
        self.url_scheme = self.scheme


class ProxiedChannel(HTTPChannel):
    """A waitress channel whose connection comes from ``TLSFront``: its first line (with the
    server's ``front_secret``) gives the client's address and the scheme; a connection without a
    right line is closed before anything is parsed."""

    def __init__(self, server, sock, addr, adj, map=None):
        super().__init__(server, sock, addr, adj, map=map)
        self._front_buffer = b""
        self._front_known = False

    def received(self, data):
        if self._front_known or not data:
            return super().received(data)
        data = self._front_buffer + data
        end = data.find(b"\r\n")
        if end < 0:
            if len(data) > PREAMBLE_MAX:
                self.handle_close()
                return False
            self._front_buffer = data
            return True
        if not self._read_front_line(data[:end]):
            log.warning("closed a loopback connection that did not come from the https front")
            self.handle_close()
            return False
        self._front_known, self._front_buffer = True, b""
        rest = data[end + 2 :]
        return super().received(rest) if rest else True

    def _read_front_line(self, line: bytes) -> bool:
        parts = line.split(b" ")
        if len(parts) != 5 or parts[0] != PREAMBLE:
            return False
        secret = getattr(self.server, "front_secret", "").encode()
        if not secret or not hmac.compare_digest(parts[1], secret) or parts[2] not in (b"http", b"https"):
            return False
        try:
            host, port = parts[3].decode("ascii"), int(parts[4])
            ipaddress.ip_address(host)
        except ValueError:
            return False
        self.addr = (host, port)
        scheme = parts[2].decode()
        parser = type("Parser", (_SchemeParser,), {"scheme": scheme})
        self.parser_class = parser
        return True


# ---------------------------------------------------------------------------------------------
# the app's side: plain http goes to https


class RedirectToHTTPS:
    """WSGI middleware: a request that came over plain http is sent to the same address over https
    (307, so a POST stays a POST), except ``allow``ed paths (the trust page and the CA download)."""

    def __init__(self, app, allow=()):
        self.app = app
        self.allow = frozenset(allow)

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO") or "/"
        if environ.get("wsgi.url_scheme") == "https" or path in self.allow:
            return self.app(environ, start_response)
        from urllib.parse import quote

        host = environ.get("HTTP_HOST") or f"{environ.get('SERVER_NAME', 'localhost')}"
        query = environ.get("QUERY_STRING")
        location = f"https://{host}{quote(path)}" + (f"?{query}" if query else "")
        body = (
            f"This table serves https: {location}\nIf the browser warns about the certificate, "
            f"trust the table's certificate first: http://{host}/trust\n"
        ).encode()
        start_response(
            "307 Temporary Redirect",
            [
                ("Location", location),
                ("Content-Type", "text/plain"),
                ("Content-Length", str(len(body))),
                ("Cache-Control", "no-store"),
            ],
        )
        return [body]


# ---------------------------------------------------------------------------------------------
# the front


class TLSFront:
    """Listens on ``host:port`` (bound at once: ``OSError`` when busy) and pipes each connection to
    the waitress server on ``127.0.0.1:backend_port``; ``start()`` runs it in a thread of its own."""

    def __init__(
        self,
        host: str,
        port: int,
        backend_port: int,
        context: ssl.SSLContext,
        secret: str,
        max_connections: int = 1200,
        handshake_timeout: float = 10.0,
        socket_options=(),
    ):
        family = socket.AF_INET6 if ":" in (host or "") else socket.AF_INET
        self.sock = socket.create_server(
            (host, port),
            family=family,
            backlog=1024,
            dualstack_ipv6=family == socket.AF_INET6 and host in ("::", ""),
        )
        for level, name, value in socket_options:  # Linux copies them to every accepted connection
            with contextlib.suppress(OSError):
                self.sock.setsockopt(level, name, value)
        self.sock.setblocking(False)
        self.port = self.sock.getsockname()[1]
        self.backend = ("127.0.0.1", backend_port)
        self.context = context
        self.secret = secret
        self.max_connections = max_connections
        self.handshake_timeout = handshake_timeout
        self.connections = 0  # open now (read by tests and the bench)
        self.refused = 0  # closed at once because max_connections were open
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopped: asyncio.Event | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="https-front", daemon=True)
        self._thread.start()
        self._ready.wait(10)

    def stop(self, timeout: float = 5.0) -> None:
        """Close the listening socket and every connection; wait for the thread to end."""
        loop, stopped = self._loop, self._stopped
        if loop is not None and stopped is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopped.set)
        if self._thread is not None:
            self._thread.join(timeout)
        with contextlib.suppress(OSError):
            self.sock.close()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            loop.run_until_complete(self._main())
        finally:
            loop.close()

    async def _main(self) -> None:
        loop = asyncio.get_running_loop()
        self._stopped = asyncio.Event()
        tasks: set[asyncio.Task] = set()
        self._ready.set()
        accepting = asyncio.ensure_future(self._accept(loop, tasks))
        await self._stopped.wait()
        accepting.cancel()
        self.sock.close()
        for task in list(tasks):
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=3)
        with contextlib.suppress(asyncio.CancelledError):
            await accepting

    async def _accept(self, loop, tasks: set) -> None:
        while True:
            try:
                conn, addr = await loop.sock_accept(self.sock)
            except OSError as exc:  # e.g. out of descriptors: wait a little, keep serving
                log.warning("https front: accept failed: %s", exc)
                await asyncio.sleep(0.1)
                continue
            if self.connections >= self.max_connections:
                self.refused += 1
                conn.close()
                continue
            self.connections += 1
            task = asyncio.ensure_future(self._connection(loop, conn, addr))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

    async def _connection(self, loop, conn: socket.socket, addr) -> None:
        writer = backend_w = None
        try:
            first = await asyncio.wait_for(self._peek(loop, conn), self.handshake_timeout)
            if not first:
                return
            tls = first[0] == TLS_RECORD_HANDSHAKE
            reader = asyncio.StreamReader(limit=2**16)
            protocol = asyncio.StreamReaderProtocol(reader)
            transport, _ = await loop.connect_accepted_socket(
                lambda: protocol,
                conn,
                ssl=self.context if tls else None,
                ssl_handshake_timeout=self.handshake_timeout if tls else None,
            )
            conn = None  # the transport owns it now
            writer = asyncio.StreamWriter(transport, protocol, reader, loop)
            backend_r, backend_w = await asyncio.open_connection(*self.backend)
            backend_w.write(preamble(self.secret, "https" if tls else "http", addr))
            up = asyncio.ensure_future(self._pipe(reader, backend_w, half_close=True))
            down = asyncio.ensure_future(self._pipe(backend_r, writer))
            try:
                await down  # the backend's answer ends (or the client left): both are closed
            finally:
                up.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await up
        except (TimeoutError, OSError, ssl.SSLError, asyncio.IncompleteReadError):
            pass  # a client that left, never finished its handshake, or did not trust the certificate
        finally:
            self.connections -= 1
            if conn is not None:
                conn.close()
            for w in (writer, backend_w):
                if w is not None:
                    w.close()

    @staticmethod
    async def _peek(loop, conn: socket.socket) -> bytes:
        """The connection's first byte, left in the socket for whoever reads it next."""
        readable = loop.create_future()
        loop.add_reader(conn.fileno(), lambda: readable.done() or readable.set_result(None))
        try:
            await readable
        finally:
            loop.remove_reader(conn.fileno())
        return conn.recv(1, socket.MSG_PEEK)

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, half_close: bool = False):
        """Copy as bytes come (never waiting for a full buffer); at the end of the reader, end the
        writer (``half_close``: only its sending side, so an answer can still come back)."""
        try:
            while True:
                data = await reader.read(2**16)
                if not data:
                    break
                writer.write(data)
                await writer.drain()
            if half_close and writer.can_write_eof():
                writer.write_eof()
                return
        except (OSError, ssl.SSLError):
            pass
        writer.close()


# ---------------------------------------------------------------------------------------------
# wiring


def certificate_names(listen_host: str, public_url: str | None = None) -> tuple[list[str], list[str]]:
    """What the server certificate must cover (the LAN address, localhost, 127.0.0.1, a specific
    listening address, the host of ``--public-url``) and what it covers where the CA may (``::1``,
    this machine's names)."""
    from urllib.parse import urlsplit

    from .certs import machine_names

    names = [lan_address(), "localhost", "127.0.0.1"]
    if listen_host and listen_host not in ALL_INTERFACES:
        names.append(listen_host)
    if public_url and urlsplit(public_url).hostname:
        names.append(urlsplit(public_url).hostname)
    return names, ["::1", *machine_names()]


def attach(server, host: str, port: int):
    """Put an https front on ``host:port`` before ``server`` (a ``web.server.Server`` whose waitress
    listens on loopback): makes the certificate, reads the front's line on waitress's channels,
    redirects plain http, serves the trust page.  Returns the ``TLSFront`` (not started)."""
    from . import certs

    app, wsgi = server.app, server.wsgi
    cert = certs.table_certificate(
        app.config["TLS_DIR"], *certificate_names(host, app.config.get("PUBLIC_URL"))
    )
    app.extensions["tls_certificate"] = cert
    if "trust" not in app.blueprints:
        app.register_blueprint(certs.bp)
    app.wsgi_app = RedirectToHTTPS(app.wsgi_app, allow=certs.TRUST_PATHS)
    wsgi.front_secret = secrets.token_urlsafe(24)
    wsgi.channel_class = ProxiedChannel
    raise_file_limit(3 * wsgi.adj.connection_limit + 256)  # a connection: client + loopback, both ends
    return TLSFront(
        host,
        port,
        wsgi.effective_port,
        cert.server_context(),
        wsgi.front_secret,
        max_connections=wsgi.adj.connection_limit,
        socket_options=wsgi.adj.socket_options,
    )


def raise_file_limit(wanted: int) -> None:
    """Let this process open ``wanted`` descriptors where the hard limit allows (desktops often start
    at a soft limit of 1024, which hundreds of streams through the front would pass)."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY and soft < wanted:
            resource.setrlimit(
                resource.RLIMIT_NOFILE,
                (wanted if hard == resource.RLIM_INFINITY else min(wanted, hard), hard),
            )
    except (ImportError, ValueError, OSError) as exc:
        log.warning("could not raise the open-file limit to %d: %s", wanted, exc)


def trust_url(public_url: str) -> str:
    """The trust page at ``public_url``'s host and port over plain http (the front answers both)."""
    from urllib.parse import urlsplit

    return f"http://{urlsplit(public_url).netloc}/trust"
