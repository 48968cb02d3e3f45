"""`GET /api/odds` in every edition, and the army the odds are about carried by the decision itself
(``odds_army`` / ``odds_roll`` in the pending decision), so the page never guesses which army."""

from __future__ import annotations

import pytest

from companion.rules.odds import army_odds


def pending(client):
    return client.get("/api/state").json["pending"]


def answer(p: dict, seed: int) -> dict:
    """A legal answer: roll for me, else the first choice (preferring to act and to counter)."""
    if p["kind"] == "roll":
        return {"type": "roll_for_me", "seed": seed}
    if p["kind"] == "choice":
        values = [c["value"] for c in p["choices"]]
        return {
            "type": "choose",
            "choice": next(
                (v for v in values if v in ("melee", "missile", "maneuver", "counter")), values[0]
            ),
        }
    if p["kind"] == "allocate":
        return {"type": "allocate", "units": p["choices"][0]["value"]}
    return {
        "type": p["answer"],
        **(
            {"spells": []}
            if p["kind"] == "cast"
            else {"moves": {}}
            if p["kind"] == "reinforce"
            else {"units": []}
        ),
    }


def play_until(client, host, done, limit: int = 300) -> dict:
    for seed in range(limit):
        p = pending(client)
        assert p is not None, "the game ended"
        if done(p):
            return p
        r = client.post("/api/decisions", json={"action": answer(p, seed)}, headers=host)
        assert r.status_code == 200, r.json
    raise AssertionError("no such decision came up")


@pytest.fixture
def r96_game(client, host):
    r = client.post(
        "/api/games", json={"players": ["Ann", "Bob"], "quick": True, "edition": "r96"}, headers=host
    )
    assert r.status_code == 201, r.json
    return r.json["game_id"]


def test_odds_of_the_pending_roll_in_a_1996_game(client, r96_game):
    p = pending(client)
    assert p["kind"] == "roll" and p["edition"] == "r96"
    r = client.get("/api/odds?need=3")
    assert r.status_code == 200, r.json
    body = r.json
    assert body["roll"] == p["roll"] and body["dice"] == len(p["dice"])
    want = army_odds([d["die"] for d in p["dice"]], p["roll"], terrain=None, edition="r96")
    got = dict((v, q) for v, q in body["distribution"])
    assert got == pytest.approx({v: float(q) for v, q in enumerate(want.pmf) if q > 0})


def test_odds_of_a_1996_army_with_a_spell_in_force(client, host, r96_game, app):
    """The 1996 spells reach the odds (no 500); the odds say plainly that this edition's spell
    modifiers are left out of the figures rather than apply the V4.01c ones."""
    p = play_until(client, host, lambda p: p["topic"] == "march")
    army = next(
        a for a in client.get("/api/state").json["state"]["armies"] if a["location"] not in ("reserve",)
    )
    before = client.get(f"/api/odds?army={army['id']}&for=melee&need=2")
    assert before.status_code == 200, before.json
    game = app.extensions["game_store"].session.game
    other = next(pid for pid in ("p1", "p2") if pid != army["owner"])
    game.add_effect("Ash Storm", other, army["location"], "start", other, castings=2)
    after = client.get(f"/api/odds?army={army['id']}&for=melee&need=2").json
    assert any("not included" in n for n in after["notes"]), after["notes"]
    assert not any("not included" in n for n in before.json["notes"])
    assert after["distribution"] == before.json["distribution"]
    assert p["topic"] == "march"


@pytest.mark.parametrize("topic", ["maneuver", "action"])
def test_a_v4_decision_names_the_army_its_odds_are_about(client, host, game, topic):
    """The maneuver and action questions are about the marching army: the decision says so, and the
    odds page opened on it (no parameters) shows that army, not the first army of the table."""
    p = play_until(client, host, lambda p: p["topic"] == topic)
    state = client.get("/api/state").json["state"]
    marching = [a for a in state["armies"] if a["owner"] == p["player"] and a["location"] != "reserve"]
    assert p["odds_army"] in {a["id"] for a in marching}
    body = client.get("/api/odds").json
    assert body["army"] == p["odds_army"] and "distribution" in body
    if topic == "maneuver":
        assert p["odds_roll"] == "maneuver" and body["roll"] == "maneuver"


def test_a_roll_decision_names_its_army_and_roll(client, game):
    p = pending(client)
    assert p["kind"] == "roll" and p["odds_army"] == p["army"] and p["odds_roll"] == p["roll"]


def test_a_1996_counter_maneuver_names_the_countering_army(client, host, r96_game):
    p = play_until(client, host, lambda p: p["topic"] in ("counter_maneuver", "action"), limit=600)
    assert p["odds_army"].startswith(p["player"] + "@")
