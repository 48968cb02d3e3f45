"""Standard dice (d4..d20): learning curves of table-profile enrolment on held-out styles, and the
numeral readers before any enrolment.

    python bench/enroll_standard.py [--embedding face-embed --embedding numeral-embed]
                                    [--reader polyhedral --reader polyhedral-oblique]
                                    [--combined polyhedral-oblique]
                                    [--kinds d20] [--calibrate] [--workers 2] [--json OUT]
                                    [--plot docs/images/enroll_standard_curve.png]

Dice are rendered obliquely (``synth.real_dice.render_polyhedral_crop``: opaque, marbled and
translucent plastic, inked numerals, camera 30-60 degrees from straight down) in the styles of
``synth.standard_styles``:

* **TEST styles**: never trained on, never used for any choice: the strict figures;
* **CALIBRATION styles**: where ``--calibrate`` chooses each embedding's ``standard_dice`` gate (written
  into its ``model.json``) and each reader's ``min_face_confidence``; their figures are labelled so.

One table per (style, die kind): every value of the die is enrolled from 0, 1, 2, 3 and 5 sightings
(10 % of the values never: they must come out unreadable), then fresh renders of that die are read
against the profile (``TableProfile.read_any`` with the die's kind; ``companion.vision.standard_sim``).

Columns: right (read as its value, of the dice whose value was enrolled), conf. wrong (read as
another value, of all dice), unknown read (a never-enrolled value read as something), unreadable
(of enrolled values), nearest ok (the nearest known value is right, no gate: a diagnosis).
Readers (before enrolment): kind and value right, read wrong with confidence, unreadable.

``--combined polyhedral-oblique``: the reading an enrolled bundle of that reader makes, the reader's
value probabilities AND the profile of its ``embedding_network`` together
(``companion.vision.combined_reading``; with ``--calibrate`` its ``combined_reading`` parameters are
chosen on the calibration styles, all kinds at once, and written into the bundle's ``model.json``).
Columns: right (kind and value, of all dice), taught ok / untaught ok (right, of the dice whose value
was / was never taught), conf. wrong (of all dice), unreadable, top ok (the top score is right, no gate),
unread: 1st / 2 (of the dice left unread: the true value is the nearest taught value the Roll panel marks
for the tap / one of the two marked; ``TableProfile.likely_values``).
Choose with ``--calibrate --test-styles 0``, commit, then read the test styles once.
Rendered tables are cached under ``--cache`` (the same arguments render the same tables).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.vision import standard_sim as ss  # noqa: E402
from companion.vision.embedding import FaceEmbedder  # noqa: E402
from companion.vision.enroll import embedding_model  # noqa: E402
from companion.vision.numerals import KINDS  # noqa: E402
from companion.vision.reader_gate import KIND_BY_KIND_KEY, KIND_KEY, ReaderGate  # noqa: E402
from companion.vision.synth.real_dice import BASE_WIDTH  # noqa: E402
from companion.vision.synth.standard_styles import CALIBRATION_STYLES, HELDOUT_FONT, TEST_STYLES  # noqa: E402

COLUMNS = (
    ("accuracy", "right"),
    ("confidently_wrong", "conf. wrong"),
    ("unknown_read", "unknown read"),
    ("unreadable", "unreadable"),
    ("nearest_right", "nearest ok"),
)
QUERIES = {"d4": 24, "d6": 24, "d8": 24, "d10": 24, "d12": 30, "d20": 60}


def _table(title: str, figs: dict) -> str:
    lines = [title, f"{'sightings':>9} {'dice':>5} " + " ".join(f"{h:>12}" for _, h in COLUMNS)]
    for s, f in sorted(figs.items()):
        lines.append(f"{s:>9} {f['queries']:>5} " + " ".join(f"{100 * f[k]:>11.1f}%" for k, _ in COLUMNS))
    return "\n".join(lines)


def tables_for(split: str, styles, kinds, a) -> list:
    """The tables of ``split``, one cache file per die kind."""
    out: list = []
    if not styles:  # e.g. --test-styles 0 while choosing on the calibration styles
        return out
    for frame_width in a.frame_width:
        out += _tables_at(split, styles, kinds, a, frame_width)
    return out


def _tables_at(split: str, styles, kinds, a, frame_width: int) -> list:
    out: list = []
    for kind in kinds:
        width = "" if frame_width == BASE_WIDTH else f"_w{frame_width}"
        path = Path(a.cache) / f"{split}_{len(styles)}styles_{kind}_seed{a.seed}{width}.npz"
        # a cache of more styles of the same split holds these (the first n styles render the same)
        bigger = sorted(
            Path(a.cache).glob(f"{split}_*styles_{kind}_seed{a.seed}{width}.npz"),
            key=lambda p: int(p.name.split("_")[1].removesuffix("styles")),
        )
        bigger = [p for p in bigger if int(p.name.split("_")[1].removesuffix("styles")) >= len(styles)]
        if bigger:
            out += [t for t in ss.load_tables(bigger[0]) if t.style in set(styles)]
            continue
        t = time.perf_counter()

        def progress(done, total, kind=kind):
            print(
                f"\r{split} {kind} ({frame_width} px frames): rendered {done}/{total} tables",
                end="" if done < total else "\n",
                file=sys.stderr,
                flush=True,
            )

        seed = a.seed * 1000 + (0 if split == "calibration" else 500) + KINDS.index(kind)
        tables = ss.render_tables(
            styles,
            (kind,),
            queries=QUERIES,
            seed=seed,
            workers=a.workers,
            progress=progress,
            resolution=frame_width / BASE_WIDTH,
        )
        print(
            f"{split} {kind} ({frame_width} px frames): {len(tables)} tables rendered in "
            f"{time.perf_counter() - t:.0f} s",
            file=sys.stderr,
        )
        path.parent.mkdir(parents=True, exist_ok=True)
        ss.save_tables(path, tables)
        out += tables
    return out


def _reader(name: str):
    from companion.vision.numerals import numeral_bundle  # noqa: PLC0415
    from companion.vision.reader import ModelError, OnnxFaceReader  # noqa: PLC0415

    bundle = numeral_bundle(name)
    if bundle is None:
        raise ModelError(f"{name!r} is not a numeral-reading bundle")
    meta = json.loads((bundle / "model.json").read_text())
    return bundle, meta, OnnxFaceReader(bundle / "face.onnx", meta["face_heads"])


def reader_queries(tables) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    crops = np.concatenate([t.queries for t in tables])
    kinds = np.concatenate([[KINDS.index(t.kind)] * len(t.values) for t in tables])
    values = np.concatenate([t.values for t in tables])
    return crops, kinds, values, [t.kind for t in tables for _ in t.values]


def reader_section(name: str, cal, test, a, report: dict) -> None:
    bundle, meta, faces = _reader(name)
    heads = tuple(meta["face_heads"]["kind"])
    gate = ReaderGate.parse(meta, heads)
    out = {}
    for split, tables in (("calibration", cal), ("test", test)):
        if not tables:  # --test-styles 0 / --cal-styles 0
            continue
        crops, kinds, values, knames = reader_queries(tables)
        probs = faces(crops)
        if split == "calibration" and a.calibrate:
            # the one gate over all kinds, and one per kind read (for the dice of every kind tabled)
            gate = ReaderGate(
                ss.choose_min_conf(probs, kinds, values),
                ss.choose_min_conf_by_kind(probs, kinds, values, heads),
            )
            meta.update(gate.to_meta())
            meta["min_face_confidence_rule"] = (
                "lowest confidence with read wrong <= 1% on the calibration styles, over all kinds and for "
                "the dice read as each kind (bench/enroll_standard.py --calibrate)"
            )
            (bundle / "model.json").write_text(json.dumps(meta, indent=1))
            print(
                f"{name}: reader gate {gate.to_meta()} chosen on the calibration styles -> {bundle}/model.json"
            )
        out[split] = ss.reader_figures_by_kind(probs, kinds, values, knames, gate, heads)
    report.setdefault("readers", {})[name] = {**gate.to_meta(), **out}
    print(f"\nREADER {name} before any enrolment (gate {gate.to_meta()}); kind AND value right")
    print(
        f"{'split':>12} {'kind':>5} {'dice':>5} {'right':>8} {'conf.wrong':>11} {'unreadable':>11} {'kind ok':>8}"
    )
    for split in ("test", "calibration"):
        for k, f in out.get(split, {}).items():  # --test-styles 0 (a calibration run): no test split
            print(
                f"{split:>12} {k:>5} {f['dice']:>5} {100 * f['right']:>7.1f}% {100 * f['confidently_wrong']:>10.1f}% "
                f"{100 * f['unreadable']:>10.1f}% {100 * f['kind_right']:>7.1f}%"
            )


def embedding_section(name: str, cal, test, a, report: dict) -> dict:
    folder, meta = embedding_model(name)
    embedder = FaceEmbedder(folder / meta.get("onnx", "embed.onnx"), int(meta.get("turns", 4)))
    reading = dict(meta.get("reading", {}))
    t = time.perf_counter()
    cal_recs = ss.records(cal, embedder)
    test_recs = ss.records(test, embedder)
    embed_s = time.perf_counter() - t
    if a.calibrate:
        std = ss.calibrate(cal_recs)
        reading["standard_dice"] = std
        meta["reading"] = reading
        meta["standard_dice_calibration"] = {
            "styles": "CALIBRATION_STYLES of companion.vision.synth.standard_styles",
            "tables": len(cal),
            "kinds": list(a.kinds),
            "rule": "cocked threshold calling <= 1% of (flat) standard dice cocked; then the margin gate with the best "
            "mean accuracy whose confidently-wrong rate is <= 0.5% for every kind at every level: one_sighting "
            "on 1 sighting, the main gate on 2, 3 and 5 (bench/enroll_standard.py --calibrate)",
        }
        meta.pop("reading_notes", None)
        (folder / "model.json").write_text(json.dumps(meta, indent=1))
        print(f"{name}: standard_dice gate {std} chosen on the calibration styles -> {folder}/model.json")
    out = {
        "calibration": ss.curves(cal_recs, reading),
        "test": ss.curves(test_recs, reading),
        "standard_dice": reading.get("standard_dice"),
        "embed_seconds": round(embed_s, 1),
    }
    out["enrol_300_crops_s"] = None
    crops = np.concatenate([t.queries for t in test])[:300] if test else []  # --test-styles 0: none
    if len(crops) == 300:
        embedder(crops[:8])
        t = time.perf_counter()
        embedder(crops)
        out["enrol_300_crops_s"] = round(time.perf_counter() - t, 3)
    report.setdefault("embeddings", {})[name] = out
    print(f"\nEMBEDDING {name} (turns {embedder.turns}); standard_dice gate: {reading.get('standard_dice')}")
    for kind in ([*a.kinds, "all"] if len(a.kinds) > 1 else a.kinds) if test else []:
        print(
            _table(
                f"TEST styles, {kind} (strict: never trained on, no choice made; "
                f"{sum(t.kind == kind or kind == 'all' for t in test)} tables)",
                out["test"][kind],
            )
        )
    cal = out["calibration"]
    if "d20" in cal or "all" in cal:  # none with --cal-styles 0
        print(
            _table("CALIBRATION styles, d20 (gate chosen here: not strict)", cal.get("d20", cal.get("all")))
        )
    if len(a.kinds) > 1 and "all" in cal:
        print(_table("CALIBRATION styles, all kinds (not strict)", cal["all"]))
    print(f"enrolment of 300 crops (embedding): {out['enrol_300_crops_s']} s")
    return out


COMBINED_COLUMNS = (
    ("accuracy", "right"),
    ("right_taught", "taught ok"),
    ("right_untaught", "untaught ok"),
    ("confidently_wrong", "conf. wrong"),
    ("unreadable", "unreadable"),
    ("top_right", "top ok"),
    ("unread_likely_first", "unread: 1st"),
    ("unread_likely_two", "unread: 2"),
)


def _combined_table(title: str, figs: dict) -> str:
    lines = [title, f"{'sightings':>9} {'dice':>5} " + " ".join(f"{h:>12}" for _, h in COMBINED_COLUMNS)]
    for s, f in sorted(figs.items()):
        lines.append(
            f"{s:>9} {f['queries']:>5} "
            + " ".join(f"{'-':>12}" if f[k] != f[k] else f"{100 * f[k]:>11.1f}%" for k, _ in COMBINED_COLUMNS)
        )
    return "\n".join(lines)


def _combined_inputs(tables, faces, embedder) -> dict:
    """(kind, sightings) -> ``standard_sim.combined_inputs`` of these tables."""
    out = {}
    for kind in KINDS:
        tabs = [t for t in tables if t.kind == kind]
        if not tabs:
            continue
        probs = faces(np.concatenate([t.queries for t in tabs]))
        for s, rec in ss.records(tabs, embedder)[kind].items():
            out[(kind, s)] = ss.combined_inputs(probs, rec, kind, s)
    return out


#: The sightings level of the by-size table (the issue's d20 target: 2 photos per value).
BY_SIZE_LEVEL = 2
#: Die sizes (box's longest side in frame px) the by-size table is cut at when the rule names none.
REPORT_BANDS = (40.0, 60.0, 90.0, 135.0)


def _by_size(inputs: dict, rule, kind_gate=None) -> dict:
    """kind -> band label -> figures of the combined reading at ``BY_SIZE_LEVEL`` sightings, by the size of
    the die's box in the frame (where the tables kept it)."""
    bands = rule.size_bands or REPORT_BANDS
    edges = (0.0, *bands, float("inf"))
    out: dict = {}
    for (kind, s), inp in inputs.items():
        if s != BY_SIZE_LEVEL or np.isnan(inp["px"]).all():
            continue
        band = np.searchsorted(bands, inp["px"], side="right")
        for b in range(len(bands) + 1):
            sel = band == b
            if not sel.any():
                continue
            sub = {k: (v[sel] if isinstance(v, np.ndarray) else v) for k, v in inp.items()}
            label = f"{edges[b]:.0f}-{edges[b + 1]:.0f} px" if b < len(bands) else f">= {edges[b]:.0f} px"
            out.setdefault(kind, {})[label] = ss.combined_figures(sub, rule, kind_gate)
    return out


