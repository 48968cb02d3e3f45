"""Issue 20 part 3, "as you play": a camera roll confirmed on the tablet after a tap teaches the table.

Camera roll -> a tap on the die the camera could not read -> Confirm, through the real Flask app: the
table profile learns the tapped die's crop with its tapped face and the crops of the dice the camera
read with their read faces (the file beside the game); the very next reading of that crop reads it;
the log keeps the camera as the origin of the dice it read and the player's tap as the origin of the
tapped one, with the roll's frame; and the correction record (frame + JSON, what ``companion vision
enroll --corrections`` reads) is on disk.  The same for standard dice (a Battle Dice roll) served with
an enrolled ``--standard-model`` bundle.  Bad taps are refused by name and teach nothing.

Frames are rendered (Dragon Dice of a TEST art family, never trained on; standard dice from above); the
staged camera reading is what ``web.play.camera_reading`` stages (boxes, frame, one ``DieReading`` per
die, ``unread``), put on the dice's drawn boxes so which die is unread is fixed; the embedding network,
the profile and its file are the real ones.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from web_helpers import battle_dice_app

from companion.readings import DieReading, Source, State

FACES = [0, 1, 2, 3]  # face index per die of the quick-start roll (its four Dwarves d6)
UNREAD = 3  # the die the camera could not read: its face ("3 Magic") is the one the table never saw
# the reading gate of tests/web/test_web_teach.py: these tests check the plumbing (what is learnt is used)
GATE = {"scale": 4.0, "max_distance": 0.45, "min_confidence": 0.5, "cocked_threshold": 0.6}


@pytest.fixture(scope="module")
def catalogue():
    from companion.rules.catalogue import load_catalogue

    return load_catalogue()


def _render(names, seed):
    from companion.vision.synth.art import TEST_FAMILIES
    from companion.vision.synth.real_dice import render_table

    family = {"Dwarves": TEST_FAMILIES[1]}
    frame, labels = render_table(
        family, list(zip(names, FACES, strict=True)), np.random.default_rng(seed), width=1280, height=960
    )
    by_die = {lab["die"]: [float(v) for v in lab["box"]] for lab in labels}
    assert set(by_die) == set(names)
    return frame, [by_die[n] for n in names]


def _stage(store, pending, frame, boxes, read_faces: dict, unread: list[str], likely=None):
    """Stage a camera reading as ``camera_reading`` does: ``read_faces`` read, ``unread`` not (boxes kept)."""
    from web.play import reading_from_faces

    readings = []
    for d, box in zip(pending["dice"], boxes, strict=True):
        uid = d["uid"]
        if uid in unread:
            readings.append(
                DieReading(
                    uid,
                    None,
                    0.2,
                    Source.CAMERA,
                    State.UNREADABLE,
                    name=d["die"],
                    box=tuple(box),
                    problem="face not read: tap it",
                    likely=tuple((likely or {}).get(uid, ())),
                )
            )
        else:
            f = read_faces[uid]
            readings.append(
                DieReading(
                    uid, f, 0.9, Source.CAMERA, name=d["die"], face_index=d["faces"].index(f), box=tuple(box)
                )
            )
    with store.lock:
        reading = reading_from_faces(
            store,
            read_faces,
            "camera",
            boxes={d["uid"]: b for d, b in zip(pending["dice"], boxes, strict=True)},
            frame=frame,
            problems=[f"{u}: not read: tap its face" for u in unread],
            readings=readings,
        )
        reading["cocked"], reading["unread"] = [], list(unread)
        store.set_reading(reading)
    return reading


def _served_quick_game(waitress_table, host: str):
    """A quick-start game on a real waitress server: (app, base URL, the pending roll, its dice's names,
    the game store), for the browser tests that stage the camera's reading of that roll."""
    from web_helpers import call_json

    app, srv = waitress_table(host)
    base = srv.base_url
    assert call_json(base, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, host)[0] == 201
    pending = call_json(base, "GET", "/api/state")[1]["pending"]
    return app, base, pending, [d["die"] for d in pending["dice"]], app.extensions["game_store"]


@pytest.fixture
def dwarves(app, client, host, game, catalogue):
    """The quick-start roll staged as a camera reading: three dice read (faces the table was taught from
    two other frames), the fourth unread (its face never taught)."""
    from companion.vision.profile import face_label

    store, vision = app.extensions["game_store"], app.extensions["table_vision"]
    pending = client.get("/api/state").json["pending"]
    names = [d["die"] for d in pending["dice"]]
    assert len(names) == 4 and all(len(d["faces"]) == 6 for d in pending["dice"])
    for seed in (1, 2):  # two earlier looks taught the faces of the three dice the camera will read
        frame, boxes = _render(names, seed)
        taught = [
            (box, face_label(catalogue.get(n), FACES[i]))
            for i, (n, box) in enumerate(zip(names, boxes, strict=True))
            if i != UNREAD
        ]
        vision.learn(frame, taught)
    vision.profile().settings.update(GATE)
    frame, boxes = _render(names, 3)
    want = {d["uid"]: d["faces"][FACES[i]] for i, d in enumerate(pending["dice"])}
    unread = pending["dice"][UNREAD]["uid"]
    read = {u: f for u, f in want.items() if u != unread}
    _stage(store, pending, frame, boxes, read, [unread])
    return {"pending": pending, "frame": frame, "boxes": boxes, "want": want, "unread": unread}


