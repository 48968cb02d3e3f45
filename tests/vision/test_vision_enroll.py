"""Enrolment and table profiles (issue 20): torch-free, on committed renders of a TEST art family.

The fixtures (``fixtures/enroll``, written by its ``make_fixtures.py``) are rendered dice of an art
family the embedding network never saw: correction frames that show every face of a small Dwarves
army three times, and fresh query crops of the same dice.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.assign import assign
from companion.vision.detections import Detections
from companion.vision.enroll import EnrollError, enroll, read_art, read_corrections
from companion.vision.profile import (
    FaceLabel,
    ProfileError,
    TableProfile,
    embedder_id,
    face_key,
    face_label,
    profile_beside,
)
from companion.vision.reader import DiceModel, load_model, models_dir
from companion.vision.table_reading import (
    ROSTER_SETTINGS,
    _shipped_roster_settings,
    learn_confirmed_faces,
    learn_confirmed_roll,
)

FIX = Path(__file__).parent / "fixtures" / "enroll"
ARMY = ("Dwarves/Mammoth Rider", "Dwarves/Sergeant", "Dwarves/Behemoth")


@pytest.fixture(scope="module")
def bundle(tmp_path_factory, catalogue):
    out = tmp_path_factory.mktemp("enrolled") / "my-table"
    figures = enroll("dragon-dice", out, read_corrections(FIX / "corrections", catalogue))
    assert figures["crops"] == 51 and figures["faces_known"] == 17
    return out


@pytest.fixture(scope="module")
def queries():
    meta = json.loads((FIX / "queries.json").read_text())
    mosaic = cv2.imread(str(FIX / "queries.png"))
    c, cols = meta["crop"], meta["columns"]
    crops = np.stack(
        [
            mosaic[(i // cols) * c : (i // cols + 1) * c, (i % cols) * c : (i % cols + 1) * c]
            for i in range(len(meta["dice"]))
        ]
    )
    return crops, meta["dice"]


def _score(profile, emb, pc, dice, catalogue):
    right = wrong = unread = cocked_found = 0
    for e, p, d in zip(emb, pc, dice, strict=True):
        die = catalogue.find(d["die"])
        m = profile.read_die(e, die, float(p))
        if d["cocked"]:
            cocked_found += m.cocked
        elif m.label is None:
            unread += 1
        elif m.label.text == die.faces[d["face_index"]].text():
            right += 1
        else:
            wrong += 1
    return right, wrong, unread, cocked_found


def _nearest_only(profile):
    """The same profile with the unreadable gate opened (the nearest known face is always read)."""
    p = profile.copy()
    p.settings.update(
        max_distance=2.0, min_confidence=0.0, min_margin=0.0, max_distance_full=2.0, min_margin_full=0.0
    )
    p.settings.pop("one_sighting", None)
    p.settings.pop("by_sightings", None)
    return p


def test_enrolment_from_rendered_frames_of_a_test_family_improves_reading(bundle, queries, catalogue):
    model = load_model(bundle)
    crops, dice = queries
    emb, pc = model.embedder(crops)
    flat = sum(not d["cocked"] for d in dice)
    # before enrolment nothing is known: every flat die is unreadable, never a guess
    empty = TableProfile(model.profile.embedder_id, model.profile.dim, model.profile.settings)
    r0, w0, u0, _ = _score(empty, emb, pc, dice, catalogue)
    assert (r0, w0, u0) == (0, 0, flat)  # (a flat die called cocked is not read either)
    # after: the shipped thresholds read some faces and read none wrong on these dice
    right, wrong, _, _ = _score(model.profile, emb, pc, dice, catalogue)
    assert right >= 1 and wrong <= 1
    # the nearest prototype names the face far above chance (about 1 in 5 faces of a die)...
    near_right, _, _, _ = _score(_nearest_only(model.profile), emb, pc, dice, catalogue)
    assert near_right >= 0.45 * flat
    # ...and it is the prototypes that do it: the same profile with its prototypes shuffled among its
    # faces reads far fewer right
    shuffled = _nearest_only(model.profile)
    keys = shuffled.keys()
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(keys))
    sums = {k: shuffled._sum[k].copy() for k in keys}
    for k, j in zip(keys, perm, strict=True):
        shuffled._sum[k] = sums[keys[j]]
    shuffled_right, _, _, _ = _score(shuffled, emb, pc, dice, catalogue)
    assert near_right >= shuffled_right + 10


def test_unknown_faces_are_unreadable_never_a_guess(bundle, queries, catalogue):
    model = load_model(bundle)
    crops, dice = queries
    emb, pc = model.embedder(crops)
    # a profile that knows only the Mammoth Rider: no Behemoth face is read
    mr = catalogue.find(ARMY[0])
    only = TableProfile(model.profile.embedder_id, model.profile.dim, model.profile.settings)
    for key in model.profile.keys():
        if key in {face_key(mr, k)[0] for k in range(len(mr.faces))}:
            only._sum[key], only._n[key] = model.profile._sum[key].copy(), model.profile._n[key]
            only._label[key] = model.profile.label_of(key)
    for e, p, d in zip(emb, pc, dice, strict=True):
        if d["die"] == ARMY[2] and not d["cocked"]:
            m = only.read_die(e, catalogue.find(d["die"]), float(p))
            assert m.label is None and (m.unreadable or m.cocked)
    # the rule itself: a crop far from every prototype is unreadable, one near a prototype is read
    prof = TableProfile("t", 3, {"scale": 8.0, "max_distance": 0.5, "min_confidence": 0.6})
    melee = FaceLabel("d6", "Melee", 4, "Dwarves/Mammoth Rider", "Dwarves")
    save = FaceLabel("d6", "Save", 3, "Dwarves/Mammoth Rider", "Dwarves")
    prof.add(np.array([[1.0, 0, 0], [0, 1.0, 0]]), [melee, save])
    assert prof.read_die(np.array([0, 0, 1.0]), mr).unreadable
    hit = prof.read_die(np.array([0.99, 0.1, 0.0]) / np.linalg.norm([0.99, 0.1]), mr)
    assert hit.label == FaceLabel("d6", "Melee", 4, mr.name, "Dwarves") and hit.face_index == 1
    # cocked comes from the geometry probability only
    assert prof.read_die(np.array([1.0, 0, 0]), mr, p_cocked=0.9).cocked


def test_roster_assignment_reads_faces_from_the_profile(bundle, queries, catalogue):
    model = load_model(bundle)
    crops, dice = queries
    pick = [i for i, d in enumerate(dice) if not d["cocked"] and d["die"] in ARMY[:2]][:2]
    emb, pc = model.embedder(crops[pick])
    det = Detections(
        np.array([[0, 0, 50, 50], [100, 0, 150, 50]], float),
        np.ones(2),
        np.zeros(2, int),
        embedding=emb,
        cocked_prob=pc,
    )
    roster = [catalogue.find(dice[i]["die"]) for i in pick]
    units, _ = assign(roster, det, [[], []], ["d6", "d6"], model.heads, profile=_nearest_only(model.profile))
    for u, i in zip(units, pick, strict=True):
        direct = _nearest_only(model.profile).read_die(
            emb[pick.index(i)], catalogue.find(dice[i]["die"]), float(pc[pick.index(i)])
        )
        assert u.detection is not None
        if u.detection == pick.index(i):  # the die went to its own unit: the profile's reading is the unit's
            assert (u.face, u.unreadable) == (direct.label.text if direct.label else None, direct.unreadable)
    units, _ = assign(
        roster,
        det,
        [[], []],
        ["d6", "d6"],
        model.heads,
        profile=TableProfile("t", emb.shape[1], model.profile.settings),
    )
    assert all(u.unreadable and u.face is None for u in units)  # nothing known: nothing guessed


def test_a_confirmed_roll_counts_on_the_very_next_reading(bundle, tmp_path, catalogue):
    work = tmp_path / "table"
    shutil.copytree(bundle, work)
    model = load_model(work)
    frame = cv2.imread(str(FIX / "corrections" / "frame_00.jpg"))
    rec = json.loads((FIX / "corrections" / "frame_00.json").read_text())["dice"][0]
    label = FaceLabel(rec["kind"], rec["icon"], rec["count"], rec["die"], "Dwarves")
    before = model.profile.sightings(label.key())
    assert learn_confirmed_roll(model, frame, [(rec["box"], label)]) == 1
    assert model.profile.sightings(label.key()) == before + 1  # in memory: the next roll uses it
    assert TableProfile.load(work / "profile.npz").sightings(label.key()) == before + 1  # and kept
    with pytest.raises(ProfileError, match="not inside"):
        learn_confirmed_roll(model, frame, [([0, 0, 9999, 10], label)])
    assert model.profile.sightings(label.key()) == before + 1
    # the web layer's form: (die name, confirmed face text, box or None) per die of the roll
    text = f"{rec['count']} {rec['icon']}"
    assert (
        learn_confirmed_faces(
            model, frame, [(rec["die"], text, rec["box"]), ("Dwarves/Sergeant", "2 ID", None)], catalogue
        )
        == 1
    )
    assert TableProfile.load(work / "profile.npz").sightings(label.key()) == before + 2
    with pytest.raises(ProfileError, match="has no face '9 Melee'"):
        learn_confirmed_faces(
            model, frame, [(rec["die"], text, rec["box"]), (rec["die"], "9 Melee", rec["box"])], catalogue
        )
    assert model.profile.sightings(label.key()) == before + 2  # nothing learnt from a refused roll
    assert learn_confirmed_faces(load_model("dragon-dice"), frame, [(rec["die"], text, rec["box"])]) == 0


def test_profile_round_trip_and_wrong_network(tmp_path):
    prof = TableProfile("net-a", 4, {"max_distance": 0.7})
    labs = [
        FaceLabel("d6", "Melee", 2, None, "Goblins"),
        FaceLabel("d20", "value", 17),
        FaceLabel("d6", "ID", 3, "Dwarves/Mammoth Rider", "Dwarves"),
    ]
    rng = np.random.default_rng(1)
    emb = rng.normal(size=(3, 4))
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    prof.add(emb, labs)
    prof.add(emb[:1], labs[:1])
    path = prof.save(tmp_path / "game.sqlite.profile.npz")
    assert path == profile_beside(tmp_path / "game.sqlite")
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind
    back = TableProfile.load(path, "net-a")
    assert (
        back.keys()
        == prof.keys()
        == sorted(["sp:Goblins|d6|2 Melee", "any:d20|17", "die:Dwarves/Mammoth Rider|3 ID"])
    )
    for k in prof.keys():
        assert back.sightings(k) == prof.sightings(k)
        assert np.allclose(back.prototype(k), prof.prototype(k))
        assert back.label_of(k) == prof.label_of(k)
    assert back.settings["max_distance"] == 0.7
    assert back.sightings("sp:Goblins|d6|2 Melee") == 2
    with pytest.raises(ProfileError, match="embedding network"):
        TableProfile.load(path, "net-b")
    with pytest.raises(ProfileError, match="embeddings"):
        back.add(np.ones((1, 5)), labs[:1])
    (tmp_path / "junk.npz").write_bytes(b"not a profile")
    with pytest.raises(ProfileError, match="junk.npz"):
        TableProfile.load(tmp_path / "junk.npz")


def _corrections_copy(tmp_path: Path) -> Path:
    d = tmp_path / "corr"
    shutil.copytree(FIX / "corrections", d)
    return d


def _edit(folder: Path, name: str, fn) -> None:
    p = folder / f"{name}.json"
    data = json.loads(p.read_text())
    fn(data["dice"])
    p.write_text(json.dumps(data))


@pytest.mark.parametrize(
    "case, message",
    [
        ("missing image", r"frame_03\.json: its frame frame_03\.jpg is missing"),
        ("face the die lacks", r"frame_01\.json: dice\[2\]\.icon: Dwarves/\S+ .*has no face '7 Melee'"),
        ("box outside", r"frame_02\.json: dice\[0\]\.box: .* not inside the \d+x\d+ frame"),
        ("box of booleans", r"frame_02\.json: dice\[1\]\.box: must be \[x1, y1, x2, y2\], four numbers"),
        (
            "box under 1 px",
            r"frame_02\.json: dice\[1\]\.box: .* is 0\.2 x 10 px: a die's box is at least 1 px",
        ),
        ("unknown die", r"frame_04\.json: dice\[1\]\.die: 'Dwarves/Nobody' is not a die in the catalogue"),
        ("bad d20 value", r"frame_05\.json: dice\[0\]\.value: a d20 shows 1\.\.20, not 21"),
    ],
)
def test_bad_corrections_are_refused_naming_file_and_key_and_change_nothing(tmp_path, case, message, bundle):
    corr = _corrections_copy(tmp_path)
    if case == "missing image":
        (corr / "frame_03.jpg").unlink()
    elif case == "face the die lacks":
        _edit(corr, "frame_01", lambda d: d[2].update(icon="Melee", count=7))
    elif case == "box outside":
        _edit(corr, "frame_02", lambda d: d[0].update(box=[10, 10, 5000, 40]))
    elif case == "box of booleans":
        _edit(corr, "frame_02", lambda d: d[1].update(box=[False, False, True, True]))
    elif case == "box under 1 px":
        _edit(corr, "frame_02", lambda d: d[1].update(box=[10, 10, 10.2, 20]))
    elif case == "unknown die":
        _edit(corr, "frame_04", lambda d: d[1].update(die="Dwarves/Nobody"))
    else:
        _edit(corr, "frame_05", lambda d: d.__setitem__(0, {"box": d[0]["box"], "kind": "d20", "value": 21}))
    target = tmp_path / "enrolled"
    shutil.copytree(bundle, target)
    before = {p.name: p.read_bytes() for p in target.iterdir()}
    with pytest.raises(EnrollError, match=message):
        enroll(str(target), target, read_corrections(corr))
    assert {p.name: p.read_bytes() for p in target.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corr", "enrolled"]  # no half-made bundle


def test_enrolling_nothing_is_refused_and_writes_nothing(tmp_path, bundle):
    out = tmp_path / "grown"
    shutil.copytree(bundle, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(EnrollError, match="nothing to enrol: no sighting was given"):
        enroll(str(out), out, [])
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    with pytest.raises(EnrollError, match="nothing to enrol"):
        enroll("polyhedral-oblique", tmp_path / "new", [])
    assert not (tmp_path / "new").exists()


def test_standard_dice_corrections_and_an_enrolled_bundle_grows(tmp_path, bundle, catalogue):
    corr = _corrections_copy(tmp_path)
    _edit(corr, "frame_00", lambda d: d.__setitem__(0, {"box": d[0]["box"], "kind": "d20", "value": 17}))
    sightings = read_corrections(corr, catalogue)
    assert FaceLabel("d20", "value", 17) in [s.label for s in sightings]
    out = tmp_path / "grown"
    shutil.copytree(bundle, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(
        EnrollError, match=r"frame_00\.json: dice\[0\]\.value: a standard die's face, but the base"
    ):
        enroll(str(out), out, sightings)  # a Dragon Dice bundle reads no d20
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    sightings = [s for s in sightings if s.label.icon != "value"]
    enroll(str(out), out, sightings)  # enrolling into an enrolled bundle adds to its profile
    prof = TableProfile.load(out / "profile.npz")
    assert prof.sightings("sp:Dwarves|d10|4 Save") == 2 * TableProfile.load(bundle / "profile.npz").sightings(
        "sp:Dwarves|d10|4 Save"
    )
    meta = json.loads((out / "model.json").read_text())
    assert meta["embedding"]["profile"] == "profile.npz" and meta["enrolled_from"] == "dragon-dice"


def _art_folder(tmp_path: Path, rows: list[list[str]]) -> Path:
    d = tmp_path / "art"
    d.mkdir()
    pic = np.full((90, 90, 3), (40, 170, 220), np.uint8)
    cv2.circle(pic, (45, 45), 25, (250, 250, 250), -1)
    cv2.imwrite(str(d / "melee3.png"), pic)
    with open(d / "faces.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerows(rows)
    return d


def test_art_enrolment_puts_each_picture_on_rendered_dice(tmp_path, catalogue):
    art = _art_folder(
        tmp_path,
        [["image", "species", "kind", "icon", "count"], ["melee3.png", "Dwarves", "d6", "Melee", "3"]],
    )
    out = tmp_path / "art-bundle"
    figures = enroll("dragon-dice", out, read_art(art, catalogue), views=5)
    assert figures["crops"] == 5
    prof = TableProfile.load(out / "profile.npz")
    assert prof.keys() == ["sp:Dwarves|d6|3 Melee"] and prof.sightings("sp:Dwarves|d6|3 Melee") == 5
    model = load_model(out)  # the bundle works wherever a model name does
    assert model.profile is not None and model.profile.keys() == prof.keys()


@pytest.mark.parametrize(
    "row, message",
    [
        (["gone.png", "Dwarves", "d6", "Melee", "3"], r"faces\.csv line 2: image: 'gone\.png' is missing"),
        (
            ["melee3.png", "Dwarves", "d6", "Melee", "9"],
            r"faces\.csv line 2: icon: no Dwarves d6 has a face '9 Melee'",
        ),
        (["melee3.png", "Nobodies", "d6", "Melee", "3"], r"faces\.csv line 2: species: 'Nobodies'"),
        (["melee3.png", "Dwarves", "d7", "Melee", "3"], r"faces\.csv line 2: kind: must be one of"),
    ],
)
def test_bad_art_rows_are_refused_naming_file_and_key(tmp_path, row, message, catalogue):
    art = _art_folder(tmp_path, [["image", "species", "kind", "icon", "count"], row])
    with pytest.raises(EnrollError, match=message):
        read_art(art, catalogue)


HEADER = "image,species,kind,icon,count"


@pytest.mark.parametrize(
    "text, message",
    [
        (HEADER + "\nmelee3.png,Dwarves,d6,Melee,3,extra\n", r"faces\.csv line 2: 6 fields, 5 expected"),
        (HEADER + "\n\n\nmelee3.png,Dwarves,d6,Melee,9\n", r"faces\.csv line 4: icon"),  # blank lines count
        (
            HEADER + "\nmelee3.png,Dwarves,d6,Melee,3\n\xe9t\xe9.png,Dwarves,d6,Melee,3\n",
            r"faces\.csv line 3: not UTF-8",
        ),
        (HEADER + "\ntiny.png,Dwarves,d6,Melee,3\n", r"faces\.csv line 2: image: 'tiny\.png' is 2x2 pixels"),
    ],
)
def test_malformed_art_tables_are_refused_by_line(tmp_path, text, message, catalogue):
    art = _art_folder(tmp_path, [])
    cv2.imwrite(str(art / "tiny.png"), np.zeros((2, 2, 3), np.uint8))
    (art / "faces.csv").write_bytes(text.encode("latin-1"))
    with pytest.raises(EnrollError, match=message):
        read_art(art, catalogue)


def test_an_art_table_saved_by_a_spreadsheet_with_a_byte_order_mark_is_read(tmp_path, catalogue):
    art = _art_folder(tmp_path, [])
    (art / "faces.csv").write_bytes(("\ufeff" + HEADER + "\r\nmelee3.png,Dwarves,d6,Melee,3\r\n").encode())
    (got,) = read_art(art, catalogue)
    assert (got.label.icon, got.label.count, got.label.species) == ("Melee", 3, "Dwarves")


def test_enrolment_never_replaces_a_folder_that_is_not_a_bundle(tmp_path, catalogue):
    keep = tmp_path / "photos"
    keep.mkdir()
    (keep / "holiday.jpg").write_bytes(b"mine")
    with pytest.raises(EnrollError, match="photos exists and is not a model bundle"):
        enroll("dragon-dice", keep, read_corrections(FIX / "corrections", catalogue))
    assert [p.name for p in keep.iterdir()] == ["holiday.jpg"]


def test_art_table_without_a_column_is_refused(tmp_path, catalogue):
    art = _art_folder(
        tmp_path, [["image", "species", "icon", "count"], ["melee3.png", "Dwarves", "Melee", "3"]]
    )
    with pytest.raises(EnrollError, match=r"faces\.csv: missing column\(s\) kind"):
        read_art(art, catalogue)


def test_cli_enroll_refuses_bad_input_with_exit_2(tmp_path, capsys):
    from companion.cli import main

    corr = _corrections_copy(tmp_path)
    (corr / "frame_00.jpg").unlink()
    rc = main(["vision", "enroll", "--corrections", str(corr), "--out", str(tmp_path / "b")])
    assert rc == 2
    assert "frame_00.json: its frame frame_00.jpg is missing" in capsys.readouterr().err
    assert not (tmp_path / "b").exists()
    rc = main(
        [
            "vision",
            "enroll",
            "--corrections",
            str(FIX / "corrections"),
            "--out",
            str(tmp_path / "b"),
            "--json",
        ]
    )
    assert rc == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["faces_known"] == 17 and (tmp_path / "b" / "embed.onnx").is_file()


def test_calibration_keeps_confidently_wrong_readings_under_the_bound():
    from companion.vision.enroll_sim import calibrate, decide

    rng = np.random.default_rng(3)
    n = 400
    d = np.full((n, 12), np.inf)
    d[:, :6] = rng.uniform(0.95, 1.3, (n, 6))  # every other face of the die is far
    truth = rng.integers(0, 6, n)
    known = rng.random(n) > 0.2
    near = rng.uniform(0.05, 0.35, n)
    d[np.arange(n)[known], truth[known]] = near[known]  # an enrolled face lies near its prototype
    d[np.arange(n)[~known], truth[~known]] = np.inf  # a never-enrolled face has none
    same = np.zeros((n, 12), bool)
    same[np.arange(n), truth] = True
    pc = np.where(np.arange(n) % 50 == 0, 0.55, 0.05)  # 2 % of the flat dice look a little tilted
    cocked = np.zeros(n, bool)
    rec = {"d": d, "truth": truth, "known": known, "cocked": cocked, "pc": pc, "same": same}
    setting, figs = calibrate({s: rec for s in (1, 2, 3, 5, 10)})
    assert setting["bound_met"] and 0.35 <= setting["max_distance"] < 0.95
    assert figs[3]["accuracy"] > 0.97 and figs[3]["confidently_wrong"] <= 0.005
    assert setting["cocked_threshold"] == 0.6 and figs[3]["flat_called_cocked"] == 0.0
    # a gate opened wide reads the never-enrolled faces as their nearest sibling: confidently wrong
    assert (
        decide(rec, {"scale": 4.0, "max_distance": 2.0, "min_confidence": 0.0, "cocked_threshold": 0.6})[
            "unknown_read"
        ]
        == 1.0
    )
    assert (
        decide(rec, {"max_distance": 2.0, "min_margin": 0.0, "cocked_threshold": 0.6})["unknown_read"] == 1.0
    )


def test_margin_gate_reads_the_nearest_face_only_when_it_stands_clear(catalogue):
    from companion.vision.enroll_sim import decide

    mr = catalogue.find(ARMY[0])
    gate = {
        "max_distance": 0.5,
        "min_margin": 0.3,
        "max_distance_full": 0.9,
        "min_margin_full": 0.1,
        "min_confidence": 0.0,
        "cocked_threshold": 0.6,
    }
    prof = TableProfile("t", 8, gate)
    eye = np.eye(8)
    texts = []
    for k, f in enumerate(mr.faces):  # one prototype per distinct face, along its own axis
        if f.text() not in texts:
            texts.append(f.text())
            prof.add(eye[len(texts) - 1][None], [face_label(mr, k)])
    assert prof.die_fully_known(mr)
    near, second = eye[0], eye[1]

    def crop(a, b):  # a unit embedding a cosine ``a`` from the first face and ``b`` from the second
        v = a * near + b * second + np.sqrt(max(0.0, 1 - a * a - b * b)) * eye[7]
        return v / np.linalg.norm(v)

    # every face known: the looser pair applies (a crop 0.6 from its face, 0.2 nearer than the next)
    m = prof.read_die(crop(0.82, 0.55), mr)
    assert m.label is not None and m.label.text == texts[0]
    # two faces nearly as near: no margin, unreadable, never a guess
    assert prof.read_die(crop(0.7, 0.69), mr).unreadable
    # a face of the die not yet known: the stricter pair applies to the same crop
    part = prof.copy()
    last = face_label(mr, next(k for k, f in enumerate(mr.faces) if f.text() == texts[-1])).key()
    del part._sum[last], part._n[last]
    assert not part.die_fully_known(mr) and part.read_die(crop(0.82, 0.55), mr).unreadable
    assert part.read_die(crop(0.95, 0.1), mr).label.text == texts[0]
    # a prototype of one sighting reads with the one-sighting gate when one is given
    strict = prof.copy()
    strict.settings["one_sighting"] = {
        "max_distance": 0.1,
        "min_margin": 0.9,
        "max_distance_full": 0.1,
        "min_margin_full": 0.9,
    }
    assert strict.read_die(crop(0.82, 0.55), mr).unreadable
    # settings asking for a softmax share (older settings) read with the softmax gate, margins aside
    soft = strict.copy()
    soft.settings.update(scale=4.0, max_distance=0.7, min_confidence=0.5)
    assert soft.read_die(crop(0.82, 0.55), mr).label.text == texts[0]
    # the simulation's vectorised gate decides as the profile does, crop for crop
    rng = np.random.default_rng(1)
    embs = rng.normal(size=(300, 8)) + 2.5 * eye[rng.integers(0, len(texts), 300)]
    embs /= np.linalg.norm(embs, axis=1, keepdims=True)
    for p in (prof, part, strict):
        d = np.full((300, 12), np.inf)
        n = np.zeros(300, int)
        for i, e in enumerate(embs):
            _, dd, nn = p._face_table(e, mr)
            d[i, : len(dd)] = dd
            n[i] = nn[np.argmin(dd)]
        rec = {
            "d": d,
            "known": np.ones(300, bool),
            "cocked": np.zeros(300, bool),
            "pc": np.zeros(300),
            "same": np.eye(12, dtype=bool)[np.zeros(300, int)],
            "full": np.full(300, p.die_fully_known(mr)),
            "n": n,
        }
        read = np.array([p.read_die(e, mr).label is not None for e in embs])
        assert (read.sum() == 0) if p is strict else (0 < read.sum() < 300)
        assert decide(rec, p.settings)["unreadable"] == pytest.approx(1 - read.mean())


def test_eval_of_an_enrolled_bundle_scores_the_profile_not_the_base_reader(bundle):
    from companion.vision.evaluation import evaluate

    data = Path(__file__).parent / "fixtures" / "dd"
    base = evaluate(load_model("dragon-dice"), data, progress=False)
    mine = evaluate(load_model(bundle), data, progress=False)
    assert mine["map50"] == base["map50"] and mine["detected"] == base["detected"]  # the same die finder
    assert base["face_accuracy"] > 0.9
    # the profile knows only a Dwarves army of another art: these dice are unreadable, not guessed
    assert mine["read_correctly"] <= 0.1 * mine["dice"]


def test_standard_dice_enrolled_into_the_polyhedral_model_read_their_values_and_never_guess(tmp_path):
    from companion.vision.detections import box_iou
    from companion.vision.numerals import load_numeral_model

    fx = Path(__file__).parent / "fixtures" / "polyhedral"
    recs = [json.loads(line) for line in (fx / "manifest.jsonl").read_text().splitlines() if line.strip()]
    corr = tmp_path / "corr"
    corr.mkdir()
    shutil.copyfile(fx / recs[0]["image"], corr / "f0.jpg")
    (corr / "f0.json").write_text(
        json.dumps(
            {"dice": [{"box": d["box"], "kind": d["kind"], "value": d["value"]} for d in recs[0]["dice"]]}
        )
    )
    enroll("polyhedral", tmp_path / "poly-table", read_corrections(corr))
    model = load_numeral_model(tmp_path / "poly-table")
    assert model.profile is not None and len(model.profile) == len(
        {(d["kind"], d["value"]) for d in recs[0]["dice"]}
    )
    right = 0
    for rec in recs[:4]:
        truth = rec["dice"]
        found = model.readings(cv2.imread(str(fx / rec["image"])))
        for r in found:
            if r.unreadable:
                continue
            iou = box_iou(np.array([r.box]), np.array([d["box"] for d in truth]))[0]
            d = truth[int(iou.argmax())]
            assert iou.max() >= 0.5 and (r.kind, r.value) == (d["kind"], d["value"])  # read means read right
            right += 1
    assert right >= 1


def test_an_unknown_model_names_every_shipped_reading_model():
    from companion.vision.reader import ModelError, resolve_model

    with pytest.raises(ModelError) as err:
        resolve_model("no-such-model")
    for name in ("dragon-dice", "d6", "polyhedral", "polyhedral-oblique"):
        assert name in str(err.value)
    assert "face-embed" not in str(err.value)  # an embedding network reads no die by itself


def _broken_copy(src: Path, dest: Path, how: str) -> Path:
    """A copy of bundle ``src`` (its .onnx, .json and .npz files) broken ``how``; returns the bad file."""
    dest.mkdir()
    for f in src.iterdir():
        if f.suffix in (".onnx", ".json", ".npz"):
            shutil.copyfile(f, dest / f.name)
    if how == "model.json list":
        (dest / "model.json").write_text("[1, 2]")
    elif how == "model.json key":
        meta = json.loads((dest / "model.json").read_text())
        del meta["face_heads"]
        (dest / "model.json").write_text(json.dumps(meta))
    else:  # "face.onnx" or "embed.onnx": cut short
        bad = dest / how
        bad.write_bytes(bad.read_bytes()[:3000])
        return bad
    return dest / "model.json"


@pytest.mark.parametrize("how", ["model.json list", "model.json key", "face.onnx", "embed.onnx"])
def test_a_broken_base_bundle_is_refused_naming_the_bad_file(tmp_path, capsys, bundle, how):
    """``vision enroll`` and ``vision read`` load the bundle where its name is resolved: a bad model.json or
    a damaged network is an error naming that file (exit 2, no traceback), and enroll writes nothing."""
    from companion.cli import main

    broken = tmp_path / "broken"
    bad = _broken_copy(bundle, broken, how)
    before = {p.name: p.read_bytes() for p in broken.iterdir()}
    out = tmp_path / "out"
    argv = ["vision", "enroll", "--corrections", str(FIX / "corrections"), "--model", str(broken)]
    assert main([*argv, "--out", str(out)]) == 2
    assert str(bad) in capsys.readouterr().err
    assert not out.exists() and {p.name: p.read_bytes() for p in broken.iterdir()} == before
    assert main(["vision", "read", str(FIX / "queries.png"), "--model", str(broken)]) == 2
    assert str(bad) in capsys.readouterr().err


def test_dragon_dice_corrections_are_refused_by_a_standard_dice_base(tmp_path, catalogue):
    """A Dragon Dice record enrolled into a standard-dice (numeral) base is refused naming file and key."""
    out = tmp_path / "std"
    with pytest.raises(EnrollError, match=r"frame_00\.json: dice\[0\]\.icon: a Dragon Dice die's face"):
        enroll("polyhedral-oblique", out, read_corrections(FIX / "corrections", catalogue))
    assert not out.exists()


def test_cli_enroll_refuses_a_negative_seed_and_an_out_it_cannot_make(tmp_path, capsys):
    from companion.cli import main

    (tmp_path / "a-file").write_text("mine")
    argv = ["vision", "enroll", "--corrections", str(FIX / "corrections")]
    assert main([*argv, "--out", str(tmp_path / "b"), "--seed", "-1"]) == 2
    assert "--seed must be 0 or more, not -1" in capsys.readouterr().err
    out = tmp_path / "a-file" / "sub" / "b"
    assert main([*argv, "--out", str(out)]) == 2
    assert (
        f"{out}: cannot make the bundle folder: {tmp_path / 'a-file'} is not a folder"
        in capsys.readouterr().err
    )
    assert (
        sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]
        and (tmp_path / "a-file").read_text() == "mine"
    )


def test_a_bundle_enrolled_before_the_identity_gate_reads_with_the_shipped_gate(bundle, tmp_path):
    """A bundle whose reading settings lack any of the roster's settings (enrolled before stop 39 or 40)
    takes them all from the shipped embedding network when it is the same network (they were chosen
    together), and from nowhere when it is not."""
    shipped = json.loads((Path(models_dir()) / "face-embed" / "model.json").read_text())["reading"]
    old = tmp_path / "old"
    shutil.copytree(bundle, old)
    meta = json.loads((old / "model.json").read_text())
    assert meta["embedding"]["reading"]["min_identity"] == shipped["min_identity"]  # enrolled today: kept
    keys = ROSTER_SETTINGS
    assert {k: meta["embedding"]["reading"][k] for k in keys} == {k: shipped[k] for k in keys}

    def write(reading_update: dict) -> None:  # the bundle as one enrolled before the gate, and its profile
        for key in keys:
            meta["embedding"]["reading"].pop(key, None)
        meta["embedding"]["reading"].update(reading_update)
        (old / "model.json").write_text(json.dumps(meta))
        prof = TableProfile.load(old / "profile.npz")
        for key in keys:
            prof.settings.pop(key, None)
        prof.save(old / "profile.npz")

    write({})
    settings = DiceModel(old).profile.settings
    assert {k: settings[k] for k in keys} == {k: shipped[k] for k in keys}
    # enrolled in stop 39: its gate of then, without the settings it was chosen with today, is replaced
    write({"min_identity": 0.9, "identity_by": "text"})
    settings = DiceModel(old).profile.settings
    assert {k: settings[k] for k in keys} == {k: shipped[k] for k in keys}
    # a bundle with all of them keeps its own
    own = {"min_identity": 0.9, "identity_by": "text", "assign_scale": 12.0, "offer_by": "nearest"}
    write(own)
    assert {k: DiceModel(old).profile.settings[k] for k in keys} == own
    # another network: the shipped gate was not chosen for it, so none is taken
    assert _shipped_roster_settings("0123456789abcdef") == {}
    assert _shipped_roster_settings(embedder_id(old / "embed.onnx")) == {k: shipped[k] for k in keys}
