"""``bench/pooled_gates.py``: the reader's gates before enrolment chosen on sets of several widths pooled
(candidate G of models/polyhedral-oblique/CHANGELOG.md, stop 47), and every set read with given gates."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from profile_support import bench_module

from companion.vision.numerals import NumeralModel, load_numeral_model
from companion.vision.reader import models_dir
from companion.vision.reader_gate import BY_KIND_KEY, ReaderGate
from companion.vision.standard_frames import choose_gates, figures, pooled, raw_reads
from companion.vision.synth.real_tables import Standard, write_real_tables
from companion.vision.synth.standard_styles import CALIBRATION_STYLES

SETS = (("calibration-2-4-w640", 4, 640), ("calibration-2-5-w960", 5, 960))


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    """Two CALIBRATION frames at each of two widths, where the bench finds them (rendered in process)."""
    out = tmp_path_factory.mktemp("frames")
    for name, seed, width in SETS:
        style = Standard(CALIBRATION_STYLES[:6])
        write_real_tables(out / name, style, 2, seed=seed, width=width, height=width * 3 // 4, progress=False)
    return out


def _argv(root: Path) -> list[str]:
    return ["--data-root", str(root), "--set", "calibration:2:4:640", "--set", "calibration:2:5:960"]


def _low_gated(tmp_path: Path) -> Path:
    """The shipped bundle with every reader gate 0.2, so that the rule's choice shows (it only raises)."""
    out = tmp_path / "low"
    shutil.copytree(
        models_dir() / "polyhedral-oblique", out, ignore=shutil.ignore_patterns("candidates", "*.pt")
    )
    meta = json.loads((out / "model.json").read_text())
    meta[BY_KIND_KEY] = {k: 0.2 for k in meta[BY_KIND_KEY]}
    (out / "model.json").write_text(json.dumps(meta))
    return out


def test_the_gates_are_chosen_on_every_set_pooled_and_only_ever_rise(tmp_path, root, capsys):
    bench = bench_module("pooled_gates")
    out, fig, low = tmp_path / "gates.json", tmp_path / "fig.json", _low_gated(tmp_path)
    argv = [*_argv(root), "--model", str(low), "--choose", str(out), "--max-wrong", "0", "--json", str(fig)]
    assert bench.main(argv) == 0
    chosen = json.loads(out.read_text())[BY_KIND_KEY]
    model = NumeralModel(low)
    raws = [raw_reads(model, root / name) for name, _, _ in SETS]
    assert chosen == choose_gates(pooled(raws), model.gate, 0.0)  # both widths weighed together
    assert all(chosen != choose_gates(raw, model.gate, 0.0) for raw in raws)  # not either width alone
    assert chosen and all(g >= 0.2 for g in chosen.values()) and max(chosen.values()) > 0.2
    # at no wrong read allowed, no kind keeps a wrong read on the pooled sets under its chosen gate
    both = figures(pooled(raws), ReaderGate(model.gate.default, chosen))
    assert all(both[k]["read_wrong"] == 0 for k in chosen)
    # each width reported with the bundle's gates and with the chosen ones, as replayed here
    report = json.loads(fig.read_text())
    for (_, _, width), raw in zip(SETS, raws, strict=True):
        assert report[f"w{width}"]["own"] == json.loads(json.dumps(figures(raw, model.gate)))
        given = figures(raw, ReaderGate(model.gate.default, chosen))
        assert report[f"w{width}"]["given"] == json.loads(json.dumps(given))
    assert "chosen on all 4 frames by the rule" in capsys.readouterr().out
    # the shipped bundle's own gates are never lowered
    assert bench.main([*_argv(root), "--choose", str(out), "--max-wrong", "0.5"]) == 0
    shipped = load_numeral_model("polyhedral-oblique").gate
    assert all(g == shipped.of(k) for k, g in json.loads(out.read_text())[BY_KIND_KEY].items())


def test_a_set_is_read_with_given_gates_and_bad_input_is_refused_by_name(tmp_path, root, capsys):
    bench = bench_module("pooled_gates")
    gates, fig = tmp_path / "gates.json", tmp_path / "fig.json"
    gates.write_text(json.dumps({BY_KIND_KEY: {"d6": 0.99, "d20": 0.2}}))
    assert bench.main([*_argv(root)[:4], "--gates", str(gates), "--json", str(fig)]) == 0
    row = json.loads(fig.read_text())["w640"]
    model = load_numeral_model("polyhedral-oblique")
    raw = raw_reads(model, root / SETS[0][0])
    gate = ReaderGate.parse({**model.meta, BY_KIND_KEY: {"d6": 0.99, "d20": 0.2}}, model.kinds)
    assert row["given"] == json.loads(json.dumps(figures(raw, gate)))
    assert row["given"]["d6"]["read_right"] <= row["own"]["d6"]["read_right"]  # a higher gate reads no more
    for spec, match in (
        ({BY_KIND_KEY: {"d7": 0.5}}, "d7: not a kind this reader reads"),
        ({BY_KIND_KEY: {"d6": -0.5}}, BY_KIND_KEY + ".d6: expected a number from 0 up"),
        ({"gates": {}}, f"expected an object with '{BY_KIND_KEY}'"),
    ):
        gates.write_text(json.dumps(spec))
        with pytest.raises(SystemExit):
            bench.main([*_argv(root)[:4], "--gates", str(gates)])
        assert match in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bench.main(["--data-root", str(root), "--set", "test:2:4:640", "--choose", str(gates)])
    assert "--choose chooses on calibration frames only" in capsys.readouterr().err
