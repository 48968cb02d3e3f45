"""``companion resolve FILE [--json]``: resolve a roll scenario file (conformance FORMAT.md).

Exit status: 0 resolved (and matches ``expect`` when given), 1 resolved but differs from
``expect``, 2 the file cannot be read (one line naming the bad key).
Imports only the rules package and PyYAML: never vision, torch, Flask or serial.
"""

from __future__ import annotations

import argparse
import sys


def _handler(args: argparse.Namespace) -> int:
    import json

    import yaml

    from companion.rules.catalogue import load_catalogue
    from companion.rules.resolution import ResolutionError, resolve
    from companion.rules.resolution.scenario import ScenarioError, read_scenario

    try:
        if args.file == "-":
            doc = yaml.safe_load(sys.stdin)
        else:
            with open(args.file, encoding="utf-8") as fh:
                doc = yaml.safe_load(fh)
    except OSError as exc:
        print(f"{args.file}: cannot read: {exc.strerror}", file=sys.stderr)
        return 2
    except UnicodeDecodeError as exc:  # a binary file, or text in another encoding
        print(f"{args.file}: not a UTF-8 text file (byte {exc.start})", file=sys.stderr)
        return 2
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        print(f"{args.file}: not valid YAML{where}", file=sys.stderr)
        return 2
    try:
        scenario = read_scenario(doc, load_catalogue())
        resolution = resolve(scenario.request)
    except (ScenarioError, ResolutionError) as exc:
        print(f"{args.file}: {exc}", file=sys.stderr)
        return 2
    mismatches = {
        k: (v, resolution.totals.get(k, 0))
        for k, v in scenario.expect.items()
        if resolution.totals.get(k, 0) != v
    }
    if args.json:
        out = resolution.as_dict()
        out = {"id": scenario.id, **out}
        if scenario.expect:
            out["expect"] = dict(scenario.expect)
            out["matches_expect"] = not mismatches
        print(json.dumps(out, indent=2))
    else:
        print(f"{scenario.id} ({resolution.edition}, {resolution.purpose} roll)")
        for step in resolution.steps:
            nums = f" {step.result}: {step.before} -> {step.after}" if step.result is not None else ""
            print(f"  step {step.step}:{nums}  {step.text}  [{step.rule}; {step.citation}]")
        for rep in resolution.reports:
            print(f"  note: {rep.source}: {rep.text}")
        print("totals: " + ", ".join(f"{k} {v}" for k, v in resolution.totals.items()))
        if resolution.magic:
            print("magic by element: " + ", ".join(f"{k} {v}" for k, v in resolution.magic.items()))
        if resolution.other:
            print("other: " + ", ".join(f"{k} {v}" for k, v in resolution.other.items()))
        for k, (want, got) in mismatches.items():
            print(f"expected {k} {want}, got {got}")
    return 1 if mismatches else 0


def register(subparsers) -> None:
    parser = subparsers.add_parser("resolve", help="resolve a roll scenario file and explain every step")
    parser.add_argument("file", help="a roll scenario YAML file (format 1), or - to read standard input")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=_handler)
