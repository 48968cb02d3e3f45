"""Dragon Dice on whole frames: an enrolled bundle's camera path (finder, embedding, table profile, the
roster's assignment: ``roll_reading.read_roll``) on ``synth.real_tables`` frames, scored per die.

``enroll_sim`` measures the table profile on crops cut around each die's outline; at the table the dice
are found by the die finder first, and the roster's assignment decides which die is which unit.  Here
every frame of a ``real_tables`` set (its manifest gives each die's name, face and box) is read as the
tablet reads a roll: before each frame the bundle's profile is replaced by one taught ``sightings``
renders (``real_dice.render_die_crop`` of the table's own art family) of every face of every die on the
table, the roster is the table's dice, and each unit's reading is compared with the die whose box its
detection covers (IoU >= 0.5): right (that die's name and face), wrong (a face read, not that one),
unread (no face: a tap), not seen (no detection), and for cocked dice, called cocked or read as a face.
``bench/enroll_frames.py`` prints it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np

from companion.vision.detections import box_iou

#: What is counted per unit (flat dice: right, wrong, unread, not seen; cocked dice: called cocked, read).
#: A unit is right when the face text read is what its own die shows (the units of one die type: as a
#: multiset, as they are interchangeable): what the Roll panel uses.  ``wrong_by_detection`` counts the
#: units read whose box is not on a die of their type showing that text (a stricter view: which box).
#: ``offered_first`` / ``offered_two``: unread units whose first marked face (``likely``, what the Roll
#: panel marks for the tap) / one of the first two is a face text that a die of their type shows there.
KEYS = (
    "flat",
    "right",
    "wrong",
    "unread",
    "not_seen",
    "cocked",
    "cocked_called",
    "cocked_read",
    "wrong_by_detection",
    "offered_first",
    "offered_two",
    "together_right",
    "together_wrong",
)
#: What the wrong readings were: the unit was given another die's detection (that die's face text read
#: or not), or its own die with another face.
WRONG_KEYS = ("wrong_other_die_same_text", "wrong_other_die", "wrong_own_die", "wrong_no_die")


def enrolled_bundle(folder: Path) -> Path:
    """``dragon-dice`` enrolled from one render (every frame then gets its own profile)."""
    from companion.rules.catalogue import load_catalogue  # noqa: PLC0415
    from companion.vision.enroll import Sighting, enroll  # noqa: PLC0415
    from companion.vision.profile import face_label  # noqa: PLC0415
    from companion.vision.synth import art  # noqa: PLC0415
    from companion.vision.synth.real_dice import render_die_crop  # noqa: PLC0415

    die = next(d for d in load_catalogue() if d.species and len(d.faces) == 6)
    crop = render_die_crop(art.CALIBRATION_FAMILIES[0], die.name, 0, np.random.default_rng(0))
    frame = np.pad(crop, ((8, 8), (8, 8), (0, 0)))
    side = 64 / 1.15
    box = [40 - side / 2, 40 - side / 2, 40 + side / 2, 40 + side / 2]
    enroll("dragon-dice", folder, [Sighting("bench", frame, box, face_label(die, 0))])
    return folder


def _manifest(data: Path, frames: int | None) -> list[dict]:
    recs = [
        json.loads(line) for line in (Path(data) / "manifest.jsonl").read_text().splitlines() if line.strip()
    ]
    return recs[:frames] if frames else recs


def _read_frames(
    bundle, data: Path, recs: list[dict], sightings, seed, min_identity=None, overrides=None, resolution=1.0
):
    """Each frame of ``recs`` read by the bundle as the tablet reads a roll, its profile first taught
    ``sightings`` renders of every face of the table's dice (drawn at ``resolution``: the frames' scale
    against a 1280 px frame's): yields (n, its manifest record, the model with that profile,
    ``read_roll``'s reading)."""
    from companion.rules.catalogue import load_catalogue  # noqa: PLC0415
    from companion.vision.profile import TableProfile, face_label  # noqa: PLC0415
    from companion.vision.reader import ModelError, read_image  # noqa: PLC0415
    from companion.vision.reader import load_model as load  # noqa: PLC0415
    from companion.vision.roll_reading import read_roll  # noqa: PLC0415
    from companion.vision.synth.real_dice import render_die_crop  # noqa: PLC0415

    catalogue = load_catalogue()
    model = load(str(bundle))
    if getattr(model, "profile", None) is None:
        raise ModelError(f"{bundle} is not an enrolled bundle (no table profile)")
    base = model.profile
    for n, rec in enumerate(recs):
        if "families" not in rec:
            raise ValueError(
                f"{data}/manifest.jsonl: frame {n} names no art families (written before they were kept)"
            )
        rng = np.random.default_rng([seed, n])
        crops, labels, seen = [], [], set()
        for d in rec["dice"]:
            die = catalogue.get(d["die"])
            if die.name in seen:
                continue
            seen.add(die.name)
            group = die.species or die.name.split("/", 1)[0]
            family = int(rec["families"][group])
            for k in range(len(die.faces)):
                for _ in range(sightings):
                    crops.append(render_die_crop(family, die.name, k, rng, resolution=resolution))
                    labels.append(face_label(die, k))
        settings = {**base.settings, **(overrides or {})}
        if min_identity is not None:
            settings["min_identity"] = min_identity
        model.profile = TableProfile(base.embedder_id, base.dim, settings)
        model.profile.learn(np.stack(crops), labels, model.embedder)
        image = read_image(Path(data) / rec["image"])
        yield n, rec, model, read_roll(image, [d["die"] for d in rec["dice"]], model=model)


