"""A tap on a die the camera read, then Confirm at once (real waitress server, real Chromium): the
correction's answer is held back ~1 s by the page's network route, yet the confirmed roll has the tapped
face, never the camera's (Confirm waits for the taps still in flight); the die never moved."""

from __future__ import annotations

from test_web_browser import go, new_page, wait_confirmed
from test_web_roll_taps_teach import FACES, _render, _served_quick_game, _stage
from web_helpers import call_json

HOST = "r" * 32


def test_a_tap_made_before_confirm_is_in_the_confirmed_roll(browser, waitress_table):
    app, base, pending, names, store = _served_quick_game(waitress_table, HOST)
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


def _camera_roll(app, base):
    """A quick-start game whose first roll the camera read whole: ``(store, pending, read faces)``."""
    assert call_json(base, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, HOST)[0] == 201
    pending = call_json(base, "GET", "/api/state")[1]["pending"]
    store = app.extensions["game_store"]
    frame, boxes = _render([d["die"] for d in pending["dice"]], 3)
    read = {d["uid"]: d["faces"][FACES[i]] for i, d in enumerate(pending["dice"])}
    _stage(store, pending, frame, boxes, read, [])
    return store, pending, read


def _rolls_logged(store) -> int:
    with store.lock:
        return sum(1 for e in store.session.events() if e["action"].get("readings"))


def test_a_double_click_on_confirm_sends_one_confirm(browser, waitress_table):
    """The first confirm's answer is held ~0.5 s: the second click of a double click sends nothing (no
    second request to be refused, no error shown), and one roll goes in."""
    app, srv = waitress_table(HOST)
    base = srv.base_url
    store, _, _ = _camera_roll(app, base)
    page = new_page(browser, f"{base}/?token={HOST}")
    page.wait_for_selector("#role.host")
    go(page, "roll")
    page.wait_for_selector("#confirm-roll:not([disabled])")
    held = []
    page.route("**/api/rolls/confirm", lambda route: held.append(route))
    seq, rolls = call_json(base, "GET", "/api/state")[1]["seq"], _rolls_logged(store)
    page.dblclick("#confirm-roll")
    page.wait_for_timeout(500)
    assert len(held) == 1, f"{len(held)} confirms sent by one double click"
    held[0].continue_()
    wait_confirmed(page, base, seq)
    page.wait_for_timeout(500)
    assert len(held) == 1 and _rolls_logged(store) == rolls + 1
    assert page.is_hidden("#toast") or "changed" not in page.inner_text("#toast")
    assert page.errors == []


def test_a_tablet_confirming_a_reading_another_tablet_changed_is_refused_and_shows_it(
    browser, waitress_table
):
    """Two tablets on one camera roll.  Tablet A presses Confirm (its request held in the network); tablet
    B taps a die; A's confirm then reaches the server naming the reading A saw, and is refused by name:
    the roll is not in the game, A shows B's tap, and A's next Confirm puts the roll in with it."""
    app, srv = waitress_table(HOST)
    base = srv.base_url
    store, pending, read = _camera_roll(app, base)
    die = pending["dice"][1]
    uid, tapped = die["uid"], next(f for f in die["faces"] if f != read[die["uid"]])
    sel = f'.die[data-uid="{uid}"]'
    pages = []
    for _ in range(2):
        page = new_page(browser, f"{base}/?token={HOST}")
        page.wait_for_selector("#role.host")
        go(page, "roll")
        page.wait_for_selector(f'{sel} .facebtn.on[data-face="{read[uid]}"]')
        pages.append(page)
    a, b = pages
    held = []  # A's first confirm, let through once B has tapped; later ones go at once
    a.route("**/api/rolls/confirm", lambda route: route.continue_() if held else held.append(route))
    seq = call_json(base, "GET", "/api/state")[1]["seq"]
    a.click("#confirm-roll")
    a.wait_for_timeout(300)
    assert len(held) == 1
    b.click(f'{sel} .facebtn[data-face="{tapped}"]')  # B's tap reaches the server first
    for _ in range(100):
        if call_json(base, "GET", "/api/state")[1]["reading"]["faces"][uid] == tapped:
            break
        b.wait_for_timeout(100)
    else:
        raise AssertionError("tablet B's tap did not reach the server")
    held[0].continue_()
    a.wait_for_selector("#toast:not([hidden])")
    assert "changed since this tablet saw it" in a.inner_text("#toast")
    assert call_json(base, "GET", "/api/state")[1]["seq"] == seq  # not in the game
    a.wait_for_selector(f'{sel} .facebtn.on[data-face="{tapped}"]')  # A now shows B's tap
    a.wait_for_selector("#confirm-roll:not([disabled])")
    a.click("#confirm-roll")
    wait_confirmed(a, base, seq)
    with store.lock:
        event = [e for e in store.session.events() if e["action"].get("readings")][-1]
    logged = {r["die"]: r for r in event["action"]["readings"]}
    assert logged[uid]["face"] == tapped and logged[uid]["source"] == "typed"
    assert a.errors == [] and b.errors == []
