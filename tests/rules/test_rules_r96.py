"""Edition r96 (Dragon Dice Revised Rules, TSR 1996): worked examples and FAQ rulings about a
roll's totals.  Each test names its case id in ../shared/rules/worked-examples.md."""

from __future__ import annotations

import pytest
from rules_rolls import at, request, unit

from companion.rules.resolution import EffectInForce, resolve


def r96(purpose, *units, **kw):
    return resolve(request(purpose, *units, edition="r96", **kw))


def dwarves_maneuver(n):
    """Dwarf dice showing ``n`` maneuver icons in all."""
    out = []
    while n >= 3:
        out.append(unit("Dwarves/Lizard Rider", "3 Maneuver"))
        n -= 3
    while n >= 2:
        out.append(unit("Dwarves/Sergeant", "2 Maneuver"))
        n -= 2
    if n:
        out.append(unit("Dwarves/Pony Rider", "1 Maneuver"))
    return out


def test_r96_01_ids_count_as_needed_result_worth_health():
    """R96-01."""
    r = r96(
        "melee",
        unit("Dwarves/Sergeant", "ID"),
        unit("Dwarves/Patroller", "ID"),
        unit("Dwarves/Footman", "ID"),
        terrain=at("Coastland", 6),
    )
    assert r.totals["melee"] == 5


def test_r96_16_eighth_face_and_racial_doubling():
    """R96-16."""
    r = r96("maneuver", unit("Dwarves/Lizard Rider", "3 Maneuver"), terrain=at("Highland", controlled=True))
    assert r.totals["maneuver"] == 12
    assert (
        r96("maneuver", unit("Dwarves/Lizard Rider", "3 Maneuver"), terrain=at("Highland")).totals["maneuver"]
        == 6
    )


def test_r96_17_eighth_face_then_counts_as():
    """R96-17."""
    r = r96("save", unit("Coral Elves/Knight", "3 Maneuver"), terrain=at("Coastland", controlled=True))
    assert r.totals["save"] == 6


@pytest.mark.parametrize(
    ("terrain", "damage"), [(at("Flatland"), 6), (at("Highland"), 9), (at("Highland", controlled=True), 15)]
)
def test_r96_20_and_faq96_02_mammoth_rider_trample_in_a_charge(terrain, damage):
    """R96-20, FAQ96-02."""
    r = r96("melee", unit("Dwarves/Mammoth Rider", "3 Trample"), terrain=terrain, charge=True)
    assert r.totals["melee"] == damage


def test_r96_21_and_faq96_10_fly():
    """R96-21, FAQ96-10."""
    fly = unit("Coral Elves/Eagle Knight", "3 Fly")
    assert r96("maneuver", fly, terrain=at("Flatland")).totals == {"maneuver": 3}
    assert r96("save", fly, terrain=at("Flatland")).totals == {"save": 3}
    assert r96("dragon", fly, terrain=at("Flatland")).totals == {"melee": 0, "missile": 0, "save": 3}


def test_r96_24_wind_walk_does_not_feed_racial_counts_as():
    """R96-24."""
    r = r96(
        "save",
        unit("Coral Elves/Protector", "3 Save"),
        unit("Coral Elves/Knight", "2 Maneuver"),
        unit("Coral Elves/Trooper", "2 Maneuver"),
        terrain=at("Coastland"),
        effects=[EffectInForce("Wind Walk", 1)],
    )
    # 3 saves + 4 maneuver icons counted as saves; Wind Walk's 6 maneuvers never become saves
    assert r.totals["save"] == 7


def test_r96_28_army_modifiers_skip_a_unit_rolling_alone():
    """R96-28."""
    footman = unit("Dwarves/Footman", "1 Save")
    assert r96("save", footman, effects=[EffectInForce("Watery Double", 1)]).totals["save"] == 2
    assert (
        r96("save", footman, effects=[EffectInForce("Watery Double", 1)], individual=True).totals["save"] == 1
    )


