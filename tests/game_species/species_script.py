"""Short scripted games through the public ``Game.apply``: the script names the answers that matter
(by player and topic, in order) and the faces of the dice that matter; everything else is answered
passively (pass, skip, no, none; faces worth nothing for the roll)."""

from __future__ import annotations

from sai_arena import blank_face

PASSIVE = ("pass", "skip", "no", "none", "done", "stay", "keep")


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
            out = []
            roll = d.data.get("roll", "special")
            for die in d.dice:
                queue = self.faces.get(die["uid"])
                if queue:
                    out.append(queue.pop(0))
                elif roll in ("maneuver", "melee", "missile", "magic", "save"):
                    out.append(blank_face(die["die"], roll))
                elif roll == "terrain":
                    out.append("3")
                else:
                    out.append(next(f for f in die["faces"] if not f.endswith(" ID")))
            return {"type": "roll", "faces": out}
        for i, (test, answer) in enumerate(self.answers):
            if self._match(test, d):
                self.answers.pop(i)
                key = {"allocate": "units", "cast": "spells", "reinforce": "moves", "retreat": "units"}.get(
                    d.kind
                )
                if key:
                    return {
                        "type": {
                            "allocate": "allocate",
                            "cast": "cast",
                            "reinforce": "reinforce",
                            "retreat": "retreat",
                        }[d.kind],
                        key: answer,
                    }
                return {"type": "choose", "choice": answer}
        if d.kind == "allocate":
            return {"type": "allocate", "units": d.choices[0]["value"]}
        if d.kind == "cast":
            return {"type": "cast", "spells": []}
        if d.kind == "reinforce":
            return {"type": "reinforce", "moves": {}}
        if d.kind == "retreat":
            return {"type": "retreat", "units": []}
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
