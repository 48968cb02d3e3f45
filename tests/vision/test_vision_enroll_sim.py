"""The enrolment simulation's rendered-tables cache (``enroll_sim.cached_tables``, ``bench/enroll.py
--tables-cache``) and its family-aware gate rules (``enroll_sim.family_bound``, ``GATE_RULES``)."""

from __future__ import annotations

import importlib.util
import json
import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from companion.vision import enroll_sim as es
from companion.vision.profile import FaceLabel

REPO = Path(__file__).resolve().parents[2]


def _bench():
    spec = importlib.util.spec_from_file_location("bench_enroll_under_test", REPO / "bench" / "enroll.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


# --------------------------------------------------------------------------- the tables cache


def _fake_table(args: tuple) -> es.Table:
    """A table drawn from its arguments alone (fast; stands in for the renderer)."""
    fam, seed, queries, shots, _, _, *_ = args
    rng = np.random.default_rng(seed)
    crop = lambda: rng.integers(0, 256, (64, 64, 3), dtype=np.uint8)  # noqa: E731
    label = FaceLabel("d6", "Melee", 2, "Dwarves/Mammoth Rider", "Dwarves")
    enrol = {"sp:Dwarves|d6|2 Melee": (np.stack([crop() for _ in range(shots)]), label)}
    qs = [(0, int(rng.integers(6)), bool(rng.random() < 0.3), crop()) for _ in range(queries)]
    return es.Table(int(fam), ["Dwarves/Mammoth Rider"], enrol, qs, {"sp:Dwarves|d6|3 Save"})


def _same(a: list, b: list) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if (x.family, x.dice, x.withheld, list(x.enrol)) != (y.family, y.dice, y.withheld, list(y.enrol)):
            return False
        if any(
            not np.array_equal(x.enrol[k][0], y.enrol[k][0]) or x.enrol[k][1] != y.enrol[k][1]
            for k in x.enrol
        ):
            return False
        if len(x.queries) != len(y.queries) or any(
            q[:3] != r[:3] or not np.array_equal(q[3], r[3])
            for q, r in zip(x.queries, y.queries, strict=True)
        ):
            return False
    return True


@pytest.fixture
def fake_renderer(monkeypatch):
    calls = []

    def render(args):
        calls.append(args)
        return _fake_table(args)

    monkeypatch.setattr(es, "_one_table", render)
    return calls


ARGS = {"tables_per_family": 2, "queries": 3, "max_shots": 2, "seed": 5}


def test_the_cache_reads_back_the_very_same_renders(tmp_path):
    """A real render (one small table), kept and read back: the same crops, labels and queries as
    ``render_tables`` draws with the same arguments, and nothing rendered the second time."""
    args = {"tables_per_family": 1, "queries": 2, "max_shots": 1, "seed": 3}
    first = es.cached_tables(tmp_path, "calibration", [46], **args)
    assert _same(first, es.render_tables([46], **args))
    (folder,) = tmp_path.iterdir()
    assert folder.name.startswith("calibration-") and (folder / "table-0000.npz").is_file()
    key = json.loads((folder / "key.json").read_text())
    assert key["key"]["families"] == [46] and key["key"]["seed"] == 3 and key["renderer"]

    def no_render(args):
        raise AssertionError("rendered again")

    es_one = es._one_table
    try:
        es._one_table = no_render
        again = es.cached_tables(tmp_path, "calibration", [46], **args)
    finally:
        es._one_table = es_one
    assert _same(again, first)


def test_other_arguments_render_anew_in_their_own_folder(tmp_path, fake_renderer):
    a = es.cached_tables(tmp_path, "calibration", [46, 47], **ARGS)
    assert len(fake_renderer) == 4
    assert _same(es.cached_tables(tmp_path, "calibration", [46, 47], **ARGS), a) and len(fake_renderer) == 4
    for change in ({"seed": 6}, {"queries": 4}, {"tables_per_family": 3}, {"max_shots": 3}, {"cocked": 0.2}):
        before = len(fake_renderer)
        es.cached_tables(tmp_path, "calibration", [46, 47], **{**ARGS, **change})
        assert fake_renderer[before:] == es.table_args([46, 47], **{**ARGS, **change}), change
    # a sharper camera: its own folder and arguments; a resolution of 1 keeps the arguments of before
    assert es.table_args([46, 47], **ARGS, resolution=1.0) == es.table_args([46, 47], **ARGS)
    before = len(fake_renderer)
    es.cached_tables(tmp_path, "calibration", [46, 47], **ARGS, resolution=2.5)
    assert fake_renderer[before:] == es.table_args([46, 47], **ARGS, resolution=2.5)
    assert all(a[-1] == 2.5 for a in fake_renderer[before:])
    del fake_renderer[before:]  # the tables at 2.5 do not count below
    es.cached_tables(tmp_path, "calibration", [46, 48], **ARGS)  # other families
    es.cached_tables(tmp_path, "fresh", [46, 47], **ARGS)  # another split
    assert len(fake_renderer) == 4 + 4 + 4 + 6 + 4 + 4 + 4 + 4
    assert len(list(tmp_path.iterdir())) == 9  # the 2.5 folder too


def test_an_interrupted_render_goes_on_where_it_stopped(tmp_path, fake_renderer):
    a = es.cached_tables(tmp_path, "calibration", [46, 47], **ARGS)
    (folder,) = tmp_path.iterdir()
    (folder / "table-0002.npz").unlink()
    done = []
    b = es.cached_tables(tmp_path, "calibration", [46, 47], progress=lambda d, t: done.append((d, t)), **ARGS)
    assert _same(a, b) and len(fake_renderer) == 5 and done[-1] == (4, 4)
    assert fake_renderer[-1] == es.table_args([46, 47], **ARGS)[2]


@pytest.mark.parametrize(
    "damage",
    [
        lambda p, other: p.write_bytes(b"this is not a table"),  # corrupt
        lambda p, other: p.write_bytes(p.read_bytes()[:200]),  # cut short
        lambda p, other: np.savez(p.open("wb"), crops=np.zeros((1, 64, 64, 3), np.uint8)),  # foreign npz
        lambda p, other: p.write_bytes(other.read_bytes()),  # a table of other arguments
    ],
    ids=["corrupt", "truncated", "foreign", "other-arguments"],
)
def test_a_corrupt_or_foreign_table_file_is_refused_naming_it(tmp_path, fake_renderer, damage):
    es.cached_tables(tmp_path / "a", "calibration", [46, 47], **ARGS)
    es.cached_tables(tmp_path / "b", "calibration", [46, 47], **{**ARGS, "seed": 9})
    (folder,) = (tmp_path / "a").iterdir()
    (other,) = (tmp_path / "b").iterdir()
    path = folder / "table-0001.npz"
    damage(path, other / "table-0001.npz")
    before = path.read_bytes()
    with pytest.raises(es.TablesCacheError, match=str(path).replace(".", r"\.")):
        es.cached_tables(tmp_path / "a", "calibration", [46, 47], **ARGS)
    assert path.read_bytes() == before  # nothing overwritten


def test_a_foreign_key_file_is_refused_naming_it(tmp_path, fake_renderer):
    es.cached_tables(tmp_path, "calibration", [46], **ARGS)
    (folder,) = tmp_path.iterdir()
    (folder / "key.json").write_text('{"key": {"split": "something else"}}')
    with pytest.raises(es.TablesCacheError, match="key.json"):
        es.cached_tables(tmp_path, "calibration", [46], **ARGS)


def test_bench_render_only_fills_the_cache_and_a_scoring_run_reads_it(tmp_path, fake_renderer, capsys):
    bench = _bench()
    with pytest.raises(SystemExit):
        bench.main(["--render-only"])  # where would the renders go?
    assert "--tables-cache" in capsys.readouterr().err
    cache = tmp_path / "tables"
    rc = bench.main(
        ["--render-only", "--tables-cache", str(cache), "--tables-per-family", "1", "--queries", "2"]
    )
    assert rc == 0
    n_cal, n_test = len(bench.art.CALIBRATION_FAMILIES), len(bench.art.FRESH_TEST_FAMILIES)
    assert len(fake_renderer) == n_cal + n_test
    assert sorted(p.name.split("-")[0] for p in cache.iterdir()) == ["calibration", "fresh"]
    # a scoring run with the same arguments reads those tables and renders nothing
    a = bench.argparse.Namespace(tables_per_family=1, queries=2, workers=0, tables_cache=str(cache))
    tables = bench.tables_of(bench.art.FRESH_TEST_FAMILIES, a, "fresh", bench.TEST_SEED)
    assert len(fake_renderer) == n_cal + n_test and [t.family for t in tables] == list(
        bench.art.FRESH_TEST_FAMILIES
    )


def test_calibration_records_of_another_embedding_are_refused_naming_the_file(tmp_path):
    bench = _bench()
    key = {"embedding_sha256": "ab" * 32, "turns": 1, "families": [46], "seed": 1}
    path = tmp_path / "cal.pkl"
    path.write_bytes(pickle.dumps({"key": key, "records": {"records": {}, "tables": 1}}))
    assert bench.read_records(path, key) == {"records": {}, "tables": 1}
    with pytest.raises(SystemExit, match=r"cal\.pkl.*differs in embedding_sha256"):
        bench.read_records(path, {**key, "embedding_sha256": "cd" * 32})
    path.write_bytes(pickle.dumps({"records": {}}))  # a file of the earlier format: no key
    with pytest.raises(SystemExit, match=r"cal\.pkl: not a calibration records file"):
        bench.read_records(path, key)


# --------------------------------------------------------------------------- family-aware gate rules


def _family_records(clustered: bool, families: int = 20, per_family: int = 1000, seed: int = 0) -> dict:
    """One level's records (3 sightings) of ``families`` art families: the nearest face lies at d1, the
    second a margin farther; 1.5 % of the dice are nearest a wrong face, with smaller margins.  The same
    dice either way: spread evenly over the families, or the wrong ones crowded into families 0-2."""
    rng = np.random.default_rng(seed)
    n = families * per_family
    wrong = np.zeros(n, bool)
    wrong[: int(0.015 * n)] = True
    d1 = rng.uniform(0.05, 0.5, n)
    margin = np.where(wrong, rng.uniform(0.0, 0.5, n), rng.uniform(0.0, 1.0, n))
    if clustered:  # the wrong dice round-robin over families 0-2, the right ones fill every family up
        fam = np.empty(n, int)
        fam[wrong] = np.arange(wrong.sum()) % 3
        room = np.full(families, per_family) - np.bincount(fam[wrong], minlength=families)
        fam[~wrong] = np.repeat(np.arange(families), room)
    else:
        fam = rng.permutation(np.arange(n) % families)
    d = np.full((n, 12), np.inf)
    d[:, 0] = d1
    d[:, 1] = d1 + margin
    d[:, 2:6] = (d1 + margin)[:, None] + rng.uniform(0.01, 0.5, (n, 4))
    same = np.zeros((n, 12), bool)
    same[np.arange(n), np.where(wrong, 1, 0)] = True
    rec = {
        "d": d,
        "truth": np.where(wrong, 1, 0),
        "known": np.ones(n, bool),
        "cocked": np.zeros(n, bool),
        "pc": np.zeros(n),
        "same": same,
        "full": np.zeros(n, bool),
        "n": np.full(n, 3),
        "family": fam,
    }
    return {3: rec}


def _per_family_wrong(rec: dict, setting: dict) -> np.ndarray:
    read, k = es._gate(rec, setting)
    bad = read & ~rec["same"][np.arange(len(k)), k]
    return np.bincount(rec["family"][bad], minlength=20) / np.bincount(rec["family"], minlength=20)


def test_family_bound_sees_wrong_readings_crowded_into_few_families():
    flat = np.full(20, 300.0)
    spread = np.full(20, 3.0)  # 60 wrong readings, 1 % of 6000, in every family alike
    crowded = np.zeros(20)
    crowded[:2] = 30.0  # the same 60 in two families
    boot_spread = es.family_bound(spread, flat, bootstrap=0.99)
    boot_crowded = es.family_bound(crowded, flat, bootstrap=0.99)
    assert boot_spread == pytest.approx(0.01)  # no spread between families: the pooled rate
    assert boot_crowded > 0.015 > boot_spread  # the same pooled rate, a much wider bound
    assert es.family_bound(crowded, flat, bootstrap=0.95) < boot_crowded
    assert es.family_bound(crowded, flat, quantile=1.0) == pytest.approx(0.1)  # the worst family
    assert es.family_bound(crowded, flat, quantile=0.9) == 0.0  # 18 of 20 families read nothing wrong
    assert es.family_bound(spread, flat, quantile=0.9) == pytest.approx(0.01)
    # families without flat dice are left out of the quantile; the bound is the larger of those asked
    assert es.family_bound(np.array([0.0, 5.0]), np.array([0.0, 100.0]), quantile=0.5) == pytest.approx(0.05)
    both = es.family_bound(crowded, flat, bootstrap=0.99, quantile=1.0)
    assert both == max(boot_crowded, 0.1)
    # a batch of candidate gates at once (leading axes) gives each its own bound
    batch = es.family_bound(np.stack([spread, crowded]), flat, bootstrap=0.99)
    assert batch == pytest.approx([boot_spread, boot_crowded])


@pytest.mark.parametrize(
    "rule",
    [
        name
        for name, rule in es.GATE_RULES.items()
        if rule.get("family_bootstrap") or rule.get("family_quantile")
    ],
)
def test_each_family_rule_reads_less_when_the_wrong_readings_cluster_by_family(rule):
    """The same dice, the wrong ones spread over the families or crowded into three: a rule that ignored
    the families would choose the same gate both ways (as the Clopper-Pearson rule does)."""
    spread, crowded = _family_records(False), _family_records(True)
    kw = {k: v for k, v in es.GATE_RULES[rule].items() if k != "by_sightings"}
    s_set, s_fig = es.calibrate(spread, levels=(3,), **kw)
    c_set, c_fig = es.calibrate(crowded, levels=(3,), **kw)
    assert s_set["bound_met"] and c_set["bound_met"]
    assert c_fig[3]["accuracy"] < s_fig[3]["accuracy"]
    assert s_fig[3]["accuracy"] > 0.2  # the bound is held by reading, not by refusing everything
    for rec, setting in ((spread[3], s_set), (crowded[3], c_set)):
        per = _per_family_wrong(rec, setting)
        if kw.get("family_quantile") is not None:  # the rule as it says: that share of families held
            assert (per <= 0.005).mean() >= kw["family_quantile"]
        if kw.get("family_bootstrap") is not None:
            wrong = per * 1000
            assert es.family_bound(wrong, np.full(20, 1000.0), bootstrap=kw["family_bootstrap"]) <= 0.005
    # the per-dice bound alone does not see the families: the same gate both ways
    plain = {"confidence": kw.get("confidence")}
    assert es.calibrate(spread, levels=(3,), **plain)[0] == es.calibrate(crowded, levels=(3,), **plain)[0]


def test_the_family_bootstrap_rule_keeps_the_per_dice_bound_too():
    """Where the families do not differ, the rule still holds the Clopper-Pearson bound it names."""
    spread = _family_records(False)
    boot, _ = es.calibrate(spread, levels=(3,), confidence=0.99, family_bootstrap=0.99)
    read, k = es._gate(spread[3], boot)
    wrong = int((read & ~spread[3]["same"][np.arange(len(k)), k]).sum())
    assert es.wrong_bound(wrong, len(k), 0.99) <= 0.005


def test_leaving_one_family_out_with_a_shared_memo_gives_the_same_figures():
    recs = _family_records(True, families=6, per_family=200)
    recs = {s: recs[3] for s in (1, 2, 3)}
    rules = {
        k: {**es.GATE_RULES[k], "levels": (1, 2, 3)}
        for k in ("per level, 99 % bound", "per level, family bootstrap 99 %", "per level, every family")
    }
    name, shared = es.choose_rule(recs, rules)
    for rule_name, rule in rules.items():
        assert es.leave_one_family_out(recs, **rule) == shared[rule_name]
    assert name in rules


def _left_out(wrong_per_family: list[int], accuracy: float, flat: int = 300) -> dict:
    """``leave_one_family_out``-like figures (levels 0 and 3) with these left-out wrong counts."""
    fams = range(len(wrong_per_family))
    level = {
        "confidently_wrong": sum(wrong_per_family) / (flat * len(wrong_per_family)),
        "accuracy": accuracy,
        "family_wrong": dict(zip(fams, wrong_per_family, strict=True)),
        "family_flat": dict.fromkeys(fams, flat),
    }
    zero = {**level, "confidently_wrong": 0.0, "accuracy": 0.0, "family_wrong": dict.fromkeys(fams, 0)}
    return {0: zero, 3: level}


def test_left_out_bound_widens_with_the_spread_between_families():
    spread = _left_out([1] * 30, 0.3)  # 30 wrong of 9000: 0.33 %
    crowded = _left_out([10, 10, 10] + [0] * 27, 0.3)  # the same 30 in three families
    assert es.left_out_bound(spread, 0.95)[3] < 0.005 < es.left_out_bound(crowded, 0.95)[3]
    # fewer families per draw (a smaller strict set) spread wider; a higher confidence is higher
    assert es.left_out_bound(crowded, 0.95, draws=10)[3] > es.left_out_bound(crowded, 0.95)[3]
    assert es.left_out_bound(crowded, 0.99)[3] > es.left_out_bound(crowded, 0.95)[3]
    assert es.left_out_bound(spread, 0.95)[0] == 0.0


def test_the_family_aware_selection_passes_over_a_rule_that_holds_only_on_average(monkeypatch):
    """Both rules read under 0.5 % wrong on the left-out families together; the looser one reads
    better but its wrong readings sit in three families: picked by the left-out rate alone, passed
    over when the left-out families are drawn again."""
    figs = {
        "loose": _left_out([12, 12, 12] + [0] * 29, 0.40),  # 36 of 9600: 0.375 %
        "strict": _left_out([1] * 12 + [0] * 20, 0.30),  # 12 of 9600: 0.125 %
    }
    monkeypatch.setattr(es, "leave_one_family_out", lambda records, memo=None, **rule: figs[rule["name"]])
    rules = {"loose": {"name": "loose"}, "strict": {"name": "strict"}}
    assert es.choose_rule({}, rules)[0] == "loose"
    name, out = es.choose_rule({}, rules, family_confidence=0.95, draws=24)
    assert name == "strict"
    assert out["loose"][3]["left_out_bound"] > 0.005 >= out["strict"][3]["left_out_bound"]
    # no rule holds: the one with the lowest bound
    figs["strict"] = _left_out([6, 6, 6] + [0] * 29, 0.30)
    assert es.choose_rule({}, rules, family_confidence=0.95, draws=24)[0] == "strict"


def test_a_table_for_a_sharper_camera_draws_larger_dice():
    """``_one_table`` with a resolution: the same army, its crops drawn with more pixels (the table under
    each die is drawn at the frame's scale, so later draws, such as the queries' faces, may differ)."""
    args = es.table_args([46], tables_per_family=1, queries=3, max_shots=1, seed=3)[0]
    plain = es._one_table(args)
    sharp = es._one_table((*args, 3.0))
    assert plain.dice == sharp.dice and list(plain.enrol) == list(sharp.enrol)

    def detail(crops):
        import cv2

        return np.mean(
            [np.abs(cv2.Laplacian(c.mean(2).astype(np.float32), cv2.CV_32F)).mean() for c in crops]
        )

    assert detail([q[3] for q in sharp.queries]) > detail([q[3] for q in plain.queries])
