"""Whole oblique frames of standard dice (``real_dice.render_standard_table``, ``real_tables
--standard``) and the finder-and-reader score on them (``numerals.evaluate_frames``)."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from companion.vision.numerals import NumeralModel, evaluate_frames, load_numeral_model
from companion.vision.synth.art import ArtError
from companion.vision.synth.real_dice import POLY_VALUES, render_standard_table
from companion.vision.synth.real_tables import STANDARD_SET, Standard, table_standard_dice, write_real_tables
from companion.vision.synth.standard_styles import CALIBRATION_STYLES, TEST_STYLES

ROLL = [("d4", 4, 200_001), ("d6", 6, 200_001), ("d10", 10, 200_002), ("d20", 17, 200_002, True)]


def test_a_table_of_standard_dice_labels_every_die_with_its_value_as_read():
    img, labels = render_standard_table(ROLL, np.random.default_rng(1), 640, 480)
    assert img.shape == (480, 640, 3) and img.dtype == np.uint8
    assert [(lab["kind"], lab["value"], lab["style"], lab["cocked"]) for lab in labels] == [
        ("d4", 4, 200_001, False),
        ("d6", 6, 200_001, False),
        ("d10", 10, 200_002, False),  # the d10's 10 (printed "0") is labelled as it is read
        ("d20", 17, 200_002, True),
    ]
    for lab in labels:
        x1, y1, x2, y2 = lab["box"]
        assert 0 <= x1 < x2 <= 640 and 0 <= y1 < y2 <= 480
        # a die is drawn in its box: the box differs from the same frame's empty table around it
        inside = img[int(y1) : int(y2), int(x1) : int(x2)].astype(float)
        assert inside.std() > 5
    again, _ = render_standard_table(ROLL, np.random.default_rng(1), 640, 480)
    assert np.array_equal(img, again)


def test_the_box_stands_out_from_the_table_around_it():
    # what is inside a die's box differs from the bare table just around it (the box sits on the die)
    rng_a, rng_b = np.random.default_rng(4), np.random.default_rng(4)
    one = [("d12", 7, 100_003)]
    img, labels = render_standard_table(one, rng_a, 320, 240)
    x1, y1, x2, y2 = labels[0]["box"]
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(float)
    ring = np.ones_like(gray, bool)
    ring[max(0, int(y1) - 6) : int(y2) + 6, max(0, int(x1) - 6) : int(x2) + 6] = False
    body = gray[int(y1) : int(y2), int(x1) : int(x2)]
    assert abs(body.mean() - gray[ring].mean()) > 3 or body.std() > 2 * gray[ring].std()
    assert render_standard_table(one, rng_b, 320, 240)[1] == labels


@pytest.mark.parametrize(
    ("dice", "message"),
    [
        ([("d7", 1, 1)], "unknown standard die kind 'd7'"),
        ([("d10", 0, 1)], "a d10 has no value 0"),
        ([("d6", 7, 1)], "a d6 has no value 7"),
        ([("d20", 21, 1)], "a d20 has no value 21"),
    ],
)
def test_bad_standard_dice_are_refused_naming_them(dice, message):
    with pytest.raises(ArtError, match=message):
        render_standard_table(dice, np.random.default_rng(0), 320, 240)


def test_a_standard_table_holds_the_sets_of_one_or_two_players():
    seen_two = False
    for seed in range(40):
        dice = table_standard_dice(np.random.default_rng(seed), CALIBRATION_STYLES)
        assert 3 <= len(dice) <= 12
        styles = {d[2] for d in dice}
        assert styles <= set(CALIBRATION_STYLES) and 1 <= len(styles) <= 2
        seen_two |= len(styles) == 2
        for kind, value, style, cocked in dice:
            assert 1 <= value <= len(POLY_VALUES[kind]) and isinstance(cocked, bool)
            # no set holds more of a kind than a player's set has
            assert sum(1 for d in dice if d[0] == kind and d[2] == style) <= STANDARD_SET[kind]
    assert seen_two
    with pytest.raises(ValueError, match="no standard-dice style"):
        Standard(())


@pytest.mark.slow
def test_the_finder_and_reader_are_scored_on_written_standard_frames(tmp_path):
    write_real_tables(tmp_path / "f", Standard(TEST_STYLES[:4]), 3, seed=2, progress=False)
    manifest = tmp_path / "f" / "manifest.jsonl"
    recs = [json.loads(line) for line in manifest.read_text().splitlines()]
    assert len(recs) == 3 and all("kind" in d and "value" in d for r in recs for d in r["dice"])
    model = load_numeral_model("polyhedral-oblique")
    out = evaluate_frames(model, tmp_path / "f")
    flat = sum(1 for r in recs for d in r["dice"] if not d["cocked"])
    assert (
        out["images"] == 3
        and out["dice"] == flat
        and out["cocked"] == sum(1 for r in recs for d in r["dice"] if d["cocked"])
    )
    assert out["read_right"] + out["read_wrong"] + out["unreadable"] == out["found"] <= flat
    assert out["recall"] >= 0.8 and out["read_right"] > 0
    # every die read right, labelled with another value, is counted as read wrong
    right_before, wrong_before = out["read_right"], out["read_wrong"]
    for r in recs:
        for d in r["dice"]:
            d["value"] = d["value"] % len(POLY_VALUES[d["kind"]]) + 1
    manifest.write_text("".join(json.dumps(r) + "\n" for r in recs))
    moved = evaluate_frames(model, tmp_path / "f")
    assert moved["read_right"] <= wrong_before
    assert moved["read_wrong"] >= right_before
    assert moved["found"] == out["found"] and moved["false_boxes_per_image"] == out["false_boxes_per_image"]


def _raw(kinds_read, values_read, confs, truth, die_kinds, die_values, die_cocked=None):
    n = len(die_kinds)
    return {
        "frames": 1,
        "ms": [1.0],
        "box": {
            "kind": np.array(kinds_read),
            "value": np.array(values_read),
            "conf": np.array(confs, float),
            "truth": np.array(truth),
        },
        "die": {
            "kind": np.array(die_kinds),
            "value": np.array(die_values),
            "cocked": np.array(die_cocked or [False] * n),
        },
    }


def test_the_gate_rule_takes_the_lowest_gate_that_keeps_the_kind_within_its_bound():
    from companion.vision.reader_gate import ReaderGate
    from companion.vision.standard_frames import choose_gates, figures

    # 200 d6 read as d6: 196 right (confidence 0.9), 4 wrong at confidence 0.3, 0.5, 0.66, 0.8
    n = 200
    confs = [0.9] * 196 + [0.3, 0.5, 0.66, 0.8]
    values = [3] * 196 + [4, 4, 4, 4]
    raw = _raw(["d6"] * n, values, confs, list(range(n)), ["d6"] * n, [3] * n)
    # at most 1 % (2 of 200) wrong: a gate above 0.5 and not above 0.66 -> the grid's 0.55
    assert choose_gates(raw, ReaderGate(0.2, {})) == {"d6": 0.55}
    assert choose_gates(raw, ReaderGate(0.2, {"d6": 0.7})) == {"d6": 0.7}  # the bundle's own is higher
    assert choose_gates(raw, ReaderGate(0.0, {}), max_wrong=0.02, none_first=True) == {"d6": 0.0}
    fig = figures(raw, ReaderGate(0.55, {}))
    assert fig["d6"]["read_right"] == 196 and fig["d6"]["read_wrong"] == 2 and fig["d6"]["unreadable"] == 2
    assert fig["all"]["read_wrong_rate"] == pytest.approx(0.01)


def test_false_boxes_and_cocked_dice_are_counted_apart_from_the_flat_dice():
    from companion.vision.reader_gate import ReaderGate
    from companion.vision.standard_frames import figures

    raw = _raw(
        ["d20", "d20", "d8"],
        [17, 5, 2],
        [0.95, 0.95, 0.95],
        [0, 1, -1],
        ["d20", "d20"],
        [17, 9],
        [False, True],
    )
    fig = figures(raw, ReaderGate(0.9, {}))
    assert fig["d20"]["flat_dice"] == 1 and fig["d20"]["read_right"] == 1 and fig["d20"]["cocked"] == 1
    assert fig["d20"]["cocked_read"] == 1 and fig["all"]["false_boxes_per_frame"] == 1.0
    assert fig["all"]["phantoms_read_per_frame"] == 1.0 and fig["d8"]["flat_dice"] == 0


@pytest.mark.slow
def test_the_replay_at_the_bundles_gates_is_what_the_bundle_reads(tmp_path):
    from companion.vision.standard_frames import figures, raw_reads

    write_real_tables(tmp_path / "f", Standard(CALIBRATION_STYLES[:6]), 3, seed=4, progress=False)
    model = load_numeral_model("polyhedral-oblique")
    direct = evaluate_frames(model, tmp_path / "f")
    replay = figures(raw_reads(model, tmp_path / "f"), model.gate)["all"]
    for key in ("found", "read_right", "read_wrong", "unreadable", "cocked", "cocked_read"):
        assert replay[key] == direct[key], key
    assert replay["flat_dice"] == direct["dice"]
    assert replay["false_boxes_per_frame"] == direct["false_boxes_per_image"]


class _OntoAnotherDie:
    """A stand-in refiner for the dice first read as a d12 or a d20: each moved onto the box of the first
    other die a refiner-free copy of the bundle finds and reads, so its two looks disagree."""

    kinds = ("d12", "d20")
    from_px = None

    def __init__(self, plain: NumeralModel):
        self.plain = plain

    def large_enough(self, boxes):
        return np.ones(len(boxes), bool)

    def __call__(self, image, boxes):
        readings = self.plain.readings(image)
        target = next(r.box for r in readings if r.kind not in self.kinds)
        return np.repeat(np.asarray(target, np.float32)[None], len(boxes), axis=0)


@pytest.mark.slow
def test_the_replay_leaves_unread_the_dice_whose_two_looks_disagree_as_the_bundle_does(tmp_path):
    from companion.vision.reader_gate import ReaderGate
    from companion.vision.standard_frames import NEVER_READ, figures, raw_reads

    write_real_tables(tmp_path / "f", Standard(CALIBRATION_STYLES[:6]), 3, seed=4, progress=False)
    bundle = load_numeral_model("polyhedral-oblique").bundle
    plain = NumeralModel(bundle)
    plain.refiner, plain.same_die = None, None
    model = NumeralModel(bundle)  # with its one box a die: the dice moved onto one die are read once
    model.refiner = _OntoAnotherDie(plain)
    raw = raw_reads(model, tmp_path / "f")
    never = raw["box"]["conf"] == NEVER_READ
    assert never.sum() >= 2  # the frames hold dice whose two looks disagree
    direct = evaluate_frames(model, tmp_path / "f")
    replay = figures(raw, model.gate)["all"]
    for key in ("found", "read_right", "read_wrong", "unreadable", "cocked", "cocked_read"):
        assert replay[key] == direct[key], key
    assert replay["false_boxes_per_frame"] == direct["false_boxes_per_image"]
    # read by no gate at all: under a gate of 0 the only flat dice left unread are those
    truth = raw["box"]["truth"]
    on_flat = (truth >= 0) & ~raw["die"]["cocked"][np.where(truth >= 0, truth, 0)]
    assert figures(raw, ReaderGate(0.0, {}))["all"]["unreadable"] == int((never & on_flat).sum()) > 0


def _frames_and_bundle(tmp_path) -> None:
    """Two calibration frames in ``tmp_path/f`` and ``polyhedral-oblique`` enrolled from one render in
    ``tmp_path/b`` (``enrolled_reads`` teaches each frame its own profile)."""
    from profile_support import enrol_one_d20

    write_real_tables(tmp_path / "f", Standard(CALIBRATION_STYLES[:6]), 2, seed=4, progress=False)
    enrol_one_d20(tmp_path / "b")


@pytest.mark.slow
def test_enrolled_reads_replay_the_enrolled_bundle_under_any_kind_gate(tmp_path):
    from companion.vision.numerals import KINDS
    from companion.vision.reader_gate import ReaderGate
    from companion.vision.standard_frames import enrolled_reads, figures, gated_by_floor

    _frames_and_bundle(tmp_path)
    raw = enrolled_reads(tmp_path / "b", tmp_path / "f", shots=1)
    conf = raw["box"]["conf"]
    assert len(conf) and np.all((conf == -1) | ((conf >= 0) & (conf <= 1)))
    assert np.all((conf == -1) == (raw["box"]["value"] == 0))  # unread: no value, never passes a gate
    none = figures(raw, ReaderGate(0.0, {}))["all"]
    shut = figures(raw, ReaderGate(1.01, {}))["all"]
    assert (
        none["read_right"] > 0
        and none["read_right"] + none["read_wrong"] + none["unreadable"] == none["found"]
    )
    assert shut["read_right"] == shut["read_wrong"] == 0 and shut["unreadable"] == none["found"]
    # with margins kept, the replay under no kind gate and no floor reads exactly what the bundle reads
    kept = enrolled_reads(tmp_path / "b", tmp_path / "f", shots=1, margins=True)
    assert np.array_equal(kept["box"]["truth"], raw["box"]["truth"])
    same = gated_by_floor(kept, {}, {})
    assert np.array_equal(same["box"]["value"], raw["box"]["value"])
    assert figures(same, ReaderGate(0.5, {}))["all"] == none
    # a floor above every margin leaves every die unread but those a shipped large_dice section judges
    # (dice read as a kind it names, boxes of 90 px and more: their own margin, no floor); the kind
    # probabilities are the reader's
    floored = gated_by_floor(kept, {}, {k: 1e9 for k in KINDS})["box"]["value"]
    judged = ~np.isnan(kept["box"]["large_gate"])
    assert not (floored[~judged] > 0).any() and (~judged).sum() >= 5
    assert np.array_equal(floored[judged], same["box"]["value"][judged])
    large = NumeralModel(tmp_path / "b").combined.large  # None while the bundle ships no section
    named = np.isin(kept["box"]["kind"], list(large.min_kind_confidence if large is not None else ()))
    assert np.array_equal(judged, named & (kept["box"]["side"] >= 90))
    assert np.all((kept["box"]["p_kind"] >= 0) & (kept["box"]["p_kind"] <= 1))


def test_each_true_die_takes_the_unused_box_it_overlaps_most():
    from companion.vision.numerals import match_dice

    dice = [{"box": [0, 0, 10, 10]}, {"box": [1, 0, 11, 10]}, {"box": [50, 50, 60, 60]}]
    boxes = [[1, 0, 11, 10], [0, 0, 10, 10], [100, 100, 110, 110], [52, 52, 70, 70]]
    # die 0 takes box 1 (IoU 1); die 1 then box 0; die 2's best box overlaps under 0.5: none
    assert match_dice(dice, boxes).tolist() == [1, 0, -1, -1]
    assert match_dice(dice[:1], [[0, 0, 10, 10], [0, 0, 10, 10]]).tolist() == [0, -1]  # one box a die
    assert match_dice(dice, []).tolist() == [] and match_dice([], boxes).tolist() == [-1] * 4


def test_the_floor_rule_takes_the_kind_gate_and_floor_that_read_the_most_within_the_bound():
    from companion.vision.reader_gate import ReaderGate
    from companion.vision.standard_frames import choose_floors, figures, gated_by_floor

    # 200 d6, each box with its top value, the kind's probability, its margin and the rule's margin (0):
    # 190 right (p 0.96, margin 3), 6 wrong with small margins (0.3) but a sure kind (p 0.99), 4 wrong
    # with large margins (4) but an unsure kind (p 0.6)
    n = 200
    values = [3] * 190 + [4] * 10
    raw = _raw(["d6"] * n, values, [0.0] * n, list(range(n)), ["d6"] * n, [3] * n)
    raw["box"]["p_kind"] = np.array([0.96] * 190 + [0.99] * 6 + [0.6] * 4)
    raw["box"]["margin"] = np.array([3.0] * 190 + [0.3] * 6 + [4.0] * 4)
    raw["box"]["needed"] = np.zeros(n)
    # at most 1 % (2) wrong: a floor above 0.3 removes the 6, a gate above 0.6 the 4; all 190 stay read
    # up to the gate 0.95 and the floor 3 (a tie on 190 right: the highest gate, then the highest floor)
    assert choose_floors(raw) == {"d6": (0.95, 3.0)}
    fig = figures(gated_by_floor(raw, {"d6": 0.95}, {"d6": 3.0}), ReaderGate(0.5))
    assert (fig["d6"]["read_right"], fig["d6"]["read_wrong"]) == (190, 0)
    half = figures(gated_by_floor(raw, {}, {"d6": 0.5}), ReaderGate(0.5))
    assert (half["d6"]["read_right"], half["d6"]["read_wrong"]) == (190, 4)
    # the rule's own margin counts beside the floor: asked 5, a margin of 3 or 4 is not read
    asked = {**raw, "box": {**raw["box"], "needed": np.full(n, 5.0)}}
    none = figures(gated_by_floor(asked, {}, {"d6": 0.5}), ReaderGate(0.5))
    assert none["d6"]["read_right"] == 0 and none["d6"]["read_wrong"] == 0
    # no pair holds the bound (wrong dice as sure as the right ones): the highest gate and floor
    raw["box"]["p_kind"][190:], raw["box"]["margin"][190:] = 0.99, 7.0
    assert choose_floors(raw) == {"d6": (0.99, 6.0)}


@pytest.mark.slow
def test_enrolled_reads_keep_the_large_dice_gates_under_any_kind_gate_replayed(tmp_path):
    """A die the bundle's ``large_dice`` judges met that section's kind gate in the reading: replaying the
    bundle's own (size-free) kind gate must not judge it again, so the replay is what the bundle reads."""
    import json

    from companion.vision.combined_reading import COMBINED_KEY
    from companion.vision.numerals import KINDS
    from companion.vision.reader_gate import ReaderGate
    from companion.vision.standard_frames import enrolled_reads, figures

    _frames_and_bundle(tmp_path)
    meta = json.loads((tmp_path / "b" / "model.json").read_text())
    # every die is "large" and read whatever its margin or kind probability
    meta[COMBINED_KEY]["large_dice"] = {
        "from_px": 1,
        "min_kind_confidence": {k: 0.0 for k in KINDS},
        "min_margin": {"0": {k: 0.0 for k in KINDS}},
    }
    (tmp_path / "b" / "model.json").write_text(json.dumps(meta))
    raw = enrolled_reads(tmp_path / "b", tmp_path / "f", shots=1)
    read = raw["box"]["value"] > 0
    assert read.sum() >= 5 and np.all(raw["box"]["conf"][read] == 1.0)
    shipped = ReaderGate.parse(meta, tuple(KINDS), "min_kind_confidence", "min_kind_confidence_by_kind", 0.0)
    assert figures(raw, shipped) == figures(raw, ReaderGate(0.0, {}))
    # one reading with the margins kept, replayed under the rule, is what the bundle reads; without its
    # large_dice section, what the bundle's own gates read (fewer dice)
    from dataclasses import replace

    from companion.vision.combined_reading import parse_rule
    from companion.vision.standard_frames import gated_by_rule

    kept = enrolled_reads(tmp_path / "b", tmp_path / "f", shots=1, margins=True)
    rule = parse_rule(meta[COMBINED_KEY], tuple(KINDS))
    assert figures(gated_by_rule(kept, rule, shipped), ReaderGate(0.5)) == figures(raw, shipped)
    meta[COMBINED_KEY].pop("large_dice")
    (tmp_path / "b" / "model.json").write_text(json.dumps(meta))
    plain = enrolled_reads(tmp_path / "b", tmp_path / "f", shots=1)
    without = figures(gated_by_rule(kept, replace(rule, large=None), shipped), ReaderGate(0.5))
    assert without == figures(plain, shipped)
    assert without["all"]["read_right"] < figures(raw, shipped)["all"]["read_right"]


