"""The page imports the rules engine's public interface only: ``companion.rules`` (its listed names),
``companion.rules.games`` and the dice catalogue ``companion.rules.catalogue`` (issue 22: the page
renders, the engine decides).  Every import statement of every module under web/ is read with ``ast``."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import companion.rules
import web

WEB = Path(web.__file__).resolve().parent
PUBLIC = {"companion.rules", "companion.rules.games", "companion.rules.catalogue"}


def _is_submodule(package: str, name: str) -> bool:
    spec = importlib.util.find_spec(package)
    return (
        bool(spec and spec.submodule_search_locations)
        and importlib.util.find_spec(f"{package}.{name}") is not None
    )


def rules_imports(source: str, filename: str = "<source>") -> list[tuple[int, str]]:
    """(line, module or module:name) of every import of the rules engine outside its public interface."""
    bad = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            bad += [
                (node.lineno, a.name)
                for a in node.names
                if a.name.startswith("companion.rules.") and a.name not in PUBLIC
            ]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            module = node.module
            names = [a.name for a in node.names]
            if module == "companion":
                bad += [(node.lineno, f"companion:{n}") for n in names if n == "rules"]
            elif module.startswith("companion.rules.") and module not in PUBLIC:
                bad.append((node.lineno, module))
            elif module in PUBLIC:
                # a submodule taken by a from-import ("from companion.rules import game") is an inside too
                bad += [(node.lineno, f"{module}:{n}") for n in names if _is_submodule(module, n)]
                if module == "companion.rules":
                    bad += [(node.lineno, f"{module}:{n}") for n in names if n not in companion.rules.__all__]
    return bad


def test_no_web_module_imports_a_rules_internal():
    found = {
        str(p.relative_to(WEB.parent)): rules_imports(p.read_text(), str(p))
        for p in sorted(WEB.rglob("*.py"))
    }
    assert {path: bad for path, bad in found.items() if bad} == {}


def test_the_check_catches_each_way_of_reaching_inside():
    source = "\n".join(
        [
            "from companion.rules.game.magic import spell_kinds_accepted",  # 1: a submodule
            "import companion.rules.resolution",  # 2
            "from companion.rules import game",  # 3: a submodule by from-import
            "from companion.rules import not_public",  # 4: a name the interface does not list
            "from companion import rules",  # 5: the package as a whole (then rules.game...)
            "def f():\n    from companion.rules.r96.game import quick_setup",  # 6-7: inside a function
            "from companion.rules import GameRuleError, game_for",  # 8: fine
            "from companion.rules.catalogue import load_catalogue",  # 9: fine
            "from companion.rules.games import GAMES",  # 10: fine
            "from companion.session import GameSession",  # 11: not the rules
        ]
    )
    assert sorted({line for line, _ in rules_imports(source)}) == [1, 2, 3, 4, 5, 7]


def test_every_public_name_resolves():
    for name in companion.rules.__all__:
        assert getattr(companion.rules, name) is not None
