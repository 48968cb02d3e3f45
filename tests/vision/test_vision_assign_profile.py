"""The roster's assignment with a table profile: the profile's faces decide which detection is which unit,
and a unit whose detection another die type on the table could show as well is left unread, not guessed.

Profiles built from unit vectors (each known face along its own axis), so every distance is exact.
Patroller: 2 ID, 3 Melee, 2 Maneuver, 2 Maneuver, 3 Melee, 2 Save; Lizard Rider: 2 ID, 3 Melee,
3 Maneuver, 2 Maneuver, 2 Melee, 2 Save (both Dwarves d6, one plastic: kind and colour cannot part them).
"""

from __future__ import annotations

import numpy as np
import pytest
from profile_support import OPEN

from companion.vision.assign import AssignmentError, assign, roster_dice
from companion.vision.dd_frames import (
    choose_identity,
    choose_identity_by,
    choose_identity_split,
    identity_sweep,
)
from companion.vision.detections import Detections
from companion.vision.profile import TableProfile, face_label
from companion.vision.roll_reading import roll_readings

DIM = 8
# axis of each known face: the two ID faces (one per die), and each Dwarves face (one prototype, whichever
# die shows it)
AXES = {"P:2 ID": 0, "L:2 ID": 1, "3 Melee": 2, "2 Maneuver": 3, "2 Save": 4, "3 Maneuver": 5, "2 Melee": 6}


@pytest.fixture(scope="module")
def dice(catalogue):
    return roster_dice(["Dwarves/Patroller", "Dwarves/Lizard Rider"], catalogue)


def _profile(dice, **settings) -> TableProfile:
    pat, liz = dice
    prof = TableProfile("t", DIM, {**OPEN, **settings})
    for key, axis in AXES.items():
        who, _, text = key.rpartition(":")
        die = liz if who == "L" or text in ("3 Maneuver", "2 Melee") else pat
        k = next(k for k, f in enumerate(die.faces) if f.text() == text)
        prof.add(np.eye(DIM)[axis][None], [face_label(die, k)])
    return prof


def _det(*faces: str) -> Detections:
    """Detections whose crops lie near the prototype of each named face (``AXES`` keys)."""
    emb = np.stack([0.95 * np.eye(DIM)[AXES[f]] + 0.05 * np.eye(DIM)[7] for f in faces])
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    n = len(faces)
    boxes = np.array([[10 + 60 * i, 10, 60 + 60 * i, 60] for i in range(n)], float)
    return Detections(boxes, np.full(n, 0.9), np.zeros(n, int), embedding=emb, cocked_prob=np.zeros(n))


def _assign(dice, det, profile):
    n = len(det)
    return assign(dice, det, [[] for _ in range(n)], ["d6"] * n, {}, profile=profile)[0]


def test_the_profile_decides_which_detection_is_which_unit(dice):
    # detection 0 shows a face only the Lizard Rider has, detection 1 the Patroller's own ID: taken in
    # index order (what a roster with no face evidence does) each unit would get the other's die
    units = _assign(dice, _det("3 Maneuver", "P:2 ID"), _profile(dice))
    assert [(u.unit, u.detection, u.face) for u in units] == [
        ("Dwarves/Patroller", 1, "2 ID"),
        ("Dwarves/Lizard Rider", 0, "3 Maneuver"),
    ]
    assert all(u.identity > 0.99 and not u.unreadable for u in units)
    # the other way round, the other way round
    units = _assign(dice, _det("P:2 ID", "2 Melee"), _profile(dice))
    assert [u.detection for u in units] == [0, 1]


