"""The page read at a glance, in real headless Chromium against a real ``companion serve`` (or
``companion demo``) process, at a landscape tablet (1024x768), a portrait tablet (768x1024) and a
phone (390x844): every check measures the laid-out page (bounding boxes, heights, visibility).

Screenshots at the three sizes go to ``artifacts/screenshots/glance-*.png`` (git-ignored); a few
are kept in ``docs/screenshots/``.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from web_helpers import first_answer, on_redrawn_element, request_json

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SIZES = {
    "tablet": {"width": 1024, "height": 768},
    "portrait": {"width": 768, "height": 1024},
    "phone": {"width": 390, "height": 844},
}
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"
HOST_TOKEN = "test-host-token-0123456789"


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"glance-{name}.png"))


def api(url: str, method: str, path: str, body=None, token: str | None = HOST_TOKEN) -> dict:
    return request_json(url, method, path, body, token, timeout=20)


def state(url: str) -> dict:
    return api(url, "GET", "/api/state")


def open_page(browser, url: str, size: str, path: str = "/table"):
    ctx = browser.new_context(viewport=SIZES[size])
    ctx.set_default_timeout(90_000)
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(f"{url}{path}?token={HOST_TOKEN}" if "?" not in path else f"{url}{path}")
    page.wait_for_selector("#role.host")
    return page


def box(page, selector: str) -> dict:
    """The element's box (looked up again if a re-render replaced the node under us)."""
    for _ in range(20):
        b = page.locator(selector).first.bounding_box()
        if b is not None:
            return b
        time.sleep(0.05)
    raise AssertionError(f"{selector} is not laid out")


def in_view(page, selector: str) -> dict:
    """The element is visible and wholly inside the viewport; returns its box."""
    loc = page.locator(selector).first
    assert loc.is_visible(), f"{selector} is not visible"
    b = box(page, selector)
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    assert (
        b["x"] >= -0.5
        and b["y"] >= -0.5
        and b["x"] + b["width"] <= vw + 0.5
        and b["y"] + b["height"] <= vh + 0.5
    ), f"{selector} at {b} is not inside the {vw}x{vh} viewport"
    return b


def not_cut(page, selector: str) -> None:
    """The element's text is shown whole (not cut off with an ellipsis)."""
    assert page.eval_on_selector(selector, "e => e.scrollWidth <= e.clientWidth + 1"), (
        f"{selector} is cut off"
    )


def no_sideways_scroll(page) -> None:
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth + 1"), (
        "sideways scrolling"
    )


def wait_until(fn, timeout: float = 30.0, what: str = "condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = fn()
        if got:
            return got
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def wait_seq(page, seq: int) -> None:
    wait_until(
        lambda: int(page.get_attribute("body", "data-seq") or 0) >= seq, what=f"event {seq} on the page"
    )


def advance(url: str, stop, limit: int = 300) -> dict:
    """Answer decisions through the API (seeded rolls, first choices, no spells) until stop(pending)."""
    for seed in range(limit):
        p = state(url)["pending"]
        if stop(p):
            return p
        api(url, "POST", "/api/decisions", {"action": first_answer(p, seed)})
    raise AssertionError("the decision looked for never came up")


def new_game(url: str, **extra) -> dict:
    api(url, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True, **extra})
    return state(url)


def roll_ids(url: str) -> None:
    """Ann's order-of-play roll with every die on its ID face: a total with named, cited steps."""
    p = state(url)["pending"]
    faces = {d["uid"]: next(f for f in d["faces"] if f.endswith(" ID")) for d in p["dice"]}
    api(url, "POST", "/api/rolls", {"faces": faces})


# -- the current phase ---------------------------------------------------------------------------


