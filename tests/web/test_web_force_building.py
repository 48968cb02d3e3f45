"""The force-building page shows the engine's numbers (``POST /api/forces/check``, the game's own set-up
rules), never its own: a 1996 game and a V4.01c game of the same size ask for different dragons, and a
1996 force short of dragons fields 3 health less per dragon.  The page used to count V4.01c's rules for
every edition (one dragon per 24 points, the whole force size, items priced): wrong for a 1996 game."""

from __future__ import annotations

from playwright.sync_api import TimeoutError as PlaywrightTimeout
from test_web_browser import go, new_page

from companion.rules import force_report


def _open_new_game(page) -> None:
    page.wait_for_selector("#role.host")
    go(page, "new")
    # the engine's list of games and the terrain list arrive after the first drawing and redraw the view
    page.wait_for_selector("#advanced input[type=checkbox]")
    page.wait_for_selector("select[aria-label='Home terrain'] option >> nth=1", state="attached")


def _limits(page, edition: str, size: int) -> None:
    """Choose the edition and the force size, and wait for the engine's check of that size."""
    measure = "health" if edition == "r96" else "points"
    for _ in range(3):  # a redraw while the field is typed in (leaving a select redraws the view) loses it
        page.select_option("#edition", edition)
        page.fill("#view-new input[type=number]", str(size))
        page.click("#checks")  # leave the field: the view is drawn as it is now
        try:
            page.wait_for_selector(
                f"#checks .check:has-text('Player 1: 0 of {size} {measure}')", timeout=10_000
            )
            return
        except PlaywrightTimeout:
            continue
    raise AssertionError(f"the page never checked a {size} force: {page.inner_text('#checks')}")


def test_the_dragons_required_are_the_engines_for_each_edition(browser, serve):
    size = 49
    v4 = force_report({}, size, {}, [])["dragons_required"]
    r96 = force_report({"edition": "r96"}, size, {}, [])["dragons_required"]
    assert (v4, r96) == (3, 2)  # V4.01c L290-292: per 24 points or part; R96 L146-149: 1 + 1 per 25 health
    page = new_page(browser, serve().host_url)
    _open_new_game(page)
    for edition, need, other in (("r96", r96, v4), ("v4", v4, r96)):
        _limits(page, edition, size)
        page.wait_for_selector(f"#checks .check:has-text('Player 1: 0 of {need} dragon(s)')")
        assert f"0 of {other} dragon(s)" not in page.inner_text("#checks")
    assert page.errors == []


def test_a_1996_force_short_of_a_dragon_is_checked_by_the_1996_rules(browser, serve):
    """R96 L146-150: 30 health needs 2 dragons; with one brought the forces are 27 health, at most 13 an
    army; an item has no place in a 1996 force (R96 L46-57)."""
    page = new_page(browser, serve().host_url)
    _open_new_game(page)
    _limits(page, "r96", 30)
    page.fill(".searchbox", "Dragons/Red Drake")
    page.wait_for_selector(".pick >> nth=0 >> text=Dragons/Red Drake")
    page.click(".pick >> nth=0")
    page.wait_for_selector(
        "#checks .check.bad:has-text('Player 1: 0 of 27 health (30 less 3 per dragon not brought)')"
    )
    assert "home: 0 health, at most 13" in page.inner_text("#checks")
    page.fill(".searchbox", "Blade Golem")
    page.wait_for_selector(".pick >> nth=0 >> text=Blade Golem")
    assert "not in this game" in page.inner_text(".pick >> nth=0")
    assert page.errors == []


def test_the_forces_check_answers_the_engines_report_and_refuses_bad_forces(client):
    force = {
        "player": "Ann",
        "armies": {"home": ["Dwarves/Footman"], "horde": [], "campaign": []},
        "dragons": ["Dragons/Red Drake"],
    }
    for edition in ("v4", "r96"):
        r = client.post("/api/forces/check", json={"edition": edition, "force_size": 30, "forces": [force]})
        assert r.status_code == 200
        setup = {"edition": edition} if edition == "r96" else {}
        assert r.json["players"][0] == {
            "player": "Ann",
            **force_report(setup, 30, force["armies"], force["dragons"]),
        }
    bad = client.post(
        "/api/forces/check", json={"force_size": 24, "forces": [{"armies": {"home": ["Nobody/Nothing"]}}]}
    )
    assert bad.status_code == 422 and "Nobody/Nothing" in bad.json["message"]
    assert client.post("/api/forces/check", json={"force_size": 0, "forces": []}).status_code == 400
    r = client.post(
        "/api/forces/check", json={"force_size": 24, "forces": [force, {"armies": {"hoard": []}}]}
    )
    assert r.status_code == 422 and "'hoard' is not an army" in r.json["message"]  # the engine's refusal
    assert r.json["rule"] == "V4.01c L296-302"
    assert client.post("/api/forces/check", json={"force_size": 24, "forces": ["x"]}).status_code == 400
    r = client.post("/api/forces/check", json={"game": "battle_dice", "force_size": 24, "forces": []})
    assert r.status_code == 400 and r.json["field"] == "game"
    dice = {d["name"]: d for d in client.get("/api/catalogue?q=Blade Golem&edition=r96").json["dice"]}
    assert dice and all(d["points"] is None for d in dice.values())


def test_the_games_offered_are_the_engines(client):
    from companion.rules import GAMES

    kinds = {k["key"]: k for k in client.get("/api/forces/rules").json["games"]}
    assert set(kinds) == set(GAMES)
    for key, kind in GAMES.items():
        assert kinds[key]["components"] == list(kind.components()) and kinds[key]["title"] == kind.title
    assert kinds["v4"]["components"] and not kinds["r96"]["components"]  # V4.01c L2506-2508 only
    assert not kinds["battle_dice"]["forces"] and kinds["r96"]["forces"]