def _size_table(title: str, by_size: dict) -> str:
    lines = [
        title,
        f"{'kind':>5} {'die size':>12} {'dice':>5} {'right':>8} {'conf.wrong':>11} {'unreadable':>11}",
    ]
    for kind, bands in by_size.items():
        for label, f in bands.items():
            lines.append(
                f"{kind:>5} {label:>12} {f['queries']:>5} {100 * f['accuracy']:>7.1f}% "
                f"{100 * f['confidently_wrong']:>10.1f}% {100 * f['unreadable']:>10.1f}%"
            )
    return "\n".join(lines)


def combined_section(name: str, cal, test, a, report: dict) -> None:
    """The reader and the profile together (``combined_reading``), as an enrolled bundle of ``name`` reads."""
    from companion.vision.combined_reading import COMBINED_KEY, parse_rule  # noqa: PLC0415
    from companion.vision.profile import embedder_id  # noqa: PLC0415

    bundle, meta, faces = _reader(name)
    folder, emeta = embedding_model(meta.get("embedding_network", "numeral-embed"))
    onnx = folder / emeta.get("onnx", "embed.onnx")
    embedder = FaceEmbedder(onnx, int(emeta.get("turns", 4)))
    cal_in = _combined_inputs(cal, faces, embedder)
    if a.calibrate:
        spec = ss.calibrate_combined(cal_in, size_bands=a.size_bands, band_max_wrong=a.band_max_wrong)
        if (meta.get(COMBINED_KEY) or {}).get("min_margin_floor"):
            print(
                f"{name}: the margin floors {meta[COMBINED_KEY]['min_margin_floor']} were chosen on frames with "
                "the margins replaced now, and are dropped: choose them again (bench/standard_frames.py "
                "--choose-floors)",
                flush=True,
            )
        meta[COMBINED_KEY] = {
            "embedding_network": folder.name,
            "embedder_id": embedder_id(onnx),
            **spec,
            "chosen_on": f"CALIBRATION_STYLES of companion.vision.synth.standard_styles ({len(cal)} tables, "
            f"kinds {', '.join(sorted({t.kind for t in cal}, key=KINDS.index))}; frames "
            f"{', '.join(map(str, a.frame_width))} px wide, pooled)",
            "rule": "per level: for every (profile_weight, unknown_distance) of the grid, per die kind read the "
            "smallest min_margin reading at most max_wrong of that kind's dice wrong"
            + (
                " (and per size band of the die's box in the frame, min_margin_by_size: at most band_max_wrong "
                "of the band's dice wrong, from at least min_band_dice dice of the band, else not read)"
                if a.size_bands
                else ""
            )
            + "; the pair whose d20s are read right most often (bench/enroll_standard.py --calibrate --combined; "
            "standard_sim.calibrate_combined)",
        }
        (bundle / "model.json").write_text(json.dumps(meta, indent=1))
        print(f"{name}: combined_reading chosen on the calibration styles -> {bundle}/model.json", flush=True)
    if COMBINED_KEY not in meta:
        print(f"{name}: no combined_reading in its model.json (run with --calibrate first)")
        return
    rule = parse_rule(meta[COMBINED_KEY], tuple(meta["face_heads"]["kind"]), f"{bundle}/model.json")
    if a.choose_large_dice:  # the rule of models/polyhedral-oblique/CHANGELOG.md, stop 42
        large = ss.choose_large_dice(cal_in, rule)
        Path(a.choose_large_dice).write_text(json.dumps({"large_dice": large}, indent=1) + "\n")
        print(f"{name}: large_dice chosen on the calibration styles -> {a.choose_large_dice}: {large}")
    if a.large_dice:  # read with a large_dice section in place of the bundle's (the bundle is not written)
        spec = {**meta[COMBINED_KEY], "large_dice": json.loads(Path(a.large_dice).read_text())["large_dice"]}
        before, rule = rule, parse_rule(spec, tuple(meta["face_heads"]["kind"]), a.large_dice)
        meta = {**meta, COMBINED_KEY: spec}
        _print_changes(cal_in, before, rule, meta)
    if rule.large is not None:
        for split, tabs in (("calibration", cal), ("test", test)):
            px = np.concatenate([t.query_px for t in tabs if t.query_px is not None] or [np.zeros(0)])
            print(
                f"{split}: {int((px >= rule.large.from_px).sum())} of {len(px)} dice at least "
                f"{rule.large.from_px:g} px across (read by large_dice where their kind is named)"
            )
    # the kind gate of enrolled bundles (chosen on whole frames), as NumeralModel reads with it
    kind_gate = ReaderGate.parse(
        meta, tuple(meta["face_heads"]["kind"]), KIND_KEY, KIND_BY_KIND_KEY, default=0.0
    )
    out: dict = {"combined_reading": meta[COMBINED_KEY], "kind_gate": kind_gate.to_meta()}
    print(f"{name}: kind gate of enrolled bundles {kind_gate.to_meta()}")
    for split, tables, inputs in (
        ("calibration", cal, cal_in),
        ("test", test, _combined_inputs(test, faces, embedder) if test else {}),
    ):
        per: dict = {}
        for (kind, s), inp in inputs.items():
            per.setdefault(kind, {})[s] = ss.combined_figures(inp, rule, kind_gate)
        levels = sorted({s for _, s in inputs})
        if len(per) > 1:
            per["all"] = {
                s: ss.combined_figures(
                    {
                        x: np.concatenate([inputs[(k, s)][x] for k in KINDS if (k, s) in inputs])
                        for x in ("kind_read", "kind_p", "kind_ok", "d", "level", "truth", "known", "px")
                    }
                    | {
                        "kind": "all",
                        "value_probs": np.concatenate(
                            [inputs[(k, s)]["value_probs"] for k in KINDS if (k, s) in inputs]
                        ),
                    },
                    rule,
                    kind_gate,
                )
                for s in levels
            }
        out[split] = per
        strict = "strict: never trained on, no choice made" if split == "test" else "chosen here: NOT strict"
        out[f"{split}_by_size"] = by_size = _by_size(inputs, rule, kind_gate)
        if by_size:
            print(
                _size_table(
                    f"\n{split.upper()} styles by die size, {BY_SIZE_LEVEL} sightings ({strict})", by_size
                )
            )
        for kind, figs in per.items():
            print(
                _combined_table(
                    f"\nCOMBINED reader + profile ({name} + {folder.name}), {split.upper()} styles, {kind} "
                    f"({strict}; {sum(t.kind == kind or kind == 'all' for t in tables)} tables)",
                    figs,
                )
            )
    report.setdefault("combined", {})[name] = out


