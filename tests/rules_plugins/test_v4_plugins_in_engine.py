"""The V4 plug-ins inside die roll resolution (V4.01c L1011-1030): real dice from the catalogue,
real engine, totals and explained steps."""

from __future__ import annotations

import pytest

from companion.rules.resolution import (
    EffectInForce,
    ResolutionError,
    RolledUnit,
    RollRequest,
    RollTerrain,
    resolve,
)


def roll(cat, purpose, dice, *, terrain="Flatland", face=3, effects=(), **kw):
    units = []
    for name, faces in dice:
        die = cat[name]
        faces = faces if isinstance(faces, (list, tuple)) else [faces]
        units.append(RolledUnit(die, tuple(die.find_face(f) for f in faces)))
    t = RollTerrain(terrain, face=face) if terrain else None
    effs = tuple(EffectInForce(*e) if isinstance(e, tuple) else EffectInForce(e) for e in effects)
    return resolve(RollRequest(purpose, tuple(units), terrain=t, effects=effs, **kw))


# ------------------------------------------------------------------ SAI results at step 8


def test_scenario_v4_rend_rolls_again(cat):
    """conformance v4-rend-rolls-again: Rend 3 in melee, re-rolled into 3 Missile -> 3 melee
    (V4.01c L1760-1762)."""
    r = roll(cat, "melee", [("Goblins/Leopard Rider", ["3 Rend", "3 Missile"])])
    assert r.total("melee") == 3
    assert any(s.step == 8 for s in r.steps)


def test_rend_chain_adds_every_face(cat):
    r = roll(cat, "melee", [("Goblins/Leopard Rider", ["3 Rend", "3 Rend", "4 Melee"])])
    assert r.total("melee") == 10


def test_rend_does_not_reroll_in_maneuver_l1763_1764(cat):
    assert roll(cat, "maneuver", [("Goblins/Leopard Rider", "3 Rend")]).total("maneuver") == 3
    with pytest.raises(ResolutionError):
        roll(cat, "maneuver", [("Goblins/Leopard Rider", ["3 Rend", "3 Save"])])


def test_reroll_pending_is_reported_when_the_list_stops_at_a_rend(cat):
    r = roll(cat, "melee", [("Goblins/Leopard Rider", "3 Rend")])
    assert any(rep.kind == "reroll_pending" for rep in r.reports)


def test_trample_maneuver_and_melee_l2008_2010(cat):
    assert (
        roll(cat, "maneuver", [("Dwarves/Mammoth Rider", "3 Trample")], terrain="Coastland").total("maneuver")
        == 3
    )
    assert (
        roll(cat, "melee", [("Dwarves/Mammoth Rider", "3 Trample")], terrain="Coastland").total("melee") == 3
    )


def test_trample_melee_counted_as_maneuver_by_mountain_mastery(cat):
    """SAI results are rolled results, so Mountain Mastery (L828-830) may count Trample's melee as
    maneuver at an earth terrain: 3 + 3 (only spell results are excluded, L1045-1046)."""
    r = roll(cat, "maneuver", [("Dwarves/Mammoth Rider", "3 Trample")], terrain="Highland")
    assert r.total("maneuver") == 6
    assert any(s.source == "Mountain Mastery" for s in r.steps)


def test_sai_results_escape_subtract_and_divide_l1021_1025(cat):
    """Counter 3 saves arrive at step 8: Evil Eye (-2) only eats the rolled save."""
    r = roll(
        cat,
        "save",
        [("Dwarves/Footman", "1 Save"), ("Eldarim/Dragonslayer", "4 Counter")],
        effects=[("Evil Eye", 1, "army", frozenset(), True)],
        against="missile",
    )
    assert r.total("save") == 4  # max(1 - 2, 0) + 4


