"""The durable session: SQLite event log, replay, undo, export/import, bad input, SIGKILL."""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from companion.rules.game import GameRuleError, IllegalSetup, random_answer
from companion.session import GameSession, SessionError, quick_start


def play(session: GameSession, n: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    events = []
    for _ in range(n):
        if session.pending() is None:
            break
        events += session.submit(random_answer(session.game, rng))
    return events


def test_create_open_state_and_pending(tmp_path):
    db = tmp_path / "g.db"
    s = quick_start(db)
    p = s.pending()
    assert p["kind"] == "roll" and p["player"] == "p1" and p["player_name"] == "Alice" and p["dice"]
    state = s.state_dict()
    assert state["game_id"] == s.game_id and state["phase"] == "setup" and state["seq"] == 1
    assert {pl["name"] for pl in state["players"]} == {"Alice", "Bob"}
    json.dumps(state)  # JSON-able
    mode = sqlite3.connect(db).execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    s.close()
    again = GameSession.open(db)
    assert again.game_id == s.game_id and again.pending() == p


def test_submit_appends_one_event_and_replays(tmp_path):
    s = quick_start(tmp_path / "g.db")
    events = play(s, 120, seed=4)
    seqs = [e["seq"] for e in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs) and seqs[0] == 2
    assert all(e["type"] in ("roll", "choose", "allocate", "cast", "reinforce", "retreat") for e in events)
    rolled = [e for e in events if e["type"] == "roll"]
    assert rolled and all(isinstance(f, str) for e in rolled for f in e["action"]["faces"])
    fresh = GameSession.open(tmp_path / "g.db")
    assert fresh.state_dict() == s.state_dict()
    assert [e["seq"] for e in fresh.events(since=seqs[-3])] == seqs[-2:]


def test_roll_for_me_is_seeded_and_logged(tmp_path):
    a = quick_start(tmp_path / "a.db")
    b = quick_start(tmp_path / "b.db")
    ea = a.submit({"type": "roll_for_me", "seed": 11})[0]
    eb = b.submit({"type": "roll_for_me", "seed": 11})[0]
    assert ea["action"]["faces"] == eb["action"]["faces"] and ea["action"]["seed"] == 11
    with pytest.raises(GameRuleError, match="integer 'seed'"):
        a.submit({"type": "roll_for_me", "seed": "x"})


def test_bad_input_changes_nothing(tmp_path):
    s = quick_start(tmp_path / "g.db")
    play(s, 30, seed=2)
    before, seq = s.state_dict(), s.events()[-1]["seq"]
    bad = [
        {"type": "teleport"},
        {"type": "roll", "faces": ["9 Melee"]},
        {"type": "choose", "choice": "nonsense"},
        {"type": "allocate", "units": ["u999"]},
        {"no": "type"},
    ]
    for action in bad:
        with pytest.raises(GameRuleError):
            s.submit(action)
    with pytest.raises(GameRuleError):
        s.submit(["not", "a", "dict"])
    assert s.state_dict() == before and s.events()[-1]["seq"] == seq


def test_illegal_setup_writes_nothing(tmp_path):
    db = tmp_path / "bad.db"
    with pytest.raises(IllegalSetup):
        GameSession.create(db, {"force_size": 24, "players": [{"name": "Solo"}]})
    assert not db.exists()


def test_undo_takes_back_and_keeps_seq_increasing(tmp_path):
    s = quick_start(tmp_path / "g.db")
    play(s, 40, seed=5)
    mid = s.state_dict()
    mid_pending = s.pending()
    later = play(s, 3, seed=6)
    assert s.state_dict() != mid
    undo = s.undo(3)
    assert undo[0]["type"] == "undo" and undo[0]["action"]["undid"] == [e["seq"] for e in later]
    assert undo[0]["seq"] > later[-1]["seq"]
    after = s.state_dict()
    assert (
        after["players"] == mid["players"] and after["armies"] == mid["armies"] and s.pending() == mid_pending
    )
    reopened = GameSession.open(tmp_path / "g.db")
    assert reopened.pending() == mid_pending
    with pytest.raises(GameRuleError, match="can be undone"):
        s.undo(10_000)
    new = play(s, 1, seed=7)
    assert new[0]["seq"] == undo[0]["seq"] + 1


def test_export_import_roundtrip(tmp_path):
    s = quick_start(
        tmp_path / "g.db", names=("Ann", "Ben", "Cat"), species=("Dwarves", "Goblins", "Coral Elves")
    )
    play(s, 80, seed=8)
    s.undo(2)
    path = s.export(tmp_path / "game.json")
    copy = GameSession.import_file(tmp_path / "copy.db", path)
    assert copy.state_dict() | {"game_id": 0} == s.state_dict() | {"game_id": 0}
    assert copy.game_id == s.game_id
    with pytest.raises(SessionError, match="already exists"):
        GameSession.import_file(tmp_path / "copy.db", path)
    doc = json.loads(path.read_text())
    doc["events"][3]["action"]["faces"] = ["99 Nothing"]
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps(doc))
    with pytest.raises(SessionError, match="does not replay"):
        GameSession.import_file(tmp_path / "never.db", broken)
    assert not (tmp_path / "never.db").exists()
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(SessionError, match="cannot read"):
        GameSession.import_file(tmp_path / "never.db", tmp_path / "junk.json")


