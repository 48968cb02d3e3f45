"""Spells (and other lasting effects) that change a roll, edition V4.01c (L2085-2446).

A spell in force is named with its target (an army, or a terrain: every army there) and the
number of combined castings.  Cumulative spells multiply their highlighted number by the
castings (L2139-2148: three combined Wind Walks add twelve); a spell without a highlighted number
gains nothing from repeat castings on the same target (L2154-2156).

Army- and terrain-targeting spells change army rolls only: modifiers on an army never affect a
unit rolling alone (L1050-1066).  Spell modifiers follow die roll resolution (L2133-2135): they
subtract at step 6 and add at step 10; spell-generated results are never counted as another
type (L1040-1048).

Lasting effects of SAIs and relics on an army or terrain (Frost Breath, Galeforce, Magic
Suppression, Wither, Chill Wind, Cloak) are listed here too, under their source names, so that a
scenario's ``effects`` list can hold them like spells.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .contributions import (
    ALL,
    MAGIC,
    MANEUVER,
    MELEE,
    MISSILE,
    SAVE,
    Contribution,
    Modifier,
    Op,
    RollEffect,
    Scope,
    counts_as,
)
from .situation import Situation

DOC = "V4.01c"


def cite(lines: str) -> str:
    return f"{DOC} L{lines}"


ARMY, TERRAIN = "army", "terrain"


@dataclass(frozen=True)
class RollSpell:
    """A spell or lasting effect that changes rolls.

    ``target``: ``"army"`` (the rolling army is the target) or ``"terrain"`` (the rolling army is
    at the target terrain).  ``per_casting``: the highlighted number (``None``: not cumulative).
    ``build`` turns (situation, total amount) into the roll contribution.
    """

    name: str
    element: str
    cost: int | None
    species: str
    lines: str
    target: str
    per_casting: int | None
    summary: str
    build: Callable[[RollSpell, Situation, int], Contribution | None]
    is_spell: bool = True

    @property
    def citation(self) -> str:
        return cite(self.lines)

    @property
    def cumulative(self) -> bool:
        return self.per_casting is not None

    def amount(self, castings: int) -> int:
        if castings < 1:
            raise ValueError(f"{self.name}: castings must be at least 1, not {castings}")
        if self.per_casting is None:
            return 1
        return self.per_casting * castings


def _mods(spell: RollSpell, *mods: tuple[Op, str, int], note: str = "") -> Contribution:
    return Contribution(
        source=spell.name,
        citation=spell.citation,
        modifiers=tuple(
            Modifier(op, result, amount, spell.name, spell.citation, note=note) for op, result, amount in mods
        ),
        note=note,
    )


def _add(result: str) -> Callable[[RollSpell, Situation, int], Contribution | None]:
    def build(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
        if result not in s.counted:
            return None
        return _mods(spell, (Op.ADD, result, amount))

    return build


def _sub(*results: str) -> Callable[[RollSpell, Situation, int], Contribution | None]:
    def build(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
        hit = [r for r in results if r in s.counted]
        if not hit:
            return None
        return _mods(spell, *((Op.SUBTRACT, r, amount) for r in hit))

    return build


def _any_result(*, non_maneuver: bool = False) -> Callable[[RollSpell, Situation, int], Contribution | None]:
    """Subtract from "results" of any type: the type the roll is for; in a combination roll the
    owner allocates it (``result=ALL``), all of it where possible (L1076-1096)."""

    def build(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
        if non_maneuver and s.is_maneuver:
            return None
        result = s.primary if len(s.counted) == 1 else ALL
        return _mods(spell, (Op.SUBTRACT, result, amount))

    return build


def _fiery_weapon(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    hit = [r for r in (MELEE, MISSILE) if r in s.counted]
    if not hit:
        return None
    wanted = s.choices.get(spell.name)
    result = wanted.lower() if wanted else hit[0]
    if result not in hit:
        raise ValueError(f"Fiery Weapon: {wanted!r} is not counted by this roll")
    c = _mods(spell, (Op.ADD, result, amount), note="melee or missile, the owner's choice")
    return Contribution(**{**_asdict(c), "chosen": result, "options": tuple(hit)})


def _asdict(c: Contribution) -> dict[str, Any]:
    return {f: getattr(c, f) for f in c.__dataclass_fields__}


def _necromantic_wave(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    targets = [r for r in (MELEE, MISSILE) if r in s.counted]
    if not targets:
        return None
    wanted = s.choices.get(spell.name)  # melee or missile, the owner's choice in a combination roll
    if wanted and wanted.lower() in targets:
        targets = [wanted.lower()]
    return Contribution(
        spell.name,
        spell.citation,
        counts_as=tuple(counts_as(MAGIC, t, spell.name, spell.citation) for t in targets[:1]),
        note="units may count magic results as melee or missile",
    )


def _berserker_rage(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    if s.roll_for != "melee" or not s.counter_attack:
        return None
    return Contribution(
        spell.name,
        spell.citation,
        counts_as=(counts_as(SAVE, MELEE, spell.name, spell.citation, species="Feral"),),
        note="Feral units count saves as melee in counter-attacks",
    )


def _wilding(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    mods: list[Modifier] = []
    for result in (MELEE, SAVE):
        if result in s.counted:
            mods.extend(
                Modifier(
                    Op.MULTIPLY,
                    result,
                    2,
                    spell.name,
                    spell.citation,
                    reach=Scope.ONE_UNIT,
                    note=f"double one unit's {result} (unit {i + 1} of {amount})",
                )
                for i in range(amount)
            )
    if not mods:
        return None
    return Contribution(spell.name, spell.citation, modifiers=tuple(mods))


def _flashfire(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    if s.is_maneuver:
        return None
    return Contribution(
        spell.name,
        spell.citation,
        effects=(
            RollEffect(
                "may_reroll_units",
                spell.name,
                spell.citation,
                amount,
                "units of the target army",
                "step 3",
                "the owner may re-roll that many units once, earlier results ignored",
            ),
        ),
    )


def _fields_of_ice(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    c = _sub(MANEUVER)(spell, s, amount)
    if c is None:
        return None
    return Contribution(
        **{
            **_asdict(c),
            "effects": (
                RollEffect(
                    "counter_maneuver_wins_ties",
                    spell.name,
                    spell.citation,
                    None,
                    "maneuvers at this terrain",
                ),
            ),
        }
    )


def _wall_of_fog(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    # Applies to missile attacks aimed at an army at the fogged terrain; the caller matches the
    # spell's terrain with the target's (see ``spell_contributions``).
    if s.roll_for != "missile":
        return None
    return _mods(
        spell, (Op.SUBTRACT, MISSILE, amount), note="missile attack aimed at an army at the fogged terrain"
    )


def _frost(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    result = s.primary if len(s.counted) == 1 else ALL
    return Contribution(
        spell.name,
        spell.citation,
        modifiers=(Modifier(Op.DIVIDE, result, 2, spell.name, spell.citation, note="halve all results"),),
    )


def _galeforce(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    return _sub(SAVE, MANEUVER)(spell, s, 4)


def _magic_suppression(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    return _sub(MAGIC)(spell, s, 4)


def _cloak(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    return _add(SAVE)(spell, s, amount)


def _wave(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    """Wave's penalty on the other side (L2039-2048): the defender's saves against the melee
    attack, or each counter-maneuvering army's maneuver."""
    if s.roll_for == "save" and s.against in (None, "melee"):
        return _sub(SAVE)(spell, s, amount)
    if s.roll_for == "maneuver" and s.counter_maneuver:
        return _sub(MANEUVER)(spell, s, amount)
    return None


