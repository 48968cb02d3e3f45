"""Short scripted games through the public ``Game.apply``: the script names the answers that matter
(by player and topic, in order) and the faces of the dice that matter; everything else is answered
passively (pass, skip, no, none; faces worth nothing for the roll)."""

from __future__ import annotations

from decision_answers import answer_with, scripted_faces
from game_support import passive_policy
from sai_arena import arena, put

PASSIVE = ("pass", "skip", "no", "none", "done", "stay", "keep")


def amazons_with_a_knoll(leader: str, face: int):
    """Alice's `leader` and two Amazon Runners at the Frontier (Flatland City showing `face`), where she
    also has a Flatland Knoll, minor terrains in play; Bob has six Dwarf Footmen there.  Returns
    ``(game, alice_uids, bob_uids)``."""
    game, a, b = arena(
        [leader, "Amazons/Runner", "Amazons/Runner"],
        ["Dwarves/Footman"] * 6,
        terrain="Flatland City",
        face=face,
    )
    put(game, "p1", "frontier", ["Terrains/Flatland Knoll"])
    game.notes["advanced_components"] = frozenset({"minor_terrains"})
    return game, a, b


def march(player: str, action: str, target: str | None = None) -> list:
    """The script answers of `player`'s march with their Frontier army that skips the maneuver step and
    takes `action` (at the army `target`, for a missile action)."""
    out = [
        (f"{player}:march", f"{player}@frontier"),
        (f"{player}:maneuver", "skip"),
        (f"{player}:action", action),
    ]
    return out + ([(f"{player}:target", target)] if target else [])


def maneuver_up(player: str, countered_by: str | None = None) -> list:
    """The script answers of `player`'s march with their Frontier army that maneuvers (answered with
    "counter" by `countered_by`, when given) and turns the terrain up; the action is answered apart."""
    out = [(f"{player}:march", f"{player}@frontier"), (f"{player}:maneuver", "maneuver")]
    out += [(f"{countered_by}:counter_maneuver", "counter")] if countered_by else []
    return out + [(f"{player}:direction", "up")]


class Script:
    def __init__(self, game, faces=None, answers=None):
        self.game = game
        self.faces = {k: list(v) for k, v in (faces or {}).items()}
        self.answers = list(answers or [])
        self.decisions: list = []

    def _match(self, test, d) -> bool:
        if callable(test):
            return test(d)
        player, _, topic = test.partition(":") if ":" in test else ("", "", test)
        if player and d.player != player:
            return False
        return topic == d.topic or topic.lower() in d.prompt.lower()

    def action(self, d) -> dict:
        if d.kind == "roll":
            return {"type": "roll", "faces": scripted_faces(d, self.faces, terrain="3")}
        for i, (test, answer) in enumerate(self.answers):
            if self._match(test, d):
                self.answers.pop(i)
                return answer_with(d, answer)
        if d.kind != "choice":  # allocate the first legal set; cast, reinforce, retreat nothing
            return passive_policy(d)
        values = [c["value"] for c in d.choices]
        for v in PASSIVE:
            if v in values:
                return {"type": "choose", "choice": v}
        return {"type": "choose", "choice": values[0]}

    def play(self, until_turn: int, limit: int = 600) -> Script:
        """Answer until the start of turn `until_turn` + 1 (or the end of the game)."""
        g = self.game
        for _ in range(limit):
            d = g.pending
            if d is None or g.state.turn > until_turn:
                return self
            self.decisions.append(d)
            g.apply(self.action(d))
        raise AssertionError("the scripted game did not reach its end")

    def log(self) -> str:
        return "\n".join(self.game.log)

    def rolls(self, player: str, roll: str) -> list:
        return [
            d
            for d in self.decisions
            if d.kind == "roll" and d.player == player and d.data.get("roll") == roll
        ]
