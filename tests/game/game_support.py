"""Helpers for the game-flow tests: set-ups, scripted answers, faces chosen for a result."""

from __future__ import annotations

from collections.abc import Callable

from decision_answers import first_option

from companion.rules.catalogue import load_catalogue
from companion.rules.core.decisions import Decision
from companion.rules.game import Game

PASSIVE = ("pass", "skip", "no", "none")
# Face icons least likely to be counted as another result by a species ability, per roll type.
ZERO_PREFERENCE = {
    "maneuver": ("Magic", "Missile", "Save", "Melee"),
    "save": ("Magic", "Missile", "Melee", "Maneuver"),
    "melee": ("Magic", "Missile", "Maneuver", "Save"),
    "missile": ("Magic", "Melee", "Save", "Maneuver"),
    "magic": ("Melee", "Missile", "Save", "Maneuver"),
}


def small_army(species: str, points: int, start: int = 0) -> list[str]:
    """`points` small (1-health) units of a species, names cycling."""
    names = [d.name for d in load_catalogue().of_species(species) if d.is_unit and d.health == 1]
    return [names[(start + i) % len(names)] for i in range(points)]


def plain_setup(
    n_players: int = 2,
    force: int = 15,
    shares=(5, 5, 5),
    species=None,
    homes=None,
    frontiers=None,
    dragons=None,
) -> dict:
    """Players with small units only (plain icons and IDs: totals easy to steer)."""
    species = species or ["Dwarves", "Goblins", "Coral Elves", "Lava Elves"][:n_players]
    homes = homes or ["Highland City", "Swampland Temple", "Flatland Tower", "Feyland City"][:n_players]
    frontiers = (
        frontiers or ["Coastland Tower", "Wasteland Temple", "Highland Temple", "Swampland City"][:n_players]
    )
    players = []
    for i in range(n_players):
        home, horde, camp = shares
        players.append(
            {
                "name": ["Alice", "Bob", "Carol", "Dave"][i],
                "home": homes[i],
                "frontier": frontiers[i],
                "armies": {
                    "home": small_army(species[i], home, 0),
                    "horde": small_army(species[i], horde, 1),
                    "campaign": small_army(species[i], camp, 2),
                },
                "dragons": dragons[i] if dragons else ["Dragons/Red Drake"] * (-(-force // 24)),
            }
        )
    return {"force_size": force, "players": players}


def faces_for(decision: Decision, roll: str, mode: str = "max") -> list[str]:
    """Faces for every die of a roll decision: "max" the most `roll` results (ID or icon), "zero" none."""
    out = []
    want = roll.capitalize()
    for die in decision.dice:
        faces = die["faces"]
        if mode == "max":

            def score(text: str) -> int:
                n, _, icon = text.partition(" ")
                return int(n) if icon in (want, "ID") else -1

            out.append(max(faces, key=score))
        else:
            for icon in ZERO_PREFERENCE[roll]:
                hit = [f for f in faces if f.split(" ", 1)[1] == icon]
                if hit:
                    out.append(hit[0])
                    break
            else:
                raise AssertionError(f"no zero face for {roll} on {die['die']}")
    return out


def ids_then_zero(decision: Decision, roll: str, count: int) -> list[str]:
    """The first `count` dice show their ID, the others a face worth nothing for `roll`."""
    zero = faces_for(decision, roll, "zero")
    ids = [next(f for f in die["faces"] if f.endswith(" ID")) for die in decision.dice]
    return [ids[i] if i < count else zero[i] for i in range(len(decision.dice))]


def passive_policy(decision: Decision) -> dict:
    """Answer without doing anything: zero rolls, pass/skip choices, kill the first legal set."""
    if decision.kind == "roll":
        roll = decision.data.get("roll")
        if roll == "terrain":
            return {"type": "roll", "faces": ["3"]}
        if "order of play" in decision.prompt:  # distinct totals: no endless ties
            return {"type": "roll", "faces": ids_then_zero(decision, roll, 4 - int(decision.player[1:]))}
        return {"type": "roll", "faces": faces_for(decision, roll, "zero")}
    if decision.kind == "choice":
        values = [c["value"] for c in decision.choices]
        for v in values:
            if v in PASSIVE:
                return {"type": "choose", "choice": v}
    return first_option(decision)


def run_until(
    game: Game, stop: Callable[[Decision], bool], policy=passive_policy, limit: int = 2000
) -> Decision:
    """Answer decisions with `policy` until `stop(decision)` is true; returns that decision."""
    for _ in range(limit):
        d = game.pending
        assert d is not None, "the game ended before the expected decision"
        if stop(d):
            return d
        game.apply(policy(d))
    raise AssertionError("decision not reached")


def choose(game: Game, value) -> dict:
    return game.apply({"type": "choose", "choice": value})


def roll(game: Game, mode: str = "max") -> dict:
    d = game.pending
    return game.apply({"type": "roll", "faces": faces_for(d, d.data["roll"], mode)})


def setup_done(game: Game, starting_faces=None) -> None:
    """Drive set-up: Alice wins the order roll and goes first; first options for placements;
    terrain rolls give `starting_faces` (by terrain id) or 3."""
    starting_faces = starting_faces or {}
    n = len(game.state.players)
    while game.state.phase == "setup":
        d = game.pending
        if d.kind == "roll" and d.data["roll"] == "maneuver":
            k = game.state.player_ids.index(d.player)
            game.apply({"type": "roll", "faces": ids_then_zero(d, "maneuver", n - k)})
        elif d.kind == "roll" and d.data["roll"] == "terrain":
            game.apply({"type": "roll", "faces": [str(starting_faces.get(d.data["terrain"], 3))]})
        elif d.kind == "choice" and "first_turn" in [c["value"] for c in d.choices]:
            choose(game, "first_turn")
        else:
            game.apply(passive_policy(d))


def is_prompt(text: str) -> Callable[[Decision], bool]:
    return lambda d: text.lower() in d.prompt.lower()
