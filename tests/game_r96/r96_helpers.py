"""Helpers for the r96 game-flow tests: build a small 1996 battle, get past the set-up, stage the
table (which units stand where, terrain faces), and answer decisions by their topic."""

from __future__ import annotations

from decision_answers import first_option

from companion.rules.core.state import BUA, DUA, RESERVE, Unit, spec_for
from companion.rules.r96.game import R96Game

DWARF_FORCE = {
    "home": ["Dwarves/Footman", "Dwarves/Footman"],
    "campaign": ["Dwarves/Sergeant"],
    "horde": ["Dwarves/Pony Rider", "Dwarves/Sentry"],
}
GOBLIN_FORCE = {
    "home": ["Goblins/Thug", "Goblins/Mugger"],
    "campaign": ["Goblins/Cutthroat"],
    "horde": ["Goblins/Pelter", "Goblins/Trickster"],
}
ELF_FORCE = {
    "home": ["Coral Elves/Fighter", "Coral Elves/Guard"],
    "campaign": ["Coral Elves/Trooper"],
    "horde": ["Coral Elves/Bowman", "Coral Elves/Horseman"],
}
LAVA_FORCE = {
    "home": ["Lava Elves/Bladesman", "Lava Elves/Scout"],
    "campaign": ["Lava Elves/Duelist"],
    "horde": ["Lava Elves/Fusilier", "Lava Elves/Adept"],
}


def setup(players: int = 2, options: dict | None = None, **over) -> dict:
    """A 6-health battle (one dragon each, armies of at most 3 health)."""
    forces = [DWARF_FORCE, GOBLIN_FORCE, ELF_FORCE, LAVA_FORCE]
    dragons = ["Dragons/Red Drake", "Dragons/Black Wyrm", "Dragons/Blue Drake", "Dragons/Green Wyrm"]
    homes = ["Highland City", "Swampland Temple", "Coastland Tower", "Flatland Standing Stones"]
    fronts = ["Flatland Temple", "Coastland Standing Stones", "Highland Tower", "Swampland City"]
    names = ["Ann", "Bo", "Cy", "Di"]
    out = {
        "edition": "r96",
        "force_size": 6,
        "options": dict(options or {}),
        "players": [
            {
                "name": names[i],
                "armies": forces[i % 4],
                "dragons": [dragons[i % 4]],
                "home": homes[i % 4],
                "frontier": fronts[i % 4],
            }
            for i in range(players)
        ],
    }
    out.update(over)
    return out


def low_face(faces: list[str]) -> str:
    for f in faces:
        if not any(k in f for k in ("ID", "Maneuver", "Cantrip", "Rend", "Fly", "Trample")):
            return f
    return faces[-1]


def default_answer(game: R96Game) -> dict:
    d = game.pending
    if d.kind == "roll":
        if d.data.get("roll") == "terrain":
            return {"type": "roll", "faces": ["4"]}
        if "order of play" in d.prompt:
            name = game.state.player(d.player).name
            tie_first = bool(game.log) and game.log[-1].startswith("Tie: " + name)
            if d.player == "p1" or tie_first:
                return {"type": "roll", "faces": ["ID"] * len(d.dice)}
            if d.player == "p2":
                return {"type": "roll", "faces": ["ID"] + [low_face(x["faces"]) for x in d.dice[1:]]}
        return {"type": "roll", "faces": [low_face(x["faces"]) for x in d.dice]}
    return first_option(d)


def until(game: R96Game, topic: str, player: str | None = None, limit: int = 200, **data) -> R96Game:
    """Answer with ``default_answer`` until a decision of ``topic`` (and ``player``, and ``data``) is pending."""
    for _ in range(limit):
        d = game.pending
        if d is None:
            raise AssertionError("the game ended before " + topic)
        if (
            d.topic == topic
            and (player is None or d.player == player)
            and all(d.data.get(k) == v for k, v in data.items())
        ):
            return game
        game.apply(default_answer(game))
    raise AssertionError(f"no {topic} decision within {limit} answers; pending {game.pending}")


def started(players: int = 2, options: dict | None = None, **over) -> R96Game:
    """A game paused at its last set-up decision (the frontier's starting roll): ``stage`` the table,
    then the first march (p1 to choose an army) is pending.  ``go`` skips the staging."""
    game = R96Game(setup(players, options, **over))
    return until(game, "terrain_roll", terrain="frontier")


def go(game: R96Game, face: int = 4) -> R96Game:
    """Answer the frontier's starting roll: p1's first march is pending."""
    game.apply({"type": "roll", "faces": [str(face)]})
    return game


def stage(
    game: R96Game,
    table: dict[tuple[str, str], list[str]],
    faces: dict[str, int] | None = None,
    dead: dict[str, list[str]] | None = None,
) -> dict[tuple[str, str], list[str]]:
    """Replace every unit in play by ``table`` ({(player, location): [die names]}); ``dead`` fills dead
    unit areas; ``faces`` sets terrain faces.  Returns the new uids per key."""
    st = game.state
    for uid in [u for u, unit in st.units.items() if unit.is_unit]:
        del st.units[uid]
        del st.location[uid]
    out: dict = {}
    n = 1000
    for (owner, loc), names in list(table.items()) + [((o, DUA), ns) for o, ns in (dead or {}).items()]:
        for name in names:
            n += 1
            uid = f"t{n}"
            st.units[uid] = Unit(uid, owner, spec_for(name))
            st.location[uid] = loc
            out.setdefault((owner, loc), []).append(uid)
    if game.pending is not None and game.pending.topic == "terrain_roll":
        go(game)
    for tid, face in (faces or {}).items():
        st.terrains[tid].face = face
    return out


def choose(game: R96Game, value) -> list[str]:
    return game.apply({"type": "choose", "choice": value})["log"]


def roll(game: R96Game, *faces) -> list[str]:
    return game.apply({"type": "roll", "faces": list(faces)})["log"]


def cast(game: R96Game, *spells: dict) -> list[str]:
    return game.apply({"type": "cast", "spells": list(spells)})["log"]


def where(game: R96Game, uid: str) -> str:
    return game.state.location[uid]


__all__ = [
    "BUA",
    "DUA",
    "RESERVE",
    "cast",
    "choose",
    "go",
    "roll",
    "setup",
    "stage",
    "started",
    "until",
    "where",
]
