"""End to end in real headless Chromium (Debian ``chromium`` driven by Playwright) against a real
``companion serve`` process, at a 10-inch tablet's viewport: start a game by taps, play set-up and a
march by taps on two tablets kept in sync, correct a die, open a dispute, restart the server.

Screenshots of every page go to ``artifacts/screenshots/`` (git-ignored).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
import web_helpers
from web_helpers import first_answer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABLET = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
SHOTS = Path(__file__).resolve().parents[2] / "artifacts" / "screenshots"


def shot(page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


def api(server, method: str, path: str, body=None, token: str | None = None) -> dict:
    return web_helpers.api(server, method, path, body, token, timeout=10)


def host_token(server) -> str:
    return server.host_url.split("token=")[1]


def new_page(browser, url: str, viewport=TABLET):
    ctx = browser.new_context(viewport=viewport)
    ctx.set_default_timeout(90_000)  # a loaded 2-core machine can take longer than Playwright's 30 s
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(url)
    return page


def wait_seq(page, seq: int, timeout: float = 30.0) -> None:
    """Wait until the page has drawn event ``seq`` (the page's CSP forbids Playwright's eval-based
    wait_for_function, so poll the attribute the page sets on each render)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if int(page.get_attribute("body", "data-seq") or 0) >= seq:
            return
        time.sleep(0.05)
    raise AssertionError(
        f"the page did not show event {seq} (shows {page.get_attribute('body', 'data-seq')})"
    )


def state(server) -> dict:
    return api(server, "GET", "/api/state")


def go(page, view: str) -> None:
    page.click(f".rail a[data-view={view}]")
    page.wait_for_selector(f"#view-{view}.active")


def wait_confirmed(page, base: str, seq: int) -> None:
    """Wait until the game's event number passes ``seq`` (the roll went in), at most 30 s."""
    from web_helpers import call_json

    for _ in range(300):
        if call_json(base, "GET", "/api/state")[1]["seq"] > seq:
            return
        page.wait_for_timeout(100)
    raise AssertionError("the roll was not confirmed")


def roll_with_marks(browser, url: str, uid: str):
    """``(page, selector of die UID, the dice's uids in the page's order)``: the host's page at URL on the
    Roll panel, once die UID (one the camera left unread) shows its marked faces; that die is first."""
    page = new_page(browser, url)
    page.wait_for_selector("#role.host")
    go(page, "roll")
    sel = f'.die[data-uid="{uid}"]'
    page.wait_for_selector(f"{sel} .facebtn.likely")
    order = [e.get_attribute("data-uid") for e in page.query_selector_all("#view-roll .die")]
    assert order[0] == uid  # the unread die first
    return page, sel, order


def tap_roll(page, pick) -> None:
    """On the Roll page, tap for each die the face ``pick(die)`` chooses, then confirm."""
    go(page, "roll")
    page.wait_for_selector(".die")
    st = page.evaluate("window.companion.state")
    for d in st["pending"]["dice"]:
        face = pick(d)
        page.click(f'.die[data-uid="{d["uid"]}"] .facebtn[data-face="{face}"]')
        page.wait_for_selector(f'.die[data-uid="{d["uid"]}"] .facebtn.on[data-face="{face}"]')
    page.click("#confirm-roll")


def tap_choice(page, value) -> None:
    page.click(f"#prompt button[data-choice='{json.dumps(value)}']")


