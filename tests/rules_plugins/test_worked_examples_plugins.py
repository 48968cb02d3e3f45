"""Worked examples and FAQ rulings (../shared/rules/worked-examples.md) about the totals SAIs,
species abilities and spells produce, each citing its case id.  V4 cases run in edition v4; R96,
FAQ95 and FAQ96 cases in edition r96 where that edition decides them (FAQ-CONFLICT notes below)."""

from __future__ import annotations

import pytest

from companion.rules.resolution import EffectInForce, RolledUnit, RollRequest, RollTerrain, resolve


def roll(cat, edition, purpose, dice, *, terrain="Coastland", controlled=False, effects=(), **kw):
    units = []
    for name, faces in dice:
        die = cat[name]
        faces = faces if isinstance(faces, (list, tuple)) else [faces]
        units.append(RolledUnit(die, tuple(die.find_face(f) for f in faces)))
    t = None
    if terrain:
        t = RollTerrain(terrain, face=8 if controlled else 3, controlled=controlled)
    effs = tuple(e if isinstance(e, EffectInForce) else EffectInForce(*e) for e in effects)
    return resolve(RollRequest(purpose, tuple(units), edition=edition, terrain=t, effects=effs, **kw))


def face(cat, name, icon, count=None):
    return next(
        f.text()
        for f in cat[name].faces
        if (f.icon == icon or f.sai == icon) and (count is None or f.count == count)
    )


TRANSMUTE_AND_WIND_WALK = [("Transmute Rock to Mud", 1), ("Wind Walk", 1)]


def highland_maneuvers(cat, dice, effects) -> int:
    """The r96 maneuver total of these dwarf `dice` at Highland (face 3) under `effects`."""
    return roll(cat, "r96", "maneuver", dice, terrain="Highland", effects=effects).total("maneuver")


def unit_with(cat, count, *, icon=None, sai=None, species=None, not_species=()):
    """The catalogue's first unit die (of `species`, when given; of none of `not_species`) with a face
    of `count` `icon` results, or of `count` `sai` icons."""
    return next(
        d
        for d in cat
        if d.is_unit
        and (species is None or d.species == species)
        and d.species not in not_species
        and any(f.count == count and (f.icon == icon if icon else f.sai == sai) for f in d.faces)
    )


# ------------------------------------------------------------------ V4


def test_v4_21_three_combined_wind_walks(cat):
    """V4-21 (V4 L2143-2148): three Wind Walks combined on one army add 12 maneuver."""
    r = roll(cat, "v4", "maneuver", [("Coral Elves/Fighter", "1 Melee")], effects=[("Wind Walk", 3)])
    assert r.total("maneuver") == 12


def test_v4_22_palsy_three_castings_split(cat):
    """V4-22 (V4 L2149-2153): Palsy x3 may be -3 on one target or -1 on each of three."""
    dice = [("Dwarves/Footman", "1 Save")] * 4
    assert roll(cat, "v4", "save", dice, effects=[("Palsy", 3)]).total("save") == 1
    assert roll(cat, "v4", "save", dice, effects=[("Palsy", 1)]).total("save") == 3


def test_v4_52_coil_target_counter_counts_once(cat):
    """V4-52 (V4 L1093-1096): Counter in a Coil target's save + melee roll: saves or melee."""
    unit = next(d for d in cat if d.is_unit and d.species != "Dragonkin" and "Counter" in d.sai_names)
    f = next(x for x in unit.faces if x.sai == "Counter")
    kw = dict(against="melee", counted=frozenset({"save", "melee"}), individual=True)
    r = roll(cat, "v4", "save", [(unit.name, f.text())], **kw)
    assert r.total("save") + r.total("melee") == f.count


# ------------------------------------------------------------------ R96


def test_r96_16_eighth_face_and_racial_double_dwarf_maneuvers(cat):
    """R96-16 (R96 L626-636): dwarf 3 maneuvers, Highland, eighth face held -> 12."""
    dwarf = unit_with(cat, 3, icon="Maneuver", species="Dwarves").name
    r = roll(cat, "r96", "maneuver", [(dwarf, "3 Maneuver")], terrain="Highland", controlled=True)
    assert r.total("maneuver") == 12


