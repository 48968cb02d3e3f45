"""argparse types for numbers with a range, shared by the commands: a value out of range is refused by
argparse itself (exit 2, naming the option), before the command touches anything."""

from __future__ import annotations

import argparse
import math


def _number(text: str, ok, what: str) -> float:
    """``text`` as a float when ``ok(value)`` (NaN never is), else argparse's error saying it ``what``."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if math.isnan(value) or not ok(value):
        raise argparse.ArgumentTypeError(f"must be {what}, not {text!r}")
    return value


def positive(text: str) -> float:
    """A number above 0 (not NaN or infinite)."""
    return _number(text, lambda v: 0 < v < math.inf, "a number above 0")


def non_negative(text: str) -> float:
    """A number of 0 or more (not NaN or infinite)."""
    return _number(text, lambda v: 0 <= v < math.inf, "a number of 0 or more")


def seconds(text: str) -> float:
    """A number of seconds above 0 that a timer can wait (``threading.TIMEOUT_MAX``: about 292 years)."""
    import threading

    return _number(text, lambda v: 0 < v <= threading.TIMEOUT_MAX, "a number of seconds above 0")


def listen_host(text: str) -> str:
    """An address this machine can listen on (a name is looked up as the server would: waitress refuses
    what ``getaddrinfo`` cannot resolve, after the game file is opened)."""
    import socket

    host = text.strip()
    if host in ("", "*"):  # "*" (waitress: every address, on several sockets) is 0.0.0.0 here
        raise argparse.ArgumentTypeError(f"must be an address such as 0.0.0.0 or 127.0.0.1, not {text!r}")
    try:
        socket.getaddrinfo(
            host.strip("[]"), None, 0, socket.SOCK_STREAM, socket.IPPROTO_TCP, socket.AI_PASSIVE
        )
    except (OSError, UnicodeError, ValueError):
        raise argparse.ArgumentTypeError(
            f"{text[:80]!r} is not an address this machine can listen on (such as 0.0.0.0 or 127.0.0.1)"
        ) from None
    return host


TOKEN_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~")


def token(text: str) -> str:
    """A host token: 1 to 200 letters, digits and ``- _ . ~`` (what a URL carries as it is and a browser
    sends in a header; a space or an accented letter breaks the host URL or every change)."""
    bad = sorted(set(text) - TOKEN_CHARACTERS)
    if not text or len(text) > 200 or bad:
        why = f"it has {''.join(bad[:5])!r}" if bad else ("it is empty" if not text else "it is too long")
        raise argparse.ArgumentTypeError(f"must be 1 to 200 letters, digits and - _ . ~ ({why})")
    return text


def whole(least: int, most: int | None = None):
    """A whole number of ``least`` or more (and ``most`` or less, when given)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least or (most is not None and value > most):
            span = f"of {least} or more" if most is None else f"from {least} to {most}"
            raise argparse.ArgumentTypeError(f"must be a whole number {span}, not {text!r}")
        return value

    return parse


def port(text: str) -> int:
    """A TCP port, 0 to 65535 (0 picks a free one)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port (0 to 65535)")
    return value


def share_below_1(text: str) -> float:
    """A share from 0 up to (not including) 1."""
    return _number(text, lambda v: 0 <= v < 1, "a share from 0 up to (not including) 1")


def camera(text: str) -> str:
    """A camera device number, optionally with the frame size to ask of it (``0``, ``0@1280x720``), or a
    video file or URL (kept as given)."""
    from companion.vision.sources import SourceError, is_device, parse_camera

    if not is_device(text):
        return text

    try:
        parse_camera(text)
    except SourceError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def turn(text: str) -> int:
    """A camera turn in degrees clockwise: 0, 90, 180 or 270 (``companion.vision.camera_turn``)."""
    from companion.vision.camera_turn import TurnError, parse_turn

    try:
        return parse_turn(text)
    except TurnError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
