"""Training of the oblique standard-dice reader (``models/polyhedral-oblique`` + ``models/numeral-embed``).

One small network (``NumeralNet``) reads a crop of a standard die seen obliquely
(``synth.real_dice.render_polyhedral_crop``: translucent, marbled and inked d4..d20, camera 30-60
degrees from straight down, a d20's up face the one whose numeral faces the top of the image):

* a ``kind`` head (d4..d20) and a ``value`` head (1..20): the reader before any enrolment
  (exported as ``face.onnx`` of a ``numerals`` bundle, run by ``companion.vision.numerals``);
* an L2-normalised ``embedding`` trained with a cosine-softmax over the (kind, value) faces, so
  that the mean embedding of a few sightings is a good prototype: the table profile's embedding
  network (exported as ``embed.onnx`` of a ``face-embedding`` folder, run by
  ``companion.vision.embedding``; ``turns`` 1: a numeral has an up, 6 is not 9).

Crops are never turned (orientation carries the reading) and never mirrored.  It is trained on the
``TRAIN_STYLES`` of ``synth.standard_styles`` only; the epoch is chosen on ``CALIBRATION_STYLES``
(``--val`` crops); ``TEST_STYLES`` are left to ``bench/enroll_standard.py``.

    nice -n 10 python -m companion.vision.train.standard_training --work artifacts/standard \
        --crops 24000 --epochs 12 --threads 2

renders the crops (two processes) unless they exist, trains with a progress log
(``WORK/train.log``) and a checkpoint per epoch (``WORK/last.pt``; ``--resume`` goes on from it),
keeps the epoch with the best calibration accuracy (``WORK/best.pt``) and exports both bundles.
The embedding network's reading gate is chosen afterwards by ``bench/enroll_standard.py --calibrate``.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from companion.vision.numerals import KINDS, SIDES

VALUES = [str(v) for v in range(1, 21)]
#: (kind index, value) of every face of every standard die: the classes of the embedding's cosine softmax.
FACES = [(k, v) for k, name in enumerate(KINDS) for v in range(1, SIDES[name] + 1)]
#: Share of each kind among the training crops (the d20 has the most faces and the smallest numerals).
KIND_WEIGHTS = {"d4": 1.0, "d6": 1.0, "d8": 1.2, "d10": 1.3, "d12": 1.5, "d20": 3.0}
EMBED_DIM = 64
#: Keys of the reader's ``model.json`` an export keeps: ``reads_upright`` (trained far side up, so the
#: camera turn check may weigh its confidences: ``camera_turn``) holds for every network of this recipe;
#: the gates (``reader_gate``) stay until ``bench/enroll_standard.py --calibrate`` chooses them again.
READER_KEYS_KEPT = ("reads_upright", "min_face_confidence", "min_face_confidence_by_kind")


def face_class(kind: np.ndarray, value: np.ndarray) -> np.ndarray:
    index = {f: i for i, f in enumerate(FACES)}
    return np.array([index[(int(k), int(v))] for k, v in zip(kind, value, strict=True)], np.int64)


def _render_chunk(args: tuple) -> dict:
    from companion.vision.synth.standard_styles import render_crops  # noqa: PLC0415

    n, styles, seed = args
    return render_crops(n, styles, seed, KIND_WEIGHTS)


def render_set(path: Path, n: int, styles, seed: int, workers: int = 2, chunk: int = 1000, log=print) -> Path:
    """Render ``n`` crops of ``styles`` into ``path`` (.npz) in ``workers`` processes, with progress."""
    import multiprocessing as mp  # noqa: PLC0415

    jobs = [(min(chunk, n - i), tuple(styles), seed * 100_003 + i) for i in range(0, n, chunk)]
    parts, t0 = [], time.time()
    ctx = mp.get_context("fork")
    with ctx.Pool(max(1, workers)) as pool:
        for part in pool.imap(_render_chunk, jobs):
            parts.append(part)
            log(
                f"rendered {sum(len(p['kind']) for p in parts)}/{n} crops for {path.name} "
                f"({time.time() - t0:.0f} s)"
            )
    data = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **data)
    return path


def build_net(width: int = 16, dim: int = EMBED_DIM):
    import torch  # noqa: PLC0415
    from torch import nn  # noqa: PLC0415

    from companion.vision.face_classifier import conv_block as block  # noqa: PLC0415

    class NumeralNet(nn.Module):
        """Four stride-2 blocks (64 -> 4 px), a 2x2 pooled map kept (where the numeral sits matters)."""

        def __init__(self):
            super().__init__()
            w = (width, width * 2, width * 4, width * 6)
            self.config = {"width": width, "dim": dim}
            self.body = nn.Sequential(
                block(3, w[0]),
                block(w[0], w[1]),
                block(w[1], w[2]),
                block(w[2], w[3]),
                nn.AdaptiveAvgPool2d(2),
                nn.Flatten(),
                nn.Dropout(0.1),
            )
            self.feature = nn.Linear(w[3] * 4, dim)
            self.kind = nn.Linear(dim, len(KINDS))
            self.value = nn.Linear(dim, len(VALUES))
            self.faces = nn.Parameter(torch.randn(len(FACES), dim) * 0.1)  # cosine-softmax class vectors

        def forward(self, x):
            f = self.feature(self.body(x))
            e = nn.functional.normalize(f, dim=1)
            cos = e @ nn.functional.normalize(self.faces, dim=1).T
            return self.kind(torch.relu(f)), self.value(torch.relu(f)), e, cos

    return NumeralNet()


def _augment(x, gen):
    import torch  # noqa: PLC0415

    n, on = x.shape[0], {"device": x.device}  # ``gen`` lives on the crops' device
    gain = torch.empty(n, 1, 1, 1, **on).uniform_(0.7, 1.3, generator=gen)
    cast = torch.empty(n, 3, 1, 1, **on).uniform_(0.9, 1.1, generator=gen)
    bias = torch.empty(n, 1, 1, 1, **on).uniform_(-0.08, 0.08, generator=gen)
    # a small shift (a detector's box is never exact)
    dx, dy = (int(v) for v in torch.randint(-3, 4, (2,), generator=gen, **on))
    x = torch.roll(x, (dy, dx), (2, 3))
    return (x * gain * cast + bias).clamp(0, 1)


def _tensor(crops):
    import torch  # noqa: PLC0415

    return torch.from_numpy(np.ascontiguousarray(crops.transpose(0, 3, 1, 2))).float() / 255


def predict(model, crops: np.ndarray, batch: int = 512) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(kind probabilities, value probabilities, embeddings) of uint8 crops with the torch model."""
    import torch  # noqa: PLC0415

    model.eval()
    ks, vs, es = [], [], []
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            k, v, e, _ = model(_tensor(crops[i : i + batch]))
            ks.append(torch.softmax(k, 1).numpy())
            vs.append(torch.softmax(v, 1).numpy())
            es.append(e.numpy())
    return np.concatenate(ks), np.concatenate(vs), np.concatenate(es)