def test_current_phase_and_rules_always_in_view(browser, serve):
    server = serve()
    new_game(server.url)
    roll_ids(server.url)
    advance(server.url, lambda p: state(server.url)["state"]["phase"] not in ("setup",))
    st = state(server.url)
    label = {
        "expire_effects": "Expire",
        "eighth_face": "8th face",
        "dragon_attack": "Dragons",
        "species_abilities": "Species",
        "first_march": "March 1",
        "second_march": "March 2",
        "reserves": "Reserves",
    }[st["state"]["phase"]]
    for size in SIZES:
        page = open_page(browser, server.url, size)
        wait_seq(page, st["seq"])
        for view in ("table", "roll", "odds", "dispute"):
            page.click(f".rail a[data-view={view}]")
            page.wait_for_selector(f"#view-{view}.active")
            b = in_view(page, "#phase-now")
            not_cut(page, "#phase-now")
            not_cut(page, "#phasenow .turninfo")
            assert page.inner_text("#phase-now") == label
            assert b["height"] >= 18, "the phase is written large enough to read across the table"
            in_view(page, "#rules-doc")
            assert page.inner_text("#rules-doc") == "Rules: V4.01c"
            assert "V4.01c" in page.get_attribute("#rules-doc", "title")
            page.evaluate("document.querySelector('main').scrollTo(0, 100000)")
            in_view(page, "#phase-now")  # the page scrolled to its end: the phase is still there
        if size != "phone":  # where there is room, the whole phase row shows, the current one marked
            in_view(page, ".phase.now")
            assert page.inner_text(".phase.now") == label
            for chip in page.locator(".phase").all():
                assert chip.is_visible()
        no_sideways_scroll(page)
        page.click(".rail a[data-view=table]")
        shot(page, f"phase-{size}")
        assert page.errors == []
        page.context.close()


# -- the explanation of a total, tap targets ----------------------------------------------------------


def test_total_explanation_gives_step_names_the_row_and_chips_are_finger_sized(browser, serve):
    server = serve()
    new_game(server.url)
    roll_ids(server.url)
    steps = state(server.url)["last_roll"]["steps"]
    assert steps and all(s["name"] and s["cite"] for s in steps), "the engine names and cites each step"
    for size in SIZES:
        page = open_page(browser, server.url, size, "/dispute")
        page.wait_for_selector("#view-dispute .steps li")
        rows = page.eval_on_selector_all(
            "#view-dispute .steps li",
            """els => els.map(li => {
            const r = (sel) => li.querySelector(sel).getBoundingClientRect();
            const name = li.querySelector('.sname');
            return {row: li.getBoundingClientRect().width, text: r('.stext').width, name: r('.sname').height,
                    line: parseFloat(getComputedStyle(name).lineHeight), words: name.innerText.split(/\\s+/).length,
                    cite: r('.cite').height};
        })""",
        )
        assert rows
        for m in rows:
            assert m["text"] >= 0.6 * m["row"], f"step text squeezed: {m['text']} of {m['row']} px"
            lines = round(m["name"] / m["line"])
            assert lines == 1 or m["words"] / lines >= 3, f"step name in {lines} lines of {m['words']} words"
            assert m["cite"] >= 48, f"citation chip {m['cite']} px tall"
        prompt_cite = box(page, "#prompt .cite")
        assert prompt_cite["height"] >= 48
        shot(page, f"steps-{size}")
        page.click(".rail a[data-view=roll]")
        page.wait_for_selector("#view-roll.active .die .facebtn")
        # measured in one go (the view may be redrawn between two calls), on the shown Roll view only,
        # once it is laid out: a view just switched to can measure 0 px for a frame (seen once in CI)
        heights: list = []
        for _ in range(50):
            heights = page.eval_on_selector_all(
                "#view-roll.active .die .facebtn", "els => els.map(e => e.getBoundingClientRect().height)"
            )
            if heights and min(heights) > 0:
                break
            page.wait_for_timeout(100)
        assert heights and min(heights) >= 48, f"face buttons {min(heights)} px tall"
        widths = page.eval_on_selector_all(
            "#last-roll .steps li",
            """els => els.map(li =>
            [li.querySelector('.stext').getBoundingClientRect().width, li.getBoundingClientRect().width])""",
        )
        assert widths and all(text >= 0.6 * row for text, row in widths)
        assert page.errors == []
        page.context.close()


# -- the Roll page: dice first, no empty camera box, running total, Confirm in reach ----------------------


