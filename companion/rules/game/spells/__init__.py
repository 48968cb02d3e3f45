"""The 47 spells of V4.01c in the game flow (L2085-2446): one module per element registers each
spell's effect with its citation (``registry.SPELLS``); ``casting`` runs an announcement (Dispel
Magic, lost targets, resolution in order) and Cantrip magic; the DUA spells' death hooks live with
their spells (Open Grave, Soiled Ground in ``death``; Accelerated Growth in ``water``)."""

from . import air, death, earth, elemental, fire, water  # noqa: F401  (registration)
from .casting import cantrip_after_roll, cast_announced
from .registry import SPELLS, SpellRule, announce, lasting

__all__ = ["SPELLS", "SpellRule", "announce", "cantrip_after_roll", "cast_announced", "lasting"]