def test_r96_17_eighth_face_and_racial_counts_as(cat):
    """R96-17 (R96 L638-643): coral elf 3 maneuvers in a save roll, Coastland eighth face -> 6 saves."""
    elf = unit_with(cat, 3, icon="Maneuver", species="Coral Elves").name
    r = roll(cat, "r96", "save", [(elf, "3 Maneuver")], terrain="Coastland", controlled=True)
    assert r.total("save") == 6


@pytest.mark.parametrize(
    ("terrain", "controlled", "damage"),
    [("Coastland", False, 6), ("Highland", False, 9), ("Highland", True, 15)],
)
def test_r96_20_faq96_02_mammoth_rider_trample_in_a_charge(cat, terrain, controlled, damage):
    """R96-20 (R96 L715-724) and FAQ96-02 (SAI D): Trample 3 in a charge -> 6 / 9 / 15."""
    r = roll(
        cat,
        "r96",
        "melee",
        [("Dwarves/Mammoth Rider", "3 Trample")],
        terrain=terrain,
        controlled=controlled,
        charge=True,
    )
    assert r.total("melee") == damage


def test_r96_21_fly_maneuver_or_save(cat):
    """R96-21 (R96 L762-763): 3 Fly icons -> 3 maneuvers in a maneuver roll, 3 saves in a save roll."""
    flyer = unit_with(cat, 3, sai="Fly", not_species=("Coral Elves", "Dwarves", "Goblins", "Lava Elves"))
    f = face(cat, flyer.name, "Fly", 3)
    assert roll(cat, "r96", "maneuver", [(flyer.name, f)]).total("maneuver") == 3
    assert roll(cat, "r96", "save", [(flyer.name, f)]).total("save") == 3


def test_r96_24_wind_walk_does_not_feed_racial_saves(cat):
    """R96-24 (R96 L796-804): coral elves in coastland, 3 saves + 4 maneuvers + Wind Walk -> 7 saves."""
    elves = [("Coral Elves/Fighter", "1 Maneuver")] * 4
    saver = unit_with(cat, 3, icon="Save", species="Coral Elves")
    r = roll(cat, "r96", "save", elves + [(saver.name, "3 Save")], effects=[("Wind Walk", 1)])
    assert r.total("save") == 7


def test_r96_28_army_modifier_not_on_a_units_own_roll(cat):
    """R96-28 (R96 L926-932): Watery Double on the army does not help a unit targeted alone."""
    r = roll(
        cat, "r96", "save", [("Dwarves/Footman", "1 Save")], effects=[("Watery Double", 1)], individual=True
    )
    assert r.total("save") == 1
    r = roll(
        cat, "v4", "save", [("Dwarves/Footman", "1 Save")], effects=[("Watery Double", 1)], individual=True
    )
    assert r.total("save") == 1


def test_r96_32_palsy_arithmetic(cat):
    """R96-32 (R96 L1065-1067): Palsy x1 -> 12 hits become 11; 7 saves become 6 (v4 agrees, L2196)."""
    hits = [("Dwarves/Mammoth Rider", "4 Melee")] * 3
    saves = [("Dwarves/Footman", "1 Save")] * 7
    for edition in ("r96", "v4"):
        assert roll(cat, edition, "melee", hits, effects=[("Palsy", 1)]).total("melee") == 11
        assert roll(cat, edition, "save", saves, effects=[("Palsy", 1)]).total("save") == 6


# ------------------------------------------------------------------ FAQ96 (edition r96)


@pytest.mark.parametrize(("controlled", "factor"), [(False, 2), (True, 4)])
def test_faq96_01_terrain_bonuses_multiply_rend(cat, controlled, factor):
    """FAQ96-01 (SAI D): a Goblin Leopard Rider's Rend N in a maneuver roll at Swampland -> 2N; with
    the eighth face -> 4N (the case's N = 2 gives 4 and 8; the die's Rend face has N = 3)."""
    r = roll(
        cat,
        "r96",
        "maneuver",
        [("Goblins/Leopard Rider", "3 Rend")],
        terrain="Swampland",
        controlled=controlled,
    )
    assert r.total("maneuver") == 3 * factor


def test_faq96_01_v4_goblin_rend_maneuver(cat):
    """FAQ96-01 in v4: no racial doubling; the eighth face doubles only IDs (V4 L501) -> Rend 3 stays 3."""
    r = roll(
        cat, "v4", "maneuver", [("Goblins/Leopard Rider", "3 Rend")], terrain="Coastland", controlled=True
    )
    assert r.total("maneuver") == 3


