"""A cocked check for standard dice: a small head over the oblique reader's frozen body (``[train]``: torch).

A cocked die is rolled again, so a cocked d20 read as a value is a wrong total.  The numerals reader
(``polyhedral-oblique``) has no cocked output and its embedding's is a constant.  This trains a head
(``HEAD``: the pooled body features -> 64 -> 1) on the finder's crops of whole frames
(``real_dice.render_standard_table``) in which a share of the dice are cocked, with the reader's body
frozen, so the kind and value heads read exactly as before.  The head is written into a copy of the
reader's ``face.pt`` (key ``cocked_head``), and the reader's ONNX gains an output ``cocked``: two logits
(flat, cocked), so ``OnnxFaceReader`` gives its probability like any head's.  ``model.json`` keeps the
threshold (``cocked_threshold``): a die at or above it is left unread and marked cocked.

The rule (``models/polyhedral-oblique/CHANGELOG.md``, stop 38): training crops from TRAIN-style frames;
the threshold is the lowest of ``THRESHOLDS`` with at most ``MAX_FLAT`` of the flat dice called cocked
both on the finder's crops of CALIBRATION-style frames and on the flat dice of the real d6 choice
photographs; it ships if it then finds at least ``MIN_FOUND`` of the calibration cocked dice.

    python -m companion.vision.train.standard_cocked --out /work/runs/std-cocked --workers 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

#: The rule's numbers.
MAX_FLAT = 0.005
MIN_FOUND = 0.25
THRESHOLDS = tuple(np.round(np.arange(0.5, 0.99, 0.01), 2)) + (0.99, 0.995, 0.998, 0.999)
HEAD = {"hidden": 64, "dropout": 0.2, "lr": 1e-3, "weight_decay": 1e-3, "epochs": 40, "batch": 256, "seed": 0}
#: The frames of the rule: (style split, frames, seed); 40 % of their dice cocked.
TRAIN_FRAMES = (("train", 1500, 21), ("train", 2500, 23))
CALIBRATION_FRAMES = ("calibration", 600, 22)
TEST_FRAMES = ("test", 600, 24)
COCKED_SHARE = 0.4


class StandardCockedError(ValueError):
    """Bad arguments to the cocked-check training."""


def _frame(args: tuple):
    import cv2  # noqa: PLC0415

    from companion.vision.synth.real_dice import render_standard_table  # noqa: PLC0415
    from companion.vision.synth.real_tables import table_standard_dice  # noqa: PLC0415
    from companion.vision.synth.standard_styles import SPLITS  # noqa: PLC0415

    cv2.setNumThreads(1)
    split, seed, share = args
    rng = np.random.default_rng(seed)
    dice = [(k, v, s, bool(rng.random() < share)) for k, v, s, _ in table_standard_dice(rng, SPLITS[split])]
    return render_standard_table(dice, rng)


def frame_crops(
    model, split: str, frames: int, seed: int, share: float = COCKED_SHARE, workers: int = 0, log=print
) -> dict[str, np.ndarray]:
    """The finder's crops of ``frames`` frames of ``split`` styles (frame ``k`` drawn from ``seed *
    1_000_003 + k``), each matched to the true die of highest IoU (>= 0.5): ``crops`` (uint8 N x 64 x 64
    x 3), ``cocked`` (bool), ``kind``.  ``model``: a ``NumeralModel`` (its finder and crop)."""
    from companion.vision.crops import crop_die  # noqa: PLC0415
    from companion.vision.numerals import match_dice  # noqa: PLC0415

    if frames < 1:
        raise StandardCockedError(f"frames must be 1 or more, not {frames}")
    if not 0.0 <= share <= 1.0:
        raise StandardCockedError(f"the cocked share is 0 to 1, not {share}")
    args = [(split, seed * 1_000_003 + k, share) for k in range(frames)]
    crops, cocked, kinds = [], [], []
    pool = mp.get_context("fork").Pool(workers) if workers > 1 else None
    try:
        done = 0
        for img, labels in pool.imap(_frame, args, chunksize=4) if pool else map(_frame, args):
            boxes = model.find_dice(img).xyxy.reshape(-1, 4)
            box_of = {int(i): j for j, i in enumerate(match_dice(labels, boxes)) if i >= 0}
            for i, lab in enumerate(labels):  # in the manifest's order
                if i in box_of:
                    crops.append(crop_die(img, boxes[box_of[i]]))
                    cocked.append(bool(lab["cocked"]))
                    kinds.append(lab["kind"])
            done += 1
            if done % 250 == 0 or done == frames:
                log(f"{split} frames: {done}/{frames}, {len(crops)} dice found ({sum(cocked)} cocked)")
    finally:
        if pool:
            pool.terminate()
            pool.join()
    return {
        "crops": np.stack(crops) if crops else np.zeros((0, 64, 64, 3), np.uint8),
        "cocked": np.array(cocked, bool),
        "kind": np.array(kinds),
    }


def body_features(net, crops: np.ndarray, batch: int = 512) -> np.ndarray:
    """The reader's pooled body features (what the head reads) of uint8 crops."""
    import torch  # noqa: PLC0415

    net.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            x = (
                torch.from_numpy(np.ascontiguousarray(crops[i : i + batch].transpose(0, 3, 1, 2))).float()
                / 255
            )
            out.append(net.body(x).numpy())
    return np.concatenate(out) if out else np.zeros((0, 0), np.float32)


