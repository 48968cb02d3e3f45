"""Structure guards of the rules engine (issue 22): one name per class, rule modules never import the
flow, Battle Dice errors in the rules' one error hierarchy.  Read from the source, nothing is run."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import companion.rules
from companion.rules.battle_dice.errors import BadChoice, BattleDiceError, BattleOver, IllegalBattleAction
from companion.rules.core.errors import GameOver, GameRuleError, IllegalAction

RULES = Path(companion.rules.__file__).resolve().parent


def _trees():
    for path in sorted(RULES.rglob("*.py")):
        yield path, ast.parse(path.read_text(encoding="utf-8"))


def test_no_two_classes_of_the_rules_share_a_name():
    where = defaultdict(list)
    for path, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                where[node.name].append(str(path.relative_to(RULES)))
    assert {name: files for name, files in where.items() if len(files) > 1} == {}


def test_rule_modules_never_import_the_flow():
    """Rule modules see the game through game.context.RuleContext; only the package imports the flow."""
    game = RULES / "game"
    offenders = []
    for path, tree in _trees():
        if (
            game not in path.parents
            or path.name == "__init__.py"
            and path.parent == game
            or path.name == "flow.py"
        ):
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.ImportFrom)
                and (node.module or "").split(".")[-1] == "flow"
                and node.level
            ):
                offenders.append(str(path.relative_to(RULES)))
    assert offenders == []


def test_battle_dice_errors_are_the_rules_errors():
    assert issubclass(BattleDiceError, GameRuleError)
    assert issubclass(IllegalBattleAction, IllegalAction) and issubclass(BadChoice, IllegalAction)
    assert issubclass(BattleOver, GameOver) and issubclass(BattleOver, BattleDiceError)
    assert str(BadChoice("not a choice")) == "not a choice"


def test_rule_modules_use_only_the_public_context_of_the_game():
    """No ``game._x`` outside the flow: rule modules use RuleContext (say, player_name, roll, notes ...)."""
    reach_ins = []
    for path, tree in _trees():
        if path.name == "flow.py":
            continue
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name)
                and node.value.id == "game"
            ):
                reach_ins.append(f"{path.relative_to(RULES)}:{node.lineno} game.{node.attr}")
    assert reach_ins == []
