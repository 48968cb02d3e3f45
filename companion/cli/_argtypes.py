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


def whole(least: int):
    """A whole number of ``least`` or more."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = least - 1
        if value < least:
            raise argparse.ArgumentTypeError(f"must be a whole number of {least} or more, not {text!r}")
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
