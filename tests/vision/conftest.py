"""Fixtures of the vision tests."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("YOLO_OFFLINE", "1")
os.environ.setdefault("YOLO_AUTOINSTALL", "0")
os.environ.setdefault("OMP_NUM_THREADS", "2")


@pytest.fixture(scope="session")
def catalogue():
    from companion.rules.catalogue import load_catalogue

    return load_catalogue()
