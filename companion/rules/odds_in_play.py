"""Odds of a roll in a game in play: ``odds_in_game(game, army, roll, need)``.

Which army and roll (the pending roll; else the army the pending decision is about, its ``odds_army``;
else the one asked), where it rolls (its terrain's face, an eighth face it controls: V4.01c L508), the
spells in force on it (``game.effects_on``), the game's edition (the 1996 game resolves by its own,
R96 L922-961) and what the roll needs (the pending roll's ``need``, given by the flow that asked it:
saves to stop every hit, V4.01c L406-411, R96 L537-545; maneuvers to beat a marching army, V4.01c
L378-383, R96 L291-297).  The odds themselves are ``odds.army_odds``.
"""

from __future__ import annotations

from typing import Any

from .core.decisions import ODDS_ROLLS
from .odds import OddsError, army_odds
from .resolution import EffectInForce, RollTerrain


class OddsQueryError(ValueError):
    """An odds question that names something the game does not have (``field``: what was wrong)."""

    def __init__(self, message: str, field: str):
        super().__init__(message)
        self.field = field


def odds_in_game(
    game: Any, army: str | None = None, roll: str | None = None, need: int | None = None
) -> dict[str, Any]:
    """The odds as the page shows them (``Odds.to_dict`` plus ``army``, ``roll``, ``title``, and
    ``need_note`` where the game said what the roll needs), or ``{"message": ...}`` where there are none
    to show.  ``OddsQueryError`` for a roll that is not an odds roll or an army not in the game;
    ``OddsError`` for dice the odds cannot be computed for."""
    state = game.state.to_dict()
    if state.get("game") == "battle_dice":
        return {"message": "odds are computed for Dragon Dice rolls only"}
    if roll is not None and roll not in ODDS_ROLLS:
        raise OddsQueryError(f"for must be one of {', '.join(ODDS_ROLLS)}", "for")
    pending = game.pending_dict()
    pending_roll = pending if pending and pending.get("kind") == "roll" else None
    if army is None and pending_roll is None and pending and pending.get("odds_army"):
        # the decision names the army it is about (a maneuver, an action, a counter-attack...)
        if any(a["id"] == pending["odds_army"] for a in state.get("armies", [])):
            army = pending["odds_army"]
            roll = roll or pending.get("odds_roll")
    need_note = None
    if pending_roll and army in (None, pending_roll.get("army")) and roll in (None, pending_roll.get("roll")):
        if pending_roll.get("roll") not in ODDS_ROLLS:
            return {"message": f"no odds for a {pending_roll.get('roll')} roll"}
        if need is None and pending_roll.get("need") is not None:
            need, need_note = int(pending_roll["need"]), pending_roll.get("need_note")
        army = pending_roll.get("army")
        roll = pending_roll["roll"]
        dice = [d["die"] for d in pending_roll["dice"] if not d["die"].startswith("Terrains/")]
        owner, _, location = str(army).partition("@")
    else:
        if army is None:
            return {"message": "no roll is about to be made: choose an army and a roll"}
        found = [a for a in state.get("armies", []) if a["id"] == army]
        if not found:
            raise OddsQueryError(f"no army {army!r} in this game", "army")
        owner, location = found[0]["owner"], found[0]["location"]
        dice = [u["die"] for u in found[0]["units"] if u["kind"] in ("unit", "item")]
        roll = roll or "melee"
    terrain = next((t for t in state.get("terrains", []) if t["id"] == location), None)
    at = None
    if terrain is not None:
        at = RollTerrain(
            terrain["type"],
            face=terrain["face"],
            eighth=terrain.get("eighth_face"),
            controlled=terrain["face"] == 8 and terrain["controller"] == owner,
            name=terrain["name"],
        )
    effects: tuple[EffectInForce, ...] = ()
    if owner and location:  # spells in force on the army or its terrain change the odds too
        effects = tuple(game.effects_on(game.state.army(owner, location)))
    result = army_odds(
        dice,
        roll,
        against="melee" if roll == "save" else None,
        terrain=at,
        in_reserve=location == "reserve",
        effects=effects,
        edition=state.get("edition") or "v4",
    )
    body = result.to_dict(need)
    if need is not None and need_note:
        body["need_note"] = need_note
    names = {p["id"]: p["name"] for p in state.get("players", [])}
    where = terrain["name"] if terrain else ("Reserve Area" if location == "reserve" else "set-up")
    body.update(
        {
            "army": army,
            "roll": roll,
            "title": f"{roll.capitalize()} roll of {names.get(owner, owner)}'s army ({where})",
        }
    )
    return body


__all__ = ["OddsError", "OddsQueryError", "odds_in_game"]
