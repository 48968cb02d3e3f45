"""Every endpoint of the JSON API through Flask's test client, and every kind of refusal.

A refused request must answer a 4xx JSON error naming what is wrong and leave the game as it was.
"""

from __future__ import annotations

import json

import pytest


def snapshot(client):
    st = client.get("/api/state").json
    return (
        st["game_id"],
        st["seq"],
        json.dumps(st["state"], sort_keys=True),
        json.dumps(st["pending"], sort_keys=True),
    )


def pending(client):
    return client.get("/api/state").json["pending"]


def first_faces(p):
    return {d["uid"]: d["faces"][0] for d in p["dice"]}


# -- reading ------------------------------------------------------------------------------------


def test_state_without_game_is_empty_and_read_only(client):
    st = client.get("/api/state").json
    assert st["game_id"] is None and st["state"] is None and st["pending"] is None
    assert st["role"] == "viewer"
    assert {s["kind"]: s["state"] for s in st["sources"]} == {"camera": "off", "serial": "off"}


def test_health(client, game):
    assert client.get("/api/health").json["game_id"] == game


def test_state_of_a_game(client, game, host):
    st = client.get("/api/state", headers=host).json
    assert st["game_id"] == game and st["role"] == "host"
    assert st["seq"] == 1
    assert [p["name"] for p in st["state"]["players"]] == ["Ann", "Bob"]
    assert st["pending"]["kind"] == "roll" and st["pending"]["player"] == "p1"
    assert st["pending"]["dice"], "the order-of-play roll lists the Horde's dice"


def test_pages_are_served_with_local_assets_only(client):
    for path in ("/", "/table", "/roll", "/odds", "/dispute", "/new", "/host"):
        r = client.get(path)
        assert r.status_code == 200, path
        html = r.get_data(as_text=True)
        assert "http://" not in html and "https://" not in html, "no CDN: every asset is served locally"
    for asset in ("/static/app.js", "/static/app.css", "/static/icon.svg"):
        assert client.get(asset).status_code == 200
    assert client.get("/nowhere").status_code == 404


def test_security_headers_and_no_cookies(client, game, host):
    r = client.post("/api/decisions", json={"action": {"type": "roll_for_me", "seed": 1}}, headers=host)
    assert r.status_code == 200
    for resp in (r, client.get("/"), client.get("/api/state")):
        assert "Set-Cookie" not in resp.headers
        assert "script-src 'self'" in resp.headers["Content-Security-Policy"]
        assert resp.headers["X-Frame-Options"] == "DENY"


def test_event_log(client, game, host):
    client.post("/api/decisions", json={"action": {"type": "roll_for_me", "seed": 3}}, headers=host)
    log = client.get("/api/log?since=0").json
    assert log["game_id"] == game
    assert [e["type"] for e in log["events"]] == ["create", "roll"]
    assert [e["seq"] for e in client.get("/api/log?since=1").json["events"]] == [2]
    for bad in ("-1", "abc", "9" * 25):  # a number past SQLite's integers is a bad value, not a 500
        r = client.get(f"/api/log?since={bad}")
        assert r.status_code == 400 and r.json["field"] == "since"


def test_catalogue_search(client):
    r = client.get("/api/catalogue?q=Mammoth")
    dice = {d["name"]: d for d in r.json["dice"]}
    assert dice["Dwarves/Mammoth Rider"]["points"] == 3  # a unit is worth its health (V4.01c L87)
    assert len(dice["Dwarves/Mammoth Rider"]["faces"]) == 6
    terrains = client.get("/api/catalogue?kind=terrain&limit=100").json["dice"]
    assert "Terrains/Highland City" in {d["name"] for d in terrains}
    assert client.get("/api/catalogue?kind=spaceship").status_code == 400
    assert client.get("/api/catalogue?limit=lots").status_code == 400
    for query, field, allowed in (
        ("edition=v9", "edition", "v4, r96"),
        ("game=chess", "game", "dragon_dice, battle_dice"),
        ("limit=-1", "limit", "1 to 300"),
        ("limit=0", "limit", "1 to 300"),
    ):
        r = client.get(f"/api/catalogue?{query}")
        assert r.status_code == 400 and r.json["field"] == field and allowed in r.json["message"], r.json
    assert client.get("/api/catalogue?q=" + "x" * 81).status_code == 400


