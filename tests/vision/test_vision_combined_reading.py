"""An enrolled standard-dice bundle reads a die's value from the reader AND the table profile together
(``companion.vision.combined_reading``, the ``combined_reading`` section of ``polyhedral-oblique``).

The fixture ``fixtures/standard_d20`` (4 renders of every value of a d20 of TEST style 200000; see
``test_vision_standard_oblique``): tiles 0-1 of a value are enrolled, tiles 2-3 are read, laid side by
side in one frame and read through ``NumeralModel.read_boxes``, what ``readings`` (the camera's
``read_standard_roll``) runs on the boxes the finder gives.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.combined_reading import (
    COMBINED_KEY,
    CombinationError,
    Level,
    decide,
    parse_rule,
)
from companion.vision.crops import crop_die
from companion.vision.synth.standard_styles import read_mosaic

FIXTURE = Path(__file__).parent / "fixtures" / "standard_d20"
KINDS = ("d4", "d6", "d8", "d10", "d12", "d20")
HALF = 64 / 1.15 / 2  # a box whose crop_die cut is exactly the 64 px tile


def _rule_spec(**level2) -> dict:
    margins = {k: 1.0 for k in KINDS}
    return {
        "levels": {
            "0": {"profile_weight": 0.0, "unknown_distance": 1.0, "min_margin": margins},
            "2": {"profile_weight": 3.0, "unknown_distance": 0.8, "min_margin": margins, **level2},
        }
    }


# ------------------------------------------------------------------ the rule alone


def test_the_level_is_the_largest_not_above_the_fewest_sightings():
    rule = parse_rule(_rule_spec(), KINDS)
    assert [rule.level(n).sightings for n in (0, 1, 2, 3, 9)] == [0, 0, 2, 2, 2]


def test_both_terms_decide_the_value():
    level = Level(2, 3.0, 0.8, {})
    probs = np.array([[0.5, 0.3, 0.2]])
    near_second = np.array([[0.9, 0.1, 0.9]])  # the profile says: the second value
    read, top, _, _ = decide(probs, np.full((1, 3), np.inf), level, 0.1)
    assert read[0] and top[0] == 0  # no prototype: the reader's value
    read, top, _, _ = decide(probs, near_second, level, 0.1)
    assert read[0] and top[0] == 1  # the profile outweighs a reader that is not sure
    sure = np.array([[0.98, 0.01, 0.01]])
    read, top, _, _ = decide(sure, near_second, level, 0.1)
    assert read[0] and top[0] == 0  # a sure reader outweighs the profile
    # the profile agreeing with the reader makes it sure enough for a gate it did not pass alone
    agree = np.array([[0.1, 0.9, 0.9]])
    assert not decide(probs, np.full((1, 3), np.inf), level, 1.0)[0][0]
    assert decide(probs, agree, level, 1.0)[0][0]


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"profile_weight": "high"}, "combined_reading.levels.2.profile_weight"),
        ({"profile_weight": -1}, "combined_reading.levels.2.profile_weight"),
        ({"unknown_distance": 3.0}, "combined_reading.levels.2.unknown_distance"),
        ({"min_margin": {k: 1.0 for k in KINDS[:-1]}}, "combined_reading.levels.2.min_margin.d20"),
        ({"min_margin": {**{k: 1.0 for k in KINDS}, "d20": float("nan")}}, "min_margin.d20"),
        ({"min_margin": 2.0}, "combined_reading.levels.2.min_margin"),
    ],
)
def test_a_bad_setting_is_refused_naming_its_key(change, key):
    with pytest.raises(CombinationError, match=key.replace(".", r"\.")):
        parse_rule(_rule_spec(**change), KINDS)


def test_a_rule_without_level_0_or_with_a_bad_level_name_is_refused():
    spec = _rule_spec()
    del spec["levels"]["0"]
    with pytest.raises(CombinationError, match=r"levels\.0"):
        parse_rule(spec, KINDS)
    spec = _rule_spec()
    spec["levels"]["two"] = spec["levels"].pop("2")
    with pytest.raises(CombinationError, match=r"levels\.two"):
        parse_rule(spec, KINDS)
    spec = _rule_spec()
    del spec["levels"]["2"]["profile_weight"]
    with pytest.raises(CombinationError, match=r"levels\.2\.profile_weight: missing"):
        parse_rule(spec, KINDS)


# ------------------------------------------------------------------ margins by the die's size in the frame


def _sized_spec() -> dict:
    spec = _rule_spec()
    spec["size_bands"] = [40, 90]
    spec["levels"]["2"]["min_margin_by_size"] = {"d20": [3.0, 1.5, 0.5]}
    return spec


def test_a_die_is_judged_by_the_margin_of_its_size_band():
    rule = parse_rule(_sized_spec(), KINDS)
    level = rule.level(2)
    assert [rule.margin(level, "d20", px) for px in (20, 39.9, 40, 89, 90, 400)] == [
        3.0,
        3.0,
        1.5,
        1.5,
        0.5,
        0.5,
    ]
    # size unknown, a kind with no bands, a level with none: the margin over all sizes
    assert rule.margin(level, "d20", None) == rule.margin(level, "d20", float("nan")) == 1.0
    assert rule.margin(level, "d12", 400) == 1.0
    assert rule.margin(rule.level(0), "d20", 400) == 1.0


def test_read_value_gates_by_the_size_it_is_given():
    """One die, one reading: unreadable when small, read when large (the same probabilities)."""
    from companion.vision.combined_reading import read_value

    rule = parse_rule(_sized_spec(), KINDS)
    probs = np.full(20, 0.01)
    probs[6] = 0.1  # log(0.1 / 0.01) = 2.3: between the small and the middle band's margin

    class Taught:  # every value taught twice, all at the same distance: the reader decides
        def __contains__(self, key):
            return True

        def prototype(self, key):
            return np.array([1.0, 0.0])

        def sightings(self, key):
            return 2

    emb = np.array([0.0, 1.0])
    assert read_value(rule, "d20", probs, Taught(), emb, 30.0)[0] is None
    assert read_value(rule, "d20", probs, Taught(), emb, 60.0)[0] == 7
    assert read_value(rule, "d20", probs, Taught(), emb, None)[0] == 7  # margin 1.0 over all sizes


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"size_bands": [90, 40]}, r"size_bands: the sizes must rise"),
        ({"size_bands": "40"}, r"size_bands: expected a list"),
        ({"size_bands": [40, "wide"]}, r"size_bands\[1\]"),
        ({"by": {"d20": [1.0, 2.0]}}, r"min_margin_by_size\.d20: expected 3 margins"),
        ({"by": {"d21": [1.0, 2.0, 3.0]}}, r"min_margin_by_size\.d21: not a kind"),
        ({"by": {"d20": [1.0, -2.0, 3.0]}}, r"min_margin_by_size\.d20\[1\]"),
        ({"size_bands": None}, r"min_margin_by_size: given, but the rule names no size_bands"),
    ],
)
def test_bad_size_bands_are_refused_naming_the_key(change, key):
    spec = _sized_spec()
    if "size_bands" in change:
        spec["size_bands"] = change["size_bands"]
        if change["size_bands"] is None:
            del spec["size_bands"]
    if "by" in change:
        spec["levels"]["2"]["min_margin_by_size"] = change["by"]
    with pytest.raises(CombinationError, match=key):
        parse_rule(spec, KINDS)


def test_a_margin_floor_raises_every_margin_of_its_kind_and_no_other():
    spec = _sized_spec()
    spec["min_margin_floor"] = {"d20": 2.0, "d6": 0.5}
    rule = parse_rule(spec, KINDS)
    # d20: the size bands' 3.0 / 1.5 / 0.5 and the 1.0 over all sizes, none under 2.0
    assert [rule.margin(rule.level(2), "d20", px) for px in (20, 60, 400, None)] == [3.0, 2.0, 2.0, 2.0]
    assert rule.margin(rule.level(0), "d6") == 1.0  # a floor under the margin changes nothing
    assert rule.margin(rule.level(0), "d12") == 1.0  # no floor named: none


def test_value_margin_is_read_value_before_its_gate():
    from companion.vision.combined_reading import read_value, value_margin
    from companion.vision.profile import TableProfile

    profile = TableProfile("t", 4, {})  # nothing taught: the reader's term alone
    probs = np.array([0.6, 0.3, 0.1, 0.0])  # a d4: log(0.6 / 0.3) = 0.69 over the second
    for floor, read in ((0.5, True), (0.7, False)):
        spec = _rule_spec()
        spec["levels"]["0"]["min_margin"] = {k: 0.0 for k in KINDS}
        spec["min_margin_floor"] = {"d4": floor}
        rule = parse_rule(spec, KINDS)
        value, conf, margin, needed = value_margin(rule, "d4", probs, profile, np.zeros(4))
        assert (value, needed) == (1, floor) and margin == pytest.approx(np.log(2.0))
        assert read_value(rule, "d4", probs, profile, np.zeros(4)) == ((1 if read else None), conf)


@pytest.mark.parametrize(
    ("floor", "key"),
    [
        ({"d20": -1.0}, "combined_reading.min_margin_floor.d20"),
        ({"d30": 1.0}, "combined_reading.min_margin_floor.d30: not a kind"),
        ({"d20": "high"}, "combined_reading.min_margin_floor.d20"),
        (2.0, "combined_reading.min_margin_floor: expected an object"),
    ],
)
def test_a_bad_margin_floor_is_refused_naming_its_key(floor, key):
    spec = _rule_spec()
    spec["min_margin_floor"] = floor
    with pytest.raises(CombinationError, match=key.replace(".", r"\.")):
        parse_rule(spec, KINDS)


def test_calibration_chooses_a_margin_per_size_band():
    """Small dice whose readings are often wrong get a stricter margin than large dice read right."""
    from companion.vision import standard_sim as ss

    rng = np.random.default_rng(0)
    n = 2000
    px = np.where(np.arange(n) < n // 2, 30.0, 120.0)
    truth = rng.integers(0, 20, n)
    probs = np.full((n, 20), 1.0)
    # large dice: the reader is right, with margins spread 0.5-5; small dice: wrong a third of the time
    lead = rng.uniform(0.5, 5.0, n)
    shown = np.where((px < 40) & (rng.random(n) < 0.33), (truth + 1) % 20, truth)
    probs[np.arange(n), shown] = np.exp(lead)
    kinds = np.zeros((n, 6))
    kinds[:, 5] = 1.0
    rec = {"d": np.full((n, 20), np.inf), "truth": truth, "known": np.zeros(n, bool), "px": px}
    inputs = {("d20", 0): ss.combined_inputs({"kind": kinds, "value": probs}, rec, "d20", 0)}
    spec = ss.calibrate_combined(inputs, levels=(0,), size_bands=(40.0, 90.0))
    assert spec["levels"]["0"]["profile_weight"] == 0.0  # level 0 is the reader alone, bands or not
    small, middle, large = spec["levels"]["0"]["min_margin_by_size"]["d20"]
    assert spec["size_bands"] == [40.0, 90.0]
    assert middle == ss.COMBINED_MARGINS[-1]  # no die in the middle band: a size never read
    assert small > large
    rule = parse_rule(
        {
            **spec,
            "levels": {
                "0": {
                    **spec["levels"]["0"],
                    "min_margin": {k: spec["levels"]["0"]["min_margin"][k] for k in KINDS},
                }
            },
        },
        KINDS,
    )
    read, top, _ = ss.combined_read(inputs[("d20", 0)], rule)
    wrong = read & (top != truth)
    assert wrong[px < 40].mean() <= 0.008 and wrong[px > 90].mean() <= 0.008
    assert read[px > 90].mean() > read[px < 40].mean()
    # at a level with a profile the pair recorded is one of the grid's, and the one it read with: a
    # profile that knows every value, nearest the truth, is weighed
    near = np.full((n, 20), 1.2)
    near[np.arange(n), truth] = 0.2
    taught = {**rec, "d": near, "known": np.ones(n, bool)}
    inputs2 = {("d20", 2): ss.combined_inputs({"kind": kinds, "value": probs}, taught, "d20", 2)}
    spec2 = ss.calibrate_combined(inputs2, levels=(2,), size_bands=(40.0, 90.0))["levels"]["2"]
    assert spec2["profile_weight"] in ss.COMBINED_WEIGHTS and spec2["profile_weight"] > 0
    plain = ss.calibrate_combined(inputs2, levels=(2,))["levels"]["2"]
    assert (spec2["profile_weight"], spec2["unknown_distance"]) == (
        plain["profile_weight"],
        plain["unknown_distance"],
    )
    with pytest.raises(ValueError, match="size in the frame"):
        rec_nan = {**rec, "px": np.full(n, np.nan)}
        ss.calibrate_combined(
            {("d20", 0): ss.combined_inputs({"kind": kinds, "value": probs}, rec_nan, "d20", 0)},
            levels=(0,),
            size_bands=(40.0,),
        )


# ------------------------------------------------------------------ the shipped bundle, enrolled


def _split():
    tiles, labels = read_mosaic(FIXTURE)
    values = np.array(labels["values"])
    slot = np.arange(len(values)) % labels["per_value"]
    return tiles, values, slot < 2, slot >= 2


def _frame(tiles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The tiles side by side in one frame, and the box of each."""
    frame = np.concatenate(list(tiles), axis=1)
    cx = 32 + 64 * np.arange(len(tiles))
    boxes = np.stack(
        [cx - HALF, np.full(len(tiles), 32 - HALF), cx + HALF, np.full(len(tiles), 32 + HALF)], 1
    )
    return np.ascontiguousarray(frame), boxes