def _key_sightings(profile, catalogue, name, face_text):
    from companion.vision.profile import lookup_keys

    die = catalogue.get(name)
    k = next(i for i, f in enumerate(die.faces) if f.text() == face_text)
    return max(profile.sightings(key) for key in lookup_keys(die, k))


def _reads(vision, catalogue, frame, box, name):
    """The table's reading of one crop among its die's faces (the face text, or None: unread)."""
    emb, pc = vision.embed(frame, [box])
    m = vision.reading_model().profile.read_die(emb[0], catalogue.get(name), float(pc[0]))
    return m.label.text if m.label is not None else None


def _logged(store) -> dict:
    with store.lock:
        event = [e for e in store.session.events() if e["action"].get("readings")][-1]
    return event, {r["die"]: r for r in event["action"]["readings"]}


@pytest.mark.parametrize("tap_with", ["corrections", "confirm"])
def test_a_tapped_camera_roll_teaches_the_table_and_keeps_each_dies_origin(
    app, client, host, dwarves, catalogue, tmp_path, tap_with
):
    """The tap goes through ``POST /api/corrections`` (the Roll panel's tap) or with the confirm
    (``POST /api/rolls/confirm {"faces": ...}``, taps the page had not sent): the same lesson."""
    from companion.vision.enroll import read_corrections
    from companion.vision.profile import TableProfile
    from web.table_profile import crop_shows

    store, vision = app.extensions["game_store"], app.extensions["table_vision"]
    pending, frame, boxes, want, unread = (
        dwarves[k] for k in ("pending", "frame", "boxes", "want", "unread")
    )
    names = {d["uid"]: d["die"] for d in pending["dice"]}
    box = dict(zip(names, boxes, strict=True))
    tapped = want[unread]
    roster = [catalogue.get(n) for n in dict.fromkeys(names.values())]
    # before: the table does not know the tapped face; the dice read show their faces to the table
    before = {u: _key_sightings(vision.profile(), catalogue, names[u], want[u]) for u in want}
    assert before[unread] == 0 and all(before[u] == 2 for u in want if u != unread)
    assert _reads(vision, catalogue, frame, box[unread], names[unread]) is None
    from companion.vision.profile import face_label

    shows = {
        u: crop_shows(
            vision,
            frame,
            box[u],
            face_label(catalogue.get(names[u]), pending["dice"][i]["faces"].index(want[u])),
            roster,
        )
        for i, u in enumerate(want)
        if u != unread
    }
    assert all(shows.values()), shows  # this frame's read dice are on their own boxes (the rendered truth)

    if tap_with == "corrections":
        r = client.post("/api/corrections", json={"uid": unread, "face": tapped}, headers=host)
        assert r.status_code == 200, r.json
        staged = r.json["reading"]
        assert staged["faces"][unread] == tapped and staged["corrected"] == [unread]
        assert unread in staged["unread"]  # still the die the camera left unread (the panel keeps its place)
        r = client.post("/api/rolls/confirm", json={}, headers=host)
    else:
        r = client.post("/api/rolls/confirm", json={"faces": {unread: tapped}}, headers=host)
    assert r.status_code == 200, r.json
    assert r.json["learnt"] == 4  # the three dice the camera read and the tapped one

    # the profile learnt each die's crop with its confirmed face, and saved it beside the game
    after = vision.profile()
    assert {
        u: _key_sightings(after, catalogue, names[u], want[u]) - before[u] for u in want
    } == dict.fromkeys(want, 1)
    saved = TableProfile.load(vision.path)
    assert _key_sightings(saved, catalogue, names[unread], tapped) == 1
    # the very next reading of that crop reads the tapped face
    assert _reads(vision, catalogue, frame, box[unread], names[unread]) == tapped
    assert vision.reading_model().profile is after  # the camera's next frame reads with this profile

    # the log: the camera's dice as the camera read them, the tapped die as the player's tap, box kept
    event, logged = _logged(store)
    assert {u: logged[u]["face"] for u in want} == want
    assert logged[unread]["source"] == "typed" and logged[unread]["box"] == box[unread]
    assert all(logged[u]["source"] == "camera" for u in want if u != unread)
    assert store.session.frame(event["seq"])[:2] == b"\xff\xd8"  # the roll's frame is kept with it

    # one correction record for the roll: every die with its box and confirmed face; enrolment reads it
    folder = tmp_path / "corrections"
    records = sorted(folder.glob("*.json"))
    assert len(records) == 1 and records[0].with_suffix(".jpg").is_file()
    dice = json.loads(records[0].read_text())["dice"]
    got = {(d["die"], d["count"], d["icon"], tuple(d["box"])) for d in dice}
    for u, f in want.items():
        face = catalogue.get(names[u]).faces[
            pending["dice"][[d["uid"] for d in pending["dice"]].index(u)]["faces"].index(f)
        ]
        assert (names[u], face.count, face.name, tuple(box[u])) in got
    sightings = read_corrections(folder)
    assert (names[unread], tapped) in {(s.label.die, s.label.text) for s in sightings}


