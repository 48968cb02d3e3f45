"""Small d6 dice: the d6 bundle with and without its second look for small dice (``small_dice`` in model.json).

    python bench/d6_small.py [--model d6] [--src ../shared/datasets/d6-real] [--sets heldout-choice,heldout-test]
                             [--frames 80] [--json]

For each set of real photos (``companion.vision.train.d6_prep``: ``heldout-choice`` is the half of the
held-out photos the setting was chosen on, ``heldout-test`` the other half, the strict figure;
``heldout`` both; ``unseen`` the copies of trained photos the detector never saw) it scores the
bundle with ``small_dice`` removed ("off"), as shipped ("on"), and, when the shipped setting cuts
small-die windows, with whole tiles instead ("tiles"), and prints mAP50,
mAP50-95, false boxes per photo and the recall of dice per size (longest box side in the 640 px
photo: under 25 px, 25-40 px, 40 px and over), with the ratio on/off.

Then the cost: the bundles read the same ``--frames`` held-out photos (spread evenly over the set)
enlarged to a 1280 px frame, alternately, and it prints the CPU time (all threads of this process) and the wall time per frame.
The machine may be shared: the load average is printed beside the times.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.evaluation import evaluate  # noqa: E402
from companion.vision.reader import DiceModel, resolve_model  # noqa: E402
from companion.vision.train.d6_prep import prepare_d6  # noqa: E402
from companion.vision.yolo_dataset import dataset_images  # noqa: E402

D6_REAL = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "d6-real"  # the reference folder


def _bundle(src: Path, out: Path, mode: str) -> DiceModel:
    """``src`` with its networks linked and ``small_dice`` kept ("on"), removed ("off"), or kept without
    its ``window`` ("tiles": whole tiles instead of small-die windows)."""
    out.mkdir(parents=True)
    for name in ("detector.onnx", "face.onnx"):
        (out / name).symlink_to((src / name).resolve())
    meta = json.loads((src / "model.json").read_text())
    if mode == "off":
        meta.pop("small_dice", None)
    elif not meta.get("small_dice"):
        raise SystemExit(f"{src}/model.json has no small_dice setting to compare")
    elif mode == "tiles":
        meta["small_dice"].pop("window", None)
    (out / "model.json").write_text(json.dumps(meta))
    return DiceModel(out)


def _frame_cost(models: dict[str, DiceModel], photos: list[Path], size: int = 1280) -> dict:
    frames = [cv2.resize(cv2.imread(str(p)), (size, size), interpolation=cv2.INTER_LINEAR) for p in photos]
    cpu = {k: 0.0 for k in models}
    wall = {k: 0.0 for k in models}
    runs = {k: 0 for k in models}
    windows = {k: 0 for k in models}
    for k, m in models.items():  # count the detector's runs: the whole frame and each tile (512 px), windows
        real, real_window = m.detector.candidates, m.detector.window_candidates

        def counted(image, conf, k=k, real=real):
            runs[k] += 1
            return real(image, conf)

        def counted_window(image, win, conf, k=k, real=real_window):
            windows[k] += 1
            return real(image, win, conf)

        m.detector.candidates = counted
        m.detector.window_candidates = counted_window
    for m in models.values():  # warm up
        m.readings(frames[0], m.detect(frames[0]))
    runs = {k: 0 for k in models}
    windows = {k: 0 for k in models}
    for f in frames:
        for k, m in models.items():  # alternately, so that load changes hit both alike
            c0, w0 = time.process_time(), time.perf_counter()
            m.readings(f, m.detect(f))
            cpu[k] += time.process_time() - c0
            wall[k] += time.perf_counter() - w0
    n = len(frames)
    return {
        k: {
            "cpu_ms": round(1000 * cpu[k] / n, 1),
            "wall_ms": round(1000 * wall[k] / n, 1),
            "detector_runs": round(runs[k] / n, 2),
            "window_runs": round(windows[k] / n, 2),
        }
        for k in models
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="d6", help="a shipped model's name or a bundle folder")
    ap.add_argument("--src", default=str(D6_REAL), help="a folder in the d6-real form")
    ap.add_argument("--copies", type=int, default=4, help="the detector's cap of copies per source photo")
    ap.add_argument(
        "--sets",
        default="heldout-choice,heldout-test",
        help="comma-separated: heldout-choice, heldout-test, heldout, unseen ('' = timing only)",
    )
    ap.add_argument("--frames", type=int, default=80, help="photos timed as 1280 px frames (0: no timing)")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of lines")
    ap.add_argument(
        "--picture",
        type=Path,
        help="PNG: the held-out photo whose reading cuts the most small-die windows, as a 1280 px frame, "
        "with the tiles the exact bound would open, the windows and the dice found drawn on it",
    )
    args = ap.parse_args(argv)

    src = resolve_model(args.model)
    out: dict = {"model": str(args.model)}
    with tempfile.TemporaryDirectory() as tmp:
        modes = (
            ("off", "tiles", "on")
            if (json.loads((src / "model.json").read_text()).get("small_dice") or {}).get("window")
            else ("off", "on")
        )
        models = {k: _bundle(src, Path(tmp) / k, k) for k in modes}
        out["small_dice"] = models["on"].meta["small_dice"]
        split_dir = Path(tmp) / "split"
        prepare_d6(Path(args.src), split_dir, copies_per_photo=args.copies)
        for name in filter(None, args.sets.split(",")):
            res = {k: evaluate(m, split_dir / name, progress=not args.json) for k, m in models.items()}
            out[name] = {
                k: {
                    f: r[f]
                    for f in (
                        "images",
                        "dice",
                        "map50",
                        "map50_95",
                        "recall",
                        "false_boxes_per_image",
                        "recall_by_size",
                    )
                }
                for k, r in res.items()
            }
            if not args.json:
                off, on = res["off"], res["on"]
                print(f"{name}: {on['images']} photos, {on['dice']} dice")
                for f in ("map50", "map50_95", "recall", "false_boxes_per_image"):
                    each = "  ".join(f"{k} {r[f]:.3f}" for k, r in res.items())
                    print(f"  {f:22s} {each}  (on/off {on[f] / max(off[f], 1e-9):.3f}x)")
                for size, a in off["recall_by_size"].items():
                    if a["dice"]:
                        each = "  ".join(
                            f"{k} {r['recall_by_size'][size]['found']:4d}/{a['dice']:<4d} = "
                            f"{r['recall_by_size'][size]['recall']:.3f}"
                            for k, r in res.items()
                        )
                        print(f"  recall {size + ' px':15s} {each}", flush=True)
        if args.frames:
            held = dataset_images(split_dir / "heldout")  # spread over the set: photos in file order cluster
            photos = held[:: max(1, len(held) // args.frames)][: args.frames]
            cost = _frame_cost(models, photos)
            out["frame_1280"] = {**cost, "frames": len(photos), "load_average": os.getloadavg()}
            if not args.json:
                print(
                    f"1280 px frame, read whole ({len(photos)} frames, load average "
                    f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores):"
                )
                for k, c in cost.items():
                    print(
                        f"  {k:5s} CPU {c['cpu_ms']:.0f} ms, wall {c['wall_ms']:.0f} ms per frame "
                        f"({c['detector_runs']:.2f} detector runs at full size, {c['window_runs']:.2f} windows)"
                    )
                print(f"  on/off CPU time: {cost['on']['cpu_ms'] / cost['off']['cpu_ms']:.2f}x")
            # the shipped reading alone (no other bundle between its frames), over every held-out photo
            alone = _frame_cost({"on": models["on"]}, held)["on"]
            out["frame_1280_alone"] = {**alone, "frames": len(held), "load_average": os.getloadavg()}
            if not args.json:
                print(
                    f"  on, alone, all {len(held)} held-out photos: CPU {alone['cpu_ms']:.0f} ms, wall "
                    f"{alone['wall_ms']:.0f} ms per frame (target 60 ms wall)"
                )
        if args.picture:
            out["picture"] = _picture(models["on"], dataset_images(split_dir / "heldout"), args.picture)
            if not args.json:
                print(f"picture: {args.picture} ({out['picture']})")
    if args.json:
        print(json.dumps(out))
    return 0


def _picture(model: DiceModel, photos: list[Path], path: Path, size: int = 1280) -> str:
    """Draw where the small-die look runs on the photo that cuts the most windows: the tiles that any
    box able to support a small one would open (the exact bound: thin blue), the windows the shipped
    reading cuts (yellow), the whole frame's dice (green) and the dice only a window found (magenta)."""
    import dataclasses  # noqa: PLC0415

    from companion.vision.small_dice import SUPPORT_FLOOR  # noqa: PLC0415

    det, small = model.detector, model.detector.small
    if small is None or small.window is None:
        raise SystemExit("--picture needs a bundle whose small_dice cuts windows")
    exact = dataclasses.replace(small, support_side=None)
    best = None
    for p in photos:
        frame = cv2.resize(cv2.imread(str(p)), (size, size), interpolation=cv2.INTER_LINEAR)
        whole = det.suppress(*det.candidates(frame, SUPPORT_FLOOR), SUPPORT_FLOOR)
        wins = small.windows_around(whole, det.conf, size, size, det.imgsz)
        tiles = [t for t in exact.windows(size, size) if exact.worth_a_look(whole, t, det.conf, size, size)]
        if len(wins) * small.window**2 < len(tiles) * det.imgsz**2 and (best is None or len(wins) > best[0]):
            best = (len(wins), p, frame, wins, tiles, whole)
    if best is None:
        raise SystemExit("no held-out photo cuts a small-die window")
    _, photo, frame, wins, tiles, whole = best
    found = det(frame)
    art = frame.copy()
    for x1, y1, x2, y2 in tiles:
        cv2.rectangle(art, (x1, y1), (x2 - 1, y2 - 1), (255, 128, 0), 2)
    for x1, y1, x2, y2 in wins:
        cv2.rectangle(art, (x1, y1), (x2 - 1, y2 - 1), (0, 220, 255), 3)
    sure = whole.xyxy[whole.confidence >= det.conf]
    for b in found.xyxy:
        mine = len(sure) and np.abs(sure - b).max(1).min() < 1.0
        colour = (0, 200, 0) if mine else (255, 0, 255)
        cv2.rectangle(art, tuple(int(v) for v in b[:2]), tuple(int(v) for v in b[2:]), colour, 2)
    path.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(path), art)
    return f"{photo.name}: {len(tiles)} tiles by the exact bound, {len(wins)} windows of {small.window} px"


if __name__ == "__main__":
    raise SystemExit(main())
