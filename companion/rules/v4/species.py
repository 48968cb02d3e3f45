"""Species abilities, edition V4.01c (L771-998), and what each does to a roll.

All 27 abilities of the 13 species with ability texts are listed (``SPECIES_ABILITIES``).  Those
that change a roll answer :func:`species_contributions` with counts-as conversions (an adding
modifier at step 10, L1040-1048), modifiers or re-roll permissions; the others (Feralization,
Mutate, Stepped Damage ...) act in other phases and are listed with ``changes_roll=False`` so the
game flow can find them.  DUA-count abilities scale by the "s" rule (L776-780): their cap is
per 24 points of force, or part thereof, and each Deadlands in play counts as s units in the
DUA (L2638-2643).

Species abilities apply to army rolls and to a unit rolling alone (L771-775), never to item
results (L2728).  A minor terrain's elements count as the terrain's for them (L2630-2632).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .contributions import (
    MAGIC,
    MANEUVER,
    MELEE,
    MISSILE,
    SAVE,
    Contribution,
    Modifier,
    Op,
    RollEffect,
    counts_as,
)
from .situation import Situation

DOC = "V4.01c"


def cite(lines: str) -> str:
    return f"{DOC} L{lines}"


@dataclass(frozen=True)
class SpeciesAbility:
    name: str
    species: str
    lines: str
    summary: str
    changes_roll: bool

    @property
    def citation(self) -> str:
        return cite(self.lines)


SPECIES_ABILITIES: dict[str, SpeciesAbility] = {
    a.name: a
    for a in (
        SpeciesAbility(
            "Javelin Charge",
            "Amazons",
            "784-790",
            "after burying a controlled minor terrain instead of maneuvering: maneuver counts as "
            "missile in a missile action this turn",
            True,
        ),
        SpeciesAbility(
            "Kukri Charge",
            "Amazons",
            "791-797",
            "after burying a controlled minor terrain instead of maneuvering: maneuver counts as "
            "melee in a melee action this turn",
            True,
        ),
        SpeciesAbility(
            "Terrain Harmony",
            "Amazons",
            "798-802",
            "magic takes the terrain's elements; in Reserves it is Ivory (Elemental spells only)",
            True,
        ),
        SpeciesAbility(
            "Coastal Dodge", "Coral Elves", "817-819", "at a water terrain: maneuver may count as saves", True
        ),
        SpeciesAbility(
            "Defensive Volley",
            "Coral Elves",
            "821-824",
            "at an air terrain: may counter-attack a missile action with missile results",
            True,
        ),
        SpeciesAbility(
            "Mountain Mastery", "Dwarves", "828-830", "at an earth terrain: melee may count as maneuver", True
        ),
        SpeciesAbility(
            "Dwarven Might",
            "Dwarves",
            "832-834",
            "at a fire terrain: saves may count as melee in a counter-attack",
            True,
        ),
        SpeciesAbility(
            "Resist Fear",
            "Eldarim",
            "838-840",
            "Dragonkin up to the Eldarim's health may roll in dragon attacks they would sit out",
            True,
        ),
        SpeciesAbility(
            "Dragonkin Handlers",
            "Eldarim",
            "842-850",
            "species abilities phase: add or promote a Dragonkin, capped by Eldarim health",
            False,
        ),
        SpeciesAbility(
            "Feralization",
            "Feral",
            "858-861",
            "species abilities phase: recruit or promote a Feral at an earth or air terrain",
            False,
        ),
        SpeciesAbility(
            "Stampede",
            "Feral",
            "863-865",
            "at an earth-and-air terrain: maneuver may count as melee in a counter-attack",
            True,
        ),
        SpeciesAbility(
            "Air Flight", "Firewalkers", "869-872", "retreat step: move between air terrains", False
        ),
        SpeciesAbility(
            "Flaming Shields",
            "Firewalkers",
            "874-877",
            "at a fire terrain: saves may count as melee, not in counter-attacks",
            True,
        ),
        SpeciesAbility(
            "Winter's Fortitude",
            "Frostwings",
            "881-884",
            "species abilities phase: a Frostwing moves BUA -> DUA",
            False,
        ),
        SpeciesAbility(
            "Magic Negation",
            "Frostwings",
            "886-893",
            "Frostwings at the terrain subtract their magic from an opponent's magic, cap DUA, 5s",
            True,
        ),
        SpeciesAbility(
            "Swamp Mastery", "Goblins", "903-905", "at an earth terrain: melee may count as maneuver", True
        ),
        SpeciesAbility(
            "Foul Stench",
            "Goblins",
            "907-914",
            "after saving, the defender picks units that may not counter-attack, count DUA, 3s",
            True,
        ),
        SpeciesAbility(
            "Volcanic Adaptation",
            "Lava Elves",
            "918-920",
            "at a fire terrain: maneuver may count as saves",
            True,
        ),
        SpeciesAbility(
            "Cursed Bullets",
            "Lava Elves",
            "922-929",
            "missile at the same terrain: some missile damage reducible only by spell saves, count DUA, 3s",
            True,
        ),
        SpeciesAbility(
            "Scorching Touch",
            "Scalders",
            "933-938",
            "at a fire terrain, saving vs melee: each save rolled deals 1 damage back",
            True,
        ),
        SpeciesAbility(
            "Intangibility",
            "Scalders",
            "940-942",
            "at a water terrain: maneuver may count as saves against missile damage",
            True,
        ),
        SpeciesAbility(
            "Born of the Swamp",
            "Swamp Stalkers",
            "945-947",
            "at a water terrain: maneuver may count as saves",
            True,
        ),
        SpeciesAbility(
            "Mutate",
            "Swamp Stalkers",
            "949-966",
            "species abilities phase: opposing Reserve units save or die; recruit/promote",
            False,
        ),
        SpeciesAbility(
            "Rapid Growth",
            "Treefolk",
            "968-973",
            "at an earth terrain, counter-maneuvering: Treefolk without an SAI may re-roll once",
            True,
        ),
        SpeciesAbility(
            "Replanting",
            "Treefolk",
            "975-978",
            "at a water terrain: killed Treefolk roll; on ID they go to Reserves",
            False,
        ),
        SpeciesAbility(
            "Stepped Damage",
            "Undead",
            "982-984",
            "a killed Undead may be exchanged for a smaller Undead from the DUA",
            False,
        ),
        SpeciesAbility(
            "Bone Magic",
            "Undead",
            "986-991",
            "magic action: +1 magic per Undead with a non-ID magic result, cap DUA, 4s",
            True,
        ),
    )
}

#: Counts-as abilities (L1040-1048): ability -> (species, elements the terrain must contain,
#: rolled result type, the type it may count as, a condition on the roll).
_COUNTS_AS: dict[str, tuple[str, frozenset[str], str, str]] = {
    "Coastal Dodge": ("Coral Elves", frozenset({"Water"}), MANEUVER, SAVE),
    "Mountain Mastery": ("Dwarves", frozenset({"Earth"}), MELEE, MANEUVER),
    "Dwarven Might": ("Dwarves", frozenset({"Fire"}), SAVE, MELEE),
    "Stampede": ("Feral", frozenset({"Earth", "Air"}), MANEUVER, MELEE),
    "Flaming Shields": ("Firewalkers", frozenset({"Fire"}), SAVE, MELEE),
    "Swamp Mastery": ("Goblins", frozenset({"Earth"}), MELEE, MANEUVER),
    "Volcanic Adaptation": ("Lava Elves", frozenset({"Fire"}), MANEUVER, SAVE),
    "Intangibility": ("Scalders", frozenset({"Water"}), MANEUVER, SAVE),
    "Born of the Swamp": ("Swamp Stalkers", frozenset({"Water"}), MANEUVER, SAVE),
    "Javelin Charge": ("Amazons", frozenset(), MANEUVER, MISSILE),
    "Kukri Charge": ("Amazons", frozenset(), MANEUVER, MELEE),
}


def _roll_condition(ability: str, s: Situation) -> bool:
    """Extra conditions on the roll, beyond "the roll counts the target type"."""
    if ability in ("Dwarven Might", "Stampede"):
        return s.roll_for == "melee" and s.counter_attack
    if ability == "Flaming Shields":
        return s.roll_for == "melee" and not s.counter_attack
    if ability == "Intangibility":
        return s.roll_for == "save" and s.against == "missile"
    if ability == "Javelin Charge":
        return s.roll_for == "missile" and not s.counter_attack
    if ability == "Kukri Charge":
        return s.roll_for == "melee" and not s.counter_attack
    return True


def _elements(names: Iterable[object]) -> frozenset[str]:
    return frozenset(str(getattr(n, "value", n)).capitalize() for n in names)


def counts_as_applies(ability: str, situation: Situation, *, active: Iterable[str] = ()) -> bool:
    """Whether the counts-as ability ``ability`` works in this roll (terrain elements, roll type,
    declared charges); the same test :func:`species_contributions` makes, for one ability."""
    owner, needs, source, target = _COUNTS_AS[ability]
    if ability in ("Javelin Charge", "Kukri Charge"):
        if ability not in frozenset(active):
            return False
    elif not situation.at_terrain or not (
        needs <= situation.terrain_elements or needs <= _elements(situation.terrain_elements)
    ):
        return False
    return target in situation.counted and _roll_condition(ability, situation)


def counts_as_types(ability: str) -> tuple[str, str]:
    """(rolled type, type it counts as) of a counts-as ability."""
    _, _, source, target = _COUNTS_AS[ability]
    return source, target


def species_contributions(
    species: str | None,
    situation: Situation,
    *,
    active: Iterable[str] = (),
) -> tuple[Contribution, ...]:
    """The roll contributions of ``species``' abilities to a roll in ``situation``.

    ``situation.terrain_elements`` are the elements of the terrain (and of a controlled minor
    terrain); ``active`` names abilities switched on earlier in the turn (Javelin Charge, Kukri
    Charge: a minor terrain was buried instead of the maneuver step).  Each counts-as carries the
    species so that only that species' results are converted.
    """
    if species is None:
        return ()
    active = frozenset(active)
    elements = _elements(situation.terrain_elements)
    counted = set(situation.counted)
    out: list[Contribution] = []
    for ability, (owner, needs, source, target) in _COUNTS_AS.items():
        if owner != species:
            continue
        if ability in ("Javelin Charge", "Kukri Charge") and ability not in active:
            continue
        if ability not in ("Javelin Charge", "Kukri Charge") and (
            not situation.at_terrain or not needs <= elements
        ):
            continue
        if target not in counted or not _roll_condition(ability, situation):
            continue
        spec = SPECIES_ABILITIES[ability]
        out.append(
            Contribution(
                source=ability,
                citation=spec.citation,
                counts_as=(counts_as(source, target, ability, spec.citation, species=species),),
                note=spec.summary,
            )
        )
    if species == "Coral Elves" and "Air" in elements and situation.at_terrain:
        if situation.roll_for == "missile" and situation.counter_attack:
            spec = SPECIES_ABILITIES["Defensive Volley"]
            out.append(Contribution("Defensive Volley", spec.citation, note="missile counter-attack allowed"))
    if species == "Scalders" and "Fire" in elements and situation.at_terrain:
        if situation.roll_for == "save" and situation.against == "melee" and not situation.counter_attack:
            spec = SPECIES_ABILITIES["Scorching Touch"]
            out.append(
                Contribution(
                    "Scorching Touch",
                    spec.citation,
                    effects=(
                        RollEffect(
                            "damage_spell_saves_only",
                            "Scorching Touch",
                            spec.citation,
                            None,
                            "the attacking army",
                            "after the save roll",
                            "1 damage per save result the Scalders rolled",
                        ),
                    ),
                )
            )
    if (
        species == "Treefolk"
        and "Earth" in elements
        and situation.roll_for == "maneuver"
        and situation.counter_maneuver
    ):
        spec = SPECIES_ABILITIES["Rapid Growth"]
        out.append(
            Contribution(
                "Rapid Growth",
                spec.citation,
                rerolls=False,
                effects=(
                    RollEffect(
                        "may_reroll_once",
                        "Rapid Growth",
                        spec.citation,
                        None,
                        "Treefolk that rolled no SAI",
                        "step 3",
                        "all re-rolled together, earlier results ignored",
                    ),
                ),
            )
        )
    return tuple(out)


# ------------------------------------------------------------------------- Amazon magic elements


def terrain_harmony_elements(terrain_elements: Iterable[object], *, at_terrain: bool) -> frozenset[str]:
    """Elements of Amazon magic (L798-802): the terrain's; ``{"Ivory"}`` in the Reserve Area."""
    if not at_terrain:
        return frozenset({"Ivory"})
    return _elements(terrain_elements)


