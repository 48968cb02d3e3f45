"""The standard-dice reader's gate: one over all kinds, and one per kind read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from companion.vision import standard_sim as ss
from companion.vision.numerals import KINDS
from companion.vision.reader_gate import BY_KIND_KEY, KEY, GateError, ReaderGate

SHIPPED = Path(__file__).resolve().parents[2] / "models" / "polyhedral-oblique"


def test_a_die_is_judged_by_the_gate_of_the_kind_it_was_read_as():
    gate = ReaderGate.parse({KEY: 0.8, BY_KIND_KEY: {"d20": 0.95, "d4": 0.99}}, KINDS)
    assert gate.of("d20") == 0.95 and gate.of("d4") == 0.99 and gate.of("d6") == 0.8
    assert gate.for_dice(["d6", "d20", "d4"]).tolist() == [0.8, 0.95, 0.99]
    assert ReaderGate.parse(gate.to_meta(), KINDS) == gate
    assert ReaderGate.parse({}, KINDS) == ReaderGate(0.5, {})  # a bundle naming none
    assert ReaderGate(0.7).to_meta() == {KEY: 0.7}
    assert (
        ReaderGate.parse({KEY: 1.01}, KINDS).of("d6") == 1.01
    )  # above any confidence: a bundle reading none


@pytest.mark.parametrize(
    ("meta", "named"),
    [
        ({KEY: -0.5}, KEY),
        ({KEY: float("nan")}, KEY),
        ({KEY: "high"}, KEY),
        ({KEY: True}, KEY),
        ({BY_KIND_KEY: {"d20": -0.1}}, f"{BY_KIND_KEY}.d20"),
        ({BY_KIND_KEY: {"d7": 0.9}}, f"{BY_KIND_KEY}.d7"),
        ({BY_KIND_KEY: [0.9]}, BY_KIND_KEY),
    ],
)
def test_a_bad_gate_is_refused_naming_its_key(meta, named):
    with pytest.raises(GateError, match=named.replace(".", r"\.")):
        ReaderGate.parse(meta, KINDS)


def _probs(kind_read: list[int], value_read: list[int], confidence: list[float]) -> dict:
    """Reader outputs that decode to the given kind, value and confidence (the kind sure, the value at
    ``confidence`` and the rest spread over the kind's other faces)."""
    from companion.vision.numerals import SIDES

    n = len(kind_read)
    kind, value = np.zeros((n, len(KINDS))), np.zeros((n, 20))
    for i, (k, v, c) in enumerate(zip(kind_read, value_read, confidence, strict=True)):
        sides = SIDES[KINDS[k]]
        kind[i, k] = 1.0
        value[i, :sides] = (1 - c) / (sides - 1)
        value[i, v - 1] = c
    return {"kind": kind, "value": value}


def test_the_gate_per_kind_holds_each_kind_read_within_the_bound():
    # d6 dice all right at 0.5; d20 dice: 10 wrong at 0.6, 90 right at 0.9
    d6, d20 = KINDS.index("d6"), KINDS.index("d20")
    kind_read = [d6] * 100 + [d20] * 100
    value_read = [3] * 100 + [7] * 100
    conf = [0.5] * 100 + [0.6] * 10 + [0.9] * 90
    truth_values = np.array([3] * 100 + [8] * 10 + [7] * 90)
    probs = _probs(kind_read, value_read, conf)
    kinds = np.array(kind_read)
    gates = ss.choose_min_conf_by_kind(probs, kinds, truth_values)
    assert set(gates) == {"d6", "d20"}  # kinds nothing was read as get no gate of their own
    assert gates["d6"] == ss.MIN_CONFS[0]  # nothing wrong: the lowest gate
    assert 0.6 < gates["d20"] <= 0.9  # the wrong d20s (0.6) are kept out, the right ones (0.9) read
    # one gate over all kinds lets 5 % of all dice through wrong at the d6's gate; this one none
    pooled = ss.reader_figures(probs, kinds, truth_values, ss.MIN_CONFS[0])
    per_kind = ss.reader_figures(probs, kinds, truth_values, ReaderGate(ss.MIN_CONFS[0], gates))
    assert pooled["confidently_wrong"] == pytest.approx(0.05)
    assert per_kind["confidently_wrong"] == 0.0 and per_kind["right"] == pytest.approx(0.95)


def test_the_bundle_reads_each_die_under_its_kinds_gate(tmp_path):
    from companion.vision.numerals import NumeralModel
    from companion.vision.synth.standard_styles import read_mosaic

    tiles, labels = read_mosaic(Path(__file__).parent / "fixtures" / "standard_d20")
    bundle = tmp_path / "polyhedral-oblique"
    shutil.copytree(SHIPPED, bundle, ignore=shutil.ignore_patterns("*.pt"))
    meta = json.loads((bundle / "model.json").read_text())
    frame = np.concatenate(list(tiles[:10]), axis=1)
    boxes = [[32 + 64 * i - 27.8, 4.2, 32 + 64 * i + 27.8, 59.8] for i in range(10)]

    def read(by_kind: dict) -> list:
        meta[KEY], meta[BY_KIND_KEY] = 0.0, by_kind
        (bundle / "model.json").write_text(json.dumps(meta))
        return NumeralModel(bundle).read_boxes(frame, np.array(boxes))

    free = read({})
    assert sum(not r.unreadable for r in free) == 10  # no gate: every die read
    shut = read({r.kind: 1.0 for r in free})  # the kinds these dice were read as: unreachable gates
    assert all(r.unreadable and r.value is None for r in shut)
    other = read({k: 1.0 for k in KINDS if k not in {r.kind for r in free}})  # other kinds' gates only
    assert [r.value for r in other] == [r.value for r in free]


def test_a_bundle_with_a_bad_gate_is_refused_naming_the_file_and_key(tmp_path):
    from companion.vision.numerals import NumeralModel
    from companion.vision.reader import ModelError

    bundle = tmp_path / "polyhedral-oblique"
    shutil.copytree(SHIPPED, bundle, ignore=shutil.ignore_patterns("*.pt"))
    meta = json.loads((bundle / "model.json").read_text())
    meta[BY_KIND_KEY] = {"d20": "sure"}
    (bundle / "model.json").write_text(json.dumps(meta))
    with pytest.raises(ModelError, match=r"model\.json.*min_face_confidence_by_kind\.d20"):
        NumeralModel(bundle)
