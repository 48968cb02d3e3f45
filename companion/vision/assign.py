"""Roster-constrained reading: which detected die belongs to which unit of the rolling army.

Each (detection, unit) pair gets a likelihood from three cues: the die kind (d4..d12) agrees,
the colour estimate matches the unit's materials, and the face reader's probabilities put
weight on faces that unit's die can actually show (sum over its faces of P(icon) x P(count)).
The Hungarian method (scipy ``linear_sum_assignment``) maximises the joint likelihood; each
unit's face is then the most probable of *its own* faces.  A unit's confidence compares the
best assignment with the best one that gives the unit a different die; when they are close
the alternatives are listed instead of silently guessing.

With a table profile (an enrolled bundle) the face cue is the profile's density of each crop under each
die, and a unit is read only when the assignment is sure of it (``min_identity`` of the profile's
settings): two dice of one species show alike every face they share, so a unit whose detection another
die type on the table could own about as well is left unread -- unless, with ``identity_by`` "text",
every assignment nearly as good gives the unit the same face text (models/face-embed/CHANGELOG.md,
stop 39).  With the profile's ``size_sigma`` the dice's sizes in the frame weigh in as a fourth cue: a
small unit's die should look smaller than a large one's there (``die_size``; CHANGELOG, stop 40).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from companion.vision.detections import Detections
from companion.vision.die_kinds import FACES_TO_KIND, die_materials
from companion.vision.die_size import SizeError, size_costs, unit_mm

EPS = 1e-6
KIND_MISMATCH = 1e-4
#: The cost (nats) of giving a tapped unit a detection its die type reads as another face: far above any
#: face's, below the 1e9 that ``_identity`` forbids with, so a tap that fits no detection still assigns.
TAP_MISMATCH = 1e3
COLOUR_MISMATCH = 0.25


class AssignmentError(ValueError):
    """A roster is malformed or names a die the catalogue lacks."""


@dataclass
class UnitReading:
    unit: str
    slot: int
    detection: int | None
    face: str | None
    face_index: int | None
    confidence: float
    cocked: bool = False
    alternatives: list[dict] = field(default_factory=list)
    unreadable: bool = False  # a die was assigned, but its face matches nothing known (table profile)
    #: (table profile) how sure the assignment is that the detection is this unit's die type (``_identity``)
    identity: float | None = None
    #: (table profile) how sure it is of the unit's face text: no assignment nearly as good gives the unit
    #: another text (``_identity`` over the detections its die type would read as another text; None when
    #: no face is read).  The profile's ``identity_by`` ("die", the default, "text", or "both": the lower)
    #: says which its ``min_identity`` gates: below it the unit is left unreadable, whatever its face reads
    text_identity: float | None = None
    #: (table profile, ``read_together``) the look-alike dice this unit is read together with
    #: (``_together``): ``{"slots", "options", "identity"}``; the unit stays unread (no face) until the
    #: game says every option gives its roll the same results (``TableGame.same_results``)
    together: dict | None = None

    def to_dict(self) -> dict:
        out = dict(self.__dict__)
        if out["together"] is None:  # only a profile's read_together proposes groups
            del out["together"]
        return out


def _face_likelihoods(die, det: Detections, i: int, icons: list[str], counts: list[str] | None) -> np.ndarray:
    probs = np.zeros(len(die.faces))
    for k, f in enumerate(die.faces):
        p_icon = det.face_probs[i, icons.index(f.name)] if f.name in icons else EPS
        if counts:
            p_cnt = det.count_probs[i, counts.index(str(f.count))] if str(f.count) in counts else EPS
        else:
            p_cnt = 1.0
        probs[k] = p_icon * p_cnt
    return probs


def _profile_likelihoods(profile, die, det: Detections, i: int) -> tuple[np.ndarray, float, tuple]:
    """Detection ``i`` weighed as a die of ``die``'s type by a table profile: (each face's share, the
    likelihood that the detection is this die, the profile's face table, which ``read_die`` decides from).

    The likelihood is what the assignment compares between dice: the profile's density of the crop's
    embedding under the die, each of its faces equally likely (a face printed twice counts twice; a face
    with no prototype weighs the profile's unknown weight), and a cocked die (p from its geometry) weighs
    the unknown weight whatever die it is.  The face shares are normalised per die, so their sum says
    nothing of which die it is: a roster reading that summed them would give units any die of their kind
    and colour (stop 38: 16 % of units read wrong on whole frames)."""
    table = profile.face_table(det.embedding[i], die)
    w, unknown = _face_weights(profile, table)
    d = table[1]
    p_cocked = float(det.cocked_prob[i])
    density, first = 0.0, {}
    texts = [f.text() for f in die.faces]
    for k, text in enumerate(texts):
        j = first.setdefault(text, k)
        density += float(w[j]) if np.isfinite(d[j]) else unknown
    density /= len(texts)
    like = (1 - p_cocked) * density + p_cocked * unknown
    return (1 - p_cocked) * w / (w.sum() + unknown), like, table


def _face_weights(profile, table) -> tuple[np.ndarray, float]:
    """The density weight of each face of a face table (0 where the face has no prototype) and the
    unknown weight, at the assignment's scale: ``assign_scale`` when the profile sets it (CHANGELOG,
    stop 40; the reading keeps ``scale``), else the reading's."""
    w, d = table[0], table[1]
    unknown = profile.unknown_weight()
    tau = profile.settings.get("assign_scale")
    if tau is not None:
        if not (isinstance(tau, (int, float)) and math.isfinite(tau) and tau > 0):
            raise AssignmentError(f"the table profile's setting assign_scale is {tau!r}: a positive number")
        w = np.where(np.isfinite(d), np.exp(-float(tau) * np.where(np.isfinite(d), d, 0.0) ** 2), 0.0)
        unknown = float(np.exp(-float(tau) * profile.settings["max_distance"] ** 2))
    return w, unknown