def test_sai_results_are_multiplied_at_step_9(cat):
    """Trumpet doubles Feral melee at step 9, after the SAI results joined (L1025-1027)."""
    feral = [d.name for d in cat if d.species == "Feral" and "Trumpet" in d.sai_names]
    assert feral
    trumpeter = cat[feral[0]]
    trumpet = next(f for f in trumpeter.faces if f.sai == "Trumpet").text()
    r = roll(
        cat,
        "melee",
        [
            (trumpeter.name, trumpet),
            ("Feral/Hyena Rider" if "Feral/Hyena Rider" in cat else _feral_with_melee(cat), _melee_face(cat)),
        ],
    )
    assert r.total("melee") == 2 * _melee_count(cat)


def _feral_with_melee(cat):
    return next(
        d.name for d in cat if d.species == "Feral" and d.is_unit and any(f.icon == "Melee" for f in d.faces)
    )


def _melee_face(cat):
    die = cat[_feral_with_melee(cat)]
    return next(f for f in die.faces if f.icon == "Melee").text()


def _melee_count(cat):
    die = cat[_feral_with_melee(cat)]
    return next(f for f in die.faces if f.icon == "Melee").count


def test_cantrip_outside_magic_lands_in_other_l1304_1306(cat):
    caster = next(d for d in cat if d.is_unit and "Cantrip" in d.sai_names and d.size == "Large")
    face = next(f for f in caster.faces if f.sai == "Cantrip")
    r = roll(cat, "save", [(caster.name, face.text())])
    assert r.total("save") == 0 and r.other.get("cantrip") == face.count
    r = roll(cat, "magic", [(caster.name, face.text())])
    assert r.total("magic") == face.count


def test_smite_reports_damage_without_results_l1874_1876(cat):
    r = roll(cat, "melee", [("Eldarim/Dragonslayer", "4 Smite")])
    assert r.total("melee") == 0
    assert any(rep.kind == "damage_no_save" and rep.amount == 4 for rep in r.reports)


def test_charge_counts_the_whole_army_maneuver_as_melee_l1309_1318(cat):
    r = roll(
        cat,
        "melee",
        [
            ("Dwarves/Behemoth", "4 Charge"),
            ("Dwarves/Patroller", "2 Maneuver"),
            ("Dwarves/Footman", "2 Melee"),
        ],
        terrain="Coastland",
    )
    assert r.total("melee") == 2 + 2
    r = roll(
        cat,
        "melee",
        [("Dwarves/Behemoth", "4 Charge"), ("Dwarves/Patroller", "2 Maneuver")],
        terrain="Coastland",
        counter_attack=True,
    )
    assert r.total("melee") == 0


def _face_of(cat, name, icon):
    return next(f for f in cat[name].faces if f.icon == icon).text()


def test_elevate_doubles_the_best_unit_missile_l1491_1492(cat):
    elevate = next(d for d in cat if "Elevate" in d.sai_names)
    archer = next(
        d
        for d in cat
        if d.species == "Coral Elves" and d.is_unit and any(f.icon == "Missile" for f in d.faces)
    )
    mface = next(f for f in archer.faces if f.icon == "Missile")
    eface = next(f for f in elevate.faces if f.sai == "Elevate").text()
    r = roll(cat, "missile", [(archer.name, mface.text()), (elevate.name, eface)])
    assert r.total("missile") == 2 * mface.count


def test_combination_roll_counter_counts_once_worked_example_v4_52(cat):
    """V4-52 (V4.01c L1093-1096): a Coil target rolls Counter X in its save + melee roll ->
    X saves or X melee, not both."""
    unit = next(d for d in cat if d.is_unit and d.species != "Dragonkin" and "Counter" in d.sai_names)
    face = next(f for f in unit.faces if f.sai == "Counter")
    x = face.count
    base = dict(against="melee", counted=frozenset({"save", "melee"}), individual=True)
    r = roll(cat, "save", [(unit.name, face.text())], **base)
    assert (r.total("save"), r.total("melee")) == (x, 0)
    r = roll(cat, "save", [(unit.name, face.text())], choices={"Counter": "melee"}, **base)
    assert (r.total("save"), r.total("melee")) == (0, x)