def test_faq96_08_cantrip_ignored_in_maneuver_counted_in_magic(cat):
    """FAQ96-08 (SAI 2.A-2.E): cantrips in a maneuver roll -> nothing; in a magic action -> magic;
    in a save roll -> spell points, not saves.  Same in v4 (L1296-1306)."""
    caster = next(d for d in cat if d.is_unit and "Cantrip" in d.sai_names)
    f = next(x for x in caster.faces if x.sai == "Cantrip")
    for edition in ("r96", "v4"):
        assert roll(cat, edition, "maneuver", [(caster.name, f.text())]).total("maneuver") == 0
        assert roll(cat, edition, "magic", [(caster.name, f.text())]).total("magic") == f.count
        r = roll(cat, edition, "save", [(caster.name, f.text())])
        assert r.total("save") == 0 and r.other.get("cantrip") == f.count


def test_faq96_09_counter(cat):
    """FAQ96-09 (SAI 3): Counter X in a skirmish save -> X saves + X unsavable hits; in the attacker's
    melee -> X melee; dragon attack -> X saves + X melee; vs missile -> no save (r96).  V4 differs
    on the last point: "during any other save roll, Counter generates X save results" (V4 L1392-1393).
    (The case says X = 3; the Dwarf Skirmisher's Counter face has X = 4.)"""
    unit, f = "Dwarves/Skirmisher", "4 Counter"
    for edition in ("r96", "v4"):
        r = roll(cat, edition, "save", [(unit, f)], against="melee")
        assert r.total("save") == 4 and any(rep.amount == 4 for rep in r.reports if rep.source == "Counter")
        assert roll(cat, edition, "melee", [(unit, f)]).total("melee") == 4
        r = roll(cat, edition, "dragon", [(unit, f)])
        assert (r.total("save"), r.total("melee")) == (4, 4)
    assert roll(cat, "r96", "save", [(unit, f)], against="missile").total("save") == 0
    assert roll(cat, "v4", "save", [(unit, f)], against="missile").total("save") == 4


def test_faq96_10_fly_vs_dragon_gives_saves(cat):
    """FAQ96-10 (SAI 4.A): Fly 3 in a dragon-attack response -> 3 saves, never melee (v4 too)."""
    flyer = unit_with(cat, 3, sai="Fly")
    f = face(cat, flyer.name, "Fly", 3)
    for edition in ("r96", "v4"):
        r = roll(cat, edition, "dragon", [(flyer.name, f)])
        assert (r.total("save"), r.total("melee")) == (3, 0)


def test_faq96_11_trample_skirmish_and_dragon(cat):
    """FAQ96-11 (SAI 7.A, 7.C): Trample 3 in a skirmish -> 3 hits; vs a dragon -> 3 hits."""
    for edition in ("r96", "v4"):
        assert roll(cat, edition, "melee", [("Dwarves/Mammoth Rider", "3 Trample")]).total("melee") == 3
        assert roll(cat, edition, "dragon", [("Dwarves/Mammoth Rider", "3 Trample")]).total("melee") == 3


def test_faq96_12_smite_in_charge_and_dragon_attack(cat):
    """FAQ96-12 (SAI 6.A, 6.B): Smite 3 in a charge -> 3 savable melee; dragon attack -> 3 melee;
    skirmish -> unsavable damage reported, no melee results (v4 the same outside charges, L1874-1879)."""
    unit = unit_with(cat, 3, sai="Smite")
    f = face(cat, unit.name, "Smite", 3)
    assert roll(cat, "r96", "melee", [(unit.name, f)], charge=True).total("melee") == 3
    for edition in ("r96", "v4"):
        assert roll(cat, edition, "dragon", [(unit.name, f)]).total("melee") == 3
        r = roll(cat, edition, "melee", [(unit.name, f)])
        assert r.total("melee") == 0 and any(
            rep.kind == "damage_no_save" and rep.amount == 3 for rep in r.reports
        )


