"""Moved to ``companion.rules.core.state`` (the rules' shared core, issue 22).  This name stays only for
the callers outside the rules that still use it (web/, companion/league); new code imports the core."""

from ..core.state import *  # noqa: F403