def test_a_camera_roll_whose_frame_seemed_turned_is_taken_but_teaches_nothing(
    app, client, host, dwarves, catalogue, tmp_path
):
    """Its dice were left to tap (the turn check named a turn); the taps and the confirm take the roll, but
    crops cut from a turned frame would be learnt turned: no lesson, no correction record, and the pages
    and the confirm's answer say why."""
    store, vision = app.extensions["game_store"], app.extensions["table_vision"]
    pending, want, unread = (dwarves[k] for k in ("pending", "want", "unread"))
    names = {d["uid"]: d["die"] for d in pending["dice"]}
    with store.lock:
        store.reading["turned"] = 180  # as web.play.camera_reading stages a frame its check found turned
    before = {u: _key_sightings(vision.profile(), catalogue, names[u], want[u]) for u in want}
    stat = vision.path.stat().st_mtime_ns if vision.path.exists() else None
    nid = max((n["nid"] for n in store.notices_since(0)), default=0)
    r = client.post("/api/rolls/confirm", json={"faces": {unread: want[unread]}}, headers=host)
    assert r.status_code == 200, r.json
    assert r.json["learnt"] == 0 and r.json["record"] is None and "turned" in r.json["record_error"]
    assert {u: _key_sightings(vision.profile(), catalogue, names[u], want[u]) for u in want} == before
    assert (vision.path.stat().st_mtime_ns if vision.path.exists() else None) == stat
    assert not list((tmp_path / "corrections").glob("*.json"))
    _, logged = _logged(store)
    assert {u: logged[u]["face"] for u in want} == want  # the roll itself is taken
    with store.lock:
        notices = [n for n in store.notices_since(nid) if n["kind"] == "profile_problem"]
    assert notices and "turned" in notices[-1]["data"]["problem"]


@pytest.mark.parametrize("tap_teaches", [False, True])
def test_a_tap_has_the_camera_read_its_frame_again_and_read_dice_it_left_unread(
    app, client, host, dwarves, catalogue, tap_teaches
):
    """A tap on a camera roll tells the roster's assignment which die is which (``play.told_by_taps``):
    the frame is read again with the tapped face, and a die the camera left unread that nobody tapped
    takes the face it reads now, as the camera's; the tapped die stays the player's.  Staged here with a
    die the table knows left unread (the identity gate opened, so what is checked is the plumbing).  The
    profile setting ``tap_tells`` turns it on (off in every shipped bundle), ``tap_teaches`` has the taps
    also teach a copy of the profile the tapped crops first."""
    store, vision = app.extensions["game_store"], app.extensions["table_vision"]
    pending, frame, boxes, want, unread = (
        dwarves[k] for k in ("pending", "frame", "boxes", "want", "unread")
    )
    vision.profile().settings.update(min_identity=0.0, tap_tells=True, tap_teaches=tap_teaches)
    first = pending["dice"][0]["uid"]
    read = {u: f for u, f in want.items() if u not in (unread, first)}
    _stage(store, pending, frame, boxes, read, [unread, first])
    r = client.post("/api/corrections", json={"uid": unread, "face": want[unread]}, headers=host)
    assert r.status_code == 200, r.json
    staged = r.json["reading"]
    assert staged["faces"][first] == want[first] and staged["read_after_taps"] == [first]
    assert staged["readings"][first]["source"] == "camera" and staged["readings"][first]["state"] == "read"
    assert staged["corrected"] == [unread] and staged["faces"][unread] == want[unread]
    assert not any(p.startswith(f"{first}: ") for p in staged["problems"])
    assert first in staged["unread"]  # the panel keeps its place: the camera left it unread at first
    r = client.post("/api/rolls/confirm", json={}, headers=host)
    assert r.status_code == 200, r.json
    _, logged = _logged(store)
    assert logged[first]["source"] == "camera" and logged[unread]["source"] == "typed"


