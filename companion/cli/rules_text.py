"""``companion rules index FILE...``, ``companion rules search TEXT`` and ``companion rules docs``.

Builds the full-text index (SQLite FTS5) of the rule documents the players own, which the
tablet's Dispute panel searches.  The project ships no copy of the documents.
"""

from __future__ import annotations

import argparse

from ._argtypes import whole


def _index_path(args: argparse.Namespace):
    from pathlib import Path

    from companion.rulesearch import default_index_path

    return Path(args.index) if args.index else default_index_path()


def _index(args: argparse.Namespace) -> int:
    from companion.rulesearch import RuleIndex, RuleIndexError

    if args.label and len(args.files) != 1:
        print("error: --label needs exactly one FILE")
        return 2
    path = _index_path(args)
    status, added, existed = 0, 0, path.exists()
    try:
        idx = RuleIndex(path)
    except RuleIndexError as exc:
        print(f"error: --index: {exc}")
        return 2
    with idx:
        for f in args.files:
            try:
                label, n = idx.add_file(f, label=args.label)
            except RuleIndexError as exc:
                print(f"error: {exc}")
                status = 1
                continue
            added += 1
            print(f"{label:8s} {n:5d} passages  {f}")
    if not added and not existed:  # nothing could be indexed: no empty index is left behind
        path.unlink(missing_ok=True)
        print(f"nothing indexed: no index made at {path}")
        return status
    print(f"index: {path}")
    return status


def _search(args: argparse.Namespace) -> int:
    from companion.rulesearch import RuleIndex, RuleIndexError

    path = _index_path(args)
    if not path.exists():
        print(f"no index at {path}: run `companion rules index FILE...` first")
        return 1
    try:
        with RuleIndex(path, create=False) as idx:
            hits = idx.search(args.text, limit=args.limit, label=args.doc)
    except RuleIndexError as exc:
        print(f"error: {exc}")
        return 2
    for h in hits:
        print(f"[{h.citation}] {h.snippet}")
    if not hits:
        print(f"no passage matches {args.text!r}")
        return 1
    return 0


def _docs(args: argparse.Namespace) -> int:
    from companion.rulesearch import RuleIndex, RuleIndexError

    path = _index_path(args)
    if not path.exists():
        print(f"no index at {path}")
        return 1
    try:
        with RuleIndex(path, create=False) as idx:
            docs = idx.documents()
    except RuleIndexError as exc:
        print(f"error: {exc}")
        return 2
    for d in docs:
        print(f"{d['label']:8s} {d['passages']:5d} passages  {d['title']}  ({d['path']})")
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("rules", help="index and search the rule documents you own (Dispute panel)")
    p.add_argument("--index", help="index file (default: $COMPANION_RULES_INDEX or ~/.local/share/...)")
    sub = p.add_subparsers(dest="rules_command", metavar="ACTION", required=True)
    i = sub.add_parser("index", help="add rule documents (text files) to the full-text index")
    i.add_argument("files", nargs="+", metavar="FILE", help="rule documents as plain text files")
    i.add_argument("--label", help="citation label for a single FILE (default: guessed from its title)")
    i.set_defaults(func=_index)
    s = sub.add_parser("search", help="search the indexed documents")
    s.add_argument("text", help="words to look for, e.g. 'counter-attack save'")
    s.add_argument("--doc", help="only this document label (V4.01c, R96, FAQ95, FAQ96, BD)")
    s.add_argument(
        "--limit", type=whole(1, 50), default=5, help="how many passages to show, 1 to 50 (default 5)"
    )
    s.set_defaults(func=_search)
    d = sub.add_parser("docs", help="list the indexed documents")
    d.set_defaults(func=_docs)
