"""How long the Roll page's running total takes (``POST /api/rolls/preview``) as a game grows.

    python bench/preview.py [--events 100 200 400] [--repeat 5] [--seed 0]

Plays a quick-start V4.01c game through the API (seeded rolls, first choices, no spells) on a real
SQLite file, and each time the log has grown past one of ``--events`` and a roll is pending, times
the preview of that roll with one die set (the total so far) and with every die set (the whole
total), in process (no HTTP).  Each preview gives the roll to a copy of the game rebuilt from its log,
which costs more as the log grows; the copy for the next tap is rebuilt in the background.  So it
prints the first preview of a roll (``cold``: the copy made then) and the median of ``--repeat``
taps ``--gap`` seconds apart (``tap``: a player tapping faces), ms per 100 events of the cold one, and
the ratio of the tap time to a 150 ms goal (the page waits 120 ms after a tap before asking).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

GOAL_MS = 150.0
TOKEN = "bench-host-token-0123456789"


def answer(p: dict, seed: int) -> dict:
    if p["kind"] == "roll":
        return {"type": "roll_for_me", "seed": seed}
    if p["kind"] == "choice":
        values = [c["value"] for c in p["choices"]]
        return {
            "type": "choose",
            "choice": next((v for v in values if v not in ("pass", "skip", "no")), values[0]),
        }
    if p["kind"] == "allocate":
        return {"type": "allocate", "units": p["choices"][0]["value"]}
    if p["kind"] == "cast":
        return {"type": "cast", "spells": []}
    if p["kind"] == "reinforce":
        return {"type": "reinforce", "moves": {}}
    return {"type": "retreat", "units": []}


def timed(fn, repeat: int, gap: float) -> tuple[float, float]:
    """(first call ms, median ms of the next ``repeat`` calls made ``gap`` s apart)."""
    times = []
    for _ in range(repeat + 1):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
        time.sleep(gap)
    return times[0], statistics.median(times[1:])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, nargs="+", default=[100, 200, 400])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gap", type=float, default=0.5, help="seconds between two taps")
    args = ap.parse_args(argv)

    from web import create_app
    from web.roll_entry import roll_preview

    with tempfile.TemporaryDirectory() as tmp:
        app = create_app(
            {"DB_PATH": str(Path(tmp) / "bench.sqlite"), "HOST_TOKEN": TOKEN, "START_SOURCES": False}
        )
        client, head = app.test_client(), {"X-Companion-Token": TOKEN}
        client.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True}, headers=head)
        store = app.extensions["game_store"]
        marks = sorted(args.events)
        print(
            f"{'events':>7} {'dice':>5} {'cold ms':>8} {'tap: one die ms':>16} {'tap: all dice ms':>17} "
            f"{'cold ms/100 ev':>15} {'tap vs goal':>12}"
        )
        seed = args.seed
        while marks:
            st = client.get("/api/state").json
            p = st["pending"]
            if p is None:
                print(f"the game ended at event {st['seq']} before {marks[0]} events")
                break
            if p["kind"] == "roll" and st["seq"] >= marks[0]:
                faces = {d["uid"]: d["faces"][0] for d in p["dice"]}
                one = dict(list(faces.items())[:1])
                cold, t_one = timed(lambda one=one: roll_preview(store, one), args.repeat, args.gap)
                _, t_all = timed(lambda faces=faces: roll_preview(store, faces), args.repeat, args.gap)
                tap = max(t_one, t_all)
                print(
                    f"{st['seq']:>7} {len(faces):>5} {cold:>8.1f} {t_one:>16.1f} {t_all:>17.1f} "
                    f"{100 * cold / st['seq']:>15.1f} {tap / GOAL_MS:>12.2f}"
                )
                marks.pop(0)
            client.post("/api/decisions", json={"action": answer(p, seed)}, headers=head)
            seed += 1
        store.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
