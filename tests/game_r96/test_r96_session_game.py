"""A scripted 1996 game played through ``GameSession`` on a real SQLite file: set-up, a skirmish whose
target routs, a pursuit that acts again, counter-maneuvers, two captures and the win (R96 L33-35);
then the log replays to the same game, exports and imports.  Also ``companion game new --edition r96``."""

from __future__ import annotations

import json

import pytest
from r96_helpers import setup

from companion.cli import main
from companion.rules.core.errors import IllegalAction
from companion.session import GameSession

KIND_TO_ACTION = {
    "roll": ("roll", "faces"),
    "choice": ("choose", "choice"),
    "allocate": ("allocate", "units"),
    "cast": ("cast", "spells"),
    "reinforce": ("reinforce", "moves"),
    "retreat": ("retreat", "units"),
}

SCRIPT = [
    # set-up: order of play (Ann 2 maneuvers, Bo 0), the frontier, starting distances (placement is forced)
    ("roll", ["ID", "ID"]),
    ("roll", ["1 Save", "1 Magic"]),
    ("select_frontier", "p1"),
    ("terrain_roll", ["7"]),
    ("terrain_roll", ["6"]),
    ("terrain_roll", ["7"]),
    # turn 1, Ann, march 1: her horde skirmishes Bo's home army on face 6 (melee)
    ("march", "home-p2"),
    ("maneuver", "stay"),
    ("action", "melee"),
    ("melee_mode", "skirmish"),
    ("roll", ["1 Melee", "1 Melee"]),  # 2 melee
    ("roll", ["ID", "1 Melee"]),  # 1 save (the thug's ID), 1 ID icon and no save icon: a rout
    ("allocate", ["u8"]),  # Bo loses the mugger
    ("pursue", True),  # face 6 -> 5 (melee): Ann's horde acts again
    ("action", "melee"),
    ("melee_mode", "skirmish"),
    ("roll", ["1 Melee", "2 Melee"]),
    ("roll", ["1 Melee"]),  # 3 damage: Bo's home army is destroyed
    # march 2: Ann's home army maneuvers against Bo's horde: 2 IDs doubled by dwarves in highland
    ("march", "home-p1"),
    ("maneuver", "maneuver"),
    ("counter_maneuver", True),
    ("roll", ["ID", "ID"]),
    ("roll", ["1 Save", "1 Magic"]),
    ("direction", 1),  # face 8: Highland City captured
    ("action", "none"),
    ("retreat", []),
    # turn 2, Bo: passes
    ("march", "pass"),
    ("march", "pass"),
    ("retreat", []),
    # turn 3, Ann: her campaign army out-maneuvers Bo's at the frontier: second capture, the win
    ("march", "frontier"),
    ("maneuver", "maneuver"),
    ("counter_maneuver", True),
    ("roll", ["2 Maneuver"]),
    ("roll", ["2 Save"]),
    ("direction", 1),
]


def play(session: GameSession, script) -> list[str]:
    log = []
    for topic, answer in script:
        p = session.pending()
        assert p is not None and p["topic"] == topic, (topic, p and p["prompt"])
        kind, key = KIND_TO_ACTION[p["kind"]]
        for event in session.submit({"type": kind, key: answer, "player": p["player"]}):
            log.extend(event["log"])
    return log


def test_scripted_1996_game_with_a_rout_and_pursuit_to_victory(tmp_path):
    db = tmp_path / "r96.db"
    session = GameSession.create(db, setup(options={"routing": True}))
    log = play(session, SCRIPT)
    assert any("routs and forfeits its counter-attack" in line for line in log)
    assert "Swampland Temple turns to face 5" in log
    assert "Ann captures Highland City (R96 L612-617)" in log
    state = session.state_dict()
    assert state["edition"] == "r96" and state["options"]["routing"] is True
    assert state["winner"] == "p1" and "two terrains" in state["win_reason"] and state["over"]
    assert state["pending"] is None
    assert {t["id"]: (t["face"], t["controller"]) for t in state["terrains"]} == {
        "home-p1": (8, "p1"),
        "home-p2": (5, None),
        "frontier": (8, "p1"),
    }
    with pytest.raises(IllegalAction, match="over"):
        session.submit({"type": "choose", "choice": "pass"})
    session.close()
    # the SQLite log replays to the same game
    again = GameSession.open(db)
    assert again.state_dict()["winner"] == "p1" and again.state_dict()["terrains"] == state["terrains"]
    path = again.export(tmp_path / "r96.json")
    copy = GameSession.import_file(tmp_path / "copy.db", path)
    assert copy.state_dict()["win_reason"] == state["win_reason"]
    # undo the winning turn of the terrain: the game goes on from the choice of direction
    again.undo(1)
    assert again.pending()["topic"] == "direction" and again.state_dict()["winner"] is None


def test_quick_start_r96_session_and_roll_for_me(tmp_path):
    """A compact r96 set-up is filled in by the 1996 quick start (one dragon per 24 health + the armies)."""
    s = GameSession.create(
        tmp_path / "q.db",
        {
            "edition": "r96",
            "force_size": 24,
            "players": [{"name": "Ann", "species": "Dwarves"}, {"name": "Bo", "species": "Goblins"}],
        },
    )
    for seed in range(40):
        if s.pending()["kind"] != "roll":
            break
        s.submit({"type": "roll_for_me", "seed": seed})
    state = s.state_dict()
    assert state["edition"] == "r96" and state["force_size"] == 24
    assert len([d for d in state["dragons"] if d["owner"] == "p1"]) == 1


def test_cli_game_new_edition_r96(tmp_path, capsys):
    db = str(tmp_path / "cli.db")
    assert (
        main(["game", "new", "--db", db, "--edition", "r96", "--players", "Ann:Dwarves,Bo:Lava Elves"]) == 0
    )
    out = capsys.readouterr().out
    assert "Ann must decide" in out and "R96 L208-224" in out
    assert main(["game", "roll", "--db", db, "--seed", "2"]) == 0
    assert "faces:" in capsys.readouterr().out
    state = GameSession.open(db).state_dict()
    assert state["edition"] == "r96"
    assert main(["game", "submit", "--db", db, json.dumps({"type": "choose", "choice": "x"})]) == 1
