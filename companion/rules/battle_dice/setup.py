"""Army set-up (BD L48-62): equal dice counts, free mix of types, one monster type per army.

An army is given as ``{"name": str, "monster": "dragon", "units": {"general": 2, "monster": 4, ...}}``;
unit keys may also be die sizes (``"d4"`` ... ``"d20"``).  ``"monsters": {"dragon": 4}`` is accepted in
place of ``monster`` + ``units["monster"]``, so that a list naming two monster types can be refused.
"""

from __future__ import annotations

from typing import Any

from ..text_numbers import is_whole_number
from .errors import SetupError
from .tables import MONSTER_TABLES, UNIT_BY_NAME, UNIT_TYPES

PLAYERS = ("A", "B")


def opponent(player: str) -> str:
    return "B" if player == "A" else "A"


def _unit_name(key: object) -> str:
    if isinstance(key, str):
        k = key.strip().lower()
        if k in UNIT_BY_NAME:
            return k
        if k.endswith("s") and k[:-1] in UNIT_BY_NAME:  # "generals", "archers"
            return k[:-1]
        if k.startswith("d") and is_whole_number(k[1:]):
            for u in UNIT_TYPES:
                if u.sides == int(k[1:]):
                    return u.name
    raise SetupError(f"unknown unit type {key!r}; use one of {[u.name for u in UNIT_TYPES]} or d4..d20")


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise SetupError(f"{what}: a count must be a whole number >= 0, not {value!r}")
    return value


def monster_key(name: object) -> str:
    if not isinstance(name, str):
        raise SetupError(f"monster type must be a name, not {name!r}")
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    if key not in MONSTER_TABLES:
        raise SetupError(f"unknown monster type {name!r}; choose one of {sorted(MONSTER_TABLES)}")
    return key


def normalise_army(player: str, army: object) -> dict[str, Any]:
    """The canonical form of one army list, or :class:`SetupError` naming the fault."""
    if not isinstance(army, dict):
        raise SetupError(f"army {player} must be an object")
    units = {u.name: 0 for u in UNIT_TYPES}
    for key, value in (army.get("units") or {}).items():
        name = _unit_name(key)
        units[name] += _count(value, f"army {player} {key}")
    monster = army.get("monster")
    monsters = army.get("monsters")
    if monsters is not None:
        if not isinstance(monsters, dict):
            raise SetupError(f"army {player}: monsters must map a monster type to a count")
        kinds = {monster_key(k): _count(v, f"army {player} {k}") for k, v in monsters.items()}
        kinds = {k: v for k, v in kinds.items() if v}
        if len(kinds) > 1:
            raise SetupError(
                f"army {player} picks {len(kinds)} monster types {sorted(kinds)}; "
                "a player may pick only one type of monster (BD L54)"
            )
        if kinds:
            ((kind, n),) = kinds.items()
            if monster is not None and monster_key(monster) != kind:
                raise SetupError(
                    f"army {player}: monster {monster!r} disagrees with monsters {sorted(kinds)}"
                )
            monster = kind
            units["monster"] += n
    if monster is not None:
        monster = monster_key(monster)
    if units["monster"] and monster is None:
        raise SetupError(
            f"army {player} has {units['monster']} monster(s) but names no monster type (BD L54)"
        )
    total = sum(units.values())
    if total == 0:
        raise SetupError(f"army {player} has no dice")
    name = army.get("name", f"Player {player}")
    if not isinstance(name, str):
        raise SetupError(f"army {player}: name must be a string")
    return {"name": name, "monster": monster, "units": units, "dice": total}


def normalise_setup(setup: object) -> dict[str, Any]:
    """Both armies checked against BD L50-54; the options are checked by the rulings module."""
    if not isinstance(setup, dict) or not isinstance(setup.get("armies"), dict):
        raise SetupError('setup must be an object with "armies": {"A": {...}, "B": {...}}')
    armies = setup["armies"]
    if set(armies) != set(PLAYERS):
        raise SetupError(f"setup needs exactly the armies A and B, got {sorted(map(str, armies))}")
    norm = {p: normalise_army(p, armies[p]) for p in PLAYERS}
    if norm["A"]["dice"] != norm["B"]["dice"]:
        raise SetupError(
            f"both players must use an equal number of dice (BD L50): A has {norm['A']['dice']}, "
            f"B has {norm['B']['dice']}"
        )
    return {"armies": norm, "options": dict(setup.get("options") or {})}


def initial_dice(player: str, army: dict[str, Any]) -> list[dict[str, Any]]:
    """The dice of a fresh army, ids ``A01``..., in unit-type order (d4 first)."""
    dice: list[dict[str, Any]] = []
    for unit in UNIT_TYPES:
        for _ in range(army["units"][unit.name]):
            dice.append(new_die(player, len(dice) + 1, unit.name, army["monster"]))
    return dice


def new_die(player: str, number: int, unit: str, monster: str | None) -> dict[str, Any]:
    u = UNIT_BY_NAME[unit]
    return {
        "id": f"{player}{number:02d}",
        "unit": unit,
        "sides": u.sides,
        "monster": monster if unit == "monster" else None,
        "face": None,
    }


#: The quick start: equal dice counts, one monster type each (BD L48-62).
QUICK_ARMIES = (
    {
        "monster": "dragon",
        "units": {"general": 1, "infantry": 4, "archer": 2, "cavalry": 2, "mage": 1, "monster": 2},
    },
    {
        "monster": "giant",
        "units": {"general": 1, "infantry": 4, "archer": 2, "cavalry": 2, "mage": 1, "monster": 2},
    },
)


def quick_setup(setup: object) -> dict[str, Any]:
    """A full set-up from ``{"game": "battle_dice", "players": [name, name]}``: the quick start's two
    armies (``QUICK_ARMIES``); a set-up that already names its ``armies`` is kept as it is."""
    if not isinstance(setup, dict):
        raise SetupError("the set-up must be a JSON object")
    if "armies" in setup:
        return dict(setup)
    names = setup.get("players")
    if (
        not isinstance(names, list)
        or len(names) != len(PLAYERS)
        or not all(isinstance(n, str) for n in names)
    ):
        raise SetupError("Battle Dice is a two-player game: give the two players' names")
    armies = {
        pid: {"name": name.strip(), **QUICK_ARMIES[i]}
        for i, (pid, name) in enumerate(zip(PLAYERS, names, strict=True))
    }
    return {"game": "battle_dice", "armies": armies}