def _corrections(folder: Path, tiles: np.ndarray, values: np.ndarray) -> Path:
    folder.mkdir()
    box = [32 - HALF, 32 - HALF, 32 + HALF, 32 + HALF]
    for i, (t, v) in enumerate(zip(tiles, values, strict=True)):
        cv2.imwrite(str(folder / f"f{i:02d}.png"), t)
        (folder / f"f{i:02d}.json").write_text(
            json.dumps({"dice": [{"box": box, "kind": "d20", "value": int(v)}]})
        )
    return folder


@pytest.fixture(scope="module")
def enrolled(tmp_path_factory):
    """``polyhedral-oblique`` enrolled from 2 photos of every value but the 7 (never taught)."""
    from companion.vision.enroll import enroll, read_corrections

    tiles, values, enrol, _ = _split()
    taught = enrol & (values != 7)
    tmp = tmp_path_factory.mktemp("combined")
    enroll(
        "polyhedral-oblique",
        tmp / "my-d20",
        read_corrections(_corrections(tmp / "c", tiles[taught], values[taught])),
    )
    return tmp / "my-d20"


def _values(readings) -> np.ndarray:
    return np.array([0 if r.value is None else r.value for r in readings])


def _load(bundle):
    from companion.vision.numerals import NumeralModel

    return NumeralModel(bundle)  # not the cache: each test changes the model it reads with