def _defender_saves(spell: RollSpell, s: Situation, amount: int) -> Contribution | None:
    """Howl / Screech (L1637-1642, L1798-1804): the defending army's save roll loses X saves."""
    if s.roll_for != "save":
        return None
    return _sub(SAVE)(spell, s, amount)


_TABLE: tuple[RollSpell, ...] = (
    # Air
    RollSpell(
        "Blizzard",
        "Air",
        3,
        "Coral Elves",
        "2163-2166",
        TERRAIN,
        3,
        "-3 melee to all army rolls at the terrain",
        _sub(MELEE),
    ),
    RollSpell(
        "Wilding",
        "Air",
        3,
        "Feral",
        "2167-2171",
        ARMY,
        1,
        "double melee and saves of one unit per casting",
        _wilding,
    ),
    RollSpell("Wind Walk", "Air", 4, "Any", "2172-2174", ARMY, 4, "+4 maneuver", _add(MANEUVER)),
    RollSpell(
        "Fields of Ice",
        "Air",
        5,
        "Frostwings",
        "2175-2181",
        TERRAIN,
        4,
        "-4 maneuver to all army rolls at the terrain; counter-maneuvers win ties",
        _fields_of_ice,
    ),
    # Death
    RollSpell(
        "Palsy",
        "Death",
        2,
        "Any",
        "2196-2199",
        ARMY,
        1,
        "-1 result on non-maneuver rolls",
        _any_result(non_maneuver=True),
    ),
    RollSpell("Decay", "Death", 3, "Goblins", "2201-2204", ARMY, 2, "-2 melee", _sub(MELEE)),
    RollSpell("Evil Eye", "Death", 3, "Undead", "2205-2208", ARMY, 2, "-2 saves", _sub(SAVE)),
    RollSpell(
        "Magic Drain",
        "Death",
        3,
        "Frostwings",
        "2209-2212",
        TERRAIN,
        2,
        "-2 magic to all army rolls at the terrain",
        _sub(MAGIC),
    ),
    RollSpell("Restless Dead", "Death", 3, "Undead", "2213-2215", ARMY, 3, "+3 maneuver", _add(MANEUVER)),
    RollSpell(
        "Necromantic Wave",
        "Death",
        5,
        "Lava Elves",
        "2227-2233",
        ARMY,
        None,
        "magic may count as melee or missile",
        _necromantic_wave,
    ),
    # Earth
    RollSpell("Stone Skin", "Earth", 2, "Any", "2253-2256", ARMY, 1, "+1 save", _add(SAVE)),
    RollSpell(
        "Berserker Rage",
        "Earth",
        5,
        "Feral",
        "2260-2268",
        ARMY,
        None,
        "Feral units count saves as melee in counter-attacks",
        _berserker_rage,
    ),
    RollSpell("Higher Ground", "Earth", 5, "Dwarves", "2269-2275", ARMY, 5, "-5 melee", _sub(MELEE)),
    RollSpell(
        "Transmute Rock to Mud", "Earth", 6, "Any", "2290-2296", ARMY, 6, "-6 maneuver", _sub(MANEUVER)
    ),
    # Fire
    RollSpell(
        "Ash Storm",
        "Fire",
        2,
        "Any",
        "2297-2301",
        TERRAIN,
        1,
        "-1 result to all army rolls at the terrain",
        _any_result(),
    ),
    RollSpell(
        "Flashfire",
        "Fire",
        3,
        "Firewalkers",
        "2317-2322",
        ARMY,
        1,
        "re-roll one unit per casting in non-maneuver army rolls",
        _flashfire,
    ),
    RollSpell("Fiery Weapon", "Fire", 4, "Any", "2323-2326", ARMY, 2, "+2 melee or missile", _fiery_weapon),
    RollSpell("Dancing Lights", "Fire", 6, "Any", "2327-2330", ARMY, 6, "-6 melee", _sub(MELEE)),
    # Water
    RollSpell("Watery Double", "Water", 2, "Any", "2337-2342", ARMY, 1, "+1 save", _add(SAVE)),
    RollSpell(
        "Deluge",
        "Water",
        5,
        "Coral Elves",
        "2358-2361",
        TERRAIN,
        3,
        "-3 maneuver and -3 missile to all army rolls at the terrain",
        _sub(MANEUVER, MISSILE),
    ),
    RollSpell(
        "Wall of Fog",
        "Water",
        6,
        "Any",
        "2384-2387",
        TERRAIN,
        6,
        "-6 missile on missile attacks aimed at an army at the terrain",
        _wall_of_fog,
    ),
    # Lasting effects of SAIs and relics, usable as effects in force
    RollSpell(
        "Frost Breath", "", None, "", "1589-1598", ARMY, None, "halve all results", _frost, is_spell=False
    ),
    RollSpell(
        "Galeforce",
        "",
        None,
        "",
        "1599-1608",
        ARMY,
        None,
        "-4 saves and -4 maneuver",
        _galeforce,
        is_spell=False,
    ),
    RollSpell(
        "Magic Suppression",
        "",
        None,
        "",
        "1698-1713",
        ARMY,
        None,
        "-4 magic",
        _magic_suppression,
        is_spell=False,
    ),
    RollSpell(
        "Wither",
        "",
        None,
        "",
        "2081-2084",
        ARMY,
        1,
        "-X results (castings = X)",
        _any_result(),
        is_spell=False,
    ),
    RollSpell(
        "Chill Wind",
        "",
        None,
        "",
        "2849-2860",
        TERRAIN,
        2,
        "-2 results to all army rolls at the terrain",
        _any_result(),
        is_spell=False,
    ),
    RollSpell(
        "Cloak",
        "",
        None,
        "",
        "1332-1345",
        ARMY,
        1,
        "+X non-magical saves (castings = X)",
        _cloak,
        is_spell=False,
    ),
    # Penalties an attacker's SAI puts on the other side's roll (castings = X)
    RollSpell(
        "Howl",
        "",
        None,
        "",
        "1637-1642",
        ARMY,
        1,
        "the defending army subtracts X saves",
        _defender_saves,
        is_spell=False,
    ),
    RollSpell(
        "Screech",
        "",
        None,
        "",
        "1798-1804",
        ARMY,
        1,
        "the defending army subtracts X saves",
        _defender_saves,
        is_spell=False,
    ),
    RollSpell(
        "Wave",
        "",
        None,
        "",
        "2039-2048",
        ARMY,
        1,
        "defender -X saves; or each counter-maneuvering army -X maneuver",
        _wave,
        is_spell=False,
    ),
    RollSpell(
        "Magic Negation",
        "",
        None,
        "Frostwings",
        "886-893",
        ARMY,
        1,
        "Frostwings subtract their magic results from this magic roll (castings = their magic)",
        _sub(MAGIC),
        is_spell=False,
    ),
)

