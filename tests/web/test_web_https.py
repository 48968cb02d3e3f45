"""``companion serve --https``: real server processes, clients that trust only the table's own CA.

The table makes a small CA and a server certificate (``web.certs``) beside the game file; a TLS
front (``web.tls``) serves https on the port and sends plain http there to https, except the trust
page and the CA download.  Checked here with real ``companion serve`` processes, Python clients
whose only trusted authority is the generated CA (hostname checked against the subjectAltName), a
live stream over TLS, a second client address, a restart, and real Chromium (secure context and
service worker), plus the certificate rules themselves (reuse, new addresses, bad folders).
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import re
import socket
import ssl
import stat
import threading
import time
from pathlib import Path

import pytest
from web_helpers import exchange, on_redrawn_element

from web.lan import is_loopback, lan_address

pytestmark = pytest.mark.slow

LAN = lan_address()
HAS_LAN = not is_loopback(LAN)
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


def trusting(ca_file: Path) -> ssl.SSLContext:
    """A client context whose ONLY trusted authority is the table's CA; host names are checked."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # check_hostname and CERT_REQUIRED by default
    ctx.load_verify_locations(cafile=str(ca_file))
    return ctx


def call(
    port: int,
    method: str,
    path: str,
    body=None,
    token: str | None = None,
    *,
    ctx=None,
    host: str = "127.0.0.1",
    source: str | None = None,
    server_hostname: str | None = None,
):
    """One request over https (``ctx`` given) or plain http, from ``source`` (a second device)."""
    if ctx is not None:
        conn = http.client.HTTPSConnection(
            host, port, timeout=30, context=ctx, source_address=(source, 0) if source else None
        )
        if server_hostname:  # connect to ``host`` but check the certificate against this name
            conn.sock = ctx.wrap_socket(
                socket.create_connection((host, port), 30), server_hostname=server_hostname
            )
    else:
        conn = http.client.HTTPConnection(
            host, port, timeout=30, source_address=(source, 0) if source else None
        )
    return exchange(conn, method, path, None if body is None else json.dumps(body).encode(), token)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def san_of(pem: Path) -> set[str]:
    from cryptography import x509

    cert = x509.load_pem_x509_certificate(pem.read_bytes())
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return {str(v) for v in san.get_values_for_type(x509.IPAddress)} | set(
        san.get_values_for_type(x509.DNSName)
    )


def new_game(port: int, ctx, token: str) -> str:
    status, _, body = call(
        port, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, token, ctx=ctx
    )
    assert status == 201, body
    return body["game_id"]


# -- a client that trusts only the table's CA -----------------------------------------------------------


def test_api_over_tls_trusting_only_the_table_ca(servers, tmp_path):
    db = tmp_path / "table.sqlite"
    s = servers("--https", "--db", str(db), "--port", "0", "--seconds", "120")
    folder = Path(f"{db}.tls")
    assert s.url.startswith("https://") and "https with the table's own certificate" in s.text
    # key files owner-only, the folder too; the CA certificate itself may be read
    assert mode(folder) == 0o700
    assert mode(folder / "key.pem") == 0o600 and mode(folder / "ca-key.pem") == 0o600
    ctx = trusting(folder / "ca.pem")
    status, _, body = call(s.port, "GET", "/api/health", ctx=ctx)
    assert status == 200 and body["ok"] is True
    for name in ("localhost", "127.0.0.1") + ((LAN,) if HAS_LAN else ()):  # each name the SAN covers
        status, _, _ = call(s.port, "GET", "/api/health", ctx=ctx, server_hostname=name)
        assert status == 200, name
    assert {"localhost", "127.0.0.1", LAN} <= san_of(folder / "server.pem")
    # the hostname is checked: a name the certificate does not cover is refused
    with pytest.raises(ssl.SSLCertVerificationError, match="match|mismatch"):
        call(s.port, "GET", "/api/health", ctx=ctx, server_hostname="example.org")
    # and it is the table's CA that makes it trusted: the system's authorities alone refuse it
    system = ssl.create_default_context()
    with pytest.raises(ssl.SSLCertVerificationError):
        call(s.port, "GET", "/api/health", ctx=system, server_hostname="localhost")
    # the banner's fingerprint is the CA's
    ca_der = ssl.PEM_cert_to_DER_cert((folder / "ca.pem").read_text())
    assert s.fingerprint.replace(":", "").lower() == hashlib.sha256(ca_der).hexdigest()


