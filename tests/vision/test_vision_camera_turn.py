"""Turning frames so that the table's far side is at the top, and the reader's check of the turn."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from companion.vision.camera_turn import (
    MIN_DICE,
    TURNS,
    SourceTurn,
    TurnCheck,
    TurnError,
    is_turn,
    parse_turn,
    turn_crops,
    turn_image,
    unturn_boxes,
)
from companion.vision.crops import CROP_MARGIN
from companion.vision.synth.standard_styles import read_mosaic

D20_MOSAIC = Path(__file__).parent / "fixtures" / "standard_d20"
#: Twelve of the mosaic's 80 tiles (every sixth): the set size at which the check names a turned camera
#: in 99 % of the calibration styles' sets (``bench/camera_turn.py``).
ROLL_OF_12 = {"every": 6, "count": 12}


@pytest.mark.parametrize("text", ["0", "90", " 180 ", "270°", 270])
def test_the_four_turns_parse(text):
    assert parse_turn(text) in TURNS and is_turn(text)


@pytest.mark.parametrize("text", ["45", "-90", "360", "ninety", "", "1.5"])
def test_other_turns_are_refused_naming_the_value(text):
    with pytest.raises(TurnError, match="turn must be 0, 90, 180 or 270"):
        parse_turn(text)
    assert not is_turn(text)


def test_a_clockwise_turn_moves_the_top_left_corner_to_the_top_right():
    image = np.zeros((40, 60, 3), np.uint8)
    image[0, 0] = 255
    turned = turn_image(image, 90)
    assert turned.shape == (60, 40, 3) and turned.flags["C_CONTIGUOUS"]
    assert turned[0, -1, 0] == 255
    assert turn_image(image, 0) is image
    assert np.array_equal(turn_image(turn_image(image, 90), 270), image)
    assert np.array_equal(turn_image(image, 180)[-1, -1], image[0, 0])


@pytest.mark.parametrize("turn", TURNS)
def test_boxes_found_in_a_turned_frame_map_back_to_the_frame_sent(turn):
    image = np.zeros((48, 80, 3), np.uint8)
    box = (10, 5, 31, 20)  # x1 y1 x2 y2, pixel edges
    image[box[1] : box[3], box[0] : box[2]] = 255
    turned = turn_image(image, turn)
    ys, xs = np.nonzero(turned[:, :, 0])
    found = [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
    assert np.allclose(unturn_boxes([found], turn, turned.shape)[0], box)


def test_crops_turn_as_their_frame_does():
    rng = np.random.default_rng(0)
    crops = rng.integers(0, 255, (3, 8, 8, 3), dtype=np.uint8)
    for turn in TURNS:
        expect = np.stack([turn_image(c, turn) for c in crops])
        assert np.array_equal(turn_crops(crops, turn), expect)


def test_the_check_waits_for_enough_dice_and_names_the_surest_turn():
    check = TurnCheck()
    row = [0.2, 0.9, 0.3, 0.1]  # these dice read surest turned a further 90 degrees clockwise
    check.add([row] * (MIN_DICE - 1))
    assert check.needed() is None and check.advice() is None
    check.add([row])
    assert check.needed() == 90
    advice = check.advice(current=270)
    assert "turned 90 degrees clockwise more" in advice and "--turn 0" in advice
    assert check.to_dict()["needed"] == 90 and check.to_dict()["dice"] == MIN_DICE
    right = TurnCheck()
    right.add([[0.9, 0.2, 0.2, 0.2]] * 8)
    assert right.needed() == 0 and right.advice() is None
    with pytest.raises(ValueError, match="finite"):
        right.add([[np.nan, 0, 0, 0]])
    assert right.dice == 8  # a refused row changes nothing


def _mosaic_frame(n: int = 12):
    """The fixture's d20 crops (a held-out style) laid in a row as one frame, with each die's box."""
    tiles, labels = read_mosaic(D20_MOSAIC)
    tiles = tiles[:: max(1, len(tiles) // n)][:n]
    size = tiles.shape[1]
    frame = np.concatenate(list(tiles), axis=1)
    side = size / CROP_MARGIN  # crop_die cuts side x margin around a box: exactly the tile again
    boxes = [
        [i * size + (size - side) / 2, (size - side) / 2, i * size + (size + side) / 2, (size + side) / 2]
        for i in range(len(tiles))
    ]
    return np.ascontiguousarray(frame), np.array(boxes)


@pytest.mark.parametrize("turn", TURNS)
def test_the_reader_finds_the_turn_a_frame_of_d20s_needs(turn):
    from companion.vision.numerals import load_numeral_model

    model = load_numeral_model("polyhedral-oblique")
    frame, boxes = _mosaic_frame()
    sent = turn_image(frame, turn)  # a camera turned `turn` degrees: its frames come turned
    seen = unturn_boxes(boxes, (360 - turn) % 360, frame.shape)  # where the dice lie in the frame sent
    check = TurnCheck()
    check.add(model.turn_confidences(sent, seen))
    assert check.dice == len(boxes)
    assert check.needed() == (360 - turn) % 360  # the turn that undoes the camera's
    if turn:
        assert f"--turn {(360 - turn) % 360}" in check.advice(0)


def test_a_source_turn_turns_its_frames_and_reports_its_check():
    source = SourceTurn("90")
    frame = np.zeros((10, 20, 3), np.uint8)
    assert source.frame(frame).shape == (20, 10, 3)
    status = source.status()
    assert status["turn"] == 90 and status["turn_check"]["needed"] is None and "turn_advice" not in status
    source.check.add([[0.1, 0.1, 0.1, 0.9]] * MIN_DICE)
    assert "--turn 0" in source.status()["turn_advice"]
    with pytest.raises(TurnError):
        SourceTurn(45)


@pytest.fixture(scope="module")
def oblique_frame(tmp_path_factory) -> Path:
    """A roll of twelve d20s of the fixture's held-out style (seen from 30-60 degrees, far side at the
    top), laid on a plain table at twice their size, as a PNG: more than the check's ``MIN_DICE``."""
    import cv2

    from companion.vision.synth.standard_styles import mosaic_table

    canvas = mosaic_table(D20_MOSAIC, **ROLL_OF_12)
    path = tmp_path_factory.mktemp("turn") / "table.png"
    cv2.imwrite(str(path), canvas)
    return path


