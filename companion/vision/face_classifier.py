"""The face reader: a small CNN that reads the top face of one cropped die (``[train]`` extra).

One network, one or two heads: ``icon`` (the icon kind, or ``cocked``) and optionally ``count``
(the number printed on the face).  For pip d6 the single head is ``dice_1``..``dice_6``.
Trained on crops cut by ``companion.vision.crops.crop_die`` and exported to ONNX with outputs
named after the heads; ``companion.vision.reader`` runs it with onnxruntime.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm import tqdm

from companion.vision.crops import CROP_MARGIN


def conv_block(cin: int, cout: int) -> nn.Sequential:
    """One stride-2 block of the project's small CNNs (``FaceNet``, ``EmbedNet``, ``NumeralNet``):
    a stride-2 and a stride-1 3x3 convolution, each with batch norm and ReLU."""
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, 2, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, 1, 1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


def block_widths(width: int, stem: int = 0) -> tuple[int, int, int, int]:
    """The four blocks' channels of the original design: ``width`` x 1, 2, 4, 4 (+32 with a stem)."""
    return width, width * 2, width * 4, width * 4 + (32 if stem else 0)


class FaceNet(nn.Module):
    """Four stride-2 blocks; ``stem`` > 0 puts a cheap stride-2 convolution with that many channels in
    front, so a larger crop (finer face detail) costs about what a crop half as wide would.

    ``widths`` sets each block's channels; by default they follow ``width`` (``block_widths``).  The
    last blocks work on 5 x 5 and 3 x 3 maps, so widening them adds capacity for little compute.
    """

    def __init__(
        self,
        heads: dict[str, int],
        width: int = 32,
        stem: int = 0,
        widths: tuple[int, int, int, int] | None = None,
    ):
        super().__init__()
        self.head_names = list(heads)
        self.widths = tuple(widths) if widths else block_widths(width, stem)
        if len(self.widths) != 4 or min(self.widths) < 1:
            raise ValueError(f"FaceNet needs four positive block widths, not {widths!r}")
        pre = (
            [nn.Conv2d(3, stem, 3, 2, 1, bias=False), nn.BatchNorm2d(stem), nn.ReLU(inplace=True)]
            if stem
            else []
        )
        ins = (stem or 3, *self.widths[:3])
        self.body = nn.Sequential(
            *pre,
            *(conv_block(i, o) for i, o in zip(ins, self.widths, strict=True)),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
            nn.Dropout(0.1),
        )
        self.heads = nn.ModuleList(nn.Linear(self.widths[3], n) for n in heads.values())

    def forward(self, x):  # x: N,3,H,W float in [0,1] (BGR)
        z = self.body(x)
        return tuple(h(z) for h in self.heads)


def _augment(batch: torch.Tensor, rng: np.random.Generator, flips: bool) -> torch.Tensor:
    k = int(rng.integers(4))
    batch = torch.rot90(batch, k, (2, 3))
    if flips and rng.random() < 0.5:
        batch = torch.flip(batch, (3,))
    n = batch.shape[0]
    dev = batch.device
    gain = torch.from_numpy(rng.uniform(0.7, 1.3, (n, 1, 1, 1)).astype(np.float32)).to(dev)
    cast = torch.from_numpy(rng.uniform(0.9, 1.1, (n, 3, 1, 1)).astype(np.float32)).to(dev)
    bias = torch.from_numpy(rng.uniform(-0.1, 0.1, (n, 1, 1, 1)).astype(np.float32)).to(dev)
    gray = torch.from_numpy((rng.random((n, 1, 1, 1)) < 0.15).astype(np.float32)).to(dev)
    batch = batch * gain * cast + bias
    batch = batch * (1 - gray) + batch.mean(1, keepdim=True) * gray
    return batch.clamp(0, 1)


