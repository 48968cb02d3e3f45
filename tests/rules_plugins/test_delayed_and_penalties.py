"""Attacker SAIs that reach the defender's roll: delayed effects at step 2 (V4.01c L1015-1016)
and save penalties (Howl, Screech, Wave), plus Magic Negation and Scorching Touch in the engine."""

from __future__ import annotations

import pytest

from companion.rules.resolution import EffectInForce, RolledUnit, RollRequest, RollTerrain, resolve
from companion.rules.v4.delayed import apply_delayed
from companion.rules.v4.sai import sai_contribution
from companion.rules.v4.situation import Situation


def units(cat, *dice):
    out = []
    for name, text in dice:
        die = cat[name]
        out.append(RolledUnit(die, (die.find_face(text),)))
    return tuple(out)


def save_total(us, effects=(), terrain="Coastland", **kw):
    req = RollRequest(
        "save", tuple(us), against="melee", terrain=RollTerrain(terrain, face=3), effects=tuple(effects), **kw
    )
    return resolve(req).total("save")


def attacker_effects(sai, x, situation=None):
    return sai_contribution(sai, x, situation or Situation("melee")).effects


def test_choke_kills_up_to_x_health_worth_that_rolled_id_l1326_1331(cat):
    defenders = units(
        cat, ("Dwarves/Footman", "ID"), ("Dwarves/Patroller", "ID"), ("Dwarves/Sergeant", "3 Save")
    )
    assert save_total(defenders) == 1 + 2 + 3
    after, outcome = apply_delayed(defenders, attacker_effects("Choke", 3))
    assert outcome.killed == {0, 1}  # 1 + 2 health-worth = 3
    assert save_total(after) == 3
    after, outcome = apply_delayed(defenders, attacker_effects("Choke", 2))
    assert outcome.killed == {1}  # the most health-worth not above 2
    assert save_total(after) == 1 + 3


def test_decapitate_and_impale_kill_one_id_unit_l1422_1427_l1678_1683(cat):
    defenders = units(cat, ("Dwarves/Footman", "ID"), ("Dwarves/Patroller", "ID"))
    _, outcome = apply_delayed(defenders, attacker_effects("Decapitate", 4))
    assert outcome.killed == {1}
    _, outcome = apply_delayed(defenders, attacker_effects("Impale", 4, Situation("missile")))
    assert len(outcome.killed) == 1


def test_hypnotic_glare_takes_every_id_unit_l1658_1666(cat):
    defenders = units(
        cat, ("Dwarves/Footman", "ID"), ("Dwarves/Patroller", "ID"), ("Dwarves/Sergeant", "3 Save")
    )
    after, outcome = apply_delayed(defenders, attacker_effects("Hypnotic Glare", 1))
    assert outcome.hypnotized == {0, 1} and not outcome.killed
    assert save_total(after) == 3


def test_confuse_picks_up_to_x_health_worth_to_reroll_l1359_1364(cat):
    defenders = units(
        cat, ("Dwarves/Footman", "1 Melee"), ("Dwarves/Patroller", "2 Save"), ("Dwarves/Sergeant", "3 Save")
    )
    _, outcome = apply_delayed(defenders, attacker_effects("Confuse", 2))
    assert outcome.reroll == {2}  # 2 health-worth: of the two 2-health units, the better save face
    assert not outcome.not_counting


def test_earthfang_logo_delayed_kill(cat):
    relic = cat["Items/Earthfang"]
    effects = sai_contribution("Logo", 4, Situation("melee"), relic).effects
    defenders = units(cat, ("Dwarves/Footman", "ID"))
    _, outcome = apply_delayed(defenders, effects)
    assert outcome.killed == {0}


@pytest.mark.parametrize("sai", ["Howl", "Screech", "Wave"])
def test_defender_save_penalty_as_effect_in_force(cat, sai):
    """Howl/Screech/Wave (L1637-1642, L1798-1804, L2041-2043): the defender's save roll loses X
    saves (castings = X), at step 6."""
    defenders = units(cat, ("Dwarves/Sergeant", "3 Save"), ("Dwarves/Footman", "1 Save"))
    assert save_total(defenders, [EffectInForce(sai, 3, "opponent", hostile=True)]) == 1


def test_wave_counter_maneuver_penalty_l2044_2048(cat):
    movers = units(cat, ("Dwarves/Patroller", "2 Maneuver"), ("Dwarves/Patroller", "2 Maneuver"))
    req = RollRequest(
        "maneuver",
        movers,
        terrain=RollTerrain("Coastland", face=3),
        counter_maneuver=True,
        marching=False,
        effects=(EffectInForce("Wave", 3, "opponent", hostile=True),),
    )
    assert resolve(req).total("maneuver") == 1


def test_magic_negation_capped_by_frostwings_in_dua_l886_893(cat):
    mage = next(
        d for d in cat if d.species == "Goblins" and d.is_unit and any(f.icon == "Magic" for f in d.faces)
    )
    f = max((x for x in mage.faces if x.icon == "Magic"), key=lambda x: x.count)
    us = tuple(RolledUnit(mage, (f,)) for _ in range(4))
    base = RollRequest("magic", us, terrain=RollTerrain("Coastland", face=3))
    rolled = resolve(base).total("magic")
    neg = EffectInForce("Magic Negation", 5, "opponent", hostile=True, details={"frostwings_in_dua": 2})
    req = RollRequest("magic", us, terrain=RollTerrain("Coastland", face=3), effects=(neg,))
    assert resolve(req).total("magic") == rolled - 2