def test_read_warns_when_the_picture_is_turned_and_turn_puts_it_right(oblique_frame, tmp_path, capsys):
    import cv2

    from companion.cli import main

    sideways = tmp_path / "sideways.png"
    cv2.imwrite(str(sideways), turn_image(cv2.imread(str(oblique_frame)), 90))
    assert main(["vision", "read", str(oblique_frame), "--model", "polyhedral-oblique", "--json"]) == 0
    upright = capsys.readouterr()
    assert "warning" not in upright.err
    assert main(["vision", "read", str(sideways), "--model", "polyhedral-oblique", "--json"]) == 0
    turned = capsys.readouterr()
    assert "warning: the dice read best with the picture turned 270 degrees" in turned.err
    assert "--turn 270" in turned.err and "every die is left unreadable" in turned.err
    assert all(d["unreadable"] and d["value"] is None for d in json.loads(turned.out))  # never a guess
    assert (
        main(["vision", "read", str(sideways), "--model", "polyhedral-oblique", "--json", "--turn", "270"])
        == 0
    )
    fixed = capsys.readouterr()
    assert "warning" not in fixed.err and fixed.out == upright.out  # the same dice read the same way


@pytest.mark.parametrize(
    "command", [["vision", "read", "x.png"], ["vision", "capture", "--out", "x"], ["watch"], ["serve"]]
)
def test_a_turn_other_than_a_quarter_is_refused_by_every_command(command, capsys):
    from companion.cli import main

    with pytest.raises(SystemExit) as exc:
        main([*command, "--turn", "45"])
    assert exc.value.code == 2
    assert "turn must be 0, 90, 180 or 270" in capsys.readouterr().err


