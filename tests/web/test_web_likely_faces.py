"""A die the camera could not read offers the faces nearest what it saw (``DieReading.likely``) on the
Roll panel: marked on its face buttons, never set.  The die stays unread (Confirm stays off) until a
player taps; the tap is the player's.  Real waitress server, real Chromium."""

from __future__ import annotations

import pytest
from test_web_browser import go, new_page, shot
from web_helpers import call_json

from companion.readings import DieReading, Source, State

HOST = "h" * 32


@pytest.fixture
def table(waitress_table):
    app, srv = waitress_table(HOST)
    return app, srv.base_url


def _stage_camera_roll(app, pending: dict, unread: dict) -> dict:
    """A camera reading of the pending roll: every die read on its first face but ``unread``'s, left
    unreadable with its ``likely`` faces."""
    from web.play import reading_from_faces

    store = app.extensions["game_store"]
    readings, faces = [], {}
    for k, d in enumerate(pending["dice"]):
        box = (10.0 + 40 * k, 20, 40.0 + 40 * k, 50)
        if d["uid"] == unread["uid"]:
            readings.append(
                DieReading(
                    d["uid"],
                    None,
                    0.2,
                    Source.CAMERA,
                    State.UNREADABLE,
                    name=d["die"],
                    box=box,
                    problem="face not read: tap it",
                    likely=tuple(unread["likely"]),
                )
            )
            continue
        faces[d["uid"]] = d["faces"][0]
        readings.append(
            DieReading(d["uid"], d["faces"][0], 0.9, Source.CAMERA, name=d["die"], face_index=0, box=box)
        )
    with store.lock:
        store.set_reading(reading_from_faces(store, faces, "camera", readings=readings))
    return faces


def test_an_unread_die_marks_its_likely_faces_and_waits_for_the_tap(browser, table):
    app, base = table
    assert call_json(base, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, HOST)[0] == 201
    pending = call_json(base, "GET", "/api/state")[1]["pending"]
    die = [d for d in pending["dice"] if len(set(d["faces"])) >= 3][-1]  # not the roster's first die
    assert die["uid"] != pending["dice"][0]["uid"]
    distinct = list(dict.fromkeys(die["faces"]))
    likely = [distinct[2], distinct[1]]  # nearest first; not the faces the other dice were read on
    faces = _stage_camera_roll(app, pending, {"uid": die["uid"], "likely": likely})
    staged = call_json(base, "GET", "/api/state")[1]["reading"]
    assert staged["readings"][die["uid"]]["likely"] == likely and die["uid"] not in staged["faces"]

    page = new_page(browser, f"{base}/?token={HOST}")
    page.wait_for_selector("#role.host")
    go(page, "roll")
    sel = f'.die[data-uid="{die["uid"]}"]'
    # the unread die comes first, the read ones after it in the roster's order
    order = [e.get_attribute("data-uid") for e in page.query_selector_all("#view-roll .die")]
    assert order == [die["uid"]] + [d["uid"] for d in pending["dice"] if d["uid"] != die["uid"]]
    page.wait_for_selector(f"{sel} .facebtn.likely")
    marked = page.eval_on_selector_all(f"{sel} .facebtn.likely", "els => els.map(e => e.dataset.face)")
    assert sorted(marked) == sorted(likely)
    assert (
        page.eval_on_selector_all(f"{sel} .facebtn.nearest", "els => els.map(e => e.dataset.face)")
        == likely[:1]
    )
    assert page.locator(f"{sel} .facebtn.on").count() == 0  # marked, not set
    assert f"nearest known: {likely[0]}, {likely[1]}" in page.inner_text(f"{sel} .likelynote")
    shot(page, "roll-likely-faces")
    assert "the nearest" in page.get_attribute(f'{sel} .facebtn[data-face="{likely[0]}"]', "title")
    # dice the camera read carry no such mark
    for d in pending["dice"]:
        if d["uid"] != die["uid"]:
            assert page.locator(f'.die[data-uid="{d["uid"]}"] .facebtn.likely').count() == 0
    assert page.is_disabled("#confirm-roll")  # the unread die has no face yet
    # the player taps the second likely face: it is set, the marks go, the roll can be confirmed
    page.click(f'{sel} .facebtn[data-face="{likely[1]}"]')
    page.wait_for_selector(f'{sel} .facebtn.on[data-face="{likely[1]}"]')
    assert page.locator(f"{sel} .facebtn.likely").count() == 0
    assert page.locator(f"{sel} .likelynote").count() == 0
    assert (
        page.query_selector("#view-roll .die").get_attribute("data-uid") == die["uid"]
    )  # the tap moved nothing
    page.wait_for_selector("#confirm-roll:not([disabled])")
    page.click("#confirm-roll")
    for _ in range(300):
        st = call_json(base, "GET", "/api/state")[1]
        if st["last_roll"]:
            break
        page.wait_for_timeout(100)
    got = {f["uid"]: f["faces"] for f in st["last_roll"]["faces"]}
    assert got[die["uid"]] == [likely[1]]  # the face the player tapped, not the nearest one
    assert all(got[u] == [f] for u, f in faces.items())  # the dice the camera read, as read
    assert page.errors == []
