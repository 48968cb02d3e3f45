"""Helpers for the advanced-components tests: set-ups with optional dice, a game driven past set-up,
answers by decision topic."""

from __future__ import annotations

import copy

from game_support import passive_policy, plain_setup, setup_done

from companion.rules.game import Game


def adv_setup(advanced=None, **changes) -> dict:
    """The plain two-player set-up (Alice: Dwarves, home Highland City; Bob: Goblins, home Swampland
    Temple; the Frontier is Alice's Coastland Tower), with `changes[player_index][key] = value`
    applied and the game options `advanced`."""
    setup = plain_setup()
    for key, value in changes.items():
        i, field = key.split("_", 1)
        player = setup["players"][int(i[1:])]
        if field in ("home", "horde", "campaign"):
            player["armies"][field] = value
        else:
            player[field] = value
    if advanced is not None:
        setup["advanced"] = advanced
    return copy.deepcopy(setup)


def started(setup: dict, faces=None) -> Game:
    game = Game(setup)
    setup_done(game, faces or {"home-p1": 3, "home-p2": 3, "frontier": 3})
    return game


def answer(game: Game, **action) -> dict:
    return game.apply(action)


def choose(game: Game, value) -> dict:
    return game.apply({"type": "choose", "choice": value})


def roll(game: Game, *faces) -> dict:
    return game.apply({"type": "roll", "faces": list(faces)})


def until(
    game: Game,
    topic: str,
    player: str | None = None,
    limit: int = 500,
    later_turn: bool = False,
    marching: str | None = None,
):
    """Answer passively until a decision of `topic` (and `player`) is pending; returns it.
    ``later_turn``: one in a later turn than the current one; ``marching``: in that player's turn."""
    turn = game.state.turn
    for _ in range(limit):
        d = game.pending
        assert d is not None, f"the game ended before a {topic!r} decision"
        if (
            d.topic == topic
            and (player is None or d.player == player)
            and (not later_turn or game.state.turn > turn)
            and (marching is None or game.state.marching == marching)
        ):
            return d
        if d.kind == "roll" and d.data.get("roll") == "minor_terrain":
            game.apply({"type": "roll", "faces": [d.dice[0]["faces"][-1]]})
            continue
        if d.kind == "roll" and d.data.get("roll") not in (
            "terrain",
            "maneuver",
            "melee",
            "missile",
            "magic",
            "save",
        ):
            # dragons and dragon responses: faces worth nothing (a belly, no ID, no melee/missile/save)
            dull = []
            for x in d.dice:
                plain = [
                    f
                    for f in x["faces"]
                    if not f.endswith("ID")
                    and not any(
                        k in f for k in ("Melee", "Missile", "Save", "Claw", "Jaw", "Tail", "Breath", "Wing")
                    )
                ]
                dull.append((plain or x["faces"])[0])
            game.apply({"type": "roll", "faces": dull})
            continue
        game.apply(passive_policy(d))
    raise AssertionError(f"no {topic!r} decision reached")


def frontier_action(game: Game, action: str) -> None:
    """Passively to Alice's first march: her Frontier army marches, skips the maneuver step and takes
    `action` (its roll, or the missile target, is then pending)."""
    until(game, "march", "p1")
    choose(game, "p1@frontier")
    choose(game, "skip")
    choose(game, action)


def next_turn(game: Game, pid: str = "p1"):
    """Passively to `pid`'s first march of their next turn."""
    return until(game, "march", pid, later_turn=True)


def values(decision) -> list:
    return [c["value"] for c in decision.choices]


def uid_of(game: Game, name: str, owner: str | None = None, where: str | None = None) -> str:
    st = game.state
    for uid, u in st.units.items():
        if (
            name in u.name
            and (owner is None or u.owner == owner)
            and (where is None or st.location[uid] == where)
        ):
            return uid
    raise AssertionError(f"no die {name!r} ({owner}, {where})")


def place(game: Game, name: str, owner: str, where: str = "frontier") -> str:
    """Scenario set-up: `owner`'s die named `name` is at `where` (summoned, moved or buried there
    earlier); returns its uid."""
    uid = uid_of(game, name, owner)
    game.state.location[uid] = where
    return uid
