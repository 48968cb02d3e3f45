"""Property tests (hypothesis) over the V4 plug-ins in the engine: random armies, faces, spells
and terrains never give negative totals, never crash, and one more unit showing a result never
lowers that result."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.rules.catalogue import load_catalogue
from companion.rules.resolution import EffectInForce, RolledUnit, RollRequest, RollTerrain, resolve
from companion.rules.v4.sai import sai_contribution
from companion.rules.v4.situation import Situation
from companion.rules.v4.spells import ROLL_SPELLS

CAT = load_catalogue()
DICE = [d for d in CAT if (d.is_unit or d.is_item)]
SPELLS = sorted(s.name for s in ROLL_SPELLS.values())
TERRAINS = ["Coastland", "Flatland", "Highland", "Swampland", "Feyland", "Wasteland"]
ROLLS = [
    ("maneuver", None),
    ("melee", None),
    ("missile", None),
    ("magic", None),
    ("save", None),
    ("save", "melee"),
    ("save", "missile"),
    ("save", "dragon"),
    ("dragon", None),
]


def _situation(purpose, against):
    if purpose == "dragon":
        return Situation("save", against="dragon")
    return Situation(purpose, against=against)


@st.composite
def requests(draw):
    purpose, against = draw(st.sampled_from(ROLLS))
    situation = _situation(purpose, against)
    n = draw(st.integers(1, 6))
    units = []
    for _ in range(n):
        die = draw(st.sampled_from(DICE))
        faces = [draw(st.sampled_from(die.faces))]
        # follow re-roll chains the rules allow, at most three deep
        while (
            len(faces) < 3
            and faces[-1].is_sai
            and sai_contribution(faces[-1].sai, faces[-1].count, situation, die).rerolls
        ):
            if not draw(st.booleans()):
                break
            faces.append(draw(st.sampled_from(die.faces)))
        units.append(RolledUnit(die, tuple(faces)))
    effects = tuple(
        EffectInForce(name, draw(st.integers(1, 3)), draw(st.sampled_from(["army", "terrain"])))
        for name in draw(st.lists(st.sampled_from(SPELLS), max_size=3, unique=True))
    )
    terrain = RollTerrain(
        draw(st.sampled_from(TERRAINS)), face=draw(st.integers(1, 8)), controlled=draw(st.booleans())
    )
    return RollRequest(
        purpose,
        tuple(units),
        against=against,
        terrain=terrain,
        effects=effects,
        counter_attack=purpose == "melee" and draw(st.booleans()),
        dua_counts={"Undead": draw(st.integers(0, 4))},
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_totals_never_negative_and_never_crash(request):
    r = resolve(request)
    assert all(v >= 0 for v in r.totals.values())
    assert all(v >= 0 for v in r.other.values())
    assert all(v >= 0 for v in r.magic.values())
    for step in r.steps:
        assert step.citation


_EXTRA = {
    "maneuver": ("Dwarves/Patroller", "2 Maneuver"),
    "melee": ("Dwarves/Footman", "2 Melee"),
    "missile": ("Coral Elves/Guard", "2 Missile"),
    "magic": ("Amazons/Seer", "2 Magic"),
    "save": ("Dwarves/Footman", "1 Save"),
    "dragon": ("Dwarves/Footman", "1 Save"),
}


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_one_more_unit_showing_a_result_never_lowers_it(request):
    before = resolve(request)
    name, text = _EXTRA[request.purpose]
    die = CAT[name]
    bigger = RollRequest(
        request.purpose,
        request.units + (RolledUnit(die, (die.find_face(text),)),),
        against=request.against,
        terrain=request.terrain,
        effects=request.effects,
        counter_attack=request.counter_attack,
        dua_counts=request.dua_counts,
    )
    after = resolve(bigger)
    for t, v in before.totals.items():
        assert after.totals[t] >= v, (t, v, after.totals[t])


@pytest.mark.parametrize("purpose,against", ROLLS)
def test_every_sai_face_in_every_roll_type_resolves(purpose, against):
    for die in DICE:
        for face in die.faces:
            if face.is_sai:
                r = resolve(
                    RollRequest(
                        purpose,
                        (RolledUnit(die, (face,)),),
                        against=against,
                        terrain=RollTerrain("Coastland", face=3),
                    )
                )
                assert all(v >= 0 for v in r.totals.values())


@pytest.mark.parametrize("purpose,against", ROLLS)
def test_engine_totals_match_the_sai_table(purpose, against):
    """Every SAI face of every die, alone at no terrain (no species ability, no eighth face): the
    engine's totals are exactly what the SAI table says it generates (step 8) plus the saves Cloak
    adds (step 10).  Ties the table (V4.01c L1178-2080) to what players see."""
    from companion.rules.v4.contributions import Op

    situation = _situation(purpose, against)
    counted = {"dragon": ("save", "melee", "missile")}.get(purpose, (purpose,))
    for die in DICE:
        if die.species == "Dragonkin":
            continue  # automatic saves join their rolls (L2537-2541)
        for face in die.faces:
            if not face.is_sai:
                continue
            sit = (
                Situation(situation.roll_for, against=situation.against, at_terrain=False)
                if purpose != "dragon"
                else Situation(
                    "save", against="dragon", at_terrain=False, counted_override=("save", "melee", "missile")
                )
            )
            c = sai_contribution(face.sai, face.count, sit, die)
            expected = {t: c.results.get(t, 0) for t in counted}
            for m in c.modifiers:
                if m.stage is Op.ADD and m.result in expected:
                    expected[m.result] += m.amount
            if c.id_results:
                expected[counted[0]] += c.id_results
            r = resolve(RollRequest(purpose, (RolledUnit(die, (face,)),), against=against))
            assert {t: r.total(t) for t in counted} == expected, (die.name, face.text(), purpose, against)
