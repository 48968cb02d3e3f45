"""The "Teach the camera your dice" page in real Chromium, on a real ``companion serve``.

The server's ``--camera`` is a video of a rendered table of a TEST art family (never trained on);
the page finds the dice (Look), the test taps the face each die really shows, and the known-face
count goes up.  Screenshots: ``artifacts/screenshots/teach-*.png`` and ``docs/screenshots/teach.png``.
"""

from __future__ import annotations

import json
import shutil
import time
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.vision.synth.art import TEST_FAMILIES
from companion.vision.synth.real_dice import render_table

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
FAMILY = {"Dwarves": TEST_FAMILIES[1], "Goblins": TEST_FAMILIES[2], "Dragons": TEST_FAMILIES[3]}
HOST_TOKEN = "test-host-token-0123456789"  # the token the web fixtures serve with (tests/web/conftest.py)
HOST = {"X-Companion-Token": HOST_TOKEN, "Content-Type": "application/json"}


def _call(url, method="GET", body=None):
    req = urllib.request.Request(
        url, method=method, headers=HOST, data=None if body is None else json.dumps(body).encode()
    )
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())


def _iou(a, b) -> float:
    x1, y1, x2, y2 = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    inter = max(0.0, x2 - x1) * max(0.0, y2 - y1)
    area = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / area if area > 0 else 0.0


@pytest.fixture(scope="module")
def army():
    return ["Dwarves/Warlord", "Dwarves/Patroller", "Dwarves/Crossbowman", "Dwarves/Lizard Rider"]


@pytest.fixture
def table(tmp_path, serve, army):
    """A served game whose camera is a video of the army's dice (faces 1, 2, 0, 1) on a table."""
    from companion.rules.catalogue import load_catalogue

    cat = load_catalogue()
    faces = [1, 2, 0, 1]
    frame, labels = render_table(
        FAMILY, list(zip(army, faces, strict=True)), np.random.default_rng(4), width=1280, height=960
    )
    video = tmp_path / "table.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (1280, 960))
    for _ in range(5):
        out.write(frame)
    out.release()
    server = serve(extra=("--camera", str(video)))
    _call(f"{server.url}/api/games", "POST", {"players": ["Ann", "Bob"], "quick": True})
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # the camera has sent its first frame
        try:
            with urllib.request.urlopen(f"{server.url}/api/frame.jpg", timeout=10) as r:
                if r.status == 200:
                    break
        except OSError:
            pass
        time.sleep(0.3)
    truth = [dict(lab, face=cat.get(lab["die"]).faces[lab["face_index"]].text()) for lab in labels]
    return server, truth


def _until(page, selector: str, pred, timeout: float = 30.0) -> str:
    """Poll until the element's text satisfies pred (the page's CSP forbids wait_for_function)."""
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        el = page.query_selector(selector)
        text = el.inner_text() if el is not None else ""
        if pred(text):
            return text
        page.wait_for_timeout(100)
    raise AssertionError(f"{selector}: {text!r}")


def _host_teach_page(browser, server, width: int, height: int):
    """The host's /teach page open and loaded: (context, page, the page's script errors as they come)."""
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server.url}/teach?token={HOST_TOKEN}")
    _until(page, "#role", lambda s: s == "host")
    _until(page, "#army-known", lambda s: " faces known" in s)
    return ctx, page, errors


def _known(page) -> int:
    return int(page.inner_text("#army-known").split(" of ")[0])