def test_dice_come_first_with_a_running_total_and_confirm_in_reach(browser, serve):
    server = serve()
    st = new_game(server.url, force_size=60)
    dice = st["pending"]["dice"]
    assert len(dice) == 10
    for size in SIZES:
        page = open_page(browser, server.url, size, "/roll")
        page.wait_for_selector(".die .facebtn")
        vh = page.viewport_size["height"]
        assert page.locator(".frame").count() == 0, "no camera: no camera box"
        first = in_view(page, ".die >> nth=0")
        assert first["y"] < vh / 2 or size == "phone" and first["y"] < vh * 0.6, (
            "the first die is high on the page"
        )
        if size == "phone" or size == "portrait":  # one column: the last roll comes after the dice
            assert box(page, "#view-roll .rollside")["y"] > box(page, ".die >> nth=-1")["y"]
        in_view(page, "#confirm-roll")
        in_view(page, "#running-total")
        assert page.inner_text("#running-count") == "0/10 set"
        # tap four dice: the running total of the four follows (the engine's, untapped dice not counting);
        # Confirm stays in view wherever the list is scrolled
        tapped = {d["uid"]: d["faces"][0] for d in dice[:4]}
        for uid, face in tapped.items():
            page.locator(f'.die[data-uid="{uid}"] .facebtn[data-face="{face}"]').click()
        assert page.inner_text("#running-count") == "4/10 set"
        so_far = api(server.url, "POST", "/api/rolls/preview", {"faces": tapped})["total"]
        wait_until(
            lambda page=page, so_far=so_far: (
                page.locator("#running-value").count() and page.inner_text("#running-value") == str(so_far)
            ),
            what="the total so far",
        )
        assert page.inner_text("#running-total").startswith(f"So far {so_far} maneuver")
        shot(page, f"roll-{size}")
        for y in (0, 400, 100000):
            page.evaluate(f"document.querySelector('main').scrollTo(0, {y})")
            in_view(page, "#confirm-roll")
            in_view(page, "#running-total")
        assert page.is_disabled("#confirm-roll")
        page.click("#clear-taps")
        assert page.inner_text("#running-count") == "0/10 set"
        page.context.close()
    # the total while tapping is the engine's: the same number the game gives once confirmed
    page = open_page(browser, server.url, "phone", "/roll")
    page.wait_for_selector(".die .facebtn")
    page.click("#fast-entry .setall[data-icon='ID']")
    page.wait_for_selector("#running-value")
    shown = int(page.inner_text("#running-value"))
    uid = dice[0]["uid"]
    other = next(f for f in dice[0]["faces"] if f.endswith("Maneuver"))
    page.locator(f'.die[data-uid="{uid}"] .facebtn[data-face="{other}"]').click()
    wait_until(
        lambda: (
            other in (page.evaluate("window.companion.preview && window.companion.preview.key") or "")
            and page.locator("#running-value").count()
        ),
        what="the running total to follow the tap",
    )
    shown = int(page.inner_text("#running-value"))
    shot(page, "roll-total-phone")
    page.click("#confirm-roll")
    wait_seq(page, st["seq"] + 1)
    last = state(server.url)["last_roll"]
    assert last["total"] == shown and last["roll"] == "maneuver"
    assert page.errors == []


# -- fast entry ----------------------------------------------------------------------------------------


class Taps:
    """Clicks on the page, counted."""

    def __init__(self, page):
        self.page, self.n = page, 0

    def __call__(self, selector: str) -> None:
        self.page.locator(selector).first.click()
        self.n += 1


def test_a_typed_roll_of_ten_dice_takes_at_most_six_taps(browser, serve):
    server = serve()
    st = new_game(server.url, force_size=60)
    p = st["pending"]
    dice = p["dice"]
    assert len(dice) == 10 and all(len(d["icons"]) == len(d["faces"]) for d in dice)
    # what the table rolled: every die on its ID face, but three showing another face
    want = {d["uid"]: next(f for f in d["faces"] if f.endswith(" ID")) for d in dice}
    exceptions = {
        dice[1]["uid"]: dice[1]["faces"][2],
        dice[4]["uid"]: dice[4]["faces"][4],
        dice[7]["uid"]: dice[7]["faces"][1],
    }
    want.update(exceptions)
    for size in SIZES:
        page = open_page(browser, server.url, size, "/roll")
        page.wait_for_selector(".die .facebtn")
        tap = Taps(page)
        tap("#fast-entry .setall[data-icon='ID']")
        for uid, face in exceptions.items():
            tap(f'.die[data-uid="{uid}"] .facebtn[data-face="{face}"]')
        chosen = {
            d["uid"]: page.get_attribute(f'.die[data-uid="{d["uid"]}"] .facebtn.on', "data-face")
            for d in dice
        }
        assert chosen == want
        in_view(page, "#confirm-roll")
        assert not page.is_disabled("#confirm-roll")
        assert tap.n + 1 <= 6, f"{tap.n + 1} taps for a roll of 10 dice"
        page.wait_for_selector("#running-value")  # the engine's total of the ten
        shot(page, f"fast-entry-{size}")
        page.click("#clear-taps")
        page.context.close()
    # confirm once: the engine gets one face per die, in the roll's order, and resolves them itself
    page = open_page(browser, server.url, "tablet", "/roll")
    page.wait_for_selector(".die .facebtn")
    tap = Taps(page)
    tap("#fast-entry .setall[data-icon='ID']")
    for uid, face in exceptions.items():
        tap(f'.die[data-uid="{uid}"] .facebtn[data-face="{face}"]')
    tap("#confirm-roll")
    assert tap.n <= 6
    wait_seq(page, st["seq"] + 1)
    event = api(server.url, "GET", f"/api/log?since={st['seq']}")["events"][0]
    assert event["action"]["faces"] == [want[d["uid"]] for d in dice]
    last = state(server.url)["last_roll"]
    assert [f["faces"][0] for f in last["faces"]] == [want[d["uid"]] for d in dice]
    assert page.errors == []


