"""Head-only retraining of the face-embed network's cocked head (``companion.vision.train.cocked_head``)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

torch = pytest.importorskip("torch")

from companion.vision.embedding import FaceEmbedder  # noqa: E402
from companion.vision.train import cocked_head  # noqa: E402
from companion.vision.train.cocked_head import CockedHeadError  # noqa: E402
from companion.vision.train.embed_training import POOL_MAPS, EmbedNet, export_embedding  # noqa: E402

FIXTURES = Path(__file__).parent / "fixtures" / "d6" / "val"


def _checkpoint(tmp_path: Path, name: str = "embed.pt") -> Path:
    torch.manual_seed(0)
    net = EmbedNet(8, (4, 8, 8, 16))
    for m in net.modules():  # batch-norm statistics of the tiny set, as a trained body has its own
        if isinstance(m, torch.nn.BatchNorm2d):
            m.momentum = None
    with torch.no_grad():
        net.train()(torch.from_numpy(_tiny_set(64, 9)[0]).permute(0, 3, 1, 2).float() / 255)
    net.eval()
    pt = tmp_path / name
    torch.save({"model": net.state_dict(), "meta": {"dim": 8, "widths": [4, 8, 8, 16], "input": 64}}, pt)
    return pt


def _tiny_set(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Square 'flat' dice and squashed, turned 'cocked' ones on grey: a set the head can learn."""
    rng = np.random.default_rng(seed)
    crops, cocked = [], []
    for i in range(n):
        img = np.full((64, 64, 3), int(rng.integers(60, 120)), np.uint8)
        c = (32 + rng.normal(0, 2), 32 + rng.normal(0, 2))
        tilted = i % 2 == 1
        size = (36, 18) if tilted else (36, 36)
        box = cv2.boxPoints((c, size, float(rng.uniform(0, 90)) if tilted else 0.0)).astype(np.int32)
        cv2.fillConvexPoly(img, box, (230, 230, 230))
        crops.append(img)
        cocked.append(tilted)
    return np.stack(crops), np.array(cocked)


def test_head_retraining_changes_only_the_cocked_head(tmp_path):
    """The new checkpoint has the same keys; every parameter but the head's is unchanged; exported as
    the shipped file is, its embedding outputs equal the old file's and its cocked output is the new
    head on the features ``cocked_head.features`` gives (what the head reads at run time)."""
    pt = _checkpoint(tmp_path)
    model, state = cocked_head.load_checkpoint(pt)
    x, y = _tiny_set(32, 0)
    feats = cocked_head.features(model, x)
    assert feats.shape == (32, 4, 16)
    heads = cocked_head.train_head(model, feats, y, (5, 200), seed=1, lr=3e-2, batch=16)
    assert set(heads) == {5, 200}
    new_pt = cocked_head.write_checkpoint(state, heads[200], tmp_path / "out" / "embed.pt")

    old_sd = torch.load(pt, map_location="cpu", weights_only=False)
    new_sd = torch.load(new_pt, map_location="cpu", weights_only=False)
    assert new_sd["meta"] == old_sd["meta"]
    assert list(new_sd["model"]) == list(old_sd["model"])
    for key, value in old_sd["model"].items():
        same = torch.equal(value, new_sd["model"][key])
        assert same != (key in cocked_head.HEAD_KEYS), key

    pool = POOL_MAPS["upper-half"]
    before = FaceEmbedder(export_embedding(pt, tmp_path / "old.onnx", pool), turns=1)
    after = FaceEmbedder(export_embedding(new_pt, tmp_path / "new.onnx", pool), turns=1)
    (e_old, p_old), (e_new, p_new) = before(x), after(x)
    assert np.array_equal(e_old, e_new)
    assert not np.allclose(p_old, p_new, atol=1e-3)
    assert np.allclose(p_new, cocked_head.head_probs(heads[200], feats), atol=1e-5)
    # the head learnt the tiny set: it tells the tilted shapes from the square ones
    assert ((p_new >= 0.5) == y).mean() >= 0.9


def test_a_missing_checkpoint_is_refused_naming_it(tmp_path):
    with pytest.raises(CockedHeadError, match="no checkpoint at .*nothing.pt"):
        cocked_head.load_checkpoint(tmp_path / "nothing.pt")


