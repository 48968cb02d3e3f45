"""The "Teach the camera your dice" page, end to end: how reading grows with lessons, and what it costs.

    python bench/teach.py [--families 112 113 114] [--looks 3] [--reads 3] [--seed 0]

For each art family (by default the first three FRESH_TEST_FAMILIES, 112-114: never trained on, never
used for any choice, so the figures are strict; the TEST_FAMILIES 54-63 and 88-111 were looked at and
72-87 calibrate since 2026-11-26, see ``art.py``) and each army of a quick-start game's first player, a
table is served in process (real SQLite game, Flask test client): a rendered table of the army's dice
(each showing one face) becomes the camera's frame, ``POST /api/teach/look`` finds the dice and the true
face of each die found is tapped (``POST /api/teach/label``), once per look for ``--looks`` looks (fresh
renders each time: another pose, light, camera).  After each look, ``--reads`` fresh renders of the same
faces are looked at and the page's reading of each die found on a rendered die is scored: right, wrong
(a confident wrong face) or unread.  Reading thresholds are the ones shipped with the embedding model
(``models/face-embed/model.json``).

Prints, per number of looks (= sightings per face): the share read right, read wrong and unread
(ratios of dice found); the same frames read as the tablet reads a roll (``read_roll`` with the army
as the roster, so which die is which unit counts too: units scored as ``dd_frames`` scores them), and
the time of a look (1280x960 frame: find, embed, crop pictures) and of a
label (embed one crop, save the profile atomically) in ms, median.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

TOKEN = "bench-host-token-0123456789"


def _truth(box, labels):
    """The rendered label whose box overlaps ``box`` most, when by an IoU of at least 0.5; else None."""
    from companion.vision.detections import box_iou

    ious = box_iou(box, [lab["box"] for lab in labels])[0]
    best = int(ious.argmax())
    return labels[best] if ious[best] >= 0.5 else None


def show(app, names, faces, families, seed):
    """A rendered table of ``names`` showing ``faces`` becomes the camera's newest frame; its labels."""
    from companion.vision.synth.real_dice import render_table

    frame, labels = render_table(
        families, list(zip(names, faces, strict=True)), np.random.default_rng(seed), width=1280, height=960
    )
    app.extensions["sources"].camera._frame = frame
    return labels


def look(client, names, times):
    t = time.perf_counter()
    out = client.post("/api/teach/look", json={"dice": names}, headers={"X-Companion-Token": TOKEN}).json
    times.append(1000 * (time.perf_counter() - t))
    return out


def roster_score(app, frame, names, faces, cat, into) -> None:
    """The roll's reading as the tablet reads it (``read_roll`` with the table's profile and the army as
    the roster: which die is which unit too), unit by unit (``dd_frames.unit_outcomes``: the units of one
    die type as a multiset): right, wrong, unread added to ``into``.  ``faces``: the face index each die
    shows (rendered flat)."""
    from companion.vision.dd_frames import unit_outcomes
    from companion.vision.roll_reading import read_roll

    read = read_roll(frame, names, model=app.extensions["table_vision"].reading_model())
    truth = [cat.get(n).faces[k].text() for n, k in zip(names, faces, strict=True)]
    for outcome in unit_outcomes(read["units"], names, truth, {}).values():
        into[("right", "wrong", "unread").index(outcome)] += 1


