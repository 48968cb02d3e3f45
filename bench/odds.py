"""Exact odds of a 30-die army roll (goal: <= 50 ms) against 100,000-sample Monte Carlo.

    python bench/odds.py [--rounds 5] [--samples 100000]

The army: 30 Dwarves dice (monsters with Rend, large to small units) rolling melee at a Highland
(face 3).  Figures:

* exact, cold: ``companion.rules.odds.army_odds`` with its per-face cache emptied first (every face
  resolved by the resolution engine, then the convolution);
* exact, warm: the same army again (faces cached, convolution only), as the page asks again;
* Monte Carlo: 100,000 rolls of the army drawn with numpy (the same per-face values, re-rolls
  followed), counted into a histogram; its time, the ratio of its time to the exact one, and the
  largest difference between the two distributions (it shrinks as 1/sqrt(samples)).

Best of ``--rounds`` rounds, as ``timeit`` reports.  The two distributions are drawn to
``--plot`` (default ``artifacts/bench/odds.png``): bars for the exact odds, dots for Monte Carlo.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from companion.rules.catalogue import load_catalogue
from companion.rules.odds import _face_value, army_odds
from companion.rules.resolution import RollTerrain

TERRAIN = RollTerrain("Highland", face=3)


def army() -> list:
    cat = load_catalogue()
    dwarves = [d for d in cat.of_species("Dwarves") if d.is_unit]
    return [dwarves[i % len(dwarves)] for i in range(30)]


def monte_carlo(dice, samples: int, rng: np.random.Generator) -> np.ndarray:
    totals = np.zeros(samples, dtype=np.int64)
    for die in dice:
        values = [_face_value(die, i, "melee", None, TERRAIN, False, "v4") for i in range(len(die.faces))]
        value = np.array([v.total for v in values])
        again = np.array([v.rerolls for v in values])
        active = np.ones(samples, dtype=bool)
        while active.any():
            faces = rng.integers(0, len(values), samples)
            totals += np.where(active, value[faces], 0)
            active &= again[faces]
    return np.bincount(totals) / samples


def best(fn, rounds: int) -> tuple[float, float, object]:
    times, out = [], None
    for _ in range(rounds):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return min(times), sum(times) / len(times), out


def plot(path: Path, exact: np.ndarray, sampled: np.ndarray, title: str) -> None:
    import cv2

    w, h, pad = 1000, 420, 50
    img = np.full((h, w, 3), 255, np.uint8)
    n = max(len(exact), len(sampled))
    top = max(exact.max(), sampled.max())
    bar = (w - 2 * pad) / n
    for k in range(n):
        x = int(pad + k * bar)
        if k < len(exact):
            y = int(h - pad - (h - 2 * pad) * exact[k] / top)
            cv2.rectangle(img, (x, y), (int(x + bar) - 1, h - pad), (169, 179, 79), -1)
        if k < len(sampled) and sampled[k] > 0:
            y = int(h - pad - (h - 2 * pad) * sampled[k] / top)
            cv2.circle(img, (int(x + bar / 2), y), 2, (59, 169, 224), -1)
        if k % 10 == 0:
            cv2.putText(
                img, str(k), (x, h - pad + 18), cv2.FONT_HERSHEY_SIMPLEX, 0.4, (60, 60, 60), 1, cv2.LINE_AA
            )
    cv2.line(img, (pad, h - pad), (w - pad, h - pad), (60, 60, 60), 1)
    cv2.putText(img, title, (pad, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (30, 30, 30), 1, cv2.LINE_AA)
    cv2.putText(
        img,
        "bars: exact (convolution)   dots: Monte Carlo",
        (pad, 52),
        cv2.FONT_HERSHEY_SIMPLEX,
        0.45,
        (80, 80, 80),
        1,
        cv2.LINE_AA,
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), img)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--samples", type=int, default=100_000)
    ap.add_argument(
        "--plot", type=Path, default=Path(__file__).resolve().parents[1] / "artifacts" / "bench" / "odds.png"
    )
    args = ap.parse_args()
    dice = army()

    def cold():
        _face_value.cache_clear()
        return army_odds(dice, "melee", terrain=TERRAIN)

    cold_best, cold_mean, odds = best(cold, args.rounds)
    warm_best, warm_mean, odds = best(lambda: army_odds(dice, "melee", terrain=TERRAIN), args.rounds)
    rng = np.random.default_rng(1)
    mc_best, mc_mean, hist = best(lambda: monte_carlo(dice, args.samples, rng), args.rounds)
    n = max(len(hist), len(odds.pmf))
    diff = np.abs(np.pad(hist, (0, n - len(hist))) - np.pad(odds.pmf, (0, n - len(odds.pmf)))).max()

    print(f"army: {len(dice)} Dwarves dice rolling melee at {TERRAIN.type} (face {TERRAIN.face})")
    print(
        f"exact distribution: {len(odds.pmf)} totals, mean {odds.mean:.3f}, P(>=40) {odds.p_at_least(40):.4f}, "
        f"mass {odds.pmf.sum():.15f}"
    )
    print(
        f"exact, cold (faces resolved): best {cold_best * 1000:7.2f} ms  mean {cold_mean * 1000:7.2f} ms  "
        f"(goal <= 50 ms: {'met' if cold_best <= 0.05 else 'NOT met'})"
    )
    print(f"exact, warm (cached faces):   best {warm_best * 1000:7.2f} ms  mean {warm_mean * 1000:7.2f} ms")
    print(
        f"Monte Carlo, {args.samples:,} samples: best {mc_best * 1000:7.2f} ms  mean {mc_mean * 1000:7.2f} ms"
    )
    print(f"ratio Monte Carlo / exact: {mc_best / cold_best:.1f}x (cold), {mc_best / warm_best:.1f}x (warm)")
    print(
        f"largest |P_mc - P_exact| over totals: {diff:.5f} (sampling noise ~ {1 / np.sqrt(args.samples):.5f})"
    )
    plot(args.plot, odds.pmf, hist, f"30-die melee roll: exact vs {args.samples:,} samples")
    print(f"plot: {args.plot}")


if __name__ == "__main__":
    main()
