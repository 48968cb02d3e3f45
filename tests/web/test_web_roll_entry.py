"""The data behind the page at a glance, through the API: each rolled die's face kinds (fast entry),
the engine's total of faces being tapped (``POST /api/rolls/preview``), the game's rule documents
(named on the page, searched first)."""

from __future__ import annotations

import pytest


def pending(client) -> dict:
    return client.get("/api/state").json["pending"]


def test_each_rolled_die_lists_the_icon_kind_of_each_face(client, game):
    from companion.rules.catalogue import load_catalogue

    cat = load_catalogue()
    for d in pending(client)["dice"]:
        assert len(d["icons"]) == len(d["faces"])
        spec = cat.get(d["die"])
        assert d["icons"] == [next(f.name for f in spec.faces if f.text() == text) for text in d["faces"]]
        assert d["icons"][d["faces"].index(next(f for f in d["faces"] if f.endswith(" ID")))] == "ID"


def test_preview_is_the_total_the_game_then_gives_and_changes_nothing(client, host, game):
    p = pending(client)
    seq = client.get("/api/state").json["seq"]
    faces = {d["uid"]: next(f for f in d["faces"] if f.endswith(" ID")) for d in p["dice"]}
    first = next(iter(faces))
    part = client.post("/api/rolls/preview", json={"faces": {first: faces[first]}}, headers=host)
    assert part.status_code == 200
    assert {k: part.json[k] for k in ("complete", "tapped", "dice")} == {
        "complete": False,
        "tapped": 1,
        "dice": len(p["dice"]),
    }
    full = client.post("/api/rolls/preview", json={"faces": faces}, headers=host)
    assert full.status_code == 200 and full.json["complete"] is True
    assert full.json["steps"], "the engine's explained steps come with the total"
    st = client.get("/api/state").json
    assert st["seq"] == seq and st["pending"] == p and st["last_roll"] is None, "a preview changes nothing"
    client.post("/api/rolls", json={"faces": faces}, headers=host)
    assert client.get("/api/state").json["last_roll"]["total"] == full.json["total"]


def test_total_so_far_leaves_the_untapped_dice_out(client, host, game):
    """The order of play counts each die's ID alone (no terrain, no army-wide modifier): the totals so
    far of each die set alone add up to the total of all of them, and no die set gives nothing."""
    p = pending(client)
    faces = {d["uid"]: next(f for f in d["faces"] if f.endswith(" ID")) for d in p["dice"]}

    def preview(part: dict) -> dict:
        r = client.post("/api/rolls/preview", json={"faces": part}, headers=host)
        assert r.status_code == 200, r.json
        return r.json

    alone = [preview({uid: face}) for uid, face in faces.items()]
    assert all(a["complete"] is False and a["total"] > 0 for a in alone)
    assert sum(a["total"] for a in alone) == preview(faces)["total"]
    assert preview({})["total"] == 0


def test_preview_refuses_a_face_the_die_does_not_have_and_viewers(client, host, game):
    d = pending(client)["dice"][0]
    bad = client.post("/api/rolls/preview", json={"faces": {d["uid"]: "9 Melee"}}, headers=host)
    assert bad.status_code == 400 and "9 Melee" in bad.json["message"] and d["die"] in bad.json["message"]
    assert client.post("/api/rolls/preview", json={"faces": {}}).status_code in (401, 403)


@pytest.mark.parametrize(
    ("body", "document"),
    [
        ({}, "V4.01c"),
        ({"edition": "r96"}, "R96"),
        ({"game": "battle_dice"}, "BD"),
    ],
)
def test_state_names_the_games_rule_documents(client, host, body, document):
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True, **body}, headers=host)
    assert r.status_code == 201, r.json
    rules = client.get("/api/state").json["rules"]
    assert rules["document"] == document and rules["title"]


