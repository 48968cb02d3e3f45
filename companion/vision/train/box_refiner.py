"""Train the box refiner (``companion.vision.box_refine``) on a YOLO-format photo set's true boxes.

    python -m companion.vision.train.box_refiner --data SPLIT/faces --out runs/refine --steps 6000

``--data`` may be given more than once (frames of several sizes: the dice of all of them are drawn alike).

Every step cuts a batch of crops around true boxes moved by a random jitter (each side moved by a
normal offset of 4, 8 or 15 % of the die's longer side, drawn per die: the d6 detector's sides are
off by 6-7 % on photos it never saw), shows each crop in one of the eight turns and flips with its
target moved alike, varies brightness, contrast and sharpness, and asks the network for the true
box in the crop's coordinates (L1 loss).  A fixed number of steps; the last weights are exported
(no epoch is picked on any data).  Progress is printed every 100 steps.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import cv2
import numpy as np

from companion.vision.box_refine import VIEWS, crop_frame, to_crop, view_box, view_image
from companion.vision.crops import crop_die
from companion.vision.yolo_dataset import boxes_px, dataset_images, label_path_for, read_labels

JITTERS = (0.04, 0.08, 0.15)


def load_boxes(data_dir, split: str = "train") -> tuple[list[np.ndarray], np.ndarray]:
    """The photos of a YOLO-format set (or of several: a list of folders) and their true boxes as rows
    (photo index, x1, y1, x2, y2)."""
    dirs = [Path(d) for d in data_dir] if isinstance(data_dir, (list, tuple)) else [Path(data_dir)]
    images, rows = [], []
    for path in (p for d in dirs for p in dataset_images(d, split)):
        image = cv2.imread(str(path))
        if image is None:
            raise ValueError(f"{path}: not an image")
        _, norm = read_labels(label_path_for(path))
        h, w = image.shape[:2]
        for b in boxes_px(norm, w, h):
            if b[2] - b[0] >= 4 and b[3] - b[1] >= 4:
                rows.append([len(images), *b])
        images.append(image)
    if not rows:
        raise ValueError(f"{', '.join(map(str, dirs))}: no boxes to train on")
    return images, np.asarray(rows, np.float32)


def jittered(box: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    side = max(box[2] - box[0], box[3] - box[1])
    out = box + rng.normal(0, JITTERS[rng.integers(len(JITTERS))] * side, 4).astype(np.float32)
    if out[2] - out[0] < 3 or out[3] - out[1] < 3:
        return box.copy()
    return out


def photometric(crop: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    x = crop.astype(np.float32)
    x = (x - x.mean()) * rng.uniform(0.7, 1.3) + x.mean() + rng.uniform(-25, 25)
    if rng.random() < 0.25:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.5, 1.2))
    if rng.random() < 0.25:
        x = x + rng.normal(0, 4, x.shape)
    return np.clip(x, 0, 255).astype(np.uint8)


def sample(images, rows, n, rng, size: int, margin: float) -> tuple[np.ndarray, np.ndarray]:
    """``n`` training crops (N 3 S S, 0-1) and their true boxes in crop coordinates (N 4)."""
    xs, ys = [], []
    for r in rows[rng.integers(len(rows), size=n)]:
        image, box = images[int(r[0])], r[1:]
        found = jittered(box, rng)
        crop = photometric(crop_die(image, found, size, margin), rng)
        target = to_crop(box, crop_frame(found, margin))
        view = VIEWS[rng.integers(len(VIEWS))]
        xs.append(view_image(crop, view))
        ys.append(view_box(target, view)[0])
    return np.stack(xs).transpose(0, 3, 1, 2).astype(np.float32) / 255.0, np.stack(ys)


def build_net(width: int = 24):
    import torch.nn as nn  # noqa: PLC0415

    def block(a, b):
        return nn.Sequential(
            nn.Conv2d(a, b, 3, 2, 1, bias=False),
            nn.BatchNorm2d(b),
            nn.ReLU(inplace=True),
            nn.Conv2d(b, b, 3, 1, 1, bias=False),
            nn.BatchNorm2d(b),
            nn.ReLU(inplace=True),
        )

    w = width
    return nn.Sequential(
        block(3, w),  # 32
        block(w, 2 * w),  # 16
        block(2 * w, 4 * w),  # 8
        block(4 * w, 4 * w),  # 4
        nn.Flatten(),
        nn.Linear(4 * w * 16, 128),
        nn.ReLU(inplace=True),
        nn.Linear(128, 4),
    )


def train(
    data_dir: Path | list[Path],
    out_dir: Path,
    *,
    steps: int,
    batch: int = 128,
    lr: float = 2e-3,
    size: int = 64,
    margin: float = 1.6,
    width: int = 24,
    seed: int = 0,
    threads: int = 2,
    split: str = "train",
    log=print,
) -> Path:
    """Train, export ``refine.onnx`` and ``refine.json`` into ``out_dir``; returns the ONNX path."""
    import torch  # noqa: PLC0415

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    images, rows = load_boxes(data_dir, split)
    log(f"{len(images)} photos, {len(rows)} dice")
    net = build_net(width)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(steps, 1), pct_start=0.05)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0, run = time.time(), []
    net.train()
    for step in range(1, steps + 1):
        x, y = sample(images, rows, batch, rng, size, margin)
        loss = (net(torch.from_numpy(x)) - torch.from_numpy(y)).abs().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run.append(loss.item())
        if step % 100 == 0 or step == steps:
            log(f"step {step}/{steps} L1 {np.mean(run[-100:]):.4f} (crop sides) {time.time() - t0:.0f} s")
        if step % 1000 == 0:
            torch.save(net.state_dict(), out_dir / "refine.pt")
    torch.save(net.state_dict(), out_dir / "refine.pt")
    net.eval()
    from companion.vision.face_classifier import export_crop_network  # noqa: PLC0415

    onnx = export_crop_network(net, out_dir / "refine.onnx", size, ["boxes"])
    meta = {
        "onnx": "refine.onnx",
        "size": size,
        "margin": margin,
        "width": width,
        "steps": steps,
        "batch": batch,
        "lr": lr,
        "seed": seed,
        "train_seconds": round(time.time() - t0),
        "train_data": [str(d) for d in (data_dir if isinstance(data_dir, (list, tuple)) else [data_dir])],
        "train_photos": len(images),
        "train_dice": len(rows),
        "final_l1": round(float(np.mean(run[-100:])), 5),
    }
    (out_dir / "refine.json").write_text(json.dumps(meta, indent=1) + "\n")
    return onnx


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data",
        required=True,
        type=Path,
        action="append",
        help="a YOLO-format folder (its train split); repeatable",
    )
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--steps", type=int, default=6000)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--margin", type=float, default=1.6)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--width", type=int, default=24)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args(argv)
    train(
        a.data,
        a.out,
        steps=a.steps,
        batch=a.batch,
        lr=a.lr,
        size=a.size,
        margin=a.margin,
        width=a.width,
        seed=a.seed,
        threads=a.threads,
        log=lambda m: print(m, flush=True),
    )


if __name__ == "__main__":
    main()
