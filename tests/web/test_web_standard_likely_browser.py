"""A Battle Dice roll on the Roll panel: a standard die the camera could not read marks the values the
table profile knows nearest (``DieReading.likely``: solid border the nearest, dashed the second, a
"nearest known" note), the same marks as a Dragon Die's; nothing is set from them, and a tap on the
second mark is the value that goes into the game.  Real waitress server, real Chromium; the frame is
a rendered roll of the game's dice, read through the real ``read_standard_roll`` with a stand-in
numeral bundle (``FakeModel``: every die read on the value drawn but the last d20, left unread with
another value nearest and its own value second)."""

from __future__ import annotations

import numpy as np
import pytest
from test_web_browser import roll_with_marks, shot, wait_confirmed
from test_web_standard_likely import FakeModel
from web_helpers import call_json

import companion.vision.numerals as numerals

pytestmark = [pytest.mark.browser, pytest.mark.slow]

HOST = "s" * 32


def _rendered_roll(pending: dict) -> tuple[np.ndarray, list[list[float]], list[int]]:
    """A frame of the roll's dice drawn from above, and each die's box and value (in the roll's order)."""
    from companion.vision.synth.numerals import random_die, render_standard_scene

    rng = np.random.default_rng(4)
    dice = [random_die(rng, d["die"]) for d in pending["dice"]]
    frame, drawn, _ = render_standard_scene(rng, dice, ppm=3.4, tilt_deg=0.0, clutter=False, photo=False)
    box_of = {id(d.die): [float(v) for v in d.box] for d in drawn}
    assert all(id(d) in box_of for d in dice), "a die of the roll was not drawn in the frame"
    return frame, [box_of[id(d)] for d in dice], [d.value for d in dice]


def test_an_unread_standard_die_marks_its_likely_values_and_the_tap_decides(
    browser, waitress_table, monkeypatch
):
    from web.play import camera_reading

    app, srv = waitress_table(HOST)
    base = srv.base_url
    body = {"players": ["Reds", "Blues"], "game": "battle_dice"}
    assert call_json(base, "POST", "/api/games", body, HOST)[0] == 201
    pending = call_json(base, "GET", "/api/state")[1]["pending"]
    frame, boxes, values = _rendered_roll(pending)
    k = max(i for i, d in enumerate(pending["dice"]) if d["die"] == "d20")  # the die left unread
    uid, drawn = pending["dice"][k]["uid"], values[k]
    likely = [str(drawn % 20 + 1), str(drawn)]  # a wrong value nearest, the die's own second
    model = FakeModel(pending["dice"], boxes, values, [int(v) for v in likely])
    monkeypatch.setattr(numerals, "load_numeral_model", lambda name: model)
    store = app.extensions["game_store"]
    reading = camera_reading(store, frame, standard_model="my-enrolled-dice")
    assert reading["readings"][uid]["likely"] == likely and uid not in reading["faces"]
    seq = call_json(base, "GET", "/api/state")[1]["seq"]

    page, sel, _ = roll_with_marks(browser, f"{base}/?token={HOST}", uid)
    marked = page.eval_on_selector_all(f"{sel} .facebtn.likely", "els => els.map(e => e.dataset.face)")
    assert sorted(marked) == sorted(likely)
    nearest = page.eval_on_selector_all(f"{sel} .facebtn.nearest", "els => els.map(e => e.dataset.face)")
    assert nearest == likely[:1]
    style = page.eval_on_selector_all(
        f"{sel} .facebtn.likely", "els => els.map(e => [e.dataset.face, getComputedStyle(e).borderTopStyle])"
    )
    assert dict(style) == {likely[0]: "solid", likely[1]: "dashed"}
    assert page.locator(f"{sel} .facebtn.on").count() == 0  # marked, not set
    assert f"nearest known: {likely[0]}, {likely[1]}" in page.inner_text(f"{sel} .likelynote")
    for d in pending["dice"]:  # the dice the camera read carry no mark
        if d["uid"] != uid:
            assert page.locator(f'.die[data-uid="{d["uid"]}"] .facebtn.likely').count() == 0
    # its box is on the frame, labelled as not read
    page.wait_for_selector(f'#roll-frame .box.unread[data-uid="{uid}"]')
    assert "not read" in page.inner_text(f'#roll-frame .box.unread[data-uid="{uid}"]')
    shot(page, "roll-likely-values")
    assert page.is_disabled("#confirm-roll")
    # the player taps the second mark: that value is set, the marks go, the roll can be confirmed
    page.click(f'{sel} .facebtn[data-face="{likely[1]}"]')
    page.wait_for_selector(f'{sel} .facebtn.on[data-face="{likely[1]}"]')
    assert page.locator(f"{sel} .facebtn.likely").count() == 0
    assert page.locator(f"{sel} .likelynote").count() == 0
    page.wait_for_selector("#confirm-roll:not([disabled])")
    page.click("#confirm-roll")
    wait_confirmed(page, base, seq)
    with store.lock:
        event = [e for e in store.session.events() if e["action"].get("readings")][-1]
    logged = {r["die"]: r["face"] for r in event["action"]["readings"]}
    assert logged[uid] == likely[1]  # the value the player tapped, not the nearest one
    assert all(
        logged[d["uid"]] == str(v) for d, v in zip(pending["dice"], values, strict=True) if d["uid"] != uid
    )
    assert page.errors == []
