"""Fixtures shared by every test area.

The suite passes in a plain clone: tests carry their own fixtures (``tests/fixtures/``: rule-document
stand-ins written for the tests, roll scenarios, images) and the product carries its own catalogue.

Two markers name what a test needs beyond the ``test`` extra:

* ``needs_shared``: the reference folder ``../shared`` beside the checkout (rebuilding the catalogue
  from the source data, the public conformance scenarios, the real rule documents and d6 photos).
  Skipped, with that reason, where the folder is absent.
* ``train``: the ``train`` extra (torch, ultralytics), for training code.  Skipped, with that reason,
  where it is not installed; the run-time product (ONNX reading, rules, pages) never needs it.

CI (``.ci/run``) has both and sets ``COMPANION_FULL_SUITE=1``: there nothing is skipped for these
reasons, and a missing folder or extra fails the tests instead.
"""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = REPO_ROOT.parent / "shared"
FIXTURES = Path(__file__).resolve().parent / "fixtures"

NEEDS_SHARED = f"needs the reference folder ../shared beside the checkout ({SHARED_DIR} is absent)"
NEEDS_TRAIN = "needs the train extra: pip install -e '.[train]'"


def full_suite() -> bool:
    """CI mode: every test runs; nothing is skipped for a missing ../shared or train extra."""
    return os.environ.get("COMPANION_FULL_SUITE", "") not in ("", "0")


def has_train_extra() -> bool:
    try:
        return all(importlib.util.find_spec(m) is not None for m in ("torch", "ultralytics"))
    except ImportError:
        return False


def pytest_collection_modifyitems(config, items):
    if full_suite():
        return
    skip_shared = None if SHARED_DIR.is_dir() else pytest.mark.skip(reason=NEEDS_SHARED)
    skip_train = None if has_train_extra() else pytest.mark.skip(reason=NEEDS_TRAIN)
    for item in items:
        if skip_shared and item.get_closest_marker("needs_shared"):
            item.add_marker(skip_shared)
        if skip_train and item.get_closest_marker("train"):
            item.add_marker(skip_train)


def import_train(name: str):
    """``import name`` (torch, ultralytics...) for a test module of training code: skips the module
    with the train-extra reason where it is not installed (fails instead in the full suite)."""
    if full_suite():
        return importlib.import_module(name)
    return pytest.importorskip(name, reason=NEEDS_TRAIN)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture
def shared_dir(request) -> Path:
    """The reference folder beside the checkout (rule documents, face data, scenarios, photos).

    Only tests marked ``needs_shared`` may use it: everything else runs on the project's fixtures."""
    if request.node.get_closest_marker("needs_shared") is None:
        pytest.fail(
            "a test that reads ../shared must be marked @pytest.mark.needs_shared "
            "(or use the project's own fixtures in tests/fixtures)"
        )
    if not SHARED_DIR.is_dir():
        if full_suite():
            pytest.fail(f"COMPANION_FULL_SUITE is set but the reference folder {SHARED_DIR} is missing")
        pytest.skip(NEEDS_SHARED)
    return SHARED_DIR


_ANCHOR = re.compile(r"^@@ (\d+)\s*$")


def render_rule_document(template: str) -> str:
    """A rule-document stand-in from its template (``tests/fixtures/rule-documents/README.md``)."""
    lines = [x for x in template.splitlines() if not x.startswith("#")]
    if lines and lines[0].strip() == "@@ one-line":
        return " ".join(x.strip() for x in lines[1:] if x.strip()) + "\n"
    out: list[str] = []
    for line in lines:
        m = _ANCHOR.match(line)
        if not m:
            out.append(line)
            continue
        target = int(m.group(1))
        if target <= len(out) + 1:
            raise ValueError(f"anchor @@ {target} comes after line {len(out)} of the text before it")
        if out and out[-1].strip():
            out.append("")
        while len(out) < target - 2:  # padding paragraphs of up to six lines, then one blank line
            block = min(6, target - 2 - len(out))
            out.extend(f"padding line {len(out) + i + 1} of a stand-in document" for i in range(block))
            out.append("")
        while len(out) < target - 1:
            out.append("")
    return "\n".join(out) + "\n"


@pytest.fixture(scope="session")
def rule_documents(tmp_path_factory) -> Path:
    """A folder of rule-document stand-ins (V4.01c, R96, FAQ95, FAQ96, BD) written for the tests:
    the shape of the real documents (many lines, or one long line), none of their text."""
    folder = tmp_path_factory.mktemp("rule-documents")
    for template in sorted((FIXTURES / "rule-documents").glob("*.txt")):
        (folder / template.name).write_text(render_rule_document(template.read_text("utf-8")), "utf-8")
    return folder
