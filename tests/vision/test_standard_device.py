"""The GPU training path of the oblique standard-dice reader, run on the CPU at toy size."""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from companion.vision.synth.standard_styles import CALIBRATION_STYLES, TRAIN_STYLES  # noqa: E402
from companion.vision.train import standard_device as sd  # noqa: E402
from companion.vision.train.standard_training import build_net, shifted_looks  # noqa: E402


def test_rate_warms_up_then_decays_to_zero():
    peak = 1e-3
    assert sd.rate_at(0.0, peak) == pytest.approx(0.1 * peak)
    assert sd.rate_at(sd.WARMUP, peak) == pytest.approx(peak)
    assert sd.rate_at(1.0, peak) == pytest.approx(0.0, abs=1e-12)
    later = [sd.rate_at(f, peak) for f in np.linspace(sd.WARMUP, 1, 20)]
    assert all(a >= b for a, b in zip(later, later[1:], strict=False))
    assert sd.rate_at(2.0, peak) == sd.rate_at(1.0, peak)  # past the budget: no negative rate


def test_render_for_stops_at_the_crop_cap_and_draws_render_sets_chunks():
    got = sd.render_for(60, TRAIN_STYLES, 11, workers=1, max_crops=60, chunk=25, log=lambda m: None)
    assert got["crops"].shape == (60, 64, 64, 3) and len(got["kind"]) == 60
    from companion.vision.train.standard_training import _render_chunk

    first = _render_chunk((25, tuple(TRAIN_STYLES), 11 * 100_003))
    assert np.array_equal(got["crops"][:25], first["crops"])


def test_render_for_stops_when_the_time_is_up():
    got = sd.render_for(0.0, TRAIN_STYLES, 3, workers=1, max_crops=1000, chunk=10, log=lambda m: None)
    assert len(got["kind"]) < 1000  # the first chunk past the deadline ends it


def test_read_as_exported_five_looks_is_the_mean_of_the_shifted_looks():
    torch.manual_seed(0)
    net = build_net(8).eval()
    crops = (np.random.default_rng(0).random((6, 64, 64, 3)) * 255).astype(np.uint8)
    kind, value = np.zeros(6, int), np.ones(6, int)
    x = torch.from_numpy(crops).permute(0, 3, 1, 2).float() / 255
    from companion.vision.numerals import decode

    with torch.no_grad():
        k, v, _, _ = net(shifted_looks(x, 2))
    kp = torch.softmax(torch.log_softmax(k, 1).reshape(5, 6, -1).mean(0), 1)
    vp = torch.softmax(torch.log_softmax(v, 1).reshape(5, 6, -1).mean(0), 1)
    kk, vv, _ = decode(kp.numpy(), vp.numpy())
    want = float(((kk == kind) & (vv == value)).mean())
    assert sd.read_as_exported(net, crops, kind, value, 2, "cpu") == pytest.approx(want)
    # one look reads the crops as they are
    with torch.no_grad():
        k1, v1, _, _ = net(x)
    kk1, vv1, _ = decode(torch.softmax(k1, 1).numpy(), torch.softmax(v1, 1).numpy())
    want1 = float(((kk1 == kind) & (vv1 == value)).mean())
    assert sd.read_as_exported(net, crops, kind, value, 0, "cpu") == pytest.approx(want1)


@pytest.fixture
def work(tmp_path):
    from companion.vision.train.standard_training import _render_chunk

    w = tmp_path / "work"
    w.mkdir()
    train = _render_chunk((96, tuple(TRAIN_STYLES), 5))
    val = _render_chunk((48, tuple(CALIBRATION_STYLES), 6))
    for k in ("crops", "kind", "value"):
        np.save(w / f"train_{k}.npy", train[k])
        np.save(w / f"val_{k}.npy", val[k])
    return w


def test_a_fresh_candidate_trains_for_its_time_and_keeps_its_best_reading(work, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    r = sd.train_candidate("toy", {"width": 8, "lr": 3e-3, "shift": 0}, work, out, 4.0, "cpu", 32)
    history = json.loads((out / "toy.json").read_text())["history"]
    assert r["steps"] > 3 and len(history) >= 2
    assert r["best_accuracy"] == max(h["calibration_accuracy"] for h in history)  # the start included
    kept = torch.load(out / "toy.pt", weights_only=False)
    assert kept["config"]["width"] == 8 and kept["looks_shift"] == 0
    assert round(kept["calibration_accuracy"], 4) == r["best_accuracy"]
    # the kept weights read the calibration crops as the history says
    net = build_net(8)
    net.load_state_dict(kept["model"])
    val = {k: np.load(work / f"val_{k}.npy") for k in ("crops", "kind", "value")}
    again = sd.read_as_exported(net, val["crops"], val["kind"], val["value"], 0, "cpu")
    assert again == pytest.approx(kept["calibration_accuracy"])
    assert "calibration crops" in (out / "toy.log").read_text()


def test_a_continued_candidate_with_no_time_keeps_the_weights_it_began_with(work, tmp_path):
    torch.manual_seed(1)
    start = build_net(8)
    init = tmp_path / "init.pt"
    torch.save({"model": start.state_dict(), "config": start.config}, init)
    out = tmp_path / "out"
    out.mkdir()
    # no time to train: the start, read before any step, is what is kept
    r = sd.train_candidate("cont", {"init": str(init), "lr": 1e-3, "shift": 2}, work, out, 0.0, "cpu", 32)
    kept = torch.load(out / "cont.pt", weights_only=False)
    assert kept["pass"] == 0 and kept["looks_shift"] == 2 and r["steps"] == 0
    assert r["best_accuracy"] == r["history"][0]["calibration_accuracy"]
    for k, v in start.state_dict().items():
        if v.dtype.is_floating_point:
            assert torch.equal(kept["model"][k], v), k


def test_every_plan_draws_crops_no_other_plan_or_cpu_cycle_drew():
    # the CPU cycles drew seeds 1, 3, 5, 7 and 9 (models/polyhedral-oblique/CHANGELOG.md)
    seeds = [sd.PLAN_SEEDS[p] for p in sd.PLANS]
    assert len(set(seeds)) == len(seeds) and not set(seeds) & {1, 2, 3, 5, 7, 9}
    for plan in sd.PLANS.values():
        for spec in plan.values():
            assert ("init" in spec) != ("width" in spec) and spec["lr"] > 0 and spec["shift"] in (0, 2)
