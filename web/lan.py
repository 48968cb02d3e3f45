"""Addresses on the local network: this machine's own, "every interface", and loopback.

``web.server`` uses them to say where tablets reach the table; ``web.tls`` to name what the
table's certificate covers.
"""

from __future__ import annotations

import ipaddress
import socket

ALL_INTERFACES = ("0.0.0.0", "::", "")


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


def is_loopback(host: str | None) -> bool:
    """True for an address only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    if not host:
        return False
    host = host.strip("[]")
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name: assume it names this machine on the network
        return False
