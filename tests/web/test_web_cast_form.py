"""The cast form: each spell with the kind of target the rules give it (V4.01c L2118-2156), combined
castings for cumulative spells, several spells in one announcement, Cantrip magic for spells marked C."""

from __future__ import annotations

import random

from test_web_browser import api, go, host_token, new_page, state

from companion.rules.game import random_answer
from companion.session import GameSession


def _action_towards_magic(game, pending: dict, rng: random.Random) -> dict:
    """Play on, choosing magic actions and rolling magic, until magic spells are to be announced."""
    if pending["kind"] == "choice":
        values = [c["value"] for c in pending["choices"]]
        for want in ("magic", "maneuver"):
            if want in values:
                return {"type": "choose", "choice": want}
    if pending["kind"] == "roll" and pending.get("roll") == "magic":
        faces = []
        for d in pending["dice"]:
            magic = [f for f in d["faces"] if f.endswith(" Magic")] or [
                f for f in d["faces"] if f.endswith("ID")
            ]
            faces.append(
                max(magic, key=lambda f: int(f.split()[0]) if f.split()[0].isdigit() else 1)
                if magic
                else d["faces"][0]
            )
        return {"type": "roll", "faces": faces}
    return random_answer(game, rng)


def drive_to_cast(session: GameSession, submit) -> dict:
    rng = random.Random(5)
    for _ in range(600):
        p = session.pending()
        if p["kind"] == "cast" and p.get("magic", 0) >= 2 and not p.get("cantrip"):
            return p
        submit(_action_towards_magic(session.game, p, rng))
    raise AssertionError("no magic action reached")


def test_cast_options_give_each_spell_its_target_kind(app, client, game, host):
    store = app.extensions["game_store"]
    drive_to_cast(store.session, store.submit)
    o = client.get("/api/state").json["pending"]["cast_options"]
    assert o["spells"] and {s["target"] for s in o["spells"]} <= {
        "army",
        "terrain",
        "unit",
        "units",
        "dua",
        "army_or_terrain",
    }
    by_name = {s["spell"]: s for s in o["spells"]}
    if "Stone Skin" in by_name:
        assert by_name["Stone Skin"]["target"] == "army" and by_name["Stone Skin"]["cumulative"]
    assert all(s["cost"] * 1 <= o["magic"] and s["max_castings"] >= 1 for s in o["spells"])
    assert o["units"] and all(u["value"].startswith("u") for u in o["units"])
    assert o["duas"] and all(d["value"].startswith("dua:") for d in o["duas"])


def test_a_spell_is_announced_by_taps_on_the_cast_form(browser, serve):
    server = serve()
    token = host_token(server)
    api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True}, token)
    rng = random.Random(5)
    for _ in range(600):  # played over HTTP, as tablets would
        p = state(server)["pending"]
        if p["kind"] == "cast" and p.get("magic", 0) >= 2 and not p.get("cantrip"):
            break
        with GameSession.open(server.db) as s:
            action = _action_towards_magic(s.game, p, rng)
        api(server, "POST", "/api/decisions", {"action": action}, token)
    else:
        raise AssertionError("no magic action reached")
    options = p["cast_options"]["spells"]
    army_spell = next((i for i, s in enumerate(options) if s["target"] == "army"), None)
    assert army_spell is not None, options
    page = new_page(browser, server.host_url)
    page.wait_for_selector("#cast-spell")
    page.select_option("#cast-spell", str(army_spell))
    assert "army" in page.inner_text("#cast-hint")
    page.select_option("#cast-target-select", p["army"])
    page.click("#cast-go")
    for _ in range(100):
        if state(server)["pending"]["kind"] != "cast":
            break
        page.wait_for_timeout(100)
    with GameSession.open(server.db) as s:
        casts = [e for e in s.events(0) if e["type"] == "cast" and e["action"]["spells"]]
    assert casts and casts[-1]["action"]["spells"][0]["spell"] == options[army_spell]["spell"]
    assert casts[-1]["action"]["spells"][0]["target"] == p["army"]
    go(page, "table")
    assert page.errors == []


def test_a_1996_spell_is_announced_on_the_cast_form(browser, serve):
    """The r96 flow gives its own cast options (army and terrain spells, R96 L988-1081); the same form
    announces them."""
    server = serve()
    token = host_token(server)
    api(server, "POST", "/api/games", {"players": ["Ann", "Bob"], "quick": True, "edition": "r96"}, token)
    rng = random.Random(11)
    for _ in range(800):
        p = state(server)["pending"]
        spells = (p.get("cast_options") or {}).get("spells") or []
        if p["kind"] == "cast" and not p.get("black_due") and any(s["spell"] == "Stoneskin" for s in spells):
            break
        with GameSession.open(server.db) as s:
            action = _action_towards_magic(s.game, p, rng)
        if action["type"] == "cast":
            action = {"type": "cast", "spells": []}
        if (
            p.get("topic") == "death_magic"
        ):  # no burial: its black points would have to be spent (R96 L460-462)
            action = {"type": "choose", "choice": "none"}
        api(server, "POST", "/api/decisions", {"action": action}, token)
    else:
        raise AssertionError("no 1996 magic action with Stoneskin reached")
    index = next(i for i, s in enumerate(spells) if s["spell"] == "Stoneskin")
    own = next(t["value"] for t in p["cast_options"]["targets"] if t["value"].startswith(p["player"] + "@"))
    page = new_page(browser, server.host_url)
    page.wait_for_selector("#cast-spell")
    page.select_option("#cast-spell", str(index))
    page.select_option("#cast-target-select", own)
    page.click("#cast-go")
    for _ in range(100):
        if state(server)["pending"]["kind"] != "cast":
            break
        page.wait_for_timeout(100)
    with GameSession.open(server.db) as s:
        casts = [e for e in s.events(0) if e["type"] == "cast" and e["action"]["spells"]]
    assert casts and casts[-1]["action"]["spells"][0]["spell"] == "Stoneskin"
    assert page.errors == []