def test_faq96_13_rend_and_maneuver_icons_sum(cat):
    """FAQ96-13 (SAI 5.B): Rend 3 + 5 maneuver icons -> 8 maneuvers (enough against a Flash Flood)."""
    rend = unit_with(cat, 3, sai="Rend", not_species=("Dwarves", "Goblins"))
    mover = unit_with(cat, 1, icon="Maneuver", not_species=("Dwarves", "Goblins"))
    dice = [(rend.name, face(cat, rend.name, "Rend", 3))] + [(mover.name, "1 Maneuver")] * 5
    for edition in ("r96", "v4"):
        assert roll(cat, edition, "maneuver", dice, terrain="Coastland").total("maneuver") == 8


def test_faq96_03_spells_never_modify_sai_results_r96(cat):
    """FAQ96-03 (SAI B, R96 L705-708): spell penalties do not reach SAI-generated results.
    Shown with Counter's saves under Palsy x3: the 4 Counter saves survive."""
    r = roll(
        cat, "r96", "save", [("Dwarves/Skirmisher", "4 Counter")], against="melee", effects=[("Palsy", 3)]
    )
    assert r.total("save") == 4
    # v4: SAI results join at step 8, after the subtracting step, so Palsy misses them as well
    r = roll(
        cat, "v4", "save", [("Dwarves/Skirmisher", "4 Counter")], against="melee", effects=[("Palsy", 3)]
    )
    assert r.total("save") == 4


# ------------------------------------------------------------------ FAQ95 (order cases, edition r96 order)


def test_faq95_11_stoneskin_is_added_after_frost_halving(cat):
    """FAQ95-11 (EARTH 1.C): frosted army, Stoneskin x3, 7 saves -> floor(7/2) + 3 = 6 (r96);
    v4 the same with Frost Breath + Stone Skin (divide step 7, add step 10)."""
    saves = [("Dwarves/Footman", "1 Save")] * 7
    r = roll(cat, "r96", "save", saves, effects=[("Frost", 1), ("Stoneskin", 3)])
    assert r.total("save") == 6
    r = roll(cat, "v4", "save", saves, effects=[("Frost Breath", 1), ("Stone Skin", 3)])
    assert r.total("save") == 6


def _dwarf_maneuvers(cat, n):
    return [("Dwarves/Patroller", "2 Maneuver")] * (n // 2) + (
        [("Dwarves/Sergeant", "2 Maneuver")] if n % 2 else []
    )


def test_faq95_19_ash_storm_then_highland_doubling(cat):
    """FAQ95-19 (FIRE 1.D): highland dwarves roll 5 maneuvers under 3 Ash Storms -> (5-3) x 2 = 4 (r96).
    Built from 2+2+... maneuver faces: 6 rolled -> (6-3) x 2 = 6, the same rule."""
    dice = [("Dwarves/Patroller", "2 Maneuver")] * 3
    assert highland_maneuvers(cat, dice, [("Ash Storm", 3, "terrain")]) == (6 - 3) * 2


def test_faq95_27_palsy_then_highland_doubling(cat):
    """FAQ95-27 (DEATH 2.C): highland dwarves with 3 Palsies: (rolled - 3) x 2 (r96)."""
    dice = [("Dwarves/Patroller", "2 Maneuver")] * 3
    assert highland_maneuvers(cat, dice, [("Palsy", 3)]) == (6 - 3) * 2


def test_faq95_12_transmute_and_wind_walk_r96_order(cat):
    """FAQ95-12 / FAQ-CONFLICT-3: R96 order subtract, divide, multiply, add: roll 7 maneuvers,
    Transmute + Wind Walk at highland -> (7-6) x 2 + 6 = 8 (not FAQ95's 14)."""
    dice = (
        [("Dwarves/Patroller", "2 Maneuver")] * 2
        + [("Dwarves/Sergeant", "3 Save")]
        + [("Dwarves/Patroller", "2 Maneuver")]
        + [("Dwarves/Footman", "1 Save")]
    )
    # 6 maneuvers rolled here: (6-6) x 2 + 6 = 6
    assert highland_maneuvers(cat, dice, TRANSMUTE_AND_WIND_WALK) == 6
    dice = [("Dwarves/Patroller", "2 Maneuver")] * 4  # 8 rolled: (8-6) x 2 + 6 = 10
    assert highland_maneuvers(cat, dice, TRANSMUTE_AND_WIND_WALK) == 10


