"""Load and validate the packaged catalogue (``dice.json``, read with importlib.resources)."""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from .faces import (
    DRAGON_ICONS,
    EIGHTH_FACE_ICONS,
    ID,
    MINOR_TERRAIN_ICONS,
    RESULT_TYPES,
    SAI,
    FaceError,
    parse_face,
)
from .model import FACES_PER_KIND, Catalogue, CatalogueError, Die, DieKind, SpellCard
from .tables import (
    DRAGON_HEALTH,
    EQUIPMENT_X,
    HEALTH_BY_SIZE,
    SPECIES_ELEMENTS,
    TERRAIN_TYPE_ELEMENTS,
    WHITE_DRAGON_HEALTH,
    Element,
)

_ALLOWED_ICONS: dict[DieKind, frozenset[str]] = {
    DieKind.UNIT: frozenset(RESULT_TYPES) | {ID, SAI},
    DieKind.MONSTER: frozenset(RESULT_TYPES) | {ID, SAI},
    DieKind.EQUIPMENT: frozenset(RESULT_TYPES) | {SAI},
    DieKind.ARTIFACT: frozenset(RESULT_TYPES) | {ID, SAI},
    DieKind.MEDALLION: frozenset({SAI}),
    DieKind.RELIC: frozenset({SAI}),
    DieKind.DRAGON: DRAGON_ICONS,
    DieKind.TERRAIN: frozenset({"Magic", "Missile", "Melee"}) | EIGHTH_FACE_ICONS,
    DieKind.MINOR_TERRAIN: frozenset({"Magic", "Missile", "Melee"}) | MINOR_TERRAIN_ICONS,
}


def _parse_die(rec: dict[str, Any]) -> Die:
    name = rec.get("name") or "?"
    try:
        kind = DieKind(rec["kind"])
    except (KeyError, ValueError):
        raise CatalogueError(f"unknown kind {rec.get('kind')!r}", die=name) from None
    faces = []
    for text in rec.get("faces", []):
        try:
            faces.append(parse_face(text, dragon=kind is DieKind.DRAGON))
        except FaceError as exc:
            raise CatalogueError(str(exc), die=name, face=text) from None
    try:
        elements = frozenset(Element(e) for e in rec.get("elements", []))
    except ValueError:
        raise CatalogueError(f"unknown element in {rec.get('elements')!r}", die=name) from None
    size = rec.get("size")
    health = None
    if kind in (DieKind.UNIT, DieKind.MONSTER):
        if size not in HEALTH_BY_SIZE:
            raise CatalogueError(f"unknown unit size {size!r}", die=name)
        health = HEALTH_BY_SIZE[size]
    elif kind is DieKind.DRAGON:
        health = WHITE_DRAGON_HEALTH if rec.get("color") == "White" else DRAGON_HEALTH
    return Die(
        name=name,
        kind=kind,
        faces=tuple(faces),
        species=rec.get("species"),
        size=size,
        health=health,
        unit_class=rec.get("class"),
        elements=elements,
        color=rec.get("color"),
        rarity=rec.get("rarity"),
        autosaves=int(rec.get("autosaves", 0)),
        dragon_type=rec.get("dragon_type"),
        terrain_type=rec.get("terrain_type"),
        eighth_face=rec.get("eighth_face"),
        x_value=EQUIPMENT_X.get(size) if kind is DieKind.EQUIPMENT and size is not None else None,
    )


