"""Training the face reader: block widths, a wider reader started from a narrower one, crop sets
joined with hard negatives, and a checkpoint after every epoch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytestmark = pytest.mark.train
torch = pytest.importorskip("torch", reason="needs the train extra: pip install -e '.[train]'")

from companion.vision.face_classifier import FaceNet, block_widths, load_classifier, train_classifier  # noqa: E402
from companion.vision.train.dd_training import load_crop_sets, main  # noqa: E402

HEADS = {"kind": ["d4", "d6"], "icon": ["Melee", "Save", "cocked"], "count": ["0", "1", "2"]}


def _crop_set(path: Path, n: int, seed: int, icons=("Melee", "Save", "cocked"), margin: float = 0.9) -> Path:
    rng = np.random.default_rng(seed)
    np.savez(
        path,
        crops=rng.integers(0, 255, (n, 16, 16, 3), dtype=np.uint8),
        icon=rng.integers(0, 3, n),
        count=rng.integers(0, 3, n),
        kind=rng.integers(0, 2, n),
        icons=np.array(icons),
        margin=margin,
    )
    return path


def test_default_widths_follow_the_original_design():
    assert block_widths(24) == (24, 48, 96, 96)
    assert block_widths(24, stem=16) == (24, 48, 96, 128)
    net = FaceNet({"icon": 5}, 24, 16)
    assert net.widths == (24, 48, 96, 128) and net.heads[0].in_features == 128


def test_wider_late_blocks_change_only_the_late_layers():
    narrow, wide = FaceNet({"icon": 5}, 24, 16), FaceNet({"icon": 5}, 24, 16, (24, 48, 128, 256))
    assert wide.heads[0].in_features == 256
    assert wide(torch.zeros(2, 3, 32, 32))[0].shape == (2, 5)
    shared = [k for k, v in narrow.state_dict().items() if wide.state_dict()[k].shape == v.shape and v.ndim]
    assert any(k.startswith("body.0.") for k in shared)  # the stem
    assert any(k.startswith("body.4.") for k in shared)  # block 2 (body: stem conv, bn, relu, blocks 1-4)
    assert "heads.0.weight" not in shared and not any(k.startswith(("body.5.", "body.6.")) for k in shared)
    with pytest.raises(ValueError, match="four positive block widths"):
        FaceNet({"icon": 5}, widths=(8, 16, 32))


def test_a_wider_reader_starts_from_a_narrower_ones_matching_layers(tmp_path):
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 255, (40, 16, 16, 3), dtype=np.uint8)
    targets = {k: rng.integers(0, len(v), 40) for k, v in HEADS.items()}
    narrow_pt = train_classifier(
        crops, targets, HEADS, tmp_path / "narrow", epochs=1, width=8, stem=4, progress=False
    )
    wide_pt = train_classifier(
        crops,
        targets,
        HEADS,
        tmp_path / "wide",
        epochs=1,
        lr=0.0,
        init=narrow_pt,
        widths=(8, 16, 48, 64),
        progress=False,
    )
    narrow, _ = load_classifier(narrow_pt)
    wide, meta = load_classifier(wide_pt)
    assert meta["widths"] == [8, 16, 48, 64] and meta["stem"] == 4  # the stem comes from the start
    # with no learning the stem's weights are the narrow reader's, exactly
    assert torch.equal(wide.body[0].weight, narrow.body[0].weight)
    assert wide.heads[1].out_features == 3 and wide.heads[1].in_features == 64


def test_crop_sets_are_joined_with_negatives_as_no_die(tmp_path):
    a, b = _crop_set(tmp_path / "a.npz", 5, 1), _crop_set(tmp_path / "b.npz", 7, 2)
    neg = np.full((2, 16, 16, 3), 9, np.uint8)
    crops, targets, classes, margin = load_crop_sets([a, b], neg, neg_repeats=3)
    assert crops.shape == (5 + 7 + 6, 16, 16, 3) and margin == 0.9
    with np.load(a) as za, np.load(b) as zb:
        assert np.array_equal(crops[:5], za["crops"]) and np.array_equal(crops[5:12], zb["crops"])
        assert np.array_equal(targets["icon"][:12], np.r_[za["icon"], zb["icon"]])
    assert (crops[12:] == 9).all()
    assert classes["kind"][-1] == "none" and (targets["kind"][12:] == len(classes["kind"]) - 1).all()
    assert (targets["icon"][12:] == -1).all() and (targets["count"][12:] == -1).all()  # no label there
    plain, plain_targets, plain_classes, _ = load_crop_sets([a, b])
    assert len(plain) == 12 and "none" not in plain_classes["kind"] and len(plain_targets["kind"]) == 12


def test_crop_sets_of_other_vocabularies_or_sizes_are_refused(tmp_path):
    a = _crop_set(tmp_path / "a.npz", 3, 1)
    with pytest.raises(ValueError, match="another vocabulary or crop margin"):
        load_crop_sets([a, _crop_set(tmp_path / "m.npz", 3, 2, margin=1.15)])
    with pytest.raises(ValueError, match="another vocabulary or crop margin"):
        load_crop_sets([a, _crop_set(tmp_path / "v.npz", 3, 2, icons=("Melee", "Magic", "cocked"))])
    with pytest.raises(ValueError, match="negatives are"):
        load_crop_sets([a], np.zeros((2, 8, 8, 3), np.uint8))


def test_a_checkpoint_is_written_after_every_epoch(tmp_path, monkeypatch):
    import companion.vision.face_classifier as fc

    saved = []
    real_save = fc._save
    monkeypatch.setattr(fc, "_save", lambda *a, **k: saved.append(a[6]) or real_save(*a, **k))
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 255, (20, 16, 16, 3), dtype=np.uint8)
    targets = {k: rng.integers(0, len(v), 20) for k, v in HEADS.items()}
    train_classifier(crops, targets, HEADS, tmp_path / "r", epochs=3, width=4, progress=False)
    assert saved == [1, 2, 3]  # epochs done at each save; the last is the finished reader


def test_face_stage_takes_block_widths(tmp_path, capsys):
    crops = _crop_set(tmp_path / "c.npz", 24, 3)
    main(
        [
            "face",
            "--crops",
            str(crops),
            "--out",
            str(tmp_path / "f"),
            "--epochs",
            "1",
            "--widths",
            "8",
            "16",
            "24",
            "40",
        ]
    )
    _, meta = load_classifier(tmp_path / "f" / "face.pt")
    assert meta["widths"] == [8, 16, 24, 40] and meta["stem"] == 16 and meta["input"] == 16
