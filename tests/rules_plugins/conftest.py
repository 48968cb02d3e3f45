"""Fixtures of the rule plug-in tests: the product's own dice catalogue, loaded once per module."""

from __future__ import annotations

import pytest

from companion.rules.catalogue import load_catalogue


@pytest.fixture(scope="module")
def cat():
    """The dice catalogue the product ships (real dice, real faces)."""
    return load_catalogue()
