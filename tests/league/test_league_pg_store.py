"""The PostgreSQL event log behaves as the SQLite one: same events, replay, undo, append-only."""

from __future__ import annotations

import random
import threading

import psycopg
import pytest

from companion.rules.game.flow import random_answer
from companion.session import GameSession, SessionError, quick_start
from companion.session.pg_store import PgEventStore, connect, create_session, migrations, open_session

SETUP = {
    "force_size": 24,
    "players": [{"name": "Alice", "species": "Dwarves"}, {"name": "Bob", "species": "Goblins"}],
}


def _play(session: GameSession, rng: random.Random, steps: int) -> None:
    for _ in range(steps):
        if session.pending() is None:
            return
        session.submit(random_answer(session.game, rng))


def _strip(events):
    return [{k: e[k] for k in ("seq", "type", "player", "action", "log", "undone")} for e in events]


def test_same_events_and_state_as_sqlite(pg_dsn, tmp_path):
    pg = create_session(pg_dsn, SETUP, table="7")
    lite = GameSession.create(tmp_path / "g.db", SETUP)
    # the same actions on both logs give the same events (the actions come from one random stream)
    rng = random.Random(5)
    for _ in range(60):
        if pg.pending() is None:
            break
        action = random_answer(pg.game, rng)
        pg.submit(dict(action))
        lite.submit(dict(action))
    assert _strip(pg.events()) == _strip(lite.events())
    assert len(pg.events()) > 20
    again = open_session(pg_dsn, pg.game_id)
    assert again.state_dict()["seq"] == pg.state_dict()["seq"]
    a, b = again.state_dict(), lite.state_dict()
    for key in ("terrains", "armies", "phase", "turn", "step"):
        assert a[key] == b[key]


def test_undo_marks_and_replays(pg_dsn):
    s = create_session(pg_dsn, SETUP)
    _play(s, random.Random(2), 12)
    before = s.state_dict()
    last = s.events()[-1]["seq"]
    s.submit(random_answer(s.game, random.Random(9)))
    [undo] = s.undo(1)
    assert undo["type"] == "undo" and undo["action"] == {"undid": [last + 1]}
    events = open_session(pg_dsn, s.game_id).events()
    assert [e["seq"] for e in events if e["undone"]] == [last + 1]
    after = open_session(pg_dsn, s.game_id).state_dict()
    assert after["terrains"] == before["terrains"] and after["armies"] == before["armies"]
    assert after["pending"]["prompt"] == before["pending"]["prompt"]


def test_log_is_append_only_and_seq_unique(pg_dsn):
    s = create_session(pg_dsn, SETUP)
    _play(s, random.Random(3), 5)
    conn = connect(pg_dsn)
    with pytest.raises(psycopg.errors.IntegrityConstraintViolation, match="append-only"):
        conn.execute("DELETE FROM events WHERE game_id = %s AND seq = 2", (s.game_id,))
    with pytest.raises(psycopg.errors.IntegrityConstraintViolation, match="append-only"):
        conn.execute("UPDATE events SET type = 'roll' WHERE game_id = %s AND seq = 1", (s.game_id,))
    with pytest.raises(psycopg.errors.IntegrityConstraintViolation, match="append-only"):
        conn.execute("TRUNCATE events CASCADE")
    with pytest.raises(psycopg.errors.UniqueViolation):
        conn.execute(
            "INSERT INTO events (game_id, seq, type, action, at) VALUES (%s, 2, 'x', '{}', 'now')",
            (s.game_id,),
        )
    assert [e["seq"] for e in s.events()] == list(range(1, s.state_dict()["seq"] + 1))


def test_migrations_recorded_once(pg_dsn):
    conn = connect(pg_dsn)
    connect(pg_dsn)  # a second start applies nothing again
    rows = conn.execute("SELECT version, name FROM schema_version ORDER BY version").fetchall()
    assert rows == [(v, name) for v, name, _ in migrations()]


def test_two_writers_on_one_game_never_leave_a_gap(pg_dsn):
    """Two sessions (two connections) on one game: each write locks the game's row; seqs stay 1..N."""
    s1 = create_session(pg_dsn, SETUP)
    s2 = open_session(pg_dsn, s1.game_id)
    errors = []

    def worker(s, seed):
        rng = random.Random(seed)
        for _ in range(15):
            try:
                s.submit(random_answer(s.game, rng))
            except ValueError:
                pass  # the other writer answered first: the engine refuses the stale answer
            except Exception as exc:  # noqa: BLE001
                errors.append(exc)

    threads = [threading.Thread(target=worker, args=(s, i)) for i, s in enumerate((s1, s2))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    seqs = [e["seq"] for e in open_session(pg_dsn, s1.game_id).events()]
    assert seqs == list(range(1, len(seqs) + 1)) and len(seqs) > 10


def test_unknown_game_and_bad_id_are_clear_errors(pg_dsn):
    with pytest.raises(SessionError, match="no game nope"):
        PgEventStore(pg_dsn, "nope")
    with pytest.raises(SessionError, match="game id"):
        PgEventStore(pg_dsn, "x; DROP TABLE events")
    with pytest.raises(SessionError, match="cannot reach"):
        connect("postgresql://league@127.0.0.1:1/none", connect_timeout=1)


def test_reconnects_after_server_restart(pg_cluster, pg_dsn):
    s = create_session(pg_dsn, SETUP)
    _play(s, random.Random(4), 4)
    seq = s.state_dict()["seq"]
    pg_cluster.stop("immediate")
    with pytest.raises(SessionError):
        s.submit(random_answer(s.game, random.Random(1)))
    pg_cluster.start_again()
    assert s.state_dict()["seq"] == seq  # the refused write left nothing behind
    s.submit(random_answer(s.game, random.Random(1)))
    assert open_session(pg_dsn, s.game_id).state_dict()["seq"] == seq + 1


def test_sqlite_default_unchanged(tmp_path):
    s = quick_start(tmp_path / "q.db")
    assert s.state_dict()["seq"] == 1
