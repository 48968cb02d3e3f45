"""The v4 resolution order (V4.01c L1002-1031) and modifier rules (L1050-1066), driven through a
test edition whose only plug-in injects the modifiers each test names, plus the v4 core rules."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

import pytest
from rules_rolls import at, request, unit

from companion.rules.resolution import (
    ADD,
    ALL,
    DIVIDE,
    MULTIPLY,
    SUBTRACT,
    EffectInForce,
    Modifier,
    Registry,
    Report,
    ResolutionError,
    SaiOutcome,
    get_edition,
    resolve,
)

REG = Registry("test")


@REG.spell("Mod")
def _mod(ctx, effect):
    return effect.details["mods"]


@REG.sai("Trample")
def _trample(ctx):  # a fixed SAI so the engine tests do not depend on the v4 tables
    return SaiOutcome(results={"melee": ctx.x, "maneuver": ctx.x})


@REG.sai("Rend")
def _rend(ctx):
    return SaiOutcome(results={"melee": ctx.x}, reroll=ctx.purpose == "melee")


@REG.species_ability("Amazons", "Probe", citation="test")
def _probe(ctx, units):  # reports what a hook sees after step 5
    for i in sorted(units):
        yield Report("Probe", repr((i, ctx.normal[i], ctx.ids[i], ctx.rolled[i], ctx.sai_results[i])))


TEST = replace(get_edition("v4"), key="test", registry=REG, spell_names=frozenset({"Mod"}))


def mods(*ms: Modifier) -> EffectInForce:
    return EffectInForce("Mod", details=MappingProxyType({"mods": ms}))


def M(stage, result, amount, source="m", **kw):
    return Modifier(stage, result, amount, source, "test", **kw)


def run(purpose, *units, effects=(), **kw):
    return resolve(request(purpose, *units, effects=effects, **kw), TEST)


FOOT_MEL = unit("Dwarves/Footman", "2 Melee")
FOOT_ID = unit("Dwarves/Footman", "ID")
SERGEANT_ID = unit("Dwarves/Sergeant", "ID")
MAMMOTH_TRAMPLE = unit("Dwarves/Mammoth Rider", "3 Trample")
MAMMOTH_MEL = unit("Dwarves/Mammoth Rider", "4 Melee")


def test_ids_give_the_rolled_type_worth_health():
    r = run("save", FOOT_ID, SERGEANT_ID, unit("Dwarves/Mammoth Rider", "3 Save"))
    assert r.totals == {"save": 1 + 2 + 3}
    assert r.steps[0].step == 5 and r.steps[0].after == 6


def test_monster_icons_are_worth_four():
    r = run("melee", unit("Dwarves/Roc", "4 Melee"), unit("Dwarves/Roc", "ID"))
    assert r.totals["melee"] == 8


def test_subtract_never_below_zero_and_removes_ids_last():
    r = run("melee", SERGEANT_ID, FOOT_MEL, effects=[mods(M(SUBTRACT, "melee", 3))])
    assert r.totals["melee"] == 1
    assert r.per_unit[0] == {"melee": 1} and r.per_unit[1] == {}  # the 2 non-ID melee went first
    r = run("melee", FOOT_MEL, effects=[mods(M(SUBTRACT, "melee", 7))])
    assert r.totals["melee"] == 0
    assert [(s.step, s.before, s.after) for s in r.steps if s.rule == "m"] == [(6, 2, 0)]


def test_divide_rounds_down_removing_ids_last():
    r = run(
        "melee",
        SERGEANT_ID,
        FOOT_MEL,
        unit("Dwarves/Footman", "1 Melee"),
        effects=[mods(M(DIVIDE, "melee", 2))],
    )
    assert r.totals["melee"] == 2  # 5 // 2
    assert r.per_unit[0] == {"melee": 2}  # the ID results survive


def test_sai_results_join_after_divide_and_before_multiply():
    # (2 - 1) // 2 = 0, + 3 SAI = 3, x2 = 6, + 1 = 7
    r = run(
        "melee",
        FOOT_MEL,
        MAMMOTH_TRAMPLE,
        effects=[
            mods(M(ADD, "melee", 1), M(MULTIPLY, "melee", 2), M(DIVIDE, "melee", 2), M(SUBTRACT, "melee", 1))
        ],
    )
    assert r.totals["melee"] == 7
    assert [s.step for s in r.steps] == [5, 6, 7, 8, 9, 10]
    assert [(s.before, s.after) for s in r.steps] == [(0, 2), (2, 1), (1, 0), (0, 3), (3, 6), (6, 7)]


def test_one_divider_and_one_multiplier_per_result_type():
    r = run("melee", MAMMOTH_MEL, effects=[mods(M(DIVIDE, "melee", 2, "a"), M(DIVIDE, "melee", 2, "b"))])
    assert r.totals["melee"] == 2  # halved once, not quartered (cf. V4-33: two Water breaths)
    assert any("at most one" in rep.text for rep in r.reports)
    r = run("melee", MAMMOTH_MEL, effects=[mods(M(MULTIPLY, "melee", 2, "a"), M(MULTIPLY, "melee", 3, "b"))])
    assert r.totals["melee"] == 12  # the larger multiplier alone


def test_the_one_multiplier_limit_is_per_unit():
    """Two doublings on two different units both apply; two on one unit do not stack."""
    a = M(MULTIPLY, "melee", 2, "a", units=frozenset({0}))
    b = M(MULTIPLY, "melee", 2, "b", units=frozenset({1}))
    assert run("melee", MAMMOTH_MEL, MAMMOTH_MEL, effects=[mods(a, b)]).totals["melee"] == 16
    c = M(MULTIPLY, "melee", 3, "c")
    r = run("melee", MAMMOTH_MEL, MAMMOTH_MEL, effects=[mods(a, c)])
    assert r.totals["melee"] == 24  # the army's x3 beats unit 0's x2; never x6
    assert any(rep.source == "a" and "at most one" in rep.text for rep in r.reports)


def test_v4_33_breath_effects_stack_by_kind_not_by_count():
    """V4-33 (V4.01c L703-706): Death + Water breath -> IDs ignored and missile halved; two Water
    breaths halve once."""
    shots = (
        unit("Dwarves/Crossbowman", "2 Missile"),
        unit("Dwarves/Marksman", "3 Missile"),
        unit("Dwarves/Marksman", "ID"),
    )
    assert resolve(request("missile", *shots)).totals["missile"] == 7
    both = [EffectInForce("Dragon Plague"), EffectInForce("Poisonous Cloud")]
    assert resolve(request("missile", *shots, effects=both)).totals["missile"] == 2  # (2 + 3) // 2
    twice = [EffectInForce("Poisonous Cloud"), EffectInForce("Poisonous Cloud", 2)]
    assert resolve(request("missile", *shots, effects=twice)).totals["missile"] == 3  # 7 // 2, not 7 // 8
    petrify = resolve(
        request(
            "maneuver",
            unit("Dwarves/Lizard Rider", "3 Maneuver"),
            effects=[EffectInForce("Petrify")],
            terrain=at("Coastland"),
        )
    )
    assert petrify.totals["maneuver"] == 1


def test_counts_as_adds_rolled_results_only_at_step_10():
    ca = M(ADD, "save", 0, "CA", counts_as="maneuver", units=frozenset({0}), scope="any")
    spell_man = M(ADD, "maneuver", 4, "WW")
    r = run(
        "save",
        unit("Coral Elves/Horseman", "1 Maneuver"),
        unit("Coral Elves/Trooper", "2 Save"),
        effects=[mods(ca, spell_man)],
    )
    assert r.totals["save"] == 3  # the spell's maneuvers are never counted as saves (V4.01c L1045-1046)
    assert r.steps[-1].step == 10
    declined = request(
        "save",
        unit("Coral Elves/Horseman", "1 Maneuver"),
        effects=[mods(replace(ca, optional=True))],
        choices={"CA": False},
    )
    assert resolve(declined, TEST).totals["save"] == 0


def test_army_and_unit_modifiers():
    """V4.01c L1050-1066 (cf. R96-28): army modifiers skip individual rolls and vice versa."""
    army = M(ADD, "save", 2, "army bonus")
    own = M(ADD, "save", 5, "unit bonus", scope="unit")
    assert run("save", FOOT_ID, effects=[mods(army, own)]).totals["save"] == 3
    assert run("save", FOOT_ID, effects=[mods(army, own)], individual=True).totals["save"] == 6


def test_unit_restricted_multiplier():
    r = run("melee", FOOT_MEL, MAMMOTH_MEL, effects=[mods(M(MULTIPLY, "melee", 2, units=frozenset({1})))])
    assert r.totals["melee"] == 2 + 8


def test_combination_penalty_is_split_not_repeated():
    """V4.01c L1080-1082: a modifier on several types is applied once, all of it, as the owner wishes."""
    u = (unit("Dwarves/Mammoth Rider", "4 Melee"), unit("Dwarves/Mammoth Rider", "3 Save"))
    r = run("dragon", *u, effects=[mods(M(SUBTRACT, ALL, 3, "P"))])
    assert r.totals["melee"] + r.totals["save"] == 7 - 3 and r.totals["missile"] == 0
    assert r.totals["save"] == 3  # by default the penalty falls on attacking results first
    r = run(
        "dragon", *u, effects=[mods(M(SUBTRACT, ALL, 3, "P"))], choices={"P split": {"save": 2, "melee": 1}}
    )
    assert r.totals == {"melee": 3, "missile": 0, "save": 1}
    with pytest.raises(ResolutionError, match="all 3"):
        run("dragon", *u, effects=[mods(M(SUBTRACT, ALL, 3, "P"))], choices={"P split": {"save": 1}})


def test_v4_36_dragon_id_split():
    """V4-36 (V4.01c L677-681): a 3-health unit's ID in a dragon-attack roll may be split freely."""
    r = run("dragon", unit("Dwarves/Mammoth Rider", "ID"), choices={"id_as": {0: {"melee": 2, "save": 1}}})
    assert r.totals == {"melee": 2, "missile": 0, "save": 1}
    assert (
        run("dragon", unit("Dwarves/Mammoth Rider", "ID"), choices={"id_as": "missile"}).totals["missile"]
        == 3
    )