def _tapped_cost(profile, die, text: str, weighed_i: tuple) -> float:
    """How much more (nats) it costs to put a unit whose face a player tapped as ``text`` on a detection
    than its die type's mixture says: the crop's density under that face instead of under any face of
    the die (and a flat die, whatever the crop's cocked probability): a tap weighs each detection by how
    much it looks like the face tapped, not only whether it reads as another face."""
    _, like, table = weighed_i
    w, unknown = _face_weights(profile, table)
    k = next(k for k, f in enumerate(die.faces) if f.text() == text)
    w_face = float(w[k]) if np.isfinite(table[1][k]) else unknown
    return math.log(like + EPS) - math.log(w_face + EPS)


def _identity(cost: np.ndarray, best: float, rows, same: list[int]) -> tuple[float, dict[int, int]]:
    """How sure the best assignment (total ``best``) is of what it gave the units ``same`` (one catalogue
    die; swapping identical dice changes nothing): a logistic of how much worse the best assignment is
    that gives none of them any detection of ``rows`` (the unit's own: is it this die type; every
    detection the die type would read as the unit's face text: is that text sure); and that assignment
    (unit -> detection), where the unit would be if it is not where the best one puts it."""
    from scipy.optimize import linear_sum_assignment  # noqa: PLC0415

    forbidden = cost.copy()
    forbidden[np.ix_(np.atleast_1d(rows), same)] = 1e9
    rows, cols = linear_sum_assignment(forbidden)
    delta = float(forbidden[rows, cols].sum()) - best
    other = {int(c): int(r) for r, c in zip(rows, cols, strict=True) if forbidden[r, c] < 1e8}
    return 1.0 / (1.0 + math.exp(-min(delta, 50.0))), other


def _gating_identity(by: str, identity: float, text_identity: float | None) -> float | None:
    """The identity the profile's ``identity_by`` gates on: the die type's, the face text's (None when no
    face is read), or "both": the lower of the two (stop 40)."""
    if by == "die":
        return identity
    if by == "text" or text_identity is None:
        return text_identity
    return min(identity, text_identity)


def _assignment_offers(profile, det, die, i, match, other, weighed, first, likely) -> list[dict]:
    """What the Roll panel marks for a unit the identity gate left unread (a profile's ``offer_by``
    "assignment"): the face it reads on the detection the best assignment gives it, then the face it
    would read where the best assignment that changes that is sure of nothing else puts it (``other``,
    marked ``"from": "assignment"``), then its nearest known faces; each face text once, at most
    ``LIKELY_FACES``.  Still never set: the die waits for a tap."""
    from companion.vision.profile import LIKELY_FACES  # noqa: PLC0415

    offers = [{"detection": i, "face": match.label.text, "face_index": match.face_index}]
    if other is not None and other != i:
        there = weighed[other, first][2]
        k = profile.read_die(det.embedding[other], die, float(det.cocked_prob[other]), there).face_index
        near = profile.likely_faces(det.embedding[other], die, there)
        k = k if k is not None else (near[0] if near else None)
        if k is not None:
            offers.append(
                {"detection": other, "face": die.faces[k].text(), "face_index": k, "from": "assignment"}
            )
    out: list[dict] = []
    for o in offers + likely:
        if o["face"] not in {x["face"] for x in out}:
            out.append(o)
    return out[:LIKELY_FACES]