def _tap_truth(page, truth, taps: int) -> int:
    """Tap the true face of up to ``taps`` dice found (matched by box); returns how many were tapped."""
    done = 0
    indices = [c.get_attribute("data-index") for c in page.query_selector_all("article.die")]
    for idx in indices:  # the page draws the cards anew after each tap: look each one up again
        if done >= taps:
            break
        card = page.query_selector(f"article.die[data-index='{idx}']")
        box = [float(v) for v in card.get_attribute("data-box").split(",")]
        best = max(truth, key=lambda t: _iou(box, t["box"]))
        if _iou(box, best["box"]) < 0.5 or card.query_selector("button.picked"):
            continue
        before = _known(page)
        button = card.query_selector(f"button[data-die='{best['die']}'][data-face='{best['face']}']")
        assert button is not None, (best, card.inner_text())
        height = button.bounding_box()["height"]
        assert height >= 48, height  # a finger-sized target
        button.click()
        deadline = time.monotonic() + 30
        while (
            page.query_selector(f"article.die[data-index='{idx}'] button.picked") is None
        ):  # the answer is drawn
            assert time.monotonic() < deadline, page.inner_text("#message")
            page.wait_for_timeout(100)
        assert page.inner_text("#message").startswith("Learnt: ")
        card = page.query_selector(f"article.die[data-index='{idx}']")
        assert card.query_selector("button[data-face]:not([disabled])") is None  # taught once per look
        assert card.query_selector("button.picked").get_attribute("data-face") == best["face"]
        assert _known(page) >= before
        done += 1
    return done


@pytest.mark.parametrize("width, height", [(390, 844), (1024, 768)])
def test_teach_page_taps_faces_and_the_known_count_goes_up(browser, table, army, width, height):
    server, truth = table
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx = browser.new_context(viewport={"width": width, "height": height})
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # the main page links to it
    page.goto(f"{server.url}/?token={HOST_TOKEN}")
    page.wait_for_selector(".rail a[href='/teach']")
    page.click(".rail a[href='/teach']")
    page.wait_for_url(f"{server.url}/teach")
    page.wait_for_selector("#army option", state="attached")
    assert page.inner_text("#role") == "host"
    assert page.input_value("#army") == "0:home"  # Ann's home army: the dice on the table
    _until(page, "#army-known", lambda s: " faces known" in s)
    start = _known(page)
    total = int(page.inner_text("#army-known").split(" of ")[1].split()[0])
    assert start == 0 and total > 0
    page.click("#look")
    page.wait_for_selector("article.die")
    cards = page.query_selector_all("article.die")
    assert len(cards) >= len(army) - 1
    assert "unread" in cards[0].get_attribute("class")  # nothing learnt yet: unread, never a guess
    # a wrong face tapped by mistake is taken back
    first = cards[0].get_attribute("data-index")
    box = [float(v) for v in cards[0].get_attribute("data-box").split(",")]
    right = max(truth, key=lambda t: _iou(box, t["box"]))
    wrong = next(
        b
        for b in cards[0].query_selector_all("button[data-face]")
        if (b.get_attribute("data-die"), b.get_attribute("data-face")) != (right["die"], right["face"])
    )
    wrong.click()
    page.wait_for_selector(f"article.die[data-index='{first}'] button.undo")
    page.click(f"article.die[data-index='{first}'] button.undo")
    _until(page, "#message", lambda s: s.startswith("Taken back."))
    assert _known(page) == start
    assert page.query_selector(f"article.die[data-index='{first}'] button.picked") is None
    tapped = _tap_truth(page, truth, 3)
    assert tapped >= 2
    now = _known(page)
    assert now >= start + tapped - 1 and now > start
    per_die = page.inner_text("#per-die")
    assert all(name.split("/")[1] in per_die for name in army)
    # looking again: a die taught is now read, and the counts stay
    page.click("#look")
    _until(page, "#message", lambda s: "dice found" in s)
    reads = [c.inner_text() for c in page.query_selector_all("article.die .reads")]
    assert any(r.startswith("reads ") for r in reads), reads
    assert _known(page) == now
    page.screenshot(path=str(SHOTS / f"teach-{width}x{height}.png"), full_page=width > 500)
    if width == 1024:
        (ROOT / "docs" / "screenshots").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SHOTS / f"teach-{width}x{height}.png", ROOT / "docs" / "screenshots" / "teach.png")
    assert not errors, errors
    ctx.close()


def test_a_viewer_sees_the_page_read_only(browser, table):
    server, _ = table
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    page.goto(f"{server.url}/teach")
    _until(page, "#role", lambda s: s == "read-only")
    assert page.is_disabled("#look")
    assert page.is_visible("#readonly")
    _until(page, "#army-known", lambda s: " faces known" in s)
    ctx.close()