def test_the_enrolled_bundle_reads_with_the_shipped_combination(enrolled):
    from companion.vision.numerals import load_numeral_model

    model = _load(enrolled)
    shipped = json.loads(
        (Path(__file__).resolve().parents[2] / "models" / "polyhedral-oblique" / "model.json").read_text()
    )[COMBINED_KEY]
    assert (
        model.combined is not None
        and model.combined.level(2).profile_weight == (shipped["levels"]["2"]["profile_weight"])
    )
    assert load_numeral_model("polyhedral-oblique").combined is None  # no profile: the reader alone
    tiles, values, _, query = _split()
    frame, boxes = _frame(tiles[query])
    got = _values(model.read_boxes(frame, boxes))
    right, wrong = got == values[query], (got != 0) & (got != values[query])
    # the profile alone (a bundle from before the combination) reads fewer of these right at no fewer wrong
    meta = json.loads((enrolled / "model.json").read_text())
    old = dict(meta)
    del old[COMBINED_KEY]
    older = enrolled.parent / "older"
    shutil.copytree(enrolled, older)
    (older / "model.json").write_text(json.dumps(old))
    old_model = _load(older)
    assert old_model.combined is None
    old_got = _values(old_model.read_boxes(frame, boxes))
    emb, pc = old_model.embedder(tiles[query])
    profile_alone = [old_model.profile.read_any(e, "d20", float(p)) for e, p in zip(emb, pc, strict=True)]
    assert (
        old_got == [m.label.count if m.label else 0 for m in profile_alone]
    ).all()  # older bundles: unchanged
    assert right.sum() > (old_got == values[query]).sum()
    assert wrong.mean() <= 0.05, wrong.mean()


