"""``companion catalogue search TEXT`` and ``companion catalogue show NAME``."""

from __future__ import annotations

import argparse


def _describe(die) -> str:
    parts = [die.kind.value]
    if die.size:
        parts.append(die.size)
    if die.unit_class:
        parts.append(die.unit_class)
    if die.health is not None:
        parts.append(f"health {die.health}")
    elems = ", ".join(sorted(e.value for e in die.elements)) or "no element"
    if die.color:
        elems += f" ({die.color})"
    parts.append(elems)
    return " | ".join(parts)


def _search(args: argparse.Namespace) -> int:
    from companion.rules.catalogue import load_catalogue

    if not args.text.strip():  # "" matched every die and "   " most of them: a listing nobody asked for
        import sys

        print("companion catalogue search: TEXT is empty (give words such as 'Dwarves')", file=sys.stderr)
        return 2
    cat = load_catalogue()
    hits = cat.search(args.text)
    for die in hits:
        print(f"{die.name:45s} {_describe(die)}")
    for card in cat.spells:
        if args.text.lower() in card.name.lower():
            print(
                f"{'Spells/' + card.name:45s} spell card | cost {card.cost} | {card.color} | {card.species}"
            )
            hits.append(card)
    if not hits:
        print(f"no die matches {args.text!r}")
        return 1
    return 0


def _show(args: argparse.Namespace) -> int:
    import sys

    from companion.rules.catalogue import load_catalogue

    cat = load_catalogue()
    die = cat.find(args.name)
    if die is None:
        card = cat.spell(args.name.removeprefix("Spells/"))
        if card is None:
            print(f"unknown die {args.name!r} (try: companion catalogue search TEXT)", file=sys.stderr)
            return 2
        flags = [f for f, on in (("reserve", card.reserve), ("cantrip", card.cantrip)) if on]
        print(f"Spells/{card.name}: cost {card.cost}, {card.color}, {card.species} {' '.join(flags)}")
        return 0
    print(die.name)
    print("  " + _describe(die))
    if die.autosaves:
        print(f"  automatic saves: {die.autosaves}")
    if die.terrain_type:
        print(f"  terrain type: {die.terrain_type}, eighth face: {die.eighth_face}")
    if die.dragon_type:
        print(f"  dragon type: {die.dragon_type}")
    for i, face in enumerate(die.faces, 1):
        print(f"  face {i:2d}: {face.text()}")
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser("catalogue", help="look up dice and their faces")
    sub = parser.add_subparsers(dest="catalogue_command", metavar="ACTION", required=True)
    p = sub.add_parser("search", help="dice whose name, class or icons contain TEXT")
    p.add_argument(
        "text", help="words to look for, e.g. 'Dwarves', 'Mammoth', 'Melee' (case does not matter)"
    )
    p.set_defaults(func=_search)
    p = sub.add_parser("show", help='one die and its faces, e.g. "Dwarves/Mammoth Rider"')
    p.add_argument("name", help='the die\'s catalogue name, SPECIES/UNIT, e.g. "Dwarves/Mammoth Rider"')
    p.set_defaults(func=_show)
