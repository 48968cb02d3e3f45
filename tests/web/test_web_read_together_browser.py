"""Look-alike dice read together on the Roll panel (real waitress server, real Chromium): the camera was
sure of two dice's faces but not of which shows which, the game found the results the same either way
(``web.play.read_together``), so both are set, the page says they were read together, and Confirm logs
them as the camera's."""

from __future__ import annotations

import numpy as np
from test_web_browser import go, new_page, wait_confirmed
from test_web_read_together import _index, _read, _shared
from test_web_roll_taps_teach import _served_quick_game
from web_helpers import call_json

HOST = "t" * 32


def test_dice_read_together_are_set_and_said_so(browser, waitress_table, monkeypatch):
    import companion.vision.roll_reading as rr
    from web.play import camera_reading

    app, base, pending, names, store = _served_quick_game(waitress_table, HOST)
    a, b, x, y = _shared(pending)
    ways = [[_index(pending, a, x), _index(pending, b, y)], [_index(pending, a, y), _index(pending, b, x)]]
    group = {"slots": [a, b], "options": ways, "identity": 0.93}
    monkeypatch.setattr(rr, "read_roll", lambda frame, slots, model=None, **kw: _read(pending, group))
    with app.app_context():
        reading = camera_reading(store, np.full((120, 320, 3), 90, np.uint8))
    ua, ub = pending["dice"][a]["uid"], pending["dice"][b]["uid"]
    assert reading["together"][0]["dice"] == [ua, ub]

    page = new_page(browser, f"{base}/?token={HOST}")
    page.wait_for_selector("#role.host")
    go(page, "roll")
    page.wait_for_selector(f'.die[data-uid="{ua}"] .facebtn.on[data-face="{x}"]')
    page.wait_for_selector(f'.die[data-uid="{ub}"] .facebtn.on[data-face="{y}"]')
    note = page.text_content("#roll-together")
    for d in (pending["dice"][a], pending["dice"][b]):
        assert d["die"].split("/")[-1] in note
    assert "which shows which face was not told" in note and "the same either way" in note
    # the other dice wait for taps; tapped, the roll confirms with the two as the camera read them
    for d in pending["dice"]:
        if d["uid"] not in (ua, ub):
            page.click(f'.die[data-uid="{d["uid"]}"] .facebtn[data-face="{d["faces"][0]}"]')
    page.wait_for_selector("#confirm-roll:not([disabled])")
    seq = call_json(base, "GET", "/api/state")[1]["seq"]
    page.click("#confirm-roll")
    wait_confirmed(page, base, seq)
    with store.lock:
        event = [e for e in store.session.events() if e["action"].get("readings")][-1]
    logged = {r["die"]: r for r in event["action"]["readings"]}
    assert (logged[ua]["face"], logged[ub]["face"]) == (x, y)
    assert logged[ua]["source"] == logged[ub]["source"] == "camera"
    assert page.errors == []
