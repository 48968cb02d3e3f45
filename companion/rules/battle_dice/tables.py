"""Battle Dice tables as data: unit types, the three core effect tables and the 14 monster tables.

Every row cites its line in the Battle Dice document ("BD Lnnn",
``004_5d0afb5f0f94fc9d.txt``).  The rows carry facts only (ranges, names, effect kinds and
amounts); what each effect kind does lives in :mod:`companion.rules.battle_dice.effects`.

An amount is either a fixed ``int`` or a dice expression ``"1d3"`` / ``"1d6"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

# --------------------------------------------------------------------------------------------
# Unit types (BD L15-46): which die represents which kind of troop.
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class UnitType:
    name: str
    sides: int
    includes: str
    citation: str


UNIT_TYPES: tuple[UnitType, ...] = (
    UnitType("general", 4, "Leader, Warlord", "BD L21-23"),
    UnitType("infantry", 6, "Pikes, Swordsmen", "BD L25-27"),
    UnitType("archer", 8, "Skirmishers, Slingers, Missile troops, Catapults", "BD L29-31"),
    UnitType("cavalry", 10, "Chariots, Elephants, Knights", "BD L33-35"),
    UnitType("mage", 12, "Wizards, Spell casters, Clerics", "BD L37-39"),
    UnitType("monster", 20, "Dragons, Giants, Warriors", "BD L41-43"),
)
UNIT_BY_NAME = MappingProxyType({u.name: u for u in UNIT_TYPES})
UNIT_BY_SIDES = MappingProxyType({u.sides: u for u in UNIT_TYPES})

# Faces that score for each phase (BD L100-107, L118-120, L165-167, L225-227, L269-276, L284).
MONSTER_DEPARTS = frozenset({1, 2})  # BD L102
MONSTER_SLAYS = frozenset(range(13, 17))  # BD L104
MONSTER_POINT = frozenset(range(17, 21))  # BD L106
TACTICS_POINT = frozenset({4})  # BD L120
SPELL_POINT = frozenset({10, 11, 12})  # BD L167
MANEUVER_POINT = frozenset({8, 9, 10})  # BD L227
MISSILE_HIT_FROM = 7  # BD L271: 7 or 8
MELEE_HIT_FROM = 5  # BD L276: 5 or 6
MORALE_FACES = frozenset({2, 3})  # BD L284

# --------------------------------------------------------------------------------------------
# Effects and rows
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowEffect:
    """One thing a table row does.

    kind is one of:
      ``kill_now`` (owner picks the dead), ``kill_chosen`` (caster picks), ``kill_in_phase``
      (``phase``: missile/melee), ``set_to_one``, ``gain_points`` (``pool``), ``enemy_loses_points``
      (``pool``), ``morale`` (``target`` self/enemy, ``sign``), ``negate``, ``restore``, ``control``,
      ``summon`` (``unit`` fixes the type, else the caster picks), ``roll_table`` (``table``),
      ``hit_on`` (``unit`` also hits on ``face``), ``initiative``, ``maneuver_next_turn``,
      ``pick_result`` (``table``).
    """

    kind: str
    amount: int | str = 1
    pool: str = ""
    phase: str = ""
    target: str = ""
    sign: int = 0
    table: str = ""
    unit: str = ""
    face: int = 0


@dataclass(frozen=True)
class Row:
    lo: int
    hi: int
    name: str
    effects: tuple[RowEffect, ...]
    citation: str

    def covers(self, value: int) -> bool:
        return self.lo <= value <= self.hi


@dataclass(frozen=True)
class Table:
    key: str
    title: str
    sides: int  # the die the document labels it with
    rows: tuple[Row, ...]
    citation: str
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def highest_row(self) -> int:
        return max(r.hi for r in self.rows)

    def row_for(self, value: int) -> Row:
        for row in self.rows:
            if row.covers(value):
                return row
        raise KeyError(f"{self.title} table has no row for {value}")

    def row_named(self, name: str) -> Row:
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(f"{self.title} table has no row named {name!r}")


def _kill_in(phase: str) -> RowEffect:
    return RowEffect("kill_in_phase", "1d3", phase=phase)


MISSILE_1D3 = _kill_in("missile")
MELEE_1D3 = _kill_in("melee")
NEGATE_1D3 = RowEffect("negate", "1d3")
SET_ONE_1D3 = RowEffect("set_to_one", "1d3")
MORALE_PLUS = RowEffect("morale", "1d6", target="self", sign=+1)
MORALE_MINUS = RowEffect("morale", "1d6", target="enemy", sign=-1)


def _gain(pool: str) -> RowEffect:
    return RowEffect("gain_points", "1d3", pool=pool)


# --------------------------------------------------------------------------------------------
# Core effect tables (BD L130-265)
# --------------------------------------------------------------------------------------------

TACTICS = Table(
    "tactics",
    "Tactics effect",
    6,
    (
        Row(1, 1, "Superior Tactics", (_gain("maneuver"),), "BD L136-138"),
        Row(2, 2, "Leadership", (MORALE_PLUS,), "BD L140-142"),
        Row(3, 3, "Lead the Charge", (RowEffect("hit_on", unit="infantry", face=4),), "BD L144-146"),
        Row(4, 4, "Direct the Fire", (RowEffect("hit_on", unit="archer", face=6),), "BD L148-150"),
        Row(5, 5, "Rally Troops", (RowEffect("restore", "1d6"),), "BD L152-154"),
        Row(6, 6, "Gain Initiative", (RowEffect("initiative"),), "BD L156-161"),
    ),
    "BD L130-161",
)

SPELL = Table(
    "spell",
    "Spell effect",
    10,
    (
        Row(1, 1, "Elemental Attack", (RowEffect("kill_now", "1d3"),), "BD L183-185"),
        Row(2, 2, "Healing", (RowEffect("restore", "1d3"),), "BD L187-189"),
        Row(3, 3, "Haste", (RowEffect("roll_table", table="maneuver"),), "BD L191-193"),
        Row(4, 4, "Ensorcelled", (RowEffect("set_to_one", "1d6"),), "BD L195-197"),
        Row(5, 5, "Control", (RowEffect("control"),), "BD L199-201"),
        Row(6, 6, "Summon", (RowEffect("summon", "1d3"),), "BD L203-205"),
        Row(7, 7, "Death", (RowEffect("kill_chosen", 1),), "BD L207-209"),
        Row(8, 8, "Fear", (MORALE_MINUS,), "BD L211-213"),
        Row(9, 9, "Immobilize", (RowEffect("enemy_loses_points", "1d3", pool="maneuver"),), "BD L215-217"),
        Row(10, 10, "Command", (RowEffect("roll_table", table="tactics"),), "BD L219-221"),
    ),
    "BD L177-221",
)

MANEUVER = Table(
    "maneuver",
    "Maneuver effect",
    10,
    (
        Row(1, 2, "Charge", (RowEffect("kill_now", "1d3"),), "BD L245-248"),
        Row(3, 4, "Outflank", (SET_ONE_1D3,), "BD L250-252"),
        Row(5, 6, "Encircle", (MORALE_MINUS, RowEffect("maneuver_next_turn", 1)), "BD L254-256"),
        Row(7, 8, "Withdraw", (NEGATE_1D3,), "BD L258-260"),
        Row(9, 10, "Pick Result", (RowEffect("pick_result", table="maneuver"),), "BD L262-263"),
    ),
    "BD L239-263",
)

CORE_TABLES = MappingProxyType({t.key: t for t in (TACTICS, SPELL, MANEUVER)})

# --------------------------------------------------------------------------------------------
# Monster tables (BD L288-651).  ``sides`` is the die the document prints; three tables are
# labelled 1D6 but list rows 7-8 (ruling R01 decides which die is rolled for them).
# --------------------------------------------------------------------------------------------

MONSTER_TABLES = MappingProxyType(
    {
        t.key: t
        for t in (
            Table(
                "dragon",
                "Dragon",
                6,
                (
                    Row(1, 1, "Fire breath", (MISSILE_1D3,), "BD L296-298"),
                    Row(2, 2, "Claws", (MELEE_1D3,), "BD L300-302"),
                    Row(3, 3, "Fangs", (MELEE_1D3,), "BD L304-306"),
                    Row(4, 4, "Tail", (SET_ONE_1D3,), "BD L308-310"),
                    Row(5, 5, "Wings", (_gain("maneuver"),), "BD L312-314"),
                    Row(6, 6, "Scales", (NEGATE_1D3,), "BD L316-318"),
                ),
                "BD L290-318",
            ),
            Table(
                "giant",
                "Giant",
                10,
                (
                    Row(1, 2, "Throw Boulder", (MISSILE_1D3,), "BD L327-329"),
                    Row(3, 4, "Giant Club", (MELEE_1D3,), "BD L331-333"),
                    Row(5, 6, "Stomp", (MELEE_1D3,), "BD L335-337"),
                    Row(7, 8, "Long Legs", (_gain("maneuver"),), "BD L339-341"),
                    Row(9, 10, "Thick Hide", (NEGATE_1D3,), "BD L343-345"),  # printed "9-0" (R02)
                ),
                "BD L321-345",
            ),
            Table(
                "medusa",
                "Medusa",
                6,
                (
                    Row(1, 4, "Petrifaction", (MISSILE_1D3,), "BD L356-358"),
                    Row(5, 5, "Poison", (MELEE_1D3,), "BD L360-362"),
                    Row(6, 6, "Magic", (_gain("magic"),), "BD L364-366"),  # "Magic points" (R03)
                ),
                "BD L348-366",
            ),
            Table(
                "juggernaught",
                "Juggernaught",
                6,
                (
                    Row(1, 1, "Giant Ram", (MELEE_1D3,), "BD L376-378"),
                    Row(2, 2, "Catapults", (MISSILE_1D3,), "BD L380-382"),
                    Row(3, 4, "Heavy Armor", (NEGATE_1D3,), "BD L384-386"),
                    Row(5, 5, "Wheels", (_gain("maneuver"),), "BD L388-390"),
                    Row(6, 6, "Crush", (MELEE_1D3,), "BD L392-394"),
                ),
                "BD L369-394",
            ),
            Table(
                "warrior",
                "Warrior",
                8,
                (
                    Row(1, 1, "Charisma", (_gain("tactics"),), "BD L404-406"),
                    Row(2, 2, "Magic Item", (_gain("magic"),), "BD L408-410"),
                    Row(3, 3, "Rider", (_gain("maneuver"),), "BD L412-414"),
                    Row(4, 4, "Swordplay", (MELEE_1D3,), "BD L416-418"),
                    Row(5, 5, "Bow", (MISSILE_1D3,), "BD L420-422"),
                    Row(6, 6, "Courage", (MORALE_PLUS,), "BD L424-426"),
                    Row(7, 7, "Shield", (NEGATE_1D3,), "BD L428-430"),
                    Row(8, 8, "Strength", (MELEE_1D3,), "BD L432-434"),
                ),
                "BD L397-434",
            ),
            Table(
                "rogue",
                "Rogue",
                6,
                (
                    Row(1, 1, "Assassinate", (RowEffect("kill_chosen", 1),), "BD L445-447"),
                    Row(2, 2, "Backstab", (MELEE_1D3,), "BD L449-451"),
                    Row(3, 3, "Daggers", (MISSILE_1D3,), "BD L453-455"),
                    Row(
                        4,
                        4,
                        "Sabotage",
                        (RowEffect("enemy_loses_points", "1d3", pool="tactics"),),
                        "BD L457-459",
                    ),
                    Row(5, 5, "Stealth", (NEGATE_1D3,), "BD L461-463"),
                    Row(6, 6, "Confuse", (SET_ONE_1D3,), "BD L465-467"),
                ),
                "BD L437-467",
            ),
            Table(
                "archmage",
                "Archmage",
                6,
                (
                    Row(1, 4, "Spell", (RowEffect("roll_table", table="spell"),), "BD L477-479"),
                    Row(5, 6, "Magiks", (_gain("spell"),), "BD L481-483"),
                ),
                "BD L470-483",
            ),
            Table(
                "unicorn",
                "Unicorn",
                6,
                (
                    Row(1, 1, "Teleport", (_gain("maneuver"),), "BD L493-495"),
                    Row(2, 3, "Gallop", (_gain("maneuver"),), "BD L497-499"),
                    Row(4, 4, "Horn", (MELEE_1D3,), "BD L501-503"),
                    Row(5, 6, "Enchantment", (_gain("spell"),), "BD L505-507"),
                ),
                "BD L486-507",
            ),
            Table(
                "vampire",
                "Vampire",
                6,
                (
                    Row(1, 1, "Fly", (_gain("maneuver"),), "BD L517-519"),
                    Row(
                        2,
                        2,
                        "Drain",
                        (
                            RowEffect("kill_in_phase", 1, phase="melee"),
                            RowEffect("summon", 1, unit="monster"),
                        ),
                        "BD L521-523",
                    ),
                    Row(3, 3, "Claws", (MELEE_1D3,), "BD L525-527"),
                    Row(4, 4, "Undead", (NEGATE_1D3,), "BD L529-531"),
                    Row(5, 5, "Fear", (MORALE_MINUS,), "BD L533-535"),
                    Row(6, 6, "Dark Powers", (_gain("spell"),), "BD L537-539"),
                ),
                "BD L510-539",
            ),
            Table(
                "elf_lord",
                "Elf Lord",
                6,
                (
                    Row(1, 2, "Magery", (_gain("spell"),), "BD L549-551"),
                    Row(3, 4, "Command", (_gain("tactics"),), "BD L553-555"),
                    Row(5, 6, "Blades", (MELEE_1D3,), "BD L557-559"),
                    Row(7, 8, "Bow", (MISSILE_1D3,), "BD L561-563"),
                ),
                "BD L542-563",
            ),
            Table(
                "orc_chieftan",
                "Orc Chieftan",
                8,
                (
                    Row(1, 2, "Forced March", (_gain("maneuver"),), "BD L573-575"),
                    Row(3, 4, "Command", (_gain("tactics"),), "BD L577-579"),
                    Row(5, 6, "Battle Frenzy", (MELEE_1D3,), "BD L581-583"),
                    Row(7, 8, "Shaman", (_gain("spell"),), "BD L585-587"),
                ),
                "BD L566-587",
            ),
            Table(
                "dwarf_lord",
                "Dwarf Lord",
                6,
                (
                    Row(1, 2, "Berserker", (MELEE_1D3,), "BD L596-598"),
                    Row(3, 4, "Command", (_gain("tactics"),), "BD L600-602"),
                    Row(5, 6, "Martyr", (MORALE_PLUS,), "BD L604-606"),
                    Row(7, 8, "Mithril Armor", (NEGATE_1D3,), "BD L608-610"),
                ),
                "BD L590-610",
            ),
            Table(
                "knight",
                "Knight",
                6,
                (
                    Row(1, 2, "Equestrian", (_gain("maneuver"),), "BD L620-622"),
                    Row(3, 4, "Command", (_gain("tactics"),), "BD L624-626"),
                    Row(5, 6, "Sword & Lance", (MELEE_1D3,), "BD L628-630"),
                    Row(7, 8, "Shield & Armor", (NEGATE_1D3,), "BD L632-634"),
                ),
                "BD L613-634",
            ),
            Table(
                "barbarian",
                "Barbarian",
                6,
                (
                    Row(1, 3, "Berserker Rage", (MELEE_1D3,), "BD L644-646"),
                    Row(4, 6, "Bravery", (MORALE_PLUS,), "BD L648-650"),
                ),
                "BD L637-650",
            ),
        )
    }
)

#: Tables whose printed die is smaller than their highest row (inventory E8.1; ruling R01).
MISLABELLED_TABLES = tuple(k for k, t in MONSTER_TABLES.items() if t.highest_row > t.sides)


def all_tables() -> dict[str, Table]:
    """Every table by key, core tables and monster tables together."""
    return {**CORE_TABLES, **MONSTER_TABLES}
