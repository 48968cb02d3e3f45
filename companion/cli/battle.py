"""``companion battle``: play Battle Dice in the terminal, and list its rulings and tables.

companion battle play --seed 7                  # both sides rolled for, choices at random, log printed
companion battle play --interactive             # you type faces and choices (Enter = roll for me)
companion battle play --army-a "dragon:general=2,monster=4,mage=2,archer=4,cavalry=4,infantry=4" ...
companion battle play --option R04=until_used --json
companion battle rulings [--json]
companion battle tables [--json]
"""

from __future__ import annotations

import argparse
import sys

# BD-01 (BD L56-62): the document's own example armies.
DEFAULT_A = "dragon:general=2,monster=4,mage=2,archer=4,cavalry=4,infantry=4"
DEFAULT_B = "archmage:general=1,monster=2,mage=6,archer=6,infantry=5"


def parse_army(text: str, name: str) -> dict:
    """``"[monster:]unit=n,unit=n"`` -> an army list (errors name the bad part)."""
    from companion.rules import is_whole_number

    monster = None
    if ":" in text:
        monster, text = text.split(":", 1)
    units = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not is_whole_number(value.strip()):
            raise ValueError(f"army part {part!r} must look like unit=count")
        if key.strip() in units:
            raise ValueError(f"{name}: unit {key.strip()!r} is given twice (in {part!r})")
        units[key.strip()] = int(value)
    army = {"name": name, "units": units}
    if monster:
        army["monster"] = monster.strip()
    return army


def parse_options(items: list[str]) -> dict:
    out: dict = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise ValueError(f"option {item!r} must look like R04=until_used")
        if key.strip() == "max_turns":
            try:
                out["max_turns"] = int(value)
            except ValueError:
                raise ValueError(f"option max_turns must be a whole number, not {value.strip()!r}") from None
            continue
        out[key.strip()] = value.strip()
    return out


def _ask(game, rng, interactive: bool):
    from companion.rules import is_whole_number
    from companion.rules.battle_dice import random_action, roll_for_me

    p = game.pending()
    if not interactive:
        return random_action(game, rng)
    choices = p["choices"]
    if p["kind"] == "roll":
        sizes = " ".join(f"d{d['sides']}" + ("(1D3)" if d.get("read_as") else "") for d in choices["dice"])
        text = input(f"[{p['player']}] {p['prompt']}\n  faces for {sizes} (Enter = roll for me): ").strip()
        if not text:
            return roll_for_me(game, rng)
        return {
            "kind": "roll",
            "faces": [int(x) if is_whole_number(x) else x for x in text.replace(",", " ").split()],
        }
    if p["kind"] == "choose_dice":
        for c in choices["candidates"]:
            print(f"    {c['id']}: {c['label']}")
        text = input(f"[{p['player']}] {p['prompt']}\n  ids (Enter = first {choices['count']}): ").strip()
        ids = text.replace(",", " ").split() or [c["id"] for c in choices["candidates"]][: choices["count"]]
        return {"kind": "choose", "dice": ids}
    text = input(f"[{p['player']}] {p['prompt']} {choices['options']} (Enter = first): ").strip()
    return {"kind": "choose", "option": text or choices["options"][0]}


def _play(args: argparse.Namespace) -> int:
    import json
    import random

    from companion.rules.battle_dice import BattleDiceError, BattleGame

    try:
        setup = {
            "armies": {"A": parse_army(args.army_a, "Army A"), "B": parse_army(args.army_b, "Army B")},
            "options": {"max_turns": args.max_turns, **parse_options(args.option)},
        }
        game = BattleGame(setup)
    except (ValueError, BattleDiceError) as exc:
        print(f"companion battle: {exc}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    shown = 0
    while game.pending() is not None:
        try:
            game.apply(_ask(game, rng, args.interactive))
        except BattleDiceError as exc:
            print(f"  refused: {exc}", file=sys.stderr)
        except EOFError:
            print("companion battle: input ended", file=sys.stderr)
            return 1
        if not args.json:
            for event in game.events[shown:]:
                indent = "" if event["type"] in ("phase", "result") else "  "
                print(indent + event["text"])
            shown = len(game.events)
    if args.json:
        print(json.dumps(game.to_dict(), indent=1))
    return 0


def _rulings(args: argparse.Namespace) -> int:
    import json

    from companion.rules.battle_dice.rulings import RULINGS

    if args.json:
        print(json.dumps([r.describe() for r in RULINGS], indent=1))
        return 0
    for r in RULINGS:
        variants = ", ".join(("*" if v == r.default else "") + v for v in r.variants)
        print(
            f"{r.id}  {r.gap}\n     ruling: {r.ruling}\n     why: {r.why} [{r.citation}]\n     variants: {variants}"
        )
    return 0


def _tables(args: argparse.Namespace) -> int:
    import json

    from companion.rules.battle_dice.tables import all_tables

    tables = all_tables()
    if args.json:
        print(
            json.dumps(
                {
                    k: {
                        "title": t.title,
                        "printed_die": t.sides,
                        "citation": t.citation,
                        "rows": [
                            {
                                "range": [r.lo, r.hi],
                                "name": r.name,
                                "citation": r.citation,
                                "effects": [e.kind for e in r.effects],
                            }
                            for r in t.rows
                        ],
                    }
                    for k, t in tables.items()
                },
                indent=1,
            )
        )
        return 0
    for t in tables.values():
        print(f"{t.title} (printed 1D{t.sides}) [{t.citation}]")
        for r in t.rows:
            rng = str(r.lo) if r.lo == r.hi else f"{r.lo}-{r.hi}"
            print(f"  {rng:>5}  {r.name:18s} {', '.join(e.kind for e in r.effects)}  [{r.citation}]")
    return 0


def register(subparsers) -> None:
    parser = subparsers.add_parser("battle", help="play Battle Dice (d4-d20) and list its rulings and tables")
    sub = parser.add_subparsers(dest="battle_command", metavar="ACTION")
    play = sub.add_parser("play", help="play a game in the terminal (rolled for you unless --interactive)")
    play.add_argument("--seed", default=0, help="seed of the 'roll for me' random source (default 0)")
    play.add_argument(
        "--army-a", default=DEFAULT_A, help=f"army A as [monster:]unit=n,... (default {DEFAULT_A})"
    )
    play.add_argument("--army-b", default=DEFAULT_B, help=f"army B (default {DEFAULT_B})")
    play.add_argument(
        "--option", action="append", metavar="RNN=VARIANT", help="override a ruling (repeatable)"
    )
    play.add_argument(
        "--max-turns", type=int, default=50, help="end as a draw after this many turns (default 50)"
    )
    play.add_argument("--interactive", action="store_true", help="type faces and choices yourself")
    play.add_argument(
        "--json", action="store_true", help="print the stored game (setup, actions, state) as JSON"
    )
    play.set_defaults(func=_play)
    rulings = sub.add_parser("rulings", help="how the document's gaps are settled, and the option variants")
    rulings.add_argument("--json", action="store_true", help="print them as JSON (for programs)")
    rulings.set_defaults(func=_rulings)
    tables = sub.add_parser("tables", help="the Tactics, Spell, Maneuver and 14 monster tables")
    tables.add_argument("--json", action="store_true", help="print them as JSON (for programs)")
    tables.set_defaults(func=_tables)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)