def test_r96_29_charge_penalty_split_between_saves_and_melee_never_missile():
    """R96-29."""
    units = (
        unit("Dwarves/Mammoth Rider", "4 Melee"),
        unit("Dwarves/Mammoth Rider", "3 Save"),
        unit("Dwarves/Marksman", "3 Missile"),
    )
    ash = [EffectInForce("Ash Storm", 3, "terrain")]
    kw = dict(terrain=at("Flatland"), effects=ash, counted=frozenset({"save", "melee"}))
    r = r96("melee", *units, **kw)
    assert "missile" not in r.totals
    assert r.totals["save"] + r.totals["melee"] == 7 - 3
    r = r96("melee", *units, **kw, choices={"Ash Storm split": {"save": 2, "melee": 1}})
    assert r.totals == {"melee": 3, "save": 1}


def test_r96_30_dragon_attack_palsy_all_four_applied():
    """R96-30."""
    units = (
        unit("Dwarves/Mammoth Rider", "4 Melee"),
        unit("Dwarves/Mammoth Rider", "3 Save"),
        unit("Dwarves/Marksman", "3 Missile"),
    )
    r = r96("dragon", *units, effects=[EffectInForce("Palsy", 4)], terrain=at("Flatland"))
    assert sum(r.totals.values()) == 10 - 4
    r = r96(
        "dragon",
        *units,
        effects=[EffectInForce("Palsy", 4)],
        terrain=at("Flatland"),
        choices={"Palsy split": {"melee": 4}},
    )
    assert r.totals == {"melee": 0, "missile": 3, "save": 3}  # the saves kept whole


def test_r96_32_palsy_arithmetic():
    """R96-32."""
    hits = [unit("Dwarves/Mammoth Rider", "4 Melee")] * 3
    assert r96("melee", *hits, effects=[EffectInForce("Palsy", 1)]).totals["melee"] == 11
    saves = [
        unit("Dwarves/Mammoth Rider", "3 Save"),
        unit("Dwarves/Sergeant", "3 Save"),
        unit("Dwarves/Footman", "1 Save"),
    ]
    assert r96("save", *saves, effects=[EffectInForce("Palsy", 1)]).totals["save"] == 6


def test_faq95_04_order_roll_ignores_cantrips_and_terrain():
    """FAQ95-04."""
    r = r96(
        "maneuver", unit("Dwarves/Sergeant", "2 Maneuver"), unit("Amazons/Oracle", "3 Cantrip"), terrain=None
    )
    assert r.totals["maneuver"] == 2


def test_faq95_11_stoneskin_after_frost_halving():
    """FAQ95-11."""
    saves = [
        unit("Dwarves/Mammoth Rider", "3 Save"),
        unit("Dwarves/Sergeant", "3 Save"),
        unit("Dwarves/Footman", "1 Save"),
    ]
    r = r96("save", *saves, effects=[EffectInForce("Frost", 1), EffectInForce("Stoneskin", 3)])
    assert r.totals["save"] == 6  # floor(7 / 2) + 3, never (7 + 3) / 2


@pytest.mark.parametrize(
    ("rolled", "spells", "total"),
    [
        (7, [("Transmute Rock to Mud", 1)], 2),
        (7, [("Transmute Rock to Mud", 1), ("Wind Walk", 1)], 8),
        (9, [("Transmute Rock to Mud", 1), ("Wall of Fog", 1, "terrain")], 2),
        (9, [("Transmute Rock to Mud", 1), ("Wall of Fog", 1, "terrain"), ("Wind Walk", 1)], 8),
    ],
)
def test_faq95_12_r96_order_on_highland_dwarves(rolled, spells, total):
    """FAQ95-12 under R96's order (subtract, divide, multiply, add; FAQ-CONFLICT-3): (b), (d) give 8."""
    r = r96(
        "maneuver",
        *dwarves_maneuver(rolled),
        terrain=at("Highland"),
        effects=[EffectInForce(*s) for s in spells],
    )
    assert r.totals["maneuver"] == total


