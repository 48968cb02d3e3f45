"""The renderer: deterministic by seed, and its labels match what it drew."""

from __future__ import annotations

import numpy as np
import pytest

from companion.vision.die_kinds import KIND_CLASSES
from companion.vision.roll_frames import render_roll
from companion.vision.synth import SceneSampler, render_scene
from companion.vision.synth.scene import TRAIN_SURFACES

DICE = [("Dwarves/Mammoth Rider", 2), ("Amazons/Javelineer", 0)]


def test_same_seed_gives_identical_image_and_labels(catalogue):
    sampler = SceneSampler(catalogue)
    a = render_scene(
        np.random.default_rng(42), sampler.scene_specs(np.random.default_rng(1)), sampler.vocabulary
    )
    b = render_scene(
        np.random.default_rng(42), sampler.scene_specs(np.random.default_rng(1)), sampler.vocabulary
    )
    assert np.array_equal(a.image, b.image)
    assert [d.box for d in a.dice] == [d.box for d in b.dice]
    c = render_scene(
        np.random.default_rng(43), sampler.scene_specs(np.random.default_rng(1)), sampler.vocabulary
    )
    assert not np.array_equal(a.image, c.image)


def test_heldout_profile_uses_surfaces_and_tilts_training_never_sees(catalogue):
    sampler = SceneSampler(catalogue)
    train = [render_scene(np.random.default_rng(k), [], sampler.vocabulary, size=64).meta for k in range(30)]
    held = [
        render_scene(np.random.default_rng(k), [], sampler.vocabulary, size=64, profile="heldout").meta
        for k in range(30)
    ]
    assert not {m["surface"] for m in train} & {m["surface"] for m in held}
    assert {m["surface"] for m in train} == set(TRAIN_SURFACES)  # every training surface is drawn
    assert all(12 <= m["tilt"] <= 20 for m in held)
    assert not any(12 < m["tilt"] < 20 for m in train)


def _seed_with_dark_table(catalogue) -> int:
    for seed in range(200):
        empty = render_roll([], seed, size=320, clutter=False, photo=False, tilt_deg=0.0, catalogue=catalogue)
        if empty.image.mean() < 90:
            return seed
    raise AssertionError("no dark table among 200 seeds")


LIGHT = {"Ivory", "White", "Earth", "Silver"}


@pytest.mark.parametrize("kind", KIND_CLASSES)
def test_label_box_is_the_bounding_box_of_the_drawn_die(catalogue, kind):
    from companion.vision.die_kinds import die_materials

    seed = _seed_with_dark_table(catalogue)
    die = next(d for d in catalogue if f"d{len(d.faces)}" == kind and set(die_materials(d)) <= LIGHT)
    kw = dict(
        size=320, clutter=False, photo=False, tilt_deg=0.0, catalogue=catalogue, positions=[(150.0, 170.0)]
    )
    empty = render_roll([], seed, **{k: v for k, v in kw.items() if k != "positions"})
    scene = render_roll([(die.name, 0)], seed, **kw)
    assert len(scene.dice) == 1
    drawn = scene.dice[0]
    assert drawn.spec.kind == f"d{len(die.faces)}" and drawn.spec.kind in KIND_CLASSES
    # pixels the die made brighter than the (dark) table: the die itself, not its shadow
    brighter = (scene.image.astype(int) - empty.image.astype(int)).sum(2) > 45
    ys, xs = np.nonzero(brighter)
    x1, y1, x2, y2 = drawn.box
    inside = (xs >= x1 - 1) & (xs <= x2 + 1) & (ys >= y1 - 1) & (ys <= y2 + 1)
    assert inside.mean() > 0.995
    assert abs(xs.min() - x1) <= 4 and abs(xs.max() - x2) <= 4
    assert abs(ys.min() - y1) <= 4 and abs(ys.max() - y2) <= 4


def test_dataset_writer_writes_labels_manifest_and_yaml(tmp_path, catalogue):
    import json

    import yaml

    from companion.vision.synth import write_dataset
    from companion.vision.yolo_dataset import read_labels

    yml = write_dataset(tmp_path / "ds", 3, 5, catalogue, size=160, progress=False)
    meta = yaml.safe_load(yml.read_text())
    assert meta["names"] == list(KIND_CLASSES)
    manifest = [json.loads(line) for line in (tmp_path / "ds" / "manifest.jsonl").read_text().splitlines()]
    assert len(manifest) == 3
    for rec in manifest:
        cls, boxes = read_labels(
            tmp_path / "ds" / rec["image"].replace("images", "labels").replace(".jpg", ".txt")
        )
        assert len(cls) == len(rec["dice"])
        for c, b, d in zip(cls, boxes, rec["dice"], strict=True):
            assert KIND_CLASSES[c] == d["kind"]
            die = catalogue.get(d["die"])
            face = die.faces[d["face_index"]]
            assert (face.name, face.count) == (d["icon"], d["count"])
            x1, y1, x2, y2 = d["box"]
            assert b[0] == pytest.approx((x1 + x2) / 2 / 160, abs=1e-4)