def _print_changes(inputs: dict, before, after, meta: dict) -> None:
    """Per sightings level, how many calibration dice ``after`` reads otherwise than ``before`` (read or
    not, and the value), both with the bundle's kind gate."""
    kind_gate = ReaderGate.parse(
        meta, tuple(meta["face_heads"]["kind"]), KIND_KEY, KIND_BY_KIND_KEY, default=0.0
    )
    for s in sorted({s for _, s in inputs}):
        changed = total = 0
        for k in KINDS:
            if (k, s) not in inputs:
                continue
            r0, t0, _ = ss.combined_read(inputs[(k, s)], before, kind_gate)
            r1, t1, _ = ss.combined_read(inputs[(k, s)], after, kind_gate)
            changed += int((np.where(r0, t0, -1) != np.where(r1, t1, -1)).sum())
            total += len(r0)
        print(
            f"calibration, {s} sightings: {changed} of {total} dice read otherwise than with the bundle's rule"
        )


def font_split(test, name: str, a) -> None:
    """Test-style figures at 2 sightings, split by whether the style's font was ever trained on."""
    from companion.vision.synth.real_dice import poly_style  # noqa: PLC0415

    folder, meta = embedding_model(name)
    embedder = FaceEmbedder(folder / meta.get("onnx", "embed.onnx"), int(meta.get("turns", 4)))
    for held, label in ((False, "fonts trained on"), (True, f"font never trained on ({HELDOUT_FONT})")):
        sub = [t for t in test if (poly_style(t.style).font == HELDOUT_FONT) == held]
        if not sub:
            continue
        figs = ss.curves(ss.records(sub, embedder, (2,)), meta.get("reading", {}))
        f = figs["d20"][2] if "d20" in figs else figs["all"][2]
        print(
            f"{name}, test styles with {label}: {len({t.style for t in sub})} styles, d20 at 2 sightings: right "
            f"{100 * f['accuracy']:.1f}%, conf. wrong {100 * f['confidently_wrong']:.1f}%, unreadable "
            f"{100 * f['unreadable']:.1f}%"
        )


