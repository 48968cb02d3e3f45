"""Helpers shared by the rules tests: build roll requests from catalogue names and face texts."""

from __future__ import annotations

from types import MappingProxyType

from companion.rules.catalogue import load_catalogue
from companion.rules.resolution import EffectInForce, RolledUnit, RollRequest, RollTerrain

CAT = load_catalogue()


def unit(name: str, *faces: str, counts: bool = True) -> RolledUnit:
    die = CAT[name]
    return RolledUnit(die, tuple(die.find_face(f) for f in faces), label=die.name, counts=counts)


def request(
    purpose: str,
    *units: RolledUnit,
    edition: str = "v4",
    terrain: RollTerrain | None = None,
    effects=(),
    choices=None,
    **kw,
) -> RollRequest:
    effs = tuple(e if isinstance(e, EffectInForce) else EffectInForce(*e) for e in effects)
    return RollRequest(
        purpose,
        tuple(units),
        edition=edition,
        terrain=terrain,
        effects=effs,
        choices=MappingProxyType(dict(choices or {})),
        **kw,
    )


def at(ttype: str, face: int = 3, *, controlled: bool = False, eighth: str | None = None) -> RollTerrain:
    return RollTerrain(ttype, 8 if controlled else face, eighth, controlled)