@pytest.mark.parametrize("why", ["turned", "setting off"])
def test_a_tap_on_a_frame_that_seemed_turned_or_without_the_setting_reads_nothing_again(
    app, client, host, dwarves, why
):
    store, vision = app.extensions["game_store"], app.extensions["table_vision"]
    pending, frame, boxes, want, unread = (
        dwarves[k] for k in ("pending", "frame", "boxes", "want", "unread")
    )
    vision.profile().settings.update(min_identity=0.0, tap_tells=why == "turned")
    first = pending["dice"][0]["uid"]
    read = {u: f for u, f in want.items() if u not in (unread, first)}
    _stage(store, pending, frame, boxes, read, [unread, first])
    if why == "turned":
        with store.lock:
            store.reading["turned"] = 180
    r = client.post("/api/corrections", json={"uid": unread, "face": want[unread]}, headers=host)
    assert r.status_code == 200, r.json
    assert first not in r.json["reading"]["faces"] and "read_after_taps" not in r.json["reading"]


def test_a_misread_die_corrected_teaches_the_face_given_and_a_tap_back_stays_the_cameras(
    app, client, host, dwarves, catalogue
):
    """A die the camera read wrong and a player corrected teaches the face given (every other d6 was read
    as the camera read it, so its box is its own); a die tapped away and back to the face the camera read
    is the camera's reading again (logged as the camera's, taught only where its crop shows that face)."""
    store, vision = app.extensions["game_store"], app.extensions["table_vision"]
    pending, frame, boxes, want = (dwarves[k] for k in ("pending", "frame", "boxes", "want"))
    names = {d["uid"]: d["die"] for d in pending["dice"]}
    uids = list(names)
    misread, back, never = uids[0], uids[1], uids[UNREAD]  # never: read as its face the table never saw
    wrong = next(f for f in pending["dice"][0]["faces"] if f != want[misread])
    _stage(store, pending, frame, boxes, {**want, misread: wrong}, [])
    before = {u: _key_sightings(vision.profile(), catalogue, names[u], want[u]) for u in want}
    away = next(f for f in pending["dice"][1]["faces"] if f != want[back])
    for face in (away, want[back]):
        assert (
            client.post("/api/corrections", json={"uid": back, "face": face}, headers=host).status_code == 200
        )
    assert client.get("/api/state").json["reading"]["corrected"] == []
    r = client.post("/api/corrections", json={"uid": misread, "face": want[misread]}, headers=host)
    assert r.status_code == 200 and r.json["reading"]["corrected"] == [misread]
    r = client.post("/api/rolls/confirm", json={}, headers=host)
    assert r.status_code == 200 and r.json["learnt"] == 3, r.json
    after = {u: _key_sightings(vision.profile(), catalogue, names[u], want[u]) for u in want}
    assert {u: after[u] - before[u] for u in want} == {u: int(u != never) for u in want}
    _, logged = _logged(store)
    assert logged[misread]["source"] == "typed" and logged[misread]["face"] == want[misread]
    assert all(logged[u]["source"] == "camera" and logged[u]["face"] == want[u] for u in want if u != misread)


def test_bad_taps_with_a_confirm_are_refused_by_name_and_teach_nothing(app, client, host, dwarves, tmp_path):
    store, vision = app.extensions["game_store"], app.extensions["table_vision"]
    unread, pending = dwarves["unread"], dwarves["pending"]
    profile_bytes = vision.path.read_bytes()
    keys = {k: vision.profile().sightings(k) for k in vision.profile().keys()}
    seq, staged = client.get("/api/state").json["seq"], store.reading

    def unchanged():
        assert client.get("/api/state").json["seq"] == seq  # the roll is not in the game
        assert store.reading == staged
        assert vision.path.read_bytes() == profile_bytes
        assert {k: vision.profile().sightings(k) for k in vision.profile().keys()} == keys
        assert not (tmp_path / "corrections").exists()

    r = client.post("/api/rolls/confirm", json={"faces": {unread: "7 Dragon"}}, headers=host)
    assert (
        r.status_code == 400 and r.json["error"] == "impossible_face" and r.json["field"] == f"faces.{unread}"
    )
    assert "7 Dragon" in r.json["message"] and pending["dice"][3]["die"] in r.json["message"]
    unchanged()
    r = client.post("/api/rolls/confirm", json={"faces": {"u999": "2 Melee"}}, headers=host)
    assert r.status_code == 400 and r.json["error"] == "unknown_die" and "u999" in r.json["message"]
    unchanged()
    # a good tap beside a bad one: refused as a whole, the good one not applied either
    good = pending["dice"][0]
    r = client.post(
        "/api/rolls/confirm",
        json={"faces": {good["uid"]: good["faces"][1], unread: "7 Dragon"}},
        headers=host,
    )
    assert r.status_code == 400 and r.json["field"] == f"faces.{unread}"
    unchanged()
    # no face for the unread die: the roll is incomplete, nothing changes
    r = client.post("/api/rolls/confirm", json={"faces": {}}, headers=host)
    assert r.status_code == 400 and r.json["error"] == "incomplete_roll" and unread in r.json["message"]
    unchanged()
    r = client.post("/api/corrections", json={"uid": unread, "face": "7 Dragon"}, headers=host)
    assert r.status_code == 400 and r.json["error"] == "impossible_face"
    unchanged()