def test_a_unit_another_die_type_could_be_is_left_unread_with_its_likely_faces(dice):
    # both dice show faces both dice have: the up faces cannot tell the two units apart
    det = _det("3 Melee", "2 Save")
    units = _assign(dice, det, _profile(dice))  # no identity gate: read, and how unsure it is said
    # the Patroller prints "3 Melee" twice, the Lizard Rider once (both "2 Save" once): the assignment
    # that fits is twice as likely as the swap, so each unit is 2/3 sure of its die
    assert [(u.detection, u.face) for u in units] == [(0, "3 Melee"), (1, "2 Save")]
    assert all(u.identity == pytest.approx(2 / 3, abs=0.01) for u in units)
    gated = _assign(dice, det, _profile(dice, min_identity=0.7))
    for u in gated:
        assert u.face is None and u.face_index is None and u.unreadable and not u.cocked
        assert u.alternatives and {a["face"] for a in u.alternatives} <= {
            f.text() for f in dice[u.slot].faces
        }
    # a face only one of them has settles both: the gate lets them through
    sure = _assign(dice, _det("3 Melee", "2 Melee"), _profile(dice, min_identity=0.7))
    assert [(u.detection, u.face) for u in sure] == [(0, "3 Melee"), (1, "2 Melee")]
    assert all(u.identity > 0.7 and not u.unreadable for u in sure)


def _tapped(dice, det, profile, given):
    n = len(det)
    return assign(dice, det, [[] for _ in range(n)], ["d6"] * n, {}, profile=profile, given=given)[0]


def test_a_tap_tells_the_assignment_which_die_is_which(dice):
    # both dice show faces both dice have, so both units are left unread (above); a player taps the
    # Patroller's "3 Melee": the die read "2 Save" is then the Lizard Rider's, and it is read
    det = _det("3 Melee", "2 Save")
    prof = _profile(dice, min_identity=0.7)
    assert all(u.unreadable for u in _tapped(dice, det, prof, {}))
    units = _tapped(dice, det, prof, {0: "3 Melee"})
    liz = units[1]
    assert (liz.detection, liz.face, liz.unreadable) == (1, "2 Save", False)
    assert liz.identity > 0.99
    assert units[0].detection == 0  # the tapped unit sits on the die that shows its tapped face
    # tapped the other way, the Lizard Rider gets the "3 Melee" die and the Patroller the "2 Save" one
    units = _tapped(dice, det, prof, {0: "2 Save"})
    assert (units[1].detection, units[1].face, units[1].unreadable) == (0, "3 Melee", False)


def test_a_tap_that_fits_no_die_weighs_every_die_alike(dice):
    # "2 Maneuver" is read on neither die: the tap weighs both out alike, so the units are placed and
    # read exactly as with no tap (a tap that fits nothing tells nothing)
    det = _det("3 Melee", "2 Save")
    prof = _profile(dice, min_identity=0.6)
    untapped = _tapped(dice, det, prof, {})
    units = _tapped(dice, det, prof, {0: "2 Maneuver"})
    assert [(u.detection, u.face, u.identity) for u in units] == [
        (u.detection, u.face, u.identity) for u in untapped
    ]
    assert all(u.face is not None for u in units)


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({2: "3 Melee"}, "slot is 2: one of 0..1"),
        ({0: "3 Maneuver"}, "'3 Maneuver' is not a face of Dwarves/Patroller (slot 0)"),
    ],
)
def test_a_bad_tap_is_refused_naming_it(dice, given, message):
    with pytest.raises(AssignmentError, match=message.replace("(", r"\(").replace(")", r"\)")):
        _tapped(dice, _det("3 Melee", "2 Save"), _profile(dice), given)


def test_a_tap_needs_a_table_profile(dice):
    det = _det("3 Melee", "2 Save")
    with pytest.raises(AssignmentError, match="only with a table profile"):
        assign(dice, det, [[], []], ["d6", "d6"], {}, given={0: "3 Melee"})


def _far(*faces: str) -> Detections:
    """Detections whose crops lie 0.63 from the prototype of each named face: beyond a 0.5 gate, so no
    face is read on them, yet nearer that face than any other."""
    det = _det(*faces)
    det.embedding = np.stack([0.8 * np.eye(DIM)[AXES[f]] + 0.6 * np.eye(DIM)[7] for f in faces])
    return det


