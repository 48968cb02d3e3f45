"""The ``companion`` command line.

Every module in this package (other than this one) that defines ``register(subparsers)``
adds its own sub-command(s).  Command modules must keep their top-level imports light
(argparse and the standard library only): heavy packages are imported inside the handler,
so that ``companion resolve`` starts fast and never loads vision, torch, Flask or serial.
Each handler is stored as ``func`` on the parsed namespace and returns an exit status.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="companion",
        description="Dragon Dice table companion: read dice, resolve rolls, run the tablet page.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        return int(func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
