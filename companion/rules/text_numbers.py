"""Whole numbers typed as text: the one test of "is this a number I can give to ``int``".

``str.isdigit`` is true for "²" and "①", which ``int`` refuses, and for "١" (Arabic-Indic one),
which ``int`` reads as 1: a player's or a file's text is taken as a number only when it is written
in ASCII digits.
"""

from __future__ import annotations


def is_whole_number(text: object) -> bool:
    """``text`` is a str of ASCII digits only (no sign, no space): ``int(text)`` reads it as written."""
    return isinstance(text, str) and text.isascii() and text.isdigit()