def test_set_untapped_leaves_a_die_with_two_faces_of_the_kind_for_a_tap(browser, serve):
    """'Set untapped to Melee' picks, for each die, its one Melee face the server listed; a die with two
    different Melee faces (the Skirmisher's 4 Melee and 3 Melee) stays untapped."""
    server = serve()
    st = new_game(server.url)
    dice = st["pending"]["dice"]
    page = open_page(browser, server.url, "phone", "/roll")
    page.wait_for_selector(".die .facebtn")
    page.click("#fast-entry .setall[data-icon='Melee']")
    for d in dice:
        melee = {f for f, k in zip(d["faces"], d["icons"], strict=True) if k == "Melee"}
        on = page.locator(f'.die[data-uid="{d["uid"]}"] .facebtn.on')
        if len(melee) == 1:
            assert on.get_attribute("data-face") == melee.pop()
        else:
            assert on.count() == 0, f"{d['die']} has {sorted(melee)}: left for a tap"
    page.context.close()


def test_same_faces_as_read_with_exceptions(browser, serve):
    """A roll read (here posted as the camera would, with confirm false): confirming as read is one tap;
    each wrong die is one more."""
    server = serve()
    st = new_game(server.url, force_size=60)
    dice = st["pending"]["dice"]
    read = {d["uid"]: d["faces"][0] for d in dice}
    api(server.url, "POST", "/api/rolls", {"faces": read, "confirm": False, "source": "camera"})
    page = open_page(browser, server.url, "phone", "/roll")
    page.wait_for_selector(".die .facebtn.on")
    tap = Taps(page)
    fixed = {dice[3]["uid"]: dice[3]["faces"][1], dice[8]["uid"]: dice[8]["faces"][2]}
    for uid, face in fixed.items():
        tap(f'.die[data-uid="{uid}"] .facebtn[data-face="{face}"]')
        page.wait_for_selector(f'.die.fixed[data-uid="{uid}"]')
    in_view(page, "#confirm-roll")
    tap("#confirm-roll")
    assert tap.n == 3
    wait_seq(page, st["seq"] + 1)
    faces = api(server.url, "GET", f"/api/log?since={st['seq']}")["events"][0]["action"]["faces"]
    assert faces == [fixed.get(d["uid"], read[d["uid"]]) for d in dice]
    page.context.close()


# -- odds -------------------------------------------------------------------------------------------


def test_odds_open_on_the_army_the_decision_is_about_with_percentages(browser, serve):
    server = serve()
    new_game(server.url)

    def about_another_army(p) -> bool:
        armies = [a["id"] for a in state(server.url)["state"]["armies"]]
        return p["kind"] == "choice" and bool(armies) and p.get("odds_army") not in (None, armies[0])

    p = advance(server.url, about_another_army)
    about = p["odds_army"]
    st = state(server.url)
    for size in SIZES:
        page = open_page(browser, server.url, size, "/odds")
        wait_seq(page, st["seq"])
        page.wait_for_selector("#odds-table tbody tr")
        assert page.eval_on_selector("#view-odds select[aria-label=army]", "e => e.value") == about
        rows = page.locator("#odds-table tbody tr").all()
        assert rows and all(r.inner_text().count("%") == 2 for r in rows)
        exactly = [r.locator("td >> nth=1").inner_text() for r in rows]
        assert any(x not in ("<1%",) for x in exactly)
        assert page.locator(".bar .barpct").count() >= 1, "the taller bars carry their percentage"
        in_view(page, "#odds-table tbody tr")  # the chances show on opening, no scrolling
        on_redrawn_element(page.locator("#odds-bars").scroll_into_view_if_needed)
        in_view(page, "#odds-bars")
        assert box(page, ".bar .barpct")["height"] >= 10
        no_sideways_scroll(page)
        shot(page, f"odds-{size}")
        assert page.errors == []
        page.context.close()


