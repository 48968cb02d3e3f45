"""Training the face embedding network episodically over art families (``[train]`` extra: torch).

The network maps a 64 px die crop (``crop_die``) to an L2-normalised embedding and a ``cocked``
logit.  It is trained like a prototypical network: each episode takes the faces of a few dice of
ONE art family (``companion.vision.synth.art``, drawn on 3D dice by ``synth.real_dice``), renders a few *support* crops and a few *query*
crops of each face, and asks every query to lie nearest the mean of its own face's supports.  Since
the family changes every episode, the network learns to tell faces apart in art it has not seen,
which is what a table profile (``companion.vision.profile``) needs: a player's dice are a family
it was never trained on, enrolled from a few sightings.

The ``cocked`` head is trained on crops of tilted dice of every training family at once, so it
answers from the die's geometry (a face seen at a slant, two faces up) and not from the art.

Run time is torch-free: ``companion.vision.embedding`` reads the exported ``embed.onnx``.

    python -m companion.vision.train.embed_training --out models/face-embed --seconds 360 --workers 15
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import queue
import sys
import threading
import time
from collections import deque
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from companion.vision.face_classifier import conv_block
from companion.vision.profile import face_key

EMBED_DIM = 96
CROP = 64
WIDTHS = (24, 48, 96, 160)


class EmbedNet(nn.Module):
    """Four stride-2 blocks -> global mean -> (L2-normalised embedding, cocked logit)."""

    def __init__(self, dim: int = EMBED_DIM, widths: tuple[int, ...] = WIDTHS):
        super().__init__()
        ins = (3, *widths[:-1])
        self.body = nn.Sequential(
            *(conv_block(i, o) for i, o in zip(ins, widths, strict=True)),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        self.embed = nn.Linear(widths[-1], dim)
        self.cocked = nn.Sequential(nn.Linear(widths[-1], 64), nn.ReLU(inplace=True), nn.Linear(64, 1))
        self.dim, self.widths = dim, tuple(widths)

    def forward(self, x, pools=None):  # x: N,3,64,64 float in [0,1] (BGR)
        """``pools`` (N, 4, 4 weights summing to 1, optional): the embedding pools the last feature
        grid with them (as ``PooledEmbed`` does at run time); the cocked head always reads the mean."""
        if pools is None:
            z = self.body(x)
            return F.normalize(self.embed(z), dim=1), self.cocked(z)[:, 0]
        h = self.body[:-2](x)
        return F.normalize(self.embed((h * pools[:, None]).sum((2, 3))), dim=1), self.cocked(h.mean((2, 3)))[
            :, 0
        ]


# ----------------------------------------------------------------------------- episodes (renders)

_CATALOGUE = None


def _dice_by_species() -> dict[str, list]:
    global _CATALOGUE
    if _CATALOGUE is None:
        from companion.rules.catalogue import load_catalogue  # noqa: PLC0415

        cat = load_catalogue()
        groups: dict[str, list] = {}
        for die in cat:
            if len(die.faces) in (4, 6, 8, 10, 12) and die.species:
                groups.setdefault(die.species, []).append(die)
        _CATALOGUE = {k: v for k, v in groups.items() if len(v) >= 2}
    return _CATALOGUE


def render_episode(args: tuple) -> dict:
    """Render one episode: (family, seed, dice per episode, max classes, shots, cocked crops).

    Returns uint8 crops (n, 64, 64, 3), class labels (n,) numbered within the episode, and the
    cocked flag of each crop; ``shots`` crops of each face (support and query are split later)."""
    from companion.vision.synth.real_dice import render_die_crop  # noqa: PLC0415

    family, seed, n_dice, max_classes, shots, n_cocked = args
    rng = np.random.default_rng(seed)
    groups = _dice_by_species()
    species = sorted(groups)[int(rng.integers(len(groups)))]
    pool = groups[species]
    dice = [pool[i] for i in rng.choice(len(pool), min(n_dice, len(pool)), replace=False)]
    keys: dict[str, list[tuple[str, int]]] = {}
    for die in dice:
        for k in range(len(die.faces)):
            keys.setdefault(face_key(die, k)[0], []).append((die.name, k))
    names = list(keys)
    if len(names) > max_classes:
        names = [names[i] for i in rng.choice(len(names), max_classes, replace=False)]
    crops, labels, cocked = [], [], []
    c = 0
    for key in names:
        try:
            views = [
                render_die_crop(
                    family, *keys[key][int(rng.integers(len(keys[key])))], rng, size=CROP, cocked=False
                )
                for _ in range(shots)
            ]
        except ValueError as exc:  # a face the renderer cannot draw is left out of the episode, said once
            print(f"episode: {key} left out ({exc})", flush=True)
            continue
        crops += views
        labels += [c] * shots
        cocked += [False] * shots
        c += 1
    for _ in range(n_cocked):
        key = names[int(rng.integers(len(names)))]
        try:
            crops.append(
                render_die_crop(
                    family, *keys[key][int(rng.integers(len(keys[key])))], rng, size=CROP, cocked=True
                )
            )
        except ValueError:
            continue
        labels.append(-1)
        cocked.append(True)
    return {
        "crops": np.stack(crops),
        "labels": np.array(labels, np.int64),
        "cocked": np.array(cocked),
        "family": family,
        "shots": shots,
    }


def episode_args(
    families, rng: np.random.Generator, n: int, *, n_dice=(2, 5), max_classes=16, shots=5, n_cocked=8
):
    for _ in range(n):
        yield (
            int(families[int(rng.integers(len(families)))]),
            int(rng.integers(2**31)),
            int(rng.integers(n_dice[0], n_dice[1] + 1)),
            max_classes,
            shots,
            n_cocked,
        )


def _worker_init() -> None:
    import cv2  # noqa: PLC0415

    cv2.setNumThreads(1)
    torch.set_num_threads(1)


def episodes(families, seed: int, n: int, workers: int, pool=None, **kw):
    """``n`` rendered episodes (``render_episode``), in ``workers`` processes (0: in this one).

    ``pool``: a process pool made beforehand (make it before CUDA starts: forking afterwards is unsafe)."""
    rng = np.random.default_rng(seed)
    args = episode_args(families, rng, n, **kw)
    if workers <= 0:
        for a in args:
            yield render_episode(a)
        return
    own = pool is None
    if own:
        pool = mp.get_context("fork").Pool(workers, initializer=_worker_init)
    try:
        yield from pool.imap_unordered(render_episode, args, chunksize=1)
    finally:
        if own:
            pool.terminate()


# ----------------------------------------------------------------------------- loss and training


def _augment(x: torch.Tensor, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Turns by 90 degrees (a face has no up), light gain, colour cast, offset (per crop).

    Returns the crops and each crop's number of quarter turns (a pooling map turns with its crop)."""
    n = x.shape[0]
    k = torch.randint(0, 4, (n,), generator=gen, device="cpu")
    out = torch.empty_like(x)
    for t in range(4):
        m = (k == t).to(x.device)
        if m.any():
            out[m] = torch.rot90(x[m], t, (2, 3))
    u = lambda *s: torch.rand(*s, generator=gen, device="cpu").to(x.device)  # noqa: E731
    gain = 0.75 + 0.5 * u(n, 1, 1, 1)
    cast = 0.9 + 0.2 * u(n, 3, 1, 1)
    bias = -0.08 + 0.16 * u(n, 1, 1, 1)
    return (out * gain * cast + bias).clamp(0, 1), k


