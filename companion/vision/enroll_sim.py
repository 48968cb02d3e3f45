"""Simulated enrolment on rendered art families: learning curves and threshold calibration.

For each art family a few *tables* are drawn: an army of a few dice of one species (its roster).
Every face of the army is enrolled from 0, 1, 2, 3, 5 or 10 rendered sightings, then fresh
renders of the army's dice (some cocked) are read against the profile with the roster's faces as
candidates (``TableProfile.read_die``).  A share of each army's faces is never enrolled: those
dice must come out ``unreadable``.

``calibrate`` chooses ``scale``, ``max_distance`` and ``min_confidence`` on the calibration
families (issue 20: thresholds are calibrated on held-out art families); ``curves`` measures a
fixed setting on any families (the strict figures: the test families, where nothing was chosen).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.vision.profile import TableProfile, face_key, face_label

SHOTS = (0, 1, 2, 3, 5, 10)
COCKED_THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9)


@dataclass
class Table:
    family: int
    dice: list  # catalogue die names
    enrol: dict  # key -> (uint8 crops (10, 64, 64, 3), FaceLabel)
    queries: list  # (die index, face index, cocked, crop)
    withheld: set  # keys never enrolled


def _species_dice(catalogue) -> dict[str, list]:
    """Dice of each species with at least three dice (an army to enrol)."""
    groups: dict[str, list] = {}
    for die in catalogue:
        if len(die.faces) in (4, 6, 8, 10, 12) and die.species:
            groups.setdefault(die.species, []).append(die)
    return {k: v for k, v in groups.items() if len(v) >= 3}


def _one_table(args: tuple) -> Table:
    """Render one simulated table: (family, seed, queries, max_shots, withheld share, cocked share)."""
    from companion.rules.catalogue import load_catalogue  # noqa: PLC0415
    from companion.vision.synth.real_dice import render_die_crop  # noqa: PLC0415

    fam, seed, queries, max_shots, withheld, cocked = args
    rng = np.random.default_rng(seed)
    groups = _species_dice(load_catalogue())
    names = sorted(groups)
    pool = groups[names[int(rng.integers(len(names)))]]
    dice = [pool[i] for i in rng.choice(len(pool), min(len(pool), int(rng.integers(3, 7))), replace=False)]
    faces: dict[str, list[tuple[int, int]]] = {}
    for j, die in enumerate(dice):
        for k in range(len(die.faces)):
            faces.setdefault(face_key(die, k)[0], []).append((j, k))
    keys = sorted(faces)
    hold = {k for k in keys if rng.random() < withheld}
    enrol = {}
    for key in keys:
        if key in hold:
            continue
        crops = []
        for _ in range(max_shots):
            j, k = faces[key][int(rng.integers(len(faces[key])))]
            crops.append(render_die_crop(fam, dice[j].name, k, rng, size=64, cocked=False))
        j, k = faces[key][0]
        enrol[key] = (np.stack(crops), face_label(dice[j], k))
    qs = []
    for _ in range(queries):
        j = int(rng.integers(len(dice)))
        k = int(rng.integers(len(dice[j].faces)))
        c = bool(rng.random() < cocked)
        qs.append((j, k, c, render_die_crop(fam, dice[j].name, k, rng, size=64, cocked=c)))
    return Table(int(fam), [d.name for d in dice], enrol, qs, hold)


def render_tables(families, *, tables_per_family: int = 3, queries: int = 60, max_shots: int = 10,
                  withheld: float = 0.15, cocked: float = 0.1, seed: int = 0, workers: int = 0,
                  progress=None) -> list[Table]:
    """Render the tables of a simulation (``real_dice.render_die_crop``; torch-free), in ``workers``
    processes (0: in this one).  The same arguments render the same tables."""
    rng = np.random.default_rng(seed)
    args = [(int(f), int(rng.integers(2**31)), queries, max_shots, withheld, cocked)
            for f in families for _ in range(tables_per_family)]
    if workers > 0:
        import multiprocessing as mp  # noqa: PLC0415

        with mp.get_context("fork").Pool(workers) as pool:
            out = []
            for t in pool.imap(_one_table, args):
                out.append(t)
                if progress:
                    progress(len(out), len(args))
            return out
    out = []
    for a in args:
        out.append(_one_table(a))
        if progress:
            progress(len(out), len(args))
    return out


@dataclass
class Embedded:
    """A table's crops as embeddings: enrolment (key -> (10, dim)), queries (n, dim) + cocked prob."""

    table: Table
    enrol: dict
    query_emb: np.ndarray
    query_cocked: np.ndarray


def embed_tables(tables: list[Table], embedder) -> list[Embedded]:
    out = []
    for t in tables:
        keys = list(t.enrol)
        crops = [t.enrol[k][0] for k in keys] + [np.stack([q[3] for q in t.queries])]
        emb, pc = embedder(np.concatenate(crops))
        m = t.enrol[keys[0]][0].shape[0] if keys else 0
        enrol = {k: emb[i * m:(i + 1) * m] for i, k in enumerate(keys)}
        out.append(Embedded(t, enrol, emb[len(keys) * m:], pc[len(keys) * m:]))
    return out


def _profile(e: Embedded, shots: int, dim: int, settings: dict) -> TableProfile:
    prof = TableProfile("sim", dim, settings)
    for key, emb in e.enrol.items():
        if shots:
            prof.add(emb[:shots], [e.table.enrol[key][1]] * shots)
    return prof