def build_head(n_in: int, hidden: int = HEAD["hidden"], dropout: float = HEAD["dropout"]):
    """The head: the body features standardised (by the training crops' mean and spread, kept as
    buffers), then ``n_in`` -> ``hidden`` -> 1."""
    import torch  # noqa: PLC0415
    from torch import nn  # noqa: PLC0415

    class Standardise(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("mean", torch.zeros(n_in))
            self.register_buffer("scale", torch.ones(n_in))

        def forward(self, x):
            return (x - self.mean) / self.scale

    return nn.Sequential(
        Standardise(), nn.Dropout(dropout), nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, 1)
    )


def train_head(features: np.ndarray, cocked: np.ndarray, log=print, **kw):
    """Train the head (``HEAD``, overridden by ``kw``) on ``features`` -> ``cocked``; returns it in eval mode."""
    import torch  # noqa: PLC0415

    spec = dict(HEAD, **kw)
    if len(features) != len(cocked) or not len(features):
        raise StandardCockedError(f"{len(features)} feature rows for {len(cocked)} labels")
    if cocked.all() or not cocked.any():
        raise StandardCockedError("the training crops need both flat and cocked dice")
    torch.manual_seed(spec["seed"])
    head = build_head(features.shape[1], spec["hidden"], spec["dropout"])
    x = torch.from_numpy(np.asarray(features, np.float32))
    head[0].mean.copy_(x.mean(0))
    sd = x.std(0)
    head[0].scale.copy_(sd.clamp_min(0.05 * float(sd.mean())))  # a feature (almost) never on is not blown up
    y = torch.from_numpy(np.asarray(cocked, np.float32))
    opt = torch.optim.AdamW(head.parameters(), lr=spec["lr"], weight_decay=spec["weight_decay"])
    gen = torch.Generator().manual_seed(spec["seed"])
    for epoch in range(spec["epochs"]):
        head.train()
        order = torch.randperm(len(x), generator=gen)
        total = 0.0
        for i in range(0, len(x), spec["batch"]):
            b = order[i : i + spec["batch"]]
            loss = torch.nn.functional.binary_cross_entropy_with_logits(head(x[b]).squeeze(1), y[b])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss) * len(b)
        if (epoch + 1) % 10 == 0:
            log(f"head: pass {epoch + 1}/{spec['epochs']}, loss {total / len(x):.4f}")
    return head.eval()


def probabilities(head, features: np.ndarray) -> np.ndarray:
    import torch  # noqa: PLC0415

    head.eval()
    with torch.no_grad():
        return torch.sigmoid(head(torch.from_numpy(np.asarray(features, np.float32))).squeeze(1)).numpy()


def choose_threshold(p_flat_sets: list[np.ndarray], max_flat: float = MAX_FLAT) -> float | None:
    """The lowest of ``THRESHOLDS`` calling at most ``max_flat`` of the flat dice of every set cocked
    (None when none does)."""
    for t in THRESHOLDS:
        if all((np.asarray(p) >= t).mean() <= max_flat for p in p_flat_sets if len(p)):
            return float(t)
    return None