def test_rules_search_puts_the_games_edition_first(client, host, rules_index):
    from companion.rulesearch import RuleIndex

    with RuleIndex(rules_index) as idx:
        plain = [h.label for h in idx.search("eighth face")]
        assert plain[0] != "V4.01c" and "V4.01c" in plain  # by relevance alone, not the V4.01c passages first
        ranked = [h.label for h in idx.search("eighth face", prefer=("V4.01c",))]
    assert sorted(ranked) == sorted(plain)
    assert ranked == sorted(ranked, key=lambda x: x != "V4.01c")
    for edition, first in (("v4", "V4.01c"), ("r96", "R96")):
        client.post(
            "/api/games", json={"players": ["Ann", "Bob"], "quick": True, "edition": edition}, headers=host
        )
        labels = [h["label"] for h in client.get("/api/rules/search?q=eighth%20face").json["hits"]]
        assert labels[0] == first
        assert labels == sorted(labels, key=lambda x: x != first)


def test_preview_after_the_game_moved_on_uses_the_game_as_it_is(client, host, game):
    """The copy kept for the next tap belongs to one event: after a roll is confirmed the next roll's
    preview is that roll's total, not one made on the game as it was."""
    for _ in range(2):  # Ann's order-of-play roll, then Bob's
        p = pending(client)
        faces = {d["uid"]: next(f for f in d["faces"] if f.endswith(" ID")) for d in p["dice"]}
        shown = client.post("/api/rolls/preview", json={"faces": faces}, headers=host).json["total"]
        client.post(
            "/api/rolls/preview", json={"faces": faces}, headers=host
        )  # a second tap uses the spare copy
        assert client.post("/api/rolls", json={"faces": faces}, headers=host).status_code == 200
        last = client.get("/api/state").json["last_roll"]
        assert last["total"] == shown and [f["uid"] for f in last["faces"]] == [d["uid"] for d in p["dice"]]


def _start(client, host, body: dict) -> dict:
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True, **body}, headers=host)
    assert r.status_code == 201, r.json
    return pending(client)


def _engine(client):
    """The game as the server holds it (the engine behind the page)."""
    return client.application.extensions["game_store"].session.game


def test_1996_total_so_far_is_the_engines_total_of_the_dice_set_and_writes_nothing(client, host):
    """A 1996 game's order-of-play roll counts maneuvers only (R96 L208-224): the total so far of each
    die set alone is what the engine gives when that die's face is the whole roll, they add up to the
    total of the roll once confirmed, and no preview writes to the log."""
    p = _start(client, host, {"edition": "r96"})
    assert p["kind"] == "roll" and p["roll"] and len(p["dice"]) > 1
    engine = _engine(client)
    faces = {
        d["uid"]: next(f for f in d["faces"] if f.endswith(" Maneuver") or f.endswith(" ID"))
        for d in p["dice"]
    }
    before = client.get("/api/state").json
    log_before = list(engine.log)

    def preview(part: dict) -> dict:
        r = client.post("/api/rolls/preview", json={"faces": part}, headers=host)
        assert r.status_code == 200, r.json
        return r.json

    alone = {uid: preview({uid: face}) for uid, face in faces.items()}
    for uid, face in faces.items():
        assert alone[uid]["complete"] is False and alone[uid]["total"] is not None
        assert alone[uid]["total"] == engine.roll_so_far({uid: face})[p["roll"]]
    first_two = dict(list(faces.items())[:2])
    assert preview(first_two)["total"] == engine.roll_so_far(first_two)[p["roll"]]
    after = client.get("/api/state").json
    assert after["seq"] == before["seq"] and after["pending"] == before["pending"], (
        "a preview changes nothing"
    )
    assert engine.log == log_before
    assert client.post("/api/rolls", json={"faces": faces}, headers=host).status_code == 200
    total = client.get("/api/state").json["last_roll"]["totals"][p["roll"]]
    assert sum(a["total"] for a in alone.values()) == total and total > 0