def test_with_tap_density_a_tap_weighs_each_detection_by_the_face_tapped(dice):
    from companion.vision.assign import tapped_sightings

    det = _far("3 Melee", "2 Save")
    gate = {"max_distance": 0.5, "max_distance_full": 0.5, "min_identity": 0.75}
    plain = _tapped(dice, det, _profile(dice, **gate), {0: "3 Melee"})
    # neither die reads as a face, so the tap weighs nothing out: the Patroller is as unsure as before
    assert all(u.face is None for u in plain) and plain[0].identity < 0.75
    plain_units = [u.to_dict() for u in plain]
    assert tapped_sightings(_profile(dice, **gate), dice, det, plain_units, {0: "3 Melee"})[1] == []
    prof = _profile(dice, **gate, tap_density=True)
    dense = _tapped(dice, det, prof, {0: "3 Melee"})
    # the crop near "3 Melee" is the tapped unit's, the other the Lizard Rider's: both sure of their die
    assert [u.detection for u in dense] == [0, 1] and all(u.identity > 0.99 for u in dense)
    emb, labels = tapped_sightings(prof, dice, det, [u.to_dict() for u in dense], {0: "3 Melee"})
    assert [(lab.die, lab.text) for lab in labels] == [("Dwarves/Patroller", "3 Melee")]
    assert np.allclose(emb, det.embedding[:1])
    # taught that crop (as the roll's own reading is), the same face on the table reads (which of the two
    # dice shows it is what the identity gate asks, not looked at here)
    prof.add(emb, labels)
    prof.settings["min_identity"] = 0.0
    again = _tapped(dice, _far("3 Melee", "3 Melee"), prof, {})
    assert {u.face for u in again} == {"3 Melee"}


def test_two_units_of_one_die_type_are_not_unsure_of_each_other(dice):
    # swapping two identical dice changes nothing: only another die type makes a unit unsure
    pat = dice[0]
    units = _assign([pat, pat], _det("3 Melee", "2 Save"), _profile(dice, min_identity=0.9))
    assert sorted(u.face for u in units) == ["2 Save", "3 Melee"]
    assert all(u.identity > 0.99 for u in units)


def test_a_cocked_die_is_cocked_whatever_its_identity(dice):
    det = _det("3 Melee", "2 Save")
    det.cocked_prob[:] = [0.9, 0.0]
    units = _assign(dice, det, _profile(dice, min_identity=0.99))
    cocked = [u for u in units if u.detection == 0]
    assert cocked[0].cocked and cocked[0].face is None


def _rec(outcome: str, identity: float | None, cocked: bool = False) -> dict:
    return {"outcome": outcome, "identity": identity, "cocked": cocked, "why": None}


def test_the_identity_sweep_turns_only_unsure_reads_into_unread():
    records = [
        _rec("right", 0.95),
        _rec("right", 0.6),
        _rec("wrong", 0.55),
        _rec("unread", 0.5),
        _rec("not_seen", None),
        _rec("cocked_read", 0.52, cocked=True),
        _rec("cocked_called", 0.99, cocked=True),
    ]
    none, mid, high = identity_sweep(records, [0.0, 0.58, 0.99])
    assert (none["flat"], none["right"], none["wrong"], none["unread"], none["not_seen"]) == (5, 2, 1, 1, 1)
    assert none["cocked_read"] == 1
    assert (mid["right"], mid["wrong"], mid["unread"], mid["cocked_read"]) == (2, 0, 2, 0)
    assert (high["right"], high["wrong"], high["unread"]) == (0, 0, 4)
    assert mid["wrong_rate"] == 0.0 and high["unread_rate"] == 0.8


