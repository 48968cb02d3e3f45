"""The 25 spells of the 1996 rules as data: colour, cost, what they target (R96 L964-1081).

``target``: ``army`` (any army, reserves included), ``terrain`` (a terrain in play), ``unit`` (one
unit per casting), ``own_dead`` (units from the caster's dead unit area), ``any_dead`` (dead units
of any player), ``own_unit`` (Path), ``dragon`` (a dragon of the spell's colour, sent to a terrain).
``damaging``: it hurts its target, so it may never be cast on one's own army (R96 L424-425).
``expiry``: ``"next_turn"`` (until the beginning of the caster's next turn), ``"end_next_turn"``
(Watery Double, R96 L1037-1041) or ``"instant"``.
"""

from __future__ import annotations

from dataclasses import dataclass

EARTH, AIR, FIRE, WATER, DEATH = "Earth", "Air", "Fire", "Water", "Death"
COLOUR_NAMES = {EARTH: "gold", AIR: "blue", FIRE: "red", WATER: "green", DEATH: "black"}


@dataclass(frozen=True)
class R96SpellCard:
    name: str
    element: str
    cost: int
    target: str
    citation: str
    expiry: str = "instant"
    damaging: bool = False
    stacks: bool = True  # False: more castings must go on other targets (Wall of Ice, Dancing Lights ...)


SPELLS: dict[str, R96SpellCard] = {
    s.name: s
    for s in (
        R96SpellCard("Stoneskin", EARTH, 2, "army", "R96 L968-971", "next_turn"),
        R96SpellCard("Dust to Dust", EARTH, 3, "any_dead", "R96 L973-976"),
        R96SpellCard("Path", EARTH, 4, "own_unit", "R96 L978-980"),
        R96SpellCard("Transmute Rock to Mud", EARTH, 5, "army", "R96 L982-986", "next_turn"),
        R96SpellCard("Summon Gold Dragon", EARTH, 7, "dragon", "R96 L988-989"),
        R96SpellCard("Hailstorm", AIR, 2, "army", "R96 L993-996", damaging=True),
        R96SpellCard("Breath of Life", AIR, 3, "own_dead", "R96 L998-1000"),
        R96SpellCard("Wind Walk", AIR, 4, "army", "R96 L1002-1005", "next_turn"),
        R96SpellCard("Lightning Strike", AIR, 5, "unit", "R96 L1007-1008", damaging=True),
        R96SpellCard("Summon Blue Dragon", AIR, 7, "dragon", "R96 L1010-1011"),
        R96SpellCard("Ash Storm", FIRE, 2, "terrain", "R96 L1015-1019", "next_turn"),
        R96SpellCard("Spark of Life", FIRE, 3, "own_dead", "R96 L1021-1023"),
        R96SpellCard("Burning Hands", FIRE, 4, "unit", "R96 L1025-1026", "next_turn", stacks=False),
        R96SpellCard("Dancing Lights", FIRE, 5, "army", "R96 L1028-1030", "next_turn", stacks=False),
        R96SpellCard("Summon Red Dragon", FIRE, 7, "dragon", "R96 L1032-1033"),
        R96SpellCard("Watery Double", WATER, 2, "army", "R96 L1037-1041", "end_next_turn"),
        R96SpellCard("Wall of Ice", WATER, 3, "army", "R96 L1043-1045", "next_turn", stacks=False),
        R96SpellCard("Wall of Fog", WATER, 4, "terrain", "R96 L1047-1051", "next_turn", stacks=False),
        R96SpellCard("Flash Flood", WATER, 5, "terrain", "R96 L1053-1055; FAQ95 WATER 4.A", stacks=False),
        R96SpellCard("Summon Green Dragon", WATER, 7, "dragon", "R96 L1057-1058"),
        R96SpellCard("Reanimate Dead", DEATH, 2, "own_dead", "R96 L1062-1063"),
        R96SpellCard("Palsy", DEATH, 3, "army", "R96 L1065-1069", "next_turn"),
        R96SpellCard("Finger of Death", DEATH, 4, "unit", "R96 L1071-1073", damaging=True),
        R96SpellCard(
            "Open Grave", DEATH, 6, "own_army", "R96 L1075-1078; FAQ95 DEATH 4.A", "next_turn", stacks=False
        ),
        R96SpellCard("Summon Black Dragon", DEATH, 7, "dragon", "R96 L1080-1081"),
    )
}

#: Spells that add automatic saves to an army (they protect even a charger, FAQ95 MELEE J).
BONUS_SAVE_SPELLS = {"Stoneskin": 1, "Watery Double": 1, "Wall of Ice": 3}
#: Spells whose results the resolution engine computes (names of ``companion.rules.r96.spells``).
ROLL_SPELLS = (
    "Stoneskin",
    "Watery Double",
    "Wall of Ice",
    "Wind Walk",
    "Transmute Rock to Mud",
    "Ash Storm",
    "Palsy",
    "Burning Hands",
    "Dancing Lights",
    "Wall of Fog",
    "Frost",
)
#: Death magic: an army controlling a Temple is immune to it when cast by opposing armies (R96 L667-673).
DEATH_SPELLS = {n for n, s in SPELLS.items() if s.element == DEATH and s.target != "dragon"}


def card(name: str) -> R96SpellCard | None:
    key = "".join(str(name).lower().split())
    for n, s in SPELLS.items():
        if "".join(n.lower().split()) == key:
            return s
    return None


def payable(costs: dict[str, int], pools: dict[str, int]) -> bool:
    """Can magic groups ``pools`` ({"Earth/Fire": 3, "Death": 2}: each group's points may be any of
    its colours, split freely, R96 L398-406) pay ``costs`` per colour?  Hall's condition for the
    transport problem: every set of colours must be covered by the groups that can pay them."""
    colours = [c for c, n in costs.items() if n > 0]
    groups = [(set(g.split("/")), n) for g, n in pools.items()]
    for mask in range(1, 1 << len(colours)):
        subset = {colours[i] for i in range(len(colours)) if mask >> i & 1}
        need = sum(costs[c] for c in subset)
        have = sum(n for els, n in groups if els & subset)
        if need > have:
            return False
    return True
