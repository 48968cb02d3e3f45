"""Issue 20 part 3 in Chromium: on the Roll panel a player taps a marked face of the die the camera could
not read, then Confirm; the table profile learns the crop (seen through the API: the die's faces the
table knows), the die never moved under the finger, and the log keeps the camera
as the origin of the dice it read.  Real waitress server, real Chromium, the real embedding network;
the camera's reading is staged on the rendered dice's boxes (``test_web_roll_taps_teach``)."""

from __future__ import annotations

import pytest
from test_web_browser import go, new_page, roll_with_marks, shot, wait_confirmed
from test_web_roll_taps_teach import FACES, GATE, UNREAD, _render, _served_quick_game, _stage
from web_helpers import call_json

HOST = "t" * 32


@pytest.fixture(scope="module")
def catalogue():
    from companion.rules.catalogue import load_catalogue

    return load_catalogue()


def test_a_tapped_marked_face_teaches_the_table_on_confirm(browser, waitress_table, catalogue):
    from companion.vision.profile import face_label

    app, base, pending, names, store = _served_quick_game(waitress_table, HOST)
    vision = app.extensions["table_vision"]
    for seed in (1, 2):  # earlier looks taught the faces of the three dice the camera reads
        frame, boxes = _render(names, seed)
        vision.learn(
            frame,
            [
                (b, face_label(catalogue.get(n), FACES[i]))
                for i, (n, b) in enumerate(zip(names, boxes, strict=True))
                if i != UNREAD
            ],
        )
    vision.profile().settings.update(GATE)
    frame, boxes = _render(names, 3)
    die = pending["dice"][UNREAD]
    uid, truth = die["uid"], die["faces"][FACES[UNREAD]]
    other = next(f for f in die["faces"] if f != truth and "ID" not in f)
    likely = [other, truth]  # the marks: nearest first; the die's own face is the second
    read = {d["uid"]: d["faces"][FACES[i]] for i, d in enumerate(pending["dice"]) if i != UNREAD}
    _stage(store, pending, frame, boxes, read, [uid], likely={uid: likely})

    def known():
        got = call_json(base, "GET", f"/api/teach?dice={die['die']}", token=HOST)[1]
        return got["roster"]["dice"][0]["known"]

    assert known() == 0  # the table knows none of this die's faces

    page, sel, order = roll_with_marks(browser, f"{base}/?token={HOST}", uid)
    assert page.is_disabled("#confirm-roll")
    # the player taps the second mark (the die's face): a correction of the camera's reading
    page.click(f'{sel} .facebtn.likely[data-face="{truth}"]')
    page.wait_for_selector(f'{sel} .facebtn.on[data-face="{truth}"]')
    page.wait_for_selector(f'#roll-frame .box.fixed[data-uid="{uid}"]')  # its box on the frame: fixed
    assert [
        e.get_attribute("data-uid") for e in page.query_selector_all("#view-roll .die")
    ] == order  # no move
    staged = call_json(base, "GET", "/api/state")[1]["reading"]
    assert staged["faces"][uid] == truth and staged["corrected"] == [uid]  # the server has the tap already
    assert all(staged["faces"][u] == f for u, f in read.items())  # the camera's faces as read
    shot(page, "roll-tap-teaches")
    page.wait_for_selector("#confirm-roll:not([disabled])")
    seq = call_json(base, "GET", "/api/state")[1]["seq"]
    page.click("#confirm-roll")
    wait_confirmed(page, base, seq)

    # through the API: the die's tapped face is now known to the table (it knew none before the roll);
    # the lesson follows the roll into the game (the confirm's answer waits for it, the state does not)
    for _ in range(300):
        if known():
            break
        page.wait_for_timeout(100)
    assert known() == 1
    teach = call_json(base, "GET", "/api/teach", token=HOST)[1]
    assert teach["profile"]["exists"] is True
    assert vision.profile().sightings(face_label(catalogue.get(die["die"]), FACES[UNREAD]).key()) == 1
    # the log: the camera's dice as the camera's, the tapped one as the player's (its box kept)
    with store.lock:
        event = [e for e in store.session.events() if e["action"].get("readings")][-1]
    logged = {r["die"]: r for r in event["action"]["readings"]}
    assert logged[uid]["source"] == "typed" and logged[uid]["face"] == truth
    assert logged[uid]["box"] == boxes[UNREAD]
    assert all(logged[u]["source"] == "camera" and logged[u]["face"] == f for u, f in read.items())
    assert page.errors == []


def test_a_roll_read_from_a_turned_frame_says_so_on_the_roll_panel(browser, waitress_table, catalogue):
    """The staged reading of a frame the turn check found turned (``turned``): the Roll panel says its
    faces were not kept and that the roll will not teach the camera; an upright reading says nothing."""
    app, base, pending, names, store = _served_quick_game(waitress_table, HOST)
    frame, boxes = _render(names, 3)
    _stage(store, pending, frame, boxes, {}, [d["uid"] for d in pending["dice"]])
    page = new_page(browser, f"{base}/?token={HOST}")
    page.wait_for_selector("#role.host")
    go(page, "roll")
    page.wait_for_selector("#view-roll .die")
    assert page.query_selector("#roll-turned") is None
    with store.lock:
        store.set_reading({**store.reading, "turned": 180})  # told to the pages as a "reading" notice
    page.wait_for_selector("#roll-turned")
    text = page.inner_text("#roll-turned")
    assert "seems turned" in text and "will not teach" in text and "Pairing" in text
    shot(page, "roll-turned")