def test_a_checkpoint_with_wrong_keys_is_refused_naming_the_keys(tmp_path):
    pt = _checkpoint(tmp_path)
    state = torch.load(pt, map_location="cpu", weights_only=False)
    del state["model"]["cocked.2.bias"]
    state["model"]["cocked.3.weight"] = torch.zeros(1)
    torch.save(state, tmp_path / "bad.pt")
    with pytest.raises(CockedHeadError, match=r"missing: cocked\.2\.bias; unexpected: cocked\.3\.weight"):
        cocked_head.load_checkpoint(tmp_path / "bad.pt")
    torch.save({"weights": state["model"]}, tmp_path / "other.pt")
    with pytest.raises(CockedHeadError, match="'model' and 'meta'.*weights"):
        cocked_head.load_checkpoint(tmp_path / "other.pt")
    (tmp_path / "text.pt").write_text("not a checkpoint")
    with pytest.raises(CockedHeadError, match="text.pt: not a torch checkpoint"):
        cocked_head.load_checkpoint(tmp_path / "text.pt")


def test_the_command_refuses_a_bad_checkpoint_and_writes_nothing(tmp_path, capsys):
    (tmp_path / "bad.pt").write_bytes(b"\x00\x01")
    out = tmp_path / "out"
    assert cocked_head.main(["--pt", str(tmp_path / "bad.pt"), "--out", str(out)]) == 2
    assert "bad.pt: not a torch checkpoint" in capsys.readouterr().err
    assert not out.exists()
    assert cocked_head.main(["--pt", str(tmp_path / "none.pt"), "--out", str(out)]) == 2
    assert "no checkpoint at" in capsys.readouterr().err
    assert not out.exists()


def test_the_threshold_is_the_lowest_that_keeps_flat_dice_under_the_limit():
    p_real = np.array([0.1] * 195 + [0.51, 0.56, 0.59, 0.9, 0.95])  # 5 of 200 flat real dice above 0.5
    p_cal = np.array([0.2] * 100 + [0.9] * 50 + [0.52] * 50)
    cal_cocked = np.array([False] * 100 + [True] * 100)
    fig = cocked_head.pick_threshold(p_real, p_cal, cal_cocked, max_flat=0.01)
    # 0.5 calls 2.5 % of the real flat dice cocked, 0.525 2 %, 0.575 1.5 %, 0.6 1 %
    assert fig.threshold == pytest.approx(0.6)
    assert fig.real_flat_cocked == pytest.approx(0.01) and fig.cal_flat_cocked == 0
    assert fig.cal_cocked_found == pytest.approx(0.5)
    assert cocked_head.pick_threshold(np.full(10, 0.99), p_cal, cal_cocked, max_flat=0.01) is None


def test_photo_faults_keep_the_crop_and_follow_the_strength():
    x, _ = _tiny_set(16, 3)
    assert np.array_equal(cocked_head.photo_augment(x, np.random.default_rng(0), 0.0), x)
    a = cocked_head.photo_augment(x, np.random.default_rng(0), 1.0)
    b = cocked_head.photo_augment(x, np.random.default_rng(0), 1.0)
    assert a.shape == x.shape and a.dtype == np.uint8 and np.array_equal(a, b)
    weak = np.abs(cocked_head.photo_augment(x, np.random.default_rng(1), 0.25).astype(int) - x).mean()
    strong = np.abs(cocked_head.photo_augment(x, np.random.default_rng(1), 1.5).astype(int) - x).mean()
    assert 0 < weak < strong


def test_the_d6_split_keeps_the_test_half_apart(tmp_path):
    """The test half is ``heldout_halves``' test half of the project's hold-out (as ``prepare_d6`` cuts
    it) and shares no source photo with the choice set; photo crops come from the labelled boxes."""
    from companion.vision.train.d6_prep import heldout_halves
    from companion.vision.yolo_dataset import source_group, split_groups

    src = tmp_path / "d6"
    (src / "train" / "images").mkdir(parents=True)
    (src / "train" / "labels").mkdir(parents=True)
    names = []
    for img in sorted((FIXTURES / "images").glob("*.jpg")):
        for k in range(12):  # more names, so that both halves and the training split are filled
            name = f"{k:03d}{img.stem}.jpg"
            (src / "train" / "images" / name).symlink_to(img)
            (src / "train" / "labels" / f"{k:03d}{img.stem}.txt").symlink_to(
                FIXTURES / "labels" / (img.stem + ".txt")
            )
            names.append(name)
    split = cocked_head.d6_real_split(src)
    _, held = split_groups(names, 12)
    assert [p.name for p in split["test"]] == heldout_halves(held)["test"]
    assert split["test"] and split["choice"]
    assert not {source_group(p.name) for p in split["test"]} & {source_group(p.name) for p in split["choice"]}
    crops = cocked_head.photo_crops(split["test"][:2])
    assert crops.ndim == 4 and crops.shape[1:] == (64, 64, 3) and len(crops) >= 2
    with pytest.raises(CockedHeadError, match="no d6-real photographs"):
        cocked_head.d6_real_split(tmp_path / "nowhere")