# -- rules search ------------------------------------------------------------------------------------


def test_rules_search_ranks_the_games_edition_first(browser, serve, rules_index):
    from companion.rulesearch import RuleIndex

    with RuleIndex(rules_index) as idx:  # without a game to prefer, the 1996 rules come first here
        plain = [h.label for h in idx.search("eighth face")]
    assert plain[0] == "R96" and "V4.01c" in plain
    server = serve()
    new_game(server.url)
    for size in SIZES:
        page = open_page(browser, server.url, size, "/dispute")
        page.fill("#view-dispute input[type=search]", "eighth face")
        page.click("#view-dispute form button")
        page.wait_for_selector("#hits .hit")
        cites = [c.inner_text() for c in page.locator("#hits .hit .c").all()]
        labels = [c.split(" ")[0] for c in cites]
        first_other = next(i for i, x in enumerate(labels) if x != "V4.01c")
        assert labels[:first_other] == ["V4.01c"] * first_other and first_other >= 1
        assert "V4.01c" not in labels[first_other:], "every V4.01c passage comes before the 1996 ones"
        in_view(page, "#hits .hit .c")
        assert page.inner_text("#search-first").startswith("Dragon Dice rules V4.01c")
        shot(page, f"rules-search-{size}")
        page.context.close()
    # a 1996 game: its own rules first
    new_game(server.url, edition="r96")
    hits = api(server.url, "GET", "/api/rules/search?q=eighth%20face")["hits"]
    assert hits[0]["label"] == "R96"


# -- camera ------------------------------------------------------------------------------------------


def test_camera_frames_are_said_in_the_top_bar_and_box_labels_read(browser, tmp_path, rules_index):
    """``companion demo --dice camera``: a rendered frame read by the vision pipeline stays on the
    roll panel for --pace seconds while no camera is connected."""
    cmd = [
        sys.executable,
        "-m",
        "companion",
        "demo",
        "--dice",
        "camera",
        "--pace",
        "120",
        "--port",
        "0",
        "--seconds",
        "240",
        "--token",
        HOST_TOKEN,
        "--db",
        str(tmp_path / "demo.sqlite"),
    ]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = None
        for line in proc.stdout:
            m = re.search(r"serving at (http://\S+)", line)
            if m:
                url = m.group(1)
                break
        assert url, "the demo did not start"

        def staged():
            try:
                st = state(url)
            except (urllib.error.URLError, OSError):
                return None
            return st if (st.get("reading") or {}).get("frame") else None

        st = wait_until(staged, timeout=120, what="a camera reading with a frame")
        assert next(s for s in st["sources"] if s["kind"] == "camera")["state"] == "off"
        for size in SIZES:
            page = open_page(browser, url, size, "/roll")
            page.wait_for_selector(".frame img")
            wait_until(
                lambda page=page: page.evaluate("document.querySelector('.frame img').naturalWidth") > 0,
                what="the frame to load",
            )
            text = page.inner_text("#src-camera")
            assert "off" not in text and "frame" in text, text
            in_view(page, "#src-camera")
            page.wait_for_selector(".frame .box .boxlabel")
            labels = page.locator(".frame .boxlabel").all()
            assert len(labels) == len(st["reading"]["boxes"])
            frame = box(page, ".frame")
            for lab in labels:
                size_px = float(lab.evaluate("e => parseFloat(getComputedStyle(e).fontSize)"))
                assert size_px >= 14 and lab.bounding_box()["height"] >= 14
                b = lab.bounding_box()
                assert frame["x"] - 1 <= b["x"] and b["x"] + b["width"] <= frame["x"] + frame["width"] + 1, (
                    "a box label stays on the frame"
                )
            not_cut(page, "#phase-now")  # the camera pill does not squeeze the phase
            on_redrawn_element(page.locator(".frame").scroll_into_view_if_needed)
            shot(page, f"camera-{size}")
            page.context.close()
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()


