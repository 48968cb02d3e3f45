"""Set-up steps both editions take the same way; what differs by edition comes in as arguments.

``force_dice`` reads one player's armies and dragons from the set-up; ``add_unit`` gives a die of the
force its unit id and first location; ``roll_starting_distance`` asks for a terrain die until it
shows a starting face.  The rules cited are the caller's (V4.01c or R96), passed with the call.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping
from typing import Any

from .decisions import Decision, ask_roll
from .errors import IllegalSetup
from .state import DieSpec, GameState, TerrainState, Unit, spec_for


def force_dice(
    p: Mapping[str, Any], name: str, armies_wanted: str, armies_rule: str, dragons_rule: str
) -> tuple[dict[str, list[DieSpec]], list[DieSpec]]:
    """(dice of each army by army name, dragons) of player ``p`` (called ``name`` in messages).

    ``armies_wanted`` names the armies in the message refusing a missing ``armies`` (cited
    ``armies_rule``); a ``dragons`` that is not a list is refused citing ``dragons_rule``."""
    armies = p.get("armies")
    if not isinstance(armies, Mapping):
        raise IllegalSetup(f"{name}: 'armies' must give {armies_wanted}", armies_rule)
    specs: dict[str, list[DieSpec]] = {}
    for army_name, dice in armies.items():
        if not isinstance(dice, list):
            raise IllegalSetup(f"{name}: the {army_name} army must be a list of die names")
        specs[army_name] = [spec_for(str(d)) for d in dice]
    dragons = p.get("dragons", [])
    if not isinstance(dragons, list):
        raise IllegalSetup(f"{name}: 'dragons' must be a list of dragon names", dragons_rule)
    return specs, [spec_for(str(d)) for d in dragons]


def add_unit(st: GameState, owner: str, spec: DieSpec, location: str) -> str:
    """Put a die of ``owner``'s force in the state at ``location``; its id is ``u<N>``, N counting the
    dice added so far from 1."""
    uid = f"u{len(st.units) + 1}"
    st.units[uid] = Unit(uid, owner, spec)
    st.location[uid] = location
    return uid


def roll_starting_distance(
    pid: str,
    player_name: str,
    terrain: TerrainState,
    rule: str,
    starting_face: Callable[[int], int | None],
    say: Callable[[str], None],
    again: str = "roll again",
) -> Generator[Decision, Any, tuple[int, str]]:
    """Ask ``pid`` to roll ``terrain``'s die until ``starting_face`` (the edition's rule, cited ``rule``)
    turns the face rolled into a starting face; each refused face (an 8) is said with ``again``.
    Returns (starting face, the face rolled, as answered)."""
    while True:
        spec = [
            {"uid": terrain.id, "die": f"Terrains/{terrain.name}", "faces": [str(i) for i in range(1, 9)]}
        ]
        faces = yield ask_roll(
            "terrain_roll",
            pid,
            f"{player_name}: roll {terrain.name} for its starting distance",
            rule,
            dice=spec,
            data={"roll": "terrain", "terrain": terrain.id},
        )
        face = starting_face(int(faces[0]))
        if face is not None:
            return face, faces[0]
        say(f"{terrain.name} rolled 8: {again}")
