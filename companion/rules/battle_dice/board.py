"""The table state of a Battle Dice game and the small operations on it.

``Board`` wraps one JSON-able dict (``Board.data``) holding both armies, this turn's pools and
effects, and the result.  It knows nothing about decisions; :mod:`.phases` and :mod:`.effects`
drive it.  Every event it records is a JSON-able dict with a ``text`` a person can read.
"""

from __future__ import annotations

import copy
from typing import Any

from .setup import PLAYERS, initial_dice, new_die, opponent

POOLS = ("tactics", "spell", "maneuver")
POOL_PHASE = {"tactics": "general", "spell": "magic", "maneuver": "maneuver"}


def fresh_turn_state() -> dict[str, Any]:
    return {
        "casualties": 0,
        "gains": {p: 0 for p in POOLS},
        "losses": {p: 0 for p in POOLS},
        "kills": {"missile": 0, "melee": 0},
        "negate": 0,
        "morale": [],
        "hit_on": {"infantry": None, "archer": None},
        "initiative": [],
        "maneuver_next_turn": 0,
        "counted_losses": [],
    }


class Board:
    def __init__(self, setup: dict[str, Any], options: dict[str, Any]):
        self.options = options
        armies = setup["armies"]
        self.data: dict[str, Any] = {
            "turn": 1,
            "phase": "roll",
            "phases_done": [],
            "result": None,
            "armies": {
                p: {
                    "name": armies[p]["name"],
                    "monster": armies[p]["monster"],
                    "dice": initial_dice(p, armies[p]),
                    "destroyed": [],
                    "next_number": armies[p]["dice"] + 1,
                }
                for p in PLAYERS
            },
            "this_turn": {p: fresh_turn_state() for p in PLAYERS},
            "carry": {p: {"maneuver": 0, "negate": 0} for p in PLAYERS},
        }
        self.events: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ reading
    def army(self, p: str) -> dict[str, Any]:
        army: dict[str, Any] = self.data["armies"][p]
        return army

    def turn_state(self, p: str) -> dict[str, Any]:
        state: dict[str, Any] = self.data["this_turn"][p]
        return state

    def alive(self, p: str, sides: int | None = None) -> list[dict[str, Any]]:
        return [d for d in self.army(p)["dice"] if sides is None or d["sides"] == sides]

    def find(self, p: str, die_id: str) -> dict[str, Any] | None:
        die: dict[str, Any]
        for die in self.army(p)["dice"]:
            if die["id"] == die_id:
                return die
        return None

    def get(self, p: str, die_id: str) -> dict[str, Any]:
        """Die `die_id` of player `p`'s army (it must be there: ``find`` asks whether it is)."""
        die = self.find(p, die_id)
        if die is None:
            raise KeyError(f"{die_id!r} is not a die of player {p}'s army")
        return die

    def phase_done(self, phase: str) -> bool:
        return phase in self.data["phases_done"]

    def pool_open(self, pool: str) -> bool:
        return not self.phase_done(POOL_PHASE[pool])

    # ------------------------------------------------------------------ events
    def emit(self, type_: str, text: str, **fields: Any) -> dict[str, Any]:
        ev = {"turn": self.data["turn"], "phase": self.data["phase"], "type": type_, "text": text, **fields}
        self.events.append(ev)
        return ev

    # ------------------------------------------------------------------ changing
    def destroy(self, p: str, die_id: str, cause: str, count_casualty: bool = True) -> None:
        army = self.army(p)
        die = self.get(p, die_id)
        text = f"{army['name']} loses {describe(die)} ({cause})"
        army["dice"].remove(die)
        die["face"] = None
        army["destroyed"].append(die)
        if count_casualty:
            self.turn_state(p)["casualties"] += 1
            self.turn_state(p)["counted_losses"].append(die_id)
        self.emit("destroyed", text, player=p, die=die_id, cause=cause)

    def restore(self, p: str, die_id: str) -> dict[str, Any]:
        army = self.army(p)
        die: dict[str, Any] = next(d for d in army["destroyed"] if d["id"] == die_id)
        army["destroyed"].remove(die)
        die["face"] = None
        army["dice"].append(die)
        self.emit("restored", f"{army['name']} restores {describe(die)}", player=p, die=die_id)
        ts = self.turn_state(p)
        if self.options["R27"] == "reduce" and die_id in ts["counted_losses"]:
            ts["counted_losses"].remove(die_id)
            ts["casualties"] -= 1
        return die

    def take_control(self, taker: str, die_id: str, keep_face: bool) -> dict[str, Any]:
        victim = opponent(taker)
        die = self.get(victim, die_id)
        self.army(victim)["dice"].remove(die)
        if not keep_face:
            die["face"] = None
        self.army(taker)["dice"].append(die)
        self.emit(
            "controlled",
            f"{self.army(taker)['name']} takes control of {describe(die)}",
            player=taker,
            die=die_id,
        )
        return die

    def add_die(self, p: str, unit: str, monster: str | None) -> dict[str, Any]:
        army = self.army(p)
        die = new_die(p, army["next_number"], unit, monster)
        army["next_number"] += 1
        army["dice"].append(die)
        self.emit("gained", f"{army['name']} gains {describe(die)}", player=p, die=die["id"])
        return die

    def end_turn(self, negate_carries: bool) -> None:
        for p in PLAYERS:
            ts = self.turn_state(p)
            self.data["carry"][p] = {
                "maneuver": ts["maneuver_next_turn"],
                "negate": ts["negate"] if negate_carries else 0,
            }
        self.data["this_turn"] = {p: fresh_turn_state() for p in PLAYERS}
        for p in PLAYERS:
            self.turn_state(p)["negate"] = self.data["carry"][p]["negate"]
        self.data["turn"] += 1
        self.data["phases_done"] = []

    def snapshot(self) -> dict[str, Any]:
        return copy.deepcopy(self.data)


def describe(die: dict[str, Any]) -> str:
    kind = die["monster"].replace("_", " ") if die.get("monster") else die["unit"]
    face = "unrolled" if die["face"] is None else f"showing {die['face']}"
    return f"{kind} d{die['sides']} {die['id']} ({face})"