def _load_growing(model: FaceNet, state: dict) -> None:
    """Load trained weights; a head that gained classes (appended at the end) keeps its old rows."""
    own = model.state_dict()
    for key, value in state.items():
        if key not in own:
            raise ValueError(f"starting weights have {key}, which this face reader lacks")
        if own[key].shape == value.shape:
            own[key] = value
        elif (
            own[key].ndim == value.ndim
            and own[key].shape[1:] == value.shape[1:]
            and len(own[key]) > len(value)
        ):
            own[key][: len(value)] = value  # new classes keep their fresh initialisation
        else:
            raise ValueError(
                f"starting weights' {key} has shape {tuple(value.shape)}, not {tuple(own[key].shape)}"
            )
    model.load_state_dict(own)


def _load_matching(model: FaceNet, state: dict) -> int:
    """Carry over every starting tensor whose name and shape this (wider) face reader shares; the
    rest keeps its fresh initialisation.  Returns how many tensors were carried over."""
    own = model.state_dict()
    same = {k: v for k, v in state.items() if k in own and own[k].shape == v.shape}
    own.update(same)
    model.load_state_dict(own)
    return len(same)


def train_classifier(
    crops: np.ndarray,
    targets: dict[str, np.ndarray],
    classes: dict[str, list[str]],
    out_dir: Path,
    *,
    epochs: int = 10,
    batch: int = 128,
    lr: float = 3e-3,
    flips: bool = False,
    seed: int = 0,
    init: Path | None = None,
    width: int = 32,
    stem: int = 0,
    widths: tuple[int, int, int, int] | None = None,
    margin: float = CROP_MARGIN,
    threads: int | None = None,
    log_every: int = 0,
    progress: bool = True,
    device: str = "cpu",
) -> Path:
    """Train on uint8 crops (N,H,W,3); writes ``face.pt`` + ``face.json`` in ``out_dir``; returns the .pt.

    ``widths`` gives the blocks' channels (``FaceNet``); with ``init`` and other widths than the
    starting model's, the layers whose shapes match carry over and the wider ones start afresh.
    ``margin`` is the crop margin the crops were cut with (``crop_die``); it is stored in the
    metadata so that run time cuts crops the same way.  ``log_every`` > 0 prints the running loss
    and accuracy every that many steps (for long background runs with a log file).  ``device``:
    ``"cpu"`` or a GPU (``"0"``, ``"cuda:0"``); the saved weights are the same either way.
    """
    dev = torch.device(f"cuda:{device}" if str(device).isdigit() else device)
    torch.manual_seed(seed)
    if threads:
        torch.set_num_threads(threads)
    rng = np.random.default_rng(seed)
    heads = {k: len(v) for k, v in classes.items()}
    if init is not None:  # fine-tuning keeps the starting model's stem and crop geometry
        state = torch.load(init, map_location="cpu", weights_only=False)
        width, stem = state["meta"].get("width", width), state["meta"].get("stem", 0)
        margin = state["meta"].get("margin", margin)
        start_widths = tuple(state["meta"].get("widths") or block_widths(width, stem))
        widths = tuple(widths) if widths else start_widths
    model = FaceNet(heads, width, stem, widths)
    if init is not None:
        if model.widths == start_widths:
            _load_growing(model, state["model"])
        else:
            carried = _load_matching(model, state["model"])
            print(f"widths {start_widths} -> {model.widths}: {carried} tensors carried over", flush=True)
    model.to(dev)
    y_all = {k: torch.from_numpy(np.asarray(targets[k], np.int64)).to(dev) for k in heads}
    n = len(crops)
    steps = epochs * ((n + batch - 1) // batch)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.15)
    loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05, ignore_index=-1)  # -1: no label for that head
    t0 = time.time()
    bar = tqdm(total=steps, desc="train face reader", unit="step", disable=not progress)
    step = 0
    run_loss, run_hits, run_n = 0.0, 0, 0
    first = "icon" if "icon" in heads else next(iter(heads))  # the hardest head, when there is one
    for epoch in range(epochs):
        model.train()
        order = torch.from_numpy(rng.permutation(n))
        for i in range(0, n, batch):
            idx = order[i : i + batch]
            xb = torch.from_numpy(crops[idx.numpy()]).to(dev).permute(0, 3, 1, 2).float() / 255
            xb = _augment(xb, rng, flips)
            idx = idx.to(dev)
            outs = model(xb)
            loss = sum(loss_fn(o, y_all[k][idx]) for o, k in zip(outs, heads, strict=True))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            bar.update(1)
            bar.set_postfix(loss=loss.item())
            step += 1
            run_loss += loss.item()
            run_hits += int((outs[list(heads).index(first)].argmax(1) == y_all[first][idx]).sum())
            run_n += len(idx)
            if log_every and step % log_every == 0:
                print(
                    f"epoch {epoch + 1}/{epochs} step {step}/{steps} loss {run_loss / log_every:.3f} "
                    f"{first} acc {run_hits / max(run_n, 1):.3f} {time.time() - t0:.0f}s",
                    flush=True,
                )
                run_loss, run_hits, run_n = 0.0, 0, 0
        if epoch + 1 < epochs:  # a checkpoint per epoch: a long run can be stopped and still used
            _save(model, out_dir, classes, stem, margin, crops.shape[1], epoch + 1, n, time.time() - t0)
            model.train()
    bar.close()
    return _save(model, out_dir, classes, stem, margin, crops.shape[1], epochs, n, time.time() - t0)


