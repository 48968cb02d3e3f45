"""The oblique standard-dice reader trained on a lent GPU machine, for a fixed wall-clock budget.

The CPU cycles (``standard_training``) stopped gaining at 192,000 crops for the width-32 network
(``models/polyhedral-oblique/CHANGELOG.md``).  A lent machine renders far more crops in the time
(its CPU cores, one process each) and trains on them on its GPU.  One call does it all:

    python -m companion.vision.train.standard_device --out $OUT --render-seconds 180 \
        --train-seconds 240 --workers 15 --device cuda

1. renders the calibration crops (``--val-crops`` of ``CALIBRATION_STYLES``, seed 2, the set the
   epochs have always been chosen on, grown) and as many crops of ``TRAIN_STYLES`` (the plan's seed,
   ``PLAN_SEEDS``: never drawn before) as ``--render-seconds`` allows, chunk by chunk, with progress;
2. trains every candidate of the plan side by side (one process each, sharing the GPU), each for
   ``--train-seconds`` of wall clock: warm-up then a cosine decay of the rate over that time, the
   calibration crops read after every pass over the data and at the end, **as the reader will be
   exported** (``looks``: one, or five shifted looks), and the best reading kept as ``$OUT/NAME.pt``
   (``$OUT/NAME.json``: its history);
3. writes ``$OUT/summary.json``.

What ships is decided on this machine, by the rule written in the changelog before the run.
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
import time
from contextlib import nullcontext
from pathlib import Path

import numpy as np

from companion.vision.train.standard_training import (
    _augment,
    _render_chunk,
    build_net,
    face_class,
    shifted_looks,
)

#: The candidates of a plan: ``init`` (weights to go on from) or ``width`` (a fresh network), the
#: peak rate, and the looks the reader is exported with (``shift`` px; 0: one look).
PLANS: dict[str, dict[str, dict]] = {
    "stop37": {
        "pa": {"init": "models/polyhedral-oblique/face.pt", "lr": 7e-4, "shift": 2},
        "pb": {"width": 48, "lr": 3e-3, "shift": 0},
    },
    # the device time left after stop37: the shipped network (stop37's PB) continued on new crops
    "stop37b": {
        "pc": {"init": "models/polyhedral-oblique/face.pt", "lr": 1e-3, "shift": 0},
    },
}
#: The seed of the training crops each plan renders (a new one per plan: no crop is drawn twice).
PLAN_SEEDS = {"stop37": 11, "stop37b": 13}
WARMUP = 0.05  # share of the budget with a rising rate


def rate_at(frac: float, peak: float) -> float:
    """The learning rate after ``frac`` (0..1) of the time budget: a linear warm-up, then a cosine to 0."""
    frac = min(max(frac, 0.0), 1.0)
    if frac < WARMUP:
        return peak * (0.1 + 0.9 * frac / WARMUP)
    return peak * 0.5 * (1 + math.cos(math.pi * (frac - WARMUP) / (1 - WARMUP)))


def render_for(
    seconds: float, styles, seed: int, workers: int, max_crops: int, chunk: int = 1000, log=print
) -> dict[str, np.ndarray]:
    """Crops of ``styles`` rendered chunk by chunk (the chunks ``standard_training.render_set`` draws
    for ``seed``) until ``seconds`` have passed or ``max_crops`` are made, whichever comes first."""
    import multiprocessing as mp  # noqa: PLC0415

    jobs = [
        (min(chunk, max_crops - i), tuple(styles), seed * 100_003 + i) for i in range(0, max_crops, chunk)
    ]
    parts: list[dict] = []
    t0 = time.time()
    # one worker renders here: no fork (a process forked after onnxruntime or torch started threads can
    # hang on a lock one of them held)
    pool = mp.get_context("fork").Pool(workers) if workers > 1 else None
    try:
        for part in pool.imap(_render_chunk, jobs) if pool else map(_render_chunk, jobs):
            parts.append(part)
            done = sum(len(p["kind"]) for p in parts)
            if len(parts) % max(1, workers) == 0 or done >= max_crops:
                log(f"rendered {done} crops ({time.time() - t0:.0f} s)")
            if time.time() - t0 > seconds:
                break
    finally:
        if pool:
            pool.terminate()
            pool.join()
    if not parts:
        raise RuntimeError("no crop was rendered in the time given")
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def read_as_exported(model, crops, kind, value, shift: int, device: str, batch: int = 1000) -> float:
    """Kind and value both right (``numerals.decode``) on uint8 crops, each read as the exported reader
    reads it: one look, or the mean log-probabilities of five shifted looks."""
    import torch  # noqa: PLC0415

    from companion.vision.numerals import decode  # noqa: PLC0415

    model.eval()
    ks, vs = [], []
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            x = torch.from_numpy(np.ascontiguousarray(crops[i : i + batch])).to(device)
            x = x.permute(0, 3, 1, 2).float() / 255
            n = x.shape[0]
            k, v, _, _ = model(shifted_looks(x, shift) if shift else x)
            k, v = torch.log_softmax(k.float(), 1), torch.log_softmax(v.float(), 1)
            if shift:
                k, v = k.reshape(5, n, -1).mean(0), v.reshape(5, n, -1).mean(0)
            ks.append(torch.softmax(k, 1).cpu().numpy())
            vs.append(torch.softmax(v, 1).cpu().numpy())
    kk, vv, _ = decode(np.concatenate(ks), np.concatenate(vs))
    return float(((kk == kind) & (vv == value)).mean())


def train_candidate(
    name: str, spec: dict, work: Path, out: Path, seconds: float, device: str, batch: int
) -> dict:
    """Train one candidate for ``seconds`` of wall clock on the crops in ``work``; the best reading of
    the calibration crops (as exported) is kept as ``out/NAME.pt``, the history as ``out/NAME.json``."""
    import torch  # noqa: PLC0415

    torch.manual_seed(0)
    log_path = out / f"{name}.log"

    def log(msg: str) -> None:
        with open(log_path, "a") as f:
            f.write(f"{time.strftime('%H:%M:%S')} {msg}\n")

    crops = np.load(work / "train_crops.npy")
    kind, value = np.load(work / "train_kind.npy"), np.load(work / "train_value.npy")
    val = {k: np.load(work / f"val_{k}.npy") for k in ("crops", "kind", "value")}
    x = torch.from_numpy(crops).to(device)  # uint8, N x 64 x 64 x 3
    yk = torch.from_numpy(kind).to(device)
    yv = torch.from_numpy(value - 1).to(device)
    yf = torch.from_numpy(face_class(kind, value)).to(device)
    if spec.get("init"):
        ck = torch.load(spec["init"], weights_only=False, map_location="cpu")
        model = build_net(ck["config"]["width"], ck["config"]["dim"])
        model.load_state_dict(ck["model"])
    else:
        model = build_net(spec["width"])
    model.to(device)
    shift = int(spec.get("shift", 0))
    opt = torch.optim.AdamW(model.parameters(), lr=spec["lr"], weight_decay=1e-4)
    ce = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    gen = torch.Generator(device=device).manual_seed(1)
    amp = torch.autocast("cuda", dtype=torch.bfloat16) if device.startswith("cuda") else nullcontext()
    start = read_as_exported(model, val["crops"], val["kind"], val["value"], shift, device)
    history = [{"pass": 0, "steps": 0, "seconds": 0.0, "calibration_accuracy": round(start, 4)}]
    best = -1.0
    log(f"{name}: {len(x)} crops, calibration crops read right at the start {start:.4f}")
    t0, steps, passes, done = time.time(), 0, 0, False

    def keep(acc: float) -> None:
        nonlocal best
        if acc > best:
            best = acc
            torch.save(
                {
                    "model": {k: v.cpu() for k, v in model.state_dict().items()},
                    "config": model.config,
                    "pass": passes,
                    "steps": steps,
                    "calibration_accuracy": acc,
                    "looks_shift": shift,
                },
                out / f"{name}.pt",
            )

    keep(start)  # the start is a reading too: a run that only loses keeps what it began with
    while not done:
        model.train()
        order = torch.randperm(len(x), device=device, generator=gen)
        for i in range(0, len(x), batch):
            frac = (time.time() - t0) / seconds if seconds > 0 else 1.0
            if frac >= 1:
                done = True
                break
            for g in opt.param_groups:
                g["lr"] = rate_at(frac, spec["lr"])
            idx = order[i : i + batch]
            xb = _augment(x[idx].permute(0, 3, 1, 2).float() / 255, gen)
            with amp:
                k, v, _, cos = model(xb)
            loss = ce(k.float(), yk[idx]) + ce(v.float(), yv[idx]) + ce(16.0 * cos.float(), yf[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            steps += 1
            if steps % 200 == 0:
                log(
                    f"{name}: step {steps}, pass {passes + 1}, loss {float(loss):.3f} ({time.time() - t0:.0f} s)"
                )
        passes += 1 if not done else 0
        acc = read_as_exported(model, val["crops"], val["kind"], val["value"], shift, device)
        history.append(
            {
                "pass": passes,
                "partial": done,
                "steps": steps,
                "seconds": round(time.time() - t0, 1),
                "calibration_accuracy": round(acc, 4),
            }
        )
        log(
            f"{name}: after {passes} whole passes{' and a part' if done else ''}: calibration crops {acc:.4f}"
        )
        keep(acc)
    result = {
        "name": name,
        "spec": spec,
        "crops": len(x),
        "steps": steps,
        "history": history,
        "best_accuracy": round(best, 4),
        "train_seconds": round(time.time() - t0, 1),
    }
    (out / f"{name}.json").write_text(json.dumps(result, indent=1))
    return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for the weights, logs and summary")
    ap.add_argument("--work", default="/tmp/std-work", help="folder for the rendered crops")
    ap.add_argument("--plan", default="stop37", choices=sorted(PLANS))
    ap.add_argument("--render-seconds", type=float, default=180)
    ap.add_argument("--max-crops", type=int, default=1_000_000)
    ap.add_argument("--val-crops", type=int, default=6000)
    ap.add_argument("--train-seconds", type=float, default=240)
    ap.add_argument("--workers", type=int, default=15)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--candidate", help=argparse.SUPPRESS)  # one candidate, in its own process
    a = ap.parse_args(argv)
    out, work = Path(a.out), Path(a.work)
    out.mkdir(parents=True, exist_ok=True)
    plan = PLANS[a.plan]
    if a.candidate:
        train_candidate(a.candidate, plan[a.candidate], work, out, a.train_seconds, a.device, a.batch)
        return 0
    from companion.vision.synth.standard_styles import CALIBRATION_STYLES, TRAIN_STYLES  # noqa: PLC0415

    work.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    # the calibration crops: render_set's chunks of seed 2, all of them (no time limit)
    val = render_for(float("inf"), CALIBRATION_STYLES, 2, a.workers, a.val_crops, log=print)
    data = render_for(a.render_seconds, TRAIN_STYLES, PLAN_SEEDS[a.plan], a.workers, a.max_crops, log=print)
    for split, arrays in (("val", val), ("train", data)):
        for k in ("crops", "kind", "value"):
            np.save(work / f"{split}_{k}.npy", arrays[k])
    render_s = time.time() - t0
    print(
        f"{len(data['kind'])} training crops and {a.val_crops} calibration crops in {render_s:.0f} s",
        flush=True,
    )
    del data, val
    me = [
        sys.executable,
        "-m",
        "companion.vision.train.standard_device",
        "--out",
        str(out),
        "--work",
        str(work),
        "--plan",
        a.plan,
        "--train-seconds",
        str(a.train_seconds),
        "--device",
        a.device,
        "--batch",
        str(a.batch),
    ]
    procs = {name: subprocess.Popen([*me, "--candidate", name]) for name in plan}
    codes = {name: p.wait() for name, p in procs.items()}
    summary: dict = {"render_seconds": round(render_s, 1), "exit_codes": codes, "candidates": {}}
    for name in plan:
        f = out / f"{name}.json"
        summary["candidates"][name] = json.loads(f.read_text()) if f.is_file() else None
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    for name, r in summary["candidates"].items():
        print(name, "exit", codes[name], "best", r and r["best_accuracy"], "steps", r and r["steps"])
    return 0 if all(c == 0 for c in codes.values()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
