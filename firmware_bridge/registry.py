"""The die registry: which physical smart die (``die_id``) stands for which game die.

A registry is a JSON file::

    {
      "version": 1,
      "dice": {
        "pxA7F3": {"catalogue": "Amazons/Charioteer", "face_map": [0, 1, 2, 3, 4, 5]},
        "pxB001": {"standard": "d20"}
      }
    }

A *catalogue* entry names a Dragon Dice die of the catalogue (units, monsters, terrains, dragons,
items: ``companion.rules.catalogue``) and may give ``face_map``: for each face index the die reports
(its own calibration), the position of the catalogue face that is up (0-based, in catalogue
order).  Without ``face_map`` face index *i* is catalogue face *i*.  A *standard* entry is a plain
``d4``..``d20`` (Battle Dice); face index *i* shows the value ``i + 1`` unless ``values`` lists the
value of each index.

Every problem (unknown catalogue die, a map that is not a permutation of the die's faces, a face
index the die does not have) raises :class:`RegistryError` naming the die and what is wrong.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from firmware_bridge.protocol import FrameError, check_die_id

if TYPE_CHECKING:
    from companion.rules.catalogue import Catalogue, Face

REGISTRY_VERSION = 1
STANDARD_SIDES = (4, 6, 8, 10, 12, 20)


class RegistryError(ValueError):
    """A registry file or entry that cannot be used."""


@dataclass(frozen=True)
class FaceMeaning:
    """What a face index of a registered die means in the game."""

    die_id: str
    kind: str  # "catalogue" or "standard"
    name: str  # catalogue name ("Amazons/Charioteer") or "d20"
    face_number: int  # 1-based position of the face on the catalogue die, or the standard die's value
    face_text: str  # "2 Melee" for a catalogue die, "17" for a standard die
    face: Face | None = None  # the catalogue face (None for standard dice)

    def as_dict(self) -> dict:
        out = {"kind": self.kind, "name": self.name, "face_text": self.face_text}
        if self.kind == "catalogue":
            out["face_number"] = self.face_number
            assert self.face is not None
            out["icon"] = self.face.name
            out["count"] = self.face.count
        else:
            out["value"] = self.face_number
        return out


@dataclass(frozen=True)
class CatalogueEntry:
    name: str
    face_map: tuple[int, ...]
    face_texts: tuple[str, ...]
    faces: tuple[Face, ...]

    def to_json(self) -> dict:
        return {"catalogue": self.name, "face_map": list(self.face_map)}


@dataclass(frozen=True)
class StandardEntry:
    sides: int
    values: tuple[int, ...]

    @property
    def name(self) -> str:
        return f"d{self.sides}"

    def to_json(self) -> dict:
        out: dict = {"standard": self.name}
        if self.values != tuple(range(1, self.sides + 1)):
            out["values"] = list(self.values)
        return out


Entry = CatalogueEntry | StandardEntry


def _default_catalogue() -> Catalogue:
    from companion.rules.catalogue import load_catalogue

    return load_catalogue()


def catalogue_entry(
    name: str,
    face_map: list[int] | None = None,
    *,
    catalogue: Catalogue | None = None,
) -> CatalogueEntry:
    if not isinstance(name, str):
        raise RegistryError(f"'catalogue' must be a die's name such as 'Amazons/Charioteer', not {name!r}")
    if face_map is not None and not isinstance(face_map, (list, tuple)):
        raise RegistryError(f"face_map must be a list of face numbers, not {face_map!r}")
    cat = catalogue if catalogue is not None else _default_catalogue()
    die = cat.find(name)
    if die is None:
        raise RegistryError(f"{name!r} is not a die of the catalogue")
    n = len(die.faces)
    mapping = tuple(range(n)) if face_map is None else tuple(face_map)
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in mapping) or sorted(mapping) != list(
        range(n)
    ):
        raise RegistryError(
            f"face_map for {die.name} must list each of its {n} faces (0..{n - 1}) once, got {list(mapping)}"
        )
    return CatalogueEntry(die.name, mapping, tuple(str(f) for f in die.faces), die.faces)


def standard_entry(name: str, values: list[int] | None = None) -> StandardEntry:
    if values is not None and not isinstance(values, (list, tuple)):
        raise RegistryError(f"values must be a list of integers, not {values!r}")
    text = str(name).lower()
    if (
        not isinstance(name, str)
        or not text.startswith("d")
        or not text[1:].isdigit()
        or int(text[1:]) not in STANDARD_SIDES
    ):
        raise RegistryError(f"{name!r} is not a standard die (d4, d6, d8, d10, d12 or d20)")
    sides = int(text[1:])
    vals = tuple(range(1, sides + 1)) if values is None else tuple(values)
    if len(vals) != sides or not all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        raise RegistryError(f"values of a {text} must be {sides} integers, got {values!r}")
    return StandardEntry(sides, vals)


class DieRegistry:
    """die_id -> catalogue die or standard die, loaded from and saved to a JSON file."""

    def __init__(self, entries: dict[str, Entry] | None = None, *, catalogue: Catalogue | None = None):
        self._entries: dict[str, Entry] = dict(entries or {})
        self._catalogue = catalogue

    @property
    def catalogue(self) -> Catalogue:
        if self._catalogue is None:
            self._catalogue = _default_catalogue()
        return self._catalogue

    # --- file ---------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike, *, catalogue: Catalogue | None = None) -> DieRegistry:
        """Read a registry file; a missing file is an error (use :meth:`load_or_empty` to create)."""
        path = Path(path)
        try:
            document = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise RegistryError(f"registry file {path} does not exist") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise RegistryError(f"registry file {path} is not valid JSON: {exc}") from None
        except OSError as exc:  # a folder, a file it may not read
            raise RegistryError(f"registry file {path} cannot be read: {exc.strerror or exc}") from None
        return cls.from_document(document, catalogue=catalogue, source=str(path))

    @classmethod
    def load_or_empty(cls, path: str | os.PathLike, *, catalogue: Catalogue | None = None) -> DieRegistry:
        if not Path(path).exists():
            return cls(catalogue=catalogue)
        return cls.load(path, catalogue=catalogue)

    @classmethod
    def from_document(
        cls, document: object, *, catalogue: Catalogue | None = None, source: str = "registry"
    ) -> DieRegistry:
        if not isinstance(document, dict) or not isinstance(document.get("dice"), dict):
            raise RegistryError(f"{source}: expected an object with a 'dice' object")
        if document.get("version", REGISTRY_VERSION) != REGISTRY_VERSION:
            raise RegistryError(f"{source}: version {document.get('version')!r} is not {REGISTRY_VERSION}")
        registry = cls(catalogue=catalogue)
        for die_id, spec in document["dice"].items():
            try:
                registry._entries[_valid_die_id(die_id)] = registry._entry_from_json(spec)
            except RegistryError as exc:
                raise RegistryError(f"{source}: die {die_id!r}: {exc}") from None
        return registry

    def _entry_from_json(self, spec: object) -> Entry:
        if not isinstance(spec, dict):
            raise RegistryError("entry must be an object")
        if "catalogue" in spec:
            return catalogue_entry(spec["catalogue"], spec.get("face_map"), catalogue=self.catalogue)
        if "standard" in spec:
            return standard_entry(spec["standard"], spec.get("values"))
        raise RegistryError("entry needs 'catalogue' or 'standard'")

    def to_document(self) -> dict:
        return {
            "version": REGISTRY_VERSION,
            "dice": {die_id: entry.to_json() for die_id, entry in sorted(self._entries.items())},
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write atomically (a temporary file renamed over the old one)."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".registry-", dir=path.parent)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(self.to_document(), fh, indent=2)
            fh.write("\n")
        os.replace(tmp, path)

    # --- entries ------------------------------------------------------------------------------

    def __contains__(self, die_id: object) -> bool:
        return die_id in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self):
        return iter(sorted(self._entries))

    def get(self, die_id: str) -> Entry | None:
        return self._entries.get(die_id)

    def register_catalogue(self, die_id: str, name: str, face_map: list[int] | None = None) -> CatalogueEntry:
        entry = catalogue_entry(name, face_map, catalogue=self.catalogue)
        self._entries[_valid_die_id(die_id)] = entry
        return entry

    def register_standard(self, die_id: str, name: str, values: list[int] | None = None) -> StandardEntry:
        entry = standard_entry(name, values)
        self._entries[_valid_die_id(die_id)] = entry
        return entry

    def register(self, die_id: str, what: str) -> Entry:
        """Register by a single name: ``"d6"``..``"d20"`` or a catalogue die name."""
        if what.lower() in {f"d{n}" for n in STANDARD_SIDES}:
            return self.register_standard(die_id, what)
        return self.register_catalogue(die_id, what)

    def entry_for(self, what: str) -> Entry:
        """The entry ``register`` would make for the name ``what`` (nothing registered); RegistryError
        naming it when no die has that name."""
        if what.lower() in {f"d{n}" for n in STANDARD_SIDES}:
            return standard_entry(what)
        return catalogue_entry(what, catalogue=self.catalogue)

    def forget(self, die_id: str) -> None:
        if die_id not in self._entries:
            raise RegistryError(f"die {die_id!r} is not registered")
        del self._entries[die_id]

    def interpret(self, die_id: str, face_index: int) -> FaceMeaning:
        """The meaning of ``face_index`` on the registered die ``die_id``."""
        entry = self._entries.get(die_id)
        if entry is None:
            raise RegistryError(f"die {die_id!r} is not registered")
        if isinstance(entry, StandardEntry):
            if not 0 <= face_index < entry.sides:
                raise RegistryError(f"die {die_id!r} ({entry.name}) has no face index {face_index}")
            value = entry.values[face_index]
            return FaceMeaning(die_id, "standard", entry.name, value, str(value))
        if not 0 <= face_index < len(entry.face_map):
            raise RegistryError(
                f"die {die_id!r} ({entry.name}) has {len(entry.face_map)} faces, no face index {face_index}"
            )
        position = entry.face_map[face_index]
        return FaceMeaning(
            die_id, "catalogue", entry.name, position + 1, entry.face_texts[position], entry.faces[position]
        )


def _valid_die_id(die_id: str) -> str:
    try:
        return check_die_id(die_id)
    except FrameError as exc:
        raise RegistryError(exc.detail) from None
