"""A confirmed roll is logged as one ``DieReading`` per die beside its faces: the camera's reading (with
its confidence and box) for a die nobody touched, a typed one for a die a player tapped (the camera's box
kept), a smart die's reading with the die's id, and typed readings for faces typed on the page."""

from __future__ import annotations

from companion.readings import DieReading, Source, State, parse_reading
from firmware_bridge.protocol import DieState, RollState
from firmware_bridge.registry import DieRegistry
from firmware_bridge.rolls import reading_from


def _pending(client) -> dict:
    return client.get("/api/state").json["pending"]


def _logged(event: dict) -> list[DieReading]:
    return [parse_reading(r) for r in event["action"]["readings"]]


def test_a_camera_roll_with_one_tapped_die_logs_the_camera_readings_and_the_tap(client, game, host, app):
    from web.play import reading_from_faces

    store = app.extensions["game_store"]
    p = _pending(client)
    dice = p["dice"]
    readings = [
        DieReading(
            d["uid"],
            d["faces"][0],
            0.8,
            Source.CAMERA,
            name=d["die"],
            face_index=0,
            box=(10.0 + 40 * k, 20, 40.0 + 40 * k, 50),
        )
        for k, d in enumerate(dice)
    ]
    faces = {d["uid"]: d["faces"][0] for d in dice}
    with store.lock:
        store.set_reading(reading_from_faces(store, faces, "camera", readings=readings))
    staged = client.get("/api/state").json["reading"]
    assert set(staged["readings"]) == set(faces) and staged["readings"][dice[0]["uid"]]["confidence"] == 0.8
    tapped = dice[1]
    other = next(f for f in tapped["faces"] if f != tapped["faces"][0])
    assert (
        client.post("/api/corrections", json={"uid": tapped["uid"], "face": other}, headers=host).status_code
        == 200
    )
    r = client.post("/api/rolls/confirm", json={}, headers=host)
    assert r.status_code == 200, r.json
    logged = _logged(r.json["events"][0])
    assert [x.die for x in logged] == [d["uid"] for d in dice]
    assert [x.face for x in logged] == r.json["events"][0]["action"]["faces"]
    by_die = {x.die: x for x in logged}
    assert by_die[tapped["uid"]].source is Source.TYPED and by_die[tapped["uid"]].face == other
    assert by_die[tapped["uid"]].box == readings[1].box  # the camera's picture of the die goes with the tap
    untouched = [x for x in logged if x.die != tapped["uid"]]
    assert all(x.source is Source.CAMERA and x.confidence == 0.8 for x in untouched)


def test_faces_typed_on_the_page_are_logged_as_typed_readings(client, game, host):
    p = _pending(client)
    faces = {d["uid"]: d["faces"][-1] for d in p["dice"]}
    r = client.post("/api/rolls", json={"faces": faces}, headers=host)
    assert r.status_code == 200, r.json
    logged = _logged(r.json["events"][0])
    assert {x.die: x.face for x in logged} == faces
    assert all(x.source is Source.TYPED and x.confidence == 1.0 and x.state is State.READ for x in logged)


def test_a_smart_die_roll_is_logged_with_the_die_id(client, game, host, app):
    from web.play import serial_reading

    store = app.extensions["game_store"]
    dice = _pending(client)["dice"]
    registry = DieRegistry()
    registry.register_catalogue("pxA7F3", dice[0]["die"])
    reading = reading_from(DieState(seq=4, die_id="pxA7F3", state=RollState.ROLLED, face_index=2), registry)
    serial_reading(store, reading)
    staged = client.get("/api/state").json["reading"]
    [(uid, kept)] = staged["readings"].items()
    assert kept["device"] == "pxA7F3" and kept["source"] == "serial" and uid == dice[0]["uid"]
    for d in dice[1:]:  # the other dice are tapped
        assert (
            client.post(
                "/api/corrections", json={"uid": d["uid"], "face": d["faces"][0]}, headers=host
            ).status_code
            == 200
        )
    r = client.post("/api/rolls/confirm", json={}, headers=host)
    assert r.status_code == 200, r.json
    logged = _logged(r.json["events"][0])
    assert logged[0].source is Source.SMART_DIE and logged[0].device == "pxA7F3"
    assert logged[0].face == reading.meaning.face_text and logged[0].face_index == 2
    assert all(x.source is Source.TYPED for x in logged[1:])


def test_a_cocked_die_a_player_tapped_is_confirmed_as_typed_keeping_the_camera_box():
    from web.staged_roll import confirmed_readings, keyed_readings

    pending = {
        "dice": [
            {"uid": "u1", "die": "Dwarves/Thug", "faces": ["ID", "2 Melee"]},
            {"uid": "u2", "die": "Dwarves/Thug", "faces": ["ID", "2 Melee"]},
        ]
    }
    cocked = DieReading(
        "u1", None, 0.7, Source.CAMERA, State.COCKED, box=(1, 1, 9, 9), problem="cocked: reroll it"
    )
    read = DieReading("u2", "2 melee", 0.9, Source.CAMERA, box=(20, 1, 29, 9))
    staged = {
        "source": "camera",
        "faces": {"u2": "2 Melee"},
        "corrected": [],
        "readings": keyed_readings([cocked, read], {"u2": "2 Melee"}),
    }
    assert [r.die for r in confirmed_readings(staged, pending)] == ["u2"]  # the cocked die has no face yet
    assert staged["readings"]["u2"]["face"] == "2 Melee"  # written as the roll names the face
    staged["faces"]["u1"], staged["corrected"] = "ID", ["u1"]  # a player taps it
    first, second = confirmed_readings(staged, pending)
    assert (first.die, first.face, first.source, first.state, first.box) == (
        "u1",
        "ID",
        Source.TYPED,
        State.READ,
        (1.0, 1.0, 9.0, 9.0),
    )
    assert (second.source, second.confidence, second.face_index) == (Source.CAMERA, 0.9, None)
