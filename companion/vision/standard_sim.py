"""Simulated enrolment of standard dice (d4..d20) on rendered style sets: learning curves and the gate.

A *table* is one set of standard dice in one style (``synth.standard_styles``): for one die kind,
every value is enrolled from 0, 1, 2, 3 or 5 rendered sightings (the same renders, cut down), then
fresh renders of that die in that style are read against the profile with every value of the kind
the profile knows as candidates (``TableProfile.read_any(emb, kind)``, the ``standard_dice`` gate).
A share of each die's values (``withheld``) is never enrolled, as when a player has taught only some
values so far: those must come out ``unreadable``, never as a known neighbour.

The records have the layout of ``companion.vision.enroll_sim`` (distances to each face's
prototype, inf where not known), so its figures (``decide``) and gate search apply unchanged.
``calibrate`` chooses the ``standard_dice`` gate on the calibration styles only; figures on the
test styles with a fixed gate are the strict ones (``bench/enroll_standard.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision import enroll_sim as es
from companion.vision.numerals import KINDS, SIDES
from companion.vision.profile import LIKELY_FACES
from companion.vision.reader_gate import ReaderGate

SHOTS = (0, 1, 2, 3, 5)
COCKED_THRESHOLDS = es.COCKED_THRESHOLDS


@dataclass
class StdTable:
    style: int
    kind: str
    enrol: np.ndarray  # uint8 (sides, max_shots, 64, 64, 3): sightings of value v at [v - 1]
    enrolled: np.ndarray  # bool (sides,): values taught to the profile
    queries: np.ndarray  # uint8 (q, 64, 64, 3)
    values: np.ndarray  # (q,) value shown, 1..sides
    query_px: np.ndarray | None = None  # (q,) each query's box side in the frame, px (None: not kept)


def _one_table(args: tuple) -> StdTable:
    import cv2  # noqa: PLC0415

    from companion.vision.synth.standard_styles import render_value, render_value_shot  # noqa: PLC0415

    cv2.setNumThreads(1)
    style, kind, seed, max_shots, queries, withheld, resolution = args
    rng = np.random.default_rng(seed)
    sides = SIDES[kind]
    enrol = np.stack(
        [
            np.stack([render_value(kind, v, rng, style, resolution=resolution) for _ in range(max_shots)])
            for v in range(1, sides + 1)
        ]
    )
    enrolled = rng.random(sides) >= withheld
    values = rng.integers(1, sides + 1, queries)
    shots = [render_value_shot(kind, int(v), rng, style, resolution=resolution) for v in values]
    q = np.stack([c for c, _ in shots])
    px = np.array([side for _, side in shots], np.float32)
    return StdTable(int(style), kind, enrol, enrolled, q, values, px)


def render_tables(
    styles,
    kinds=KINDS,
    *,
    max_shots: int = 5,
    queries: dict | int = 30,
    withheld: float = 0.1,
    seed: int = 0,
    workers: int = 0,
    progress=None,
    resolution: float = 1.0,
) -> list[StdTable]:
    """One table per (style, kind); ``queries`` per table (or per kind: {"d20": 60, ...}).  The same
    arguments render the same tables; ``workers`` > 0 renders in that many processes.  ``resolution``:
    the camera's pixels against a 1280 px frame (the dice that many times more pixels across)."""
    rng = np.random.default_rng(seed)
    args = [
        (
            int(s),
            k,
            int(rng.integers(2**31)),
            max_shots,
            int(queries.get(k, 30)) if isinstance(queries, dict) else int(queries),
            withheld,
            float(resolution),
        )
        for s in styles
        for k in kinds
    ]
    return es.render_each(_one_table, args, workers=workers, progress=progress)