def test_without_a_game_dice_are_chosen_from_the_catalogue(browser, serve):
    server = serve()  # no game, no camera
    ctx = browser.new_context(viewport={"width": 390, "height": 844})
    page = ctx.new_page()
    page.goto(f"{server.url}/teach?token={HOST_TOKEN}")
    _until(page, "#role", lambda s: s == "host")
    assert page.input_value("#army") == "custom" and page.is_visible("#search")
    page.fill("#search", "Sergeant")
    page.wait_for_selector("#hits button")
    page.click("#hits button:has-text('Dwarves/Sergeant')")
    page.wait_for_selector("#chosen button")
    text = _until(page, "#army-known", lambda s: " faces known" in s)
    assert text.startswith("0 of ") and int(text.split(" of ")[1].split()[0]) > 0
    assert "Sergeant" in page.inner_text("#per-die")
    page.click("#look")  # no camera and no phone: the page says what to do
    msg = _until(page, "#message", lambda s: "no camera frame" in s)
    assert "/phone" in msg
    page.screenshot(path=str(SHOTS / "teach-catalogue-390x844.png"))
    ctx.close()


def _marks(card) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(die, face) of a card's buttons marked likely, and of those marked nearest."""

    def pairs(sel):
        return [
            (b.get_attribute("data-die"), b.get_attribute("data-face")) for b in card.query_selector_all(sel)
        ]

    return pairs("button.likely"), pairs("button.likely.nearest")


def test_an_unread_die_marks_its_nearest_known_faces_and_a_tap_teaches_the_face_tapped(browser, table):
    """Some dice taught, Look again: a die left unread marks the known faces nearest what the camera saw
    (solid: the nearest; dashed: the second) and says so; nothing is picked for it, and a tap teaches the
    face tapped -- a marked one that is not the nearest, taken back, then the die's true face."""
    server, truth = table
    SHOTS.mkdir(parents=True, exist_ok=True)
    ctx, page, errors = _host_teach_page(browser, server, 1024, 768)
    page.click("#look")
    page.wait_for_selector("article.die")
    assert page.query_selector("button.likely") is None  # nothing known yet: nothing is near
    assert _tap_truth(page, truth, 2) == 2
    page.click("#look")
    _until(page, "#message", lambda s: "dice found" in s and "unread" in s)
    cards = page.query_selector_all("article.die")
    marked = [c for c in cards if c.query_selector("button.likely") is not None]
    assert marked, [c.inner_text() for c in cards]
    for card in cards:  # only a die left unread carries marks
        if card.query_selector("button.likely") is not None:
            assert "unread" in card.get_attribute("class").split()
    card = marked[0]
    idx = card.get_attribute("data-index")
    likely, nearest = _marks(card)
    # the buttons keep the die's face order; which marked face is the nearest is the solid mark's
    marked_faces = list(dict.fromkeys(f for _, f in likely))
    solid = {f for _, f in nearest}
    assert 1 <= len(marked_faces) <= 2 and len(solid) == 1 and solid <= set(marked_faces)
    faces = [*solid, *(f for f in marked_faces if f not in solid)]  # nearest first
    assert all(f == faces[0] for _, f in nearest)  # the nearest known face is the solid one
    note = card.query_selector(".likelynote").inner_text()
    assert note.startswith("not read · nearest known: ")
    assert all(f in note for f in faces)
    assert len(faces) == 1 or note.index(faces[0]) < note.index(faces[1])  # nearest first
    assert card.query_selector("button.picked") is None  # marked, never picked
    assert card.inner_text().count("unread: tap its face") == 1
    for die, face in likely:  # a marked button is a known face, with its note in the title
        b = card.query_selector(f"button[data-die='{die}'][data-face='{face}']")
        assert "known" in b.get_attribute("class").split() and "face the camera knows" in b.get_attribute(
            "title"
        )
    card.screenshot(path=str(SHOTS / "teach-likely-faces.png"))  # the die's card, every option shown
    # tap a marked face that is not the nearest (or the nearest when only one is marked): that face is taught
    die, face = next(((d, f) for d, f in likely if f != faces[0]), likely[0])
    card.query_selector(f"button[data-die='{die}'][data-face='{face}']").click()
    page.wait_for_selector(f"article.die[data-index='{idx}'] button.picked")
    card = page.query_selector(f"article.die[data-index='{idx}']")
    assert [
        (b.get_attribute("data-die"), b.get_attribute("data-face"))
        for b in card.query_selector_all("button.picked")
    ] == [(die, face)]
    assert page.inner_text("#message").startswith(f"Learnt: {die.split('/')[1]} {face}.")
    assert card.query_selector("button.likely") is None and card.query_selector(".likelynote") is None
    # taken back: the marks are as they were
    page.click(f"article.die[data-index='{idx}'] button.undo")
    _until(page, "#message", lambda s: s.startswith("Taken back."))
    card = page.query_selector(f"article.die[data-index='{idx}']")
    assert _marks(card) == (likely, nearest) and card.query_selector("button.picked") is None
    # the die's true face, marked or not, is what a tap on it teaches
    box = [float(v) for v in card.get_attribute("data-box").split(",")]
    right = max(truth, key=lambda t: _iou(box, t["box"]))
    if _iou(box, right["box"]) >= 0.5:
        card.query_selector(f"button[data-die='{right['die']}'][data-face='{right['face']}']").click()
        page.wait_for_selector(f"article.die[data-index='{idx}'] button.picked")
        picked = page.query_selector(f"article.die[data-index='{idx}'] button.picked")
        assert (picked.get_attribute("data-die"), picked.get_attribute("data-face")) == (
            right["die"],
            right["face"],
        )
    assert not errors, errors
    ctx.close()


