"""The recipe that trains the shipped ``d6`` detector (``python -m companion.vision.train.d6_training``).

Why this recipe (measured on the held-out split of the d6-real photographs, see
models/d6/MODEL_CARD.md): a third of the dice in those photos are under 40 px wide in a 640 px
frame, so at a 320 px detector input they shrink to 7-20 px and were missed or boxed loosely.
The detector is therefore fine-tuned from the shipped 320 px weights at a larger input size
(the network is fully convolutional, so the weights carry over), for a fixed wall-clock budget,
on one CPU thread, without per-epoch validation (the held-out split never picks the model).
"""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path

from companion.vision import offline
from companion.vision.train.d6_prep import open_packed, prepare_d6, small_die_tiles
from companion.vision.yolo_dataset import write_data_yaml

#: ultralytics' own weights of the box terms of the loss (box placing, box edges); the GPU runs'
#: candidate DB weighed them higher
BOX_GAIN, DFL_GAIN = 7.5, 1.5


def _results_without_polars() -> None:
    """ultralytics reads its results.csv with polars when it saves a checkpoint; where polars is not
    installed (a lent GPU machine's image), read it with the standard library instead."""
    try:
        import polars  # noqa: F401, PLC0415
    except ImportError:
        import csv  # noqa: PLC0415

        from ultralytics.engine.trainer import BaseTrainer  # noqa: PLC0415

        def read_results_csv(self) -> dict:
            try:
                with open(self.csv, newline="") as fh:
                    rows = list(csv.DictReader(fh))
            except OSError:
                return {}
            return {k.strip(): [float(r[k]) for r in rows] for k in (rows[0] if rows else {})}

        BaseTrainer.read_results_csv = read_results_csv


def finetune_detector(
    start: Path,
    data_yaml: Path,
    out_dir: Path,
    *,
    imgsz: int,
    hours: float,
    threads: int = 1,
    batch: int = 16,
    name: str = "d6-det",
    lr0: float = 0.001,
    device: str = "cpu",
    workers: int = 0,
    cache: bool = False,
    box_gain: float = BOX_GAIN,
    dfl_gain: float = DFL_GAIN,
) -> Path:
    """Continue training ``start`` (an ultralytics .pt with the same one class) on ``data_yaml``.

    ``device``/``workers``/``cache`` are ultralytics' own (``"0"`` for the first GPU, loader
    processes, images kept in memory); the defaults are the CPU recipe's.  ``box_gain`` and
    ``dfl_gain`` weigh the box terms of the loss (``BOX_GAIN``, ``DFL_GAIN``): higher values
    press the boxes' placing harder against the class term."""
    offline.prepare(threads=threads)
    from ultralytics import YOLO  # noqa: PLC0415

    _results_without_polars()
    model = YOLO(str(start))  # loading the .pt keeps every layer, the class head included
    results = model.train(
        data=str(data_yaml),
        imgsz=imgsz,
        epochs=100,
        time=hours,
        batch=batch,
        device=device,
        workers=workers,
        cache="ram" if cache else False,
        project=str(Path(out_dir).resolve()),
        name=name,
        exist_ok=True,
        amp=False,
        plots=False,
        val=False,
        mosaic=1.0,
        close_mosaic=2,
        flipud=0.5,
        fliplr=0.5,
        degrees=0.0,
        scale=0.5,
        seed=1,
        deterministic=False,
        patience=1000,
        verbose=False,
        optimizer="AdamW",
        lr0=lr0,
        lrf=0.1,
        warmup_epochs=0.3,
        cos_lr=True,
        box=box_gain,
        dfl=dfl_gain,
    )
    save_dir = Path(getattr(results, "save_dir", None) or model.trainer.save_dir)
    return save_dir / "weights" / "last.pt"