def test_a_confirm_refused_after_its_taps_were_checked_writes_no_record_and_changes_nothing(
    app, client, host, dwarves, tmp_path
):
    """The taps sent with a confirm are good, but the roll is then refused (the host ended the game):
    no correction record is written for the refused roll, the staged reading keeps no tap, nothing learnt."""
    store, vision = app.extensions["game_store"], app.extensions["table_vision"]
    unread = dwarves["unread"]
    profile_bytes, staged = vision.path.read_bytes(), store.reading
    assert client.post(f"/api/games/{store.game_id}/end", json={}, headers=host).status_code == 200
    store.set_reading(staged)  # the camera's reading still on the tablet (as staged before the end)
    staged = store.reading
    r = client.post("/api/rolls/confirm", json={"faces": {unread: dwarves["want"][unread]}}, headers=host)
    assert r.status_code == 409 and r.json["error"] == "game_ended", r.json
    assert store.reading == staged  # the tap was not applied to the staged roll
    assert not (tmp_path / "corrections").exists()  # no record of a roll the game never took
    assert vision.path.read_bytes() == profile_bytes


def test_a_tap_writes_no_record_until_its_roll_is_confirmed(app, client, host, dwarves, tmp_path):
    """Taps change the staged reading only: a roll tapped and then read again by the camera (dice moved)
    leaves nothing on disk; the roll confirmed after a tap is written once, and the confirm says where."""
    store = app.extensions["game_store"]
    pending, frame, boxes, want, unread = (
        dwarves[k] for k in ("pending", "frame", "boxes", "want", "unread")
    )
    folder = tmp_path / "corrections"
    wrong = next(f for f in pending["dice"][UNREAD]["faces"] if f != want[unread])
    assert (
        client.post("/api/corrections", json={"uid": unread, "face": wrong}, headers=host).status_code == 200
    )
    assert not folder.exists()  # a tap is not a confirmed roll
    # the dice moved and settled: the camera stages a new reading of the roll, the tap is gone with the old one
    read = {u: f for u, f in want.items() if u != unread}
    _stage(store, pending, frame, boxes, read, [unread])
    assert unread not in client.get("/api/state").json["reading"]["faces"]
    r = client.post("/api/corrections", json={"uid": unread, "face": want[unread]}, headers=host)
    assert r.status_code == 200 and "saved" not in r.json and not folder.exists()
    r = client.post("/api/rolls/confirm", json={}, headers=host)
    assert r.status_code == 200, r.json
    records = sorted(folder.glob("*.json"))
    assert [str(p.with_suffix(".jpg")) for p in records] == [r.json["record"]]  # the one confirmed roll
    assert "record_error" not in r.json
    dice = json.loads(records[0].read_text())["dice"]
    tapped_box = [float(v) for v in boxes[UNREAD]]
    (mine,) = [d for d in dice if d["box"] == tapped_box]
    faces = next(d for d in pending["dice"] if d["uid"] == unread)["faces"]
    from companion.rules.catalogue import load_catalogue

    catalogue_faces = load_catalogue().get(mine["die"]).faces
    confirmed, first_tap = (catalogue_faces[faces.index(f)] for f in (want[unread], wrong))
    assert (first_tap.name, first_tap.count) != (confirmed.name, confirmed.count)  # the two can be told apart
    assert (mine["icon"], mine["count"]) == (
        confirmed.name,
        confirmed.count,
    )  # the confirmed face, not the first


def test_faces_posted_whole_over_a_camera_roll_keep_its_record(app, client, host, dwarves, tmp_path):
    """``POST /api/rolls`` over a staged camera roll (a tablet posting the whole roll instead of tapping)
    keeps the correction record a confirm keeps: the frame and every die's box with the face posted,
    the die the camera left unread with the face the player gave it."""
    from companion.rules.catalogue import load_catalogue

    pending, boxes, want, unread = (dwarves[k] for k in ("pending", "boxes", "want", "unread"))
    folder = tmp_path / "corrections"
    r = client.post("/api/rolls", json={"faces": want, "confirm": True}, headers=host)
    assert r.status_code == 200, r.json
    records = sorted(folder.glob("*.json"))
    assert [str(p.with_suffix(".jpg")) for p in records] == [r.json["record"]]
    assert "record_error" not in r.json and r.json["learnt"] == 4
    dice = json.loads(records[0].read_text())["dice"]
    catalogue = load_catalogue()
    got = {tuple(d["box"]): (d["icon"], d["count"]) for d in dice}
    for d, box in zip(pending["dice"], boxes, strict=True):
        face = catalogue.get(d["die"]).faces[d["faces"].index(want[d["uid"]])]
        assert got[tuple(float(v) for v in box)] == (face.name, face.count), d["uid"]


