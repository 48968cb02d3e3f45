"""A simulated table for fault tests and the bench: it plays random legal games on its own SQLite log
(the rules engine's ``random_answer``) and pushes them to the league through the same
:class:`~companion.league.outbox.Outbox` as ``companion serve --league``.

    python -m companion.league.simulate --db t7.sqlite --league URL-or-DSN --token T \\
        [--steps 200] [--pace 0.01] [--games 1] [--seed 7] [--undo-every 0] [--drain]

Each step is one accepted action (an undo every ``--undo-every`` steps); a finished game starts a new
one after renaming the old file as the table page does.  With ``--drain`` it keeps pushing after the
last step until nothing waits (or ``--drain-seconds`` pass).  Prints one JSON line at the end.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from companion.session import GameSession


def new_game(db: Path, seed: int) -> GameSession:
    from companion.session import GameSession

    if db.exists() and db.stat().st_size > 0:
        old = GameSession.open(db)
        game_id = old.game_id
        old.close()
        db.replace(db.with_name(f"{db.stem}.{game_id}{db.suffix}"))
    rng = random.Random(seed)
    species = ["Dwarves", "Goblins", "Coral Elves", "Lava Elves", "Amazons", "Undead"]
    a, b = rng.sample(species, 2)
    return GameSession.create(
        db,
        {
            "force_size": 24,
            "players": [{"name": f"A{seed}", "species": a}, {"name": f"B{seed}", "species": b}],
        },
    )


def main(argv: list[str] | None = None) -> int:
    from companion.rules.game.flow import Game, random_answer
    from companion.session import GameSession

    from .outbox import Outbox, transport_for

    p = argparse.ArgumentParser(prog="python -m companion.league.simulate")
    p.add_argument("--db", required=True)
    p.add_argument("--league", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument(
        "--games", type=int, default=1, help="games to play at most (a finished game starts the next)"
    )
    p.add_argument("--pace", type=float, default=0.0, help="seconds between steps")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--undo-every", type=int, default=0)
    p.add_argument("--batch", type=int, default=200)
    p.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the league's answer")
    p.add_argument("--max-backoff", type=float, default=2.0, help="longest wait between tries while offline")
    p.add_argument("--drain", action="store_true")
    p.add_argument("--drain-seconds", type=float, default=60)
    p.add_argument("--no-push", action="store_true", help="only play (the outbox stays unsent)")
    args = p.parse_args(argv)

    db = Path(args.db)
    rng = random.Random(args.seed)
    session = GameSession.open(db) if db.exists() and db.stat().st_size > 0 else new_game(db, args.seed)
    live: dict[str, GameSession | None] = {
        "session": session
    }  # the outbox reads the current game through it (see Outbox)
    box = None
    if not args.no_push:
        box = Outbox(
            db,
            transport_for(args.league, args.token, timeout=args.timeout),
            batch=args.batch,
            interval=0.05,
            max_backoff=args.max_backoff,
            session=lambda: live["session"],
        ).start()
    games, steps = 1, 0
    t0 = time.monotonic()
    while steps < args.steps:
        if session.pending() is None:
            if games >= args.games:
                break
            live["session"] = None
            session.close()
            games += 1
            session = live["session"] = new_game(db, args.seed * 1000 + games)
            continue
        game = session.game
        assert isinstance(game, Game), "the simulated table plays V4.01c games (new_game)"
        session.submit(random_answer(game, rng))
        steps += 1
        if args.undo_every and steps % args.undo_every == 0:
            session.undo(1)
        if box is not None:
            box.wake()
        if args.pace:
            time.sleep(args.pace)
    played_s = time.monotonic() - t0
    waiting = None
    if box is not None and args.drain:
        deadline = time.monotonic() + args.drain_seconds
        while time.monotonic() < deadline:
            waiting = box.waiting()
            if waiting == 0:
                break
            box.wake()
            time.sleep(0.05)
    status = box.status() if box is not None else {}
    if box is not None:
        box.stop()
    session.close()
    print(
        json.dumps(
            {
                "steps": steps,
                "games": games,
                "played_s": round(played_s, 3),
                "drained_s": round(time.monotonic() - t0 - played_s, 3),
                "waiting": status.get("waiting"),
                "state": status.get("state"),
                "error": status.get("error"),
            }
        ),
        flush=True,
    )
    return 0 if (not args.drain or status.get("waiting") == 0) else 1


if __name__ == "__main__":
    sys.exit(main())