def assign(
    dice,
    det: Detections,
    colours: list[list[str]],
    det_kinds: list[str],
    heads: dict[str, list[str]],
    min_confidence: float = 0.9,
    profile=None,
    given: dict[int, str] | None = None,
) -> tuple[list[UnitReading], list[int]]:
    """Assign detections to roster dice; returns (one reading per roster entry, unassigned detections).

    ``profile``: a table profile (``companion.vision.profile``) whose prototypes give the face
    likelihoods instead of the face reader (needs ``det.embedding``); a die whose face matches no
    known face of its unit is returned ``unreadable`` (``TableProfile.read_die``).
    ``given``: faces players tapped, ``{slot: face text}`` (with a profile): that unit's die is one its
    die type reads as that face or as none, so every other detection is weighed out for it and the
    other units' identities follow (CHANGELOG, stop 40); with the profile's ``tap_density`` each other
    detection is also weighed by the crop's density under the tapped face.  The tapped unit's own
    reading is still the camera's; the tap stays the player's.  Neither setting ships (measured: more
    units read wrong after the taps than the bound allows); ``web.play.told_by_taps`` uses them when a
    profile sets ``tap_tells``."""
    from scipy.optimize import linear_sum_assignment  # noqa: PLC0415

    icons, counts = heads.get("icon", []), heads.get("count")
    cocked_idx = icons.index("cocked") if "cocked" in icons else None
    n, m = len(det), len(dice)
    if profile is not None and n and det.embedding.shape[1] == 0:
        raise AssignmentError("a table profile needs the detections' embeddings (an enrolled model bundle)")
    by = profile.settings.get("identity_by", "die") if profile is not None else "die"
    if by not in ("die", "text", "both"):
        raise AssignmentError(f"the table profile's setting identity_by is {by!r}: 'die', 'text' or 'both'")
    offer_by = profile.settings.get("offer_by", "nearest") if profile is not None else "nearest"
    if offer_by not in ("nearest", "assignment"):
        raise AssignmentError(
            f"the table profile's setting offer_by is {offer_by!r}: 'nearest' or 'assignment'"
        )
    together = profile.settings.get("read_together", False) if profile is not None else False
    if not isinstance(together, bool):
        raise AssignmentError(f"the table profile's setting read_together is {together!r}: true or false")
    cost = np.zeros((n, m))
    face_tables: dict[tuple[int, int], np.ndarray] = {}
    # the profile weighs each (detection, die) once: units of one die type (the same catalogue die) share
    # it, and read_die decides from the same face table below
    weighed: dict[tuple[int, int], tuple] = {}
    texts: dict[int, list] = {}  # per die type (its first unit): its read_die of every detection
    first = [next(jj for jj in range(m) if dice[jj] is die) for die in dice]
    materials = [set(die_materials(die)) for die in dice]
    for i in range(n):
        p_cocked = (
            det.face_probs[i, cocked_idx] if cocked_idx is not None and det.face_probs.shape[1] else 0.0
        )
        for j, die in enumerate(dice):
            if profile is not None:
                if (i, first[j]) not in weighed:
                    weighed[i, first[j]] = _profile_likelihoods(profile, die, det, i)
                fl, like, _ = weighed[i, first[j]]
                like += EPS
            else:
                fl = _face_likelihoods(die, det, i, icons, counts)
                like = fl.sum() + p_cocked + EPS
            face_tables[i, j] = fl
            if FACES_TO_KIND.get(len(die.faces)) != det_kinds[i]:
                like *= KIND_MISMATCH
            mats = materials[j]
            if colours[i]:  # share of materials seen that the die is made of
                overlap = len(mats & set(colours[i])) / max(len(mats), len(colours[i]))
                like *= COLOUR_MISMATCH + (1 - COLOUR_MISMATCH) * overlap
            cost[i, j] = -math.log(like)
    sigma = profile.settings.get("size_sigma") if profile is not None else None
    if sigma is not None and n and m:  # the dice's sizes in the frame (die_size: its scale fitted per frame)
        flat = [det_kinds[i] == "d6" and float(det.cocked_prob[i]) < 0.5 for i in range(n)]
        mms = [unit_mm(d) for d in dice]
        r0, c0 = linear_sum_assignment(cost)
        pairs = list(zip(r0, c0, strict=True))
        try:
            cost = cost + size_costs(det.xyxy, mms, pairs, sigma, flat)
        except SizeError as exc:
            raise AssignmentError(f"the table profile's setting {exc}") from exc

    def type_reads(j: int) -> list:
        """What unit ``j``'s die type reads on each detection (once per die type)."""
        if first[j] not in texts:
            texts[first[j]] = [
                profile.read_die(
                    det.embedding[ii], dice[j], float(det.cocked_prob[ii]), weighed[ii, first[j]][2]
                )
                for ii in range(n)
            ]
        return texts[first[j]]

    tap_density = bool(profile.settings.get("tap_density")) if profile is not None else False
    for j, text in (given or {}).items():
        if profile is None:
            raise AssignmentError("a tapped face guides the assignment only with a table profile")
        if isinstance(j, bool) or not (isinstance(j, int) and 0 <= j < m):
            raise AssignmentError(f"a tapped unit's slot is {j!r}: one of 0..{m - 1}")
        if text not in {f.text() for f in dice[j].faces}:
            raise AssignmentError(f"the tapped face {text!r} is not a face of {dice[j].name} (slot {j})")
        for i, r in enumerate(type_reads(j)):  # a die read as another face (or cocked) is not this one
            if r.cocked or (r.label is not None and r.label.text != text):
                cost[i, j] += TAP_MISMATCH
            elif tap_density:
                cost[i, j] += _tapped_cost(profile, dice[j], text, weighed[i, first[j]])
    rows, cols = linear_sum_assignment(cost) if n and m else (np.array([], int), np.array([], int))
    best = cost[rows, cols].sum()
    by_unit = {int(c): int(r) for r, c in zip(rows, cols, strict=True)}
    out = []
    gated: list[int] = []  # units left unread for which die is which only (their face read)
    faced: list[int] = []  # units whose face is read, sure of which die is which or not
    for j, die in enumerate(dice):
        i = by_unit.get(j)
        if i is None:
            out.append(UnitReading(die.name, j, None, None, None, 0.0))
            continue
        fl = face_tables[i, j]
        if (
            profile is not None
        ):  # the profile's rule: nearest known face, else unreadable; cocked from geometry
            table = weighed[i, first[j]][2]
            match = profile.read_die(det.embedding[i], die, float(det.cocked_prob[i]), table)
            same = [jj for jj in range(m) if first[jj] == first[j]]
            identity, elsewhere = _identity(cost, best, i, same)
            text_elsewhere: dict[int, int] = {}
            text_identity = None
            if match.label is not None:
                reads = type_reads(j)  # what the die type would read on each detection
                rows_same = [ii for ii in range(n) if reads[ii].label == match.label]
                text_identity, text_elsewhere = _identity(cost, best, rows_same, same)
            sure = _gating_identity(by, identity, text_identity)
            unsure = sure is not None and sure < float(profile.settings.get("min_identity", 0.0))
            if match.label is not None:  # its face read (which die is which may not be)
                faced.append(j)
                if unsure:
                    gated.append(j)
            conf = (identity if sure is None else sure) * match.confidence
            likely = profile.likely_faces(det.embedding[i], die, table) if match.unreadable or unsure else []
            offers = [{"detection": i, "face": die.faces[k].text(), "face_index": k} for k in likely]
            if unsure and match.label is not None and offer_by == "assignment":
                binding = "text" if by == "text" or (by == "both" and sure != identity) else "die"
                other = (elsewhere if binding == "die" else text_elsewhere).get(j)
                offers = _assignment_offers(profile, det, die, i, match, other, weighed, first[j], offers)
            out.append(
                UnitReading(
                    die.name,
                    j,
                    i,
                    match.label.text if match.label and not unsure else None,
                    None if unsure else match.face_index,
                    round(float(conf), 4),
                    match.cocked,
                    offers,
                    match.unreadable or unsure,
                    round(float(identity), 4),
                    None if text_identity is None else round(float(text_identity), 4),
                )
            )
            continue
        # best assignment in which unit j does not get detection i
        forbidden = cost.copy()
        forbidden[i, j] = 1e9
        r2, c2 = linear_sum_assignment(forbidden)
        alt_cost = forbidden[r2, c2].sum()
        delta = alt_cost - best
        conf_assign = 1.0 / (1.0 + math.exp(-min(delta, 50.0)))
        p_cocked = (
            det.face_probs[i, cocked_idx] if cocked_idx is not None and det.face_probs.shape[1] else 0.0
        )
        total = fl.sum() + p_cocked + EPS
        k = int(fl.argmax())
        cocked = p_cocked > fl[k]
        conf_face = (p_cocked if cocked else fl[k]) / total
        conf = conf_assign * conf_face
        alts = []
        if conf < min_confidence:
            alt_det = {int(c): int(r) for r, c in zip(r2, c2, strict=True)}.get(j)
            if alt_det is not None and alt_cost < 1e8:
                ft = face_tables[alt_det, j]
                alts.append(
                    {
                        "detection": alt_det,
                        "face": die.faces[int(ft.argmax())].text(),
                        "confidence": round(1 - conf_assign, 4),
                    }
                )
            for kk in np.argsort(-fl)[1:3]:
                if fl[kk] / total > 0.05 and die.faces[kk].text() != die.faces[k].text():
                    alts.append(
                        {
                            "detection": i,
                            "face": die.faces[int(kk)].text(),
                            "confidence": round(float(fl[kk] / total * conf_assign), 4),
                        }
                    )
        out.append(
            UnitReading(
                die.name,
                j,
                i,
                None if cocked else die.faces[k].text(),
                None if cocked else k,
                round(float(conf), 4),
                bool(cocked),
                alts,
            )
        )
    if together:
        for slots, group in _together(
            profile, dice, cost, best, by_unit, faced, set(gated), type_reads
        ).items():
            for j in slots:
                out[j].together = group
    unassigned = sorted(set(range(n)) - set(by_unit.values()))
    return out, unassigned


