"""The table's own certificate (``companion serve --https``) and the page that hands it out.

Browsers give plain-http pages on the local network no *secure context*: no installing to the home
screen or opening offline (service worker), no keeping the screen awake (Wake Lock), no live camera
on the phone page.  With ``--https`` the server makes, with the ``cryptography`` library:

* a small **certificate authority** (CA) for this table, made once and kept (``ca.pem`` and its key
  ``ca-key.pem``), so each tablet or phone trusts it **once**; its *name constraints* let it vouch
  only for local-network addresses and names (private IP ranges, ``localhost``, ``.local``, ``.lan``,
  ``.home.arpa``, this machine's name), so a device that trusts it trusts nothing on the Internet;
* a **server certificate** (``server.pem``, key ``key.pem``) signed by that CA whose
  subjectAltName covers the addresses tablets use (the LAN address, ``localhost``, ``127.0.0.1``,
  ...); made again, signed by the same CA, when the addresses change or it nears its end.

They live in a folder beside the game file (``GAME.sqlite.tls/``, owner-only; key files 0600).
``table_certificate(folder, names)`` makes or reuses them; a folder it cannot write, or a CA file it
cannot read, is a ``CertificateError`` naming the file and the cause, and nothing is changed.

The blueprint ``bp`` serves, over plain http as well (``web.tls`` lets these paths through), the
trust page ``/trust`` (how to trust the CA on Android, iOS, desktops), and the CA itself:
``/trust/ca.crt`` (DER, what phones install) and ``/trust/ca.pem``.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import socket
import ssl
from dataclasses import dataclass
from pathlib import Path

from flask import Blueprint, Response, current_app, render_template_string

CA_DAYS = 3650  # ten years: a device trusts the CA once
SERVER_DAYS = 397  # what browsers accept for a server certificate (Apple: at most 825 days)
RENEW_DAYS = 30  # a server certificate this close to its end is made again

# what the CA may vouch for (RFC 5280 4.2.1.10 name constraints): the local network only
PERMITTED_NETWORKS = (
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "100.64.0.0/10",
    "::1/128",
    "fc00::/7",
    "fe80::/10",
)
PERMITTED_DOMAINS = ("localhost", "local", "lan", "home.arpa", "internal")

CA_FILE, CA_KEY_FILE, CERT_FILE, KEY_FILE = "ca.pem", "ca-key.pem", "server.pem", "key.pem"


class CertificateError(Exception):
    """The table's certificate cannot be made or read (the message names the file and the cause)."""


@dataclass(frozen=True)
class TableCertificate:
    """The files of a table's certificate and what they say."""

    folder: Path
    names: tuple[str, ...]  # the server certificate's subjectAltName entries
    fingerprint: str  # SHA-256 of the CA certificate, as AB:CD:... (what a phone shows)

    @property
    def ca_file(self) -> Path:
        return self.folder / CA_FILE

    @property
    def cert_file(self) -> Path:
        return self.folder / CERT_FILE

    @property
    def key_file(self) -> Path:
        return self.folder / KEY_FILE

    def ca_der(self) -> bytes:
        from cryptography import x509
        from cryptography.hazmat.primitives import serialization

        cert = x509.load_pem_x509_certificate(self.ca_file.read_bytes())
        return cert.public_bytes(serialization.Encoding.DER)

    def server_context(self) -> ssl.SSLContext:
        """A TLS server context presenting the server certificate (and the CA after it)."""
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(self.cert_file, self.key_file)
        ctx.set_alpn_protocols(["http/1.1"])
        return ctx


def machine_names() -> list[str]:
    """Names this machine answers to on the local network (its host name and NAME.local)."""
    name = socket.gethostname().strip().rstrip(".").lower()
    if not name or name == "localhost":
        return []
    short = name.split(".")[0]
    return sorted({name, short, f"{short}.local"})


def permitted(ca_cert, name: str) -> bool:
    """True when ``ca_cert``'s name constraints let it vouch for ``name`` (an IP address or a host name)."""
    from cryptography import x509

    try:
        nc = ca_cert.extensions.get_extension_for_class(x509.NameConstraints).value
    except x509.ExtensionNotFound:
        return True
    allowed = nc.permitted_subtrees or []
    try:
        ip = ipaddress.ip_address(name)
    except ValueError:
        name = name.lower().rstrip(".")
        domains = [g.value.lower() for g in allowed if isinstance(g, x509.DNSName)]
        return any(name == d or name.endswith("." + d) for d in domains)
    return any(
        ip.version == g.value.version and ip in g.value for g in allowed if isinstance(g, x509.IPAddress)
    )