ROLL_SPELLS: dict[str, RollSpell] = {s.name.lower(): s for s in _TABLE}

#: Spells of the V4 list that never change a roll's totals (damage, moves, summons ...):
#: known, so a scenario may name them, but they contribute nothing to resolution.
OTHER_SPELLS: frozenset[str] = frozenset(
    {
        "Hailstorm",
        "Mirage",
        "Lightning Strike",
        "Swamp Fever",
        "Finger of Death",
        "Exhume",
        "Open Grave",
        "Soiled Ground",
        "Path",
        "Scent of Fear",
        "Wall of Thorns",
        "Fearful Flames",
        "Firebolt",
        "Firestorm",
        "Accelerated Growth",
        "Flash Flood",
        "Mire",
        "Tidal Wave",
        "Evolve Dragonkin",
        "Resurrect Dead",
        "Esfah's Gift",
        "Summon Dragonkin",
        "Rally",
        "Rise of the Eldarim",
        "Summon Dragon",
        "Summon White Dragon",
    }
)


#: Dracolem (alloy) spell cards: real cards whose rules text V4.01c does not print (inventory
#: A6b.1/A8.1: "no alloy spells are listed"); accepted by name, no effect on rolls.
UNDOCUMENTED_SPELLS: frozenset[str] = frozenset(
    {
        "Anti-Magic Surge",
        "Escape Portal",
        "Explode Item",
        "Knock Out",
        "Plasma Arc",
        "Reconfigure",
        "Reinforce",
        "Scrap for Parts",
    }
)