def validate_die(die: Die) -> None:
    """Check one die against the rules of its kind; raise :class:`CatalogueError` naming die/face."""
    want = FACES_PER_KIND[die.kind]
    if len(die.faces) != want:
        raise CatalogueError(
            f"{die.kind.value} dice have {want} faces, this one has {len(die.faces)}", die=die.name
        )
    allowed = _ALLOWED_ICONS[die.kind]
    for face in die.faces:
        if face.icon not in allowed:
            raise CatalogueError(
                f"icon {face.icon!r} is not allowed on a {die.kind.value}", die=die.name, face=face.text()
            )
    if die.kind in (DieKind.UNIT, DieKind.MONSTER, DieKind.ARTIFACT):
        ids = [f for f in die.faces if f.is_id]
        if len(ids) != 1:
            raise CatalogueError(f"needs exactly one ID face, has {len(ids)}", die=die.name)
        # V4.01c L113-121: the ID generates results equal to health; artifacts' ID generates four.
        need = die.health if die.health is not None else 4
        if ids[0].count != need:
            raise CatalogueError(
                f"ID face count {ids[0].count} differs from health {need}", die=die.name, face=ids[0].text()
            )
    if die.kind in (DieKind.UNIT, DieKind.MONSTER):
        if die.species not in SPECIES_ELEMENTS:
            raise CatalogueError(f"unknown species {die.species!r}", die=die.name)
        fixed = SPECIES_ELEMENTS[die.species]
        if fixed is not None and die.elements != fixed:
            raise CatalogueError(
                f"elements {sorted(die.elements)} differ from the species' {sorted(fixed)} (V4.01c L182-226)",
                die=die.name,
            )
        if (die.kind is DieKind.MONSTER) != (die.size == "Monster"):
            raise CatalogueError("ten-sided units are monsters and only they", die=die.name)
    if die.kind in (DieKind.MONSTER, DieKind.ARTIFACT):
        # V4.01c L1132-1137: every monster icon is worth four results (SAIs with a fixed value,
        # such as Flame's 2 health-worth, show that value instead).
        for face in die.faces:
            if face.count != 4 and not face.is_sai:
                raise CatalogueError("monster and artifact faces are worth 4", die=die.name, face=face.text())
    if die.kind is DieKind.TERRAIN:
        numbers = sorted(f.count for f in die.faces)
        if numbers != list(range(1, 9)):
            raise CatalogueError(f"terrain faces must be numbered 1-8, got {numbers}", die=die.name)
        eighth = die.faces[7]
        if eighth.icon != die.eighth_face or eighth.icon not in EIGHTH_FACE_ICONS:
            raise CatalogueError(
                f"eighth face must show the terrain's icon {die.eighth_face!r}",
                die=die.name,
                face=eighth.text(),
            )
        for face in die.faces[:7]:
            if face.icon not in RESULT_TYPES:
                raise CatalogueError("faces 1-7 carry an action icon", die=die.name, face=face.text())
    if die.kind in (DieKind.TERRAIN, DieKind.MINOR_TERRAIN):
        if die.terrain_type not in TERRAIN_TYPE_ELEMENTS:
            raise CatalogueError(f"unknown terrain type {die.terrain_type!r}", die=die.name)
        if die.elements != TERRAIN_TYPE_ELEMENTS[die.terrain_type]:
            raise CatalogueError(
                f"elements {sorted(die.elements)} differ from the terrain type's (V4.01c L166-180)",
                die=die.name,
            )


def catalogue_from_document(doc: dict[str, Any]) -> Catalogue:
    """Build and validate a :class:`Catalogue` from a parsed ``dice.json`` document."""
    if doc.get("format") != 1:
        raise CatalogueError(f"unsupported catalogue format {doc.get('format')!r}")
    dice = []
    for rec in doc.get("dice", []):
        die = _parse_die(rec)
        validate_die(die)
        dice.append(die)
    spells = []
    for rec in doc.get("spells", []):
        try:
            spells.append(
                SpellCard(
                    name=rec["name"],
                    cost=int(rec["cost"]),
                    color=rec["color"],
                    species=rec["species"],
                    reserve=bool(rec["reserve"]),
                    cantrip=bool(rec["cantrip"]),
                )
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise CatalogueError(f"bad spell card record: {exc}", die=rec.get("name")) from None
    return Catalogue(tuple(dice), tuple(spells))


def load_catalogue_text(text: str) -> Catalogue:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"catalogue file is not valid JSON: {exc}") from None
    return catalogue_from_document(doc)


@lru_cache(maxsize=1)
def _packaged() -> Catalogue:
    text = resources.files(__package__).joinpath("dice.json").read_text(encoding="utf-8")
    return load_catalogue_text(text)


def load_catalogue() -> Catalogue:
    """The dice catalogue: the packaged ``dice.json``, loaded once and cached (the rules package does
    no other I/O; a copy elsewhere is read by the caller and given to :func:`load_catalogue_text`).
    Raises :class:`CatalogueError` when the data is wrong."""
    return _packaged()