def test_reroll_lists_follow_the_sai():
    r = run("melee", unit("Goblins/Leopard Rider", "3 Rend", "3 Rend", "4 Melee"))
    assert r.totals["melee"] == 10
    with pytest.raises(ResolutionError) as err:
        run("maneuver", unit("Goblins/Leopard Rider", "3 Rend", "3 Missile"))
    assert err.value.key == "roll.faces[0][1]"
    pending = run("melee", unit("Goblins/Leopard Rider", "3 Rend"))
    assert [rep.kind for rep in pending.reports] == ["reroll_pending"]


def test_units_whose_results_do_not_count():
    r = run("save", FOOT_ID, unit("Dwarves/Sergeant", "ID", counts=False))
    assert r.totals["save"] == 1


def test_unknown_spell_and_purpose_are_refused():
    with pytest.raises(ResolutionError) as err:
        resolve(request("save", FOOT_ID, effects=[("Stone Wall", 1)]))
    assert err.value.key == "effects[0].spell"
    with pytest.raises(ResolutionError, match="purpose"):
        resolve(request("dance", FOOT_ID))


# --------------------------------------------------------------------------- v4 core rules


def test_eighth_face_doubles_ids_in_any_roll():
    """V4.01c L501: the controlling army doubles all ID results, for any roll (not other icons)."""
    for purpose in ("maneuver", "melee", "missile", "magic", "save"):
        # Coastland: no dwarf ability applies there
        r = resolve(request(purpose, SERGEANT_ID, FOOT_MEL, terrain=at("Coastland", controlled=True)))
        expect = 4 + (2 if purpose == "melee" else 0)
        assert r.totals[purpose] == expect, purpose
    assert (
        resolve(request("save", SERGEANT_ID, terrain=at("Coastland", 8))).totals["save"] == 2
    )  # not controlled


