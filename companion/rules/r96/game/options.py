"""Game options of an r96 game: the optional routing rule and the FAQ-vs-rulebook switches.

Every option has a default (the ruling this edition follows, see ``RULINGS.md``) and may be
changed per game through ``setup["options"]``.  The six conflicts of
``shared/rules/worked-examples.md`` section 5 are ``CONFLICT_OPTIONS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...core.errors import IllegalSetup


@dataclass(frozen=True)
class Option:
    key: str
    default: Any
    values: tuple[Any, ...]
    text: str
    citation: str


OPTIONS: dict[str, Option] = {
    o.key: o
    for o in (
        Option(
            "routing", False, (False, True), "play the optional routing rule (routs, pursuit)", "R96 L566-608"
        ),
        # FAQ-CONFLICT-1: a charger's saves must exceed its IDs (FAQ) or only more IDs than saves routs (R96).
        Option(
            "charger_rout_on_tie",
            False,
            (False, True),
            "a charging army with as many ID icons as save icons routs (FAQ95/FAQ96 MELEE H)",
            "R96 L571-574; FAQ95 MELEE H; FAQ96 MELEE H",
        ),
        # FAQ-CONFLICT-2: spells never modify SAI results (R96, FAQ96) or Dancing Lights halves Bullseye (FAQ95).
        Option(
            "spells_modify_sais",
            False,
            (False, True),
            "spell modifiers also change SAI results (FAQ95 FIRE 4.F)",
            "R96 L705-708; FAQ96 SAI B; FAQ95 FIRE 4.F",
        ),
        # FAQ-CONFLICT-3: order of add and multiply.
        Option(
            "modifier_order",
            "r96",
            ("r96", "faq95"),
            "'r96': subtract, divide, multiply, add; 'faq95': adds before the terrain multiply",
            "R96 L953-961; FAQ95 EARTH 4.F, 4.I",
        ),
        # FAQ-CONFLICT-4: spell-added maneuvers counted as saves by racial abilities.
        Option(
            "wind_walk_feeds_racial",
            False,
            (False, True),
            "Wind Walk maneuvers count as saves for coral/lava elves (FAQ95 AIR 4.B)",
            "R96 L796-804; FAQ95 AIR 4.B",
        ),
        # FAQ-CONFLICT-5: the save roll may be skipped (FAQ95) or is always rolled (FAQ96).
        Option(
            "optional_save_roll",
            False,
            (False, True),
            "an army may decline its save roll when no rout is possible (FAQ95 MELEE A)",
            "FAQ96 MELEE A; FAQ95 MELEE A",
        ),
        # FAQ-CONFLICT-6: which units carry SAIs.
        Option(
            "sai_units",
            "rare_and_monster",
            ("rare_and_monster", "rare_only"),
            "units whose SAIs count: rares and monsters (R96) or rares only (FAQ96 SAI A)",
            "R96 L685-690; FAQ96 SAI A",
        ),
        # Other documented decisions a table may want to switch.
        Option(
            "single_race_home_campaign",
            True,
            (False, True),
            "home and campaign armies are of one race each",
            "FAQ95 SET-UP 2.A; FAQ96 SET-UP B.1",
        ),
        Option(
            "hailstorm_own_army",
            False,
            (False, True),
            "Hailstorm may hit one's own army, without a save (FAQ95 AIR 1.A)",
            "R96 L424-425; FAQ95 AIR 1.A",
        ),
        Option(
            "burial_points_must_be_spent",
            True,
            (False, True),
            "black points gained by burying must all be spent",
            "R96 L460-462; FAQ95 MAGIC-GEN D",
        ),
    )
}

CONFLICT_OPTIONS = (
    "charger_rout_on_tie",
    "spells_modify_sais",
    "modifier_order",
    "wind_walk_feeds_racial",
    "optional_save_roll",
    "sai_units",
)


def game_options(given: Mapping[str, Any] | None) -> dict[str, Any]:
    """The options of a game: the defaults, overridden by ``given``; unknown keys or values refused."""
    out = {k: o.default for k, o in OPTIONS.items()}
    if given is None:
        return out
    if not isinstance(given, Mapping):
        raise IllegalSetup("options must be an object of option: value")
    for key, value in given.items():
        if key not in OPTIONS:
            raise IllegalSetup(f"unknown r96 option {key!r}; known: {', '.join(OPTIONS)}")
        if value not in OPTIONS[key].values or (
            isinstance(value, bool) != isinstance(OPTIONS[key].default, bool)
        ):
            raise IllegalSetup(
                f"option {key!r} takes one of {list(OPTIONS[key].values)}, not {value!r}",
                OPTIONS[key].citation,
            )
        out[key] = value
    return out