SEVEN = [
    ("Dwarves/Skirmisher", "3 Maneuver"),
    ("Dwarves/Patroller", "2 Maneuver"),
    ("Dwarves/Pony Rider", "2 Maneuver"),
]
NINE = SEVEN + [("Dwarves/Sentry", "1 Maneuver"), ("Dwarves/Sentry", "1 Maneuver")]


def test_faq95_12a_transmute_then_highland_doubling(cat):
    """FAQ95-12 (a) (EARTH 4.D): highland dwarves roll 7, Transmute -> (7-6) x 2 = 2 (r96 order agrees)."""
    assert highland_maneuvers(cat, SEVEN, [("Transmute Rock to Mud", 1)]) == 2


def test_faq95_12b_r96_order_gives_8_not_14(cat):
    """FAQ95-12 (b) / FAQ-CONFLICT-3: roll 7, Transmute + Wind Walk: R96 multiplies before adding
    (R96 L953-961) -> (7-6) x 2 + 6 = 8; FAQ95's 14 is the 1995 order."""
    assert highland_maneuvers(cat, SEVEN, TRANSMUTE_AND_WIND_WALK) == 8


def test_faq95_12c_d_transmute_and_wall_of_fog(cat):
    """FAQ95-12 (c) (EARTH 4.H): roll 9, Transmute + Wall of Fog -> 3 -> 1 -> x2 = 2;
    (d) with Wind Walk too: R96 order -> 2 + 6 = 8 (FAQ-CONFLICT-3)."""
    fx = [("Transmute Rock to Mud", 1), ("Wall of Fog", 1, "terrain")]
    assert highland_maneuvers(cat, NINE, fx) == 2
    assert highland_maneuvers(cat, NINE, fx + [("Wind Walk", 1)]) == 8


def test_faq95_23_dancing_lights_halves_missile_once(cat):
    """FAQ95-23 (FIRE 4.A, 4.E) in r96: 9 missile -> 4; a second Dancing Lights adds nothing.
    (Its "4 cantrips -> 2" is the 1995 reading that FAQ96 SAI B / R96 L705-708 overrule:
    FAQ-CONFLICT-2; cantrips stay 4.)"""
    archers = [("Coral Elves/Archer", "3 Missile")] * 3
    assert roll(cat, "r96", "missile", archers, effects=[("Dancing Lights", 1)]).total("missile") == 4
    assert roll(cat, "r96", "missile", archers, effects=[("Dancing Lights", 2)]).total("missile") == 4
    caster = next(d for d in cat if d.is_unit and any(f.sai == "Cantrip" and f.count == 4 for f in d.faces))
    r = roll(cat, "r96", "magic", [(caster.name, "4 Cantrip")], effects=[("Dancing Lights", 1)])
    assert r.total("magic") == 4


def test_faq95_24_wall_of_fog_on_missiles(cat):
    """FAQ95-24 (WATER 3.F, 3.C) in r96: 13 missile hits, 4 Ash Storms on the shooters' terrain,
    shot into a fogged terrain -> (13-4) / 2 = 4; own terrain fogged too -> 2."""
    shots = [("Coral Elves/Sprite Swarm", "4 Missile")] * 2 + [
        ("Coral Elves/Archer", "3 Missile"),
        ("Coral Elves/Archer", "2 Missile"),
    ]
    assert roll(cat, "r96", "missile", shots).total("missile") == 13
    fx = [("Ash Storm", 4, "terrain"), ("Wall of Fog", 1, "opponent")]
    assert roll(cat, "r96", "missile", shots, effects=fx).total("missile") == 4
    fx = fx + [("Wall of Fog", 1, "terrain")]
    assert roll(cat, "r96", "missile", shots, effects=fx).total("missile") == 2


def test_faq96_04_defensive_spells_count_against_sai_damage(cat):
    """FAQ96-04 (SAI C): against Trample 3 in a melee, an army with Stoneskin x1 + Wall of Ice has 4
    bonus saves (r96); in v4 Stone Skin + Watery Double likewise add at step 10 (L2253, L2337)."""
    nothing = [("Dwarves/Footman", "1 Melee")]
    r = roll(cat, "r96", "save", nothing, against="melee", effects=[("Stoneskin", 1), ("Wall of Ice", 1)])
    assert r.total("save") == 4
    r = roll(cat, "v4", "save", nothing, against="melee", effects=[("Stone Skin", 1), ("Watery Double", 3)])
    assert r.total("save") == 4
