"""Value types of the dice catalogue: :class:`Die`, :class:`SpellCard`, :class:`Catalogue`."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from enum import StrEnum

from .faces import ID, Face
from .tables import Element


class CatalogueError(ValueError):
    """The catalogue data is wrong or a lookup failed; names the die and face concerned."""

    def __init__(self, message: str, *, die: str | None = None, face: str | None = None):
        parts = []
        if die is not None:
            parts.append(f"die {die!r}")
        if face is not None:
            parts.append(f"face {face!r}")
        prefix = ", ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)
        self.die = die
        self.face = face


class DieKind(StrEnum):
    """What sort of die a catalogue entry is (V4.01c L1-263 components list)."""

    UNIT = "unit"  # six-sided die of a species (small/medium/large/champion)
    MONSTER = "monster"  # ten-sided die of a species
    EQUIPMENT = "equipment"  # four-sided non-metallic item
    ARTIFACT = "artifact"  # ten-sided item not of a species
    MEDALLION = "medallion"  # four-sided metallic item
    RELIC = "relic"  # six-sided metallic item
    DRAGON = "dragon"  # twelve-sided
    TERRAIN = "terrain"  # major terrain, eight-sided
    MINOR_TERRAIN = "minor_terrain"  # minor terrain, eight-sided


ITEM_KINDS = frozenset({DieKind.EQUIPMENT, DieKind.ARTIFACT, DieKind.MEDALLION, DieKind.RELIC})
UNIT_KINDS = frozenset({DieKind.UNIT, DieKind.MONSTER})

#: Number of faces per die kind (V4.01c L1-263: d6 units, d10 monsters/artifacts, d4 equipment and
#: medallions, d6 relics, d12 dragons, d8 terrains).
FACES_PER_KIND: dict[DieKind, int] = {
    DieKind.UNIT: 6,
    DieKind.MONSTER: 10,
    DieKind.EQUIPMENT: 4,
    DieKind.ARTIFACT: 10,
    DieKind.MEDALLION: 4,
    DieKind.RELIC: 6,
    DieKind.DRAGON: 12,
    DieKind.TERRAIN: 8,
    DieKind.MINOR_TERRAIN: 8,
}


def name_key(name: str) -> str:
    """Lookup key: case, spaces and punctuation ignored ("Crack-Shot" == "crack shot")."""
    return re.sub(r"[^a-z0-9/()]", "", name.lower())


@dataclass(frozen=True, slots=True)
class Die:
    """One die design.  ``name`` is ``"Species/Unit"`` (``"Dwarves/Mammoth Rider"``), or
    ``"Items/..."``, ``"Dragons/..."``, ``"Terrains/..."`` for dice of no species."""

    name: str
    kind: DieKind
    faces: tuple[Face, ...]
    species: str | None = None
    size: str | None = None
    health: int | None = None
    unit_class: str | None = None
    elements: frozenset[Element] = frozenset()
    color: str | None = None  # "Ivory", "White", an alloy, or None when plain elemental
    rarity: str | None = None
    autosaves: int = 0  # Dragonkin automatic saves (V4.01c L2510-2562)
    dragon_type: str | None = None
    terrain_type: str | None = None
    eighth_face: str | None = None
    x_value: int | None = None  # equipment X (small 1, medium 2, large 3)

    @property
    def short_name(self) -> str:
        return self.name.split("/", 1)[1]

    @property
    def is_unit(self) -> bool:
        return self.kind in UNIT_KINDS

    @property
    def is_item(self) -> bool:
        return self.kind in ITEM_KINDS

    @property
    def is_monster(self) -> bool:
        return self.kind is DieKind.MONSTER

    @property
    def id_face(self) -> Face | None:
        for face in self.faces:
            if face.is_id:
                return face
        return None

    @property
    def sai_names(self) -> frozenset[str]:
        return frozenset(f.sai for f in self.faces if f.sai is not None)

    def find_face(self, text: str) -> Face:
        """The face of this die written ``text`` ("2 Melee", "3 Trample", "ID").

        Raises :class:`CatalogueError` when the die has no such face.
        """
        from .faces import FaceError, parse_face

        want = " ".join(str(text).split())
        if want.upper() == ID:
            face = self.id_face
            if face is not None:
                return face
            raise CatalogueError("this die has no ID face", die=self.name, face=str(text))
        try:
            parsed = parse_face(want, dragon=self.kind is DieKind.DRAGON)
        except FaceError as exc:
            raise CatalogueError(str(exc), die=self.name, face=str(text)) from None
        for face in self.faces:
            if face.icon == parsed.icon and face.count == parsed.count and face.sai == parsed.sai:
                if parsed.label is None or face.label == parsed.label or face.label is None:
                    return face
        raise CatalogueError(
            "the die has no such face (faces: " + ", ".join(f.text() for f in self.faces) + ")",
            die=self.name,
            face=str(text),
        )


@dataclass(frozen=True, slots=True)
class SpellCard:
    """A spell card of the data set (cost, colour, species; the rules text is in the rulebook)."""

    name: str
    cost: int
    color: str
    species: str  # "Basic" for spells any species may cast
    reserve: bool
    cantrip: bool


@dataclass(frozen=True)
class Catalogue:
    """All dice and spell cards, looked up by name (case/punctuation-insensitive)."""

    dice: tuple[Die, ...]
    spells: tuple[SpellCard, ...] = ()
    _by_key: dict[str, Die] = field(default_factory=dict, repr=False, compare=False)
    _by_short: dict[str, list[Die]] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        for die in self.dice:
            key = name_key(die.name)
            if key in self._by_key:
                raise CatalogueError("duplicate name", die=die.name)
            self._by_key[key] = die
            self._by_short.setdefault(name_key(die.short_name), []).append(die)

    def __len__(self) -> int:
        return len(self.dice)

    def __iter__(self) -> Iterator[Die]:
        return iter(self.dice)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.find(name) is not None

    def find(self, name: str) -> Die | None:
        """The die called ``name``, or ``None``.  A name without its ``Species/`` part is
        accepted when it is unambiguous."""
        key = name_key(name)
        die = self._by_key.get(key)
        if die is not None:
            return die
        if "/" not in key:
            matches = self._by_short.get(key, [])
            if len(matches) == 1:
                return matches[0]
        return None

    def get(self, name: str) -> Die:
        """The die called ``name``; raises :class:`CatalogueError` (a ``ValueError``) if unknown."""
        die = self.find(name)
        if die is None:
            raise CatalogueError(f"unknown die {name!r}")
        return die

    __getitem__ = get

    def of_kind(self, kind: DieKind | str) -> tuple[Die, ...]:
        kind = DieKind(kind)
        return tuple(d for d in self.dice if d.kind is kind)

    def of_species(self, species: str) -> tuple[Die, ...]:
        return tuple(d for d in self.dice if d.species == species)

    def search(self, text: str) -> list[Die]:
        """Dice whose name, species, class or face icons contain ``text`` (case-insensitive)."""
        needle = text.lower().strip()
        out = []
        for die in self.dice:
            hay = " ".join(
                [die.name, die.kind.value, die.unit_class or "", die.size or ""] + [f.name for f in die.faces]
            ).lower()
            if needle in hay:
                out.append(die)
        return out

    def spell(self, name: str) -> SpellCard | None:
        key = name_key(name)
        for card in self.spells:
            if name_key(card.name) == key:
                return card
        return None

    def counts_by_kind(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for die in self.dice:
            counts[die.kind.value] = counts.get(die.kind.value, 0) + 1
        counts["spell_card"] = len(self.spells)
        return counts
