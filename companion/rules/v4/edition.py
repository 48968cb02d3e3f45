"""The v4 edition object: V4.01c's resolution order and limits as data, and its plug-ins."""

from __future__ import annotations

from companion.rules.resolution.editions import Edition

from . import breath, core, minor_terrain  # noqa: F401  (importing registers the core rules)
from .plugins import register_all
from .registry import REGISTRY
from .spells import OTHER_SPELLS, ROLL_SPELLS, UNDOCUMENTED_SPELLS

register_all(REGISTRY)  # H2's SAI, species-ability and spell tables

#: The 47 spells of V4.01c (L2085-2446), as printed there.
SPELL_NAMES = frozenset(
    {
        "Hailstorm",
        "Blizzard",
        "Wilding",
        "Wind Walk",
        "Fields of Ice",
        "Mirage",
        "Lightning Strike",
        "Palsy",
        "Decay",
        "Evil Eye",
        "Magic Drain",
        "Restless Dead",
        "Swamp Fever",
        "Finger of Death",
        "Necromantic Wave",
        "Exhume",
        "Open Grave",
        "Soiled Ground",
        "Stone Skin",
        "Path",
        "Berserker Rage",
        "Higher Ground",
        "Scent of Fear",
        "Wall of Thorns",
        "Transmute Rock to Mud",
        "Ash Storm",
        "Fearful Flames",
        "Firebolt",
        "Firestorm",
        "Flashfire",
        "Fiery Weapon",
        "Dancing Lights",
        "Watery Double",
        "Accelerated Growth",
        "Flash Flood",
        "Deluge",
        "Mire",
        "Tidal Wave",
        "Wall of Fog",
        "Evolve Dragonkin",
        "Resurrect Dead",
        "Esfah's Gift",
        "Summon Dragonkin",
        "Rally",
        "Rise of the Eldarim",
        "Summon Dragon",
        "Summon White Dragon",
    }
)

EDITION = Edition(
    key="v4",
    title="Dragon Dice rules V4.01c (SFR)",
    document="V4.01c",
    registry=REGISTRY,
    stages=("subtract", "divide", "sai", "multiply", "add"),
    step_numbers={"reroll": 3, "count": 5, "subtract": 6, "divide": 7, "sai": 8, "multiply": 9, "add": 10},
    citations={
        "reroll": "V4.01c L1013-1015 (step 3)",
        "sai_table": "V4.01c L1239-2080 (SAI table); results join at step 8, L1025",
        "count": "V4.01c L1019 (step 5); IDs L113-121",
        "subtract": "V4.01c L1021 (step 6)",
        "divide": "V4.01c L1023 (step 7)",
        "sai": "V4.01c L1025 (step 8)",
        "multiply": "V4.01c L1027 (step 9)",
        "add": "V4.01c L1029-1031 (step 10)",
        "ids_last": "V4.01c L1058-1061",
        "one_divider": "V4.01c L1063",
        "one_multiplier": "V4.01c L1064",
        "counts_as": "V4.01c L1040-1048",
    },
    texts={
        "count": "Subtotal of the non-SAI results (an ID gives results of the roll's type, worth the unit's health)",
        "sai": "SAI-generated results join the subtotal after subtracting and dividing",
    },
    one_divider=True,
    one_multiplier=True,
    spells_touch_sai=True,
    # the printed list, lasting SAI effects named like spells and the Dracolem cards (H2's tables),
    # and the lasting dragon-breath effects
    spell_names=SPELL_NAMES
    | {s.name for s in ROLL_SPELLS.values()}
    | OTHER_SPELLS
    | UNDOCUMENTED_SPELLS
    | breath.NAMES
    | minor_terrain.NAMES,
)