def test_user_glyph_folder_replaces_the_procedural_art(tmp_path, catalogue):
    import cv2

    from companion.vision.synth.glyphs import face_texture

    vocab = tuple(sorted({f.name for d in catalogue for f in d.faces}))
    default = face_texture("Melee", 2, 64, (200, 200, 200), (20, 20, 20), vocab)
    scan = np.zeros((40, 40, 3), np.uint8)
    scan[:, :, 2] = 255  # a pure red square
    (tmp_path / "Dwarves").mkdir()
    cv2.imwrite(str(tmp_path / "Dwarves" / "Melee.png"), scan)
    custom = face_texture("Melee", 2, 64, (200, 200, 200), (20, 20, 20), vocab, "Dwarves", str(tmp_path))
    other_species = face_texture(
        "Melee", 2, 64, (200, 200, 200), (20, 20, 20), vocab, "Goblins", str(tmp_path)
    )
    assert (custom[:, :, 2] > 240).sum() > 300 and (custom[:, :, 0] < 20).sum() > 300
    assert np.array_equal(other_species, default)


def test_every_icon_kind_has_a_glyph_no_other_kind_shares(catalogue):
    """Each icon kind must look different on the die: two kinds drawn as the same picture cannot be
    told apart by any reader (8 of the 11 hollow 'ring' glyphs once were one picture)."""
    from itertools import combinations

    from companion.vision.synth.dataset import face_vocabulary
    from companion.vision.synth.glyphs import glyph_code, procedural_glyph

    vocab = face_vocabulary(catalogue)
    assert len({glyph_code(icon, list(vocab)) for icon in vocab}) == len(vocab)
    size = 36  # the glyph's size on a face texture (72 px texture, half of it for the glyph)
    glyphs = {icon: procedural_glyph(icon, size, vocab).astype(float) / 255 for icon in vocab}
    closest = min((np.abs(glyphs[a] - glyphs[b]).mean(), a, b) for a, b in combinations(vocab, 2))
    assert closest[0] > 0.015, f"{closest[1]!r} and {closest[2]!r} are drawn almost alike"


def test_a_mark_on_a_hollow_shape_is_drawn_inside_it():
    from companion.vision.synth.glyphs import draw_glyph

    bare = draw_glyph(48, "ring", "none")
    for mark in ("dot", "hbar", "vbar", "square", "two_dots", "three_dots"):
        marked = draw_glyph(48, "ring", mark)
        middle = marked[16:32, 16:32]
        assert middle.max() == 255 and bare[16:32, 16:32].max() == 0  # the mark fills the empty middle
        assert np.array_equal(marked[:, :8], bare[:, :8])  # the band itself is untouched at the edge
    moon = draw_glyph(48, "moon", "none")
    for mark in ("dot", "hbar", "vbar", "square", "two_dots", "three_dots"):  # the middle is mostly cut out
        assert np.abs(draw_glyph(48, "moon", mark).astype(int) - moon).mean() > 4, mark


@pytest.mark.parametrize(
    "option, value, message",
    [
        ("--size", "0", "--size: must be a whole number of 32 or more, not '0'"),
        ("--size", "4", "--size: must be a whole number of 32 or more, not '4'"),
        ("--val-fraction", "2", "--val-fraction: must be a share from 0 up to (not including) 1, not '2'"),
        ("--val-fraction", "-0.1", "--val-fraction: must be a share from 0 up to (not including) 1"),
    ],
)
def test_synth_refuses_a_size_too_small_and_a_val_fraction_outside_0_1(
    tmp_path, capsys, option, value, message
):
    from companion.cli import main

    out = tmp_path / "data"
    with pytest.raises(SystemExit) as done:
        main(["vision", "synth", "--out", str(out), "--count", "1", f"{option}={value}"])
    assert done.value.code == 2 and message in capsys.readouterr().err
    assert not out.exists()
