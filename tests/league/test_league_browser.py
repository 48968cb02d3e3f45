"""The table page in real headless Chromium shows the league line: "league: connected", then, with the
link cut, "league: offline, N events waiting", then connected again; the organizer's page lists the
table.  A screenshot of each page is written next to the test's files."""

from __future__ import annotations

import re
import shutil
import threading

import pytest
from league_helpers import HOST, LeagueServer, Proxy

from companion.league.push import issue_token
from companion.session.pg_store import connect

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def browser():
    exe = shutil.which("chromium")
    if exe is None:
        pytest.fail("Debian chromium is not installed: apt-get install -y chromium (.ci/run does it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
        yield b
        b.close()


def test_table_page_shows_the_league_line(pg_dsn, tmp_path, browser):
    from playwright.sync_api import expect
    from waitress.server import create_server

    from web import create_app

    conn = connect(pg_dsn)
    token, org = issue_token(conn, "table", "7"), issue_token(conn, "organizer")
    conn.close()
    league = LeagueServer(pg_dsn)
    proxy = Proxy(league.port)
    app = create_app(
        {
            "DB_PATH": str(tmp_path / "table7.sqlite"),
            "HOST_TOKEN": HOST,
            "START_SOURCES": False,
            "LEAGUE_URL": f"http://127.0.0.1:{proxy.port}",
            "LEAGUE_TABLE": "7",
            "LEAGUE_TOKEN": token,
        }
    )
    table = create_server(app, host="127.0.0.1", port=0, threads=8)
    threading.Thread(target=table.run, daemon=True).start()
    base = f"http://127.0.0.1:{table.effective_port}"
    client = app.test_client()
    page = browser.new_page()
    try:
        assert (
            client.post(
                "/api/games",
                json={"players": ["Ann", "Bob"], "quick": True, "force_size": 24},
                headers={"X-Companion-Token": HOST},
            ).status_code
            == 201
        )
        page.goto(f"{base}/table")
        pill = page.locator("#league")
        pill.wait_for(timeout=15000)
        expect(pill).to_have_text("league: connected", timeout=15000)
        proxy.cut()
        pending = client.get("/api/state").json["pending"]
        r = client.post(
            "/api/rolls",
            json={"faces": {d["uid"]: d["faces"][0] for d in pending["dice"]}},
            headers={"X-Companion-Token": HOST},
        )
        assert r.status_code == 200
        expect(pill).to_have_text(re.compile(r"^league: offline, \d+ events? waiting$"), timeout=20000)
        n = int(re.search(r"(\d+) events? waiting", pill.text_content()).group(1))
        assert n == client.get("/api/state").json["league"]["waiting"] >= 1
        page.screenshot(path=str(tmp_path / "table-offline.png"))
        proxy.restore()
        expect(pill).to_have_text("league: connected", timeout=20000)
        org_page = browser.new_page()
        org_page.goto(f"{league.url}/league/?token={org}")
        assert "Ann" in org_page.locator("#tables").text_content()
        org_page.screenshot(path=str(tmp_path / "organizer.png"), full_page=True)
        org_page.close()
    finally:
        page.close()
        app.extensions["league_outbox"].stop()
        table.close()
        proxy.close()
        league.close()


def test_judge_page_shows_who_and_the_rolls_frame(pg_dsn, tmp_path, browser):
    """The judge's page in Chromium: the roll's camera frame loads (served by the league, allowed by its
    content policy) under the roll's explanation, with who made the roll and who took back what."""
    import cv2
    import numpy as np

    from companion.session.pg_store import create_session

    conn = connect(pg_dsn)
    judge = issue_token(conn, "judge")
    conn.close()
    frame = np.zeros((720, 1280, 3), np.uint8)
    cv2.putText(frame, "roll 2", (100, 360), cv2.FONT_HERSHEY_SIMPLEX, 6, (255, 255, 255), 12)
    jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])[1].tobytes()
    s = create_session(
        pg_dsn,
        {
            "force_size": 24,
            "players": [{"name": "Ann", "species": "Dwarves"}, {"name": "Bob", "species": "Goblins"}],
        },
        table="4",
    )
    [roll] = s.submit(
        {"type": "roll", "faces": [d["faces"][0] for d in s.pending()["dice"]]},
        by={"role": "tablet", "name": "kitchen tablet", "source": "camera"},
        frame=jpeg,
    )
    s.submit({"type": "roll_for_me", "seed": 1}, by={"role": "host"})
    s.undo(1, by={"role": "tablet", "name": "kitchen tablet"})
    game_id = s.game_id
    s.close()
    league = LeagueServer(pg_dsn)
    page = browser.new_page()
    try:
        page.goto(f"{league.url}/league/judge/{game_id}?token={judge}")
        img = page.locator(f'li[value="{roll["seq"]}"] img.frame')
        img.wait_for(timeout=15000)
        page.wait_for_function(
            "img => img.complete && img.naturalWidth > 0", arg=img.element_handle(), timeout=15000
        )
        assert img.evaluate("img => [img.naturalWidth, img.naturalHeight]") == [1280, 720]
        assert (
            "tablet 'kitchen tablet' (camera)"
            in page.locator(f'li[value="{roll["seq"]}"] .who').first.text_content()
        )
        trail = page.locator("h3:has-text('Undo trail') + ul").text_content()
        assert "by tablet 'kitchen tablet'" in trail and f"#{roll['seq'] + 1}" in trail
        page.screenshot(path=str(tmp_path / "judge-frame.png"), full_page=True)
    finally:
        page.close()
        league.close()