def save_tables(path, tables: list[StdTable]) -> None:
    data = {}
    for i, t in enumerate(tables):
        data.update(
            {
                f"{i}_enrol": t.enrol,
                f"{i}_enrolled": t.enrolled,
                f"{i}_queries": t.queries,
                f"{i}_values": t.values,
                f"{i}_meta": np.array([t.style, KINDS.index(t.kind)]),
            }
        )
        if t.query_px is not None:
            data[f"{i}_query_px"] = t.query_px
    from pathlib import Path  # noqa: PLC0415

    path = Path(path)
    tmp = path.with_name(path.name + ".part.npz")
    np.savez_compressed(tmp, n=np.array(len(tables)), **data)
    tmp.replace(path)  # a run stopped while writing leaves no broken cache behind


def load_tables(path) -> list[StdTable]:
    z = np.load(path)
    out = []
    for i in range(int(z["n"])):
        style, k = z[f"{i}_meta"]
        out.append(
            StdTable(
                int(style),
                KINDS[int(k)],
                z[f"{i}_enrol"],
                z[f"{i}_enrolled"],
                z[f"{i}_queries"],
                z[f"{i}_values"],
                z[f"{i}_query_px"] if f"{i}_query_px" in z.files else None,
            )
        )
    return out


def records(tables: list[StdTable], embedder, shots=SHOTS) -> dict[str, dict[int, dict]]:
    """Per kind, per shots level: ``enroll_sim`` records of every query (20 candidate columns)."""
    out: dict[str, dict[int, dict]] = {}
    for t in tables:
        sides, m = t.enrol.shape[:2]
        emb, _ = embedder(t.enrol.reshape(-1, *t.enrol.shape[2:]))
        emb = emb.reshape(sides, m, -1).astype(np.float64)
        q_emb, q_pc = embedder(t.queries)
        for s in shots:
            r = out.setdefault(t.kind, {}).setdefault(
                s, {k: [] for k in ("d", "truth", "known", "cocked", "pc", "same", "full", "n", "px")}
            )
            d = np.full((len(t.values), 20), np.inf)
            if s:
                protos = emb[:, :s].sum(1)
                protos /= np.maximum(np.linalg.norm(protos, axis=1, keepdims=True), 1e-12)
                d2 = np.clip(2.0 - 2.0 * q_emb.astype(np.float64) @ protos.T.astype(np.float32), 0.0, 4.0)
                d[:, :sides] = np.where(t.enrolled[None], np.sqrt(d2), np.inf)
            r["d"].append(d)
            r["truth"].extend((t.values - 1).tolist())
            r["known"].extend([bool(s and t.enrolled[v - 1]) for v in t.values])
            r["cocked"].extend([False] * len(t.values))
            r["pc"].extend(np.asarray(q_pc, float).tolist())
            same = np.zeros((len(t.values), 20), bool)
            same[np.arange(len(t.values)), t.values - 1] = True
            r["same"].append(same)
            r["full"].extend([False] * len(t.values))  # read_any: never the fully-known pair
            r["n"].extend([s] * len(t.values))
            r["px"].extend(np.full(len(t.values), np.nan) if t.query_px is None else t.query_px.tolist())
    return {
        k: {
            s: {x: (np.concatenate(v) if x in ("d", "same") else np.array(v)) for x, v in r.items()}
            for s, r in per.items()
        }
        for k, per in out.items()
    }


def pooled(recs: dict[str, dict[int, dict]], kinds=None) -> dict[int, dict]:
    """Records of several kinds joined per shots level."""
    kinds = [k for k in (kinds or recs) if k in recs]
    levels = sorted(recs[kinds[0]])
    return {s: {x: np.concatenate([recs[k][s][x] for k in kinds]) for x in recs[kinds[0]][s]} for s in levels}


def standard_settings(reading: dict) -> dict:
    """The settings ``TableProfile.read_any`` applies to standard dice (``standard_dice`` over the rest)."""
    return {**{k: v for k, v in reading.items() if k != "by_sightings"}, **reading.get("standard_dice", {})}


def curves(recs: dict[str, dict[int, dict]], reading: dict) -> dict[str, dict[int, dict]]:
    """Figures per kind (and "all") per shots level under ``reading`` (an embedding's ``reading``)."""
    s = standard_settings(reading)
    out = {k: {lvl: es.decide(r, s) for lvl, r in per.items()} for k, per in recs.items()}
    if recs:  # no records (e.g. ``--test-styles 0``): no figures, not a crash
        out["all"] = {lvl: es.decide(r, s) for lvl, r in pooled(recs).items()}
    return out