def _weighing_at_2(enrolled: Path, tmp_path: Path) -> Path:
    """A copy of the enrolled bundle whose rule reads 2 sightings with the level-3 parameters, the
    shipped level that weighs the profile (the shipped rule gives it no weight at 2 sightings)."""
    copy = tmp_path / "weighing"
    shutil.copytree(enrolled, copy)
    meta = json.loads((copy / "model.json").read_text())
    levels = meta[COMBINED_KEY]["levels"]
    weighed = max(levels, key=lambda x: levels[x]["profile_weight"])
    assert levels[weighed]["profile_weight"] > 0, "the shipped rule weighs the profile at no level"
    levels["2"] = dict(levels[weighed])
    (copy / "model.json").write_text(json.dumps(meta))
    return copy


def test_the_profile_term_counts(enrolled, tmp_path):
    """A profile that contradicts the reader (every taught crop labelled as the next value) changes the
    reading; an empty profile (nothing taught) reads as the reader alone under the level-0 gate."""
    from companion.vision.numerals import decode
    from companion.vision.profile import FaceLabel, TableProfile

    tiles, values, enrol, query = _split()
    frame, boxes = _frame(tiles[query])
    model = _load(_weighing_at_2(enrolled, tmp_path))
    assert model.combined.level(2).profile_weight > 0
    base = _values(model.read_boxes(frame, boxes))
    taught = enrol & (values != 7)
    emb, _ = model.embedder(tiles[taught])
    prof = model.profile
    shifted = TableProfile(prof.embedder_id, prof.dim, prof.settings)
    shifted.add(emb, [FaceLabel("d20", "value", int(v) % 20 + 1) for v in values[taught]])
    model.profile = shifted
    contradicted = _values(model.read_boxes(frame, boxes))
    changed = contradicted != base
    assert changed.any()
    # each die it changed moved its way: to the next value (what the profile taught for the die's face) or
    # to unread (the two no longer stand apart)
    truth = values[query]
    assert all(c in (0, int(t) % 20 + 1) for c, t in zip(contradicted[changed], truth[changed], strict=True))
    assert (contradicted == values[query]).sum() < (base == values[query]).sum()

    model.profile = TableProfile(prof.embedder_id, prof.dim, prof.settings)
    alone = _values(model.read_boxes(frame, boxes))
    probs = model.faces(tiles[query])
    k, v, _ = decode(probs["kind"], probs["value"], model.kinds)
    p = probs["value"][:, :20] / probs["value"][:, :20].sum(1, keepdims=True)
    top2 = np.sort(np.log(p), 1)[:, -2:]
    gate = model.combined.margin(model.combined.level(0), "d20")  # the level-0 margin, or its floor
    d20 = model.kinds.index("d20")
    sure_kind = probs["kind"][:, d20] >= model.kind_gate.of("d20")  # and the kind gate of enrolled bundles
    expected = np.where((top2[:, 1] - top2[:, 0] >= gate) & (k == d20) & sure_kind, v, 0)
    assert (alone == expected).all()
    assert (alone != base).any()  # and the taught profile did change readings


def test_the_reader_term_counts(enrolled):
    """A reader that says nothing (equal probabilities) leaves the profile alone to decide: other readings."""
    tiles, values, _, query = _split()
    frame, boxes = _frame(tiles[query])
    model = _load(enrolled)
    base = _values(model.read_boxes(frame, boxes))
    real = model.faces

    def flat(crops):
        out = real(crops)
        return {"kind": out["kind"], "value": np.ones_like(out["value"])}

    model.faces = flat
    blind = _values(model.read_boxes(frame, boxes))
    assert (blind != base).sum() >= 3
    assert (blind == values[query]).sum() < (base == values[query]).sum()


def test_a_bad_combined_reading_in_model_json_is_refused_naming_the_key(enrolled, tmp_path):
    from companion.vision.reader import ModelError

    bad = tmp_path / "bad"
    shutil.copytree(enrolled, bad)
    meta = json.loads((bad / "model.json").read_text())
    meta[COMBINED_KEY]["levels"]["2"]["min_margin"]["d20"] = "high"
    (bad / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"combined_reading\.levels\.2\.min_margin\.d20"):
        _load(bad)


def test_a_bundle_enrolled_with_another_embedding_reads_from_its_profile_alone(enrolled, tmp_path):
    other = tmp_path / "other"
    shutil.copytree(enrolled, other)
    meta = json.loads((other / "model.json").read_text())
    meta[COMBINED_KEY]["embedder_id"] = "0000000000000000"
    (other / "model.json").write_text(json.dumps(meta))
    assert _load(other).combined is None