def turned_pools(pool: np.ndarray, k: torch.Tensor) -> torch.Tensor:
    """The pooling map (4 x 4, in the crop's own frame) of each crop turned ``k`` quarter turns: the
    map turns with its crop, so the same part of the die is pooled (``PooledEmbed`` does this for
    each of its 4 turns)."""
    pool = np.asarray(pool, np.float32) / float(np.sum(pool))
    maps = torch.from_numpy(np.stack([np.rot90(pool, t).copy() for t in range(4)]))
    return maps[k.cpu()]


def episode_loss(
    model: EmbedNet,
    ep: dict,
    device,
    gen: torch.Generator,
    scale: torch.Tensor,
    rng: np.random.Generator,
    pool: np.ndarray | None = None,
) -> tuple[torch.Tensor, float, float]:
    """Prototypical loss of one episode (random split of each face's crops into 1..shots-1
    supports and the rest queries) + the cocked loss.  Returns (loss, query accuracy, cocked acc).

    ``pool`` (4 x 4, optional): train the embedding through that pooling map, as it is read at run
    time (``PooledEmbed``); default the even mean."""
    x = torch.from_numpy(ep["crops"]).to(device).permute(0, 3, 1, 2).float() / 255
    x, k = _augment(x, gen)
    pools = None if pool is None else turned_pools(pool, k).to(device)
    emb, cocked_logit = model(x, pools)
    labels = torch.from_numpy(ep["labels"]).to(device)
    flat = labels >= 0
    n_cls = int(labels[flat].max()) + 1
    shots = ep["shots"]
    k_support = int(rng.integers(1, shots))  # 1..shots-1 supports: the profile sees 1, 2, 3, 5... sightings
    idx = torch.arange(len(labels), device=device)
    support = torch.zeros(len(labels), dtype=torch.bool, device=device)
    for c in range(n_cls):
        members = idx[labels == c]
        perm = members[torch.randperm(len(members), generator=gen).to(device)]
        support[perm[:k_support]] = True
    query = flat & ~support
    protos = torch.zeros(n_cls, emb.shape[1], device=device).index_add_(0, labels[support], emb[support])
    protos = F.normalize(protos, dim=1)
    d2 = torch.cdist(emb[query], protos).pow(2)
    logits = -scale * d2
    loss_proto = F.cross_entropy(logits, labels[query])
    target = torch.from_numpy(ep["cocked"]).to(device).float()
    loss_cocked = F.binary_cross_entropy_with_logits(cocked_logit, target)
    acc = float((logits.argmax(1) == labels[query]).float().mean())
    cacc = float(((cocked_logit > 0) == (target > 0.5)).float().mean())
    return loss_proto + loss_cocked, acc, cacc