def test_plain_http_goes_to_https_except_the_ca_download(servers, tmp_path):
    db = tmp_path / "table.sqlite"
    s = servers("--https", "--db", str(db), "--port", "0", "--seconds", "120")
    folder = Path(f"{db}.tls")
    for method, path in (("GET", "/api/state?x=1"), ("POST", "/api/pair"), ("GET", "/")):
        status, headers, _ = call(s.port, method, path)
        assert status == 307, (method, path)
        assert headers["Location"] == f"https://127.0.0.1:{s.port}{path}"
    # the CA download and its explanation page come over plain http (a device cannot trust https yet)
    status, headers, der = call(s.port, "GET", "/trust/ca.crt")
    assert status == 200 and headers["Content-Type"] == "application/x-x509-ca-cert"
    assert der == ssl.PEM_cert_to_DER_cert((folder / "ca.pem").read_text())
    status, _, pem = call(s.port, "GET", "/trust/ca.pem")
    assert status == 200 and pem.decode() == (folder / "ca.pem").read_text()
    status, _, page = call(s.port, "GET", "/trust")
    page = page.decode()
    assert status == 200 and s.fingerprint in page and "/trust/ca.crt" in page
    assert "Android" in page and "iPhone" in page and "Certificate Trust Settings" in page
    # the same paths answer over https too
    status, _, der2 = call(s.port, "GET", "/trust/ca.crt", ctx=trusting(folder / "ca.pem"))
    assert status == 200 and der2 == der


def test_pairing_answer_gives_the_https_url_and_how_to_trust(servers, tmp_path):
    db = tmp_path / "table.sqlite"
    s = servers("--https", "--db", str(db), "--port", "0", "--seconds", "120")
    ctx = trusting(Path(f"{db}.tls") / "ca.pem")
    new_game(s.port, ctx, s.host_token)
    status, _, pairing = call(s.port, "GET", "/api/pairing", token=s.host_token, ctx=ctx)
    assert status == 200
    if HAS_LAN:
        assert pairing["reachable"] and pairing["url"].startswith(f"https://{LAN}:{s.port}/#pair=")
        trust = pairing["trust"]
        assert trust["url"] == f"http://{LAN}:{s.port}/trust" and trust["svg"].lstrip().startswith("<svg")
        assert trust["fingerprint"] == s.fingerprint
    else:
        assert pairing["reachable"] is False


def test_public_url_overrides_the_address_and_is_covered(servers, tmp_path):
    db = tmp_path / "table.sqlite"
    s = servers(
        "--https",
        "--db",
        str(db),
        "--port",
        "0",
        "--seconds",
        "120",
        "--public-url",
        "https://dragon-table.local:9443",
    )
    ctx = trusting(Path(f"{db}.tls") / "ca.pem")
    new_game(s.port, ctx, s.host_token)
    _, _, pairing = call(s.port, "GET", "/api/pairing", token=s.host_token, ctx=ctx)
    assert pairing["url"].startswith("https://dragon-table.local:9443/#pair=")
    assert pairing["trust"]["url"] == "http://dragon-table.local:9443/trust"
    assert "dragon-table.local" in san_of(Path(f"{db}.tls") / "server.pem")
    status, _, _ = call(s.port, "GET", "/api/health", ctx=ctx, server_hostname="dragon-table.local")
    assert status == 200


def test_each_client_keeps_its_own_address_behind_the_front(servers, tmp_path):
    """Pairing guesses are limited per client address: behind the TLS front the app must still see
    each device's own address, or one guessing device would lock every tablet out."""
    db = tmp_path / "table.sqlite"
    s = servers("--https", "--db", str(db), "--port", "0", "--seconds", "120")
    ctx = trusting(Path(f"{db}.tls") / "ca.pem")
    new_game(s.port, ctx, s.host_token)
    statuses = [
        call(s.port, "POST", "/api/pair", {"code": "WRONG1"}, ctx=ctx, source="127.0.0.2")[0]
        for _ in range(6)
    ]
    assert statuses[-1] == 429 and 429 not in statuses[:5]
    _, _, pairing = call(s.port, "GET", "/api/pairing", token=s.host_token, ctx=ctx)
    status, _, body = call(
        s.port, "POST", "/api/pair", {"code": pairing["code"], "name": "second"}, ctx=ctx, source="127.0.0.3"
    )
    assert status == 200 and body["role"] == "tablet"


