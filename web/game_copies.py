"""Copies of the current game for questions that must not change it (the Roll panel's running total,
whether look-alike dice give a roll the same results): ``game_copy(store)``, replayed from the log.

One copy is kept ready, rebuilt from the log ahead of the next question (each question uses a copy up:
giving it the roll changes it).  Keyed by game file, game and last event, so it is never stale.  One
rebuild at a time per game file: a question that comes while it runs waits for it instead of replaying
the log a second time beside it (taps quicker than a replay would pile replays up).
"""

from __future__ import annotations

import logging
import threading

log = logging.getLogger("companion.web")

_spare: dict[str, tuple[tuple, object]] = {}
_building: dict[str, tuple[tuple, threading.Thread]] = {}
#: guards the spare copies, and the answers ``roll_entry`` keeps per game state
spare_lock = threading.Lock()
WAIT_S = 5.0  # longest wait for a rebuild under way before replaying here


def state_key(store) -> tuple:
    """What a copy of the game is a copy of: the game file, the game and its last event."""
    return (str(store.db_path), store.game_id, store.last_seq)


def _rebuild(store, key: tuple) -> None:
    from companion.session.game_session import replay

    try:
        game = replay(store.session.events(0))
    except Exception as exc:  # the game moved on or closed meanwhile: the next question replays itself
        log.debug("no spare game copy: %s", exc)
        game = None
    with spare_lock:
        if game is not None and state_key(store) == key:
            _spare[key[0]] = (key, game)
        if _building.get(key[0], (None, None))[1] is threading.current_thread():
            del _building[key[0]]


def _start_rebuild(store, key: tuple) -> None:
    with spare_lock:
        busy = _building.get(key[0])
        if busy is not None and busy[0] == key and busy[1].is_alive():
            return  # one is under way for this very state
        t = threading.Thread(target=_rebuild, args=(store, key), name="preview-spare", daemon=True)
        _building[key[0]] = (key, t)
    t.start()


def game_copy(store):
    """A copy of the current game, rebuilt from its log: the spare one made after the last question
    when it is still of this event (waiting for it if it is being made), else made now; another spare
    is then made in the background."""
    from companion.session.game_session import replay

    key = state_key(store)
    with spare_lock:
        got = _spare.pop(key[0], None)
        busy = _building.get(key[0])
    if (got is None or got[0] != key) and busy is not None and busy[0] == key:
        busy[1].join(WAIT_S)
        with spare_lock:
            got = _spare.pop(key[0], None)
    game = got[1] if got is not None and got[0] == key else replay(store.session.events(0))
    _start_rebuild(store, key)
    return game