# ------------------------------------------------------------------------- DUA-count abilities


def s_multiplier(force_points: int) -> int:
    """The "s" of DUA-count caps: 1 per 24 points of total force, or part thereof (L776-780)."""
    if force_points <= 0:
        raise ValueError(f"force size must be positive, not {force_points}")
    return -(-force_points // 24)


def dua_count(units_in_dua: int, force_points: int, *, deadlands: int = 0) -> int:
    """Units an ability may count in the DUA: each Deadlands counts as s units (L2638-2643)."""
    if units_in_dua < 0 or deadlands < 0:
        raise ValueError("counts cannot be negative")
    return units_in_dua + deadlands * s_multiplier(force_points)


def dua_cap(base: int, units_in_dua: int, force_points: int, *, deadlands: int = 0) -> int:
    """min(units counted in the DUA, base x s)."""
    return min(dua_count(units_in_dua, force_points, deadlands=deadlands), base * s_multiplier(force_points))


def magic_negation(
    frostwing_magic: int, frostwings_in_dua: int, force_points: int, *, deadlands: int = 0
) -> Modifier:
    """Frostwings' Magic Negation (L886-893): subtract their magic from the opponent's magic roll,
    at most the Frostwings in their DUA, at most 5s."""
    spec = SPECIES_ABILITIES["Magic Negation"]
    cap = dua_cap(5, frostwings_in_dua, force_points, deadlands=deadlands)
    return Modifier(
        Op.SUBTRACT,
        MAGIC,
        min(max(frostwing_magic, 0), cap),
        "Magic Negation",
        spec.citation,
        note=f"cap {cap}",
    )


def bone_magic(
    undead_with_magic: int, undead_in_dua: int, force_points: int, *, deadlands: int = 0
) -> Modifier:
    """Undead Bone Magic (L986-991): +1 magic per Undead unit that rolled a non-ID magic result,
    at most the Undead in the DUA, at most 4s; an adding modifier (step 10)."""
    spec = SPECIES_ABILITIES["Bone Magic"]
    cap = dua_cap(4, undead_in_dua, force_points, deadlands=deadlands)
    return Modifier(
        Op.ADD, MAGIC, min(max(undead_with_magic, 0), cap), "Bone Magic", spec.citation, note=f"cap {cap}"
    )


def cursed_bullets(
    missile_results: int, lava_elves_in_dua: int, force_points: int, *, deadlands: int = 0
) -> RollEffect:
    """Lava Elves' Cursed Bullets (L922-929): that many missile results only spell saves reduce."""
    spec = SPECIES_ABILITIES["Cursed Bullets"]
    cap = dua_cap(3, lava_elves_in_dua, force_points, deadlands=deadlands)
    return RollEffect(
        "damage_spell_saves_only",
        "Cursed Bullets",
        spec.citation,
        min(max(missile_results, 0), cap),
        "the target army at the same terrain",
        "with the missile damage",
    )


def foul_stench(goblins_in_dua: int, force_points: int, *, deadlands: int = 0) -> RollEffect:
    """Goblins' Foul Stench (L907-914): the defender picks this many units that cannot counter-attack."""
    spec = SPECIES_ABILITIES["Foul Stench"]
    return RollEffect(
        "no_counter_attack_units",
        "Foul Stench",
        spec.citation,
        dua_cap(3, goblins_in_dua, force_points, deadlands=deadlands),
        "units of the defending army",
        "after its save roll",
    )


def resist_fear(eldarim_health: int, dragonkin_health: Iterable[int]) -> int:
    """Eldarim Resist Fear (L838-840): how many of the army's Dragonkin (given by health, largest
    first) may roll in a dragon attack they would otherwise sit out; their total health may not
    exceed the Eldarim's total health in the army."""
    allowed, used = 0, 0
    for h in sorted(dragonkin_health, reverse=True):
        if used + h <= eldarim_health:
            used += h
            allowed += 1
    return allowed


def scorching_touch_damage(saves_rolled_by_scalders: int) -> int:
    """Damage Scorching Touch deals back (L933-938): one per save result the Scalders rolled."""
    return max(saves_rolled_by_scalders, 0)