def _save(
    model: FaceNet,
    out_dir: Path,
    classes: dict[str, list[str]],
    stem: int,
    margin: float,
    size: int,
    epochs: int,
    n: int,
    seconds: float,
) -> Path:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    pt = out_dir / "face.pt"
    meta = {
        "heads": classes,
        "width": model.widths[0],
        "stem": stem,
        "widths": list(model.widths),
        "input": int(size),
        "margin": margin,
        "epochs": epochs,
        "samples": n,
        "train_seconds": round(seconds, 1),
    }
    torch.save({"model": {k: v.detach().cpu() for k, v in model.state_dict().items()}, "meta": meta}, pt)
    (out_dir / "face.json").write_text(json.dumps(meta, indent=1))
    return pt


def load_classifier(pt: Path) -> tuple[FaceNet, dict]:
    state = torch.load(pt, map_location="cpu", weights_only=False)
    meta = state["meta"]
    model = FaceNet(
        {k: len(v) for k, v in meta["heads"].items()},
        meta.get("width", 32),
        meta.get("stem", 0),
        meta.get("widths"),
    )
    model.load_state_dict(state["model"])
    model.eval()
    return model, meta


def predict(model: FaceNet, crops: np.ndarray, batch: int = 256) -> list[np.ndarray]:
    """Class probabilities per head for uint8 crops (N,H,W,3)."""
    outs: list[list[np.ndarray]] = [[] for _ in model.head_names]
    with torch.no_grad():
        for i in range(0, len(crops), batch):
            xb = torch.from_numpy(crops[i : i + batch]).permute(0, 3, 1, 2).float() / 255
            for j, o in enumerate(model(xb)):
                outs[j].append(torch.softmax(o, 1).numpy())
    return [np.concatenate(o) for o in outs]


def export_crop_network(model, out: Path, size: int, outputs: list[str]) -> Path:
    """ONNX of a network over die crops: input ``crops`` (N,3,S,S float 0..1, BGR), the named outputs,
    any number of crops a run."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        torch.zeros(1, 3, size, size),
        str(out),
        input_names=["crops"],
        output_names=list(outputs),
        dynamic_axes={"crops": {0: "n"}, **{k: {0: "n"} for k in outputs}},
        opset_version=17,
        dynamo=False,
    )
    return out


def export_classifier(pt: Path, out: Path) -> Path:
    """ONNX with input ``crops`` (N,3,S,S float 0..1, BGR; S = ``meta["input"]``) and one output per head."""
    model, meta = load_classifier(pt)
    return export_crop_network(model, out, meta["input"], list(meta["heads"]))