def frame_figures(
    bundle,
    data: Path,
    sightings: int = 3,
    seed: int = 0,
    frames: int | None = None,
    log=None,
    min_identity: float | None = None,
    overrides: dict | None = None,
    resolution: float = 1.0,
) -> dict:
    """Counts (``KEYS``) over the frames of ``data`` (a ``real_tables`` set whose manifest names each
    table's art families: ``"families"``), read by the enrolled bundle ``bundle`` (a folder), and
    ``"records"``: per unit, its outcome (a ``KEYS`` name: right, wrong, unread, not_seen;
    cocked_called, cocked_read or cocked for a cocked die) and the assignment's ``identity``, so
    ``identity_sweep`` can replay the identity gate.  ``min_identity``: that gate (None: the bundle's);
    ``overrides``: other reading settings of the profile in place of the bundle's (``size_sigma``);
    ``resolution``: the frames' scale against a 1280 px frame's (the faces are taught at it).
    ``"sizes"``: per frame, (finder's box, mm) of its flat six-sided dice, for ``size_sigma``."""
    from companion.rules.catalogue import load_catalogue  # noqa: PLC0415

    catalogue = load_catalogue()
    out: dict = dict.fromkeys(KEYS + WRONG_KEYS, 0)
    records: list[dict] = []
    sizes: list[list[tuple]] = []
    recs = _manifest(data, frames)
    for n, rec, _model, read in _read_frames(
        bundle, data, recs, sightings, seed, min_identity, overrides, resolution
    ):
        boxes = np.array([r["box"] for r in read["dice"]]).reshape(-1, 4)
        sizes.append(_frame_sizes(read["detections"].xyxy, rec["dice"], catalogue))
        remaining: dict[str, Counter] = {}  # per die type: the face texts its flat dice show
        for d in rec["dice"]:
            got = remaining.setdefault(d["die"], Counter())
            if not d.get("cocked"):
                got[catalogue.get(d["die"]).faces[d["face_index"]].text()] += 1
        shown_texts = {name: set(texts) for name, texts in remaining.items()}
        together = together_verdicts(read["units"], rec["dice"], catalogue)
        for unit, d in zip(read["units"], rec["dice"], strict=True):
            cocked = bool(d.get("cocked"))
            out["cocked" if cocked else "flat"] += 1
            det = unit.get("detection")
            truth = None
            if det is not None:
                iou = box_iou(boxes[det : det + 1], np.array([x["box"] for x in rec["dice"]]))[0]
                j = int(np.argmax(iou))
                truth = rec["dice"][j] if iou[j] >= 0.5 else None
            index = None if unit.get("cocked") or unit.get("unreadable") else unit.get("face_index")
            record = {
                "cocked": cocked,
                "identity": unit.get("identity"),
                "text_identity": unit.get("text_identity"),
                "both_identity": _lower(unit.get("identity"), unit.get("text_identity")),
                "why": None,
            }
            records.append(record)
            filled = together.get(unit["slot"])  # read together with look-alike dice (stop 41)
            record["together"] = filled
            if cocked:
                out["cocked_called"] += int(bool(unit.get("cocked")))
                out["cocked_read"] += int(index is not None or filled is not None)
                if filled is not None:
                    index = -1  # read as a face, by its group
                record["outcome"] = (
                    "cocked_called"
                    if unit.get("cocked")
                    else "cocked_read"
                    if index is not None
                    else "cocked"
                )
                continue
            if det is None:
                out["not_seen"] += 1
                record["outcome"] = "not_seen"
            elif index is None and filled is not None:
                out["together_" + filled] += 1
                record["outcome"] = "together_" + filled
            elif index is None:
                out["unread"] += 1
                record["outcome"] = "unread"
                # what the Roll panel marks for the tap (never set): is a face the die type shows there
                offered = [alt["face"] for alt in unit.get("alternatives", [])]
                record["offered"] = [f in shown_texts[d["die"]] for f in offered[:2]]
                out["offered_first"] += int(bool(offered) and offered[0] in shown_texts[d["die"]])
                out["offered_two"] += int(any(f in shown_texts[d["die"]] for f in offered[:2]))
            else:
                text = catalogue.get(d["die"]).faces[index].text()
                shown = (
                    None if truth is None else catalogue.get(truth["die"]).faces[truth["face_index"]].text()
                )
                # by detection: the die under the unit's box is its die type, showing that text
                on_box = (
                    truth is not None
                    and truth["die"] == d["die"]
                    and not truth.get("cocked")
                    and shown == text
                )
                out["wrong_by_detection"] += int(not on_box)
                record["detection"] = "right" if on_box else "wrong"
                # by unit: the text read is what the unit's own die shows (dice of one type: as a multiset)
                right = remaining[d["die"]][text] > 0
                remaining[d["die"]][text] -= int(right)
                out["right" if right else "wrong"] += 1
                record["outcome"] = "right" if right else "wrong"
                if not right:
                    why = (
                        "wrong_no_die"
                        if truth is None
                        else "wrong_own_die"
                        if truth["die"] == d["die"]
                        else "wrong_other_die_same_text"
                        if shown == text
                        else "wrong_other_die"
                    )
                    out[why] += 1
                    record["why"] = why
        if log and (n + 1) % 25 == 0:
            log(f"frames: {n + 1}/{len(recs)}")
    out["frames"] = len(recs)
    out["records"] = records
    out["sizes"] = sizes
    out["results_right"] = out["right"] + out["together_right"]
    out["results_wrong"] = out["wrong"] + out["together_wrong"]
    for k in ("right", "wrong", "unread", "not_seen", "results_right", "results_wrong"):
        out[k + "_rate"] = round(out[k] / max(out["flat"], 1), 4)
    return out


