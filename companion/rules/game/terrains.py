"""Moved to ``companion.rules.core.terrains`` (the rules' shared core, issue 22).  This name stays only for
the callers outside the rules that still use it (web/, companion/league); new code imports the core."""

from ..core.terrains import *  # noqa: F403
