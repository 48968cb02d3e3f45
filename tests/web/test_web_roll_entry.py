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
    assert {k: part.json[k] for k in ("complete", "tapped", "dice")} == {"complete": False, "tapped": 1,
                                                                         "dice": len(p["dice"])}
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


@pytest.mark.parametrize(("body", "document"), [
    ({}, "V4.01c"), ({"edition": "r96"}, "R96"), ({"game": "battle_dice"}, "BD"),
])
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
        client.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True, "edition": edition}, headers=host)
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
        client.post("/api/rolls/preview", json={"faces": faces}, headers=host)  # a second tap uses the spare copy
        assert client.post("/api/rolls", json={"faces": faces}, headers=host).status_code == 200
        last = client.get("/api/state").json["last_roll"]
        assert last["total"] == shown and [f["uid"] for f in last["faces"]] == [d["uid"] for d in p["dice"]]