def test_v4_20_magic_keeps_elements():
    """V4-20 (V4.01c L450-453): a Scalder's 4 magic may be any split of fire and water."""
    scalder = next(d.name for d in unit.__globals__["CAT"].of_species("Scalders") if d.size == "Medium")
    r = resolve(request("magic", unit(scalder, "ID"), unit(scalder, "ID"), terrain=at("Flatland")))
    assert r.magic == {"Fire/Water": 4} and r.totals["magic"] == 4
    allocations = [(f, r.magic["Fire/Water"] - f) for f in range(r.magic["Fire/Water"] + 1)]
    assert len(allocations) == 5


def test_magic_of_several_species_and_standing_stones():
    r = resolve(
        request(
            "magic",
            unit("Dwarves/Theurgist", "2 Magic"),
            unit("Goblins/Trickster", "ID"),
            terrain=at("Coastland"),
        )
    )
    assert r.magic == {"Earth/Fire": 2, "Death/Earth": 1}
    r = resolve(
        request(
            "magic",
            unit("Dwarves/Theurgist", "2 Magic"),
            terrain=at("Coastland", controlled=True, eighth="Standing Stones"),
        )
    )
    assert r.magic == {"Air/Earth/Fire/Water": 2}


def test_dragonkin_automatic_saves_at_step_10_unless_belly():
    """V4.01c L2537-2541 and Belly L1270: automatic saves equal to health, added at step 10."""
    mount = "Dragonkin/Dragonmount (Death)"
    r = resolve(request("save", unit(mount, "2 Melee")))
    assert r.totals["save"] == 2 and r.steps[-1].step == 10
    assert resolve(request("save", unit(mount, "2 Belly"))).totals["save"] == 0
    assert resolve(request("melee", unit(mount, "2 Melee"))).totals["melee"] == 2