def calibrate(recs: dict[str, dict[int, dict]], max_wrong: float = 0.005, levels=(1, 2, 3, 5)) -> dict:
    """The ``standard_dice`` gate, chosen on calibration styles: the cocked threshold that calls at most
    1 % of these (all flat) dice cocked, then the margin gate with the best mean accuracy whose
    confidently-wrong rate stays <= ``max_wrong`` for EVERY kind at every level (the main gate on
    2+ sightings, ``one_sighting`` on 1 sighting)."""
    allr = pooled(recs)
    pc = allr[levels[0]]["pc"]
    th = next((t for t in COCKED_THRESHOLDS if (pc >= t).mean() <= 0.01), 1.01)
    per = {(k, s): recs[k][s] for k in recs for s in levels}
    main, _ = es._calibrate_gate(per, max_wrong, tuple(x for x in per if x[1] != 1), th)
    one, _ = es._calibrate_gate(per, max_wrong, tuple(x for x in per if x[1] == 1), th)
    return {
        "scale": 8.0,
        "max_distance": main["max_distance"],
        "min_margin": main["min_margin"],
        "min_confidence": 0.0,
        "cocked_threshold": th,
        "one_sighting": {"max_distance": one["max_distance"], "min_margin": one["min_margin"]},
        "bound_met": bool(main["bound_met"] and one["bound_met"]),
        "max_wrong": max_wrong,
    }


def reader_figures(
    probs: dict, kinds: np.ndarray, values: np.ndarray, min_conf: float | ReaderGate, heads_kinds=KINDS
) -> dict:
    """Before any enrolment, the reader alone: kind and value right / confidently wrong / unreadable
    (``min_conf``: one gate, or a ``ReaderGate`` judging each die by the kind it was read as)."""
    from companion.vision.numerals import decode  # noqa: PLC0415

    k, v, c = decode(probs["kind"], probs["value"], heads_kinds)
    if isinstance(min_conf, ReaderGate):
        read = c >= min_conf.for_dice([heads_kinds[i] for i in k])
    else:
        read = c >= min_conf
    right = read & (k == kinds) & (v == values)
    n = max(len(k), 1)
    return {
        "dice": int(len(k)),
        "right": float(right.sum() / n),
        "confidently_wrong": float((read & ~right).sum() / n),
        "unreadable": float((~read).sum() / n),
        "kind_right": float((k == kinds).sum() / n),
    }


def reader_figures_by_kind(
    probs: dict, kinds: np.ndarray, values: np.ndarray, names, min_conf: float | ReaderGate, heads_kinds=KINDS
) -> dict:
    """``reader_figures`` for the dice of each die kind in ``names`` (the kind of each die, as a string:
    ``"d20"``) that has any, and for all of them (``"all"``)."""
    names = np.asarray(names)
    out = {
        k: reader_figures(
            {h: p[names == k] for h, p in probs.items()},
            kinds[names == k],
            values[names == k],
            min_conf,
            heads_kinds,
        )
        for k in dict.fromkeys(names.tolist())
    }
    out["all"] = reader_figures(probs, kinds, values, min_conf, heads_kinds)
    return out


MIN_CONFS = tuple(np.round(np.arange(0.2, 0.96, 0.05), 2)) + (0.97, 0.98, 0.99)


def choose_min_conf(probs: dict, kinds: np.ndarray, values: np.ndarray, max_wrong: float = 0.01) -> float:
    """The lowest reader confidence gate whose confidently-wrong rate is <= ``max_wrong`` (calibration styles)."""
    return _lowest_gate(lambda t: reader_figures(probs, kinds, values, t)["confidently_wrong"], max_wrong)


def _lowest_gate(wrong_at, max_wrong: float) -> float:
    """The lowest gate of ``MIN_CONFS`` whose wrong rate (``wrong_at(gate)``) is <= ``max_wrong`` (else the last)."""
    return next((float(t) for t in MIN_CONFS if wrong_at(float(t)) <= max_wrong), float(MIN_CONFS[-1]))


