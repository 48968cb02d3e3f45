"""The four R96 racial abilities (R96 L796-824).  Spell-added maneuvers (Wind Walk) never feed
them (R96 L796-804): counts-as reads the units' own rolled results only."""

from __future__ import annotations

from collections.abc import Iterable

from companion.rules.resolution.model import ADD, MANEUVER, MULTIPLY, SAVE, Modifier
from companion.rules.resolution.registry import Contribution, RollContext

from .registry import REGISTRY


def _at(ctx: RollContext, terrain_type: str) -> bool:
    return ctx.terrain is not None and ctx.terrain.type == terrain_type and not ctx.in_reserve


@REGISTRY.species_ability("Coral Elves", "Selumari: maneuvers as saves", citation="R96 L806-807")
def coral_elves(ctx: RollContext, units: frozenset[int]) -> Iterable[Contribution]:
    """In coastland, coral elves count maneuver results as saves when rolling saves."""
    if SAVE in ctx.counted and _at(ctx, "Coastland"):
        yield Modifier(
            ADD,
            SAVE,
            0,
            "Selumari: maneuvers as saves",
            "R96 L806-807",
            scope="any",
            units=units,
            counts_as=MANEUVER,
            origin="species",
            optional=True,
            note="coral elves in coastland count maneuvers as saves",
        )


@REGISTRY.species_ability("Dwarves", "Vagha: maneuvers doubled", citation="R96 L811-812")
def dwarves(ctx: RollContext, units: frozenset[int]) -> Iterable[Contribution]:
    """In highland, dwarves double their maneuver results (SAI maneuvers too, R96 L707-708)."""
    if _at(ctx, "Highland"):
        yield Modifier(
            MULTIPLY,
            MANEUVER,
            2,
            "Vagha: maneuvers doubled",
            "R96 L811-812",
            scope="any",
            units=units,
            origin="species",
            note="dwarves in highland double their maneuvers",
        )


@REGISTRY.species_ability("Goblins", "Trogs: maneuvers doubled", citation="R96 L816-817")
def goblins(ctx: RollContext, units: frozenset[int]) -> Iterable[Contribution]:
    """In swampland, goblins double their maneuver results."""
    if _at(ctx, "Swampland"):
        yield Modifier(
            MULTIPLY,
            MANEUVER,
            2,
            "Trogs: maneuvers doubled",
            "R96 L816-817",
            scope="any",
            units=units,
            origin="species",
            note="goblins in swampland double their maneuvers",
        )


@REGISTRY.species_ability("Lava Elves", "Morehl: maneuvers as saves", citation="R96 L821-822")
def lava_elves(ctx: RollContext, units: frozenset[int]) -> Iterable[Contribution]:
    """In highland, lava elves count maneuver results as saves when rolling saves."""
    if SAVE in ctx.counted and _at(ctx, "Highland"):
        yield Modifier(
            ADD,
            SAVE,
            0,
            "Morehl: maneuvers as saves",
            "R96 L821-822",
            scope="any",
            units=units,
            counts_as=MANEUVER,
            origin="species",
            optional=True,
            note="lava elves in highland count maneuvers as saves",
        )