def test_tower_shot_at_a_reserve_army_counts_no_ids():
    """V4.01c L532-534: only non-ID missile results count against a Reserve army."""
    shots = (unit("Dwarves/Marksman", "ID"), unit("Dwarves/Crossbowman", "2 Missile"))
    tower = at("Coastland", controlled=True, eighth="Tower")
    assert resolve(request("missile", *shots, terrain=tower)).totals["missile"] == 4 + 2
    r = resolve(request("missile", *shots, terrain=tower, choices={"Tower shot at Reserves": True}))
    assert r.totals["missile"] == 2


def test_memo_returns_the_same_answer_and_never_mixes_dice():
    from companion.rules.catalogue import Die

    req = request("melee", MAMMOTH_MEL, FOOT_MEL)
    first = resolve(req)
    assert resolve(req) is first  # an identical request is answered from the memo
    assert resolve(req, memo=False).totals == first.totals
    # a different die showing equal faces is never confused with the first
    twin = Die(
        **{f: getattr(MAMMOTH_MEL.die, f) for f in Die.__dataclass_fields__}
        | {"name": "Test/Twin", "health": 9}
    )
    swapped = replace(req, units=(replace(MAMMOTH_MEL, die=twin), FOOT_MEL))
    assert resolve(swapped) is not first
    # requests holding unhashable choices are simply resolved afresh
    r = resolve(request("dragon", unit("Dwarves/Mammoth Rider", "ID"), choices={"id_as": {0: {"melee": 3}}}))
    assert r.totals["melee"] == 3


def test_hooks_see_each_units_counted_results():
    r = run(
        "melee",
        unit("Amazons/Soldier", "ID"),
        FOOT_MEL,
        unit("Amazons/Centaur", "4 Melee"),
        terrain=at("Coastland"),
    )
    seen = [eval(rep.text) for rep in r.reports if rep.source == "Probe"]  # noqa: S307 (our own repr)
    assert seen == [(0, {}, {"melee": 1}, {"melee": 1}, {}), (2, {"melee": 4}, {}, {"melee": 4}, {})]


def test_a_face_the_die_does_not_have_is_refused():
    roc_face = unit("Dwarves/Roc", "4 Melee").faces[0]
    with pytest.raises(ResolutionError) as err:
        resolve(request("melee", FOOT_MEL, replace(FOOT_MEL, faces=(roc_face,))))
    assert err.value.key == "roll.faces[1][0]" and "Dwarves/Footman" in str(err.value)


def test_a_penalty_falls_first_on_units_no_multiplier_will_raise():
    """The owner places a penalty; by default where it costs least: not on the unit doubled later."""
    double_first = M(MULTIPLY, "melee", 2, "x2", units=frozenset({0}))
    r = run("melee", MAMMOTH_MEL, FOOT_MEL, effects=[mods(double_first, M(SUBTRACT, "melee", 2))])
    assert r.totals["melee"] == 4 * 2  # the Footman's 2 go, the Mammoth Rider's 4 are doubled