# -- live stream over TLS, clean stop, restart --------------------------------------------------------


def test_live_event_over_tls_then_clean_stop_and_restart_keeps_the_ca(servers, tmp_path):
    db = tmp_path / "table.sqlite"
    folder = Path(f"{db}.tls")
    s = servers("--https", "--db", str(db), "--port", "0", "--seconds", "120")
    ctx = trusting(folder / "ca.pem")
    new_game(s.port, ctx, s.host_token)
    conn = http.client.HTTPSConnection("127.0.0.1", s.port, timeout=20, context=ctx)
    conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
    r = conn.getresponse()
    assert r.status == 200 and r.getheader("Content-Type").startswith("text/event-stream")

    def read_until(pred) -> str:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            line = r.fp.readline().decode()
            assert line, "the stream ended"
            if pred(line):
                return line
        raise AssertionError("no such line")

    read_until(lambda line: line.startswith("event: hello"))
    sent = time.monotonic()
    status, _, _ = call(s.port, "POST", "/api/pairing/rotate", {}, s.host_token, ctx=ctx)
    assert status == 200
    line = read_until(lambda line: line.startswith("data: ") and '"pairing"' in line)
    assert time.monotonic() - sent < 5, "the event came through the front without waiting for more bytes"
    assert json.loads(line[6:])["kind"] == "pairing"
    # Ctrl-C with a stream open over TLS: the server ends by itself, cleanly
    before = (folder / "ca.pem").read_bytes(), (folder / "server.pem").read_bytes(), s.fingerprint
    assert s.stop() == 0
    conn.close()
    again = servers("--https", "--db", str(db), "--port", "0", "--seconds", "120")
    assert again.fingerprint == before[2], "a restart reuses the CA: devices trust it once"
    assert (folder / "ca.pem").read_bytes() == before[0]
    assert (folder / "server.pem").read_bytes() == before[1], "the same addresses keep the same certificate"
    status, _, body = call(again.port, "GET", "/api/health", ctx=ctx)  # the old trust still holds
    assert status == 200 and body["game_id"]


# -- the certificate's rules ------------------------------------------------------------------------------


def test_a_new_address_gets_a_new_server_certificate_from_the_same_ca(tmp_path):
    from web.certs import table_certificate

    folder = tmp_path / "g.sqlite.tls"
    first = table_certificate(folder, ["192.168.1.20", "localhost", "127.0.0.1"])
    ca, cert = (folder / "ca.pem").read_bytes(), (folder / "server.pem").read_bytes()
    same = table_certificate(folder, ["192.168.1.20", "localhost", "127.0.0.1"])
    assert (folder / "server.pem").read_bytes() == cert and same.fingerprint == first.fingerprint
    moved = table_certificate(folder, ["10.0.0.7", "localhost", "127.0.0.1"])  # the table's Wi-Fi changed
    assert (folder / "ca.pem").read_bytes() == ca and moved.fingerprint == first.fingerprint
    assert "10.0.0.7" in san_of(folder / "server.pem") and (folder / "server.pem").read_bytes() != cert
    ctx = trusting(folder / "ca.pem")  # the new certificate verifies against the unchanged CA
    from cryptography import x509

    chain = x509.load_pem_x509_certificates((folder / "server.pem").read_bytes())
    chain[0].verify_directly_issued_by(x509.load_pem_x509_certificate(ca))
    assert ctx.cert_store_stats()["x509_ca"] == 1