def test_the_identity_gate_rule_picks_the_smallest_gate_that_holds_the_wrong_rate():
    # 1000 flat reads, 3 wrong (identity 0.62, 0.72, 0.72): 0.3 % under gates up to 0.6, 0.2 % from 0.65
    records = [_rec("right", 0.9)] * 990 + [_rec("right", 0.52)] * 7
    records += [_rec("wrong", 0.62), _rec("wrong", 0.72), _rec("wrong", 0.72)]
    chosen, sweep = choose_identity(records)
    assert chosen == 0.65
    by = {f["min_identity"]: f for f in sweep}
    assert (by[0.6]["wrong"], by[0.65]["wrong"], by[0.75]["wrong"]) == (3, 2, 0)
    assert by[0.65]["right"] == 990 and by[0.5]["right"] == 997
    # where no gate of the grid holds the rate, the largest is taken
    chosen, _ = choose_identity([_rec("wrong", 1.0)] * 3 + [_rec("right", 1.0)])
    assert chosen == 0.999


def test_a_face_text_every_fitting_assignment_gives_is_sure_by_text(dice):
    # both dice show "3 Melee": which box is which is a coin flip, but each unit's face is "3 Melee" either way
    det = _det("3 Melee", "3 Melee")
    by_die = _assign(dice, det, _profile(dice, min_identity=0.7))
    assert all(u.identity < 0.7 and u.unreadable and u.face is None for u in by_die)
    by_text = _assign(dice, det, _profile(dice, min_identity=0.7, identity_by="text"))
    assert [u.face for u in by_text] == ["3 Melee", "3 Melee"]
    assert all(u.text_identity > 0.99 and not u.unreadable for u in by_text)
    # faces both dice have, one each: the swap gives each unit the other text, so the text is unsure too
    swap = _assign(dice, _det("3 Melee", "2 Save"), _profile(dice, min_identity=0.7, identity_by="text"))
    assert all(u.text_identity == pytest.approx(2 / 3, abs=0.01) and u.face is None for u in swap)


def test_an_unknown_identity_setting_is_refused(dice):
    with pytest.raises(AssignmentError, match="identity_by is 'box'"):
        _assign(dice, _det("3 Melee"), _profile(dice, identity_by="box"))


def test_the_rule_takes_the_identity_that_reads_more_units_at_its_gate():
    # the text identity is sure of 50 reads the die identity is not; both hold 0.25 % wrong at their gates
    records = [{**_rec("right", 0.9), "text_identity": 0.9}] * 950
    records += [{**_rec("right", 0.55), "text_identity": 0.97}] * 50
    records += [{**_rec("wrong", 0.6), "text_identity": 0.6}] * 5
    by, gate, both = choose_identity_by(records)
    assert (by, gate) == ("text", 0.65)
    assert both["die"][0] == 0.65  # the die identity's own gate reads 950 right, the text's 1000
    # a tie keeps the die type's identity
    by, _, _ = choose_identity_by([{**r, "text_identity": r["identity"]} for r in records])
    assert by == "die"


def test_an_unsure_unit_is_offered_the_face_another_assignment_gives_it(dice):
    # "3 Melee" and "2 Save" on a table of both Dwarves dice: either unit may show either face.  The
    # Patroller's nearest faces on its own detection are "3 Melee" and then any other (all as far); with
    # offer_by "assignment" its second mark is the face the swap gives it, "2 Save"
    det = _det("3 Melee", "2 Save")
    plain = _assign(dice, det, _profile(dice, min_identity=0.7))
    offered = _assign(dice, det, _profile(dice, min_identity=0.7, offer_by="assignment"))
    for u in offered:
        assert u.unreadable and u.face is None  # still never set: a tap decides
    pat, liz = offered
    assert [a["face"] for a in pat.alternatives] == ["3 Melee", "2 Save"]
    assert [a["face"] for a in liz.alternatives] == ["2 Save", "3 Melee"]
    assert pat.alternatives[1]["detection"] == 1 and pat.alternatives[1]["from"] == "assignment"
    assert [a["face"] for a in plain[0].alternatives][1] != "2 Save"
    # the Roll panel's reading marks both (the second from the other detection)
    read = {"units": [u.to_dict() for u in offered], "dice": [{"box": list(b)} for b in det.xyxy]}
    readings = roll_readings(read, ["p", "l"])
    assert [r.likely for r in readings] == [("3 Melee", "2 Save"), ("2 Save", "3 Melee")]
    with pytest.raises(AssignmentError, match="offer_by is 'swap'"):
        _assign(dice, det, _profile(dice, offer_by="swap"))


