"""``is_whole_number``: the one test of typed numbers the rules, the command line and the sources use."""

from __future__ import annotations

import pytest

from companion.rules import is_whole_number


@pytest.mark.parametrize("text", ["0", "7", "12", "0042"])
def test_ascii_digits_are_whole_numbers_int_reads_as_written(text):
    assert is_whole_number(text) and int(text) == int(text.lstrip("0") or "0")


@pytest.mark.parametrize(
    "text", ["²", "①", "١", "1²", "", " 1", "-1", "+1", "1.0", "1e3", "x", 7, None, True]
)
def test_anything_else_is_not(text):
    # "²" and "①" pass str.isdigit() but int() refuses them; "١" int() reads as 1
    assert not is_whole_number(text)