def test_the_ca_vouches_for_the_local_network_only(tmp_path):
    from cryptography import x509

    from web.certs import CertificateError, permitted, table_certificate

    folder = tmp_path / "t.tls"
    table_certificate(folder, ["192.168.1.20", "localhost"])
    ca = x509.load_pem_x509_certificate((folder / "ca.pem").read_bytes())
    assert permitted(ca, "192.168.7.7") and permitted(ca, "table.local") and permitted(ca, "localhost")
    assert not permitted(ca, "8.8.8.8") and not permitted(ca, "www.example.com")
    before = sorted((p.name, p.read_bytes()) for p in folder.iterdir())
    with pytest.raises(CertificateError, match=r"not www\.example\.com"):
        table_certificate(folder, ["www.example.com"])
    assert sorted((p.name, p.read_bytes()) for p in folder.iterdir()) == before, "a refusal changes nothing"


def test_a_broken_ca_file_is_a_clear_error_not_a_new_ca(tmp_path):
    from web.certs import CertificateError, table_certificate

    folder = tmp_path / "t.tls"
    table_certificate(folder, ["localhost"])
    (folder / "ca-key.pem").write_text("not a key")
    with pytest.raises(CertificateError, match=r"ca-key\.pem.*Remove the folder"):
        table_certificate(folder, ["localhost"])
    assert (folder / "ca-key.pem").read_text() == "not a key"


@pytest.mark.parametrize("where", ["file", "proc"])
def test_https_with_an_unwritable_folder_is_a_clear_error(servers, tmp_path, where):
    db = tmp_path / "table.sqlite"
    if where == "file":  # a folder inside a regular file cannot be made (even by root)
        (tmp_path / "plain-file").write_text("x")
        tls_dir = tmp_path / "plain-file" / "tls"
    else:  # /proc takes no new folders
        tls_dir = Path("/proc/companion-test-tls")
    s = servers("--https", "--tls-dir", str(tls_dir), "--db", str(db), "--port", "0", wait=False)
    code, out = s.finish()
    assert code == 2
    assert "error: --https: cannot write the table's certificate in" in out and str(tls_dir) in out
    assert "--tls-dir" in out and "Traceback" not in out
    assert not db.exists(), "nothing is changed: no game file was made"


# -- Chromium: a secure context, the service worker registers ------------------------------------------


def spki_hash(pem: Path) -> str:
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    cert = x509.load_pem_x509_certificate(pem.read_bytes())
    spki = cert.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return base64.b64encode(hashlib.sha256(spki).digest()).decode()


@pytest.mark.browser
def test_chromium_gets_a_secure_context_and_the_service_worker(servers, tmp_path):
    import shutil

    from playwright.sync_api import sync_playwright

    db = tmp_path / "table.sqlite"
    s = servers("--https", "--db", str(db), "--port", "0", "--seconds", "180")
    folder = Path(f"{db}.tls")
    ctx = trusting(folder / "ca.pem")
    new_game(s.port, ctx, s.host_token)
    exe = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as p:
        # Chromium trusts certificates chaining to the table CA's key (as a device that installed it)
        b = p.chromium.launch(
            executable_path=exe,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--use-fake-ui-for-media-stream",
                "--use-fake-device-for-media-stream",
                f"--ignore-certificate-errors-spki-list={spki_hash(folder / 'ca.pem')}",
            ],
        )
        try:
            page = b.new_page(viewport={"width": 1280, "height": 800})
            page.goto(f"https://127.0.0.1:{s.port}/host?token={s.host_token}")
            assert page.evaluate("window.isSecureContext") is True
            scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
            assert scope == f"https://127.0.0.1:{s.port}/"
            assert page.evaluate("'wakeLock' in navigator") is True
            if HAS_LAN:  # the host's Pairing page: how a new device trusts the certificate, then pairs
                page.wait_for_selector("#trust-qr svg", timeout=20_000)
                assert page.inner_text("#trust-fingerprint") == s.fingerprint
                assert page.get_attribute("#trust-url", "href") == f"http://{LAN}:{s.port}/trust"
                SHOTS.mkdir(parents=True, exist_ok=True)
                trust = page.locator("#trust")  # on the Pairing page, drawn anew on each live update
                on_redrawn_element(lambda: trust.screenshot(path=str(SHOTS / "https-pairing-trust.png")))
            # a phone on the network (its LAN address, not localhost) gets the live camera over https
            where = LAN if HAS_LAN else "127.0.0.1"
            phone_ctx = b.new_context(viewport={"width": 390, "height": 844})
            phone_ctx.grant_permissions(["camera"], origin=f"https://{where}:{s.port}")
            phone = phone_ctx.new_page()
            phone.goto(f"https://{where}:{s.port}/phone?token={s.host_token}")
            phone.wait_for_selector("body[data-mode=live]", state="attached", timeout=60_000)
            deadline = time.monotonic() + 60
            while int(phone.get_attribute("body", "data-sent") or 0) < 2 and time.monotonic() < deadline:
                time.sleep(0.2)
            assert int(phone.get_attribute("body", "data-sent") or 0) >= 2, "live frames went over TLS"
            phone_ctx.close()
            # plain http to the same port lands on https
            page2 = b.new_page()
            page2.goto(f"http://127.0.0.1:{s.port}/")
            assert page2.url.startswith(f"https://127.0.0.1:{s.port}/")
            page2.goto(f"http://127.0.0.1:{s.port}/trust")
            assert page2.url == f"http://127.0.0.1:{s.port}/trust"
            assert s.fingerprint in page2.inner_text("#fingerprint")
            page2.screenshot(path=str(SHOTS / "https-trust-page.png"), full_page=True)
        finally:
            b.close()