def test_the_assignment_density_can_have_its_own_scale(dice):
    # "3 Melee" (both dice) and "2 Melee" (the Lizard Rider's only): the sharper the density, the surer
    # the assignment that gives the Lizard Rider the face only it has; the reading's own scale is untouched
    det = _det("3 Melee", "2 Melee")
    soft = _assign(dice, det, _profile(dice, assign_scale=1.0))
    sharp = _assign(dice, det, _profile(dice, assign_scale=30.0))
    assert [u.detection for u in soft] == [u.detection for u in sharp] == [0, 1]
    assert soft[1].identity < sharp[1].identity
    assert [u.face for u in soft] == [u.face for u in sharp] == ["3 Melee", "2 Melee"]
    for bad in (0, -2.0, "sharp"):
        with pytest.raises(AssignmentError, match="assign_scale"):
            _assign(dice, det, _profile(dice, assign_scale=bad))


def test_both_identities_gate_on_the_lower(dice):
    # "3 Melee" twice: the text is sure, the die is not -> "both" leaves the units unread, as "die" does
    same = _assign(dice, _det("3 Melee", "3 Melee"), _profile(dice, min_identity=0.7, identity_by="both"))
    assert all(u.unreadable and u.face is None and u.text_identity > 0.99 for u in same)
    # a face only the Lizard Rider has: both identities sure, both units read
    sure = _assign(dice, _det("3 Melee", "2 Melee"), _profile(dice, min_identity=0.7, identity_by="both"))
    assert [u.face for u in sure] == ["3 Melee", "2 Melee"]
    with pytest.raises(AssignmentError, match="'die', 'text' or 'both'"):
        _assign(dice, _det("3 Melee"), _profile(dice, identity_by="either"))


def test_the_split_rule_holds_the_bound_on_each_set_apart():
    # set A: 1000 reads, 2 wrong at identity 0.72 (0.2 %: within the bound at every gate); set B: 400
    # reads, 2 wrong at 0.82 (0.5 % until the gate passes 0.82).  Pooled, 0.75 would hold (2 of 1400
    # wrong); each set apart, B decides: 0.85
    a = [_rec("right", 0.9)] * 998 + [_rec("wrong", 0.72)] * 2
    b = [_rec("right", 0.95)] * 398 + [_rec("wrong", 0.82)] * 2
    gate, sweep = choose_identity_split([a, b], "die")
    assert gate == 0.85
    at = next(f for f in sweep if f["min_identity"] == gate)
    assert (at["flat"], at["right"], at["wrong"]) == (1400, 1396, 0)
    # with set B alone under the bound, set A's rate decides
    gate, _ = choose_identity_split([a, [_rec("right", 0.95)] * 400], "die")
    assert gate == 0.5
    # "both" replays on the lower identity
    both = [{**_rec("wrong", 0.9), "both_identity": 0.6}] * 3
    both += [{**_rec("right", 0.9), "both_identity": 0.9}] * 997
    assert choose_identity_split([both], "both")[0] == 0.65
    assert choose_identity_split([both], "die")[0] == 0.95  # 0.3 % wrong at every die gate under 0.9


def test_look_alike_dice_are_read_together_when_only_which_is_which_is_open(dice):
    """``read_together`` (CHANGELOG, stop 41): both dice show faces both dice have, so neither unit is
    read on its own; the two detections are surely these two units' (no other die could take them), and
    both ways of giving them out read a face on each: one group, both ways carried, best first."""
    det = _det("3 Melee", "2 Save")
    pat, liz = dice
    on = _assign(dice, det, _profile(dice, min_identity=0.7, read_together=True))
    off = _assign(dice, det, _profile(dice, min_identity=0.7))
    assert all(u.together is None for u in off)
    for u in on:  # still unread on its own: the game decides whether the ways give the same results
        assert u.face is None and u.unreadable
    group = on[0].together
    assert group is on[1].together and group["slots"] == [0, 1] and group["identity"] > 0.99

    def ways(options):
        return [(pat.faces[a].text(), liz.faces[b].text()) for a, b in options]

    assert ways(group["options"]) == [("3 Melee", "2 Save"), ("2 Save", "3 Melee")]