def test_watch_says_the_frames_are_turned_and_reads_nothing_until_turned(oblique_frame, tmp_path, capsys):
    import cv2

    from companion.cli import main

    table = turn_image(cv2.imread(str(oblique_frame)), 90)  # a camera looking from the table's side
    folder = tmp_path / "roll"
    folder.mkdir()
    rng = np.random.default_rng(0)
    for k in range(12):  # the dice tumble (noise), then lie still
        still = k >= 4
        frame = table if still else rng.integers(0, 255, table.shape, dtype=np.uint8)
        cv2.imwrite(str(folder / f"f{k:02d}.png"), frame)
    argv = ["watch", "--source", str(folder), "--standard-model", "polyhedral-oblique", "--max-events", "1"]
    assert main(argv) == 0
    out = capsys.readouterr()
    event = json.loads(out.out.strip().splitlines()[-1])
    assert event["camera_turn"]["needed"] == 270 and "--turn 270" in event["camera_turn"]["problem"]
    assert event["dice"] and all(d["unreadable"] for d in event["dice"])
    assert "warning" in out.err
    assert main([*argv, "--turn", "270"]) == 0
    fixed = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert "camera_turn" not in fixed and fixed["dice"]


@pytest.fixture(scope="module")
def dragon_dice_table():
    """A rendered table of Dragon Dice wearing a held-out art family, far side at the top, and the boxes."""
    from companion.vision.synth import art
    from companion.vision.synth.real_dice import render_table

    dice = [
        ("Coral Elves/Protector", 0),
        ("Coral Elves/Protector", 3),
        ("Coral Elves/Herald", 1),
        ("Coral Elves/Herald", 4),
        ("Coral Elves/Sharpshooter", 2),
        ("Coral Elves/Sharpshooter", 5),
        ("Coral Elves/Eagle Knight", 2),
        ("Coral Elves/Enchanter", 1),
    ]
    family = art.FRESH_TEST_FAMILIES[0]
    frame, labels = render_table({"Coral Elves": family}, dice, np.random.default_rng(3))
    return frame, np.array([lab["box"] for lab in labels], float)


@pytest.mark.parametrize("turn", TURNS)
def test_the_turn_up_network_finds_the_turn_a_frame_of_dragon_dice_needs(dragon_dice_table, turn):
    from companion.vision.camera_turn import up_reader

    frame, boxes = dragon_dice_table
    sent = turn_image(frame, turn)
    seen = unturn_boxes(boxes, (360 - turn) % 360, frame.shape)
    check = TurnCheck()
    check.add(up_reader().turn_confidences(sent, seen))
    assert check.dice == len(boxes) and check.needed() == (360 - turn) % 360


def test_the_turn_up_training_path_exports_a_network_the_check_loads(tmp_path):
    pytest.importorskip("torch")
    from companion.vision.camera_turn import UpReader
    from companion.vision.train.up_training import load_crops, train

    tiles, _ = read_mosaic(D20_MOSAIC)
    np.savez(
        tmp_path / "tables.npz",
        **{"0_queries": tiles[:40], "0_enrol": tiles[40:].reshape(2, 20, *tiles.shape[1:])},
    )
    crops = load_crops([tmp_path / "tables.npz"])
    assert crops.shape == (80, 64, 64, 3)
    lines: list[str] = []
    train(crops, tmp_path / "up", steps=6, batch_size=16, threads=1, log=lines.append)
    assert any("step 6/6" in m for m in lines)
    reader = UpReader(tmp_path / "up")
    seen = reader.seen_turn(tiles[:5])
    assert seen.shape == (5, 4) and np.allclose(seen.sum(1), 1.0)
    frame, boxes = _mosaic_frame(4)
    rows = reader.turn_confidences(frame, boxes)
    assert rows.shape == (4, 4) and ((rows >= 0) & (rows <= 1)).all()


def test_a_bundle_that_is_not_a_turn_up_network_is_refused():
    from companion.vision.camera_turn import UpReader
    from companion.vision.onnx_session import ModelError

    with pytest.raises(ModelError, match="not a turn-up network"):
        UpReader("d6")