#: The most distinct ways of giving a group its faces it may carry to the game, and the most permutations
#: within the gate weighed before a group is given up as too open.
MOST_OPTIONS = 24
MOST_WAYS = 5000


def _near_ways(sub: np.ndarray, near: float) -> list[tuple[float, tuple]] | None:
    """Every permutation of ``sub``'s rows over its columns (row ``perm[c]`` to column ``c``) whose cost
    is less than ``near`` above the diagonal's, cheapest first; None past ``MOST_WAYS``.  A depth-first
    search that drops a branch once its cost plus the remaining columns' cheapest rows reaches the bound."""
    k = len(sub)
    base = float(np.trace(sub))
    rest = np.concatenate([np.cumsum(sub.min(0)[::-1])[::-1], [0.0]])
    out: list[tuple[float, tuple]] = []
    used = [False] * k
    perm: list[int] = []

    def walk(c: int, acc: float) -> bool:
        if acc + rest[c] - base >= near:
            return True
        if c == k:
            out.append((acc - base, tuple(perm)))
            return len(out) <= MOST_WAYS
        for r in range(k):
            if not used[r]:
                used[r] = True
                perm.append(r)
                going = walk(c + 1, acc + float(sub[r, c]))
                perm.pop()
                used[r] = False
                if not going:
                    return False
        return True

    return sorted(out) if walk(0, 0.0) else None