def test_a_look_through_a_turned_camera_holds_the_taps_until_the_player_says_the_camera_is_right(
    browser, serve, tmp_path, army
):
    """The camera films the table upside down: a Look says to turn the picture, a tap is refused and
    teaches nothing, and "the camera is right" lets the next tap teach."""
    from companion.rules.catalogue import load_catalogue
    from companion.vision.camera_turn import turn_image

    cat = load_catalogue()
    dice = [(n, k % 3) for k, n in enumerate(army * 3)][:9]  # the Dragon Dice turn check weighs 8 dice
    frame, labels = render_table(FAMILY, dice, np.random.default_rng(8), width=1280, height=960)
    video = tmp_path / "turned.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (1280, 960))
    for _ in range(5):
        out.write(turn_image(frame, 180))
    out.release()
    server = serve(extra=("--camera", str(video)))
    _call(f"{server.url}/api/games", "POST", {"players": ["Ann", "Bob"], "quick": True})
    truth = [
        dict(lab, face=cat.get(lab["die"]).faces[lab["face_index"]].text(), box=_turned_box(lab["box"]))
        for lab in labels
    ]
    ctx, page, errors = _host_teach_page(browser, server, 390, 844)
    deadline = time.monotonic() + 30
    while True:  # the camera's first frame may come after the page
        page.click("#look")
        msg = _until(page, "#message", lambda s: "dice found" in s or "no camera frame" in s)
        if "dice found" in msg or time.monotonic() > deadline:
            break
        page.wait_for_timeout(300)
    assert "dice found" in msg and "turn" in msg
    assert page.is_visible("#turned") and "180°" in page.inner_text("#turned-text")
    page.screenshot(path=str(SHOTS / "teach-turned-390x844.png"), full_page=True)
    card = page.query_selector("article.die")
    button = card.query_selector("button[data-face]")
    button.click()
    msg = _until(page, "#message", lambda s: "seem turned" in s)
    assert "180 degrees" in msg
    assert _known(page) == 0 and card.query_selector("button.picked") is None
    page.click("#anyway")
    assert not page.is_visible("#turned")
    assert _tap_truth(page, truth, 1) == 1
    assert _known(page) >= 1
    assert not errors, errors
    ctx.close()


def _turned_box(box, w=1280, h=960):
    """A box of the rendered frame as it lies in the frame turned 180 degrees."""
    x1, y1, x2, y2 = box
    return [w - x2, h - y2, w - x1, h - y1]
