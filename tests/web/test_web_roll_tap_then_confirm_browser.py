"""A tap on a die the camera read, then Confirm at once (real waitress server, real Chromium): the
correction's answer is held back ~1 s by the page's network route, yet the confirmed roll has the tapped
face, never the camera's (Confirm waits for the taps still in flight); the die never moved."""

from __future__ import annotations

from test_web_browser import go, new_page, wait_confirmed
from test_web_roll_taps_teach import FACES, _render, _stage
from web_helpers import call_json

HOST = "r" * 32


def test_a_tap_made_before_confirm_is_in_the_confirmed_roll(browser, waitress_table):
    app, srv = waitress_table(HOST)
    base = srv.base_url
    assert call_json(base, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, HOST)[0] == 201
    pending = call_json(base, "GET", "/api/state")[1]["pending"]
    names = [d["die"] for d in pending["dice"]]
    store = app.extensions["game_store"]
    frame, boxes = _render(names, 3)
    read = {d["uid"]: d["faces"][FACES[i]] for i, d in enumerate(pending["dice"])}
    _stage(store, pending, frame, boxes, read, [])  # the camera read every die
    die = pending["dice"][0]
    uid, camera = die["uid"], read[die["uid"]]
    tapped = next(f for f in die["faces"] if f != camera)

    page = new_page(browser, f"{base}/?token={HOST}")
    page.wait_for_selector("#role.host")
    go(page, "roll")
    sel = f'.die[data-uid="{uid}"]'
    page.wait_for_selector(f'{sel} .facebtn.on[data-face="{camera}"]')
    page.wait_for_selector("#confirm-roll:not([disabled])")
    order = [e.get_attribute("data-uid") for e in page.query_selector_all("#view-roll .die")]

    held = []  # the correction's request, let through ~1 s after Confirm
    page.route("**/api/corrections", lambda route: held.append(route))
    seq = call_json(base, "GET", "/api/state")[1]["seq"]
    page.click(f'{sel} .facebtn[data-face="{tapped}"]')
    assert [
        e.get_attribute("data-uid") for e in page.query_selector_all("#view-roll .die")
    ] == order  # no move
    page.click("#confirm-roll")  # at once: the tap's answer has not come back
    page.wait_for_timeout(1000)
    assert len(held) == 1
    held[0].continue_()
    wait_confirmed(page, base, seq)

    with store.lock:
        event = [e for e in store.session.events() if e["action"].get("readings")][-1]
    logged = {r["die"]: r for r in event["action"]["readings"]}
    assert logged[uid]["face"] == tapped and logged[uid]["source"] == "typed"  # the tap, not the camera's
    others = {u: f for u, f in read.items() if u != uid}
    assert all(logged[u]["face"] == f and logged[u]["source"] == "camera" for u, f in others.items())
    assert page.errors == []