def test_fly_in_dragon_attack_gives_saves_l1586_1588(cat):
    flyer = next(d for d in cat if d.is_unit and d.species == "Coral Elves" and "Fly" in d.sai_names)
    face = next(f for f in flyer.faces if f.sai == "Fly")
    r = roll(cat, "dragon", [(flyer.name, face.text())])
    assert r.total("save") == face.count and r.total("melee") == 0


# ------------------------------------------------------------------ species abilities


def test_coastal_dodge_in_engine_l817_819(cat):
    man = _face_of(cat, "Coral Elves/Fighter", "Maneuver")
    n = cat["Coral Elves/Fighter"].find_face(man).count
    assert roll(cat, "save", [("Coral Elves/Fighter", man)], terrain="Coastland").total("save") == n
    assert roll(cat, "save", [("Coral Elves/Fighter", man)], terrain="Highland").total("save") == 0
    assert (
        roll(
            cat, "save", [("Coral Elves/Fighter", man)], terrain="Coastland", choices={"Coastal Dodge": False}
        ).total("save")
        == 0
    )


def test_spell_results_never_counted_as_l1045_1046(cat):
    """Wind Walk's maneuver does not become saves by Coastal Dodge (cf. R96-24, FAQ-CONFLICT-4)."""
    r = roll(
        cat, "save", [("Coral Elves/Fighter", "1 Melee")], terrain="Coastland", effects=[("Wind Walk", 1)]
    )
    assert r.total("save") == 0
    r = roll(
        cat, "save", [("Coral Elves/Fighter", "1 Maneuver")], terrain="Coastland", effects=[("Wind Walk", 1)]
    )
    assert r.total("save") == 1


def test_mountain_mastery_in_engine_l828_830(cat):
    melee = _face_of(cat, "Dwarves/Footman", "Melee")
    n = cat["Dwarves/Footman"].find_face(melee).count
    assert roll(cat, "maneuver", [("Dwarves/Footman", melee)], terrain="Highland").total("maneuver") == n
    assert roll(cat, "maneuver", [("Dwarves/Footman", melee)], terrain="Coastland").total("maneuver") == 0


def test_terrain_harmony_magic_takes_terrain_elements_l798_802(cat):
    amazon = next(
        d for d in cat if d.species == "Amazons" and d.is_unit and any(f.icon == "Magic" for f in d.faces)
    )
    face = next(f for f in amazon.faces if f.icon == "Magic")
    r = roll(cat, "magic", [(amazon.name, face.text())], terrain="Swampland")
    assert dict(r.magic) == {"Earth/Water": face.count}
    r = roll(cat, "magic", [(amazon.name, face.text())], terrain=None, in_reserve=True)
    assert dict(r.magic) == {"Ivory": face.count}


def test_bone_magic_in_engine_l986_991(cat):
    undead = next(
        d for d in cat if d.species == "Undead" and d.is_unit and any(f.icon == "Magic" for f in d.faces)
    )
    face = next(f for f in undead.faces if f.icon == "Magic")
    r = roll(cat, "magic", [(undead.name, face.text()), (undead.name, face.text())], dua_counts={"Undead": 1})
    assert r.total("magic") == 2 * face.count + 1  # capped by one Undead in the DUA


# ------------------------------------------------------------------ spells


def test_scenario_v4_wind_walk_combined_worked_example_v4_21(cat):
    """conformance v4-wind-walk-combined / V4-21: three combined Wind Walks add 12 (L2143-2148)."""
    r = roll(cat, "maneuver", [("Coral Elves/Fighter", "1 Melee")], effects=[("Wind Walk", 3)])
    assert r.total("maneuver") == 12


def test_stone_skin_adds_at_step_10(cat):
    r = roll(cat, "save", [("Dwarves/Footman", "1 Save")], effects=[("Stone Skin", 2)])
    assert r.total("save") == 3
    assert any(s.step == 10 and s.source == "Stone Skin" for s in r.steps)


