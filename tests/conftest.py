"""Fixtures shared by every test area."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = REPO_ROOT.parent / "shared"


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """The reference folder beside the checkout (rule documents, face data, scenarios)."""
    if not SHARED_DIR.is_dir():
        pytest.fail(f"reference folder {SHARED_DIR} is missing; tests need ../shared beside the checkout")
    return SHARED_DIR
