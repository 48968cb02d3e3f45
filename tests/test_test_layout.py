"""The tests import the product and their helpers without editing ``sys.path``: pytest's importlib mode
puts no test folder first (so ``tests/web`` cannot shadow the ``web`` package) and pyproject.toml's
``pythonpath`` names the folders of the shared test helpers."""

from __future__ import annotations

import re
from pathlib import Path

import web

TESTS = Path(__file__).resolve().parent
SYS_PATH_EDIT = re.compile(r"sys\.path\.(insert|append|extend|remove)\(|sys\.path\s*(\[[^\]]*\])?\s*\+?=[^=]")


def test_no_test_file_edits_sys_path():
    edits = [
        f"{p.relative_to(TESTS)}:{n}"
        for p in sorted(TESTS.rglob("*.py"))
        for n, line in enumerate(p.read_text().splitlines(), 1)
        if SYS_PATH_EDIT.search(line)
    ]
    assert edits == []


def test_the_web_package_is_the_product_not_the_test_folder():
    assert web.__file__ is not None, "tests/web was imported as a namespace package named web"
    assert Path(web.__file__).resolve() == TESTS.parent / "web" / "__init__.py"
    assert hasattr(web, "create_app")