def test_start_play_sync_correct_and_dispute(browser, serve):
    server = serve()
    token = host_token(server)
    host = new_page(browser, server.host_url)
    host.wait_for_selector("#role.host")
    host.wait_for_selector("#prompt.idle")
    shot(host, "table-empty")

    # New game by taps: quick start with our own player names
    go(host, "new")
    host.fill("#view-new input >> nth=0", "Ann")
    host.fill("#view-new input >> nth=1", "Bob")
    host.fill(".searchbox", "Mammoth")
    host.wait_for_selector(".pick >> nth=0 >> text=Mammoth")
    assert host.inner_text("#player-tabs") == "Ann\nBob"
    shot(host, "new-game")
    host.click("#quick-start")
    host.wait_for_selector("#view-table.active .terrain")
    st = state(server)
    assert [p["name"] for p in st["state"]["players"]] == ["Ann", "Bob"]
    seq = st["seq"]

    # a second tablet: read-only until paired with the code from the host's QR page
    go(host, "host")
    host.wait_for_selector("#pair-qr svg")
    code = host.inner_text("#pair-code")
    shot(host, "host-pairing")
    tablet = new_page(browser, server.url + "/table")
    tablet.wait_for_selector("#role:has-text('read-only')")
    tablet.goto(f"{server.url}/table#pair={code}")
    tablet.wait_for_selector("#role.tablet")
    assert "pair=" not in tablet.url, "the pairing code is removed from the address bar"
    host.wait_for_selector("#view-host li:has-text('browser')")  # the host sees the new tablet

    # Ann (host tablet) rolls the order of play by tapping each die's ID face
    tap_roll(host, lambda d: next(f for f in d["faces"] if f.endswith(" ID")))
    seq += 1
    wait_seq(host, seq)
    wait_seq(tablet, seq)  # the other tablet follows live
    # Bob taps on his own tablet: faces without maneuver
    tap_roll(tablet, lambda d: next(f for f in d["faces"] if "ID" not in f and "Maneuver" not in f))
    seq += 1
    wait_seq(host, seq)
    assert "Ann" in host.inner_text("#prompt")
    shot(host, "roll-result")

    # dispute: tap the last roll's total, then search the rules
    go(host, "roll")
    host.click("#last-roll .total")
    host.wait_for_selector("#view-dispute.active")
    assert "why this number?" in host.inner_text("#view-dispute").lower()
    host.fill("#view-dispute input[type=search]", "eighth face")
    host.click("#view-dispute form button")
    host.wait_for_selector("#hits .hit")
    assert "V4.01c L" in host.inner_text("#hits")
    host.click("#prompt .cite")  # the pending decision's citation opens its passage
    host.wait_for_selector("#cited .hit")
    shot(host, "dispute")

    # choices by buttons: take the first turn, then the frontier, the starting distances...
    tap_choice(host, "first_turn")
    seq += 1
    wait_seq(tablet, seq)
    corrected = False
    for _ in range(60):
        st = state(server)
        p = st["pending"]
        if st["state"]["phase"] == "second_march" or p is None:
            break
        actor = host if p["player"] == "p1" else tablet
        before = st["seq"]
        if p["kind"] == "roll":
            if p.get("roll") == "save" and not corrected:
                corrected = True
                # the camera read the save roll: a misread die is fixed by a tap
                faces = {d["uid"]: d["faces"][0] for d in p["dice"]}
                api(
                    server,
                    "POST",
                    "/api/rolls",
                    {"faces": faces, "confirm": False, "source": "camera"},
                    token,
                )
                go(actor, "roll")
                die = p["dice"][0]
                other = next(f for f in die["faces"] if f != die["faces"][0])
                actor.click(f'.die[data-uid="{die["uid"]}"] .facebtn[data-face="{other}"]')
                actor.wait_for_selector(f'.die.fixed[data-uid="{die["uid"]}"]')
                assert state(server)["reading"]["faces"][die["uid"]] == other
                shot(actor, "roll-correction")
                actor.click("#confirm-roll")
                wait_seq(actor, before + 1)
                assert (
                    api(server, "GET", f"/api/log?since={before}")["events"][0]["action"]["faces"][0] == other
                )
                continue
            if p.get("roll") == "terrain":
                tap_roll(actor, lambda d: "3")
            else:
                tap_roll(actor, lambda d: next((f for f in d["faces"] if f.endswith(" ID")), d["faces"][0]))
        elif p["kind"] == "choice":
            values = [c["value"] for c in p["choices"]]
            prefer = (
                [v for v in values if isinstance(v, str) and v.endswith("@frontier")]
                + ["maneuver", "melee", "counter", "up"]
                + values
            )
            tap_choice(actor, next(v for v in prefer if v in values))
        elif p["kind"] == "allocate":
            actor.click("#prompt .choices button.btn.primary >> nth=0")
        elif p["kind"] == "cast":
            actor.click("#prompt button:has-text('Cast nothing')")
        else:
            actor.click("#prompt .choices button.btn.primary >> nth=0")
        wait_seq(host, before + 1)
        wait_seq(tablet, before + 1)
    st = state(server)
    assert st["state"]["turn"] == 1 and st["state"]["phase"] in ("second_march", "reserves")
    log = " ".join(" ".join(e["log"]) for e in api(server, "GET", "/api/log?since=0")["events"])
    assert "save" in log and ("melee" in log or "missile" in log), "an attack and its saves were played"
    assert corrected, "a die of the save roll was corrected by a tap"
    # both tablets show the same game, the same event
    assert host.evaluate("document.body.dataset.seq") == tablet.evaluate("document.body.dataset.seq")
    go(host, "table")
    shot(host, "table")
    host.click(".terrain .face >> nth=0")  # any number on screen opens the rules behind it
    host.wait_for_selector("#cited .hit")
    assert "eighth face" in host.inner_text("#cited").lower()
    go(host, "table")
    go(host, "odds")
    host.wait_for_selector("#odds-bars .bar")
    shot(host, "odds")
    go(tablet, "roll")
    shot(tablet, "roll")
    assert host.errors == [] and tablet.errors == []


