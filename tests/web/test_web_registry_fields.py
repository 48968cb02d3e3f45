"""What the page needs of a game comes from the engine (issue 22 part 2): the games and editions a
set-up may name are the registry's (``companion.rules.GAMES``), the state names the board the page
draws (``rules.view``), and army ids arrive parsed (``ArmyId``) instead of split by the page."""

from __future__ import annotations

import pytest

from companion.rules import GAMES, ArmyId
from web.play import army_parts, effects_view


def test_the_rules_api_names_each_games_setup_names(client):
    kinds = {k["key"]: k for k in client.get("/api/forces/rules").json["games"]}
    for key, kind in GAMES.items():
        assert kinds[key]["game"] == kind.game and kinds[key]["edition"] == kind.edition
    assert kinds["battle_dice"]["game"] == "battle_dice" and kinds["battle_dice"]["edition"] is None
    assert {k["edition"] for k in kinds.values() if k["edition"]} == {"v4", "r96"}


@pytest.mark.parametrize(("field", "value"), [("edition", "v5"), ("game", "chess")])
def test_a_game_or_edition_the_engine_lacks_is_refused_naming_the_engines(client, host, field, value):
    before = client.get("/api/games").json
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True, field: value}, headers=host)
    assert r.status_code == 400 and r.json["field"] == field
    names = (
        [k.edition for k in GAMES.values() if k.edition]
        if field == "edition"
        else list(dict.fromkeys(k.game for k in GAMES.values()))
    )
    assert f"must be one of {', '.join(names)}" in r.json["message"]
    assert client.get("/api/games").json == before  # nothing changed


@pytest.mark.parametrize(
    ("setup", "view"),
    [
        ({"edition": "v4"}, "dragon_dice"),
        ({"edition": "r96"}, "dragon_dice"),
        ({"game": "battle_dice"}, "battle_dice"),
    ],
)
def test_the_state_names_the_board_of_its_game(client, host, setup, view):
    r = client.post("/api/games", json={"players": ["Ann", "Bob"], "quick": True, **setup}, headers=host)
    assert r.status_code == 201, r.json
    rules = client.get("/api/state").json["rules"]
    assert rules["view"] == view and rules["edition"] == (setup.get("edition") or "battle_dice")
    from companion.rules import ODDS_ROLLS

    assert rules["odds_rolls"] == list(ODDS_ROLLS)  # the Odds panel lists the engine's rolls


def test_army_ids_arrive_parsed():
    assert army_parts("p1@frontier") == {"owner": "p1", "location": "frontier", "placed": True}
    assert army_parts("p2@unplaced") == {"owner": "p2", "location": "unplaced", "placed": False}
    for not_an_army in ("p1", "@frontier", None, 3):
        assert army_parts(not_an_army) is None


def test_effect_targets_are_parsed_without_changing_the_sessions_state():
    state = {"effects": [{"name": "Ash Storm", "target": "p2@frontier"}, {"name": "Hidden", "target": "d17"}]}
    shown = effects_view(state)
    assert shown["effects"][0]["target_army"] == {"owner": "p2", "location": "frontier", "placed": True}
    assert shown["effects"][1]["target_army"] is None
    assert "target_army" not in state["effects"][0]  # the session's dict is left as it was
    assert effects_view({"turn": 1}) == {"turn": 1}


def test_the_last_roll_names_its_army_parsed(client, game, host):
    p = client.get("/api/state").json["pending"]
    faces = {d["uid"]: next(f for f in d["faces"] if "ID" in f) for d in p["dice"]}
    assert client.post("/api/rolls", json={"faces": faces}, headers=host).status_code == 200
    roll = client.get("/api/state").json["last_roll"]
    army = ArmyId.parse(roll["army"])
    assert roll["army_at"] == {"owner": army.owner, "location": army.location, "placed": army.placed}
    assert roll["army_at"]["owner"] == p["player"]
