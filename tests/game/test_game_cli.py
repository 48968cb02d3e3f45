"""``companion game`` sub-commands on a real database file."""

from __future__ import annotations

import json

from companion.cli import main
from companion.session import GameSession


def test_game_cli_new_roll_submit_undo_export_import(tmp_path, capsys):
    db = str(tmp_path / "g.db")
    assert main(["game", "new", "--db", db, "--players", "Ann:Dwarves,Ben:Goblins"]) == 0
    assert "Ann must decide" in capsys.readouterr().out
    assert main(["game", "roll", "--db", db, "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "faces:" in out and "Ben must decide" in out
    assert main(["game", "submit", "--db", db, json.dumps({"type": "choose", "choice": "x"})]) == 1
    assert "must answer" in capsys.readouterr().err
    assert main(["game", "submit", "--db", db, "{nope"]) == 2
    assert main(["game", "undo", "--db", db]) == 0
    assert "Ann must decide" in capsys.readouterr().out
    path = str(tmp_path / "g.json")
    assert main(["game", "export", "--db", db, path]) == 0
    assert main(["game", "import", "--db", str(tmp_path / "copy.db"), path]) == 0
    assert GameSession.open(tmp_path / "copy.db").pending() == GameSession.open(db).pending()
    assert main(["game", "show", "--db", str(tmp_path / "missing.db")]) == 1


def test_game_new_refuses_bad_players_and_force_before_making_a_file(tmp_path, capsys):
    """A trailing comma, an empty name, a name given twice or a force the tablet would refuse is an
    error naming the argument, and no game file is made."""
    db = tmp_path / "g.db"
    for players, force, why in (
        ("Ann:Dwarves,Ben:Goblins,", "24", "player 3"),
        (":Dwarves,Ben:Goblins", "24", "player 1"),
        ("Ann:Dwarves,ann:Goblins", "24", "must differ"),
        ("Ann:Dwarves,Ben:Goblins", "99999999999", "--force 99999999999"),
        ("Ann:Dwarves,Ben:Goblins", "2", "--force 2"),
    ):
        assert main(["game", "new", "--db", str(db), "--players", players, "--force", force]) == 2
        assert why in capsys.readouterr().err
        assert not db.exists()
    assert (
        main(["game", "new", "--db", str(db), "--players", "Ann:Dwarves,Ben:Goblins", "--force", "120"]) == 0
    )


def test_bad_faces_export_paths_and_ports_are_refused_by_name(tmp_path, capsys):
    """An empty face, an export to a folder or into a folder that is not there, and a port outside
    0-65535 are errors naming what is wrong; nothing is written beside the export path."""
    import pytest

    db = str(tmp_path / "g.db")
    assert main(["game", "new", "--db", db, "--players", "Ann:Dwarves,Ben:Goblins"]) == 0
    capsys.readouterr()
    before = GameSession.open(db).events()
    assert main(["game", "roll", "--db", db, "--faces", "", "1", "1", "1"]) == 2
    assert "face" in capsys.readouterr().err
    assert GameSession.open(db).events() == before
    # a digit int() refuses ("²".isdigit() is true) was "invalid literal for int()": now the die's faces
    assert main(["game", "roll", "--db", db, "--faces", "\u00b2", "1", "1", "1"]) == 1
    assert "has no face '\u00b2'" in capsys.readouterr().err
    assert GameSession.open(db).events() == before
    out = tmp_path / "out"
    out.mkdir()
    assert main(["game", "export", "--db", db, str(out)]) == 1
    assert "is a folder" in capsys.readouterr().err
    assert main(["game", "export", "--db", db, str(tmp_path / "nowhere" / "g.json")]) == 1
    assert "does not exist" in capsys.readouterr().err
    assert (
        not list(out.iterdir()) and not list(tmp_path.glob("*.tmp")) and not (tmp_path / "nowhere").exists()
    )
    for port in ("99999", "-1", "http"):
        with pytest.raises(SystemExit) as stop:
            main(["serve", "--db", str(tmp_path / "s.db"), "--port", port])
        assert stop.value.code == 2 and "--port" in capsys.readouterr().err


def test_game_show_refuses_a_file_that_is_not_a_game_log_and_leaves_it_as_it_was(tmp_path, capsys):
    """An empty file (or any SQLite file without a game log) is opened read-only and refused by name:
    it is left byte-identical and nothing is written beside it."""
    import sqlite3

    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE notes (x)").connection.commit()
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    for path in (empty, other):
        assert main(["game", "show", "--db", str(path)]) == 1
        err = capsys.readouterr().err
        assert f"{path} is not a game database" in err and "Traceback" not in err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_game_new_and_import_into_a_missing_folder_name_the_folder(tmp_path, capsys):
    db = str(tmp_path / "g.db")
    assert main(["game", "new", "--db", db]) == 0
    path = str(tmp_path / "g.json")
    assert main(["game", "export", "--db", db, path]) == 0
    capsys.readouterr()
    missing = tmp_path / "no-such-folder"
    for argv in (["game", "new"], ["game", "import", path]):
        assert main([*argv, "--db", str(missing / "copy.db")]) == 1
        assert f"the folder {missing} does not exist" in capsys.readouterr().err
    assert not missing.exists()


def test_game_import_of_a_tampered_file_names_the_event_and_the_key(tmp_path, capsys):
    """A game file changed by hand is refused naming the event (its seq) and the key that is wrong, and
    no database is made."""
    db = str(tmp_path / "g.db")
    assert main(["game", "new", "--db", db]) == 0
    assert main(["game", "roll", "--db", db, "--seed", "1"]) == 0
    path = tmp_path / "g.json"
    assert main(["game", "export", "--db", db, str(path)]) == 0
    capsys.readouterr()
    good = json.loads(path.read_text())
    assert good["events"][1]["seq"] == 2 and good["events"][1]["type"] == "roll"
    for key, value, needle in (
        ("faces", ["99 Nothing"], "event seq 2: action: "),
        ("action", [1], "event seq 2: action: must be an object"),
        ("type", "zzz", "event seq 2: type: 'zzz' is not its action's type 'roll'"),
        ("undone", "yes", "event seq 2: undone: must be true or false"),
        ("seq", 1, "event 2 of the log (after seq 1): seq: must be a whole number above 1, not 1"),
    ):
        doc = json.loads(json.dumps(good))
        if key == "faces":
            doc["events"][1]["action"]["faces"] = value
        else:
            doc["events"][1][key] = value
        path.write_text(json.dumps(doc))
        assert main(["game", "import", "--db", str(tmp_path / "copy.db"), str(path)]) == 1
        err = capsys.readouterr().err
        assert "does not replay to a legal game" in err and needle in err, err
        assert not (tmp_path / "copy.db").exists()