def _simulated(enrolled):
    """``(tiles, values, query, model, inputs)``: the enrolled bundle and the bench simulation's inputs
    (``standard_sim.combined_inputs``) for the query tiles, a table of the enrolment tiles at 2
    sightings a value with the 7 never taught."""
    from companion.vision import standard_sim as ss

    tiles, values, enrol, query = _split()
    model = _load(enrolled)
    taught = np.array([v != 7 for v in range(1, 21)])
    table = ss.StdTable(0, "d20", tiles[enrol].reshape(20, 2, 64, 64, 3), taught, tiles[query], values[query])
    rec = ss.records([table], model.embedder, (2,))["d20"][2]
    inp = ss.combined_inputs(model.faces(tiles[query]), rec, "d20", 2)
    return tiles, values, query, model, inp


def test_the_bench_simulation_reads_exactly_as_the_bundle_does(enrolled):
    """``standard_sim.combined_read`` (what bench/enroll_standard.py measures) gives the values the
    enrolled bundle reads, with the 7 never taught."""
    from companion.vision import standard_sim as ss

    tiles, values, query, model, inp = _simulated(enrolled)
    read, top, margin = ss.combined_read(inp, model.combined, model.kind_gate)
    simulated = np.where(read, top + 1, 0)
    frame, boxes = _frame(tiles[query])
    got = _values(model.read_boxes(frame, boxes))
    gate = model.combined.level(2).min_margin["d20"]
    close = np.abs(margin - gate) < 1e-4  # float rounding may tip a die sitting on the gate
    assert (simulated[~close] == got[~close]).all()
    assert ss.combined_figures(inp, model.combined, model.kind_gate)["accuracy"] == pytest.approx(
        (simulated == values[query]).mean()
    )


def test_the_bench_simulation_applies_the_kind_gate_as_the_bundle_does(enrolled, tmp_path):
    """With a kind gate that leaves some of the fixture's d20s unread, the simulation and the bundle
    still read the same values."""
    from companion.vision import standard_sim as ss

    tiles, values, query, model, inp = _simulated(enrolled)
    gate = float(np.median(inp["kind_p"]))
    gated = tmp_path / "gated"
    shutil.copytree(enrolled, gated)
    meta = json.loads((gated / "model.json").read_text())
    meta["min_kind_confidence_by_kind"] = {"d20": gate}
    (gated / "model.json").write_text(json.dumps(meta))
    model = _load(gated)
    read, top, margin = ss.combined_read(inp, model.combined, model.kind_gate)
    before = ss.combined_read(inp, model.combined)[0]
    assert (before & ~read).sum() >= 1  # the gate leaves some dice unread
    frame, boxes = _frame(tiles[query])
    got = _values(model.read_boxes(frame, boxes))
    level_gate = model.combined.level(2).min_margin["d20"]
    close = (np.abs(margin - level_gate) < 1e-4) | (np.abs(inp["kind_p"] - gate) < 1e-5)
    assert (np.where(read, top + 1, 0)[~close] == got[~close]).all()


def test_the_bench_simulation_marks_what_the_bundle_marks(enrolled):
    """``standard_sim.likely_offers`` (the bench's unread 1st / 2 columns) gives each die the enrolled
    bundle leaves unread the values the bundle marks (``StandardReading.likely``), the 7 never taught."""
    from companion.vision import standard_sim as ss
    from companion.vision.table_reading import embedding_crops

    tiles, values, query, model, inp = _simulated(enrolled)
    offers = ss.likely_offers(inp)
    frame, boxes = _frame(tiles[query])
    got = model.read_boxes(frame, boxes)
    _, pc = model.embedder(embedding_crops(frame, boxes, model.embed_crop, model.embed_margin))
    cocked_at = model.profile.gate(standard=True)["cocked_threshold"]
    compared = 0
    for i, r in enumerate(got):
        if r.value is not None or pc[i] >= cocked_at:
            continue
        compared += 1
        assert r.likely == [int(k) + 1 for k in offers[i] if k >= 0]
        assert 6 not in offers[i]  # the 7 (index 6) is never marked
    assert compared >= 1
    figs = ss.combined_figures(inp, model.combined)
    read = ss.combined_read(inp, model.combined)[0]
    first = np.mean([offers[i, 0] == values[query][i] - 1 for i in np.flatnonzero(~read)])
    assert figs["unread_likely_first"] == pytest.approx(first)
    assert figs["unread_likely_first"] <= figs["unread_likely_two"]