def test_export(client, game):
    r = client.get("/api/export")
    doc = json.loads(r.data)
    assert doc["game_id"] == game and doc["events"][0]["type"] == "create"
    assert "attachment" in r.headers["Content-Disposition"]


def test_frame_without_camera_is_a_json_404(client):
    r = client.get("/api/frame.jpg")
    assert r.status_code == 404 and r.json["error"] == "no_frame"


# -- who may change the game -------------------------------------------------------------------------


def test_unpaired_and_wrong_tokens_are_refused_without_change(client, game, host):
    before = snapshot(client)
    r = client.post("/api/decisions", json={"action": {"type": "roll_for_me", "seed": 1}})
    assert r.status_code == 401 and r.json["error"] == "not_paired"
    r = client.post(
        "/api/decisions",
        json={"action": {"type": "roll_for_me", "seed": 1}},
        headers={"X-Companion-Token": "guess"},
    )
    assert r.status_code == 403
    # a token in a cookie is not a token: no CSRF through the browser's cookie jar
    client.set_cookie("X-Companion-Token", host["X-Companion-Token"])
    r = client.post("/api/decisions", json={"action": {"type": "roll_for_me", "seed": 1}})
    assert r.status_code == 401
    assert snapshot(client) == before


def test_pairing_gives_a_tablet_token_for_this_game_only(client, game, host):
    code = client.get("/api/pairing", headers=host).json["code"]
    r = client.post("/api/pair", json={"code": "WRONG1", "name": "kitchen tablet"})
    assert r.status_code == 403 and r.json["error"] == "wrong_pairing_code"
    r = client.post("/api/pair", json={"code": code.lower(), "name": "kitchen tablet"})
    assert r.status_code == 200
    tablet = {"X-Companion-Token": r.json["token"]}
    assert client.get("/api/state", headers=tablet).json["role"] == "tablet"
    r = client.post("/api/decisions", json={"action": {"type": "roll_for_me", "seed": 2}}, headers=tablet)
    assert r.status_code == 200 and r.json["seq"] == 2
    # tablets cannot see the pairing code; viewers are told to pair
    assert client.get("/api/pairing", headers=tablet).status_code == 403
    assert client.get("/api/pairing").status_code == 401
    assert [t["name"] for t in client.get("/api/pairing", headers=host).json["tablets"]] == ["kitchen tablet"]
    # a new code unpairs every tablet
    rot = client.post("/api/pairing/rotate", json={}, headers=host).json
    assert rot["revoked"] == 1 and rot["code"] != code
    assert client.get("/api/state", headers=tablet).json["role"] == "viewer"


def test_pairing_qr_code_is_server_side_svg(app, client, game, host):
    app.config["PUBLIC_URL"] = "http://192.168.1.20:8765"  # the address tablets reach (web.server sets it)
    body = client.get("/api/pairing", headers=host).json
    assert body["svg"].lstrip().startswith("<svg") and "<script" not in body["svg"]
    assert body["url"].endswith(f"/#pair={body['code']}")


def test_pair_without_game(client):
    r = client.post("/api/pair", json={"code": "ABCDEF"})
    assert r.status_code == 409 and r.json["error"] == "no_game"


def test_a_tablet_cannot_replace_the_game_and_stays_paired_when_the_host_does(client, game, host):
    code = client.get("/api/pairing", headers=host).json["code"]
    tablet = {"X-Companion-Token": client.post("/api/pair", json={"code": code}).json["token"]}
    r = client.post("/api/games", json={"players": ["Cy", "Di"], "quick": True}, headers=tablet)
    assert r.status_code == 403 and client.get("/api/state").json["game_id"] == game
    r = client.post("/api/games", json={"players": ["Cy", "Di"], "quick": True}, headers=host)
    assert r.status_code == 201 and r.json["game_id"] != game
    # tablets are paired with the table: the host's new game keeps them paired
    assert client.get("/api/state", headers=tablet).json["role"] == "tablet"


