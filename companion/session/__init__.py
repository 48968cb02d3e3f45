"""Durable game sessions: every accepted decision or roll is an event in a SQLite log.

See :mod:`companion.session.game_session` for the action dict shapes.
"""

from .game_session import ACTION_TYPES, GameSession, full_setup, quick_start, replay
from .store import FORMAT, EventStore, SessionError

__all__ = [
    "ACTION_TYPES",
    "FORMAT",
    "EventStore",
    "GameSession",
    "SessionError",
    "full_setup",
    "quick_start",
    "replay",
]