def test_battle_dice_points_so_far_are_each_phases_count_of_the_dice_set(client, host):
    """A Battle Dice roll of all of a player's dice has no one total: the page gets, for the dice set
    so far, the points each later phase counts (BD L116-286); the dice not set count nothing, so the
    points of two dice set are those of each alone added, and nothing is written."""
    p = _start(client, host, {"game": "battle_dice"})
    assert p["kind"] == "roll" and len(p["dice"]) > 2
    engine = _engine(client)
    # each die's highest face scores in some phase; a monster shows 10: no Monster-phase step (BD L98-114)
    faces = {d["uid"]: "10" if d["die"] == "d20" else d["faces"][-1] for d in p["dice"]}
    seq = client.get("/api/state").json["seq"]
    log_before = list(engine.log)

    def preview(part: dict) -> dict:
        r = client.post("/api/rolls/preview", json={"faces": part}, headers=host)
        assert r.status_code == 200, r.json
        return r.json

    uids = list(faces)
    a, b = preview({uids[0]: faces[uids[0]]}), preview({uids[1]: faces[uids[1]]})
    both = preview({u: faces[u] for u in uids[:2]})
    assert both["complete"] is False and both["tapped"] == 2
    assert both["totals"] == engine.roll_so_far({u: faces[u] for u in uids[:2]})
    assert both["totals"] == {k: a["totals"][k] + b["totals"][k] for k in both["totals"]}
    assert sum(both["totals"].values()) > 0 and sum(preview({})["totals"].values()) == 0
    assert client.get("/api/state").json["seq"] == seq and engine.log == log_before
    bad = client.post("/api/rolls/preview", json={"faces": {uids[0]: "99"}}, headers=host)
    assert bad.status_code == 400
    # every die set: the points are those the General phase then compares (its "contest" event)
    expected = engine.roll_so_far(faces)
    assert client.post("/api/rolls", json={"faces": faces}, headers=host).status_code == 200
    other = pending(client)
    assert other["kind"] == "roll" and other["player"] != p["player"]
    assert (
        client.post(
            "/api/rolls",
            json={"faces": {d["uid"]: "10" if d["die"] == "d20" else d["faces"][0] for d in other["dice"]}},
            headers=host,
        ).status_code
        == 200
    )
    contest = next(e for e in engine.battle.events if e.get("pool") == "tactics")
    assert contest["totals"][p["player"]] == expected["tactics"] > 0


def test_taps_do_not_pile_up_replays_and_faces_asked_again_need_no_copy(client, host, game, monkeypatch):
    """Each preview needs a copy of the game replayed from its log: previews asked back to back use the
    copy being made (one replay per preview at most, never two side by side for one state), and the
    same faces asked again are answered as before without any copy."""
    import threading
    import time

    import companion.session.game_session as gs

    replays, running, most = [], [0], [0]
    lock = threading.Lock()
    real = gs.replay

    def counted(events):  # a replay as slow as late in a long game, so that taps come quicker
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
            replays.append(len(events))
        try:
            time.sleep(0.2)
            return real(events)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(gs, "replay", counted)
    p = pending(client)
    faces = {d["uid"]: next(f for f in d["faces"] if f.endswith(" ID")) for d in p["dice"]}
    uids = list(faces)
    answers = []
    for k in range(1, len(uids) + 1):  # taps quicker than a replay: no gap between them
        r = client.post("/api/rolls/preview", json={"faces": {u: faces[u] for u in uids[:k]}}, headers=host)
        assert r.status_code == 200, r.json
        answers.append(r.json)

    def settled() -> int:
        for t in threading.enumerate():
            if t.name == "preview-spare":
                t.join(10)
        return len(replays)

    assert settled() <= len(uids) + 1 and most[0] == 1
    before = len(replays)
    again = client.post("/api/rolls/preview", json={"faces": {uids[0]: faces[uids[0]]}}, headers=host)
    assert again.json == answers[0] and settled() == before  # asked before: no replay
    client.post("/api/rolls", json={"faces": faces}, headers=host)  # the game moves on: nothing kept is used
    assert client.get("/api/state").json["last_roll"]["total"] == answers[-1]["total"]