def _producer(stream, q: queue.Queue, stop: threading.Event) -> None:
    try:
        for ep in stream:
            while not stop.is_set():
                try:
                    q.put(ep, timeout=0.5)
                    break
                except queue.Full:
                    continue
            if stop.is_set():
                break
    except Exception as exc:  # a renderer failure ends the stream; the episodes so far still train
        print(f"renderer stopped: {exc!r}", flush=True)
    finally:
        q.put(None)


def train_embedding(
    out_dir: Path,
    *,
    seconds: float | None = None,
    n_episodes: int = 20000,
    workers: int = 0,
    device: str | None = None,
    seed: int = 0,
    lr: float = 2e-3,
    batch_episodes: int = 4,
    steps: int | None = None,
    buffer: int = 400,
    log_every: int = 50,
    dim: int = EMBED_DIM,
    widths=WIDTHS,
    episode_kw: dict | None = None,
    families=None,
    progress: bool = True,
    init: Path | None = None,
    pool_map: np.ndarray | None = None,
) -> Path:
    """Train on renders of ``families`` (default ``art.TRAIN_FAMILIES``); writes ``embed.pt`` and
    ``embed.json`` in ``out_dir``.

    Episodes are rendered by ``workers`` processes into a buffer of the last ``buffer`` episodes; each
    step trains on ``batch_episodes`` episodes drawn from it (a new support/query split and new
    augmentation each time), so the GPU does not wait for the renderer.  The run stops after
    ``seconds`` (the learning rate decays over that time), or after ``steps`` steps (default: two
    per rendered episode, ``n_episodes`` at most).  With ``workers`` = 0 (tests, CPU) each step
    first renders one new episode in this process."""
    from companion.vision.synth import art  # noqa: PLC0415

    families = tuple(art.TRAIN_FAMILIES if families is None else families)
    pool = mp.get_context("fork").Pool(workers, initializer=_worker_init) if workers > 0 else None
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(seed)
    gen = torch.Generator().manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = EmbedNet(dim, widths)
    start = {"steps": 0, "episodes": 0, "train_seconds": 0.0, "scale": 10.0}
    if init is not None:  # continue a run (a new learning-rate cycle from its weights)
        model, start = load_embedding(init)
        model.train()
    model = model.to(device)
    scale = nn.Parameter(torch.tensor(float(start["scale"]), device=device))
    opt = torch.optim.AdamW([*model.parameters(), scale], lr=lr, weight_decay=5e-4)
    max_steps = steps or max(1, 2 * n_episodes // batch_episodes)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    stream = episodes(families, seed, n_episodes, workers, pool, **(episode_kw or {}))
    q: queue.Queue = queue.Queue(maxsize=64)
    stop = threading.Event()
    if workers > 0:
        threading.Thread(target=_producer, args=(stream, q, stop), daemon=True).start()
    recent: deque = deque(maxlen=buffer)
    t0 = time.time()
    step, seen, ended = 0, 0, False
    run = {"loss": 0.0, "acc": 0.0, "cacc": 0.0, "n": 0}

    def checkpoint() -> Path:  # counts include the run continued (``init``)
        return _save(
            model,
            out_dir,
            scale.item(),
            step + start["steps"],
            seen + start["episodes"],
            time.time() - t0 + start["train_seconds"],
            families,
            pool_map,
        )

    model.train()
    try:
        while step < max_steps and not (seconds and time.time() - t0 >= seconds):
            if workers > 0:
                while not ended:  # take what the renderers have made; wait only while the buffer is short
                    try:
                        ep = q.get(block=len(recent) < batch_episodes, timeout=600)
                    except queue.Empty:
                        break
                    if ep is None:
                        ended = True
                        break
                    if (ep["labels"].max() if len(ep["labels"]) else -1) >= 1:  # two faces at least
                        recent.append(ep)
                    seen += 1
            elif seen < n_episodes:
                recent.append(next(stream))
                seen += 1
            if len(recent) < min(batch_episodes, max(seen, 1)) or not recent:
                break
            frac = (time.time() - t0) / seconds if seconds else step / max_steps
            for g in opt.param_groups:
                g["lr"] = (
                    lr
                    * (0.02 + 0.98 * 0.5 * (1 + np.cos(np.pi * min(frac, 1.0))))
                    * min(1.0, (step + 1) / 100)
                )
            batch = [recent[int(i)] for i in rng.integers(len(recent), size=min(batch_episodes, len(recent)))]
            loss = torch.zeros((), device=device)
            for e in batch:
                li, acc, cacc = episode_loss(model, e, device, gen, scale, rng, pool_map)
                loss = loss + li / len(batch)
                run["acc"] += acc
                run["cacc"] += cacc
                run["n"] += 1
            opt.zero_grad()
            loss.backward()
            opt.step()
            with torch.no_grad():
                scale.clamp_(1.0, 100.0)
            run["loss"] += loss.item()
            step += 1
            if progress and log_every and step % log_every == 0:
                el = time.time() - t0
                print(
                    f"step {step} episodes {seen} loss {run['loss'] / log_every:.3f} query acc "
                    f"{run['acc'] / max(run['n'], 1):.3f} cocked acc {run['cacc'] / max(run['n'], 1):.3f} "
                    f"scale {scale.item():.1f} {el:.0f}s" + (f"/{seconds:.0f}s" if seconds else ""),
                    flush=True,
                )
                run = {"loss": 0.0, "acc": 0.0, "cacc": 0.0, "n": 0}
            if step % 2000 == 0:
                checkpoint()
    finally:
        stop.set()
        if pool is not None:
            pool.terminate()
    return checkpoint()


def _save(
    model: EmbedNet,
    out_dir: Path,
    scale: float,
    steps: int,
    episodes_seen: int,
    seconds: float,
    families,
    pool: np.ndarray | None = None,
) -> Path:
    pt = Path(out_dir) / "embed.pt"
    meta = {
        "dim": model.dim,
        "widths": list(model.widths),
        "input": CROP,
        "scale": round(scale, 3),
        "steps": steps,
        "episodes": episodes_seen,
        "train_seconds": round(seconds, 1),
        "train_families": list(families),
        "train_pool": "even" if pool is None else [[float(v) for v in row] for row in np.asarray(pool)],
    }
    torch.save({"model": model.state_dict(), "meta": meta}, pt)
    (Path(out_dir) / "embed.json").write_text(json.dumps(meta, indent=1))
    return pt


def load_embedding(pt: Path) -> tuple[EmbedNet, dict]:
    state = torch.load(pt, map_location="cpu", weights_only=False)
    meta = state["meta"]
    model = EmbedNet(meta["dim"], tuple(meta["widths"]))
    model.load_state_dict(state["model"])
    model.eval()
    return model, meta


#: Pooling maps over the network's last 4 x 4 grid, in the crop's own frame (row 0 at the top).
#: ``upper-half``: on an oblique camera the top face lies in the upper half of the die's crop; the
#: side faces below it show other faces of the same die (chosen on the calibration families:
#: ``models/face-embed/MODEL_CARD.md``).
POOL_MAPS = {"even": np.ones((4, 4)), "upper-half": np.r_[np.ones((2, 4)), np.zeros((2, 4))]}


class PooledEmbed(nn.Module):
    """``EmbedNet`` read through a pooling map over its last feature grid, the 4 turns inside the graph.

    The network pools its last 4 x 4 feature grid evenly; on an oblique camera the top face (the one
    read) lies in the upper part of the crop and the side faces below it show *other* faces of the
    same die.  This wrapper pools each turned view with ``pool`` (4 x 4 weights in the crop's own
    frame: turned along with the view) before the linear embedding, and averages the 4 turns' unit
    embeddings and cocked logits itself, so its ONNX is read with ``turns`` 1.  The weights of the
    network are not changed (no training): the cocked head still reads the even mean."""

    def __init__(self, net: EmbedNet, pool: np.ndarray):
        super().__init__()
        pool = np.asarray(pool, np.float32)
        if pool.shape != (4, 4) or (pool < 0).any() or pool.sum() <= 0:
            raise ValueError(f"a pooling map is 4 x 4 non-negative weights, not {pool.shape}")
        self.net = net
        pool = pool / pool.sum()
        self.register_buffer(
            "pools", torch.from_numpy(np.stack([np.rot90(pool, t).copy() for t in range(4)]))
        )

    @staticmethod
    def _turn(x: torch.Tensor, t: int) -> torch.Tensor:
        """``torch.rot90(x, t, (2, 3))`` from flips and transposes (the ONNX exporter has no rot90)."""
        for _ in range(t):
            x = x.flip(3).transpose(2, 3)
        return x

    def forward(self, x):
        embs, logits = [], []
        for t in range(4):
            h = self.net.body[:-2](self._turn(x, t))
            embs.append(F.normalize(self.net.embed((h * self.pools[t]).sum((2, 3))), dim=1))
            logits.append(self.net.cocked(h.mean((2, 3)))[:, 0])
        return F.normalize(torch.stack(embs).mean(0), dim=1), torch.stack(logits).mean(0)


def export_embedding(pt: Path, out: Path, pool: np.ndarray | None = None) -> Path:
    """ONNX with input ``crops`` (N,3,64,64 float 0..1, BGR) and outputs ``embedding`` (N,dim) and
    ``cocked`` (N, logits).  With ``pool`` (4 x 4 weights): ``PooledEmbed`` (4 turns inside; read it
    with ``turns`` 1)."""
    model, meta = load_embedding(pt)
    model = model.cpu().eval()
    if pool is not None:
        model = PooledEmbed(model, pool).eval()
    dummy = torch.zeros(2, 3, meta["input"], meta["input"])
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(
        model,
        dummy,
        str(out),
        input_names=["crops"],
        output_names=["embedding", "cocked"],
        dynamic_axes={"crops": {0: "n"}, "embedding": {0: "n"}, "cocked": {0: "n"}},
        opset_version=17,
        dynamo=False,
    )
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for embed.pt, embed.json and embed.onnx")
    ap.add_argument("--seconds", type=float, help="train for this long (wall clock)")
    ap.add_argument("--episodes", type=int, default=20000, help="at most this many rendered episodes")
    ap.add_argument("--workers", type=int, default=max(0, (os.cpu_count() or 1) - 1))
    ap.add_argument("--batch-episodes", type=int, default=4)
    ap.add_argument("--steps", type=int, help="stop after this many steps (default: 2 per rendered episode)")
    ap.add_argument("--buffer", type=int, default=400, help="episodes kept for training (the newest)")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--init", help="embed.pt of an earlier run to continue from")
    ap.add_argument("--log-every", type=int, default=50)
    ap.add_argument("--threads", type=int, help="torch CPU threads (1 on a shared machine)")
    ap.add_argument(
        "--pool",
        choices=sorted(POOL_MAPS),
        default="even",
        help="pooling map of the exported ONNX (upper-half: 4 turns inside, read with turns 1)",
    )
    ap.add_argument(
        "--export-only",
        action="store_true",
        help="no training: export --out/embed.pt again as embed.onnx with --pool",
    )
    ap.add_argument(
        "--train-pooled",
        action="store_true",
        help="train the embedding through --pool too (as the ONNX reads it), not the even mean",
    )
    a = ap.parse_args(argv)
    if a.threads:
        torch.set_num_threads(a.threads)
    pool = None if a.pool == "even" else POOL_MAPS[a.pool]
    if a.export_only:
        onnx = export_embedding(Path(a.out) / "embed.pt", Path(a.out) / "embed.onnx", pool)
        print(f"wrote {onnx} (pool {a.pool}; read it with turns {1 if pool is not None else 4})", flush=True)
        return 0
    pt = train_embedding(
        Path(a.out),
        seconds=a.seconds,
        n_episodes=a.episodes,
        workers=a.workers,
        lr=a.lr,
        seed=a.seed,
        batch_episodes=a.batch_episodes,
        steps=a.steps,
        buffer=a.buffer,
        log_every=a.log_every,
        init=Path(a.init) if a.init else None,
        pool_map=pool if a.train_pooled else None,
    )
    onnx = export_embedding(pt, Path(a.out) / "embed.onnx", pool)
    write_model_json(Path(a.out), pool=a.pool)
    print(f"wrote {pt} and {onnx} ({onnx.stat().st_size / 1e6:.2f} MB)", flush=True)
    return 0


def write_model_json(folder: Path, reading: dict | None = None, pool: str = "even") -> Path:
    """``model.json`` of an embedding network folder (``companion.vision.enroll.embedding_model``).

    ``reading`` (the profile's thresholds) is filled in by ``bench/enroll.py --calibrate``, on the
    calibration families only; until then the defaults of ``companion.vision.profile`` apply."""
    from companion.vision.crops import CROP_MARGIN  # noqa: PLC0415
    from companion.vision.profile import DEFAULT_SETTINGS  # noqa: PLC0415

    folder = Path(folder)
    train = json.loads((folder / "embed.json").read_text())
    # a pooled export turns the crop 4 times inside its graph (``PooledEmbed``): read it once
    meta = {
        "name": folder.name,
        "form": "face-embedding",
        "onnx": "embed.onnx",
        "turns": 2 if pool == "even" else 1,
        "pool": pool,
        "crop": {"size": train["input"], "margin": CROP_MARGIN},
        "dim": train["dim"],
        "reading": reading or dict(DEFAULT_SETTINGS),
        "calibrated": bool(reading),
        "recipe": "python -m companion.vision.train.embed_training",
        "training": train,
    }
    path = folder / "model.json"
    path.write_text(json.dumps(meta, indent=1))
    return path


if __name__ == "__main__":
    sys.exit(main())
