"""What the page's cast form offers for a pending V4.01c ``cast`` decision: ``cast_options``.

The spells the rolled magic could pay for, each with its cost, the elements that could pay it, the kind
of target its rules give it and how many castings the magic allows; and the targets in play (armies,
terrains, units, DUAs).  The game still checks every announcement (``Game.validate_casts``,
``spells.registry``): this is the page's menu, built by the same rules, never a second judge.

* element: a single-element spell takes magic of its element, an Elemental spell magic of any one
  element, Ivory magic pays Elemental spells only (V4.01c L2092-2101; ``magic.spell_kinds_accepted``);
* cost: no spell above the magic rolled (L2103-2106); Cantrip magic only for spells marked C (L2108-2111);
* species: a species' spell only with magic of that species' units in the army (L2113-2116);
* reserves: an army in the Reserve Area casts only spells marked R (L2126-2128);
* targets: army, unit(s), terrain, DUA or BUA (L2118-2156; ``spells.registry`` target kinds).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ...catalogue import SpellCard
from ..magic import spell_kinds_accepted
from . import registry as reg

_WIDGET = {
    reg.ARMY: "army",
    reg.OPPOSING_ARMY: "army",
    reg.FERAL_ARMY: "army",
    reg.TERRAIN: "terrain",
    reg.TERRAIN_NOT_EIGHTH: "terrain",
    reg.OWN_DUA: "dua",
}


def target_kind(card: SpellCard) -> tuple[str, str, bool, bool]:
    """(form widget, what the rules let it target, needs a destination, cumulative) of a spell card,
    from the game's spell registry (V4.01c L2118-2156)."""
    rule = reg.SPELLS.get(card.name)
    if rule is None:  # a card V4.01c prints no rules for (Dracolem alloys): an army or a terrain
        return "army_or_terrain", "an army or a terrain", False, False
    kind = rule.target
    widget = _WIDGET.get(kind) or ("units" if kind in reg.UNIT_LIST_KINDS else "unit")
    needs_to = kind in (reg.OWN_UNIT_AT_TERRAIN, reg.OWN_AMAZONS_AT_TERRAIN)
    return widget, kind, needs_to, rule.per_casting is not None


@lru_cache(maxsize=1)
def _spell_cards() -> tuple[SpellCard, ...]:
    from ...catalogue import load_catalogue

    return tuple(load_catalogue().spells)


def cast_options(pending: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """The cast form's menu for `pending` (a ``cast`` decision as data: ``magic``, ``accounting``,
    ``army``, ``cantrip``) in the game whose state is `state` (``GameState.to_dict()``)."""
    magic = int(pending.get("magic", 0))
    cantrip = bool(pending.get("cantrip"))
    kinds: dict[str, int] = {}
    for entry in (pending.get("accounting") or {}).values():
        for k in entry.get("may_count_as", []):
            kinds[k] = kinds.get(k, 0) + int(entry.get("magic", 0))
    in_reserve = str(pending.get("army", "")).endswith("@reserve")
    species = {
        u["species"] for a in state.get("armies", []) if a["id"] == pending.get("army") for u in a["units"]
    }
    spells = []
    for card in _spell_cards():
        if card.cost > magic or (in_reserve and not card.reserve) or (cantrip and not card.cantrip):
            continue
        if card.species not in ("Basic", "") and card.species not in species:
            continue
        payers = [
            k
            for k, n in kinds.items()
            if n >= card.cost
            and (card.color in ("Elemental", "Alloy") or k in spell_kinds_accepted(card.color, k))
        ]
        if payers:
            widget, kind, needs_to, cumulative = target_kind(card)
            spells.append(
                {
                    "spell": card.name,
                    "cost": card.cost,
                    "color": card.color,
                    "elements": sorted(payers),
                    "target": widget,
                    "target_text": kind,
                    "to": needs_to,
                    "cumulative": cumulative,
                    "max_castings": max(1, magic // card.cost) if card.cost else 1,
                }
            )
    names = {p["id"]: p["name"] for p in state.get("players", [])}
    terrains = {t["id"]: t["name"] for t in state.get("terrains", [])}
    targets = [
        {
            "value": a["id"],
            "label": f"{names.get(a['owner'], a['owner'])}'s army at "
            f"{terrains.get(a['location'], 'Reserve Area')}",
        }
        for a in state.get("armies", [])
    ]
    targets += [{"value": tid, "label": f"terrain {name}"} for tid, name in terrains.items()]
    units = []
    for a in state.get("armies", []):
        where = terrains.get(a["location"], "Reserve Area")
        for u in a["units"]:
            units.append(
                {
                    "value": u["uid"],
                    "label": f"{u['die'].split('/')[-1]} ({names.get(a['owner'])}, {where})",
                    "place": a["location"],
                    "health": u.get("health"),
                }
            )
    for p in state.get("players", []):
        for area, label in (("dua", "DUA"), ("bua", "BUA"), ("summoning_pool", "Summoning Pool")):
            for u in p.get(area) or []:
                units.append(
                    {
                        "value": u["uid"],
                        "label": f"{u['die'].split('/')[-1]} ({p['name']}'s {label})",
                        "place": f"{area}:{p['id']}",
                        "health": u.get("health"),
                    }
                )
    duas = [{"value": f"dua:{p['id']}", "label": f"{p['name']}'s DUA"} for p in state.get("players", [])]
    return {
        "magic": magic,
        "cantrip": cantrip,
        "spells": sorted(spells, key=lambda x: (x["cost"], x["spell"])),
        "targets": targets,
        "armies": targets[: len(state.get("armies", []))],
        "terrains": [{"value": tid, "label": name} for tid, name in terrains.items()],
        "units": units,
        "duas": duas,
    }
