"""The shipped models read committed fixtures: rendered held-out tables (dragon-dice) and real
photographs held out of training (d6).  Run time uses ONNX only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.vision.detections import box_iou
from companion.vision.evaluation import evaluate
from companion.vision.reader import load_model, read_image

FIXTURES = Path(__file__).parent / "fixtures"
# Regression guards set just under what the shipped models measured on these fixtures (see the model
# cards).  The targets (recall 0.995, face accuracy 0.99) are measured on the 200-scene held-out
# set, where the shipped dragon-dice model reaches recall 0.9964 and face accuracy 0.9907.  On these 8
# tables (53 dice) the session-8 die finder misses one die (a dark d6 pressed against a cocked die: its
# box holds only the top face, IoU 0.45) and keeps one faint box on a bare checker square, so it
# measures recall 0.981, face accuracy 0.981, mAP50 0.994 and 2 false boxes (that face-only box and the
# square) -- exactly at the guards below, which were set for the session-5 finder (1.0, 1.0, 0.995
# and none) and are kept: one die more going wrong fails the test.
DD_MIN_RECALL = 0.98
DD_MIN_KIND_ACCURACY = 0.97  # of the dice lying flat (held-out: 0.9985)
DD_MIN_FACE_ACCURACY = 0.98  # best reading of every die, committed or not
DD_MIN_COMMITTED_ACCURACY = 0.975  # readings given as sure (the rest are flagged unreadable)
DD_MIN_MAP50 = 0.97  # die kinds
DD_MAX_FALSE_BOXES = 0.25  # per image, after the face reader's veto
D6_MIN_MAP50 = 0.93
D6_MIN_FACE_ACCURACY = 0.92
D6_MIN_RECALL = 0.95


def _manifest():
    return [json.loads(line) for line in (FIXTURES / "dd" / "manifest.jsonl").read_text().splitlines()]


def test_dragon_dice_model_reads_rendered_fixture_tables():
    model = load_model("dragon-dice")
    total = found = right = kind_right = flat_found = cocked_found = cocked_flagged = read = read_right = 0
    for rec in _manifest():
        image = read_image(FIXTURES / "dd" / rec["image"])
        det = model.detect(image)
        readings = model.readings(image, det)
        boxes = np.array([r.box for r in readings]).reshape(-1, 4)
        for die in rec["dice"]:
            total += 1
            if not len(boxes):
                continue
            iou = box_iou(np.array([die["box"]]), boxes)[0]
            j = int(iou.argmax())
            if iou[j] < 0.5:
                continue
            found += 1
            r = readings[j]
            if die["cocked"]:  # flagged, not read; its kind is a guess from its side (held-out: 0.89 right)
                cocked_found += 1
                cocked_flagged += r.cocked
            else:
                flat_found += 1
                kind_right += r.kind == die["kind"]
            best = model.heads["icon"][det.face_id[j]], int(model.heads["count"][det.count[j]])
            right += r.cocked if die["cocked"] else (not r.cocked and best == (die["icon"], die["count"]))
            if not (r.unreadable or r.cocked):  # dice the reader commits to
                read += 1
                read_right += (not die["cocked"]) and (r.icon, r.count) == (die["icon"], die["count"])
    assert total == 53
    assert found / total >= DD_MIN_RECALL
    assert right / total >= DD_MIN_FACE_ACCURACY
    assert read and read_right / read >= DD_MIN_COMMITTED_ACCURACY
    assert kind_right / flat_found >= DD_MIN_KIND_ACCURACY
    assert cocked_found == 3 and cocked_flagged == cocked_found  # every cocked die is flagged, none is read


def test_dragon_dice_eval_on_the_fixtures_scores_kinds_and_faces():
    result = evaluate(load_model("dragon-dice"), FIXTURES / "dd", progress=False)
    assert result["images"] == 8 and result["instances"] == 53
    assert result["map50"] >= DD_MIN_MAP50 and result["map50_95"] <= result["map50"]
    assert result["recall"] >= DD_MIN_RECALL and result["face_accuracy"] >= DD_MIN_FACE_ACCURACY
    assert result["false_boxes_per_image"] <= DD_MAX_FALSE_BOXES


def test_d6_model_reads_held_out_real_photos():
    result = evaluate(load_model("d6"), FIXTURES / "d6", progress=False)
    assert result["images"] == 12 and result["instances"] == 42
    assert result["map50"] >= D6_MIN_MAP50 and result["recall"] >= D6_MIN_RECALL
    assert result["face_accuracy"] >= D6_MIN_FACE_ACCURACY


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "companion", *args], capture_output=True, text=True, timeout=300
    )


def test_cli_read_prints_one_record_per_die():
    image = FIXTURES / "dd" / _manifest()[0]["image"]
    out = _cli("vision", "read", str(image), "--json")
    assert out.returncode == 0, out.stderr
    records = json.loads(out.stdout)
    assert len(records) == len(load_model("dragon-dice").readings(read_image(image)))
    for r in records:
        assert {"box", "kind", "size_class", "colour", "icon", "count", "confidence", "cocked"} <= set(r)


def test_cli_eval_json_on_the_d6_fixtures(tmp_path):
    png = tmp_path / "cm.png"
    out = _cli(
        "vision", "eval", "--model", "d6", "--data", str(FIXTURES / "d6"), "--json", "--confusion", str(png)
    )
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["images"] == 12 and 0 <= result["map50_95"] <= result["map50"] <= 1
    assert png.stat().st_size > 1000


def test_cli_refuses_a_corrupt_image_with_a_clear_message(tmp_path):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8 not really a jpeg")
    out = _cli("vision", "read", str(bad), "--json")
    assert out.returncode == 2
    assert "broken.jpg" in out.stderr and "not a readable image" in out.stderr


def test_cli_read_refuses_a_bad_scale_a_roster_for_standard_dice_and_a_roster_of_numbers(tmp_path, capsys):
    """--px-per-mm must be a number above 0; --roster applies to Dragon Dice models only; a roster file
    that is not a list of names is named in the message (exit 2 each)."""
    from companion.cli import main

    image = str(FIXTURES / "dd" / _manifest()[0]["image"])
    for scale in ("-1", "0", "nan"):
        with pytest.raises(SystemExit) as done:
            main(["vision", "read", image, f"--px-per-mm={scale}"])
        assert done.value.code == 2
        assert f"--px-per-mm: must be a number above 0, not '{scale}'" in capsys.readouterr().err
    roster = tmp_path / "roster.json"
    roster.write_text("[1, 2]")
    assert main(["vision", "read", image, "--model", "polyhedral", "--roster", str(roster)]) == 2
    assert "--roster applies to Dragon Dice models only" in capsys.readouterr().err
    assert main(["vision", "read", image, "--roster", str(roster)]) == 2
    assert f"roster {roster}: a roster is a list of die names" in capsys.readouterr().err


def test_cli_eval_refuses_a_limit_below_1(capsys):
    from companion.cli import main

    for limit in ("-1", "0"):
        with pytest.raises(SystemExit) as done:
            main(["vision", "eval", "--data", str(FIXTURES / "dd"), "--limit", limit])
        assert done.value.code == 2
        assert f"--limit: must be a whole number of 1 or more, not '{limit}'" in capsys.readouterr().err


def test_eval_refuses_a_dataset_of_other_classes():
    out = _cli("vision", "eval", "--model", "d6", "--data", str(FIXTURES / "dd"), "--json")
    assert out.returncode == 2 and "do not match" in out.stderr


@pytest.mark.parametrize("name", ["dragon-dice", "d6"])
def test_shipped_files_stay_small(repo_root, name):
    for f in (repo_root / "models" / name).iterdir():
        assert f.stat().st_size < 15 * 1024 * 1024, f


def test_dragon_dice_model_tells_apart_the_icons_drawn_on_hollow_glyphs(catalogue):
    """The 22 icon kinds drawn on a ring or moon glyph (Firewalking, Kick, Stun, Element Death...):
    8 of the ring glyphs were once one picture, read only by guessing.  One die of each, lying flat on
    held-out tables it never trained on, must be read by its mark."""
    from companion.vision.synth import SceneSampler, render_scene
    from companion.vision.synth.glyphs import HOLLOW_SHAPES, glyph_code
    from companion.vision.synth.scene import die_spec

    sampler = SceneSampler(catalogue)
    vocab = list(sampler.vocabulary)
    icons = [i for i in vocab if glyph_code(i, vocab)[0] in HOLLOW_SHAPES]
    assert len(icons) == 22
    specs = [die_spec(sampler.dice[d], f) for d, f in (sampler.by_icon[i][0] for i in icons)]
    model = load_model("dragon-dice")
    right = found = 0
    for k in range(0, len(specs), 4):  # four dice a table
        scene = render_scene(
            np.random.default_rng([4242, k]),
            specs[k : k + 4],
            sampler.vocabulary,
            size=1280,
            profile="heldout",
            clutter=False,
        )
        det = model.detect(scene.image)
        for drawn in scene.dice:
            iou = box_iou(np.array([drawn.box]), det.xyxy)[0] if len(det) else np.zeros(1)
            j = int(iou.argmax())
            if iou[j] < 0.5:
                continue
            found += 1
            read = model.heads["icon"][det.face_id[j]], int(model.heads["count"][det.count[j]])
            right += read == (drawn.spec.icon, drawn.spec.count)
    assert found >= 21
    assert right >= 20, f"{right} of 22 hollow-glyph faces read right"