def _write_private(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to ``path`` atomically, readable as ``mode`` says from the first byte."""
    tmp = path.with_name(path.name + ".new")
    try:
        tmp.unlink()
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.write(fd, data)
        os.fchmod(fd, mode)
    finally:
        os.close(fd)
    os.replace(tmp, path)


def _fingerprint(cert) -> str:
    from cryptography.hazmat.primitives import hashes

    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))


def _now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def _general_name(name: str):
    from cryptography import x509

    try:
        return x509.IPAddress(ipaddress.ip_address(name))
    except ValueError:
        return x509.DNSName(name)


def _make_ca(folder: Path, extra_ips=()):
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    host = socket.gethostname() or "table"
    subject = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Dragon Dice table companion"),
            x509.NameAttribute(NameOID.COMMON_NAME, f"Companion table CA ({host[:40]})"),
        ]
    )
    allowed = [x509.IPAddress(ipaddress.ip_network(n)) for n in (*PERMITTED_NETWORKS, *extra_ips)]
    allowed += [x509.DNSName(d) for d in (*PERMITTED_DOMAINS, *machine_names())]
    now = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=CA_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(
            x509.NameConstraints(permitted_subtrees=allowed, excluded_subtrees=None), critical=True
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    _write_private(folder / CA_KEY_FILE, key_pem, 0o600)
    _write_private(folder / CA_FILE, cert.public_bytes(serialization.Encoding.PEM), 0o644)
    return cert, key


def _load_ca(folder: Path):
    from cryptography import x509
    from cryptography.hazmat.primitives import serialization

    path = folder / CA_FILE
    try:
        cert = x509.load_pem_x509_certificate(path.read_bytes())
        path = folder / CA_KEY_FILE
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise CertificateError(
            f"cannot read the table's certificate authority {path}: {getattr(exc, 'strerror', None) or exc}. "
            f"Remove the folder {folder} to make a new one (each device must then trust the new one once)."
        ) from None
    if cert.public_key().public_numbers() != key.public_key().public_numbers():
        raise CertificateError(
            f"{folder / CA_KEY_FILE} is not the key of {folder / CA_FILE}: remove the folder "
            f"{folder} to make a new certificate authority"
        )
    return cert, key


def _server_cert_ok(folder: Path, ca_cert, names: tuple[str, ...]) -> bool:
    """The stored server certificate is signed by ``ca_cert``, covers ``names`` and is not near its end."""
    from cryptography import x509
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives import serialization

    try:
        cert = x509.load_pem_x509_certificate((folder / CERT_FILE).read_bytes())
        key = serialization.load_pem_private_key((folder / KEY_FILE).read_bytes(), password=None)
        cert.verify_directly_issued_by(ca_cert)
        san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    except (OSError, ValueError, TypeError, x509.ExtensionNotFound, InvalidSignature):
        return False
    if cert.public_key().public_numbers() != key.public_key().public_numbers():
        return False
    have = {str(v) for v in san.get_values_for_type(x509.IPAddress)} | set(
        san.get_values_for_type(x509.DNSName)
    )
    return set(names) <= have and cert.not_valid_after_utc - _now() > dt.timedelta(days=RENEW_DAYS)


def _make_server_cert(folder: Path, ca_cert, ca_key, names: tuple[str, ...]) -> None:
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    now = _now()
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "companion table server")]))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(days=SERVER_DAYS))
        .add_extension(x509.SubjectAlternativeName([_general_name(n) for n in names]), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False
        )
        .sign(ca_key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    _write_private(folder / KEY_FILE, key_pem, 0o600)
    chain = cert.public_bytes(serialization.Encoding.PEM) + ca_cert.public_bytes(serialization.Encoding.PEM)
    _write_private(folder / CERT_FILE, chain, 0o644)


def table_certificate(folder: str | Path, names, optional=()) -> TableCertificate:
    """The table's certificate in ``folder`` covering ``names`` (IP addresses and host names) and
    those of ``optional`` its CA may vouch for: the CA is made once and reused; the server
    certificate is made again when it does not cover them, is not signed by the CA, or nears its end.

    A new CA may vouch for the local network's private ranges and names, and for the addresses in
    ``names`` outside them (a LAN on public addresses).  ``CertificateError`` when ``folder`` cannot
    be written, the stored CA cannot be read, or a name is outside what the stored CA may vouch for."""
    folder = Path(folder)
    wanted = _clean(names)
    maybe = [n for n in _clean(optional) if n not in wanted]
    try:
        if (
            not folder.is_dir()
        ):  # a folder of its own: owner-only (a folder named with --tls-dir is left as it is)
            folder.mkdir(mode=0o700, parents=True)
            os.chmod(folder, 0o700)
        if (folder / CA_FILE).exists() or (folder / CA_KEY_FILE).exists():
            ca_cert, ca_key = _load_ca(folder)
        else:
            private = [ipaddress.ip_network(n) for n in PERMITTED_NETWORKS]
            extra = [
                ipaddress.ip_network(n)
                for n in wanted
                if _is_ip(n)
                and not any(
                    ipaddress.ip_address(n) in net
                    for net in private
                    if net.version == ipaddress.ip_address(n).version
                )
            ]
            ca_cert, ca_key = _make_ca(folder, [str(n) for n in extra])
        outside = [n for n in wanted if not permitted(ca_cert, n)]
        if outside:
            raise CertificateError(
                f"the table's certificate authority in {folder} may vouch only for local-network addresses, "
                f"not {', '.join(outside)}: use an address on the local network (--public-url), or remove "
                f"{folder} to make a new authority (each device then trusts it once more)"
            )
        covered = tuple(wanted + [n for n in maybe if permitted(ca_cert, n)])
        if not _server_cert_ok(folder, ca_cert, covered):
            _make_server_cert(folder, ca_cert, ca_key, covered)
        for private_file in (CA_KEY_FILE, KEY_FILE):  # owner-only, even if someone loosened them
            os.chmod(folder / private_file, 0o600)
    except OSError as exc:
        where = exc.filename or folder
        raise CertificateError(
            f"cannot write the table's certificate in {folder}: {where}: "
            f"{exc.strerror or exc} (choose a folder you can write with --tls-dir)"
        ) from None
    return TableCertificate(folder, covered, _fingerprint(ca_cert))


def _clean(names) -> list[str]:
    out: list[str] = []
    for n in names:
        n = str(n).strip().strip("[]").lower().rstrip(".")
        n = str(ipaddress.ip_address(n)) if _is_ip(n) else n
        if n and n not in out:
            out.append(n)
    return out


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# the trust page (served over plain http too) and the CA download

bp = Blueprint("trust", __name__)

_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Trust this table's certificate</title><link rel="stylesheet" href="/static/app.css"></head>
<body><main class="card" id="trust">
<h1>Trust this table's certificate (once per device)</h1>
<p>The table's server speaks https with a certificate it made itself, so that this device may install
the page, keep its screen awake and use its camera live. Trust the table's certificate authority once;
after that every https page of this table opens without a warning.</p>
<p><a class="btn primary" id="ca-download" href="/trust/ca.crt" download="companion-table-ca.crt">Download
the certificate (companion-table-ca.crt)</a></p>
<p class="small">Its SHA-256 fingerprint, to compare with what the device shows:<br>
<code id="fingerprint">{{ fingerprint }}</code></p>
<h2>Android</h2>
<ol><li>Download the certificate above.</li>
<li>Settings &rarr; Security (or "Security &amp; privacy") &rarr; More security settings &rarr; Encryption &amp;
credentials &rarr; Install a certificate &rarr; CA certificate; pick companion-table-ca.crt and confirm.</li>
<li>Open the table's address (below) in Chrome.</li></ol>
<h2>iPhone / iPad</h2>
<ol><li>Open this page in Safari and download the certificate; allow the profile download.</li>
<li>Settings &rarr; General &rarr; VPN &amp; Device Management: install the "Companion table CA" profile.</li>
<li>Settings &rarr; General &rarr; About &rarr; Certificate Trust Settings: turn on full trust for it.</li></ol>
<h2>Desktop</h2>
<ul><li>Windows: open the file, "Install Certificate", store "Trusted Root Certification Authorities".</li>
<li>macOS: open the file in Keychain Access (System keychain), then set "When using this certificate" to
"Always Trust".</li>
<li>Linux / ChromeOS Chrome: Settings &rarr; Privacy and security &rarr; Security &rarr; Manage certificates &rarr;
Authorities &rarr; Import. Firefox: Settings &rarr; Privacy &amp; Security &rarr; Certificates &rarr; View
Certificates &rarr; Authorities &rarr; Import, tick "trust this CA to identify websites".</li></ul>
<p>This authority can vouch only for addresses on a local network (it cannot be used for sites on the
Internet). Remove it in the same settings when you no longer play at this table.</p>
{% if table_url %}<p>Then open the table: <a id="table-url" href="{{ table_url }}">{{ table_url }}</a>
(or scan the pairing QR code on the host's Pairing page).</p>{% endif %}
</main></body></html>
"""


def _certificate() -> TableCertificate:
    return current_app.extensions["tls_certificate"]


@bp.get("/trust")
@bp.get("/trust/")
def trust_page():
    public = current_app.config.get("PUBLIC_URL") or ""
    html = render_template_string(
        _PAGE,
        fingerprint=_certificate().fingerprint,
        table_url=public if public.startswith("https://") else "",
    )
    return Response(html, mimetype="text/html", headers={"Cache-Control": "no-store"})


@bp.get("/trust/ca.crt")
def ca_der():
    return Response(
        _certificate().ca_der(),
        mimetype="application/x-x509-ca-cert",
        headers={
            "Content-Disposition": 'attachment; filename="companion-table-ca.crt"',
            "Cache-Control": "no-store",
        },
    )


@bp.get("/trust/ca.pem")
def ca_pem():
    return Response(
        _certificate().ca_file.read_bytes(),
        mimetype="application/x-pem-file",
        headers={
            "Content-Disposition": 'attachment; filename="companion-table-ca.pem"',
            "Cache-Control": "no-store",
        },
    )


TRUST_PATHS = ("/trust", "/trust/", "/trust/ca.crt", "/trust/ca.pem", "/static/app.css")


def pairing_trust() -> dict | None:
    """For the host's Pairing page: where a device trusts the table's certificate (None without https)."""
    from .qr import qr_svg

    url = current_app.config.get("TRUST_URL")
    if not url:
        return None
    return {"url": url, "svg": qr_svg(url), "fingerprint": _certificate().fingerprint}