class UnknownSpell(KeyError):
    """A spell name that the V4 rules do not have."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown spell"


def find_roll_spell(name: str) -> RollSpell | None:
    """The roll-changing spell or lasting effect called ``name`` (case-insensitive); ``None`` for a
    known spell that does not change rolls; raises :class:`UnknownSpell` for anything else."""
    key = " ".join(name.replace("’", "'").split()).lower()
    spell = ROLL_SPELLS.get(key)
    if spell is not None:
        return spell
    if key in {n.lower() for n in OTHER_SPELLS | UNDOCUMENTED_SPELLS}:
        return None
    raise UnknownSpell(f"unknown spell {name!r}")


def spell_contribution(name: str, situation: Situation, *, castings: int = 1) -> Contribution | None:
    """What ``castings`` combined castings of spell ``name`` on the rolling army (or its terrain)
    do to a roll in ``situation``; ``None`` if nothing.  The caller has already checked that the
    spell's target is this army (army spells) or this army's terrain (terrain spells; for Wall of
    Fog, the terrain of the army the missile attack is aimed at)."""
    spell = find_roll_spell(name)
    if spell is None:
        return None
    if situation.is_individual:
        return None  # army modifiers never affect a unit rolling alone (L1050-1066)
    return spell.build(spell, situation, spell.amount(castings))


# ------------------------------------------------------------------ spells answered by a roll


def flash_flood_resisted(maneuver_results: int, castings: int = 1) -> bool:
    """Flash Flood (L2352-2357): the terrain drops a step unless an opposing army there rolls at
    least 6 maneuver per combined casting (each army compared alone, never summed)."""
    return maneuver_results >= 6 * find_roll_spell_or_other("Flash Flood", castings)


def tidal_wave(castings: int = 1) -> tuple[int, int]:
    """Tidal Wave (L2374-2383): (damage each army at the terrain takes, maneuver results an army
    needs in its save + maneuver combination roll to stop the terrain dropping), 4 each per casting.
    Only normal save and maneuver results count in that roll."""
    n = find_roll_spell_or_other("Tidal Wave", castings)
    return 4 * n, 4 * n


def wall_of_thorns_damage(melee_results: int, castings: int = 1) -> int:
    """Wall of Thorns (L2280-2289): an army that maneuvers the terrain takes 6 damage per casting,
    less the melee results of the melee roll it makes instead of saving."""
    return max(6 * find_roll_spell_or_other("Wall of Thorns", castings) - max(melee_results, 0), 0)


def find_roll_spell_or_other(name: str, castings: int) -> int:
    """Validate a known spell name and a castings count; returns the castings."""
    find_roll_spell(name)
    if castings < 1:
        raise ValueError(f"{name}: castings must be at least 1, not {castings}")
    return castings
