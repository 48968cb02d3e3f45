"""Structure figures of the code base: which folders import which, import loops, largest functions.

    python bench/structure.py [--top 15] [--loops-in companion/rules]

Read from the source text only (``ast``); nothing of the project is imported or run.

* folders: for each package folder (``companion/rules/game``, ``web``, ...) the folders it imports from
  (every ``import`` counts, also those inside functions and under ``TYPE_CHECKING``: a module that
  needs another's names to be read depends on it);
* loops: the strongly connected groups of modules (more than one module) in the module import graph,
  once with every import and once with run-time imports only (``TYPE_CHECKING`` blocks left out);
* largest functions: by lines, and by cyclomatic complexity as ``ruff``'s C901 rule counts it
  (``ruff check --select C901``).
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("companion", "web", "firmware_bridge")


def modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / pkg).rglob("*.py")):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = path
    return out


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(name: str, path: Path, known: set[str], runtime_only: bool) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()

    def resolve(base: str) -> str | None:
        while base and base not in known:
            base = base.rsplit(".", 1)[0] if "." in base else ""
        return base or None

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and runtime_only and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                target = resolve(alias.name)
                if target:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            for alias in node.names:  # ``from . import flow`` names a module
                target = resolve(f"{mod}.{alias.name}") if f"{mod}.{alias.name}" in known else resolve(mod)
                if target:
                    found.add(target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    found.discard(name)
    return found


def folder_of(name: str, path: Path) -> str:
    return str(path.parent.relative_to(ROOT))


def graph(runtime_only: bool) -> tuple[nx.DiGraph, dict[str, Path]]:
    mods = modules()
    g = nx.DiGraph()
    for name, path in mods.items():
        g.add_node(name)
        for target in imports(name, path, set(mods), runtime_only):
            g.add_edge(name, target)
    return g, mods


def loops(g: nx.DiGraph, prefix: str) -> list[list[str]]:
    out = [sorted(c) for c in nx.strongly_connected_components(g) if len(c) > 1]
    return sorted((c for c in out if any(m.startswith(prefix) for m in c)), key=len, reverse=True)


def longest_functions(top: int) -> list[tuple[int, str]]:
    rows = []
    for path in modules().values():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                rows.append((lines, f"{path.relative_to(ROOT)}:{node.lineno} {node.name}"))
    return sorted(rows, reverse=True)[:top]


def most_complex(top: int) -> list[tuple[int, str]]:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--select",
            "C901",
            "--config",
            "lint.mccabe.max-complexity=1",
            "--output-format",
            "json",
            "--no-cache",
            *PACKAGES,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    rows = []
    for item in json.loads(run.stdout or "[]"):
        msg = item["message"]  # "`name` is too complex (116 > 1)"
        score = int(msg.rsplit("(", 1)[1].split(" ")[0])
        rel = Path(item["filename"]).resolve().relative_to(ROOT)
        rows.append((score, f"{rel}:{item['location']['row']} {msg.split('`')[1]}"))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--top", type=int, default=15)
    ap.add_argument("--loops-in", default="companion", help="report loops with a module under this package")
    args = ap.parse_args()
    prefix = args.loops_in.replace("/", ".")

    g_all, mods = graph(runtime_only=False)
    folders: dict[str, set[str]] = defaultdict(set)
    for a, b in g_all.edges:
        fa, fb = folder_of(a, mods[a]), folder_of(b, mods[b])
        if fa != fb:
            folders[fa].add(fb)
    print("## Which folders import which (every import)")
    for fa in sorted(folders):
        print(f"- {fa} -> {', '.join(sorted(folders[fa]))}")

    for title, runtime in (("every import", False), ("run-time imports only", True)):
        g, _ = graph(runtime_only=runtime)
        found = loops(g, prefix)
        print(f"\n## Import loops under {args.loops_in} ({title}): {len(found)}")
        for c in found:
            print(f"- {len(c)} modules: {', '.join(c)}")

    print(f"\n## Longest functions (lines), top {args.top}")
    for lines, where in longest_functions(args.top):
        print(f"- {lines:4d}  {where}")
    print(f"\n## Most complex functions (ruff C901 cyclomatic complexity), top {args.top}")
    for score, where in most_complex(args.top):
        print(f"- {score:4d}  {where}")


if __name__ == "__main__":
    main()