def test_stone_skin_not_in_an_individual_roll_l1050_1066(cat):
    r = roll(cat, "save", [("Dwarves/Footman", "1 Save")], effects=[("Stone Skin", 2)], individual=True)
    assert r.total("save") == 1


def test_ash_storm_removes_id_results_last_l1058_1061(cat):
    r = roll(
        cat,
        "save",
        [("Dwarves/Footman", "1 Save"), ("Dwarves/Sergeant", "ID")],
        effects=[("Ash Storm", 1, "terrain")],
    )
    sergeant = cat["Dwarves/Sergeant"].health
    assert r.total("save") == sergeant  # the normal save went first
    assert r.per_unit[1].get("save") == sergeant


def test_palsy_not_on_maneuver_l2196_2199(cat):
    r = roll(
        cat, "maneuver", [("Dwarves/Patroller", "2 Maneuver")], effects=[("Palsy", 3)], terrain="Coastland"
    )
    assert r.total("maneuver") == 2
    r = roll(cat, "save", [("Dwarves/Patroller", "2 Save")], effects=[("Palsy", 3)], terrain="Coastland")
    assert r.total("save") == 0


@pytest.mark.parametrize(
    ("spell", "castings", "cut"),
    [("Dancing Lights", 1, 6), ("Higher Ground", 1, 5), ("Blizzard", 1, 3), ("Decay", 2, 4)],
)
def test_melee_penalty_spells(cat, spell, castings, cut):
    faces = [("Dwarves/Mammoth Rider", "3 Trample")] + [
        ("Dwarves/Footman", _face_of(cat, "Dwarves/Footman", "Melee"))
    ] * 4
    base = roll(cat, "melee", faces).total("melee")
    r = roll(cat, "melee", faces, effects=[(spell, castings)])
    assert r.total("melee") == max(base - 3 - cut, 0) + 3  # Trample's 3 melee arrive after the cut


def test_deluge_cuts_maneuver_and_missile_l2358_2361(cat):
    r = roll(
        cat,
        "maneuver",
        [("Dwarves/Patroller", "2 Maneuver")] * 3,
        effects=[("Deluge", 1, "terrain")],
        terrain="Coastland",
    )
    assert r.total("maneuver") == 3
    r = roll(
        cat,
        "missile",
        [("Coral Elves/Guard", "2 Missile")] * 3,
        effects=[("Deluge", 2, "terrain")],
        terrain="Coastland",
    )
    assert r.total("missile") == 0


def test_frost_breath_halves_rolled_but_not_sai_results(cat):
    r = roll(
        cat,
        "save",
        [("Dwarves/Footman", "1 Save")] * 5 + [("Eldarim/Dragonslayer", "4 Counter")],
        effects=["Frost Breath"],
    )
    assert r.total("save") == 5 // 2 + 4


def test_necromantic_wave_magic_counts_as_melee_l2227_2233(cat):
    mage = next(
        d for d in cat if d.species == "Lava Elves" and d.is_unit and any(f.icon == "Magic" for f in d.faces)
    )
    face = next(f for f in mage.faces if f.icon == "Magic")
    r = roll(cat, "melee", [(mage.name, face.text())], effects=["Necromantic Wave"])
    assert r.total("melee") == face.count


def test_unknown_effect_refused(cat):
    with pytest.raises(ResolutionError, match="unknown spell"):
        roll(cat, "save", [("Dwarves/Footman", "1 Save")], effects=["Kazoo"])


def test_wilding_doubles_one_unit_per_casting_l2167_2171(cat):
    dice = [("Dwarves/Sergeant", "3 Save"), ("Dwarves/Patroller", "2 Save"), ("Dwarves/Footman", "1 Save")]
    assert roll(cat, "save", dice, effects=[("Wilding", 1)]).total("save") == 3 * 2 + 2 + 1
    assert roll(cat, "save", dice, effects=[("Wilding", 2)]).total("save") == 3 * 2 + 2 * 2 + 1


