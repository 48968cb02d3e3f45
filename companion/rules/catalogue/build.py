"""Generate the packaged catalogue file ``dice.json`` from the reference face data.

Run from the repository root::

    python -m companion.rules.catalogue.build --shared ../shared

It reads ``<shared>/data/dragon-dice/normalized_all_sets.json`` and writes this package's
``dice.json`` in the project's own format (one record per die, faces as ``"<count> <icon>"``).
The file is committed; the installed product reads only ``dice.json`` and never ``../shared``.
The written file is validated by loading it before it replaces the old one.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .tables import COLOR_ELEMENT, TERRAIN_TYPES

CATALOGUE_FILE = Path(__file__).with_name("dice.json")
FORMAT_VERSION = 1

_SPECIES_GROUPS = ("Species", "Eldarim", "Dragonkin", "Dracolem")
_ITEM_KINDS = {"Item": "equipment", "Artifact": "artifact", "Medallion": "medallion", "Relic": "relic"}
_EIGHTH_SPELLING = {"Standing Stone": "Standing Stones"}


def _elements(text: str | None) -> tuple[list[str], str | None]:
    """Data element text -> (element names, colour).  ``"Red (Fire), Yellow (Earth)"`` ->
    (["Earth", "Fire"], None); ``"Ivory"`` -> ([], "Ivory"); ``"White"`` -> (all five, "White")."""
    if not text or text == "None":
        return [], None
    elements: set[str] = set()
    color = None
    for part in (p.strip() for p in text.split(",")):
        base = part.split(" (", 1)[0]
        if base in COLOR_ELEMENT:
            elements.add(COLOR_ELEMENT[base].value)
        elif base == "White":
            elements.update(e.value for e in COLOR_ELEMENT.values())
            color = "White"
        elif base in ("Ivory", "Bronze", "Silver", "Gold"):
            color = base
        else:
            raise ValueError(f"unknown element text {text!r}")
    return sorted(elements), color


#: The data's spellings of species names that differ from the rulebook's (V4.01c L182-226).
_SPECIES_SPELLING = {"Fire Walkers": "Firewalkers"}


def _unit_record(group: str, row: dict[str, Any], duplicate: bool) -> dict[str, Any]:
    species = row.get("Species") or group
    species = _SPECIES_SPELLING.get(species, species)
    elements, color = _elements(row.get("Element"))
    name = row["name"]
    if duplicate:  # Eldarim and Dragonkin repeat a design in every element
        name = f"{name} ({'/'.join(elements) or color})"
    size = row["Size"]
    rec = {
        "name": f"{species}/{name}",
        "kind": "monster" if size == "Monster" else "unit",
        "species": species,
        "size": size,
        "class": row.get("Class"),
        "elements": elements,
        "color": color,
        "faces": list(row["faces"]),
    }
    if row.get("Weight"):
        rec["rarity"] = row["Weight"]
    if row.get("Autosaves"):
        rec["autosaves"] = int(row["Autosaves"])
    return rec


def build_records(data: dict[str, Any]) -> dict[str, Any]:
    dice: list[dict[str, Any]] = []
    for group in _SPECIES_GROUPS:
        rows = data[group]
        seen: dict[tuple[str, str], int] = {}
        for row in rows:
            key = (row.get("Species") or group, row["name"])
            seen[key] = seen.get(key, 0) + 1
        for row in rows:
            key = (row.get("Species") or group, row["name"])
            dice.append(_unit_record(group, row, seen[key] > 1))
    for row in data["Items"]:
        elements, color = _elements(row.get("Element"))
        dice.append(
            {
                "name": f"Items/{row['name']}",
                "kind": _ITEM_KINDS[row["Type"]],
                "size": row["Size"],
                "class": None if row.get("Class") in (None, "None") else row["Class"],
                "elements": elements,
                "color": color,
                "faces": list(row["faces"]),
            }
        )
    for row in data["Dragons"]:
        elements, color = _elements(row.get("Element"))
        dice.append(
            {
                "name": f"Dragons/{row['name']}",
                "kind": "dragon",
                "dragon_type": row["Type"],
                "elements": elements,
                "color": color,
                "faces": list(row["faces"]),
            }
        )
    for row in data["Terrain"]:
        elements, color = _elements(row.get("Element"))
        ttype = row["name"].split()[0]
        if ttype not in TERRAIN_TYPES:
            raise ValueError(f"terrain {row['name']!r}: unknown terrain type {ttype!r}")
        faces = list(row["faces"])
        eighth = _EIGHTH_SPELLING.get(row["Eighth Face"], row["Eighth Face"])
        major = row["Type"] == "Major Terrain"
        if major:  # order the faces by the number printed on them: faces[n - 1] shows n
            faces = sorted(faces, key=lambda f: int(f.split()[0]))
            faces = [f"8 {eighth}" if f.startswith("8 ") else f for f in faces]
        dice.append(
            {
                "name": f"Terrains/{row['name']}",
                "kind": "terrain" if major else "minor_terrain",
                "terrain_type": ttype,
                "subtype": row.get("Subtype"),
                "eighth_face": eighth,
                "elements": elements,
                "color": color,
                "faces": faces,
            }
        )
    spells = [
        {
            "name": row["name"],
            "cost": int(row["Cost"]),
            "color": row["Color"],
            "species": _SPECIES_SPELLING.get(row["Species"], row["Species"]),
            "reserve": row["Reserve"] == "Yes",
            "cantrip": row["Cantrip"] == "Yes",
        }
        for row in data["Spell Cards"]
    ]
    return {
        "format": FORMAT_VERSION,
        "generated_from": "shared/data/dragon-dice/normalized_all_sets.json (OCTGN Dragon Dice (SFR) set data)",
        "conventions": "faces are '<count> <icon>'; count = results (X value); the ID count is the unit's "
        "health; monster/artifact '4' = one icon worth four results; terrain count = face number",
        "dice": dice,
        "spells": spells,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--shared",
        type=Path,
        required=True,
        help="the reference folder holding data/dragon-dice (in a checkout: ../shared)",
    )
    parser.add_argument("--out", type=Path, default=CATALOGUE_FILE)
    args = parser.parse_args(argv)
    source = args.shared / "data" / "dragon-dice" / "normalized_all_sets.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    doc = build_records(data)
    from .loader import catalogue_from_document

    catalogue = catalogue_from_document(doc)  # validates; raises CatalogueError on bad data
    text = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    args.out.write_text(text, encoding="utf-8")
    counts = catalogue.counts_by_kind()
    print(
        f"wrote {args.out}: {sum(counts.values())} entries "
        + ", ".join(f"{k} {v}" for k, v in counts.items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