def test_read_only_tablet_cannot_change_the_game(browser, serve):
    server = serve()
    api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, host_token(server))
    viewer = new_page(browser, server.url + "/roll")
    viewer.wait_for_selector(".die")
    assert viewer.is_disabled(".facebtn >> nth=0")
    assert viewer.is_disabled("#confirm-roll")
    go(viewer, "host")
    viewer.wait_for_selector("#view-host input[aria-label='pairing code']")
    shot(viewer, "pairing-read-only")


def test_restart_shows_the_same_game(browser, serve, tmp_path):
    db = tmp_path / "restart.sqlite"
    first = serve(db)
    token = host_token(first)
    game = api(first, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, token)["game_id"]
    api(first, "POST", "/api/decisions", {"action": {"type": "roll_for_me", "seed": 5}}, token)
    page = new_page(browser, first.host_url)
    wait_seq(page, 2)
    before = page.inner_text("#view-table")
    first.kill()  # mid-game, no goodbye
    second = serve(db)
    assert state(second)["game_id"] == game and state(second)["seq"] == 2
    page.goto(second.url + "/table")
    wait_seq(page, 2)
    assert page.inner_text("#view-table") == before
    assert page.evaluate("window.companion.state.game_id") == game
    shot(page, "after-restart")


def test_phone_layout_and_lost_sources(browser, serve, tmp_path):
    server = serve(
        extra=("--camera", str(tmp_path / "no-such-camera.mp4"), "--serial", str(tmp_path / "no-such-tty"))
    )
    api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, host_token(server))
    page = new_page(browser, server.url + "/table", viewport=PHONE)
    page.wait_for_selector(".terrain")
    assert page.evaluate("document.scrollingElement.scrollWidth <= window.innerWidth + 1"), (
        "no sideways scrolling"
    )
    shot(page, "phone-table")
    tablet = new_page(browser, server.url + "/roll")
    tablet.wait_for_selector("#src-camera.bad", timeout=15_000)
    assert "lost" in tablet.inner_text("#src-camera")
    tablet.wait_for_selector(".nocam:has-text('Camera lost')")
    tablet.wait_for_selector("#src-serial.bad", timeout=15_000)
    shot(tablet, "sources-lost")


def test_tablet_reconnects_by_itself_after_a_restart(browser, serve, tmp_path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    db = tmp_path / "reconnect.sqlite"
    first = serve(db, extra=("--port", str(port)))
    token = host_token(first)
    api(first, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, token)
    page = new_page(browser, first.url + "/table")
    wait_seq(page, 1)
    first.kill()
    page.wait_for_selector("#link.bad")  # the page shows the link is down
    shot(page, "reconnecting")
    second = serve(db, extra=("--port", str(port)))
    page.wait_for_selector("#link.ok", timeout=20_000)
    seq = api(second, "POST", "/api/decisions", {"action": {"type": "roll_for_me", "seed": 2}}, token)["seq"]
    wait_seq(page, seq)  # no reload: the stream came back and brought the new event
    assert page.errors == []


def advance_until(server, token, want_kind: str, limit: int = 300) -> dict:
    """Answer decisions through the API (seeded rolls, first choices, no spells) until one of want_kind."""
    for seed in range(limit):
        p = state(server)["pending"]
        if p["kind"] == want_kind:
            return p
        api(server, "POST", "/api/decisions", {"action": first_answer(p, seed)}, token)
    raise AssertionError(f"no {want_kind} decision came up")


def test_retreat_by_tapping_units(browser, serve):
    server = serve()
    token = host_token(server)
    api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, token)
    p = advance_until(server, token, "retreat")
    page = new_page(browser, server.host_url)
    wait_seq(page, state(server)["seq"])
    uid = p["units"][0]
    page.click(f'#prompt .facebtn[data-uid="{uid}"]')
    assert page.inner_text("#retreat-go") == "Retreat 1 to reserve"
    shot(page, "retreat")
    page.click("#retreat-go")
    wait_seq(page, state(server)["seq"])
    st = state(server)["state"]
    owner = next(pl for pl in st["players"] if pl["id"] == p["player"])
    reserve = next(
        (a for a in st["armies"] if a["owner"] == owner["id"] and a["location"] == "reserve"), None
    )
    assert reserve and uid in [u["uid"] for u in reserve["units"]]


def test_battle_dice_on_the_tablet(browser, serve):
    server = serve()
    page = new_page(browser, server.host_url)
    page.wait_for_selector("#role.host")
    go(page, "new")
    page.fill("#view-new input >> nth=0", "Reds")
    page.fill("#view-new input >> nth=1", "Blues")
    page.select_option("#game-kind", "battle_dice")
    page.click("#quick-start")
    page.wait_for_selector("#view-table.active [data-army='A@battle']")
    assert "Battle Dice" in page.inner_text("#phasebar")
    tap_roll(page, lambda d: d["faces"][-1])  # every die on its highest face
    wait_seq(page, 2)
    go(page, "table")
    text = page.inner_text("[data-army='A@battle']")
    assert "general (d4)4" in text.replace("\n", "").replace(" 4", "4")
    shot(page, "battle-dice")
    assert page.errors == []