#: The army rolls a group read together must come out the same in (with the true faces): every purpose
#: whose results a unit's faces give, at no terrain, with no effect in force.
PURPOSES = ("melee", "missile", "magic", "save", "maneuver")


def _alike(dice: list, ways: list[list[int]]) -> bool:
    """Every way of giving ``dice`` their faces (face indices) gives each army roll of ``PURPOSES`` the
    same results (``resolution.same_outcome``: no SAI moving between units)."""
    from companion.rules.resolution import RolledUnit, RollRequest, same_outcome  # noqa: PLC0415

    return all(
        same_outcome(
            [
                RollRequest(
                    purpose, tuple(RolledUnit(d, (d.faces[k],)) for d, k in zip(dice, way, strict=True))
                )
                for way in ways
            ]
        )
        for purpose in PURPOSES
    )


def together_verdicts(units: list[dict], truth: list[dict], catalogue) -> dict[int, str]:
    """Per slot of a unit ``assign`` read together with look-alike dice (``UnitReading.together``) whose
    group the game would fill (every way gives the same results: ``_alike``, as ``TableGame.same_results``
    asks of the pending roll), "right" when the way filled (the best) gives the same results as the
    units' own dice show (``truth``: the manifest's dice in roster order; a cocked one makes it wrong),
    else "wrong".  Units of a group the game would not fill are left out (still unread)."""
    out: dict[int, str] = {}
    seen: set[tuple] = set()
    for unit in units:
        group = unit.get("together")
        if not group or tuple(group["slots"]) in seen:
            continue
        seen.add(tuple(group["slots"]))
        dice = [catalogue.get(truth[j]["die"]) for j in group["slots"]]
        if not _alike(dice, group["options"]):
            continue
        shown = [truth[j] for j in group["slots"]]
        right = not any(t.get("cocked") for t in shown) and _alike(
            dice, [group["options"][0], [int(t["face_index"]) for t in shown]]
        )
        for j in group["slots"]:
            out[j] = "right" if right else "wrong"
    return out


