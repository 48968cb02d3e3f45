"""A CI-sized run of the real training path of the face embedding network (needs torch):
rendered episodes of training art families -> prototypical + cocked loss -> ONNX -> torch-free run time."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from companion.vision.embedding import FaceEmbedder  # noqa: E402
from companion.vision.enroll import embedding_model  # noqa: E402
from companion.vision.synth import art  # noqa: E402
from companion.vision.train.embed_training import (  # noqa: E402
    EmbedNet,
    episode_loss,
    export_embedding,
    render_episode,
    train_embedding,
    write_model_json,
)


def test_an_episode_holds_the_faces_of_one_family_and_cocked_dice():
    ep = render_episode((art.TRAIN_FAMILIES[0], 3, 2, 6, 3, 4))
    assert ep["family"] == art.TRAIN_FAMILIES[0]
    assert ep["crops"].shape[1:] == (64, 64, 3) and ep["crops"].dtype == np.uint8
    flat = ep["labels"] >= 0
    assert int(ep["labels"][flat].max()) + 1 >= 2 and np.bincount(ep["labels"][flat]).tolist() == [3] * (
        int(ep["labels"][flat].max()) + 1
    )
    assert (ep["cocked"] == ~flat).all() and ep["cocked"].sum() == 4


def test_the_loss_falls_when_a_step_is_taken_on_an_episode():
    torch.manual_seed(0)
    ep = render_episode((art.TRAIN_FAMILIES[1], 5, 2, 5, 4, 4))
    model = EmbedNet(32, (8, 16, 16, 32))
    scale = torch.nn.Parameter(torch.tensor(10.0))
    opt = torch.optim.Adam([*model.parameters(), scale], lr=3e-3)
    losses = []
    for _ in range(8):
        loss, _, _ = episode_loss(
            model, ep, "cpu", torch.Generator().manual_seed(1), scale, np.random.default_rng(1)
        )
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


def test_smoke_training_exports_an_onnx_network_the_run_time_reads(tmp_path):
    pt = train_embedding(
        tmp_path,
        n_episodes=3,
        steps=3,
        workers=0,
        device="cpu",
        batch_episodes=2,
        dim=16,
        widths=(8, 8, 16, 16),
        families=art.TRAIN_FAMILIES[:2],
        progress=False,
        episode_kw={"max_classes": 5, "shots": 3, "n_cocked": 2},
    )
    meta = json.loads((tmp_path / "embed.json").read_text())
    assert meta["steps"] == 3 and meta["train_families"] == list(art.TRAIN_FAMILIES[:2])
    onnx = export_embedding(pt, tmp_path / "embed.onnx")
    write_model_json(tmp_path)
    folder, m = embedding_model(tmp_path)
    assert m["form"] == "face-embedding" and not m["calibrated"]
    emb, pc = FaceEmbedder(onnx, turns=m["turns"])(
        np.random.default_rng(0).integers(0, 255, (3, 64, 64, 3), dtype=np.uint8)
    )
    assert emb.shape == (3, 16) and np.allclose(np.linalg.norm(emb, axis=1), 1, atol=1e-5)
    assert ((pc > 0) & (pc < 1)).all()
