"""The state of a 1996 game (edition ``r96``): ``R96State`` is the core ``GameState`` with what the page
shows of an r96 game besides (edition, options, dragons in play).  The flow (``flow.R96Game``) builds and
plays it; the parts of the flow written as mixins see it through ``host.R96Host``."""

from __future__ import annotations

from typing import Any

from ...core.state import GameState
from .setup import dragon_colour


class R96State(GameState):
    """``GameState`` with the r96 extras on the page: edition, options, dragons in play."""

    options: dict[str, Any]  # the game's options (``R96Game`` sets them; ``options.game_options``)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        for a in out["armies"]:
            a["units"] = [u for u in a["units"] if u["kind"] == "unit"]
        out["edition"] = "r96"
        out["options"] = dict(getattr(self, "options", {}))
        out["dragons"] = [
            {
                "uid": u.uid,
                "die": u.name,
                "owner": u.owner,
                "location": self.location[uid],
                "colour": dragon_colour(u.spec),
            }
            for uid, u in self.units.items()
            if u.spec.kind == "dragon"
        ]
        return out