def test_two_handles_on_one_file_stay_in_step(tmp_path):
    a = quick_start(tmp_path / "g.db")
    b = GameSession.open(tmp_path / "g.db")
    play(a, 10, seed=1)
    assert b.state_dict()["seq"] == a.state_dict()["seq"]
    play(b, 5, seed=2)
    assert a.state_dict() == b.state_dict()


def test_open_refuses_what_is_not_a_game(tmp_path):
    with pytest.raises(SessionError, match="no game database"):
        GameSession.open(tmp_path / "missing.db")
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(SessionError):
        GameSession.open(junk)


CHILD = textwrap.dedent(
    """
    import random, sys
    from companion.rules.game import random_answer
    from companion.session import quick_start
    s = quick_start(sys.argv[1])
    rng = random.Random(99)
    print("READY", flush=True)
    while s.pending() is not None:
        ev = s.submit(random_answer(s.game, rng))
        print("ACK", ev[-1]["seq"], flush=True)  # acknowledged only after the commit
    print("DONE", flush=True)
    """
)


@pytest.mark.parametrize("kill_after", [40, 150])
def test_sigkill_mid_game_loses_no_acknowledged_event(tmp_path, kill_after):
    db = tmp_path / "crash.db"
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(db)], stdout=subprocess.PIPE, text=True)
    acked: list[int] = []
    try:
        assert proc.stdout.readline().strip() == "READY"
        while len(acked) < kill_after:
            line = proc.stdout.readline()
            if not line or line.startswith("DONE"):
                break
            acked.append(int(line.split()[1]))
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    assert len(acked) == kill_after
    s = GameSession.open(db)
    stored = {e["seq"] for e in s.events()}
    assert set(acked) <= stored  # every acknowledged event survived
    assert max(stored) >= acked[-1]
    # The log replays to a consistent game that can go on.
    rebuilt = s.state_dict()
    assert rebuilt["seq"] == max(stored)
    play(s, 5, seed=3)


WRITER = textwrap.dedent(
    """
    import random, sys
    from companion.rules.game import GameRuleError, random_answer
    from companion.session import GameSession
    s = GameSession.open(sys.argv[1])
    rng = random.Random(int(sys.argv[2]))
    accepted = refused = 0
    while accepted < 60 and s.pending() is not None:
        try:
            s.submit(random_answer(s.game, rng))
            accepted += 1
        except GameRuleError:
            refused += 1  # the other writer answered first: our answer no longer fits
    print(accepted, refused, flush=True)
    """
)


def test_two_processes_writing_one_game_keep_a_valid_log(tmp_path):
    db = tmp_path / "shared.db"
    quick_start(db).close()
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(db), str(seed)], stdout=subprocess.PIPE, text=True
        )
        for seed in (1, 2)
    ]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs), outs
    accepted = sum(int(o.split()[0]) for o in outs)
    s = GameSession.open(db)  # replays every event: each one was valid when it was appended
    actions = [e for e in s.events() if e["type"] != "create"]
    assert len(actions) == accepted
    assert s.state_dict()["seq"] == actions[-1]["seq"]


def test_replay_keeps_the_order_a_player_gave(tmp_path):
    """A reinforce listed out of alphabetical order replays to the same log (seed 291818 once differed)."""
    s = quick_start(tmp_path / "g.db")
    rng = random.Random(291818)
    for _ in range(85):
        if s.pending() is None:
            break
        s.submit(random_answer(s.game, rng))
    stored = [e for e in s.events(0) if e["type"] == "reinforce" and len(e["action"].get("moves") or {}) > 1]
    assert any(list(e["action"]["moves"]) != sorted(e["action"]["moves"]) for e in stored), (
        "case still exercised"
    )
    again = GameSession.open(tmp_path / "g.db")
    assert again.state_dict()["log"] == s.state_dict()["log"]
    s.close()