def test_read_and_watch_check_the_turn_of_dragon_dice_frames(dragon_dice_table, tmp_path, capsys):
    import cv2

    from companion.cli import main

    frame, _ = dragon_dice_table
    upright, flipped = tmp_path / "upright.png", tmp_path / "flipped.png"
    cv2.imwrite(str(upright), frame)
    cv2.imwrite(str(flipped), turn_image(frame, 180))
    assert main(["vision", "read", str(upright), "--json"]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["vision", "read", str(flipped), "--json"]) == 0
    out = capsys.readouterr()
    assert "turned 180 degrees" in out.err and "--turn 180" in out.err and "no face is kept" in out.err
    dice = json.loads(out.out)
    assert dice and all(d["reading"] is None and (d["unreadable"] or d["cocked"]) for d in dice)
    assert main(["vision", "read", str(flipped), "--json", "--turn", "180"]) == 0
    assert "warning" not in capsys.readouterr().err

    folder = tmp_path / "roll"
    folder.mkdir()
    rng = np.random.default_rng(0)
    table = turn_image(frame, 180)
    for k in range(12):
        cv2.imwrite(
            str(folder / f"f{k:02d}.png"), table if k >= 4 else rng.integers(0, 255, table.shape, np.uint8)
        )
    assert main(["watch", "--source", str(folder), "--max-events", "1"]) == 0
    event = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert event["camera_turn"]["needed"] == 180
    assert all(d["reading"] is None for d in event["dice"])


def test_the_check_rests_once_enough_dice_show_the_frames_right_and_wakes_for_a_new_turn():
    """Weighing a standard die reads it four times more: once 4 x MIN_DICE dice showed the frames right, the
    check asks for no more evidence (the callable is not called)."""
    from companion.vision.camera_turn import REST_FACTOR

    check, asked = TurnCheck(), []

    def evidence():
        asked.append(1)
        return [[0.9, 0.1, 0.1, 0.1]] * MIN_DICE

    for _ in range(REST_FACTOR + 3):
        assert check.weigh(evidence) is False
    assert len(asked) == REST_FACTOR and check.resting and check.dice == REST_FACTOR * MIN_DICE
    turned = TurnCheck()  # frames the wrong way round never rest: each frame is weighed and withheld
    assert all(turned.weigh(lambda: [[0.1, 0.9, 0.1, 0.1]] * MIN_DICE) for _ in range(REST_FACTOR + 2))
    assert not turned.resting and turned.dice == (REST_FACTOR + 2) * MIN_DICE
    assert SourceTurn(90).check.resting is False  # a new turn starts a new check


def test_weighing_dragon_dice_asks_the_turn_up_network_only_when_dice_were_found(monkeypatch):
    """``weigh_dragon_dice``: the dice's turn confidences go into the check (and it says once the frames
    are turned); a frame without dice asks the network nothing and says what the check already knew."""
    from companion.vision import camera_turn

    asked: list = []

    class Up:
        def turn_confidences(self, image, boxes):
            asked.append(np.asarray(boxes).shape)
            return np.tile([0.1, 0.1, 0.9, 0.1], (len(boxes), 1))  # every die reads surest turned 180

    monkeypatch.setattr(camera_turn, "up_reader", lambda: Up())
    check, image = TurnCheck(), np.zeros((64, 64, 3), np.uint8)
    assert camera_turn.weigh_dragon_dice(check, image, []) is False and asked == []
    boxes = [[1, 1, 9, 9]] * MIN_DICE
    assert camera_turn.weigh_dragon_dice(check, image, boxes) is True and asked == [(MIN_DICE, 4)]
    assert check.needed() == 180
    assert camera_turn.weigh_dragon_dice(check, image, np.zeros((0, 4))) is True and len(asked) == 1


def test_a_standard_reader_weighs_the_turn_only_when_it_reads_dice_seen_obliquely():
    """``NumeralModel.weigh_turn``: a reader of dice seen from straight above (``reads_upright`` false) reads
    them any way round and adds nothing; an oblique reader adds its dice's turn confidences."""
    from companion.vision.numerals import NumeralModel

    class Reader:
        weigh_turn = NumeralModel.weigh_turn

        def __init__(self, upright):
            self.reads_upright, self.asked = upright, 0

        def turn_confidences(self, image, boxes):
            self.asked += 1
            return np.tile([0.1, 0.9, 0.1, 0.1], (len(boxes), 1))

    image, boxes = np.zeros((64, 64, 3), np.uint8), [[1, 1, 9, 9]] * MIN_DICE
    above, oblique = Reader(False), Reader(True)
    check = TurnCheck()
    assert above.weigh_turn(check, image, boxes) is False and above.asked == 0 and check.dice == 0
    assert oblique.weigh_turn(check, image, []) is False and oblique.asked == 0
    assert oblique.weigh_turn(check, image, boxes) is True and oblique.asked == 1 and check.needed() == 90
