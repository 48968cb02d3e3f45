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
