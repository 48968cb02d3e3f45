"""Typed die faces, parsed once from the face text the catalogue stores.

Conventions of the face data (and of roll scenario files):

* A face is written ``"<count> <icon>"``: ``"2 Melee"``, ``"3 Trample"``, ``"1 ID"``.
* The ID face's count is the unit's health: an ID generates that many results of whatever the
  roll is for (V4.01c L113-121).  Scenario files may write just ``"ID"``.
* Monster, artifact, medallion, relic and champion faces with a single icon show ``4``: one icon
  worth four results (V4.01c L1132-1137; the X value rule of the SAI section L1180-1238).
  The count stored here is always the number of results (the X value), never the icon count.
* Terrain faces: ``count`` is the number printed on the face (1-8), ``icon`` the action icon
  (Magic/Missile/Melee) or the eighth-face icon (City, Tower, ...).
* Dragon faces: ``icon`` is the dragon icon (Jaw, Claw, ...), ``count`` its value.
* Special action icons: ``icon`` is ``"SAI"`` and ``sai`` its canonical name (``"Trample"``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..text_numbers import is_whole_number

#: Action result types, the normal action icons (V4.01c L103-112).
RESULT_TYPES: tuple[str, ...] = ("Maneuver", "Melee", "Missile", "Magic", "Save")
ID = "ID"
SAI = "SAI"

#: Dragon die icons (V4.01c L730-770).
DRAGON_ICONS: frozenset[str] = frozenset({"Jaw", "Claw", "Tail", "Belly", "Wing", "Breath", "Treasure"})

#: Eighth-face icons of major terrains (V4.01c L499-540, advanced terrains L2565-2590).
EIGHTH_FACE_ICONS: frozenset[str] = frozenset(
    {"City", "Standing Stones", "Temple", "Tower", "Castle", "Dragons Lair", "Grove", "Vortex"}
)
#: Minor terrain icons (V4.01c L2595-2690).
MINOR_TERRAIN_ICONS: frozenset[str] = frozenset(
    {
        "Bridge",
        "Knoll",
        "Village",
        "Woods",
        "Flood",
        "Dust Storm",
        "Revolt",
        "Flanked",
        "Double Maneuvers",
        "Double Saves",
    }
)

#: The SAIs of the V4.01c SAI table (L1239-2080), as printed there, plus the logo entries.
SAI_NAMES: frozenset[str] = frozenset(
    {
        "Attune",
        "Bash",
        "Belly",
        "Breath",
        "Bullseye",
        "Cantrip",
        "Charge",
        "Charm",
        "Choke",
        "Cloak",
        "Coil",
        "Confuse",
        "Convert",
        "Counter",
        "Create Fireminions",
        "Crush",
        "Decapitate",
        "Dispel Magic",
        "Double Strike",
        "Elemental Relic",
        "Elevate",
        "Entangle",
        "Fabricate",
        "Ferry",
        "Firebreath",
        "Firecloud",
        "Firewalking",
        "Flame",
        "Flaming Arrow",
        "Flurry",
        "Fly",
        "Frost Breath",
        "Galeforce",
        "Gate",
        "Gore",
        "Hoof",
        "Howl",
        "Hug",
        "Hypnotic Glare",
        "Illusion",
        "Impale",
        "Kick",
        "Magic Suppression",
        "Net",
        "Plague",
        "Poison",
        "Regenerate",
        "Rend",
        "Rise from the Ashes",
        "Roar",
        "Scare",
        "Screech",
        "Seize",
        "Logo",
        "Slay",
        "Sleep",
        "Smite",
        "Smother",
        "Sneak Attack",
        "Sortie",
        "Spell Disruption",
        "Stomp",
        "Stone",
        "Stun",
        "Summon Dragon",
        "Surprise",
        "Swallow",
        "Tail",
        "Teleport",
        "Trample",
        "Trumpet",
        "Vanish",
        "Volley",
        "Wave",
        "Wayfare",
        "Web",
        "Wild Growth",
        "Wither",
    }
)

#: Spellings in the face data that differ from the SAI table's.
SAI_ALIASES: dict[str, str] = {
    "Fire Breath": "Firebreath",
    "Element Air": "Elemental Relic",
    "Element Death": "Elemental Relic",
    "Element Earth": "Elemental Relic",
    "Element Fire": "Elemental Relic",
    "Element Water": "Elemental Relic",
}

_KNOWN_ICONS = frozenset(RESULT_TYPES) | {ID} | EIGHTH_FACE_ICONS | MINOR_TERRAIN_ICONS


class FaceError(ValueError):
    """A face text that cannot be parsed (unknown icon, bad count)."""


@dataclass(frozen=True, slots=True)
class Face:
    """One face of a die.

    ``icon``: ``"ID"``, a result type (``"Melee"``...), ``"SAI"``, a dragon icon or a terrain icon.
    ``count``: number of results (the X value); for terrains, the number printed on the face.
    ``sai``: canonical SAI name when ``icon == "SAI"``, else ``None``.
    ``label``: the icon as printed in the data (``"Element Air"`` for the Elemental Relic face).
    """

    icon: str
    count: int
    sai: str | None = None
    label: str | None = None

    @property
    def is_id(self) -> bool:
        return self.icon == ID

    @property
    def is_sai(self) -> bool:
        return self.icon == SAI

    @property
    def is_action(self) -> bool:
        """A normal action icon (maneuver, melee, missile, magic or save)."""
        return self.icon in RESULT_TYPES

    @property
    def name(self) -> str:
        """The icon's printed name: ``"Trample"`` for an SAI face, ``"Melee"``, ``"ID"``..."""
        if self.label is not None:
            return self.label
        return self.sai if self.sai is not None else self.icon

    def text(self) -> str:
        return f"{self.count} {self.name}"

    def __str__(self) -> str:
        return self.text()


def parse_face(text: str, *, dragon: bool = False, default_count: int | None = None) -> Face:
    """Parse ``"2 Melee"``, ``"3 Trample"``, ``"1 ID"`` into a :class:`Face`.

    ``dragon=True`` reads the icons of a dragon die (Jaw, Claw, Tail, ...); on other dice
    ``Tail``, ``Belly`` and ``Breath`` are the SAIs of the same names.
    A bare icon (``"ID"``) takes ``default_count``; without one it is refused.
    Raises :class:`FaceError` naming the problem.
    """
    raw = " ".join(str(text).split())
    if not raw:
        raise FaceError("empty face text")
    head, _, rest = raw.partition(" ")
    if is_whole_number(head.lstrip("-")):
        count = int(head)
        label = rest
    else:
        if default_count is None:
            raise FaceError(f"face {text!r} has no count")
        count = default_count
        label = raw
    if count < 0:
        raise FaceError(f"face {text!r} has a negative count")
    if not label:
        raise FaceError(f"face {text!r} has no icon")
    if dragon:
        if label in DRAGON_ICONS:
            return Face(label, count)
        raise FaceError(f"face {text!r}: unknown dragon icon {label!r}")
    if label in _KNOWN_ICONS:
        return Face(label, count)
    canonical = SAI_ALIASES.get(label, label)
    if canonical in SAI_NAMES:
        return Face(SAI, count, canonical, None if canonical == label else label)
    # case-insensitive second chance
    for known in _KNOWN_ICONS:
        if known.lower() == label.lower():
            return Face(known, count)
    for known in SAI_NAMES:
        if known.lower() == label.lower():
            return Face(SAI, count, known)
    raise FaceError(f"face {text!r}: unknown icon {label!r}")