def test_scorching_touch_reports_damage_per_save_l933_938(cat):
    scalder = next(
        d for d in cat if d.species == "Scalders" and d.is_unit and any(f.icon == "Save" for f in d.faces)
    )
    f = next(x for x in scalder.faces if x.icon == "Save")
    req = RollRequest(
        "save", (RolledUnit(scalder, (f,)),), against="melee", terrain=RollTerrain("Feyland", face=3)
    )
    r = resolve(req)
    (rep,) = [x for x in r.reports if x.source == "Scorching Touch"]
    assert rep.amount == f.count and rep.kind == "damage_spell_saves_only"
    req = RollRequest(
        "save", (RolledUnit(scalder, (f,)),), against="melee", terrain=RollTerrain("Coastland", face=3)
    )
    assert not [x for x in resolve(req).reports if x.source == "Scorching Touch"]


def test_dracolem_logo_has_no_documented_effect(cat):
    die = next(d for d in cat if d.species == "Dracolem" and any(f.sai == "Logo" for f in d.faces))
    assert sai_contribution("Logo", 4, Situation("save", against="individual"), die).is_empty
    assert sai_contribution("Logo", 4, Situation("melee"), die).is_empty


def test_bash_without_attacker_numbers_asks_for_them(cat):
    basher = next(d for d in cat if d.is_unit and "Bash" in d.sai_names)
    f = next(x for x in basher.faces if x.sai == "Bash")
    req = RollRequest(
        "save", (RolledUnit(basher, (f,)),), against="melee", terrain=RollTerrain("Coastland", face=3)
    )
    r = resolve(req)
    assert r.total("save") == 0 and any(x.kind == "needs_input" for x in r.reports)
    req = RollRequest(
        "save",
        (RolledUnit(basher, (f,)),),
        against="melee",
        terrain=RollTerrain("Coastland", face=3),
        choices={"Bash target melee": 5},
    )
    assert resolve(req).total("save") == 5


def test_cursed_bullets_reported_with_dua_cap_l922_929(cat):
    shooter = cat["Lava Elves/Fusilier"]
    us = tuple(RolledUnit(shooter, (shooter.find_face("2 Missile"),)) for _ in range(3))
    req = RollRequest("missile", us, terrain=RollTerrain("Highland", face=4), dua_counts={"Lava Elves": 2})
    r = resolve(req)
    assert r.total("missile") == 6
    (rep,) = [x for x in r.reports if x.source == "Cursed Bullets"]
    assert rep.amount == 2
    req = RollRequest("missile", us, terrain=RollTerrain("Highland", face=4), dua_counts={"Lava Elves": 9})
    assert [x.amount for x in resolve(req).reports if x.source == "Cursed Bullets"] == [3]
    req = RollRequest("missile", us, terrain=RollTerrain("Highland", face=4))
    assert not [x for x in resolve(req).reports if x.source == "Cursed Bullets"]


def test_foul_stench_reported_with_dua_cap_l907_914(cat):
    goblin = next(
        d for d in cat if d.species == "Goblins" and d.is_unit and any(f.icon == "Melee" for f in d.faces)
    )
    f = next(x for x in goblin.faces if x.icon == "Melee")
    req = RollRequest(
        "melee",
        (RolledUnit(goblin, (f,)),),
        terrain=RollTerrain("Swampland", face=6),
        dua_counts={"Goblins": 5},
    )
    assert [x.amount for x in resolve(req).reports if x.source == "Foul Stench"] == [3]
    req = RollRequest(
        "melee",
        (RolledUnit(goblin, (f,)),),
        terrain=RollTerrain("Swampland", face=6),
        dua_counts={"Goblins": 5},
        counter_attack=True,
    )
    assert not [x for x in resolve(req).reports if x.source == "Foul Stench"]


def test_elemental_relics_rolling_the_same_element_cancel_l2835_2836(cat):
    relic = cat["Items/Elemental Relic"]
    air, earth, logo = (relic.find_face(t) for t in ("4 Element Air", "4 Element Earth", "4 Logo"))
    fighter = cat["Dwarves/Footman"]

    def reports(*faces):
        us = (RolledUnit(fighter, (fighter.find_face("1 Save"),)),) + tuple(
            RolledUnit(relic, (f,)) for f in faces
        )
        r = resolve(RollRequest("save", us, terrain=RollTerrain("Coastland", face=3)))
        return [x.kind for x in r.reports if x.source in ("Elemental Relic", "Logo")]

    assert reports(air) == ["relic_reroll_recruit_promote"]
    assert sorted(reports(air, earth)) == ["relic_reroll_recruit_promote"] * 2
    assert reports(air, air) == ["note", "note"]
    assert reports(air, logo) == ["note", "note"]  # the logo matches every element


def test_sai_results_of_one_roll_do_not_leak_into_the_next(cat):
    """Regression: a roll's SAI results must not show up in a later roll's context."""
    flyer = cat["Coral Elves/Eagle Knight"]
    resolve(
        RollRequest(
            "save",
            (RolledUnit(flyer, (flyer.find_face("3 Fly"),)),),
            terrain=RollTerrain("Coastland", face=3),
        )
    )
    scalder = next(
        d for d in cat if d.species == "Scalders" and d.is_unit and any(f.icon == "Save" for f in d.faces)
    )
    f = next(x for x in scalder.faces if x.icon == "Save")
    r = resolve(
        RollRequest(
            "save", (RolledUnit(scalder, (f,)),), against="melee", terrain=RollTerrain("Feyland", face=3)
        )
    )
    assert [x.amount for x in r.reports if x.source == "Scorching Touch"] == [f.count]