def test_roll_panel_shows_the_camera_frame(browser, serve, tmp_path):
    import cv2

    from companion.vision.roll_frames import roll_video

    video = tmp_path / "table.avi"
    server = serve(extra=("--camera", str(video)))
    token = host_token(server)
    api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, token)
    dice = [(d["die"], 0) for d in state(server)["pending"]["dice"]]
    frames, _ = roll_video(dice, seed=1, fps=5, move_s=0.6, still_s=2.0, size=480)
    out = cv2.VideoWriter(
        str(tmp_path / "tmp.avi"), cv2.VideoWriter_fourcc(*"MJPG"), 5, frames[0].shape[1::-1]
    )
    for f in frames:
        out.write(f)
    out.release()
    (tmp_path / "tmp.avi").rename(video)  # the camera appears
    page = new_page(browser, server.host_url)
    page.wait_for_selector("#src-camera.ok", timeout=30_000)
    go(page, "roll")
    page.wait_for_selector(".frame img")
    width = "(document.querySelector('.frame img') || {}).naturalWidth || 0"
    deadline = time.monotonic() + 30  # a loaded CI machine may take a while to decode the first frame
    while page.evaluate(width) == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert page.evaluate(width) == 480
    shot(page, "roll-camera")


def test_force_building_by_taps_with_live_limits(browser, serve):
    server = serve()
    page = new_page(browser, server.host_url)
    page.wait_for_selector("#role.host")
    go(page, "new")

    def search(text: str, first: str) -> None:
        page.fill(".searchbox", text)
        page.wait_for_selector(f".pick >> nth=0 >> text={first}")
        page.click(".rail a[data-view=new]")  # leave the search box (its list stays)

    def tap_pick(times: int) -> None:
        for _ in range(times):
            page.click(".pick >> nth=0")

    for player, monster, dragon in (
        (0, "Androsphinx", "Dragons/Red Drake"),
        (1, "Goblins/Troll", "Black Drake"),
    ):
        page.click(f"#player-tabs button[data-i='{player}']")
        search(monster, monster)
        for army in ("Home", "Horde", "Campaign"):
            page.click(f".armycol:has-text('{army}')")
            tap_pick(2)  # two monsters: 8 points
            if army == "Home":  # the engine's check (POST /api/forces/check) arrives a moment later
                page.wait_for_selector("#checks .check:has-text('home: 8 pts, at most 12')")
        search(dragon, dragon)
        tap_pick(1)
        assert dragon.split("/")[-1] in page.inner_text("#dragons")
    page.wait_for_selector("#checks .check:has-text('Player 2: 24 of 24 points')")
    checks = page.inner_text("#checks")
    assert checks.count("24 of 24 points") == 2, checks
    assert page.locator("#checks .check.bad").count() == 0
    shot(page, "new-game-built")
    page.click("#start-built")
    page.wait_for_selector("#view-table.active .terrain")
    st = state(server)["state"]
    assert [p["force_points"] for p in st["players"]] == [24, 24]
    pools = [[u["die"] for u in p["summoning_pool"]] for p in st["players"]]
    assert pools == [["Dragons/Red Drake"], ["Dragons/Black Drake"]]


def test_new_game_offers_the_optional_components_of_v4(browser, serve):
    """V4.01c L2506-2508: the New game form lets the table turn on optional components (V4.01c only)."""
    from companion.rules.game.advanced.options import ITEMS, MINOR_TERRAINS, is_on
    from companion.session import GameSession

    server = serve()
    page = new_page(browser, server.host_url)
    page.wait_for_selector("#role.host")
    go(page, "new")
    page.wait_for_selector("#advanced input[type=checkbox]")  # the engine's list (GET /api/forces/rules)
    assert page.locator("#advanced input[type=checkbox]").count() == 5
    page.select_option("#edition", "r96")
    page.wait_for_selector("#advanced", state="detached")  # the 1996 rules have no optional components
    page.select_option("#edition", "v4")
    page.check("#advanced input[value=items]")
    shot(page, "new-game-advanced")
    page.click("#quick-start")
    deadline = time.monotonic() + 15
    while state(server).get("game_id") is None and time.monotonic() < deadline:
        time.sleep(0.1)
    with GameSession.open(server.db) as s:
        assert is_on(s.game, ITEMS) and not is_on(s.game, MINOR_TERRAINS)
    assert page.errors == []