def _together(
    profile, dice, cost: np.ndarray, best: float, by_unit: dict, faced: list[int], gated: set[int], type_reads
) -> dict:
    """The look-alike units read together (a profile's ``read_together``; CHANGELOG, stop 41): per species
    and elements, the units whose face is read (``faced``, on the best assignment's detections), as one
    group when some of them are ``gated`` (left unread only because another assignment nearly as good
    gives them another detection) and

    * the group's set of detections is sure: keeping any of them out of the group costs at least the
      gate's nats (``min_identity``, as a log-odds), and
    * every permutation of those detections over the group within the gate's nats of the best
      (``_near_ways``) gives every unit a face its die type reads there (the profile's face gate, not
      cocked).

    ``{slots: {"slots", "options", "identity"}}``: ``options``, per way of giving the group its faces
    (best first; permutations among dice of one type are one way; at most ``MOST_OPTIONS``), each slot's
    face index; ``identity``: the logistic of the smallest cost of keeping a detection out.  Which die is
    which stays open: the game decides whether the options give the roll the same results."""
    from scipy.optimize import linear_sum_assignment  # noqa: PLC0415

    gate = float(profile.settings.get("min_identity", 0.0))
    if not 0.0 < gate < 1.0:
        return {}
    near = math.log(gate / (1.0 - gate))
    kin: dict[tuple, list[int]] = {}
    for j in faced:
        kin.setdefault((dice[j].species, tuple(sorted(map(str, dice[j].elements)))), []).append(j)
    groups: dict[tuple, dict] = {}
    for slots in kin.values():
        if len(slots) < 2 or not gated & set(slots):
            continue
        dets = [by_unit[j] for j in slots]
        least = math.inf
        for i in dets:  # the set: the best assignment keeping detection i out of the group
            kept_out = cost.copy()
            kept_out[i, slots] = 1e9
            r, c = linear_sum_assignment(kept_out)
            least = min(least, float(kept_out[r, c].sum()) - best)
        if least < near:
            continue
        ways = _near_ways(cost[np.ix_(dets, slots)], near)
        if ways is None:
            continue
        options: list[tuple] = []
        seen: set[tuple] = set()
        for _, perm in ways:
            reads = [type_reads(j)[dets[perm[c]]] for c, j in enumerate(slots)]
            if any(r.label is None or r.cocked or r.face_index is None for r in reads):
                options = []
                break
            faces = tuple(int(r.face_index) for r in reads)
            by_die: dict[str, list[str]] = {}  # dice of one type swapping faces give the same way
            for j, k in zip(slots, faces, strict=True):
                by_die.setdefault(dice[j].name, []).append(dice[j].faces[k].text())
            key = tuple(sorted((name, tuple(sorted(texts))) for name, texts in by_die.items()))
            if key not in seen:
                seen.add(key)
                options.append(faces)
        if not options or len(options) > MOST_OPTIONS:
            continue
        groups[tuple(slots)] = {
            "slots": list(slots),
            "options": [list(o) for o in options],
            "identity": round(1.0 / (1.0 + math.exp(-min(least, 50.0))), 4),
        }
    return groups


