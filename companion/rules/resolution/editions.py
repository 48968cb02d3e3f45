"""Editions (and, later, other games) as data: an :class:`Edition` names its rule document, the
order of its resolution stages, its modifier limits and its :class:`Registry` of plug-ins.
Edition-specific behaviour lives in the edition's own small modules (``companion.rules.v4``,
``companion.rules.r96``), never in ``if edition == ...`` branches."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass

from .model import ResolutionError
from .registry import Registry


@dataclass(frozen=True)
class Edition:
    """One rules edition.

    ``stages``: the resolution stages in order after counting, from ``subtract``, ``divide``,
    ``sai`` (SAI-generated results join the subtotal), ``multiply``, ``add``.  An edition without a
    ``sai`` stage counts SAI results with the others at step "count".
    ``step_numbers``: the number each stage has in the edition's own text (V4: count 5 ... add 10).
    ``citations``/``texts``: where each stage's rule is written, and our summary of it.
    ``one_divider``/``one_multiplier``: at most one dividing/multiplying modifier per result type.
    ``spells_touch_sai``: whether spell modifiers change SAI-generated results.
    ``spell_names``: the spells of the edition (an unknown spell is refused).
    """

    key: str
    title: str
    document: str
    registry: Registry
    stages: tuple[str, ...]
    step_numbers: Mapping[str, int]
    citations: Mapping[str, str]
    texts: Mapping[str, str]
    one_divider: bool
    one_multiplier: bool
    spells_touch_sai: bool
    spell_names: frozenset[str]

    @property
    def sai_at_count(self) -> bool:
        return "sai" not in self.stages

    def canonical_spell(self, name: str) -> str | None:
        """The edition's spelling of spell ``name`` (case/space-insensitive), or ``None``."""
        index = self.__dict__.get("_spell_index")
        if index is None:
            index = {_spell_key(s): s for s in self.spell_names} | {s: s for s in self.spell_names}
            object.__setattr__(self, "_spell_index", index)
        found = index.get(name)
        return found if found is not None else index.get(_spell_key(name))


def _spell_key(name: str) -> str:
    return "".join(name.replace("’", "'").lower().split())


#: Edition key -> module defining ``EDITION``.
EDITION_MODULES: dict[str, str] = {
    "v4": "companion.rules.v4.edition",
    "r96": "companion.rules.r96.edition",
}

_cache: dict[str, Edition] = {}


def get_edition(key: str) -> Edition:
    """The edition called ``key`` (``"v4"``, ``"r96"``); raises :class:`ResolutionError` if unknown."""
    edition = _cache.get(key)
    if edition is None:
        module_name = EDITION_MODULES.get(key)
        if module_name is None:
            raise ResolutionError(
                f"unknown edition {key!r} (known: {', '.join(EDITION_MODULES)})", key="edition"
            )
        edition = importlib.import_module(module_name).EDITION
        _cache[key] = edition
    return edition
