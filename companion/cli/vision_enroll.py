"""``companion vision enroll``: teach a model bundle a table's own dice (``companion.vision.enroll``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def _err(msg: str) -> int:
    print(f"companion vision enroll: error: {msg}", file=sys.stderr)
    return 2


def _enroll(args) -> int:
    from companion.vision.embedding import EmbeddingError
    from companion.vision.enroll import EnrollError, enroll, read_art, read_corrections
    from companion.vision.profile import ProfileError
    from companion.vision.reader import ModelError

    if bool(args.corrections) == bool(args.art):
        return _err("give one of --corrections DIR or --art DIR")
    if args.views < 1:
        return _err("--views must be at least 1")
    if args.seed < 0:
        return _err(f"--seed must be 0 or more, not {args.seed}")
    try:
        sightings = read_corrections(Path(args.corrections)) if args.corrections else read_art(Path(args.art))
        figures = enroll(
            args.model, Path(args.out), sightings, embedding=args.embedding, views=args.views, seed=args.seed
        )
    except (EnrollError, ModelError, ProfileError, EmbeddingError) as exc:
        return _err(str(exc))
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"enrolled {figures['sightings']} sightings ({figures['crops']} crops) in {figures['seconds']:.1f} s; "
            f"the profile knows {figures['faces_known']} faces; bundle: {figures['bundle']}"
        )
    return 0


def register(sub) -> None:
    n = sub.add_parser(
        "enroll", help="teach a model your own dice (from tablet corrections or face pictures)"
    )
    n.add_argument("--corrections", metavar="DIR", help="folder of <name>.jpg + <name>.json the tablet wrote")
    n.add_argument(
        "--art", metavar="DIR", help="folder with faces.csv (image, species, kind, icon, count) + pictures"
    )
    n.add_argument(
        "--model",
        default="dragon-dice",
        help="base bundle (name or folder); an enrolled bundle keeps its profile and learns more",
    )
    n.add_argument("--out", required=True, help="bundle folder to write; use it as --model anywhere")
    n.add_argument(
        "--embedding",
        default=None,
        help="face embedding network (name or folder); default: the one the base bundle names "
        "(numeral-embed for polyhedral-oblique), else face-embed",
    )
    n.add_argument("--views", type=int, default=8, help="rendered dice per face picture (--art)")
    n.add_argument("--seed", type=int, default=0, help="seed of the rendered views (--art)")
    n.add_argument("--json", action="store_true", help="print the figures as JSON")
    n.set_defaults(func=_enroll)
