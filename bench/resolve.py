"""Resolutions per second for a 10-die and a 30-die army roll (goal: >= 20,000/s for 10 dice).

    python bench/resolve.py [--seconds 2]

Each army is a fixed, realistic mix (small to large units, a monster, SAIs) at a Highland whose
eighth face it controls, with Ash Storm and Stone Skin in force.  Two figures per case:

* fresh: 500 different rolls of that army (faces drawn once, seed 1), resolved in turn with the
  memo off: every resolution runs the whole engine and every plug-in;
* repeat: the same roll again and again, as a camera reports an unchanged table (memo on).

A last line times the rolls real games ask for: every resolution the random games of
``bench/game.py`` (``--game-rolls`` games, seed 1) request, mostly small armies and single units,
resolved afresh (memo off).

Figures are the best round (as ``timeit`` reports), with the mean of all rounds and the rate per
second of this process's CPU time beside it (the machine is shared: load average printed).

The catalogue is loaded and the plug-ins imported before timing.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time

from companion.rules.catalogue import load_catalogue
from companion.rules.resolution import (
    EffectInForce,
    RolledUnit,
    RollRequest,
    RollTerrain,
    get_edition,
    resolve,
)

ARMY = [
    "Dwarves/Footman",
    "Dwarves/Footman",
    "Dwarves/Sergeant",
    "Dwarves/Patroller",
    "Dwarves/Mammoth Rider",
    "Dwarves/Warlord",
    "Dwarves/Crossbowman",
    "Dwarves/Theurgist",
    "Dwarves/Roc",
    "Dwarves/Skirmisher",
]
SPELLS = {"v4": ("Ash Storm", "Stone Skin"), "r96": ("Ash Storm", "Stoneskin")}


def rolls(n: int, purpose: str, edition: str, count: int, seed: int = 1) -> list[RollRequest]:
    cat = load_catalogue()
    rng = random.Random(seed)
    dice = [cat[ARMY[k % len(ARMY)]] for k in range(n)]
    ash, skin = SPELLS[edition]
    effects = (EffectInForce(ash, 2, "terrain"), EffectInForce(skin, 1))
    terrain = RollTerrain("Highland", 8, "Tower", True)
    out = []
    for _ in range(count):
        units = []
        for die in dice:
            faces = [rng.choice(die.faces)]
            while (
                faces[-1].sai in ("Rend", "Bullseye", "Double Strike", "Tail", "Stun", "Flurry")
                and len(faces) < 4
            ):
                faces.append(rng.choice(die.faces))  # a re-rolling SAI: the die rolls again
            units.append(RolledUnit(die, tuple(faces)))
        out.append(RollRequest(purpose, tuple(units), edition=edition, terrain=terrain, effects=effects))
    return out


def valid(requests: list[RollRequest]) -> list[RollRequest]:
    """Drop rolls whose re-roll list does not fit the SAI's rule for this roll type."""
    ok = []
    for req in requests:
        try:
            resolve(req, memo=False)
        except ValueError:
            continue
        ok.append(req)
    return ok


def rate(requests: list[RollRequest], seconds: float, memo: bool) -> tuple[float, float, float]:
    """(best, mean, per CPU second) resolutions per second over rounds of ``requests``.  Like
    ``timeit``, the best round is the figure least disturbed by other processes on a shared machine;
    the CPU-time rate counts only this process's own time."""
    edition = get_edition(requests[0].edition)
    rounds = []
    start = time.perf_counter()
    cpu0 = time.process_time()
    while not rounds or time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        for req in requests:
            resolve(req, edition, memo=memo)
        rounds.append(time.perf_counter() - t0)
    cpu = time.process_time() - cpu0
    done = len(requests) * len(rounds)
    return len(requests) / min(rounds), done / sum(rounds), done / cpu


def game_rolls(games: int, seed: int = 1) -> list[RollRequest]:
    """The roll requests ``games`` random games of ``bench/game.py`` resolve, in order."""
    from game import random_setup  # bench/game.py, beside this script

    import companion.rules.resolution as resolution
    from companion.rules.game import Game, random_answer

    asked: list[RollRequest] = []

    def recording(request, edition=None, *, memo=True):
        asked.append(request)
        return resolve(request, edition, memo=memo)

    rng = random.Random(seed)
    resolution.resolve = recording  # the game flow imports resolve from the package when it rolls
    try:
        for _ in range(games):
            game = Game(random_setup(rng))
            for _ in range(20000):
                if game.pending is None:
                    break
                game.apply(random_answer(game, rng))
    finally:
        resolution.resolve = resolve
    return asked


def game_rate(requests: list[RollRequest], seconds: float) -> float:
    """Fresh resolutions per second of this process's CPU time (each request in its own edition)."""
    cpu0 = time.process_time()
    start = time.perf_counter()
    done = 0
    while not done or time.perf_counter() - start < seconds:
        for req in requests:
            resolve(req, memo=False)
        done += len(requests)
    return done / (time.process_time() - cpu0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    parser.add_argument(
        "--game-rolls", type=int, default=6, help="random games whose rolls are timed (0: none)"
    )
    args = parser.parse_args()
    goal = 20_000
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; goal {goal:,}/s for 10 dice")
    for edition in ("v4", "r96"):
        for n in (10, 30):
            for purpose in ("melee", "save"):
                fresh = valid(rolls(n, purpose, edition, 500))
                f, f_mean, f_cpu = rate(fresh, args.seconds, memo=False)
                r, _, _ = rate(fresh[:1] * 500, args.seconds / 2, memo=True)
                ratio = f"  fresh/goal {f / goal:.2f}  repeat/goal {r / goal:.2f}" if n == 10 else ""
                print(
                    f"{edition:4s} {n:2d} dice {purpose:6s}: fresh {f:8,.0f}/s ({1e6 / f:6.1f} us; mean {f_mean:,.0f}/s;"
                    f" per CPU-s {f_cpu:,.0f})  repeat {r:8,.0f}/s{ratio}"
                )
    if args.game_rolls:
        asked = game_rolls(args.game_rolls)
        size = statistics.median(len(r.units) for r in asked)
        print(
            f"game rolls: {len(asked):,} resolutions of {args.game_rolls} random games (median {size:g} dice): "
            f"fresh per CPU-s {game_rate(asked, args.seconds):,.0f}"
        )


if __name__ == "__main__":
    main()
