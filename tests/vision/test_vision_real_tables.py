"""Real-table frames as a one-class detection set: labels match the renderer's boxes, the art comes
from the families asked for, and the same arguments write the same set."""

from __future__ import annotations

import json

import numpy as np
import pytest

from companion.vision.reader import read_image
from companion.vision.synth import art
from companion.vision.synth.real_tables import table_dice, write_real_tables
from companion.vision.yolo_dataset import dataset_images, load_data_yaml, read_labels


def test_a_table_draws_its_art_from_the_families_given():
    from companion.rules.catalogue import load_catalogue

    cat = load_catalogue()
    for seed in range(20):
        fams, dice = table_dice(np.random.default_rng(seed), cat, art.CALIBRATION_FAMILIES)
        assert 1 <= len(fams) <= 3 and set(fams.values()) <= set(art.CALIBRATION_FAMILIES)
        assert 3 <= len(dice) <= 12
        for name, face, cocked in dice:
            die = cat.get(name)
            assert die.species in fams and 0 <= face < len(die.faces) and isinstance(cocked, bool)


@pytest.mark.slow
def test_written_labels_are_the_renderers_boxes_and_the_set_is_reproducible(tmp_path):
    yml = write_real_tables(
        tmp_path / "a", art.TRAIN_FAMILIES, 2, seed=3, width=320, height=240, progress=False
    )
    assert load_data_yaml(yml.parent)["names"] == ["die"]
    images = dataset_images(yml.parent, "train")
    assert [p.name for p in images] == ["table_00000.jpg", "table_00001.jpg"]
    records = [json.loads(line) for line in (tmp_path / "a" / "manifest.jsonl").read_text().splitlines()]
    for img, rec in zip(images, records, strict=True):
        classes, boxes = read_labels(img.parent.parent / "labels" / f"{img.stem}.txt")
        assert len(boxes) == len(rec["dice"]) > 0 and set(classes.tolist()) == {0}
        for (cx, cy, w, h), die in zip(boxes, rec["dice"], strict=True):
            x1, y1, x2, y2 = die["box"]
            assert (cx * 320, cy * 240, w * 320, h * 240) == pytest.approx(
                ((x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1), abs=0.01
            )
    write_real_tables(tmp_path / "b", art.TRAIN_FAMILIES, 2, seed=3, width=320, height=240, progress=False)
    assert (tmp_path / "a" / "manifest.jsonl").read_text() == (tmp_path / "b" / "manifest.jsonl").read_text()


def test_bad_arguments_are_refused(tmp_path):
    with pytest.raises(ValueError, match="frames"):
        write_real_tables(tmp_path / "x", art.TRAIN_FAMILIES, 0)
    with pytest.raises(ValueError, match="family"):
        write_real_tables(tmp_path / "y", (), 1)
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_a_wood_table_that_is_not_square_keeps_the_frames_size():
    from companion.vision.synth.scene import draw_surface

    # half the wood tables turn their grain; a 1280 x 960 frame came out 960 x 1280 (and its labels,
    # normalised by the size asked for, were wrong)
    shapes = {draw_surface(np.random.default_rng(seed), 96, 128, "wood").shape for seed in range(24)}
    assert shapes == {(96, 128, 3)}


def test_clutter_lays_cards_under_the_dice_of_the_share_of_frames_asked_for(tmp_path, monkeypatch):
    from companion.vision.synth import real_dice

    dice = [("Goblins/Cutthroat", 1), ("Goblins/Ambusher", 2)]
    fams = {"Goblins": art.TRAIN_FAMILIES[0]}
    plain, labels = real_dice.render_table(fams, dice, np.random.default_rng(5), 320, 240)
    again, labels_again = real_dice.render_table(
        fams, dice, np.random.default_rng(5), 320, 240, clutter=False
    )
    assert np.array_equal(plain, again) and labels == labels_again
    calls = []
    real = real_dice.draw_clutter

    def recorded(rng, canvas, keep_out, scale):
        calls.append((canvas.shape, scale))
        before = canvas.copy()
        real(rng, canvas, keep_out, scale)
        calls[-1] += (not np.array_equal(before, canvas),)

    monkeypatch.setattr(real_dice, "draw_clutter", recorded)
    for seed in range(6):
        frame, boxes = real_dice.render_table(fams, dice, np.random.default_rng(seed), 320, 240, clutter=True)
        assert frame.shape == (240, 320, 3) and len(boxes) == 2
    # on the canvas of the frame, before any die, at the frame's scale; most tables get a card (0-2 each)
    assert [c[:2] for c in calls] == [((240, 320, 3), 0.5)] * 6 and sum(c[2] for c in calls) >= 3
    calls.clear()
    write_real_tables(tmp_path / "none", art.TRAIN_FAMILIES, 3, seed=3, width=160, height=120, progress=False)
    assert calls == []
    write_real_tables(
        tmp_path / "all", art.TRAIN_FAMILIES, 3, seed=3, width=160, height=120, progress=False, clutter=1.0
    )
    assert len(calls) == 3
    with pytest.raises(ValueError, match="clutter"):
        write_real_tables(tmp_path / "z", art.TRAIN_FAMILIES, 1, clutter=1.5)
    assert not (tmp_path / "z").exists()


def test_touching_dice_never_pass_through_each_other():
    # a die pushed against its neighbour meets it on a side drawn at random: in a row of touching dice
    # it could land on a die before that neighbour (seeds 47, 63 and 83 drew two dice one over the other,
    # their boxes at IoU 0.73-0.77); now such a die keeps its own place
    from companion.rules.catalogue import load_catalogue
    from companion.vision.detections import box_iou
    from companion.vision.synth.real_dice import render_table

    cat = load_catalogue()
    touching = 0
    for seed in (*range(40, 50), 63, 83):
        rng = np.random.default_rng(seed)
        fams, dice = table_dice(rng, cat, art.TRAIN_FAMILIES)
        _, labels = render_table(fams, dice, rng, 320, 240)
        boxes = np.array([lab["box"] for lab in labels])
        iou = box_iou(boxes, boxes)
        np.fill_diagonal(iou, 0)
        assert iou.max() < 0.5, (seed, iou.max())
        touching += int(iou.max() > 0)  # dice still touch (their boxes meet)
    assert touching >= 6


def test_the_manifest_names_each_tables_art_families(tmp_path):
    from companion.rules.catalogue import load_catalogue

    write_real_tables(
        tmp_path / "a", art.CALIBRATION_FAMILIES, 2, seed=6, width=320, height=240, progress=False
    )
    cat = load_catalogue()
    for line in (tmp_path / "a" / "manifest.jsonl").read_text().splitlines():
        rec = json.loads(line)
        assert set(rec["families"].values()) <= set(art.CALIBRATION_FAMILIES)
        for d in rec["dice"]:  # every die's species (or group) has its family named
            die = cat.get(d["die"])
            assert (die.species or die.name.split("/", 1)[0]) in rec["families"]


@pytest.mark.slow
def test_whole_frames_are_scored_unit_by_unit_through_the_camera_path(tmp_path):
    from companion.rules.catalogue import load_catalogue
    from companion.vision.dd_frames import (
        KEYS,
        WRONG_KEYS,
        enrolled_bundle,
        frame_figures,
        identity_sweep,
        tap_figures,
    )

    write_real_tables(tmp_path / "f", art.CALIBRATION_FAMILIES, 2, seed=5, progress=False)
    bundle = enrolled_bundle(tmp_path / "b")
    fig = frame_figures(bundle, tmp_path / "f", sightings=1)
    recs = [json.loads(line) for line in (tmp_path / "f" / "manifest.jsonl").read_text().splitlines()]
    cat = load_catalogue()
    assert fig["frames"] == 2 and set(KEYS) <= set(fig)
    assert fig["flat"] + fig["cocked"] == sum(len(r["dice"]) for r in recs)
    assert fig["right"] + fig["wrong"] + fig["unread"] + fig["not_seen"] == fig["flat"]
    assert sum(fig[k] for k in WRONG_KEYS) == fig["wrong"]
    assert fig["right"] > 0  # the profile taught on the table's own art reads some dice
    assert fig["cocked_called"] + fig["cocked_read"] <= fig["cocked"]
    # one record a unit, and the gate's replay with no gate gives the figures back
    assert len(fig["records"]) == fig["flat"] + fig["cocked"]
    assert sum(r["outcome"] == "right" for r in fig["records"]) == fig["right"]
    assert all(r["identity"] is not None for r in fig["records"] if r["outcome"] in ("right", "wrong"))
    again = identity_sweep(fig["records"], [0.0])[0]
    assert [again[k] for k in ("right", "wrong", "unread", "not_seen")] == [
        fig[k] for k in ("right", "wrong", "unread", "not_seen")
    ]
    # the marks of the unread units are counted among them; the finder's boxes of flat six-sided dice kept
    assert fig["offered_first"] <= fig["offered_two"] <= fig["unread"]
    assert len(fig["sizes"]) == 2
    flat_d6 = sum(not d.get("cocked") and len(cat.get(d["die"]).faces) == 6 for r in recs for d in r["dice"])
    assert 0 < sum(len(f) for f in fig["sizes"]) <= flat_d6
    # the simulated player's taps on the same frames: every unit left unread is read or tapped in the end
    taps = tap_figures(bundle, tmp_path / "f", sightings=1)
    assert taps["frames"] == 2 and taps["flat"] == fig["flat"]
    assert (taps["taps_without"], taps["wrong_without"]) == (fig["unread"] + fig["not_seen"], fig["wrong"])
    assert taps["read_by_taps_wrong"] <= taps["read_by_taps"] <= taps["taps_without"]
    # a unit read keeps its face (as the Roll panel does): every unit left unread is tapped or read after
    assert taps["read_by_taps"] + taps["taps_with"] == taps["taps_without"]
    assert 0 < taps["taps_with"] <= taps["flat"]


def test_the_simulated_player_taps_what_the_die_under_the_box_shows():
    from companion.vision.dd_frames import _tapped_face, unit_outcomes

    names = ["Dwarves/Patroller", "Dwarves/Patroller", "Dwarves/Lizard Rider", "Dwarves/Lizard Rider"]
    truth = ["3 Melee", "2 Save", "2 Melee", None]  # the last die is cocked: never tapped, never scored
    units = [
        {"detection": 0, "face": "2 Save"},  # one of its type's faces (as a multiset): right
        {"detection": 1, "face": "2 Save"},  # its type shows "2 Save" once, taken already: wrong
        {"detection": 2, "face": None, "unreadable": True},
        {"detection": None, "face": None},
    ]
    assert unit_outcomes(units, names, truth, {}) == {0: "right", 1: "wrong", 2: "unread"}
    # a tap takes its face out of the multiset: the unit that read it is now wrong
    assert unit_outcomes(units, names, truth, {2: "2 Melee", 1: "2 Save"}) == {0: "wrong"}
    under = [1, 0, 2]  # detection -> the manifest die under its box
    assert _tapped_face(units[2], 2, names, truth, {}, under) == "2 Melee"
    # the box covers a die of another type: a face its own type still shows, the first in text order
    assert _tapped_face({"detection": 2}, 0, names, truth, {}, under) == "2 Save"
    assert _tapped_face(units[0], 0, names, truth, {}, under) == "2 Save"  # under detection 0: die 1
    assert _tapped_face(units[0], 0, names, truth, {1: "2 Save"}, under) == "3 Melee"


def test_dice_read_together_are_scored_by_the_results_they_give(catalogue):
    """``together_verdicts``: a group is scored only where the game would fill it (its ways give the same
    results), right when its best way gives the results the units' own dice show, wrong otherwise."""
    from companion.vision.dd_frames import together_verdicts

    mar, cut = catalogue["Goblins/Marauder"], catalogue["Goblins/Filcher"]

    def k(die, text):
        return next(i for i, f in enumerate(die.faces) if f.text() == text)

    truth = [
        {"die": mar.name, "face_index": k(mar, "3 Melee")},
        {"die": cut.name, "face_index": k(cut, "3 Maneuver")},
    ]

    def units(options):
        group = {"slots": [0, 1], "options": options, "identity": 0.9}
        return [{"slot": j, "together": group} for j in (0, 1)]

    swap = [[k(mar, "3 Save"), k(cut, "3 Melee")], [k(mar, "3 Melee"), k(cut, "3 Save")]]
    # both ways give 3 melee and 3 saves; the dice show 3 melee and 3 maneuvers: the results read are wrong
    assert together_verdicts(units(swap), truth, catalogue) == {0: "wrong", 1: "wrong"}
    truth[1]["face_index"] = k(cut, "3 Save")
    assert together_verdicts(units(swap), truth, catalogue) == {0: "right", 1: "right"}
    # the ways differ in results (4 melee against 3 saves): the game would leave them for taps
    apart = [[k(mar, "4 Melee"), k(cut, "3 Save")], [k(mar, "3 Save"), k(cut, "3 Save")]]
    assert together_verdicts(units(apart), truth, catalogue) == {}
    truth[0]["cocked"] = True  # a cocked die was never a face: the group read it wrong
    assert together_verdicts(units(swap), truth, catalogue) == {0: "wrong", 1: "wrong"}


@pytest.mark.slow
def test_frames_of_another_width_are_read_with_the_faces_taught_at_their_scale(tmp_path, monkeypatch, capsys):
    """``bench/enroll_frames.py --width``: frames that wide (4:3), in their own folder, the faces taught
    drawn at the frames' scale (a phone's photo: stop 46 of models/face-embed/CHANGELOG.md)."""
    from profile_support import bench_module

    import companion.vision.synth.real_dice as real_dice

    drawn = []
    render = real_dice.render_die_crop

    def spy(*args, **kw):
        drawn.append(kw.get("resolution", 1.0))
        return render(*args, **kw)

    import companion.vision.synth.real_tables as real_tables

    written = []
    write = real_tables.write_real_tables

    def in_process(*args, **kw):  # no forked workers in a test process that holds ONNX sessions
        written.append((kw["width"], kw["height"]))
        return write(*args, **{**kw, "workers": 0, "progress": False})

    monkeypatch.setattr(real_tables, "write_real_tables", in_process)
    bench = bench_module("enroll_frames")
    bench._data(str(tmp_path), "calibration", 1, 5, 640)  # the frames, rendered first
    assert written == [(640, 480)]
    monkeypatch.setattr(real_dice, "render_die_crop", spy)  # then the faces taught before reading them
    argv = ["--families", "calibration", "--frames", "1", "--seed", "5", "--sightings", "1"]
    argv += ["--data-root", str(tmp_path), "--width", "640", "--json", str(tmp_path / "f.json")]
    assert bench.main(argv) == 0
    data = tmp_path / "calibration-1-5-w640"
    rec = json.loads((data / "manifest.jsonl").read_text().splitlines()[0])
    assert read_image(data / rec["image"]).shape[:2] == (480, 640)
    # the bundle's one seed render (replaced before each frame), then every face taught at half a 1280 px
    # frame's scale
    assert drawn[0] == 1.0 and len(drawn) > 1 and set(drawn[1:]) == {0.5}
    out = json.loads((tmp_path / "f.json").read_text())
    assert out["width"] == 640 and out["frames"] == 1
    assert "frames 640 px wide" in capsys.readouterr().out
    # the tap counts read frames of the renderer's own width (a fail here: the width reached them)
    taps = ["--families", "calibration", "--frames", "1", "--seed", "5", "--sightings", "1", "--taps"]
    assert bench.main([*taps, "--data-root", str(tmp_path), "--json", str(tmp_path / "t.json")]) == 0
    assert json.loads((tmp_path / "t.json").read_text())["width"] == 1280
    assert written == [(640, 480), (1280, 960)]
    # bad widths, and a width with the choices made on 1280 px frames, are refused by name
    for extra, named in (
        (["--width", "100"], "--width 100 is outside"),
        (["--width", "640", "--taps"], "--width reads frames only"),
    ):
        with pytest.raises(SystemExit):
            bench.main(["--data-root", str(tmp_path), *extra])
        assert named in capsys.readouterr().err
