"""Rulebook tables the catalogue needs: elements, terrain types, species elements, health by size.

Facts from Dragon Dice rules V4.01c (001_3528b96406ab467a.txt), restated in our own words.
"""

from __future__ import annotations

from enum import StrEnum


class Element(StrEnum):
    """The five magical elements (V4.01c L134-150)."""

    AIR = "Air"
    DEATH = "Death"
    EARTH = "Earth"
    FIRE = "Fire"
    WATER = "Water"


ALL_ELEMENTS: tuple[Element, ...] = tuple(Element)

#: Die colour -> element (V4.01c L138-150). Ivory means no element, White means all (L151-156).
COLOR_ELEMENT: dict[str, Element] = {
    "Black": Element.DEATH,
    "Blue": Element.AIR,
    "Green": Element.WATER,
    "Red": Element.FIRE,
    "Yellow": Element.EARTH,
}

#: Metallic alloys: non-elemental (V4.01c L157-164).
ALLOYS: frozenset[str] = frozenset({"Bronze", "Silver", "Gold"})

#: Terrain types and the elements each contains (V4.01c L166-180 table).
TERRAIN_TYPE_ELEMENTS: dict[str, frozenset[Element]] = {
    "Coastland": frozenset({Element.AIR, Element.WATER}),  # L168
    "Deadland": frozenset({Element.DEATH}),  # L170
    "Flatland": frozenset({Element.AIR, Element.EARTH}),  # L172
    "Highland": frozenset({Element.FIRE, Element.EARTH}),  # L174
    "Swampland": frozenset({Element.WATER, Element.EARTH}),  # L176
    "Feyland": frozenset({Element.WATER, Element.FIRE}),  # L178
    "Wasteland": frozenset({Element.AIR, Element.FIRE}),  # L180
}
TERRAIN_TYPES: tuple[str, ...] = tuple(TERRAIN_TYPE_ELEMENTS)

#: Species and their elements (V4.01c L182-226). ``None`` = each die has its own element(s).
SPECIES_ELEMENTS: dict[str, frozenset[Element] | None] = {
    "Amazons": frozenset(),  # L185: ivory, no elements
    "Coral Elves": frozenset({Element.AIR, Element.WATER}),  # L187
    "Dwarves": frozenset({Element.FIRE, Element.EARTH}),  # L189
    "Eldarim": None,  # L191: one element per die (White champions: all)
    "Feral": frozenset({Element.AIR, Element.EARTH}),  # L194
    "Firewalkers": frozenset({Element.AIR, Element.FIRE}),  # L196
    "Frostwings": frozenset({Element.DEATH, Element.AIR}),  # L198
    "Goblins": frozenset({Element.DEATH, Element.EARTH}),  # L200
    "Lava Elves": frozenset({Element.DEATH, Element.FIRE}),  # L202
    "Scalders": frozenset({Element.WATER, Element.FIRE}),  # L204
    "Swamp Stalkers": frozenset({Element.DEATH, Element.WATER}),  # L206
    "Treefolk": frozenset({Element.WATER, Element.EARTH}),  # L208
    "Undead": frozenset({Element.DEATH}),  # L210
    "Dragonkin": None,  # L220-223: one element per die
    "Dracolem": frozenset(),  # L225: alloys, no elements
}
SPECIES: tuple[str, ...] = tuple(SPECIES_ELEMENTS)

#: Health by die size (V4.01c L73-78): small 1, medium 2, large 3, champion and monster 4.
HEALTH_BY_SIZE: dict[str, int] = {"Small": 1, "Medium": 2, "Large": 3, "Champion": 4, "Monster": 4}

#: Dragon health: 5, White Dragons 10 (V4.01c L77-78, L572).
DRAGON_HEALTH = 5
WHITE_DRAGON_HEALTH = 10

#: Equipment X values by size (V4.01c items table L2700-2725; SAI rule L1180-1238).
EQUIPMENT_X: dict[str, int] = {"Small": 1, "Medium": 2, "Large": 3}
