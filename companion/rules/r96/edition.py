"""The r96 edition object: R96's four-step modifier order (R96 L953-961) as data."""

from __future__ import annotations

from companion.rules.resolution.editions import Edition

from . import core, racial, sai, spells  # noqa: F401  (importing registers the plug-ins)
from .registry import REGISTRY
from .spells import SPELL_NAMES

EDITION = Edition(
    key="r96",
    title="Dragon Dice Revised Rules (TSR, 1996)",
    document="R96",
    registry=REGISTRY,
    stages=("subtract", "divide", "multiply", "add"),
    step_numbers={"reroll": 0, "count": 0, "subtract": 1, "divide": 2, "multiply": 3, "add": 4},
    citations={
        "reroll": "R96 L765-773 (Rend re-rolls)",
        "sai_table": "R96 L685-790 (special action icons)",
        "count": "R96 L117-122 (IDs worth their health); SAIs before normal icons L685-690",
        "subtract": "R96 L953-961 (1: subtract)",
        "divide": "R96 L953-961 (2: divide)",
        "multiply": "R96 L953-961 (3: multiply)",
        "add": "R96 L953-961 (4: add)",
        "floor": "R96 L961",
        "split": "R96 L934-951",
    },
    texts={
        "count": "Results rolled (an ID gives results of the roll's type, worth the unit's health; SAI points count one each)",
    },
    one_divider=False,
    one_multiplier=False,
    spells_touch_sai=False,
    spell_names=SPELL_NAMES,
)