def load_roster(path: Path, catalogue=None) -> list:
    """A roster file: a JSON list of catalogue die names (``"Dwarves/Mammoth Rider"``)."""
    if catalogue is None:
        from companion.rules.catalogue import load_catalogue  # noqa: PLC0415

        catalogue = load_catalogue()
    try:
        names = json.loads(Path(path).read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise AssignmentError(f"roster {path}: {exc}") from exc
    try:
        return roster_dice(names, catalogue)
    except AssignmentError as exc:  # named by the file it came from
        raise AssignmentError(f"roster {path}: {exc}") from None


def tapped_sightings(profile, dice, det: Detections, units, given: dict[int, str]) -> tuple[np.ndarray, list]:
    """What the taps teach the roll's own reading (CHANGELOG, stop 40): for each tapped unit (``given``,
    as ``assign`` took it) whose detection ``units`` (``assign``'s readings with those taps, as dicts:
    ``UnitReading.to_dict``, what ``read_roll`` gives) is sure of
    (its die identity at least the profile's ``min_identity``), that detection's embedding as a sighting
    of the tapped face.  (embeddings (k, dim), their ``FaceLabel`` values); the caller adds them to a copy
    of the profile, so the table's own profile still learns only from a confirmed roll."""
    from companion.vision.profile import face_label  # noqa: PLC0415

    gate = float(profile.settings.get("min_identity", 0.0))
    rows, labels = [], []
    for j, text in given.items():
        i, identity = units[j].get("detection"), units[j].get("identity")
        if i is None or identity is None or identity < gate:
            continue
        k = next(k for k, f in enumerate(dice[j].faces) if f.text() == text)
        rows.append(det.embedding[i])
        labels.append(face_label(dice[j], k))
    return np.array(rows, float).reshape(-1, det.embedding.shape[1]), labels


def roster_dice(names, catalogue) -> list:
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise AssignmentError("a roster is a list of die names")
    dice = []
    for name in names:
        die = catalogue.find(name)
        if die is None:
            raise AssignmentError(f"roster names {name!r}, which is not a die in the catalogue")
        dice.append(die)
    return dice


def assign_readings(model, image, readings, dice) -> list[UnitReading]:
    det = model.detect(image)
    colours = [r.colour for r in readings]
    kinds = [r.kind for r in readings]
    units, _ = assign(dice, det, colours, kinds, model.heads, profile=getattr(model, "profile", None))
    return units


def assign_from_files(roster: Path, model, image, readings) -> list[dict]:
    return [u.to_dict() for u in assign_readings(model, image, readings, load_roster(roster))]