def train_face(
    faces_dir: Path,
    out_dir: Path,
    *,
    start: Path | None,
    epochs: int,
    lr: float,
    threads: int,
    repeats: int = 3,
    jitter: float = 0.15,
    width: int = 24,
    device: str = "cpu",
) -> Path:
    """Train (or continue, from ``start``) the pip reader on crops of the training photos' boxes.

    Every die is cut ``repeats`` times, all but the first with its box corners moved by a normal
    jitter of ``jitter`` x half the box side: the detector's boxes around small dice are loose
    (median IoU 0.74 for dice under 60 px), and the reader must read them as well as exact ones."""
    from companion.vision.bundle import collect_crops  # noqa: PLC0415
    from companion.vision.face_classifier import train_classifier  # noqa: PLC0415

    offline.prepare(threads=threads)
    crops, targets, names = collect_crops(faces_dir, "train", repeats=repeats, jitter=jitter, progress=False)
    print(f"face reader: {len(crops)} crops of {len(crops) // repeats} dice", flush=True)
    return train_classifier(
        crops,
        targets,
        names,
        out_dir,
        epochs=epochs,
        lr=lr,
        flips=True,
        init=start,
        width=width,
        threads=threads,
        log_every=50,
        progress=False,
        device=device,
    )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("stage", nargs="?", choices=("detector", "face"), default="detector")
    ap.add_argument(
        "--src",
        help="folder of photos in the d6-real form (in a checkout: ../shared/datasets/d6-real)",
    )
    ap.add_argument("--work", default="artifacts/d6-train")
    ap.add_argument("--start", default="models/d6/detector.pt")
    ap.add_argument("--imgsz", type=int, default=512)
    ap.add_argument("--hours", type=float, default=1.0)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--lr0", type=float, default=0.001, help="learning rate (face stage: its peak)")
    ap.add_argument("--epochs", type=int, default=6, help="face stage: epochs")
    ap.add_argument(
        "--face-start", default="models/d6/face.pt", help="face stage: starting weights ('' = fresh)"
    )
    ap.add_argument("--name", default="d6-det")
    ap.add_argument(
        "--face-photos",
        choices=("all", "detector"),
        default="all",
        help="face stage: crops of every training photo, or only of the detector's (so that the "
        "photos of the split's unseen/ and hidden-like/ sets stay unseen by both stages)",
    )
    ap.add_argument(
        "--width", type=int, default=24, help="face stage: the reader's first block width (fresh start)"
    )
    ap.add_argument(
        "--copies",
        type=int,
        default=2,
        help="augmented copies of one source photo kept for the detector (more = more variety per epoch)",
    )
    ap.add_argument(
        "--prepared",
        help="a folder written by d6_prep.pack_detector_set (for a training machine without the "
        "source photos): train on it instead of splitting --src",
    )
    ap.add_argument(
        "--small-tiles",
        action="store_true",
        help="detector: also train on the run-time second look's tiles that hold a die under 40 px "
        "(d6_prep.small_die_tiles)",
    )
    ap.add_argument("--device", default="cpu", help="'cpu' or a GPU index such as '0'")
    ap.add_argument("--workers", type=int, default=0, help="detector: image loader processes")
    ap.add_argument("--batch", type=int, default=16, help="detector: images per step")
    ap.add_argument("--cache", action="store_true", help="detector: keep the decoded images in memory")
    ap.add_argument("--box-gain", type=float, default=BOX_GAIN, help="detector: weight of the box loss")
    ap.add_argument("--dfl-gain", type=float, default=DFL_GAIN, help="detector: weight of the box-edge loss")
    ap.add_argument(
        "--repeats", type=int, default=3, help="face stage: cuts of each die (all but one jittered)"
    )
    args = ap.parse_args(argv)
    if not args.src and not args.prepared:
        ap.error("give --src (the d6-real photos) or --prepared (a packed detector set)")
    work = Path(args.work)
    if args.prepared:
        split_dir = open_packed(Path(args.prepared), tiles=args.small_tiles)
        if args.stage == "face" and args.face_photos != "detector":
            ap.error("a packed set holds only the detector's photos: use --face-photos detector")
    else:
        split_dir = work / f"split-c{args.copies}"
        split = prepare_d6(Path(args.src), split_dir, copies_per_photo=args.copies)
        print(
            f"split: {len(split['train'])} training photos ({len(split['det_train'])} for the detector), "
            f"{len(split['val'])} held out",
            flush=True,
        )
        if args.small_tiles:
            n = small_die_tiles(split_dir / "det")
            if n:
                write_data_yaml(split_dir / "det", ["die"], train=["train/images", "train-tiles/images"])
            print(f"small-die tiles: {n}", flush=True)
    if args.stage == "face":
        faces = split_dir / ("faces" if args.face_photos == "all" else "faces-det")
        pt = train_face(
            faces,
            work / args.name,
            start=Path(args.face_start) if args.face_start else None,
            epochs=args.epochs,
            lr=args.lr0,
            threads=args.threads,
            width=args.width,
            repeats=args.repeats,
            device=args.device,
        )
        print(f"face reader weights: {pt}", flush=True)
        return
    last = finetune_detector(
        Path(args.start),
        split_dir / "det" / "data.yaml",
        work / "runs",
        imgsz=args.imgsz,
        hours=args.hours,
        threads=args.threads,
        lr0=args.lr0,
        name=args.name,
        device=args.device,
        workers=args.workers,
        batch=args.batch,
        cache=args.cache,
        box_gain=args.box_gain,
        dfl_gain=args.dfl_gain,
    )
    shutil.copyfile(last, work / "detector.pt")
    print(f"detector weights: {work / 'detector.pt'}", flush=True)


if __name__ == "__main__":
    main()
