"""Standard dice seen obliquely: the style split, the oblique reader (``polyhedral-oblique``) and its
embedding (``numeral-embed``), enrolment of a held-out d20 set, and the training path in a smoke run.

The fixture ``fixtures/standard_d20`` holds 4 renders of every value of a d20 of TEST style 200000
(never trained on, never used for a choice; ``labels.json`` says how it was made): tiles 0-1 of a
value are enrolled, tiles 2-3 are read.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.synth.standard_styles import (
    CALIBRATION_STYLES,
    HELDOUT_FONT,
    TEST_STYLES,
    TRAIN_STYLES,
    read_mosaic,
    render_crops,
)

FIXTURE = Path(__file__).parent / "fixtures" / "standard_d20"
# Regression guards just under what the shipped networks measure on the fixture (40 read tiles); the strict
# figures on 60 test styles are printed by bench/enroll_standard.py (models/polyhedral-oblique/MODEL_CARD.md).
MIN_READER_RIGHT = 0.3
MAX_READER_WRONG = 0.10
MIN_NEAREST_RIGHT = 0.25  # the nearest of 2 enrolled sightings per value, no gate (chance: 0.05)
MAX_ENROLLED_WRONG = 0.05


def _split():
    tiles, labels = read_mosaic(FIXTURE)
    values = np.array(labels["values"])
    slot = np.arange(len(values)) % labels["per_value"]
    return tiles, values, slot < 2, slot >= 2


def test_style_splits_are_disjoint_and_the_held_out_font_is_never_trained_on():
    from companion.vision.synth.real_dice import poly_style

    assert not set(TRAIN_STYLES) & set(CALIBRATION_STYLES)
    assert not set(TRAIN_STYLES) & set(TEST_STYLES) and not set(CALIBRATION_STYLES) & set(TEST_STYLES)
    assert all(poly_style(s).font != HELDOUT_FONT for s in TRAIN_STYLES)
    assert any(poly_style(s).font == HELDOUT_FONT for s in TEST_STYLES)


def test_a_d10_ten_is_rendered_as_zero_and_labelled_ten():
    data = render_crops(
        40, TRAIN_STYLES[:2], seed=3, kind_weights={"d10": 1.0, "d4": 0, "d6": 0, "d8": 0, "d12": 0, "d20": 0}
    )
    assert set(data["value"]) <= set(range(1, 11)) and 10 in set(data["value"])
    assert data["crops"].shape == (40, 64, 64, 3) and data["crops"].std() > 5


def test_the_oblique_reader_reads_d20_renders_of_a_held_out_style():
    from companion.vision.numerals import load_numeral_model

    tiles, values, _, query = _split()
    model = load_numeral_model("polyhedral-oblique")
    kinds, read_values, conf = model.read_crops(tiles[query])
    read = conf >= model.gate.for_dice(kinds)  # each die under the gate of the kind it was read as
    right = read & (np.array(kinds) == "d20") & (read_values == values[query])
    assert right.mean() >= MIN_READER_RIGHT, right.mean()
    assert (read & ~right).mean() <= MAX_READER_WRONG, (read & ~right).mean()


def test_the_shipped_flat_reader_is_worse_on_the_same_oblique_renders():
    """Why the oblique reader ships: the flat-render ``polyhedral`` reader reads fewer of them right."""
    from companion.vision.numerals import load_numeral_model

    tiles, values, _, query = _split()
    scores = []
    for name in ("polyhedral", "polyhedral-oblique"):
        model = load_numeral_model(name)
        kinds, read_values, conf = model.read_crops(tiles[query])
        scores.append(
            (
                (conf >= model.gate.for_dice(kinds))
                & (np.array(kinds) == "d20")
                & (read_values == values[query])
            ).sum()
        )
    assert scores[1] > scores[0] + 5


def _corrections(folder: Path, tiles: np.ndarray, values: np.ndarray) -> Path:
    """One tablet correction per tile: the tile as the frame, the die's box so that ``crop_die`` cuts
    exactly the tile back (side 64 / 1.15, centred)."""
    folder.mkdir()
    half = 64 / 1.15 / 2
    box = [32 - half, 32 - half, 32 + half, 32 + half]
    for i, (t, v) in enumerate(zip(tiles, values, strict=True)):
        cv2.imwrite(str(folder / f"f{i:02d}.png"), t)
        (folder / f"f{i:02d}.json").write_text(
            json.dumps({"dice": [{"box": box, "kind": "d20", "value": int(v)}]})
        )
    return folder


def _read(model, tiles, profile=None) -> np.ndarray:
    """The value each tile reads as through a profile (the bundle's by default; 0: unreadable)."""
    emb, pc = model.embedder(tiles)
    profile = model.profile if profile is None else profile
    out = []
    for e, p in zip(emb, pc, strict=True):
        m = profile.read_any(e, "d20", float(p))
        out.append(m.label.count if m.label is not None else 0)
    return np.array(out)


def test_enrolling_two_photos_per_value_of_a_held_out_d20_set_teaches_its_values(tmp_path):
    from companion.vision.enroll import enroll, read_corrections
    from companion.vision.numerals import load_numeral_model
    from companion.vision.profile import FaceLabel, TableProfile

    tiles, values, enrol, query = _split()
    corr = _corrections(tmp_path / "corr", tiles[enrol], values[enrol])
    figures = enroll("polyhedral-oblique", tmp_path / "my-d20", read_corrections(corr))
    assert figures["faces_known"] == 20 and figures["crops"] == 40
    model = load_numeral_model(tmp_path / "my-d20")
    assert model.meta["embedding"]["turns"] == 1  # numeral-embed, named by the base bundle: a 6 is not a 9
    got = _read(model, tiles[query])
    wrong = (got != 0) & (got != values[query])
    assert wrong.mean() <= MAX_ENROLLED_WRONG, wrong.mean()  # the shipped gate: rarely a wrong value

    # the nearest enrolled value (no gate) is right far above chance (1 in 20) ...
    prof = model.profile
    open_gate = {
        **prof.settings,
        "standard_dice": {
            "scale": 8.0,
            "max_distance": 2.1,
            "min_margin": 0.0,
            "min_confidence": 0.0,
            "cocked_threshold": 1.01,
            "one_sighting": {"max_distance": 2.1, "min_margin": 0.0},
        },
    }
    emb, _ = model.embedder(tiles[enrol])
    nearest = TableProfile(prof.embedder_id, prof.dim, open_gate)
    nearest.add(emb, [FaceLabel("d20", "value", int(v)) for v in values[enrol]])
    near = _read(model, tiles[query], nearest)
    assert (near == values[query]).mean() >= MIN_NEAREST_RIGHT, (near == values[query]).mean()
    # ... and it is the prototypes that read: the same crops taught as the next value read as the next value
    shifted = TableProfile(prof.embedder_id, prof.dim, open_gate)
    shifted.add(emb, [FaceLabel("d20", "value", int(v) % 20 + 1) for v in values[enrol]])
    assert (_read(model, tiles[query], shifted) == near % 20 + 1).all()
    # before any enrolment nothing is read (unreadable, never a guess)
    assert (_read(model, tiles[query], TableProfile(prof.embedder_id, prof.dim, prof.settings)) == 0).all()


def test_training_path_smoke(tmp_path):
    """Render a few crops of TRAIN and CALIBRATION styles, train two epochs of a tiny net, export both
    bundles: the ONNX reader and embedding give what the torch net gives, and both load by folder."""
    from companion.vision.embedding import FaceEmbedder
    from companion.vision.enroll import embedding_model
    from companion.vision.numerals import KINDS, load_numeral_model
    from companion.vision.train.standard_training import export, load_net, predict, train

    for name, styles, n, seed in (
        ("train.npz", TRAIN_STYLES[:4], 64, 1),
        ("val.npz", CALIBRATION_STYLES[:2], 24, 2),
    ):
        np.savez(tmp_path / name, **render_crops(n, styles, seed))
    state = train(
        tmp_path / "train.npz",
        tmp_path / "val.npz",
        tmp_path / "work",
        epochs=2,
        width=4,
        batch=16,
        threads=1,
        log=lambda m: None,
    )
    assert state["epoch"] == 2 and len(state["history"]) == 2 and np.isfinite(state["history"][-1]["loss"])
    assert (tmp_path / "work" / "best.pt").is_file() and (tmp_path / "work" / "last.pt").is_file()
    export(tmp_path / "work" / "best.pt", tmp_path / "reader", tmp_path / "embed", {"smoke": True})

    crops = np.load(tmp_path / "val.npz")["crops"]
    kp, vp, e = predict(load_net(tmp_path / "work" / "best.pt"), crops)
    model = load_numeral_model(tmp_path / "reader")
    probs = model.faces(crops)
    assert np.allclose(probs["kind"], kp, atol=1e-4) and np.allclose(probs["value"], vp, atol=1e-4)
    assert model.kinds == KINDS and model.meta["embedding_network"] == "embed"
    folder, meta = embedding_model(tmp_path / "embed")
    assert meta["turns"] == 1
    emb, cocked = FaceEmbedder(folder / "embed.onnx", 1)(crops)
    assert np.allclose(emb, e, atol=1e-4) and np.allclose(np.linalg.norm(emb, axis=1), 1, atol=1e-4)
    assert (cocked < 1e-6).all()  # no cocked standard dice were rendered: never called cocked
    assert model.meta["min_face_confidence"] == 0.5 and "reads_upright" not in model.meta  # a new bundle

    # exported again into a bundle that says more of itself (turn check, calibrated gates): kept
    said = {"reads_upright": True, "min_face_confidence": 0.85, "min_face_confidence_by_kind": {"d20": 0.9}}
    (tmp_path / "reader" / "model.json").write_text(json.dumps({**model.meta, **said, "looks": "stale"}))
    export(tmp_path / "work" / "best.pt", tmp_path / "reader", tmp_path / "embed", {"smoke": True})
    again = json.loads((tmp_path / "reader" / "model.json").read_text())
    assert {k: again[k] for k in said} == said and again["looks"] == {"count": 1}
    from companion.vision.numerals import NumeralModel

    assert NumeralModel(tmp_path / "reader").reads_upright  # not the cache: the bundle changed

    # the five-look reader: the normalised geometric mean of the torch net's answers on the crop and its
    # four 2 px shifts (edge pixels repeated), shifted here with numpy, not with the exported code
    export(tmp_path / "work" / "best.pt", tmp_path / "reader5", tmp_path / "embed5", {"smoke": True}, shift=2)
    p = np.pad(crops, ((0, 0), (2, 2), (2, 2), (0, 0)), mode="edge")
    looks = [
        p[:, 2 + dy : 66 + dy, 2 + dx : 66 + dx] for dy, dx in ((0, 0), (0, -2), (0, 2), (-2, 0), (2, 0))
    ]
    answers = [predict(load_net(tmp_path / "work" / "best.pt"), look) for look in looks]
    five = load_numeral_model(tmp_path / "reader5")
    assert five.meta["looks"] == {"count": 5, "shift_px": 2} and model.meta["looks"] == {"count": 1}
    got = five.faces(crops)
    for head, i in (("kind", 0), ("value", 1)):
        want = np.exp(np.mean([np.log(a[i]) for a in answers], axis=0))
        want /= want.sum(1, keepdims=True)
        # nearer the five looks' mean than the one look by far (a tiny net of two epochs answers nearly alike)
        off, one = np.abs(got[head] - want).max(), np.abs(got[head] - probs[head]).max()
        assert off < 1e-5 and off * 10 < one, (head, off, one)


def test_the_bench_simulation_reads_exactly_as_the_table_profile_does():
    """``standard_sim`` (what bench/enroll_standard.py measures) gives the readings
    ``TableProfile.read_any`` gives, with one value never enrolled, at 1 and 2 sightings."""
    from companion.vision import enroll_sim as es
    from companion.vision import standard_sim as ss
    from companion.vision.embedding import FaceEmbedder
    from companion.vision.enroll import embedding_model
    from companion.vision.profile import FaceLabel, TableProfile

    tiles, values, enrol, query = _split()
    folder, meta = embedding_model("numeral-embed")
    embedder = FaceEmbedder(folder / "embed.onnx", 1)
    enrolled = np.ones(20, bool)
    enrolled[6] = False  # the 7 is never taught: it must not be read as a neighbour
    table = ss.StdTable(
        0, "d20", tiles[enrol].reshape(20, 2, 64, 64, 3), enrolled, tiles[query], values[query]
    )
    recs = ss.records([table], embedder, (1, 2))["d20"]
    for shots in (1, 2):
        read, k = es._gate(recs[shots], ss.standard_settings(meta["reading"]))
        simulated = np.where(read, k + 1, 0)
        prof = TableProfile("x", embedder.dim, meta["reading"])
        for v in range(1, 21):
            if enrolled[v - 1]:
                emb, _ = embedder(table.enrol[v - 1, :shots])
                prof.add(emb, [FaceLabel("d20", "value", v)] * shots)
        emb, pc = embedder(table.queries)
        real = [
            m.label.count if m.label else 0
            for m in (prof.read_any(e, "d20", float(c)) for e, c in zip(emb, pc, strict=True))
        ]
        assert (simulated == np.array(real)).all()
        # and the open gate reads every die as its nearest enrolled value, never the 7
        read_all, k_all = es._gate(
            recs[shots], {"max_distance": 2.1, "min_margin": 0.0, "cocked_threshold": 1.01}
        )
        assert read_all.all() and 6 not in set(k_all)


def test_figures_of_no_records_are_empty_not_a_crash():
    """``bench/enroll_standard.py --calibrate --test-styles 0`` scores no test tables: no figures."""
    from companion.vision import standard_sim as ss

    assert ss.curves({}, {"scale": 8.0, "max_distance": 0.3, "min_confidence": 0.4}) == {}


def _bench_standard():
    from profile_support import bench_module

    return bench_module("enroll_standard")


def test_the_bench_reads_dice_sized_for_a_wider_frame_and_reports_them_by_size(tmp_path):
    """``--frame-width``: the dice are drawn that many times larger, kept apart in the cache, and the
    by-size table counts them in the larger bands; bad widths and bands are refused."""
    bench = _bench_standard()
    out = tmp_path / "r.json"
    common = ["--combined", "polyhedral-oblique", "--kinds", "d8", "--cal-styles", "0", "--test-styles", "1"]
    common += ["--cache", str(tmp_path / "c"), "--plot", ""]
    assert bench.main([*common, "--frame-width", "3840", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert report["frame_width"] == [3840]
    by_size = report["combined"]["polyhedral-oblique"]["test_by_size"]["d8"]
    assert sum(f["queries"] for f in by_size.values()) == 24
    # 26-90 px dice of a 1280 px frame, three times larger: none in the small bands
    assert not {"0-40 px", "40-60 px"} & set(by_size) and by_size[">= 135 px"]["queries"] >= 12
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["test_1styles_d8_seed0_w3840.npz"]
    for bad in (["--frame-width", "100"], ["--band-max-wrong", "0.5"], ["--size-bands", "40,60"]):
        with pytest.raises(SystemExit):
            bench.main([*common, *bad])


def test_reader_figures_by_kind_scores_each_kind_on_its_own_dice_and_all_together():
    """``standard_sim.reader_figures_by_kind`` (the benches' per-kind table): each kind's figures are those of
    its own dice alone, and ``all`` those of every die; a kind with no die is left out."""
    from companion.vision import standard_sim as ss
    from companion.vision.numerals import KINDS

    rng = np.random.default_rng(3)
    n = 40
    names = np.array(["d20" if i % 3 else "d6" for i in range(n)])
    kinds = np.array([KINDS.index(x) for x in names])
    values = np.array([int(rng.integers(1, 7)) if x == "d6" else int(rng.integers(1, 21)) for x in names])
    probs = {"kind": rng.dirichlet(np.ones(len(KINDS)), n), "value": rng.dirichlet(np.ones(20), n)}
    for i in np.flatnonzero(names == "d20")[::2]:  # half the d20s read surely and right: kinds differ
        probs["kind"][i] = np.eye(len(KINDS))[kinds[i]]
        probs["value"][i] = np.eye(20)[values[i] - 1]
    out = ss.reader_figures_by_kind(probs, kinds, values, names, 0.5)
    assert set(out) == {"d20", "d6", "all"}
    for k in ("d20", "d6"):
        mine = names == k
        want = ss.reader_figures({h: p[mine] for h, p in probs.items()}, kinds[mine], values[mine], 0.5)
        assert out[k] == want and out[k]["dice"] == int(mine.sum())
    assert out["all"] == ss.reader_figures(probs, kinds, values, 0.5)
    assert out["d6"]["right"] != out["d20"]["right"]


def test_the_bench_chooses_large_dice_gates_into_a_file_and_reads_with_them_leaving_the_bundle(
    tmp_path, capsys
):
    """``--choose-large-dice FILE`` writes a section the bundle can read (here from too few dice to name a
    kind); ``--large-dice FILE`` reads with it and prints how many dice it judges; the bundle's
    ``model.json`` is never written; both need ``--combined``."""
    from companion.vision.combined_reading import COMBINED_KEY, parse_rule

    bench = _bench_standard()
    model_json = Path(__file__).resolve().parents[2] / "models" / "polyhedral-oblique" / "model.json"
    before = model_json.read_bytes()
    chosen = tmp_path / "large.json"
    common = ["--combined", "polyhedral-oblique", "--kinds", "d8", "--cal-styles", "1", "--test-styles", "1"]
    common += ["--cache", str(tmp_path / "c"), "--plot", "", "--frame-width", "3840"]
    assert bench.main([*common, "--choose-large-dice", str(chosen)]) == 0
    large = json.loads(chosen.read_text())["large_dice"]
    assert large["from_px"] == 90.0 and large["min_kind_confidence"] == {}  # 24 large d8s: under 300
    meta = json.loads(before)
    parse_rule({**meta[COMBINED_KEY], "large_dice": large}, tuple(meta["face_heads"]["kind"]))
    capsys.readouterr()
    assert bench.main([*common, "--large-dice", str(chosen)]) == 0
    import re

    printed = capsys.readouterr().out
    seen = re.search(r"test: (\d+) of 24 dice at least 90 px across", printed)
    assert seen and 12 <= int(seen.group(1)) <= 24  # the dice 3 times a 1280 px frame's 26-90 px
    assert re.search(r"calibration, 2 sightings: \d+ of 24 dice read otherwise", printed)
    # the bundle's own section given again (or, where it ships none, one naming no kind): no die reads
    # otherwise, at any level
    same = tmp_path / "same.json"
    same.write_text(json.dumps({"large_dice": meta[COMBINED_KEY].get("large_dice", large)}))
    assert bench.main([*common, "--large-dice", str(same)]) == 0
    assert capsys.readouterr().out.count(" 0 of 24 dice read otherwise") == 5
    assert model_json.read_bytes() == before
    with pytest.raises(SystemExit):
        bench.main(["--reader", "polyhedral-oblique", "--large-dice", str(chosen), "--test-styles", "0"])