def test_a_cocked_standard_die_is_tipped_and_a_flat_one_renders_as_before():
    from companion.vision.synth.real_dice import render_polyhedral_crop

    flat = render_polyhedral_crop("d6", 3, np.random.default_rng(5), style_seed=2)
    again = render_polyhedral_crop("d6", 3, np.random.default_rng(5), style_seed=2, cocked=False)
    tipped = render_polyhedral_crop("d6", 3, np.random.default_rng(5), style_seed=2, cocked=True)
    assert np.array_equal(flat, again) and tipped.shape == flat.shape
    assert np.abs(tipped.astype(int) - flat).mean() > 5


def _fake_d6_real(tmp_path: Path) -> Path:
    """The 12 fixture photographs, each under 12 names, in the d6-real layout."""
    src = tmp_path / "d6"
    (src / "train" / "images").mkdir(parents=True)
    (src / "train" / "labels").mkdir(parents=True)
    for img in sorted((FIXTURES / "images").glob("*.jpg")):
        for k in range(12):
            (src / "train" / "images" / f"{k:03d}{img.stem}.jpg").symlink_to(img)
            (src / "train" / "labels" / f"{k:03d}{img.stem}.txt").symlink_to(
                FIXTURES / "labels" / (img.stem + ".txt")
            )
    return src


def test_a_whole_run_writes_a_readable_embedding_folder(tmp_path):
    """A tiny run end to end: the new folder has embed.pt (same keys), embed.onnx, a model.json (made
    from embed.json where the input folder has none) with the chosen threshold, and cocked_head.json
    with the choice and the test figures; the ONNX gives the figures the record holds."""
    import json

    from companion.vision.enroll import embedding_model

    pt = _checkpoint(tmp_path)
    (tmp_path / "embed.json").write_text(json.dumps({"dim": 8, "widths": [4, 8, 8, 16], "input": 64}))
    record = cocked_head.retrain(
        pt,
        tmp_path / "new",
        d6_real=_fake_d6_real(tmp_path),
        n_train=24,
        n_cal=16,
        strengths=(0.5,),
        epochs=(2,),
        max_flat=1.0,
        head_seeds=2,
        log=lambda m: None,
    )
    assert [(c["head_seed"], c["epochs"]) for c in record["candidates"]] == [(0, 2), (1, 2)]
    folder, meta = embedding_model(tmp_path / "new")
    assert meta["reading"]["cocked_threshold"] == record["chosen"]["threshold"] == 0.5
    assert meta["turns"] == 1 and meta["pool"] == "upper-half"
    assert set(torch.load(folder / "embed.pt", weights_only=False)["model"]) == set(
        torch.load(pt, weights_only=False)["model"]
    )
    assert record["test"]["real_flat_dice"] > 0 and record["choice"]["real_flat_dice"] > 0
    saved = json.loads((folder / "cocked_head.json").read_text())
    assert saved["chosen"] == record["chosen"] and "test" in saved
    split = cocked_head.d6_real_split(tmp_path / "d6")
    _, p = FaceEmbedder(folder / "embed.onnx", turns=1)(cocked_head.photo_crops(split["test"]))
    assert (p >= 0.5).mean() == pytest.approx(record["test"]["new_flat_cocked"], abs=1e-9)


def _tiny_run(tmp_path: Path, **kw) -> tuple[dict, list[str]]:
    import json

    tmp_path.mkdir()
    pt = _checkpoint(tmp_path)
    (tmp_path / "embed.json").write_text(json.dumps({"dim": 8, "widths": [4, 8, 8, 16], "input": 64}))
    lines: list[str] = []
    settings = dict(n_train=24, n_cal=16, strengths=(0.5, 1.0), epochs=(1, 3), max_flat=0.5, head_seeds=2)
    record = cocked_head.retrain(
        pt, tmp_path / "new", d6_real=_fake_d6_real(tmp_path), log=lines.append, **{**settings, **kw}
    )
    return record, lines