def choose_min_conf_by_kind(
    probs: dict, kinds: np.ndarray, values: np.ndarray, heads_kinds=KINDS, max_wrong: float = 0.01
) -> dict[str, float]:
    """For each kind the reader reads any die as: the lowest gate of ``MIN_CONFS`` with at most ``max_wrong``
    of the dice read as that kind read wrong (``reader_gate``: the gate is keyed by the kind read)."""
    from companion.vision.numerals import decode  # noqa: PLC0415

    k, v, c = decode(probs["kind"], probs["value"], heads_kinds)
    right = (k == kinds) & (v == values)
    out = {}
    for ki, name in enumerate(heads_kinds):
        mine = k == ki
        if not mine.any():
            continue
        out[name] = _lowest_gate(lambda t, m=mine: ((c >= t) & m & ~right).sum() / m.sum(), max_wrong)
    return out


# ---------------------------------------------------------------------------------------------------
# The reader AND the profile together (``companion.vision.combined_reading``): what an enrolled
# ``polyhedral-oblique`` bundle reads with.

COMBINED_WEIGHTS = (0.0, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0)
COMBINED_UNKNOWN = (0.6, 0.8, 1.0, 1.2, 1.4)
COMBINED_MARGINS = tuple(np.round(np.arange(0.0, 12.001, 0.05), 2))


def combined_inputs(probs: dict, rec: dict, kind: str, sightings: int) -> dict:
    """The dice of ``kind``'s tables at one sightings level as the bundle sees them: the kind the reader
    read, its value probabilities, and the distances to the table's prototypes (``records``), which
    exist only for the kind taught (a die read as another kind meets a profile that knows none of that
    kind's values: level 0)."""
    kind_read = probs["kind"].argmax(1)
    ok = kind_read == KINDS.index(kind)
    return {
        "kind": kind,
        "kind_read": kind_read,
        "kind_p": np.asarray(probs["kind"], np.float64).max(1),  # what the kind gate weighs
        "kind_ok": ok,
        "value_probs": np.asarray(probs["value"], np.float64),
        "d": np.where(ok[:, None], rec["d"], np.inf),
        "level": np.where(ok, sightings, 0),
        "truth": np.asarray(rec["truth"]),
        "known": np.asarray(rec["known"], bool),
        "px": np.asarray(rec["px"], np.float64) if "px" in rec else np.full(len(ok), np.nan),
    }


