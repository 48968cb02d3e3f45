"""Pairing and restarts in real headless Chromium against real ``companion serve`` processes: the host
page shows a new pairing code as soon as it is made elsewhere; an open page notices a restart (the
same host URL keeps working), and a page whose token no longer counts says exactly what to do; a
server that no tablet can reach shows no QR code on its Pairing page.

Screenshots go to ``artifacts/screenshots/`` (git-ignored).
"""

from __future__ import annotations

import time

import pytest
from test_web_browser import api, new_page, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def wait_text(page, selector: str, pred, timeout: float = 30.0) -> str:
    """Poll until the element's text satisfies pred (the page's CSP forbids wait_for_function)."""
    deadline = time.monotonic() + timeout
    text = None
    while time.monotonic() < deadline:
        el = page.query_selector(selector)
        text = el.inner_text() if el else None
        if text is not None and pred(text):
            return text
        time.sleep(0.1)
    raise AssertionError(f"{selector} never matched; last text: {text!r}")


def wait_attr(page, name: str, pred, timeout: float = 30.0) -> str:
    deadline = time.monotonic() + timeout
    value = None
    while time.monotonic() < deadline:
        value = page.get_attribute("body", name)
        if pred(value):
            return value
        time.sleep(0.1)
    raise AssertionError(f"body[{name}] never matched; last value: {value!r}")


def test_host_page_shows_the_new_code_when_it_is_replaced_elsewhere(browser, servers, tmp_path):
    s = servers("--db", str(tmp_path / "codes.sqlite"), "--port", "0", "--seconds", "300")
    token = s.host_token
    api(s, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, token)
    host = new_page(browser, f"{s.url}/host?token={token}")
    host.wait_for_selector("#pair-qr svg")
    first, first_qr = host.inner_text("#pair-code"), host.inner_html("#pair-qr")
    # a second host device (another browser) makes a new code: the first page follows, no reload
    other = new_page(browser, f"{s.url}/host?token={token}")
    other.wait_for_selector("#pair-qr svg")
    other.click("#view-host button:has-text('New code')")
    second = wait_text(host, "#pair-code", lambda t: t != first)
    assert wait_text(other, "#pair-code", lambda t: t == second)
    # and a change made through the API by a script
    third = api(s, "POST", "/api/pairing/rotate", {}, token)["code"]
    assert wait_text(host, "#pair-code", lambda t: t == third)
    assert host.query_selector("#pair-qr svg") and host.inner_html("#pair-qr") != first_qr, "a new QR code"
    shot(host, "host-pairing-new-code")
    # a guessing stranger changes nothing on the host's page
    for _ in range(8):
        try:
            api(s, "POST", "/api/pair", {"code": "22222A" if third != "22222A" else "22222B"})
        except Exception:  # 403, then 429
            pass
    time.sleep(1.0)
    assert host.inner_text("#pair-code") == third
    assert host.errors == [] and other.errors == []


def test_an_open_page_notices_restarts_and_says_what_to_do(browser, servers, tmp_path):
    db = str(tmp_path / "restarts.sqlite")
    first = servers("--db", db, "--port", "0", "--seconds", "300")
    port, token = str(first.port), first.host_token
    api(first, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, token)
    code = api(first, "GET", "/api/pairing", token=token)["code"]
    host = new_page(browser, first.host_url)
    host.wait_for_selector("#role.host")
    tablet = new_page(browser, f"{first.url}/table#pair={code}")
    tablet.wait_for_selector("#role.tablet")
    boot = wait_attr(host, "data-boot", bool)

    # 1. a plain restart on the same game file: the same host URL, the page carries on as host
    first.kill()
    host.wait_for_selector("#link.bad")
    again = servers("--db", db, "--port", port, "--seconds", "300")
    assert again.host_token == token
    wait_attr(host, "data-boot", lambda b: b and b != boot)
    host.wait_for_selector("#link.ok")
    host.wait_for_selector("#role.host")
    wait_text(host, "#toast", lambda t: "server restarted" in t)
    shot(host, "host-after-restart")
    tablet.wait_for_selector("#role.tablet")

    # 2. the host makes a new pairing code: the tablet is told to pair again (not to open a host URL)
    api(again, "POST", "/api/pairing/rotate", {}, token)
    advice = wait_text(tablet, "#toast", lambda t: "pair again" in t)
    assert "host URL" not in advice
    tablet.wait_for_selector("#role:has-text('read-only')")

    # 3. restarted with a new host token: the old host page says to open the printed host URL again
    again.stop()
    rotated = servers("--db", db, "--port", port, "--rotate-host-token", "--seconds", "300")
    assert rotated.host_token != token
    wait_text(host, "#toast", lambda t: "open the host URL printed by the server again" in t)
    host.wait_for_selector("#role:has-text('read-only')")
    host.click(".rail a[data-view=host]")
    wait_text(host, "#token-advice", lambda t: "open the host URL printed by the server again" in t)
    shot(host, "host-token-replaced")
    time.sleep(6)  # the advice stays up (an ordinary message is gone after 5 s)
    assert "host URL printed by the server" in host.inner_text("#toast") and host.is_visible("#toast")
    # following the advice works
    host.goto(rotated.host_url)
    host.wait_for_selector("#role.host")
    assert host.errors == [] and tablet.errors == []


def test_pairing_page_of_a_server_no_tablet_can_reach_shows_no_qr_code(browser, servers, tmp_path):
    s = servers(
        "--db", str(tmp_path / "local.sqlite"), "--host", "127.0.0.1", "--port", "0", "--seconds", "300"
    )
    api(s, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, s.host_token)
    host = new_page(browser, f"{s.url}/host?token={s.host_token}")
    msg = wait_text(host, "#pair-unreachable", bool)
    assert "this machine only" in msg and "companion serve" in msg
    assert host.query_selector("#pair-qr svg") is None
    assert host.inner_text("#pair-code"), "the code is still there for a browser on this machine"
    shot(host, "host-pairing-unreachable")
    assert host.errors == []
