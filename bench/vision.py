"""Vision benchmarks: ms per frame (ONNX and PyTorch, 320 and 640 px) and settle-to-reading latency.

    python bench/vision.py [--model dragon-dice] [--frames 30]

Prints one line per figure.  PyTorch figures need the [train] extra (torch + ultralytics).
The latency figure plays a rendered roll video (written to an .mp4 and read back like a
recording) through ``companion watch``'s loop and reports the time from the first still frame
to the finished reading: the configured wait plus the reading itself.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision.detector import OnnxDetector  # noqa: E402
from companion.vision.reader import load_model  # noqa: E402
from companion.vision.roll_frames import render_roll, roll_video  # noqa: E402

ROLL = [
    ("Dwarves/Mammoth Rider", 2),
    ("Dwarves/Behemoth", 1),
    ("Goblins/Thug", 5),
    ("Amazons/Javelineer", 0),
    ("Dwarves/Mammoth Rider", 4),
]


def _time(fn, frames, warm=3) -> float:
    for f in frames[:warm]:
        fn(f)
    t = time.perf_counter()
    for f in frames:
        fn(f)
    return 1000 * (time.perf_counter() - t) / len(frames)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="dragon-dice")
    ap.add_argument("--frames", type=int, default=30)
    ap.add_argument("--size", type=int, default=1280, help="frame size (a 1280 px camera frame by default)")
    ap.add_argument("--still-ms", type=float, default=150.0)
    ap.add_argument("--no-torch", action="store_true")
    args = ap.parse_args(argv)

    model = load_model(args.model)
    frames = [render_roll(ROLL, seed, size=args.size).image for seed in range(args.frames)]
    print(f"model {model.name}; {args.frames} rendered {args.size}x{args.size} frames; threads 2")
    det_ms = _time(lambda f: model.detector(f), frames)
    full = _time(lambda f: model.readings(f, model.detect(f)), frames)
    print(f"onnx detector {model.detector.imgsz} px (the bundle's input): {det_ms:.1f} ms/frame")
    print(
        f"onnx full reading (detector + face reader + colour): {full:.1f} ms/frame "
        f"(target 60 ms: {60 / full:.2f}x headroom)"
    )
    with tempfile.TemporaryDirectory() as tmp:
        pt = model.bundle / "detector.pt"
        if not args.no_torch and pt.is_file():
            try:
                from companion.vision import offline
                from companion.vision.train.training import export_onnx

                offline.prepare()
                from ultralytics import YOLO

                for size in (320, 640):  # the same finder at the reference sizes
                    if size == model.detector.imgsz:
                        continue
                    other = OnnxDetector(export_onnx(pt, Path(tmp) / f"det{size}.onnx", imgsz=size), size)
                    ms = _time(lambda f, d=other: d(f), frames)
                    print(
                        f"onnx detector {size} px: {ms:.1f} ms/frame ({ms / det_ms:.2f}x the "
                        f"{model.detector.imgsz} px time)"
                    )
                yolo = YOLO(str(pt))
                for size in (320, 640):
                    ms = _time(
                        lambda f, s=size: yolo.predict(f, imgsz=s, device="cpu", verbose=False), frames
                    )
                    print(f"pytorch detector {size} px: {ms:.1f} ms/frame")
            except ImportError as exc:
                print(f"pytorch figures skipped: {exc} (install the [train] extra)")
        # settle -> reading on a recorded synthetic roll video
        vframes, spans = roll_video(ROLL[:4], seed=5, rolls=3, size=640, fps=30, move_s=1.0, still_s=1.0)
        video = Path(tmp) / "roll.mp4"
        writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"mp4v"), 30, (640, 640))
        for f in vframes:
            writer.write(f)
        writer.release()
        from companion.vision.sources import open_source
        from companion.vision.watch import watch

        events = watch(open_source(str(video)), model, still_ms=args.still_ms)
        lat = [e["settle_to_reading_ms"] for e in events]
        read = [e["reading_ms"] for e in events]
        print(f"roll video: {len(spans)} rolls, {len(events)} roll events")
        if lat:
            print(
                f"settle -> reading: median {statistics.median(lat):.0f} ms (wait {args.still_ms:.0f} ms + "
                f"reading {statistics.median(read):.0f} ms; target 250 ms: {250 / statistics.median(lat):.2f}x)"
            )
            correct = [sum(1 for d in e["dice"] if d["reading"]) for e in events]
            print(f"dice read per event: {correct} of {len(ROLL[:4])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