def _table_frame(tiles: np.ndarray) -> np.ndarray:
    """The tiles on a table of their own background colour, 40 px apart: a frame for the die finder."""
    bg = np.median(np.concatenate([t[:4, :4].reshape(-1, 3) for t in tiles]), 0).astype(np.uint8)
    rows = -(-len(tiles) // 4)
    frame = np.full((40 + rows * 104, 40 + 4 * 104, 3), bg, np.uint8)
    for i, t in enumerate(tiles):
        r, c = divmod(i, 4)
        frame[40 + r * 104 : 104 + r * 104, 40 + c * 104 : 104 + c * 104] = t
    return frame


def test_the_camera_path_reads_with_the_combination(enrolled):
    """``read_standard_roll`` (the Battle Dice camera path) with the enrolled bundle gives each die found
    the value ``combined_reading.read_value`` gives from the reader's probabilities and the profile."""
    from companion.vision.combined_reading import read_value
    from companion.vision.crops import crop_die
    from companion.vision.numerals import SIDES, decode, read_standard_roll
    from companion.vision.table_reading import embedding_crops

    tiles, _, _, query = _split()
    frame = _table_frame(tiles[query][:12])
    read = read_standard_roll(frame, ["d20"] * 12, model=str(enrolled))
    model = _load(enrolled)
    det = model.box_finder(frame, model.box_conf)
    assert len(read["dice"]) == len(det) >= 10
    probs = model.faces(np.stack([crop_die(frame, b) for b in det.xyxy]))
    emb, _ = model.embedder(embedding_crops(frame, det.xyxy, model.embed_crop, model.embed_margin))
    kinds = [model.kinds[k] for k in decode(probs["kind"], probs["value"], model.kinds)[0]]
    sides = [float(max(b[2] - b[0], b[3] - b[1])) for b in det.xyxy]  # each die judged by its box's size
    expected = [
        read_value(model.combined, k, probs["value"][i, : SIDES[k]], model.profile, emb[i], sides[i])[0]
        for i, k in enumerate(kinds)
    ]
    assert [d["value"] for d in read["dice"]] == expected
    assert any(v is not None for v in expected)
    for unit in read["units"]:
        if unit["detection"] is None:
            continue
        die = read["dice"][unit["detection"]]
        if die["value"] is not None:
            assert unit["face_index"] == die["value"] - 1
        else:  # an unread die goes to a slot only to carry its likely values, never as a value
            assert unit["face_index"] is None and die["likely"]
            assert [a["face_index"] + 1 for a in unit["alternatives"]] == die["likely"]


@pytest.mark.parametrize("rule", ["combined", "profile alone"])
def test_a_die_left_unread_offers_the_values_the_profile_knows_nearest(enrolled, tmp_path, rule):
    """A die the enrolled bundle leaves unread (not cocked) carries its kind's taught values nearest its
    embedding (``TableProfile.likely_values``), nearest first, at most 2, with the combined rule and in a
    bundle from before it (the profile alone reads); a die read carries none; the 7, never taught, is
    never offered."""
    from companion.vision.table_reading import embedding_crops

    bundle = enrolled
    if rule == "profile alone":
        bundle = tmp_path / "older"
        shutil.copytree(enrolled, bundle)
        meta = json.loads((bundle / "model.json").read_text())
        del meta[COMBINED_KEY]
        (bundle / "model.json").write_text(json.dumps(meta))
    model = _load(bundle)
    assert (model.combined is None) == (rule == "profile alone")
    tiles, _, _, query = _split()
    frame, boxes = _frame(tiles[query])
    got = model.read_boxes(frame, boxes)
    emb, pc = model.embedder(embedding_crops(frame, boxes, model.embed_crop, model.embed_margin))
    cocked_at = model.profile.gate(standard=True)["cocked_threshold"]
    unread = 0
    for r, e, p in zip(got, emb, pc, strict=True):
        cocked = p >= cocked_at if model.combined else model.profile.read_any(e, r.kind, float(p)).cocked
        if r.value is not None or cocked:
            assert r.likely == [] and "likely" not in r.to_dict()
            continue
        unread += 1
        assert r.likely == model.profile.likely_values(e, r.kind) and 1 <= len(r.likely) <= 2
        assert 7 not in r.likely  # no die of any kind was taught a 7
        assert r.to_dict()["likely"] == r.likely and r.to_dict()["value"] is None
    assert unread >= 1, "no die of the fixture was left unread: the test shows nothing"


def test_the_bundle_gates_each_die_by_its_box_in_the_frame(enrolled, tmp_path):
    """``read_boxes`` judges each die by the longest side of its box: with bands cut at 50 px the fixture's
    boxes (55.6 px) take the upper band's margin, and the same frame's dice at half the size the lower."""
    tiles, values, _, query = _split()
    frame, boxes = _frame(tiles[query])
    copy = tmp_path / "sized"
    shutil.copytree(enrolled, copy)
    meta = json.loads((copy / "model.json").read_text())
    meta[COMBINED_KEY]["size_bands"] = [50]
    # the bands alone decide here: no margin floor, no kind gate
    meta[COMBINED_KEY].pop("min_margin_floor", None)
    meta.pop("min_kind_confidence_by_kind", None)
    for lv in meta[COMBINED_KEY]["levels"].values():
        lv["min_margin_by_size"] = {"d20": [99.0, 0.0]}  # small: never read; large: always read
    (copy / "model.json").write_text(json.dumps(meta))
    large = _values(_load(copy).read_boxes(frame, boxes))
    assert (large > 0).all()
    small = cv2.resize(frame, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    assert (_values(_load(copy).read_boxes(small, boxes / 2)) == 0).all()
    for lv in meta[COMBINED_KEY]["levels"].values():
        lv["min_margin_by_size"] = {"d20": [0.0, 99.0]}
    (copy / "model.json").write_text(json.dumps(meta))
    assert (_values(_load(copy).read_boxes(frame, boxes)) == 0).all()
    assert (_values(_load(copy).read_boxes(small, boxes / 2)) > 0).all()


def test_the_kind_gate_leaves_a_die_read_as_an_unsure_kind_unread(enrolled, tmp_path):
    """``min_kind_confidence_by_kind``: the combined margin weighs values of the kind read, never the
    kind; a die whose kind probability is under its kind's gate is left unread (its likely values
    still marked), and every other die reads exactly as without the gate."""
    tiles, _, _, query = _split()
    frame, boxes = _frame(tiles[query])
    model = _load(enrolled)
    before = model.read_boxes(frame, boxes)
    p_kind = model.faces(np.stack([crop_die(frame, b) for b in boxes]))["kind"]
    p_d20 = p_kind[:, model.kinds.index("d20")]
    read = [r.value is not None for r in before]
    assert sum(read) >= 4, "too few dice read to show the gate"
    gate = float(np.median(p_d20[read]))  # about half of the dice read are under it
    gated_dir = tmp_path / "gated"
    shutil.copytree(enrolled, gated_dir)
    meta = json.loads((gated_dir / "model.json").read_text())
    meta["min_kind_confidence_by_kind"] = {"d20": gate}
    (gated_dir / "model.json").write_text(json.dumps(meta))
    after = _load(gated_dir).read_boxes(frame, boxes)
    dropped = 0
    for r0, r1, p in zip(before, after, p_d20, strict=True):
        if r0.kind == "d20" and r0.value is not None and p < gate:
            assert r1.value is None and r1.unreadable and r1.likely  # a tap, with the nearest values marked
            dropped += 1
        else:
            assert r1 == r0
    assert dropped >= 1


@pytest.mark.parametrize(
    ("gates", "message"),
    [
        ({"d20": "sure"}, r"min_kind_confidence_by_kind\.d20"),
        ({"d30": 0.5}, r"min_kind_confidence_by_kind\.d30: not a kind"),
        ([0.5], r"min_kind_confidence_by_kind: expected an object"),
    ],
)
def test_a_bad_kind_gate_is_refused_naming_its_key(enrolled, tmp_path, gates, message):
    from companion.vision.reader import ModelError

    bad = tmp_path / "bad"
    shutil.copytree(enrolled, bad)
    meta = json.loads((bad / "model.json").read_text())
    meta["min_kind_confidence_by_kind"] = gates
    (bad / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=message):
        _load(bad)


# ------------------------------------------------------------------ dice many pixels across (large_dice)


def _large_spec(**large) -> dict:
    spec = _sized_spec()
    spec["min_margin_floor"] = {"d20": 2.0}
    spec["large_dice"] = {
        "from_px": 100,
        "min_kind_confidence": {"d20": 0.4},
        "min_margin": {"0": {"d20": 0.7}, "2": {"d20": 0.3}},
        **large,
    }
    return spec


def test_a_large_die_of_a_named_kind_is_judged_by_its_own_margin_and_kind_gate():
    rule = parse_rule(_large_spec(), KINDS)
    two, zero = rule.level(2), rule.level(0)
    # from 100 px the large dice's margins replace the size bands and the floor, level by level
    assert [rule.margin(two, "d20", px) for px in (60, 99.9, 100, 400)] == [2.0, 2.0, 0.3, 0.3]
    assert rule.margin(zero, "d20", 150) == 0.7
    # its size unknown, or a kind the section does not name: as before
    assert rule.margin(two, "d20", None) == 2.0 and rule.margin(two, "d12", 400) == 1.0
    assert rule.kind_gate("d20", 150.0, 0.95) == 0.4
    assert rule.kind_gate("d20", 99.0, 0.95) == rule.kind_gate("d20", None, 0.95) == 0.95
    assert rule.kind_gate("d12", 400.0, 0.45) == 0.45


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"from_px": 0}, r"large_dice\.from_px"),
        ({"min_kind_confidence": {"d20": 1.5}}, r"large_dice\.min_kind_confidence\.d20"),
        ({"min_kind_confidence": {"d30": 0.5}}, r"large_dice\.min_kind_confidence\.d30: not a kind"),
        (
            {"min_margin": {"2": {"d20": 0.3}}},
            r"large_dice\.min_margin: expected an object of levels from '0'",
        ),
        ({"min_margin": {"0": {"d12": 0.3}}}, r"large_dice\.min_margin\.0: expected a margin for each kind"),
        ({"min_margin": {"0": {"d20": -1}}}, r"large_dice\.min_margin\.0\.d20"),
        ({"min_margin": {"0": {"d20": 1}, "two": {"d20": 1}}}, r"large_dice\.min_margin\.two: a level"),
    ],
)
def test_a_bad_large_dice_section_is_refused_naming_its_key(change, key):
    with pytest.raises(CombinationError, match=key):
        parse_rule(_large_spec(**change), KINDS)
    spec = _large_spec()
    del spec["large_dice"]["min_margin"]
    with pytest.raises(CombinationError, match=r"large_dice\.min_margin: missing"):
        parse_rule(spec, KINDS)


