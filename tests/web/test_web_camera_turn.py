"""The host turns the camera's picture at run time (``POST /api/camera/turn``, ``serve --turn`` without a
restart), and the Pairing page offers it when the turn check finds the frames the wrong way round.
Real waitress server and real Chromium for the page."""

from __future__ import annotations

import pytest
from test_web_browser import go, new_page, shot
from web_helpers import call_json

from companion.vision.camera_turn import MIN_DICE

HOST = "t" * 32


@pytest.fixture
def table(waitress_table):
    app, srv = waitress_table(HOST)
    return app, srv.base_url


def _camera(base: str) -> dict:
    return next(s for s in call_json(base, "GET", "/api/state")[1]["sources"] if s["kind"] == "camera")


def test_the_host_turns_the_camera_and_phone_pictures(table):
    app, base = table
    sources = app.extensions["sources"]
    status, body = call_json(base, "POST", "/api/camera/turn", {"turn": 90}, HOST)
    assert status == 200 and body["turn"] == 90
    assert sources.camera.turn.turn == 90 and sources.phone.turn.turn == 90
    assert _camera(base)["turn"] == 90


@pytest.mark.parametrize(
    ("body", "status", "needle"),
    [({"turn": 45}, 400, "turn"), ({}, 400, "turn"), ({"turn": "90"}, 400, "turn")],
)
def test_a_bad_turn_is_refused_naming_the_field_and_changes_nothing(table, body, status, needle):
    app, base = table
    code, answer = call_json(base, "POST", "/api/camera/turn", body, HOST)
    assert code == status and needle in str(answer)
    assert app.extensions["sources"].camera.turn.turn == 0


def test_only_the_host_turns_the_camera(table):
    app, base = table
    code, _ = call_json(base, "POST", "/api/camera/turn", {"turn": 180})
    assert code in (401, 403)
    assert app.extensions["sources"].camera.turn.turn == 0


def test_the_pairing_page_offers_the_turn_the_check_names(browser, table):
    app, base = table
    assert call_json(base, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, HOST)[0] == 201
    camera = app.extensions["sources"].camera
    camera.turn.check.add([[0.1, 0.1, 0.1, 0.9]] * MIN_DICE)  # the standard dice read surest turned 270 more
    assert _camera(base)["turn_suggested"] == 270
    page = new_page(browser, f"{base}/?token={HOST}")
    page.wait_for_selector("#role.host")
    page.wait_for_selector("#src-camera.bad")
    assert "turned?" in page.inner_text("#src-camera")
    go(page, "host")
    page.wait_for_selector("#camera-turn")
    assert "270" in page.inner_text("#camera-turn")
    shot(page, "camera-turn")
    page.click("#camera-turn")
    for _ in range(100):
        if camera.turn.turn == 270:
            break
        page.wait_for_timeout(100)
    assert camera.turn.turn == 270 and app.extensions["sources"].phone.turn.turn == 270
    assert "turn_advice" not in _camera(base)  # a new turn: the check starts again
    assert page.errors == []


def test_a_dragon_dice_roll_seen_upside_down_feeds_the_check_and_no_face_is_trusted(client, host, app):
    """The camera path of a Dragon Dice roll: the dice found feed the source's turn check through the
    turn-up network; once it names a turn, a face read from those frames is not kept (cocked is)."""
    import numpy as np

    from companion.vision.camera_turn import TurnCheck, turn_image
    from companion.vision.synth import art
    from companion.vision.synth.real_dice import render_table
    from web.play import camera_reading, check_dragon_dice_turn

    assert (
        client.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True}, headers=host).status_code
        == 201
    )
    pending = client.get("/api/state").json["pending"]
    species = {d["die"].split("/", 1)[0] for d in pending["dice"]}
    families = dict.fromkeys(species, art.FRESH_TEST_FAMILIES[1])
    frame, _ = render_table(families, [(d["die"], 0) for d in pending["dice"]], np.random.default_rng(5))
    store = app.extensions["game_store"]
    upright, flipped = TurnCheck(min_dice=1), TurnCheck(min_dice=1)
    with app.app_context():
        straight = camera_reading(store, frame, turn_check=upright)
        turned = camera_reading(store, turn_image(frame, 180), turn_check=flipped)
    assert upright.dice >= 3 and flipped.dice >= 3
    assert upright.needed() == 0 and flipped.needed() == 180
    # the staged reading says so: its crops must not teach the table (web.table_profile.learn_confirmed_roll)
    assert "turned" not in straight and turned["turned"] == 180

    class Found:  # what read_roll returns beside its units: the dice found (none more here)
        xyxy = np.zeros((0, 4))

        def __len__(self):
            return 0

    read = {
        "units": [
            {
                "slot": 0,
                "face_index": 2,
                "face": "2 Melee",
                "cocked": False,
                "alternatives": [{"face_index": 1}],
            },
            {"slot": 1, "face_index": None, "face": None, "cocked": True},
        ],
        "detections": Found(),
    }
    check_dragon_dice_turn(read, frame, flipped)
    assert read["units"][0]["face_index"] is None and read["units"][0]["face"] is None
    assert "alternatives" not in read["units"][0] and read["units"][1]["cocked"] is True
    kept = {
        "units": [{"slot": 0, "face_index": 2, "face": "2 Melee", "cocked": False}],
        "detections": Found(),
    }
    check_dragon_dice_turn(kept, frame, upright)
    assert kept["units"][0]["face_index"] == 2  # the right way up: nothing withheld