# -- at the table: awake, installable, offline, read aloud --------------------------------------------------


def test_manifest_and_service_worker_are_served(serve):
    server = serve()
    with urllib.request.urlopen(server.url + "/manifest.webmanifest", timeout=10) as r:
        assert r.headers["Content-Type"].startswith("application/manifest+json")
        manifest = json.loads(r.read())
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/table"
    sizes = {i["sizes"] for i in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    for icon in manifest["icons"]:
        with urllib.request.urlopen(server.url + icon["src"], timeout=10) as r:
            assert r.status == 200 and r.headers["Content-Type"].startswith(icon["type"])
    with urllib.request.urlopen(server.url + "/sw.js", timeout=10) as r:
        assert "javascript" in r.headers["Content-Type"] and r.headers["Service-Worker-Allowed"] == "/"
        assert "/api/" in r.read().decode()


def local(url: str) -> str:
    """The server at 127.0.0.1: service workers and the wake lock need a secure context (https, or
    this machine), which a plain-http LAN address is not."""
    from urllib.parse import urlsplit

    return f"http://127.0.0.1:{urlsplit(url).port}"


def test_installs_opens_offline_keeps_awake_and_reads_totals(browser, serve, tmp_path):
    server = serve(tmp_path / "table.sqlite")
    url = local(server.url)
    new_game(url)
    for size in SIZES:
        page = open_page(browser, url, size)
        # the service worker took the page (it registers from the root, for every page)
        wait_until(
            lambda page=page: page.evaluate("navigator.serviceWorker.controller ? 1 : 0"),
            timeout=30,
            what="the service worker to control the page",
        )
        assert page.evaluate("window.companion.sw") == url + "/"
        # the screen is kept awake during the game
        wait_until(
            lambda page=page: page.get_attribute("body", "data-wake") == "held", what="a screen wake lock"
        )
        if size != "phone":  # (on a phone the bar has no room for it; the lock is held all the same)
            in_view(page, "#wake")
        # totals read aloud once turned on
        assert page.get_attribute("#speak", "aria-pressed") == "false"
        b = in_view(page, "#speak")
        assert b["height"] >= 32
        page.click("#speak")
        assert page.get_attribute("#speak", "aria-pressed") == "true"
        seq = state(url)["seq"]
        if size == "tablet":
            roll_ids(url)
            wait_seq(page, seq + 1)
            spoken = wait_until(
                lambda page=page: page.evaluate("window.companion.spoken"), what="a total read aloud"
            )
            assert (
                spoken[-1]
                == f"Ann's Horde, maneuver for the order of play: {state(url)['last_roll']['total']}"
            )
        in_view(page, "#rules-doc")
        shot(page, f"table-{size}")
        page.context.close()
    # over plain http on the local network (no secure context) the page says the screen may sleep
    page = open_page(browser, server.url, "tablet")
    if page.evaluate("window.isSecureContext") is False:
        wait_until(
            lambda page=page: page.get_attribute("body", "data-wake") == "unsupported", what="no wake lock"
        )
        in_view(page, "#wake")
        assert page.inner_text("#wake") == "may sleep" and "https" in page.get_attribute("#wake", "title")
    page.context.close()
    # the server goes away: the installed page still opens (its shell from the cache), and the game
    # state is not made up from a cache (the API is never answered by the service worker)
    page = open_page(browser, url, "phone")
    wait_until(
        lambda page=page: page.evaluate("navigator.serviceWorker.controller ? 1 : 0"),
        what="the service worker",
    )
    page.goto(url + "/roll")
    server.kill()
    page.goto(url + "/odds")
    page.wait_for_selector(".rail a[data-view=odds].active")
    assert page.evaluate("document.body.dataset.view") == "odds"
    in_view(page, "#phasenow")
    page.wait_for_selector("#offline-note")  # it says why there is no game on it, and that none is lost
    assert "cannot be reached" in page.inner_text("#prompt")
    got = page.evaluate("fetch('/api/state').then(() => 'answered', () => 'failed')")
    assert got == "failed"
    shot(page, "offline-phone")