def export_reader(pt_in: Path, head, out_dir: Path) -> Path:
    """``out_dir/face.pt`` (the reader's checkpoint + ``cocked_head``) and ``out_dir/face.onnx``: the reader's
    outputs as before (kind, value) and ``cocked`` (logits: 0 for flat, the head's for cocked)."""
    import torch  # noqa: PLC0415

    from companion.vision.train.standard_training import load_net  # noqa: PLC0415

    out_dir.mkdir(parents=True, exist_ok=True)
    ck = torch.load(pt_in, weights_only=False, map_location="cpu")
    if ck.get("looks_shift"):
        raise StandardCockedError(f"{pt_in}: a reader of several looks; the cocked head reads one")
    ck["cocked_head"] = {
        "state": head.state_dict(),
        "n_in": int(head[2].in_features),
        "hidden": int(head[2].out_features),
    }
    torch.save(ck, out_dir / "face.pt")
    net = load_net(pt_in).eval()

    class Reader(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m, self.head = net, head.eval()

        def forward(self, crops):
            b = self.m.body(crops)
            f = self.m.feature(b)
            z = self.head(b)
            return (
                self.m.kind(torch.relu(f)),
                self.m.value(torch.relu(f)),
                torch.cat([torch.zeros_like(z), z], 1),
            )

    torch.onnx.export(
        Reader().eval(),
        torch.zeros(1, 3, 64, 64),
        str(out_dir / "face.onnx"),
        input_names=["crops"],
        output_names=["kind", "value", "cocked"],
        dynamic_axes={"crops": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    return out_dir / "face.onnx"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--reader", default="models/polyhedral-oblique", help="the numerals bundle whose body is read"
    )
    ap.add_argument("--out", required=True, help="folder for face.pt, face.onnx, cocked.json and the crops")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--shared", default="../shared", help="where datasets/d6-real is")
    ap.add_argument(
        "--test", action="store_true", help="also read the TEST frames and the real test half (once)"
    )
    a = ap.parse_args(argv)
    import torch  # noqa: PLC0415

    from companion.vision.numerals import NumeralModel  # noqa: PLC0415
    from companion.vision.train.cocked_head import d6_real_split, photo_crops  # noqa: PLC0415
    from companion.vision.train.standard_training import load_net  # noqa: PLC0415

    torch.set_num_threads(2)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{time.time() - t0:6.0f} s] {msg}", file=sys.stderr, flush=True)

    src = Path(a.shared) / "datasets" / "d6-real"
    if not (src / "data.yaml").is_file():
        raise SystemExit(f"{src}: the real d6 photographs are needed to choose the threshold (--shared)")
    model = NumeralModel(Path(a.reader))
    net = load_net(Path(a.reader) / "face.pt")

    def crops_of(split: str, frames: int, seed: int) -> dict:
        cache = out / f"{split}-{frames}-{seed}.npz"
        if cache.is_file():
            with np.load(cache) as z:
                return {k: z[k] for k in z.files}
        d = frame_crops(model, split, frames, seed, workers=a.workers, log=log)
        np.savez_compressed(cache, **d)
        return d

    parts = [crops_of(*f) for f in TRAIN_FRAMES]
    train = {k: np.concatenate([p[k] for p in parts]) for k in ("crops", "cocked")}
    log(f"training crops: {len(train['crops'])} ({int(train['cocked'].sum())} cocked)")
    head = train_head(body_features(net, train["crops"]), train["cocked"], log=log)
    cal = crops_of(*CALIBRATION_FRAMES)
    p_cal = probabilities(head, body_features(net, cal["crops"]))
    split = d6_real_split(src)
    p_real = probabilities(head, body_features(net, photo_crops(split["choice"])))
    t = choose_threshold([p_cal[~cal["cocked"]], p_real])
    found = float((p_cal[cal["cocked"]] >= t).mean()) if t is not None else 0.0
    report = {
        "rule": {"max_flat": MAX_FLAT, "min_found": MIN_FOUND, "head": HEAD, "train_frames": TRAIN_FRAMES},
        "threshold": t,
        "calibration": {
            "flat": int((~cal["cocked"]).sum()),
            "cocked": int(cal["cocked"].sum()),
            "flat_called_cocked": None if t is None else round(float((p_cal[~cal["cocked"]] >= t).mean()), 4),
            "cocked_found": round(found, 4),
        },
        "real_choice": {
            "flat": len(p_real),
            "flat_called_cocked": None if t is None else round(float((p_real >= t).mean()), 4),
        },
        "ships": t is not None and found >= MIN_FOUND,
    }
    log(f"threshold {t}: calibration {report['calibration']}, real choice {report['real_choice']}")
    if report["ships"]:
        export_reader(Path(a.reader) / "face.pt", head, out)
        if a.test:
            test = crops_of(*TEST_FRAMES)
            p_test = probabilities(head, body_features(net, test["crops"]))
            p_rt = probabilities(head, body_features(net, photo_crops(split["test"])))
            report["test"] = {
                "flat": int((~test["cocked"]).sum()),
                "cocked": int(test["cocked"].sum()),
                "flat_called_cocked": round(float((p_test[~test["cocked"]] >= t).mean()), 4),
                "cocked_found": round(float((p_test[test["cocked"]] >= t).mean()), 4),
                "real_test_flat": len(p_rt),
                "real_test_flat_called_cocked": round(float((p_rt >= t).mean()), 4),
            }
            log(f"TEST (read once): {report['test']}")
    (out / "cocked.json").write_text(json.dumps(report, indent=1) + "\n")
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