def _with_large(enrolled, tmp_path, large: dict) -> Path:
    copy = tmp_path / "large"
    if copy.exists():
        shutil.rmtree(copy)
    shutil.copytree(enrolled, copy)
    meta = json.loads((copy / "model.json").read_text())
    meta[COMBINED_KEY]["large_dice"] = large
    meta["min_kind_confidence_by_kind"] = {"d20": 0.999999}  # the bundle's own kind gate: none read
    (copy / "model.json").write_text(json.dumps(meta))
    return copy


def test_the_bundle_reads_a_large_die_by_the_large_dice_gates_and_a_small_one_as_before(enrolled, tmp_path):
    """The fixture's boxes are 55.6 px: with ``from_px`` 50 they are read by the large dice's gates, with
    ``from_px`` 60 exactly as the bundle reads them without the section."""
    tiles, values, _, query = _split()
    frame, boxes = _frame(tiles[query])
    loose = {"from_px": 50, "min_kind_confidence": {"d20": 0.0}, "min_margin": {"0": {"d20": 0.0}}}
    under = _with_large(enrolled, tmp_path, {**loose, "from_px": 60})
    strict = _load(under).read_boxes(frame, boxes)
    assert all(r.value is None for r in strict)  # the bundle's kind gate: nothing read
    meta = json.loads((under / "model.json").read_text())
    del meta[COMBINED_KEY]["large_dice"]
    (under / "model.json").write_text(json.dumps(meta))
    assert _load(under).read_boxes(frame, boxes) == strict  # as if the section were not there
    read = _values(_load(_with_large(enrolled, tmp_path, loose)).read_boxes(frame, boxes))
    assert (read > 0).all()  # no gate at all from 50 px: every die takes its top value
    assert (read == values[query]).mean() > 0.5
    never = {**loose, "min_kind_confidence": {"d20": 1.0}}  # a kind gate no die reaches
    assert (_values(_load(_with_large(enrolled, tmp_path, never)).read_boxes(frame, boxes)) == 0).all()