def teach_army(app, client, army, fam, args, cat, rng, score, look_ms, label_ms, roster=None) -> None:
    """Read fresh frames after 0..looks looks at the army's dice, tapping every true face at each look;
    ``roster``: also the roll's reading with the army as the roster, per number of looks."""
    host = {"X-Companion-Token": TOKEN}
    names = army["dice"]
    families = {n.split("/")[0]: fam for n in names} | {
        cat.get(n).species: fam for n in names if cat.get(n).species
    }
    faces = [int(rng.integers(len(cat.get(n).faces))) for n in names]
    for k in range(args.looks + 1):
        for _ in range(args.reads):  # read fresh renders with what k looks taught
            labels = show(app, names, faces, families, int(rng.integers(1 << 30)))
            for d in look(client, names, look_ms)["dice"]:
                t = _truth(d["box"], labels)
                if t is None:
                    continue
                face = cat.get(t["die"]).faces[t["face_index"]].text()
                got = d["read"]["face"]
                score[k][2 if got is None else 0 if got == face else 1] += 1
            if roster is not None:
                roster_score(app, app.extensions["sources"].camera._frame, names, faces, cat, roster[k])
        if k == args.looks:
            break
        labels = show(app, names, faces, families, int(rng.integers(1 << 30)))  # lesson k + 1
        taught = look(client, names, look_ms)
        for d in taught["dice"]:
            t = _truth(d["box"], labels)
            if t is None:
                continue
            face = cat.get(t["die"]).faces[t["face_index"]].text()
            s = time.perf_counter()
            r = client.post(
                "/api/teach/label",
                json={"look": taught["look"], "index": d["index"], "die": t["die"], "face": face},
                headers=host,
            )
            label_ms.append(1000 * (time.perf_counter() - s))
            assert r.status_code == 200, r.json


def main() -> int:
    from companion.rules.catalogue import load_catalogue
    from companion.vision.synth.art import FRESH_TEST_FAMILIES
    from web import create_app

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", type=int, nargs="+", default=list(FRESH_TEST_FAMILIES[:3]))
    ap.add_argument("--looks", type=int, default=3)
    ap.add_argument("--reads", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    cat = load_catalogue()
    host = {"X-Companion-Token": TOKEN}
    score = {k: [0, 0, 0] for k in range(args.looks + 1)}  # right, wrong, unread per number of looks
    roster = {k: [0, 0, 0] for k in range(args.looks + 1)}  # the same, units read with the army as roster
    look_ms, label_ms = [], []
    rng = np.random.default_rng(args.seed)
    t0 = time.perf_counter()
    for fam in args.families:
        armies = None
        for a in range(99):  # each army on a table of its own (a fresh profile: 0 looks is nothing learnt)
            with tempfile.TemporaryDirectory() as tmp:
                app = create_app(
                    {"DB_PATH": str(Path(tmp) / "game.sqlite"), "HOST_TOKEN": TOKEN, "START_SOURCES": False}
                )
                try:
                    client = app.test_client()
                    client.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True}, headers=host)
                    armies = [x for x in client.get("/api/teach").json["armies"] if x["id"].startswith("0:")]
                    if a >= len(armies):
                        break
                    teach_army(app, client, armies[a], fam, args, cat, rng, score, look_ms, label_ms, roster)
                    print(
                        f"family {fam} {armies[a]['label']}: done ({time.perf_counter() - t0:.0f} s)",
                        flush=True,
                    )
                finally:
                    app.extensions["game_store"].close()
    print(
        f"\nfamilies {args.families} (the fresh test families are never trained on nor used for a choice); "
        f"{args.reads} fresh frames read after each look"
    )
    print("looks (sightings/face)  dice  right  wrong  unread")
    for k, (r, w, u) in score.items():
        n = max(1, r + w + u)
        print(f"{k:>22}  {r + w + u:>4}  {r / n:5.3f}  {w / n:5.3f}  {u / n:6.3f}")
    print("the same frames read as the tablet reads a roll (the army as the roster: which die is which unit)")
    print("looks (sightings/face) units  right  wrong  unread")
    for k, (r, w, u) in roster.items():
        n = max(1, r + w + u)
        print(f"{k:>22}  {r + w + u:>4}  {r / n:5.3f}  {w / n:5.3f}  {u / n:6.3f}")
    print(f"look  (1280x960 frame): median {statistics.median(look_ms):.0f} ms over {len(look_ms)}")
    print(f"label (embed + save):   median {statistics.median(label_ms):.0f} ms over {len(label_ms)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