def test_a_roll_posted_over_the_camera_marks_only_the_faces_unlike_its_reading():
    """``play.posted_over_camera``: a die posted as the camera read it stays the camera's; a die posted
    otherwise, or given a face the camera did not read, is corrected; the camera's reading is unchanged."""
    from web.play import posted_over_camera

    camera = {
        "faces": {"u1": "2 Melee", "u2": "1 Save"},
        "readings": {
            "u1": {"state": "read", "face": "2 Melee"},
            "u2": {"state": "read", "face": "1 Save"},
            "u3": {"state": "unreadable", "face": None},
        },
        "corrected": [],
        "unread": ["u3"],
        "cocked": [],
    }
    before = json.dumps(camera, sort_keys=True)
    out = posted_over_camera(camera, {"u1": "2 Melee", "u2": "2 Save", "u3": "1 ID"})
    assert out["faces"] == {"u1": "2 Melee", "u2": "2 Save", "u3": "1 ID"}
    assert out["corrected"] == ["u2", "u3"] and out["unread"] == ["u3"]
    assert json.dumps(camera, sort_keys=True) == before
    assert posted_over_camera(camera, {"u1": "2 Melee", "u2": "1 Save"})["corrected"] == []


def test_a_confirm_whose_record_cannot_be_written_still_takes_the_roll_and_says_why(
    app, client, host, dwarves, tmp_path
):
    """The record is written after the game took the roll: a folder that cannot be written (here a file
    stands where the folder should be) leaves the roll in the game, and the confirm's answer names why."""
    blocker = tmp_path / "corrections"
    blocker.write_text("not a folder")
    unread, want = dwarves["unread"], dwarves["want"]
    seq = client.get("/api/state").json["seq"]
    r = client.post("/api/rolls/confirm", json={"faces": {unread: want[unread]}}, headers=host)
    assert r.status_code == 200, r.json
    assert r.json["seq"] > seq and r.json["record"] is None
    assert "not kept for teaching" in r.json["record_error"] and "corrections" in r.json["record_error"]
    assert r.json["learnt"] == 4  # the table still learnt the roll
    _, logged = _logged(app.extensions["game_store"])
    assert logged[unread]["face"] == want[unread]
    assert blocker.read_text() == "not a folder"


def test_a_tablet_that_saw_an_older_reading_is_refused_by_name_and_changes_nothing(
    app, client, host, dwarves, tmp_path
):
    """Two tablets on one roll: tablet A taps a die (the reading's ``rev`` moves on); tablet B, still
    showing the reading before that tap, confirms or taps with the ``rev`` it saw and is refused
    (``stale_reading``), with nothing changed; once it has the new reading its confirm goes in, with A's tap."""
    store = app.extensions["game_store"]
    pending, want, unread = (dwarves[k] for k in ("pending", "want", "unread"))
    b = app.test_client()  # the second tablet
    seen = b.get("/api/state").json["reading"]["rev"]
    assert client.get("/api/state").json["reading"]["rev"] == seen
    r = client.post("/api/corrections", json={"uid": unread, "face": want[unread], "rev": seen}, headers=host)
    assert r.status_code == 200 and r.json["reading"]["rev"] > seen
    now, seq, staged = r.json["reading"]["rev"], client.get("/api/state").json["seq"], store.reading

    def unchanged():
        assert store.reading == staged and client.get("/api/state").json["seq"] == seq
        assert not (tmp_path / "corrections").exists()

    other = pending["dice"][0]
    away = next(f for f in other["faces"] if f != want[other["uid"]])
    for path, body in (
        ("/api/rolls/confirm", {"rev": seen}),
        ("/api/rolls/confirm", {"rev": seen, "faces": {other["uid"]: away}}),
        ("/api/corrections", {"uid": other["uid"], "face": away, "rev": seen}),
    ):
        r = b.post(path, json=body, headers=host)
        assert r.status_code == 409 and r.json["error"] == "stale_reading", (path, r.json)
        assert "changed since this tablet saw it" in r.json["message"]
        unchanged()
    r = b.post("/api/rolls/confirm", json={"rev": now}, headers=host)
    assert r.status_code == 200, r.json
    _, logged = _logged(store)
    assert logged[unread]["face"] == want[unread] and logged[unread]["source"] == "typed"  # A's tap is in
    r = b.post("/api/rolls/confirm", json={"rev": now}, headers=host)  # the roll is gone: nothing to confirm
    assert r.status_code == 409 and r.json["error"] == "no_reading"