def accuracy(model, data: dict) -> float:
    """Kind and value both right (``numerals.decode``) on a rendered set."""
    from companion.vision.numerals import decode  # noqa: PLC0415

    kp, vp, _ = predict(model, data["crops"])
    k, v, _ = decode(kp, vp)
    return float(((k == data["kind"]) & (v == data["value"])).mean())


def train(
    train_npz: Path,
    val_npz: Path,
    work: Path,
    *,
    epochs: int = 12,
    width: int = 16,
    batch: int = 128,
    lr: float = 3e-3,
    scale: float = 16.0,
    threads: int = 2,
    resume: bool = False,
    limit: int = 0,
    init: Path | None = None,
    log=print,
) -> dict:
    """Train ``NumeralNet``; a checkpoint per epoch, the best epoch on the calibration crops kept."""
    import torch  # noqa: PLC0415

    torch.set_num_threads(threads)
    torch.manual_seed(0)
    z, val = dict(np.load(train_npz)), dict(np.load(val_npz))
    if limit:
        z = {k: v[:limit] for k, v in z.items()}
    x = _tensor(z["crops"])
    yk, yv = torch.from_numpy(z["kind"]), torch.from_numpy(z["value"] - 1)
    yf = torch.from_numpy(face_class(z["kind"], z["value"]))
    model = build_net(width)
    if init is not None:  # a second cycle from trained weights (new optimiser and schedule)
        model.load_state_dict(torch.load(init, weights_only=False)["model"])
    steps = epochs * ((len(x) + batch - 1) // batch)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    state = {"epoch": 0, "best": -1.0, "best_epoch": 0, "history": [], "seconds": 0.0}
    work.mkdir(parents=True, exist_ok=True)
    if resume and (work / "last.pt").is_file():
        ck = torch.load(work / "last.pt", weights_only=False)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        state = ck["state"]
        log(f"resumed after epoch {state['epoch']}")
    gen = torch.Generator().manual_seed(1 + state["epoch"])
    ce = torch.nn.CrossEntropyLoss(label_smoothing=0.05)
    for epoch in range(state["epoch"], epochs):
        t0 = time.time()
        model.train()
        order = torch.randperm(len(x), generator=gen)
        total, seen = 0.0, 0
        for i in range(0, len(x), batch):
            idx = order[i : i + batch]
            k, v, _, cos = model(_augment(x[idx], gen))
            loss = ce(k, yk[idx]) + ce(v, yv[idx]) + ce(scale * cos, yf[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            total, seen = total + float(loss.detach()) * len(idx), seen + len(idx)
            if (i // batch + 1) % 50 == 0:
                log(
                    f"epoch {epoch + 1}: {seen}/{len(x)} crops, loss {total / seen:.3f} ({time.time() - t0:.0f} s)"
                )
        acc = accuracy(model, val)
        state["seconds"] += time.time() - t0
        state["epoch"] = epoch + 1
        state["history"].append(
            {
                "epoch": epoch + 1,
                "loss": round(total / max(seen, 1), 4),
                "calibration_accuracy": round(acc, 4),
                "seconds": round(time.time() - t0, 1),
            }
        )
        if acc > state["best"]:
            state["best"], state["best_epoch"] = acc, epoch + 1
            torch.save(
                {"model": model.state_dict(), "config": model.config, "epoch": epoch + 1}, work / "best.pt"
            )
        torch.save(
            {
                "model": model.state_dict(),
                "opt": opt.state_dict(),
                "sched": sched.state_dict(),
                "state": state,
                "config": model.config,
            },
            work / "last.pt",
        )
        log(
            f"epoch {epoch + 1}/{epochs}: loss {total / max(seen, 1):.3f}, calibration styles kind+value right "
            f"{acc:.3f} ({time.time() - t0:.0f} s; best epoch {state['best_epoch']})"
        )
    return state


def load_net(pt: Path):
    import torch  # noqa: PLC0415

    ck = torch.load(pt, weights_only=False, map_location="cpu")
    model = build_net(ck["config"]["width"], ck["config"]["dim"])
    model.load_state_dict(ck["model"])
    return model.eval()


def shifted_looks(crops, shift: int):
    """The crops (N, 3, H, W) and their four copies moved ``shift`` px left, right, up and down (edge pixels
    repeated), stacked as (5 N, 3, H, W): the looks the reader averages (``export``'s ``shift``).  Made by
    gathering rows and columns at constant indices, so the exported graph keeps its static 64 px shape."""
    import torch  # noqa: PLC0415

    h, w = int(crops.shape[2]), int(crops.shape[3])

    def moved(size: int, by: int):
        return torch.clamp(torch.arange(size, device=crops.device) - by, 0, size - 1)

    looks = [crops]
    for by in (shift, -shift):
        looks.append(crops.index_select(3, moved(w, by)))
    for by in (shift, -shift):
        looks.append(crops.index_select(2, moved(h, by)))
    return torch.cat(looks)


def export(pt: Path, reader_dir: Path, embed_dir: Path, training: dict, shift: int = 0) -> None:
    """``reader_dir/face.onnx`` (outputs kind, value) + ``model.json`` of a numerals bundle, and
    ``embed_dir/embed.onnx`` (outputs embedding, cocked) + ``model.json`` of a face embedding
    network.  The standard-dice renders have no cocked dice: the ``cocked`` output is a constant
    (never cocked), so the embedding network must not be used to call Dragon Dice cocked.
    ``shift`` > 0: the reader looks at each crop five times (``shifted_looks``) and answers the mean of
    the five log-probabilities (a softmax of them is the looks' normalised geometric mean)."""
    import torch  # noqa: PLC0415

    model = load_net(pt)

    class Reader(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, crops):
            if not shift:
                k, v, _, _ = self.m(crops)
                return k, v
            n = crops.shape[0]
            k, v, _, _ = self.m(shifted_looks(crops, shift))
            k = torch.log_softmax(k, 1).reshape(5, n, -1).mean(0)
            v = torch.log_softmax(v, 1).reshape(5, n, -1).mean(0)
            return k, v

    class Embed(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, crops):
            _, _, e, _ = self.m(crops)
            return e, e[:, 0] * 0.0 - 20.0

    x = torch.zeros(1, 3, 64, 64)
    reader_dir.mkdir(parents=True, exist_ok=True)
    embed_dir.mkdir(parents=True, exist_ok=True)
    kw = {"input_names": ["crops"], "dynamic_axes": {"crops": {0: "n"}}, "opset_version": 17, "dynamo": False}
    torch.onnx.export(
        Reader(model),
        x,
        str(reader_dir / "face.onnx"),
        output_names=["kind", "value"],
        **{**kw, "dynamic_axes": {"crops": {0: "n"}, "kind": {0: "n"}, "value": {0: "n"}}},
    )
    torch.onnx.export(
        Embed(model),
        x,
        str(embed_dir / "embed.onnx"),
        output_names=["embedding", "cocked"],
        **{**kw, "dynamic_axes": {"crops": {0: "n"}, "embedding": {0: "n"}, "cocked": {0: "n"}}},
    )
    meta_path = embed_dir / "model.json"
    old = json.loads(meta_path.read_text()) if meta_path.is_file() else {}
    emb = {
        "name": embed_dir.name,
        "form": "face-embedding",
        "onnx": "embed.onnx",
        "turns": 1,
        "crop": {"size": 64, "margin": 1.15},
        "dim": model.config["dim"],
        "reading": old.get(
            "reading", {"scale": 8.0, "max_distance": 0.8, "min_confidence": 0.6, "cocked_threshold": 0.5}
        ),
        "recipe": "python -m companion.vision.train.standard_training",
        "training": training,
        "standard_dice_only": True,
    }
    for k in ("calibrated", "calibration", "standard_dice_calibration"):
        if k in old:
            emb[k] = old[k]
    meta_path.write_text(json.dumps(emb, indent=1))
    rmeta = {
        "name": reader_dir.name,
        "form": "numerals",
        "box_finder": "dragon-dice",
        "conf": 0.15,
        "face_heads": {"kind": list(KINDS), "value": VALUES},
        "sides": SIDES,
        "min_face_confidence": 0.5,  # a new bundle's gate until it is calibrated
        "embedding_network": embed_dir.name,
        "looks": {"count": 5, "shift_px": shift} if shift else {"count": 1},
        "recipe": "python -m companion.vision.train.standard_training",
        "training": training,
    }
    old_reader = (
        json.loads((reader_dir / "model.json").read_text()) if (reader_dir / "model.json").is_file() else {}
    )
    rmeta.update({k: old_reader[k] for k in READER_KEYS_KEPT if k in old_reader})
    (reader_dir / "model.json").write_text(json.dumps(rmeta, indent=1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default="artifacts/standard")
    ap.add_argument("--reader-out", default="models/polyhedral-oblique")
    ap.add_argument("--embed-out", default="models/numeral-embed")
    ap.add_argument("--crops", type=int, default=24000, help="training crops (TRAIN styles)")
    ap.add_argument(
        "--val-crops", type=int, default=1500, help="crops of CALIBRATION styles to pick the epoch"
    )
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2, help="rendering processes")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--init", help="weights (.pt) to start a new cycle from")
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--render-only", action="store_true")
    ap.add_argument("--export-only", action="store_true")
    ap.add_argument(
        "--shift", type=int, default=0, help="px: the reader averages five looks at each crop (export)"
    )
    a = ap.parse_args(argv)
    from companion.vision.synth.standard_styles import CALIBRATION_STYLES, TRAIN_STYLES  # noqa: PLC0415

    work = Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    logf = open(work / "train.log", "a")  # noqa: SIM115

    def log(msg: str) -> None:
        line = f"{time.strftime('%H:%M:%S')} {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    train_npz, val_npz = work / f"train_{a.crops}.npz", work / f"val_{a.val_crops}.npz"
    t0 = time.time()
    if not val_npz.is_file():
        render_set(val_npz, a.val_crops, CALIBRATION_STYLES, 2, a.workers, log=log)
    if not train_npz.is_file():
        render_set(train_npz, a.crops, TRAIN_STYLES, 1, a.workers, log=log)
    render_s = time.time() - t0
    if a.render_only:
        return 0
    if not a.export_only:
        state = train(
            train_npz,
            val_npz,
            work,
            epochs=a.epochs,
            width=a.width,
            threads=a.threads,
            resume=a.resume,
            init=Path(a.init) if a.init else None,
            lr=a.lr,
            log=log,
        )
        (work / "state.json").write_text(json.dumps(state, indent=1))
    state = json.loads((work / "state.json").read_text())
    training = {
        "crops": a.crops,
        "styles": "TRAIN_STYLES (synth.standard_styles)",
        "epochs": state["epoch"],
        "best_epoch": state["best_epoch"],
        "epoch_chosen_on": f"{a.val_crops} crops of CALIBRATION_STYLES",
        "calibration_accuracy": round(state["best"], 4),
        "train_seconds": round(state["seconds"], 1),
        "render_seconds_this_run": round(render_s, 1),
        "threads": a.threads,
        "width": a.width,
    }
    export(work / "best.pt", Path(a.reader_out), Path(a.embed_out), training, shift=a.shift)
    log(f"exported {a.reader_out}/face.onnx and {a.embed_out}/embed.onnx (epoch {state['best_epoch']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