def test_the_frame_rule_for_large_d20s_takes_the_gate_that_keeps_other_kinds_out():
    """``standard_frames.choose_large_dice``: of the boxes read as a d20 at least 90 px across, the d12s the
    reader took for d20s (kind probability 0.5) are kept out by the gate chosen, the right d20s (0.97)
    read; small boxes, however wrong, do not weigh."""
    from companion.vision.combined_reading import parse_rule
    from companion.vision.reader_gate import ReaderGate
    from companion.vision.standard_frames import choose_large_dice, figures, gated_by_rule

    rng = np.random.default_rng(5)
    n_right, n_d12, n_small = 300, 20, 40
    n = n_right + n_d12 + n_small
    die_kinds = ["d20"] * n_right + ["d12"] * n_d12 + ["d20"] * n_small
    die_values = [int(v) for v in rng.integers(1, 13, n)]
    # every box reads a d20 whose value is the die's: right for the d20s, wrong (the kind) for the d12s;
    # the small ones are read as another value
    values = [v if i < n_right + n_d12 else v % 12 + 1 for i, v in enumerate(die_values)]
    raw = _raw(["d20"] * n, values, [0.5] * n, list(range(n)), die_kinds, die_values)
    raw["box"].update(
        p_kind=np.array([0.97] * n_right + [0.5] * n_d12 + [0.99] * n_small),
        margin=rng.uniform(1.0, 6.0, n),
        needed=np.full(n, 3.0),
        side=np.array([150.0] * (n_right + n_d12) + [60.0] * n_small),
        fewest=np.full(n, 2),
        large_gate=np.full(n, np.nan),
    )
    large = choose_large_dice(raw, "d20")
    assert large is not None and large["from_px"] == 90.0
    assert 0.5 < large["min_kind_confidence"]["d20"] <= 0.97
    assert large["min_margin"]["0"]["d20"] <= 1.0  # no right large d20 is lost to the margin
    spec = {
        "levels": {
            "0": {
                "profile_weight": 0.0,
                "unknown_distance": 1.0,
                "min_margin": dict.fromkeys(("d4", "d6", "d8", "d10", "d12", "d20"), 99.0),
            }
        },
        "large_dice": large,
    }
    rule = parse_rule(spec, ("d4", "d6", "d8", "d10", "d12", "d20"))
    fig = figures(gated_by_rule(raw, rule, ReaderGate(0.0, {})), ReaderGate(0.5))
    assert fig["d20"]["read_right"] == n_right and fig["d12"]["read_wrong"] == 0
    assert fig["d20"]["read_wrong"] == 0  # the small d20s keep the margin of 99: unread
    # a bound no pair holds (every large box wrong): nothing chosen
    raw["box"]["value"] = np.array([v % 12 + 1 for v in die_values])
    assert choose_large_dice(raw, "d20") is None
