"""Rolls as readings: ``GameSession.submit_readings`` takes one ``DieReading`` per die, logs them beside
the faces, and every log written before readings existed still replays (fixtures written by the code
of 2026-11-26 before this change: a V4.01c game, a 1996 game and a Battle Dice game, each with typed,
camera- and serial-sourced rolls, rolls made for the player, choices and an undo)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.readings import DieReading, ReadingError, Source, State, parse_reading
from companion.rules.core.errors import IllegalAction
from companion.session import GameSession, quick_start, replay

FIXTURES = Path(__file__).parent / "fixtures"
OLD_LOGS = sorted(FIXTURES.glob("old_*_game.json"))


# -- old logs ------------------------------------------------------------------------------------------


def test_the_fixtures_are_old_logs():
    assert [p.name for p in OLD_LOGS] == [
        "old_battle_dice_game.json",
        "old_r96_game.json",
        "old_v4_game.json",
    ]
    for path in OLD_LOGS:
        events = json.loads(path.read_text())["events"]
        rolls = [e for e in events if e["type"] == "roll"]
        assert rolls and not any("readings" in e["action"] for e in events), path.name
        assert any(e.get("undone") for e in events) or path.name.startswith("old_battle"), path.name


@pytest.mark.parametrize("path", OLD_LOGS, ids=lambda p: p.stem)
def test_an_old_log_replays_to_the_game_its_actions_make(path, tmp_path):
    """Imported (replayed and checked), the old log gives the same game as submitting its actions one by
    one to a fresh session now; and every roll the log holds is the roll the game shows after it."""
    doc = json.loads(path.read_text())
    events = doc["events"]
    imported = GameSession.import_file(tmp_path / "imported.db", path)
    fresh = GameSession.create(tmp_path / "fresh.db", events[0]["action"])
    for e in events[1:]:
        if e["type"] == "undo" or e.get("undone"):
            continue
        fresh.submit(e["action"], by=e.get("by"))
        assert fresh.state_dict().get("last_roll") == replay(
            [x for x in events if x["seq"] <= e["seq"]]
        ).state.to_dict().get("last_roll")
    a, b = imported.state_dict(), fresh.state_dict()
    for key in ("game_id", "seq", "log"):
        a.pop(key), b.pop(key)
    assert a == b
    assert imported.events() == [dict(e, at=imported.events()[k]["at"]) for k, e in enumerate(events)]
    imported.close()
    fresh.close()


def test_an_old_sqlite_log_opens_and_a_roll_with_readings_goes_on_after_it(tmp_path):
    path = FIXTURES / "old_v4_game.json"
    s = GameSession.import_file(tmp_path / "g.db", path)
    s.close()
    s = GameSession.open(tmp_path / "g.db")  # the SQLite log, replayed from disk
    while s.pending()["kind"] != "roll":
        s.submit({"type": "choose", "choice": s.pending()["choices"][0]["value"]})
    dice = s.pending()["dice"]
    [event] = s.submit_readings([DieReading.typed(d["uid"], d["faces"][0]) for d in dice])
    assert [r["die"] for r in event["action"]["readings"]] == [d["uid"] for d in dice]
    again = GameSession.open(tmp_path / "g.db")
    assert again.state_dict() == s.state_dict()
    s.close()
    again.close()


# -- new rolls -------------------------------------------------------------------------------------------


def test_a_roll_of_readings_is_the_roll_of_its_faces_and_keeps_the_readings(tmp_path):
    a, b = quick_start(tmp_path / "a.db"), quick_start(tmp_path / "b.db")
    dice = a.pending()["dice"]
    faces = [d["faces"][-1] for d in dice]
    readings = [
        DieReading(d["uid"], f, 0.9, Source.CAMERA, box=(10.0 * k, 5, 10.0 * k + 8, 13), frame=41)
        for k, (d, f) in enumerate(zip(dice, faces, strict=True))
    ]
    readings[0] = readings[0].corrected(faces[0])  # a player tapped the first die
    [event] = a.submit_readings(list(reversed(readings)), by={"role": "tablet", "source": "camera"})
    b.submit({"type": "roll", "faces": faces})
    assert event["action"]["faces"] == faces
    logged = [parse_reading(r) for r in event["action"]["readings"]]
    assert [r.die for r in logged] == [d["uid"] for d in dice]  # in the roll's order, whatever order given
    assert logged[0].source is Source.TYPED and logged[0].box == readings[0].box
    assert all(r.source is Source.CAMERA and r.confidence == 0.9 and r.frame == 41 for r in logged[1:])
    sa, sb = a.state_dict(), b.state_dict()
    assert sa["last_roll"] == sb["last_roll"] and sa["pending"] == sb["pending"]
    reopened = GameSession.open(tmp_path / "a.db")
    assert reopened.state_dict() == sa
    out = reopened.export(tmp_path / "a.json")
    copy = GameSession.import_file(tmp_path / "copy.db", out)
    assert copy.events()[-1]["action"]["readings"] == event["action"]["readings"]
    for s in (a, b, reopened, copy):
        s.close()


def test_a_smart_die_reading_keeps_its_device_once_matched_to_the_roll(tmp_path):
    s = quick_start(tmp_path / "g.db")
    dice = s.pending()["dice"]
    readings = [
        DieReading(f"px{k:04X}", d["faces"][1], source=Source.SMART_DIE, name=d["die"], face_index=1).for_die(
            d["uid"]
        )
        for k, d in enumerate(dice)
    ]
    [event] = s.submit_readings(readings, by={"role": "host", "source": "serial"})
    logged = event["action"]["readings"]
    assert [r["device"] for r in logged] == [f"px{k:04X}" for k in range(len(dice))]
    assert {r["source"] for r in logged} == {"serial"}
    s.close()


@pytest.mark.parametrize(
    "spoil, message",
    [
        (lambda rs: rs[:-1], "no face for"),
        (lambda rs: rs + rs[:1], "two readings for die"),
        (lambda rs: [DieReading.typed("nope", "ID")] + rs[1:], "'nope' is not one of the dice"),
        (lambda rs: [DieReading(rs[0].die, None, 0.8, Source.CAMERA, State.COCKED)] + rs[1:], "is cocked"),
        (
            lambda rs: (
                [DieReading(rs[0].die, None, 0.2, Source.CAMERA, State.UNREADABLE, problem="blurred")]
                + rs[1:]
            ),
            "unreadable: blurred",
        ),
        (lambda rs: [DieReading.typed(rs[0].die, "7 Potato")] + rs[1:], "Potato"),
        (
            lambda rs: [{"die": rs[0].die, "face": "ID", "source": "radio"}] + rs[1:],
            "unknown reading source 'radio'",
        ),
    ],
)
def test_a_bad_roll_of_readings_is_refused_naming_the_die_and_changes_nothing(tmp_path, spoil, message):
    s = quick_start(tmp_path / "g.db")
    readings = [DieReading.typed(d["uid"], d["faces"][0]) for d in s.pending()["dice"]]
    before = s.state_dict()
    with pytest.raises(IllegalAction, match=message):
        s.submit_readings(spoil(readings))
    assert s.state_dict() == before and len(s.events()) == 1
    s.close()


def test_readings_when_no_roll_is_pending_are_refused(tmp_path):
    s = quick_start(tmp_path / "g.db")
    seed = 0
    while (
        s.pending()["kind"] == "roll"
    ):  # rolled for the players (the same faces each time could tie forever)
        seed += 1
        s.submit({"type": "roll_for_me", "seed": seed})
    with pytest.raises(IllegalAction, match="no roll is pending"):
        s.submit_readings([DieReading.typed("u1", "ID")])
    s.close()


# -- the value type --------------------------------------------------------------------------------------


def test_a_reading_round_trips_through_json_and_refuses_what_cannot_be():
    r = DieReading(
        "u3", "2 Melee", 0.75, Source.CAMERA, box=(1, 2, 30, 40), frame=7, name="Dwarves/Thug", face_index=2
    )
    assert parse_reading(json.loads(json.dumps(r.to_dict()))) == r
    assert r.corrected("ID").source is Source.TYPED and r.corrected("ID").box == r.box
    for bad, words in [
        ({"die": "u1", "face": None}, "needs its face"),
        ({"die": "u1", "face": "ID", "state": "cocked"}, "has no face"),
        ({"die": "u1", "face": "ID", "confidence": 1.5}, "confidence"),
        ({"die": "u1", "face": "ID", "box": [5, 5, 1, 9]}, "no area"),
        ({"die": "u1", "face": "ID", "colour": "red"}, "unknown field"),
        ({"face": "ID"}, "needs 'die'"),
        (["u1", "ID"], "JSON object"),
        ({"die": "u1", "face": "ID", "likely": ["ID"]}, "only an unreadable die"),
        ({"die": "u1", "face": None, "state": "cocked", "likely": ["ID"]}, "only an unreadable die"),
        ({"die": "u1", "face": None, "state": "unreadable", "likely": "ID"}, "list of face texts"),
        ({"die": "u1", "face": None, "state": "unreadable", "likely": ["ID", ""]}, "list of face texts"),
        ({"die": "u1", "face": None, "state": "unreadable", "likely": ["ID", "ID"]}, "names a face twice"),
    ]:
        with pytest.raises(ReadingError, match=words):
            parse_reading(bad)


def test_an_unreadable_die_carries_its_likely_faces_until_a_player_taps_one():
    r = DieReading(
        "u2", None, 0.3, Source.CAMERA, State.UNREADABLE, box=(1, 2, 30, 40), likely=("ID", "2 Melee")
    )
    back = parse_reading(json.loads(json.dumps(r.to_dict())))
    assert back == r and back.likely == ("ID", "2 Melee") and not back.is_read  # a suggestion, not a face
    tapped = r.corrected("2 Melee", 3)
    assert tapped.is_read and tapped.likely == () and "likely" not in tapped.to_dict()
    assert "likely" not in DieReading.typed("u1", "ID").to_dict()  # old logs' readings are unchanged


# -- typed at the command line ---------------------------------------------------------------------------


def test_faces_typed_at_the_command_line_are_logged_as_typed_readings(tmp_path, capsys):
    from companion.cli import main

    db = str(tmp_path / "g.db")
    assert main(["game", "new", "--db", db]) == 0
    with GameSession.open(db) as s:
        dice = s.pending()["dice"]
    assert main(["game", "roll", "--db", db, "--faces", dice[0]["faces"][0]]) == 1  # too few faces
    assert "face(s) for" in capsys.readouterr().err
    assert main(["game", "roll", "--db", db, "--faces"] + ["2"] * len(dice)) == 0  # numbers on each die
    with GameSession.open(db) as s:
        event = s.events()[-1]
        pending = s.pending()
    assert event["action"]["faces"] == [d["faces"][1] for d in dice]
    assert [(r["die"], r["source"], r["confidence"]) for r in event["action"]["readings"]] == [
        (d["uid"], "typed", 1.0) for d in dice
    ]
    assert event["by"] == {"role": "cli", "source": "typed"}
    if pending and pending["kind"] == "roll":  # UID=FACE, in any order
        pairs = [f"{d['uid']}={d['faces'][0]}" for d in reversed(pending["dice"])]
        assert main(["game", "roll", "--db", db, "--faces", *pairs]) == 0
        with GameSession.open(db) as s:
            assert s.events()[-1]["action"]["faces"] == [d["faces"][0] for d in pending["dice"]]


@pytest.mark.parametrize("path", OLD_LOGS, ids=lambda p: p.stem.split("_", 1)[1])
def test_every_game_takes_a_roll_of_readings_and_replays_it(path, tmp_path):
    setup = json.loads(path.read_text())["events"][0]["action"]  # V4.01c, 1996 and Battle Dice set-ups
    s = GameSession.create(tmp_path / "g.db", setup)
    dice = s.pending()["dice"]
    [event] = s.submit_readings([DieReading(d["uid"], d["faces"][-1], 0.6, Source.CAMERA) for d in dice])
    assert [str(f) for f in event["action"]["faces"]] == [
        d["faces"][-1] for d in dice
    ]  # Battle Dice: numbers
    assert [r["confidence"] for r in event["action"]["readings"]] == [0.6] * len(dice)
    again = GameSession.open(tmp_path / "g.db")
    assert again.state_dict() == s.state_dict()
    s.close()
    again.close()
