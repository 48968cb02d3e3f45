"""Every ``companion ... --help`` explains every sub-command, option and argument."""

from __future__ import annotations

import argparse
import contextlib
import io
import subprocess
import sys

import pytest

from companion.cli import build_parser


def _walk(parser: argparse.ArgumentParser, words: tuple[str, ...] = ()):
    """(command words, parser, help of each sub-command) for the parser tree."""
    yield words, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _walk(sub, (*words, name))


COMMANDS = list(_walk(build_parser()))


def test_the_tree_is_walked():
    names = {" ".join(w) for w, _ in COMMANDS}
    assert {"serve", "demo", "catalogue search", "dice simulate", "rules search"} <= names


@pytest.mark.parametrize("words", [w for w, _ in COMMANDS], ids=lambda w: " ".join(w) or "companion")
def test_every_option_argument_and_subcommand_has_a_help_text(words):
    parser = dict(COMMANDS)[words]
    missing = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        if isinstance(action, argparse._SubParsersAction):
            helps = {a.dest: a.help for a in action._choices_actions}
            missing += [f"sub-command {n}" for n in action.choices if not helps.get(n)]
        elif not action.help or action.help == argparse.SUPPRESS:
            missing.append("/".join(action.option_strings) or action.dest)
    assert not missing, f"`companion {' '.join(words)} --help` gives no help for: {', '.join(missing)}"
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as done:
        build_parser().parse_args([*words, "--help"])
    assert done.value.code == 0
    assert out.getvalue().startswith("usage: companion")


def test_help_texts_named_in_the_issue_are_printed_whole():
    def helptext(*words):
        return subprocess.run(
            [sys.executable, "-m", "companion", *words, "--help"],
            capture_output=True,
            text=True,
            check=True,
            env={"COLUMNS": "200", "PATH": ""},
        ).stdout

    assert "words to look for" in helptext("catalogue", "search")
    assert "the same seed gives the same rolls" in helptext("dice", "simulate")
    serve = helptext("serve")
    assert (
        "--rotate-host-token" in serve and "the local network" in serve and "busy port is an error" in serve
    )