def plot(report: dict, path: Path) -> None:
    import matplotlib  # noqa: PLC0415

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt  # noqa: PLC0415

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for name, figs in report.get("embeddings", {}).items():
        for split, style in (("test", "-o"), ("calibration", "--s")):
            f = figs[split].get("d20")
            if not f:
                continue
            xs = sorted(f)
            lab = f"{name}, {split} styles{' (strict)' if split == 'test' else ''}"
            axes[0].plot(xs, [100 * f[s]["accuracy"] for s in xs], style, label=lab)
            axes[1].plot(xs, [100 * f[s]["confidently_wrong"] for s in xs], style, label=lab)
    for name, figs in report.get("combined", {}).items():
        for split, style in (("test", "-^"), ("calibration", "--v")):
            f = figs.get(split, {}).get("d20")
            if not f:
                continue
            xs = sorted(f, key=int)  # levels are strings in a report read back from --json
            lab = f"{name} reader + profile, {split} styles{' (strict)' if split == 'test' else ''}"
            axes[0].plot([int(s) for s in xs], [100 * f[s]["accuracy"] for s in xs], style, label=lab)
            axes[1].plot(
                [int(s) for s in xs], [100 * f[s]["confidently_wrong"] for s in xs], style, label=lab
            )
        axes[0].axhline(95, color="grey", ls=":", label="issue 20 target: >= 95 % right")
        axes[1].axhline(1, color="grey", ls=":", label="issue 20 target: <= 1 % wrong")
    axes[0].set(xlabel="sightings per value", ylabel="read right (%)", ylim=(0, 100), title="d20: read right")
    axes[1].set(
        xlabel="sightings per value", ylabel="confidently wrong (%)", title="d20: read as another value"
    )
    axes[1].set_ylim(0, max(2.0, axes[1].get_ylim()[1]))
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("d20 enrolment on held-out styles (oblique renders, not photographs)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--embedding", action="append", help="embedding network(s) (name or folder)")
    ap.add_argument("--reader", action="append", help="numeral reader bundle(s) measured before enrolment")
    ap.add_argument(
        "--combined",
        action="append",
        help="reader bundle(s) whose reading with the profile of its embedding_network (combined_reading) is "
        "measured; with it, --reader and --embedding default to none",
    )
    ap.add_argument(
        "--no-reader",
        action="store_true",
        help="no numeral reader (with --calibrate: only the embeddings' standard_dice gates are chosen)",
    )
    ap.add_argument("--kinds", default=",".join(KINDS), help="die kinds, comma-separated")
    ap.add_argument("--cal-styles", type=int, default=len(CALIBRATION_STYLES))
    ap.add_argument("--test-styles", type=int, default=len(TEST_STYLES))
    ap.add_argument("--workers", type=int, default=0, help="processes rendering tables (0: this one)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cache", default="artifacts/standard/tables")
    ap.add_argument(
        "--frame-width",
        type=int,
        action="append",
        help=f"the camera frame's width in px: the dice are {BASE_WIDTH} px-frame sizes (26-90 px) scaled by "
        f"WIDTH/{BASE_WIDTH}; given more than once, the tables of every width are pooled; "
        f"default {BASE_WIDTH}, the frame every figure before 2026-11-27 was measured on",
    )
    ap.add_argument(
        "--band-max-wrong",
        type=float,
        help="with --size-bands: the confidently-wrong share each size band's margin allows (default: the "
        "kind's, 0.008)",
    )
    ap.add_argument(
        "--size-bands",
        help="with --calibrate --combined: die sizes in frame px (comma-separated, rising) between which the "
        "combined reading's margin gate is chosen apart (combined_reading.size_bands)",
    )
    ap.add_argument(
        "--calibrate",
        action="store_true",
        help="choose the standard_dice gate / min_face_confidence on the calibration styles and write them",
    )
    ap.add_argument(
        "--choose-large-dice",
        metavar="FILE",
        help="with --combined: choose combined_reading.large_dice on the calibration styles (the rule of "
        "models/polyhedral-oblique/CHANGELOG.md, stop 42) and write it to FILE",
    )
    ap.add_argument(
        "--large-dice",
        metavar="FILE",
        help="with --combined: read with the large_dice section of FILE (as --choose-large-dice writes it) in "
        "place of the bundle's; the bundle is not changed",
    )
    ap.add_argument("--plot", default="docs/images/enroll_standard_curve.png")
    ap.add_argument("--json", help="also write every figure to this JSON file")
    ap.add_argument(
        "--plot-only",
        metavar="JSON",
        help="draw --plot from a report written by --json (reads no table: the figures are not measured again)",
    )
    a = ap.parse_args(argv)
    a.frame_width = sorted(set(a.frame_width or [BASE_WIDTH]))
    bad_width = [w for w in a.frame_width if not 320 <= w <= 8192]
    if bad_width:
        ap.error(f"--frame-width {bad_width[0]} is outside 320-8192 px")
    if a.calibrate and a.frame_width != [BASE_WIDTH] and (a.reader or a.embedding or not a.combined):
        ap.error(
            f"--calibrate on frames other than {BASE_WIDTH} px chooses the combined reading only "
            "(--combined, without --reader or --embedding)"
        )
    try:
        a.size_bands = tuple(float(x) for x in (a.size_bands or "").split(",") if x.strip())
    except ValueError:
        ap.error(f"--size-bands {a.size_bands!r}: expected rising numbers such as 40,60,90")
    if a.size_bands and (
        not (a.calibrate and a.combined)
        or any(y <= x for x, y in zip(a.size_bands, a.size_bands[1:], strict=False))
    ):
        ap.error("--size-bands: rising die sizes in px, with --calibrate --combined only")
    if a.band_max_wrong is not None and (not a.size_bands or not 0 < a.band_max_wrong < 1):
        ap.error("--band-max-wrong: a share between 0 and 1 (such as 0.006), with --size-bands only")
    if (a.choose_large_dice or a.large_dice) and not a.combined:
        ap.error("--choose-large-dice and --large-dice need --combined")
    if a.plot_only:
        plot(json.loads(Path(a.plot_only).read_text()), Path(a.plot))
        print(f"plot: {a.plot}")
        return 0
    a.kinds = tuple(k.strip() for k in a.kinds.split(",") if k.strip())
    bad = [k for k in a.kinds if k not in KINDS]
    if bad:
        ap.error(f"unknown die kind(s) {', '.join(bad)} (known: {', '.join(KINDS)})")
    embeddings = a.embedding or ([] if a.combined else ["face-embed"])
    readers = (
        [] if a.no_reader else a.reader if a.reader is not None else ([] if a.combined else ["polyhedral"])
    )
    cal = tables_for("calibration", CALIBRATION_STYLES[: a.cal_styles], a.kinds, a)
    test = tables_for("test", TEST_STYLES[: a.test_styles], a.kinds, a)
    report: dict = {
        "kinds": list(a.kinds),
        "frame_width": a.frame_width,
        "calibration_tables": len(cal),
        "test_tables": len(test),
    }
    for r in readers:
        reader_section(r, cal, test, a, report)
    for e in embeddings:
        embedding_section(e, cal, test, a, report)
        if test:  # --test-styles 0 (a calibration run): no test table to split by font
            font_split(test, e, a)
    for c in a.combined or []:
        combined_section(c, cal, test, a, report)
    if a.plot and test:
        plot(report, Path(a.plot))
        print(f"plot: {a.plot}")
    if a.json:
        Path(a.json).write_text(json.dumps(report, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