def test_faq95_19_and_27_penalties_act_on_the_roll():
    """FAQ95-19 (Ash Storm) and FAQ95-27 (Palsy): 5 - 3 = 2, doubled in highland = 4."""
    for spell, target in (("Ash Storm", "terrain"), ("Palsy", "army")):
        r = r96(
            "maneuver",
            *dwarves_maneuver(5),
            terrain=at("Highland"),
            effects=[EffectInForce(spell, 3, target)],
        )
        assert r.totals["maneuver"] == 4, spell


def test_faq95_22_burning_hands_doubles_one_units_melee():
    """FAQ95-22."""
    r = r96(
        "melee",
        unit("Dwarves/Mammoth Rider", "4 Melee"),
        unit("Dwarves/Footman", "2 Melee"),
        effects=[EffectInForce("Burning Hands", 1, "unit", frozenset({0}))],
    )
    assert r.totals["melee"] == 8 + 2


def test_faq95_23_dancing_lights_halves_missile_and_magic_not_sai():
    """FAQ95-23."""
    missile = [unit("Dwarves/Marksman", "3 Missile")] * 3
    assert r96("missile", *missile, effects=[EffectInForce("Dancing Lights", 1)]).totals["missile"] == 4
    magic = [unit("Dwarves/Wizard", "3 Magic")] * 3
    assert r96("magic", *magic, effects=[EffectInForce("Dancing Lights", 1)]).totals["magic"] == 4
    # FAQ-CONFLICT-2: under R96 (FAQ96 SAI B) spells never touch SAI results: 4 cantrips stay 4
    r = r96("magic", unit("Dwarves/Wizard", "4 Cantrip"), effects=[EffectInForce("Dancing Lights", 1)])
    assert r.totals["magic"] == 4


def test_faq95_24_wall_of_fog_on_missiles():
    """FAQ95-24."""
    shooters = [unit("Dwarves/Marksman", "3 Missile")] * 3 + [unit("Coral Elves/Sharpshooter", "4 Missile")]
    ash = EffectInForce("Ash Storm", 4, "terrain")
    r = r96("missile", *shooters, effects=[ash, EffectInForce("Wall of Fog", 1, "opponent")])
    assert r.totals["missile"] == 4  # 13 - 4 = 9, halved
    r = r96(
        "missile",
        *shooters,
        effects=[
            ash,
            EffectInForce("Wall of Fog", 1, "opponent"),
            EffectInForce("Wall of Fog", 1, "terrain"),
        ],
    )
    assert r.totals["missile"] == 2


def test_faq95_30_mageless_magic_from_ids():
    """FAQ95-30."""
    r = r96("magic", unit("Dwarves/Sergeant", "ID"), unit("Dwarves/Footman", "ID"), terrain=at("Coastland"))
    assert r.totals["magic"] == 3


def test_faq96_01_rend_maneuvers_doubled_by_terrain():
    """FAQ96-01."""
    rend = unit("Goblins/Leopard Rider", "3 Rend")
    assert r96("maneuver", rend, terrain=at("Swampland")).totals["maneuver"] == 6
    assert r96("maneuver", rend, terrain=at("Swampland", controlled=True)).totals["maneuver"] == 12
    with pytest.raises(ValueError):  # no re-roll in the maneuver step
        r96("maneuver", unit("Goblins/Leopard Rider", "3 Rend", "4 Melee"), terrain=at("Swampland"))