def combined_read(inp: dict, rule, kind_gate=None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(read, value index, margin) per die under ``rule`` (a ``combined_reading.CombinedRule``): what
    ``combined_reading.read_value`` gives each die, in groups of (kind read, level); with ``kind_gate``
    (a ``reader_gate.ReaderGate`` of the bundle's ``min_kind_confidence_by_kind``) a die whose kind
    probability is under the gate of the kind it was read as is not read, as ``NumeralModel`` does."""
    from companion.vision.combined_reading import decide  # noqa: PLC0415

    n = len(inp["truth"])
    read, top, margin = np.zeros(n, bool), np.zeros(n, int), np.zeros(n)
    for kr in np.unique(inp["kind_read"]):
        for lvl in np.unique(inp["level"]):
            sel = (inp["kind_read"] == kr) & (inp["level"] == lvl)
            if not sel.any():
                continue
            kname, level = KINDS[kr], rule.level(int(lvl))
            sides = SIDES[kname]
            _, t, _, m = decide(inp["value_probs"][sel, :sides], inp["d"][sel, :sides], level, 0.0)
            gate = np.array([rule.margin(level, kname, float(p)) for p in inp["px"][sel]])
            read[sel], top[sel], margin[sel] = m >= gate, t, m
    if kind_gate is not None:
        need = [
            rule.kind_gate(KINDS[k], float(p), kind_gate.of(KINDS[k]))
            for k, p in zip(inp["kind_read"], inp["px"], strict=True)
        ]
        read &= inp["kind_p"] >= np.array(need, float).reshape(-1)
    return read, top, margin


def likely_offers(inp: dict, most: int = LIKELY_FACES) -> np.ndarray:
    """(N, most) value indices the Roll panel marks on each die left unread (``TableProfile.likely_values``
    of the kind the reader read: the taught values nearest, nearest first, ties lower value first), -1
    where fewer are taught."""
    d = np.asarray(inp["d"], np.float64)
    order = np.argsort(d, axis=1, kind="stable")[:, :most]
    known = np.isfinite(np.take_along_axis(d, order, axis=1))
    return np.where(known, order, -1)


def combined_figures(inp: dict, rule, kind_gate=None) -> dict:
    """Right (kind and value; of all dice, of the values taught, of the values never taught), read
    wrong with confidence, unreadable, the top score right with no gate (a diagnosis), and of the dice
    left unread, how often the die's true value is the nearest value marked for the tap / one of the two
    marked (``likely_offers``; a wrong kind read marks none of the die's values)."""
    read, top, _ = combined_read(inp, rule, kind_gate)
    good = inp["kind_ok"] & (top == inp["truth"])
    right = read & good
    n, known = max(len(read), 1), inp["known"]
    level = int(inp["level"].max()) if len(inp["level"]) else 0
    offers = likely_offers(inp)
    truth = np.asarray(inp["truth"])
    marked = inp["kind_ok"][:, None] & (offers == truth[:, None])
    unread = ~read
    return {
        "queries": int(len(read)),
        "accuracy": float(right.sum() / n),
        "right_taught": float(right[known].mean()) if known.any() else float("nan"),
        "right_untaught": float(right[~known].mean()) if level and (~known).any() else float("nan"),
        "confidently_wrong": float((read & ~good).sum() / n),
        "unreadable": float((~read).sum() / n),
        "top_right": float(good.sum() / n),
        "unread_likely_first": float(marked[unread, 0].mean()) if unread.any() else float("nan"),
        "unread_likely_two": float(marked[unread].any(1).mean()) if unread.any() else float("nan"),
    }


def _smallest_margin(margin: np.ndarray, good: np.ndarray, max_wrong: float) -> tuple[float, bool]:
    """The smallest margin gate under which at most ``max_wrong`` of these dice are read wrong."""
    ms = np.array(COMBINED_MARGINS)
    wrong = ((margin[None] >= ms[:, None]) & ~good[None]).sum(1) / max(len(margin), 1)
    ok = np.flatnonzero(wrong <= max_wrong)
    return (float(ms[ok[0]]), True) if len(ok) else (float(ms[-1]), False)


#: A size band's own margin is chosen only from at least this many calibration dice of the kind read;
#: a band with fewer is not read for that kind (the grid's largest margin: a tap).  Keeping the kind's
#: margin over all sizes there read 5.3 % of the calibration d10s under 40 px wrong: pooled over wide
#: frames, that margin is set by large dice (models/polyhedral-oblique/CHANGELOG.md, 2026-11-27).
MIN_BAND_DICE = 300


def calibrate_combined(
    inputs: dict,
    max_wrong: float = 0.008,
    levels=SHOTS,
    size_bands: tuple[float, ...] = (),
    band_max_wrong: float | None = None,
) -> dict:
    """The ``combined_reading`` levels, chosen on CALIBRATION styles: for every level, every
    (profile_weight, unknown_distance) of the grid gets, per die kind read, the smallest margin gate
    that reads at most ``max_wrong`` of that kind's dice wrong; the pair whose d20s are read right most
    often wins (the mean over kinds when no d20 is measured).  ``inputs``: (kind, sightings) ->
    ``combined_inputs``; level 0 (no value taught) is the reader alone (profile weight 0).

    With ``size_bands`` (die box sides in frame px; every input die's ``px`` known) each kind read
    also gets one margin per band: the smallest reading at most ``band_max_wrong`` (default
    ``max_wrong``) of that band's dice wrong (so any mix of sizes stays within it), or the grid's largest (not read) where the band holds
    fewer than ``MIN_BAND_DICE`` dice; the pair is then chosen by what these margins read."""
    from companion.vision.combined_reading import Level, decide  # noqa: PLC0415

    size_bands = tuple(float(b) for b in size_bands)
    band_max_wrong = max_wrong if band_max_wrong is None else float(band_max_wrong)
    if size_bands and any(np.isnan(inp["px"]).any() for inp in inputs.values()):
        raise ValueError("size bands need every die's size in the frame: render the tables again")
    kinds = sorted({k for k, _ in inputs}, key=KINDS.index)
    out, met = {}, True
    for s in levels:
        dice = [inputs[(k, s)] for k in kinds if (k, s) in inputs]
        if not dice:
            continue
        pairs = [(0.0, 1.0)] if s == 0 else [(b, u) for b in COMBINED_WEIGHTS for u in COMBINED_UNKNOWN]
        best = None
        for b, u in pairs:
            level = Level(s, b, u, {})
            margins, goods, true_kind, sizes = {}, {}, {}, {}
            for inp in dice:
                # the dice read as another kind meet an empty profile (level 0): not this level's choice
                for kr in np.unique(inp["kind_read"][inp["level"] == s]):
                    sel = (inp["kind_read"] == kr) & (inp["level"] == s)
                    kname = KINDS[kr]
                    _, top, _, m = decide(
                        inp["value_probs"][sel, : SIDES[kname]], inp["d"][sel, : SIDES[kname]], level, 0.0
                    )
                    good = inp["kind_ok"][sel] & (top == inp["truth"][sel])
                    margins.setdefault(kname, []).append(m)
                    goods.setdefault(kname, []).append(good)
                    true_kind.setdefault(kname, []).append(np.array([inp["kind"]] * int(sel.sum())))
                    sizes.setdefault(kname, []).append(inp["px"][sel])
            gates, by_size, right = {}, {}, {}
            for kname in margins:
                m, g = np.concatenate(margins[kname]), np.concatenate(goods[kname])
                gates[kname], bound = _smallest_margin(m, g, max_wrong)
                met = met and bound
                gate = np.full(len(m), gates[kname])
                if size_bands:
                    band = np.searchsorted(size_bands, np.concatenate(sizes[kname]), side="right")
                    per = []
                    for i_band in range(len(size_bands) + 1):
                        sel_b = band == i_band
                        if sel_b.sum() >= MIN_BAND_DICE:
                            gb, bound = _smallest_margin(m[sel_b], g[sel_b], band_max_wrong)
                            met = met and bound
                        else:  # too few dice of this size to say how sure a reading is: not read
                            gb = float(COMBINED_MARGINS[-1])
                        per.append(gb)
                        gate[sel_b] = gb
                    by_size[kname] = per
                tk = np.concatenate(true_kind[kname])
                for k in kinds:
                    right[k] = right.get(k, 0) + int(((m >= gate) & g & (tk == k)).sum())
            n = {k: len(inputs[(k, s)]["truth"]) for k in kinds if (k, s) in inputs}
            rate = {k: right.get(k, 0) / max(n[k], 1) for k in n}
            key = (rate.get("d20", float(np.mean(list(rate.values())))), float(np.mean(list(rate.values()))))
            if best is None or key > best[0]:
                best = (key, b, u, gates, by_size, rate)
        _, b, u, gates, by_size, rate = best
        out[str(s)] = {
            "profile_weight": b,
            "unknown_distance": u,
            "min_margin": {k: gates.get(k, float(COMBINED_MARGINS[-1])) for k in KINDS},
            **({"min_margin_by_size": by_size} if size_bands else {}),
            "calibration_right": {k: round(v, 4) for k, v in rate.items()},
        }
    spec: dict = {"levels": out, "max_wrong": max_wrong, "bound_met": met}
    if size_bands:
        spec = {
            "size_bands": list(size_bands),
            "min_band_dice": MIN_BAND_DICE,
            "band_max_wrong": band_max_wrong,
            **spec,
        }
    return spec


#: Dice of a kind read needed at the choosing level before that kind gets gates of its own for large dice.
MIN_LARGE_DICE = 300


def _large_reads(inputs: dict, rule, sightings: int, from_px: float) -> dict:
    """The dice of the tables at ``sightings`` whose box is at least ``from_px`` across: the kind read, the
    reader's probability of it, the combined margin of the top value (at each die's own level under
    ``rule``'s weights) and whether that top value is right."""
    cols: dict[str, list] = {"kind_read": [], "kind_p": [], "margin": [], "good": []}
    for k in KINDS:
        inp = inputs.get((k, sightings))
        if inp is None:
            continue
        _, top, margin = combined_read(inp, rule)
        big = np.nan_to_num(inp["px"], nan=-1.0) >= from_px
        cols["kind_read"].append(inp["kind_read"][big])
        cols["kind_p"].append(inp["kind_p"][big])
        cols["margin"].append(margin[big])
        cols["good"].append((inp["kind_ok"] & (top == inp["truth"]))[big])
    return {x: np.concatenate(v) if v else np.zeros(0) for x, v in cols.items()}


def choose_large_dice(
    inputs: dict,
    rule,
    from_px: float = 90.0,
    at: int = 2,
    max_wrong: float = 0.005,
    min_dice: int = MIN_LARGE_DICE,
) -> dict:
    """``combined_reading.large_dice``, chosen on CALIBRATION tables (``inputs``: (kind, sightings) ->
    ``combined_inputs`` with each die's ``px``) by the rule of models/polyhedral-oblique/CHANGELOG.md
    (stop 42), from the dice whose box is at least ``from_px`` across: per kind read, at ``at``
    sightings, the (kind gate of 0 or ``MIN_CONFS``, margin of ``COMBINED_MARGINS``) pair reading the
    most of the dice read as that kind right with at most ``max_wrong`` of them wrong (a tie: the higher
    gate, then the higher margin); at every other level, with that gate, the smallest margin within
    ``max_wrong``, else the grid's largest (a tap).  A kind read on fewer than ``min_dice`` such dice at
    ``at``, or with no pair within the bound, is not named.  (A candidate margin is tried on every die
    read as the kind, whatever its own level: a die read as a kind its table never taught meets level 0.)"""
    ms = np.array(COMBINED_MARGINS)
    gates_grid = (0.0, *[float(g) for g in MIN_CONFS])
    d = _large_reads(inputs, rule, at, from_px)
    gates, chosen = {}, {}
    for ki in sorted({int(k) for k in d["kind_read"]}):
        mine = d["kind_read"] == ki
        if mine.sum() < min_dice:
            continue
        best = None
        for g in gates_grid:
            read = (mine & (d["kind_p"] >= g))[None] & (d["margin"][None] >= ms[:, None])
            wrong = (read & ~d["good"][None]).sum(1)
            right = (read & d["good"][None]).sum(1)
            for j in np.flatnonzero(wrong <= max_wrong * mine.sum()):
                key = (int(right[j]), g, float(ms[j]))
                best = key if best is None or key > best else best
        if best is not None:
            gates[KINDS[ki]], chosen[KINDS[ki]] = best[1], best[2]
    margins: dict[str, dict[str, float]] = {}
    for s in sorted({s for _, s in inputs}):
        if s == at:
            margins[str(s)] = dict(chosen)
            continue
        d = _large_reads(inputs, rule, s, from_px)
        per = {}
        for kind, g in gates.items():
            mine = (d["kind_read"] == KINDS.index(kind)) & (d["kind_p"] >= g)
            wrong = ((mine[None] & (d["margin"][None] >= ms[:, None])) & ~d["good"][None]).sum(1)
            n = max(int((d["kind_read"] == KINDS.index(kind)).sum()), 1)
            ok = np.flatnonzero(wrong <= max_wrong * n)
            per[kind] = float(ms[ok[0]]) if len(ok) else float(ms[-1])
        margins[str(s)] = per
    return {"from_px": float(from_px), "min_kind_confidence": gates, "min_margin": margins}