def _lower(identity, text_identity):
    """``assign``'s "both" identity: the lower of the two (the die type's when no face was read)."""
    if identity is None or text_identity is None:
        return identity
    return min(identity, text_identity)


def _frame_sizes(found, dice: list[dict], catalogue) -> list[tuple]:
    """(box, mm) of each flat six-sided die of the frame that a finder's box covers (IoU >= 0.5, the box
    the finder drew), for ``size_sigma``."""
    from companion.vision.die_size import unit_mm  # noqa: PLC0415

    found = np.asarray(found, float).reshape(-1, 4)
    out = []
    if not len(found):
        return out
    for d in dice:
        mm = unit_mm(catalogue.get(d["die"]))
        if d.get("cocked") or mm is None:
            continue
        iou = box_iou(np.array([d["box"]], float), found)[0]
        k = int(np.argmax(iou))
        if iou[k] >= 0.5:
            out.append((found[k].tolist(), mm))
    return out


def size_sigma(frames: list[list[tuple]]) -> tuple[float, int]:
    """The spread of the finder's log box sizes about each frame's own scale (fitted on the dice's true
    sizes, ``die_size.fit_scale`` without trimming): 1.4826 x the median absolute residual (a robust
    standard deviation), and how many dice it is measured on.  Frames with fewer than 3 such dice are
    left out (a line through 2 points leaves no spread to see)."""
    from companion.vision.die_size import FrameScale, fit_scale  # noqa: PLC0415

    res: list[float] = []
    for pairs in frames:
        if len(pairs) < 3:
            continue
        boxes = np.array([b for b, _ in pairs], float)
        mms = np.array([mm for _, mm in pairs], float)
        scale = fit_scale(boxes, mms, sigma=float("inf"))
        assert isinstance(scale, FrameScale)
        sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
        res += list(np.log(sides) - scale.expected_log((boxes[:, 1] + boxes[:, 3]) / 2, mms))
    if not res:
        raise ValueError("no frame with 3 or more flat six-sided dice found: no size spread to measure")
    return 1.4826 * float(np.median(np.abs(res))), len(res)


#: The identity gates tried, and the confidently-wrong rate the chosen one may give on the calibration
#: frames (models/face-embed/CHANGELOG.md, stop 39: half the target, written before choosing).
IDENTITY_GRID = (0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.98, 0.99, 0.995, 0.999)
IDENTITY_MAX_WRONG = 0.0025


def choose_identity(records: list[dict], by: str = "identity") -> tuple[float, list[dict]]:
    """(the smallest gate of ``IDENTITY_GRID`` whose confidently-wrong rate on ``records`` is at most
    ``IDENTITY_MAX_WRONG``, else the largest; the sweep over the grid), for the identity ``by``."""
    sweep = identity_sweep(records, IDENTITY_GRID, by)
    ok = [f["min_identity"] for f in sweep if f["wrong"] <= IDENTITY_MAX_WRONG * f["flat"]]
    return (min(ok) if ok else IDENTITY_GRID[-1]), sweep


def choose_identity_by(records: list[dict]) -> tuple[str, float, dict]:
    """The rule of models/face-embed/CHANGELOG.md (stop 39, text identity): each identity gets its gate
    (``choose_identity``); the one with more units read right at its gate is taken, a tie the die type's.
    Returns (``"die"`` or ``"text"``, its gate, each one's (gate, sweep) by name)."""
    both = {by: choose_identity(records, key) for by, key in (("die", "identity"), ("text", "text_identity"))}

    def right(by: str) -> int:
        gate, sweep = both[by]
        return next(f["right"] for f in sweep if f["min_identity"] == gate)

    by = "text" if right("text") > right("die") else "die"
    return by, both[by][0], both


#: Each identity_by and the record key its gate replays on.
IDENTITY_KEYS = {"die": "identity", "text": "text_identity", "both": "both_identity"}