# -- request bodies ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"players": "Ann, Bob"}, 400, "players"),
        ({"players": ["Ann"]}, 400, "players"),
        ({"players": ["Ann", "ann"]}, 400, "players"),
        ({"players": ["Ann", ""]}, 400, "players[1]"),
        ({"players": ["Ann", "Bob"], "edition": "v9"}, 400, "edition"),
        ({"players": ["Ann", "Bob"], "force_size": 1000}, 400, "force_size"),
        ({"players": ["Ann", "Bob"], "colour": "red"}, 400, "colour"),
        ({"players": ["Ann", "Bob"], "quick": "yes"}, 400, "quick"),
        ({}, 400, "players"),
    ],
)
def test_create_game_body_errors(client, host, body, status, field):
    r = client.post("/api/games", json=body, headers=host)
    assert r.status_code == status
    assert r.json["field"] == field and r.json["message"]
    assert client.get("/api/state").json["game_id"] is None


def test_edition_r96_starts_the_1996_game_flow(client, host):
    r = client.post(
        "/api/games", json={"players": ["Ann", "Bob"], "quick": True, "edition": "r96"}, headers=host
    )
    assert r.status_code == 201
    state = client.get("/api/state").json
    assert (
        state["game_id"] and state["state"]["edition"] == "r96" and state["pending"]["rule"] == "R96 L208-224"
    )


def test_illegal_setup_is_refused_with_the_rule(client, host):
    forces = [
        {"player": "Ann", "armies": {"home": ["Dwarves/Mammoth Rider"], "horde": [], "campaign": []}},
        {"player": "Bob", "armies": {"home": ["Goblins/Thug"], "horde": [], "campaign": []}},
    ]
    r = client.post(
        "/api/games", json={"players": ["Ann", "Bob"], "forces": forces, "force_size": 24}, headers=host
    )
    assert r.status_code == 422 and r.json["error"] == "illegal_action"
    assert r.json["rule"].startswith("V4.01c")
    assert client.get("/api/state").json["game_id"] is None


