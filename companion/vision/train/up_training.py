"""Train the "which way is up" reader (``models/turn-up``) on die crops: self-supervised turns.

    python -m companion.vision.train.up_training --crops CACHE [CACHE ...] --out DIR --steps 3000

A camera that looks across the table shows each die's top face above the near side faces.  Every
training crop (the renderer's oblique crops of the training art families and standard-dice styles,
cut as the readers cut them; ``enroll_sim`` / ``standard_sim`` table caches) is turned by 0, 90, 180
or 270 degrees clockwise at random and the network names the turn.  No label is needed beyond the
turn itself, so any dice crop seen the right way up can teach it.  Flips left-right keep "up", so
they are used as augmentation; so are brightness, contrast and blur.  A fixed number of steps, the last
weights exported (no epoch is picked on any data); progress every 100 steps.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from companion.vision.camera_turn import TURNS, turn_crops


def load_crops(paths: list[Path], limit: int | None = None) -> np.ndarray:
    """Every crop of the table caches under ``paths`` (``table-*.npz`` with ``crops``, or standard-dice
    ``*.npz`` with ``*_queries`` / ``*_enrol``), as one uint8 array (N 64 64 3)."""
    out = []
    for root in paths:
        files = sorted(Path(root).glob("*.npz")) if Path(root).is_dir() else [Path(root)]
        for f in files:
            z = np.load(f, allow_pickle=False)
            for key in z.files:
                if key == "crops" or key.endswith("_queries"):
                    out.append(z[key])
                elif key.endswith("_enrol"):
                    out.append(z[key].reshape(-1, *z[key].shape[-3:]))
    if not out:
        raise ValueError(f"no crops under {', '.join(map(str, paths))}")
    crops = np.concatenate(out)
    return crops[:limit] if limit else crops


def batch(crops: np.ndarray, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    import cv2  # noqa: PLC0415

    idx = rng.integers(len(crops), size=n)
    turns = rng.integers(len(TURNS), size=n)
    xs = []
    for i, t in zip(idx, turns, strict=True):
        c = crops[i]
        if rng.random() < 0.5:
            c = c[:, ::-1]
        c = turn_crops(c[None], TURNS[t])[0].astype(np.float32)
        c = (c - c.mean()) * rng.uniform(0.7, 1.3) + c.mean() + rng.uniform(-20, 20)
        if rng.random() < 0.2:
            c = cv2.GaussianBlur(c, (0, 0), rng.uniform(0.5, 1.2))
        xs.append(np.clip(c, 0, 255))
    return np.stack(xs).transpose(0, 3, 1, 2) / 255.0, turns


def build_net(width: int = 16):
    import torch.nn as nn  # noqa: PLC0415

    def block(a, b):
        return nn.Sequential(nn.Conv2d(a, b, 3, 2, 1, bias=False), nn.BatchNorm2d(b), nn.ReLU(inplace=True))

    w = width
    return nn.Sequential(
        block(3, w),  # 32
        block(w, 2 * w),  # 16
        block(2 * w, 4 * w),  # 8
        block(4 * w, 4 * w),  # 4
        nn.Flatten(),  # the layout matters: no global pooling
        nn.Linear(4 * w * 16, 64),
        nn.ReLU(inplace=True),
        nn.Linear(64, len(TURNS)),
    )


def accuracy(net, crops: np.ndarray, per_turn: int = 2000, seed: int = 1) -> float:
    """Share of crops whose turn the network names (each crop turned all four ways)."""
    import torch  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    pick = crops[rng.choice(len(crops), min(per_turn, len(crops)), replace=False)]
    net.eval()
    right = 0
    with torch.no_grad():
        for j, t in enumerate(TURNS):
            x = torch.from_numpy(turn_crops(pick, t).transpose(0, 3, 1, 2).astype(np.float32) / 255.0)
            right += int((net(x).argmax(1).numpy() == j).sum())
    net.train()
    return right / (len(pick) * len(TURNS))


def train(
    crops: np.ndarray,
    out_dir: Path,
    *,
    steps: int,
    batch_size: int = 128,
    lr: float = 3e-3,
    width: int = 16,
    seed: int = 0,
    threads: int = 2,
    log=print,
) -> Path:
    import torch  # noqa: PLC0415

    torch.set_num_threads(threads)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = build_net(width)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(steps, 1), pct_start=0.05)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0, run = time.time(), []
    for step in range(1, steps + 1):
        x, y = batch(crops, batch_size, rng)
        logits = net(torch.from_numpy(x.astype(np.float32)))
        loss = torch.nn.functional.cross_entropy(logits, torch.from_numpy(y))
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run.append((loss.item(), float((logits.argmax(1).numpy() == y).mean())))
        if step % 100 == 0 or step == steps:
            loss_m, acc = np.mean(run[-100:], axis=0)
            log(f"step {step}/{steps} loss {loss_m:.4f} batch accuracy {acc:.3f} {time.time() - t0:.0f} s")
    net.eval()
    torch.save(net.state_dict(), out_dir / "up.pt")
    from companion.vision.face_classifier import export_crop_network  # noqa: PLC0415

    onnx = export_crop_network(net, out_dir / "up.onnx", 64, ["turn"])
    meta = {  # a bundle folder ``camera_turn.UpReader`` loads (as models/turn-up)
        "name": out_dir.name,
        "form": "turn-up",
        "onnx": "up.onnx",
        "turns": list(TURNS),
        "crop": {"size": 64, "margin": 1.15},
        "training": {
            "width": width,
            "steps": steps,
            "batch": batch_size,
            "lr": lr,
            "seed": seed,
            "train_crops": int(len(crops)),
            "train_seconds": round(time.time() - t0),
        },
    }
    (out_dir / "model.json").write_text(json.dumps(meta, indent=1) + "\n")
    return onnx


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--crops", nargs="+", required=True, type=Path, help="table cache folders or .npz files")
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args(argv)
    crops = load_crops(a.crops)
    print(f"{len(crops)} crops", flush=True)
    train(
        crops,
        a.out,
        steps=a.steps,
        batch_size=a.batch,
        lr=a.lr,
        width=a.width,
        seed=a.seed,
        threads=a.threads,
        log=lambda m: print(m, flush=True),
    )


if __name__ == "__main__":
    main()