def test_a_standard_record_written_again_is_whole_or_as_before(tmp_path, monkeypatch):
    """A Battle Dice roll's record written again (same name): a write that fails half way leaves the
    record as it was, never half a JSON that enrolment refuses."""
    from pathlib import Path

    from web.play import save_standard_correction

    frame = np.full((100, 100, 3), 90, np.uint8)
    pending = {"dice": [{"uid": "b1", "die": "d20"}, {"uid": "b2", "die": "d6"}]}
    reading = {"boxes": {"b1": [10, 10, 40, 40], "b2": [50, 50, 90, 90]}, "faces": {"b1": "17"}}
    save_standard_correction(tmp_path, "roll1", frame, reading, pending)
    before = (tmp_path / "roll1.json").read_text()

    def half(self, data, *a, **k):
        with open(self, "w") as f:
            f.write(data[: len(data) // 2])
        raise OSError("no space left on device")

    monkeypatch.setattr(Path, "write_text", half)
    with pytest.raises(OSError, match="no space"):
        save_standard_correction(
            tmp_path, "roll1", frame, {**reading, "faces": {"b1": "17", "b2": "3"}}, pending
        )
    assert (tmp_path / "roll1.json").read_text() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["roll1.jpg", "roll1.json"]


def test_faces_posted_over_a_camera_reading_unlike_it_teach_as_taps_do():
    """``POST /api/rolls`` (faces posted whole, e.g. by a tablet that had not shown the camera's reading
    yet) confirms a roll the camera staged: a die posted with a face unlike the camera's is a player's
    face on a box the camera matched by another face, as a tap is.  Two d20 read 5 and 12 and posted 12
    and 5 (units of one size are interchangeable to the player) teach neither box the other's value; a
    d20 posted as read beside a d6 posted otherwise (the only d6: its box is its own) both teach."""
    from web.table_profile import confirmed_sightings

    d20 = [str(v) for v in range(1, 21)]
    dice = [
        {"uid": "u1", "die": "d20", "faces": d20},
        {"uid": "u2", "die": "d20", "faces": d20},
        {"uid": "u3", "die": "d6", "faces": d20[:6]},
    ]
    boxes = {"u1": [0, 0, 10, 10], "u2": [20, 0, 30, 10], "u3": [40, 0, 50, 10]}
    read = {"u1": "5", "u2": "12", "u3": "2"}
    staged = {
        "reading": {"boxes": boxes, "faces": read, "cocked": [], "unread": [], "corrected": []},
        "dice": dice,
    }
    assert confirmed_sightings(staged, {"u1": "12", "u2": "5", "u3": "2"}) == [
        ("u3", [40.0, 0.0, 50.0, 10.0], "d6", "2")
    ]
    got = confirmed_sightings(staged, {"u1": "5", "u2": "12", "u3": "4"})
    assert [(u, f) for u, _, _, f in got] == [("u1", "5"), ("u2", "12"), ("u3", "4")]


# ---------------------------------------------------------------------------------------------
# standard dice (a Battle Dice roll), served with an enrolled --standard-model bundle

TOKEN = "roll-taps-teach-host-token-0123"
HOST = {"X-Companion-Token": TOKEN}


def _standard_roll(pending: dict, seed: int):
    """A frame of the roll's standard dice drawn from above; each die's box and value (roll order)."""
    from companion.vision.synth.numerals import random_die, render_standard_scene

    rng = np.random.default_rng(seed)
    dice = [random_die(rng, d["die"]) for d in pending["dice"]]
    frame, drawn, _ = render_standard_scene(rng, dice, ppm=3.4, tilt_deg=0.0, clutter=False, photo=False)
    box_of = {id(d.die): [float(v) for v in d.box] for d in drawn}
    assert all(id(d) in box_of for d in dice), "a die of the roll was not drawn in the frame"
    return frame, [box_of[id(d)] for d in dice], [d.value for d in dice]


@pytest.fixture(scope="module")
def enrolled(tmp_path_factory) -> Path:
    """A standard-dice bundle enrolled (``companion vision enroll``) from one rendered Battle Dice roll,
    its d20s left out: the table's profile knows some values of every size but the d20."""
    import cv2

    from companion.vision.enroll import enroll, read_corrections

    tmp = tmp_path_factory.mktemp("standard-enrol")
    app, _, pending = battle_dice_app(tmp / "table", TOKEN)
    app.extensions["game_store"].close()
    frame, boxes, values = _standard_roll(pending, 7)
    folder = tmp / "records"
    folder.mkdir()
    assert cv2.imwrite(str(folder / "look.jpg"), frame)
    dice = [
        {"box": b, "kind": d["die"], "value": v}
        for d, b, v in zip(pending["dice"], boxes, values, strict=True)
        if d["die"] != "d20"
    ]
    (folder / "look.json").write_text(json.dumps({"dice": dice}))
    enroll("polyhedral-oblique", tmp / "bundle", read_corrections(folder))
    return tmp / "bundle"


def test_a_tapped_battle_dice_roll_teaches_the_tables_standard_profile(tmp_path, enrolled, monkeypatch):
    from companion.vision.numerals import read_standard_roll
    from companion.vision.profile import TableProfile
    from web.table_profile import standard_profile_beside

    app, client, pending = battle_dice_app(tmp_path, TOKEN, STANDARD_MODEL=str(enrolled))
    store, std = app.extensions["game_store"], app.extensions["standard_vision"]
    try:
        frame, boxes, values = _standard_roll(pending, 4)
        uids = [d["uid"] for d in pending["dice"]]
        k = max(i for i, d in enumerate(pending["dice"]) if d["die"] == "d20")  # left unread, then tapped
        unread, value = uids[k], values[k]
        read = {u: str(v) for u, v in zip(uids, values, strict=True) if u != unread}
        # before: the table knows no d20 value; the next reading of that d20 offers nothing
        profile = std.profile()
        assert profile is not None and not [key for key in profile.keys() if key.startswith("any:d20|")]
        before = {key: profile.sightings(key) for key in profile.keys()}
        emb, pc = std.embed(frame, [boxes[k]])
        assert profile.likely_values(emb[0], "d20") == [] and profile.read_any(emb[0], "d20").label is None

        _stage(store, pending, frame, boxes, read, [unread])
        r = client.post("/api/corrections", json={"uid": unread, "face": str(value)}, headers=HOST)
        assert r.status_code == 200, r.json
        r = client.post("/api/rolls/confirm", json={}, headers=HOST)
        assert r.status_code == 200, r.json
        assert r.json["learnt"] == len(uids)  # every die: the read ones with their values, the tapped one

        after = std.profile()
        gained = {key: after.sightings(key) - before.get(key, 0) for key in after.keys()}
        want: dict[str, int] = {}
        for d, v in zip(pending["dice"], values, strict=True):
            want[f"any:{d['die']}|{v}"] = want.get(f"any:{d['die']}|{v}", 0) + 1
        assert {key: n for key, n in gained.items() if n} == want
        beside = standard_profile_beside(tmp_path / "game.sqlite")
        assert std.path == beside and TableProfile.load(beside).sightings(f"any:d20|{value}") == 1
        assert not app.extensions["table_vision"].path.exists()  # the Dragon Dice profile: untouched
        # the next reading of that crop as a d20 (the profile the camera now reads standard dice with)
        # reads the tapped value, and offers it first where a die is left unread
        assert std.reading_model().profile is after
        m = after.read_any(emb[0], "d20", float(pc[0]))
        assert m.label is not None and m.label.count == value, m
        assert after.likely_values(emb[0], "d20")[0] == value
        # and the camera's next frame of a Battle Dice roll is read with that profile
        import companion.vision.numerals as numerals
        from web.play import camera_reading

        used = []

        def spy(image, slots, model, turn_check=None):
            used.append(model)
            return read_standard_roll(image, slots, model=model, turn_check=turn_check)

        monkeypatch.setattr(numerals, "read_standard_roll", spy)
        assert client.get("/api/state").json["pending"]["kind"] == "roll"
        with app.app_context():
            assert camera_reading(store, frame, standard_model=str(enrolled))["source"] == "camera"
        assert len(used) == 1 and used[0].profile is after

        _, logged = _logged(store)
        assert logged[unread]["face"] == str(value) and logged[unread]["source"] == "typed"
        assert all(logged[u]["source"] == "camera" and logged[u]["face"] == f for u, f in read.items())
        records = sorted((tmp_path / "corrections").glob("*.json"))
        assert len(records) == 1
        assert {"box": boxes[k], "kind": "d20", "value": value} in json.loads(records[0].read_text())["dice"]
    finally:
        store.close()


def test_a_shipped_standard_reader_learns_nothing(tmp_path):
    """Served with a shipped reader (no table profile): a confirmed, tapped roll teaches nothing and makes
    no profile file; the roll is in the game and the record is saved for ``companion vision enroll``."""
    app, client, pending = battle_dice_app(tmp_path, TOKEN, STANDARD_MODEL="polyhedral")
    store, std = app.extensions["game_store"], app.extensions["standard_vision"]
    try:
        frame, boxes, values = _standard_roll(pending, 4)
        uids = [d["uid"] for d in pending["dice"]]
        unread = uids[-1]
        _stage(
            store,
            pending,
            frame,
            boxes,
            {u: str(v) for u, v in zip(uids, values, strict=True) if u != unread},
            [unread],
        )
        r = client.post("/api/rolls/confirm", json={"faces": {unread: str(values[-1])}}, headers=HOST)
        assert r.status_code == 200 and r.json["learnt"] == 0, r.json
        assert std.profile() is None and not std.path.exists()
        assert len(list((tmp_path / "corrections").glob("*.json"))) == 1
    finally:
        store.close()
