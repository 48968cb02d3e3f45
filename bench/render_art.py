"""Speed of the real-dice renderer, and a contact sheet of the art families.

    python bench/render_art.py                       # crops per second on one core (64 px)
    python bench/render_art.py --sheet docs/images/art_families.png

The sheet has one row per family (training, calibration and test families, labelled, each row
drawn on the dice of one species), columns: the flat faces with 1..5 repeated icons, an SAI face
and an ID picture (as printed), then the same faces as rendered crops, then a cocked die and a
monster (ten-sided) die; the last row shows standard dice d4..d20 of two sets.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")

import cv2  # noqa: E402
import numpy as np  # noqa: E402

cv2.setNumThreads(1)

from companion.rules.catalogue import load_catalogue  # noqa: E402
from companion.vision.synth import art  # noqa: E402
from companion.vision.synth.real_dice import (  # noqa: E402
    POLY_VALUES,
    render_die_crop,
    render_polyhedral_crop,
    render_table,
)


def _unit_face(cat, icon: str, count: int, species: str | None = None) -> tuple[str, int]:
    dice = [d for d in cat.of_kind("unit") if d.species == species] + list(cat.of_kind("unit"))
    for die in dice:
        if die.size == "Champion":
            continue
        for j, f in enumerate(die.faces):
            if f.name == icon and f.count == count:
                return die.name, j
    raise LookupError(f"{count} {icon}")


def bench(n: int, size: int, seed: int) -> None:
    cat = load_catalogue()
    dice = [d for d in cat.dice]
    rng = np.random.default_rng(seed)
    jobs = []
    for _ in range(n):
        d = dice[int(rng.integers(len(dice)))]
        jobs.append(
            (
                int(rng.choice(art.TRAIN_FAMILIES)),
                d.name,
                int(rng.integers(len(d.faces))),
                bool(rng.random() < 0.1),
            )
        )
    for fam, name, j, cocked in jobs[:20]:  # warm the art caches a little, as a training run would
        render_die_crop(fam, name, j, np.random.default_rng(0), size, cocked)
    t, c = time.perf_counter(), time.process_time()
    for k, (fam, name, j, cocked) in enumerate(jobs):
        render_die_crop(fam, name, j, np.random.default_rng([seed, k]), size, cocked)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    print(
        f"render_die_crop: {n} crops of {size} px, 1 thread: {n / dc:.1f} crops per CPU second "
        f"({n / dt:.1f} per wall second; load average {os.getloadavg()[0]:.1f}) -- random catalogue dice, "
        f"random training families, 10% cocked, art caches cold"
    )
    t, c = time.perf_counter(), time.process_time()
    for k in range(n):
        fam, name, j, cocked = jobs[k % 50]
        render_die_crop(fam, name, j, np.random.default_rng([seed, k, 1]), size, cocked)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    print(
        f"render_die_crop, 50 faces repeated (art cached): {n / dc:.1f} crops per CPU second "
        f"({n / dt:.1f} per wall second)"
    )
    c = time.process_time()
    kinds = list(POLY_VALUES)
    for k in range(n):
        kind = kinds[k % len(kinds)]
        render_polyhedral_crop(
            kind,
            POLY_VALUES[kind][k % len(POLY_VALUES[kind])],
            np.random.default_rng([seed, k, 2]),
            k % 17,
            size,
        )
    print(
        f"render_polyhedral_crop: {n / (time.process_time() - c):.1f} crops per CPU second (d4..d20 in turn)"
    )
    units = [d for d in cat.of_kind("unit")]
    c = time.process_time()
    frames = 10
    for k in range(frames):
        r = np.random.default_rng([seed, k, 3])
        chosen = [units[int(i)] for i in r.integers(len(units), size=12)]
        fams = {d.species: int(r.choice(art.TRAIN_FAMILIES)) for d in chosen}
        render_table(fams, [(d.name, int(r.integers(6))) for d in chosen], r)
    print(
        f"render_table: {(time.process_time() - c) / frames * 1000:.0f} ms CPU per 1280x960 frame of 12 dice"
    )


def sheet(path: str, families: list[int], cell: int = 64) -> None:
    cat = load_catalogue()
    label_w = 120
    rows = []
    species = (
        "Dwarves",
        "Coral Elves",
        "Goblins",
        "Lava Elves",
        "Amazons",
        "Firewalkers",
        "Undead",
        "Feral",
        "Swamp Stalkers",
        "Frostwings",
        "Scalders",
        "Treefolk",
    )
    for row, fam in enumerate(families):
        sp = species[row % len(species)]
        faces = [
            _unit_face(cat, "Melee", 1, sp),
            _unit_face(cat, "Melee", 2, sp),
            _unit_face(cat, "Missile", 3, sp),
            _unit_face(cat, "Save", 4, sp),
            _unit_face(cat, "Maneuver", 5, sp),
        ]
        sai = next(
            (d.name, j)
            for d in cat.of_species(sp) + cat.of_kind("unit")
            if d.kind.value == "unit" and d.size != "Champion"
            for j, f in enumerate(d.faces)
            if f.is_sai and f.count >= 2
        )
        unit = next(d for d in cat.of_species(sp) if d.kind.value == "unit")
        idf = (unit.name, next(j for j, f in enumerate(unit.faces) if f.is_id))
        monster = next(d for d in cat.of_species(sp) + cat.of_kind("monster") if d.kind.value == "monster")
        flat = faces + [sai, idf]
        split = (
            "train" if fam in art.TRAIN_FAMILIES else "calib" if fam in art.CALIBRATION_FAMILIES else "TEST"
        )
        style = art.family_style(fam)
        tiles = []
        for name, j in flat:
            f = art.draw_face(fam, name, j, cell - 4)
            tile = np.full((cell, cell, 3), 70, np.uint8)
            a = f[..., 3:4].astype(np.float32) / 255
            tile[2:-2, 2:-2] = (tile[2:-2, 2:-2] * (1 - a) + f[..., :3] * a).astype(np.uint8)
            tiles.append(tile)
        for k, (name, j) in enumerate(flat):
            tiles.append(render_die_crop(fam, name, j, np.random.default_rng([fam, k]), cell))
        tiles.append(render_die_crop(fam, unit.name, 1, np.random.default_rng([fam, 99]), cell, cocked=True))
        tiles.append(render_die_crop(fam, monster.name, 3, np.random.default_rng([fam, 98]), cell))
        label = np.full((cell, label_w, 3), 30, np.uint8)
        cv2.putText(
            label, f"{fam} {split}", (4, 18), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (230, 230, 230), 1, cv2.LINE_AA
        )
        cv2.putText(
            label, style.mode, (4, 36), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (180, 180, 180), 1, cv2.LINE_AA
        )
        cv2.putText(label, sp, (4, 54), cv2.FONT_HERSHEY_SIMPLEX, 0.42, (180, 180, 180), 1, cv2.LINE_AA)
        rows.append(np.hstack([label] + tiles))
    # standard dice: two sets of d4..d20, each die showing its highest value
    tiles = []
    for style_seed in (1, 2):
        for kind, values in POLY_VALUES.items():
            crop = render_polyhedral_crop(
                kind, values[-1], np.random.default_rng([style_seed, len(values)]), style_seed, cell
            )
            cv2.putText(
                crop, f"{kind}={values[-1]}", (2, cell - 4), cv2.FONT_HERSHEY_PLAIN, 0.8, (255, 255, 255), 1
            )
            tiles.append(crop)
    label = np.full((cell, label_w, 3), 30, np.uint8)
    cv2.putText(label, "standard", (4, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (230, 230, 230), 1, cv2.LINE_AA)
    strip = np.hstack([label] + tiles)
    pad = np.full((cell, rows[0].shape[1] - strip.shape[1], 3), 30, np.uint8)
    rows.append(np.hstack([strip, pad]))
    head = np.full((22, rows[0].shape[1], 3), 30, np.uint8)
    titles = ["1", "2", "3", "4", "5", "SAI", "ID"] * 2 + ["cocked", "d10"]
    for k, t in enumerate(titles):
        cv2.putText(
            head,
            t,
            (label_w + k * cell + 4, 16),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.45,
            (230, 230, 230),
            1,
            cv2.LINE_AA,
        )
    img = np.vstack([head] + rows)
    img = (img // 8 * 8 + 4).astype(np.uint8)  # 5 bits a channel: the committed sheet stays under 1 MB
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    cv2.imwrite(path, img, [cv2.IMWRITE_PNG_COMPRESSION, 9])
    print(f"wrote {path} ({img.shape[1]}x{img.shape[0]}, {os.path.getsize(path) / 1e6:.2f} MB)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sheet", help="write a contact sheet PNG here")
    ap.add_argument("-n", type=int, default=300, help="crops to time")
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.sheet:
        fams = list(art.TRAIN_FAMILIES[:7]) + list(art.CALIBRATION_FAMILIES[:2]) + list(art.TEST_FAMILIES[:4])
        sheet(args.sheet, fams)
    else:
        bench(args.n, args.size, args.seed)


if __name__ == "__main__":
    main()