def test_malformed_bodies(client, game, host):
    before = snapshot(client)
    r = client.post("/api/decisions", data="{not json", headers={**host, "Content-Type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json["message"]
    r = client.post("/api/decisions", data="action=1", headers={**host, "Content-Type": "text/plain"})
    assert r.status_code == 415
    r = client.post("/api/decisions", json=["a", "list"], headers=host)
    assert r.status_code == 400 and "JSON object" in r.json["message"]
    r = client.post("/api/decisions", json={"action": "roll"}, headers=host)
    assert r.status_code == 400 and r.json["field"] == "action"
    r = client.post("/api/undo", json={"n": 0}, headers=host)
    assert r.status_code == 400 and r.json["field"] == "n"
    r = client.post("/api/undo", json={"n": True}, headers=host)
    assert r.status_code == 400
    r = client.post(
        "/api/decisions",
        data=b"{" + b" " * 300_000 + b"}",
        headers={**host, "Content-Type": "application/json"},
    )
    assert r.status_code == 413 and r.json["error"] == "request_entity_too_large"
    assert snapshot(client) == before


def test_illegal_action_is_refused_with_its_reason(client, game, host):
    before = snapshot(client)
    r = client.post(
        "/api/decisions", json={"action": {"type": "choose", "choice": "first_turn"}}, headers=host
    )
    assert r.status_code == 422
    assert r.json["error"] == "illegal_action" and "'roll'" in r.json["message"]
    r = client.post("/api/decisions", json={"action": {"type": "launch"}}, headers=host)
    assert r.status_code == 422 and "unknown action type" in r.json["message"]
    assert snapshot(client) == before


def test_stale_view_is_refused(client, game, host):
    client.post(
        "/api/decisions", json={"action": {"type": "roll_for_me", "seed": 1}, "expect_seq": 1}, headers=host
    )
    before = snapshot(client)
    r = client.post(
        "/api/decisions", json={"action": {"type": "roll_for_me", "seed": 1}, "expect_seq": 1}, headers=host
    )
    assert r.status_code == 409 and r.json["error"] == "stale"
    assert snapshot(client) == before


def test_an_expect_seq_ahead_of_the_log_is_not_called_moved_on(client, game, host):
    before = snapshot(client)
    last = client.get("/api/state").json["seq"]
    r = client.post(
        "/api/decisions",
        json={"action": {"type": "roll_for_me", "seed": 1}, "expect_seq": last + 5},
        headers=host,
    )
    assert r.status_code == 409 and r.json["error"] == "stale" and r.json["field"] == "expect_seq"
    assert f"expect_seq {last + 5} is ahead of the game's log (its last event is {last})" in r.json["message"]
    assert "moved on" not in r.json["message"]
    assert snapshot(client) == before


def test_a_new_game_takes_expect_seq_of_the_game_on_screen(client, host):
    """POST /api/games accepts expect_seq as every changing call does: the last event of the game on
    screen (0 with none); a page that did not see it is refused (409 stale) and nothing is made."""
    new = {"players": ["Ann", "Bob"], "quick": True}
    first = client.post("/api/games", json={**new, "expect_seq": 0}, headers=host)
    assert first.status_code == 201, first.json
    seq = client.get("/api/state").json["seq"]
    r = client.post("/api/games", json={**new, "expect_seq": 0}, headers=host)
    assert r.status_code == 409 and r.json["error"] == "stale"
    assert client.get("/api/state").json["game_id"] == first.json["game_id"]
    second = client.post("/api/games", json={**new, "expect_seq": seq}, headers=host)
    assert second.status_code == 201 and second.json["game_id"] != first.json["game_id"]


def test_unexpected_errors_reach_clients_without_traceback(app, client):
    def boom():
        raise RuntimeError("secret internals at /home/x/app.py line 3")

    app.add_url_rule("/api/boom", "boom", boom)
    r = client.get("/api/boom")
    assert r.status_code == 500 and r.json["error"] == "internal_error"
    text = r.get_data(as_text=True)
    assert "Traceback" not in text and "secret" not in text


# -- rolls, corrections, decisions, undo ------------------------------------------------------------


def test_roll_by_tapped_faces(client, game, host):
    p = pending(client)
    faces = {d["uid"]: next(f for f in d["faces"] if "ID" in f) for d in p["dice"]}
    r = client.post("/api/rolls", json={"faces": faces}, headers=host)
    assert r.status_code == 200 and r.json["events"][0]["action"]["faces"] == list(faces.values())
    st = client.get("/api/state").json
    health = sum(int(f.split()[0]) for f in faces.values())
    assert st["last_roll"]["total"] == health  # order of play counts IDs as maneuvers (V4.01c L312-316)
    assert st["last_roll"]["steps"] and all("text" in s for s in st["last_roll"]["steps"])
    assert st["pending"]["player"] == "p2"


@pytest.mark.parametrize(
    ("faces", "code"),
    [
        ({"nope": "1 ID"}, "unknown_die"),
        ("first:9 Melee", "impossible_face"),
        ("first:99", "impossible_face"),
    ],
)
def test_roll_errors(client, game, host, faces, code):
    p = pending(client)
    if isinstance(faces, str):
        face = faces.split(":", 1)[1]
        faces = {p["dice"][0]["uid"]: int(face) if face.isdigit() else face}
    before = snapshot(client)
    r = client.post("/api/rolls", json={"faces": faces}, headers=host)
    assert r.status_code == 400 and r.json["error"] == code and r.json["field"].startswith("faces.")
    assert snapshot(client) == before


def test_incomplete_roll_is_refused(client, game, host):
    p = pending(client)
    one = {p["dice"][0]["uid"]: p["dice"][0]["faces"][0]}
    r = client.post("/api/rolls", json={"faces": one}, headers=host)
    assert r.status_code == 400 and r.json["error"] == "incomplete_roll"
    assert client.get("/api/state").json["seq"] == 1


def test_staged_reading_corrected_then_confirmed(client, game, host, app):
    p = pending(client)
    faces = first_faces(p)
    r = client.post("/api/rolls", json={"faces": faces, "confirm": False, "source": "camera"}, headers=host)
    assert r.status_code == 200 and r.json["reading"]["faces"] == faces
    assert client.get("/api/state").json["seq"] == 1, "a staged reading is not yet part of the game"
    die = p["dice"][0]
    other = next(f for f in die["faces"] if f != faces[die["uid"]])
    r = client.post("/api/corrections", json={"uid": die["uid"], "face": other}, headers=host)
    assert r.status_code == 200 and r.json["reading"]["faces"][die["uid"]] == other
    assert r.json["reading"]["corrected"] == [die["uid"]]
    # impossible corrections change nothing
    r = client.post("/api/corrections", json={"uid": die["uid"], "face": "7 Dragon"}, headers=host)
    assert r.status_code == 400 and r.json["error"] == "impossible_face"
    r = client.post("/api/corrections", json={"uid": "u999", "face": "1 ID"}, headers=host)
    assert r.status_code == 400 and r.json["error"] == "unknown_die"
    assert client.get("/api/state").json["reading"]["faces"][die["uid"]] == other
    r = client.post("/api/rolls/confirm", json={}, headers=host)
    assert r.status_code == 200
    assert r.json["events"][0]["action"]["faces"][0] == other
    assert client.post("/api/rolls/confirm", json={}, headers=host).status_code == 409


def test_correction_of_a_camera_reading_is_saved_as_a_labelled_image(client, game, host, app, tmp_path):
    import numpy as np

    from companion.rules.catalogue import load_catalogue
    from companion.vision.learning import export_corrections
    from web.play import reading_from_faces

    store = app.extensions["game_store"]
    p = pending(client)
    frame = np.full((120, 200, 3), 90, np.uint8)
    boxes = {d["uid"]: [10 + 40 * i, 20, 40 + 40 * i, 50] for i, d in enumerate(p["dice"])}
    with app.app_context():
        store.set_reading(reading_from_faces(store, first_faces(p), "camera", boxes=boxes, frame=frame))
    assert client.get("/api/frame.jpg").data[:2] == b"\xff\xd8", "the frame is served as JPEG"
    die = p["dice"][1]
    other = next(f for f in die["faces"] if f != die["faces"][0])
    r = client.post("/api/corrections", json={"uid": die["uid"], "face": other}, headers=host)
    assert r.status_code == 200 and not (tmp_path / "corrections").exists()  # kept once confirmed
    saved = client.post("/api/rolls/confirm", json={}, headers=host).json["record"]
    assert saved and saved.startswith(str(tmp_path / "corrections"))
    label = json.loads(open(saved[:-4] + ".json").read())
    fixed = next(d for d in label["dice"] if d["die"] == die["die"] and d["box"] == boxes[die["uid"]])
    face = load_catalogue()[die["die"]].faces[die["faces"].index(other)]
    assert (fixed["icon"], fixed["count"], fixed["kind"]) == (face.name, face.count, "d6")
    assert len(label["dice"]) == len(p["dice"])
    # the learning loop takes it as a training image
    data_yaml, images = export_corrections(tmp_path / "corrections", tmp_path / "dataset")
    assert images == 1 and data_yaml.exists()


def test_corrections_need_a_reading(client, game, host):
    r = client.post("/api/corrections", json={"uid": "u1", "face": "1 ID"}, headers=host)
    assert r.status_code == 409 and r.json["error"] == "no_reading"


def win_order_of_play(client, host):
    """Ann rolls all IDs, Bob no maneuver: Ann must choose first turn or frontier."""
    client.post(
        "/api/decisions",
        json={"action": {"type": "roll", "faces": ["ID"] * len(pending(client)["dice"])}},
        headers=host,
    )
    faces = [
        next(f for f in d["faces"] if "ID" not in f and "Maneuver" not in f) for d in pending(client)["dice"]
    ]
    client.post("/api/decisions", json={"action": {"type": "roll", "faces": faces}}, headers=host)
    assert pending(client)["kind"] == "choice"


def test_rolls_when_no_roll_is_pending(client, game, host):
    win_order_of_play(client, host)
    r = client.post("/api/rolls", json={"faces": {}}, headers=host)
    assert r.status_code == 409 and r.json["error"] == "no_roll_pending"


def test_decision_choice_and_undo(client, game, host):
    win_order_of_play(client, host)
    p = pending(client)
    assert p["kind"] == "choice" and {c["value"] for c in p["choices"]} == {"first_turn", "select_frontier"}
    seq = client.get("/api/state").json["seq"]
    r = client.post(
        "/api/decisions", json={"action": {"type": "choose", "choice": "first_turn"}}, headers=host
    )
    assert r.status_code == 200
    assert pending(client)["prompt"] != p["prompt"]
    r = client.post("/api/undo", json={"n": 1}, headers=host)
    assert r.status_code == 200 and r.json["seq"] == seq + 2
    assert pending(client)["prompt"] == p["prompt"], "undo brings the decision back"
    r = client.post("/api/undo", json={"n": 50}, headers=host)
    assert r.status_code == 422 and "can be undone" in r.json["message"]


def test_changes_without_a_game(client, host):
    for path, body in (
        ("/api/decisions", {"action": {"type": "roll_for_me", "seed": 1}}),
        ("/api/undo", {}),
        ("/api/rolls", {"faces": {}}),
    ):
        r = client.post(path, json=body, headers=host)
        assert r.status_code == 409 and r.json["error"] == "no_game", path


def test_new_game_replaces_the_old_one_and_keeps_its_file(client, game, host, app, tmp_path):
    r = client.post(
        "/api/games", json={"players": ["Cy", "Di", "Ed"], "quick": True, "force_size": 15}, headers=host
    )
    assert r.status_code == 201
    st = client.get("/api/state").json
    assert [p["name"] for p in st["state"]["players"]] == ["Cy", "Di", "Ed"]
    # the old game keeps its own file, untouched, and stays in the table's library
    assert (tmp_path / "game.sqlite").exists()
    listed = {g["game_id"]: g for g in client.get("/api/games").json["games"]}
    assert listed[game]["file"] == "game.sqlite" and listed[game]["status"] == "in_progress"


def test_built_forces_and_terrains(client, host):
    def force(player, species):
        from companion.rules.game.quickstart import army_of

        return {
            "player": player,
            "armies": {
                "home": army_of(species, 8),
                "horde": army_of(species, 8, 1),
                "campaign": army_of(species, 8, 2),
            },
            "home_terrain": "Coastland Tower",
            "frontier_terrain": "Flatland City",
        }

    r = client.post(
        "/api/games",
        json={
            "players": ["Ann", "Bob"],
            "force_size": 24,
            "forces": [force("Ann", "Amazons"), force("Bob", "Undead")],
        },
        headers=host,
    )
    assert r.status_code == 201, r.json
    st = client.get("/api/state").json["state"]
    assert {t["name"] for t in st["terrains"]} == {"Coastland Tower"}
    assert {p["force_points"] for p in st["players"]} == {24}
    r = client.post(
        "/api/games", json={"players": ["Ann", "Bob"], "forces": [force("Zed", "Undead")]}, headers=host
    )
    assert r.status_code == 400 and r.json["field"] == "forces"


# -- odds, rules, blink --------------------------------------------------------------------------------


def test_odds_of_the_pending_roll(client, game):
    body = client.get("/api/odds?need=4").json
    dist = dict((v, p) for v, p in body["distribution"])
    assert abs(sum(dist.values()) - 1) < 1e-9
    assert body["roll"] == "maneuver" and body["dice"] == len(pending(client)["dice"])
    assert abs(body["p_at_least"] - sum(p for v, p in dist.items() if v >= 4)) < 1e-12
    assert client.get("/api/odds?for=dancing").status_code == 400
    assert client.get("/api/odds?need=x").status_code == 400
    for bad in ("-5", "1001", "99999999999999999999999"):
        r = client.get(f"/api/odds?need={bad}")
        assert r.status_code == 400 and r.json["field"] == "need" and bad in r.json["message"]
    assert client.get("/api/odds?need=0").status_code == 200
    assert client.get("/api/odds?army=p9@nowhere&for=melee").status_code == 400


def test_rules_search_and_citations(client):
    r = client.get("/api/rules/search?q=counter-maneuver")
    hits = r.json["hits"]
    assert hits and all("counter" in h["text"].lower() for h in hits)
    assert {d["label"] for d in r.json["documents"]} == {"V4.01c", "R96", "FAQ95", "FAQ96", "BD"}
    r = client.get("/api/rules/search?q=dragon&doc=FAQ96&limit=3")
    assert 0 < len(r.json["hits"]) <= 3 and all(h["label"] == "FAQ96" for h in r.json["hits"])
    assert client.get("/api/rules/search?q=").status_code == 400
    assert client.get("/api/rules/search?q=%22%20%2A").status_code == 400  # no words at all
    r = client.get("/api/rules/cite?ref=V4.01c L1021")
    assert "non" in r.json["hits"][0]["text"] and r.json["hits"][0]["citation"].startswith("V4.01c L1021")
    assert client.get("/api/rules/cite").status_code == 400


def test_rules_search_without_an_index(tmp_path):
    from web import create_app

    app = create_app(
        {
            "DB_PATH": str(tmp_path / "g.sqlite"),
            "START_SOURCES": False,
            "RULES_INDEX": str(tmp_path / "none.sqlite"),
        }
    )
    r = app.test_client().get("/api/rules/search?q=melee")
    assert r.status_code == 200 and r.json["hits"] == [] and "companion rules index" in r.json["message"]


def test_blink_without_bridge(client, game, host):
    r = client.post("/api/sources/blink", json={"die_id": "pxA7F3"}, headers=host)
    assert r.status_code == 409 and r.json["error"] == "no_bridge"
    assert client.post("/api/sources/blink", json={}, headers=host).status_code == 400


def test_odds_of_a_save_roll_know_what_is_needed(client, game, host):
    """Play to the first save roll (seeded rolls, first choices) and ask its odds."""
    for seed in range(200):
        p = pending(client)
        if p["kind"] == "roll" and p.get("roll") == "save":
            break
        if p["kind"] == "roll":
            action = {"type": "roll_for_me", "seed": seed}
        elif p["kind"] == "choice":
            values = [c["value"] for c in p["choices"]]
            action = {
                "type": "choose",
                "choice": next((v for v in values if v in ("melee", "missile", "maneuver")), values[0]),
            }
        elif p["kind"] == "allocate":
            action = {"type": "allocate", "units": p["choices"][0]["value"]}
        else:
            action = {
                "type": p["answer"],
                **(
                    {"spells": []}
                    if p["kind"] == "cast"
                    else {"moves": {}}
                    if p["kind"] == "reinforce"
                    else {"units": []}
                ),
            }
        assert client.post("/api/decisions", json={"action": action}, headers=host).status_code == 200
    else:
        raise AssertionError("no save roll came up")
    hits = int(p["prompt"].split("against ")[1].split()[0])
    body = client.get("/api/odds").json
    assert body["roll"] == "save" and body["need"] == hits and "stop every hit" in body["need_note"]
    assert body["p_at_least"] == pytest.approx(sum(q for v, q in body["distribution"] if v >= hits))


def test_battle_dice_game_by_taps(client, host):
    r = client.post("/api/games", json={"players": ["Reds", "Blues"], "game": "battle_dice"}, headers=host)
    assert r.status_code == 201, r.json
    st = client.get("/api/state").json
    assert st["state"]["game"] == "battle_dice" and [p["name"] for p in st["state"]["players"]] == [
        "Reds",
        "Blues",
    ]
    p = st["pending"]
    assert p["kind"] == "roll" and {d["die"] for d in p["dice"]} >= {"d4", "d6", "d20"}
    faces = {d["uid"]: d["faces"][-1] for d in p["dice"]}
    r = client.post("/api/rolls", json={"faces": faces}, headers=host)
    assert r.status_code == 200
    army = next(a for a in client.get("/api/state").json["state"]["armies"] if a["owner"] == "A")
    assert {u["uid"]: str(u["face"]) for u in army["units"]} == faces
    assert "Dragon Dice rolls only" in client.get("/api/odds").json["message"]
    r = client.post("/api/games", json={"players": ["A", "B", "C"], "game": "battle_dice"}, headers=host)
    assert r.status_code == 400 and r.json["field"] == "players"


def test_battle_dice_faces_in_other_digits_are_refused_not_a_500(client, host):
    """A face such as "²" (its isdigit() is true, but int() refuses it) was a 500; now a 422 naming it."""
    r = client.post("/api/games", json={"players": ["Reds", "Blues"], "game": "battle_dice"}, headers=host)
    assert r.status_code == 201, r.json
    n = len(client.get("/api/state").json["pending"]["dice"])
    seq = client.get("/api/log").json["events"][-1]["seq"]
    for faces, message in ((["\u00b2"] + [1] * (n - 1), "whole number"), ({"d\u00b2": [1]}, "must name")):
        r = client.post("/api/decisions", json={"action": {"type": "roll", "faces": faces}}, headers=host)
        assert r.status_code == 422 and r.json["error"] == "illegal_action", r.json
        assert message in r.json["message"], r.json
    assert client.get("/api/log").json["events"][-1]["seq"] == seq


def test_odds_count_the_spells_in_force(client, game, app):
    """An Ash Storm on the terrain of the army about to roll (V4.01c L2297-2301) lowers its odds."""
    before = client.get("/api/odds?need=2").json
    owner, _, location = before["army"].partition("@")
    session = app.extensions["game_store"].session
    session.game.add_effect("Ash Storm", owner="p2", target=location, castings=2)
    after = client.get("/api/odds?need=2").json
    assert any("Ash Storm" in note for note in after["notes"])
    assert after["p_at_least"] < before["p_at_least"]


def test_optional_components_are_chosen_per_game(app, client, host):
    """V4.01c L2506-2508: the New game form's optional components reach the engine's set-up."""
    from companion.rules.game.advanced.options import ELDARIM, ITEMS, MINOR_TERRAINS, is_on

    r = client.post(
        "/api/games",
        json={"players": ["Ann", "Bob"], "quick": True, "advanced": ["items", "eldarim"]},
        headers=host,
    )
    assert r.status_code == 201, r.json
    game = app.extensions["game_store"].session.game
    assert game.setup["advanced"] == ["items", "eldarim"]
    assert is_on(game, ITEMS) and is_on(game, ELDARIM) and not is_on(game, MINOR_TERRAINS)


@pytest.mark.parametrize(
    "body",
    [
        {"players": ["Ann", "Bob"], "quick": True, "advanced": ["castles"]},
        {"players": ["Ann", "Bob"], "quick": True, "advanced": "items"},
        {"players": ["Ann", "Bob"], "quick": True, "edition": "r96", "advanced": ["items"]},
    ],
)
def test_bad_optional_components_are_refused(client, host, body):
    r = client.post("/api/games", json=body, headers=host)
    assert 400 <= r.status_code < 500 and r.json["field"].startswith("advanced") and r.json["message"]
    assert client.get("/api/state").json["game_id"] is None
