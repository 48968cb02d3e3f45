"""Helpers for the Battle Dice tests: small armies and a driver that answers decisions."""

from __future__ import annotations

import pytest

from companion.rules.battle_dice import BattleGame


def army(name: str, kind: str | None = None, **units) -> dict:
    """An army list; ``kind`` is the monster type, ``units`` the counts by unit name."""
    out = {"name": name, "units": units}
    if kind:
        out["monster"] = kind
    return out


class Driver:
    """Answers a game's decisions one at a time, checking each is the one the test expects."""

    def __init__(self, game: BattleGame):
        self.game = game

    @property
    def pending(self) -> dict:
        p = self.game.pending()
        assert p is not None, "the game is over"
        return p

    def expect(self, kind: str, player: str, purpose: str | None = None) -> dict:
        p = self.pending
        assert (p["kind"], p["player"]) == (kind, player), p
        if purpose is not None:
            assert p["purpose"] == purpose, p
        return p

    def roll(self, player: str, faces, purpose: str | None = None) -> list[dict]:
        self.expect("roll", player, purpose)
        return self.game.apply({"kind": "roll", "player": player, "faces": faces})

    def choose_dice(self, player: str, dice: list[str], purpose: str | None = None) -> list[dict]:
        self.expect("choose_dice", player, purpose)
        return self.game.apply({"kind": "choose", "player": player, "dice": dice})

    def choose_option(self, player: str, option: str, purpose: str | None = None) -> list[dict]:
        self.expect("choose_option", player, purpose)
        return self.game.apply({"kind": "choose", "player": player, "option": option})

    def answer_default(self, d6_face: int = 6) -> list[dict]:
        """Highest face for rolls (1D3 reads 3), the first legal dice or option for choices."""
        p = self.pending
        if p["kind"] == "roll":
            faces = [d6_face if d["sides"] == 6 else d["sides"] for d in p["choices"]["dice"]]
            return self.game.apply({"kind": "roll", "faces": faces})
        if p["kind"] == "choose_dice":
            ids = [c["id"] for c in p["choices"]["candidates"]][: p["choices"]["count"]]
            return self.game.apply({"kind": "choose", "dice": ids})
        return self.game.apply({"kind": "choose", "option": p["choices"]["options"][0]})

    def run_phase_out(self, phase: str) -> list[dict]:
        """Answer by default until the game leaves ``phase``; returns the events."""
        events = []
        while self.game.pending() is not None and self.game.data["phase"] == phase:
            events += self.answer_default()
        return events

    def events_of(self, type_: str, phase: str | None = None) -> list[dict]:
        return [e for e in self.game.events if e["type"] == type_ and (phase is None or e["phase"] == phase)]

    def die(self, die_id: str) -> dict | None:
        for p in ("A", "B"):
            for d in self.game.data["armies"][p]["dice"]:
                if d["id"] == die_id:
                    return d
        return None


@pytest.fixture
def make_game():
    def _make(a: dict, b: dict, options: dict | None = None) -> Driver:
        return Driver(BattleGame({"armies": {"A": a, "B": b}, "options": options or {}}))

    return _make


@pytest.fixture(name="army")
def army_fixture():
    return army
