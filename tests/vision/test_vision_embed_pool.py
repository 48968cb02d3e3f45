"""The face embedding pools the upper half of a die's crop (the top face on an oblique camera).

The shipped ``face-embed`` ONNX is ``embed_training.PooledEmbed``: the network's last 4 x 4 grid
pooled with the ``upper-half`` map, the 4 turns done inside the graph (read with ``turns`` 1).
These tests fail if the export falls back to the even mean (the adaptation ignored) or if the
turns inside the graph disagree with the run time's own turns."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.vision.embedding import FaceEmbedder

REPO = Path(__file__).resolve().parents[2]
SHIPPED = REPO / "models" / "face-embed"


def _crops(n: int = 6) -> np.ndarray:
    from companion.vision.synth import art
    from companion.vision.synth.real_dice import render_die_crop

    rng = np.random.default_rng(3)
    return np.stack(
        [render_die_crop(art.CALIBRATION_FAMILIES[0], "Dwarves/Mammoth Rider", k % 6, rng) for k in range(n)]
    )


def test_shipped_embedding_declares_the_upper_half_pool_read_once():
    meta = json.loads((SHIPPED / "model.json").read_text())
    assert meta["pool"] == "upper-half" and meta["turns"] == 1


def test_a_crop_turned_upside_down_embeds_differently_but_is_as_cocked():
    """The upper half of a crop turned by 180 degrees is its lower half: an even mean over the 4
    turns would not see the difference; the cocked head (even mean over the 4 turns) does not."""
    emb = FaceEmbedder(SHIPPED / "embed.onnx", turns=1)
    x = _crops()
    e0, c0 = emb(x)
    e2, c2 = emb(np.ascontiguousarray(np.rot90(x, 2, (1, 2))))
    # the cocked head reads the even mean over the 4 turns: a half turn changes nothing
    assert np.allclose(c0, c2, atol=1e-4)
    # the embedding reads the upper half: a die turned upside down is another view
    assert np.linalg.norm(e0 - e2, axis=1).mean() > 0.05


def test_shipped_embedding_moves_less_when_the_lower_half_changes_than_the_upper():
    emb = FaceEmbedder(SHIPPED / "embed.onnx", turns=1)
    x = _crops()
    rng = np.random.default_rng(0)
    noise = rng.integers(0, 255, (len(x), 16, 64, 3), dtype=np.uint8)
    top, bottom = x.copy(), x.copy()
    top[:, :16], bottom[:, -16:] = noise, noise
    e, _ = emb(x)
    d_top = np.linalg.norm(emb(top)[0] - e, axis=1).mean()
    d_bottom = np.linalg.norm(emb(bottom)[0] - e, axis=1).mean()
    assert d_bottom < 0.6 * d_top


torch = pytest.importorskip("torch")


def _checkpoint(tmp_path: Path) -> Path:
    from companion.vision.train.embed_training import EmbedNet

    torch.manual_seed(0)
    net = EmbedNet(8, (4, 8, 8, 8)).eval()
    pt = tmp_path / "embed.pt"
    torch.save({"model": net.state_dict(), "meta": {"dim": 8, "widths": [4, 8, 8, 8], "input": 64}}, pt)
    return pt


def test_pooled_export_with_the_even_map_equals_the_run_times_four_turns(tmp_path):
    from companion.vision.train.embed_training import POOL_MAPS, export_embedding

    pt = _checkpoint(tmp_path)
    plain = FaceEmbedder(export_embedding(pt, tmp_path / "plain.onnx"), turns=4)
    even = FaceEmbedder(export_embedding(pt, tmp_path / "even.onnx", POOL_MAPS["even"]), turns=1)
    upper = FaceEmbedder(export_embedding(pt, tmp_path / "upper.onnx", POOL_MAPS["upper-half"]), turns=1)
    x = np.random.default_rng(1).integers(0, 255, (4, 64, 64, 3), dtype=np.uint8)
    (ep, cp), (ee, ce), (eu, cu) = plain(x), even(x), upper(x)
    assert np.allclose(ep, ee, atol=1e-5) and np.allclose(cp, ce, atol=1e-5)
    assert np.allclose(cp, cu, atol=1e-5)  # the cocked head keeps the even mean
    # the upper-half export against the pooling written out with torch's own turns
    from companion.vision.train.embed_training import load_embedding

    net, _ = load_embedding(pt)
    w = torch.from_numpy(POOL_MAPS["upper-half"] / POOL_MAPS["upper-half"].sum()).float()
    xt = torch.from_numpy(x).permute(0, 3, 1, 2).float() / 255
    with torch.no_grad():
        views = [
            torch.nn.functional.normalize(
                net.embed(
                    (net.body[:-2](torch.rot90(xt, t, (2, 3))) * torch.rot90(w, t, (0, 1))).sum((2, 3))
                ),
                dim=1,
            )
            for t in range(4)
        ]
    ref = torch.nn.functional.normalize(torch.stack(views).mean(0), dim=1).numpy()
    assert np.allclose(eu, ref, atol=1e-5)


def test_a_pooling_map_of_the_wrong_shape_is_refused(tmp_path):
    from companion.vision.train.embed_training import export_embedding

    with pytest.raises(ValueError, match="4 x 4"):
        export_embedding(_checkpoint(tmp_path), tmp_path / "x.onnx", np.ones((3, 4)))


def test_pooled_training_reads_each_turned_crop_as_the_export_reads_that_turn(tmp_path):
    """``--train-pooled``: a crop turned k quarter turns is pooled with the map turned k times, the
    term ``PooledEmbed`` computes for turn k (training and run time pool the same part of the die);
    and one step of the pooled loss moves the weights (the map is not ignored)."""
    from companion.vision.train.embed_training import (
        POOL_MAPS,
        PooledEmbed,
        episode_loss,
        load_embedding,
        turned_pools,
    )

    net, _ = load_embedding(_checkpoint(tmp_path))
    with torch.no_grad():  # an untrained net's features are tiny: without its bias the pooling shows
        net.embed.bias.zero_()
    pooled = PooledEmbed(net, POOL_MAPS["upper-half"]).eval()
    x = torch.from_numpy(np.random.default_rng(2).integers(0, 255, (3, 3, 64, 64))).float() / 255
    x[:, :, 32:] *= 0.1  # a bright upper half: pooling it differs from the even mean
    for k in range(4):
        ks = torch.full((3,), k)
        with torch.no_grad():
            trained, _ = net(torch.rot90(x, k, (2, 3)), turned_pools(POOL_MAPS["upper-half"], ks))
            h = net.body[:-2](pooled._turn(x, k))
            run_time = torch.nn.functional.normalize(net.embed((h * pooled.pools[k]).sum((2, 3))), dim=1)
        assert torch.allclose(trained, run_time, atol=1e-5)
    even, _ = net(x, turned_pools(POOL_MAPS["even"], torch.zeros(3, dtype=torch.long)))
    upper, _ = net(x, turned_pools(POOL_MAPS["upper-half"], torch.zeros(3, dtype=torch.long)))
    assert torch.allclose(even, net(x)[0], atol=1e-5) and not torch.allclose(upper, even, atol=1e-3)
    ep = {
        "crops": np.random.default_rng(4).integers(0, 255, (8, 64, 64, 3), dtype=np.uint8),
        "labels": np.array([0, 0, 1, 1, 2, 2, 3, -1]),
        "cocked": np.array([False] * 7 + [True]),
        "shots": 2,
    }
    net.train()
    loss, _, _ = episode_loss(
        net,
        ep,
        "cpu",
        torch.Generator().manual_seed(0),
        torch.tensor(10.0),
        np.random.default_rng(0),
        POOL_MAPS["upper-half"],
    )
    loss.backward()
    assert net.embed.weight.grad is not None and float(net.embed.weight.grad.abs().sum()) > 0