def test_each_candidate_is_the_head_of_its_own_setting_and_the_chosen_one_is_written(tmp_path):
    """The steps fit together: every listed candidate's figures are those of the head that training
    its setting again (same training renders, faults, starting weights and epochs) gives, judged on
    the choice data; the head in the new embed.pt is the chosen one's; the choice is the rule's over
    the candidates listed; the log says the steps in order; a second run writes the same
    cocked_head.json (but for its duration) and the same weights."""
    import json
    import re

    from companion.vision.synth import art
    from companion.vision.synth.standard_styles import TRAIN_STYLES

    record, lines = _tiny_run(tmp_path / "a", seed=3)
    chosen = record["chosen"]
    model, _ = cocked_head.load_checkpoint(tmp_path / "a" / "embed.pt")
    split = cocked_head.d6_real_split(tmp_path / "a" / "d6")
    choice = cocked_head.choice_data(
        model, split, cocked_head.calibration_families(), 16, 3, 1, lambda m: None, 0.0
    )
    tr_x, tr_y = cocked_head.render_set(
        art.TRAIN_FAMILIES, TRAIN_STYLES, 24, 3 + 2, tilt=cocked_head.TILTS["wide"]
    )
    heads = {}
    for strength in (0.5, 1.0):
        f_tr = cocked_head.training_features(model, tr_x, strength, 3)
        for k in range(2):
            y2 = np.concatenate([tr_y, tr_y])
            for ep, head in cocked_head.train_head(model, f_tr, y2, (1, 3), seed=3 + 10 * k).items():
                heads[strength, k, ep] = head
    assert len(record["candidates"]) == len(heads) == 8
    for c in record["candidates"]:
        setting = {key: c[key] for key in ("tilt", "strength", "head_seed", "epochs")}
        head = heads[c["strength"], c["head_seed"], c["epochs"]]
        assert cocked_head.judge_head(head, choice, 0.5, **setting)[0].entry() == c
    written = torch.load(tmp_path / "a" / "new" / "embed.pt", weights_only=False)["model"]
    for key, value in heads[chosen["strength"], chosen["head_seed"], chosen["epochs"]].state_dict().items():
        assert torch.equal(written[f"cocked.{key}"], value), key

    ok = [c for c in record["candidates"] if c["figures"] is not None]
    best = max(c["figures"]["cal_cocked_found"] for c in ok)
    firsts = [c for c in ok if c["figures"]["cal_cocked_found"] == best]
    first = min(firsts, key=lambda c: (c["strength"], c["epochs"], c["head_seed"]))
    assert {k: first[k] for k in ("tilt", "strength", "head_seed", "epochs")} == {
        k: chosen[k] for k in ("tilt", "strength", "head_seed", "epochs")
    }
    steps = (
        ["checkpoint ", "calibration families ", "real choice crops: ", "calibration renders: "]
        + ["old head at its threshold "]
        + [
            f"tilt {c['tilt']}, strength {c['strength']}, head {c['head_seed']}, {c['epochs']} epochs: "
            for c in record["candidates"]
        ]
        + ["chosen: ", "STRICT ", "wrote "]
    )
    assert len(lines) == len(steps) and all(
        line.startswith(s) for line, s in zip(lines, steps, strict=True)
    ), lines

    def without_seconds(path: Path) -> str:
        text = path.read_text().replace(str(path.parents[1]), "TMP")
        return re.sub(r'"seconds": [0-9.]+', "", text)

    _tiny_run(tmp_path / "b", seed=3)
    a, b = tmp_path / "a" / "new", tmp_path / "b" / "new"
    assert without_seconds(a / "cocked_head.json") == without_seconds(b / "cocked_head.json")
    assert json.loads((a / "model.json").read_text())["cocked_head"] == chosen
    again_sd = torch.load(b / "embed.pt", weights_only=False)["model"]
    assert all(torch.equal(written[k], again_sd[k]) for k in written)


def test_the_rule_prefers_the_most_cocked_found_then_the_gentler_setting():
    def cand(strength, epochs, seed, found):
        fig = None if found is None else cocked_head.Figures(0.6, 0.0, 0.0, found)
        half = cocked_head.Figures(0.5, 0.1, 0.1, 0.5)
        return cocked_head.Candidate("wide", strength, seed, epochs, torch.nn.Identity(), fig, half)

    cands = [cand(0.5, 20, 0, 0.3), cand(1.0, 20, 0, 0.4), cand(0.5, 150, 1, 0.4), cand(0.5, 60, 2, None)]
    assert cocked_head.choose(cands, 0.005) is cands[2]  # 0.4 found; the lower strength wins the tie
    cands.append(cand(0.5, 60, 2, 0.4))
    assert cocked_head.choose(cands, 0.005) is cands[4]  # same strength: fewer epochs
    with pytest.raises(CockedHeadError, match=r"no candidate keeps flat dice called cocked <= 0.5 %"):
        cocked_head.choose([cand(0.5, 20, 0, None)], 0.005)


def test_an_unknown_pool_or_tilt_is_refused_before_anything_is_written(tmp_path):
    pt = _checkpoint(tmp_path)
    for kw, msg in (({"pool": "lower"}, "unknown pool 'lower'"), ({"tilts": ("steep",)}, "unknown tilt")):
        with pytest.raises(CockedHeadError, match=msg):
            cocked_head.retrain(pt, tmp_path / "new", d6_real=tmp_path / "none", log=lambda m: None, **kw)
        assert not (tmp_path / "new").exists()
