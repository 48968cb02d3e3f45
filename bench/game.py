"""Game-flow benchmark: random legal games, events per second, replay time of a 500-event game.

    python bench/game.py --games 50

Prints: engine throughput (decisions applied per second, in memory; also per second of this process's
CPU time, the figure to compare on a shared machine), session throughput (events
committed to SQLite per second, WAL, one transaction each), and the time to rebuild a 500-event game
from its log (``GameSession.open``), as the median of several runs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from tqdm import tqdm

from companion.rules.game import Game, quick_setup, random_answer
from companion.session import GameSession

SPECIES = ("Dwarves", "Goblins", "Coral Elves", "Lava Elves", "Undead", "Amazons")


def random_setup(rng: random.Random) -> dict:
    players = rng.choice((2, 2, 3, 4))
    names = ["Ann", "Ben", "Cid", "Dee"][:players]
    species = rng.sample(SPECIES, players)
    return quick_setup(
        {
            "force_size": rng.choice((15, 24, 30)),
            "players": [{"name": n, "species": s} for n, s in zip(names, species, strict=True)],
        }
    )


def engine_games(n: int, seed: int) -> tuple[int, float, float, list[int]]:
    rng = random.Random(seed)
    events, elapsed, cpu, lengths = 0, 0.0, 0.0, []
    for _ in tqdm(range(n), desc="engine games", unit="game"):
        game = Game(random_setup(rng))
        count = 0
        t0, c0 = time.perf_counter(), time.process_time()
        while game.pending is not None and count < 20000:
            game.apply(random_answer(game, rng))
            count += 1
        elapsed += time.perf_counter() - t0
        cpu += time.process_time() - c0
        events += count
        lengths.append(count)
    return events, elapsed, cpu, lengths


def session_game(path: Path, seed: int, limit: int) -> tuple[int, float]:
    rng = random.Random(seed)
    s = GameSession.create(path, random_setup(rng))
    count = 0
    t0 = time.perf_counter()
    while s.pending() is not None and count < limit:
        s.submit(random_answer(s.game, rng))
        count += 1
    took = time.perf_counter() - t0
    s.close()
    return count, took


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=50, help="random games played in memory")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--replays", type=int, default=5, help="runs of the 500-event replay timing")
    args = ap.parse_args()

    events, elapsed, cpu, lengths = engine_games(args.games, args.seed)
    print(
        f"engine: {args.games} games, {events} decisions in {elapsed:.2f} s -> {events / elapsed:,.0f} decisions/s "
        f"(per CPU-s {events / cpu:,.0f}; median game {statistics.median(lengths):.0f} decisions, "
        f"longest {max(lengths)}; load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs)"
    )

    with tempfile.TemporaryDirectory() as tmp:
        # A game of at least 500 events, written through the session (SQLite, one transaction each).
        seed, written, path = args.seed, 0, None
        while written < 500:
            path = Path(tmp) / f"g{seed}.db"
            written, took = session_game(path, seed, limit=500)
            if written < 500:
                path.unlink()
                seed += 1
        print(
            f"session: {written} events committed in {took:.2f} s -> {written / took:,.0f} events/s "
            f"(SQLite WAL, synchronous=FULL, one transaction per event)"
        )
        times = []
        for _ in range(args.replays):
            t0 = time.perf_counter()
            s = GameSession.open(path)
            times.append(time.perf_counter() - t0)
            s.close()
        print(
            f"replay: {written}-event game rebuilt from its log in {statistics.median(times) * 1000:.1f} ms "
            f"(median of {args.replays}; {written / statistics.median(times):,.0f} events/s)"
        )


if __name__ == "__main__":
    main()