def distance_records(embedded: list[Embedded], shots=SHOTS, catalogue=None) -> dict:
    """Per shots level, per query: distances to the die's faces (inf where unknown), the true face's
    index among them, whether it was enrolled, whether it is cocked, and p(cocked)."""
    if catalogue is None:
        from companion.rules.catalogue import load_catalogue  # noqa: PLC0415

        catalogue = load_catalogue()
    recs: dict[int, dict[str, list]] = {}
    for s in shots:
        r = recs.setdefault(s, {"d": [], "truth": [], "known": [], "cocked": [], "pc": [], "same": []})
        for e in embedded:
            dim = e.query_emb.shape[1]
            prof = _profile(e, s, dim, {})
            for (j, k, c, _), emb, pc in zip(e.table.queries, e.query_emb, e.query_cocked, strict=True):
                die = catalogue.find(e.table.dice[j])
                _, d = prof.face_weights(emb, die)
                pad = np.full(12, np.inf)
                pad[:len(d)] = d
                r["d"].append(pad)
                r["truth"].append(k)
                r["known"].append(face_key(die, k)[0] not in e.table.withheld)
                r["cocked"].append(c)
                r["pc"].append(float(pc))
                # faces of this die printed the same as the true one (a reading of either is right)
                same = np.zeros(12, bool)
                same[[i for i, f in enumerate(die.faces) if f.text() == die.faces[k].text()]] = True
                r["same"].append(same)
    return {s: {k: np.array(v) for k, v in r.items()} for s, r in recs.items()}


def decide(rec: dict, scale: float, max_distance: float, min_confidence: float, cocked_threshold: float = 0.5
           ) -> dict[str, float]:
    """The figures of one setting on one shots level's records (vectorised ``TableProfile._decide``)."""
    d = rec["d"]
    w = np.where(np.isfinite(d), np.exp(-scale * np.where(np.isfinite(d), d, 0) ** 2), 0.0)
    k = w.argmax(1)
    rows = np.arange(len(d))
    conf = w[rows, k] / (w.sum(1) + np.exp(-scale * max_distance ** 2) + 1e-12)
    called_cocked = rec["pc"] >= cocked_threshold
    read = (~called_cocked) & np.isfinite(d[rows, k]) & (d[rows, k] < max_distance) & (conf >= min_confidence)
    right = read & rec["same"][rows, k]
    flat = ~rec["cocked"]
    fk = flat & rec["known"]
    fu = flat & ~rec["known"]
    n = max(int(fk.sum()), 1)
    return {
        "queries": int(flat.sum()),
        "accuracy": float((right & fk).sum() / n),
        "confidently_wrong": float((read & ~right & flat).sum() / max(int(flat.sum()), 1)),
        "wrong_on_known": float((read & ~right & fk).sum() / n),
        "unknown_read": float((read & fu).sum() / max(int(fu.sum()), 1)),
        "unreadable": float((~read & ~called_cocked & fk).sum() / n),
        "flat_called_cocked": float((called_cocked & flat).sum() / max(int(flat.sum()), 1)),
        "cocked_found": float((called_cocked & rec["cocked"]).sum() / max(int(rec["cocked"].sum()), 1)),
        "cocked_read": float((read & rec["cocked"]).sum() / max(int(rec["cocked"].sum()), 1)),
    }


def calibrate(records: dict, max_wrong: float = 0.005, levels=(1, 2, 3, 5, 10), max_flat_cocked: float = 0.01
              ) -> tuple[dict, dict]:
    """The setting with the best mean accuracy over ``levels`` whose confidently-wrong rate (known
    and never-enrolled faces together) stays <= ``max_wrong`` at every level, then the lowest cocked
    threshold that calls at most ``max_flat_cocked`` of the flat dice cocked (issue 20's targets).
    Returns (setting, its figures per level)."""
    best, best_acc = None, -1.0
    safest, safest_wrong = None, 2.0
    for scale in (4.0, 8.0, 16.0, 32.0):
        for max_distance in np.round(np.arange(0.2, 1.41, 0.05), 3):
            for min_conf in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
                figs = {s: decide(records[s], scale, float(max_distance), min_conf) for s in levels}
                worst = max(f["confidently_wrong"] for f in figs.values())
                setting = {"scale": scale, "max_distance": float(max_distance), "min_confidence": min_conf,
                           "cocked_threshold": 0.5}
                if worst < safest_wrong:
                    safest, safest_wrong = (setting, figs), worst
                if worst > max_wrong:
                    continue
                acc = float(np.mean([f["accuracy"] for f in figs.values()]))
                if acc > best_acc:
                    best_acc, best = acc, (setting, figs)
    met = best is not None
    setting, figs = best if met else safest  # else: the setting with the fewest confidently-wrong readings
    # the cocked threshold: the lowest that calls at most ``max_flat_cocked`` of the flat dice cocked
    for th in COCKED_THRESHOLDS:
        if decide(records[levels[0]], setting["scale"], setting["max_distance"], setting["min_confidence"],
                  th)["flat_called_cocked"] <= max_flat_cocked:
            break
    setting = {**setting, "cocked_threshold": th, "bound_met": met}
    figs = {s: decide(records[s], setting["scale"], setting["max_distance"], setting["min_confidence"], th)
            for s in levels}
    return setting, figs


def curves(records: dict, settings: dict) -> dict[int, dict]:
    return {s: decide(r, settings["scale"], settings["max_distance"], settings["min_confidence"],
                      settings.get("cocked_threshold", 0.5)) for s, r in records.items()}