def test_the_bench_simulation_applies_the_large_dice_gates_as_the_bundle_does(enrolled, tmp_path):
    from companion.vision import standard_sim as ss

    tiles, values, query, _, inp = _simulated(enrolled)
    gate = float(np.median(inp["kind_p"]))
    large = {"from_px": 50, "min_kind_confidence": {"d20": gate}, "min_margin": {"0": {"d20": 1.0}}}
    model = _load(_with_large(enrolled, tmp_path, large))
    frame, boxes = _frame(tiles[query])
    got = _values(model.read_boxes(frame, boxes))
    inp = {**inp, "px": np.full(len(inp["truth"]), 64 / 1.15)}  # the boxes' side, as read_boxes sees it
    read, top, margin = ss.combined_read(inp, model.combined, model.kind_gate)
    assert 0 < read.sum() < len(read)  # the kind gate and the margin leave some dice unread, not all
    close = (np.abs(margin - 1.0) < 1e-4) | (np.abs(inp["kind_p"] - gate) < 1e-5)
    assert (np.where(read, top + 1, 0)[~close] == got[~close]).all()
    small = {**inp, "px": np.full(len(inp["truth"]), 40.0)}  # under from_px: the bundle's own gates
    assert not ss.combined_read(small, model.combined, model.kind_gate)[0].any()


def test_the_large_dice_rule_chooses_from_large_dice_only():
    """Large d20s whose wrong readings have a low kind probability get a kind gate above those; the
    small dice (wrong half the time) change nothing; the d12, read on too few large dice, is not named."""
    from companion.vision import standard_sim as ss

    rng = np.random.default_rng(1)
    n = 3000
    px = np.where(np.arange(n) < n // 2, 40.0, 200.0)
    truth = rng.integers(0, 20, n)
    wrong = rng.random(n) < np.where(px < 90, 0.5, 0.1)
    shown = np.where(wrong, (truth + 1) % 20, truth)
    probs = np.full((n, 20), 1.0)
    probs[np.arange(n), shown] = np.exp(rng.uniform(0.5, 5.0, n))
    kinds = np.zeros((n, 6))
    kinds[:, 5] = np.where(wrong, 0.6, 0.9)  # the large dice read wrong are the unsure kinds
    kinds[:, 0] = 1.0 - kinds[:, 5]
    rec = {"d": np.full((n, 20), np.inf), "truth": truth, "known": np.zeros(n, bool), "px": px}
    inputs = {("d20", s): ss.combined_inputs({"kind": kinds, "value": probs}, rec, "d20", s) for s in (0, 2)}
    few = 100  # a d12 table of 100 large dice, every one read right
    k12 = np.zeros((few, 6))
    k12[:, 4] = 1.0
    p12 = np.full((few, 20), 1.0)
    t12 = rng.integers(0, 12, few)
    p12[np.arange(few), t12] = np.exp(4.0)
    rec12 = {
        "d": np.full((few, 20), np.inf),
        "truth": t12,
        "known": np.zeros(few, bool),
        "px": np.full(few, 200.0),
    }
    for s in (0, 2):
        inputs[("d12", s)] = ss.combined_inputs({"kind": k12, "value": p12}, rec12, "d12", s)
    rule = parse_rule(_rule_spec(), KINDS)
    large = ss.choose_large_dice(inputs, rule)
    assert large["from_px"] == 90.0
    assert set(large["min_kind_confidence"]) == {"d20"}
    assert 0.6 < large["min_kind_confidence"]["d20"] <= 0.9
    # the gate alone removes every wrong large die: of the margins that lose none (every lead is from 0.5
    # up), a tie goes to the highest
    assert large["min_margin"]["2"]["d20"] == 0.5
    assert set(large["min_margin"]) == {"0", "2"}
    parse_rule({**_rule_spec(), "large_dice": large}, KINDS)  # what it writes is a rule the bundle reads
