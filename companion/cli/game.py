"""``companion game``: play a game on its SQLite log from the command line.

companion game new --db g.db --players Alice:Dwarves,Bob:Goblins --force 24
companion game new --db g.db --edition r96       # the 1996 rules (TSR) with the FAQ rulings
companion game show --db g.db            # where the game stands and who must decide what
companion game submit --db g.db '{"type": "choose", "choice": "first_turn"}'
companion game roll --db g.db --seed 3   # roll for me
companion game roll --db g.db --faces "2 Melee" ID "1 Save"   # faces read off the table, typed
companion game undo --db g.db -n 2
companion game export --db g.db game.json ; companion game import --db copy.db game.json
"""

from __future__ import annotations

import argparse
import json
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser("game", help="play a Dragon Dice game on a durable event log")
    sub = p.add_subparsers(dest="game_command", metavar="ACTION")

    def add(name: str, help_text: str) -> argparse.ArgumentParser:
        q = sub.add_parser(name, help=help_text)
        q.add_argument("--db", required=True, help="game database file (SQLite)")
        q.set_defaults(func=handler, game_command=name)
        return q

    q = add("new", "start a quick-start game")
    q.add_argument("--players", default="Alice:Dwarves,Bob:Goblins", help="NAME:SPECIES,... (2 or more)")
    q.add_argument("--force", type=int, default=24, help="total force size in points")
    q.add_argument(
        "--edition", choices=("v4", "r96"), default="v4", help="rules: V4.01c (default) or the 1996 rules"
    )
    add("show", "show the state and the pending decision")
    q = add("submit", "submit an action given as JSON")
    q.add_argument("action", help='e.g. \'{"type": "choose", "choice": "pass"}\'')
    q = add("roll", "roll for me (seeded), or give the faces rolled on the table (--faces)")
    q.add_argument(
        "--seed", type=int, default=0, help="seed of the roll (the same seed rolls the same faces)"
    )
    q.add_argument(
        "--faces",
        nargs="+",
        metavar="FACE",
        help="the faces rolled, one per die in the order `show` lists them (face text, its number "
        "on the die, or UID=FACE); logged as typed readings",
    )
    q = add("undo", "take back the last action(s)")
    q.add_argument("-n", type=int, default=1, help="how many actions to take back (default 1)")
    q = add("export", "write the game file")
    q.add_argument("path", help="JSON file to write (setup, actions and state)")
    q = add("import", "load a game file into a new database")
    q.add_argument("path", help="game file written by `companion game export`")
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _show(session) -> None:
    state = session.state_dict()
    print(f"game {state['game_id']}  turn {state['turn']}  phase {state['phase']}  step {state['step']}")
    for t in state["terrains"]:
        ctl = f"  controlled by {t['controller']}" if t["controller"] else ""
        print(f"  {t['id']:<12} {t['name']:<28} face {t['face']} ({t['action'] or 'eighth face'}){ctl}")
    for a in state["armies"]:
        print(
            f"  {a['id']:<16} {a['health']:>2} health: "
            + ", ".join(u["die"].split("/")[-1] for u in a["units"])
        )
    for line in state["log"][-5:]:
        print(f"  . {line}")
    if state["winner"]:
        print(f"winner: {state['winner']} ({state['win_reason']})")
    pending = state["pending"]
    if pending:
        print(f"{pending['player_name']} must decide: {pending['prompt']}  [{pending['rule']}]")
        for c in pending["choices"][:20]:
            print(f"    {json.dumps(c['value'])}: {c['label']}")
        for d in pending.get("dice", []):
            print(f"    {d['uid']} {d['die']}: {' | '.join(d['faces'])}")


def typed_readings(pending: dict | None, faces: list[str]) -> list:
    """Typed ``DieReading`` values for the pending roll from ``--faces``: one per die in order, or ``UID=FACE``;
    a number that is not a face of its die is its face's 1-based number on the die."""
    from companion.readings import DieReading
    from companion.rules import is_whole_number
    from companion.rules.game import IllegalAction

    if not pending or pending.get("kind") != "roll":
        raise IllegalAction(
            "no roll is pending now" + (f" (waiting for: {pending['prompt']})" if pending else "")
        )
    dice = pending["dice"]
    by_uid = {d["uid"]: d for d in dice}
    if all("=" in f and f.split("=", 1)[0] in by_uid for f in faces):
        pairs = [tuple(f.split("=", 1)) for f in faces]
    elif len(faces) != len(dice):
        raise IllegalAction(
            f"{len(faces)} face(s) for {len(dice)} dice: give one per die in the order "
            f"{', '.join(by_uid)}, or UID=FACE"
        )
    else:
        pairs = [(d["uid"], f) for d, f in zip(dice, faces, strict=True)]
    out = []
    for uid, face in pairs:
        options = by_uid[uid]["faces"]
        if face not in options and is_whole_number(face) and 1 <= int(face) <= len(options):
            face = options[int(face) - 1]
        out.append(DieReading.typed(uid, face, name=by_uid[uid]["die"]))
    return out


MAX_FORCE = 120  # the largest force the tablet's POST /api/games takes (web/games.py)


def _players(text: str) -> list[dict]:
    """``--players NAME:SPECIES,...`` as set-up players; an empty name or a name given twice is refused."""
    players = []
    for i, item in enumerate(text.split(","), 1):
        name, _, species = item.partition(":")
        if not name.strip():
            raise ValueError(f"--players: player {i} ({item!r}) has no name")
        players.append({"name": name.strip(), **({"species": species.strip()} if species.strip() else {})})
    names = [p["name"].lower() for p in players]
    if len(set(names)) != len(names):
        raise ValueError(f"--players: player names must differ ({text!r})")
    return players


def handler(args: argparse.Namespace) -> int:
    from companion.rules.game import GameRuleError
    from companion.session import GameSession, SessionError

    try:
        cmd = args.game_command
        if cmd == "new":
            players = _players(args.players)
            if not 3 <= args.force <= MAX_FORCE:
                raise ValueError(
                    f"--force {args.force}: a force is 3 to {MAX_FORCE} points (as the tablet's)"
                )
            setup = {"force_size": args.force, "players": players}
            if args.edition != "v4":
                setup["edition"] = args.edition  # companion.session.new_game picks the edition's flow
            session = GameSession.create(args.db, setup, by={"role": "cli"})
        elif cmd == "import":
            session = GameSession.import_file(args.db, args.path)
        else:
            session = GameSession.open(args.db)
        if cmd == "submit":
            try:
                action = json.loads(args.action)
            except json.JSONDecodeError as exc:
                print(f"error: the action is not JSON: {exc}", file=sys.stderr)
                return 2
            for e in session.submit(action, by={"role": "cli"}):
                print("\n".join(e["log"]) or f"event {e['seq']}")
        elif cmd == "roll" and args.faces:
            readings = typed_readings(session.pending(), args.faces)
            for e in session.submit_readings(readings, by={"role": "cli", "source": "typed"}):
                print("faces: " + ", ".join(e["action"]["faces"]))
                print("\n".join(e["log"]))
        elif cmd == "roll":
            for e in session.submit({"type": "roll_for_me", "seed": args.seed}, by={"role": "cli"}):
                print("faces: " + ", ".join(e["action"]["faces"]))
                print("\n".join(e["log"]))
        elif cmd == "undo":
            session.undo(args.n, by={"role": "cli"})
        elif cmd == "export":
            print(session.export(args.path))
            return 0
        _show(session)
        return 0
    except (GameRuleError, SessionError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:  # a bad argument, refused before any file is touched
        print(f"error: {exc}", file=sys.stderr)
        return 2