# -- the front on its own: connection cap, slow first bytes, bytes passed as they come ---------------------


class EchoBackend:
    """A loopback backend that records the front's first line, then echoes every byte back."""

    def __init__(self):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.lines: list[bytes] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._echo, args=(conn,), daemon=True).start()

    def _echo(self, conn: socket.socket) -> None:
        f = conn.makefile("rb")
        self.lines.append(f.readline())
        while data := f.read1(65536):
            conn.sendall(data)
        conn.close()


@pytest.fixture
def front(tmp_path):
    from web.certs import table_certificate
    from web.tls import TLSFront

    cert = table_certificate(tmp_path / "t.tls", ["127.0.0.1", "localhost"])
    backend = EchoBackend()
    f = TLSFront(
        "127.0.0.1",
        0,
        backend.port,
        cert.server_context(),
        "s3cret",
        max_connections=2,
        handshake_timeout=1.0,
    )
    f.start()
    f.backend_server, f.ca = backend, cert.ca_file
    yield f
    f.stop()
    backend.sock.close()


def tls_socket(front) -> ssl.SSLSocket:
    s = socket.create_connection(("127.0.0.1", front.port), timeout=5)
    return trusting(front.ca).wrap_socket(s, server_hostname="127.0.0.1")


def test_front_passes_bytes_at_once_and_names_the_client(front):
    s = tls_socket(front)
    s.sendall(b"ping")
    assert s.recv(16) == b"ping", "a small write goes through without waiting for more"
    line = front.backend_server.lines[0].decode()
    assert re.fullmatch(r"COMPANION-FRONT s3cret https 127\.0\.0\.1 \d+\r\n", line)
    s.close()


def test_front_caps_connections_and_drops_silent_ones(front):
    first, second = tls_socket(front), tls_socket(front)
    for s in (first, second):
        s.sendall(b"x")
        assert s.recv(1) == b"x"
    third = socket.create_connection(("127.0.0.1", front.port), timeout=5)
    assert third.recv(1) == b"", "over the cap: closed at once"
    assert front.refused >= 1
    first.close()
    deadline = time.monotonic() + 5
    while front.connections > 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    silent = socket.create_connection(("127.0.0.1", front.port), timeout=5)  # sends nothing at all
    t0 = time.monotonic()
    assert silent.recv(1) == b""
    assert time.monotonic() - t0 < 4, "a connection that never speaks is dropped after the handshake time-out"
    second.close()


def test_front_stop_closes_open_connections(front):
    s = tls_socket(front)
    s.sendall(b"x")
    assert s.recv(1) == b"x"
    t0 = time.monotonic()
    front.stop()
    assert time.monotonic() - t0 < 5
    assert s.recv(1) == b"", "the open connection was closed"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", front.port), timeout=2)