def choose_identity_split(sets: list[list[dict]], by: str) -> tuple[float, list[dict]]:
    """Stop 40's second pass: the smallest gate of ``IDENTITY_GRID`` whose confidently-wrong rate is at
    most ``IDENTITY_MAX_WRONG`` on **each** set of records apart (else the largest), for ``by`` ("die",
    "text" or "both"); and the sweep over all sets together."""
    key = IDENTITY_KEYS[by]
    each = [identity_sweep(records, IDENTITY_GRID, key) for records in sets]
    ok = [
        t
        for k, t in enumerate(IDENTITY_GRID)
        if all(sweep[k]["wrong"] <= IDENTITY_MAX_WRONG * sweep[k]["flat"] for sweep in each)
    ]
    return (min(ok) if ok else IDENTITY_GRID[-1]), identity_sweep(
        [r for rs in sets for r in rs], IDENTITY_GRID, key
    )


def identity_sweep(records: list[dict], thresholds, by: str = "identity") -> list[dict]:
    """The figures ``frame_figures`` would give under each identity gate of ``thresholds``, from its
    ``records`` read with no gate (``min_identity=0``): a unit whose die was read (right, wrong, or a
    cocked die read as a face) with its ``by`` (``identity`` or ``text_identity``) under the gate is
    unread instead; nothing else moves (a unit of a die type that shares the table with another of its
    type keeps the outcome it had, though the other's being unread could have freed its text)."""
    out = []
    for t in thresholds:
        fig = {"min_identity": float(t), **dict.fromkeys(("flat", "right", "wrong", "unread", "not_seen"), 0)}
        fig["cocked_read"] = 0
        for r in records:
            gated = r.get(by) is not None and r[by] < t
            if r["cocked"]:
                fig["cocked_read"] += int(r["outcome"] == "cocked_read" and not gated)
                continue
            fig["flat"] += 1
            outcome = "unread" if gated and r["outcome"] in ("right", "wrong") else r["outcome"]
            fig[outcome] += 1
        for k in ("right", "wrong", "unread", "not_seen"):
            fig[k + "_rate"] = round(fig[k] / max(fig["flat"], 1), 4)
        out.append(fig)
    return out


#: What ``tap_figures`` counts: the flat units, the taps a roll needs with and without the assignment
#: told each tap (``assign``'s ``given``), the units read wrong before any tap and once every unit is
#: read or tapped, and the units first left unread that the taps read (and of them, wrongly).
TAP_KEYS = (
    "flat",
    "taps_without",
    "taps_with",
    "wrong_without",
    "wrong_with",
    "read_by_taps",
    "read_by_taps_wrong",
)