def test_faq96_03_spells_never_modify_sais():
    """FAQ96-03."""
    spells = [
        EffectInForce("Dancing Lights", 1),
        EffectInForce("Ash Storm", 3, "terrain"),
        EffectInForce("Palsy", 2),
        EffectInForce("Wall of Fog", 1, "terrain"),
    ]
    r = r96("missile", unit("Dwarves/Crack Shot", "4 Bullseye"), effects=spells)
    assert [(rep.source, rep.amount) for rep in r.reports] == [("Bullseye", 4)]
    r = r96("melee", unit("Dwarves/Mammoth Rider", "3 Trample"), effects=spells[1:3], terrain=at("Flatland"))
    assert r.totals["melee"] == 3
    frosted = r96(
        "melee",
        unit("Dwarves/Mammoth Rider", "3 Trample"),
        unit("Dwarves/Footman", "2 Melee"),
        effects=[EffectInForce("Frost", 1)],
        terrain=at("Flatland"),
    )
    assert frosted.totals["melee"] == 3 + 1  # Frost halves the Footman's 2, never the Trample


def test_faq96_04_defensive_spells_count_against_sai_damage():
    """FAQ96-04."""
    r = r96(
        "save",
        unit("Dwarves/Footman", "2 Melee"),
        against="melee",
        effects=[EffectInForce("Stoneskin", 1), EffectInForce("Wall of Ice", 1)],
    )
    assert r.totals["save"] == 4


def test_faq96_08_cantrip():
    """FAQ96-08."""
    wizard = unit("Dwarves/Wizard", "4 Cantrip")
    assert r96("maneuver", wizard).totals["maneuver"] == 0
    assert r96("magic", wizard, unit("Dwarves/Thaumaturgist", "2 Magic")).totals["magic"] == 6
    r = r96("save", wizard)
    assert r.totals["save"] == 0 and r.other["cantrip"] == 4


def test_faq96_09_counter():
    """FAQ96-09."""
    counter = unit("Dwarves/Skirmisher", "4 Counter")
    r = r96("save", counter, against="melee")
    assert r.totals["save"] == 4 and [(x.kind, x.amount) for x in r.reports] == [("damage_no_save", 4)]
    assert r96("melee", counter).totals["melee"] == 4
    assert r96("melee", counter, charge=True).totals["melee"] == 4
    assert r96("dragon", counter).totals == {"melee": 4, "missile": 0, "save": 4}
    assert r96("save", counter, against="missile").totals["save"] == 0


def test_faq96_11_trample():
    """FAQ96-11."""
    trample = unit("Dwarves/Mammoth Rider", "3 Trample")
    assert r96("melee", trample, terrain=at("Highland")).totals["melee"] == 3  # skirmish: not doubled
    assert r96("dragon", trample).totals["melee"] == 3
    assert r96("maneuver", trample, terrain=at("Flatland")).totals["maneuver"] == 3


def test_faq96_12_smite():
    """FAQ96-12."""
    smite = unit("Treefolk/Oak Lord", "3 Smite")
    assert r96("melee", smite, charge=True).totals["melee"] == 3
    assert r96("dragon", smite).totals["melee"] == 3
    r = r96("melee", smite)
    assert r.totals["melee"] == 0 and r.reports[0].kind == "damage_no_save" and r.reports[0].amount == 3


def test_faq96_13_rend_resisting_a_flood():
    """FAQ96-13."""
    r = r96(
        "maneuver",
        unit("Goblins/Leopard Rider", "3 Rend"),
        *[unit("Goblins/Marauder", "2 Maneuver")] * 2,
        unit("Goblins/Wardog Rider", "1 Maneuver"),
        terrain=at("Coastland"),
    )
    assert r.totals["maneuver"] == 8


def test_r96_09_terrain_advantage_doubles_id_magic_of_a_shared_colour():
    """R96-09."""
    goblin, dwarf = unit("Goblins/Thug", "ID"), unit("Dwarves/Sergeant", "ID")
    r = r96("magic", goblin, dwarf, terrain=at("Flatland"))  # gold (earth) + blue (air)
    assert r.totals["magic"] == 6 and r.magic == {"Earth": 6}  # all gold: each ID's points doubled
    declined = r96("magic", goblin, dwarf, terrain=at("Flatland"), choices={"Terrain advantage": False})
    assert declined.magic == {"Death/Earth": 1, "Earth/Fire": 2}  # black or red: not doubled
    r = r96("magic", goblin, dwarf, terrain=at("Highland"))  # gold + red
    assert r.magic == {"Earth": 2, "Earth/Fire": 4}  # the dwarf doubles red or gold, the goblin only gold
    # normal magic icons never double; units in Reserves never double
    assert r96("magic", unit("Dwarves/Theurgist", "2 Magic"), terrain=at("Highland")).totals["magic"] == 2
    assert r96("magic", goblin, dwarf, in_reserve=True).totals["magic"] == 3