def test_elemental_champion_logo_counts_as_an_id_worth_two_l1821_1824(cat):
    die = cat["Eldarim/Fire Dragon Hunter"]
    r = roll(cat, "save", [(die.name, "1 Logo")])
    assert r.total("save") == 2
    r = resolve(
        RollRequest(
            "save",
            (RolledUnit(die, (die.find_face("1 Logo"),)),),
            terrain=RollTerrain("Highland", face=8, controlled=True),
        )
    )
    assert r.total("save") == 4  # the eighth face doubles ID results (L501)
    assert roll(cat, "save", [("Eldarim/Dragonslayer", "1 Logo")]).total("save") == 0


def test_attune_magic_is_of_any_element_l1243_1249(cat):
    item = next(d for d in cat if d.is_item and "Attune" in d.sai_names)
    f = next(x for x in item.faces if x.sai == "Attune")
    seer = cat["Amazons/Seer"]
    r = resolve(
        RollRequest(
            "magic",
            (RolledUnit(seer, (seer.find_face("2 Magic"),)), RolledUnit(item, (f,))),
            terrain=RollTerrain("Coastland", face=1),
        )
    )
    assert r.total("magic") == 2 + f.count
    assert r.magic.get("any") == f.count and r.magic.get("Air/Water") == 2


def test_cantrip_magic_keeps_the_units_elements(cat):
    caster = next(d for d in cat if d.species == "Dwarves" and d.is_unit and "Cantrip" in d.sai_names)
    f = next(x for x in caster.faces if x.sai == "Cantrip")
    r = roll(cat, "magic", [(caster.name, f.text())], terrain="Coastland")
    assert dict(r.magic) == {"Earth/Fire": f.count}


def test_flurry_rolled_again_in_a_dragon_attack_means_melee_l1570_1575(cat):
    """A face list that goes on after Flurry in a dragon attack shows the roller took X melee and the
    re-roll; alone, Flurry gives X saves (the default best for a save against a dragon)."""
    item = cat["Items/Air Blade Golem"]
    f, other = item.find_face("4 Flurry"), item.find_face("4 Melee")
    carrier = cat["Dwarves/Footman"]
    base = (RolledUnit(carrier, (carrier.find_face("1 Melee"),)),)
    r = resolve(
        RollRequest("dragon", base + (RolledUnit(item, (f,)),), terrain=RollTerrain("Coastland", face=3))
    )
    assert r.total("save") == f.count and r.total("melee") == 1
    r = resolve(
        RollRequest(
            "dragon", base + (RolledUnit(item, (f, other)),), terrain=RollTerrain("Coastland", face=3)
        )
    )
    assert r.total("save") == 0 and r.total("melee") == 1 + 4 + 4


def test_belly_removes_the_dragonkins_automatic_saves_l1270_1272(cat):
    kin = next(d for d in cat if d.species == "Dragonkin" and "Belly" in d.sai_names and d.size == "Small")
    belly = next(f for f in kin.faces if f.sai == "Belly")
    other = next(f for f in kin.faces if f.icon == "Melee")
    assert roll(cat, "save", [(kin.name, other.text())]).total("save") == kin.health  # L2537-2541
    r = roll(cat, "save", [(kin.name, belly.text())])
    assert r.total("save") == 0
    assert any(x.kind == "loses_automatic_saves" for x in r.reports)


def test_bone_magic_counts_sai_magic_but_not_id_l986_991(cat):
    undead = next(d for d in cat if d.species == "Undead" and d.is_unit and "Cantrip" in d.sai_names)
    cantrip = next(f for f in undead.faces if f.sai == "Cantrip")
    r = roll(cat, "magic", [(undead.name, cantrip.text())], dua_counts={"Undead": 3})
    assert r.total("magic") == cantrip.count + 1
    r = roll(cat, "magic", [(undead.name, "ID")], dua_counts={"Undead": 3})
    assert r.total("magic") == undead.health