def test_dice_are_not_read_together_when_another_die_could_take_their_place(dice):
    # a third die shows "2 Save" too: which two of the three dice are these units' is itself open
    det = _det("3 Melee", "2 Save", "2 Save")
    units = _assign(dice, det, _profile(dice, min_identity=0.7, read_together=True))
    assert all(u.unreadable and u.together is None for u in units)
    # a unit read on its own is never in a group: "2 Melee" is the Lizard Rider's only
    sure = _assign(dice, _det("3 Melee", "2 Melee"), _profile(dice, min_identity=0.7, read_together=True))
    assert all(u.face is not None and u.together is None for u in sure)


def test_a_bad_read_together_setting_is_refused_naming_it(dice):
    with pytest.raises(AssignmentError, match="read_together is 'yes': true or false"):
        _assign(dice, _det("3 Melee", "2 Save"), _profile(dice, min_identity=0.7, read_together="yes"))


def test_the_near_ways_are_every_permutation_within_the_bound():
    from itertools import permutations

    from companion.vision.assign import _near_ways

    rng = np.random.default_rng(4)
    for _ in range(20):
        k = int(rng.integers(2, 6))
        sub = rng.uniform(0, 2, (k, k))
        base = float(np.trace(sub))
        want = sorted(
            (round(sum(sub[p[c], c] for c in range(k)) - base, 9), p)
            for p in permutations(range(k))
            if sum(sub[p[c], c] for c in range(k)) - base < 1.1
        )
        got = [(round(x, 9), p) for x, p in _near_ways(sub, 1.1)]
        assert got == want


def test_a_unit_read_on_its_own_joins_the_group_of_its_species_unchanged(catalogue):
    """The group is every unit of the species whose face is read: a unit sure of its own die (a Crack
    Shot showing "2 Missile", which neither other die has) comes along and keeps its face in every way."""
    dice = roster_dice(["Dwarves/Patroller", "Dwarves/Lizard Rider", "Dwarves/Crack Shot"], catalogue)
    prof = _profile(dice[:2], min_identity=0.7, read_together=True)
    wide = TableProfile("t", DIM + 1, prof.settings)  # one axis more, for the Crack Shot's face
    for key, axis in AXES.items():
        who, _, text = key.rpartition(":")
        die = dice[1] if who == "L" or text in ("3 Maneuver", "2 Melee") else dice[0]
        k = next(k for k, f in enumerate(die.faces) if f.text() == text)
        wide.add(np.eye(DIM + 1)[axis][None], [face_label(die, k)])
    shot = dice[2]
    wide.add(
        np.eye(DIM + 1)[DIM][None], [face_label(shot, [f.text() for f in shot.faces].index("2 Missile"))]
    )
    det = _det("3 Melee", "2 Save", "3 Melee")
    emb = np.concatenate([det.embedding, np.zeros((3, 1))], axis=1)
    emb[2] = np.eye(DIM + 1)[DIM] * 0.95 + np.eye(DIM + 1)[7] * 0.05
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    det = Detections(det.xyxy, det.confidence, det.class_id, embedding=emb, cocked_prob=np.zeros(3))
    units = _assign(dice, det, wide)
    assert units[2].face == "2 Missile" and not units[2].unreadable  # read on its own
    group = units[0].together
    assert group is not None and group["slots"] == [0, 1, 2]
    assert {shot.faces[opt[2]].text() for opt in group["options"]} == {"2 Missile"}
    pat, liz = dice[0], dice[1]
    assert [(pat.faces[o[0]].text(), liz.faces[o[1]].text()) for o in group["options"]] == [
        ("3 Melee", "2 Save"),
        ("2 Save", "3 Melee"),
    ]