def test_r96_10_and_faq95_10_faq95_31_death_magic_by_burial():
    """R96-10, FAQ95-10, FAQ95-31."""
    two = [unit("Goblins/Cutthroat", "ID"), unit("Goblins/Cutthroat", "ID")]
    r = r96("magic", *two, terrain=at("Coastland"))
    assert r.magic == {"Death/Earth": 4}  # coastland doubles neither colour
    r = r96("magic", *two, terrain=at("Coastland"), choices={"Death magic burial": 4})
    assert r.totals["magic"] == 8 and r.magic.get("Death") == 4
    five = [unit("Goblins/Cutthroat", "ID"), unit("Goblins/Marauder", "ID")]
    assert (
        r96("magic", *five, terrain=at("Coastland"), choices={"Death magic burial": 3}).totals["magic"] == 8
    )
    assert (
        r96("magic", *five, terrain=at("Coastland"), choices={"Death magic burial": 5}).totals["magic"] == 10
    )
    with pytest.raises(ValueError, match="0 to 5"):
        r96("magic", *five, terrain=at("Coastland"), choices={"Death magic burial": 6})
    # FAQ95-31: a Reserve army never doubles
    assert r96("magic", *two, in_reserve=True).totals["magic"] == 4
    with pytest.raises(ValueError, match="Reserves"):
        r96("magic", *two, in_reserve=True, choices={"Death magic burial": 4})


def _splits(amount, parts):
    """Every way to split ``amount`` points between ``parts`` colours."""
    if parts == 1:
        return [(amount,)]
    return [(k, *rest) for k in range(amount + 1) for rest in _splits(amount - k, parts - 1)]


def _allocations(pools):
    """Every distinct colour total the magic pools allow (each group's points split freely)."""
    totals = {()}
    for group, amount in pools.items():
        colours = group.split("/")
        new = set()
        for base in totals:
            for split in _splits(amount, len(colours)):
                merged = dict(base)
                for colour, k in zip(colours, split, strict=True):
                    if k:
                        merged[colour] = merged.get(colour, 0) + k
                new.add(tuple(sorted(merged.items())))
        totals = new
    return totals


def test_r96_07_multi_colour_magic_pooling():
    """R96-07: 1 point from a goblin (gold/black) + 2 from a dwarf (gold/red): exactly 6 colour allocations."""
    r = r96(
        "magic", unit("Goblins/Trickster", "1 Magic"), unit("Dwarves/Theurgist", "2 Magic"), in_reserve=True
    )
    assert r.magic == {"Death/Earth": 1, "Earth/Fire": 2}
    assert len(_allocations(r.magic)) == 6


def test_lava_elves_count_maneuvers_as_saves_in_highland_only():
    """R96 L821-822 (Morehl)."""
    elf = unit("Lava Elves/Duelist", "2 Maneuver")
    assert r96("save", elf, terrain=at("Highland")).totals["save"] == 2
    assert r96("save", elf, terrain=at("Coastland")).totals["save"] == 0
    assert r96("maneuver", elf, terrain=at("Highland")).totals["maneuver"] == 2  # not doubled: not dwarves


def test_bullseye_against_a_dragon_is_missile():
    """R96 L737-739: during a dragon attack Bullseye counts as normal missile damage."""
    assert r96("dragon", unit("Dwarves/Crack Shot", "4 Bullseye")).totals["missile"] == 4
