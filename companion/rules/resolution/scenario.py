"""Roll scenario documents (conformance FORMAT.md, format 1) <-> :class:`RollRequest`.

Pure: takes the parsed YAML mapping (the CLI reads the file).  Every problem raises
:class:`ScenarioError` whose ``key`` names the offending key (``armies.red.units[2]``,
``roll.faces[1]``, ``effects[0].spell``), so a caller can print one line and exit with status 2.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from companion.rules.catalogue import TERRAIN_TYPES, Catalogue, CatalogueError, Die

from .editions import EDITION_MODULES, get_edition
from .model import AGAINST, PURPOSES, RESULT_TYPES, EffectInForce, RolledUnit, RollRequest, RollTerrain


class ScenarioError(ValueError):
    """A scenario that cannot be read; ``key`` is the offending key."""

    def __init__(self, key: str, message: str):
        super().__init__(f"{key}: {message}")
        self.key = key


@dataclass(frozen=True)
class Scenario:
    id: str
    request: RollRequest
    expect: Mapping[str, int]
    source: str | None = None


_OPTIONAL_ROLL_FLAGS = ("counter_attack", "charge", "individual", "counter_maneuver")


def _mapping(value: Any, key: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ScenarioError(key, f"must be a mapping, not {type(value).__name__}")
    return value


def _list(value: Any, key: str) -> list[Any]:
    if not isinstance(value, list):
        raise ScenarioError(key, f"must be a list, not {type(value).__name__}")
    return value


def _required(doc: Mapping[str, Any], name: str, prefix: str = "") -> Any:
    if name not in doc:
        raise ScenarioError(f"{prefix}{name}", "missing required key")
    return doc[name]


def read_scenario(doc: Any, catalogue: Catalogue) -> Scenario:
    """Turn a parsed scenario document into a :class:`Scenario` (request + expected totals)."""
    doc = _mapping(doc, "<document>")
    sid = str(_required(doc, "id"))
    edition_key = _required(doc, "edition")
    if edition_key not in EDITION_MODULES:
        raise ScenarioError(
            "edition", f"unknown edition {edition_key!r} (known: {', '.join(EDITION_MODULES)})"
        )
    edition = get_edition(edition_key)

    terrains: dict[str, Mapping[str, Any]] = {}
    for n, t in enumerate(_list(doc.get("terrains", []) or [], "terrains")):
        key = f"terrains[{n}]"
        t = _mapping(t, key)
        name = str(_required(t, "name", key + "."))
        ttype = _required(t, "type", key + ".")
        if ttype not in TERRAIN_TYPES:
            raise ScenarioError(f"{key}.type", f"unknown terrain type {ttype!r}")
        face = _required(t, "face", key + ".")
        if not isinstance(face, int) or isinstance(face, bool) or not 1 <= face <= 8:
            raise ScenarioError(f"{key}.face", f"must be a number 1-8, not {face!r}")
        if name in terrains:
            raise ScenarioError(f"{key}.name", f"terrain {name!r} named twice")
        terrains[name] = t

    armies = _mapping(_required(doc, "armies"), "armies")
    army_units: dict[str, list[Die]] = {}
    army_at: dict[str, str] = {}
    for label, army in armies.items():
        key = f"armies.{label}"
        army = _mapping(army, key)
        _required(army, "player", key + ".")
        at = _required(army, "at", key + ".")
        if at != "reserve" and at not in terrains:
            raise ScenarioError(f"{key}.at", f"{at!r} is neither 'reserve' nor a terrain of this file")
        army_at[str(label)] = at
        dice = []
        for n, name in enumerate(_list(_required(army, "units", key + "."), f"{key}.units")):
            die = catalogue.find(str(name))
            if die is None or not (die.is_unit or die.is_item):
                raise ScenarioError(f"{key}.units[{n}]", f"unknown unit {name!r}")
            dice.append(die)
        army_units[str(label)] = dice

    roll = _mapping(_required(doc, "roll"), "roll")
    army_label = str(_required(roll, "army", "roll."))
    if army_label not in army_units:
        raise ScenarioError("roll.army", f"no army {army_label!r} in armies")
    purpose = _required(roll, "for", "roll.")
    if purpose not in PURPOSES:
        raise ScenarioError("roll.for", f"must be one of {', '.join(PURPOSES)}, not {purpose!r}")
    against = roll.get("against")
    if against is not None and against not in AGAINST:
        raise ScenarioError("roll.against", f"must be one of {', '.join(AGAINST)}, not {against!r}")
    faces = _list(_required(roll, "faces", "roll."), "roll.faces")
    dice = army_units[army_label]
    if len(faces) != len(dice):
        raise ScenarioError(
            "roll.faces", f"{len(faces)} faces given for {len(dice)} units of army {army_label!r}"
        )
    units = []
    for n, (die, entry) in enumerate(zip(dice, faces, strict=True)):
        texts = entry if isinstance(entry, list) else [entry]
        if not texts:
            raise ScenarioError(f"roll.faces[{n}]", "an empty re-roll list")
        rolled = []
        for k, text in enumerate(texts):
            key = f"roll.faces[{n}][{k}]" if isinstance(entry, list) else f"roll.faces[{n}]"
            try:
                rolled.append(die.find_face(str(text)))
            except CatalogueError as exc:
                raise ScenarioError(key, str(exc)) from None
        units.append(RolledUnit(die, tuple(rolled), label=die.name))

    at = army_at[army_label]
    terrain = None
    if at != "reserve":
        t = terrains[at]
        controlled = t.get("controller") == army_label and t["face"] == 8
        terrain = RollTerrain(t["type"], t["face"], t.get("eighth"), controlled, name=at)

    effects = []
    for n, e in enumerate(_list(doc.get("effects", []) or [], "effects")):
        key = f"effects[{n}]"
        e = _mapping(e, key)
        spell = str(_required(e, "spell", key + "."))
        canonical = edition.canonical_spell(spell)
        if canonical is None:
            raise ScenarioError(f"{key}.spell", f"unknown spell {spell!r} in edition {edition_key}")
        target = str(_required(e, "target", key + "."))
        # FORMAT.md lists castings without marking it optional; files that leave it out (some in the
        # project's own tests do) mean one casting
        castings = e.get("castings", 1)
        if not isinstance(castings, int) or isinstance(castings, bool) or castings < 1:
            raise ScenarioError(f"{key}.castings", f"must be a whole number >= 1, not {castings!r}")
        if target == army_label:
            effects.append(EffectInForce(canonical, castings, "army"))
        elif target == at and at in terrains:
            effects.append(EffectInForce(canonical, castings, "terrain"))
        elif target not in army_units and target not in terrains:
            raise ScenarioError(f"{key}.target", f"{target!r} is neither an army nor a terrain of this file")
        # an effect on another army or terrain does not touch this roll

    flags = {}
    for flag in _OPTIONAL_ROLL_FLAGS:
        if flag in roll:
            if not isinstance(roll[flag], bool):
                raise ScenarioError(f"roll.{flag}", "must be true or false")
            flags[flag] = roll[flag]
    choices = roll.get("choices", {}) or {}
    _mapping(choices, "roll.choices")

    expect = doc.get("expect", {}) or {}
    _mapping(expect, "expect")
    for k, v in expect.items():
        if k not in RESULT_TYPES:
            raise ScenarioError(f"expect.{k}", f"not a result type ({', '.join(RESULT_TYPES)})")
        if not isinstance(v, int) or isinstance(v, bool) or v < 0:
            raise ScenarioError(f"expect.{k}", f"must be a whole number >= 0, not {v!r}")

    request = RollRequest(
        purpose=purpose,
        units=tuple(units),
        edition=edition_key,
        against=against,
        terrain=terrain,
        in_reserve=at == "reserve",
        effects=tuple(effects),
        choices=MappingProxyType(dict(choices)),
        **flags,
    )
    return Scenario(sid, request, MappingProxyType(dict(expect)), doc.get("source"))


def scenario_document(
    request: RollRequest,
    *,
    id: str,
    source: str | None = None,
    expect: Mapping[str, int] | None = None,
    army: str = "army",
) -> dict[str, Any]:
    """The roll scenario document (FORMAT.md, format 1) for ``request``: what an "export this roll"
    button writes.  Reading it back with :func:`read_scenario` gives the same roll."""
    doc: dict[str, Any] = {"id": id, "edition": request.edition}
    if source:
        doc["source"] = source
    terrain = request.terrain
    at = "reserve"
    if terrain is not None and not request.in_reserve:
        at = terrain.name or "terrain"
        t: dict[str, Any] = {"name": at, "type": terrain.type, "face": terrain.face}
        if terrain.eighth:
            t["eighth"] = terrain.eighth
        if terrain.controlled:
            t["controller"] = army
        doc["terrains"] = [t]
    doc["armies"] = {army: {"player": 1, "at": at, "units": [u.die.name for u in request.units]}}
    effects = []
    for e in request.effects:
        if e.target == "army":
            effects.append({"spell": e.name, "target": army, "castings": e.castings})
        elif e.target == "terrain" and at != "reserve":
            effects.append({"spell": e.name, "target": at, "castings": e.castings})
        else:
            raise ScenarioError("effects", f"{e.name} on {e.target!r} cannot be written in format 1")
    if effects:
        doc["effects"] = effects
    faces: list[Any] = []
    for u in request.units:
        texts = ["ID" if f.is_id else f.text() for f in u.faces]
        faces.append(texts[0] if len(texts) == 1 else texts)
    roll: dict[str, Any] = {"army": army, "for": request.purpose}
    if request.against:
        roll["against"] = request.against
    roll["faces"] = faces
    for flag in _OPTIONAL_ROLL_FLAGS:
        if getattr(request, flag):
            roll[flag] = True
    if request.choices:
        roll["choices"] = dict(request.choices)
    doc["roll"] = roll
    if expect:
        doc["expect"] = dict(expect)
    return doc