def tap_figures(
    bundle,
    data: Path,
    sightings: int = 3,
    seed: int = 0,
    frames: int | None = None,
    log=None,
    teach: bool = False,
    overrides: dict | None = None,
):
    """Counts (``TAP_KEYS``) over the frames of ``data`` read as ``frame_figures`` reads them, with a
    simulated player: while a flat unit is unread (no face, not seen, or called cocked), the first one
    is tapped with the face its own die type shows under its box (when the box covers one of its dice
    showing a face not yet tapped), else with a face its die type still shows on the table; the frame is
    then assigned again with every tap so far (``assign(..., given=...)``), and a unit still unread takes
    what it reads now while a unit read keeps its face (as ``web.play.told_by_taps``).  Without that, a
    roll needs one tap per unit left unread.  ``teach`` (or the profile's ``tap_teaches``): the taps also
    teach a copy of the frame's profile their crops where the assignment is sure of them
    (``assign.tapped_sightings``), before the frame is assigned again.  ``overrides``: reading settings
    of the profile in place of the bundle's (``tap_density``)."""
    import copy  # noqa: PLC0415

    from companion.rules.catalogue import load_catalogue  # noqa: PLC0415
    from companion.vision.assign import assign, roster_dice, tapped_sightings  # noqa: PLC0415

    catalogue = load_catalogue()
    out = dict.fromkeys(TAP_KEYS, 0)
    recs = _manifest(data, frames)
    for n, rec, model, read in _read_frames(bundle, data, recs, sightings, seed, overrides=overrides):
        names = [d["die"] for d in rec["dice"]]
        dice = roster_dice(names, catalogue)
        det = read["detections"]
        truth = [
            None if d.get("cocked") else catalogue.get(d["die"]).faces[d["face_index"]].text()
            for d in rec["dice"]
        ]
        under = _dice_under(np.array([r["box"] for r in read["dice"]]).reshape(-1, 4), rec["dice"])
        units, given = read["units"], {}
        teaches = teach or bool(model.profile.settings.get("tap_teaches"))
        colours, kinds = [r["colour"] for r in read["dice"]], [r["kind"] for r in read["dice"]]
        before = after = unit_outcomes(units, names, truth, given)
        while "unread" in after.values():
            j = next(j for j, o in after.items() if o == "unread")
            given[j] = _tapped_face(units[j], j, names, truth, given, under)
            found, _ = assign(dice, det, colours, kinds, model.heads, profile=model.profile, given=given)
            if teaches:  # as ``web.play.told_by_taps``: every tap so far teaches a fresh copy of the profile
                emb, labels = tapped_sightings(model.profile, dice, det, [f.to_dict() for f in found], given)
                if labels:
                    taught = copy.deepcopy(model.profile)
                    taught.add(emb, labels)
                    found, _ = assign(dice, det, colours, kinds, model.heads, profile=taught, given=given)
            # as the Roll panel does (``web.play.told_by_taps``): a unit read keeps its face; one left
            # unread takes what the frame reads now
            units = [
                u if after.get(k) in ("right", "wrong") else f.to_dict()
                for k, (u, f) in enumerate(zip(units, found, strict=True))
            ]
            after = unit_outcomes(units, names, truth, given)
        out["flat"] += len(before)
        out["taps_without"] += sum(o == "unread" for o in before.values())
        out["taps_with"] += len(given)
        out["wrong_without"] += sum(o == "wrong" for o in before.values())
        out["wrong_with"] += sum(o == "wrong" for o in after.values())
        late = [j for j, o in before.items() if o == "unread" and j not in given]
        out["read_by_taps"] += len(late)
        out["read_by_taps_wrong"] += sum(after[j] == "wrong" for j in late)
        if log and (n + 1) % 25 == 0:
            log(f"frames: {n + 1}/{len(recs)}")
    out["frames"] = len(recs)
    return out


def _dice_under(boxes: np.ndarray, dice: list[dict]) -> list[int | None]:
    """Per detection, the manifest die its box covers (IoU >= 0.5), or None."""
    if not len(boxes) or not dice:
        return [None] * len(boxes)
    iou = box_iou(boxes, np.array([d["box"] for d in dice], float))
    return [int(np.argmax(row)) if row.max() >= 0.5 else None for row in iou]


def _left(names: list[str], truth: list, given: dict[int, str]) -> dict[str, Counter]:
    """Per die type, the face texts its flat dice show that no tap has named yet."""
    left: dict[str, Counter] = {}
    for name, text in zip(names, truth, strict=True):
        if text is not None:
            left.setdefault(name, Counter())[text] += 1
    for j, text in given.items():
        left[names[j]][text] -= 1
    return left


def unit_outcomes(units: list[dict], names: list[str], truth: list, given: dict[int, str]) -> dict[int, str]:
    """Per flat unit not tapped (``given``: slot -> face tapped): right, wrong or unread (no face, not
    seen, called cocked), against ``truth`` (per slot, the face text its die shows, None when cocked);
    the units of one die type as a multiset (as ``frame_figures`` scores them), less the faces tapped.
    ``units``: ``read_roll``'s units; ``names``: the roster."""
    left = _left(names, truth, given)
    out = {}
    for j, unit in enumerate(units):
        if truth[j] is None or j in given:
            continue
        face = None if unit.get("cocked") or unit.get("unreadable") else unit.get("face")
        if unit.get("detection") is None or face is None:
            out[j] = "unread"
        elif left[names[j]][face] > 0:
            left[names[j]][face] -= 1
            out[j] = "right"
        else:
            out[j] = "wrong"
    return out


def _tapped_face(unit: dict, j: int, names: list[str], truth: list, given: dict[int, str], under) -> str:
    """The face a player taps for unit ``j``: what its die type shows under its box when the box covers
    one of its dice with a face not yet tapped, else a face its die type still shows (the first in
    text order)."""
    left = _left(names, truth, given)[names[j]]
    det = unit.get("detection")
    k = under[det] if det is not None else None
    if k is not None and names[k] == names[j] and truth[k] is not None and left[truth[k]] > 0:
        return truth[k]
    return min(t for t, c in left.items() if c > 0)
