"""The "Dragon Attack" entry of SAIs in the army's response roll (V4.01c L670-681: melee, missile and
saves count, every SAI that generates them or acts during a dragon attack applies), one case per SAI
whose dragon-attack effect had no in-play test: the SAI's line and the totals it gives."""

from __future__ import annotations

import pytest
from sai_arena import arena, roll

# (SAI, rulebook lines of its dragon-attack effect, dice, faces, expected melee, missile, saves)
CASES = [
    ("Bullseye", "1293-1294", ["Amazons/Spearer"], ["4 Bullseye"], (0, 4, 0)),
    ("Coil", "1354-1355", ["Swamp Stalkers/Ormyrr"], ["4 Coil"], (4, 0, 0)),
    ("Double Strike", "1464-1465", ["Amazons/Hydra"], ["4 Double Strike"], (4, 0, 0)),
    ("Flaming Arrow", "1559-1560", ["Scalders/Blazer"], ["4 Flaming Arrow"], (0, 4, 0)),
    ("Gore", "1624-1625", ["Feral/Rhino-folk"], ["4 Gore"], (4, 0, 0)),
    ("Hoof", "1634-1635", ["Treefolk/Satyr"], ["4 Hoof"], (0, 0, 4)),
    ("Kick", "1695-1696", ["Amazons/Centaur"], ["4 Kick"], (4, 0, 4)),
    ("Stomp", "1935-1936", ["Dwarves/Behemoth"], ["4 Stomp"], (4, 0, 0)),
    ("Stone", "1944-1945", ["Amazons/Medusa"], ["4 Stone"], (0, 4, 0)),
    ("Volley", "2036-2037", ["Frostwings/Assailer"], ["4 Volley"], (0, 4, 4)),
    ("Cloak", "1337-1338", ["Lava Elves/Lurker in the Deep"], ["4 Cloak"], (0, 0, 4)),
]


@pytest.mark.parametrize(("sai", "lines", "dice", "faces", "want"), CASES, ids=[c[0] for c in CASES])
def test_sai_in_the_response_to_a_dragon(sai, lines, dice, faces, want):
    game, mine, _ = arena(dice, ["Amazons/Soldier"])
    d = roll(game, "p1", "dragon", faces={u: [f] for u, f in zip(mine, faces, strict=True)}, against="dragon")
    t = d.result.totals
    assert (t.get("melee", 0), t.get("missile", 0), t.get("save", 0)) == want, f"{sai} (V4.01c L{lines}): {t}"


def test_rend_in_the_response_rolls_again_and_adds_the_new_result():
    """V4.01c L1761-1763: during a dragon attack Rend generates X melee and the unit rolls again,
    applying the new result as well: 4 Rend then 4 Melee is 8 melee."""
    game, (chimera,), _ = arena(["Amazons/Chimera"], ["Amazons/Soldier"])
    d = roll(game, "p1", "dragon", faces={chimera: ["4 Rend", "4 Melee"]}, against="dragon")
    assert d.result.totals.get("melee", 0) == 8
    assert any(x.data.get("reroll") for x in d.decisions if x.kind == "roll")


def test_trumpet_in_the_response_doubles_feral_melee_and_saves():
    """Trumpet (V4.01c L2015-2017): every Feral unit in the army doubles its melee and save results,
    in a dragon attack too: a Lynx-folk's melee counts twice."""
    game, (elephant, lynx), _ = arena(["Feral/Elephant-folk", "Feral/Lynx-folk"], ["Amazons/Soldier"])
    from companion.rules.core.state import spec_for

    melee = max(
        (f for f in spec_for("Feral/Lynx-folk").faces if f.endswith(" Melee")),
        key=lambda f: int(f.split()[0]),
    )
    n = int(melee.split()[0])
    d = roll(game, "p1", "dragon", faces={elephant: ["4 Trumpet"], lynx: [melee]}, against="dragon")
    assert d.result.totals.get("melee", 0) == 2 * n


def test_flurry_against_a_dragon_melee_rolls_the_item_again():
    """V4.01c L1571-1574: during a dragon attack Flurry generates X saves, or X melee and the item
    rolls again applying the new result: the roller takes melee, the Blade Golem rolls again (4 Melee):
    8 melee, no saves."""
    game, (golem, soldier), _ = arena(["Items/Fire Blade Golem", "Amazons/Soldier"], ["Amazons/Soldier"])
    d = roll(
        game,
        "p1",
        "dragon",
        faces={golem: ["4 Flurry", "4 Melee"], soldier: ["1 Maneuver"]},
        answers=[("Flurry", "Melee")],
        against="dragon",
    )
    t = d.result.totals
    assert (t.get("melee", 0), t.get("save", 0)) == (8, 0)


def test_flurry_against_a_dragon_may_give_saves():
    """The other option (L1571-1572): X saves, no roll again."""
    game, (golem, soldier), _ = arena(["Items/Fire Blade Golem", "Amazons/Soldier"], ["Amazons/Soldier"])
    d = roll(
        game,
        "p1",
        "dragon",
        faces={golem: ["4 Flurry"], soldier: ["1 Maneuver"]},
        answers=[("Flurry", "Save")],
        against="dragon",
    )
    t = d.result.totals
    assert (t.get("melee", 0), t.get("save", 0)) == (0, 4)
    assert not any(x.data.get("reroll") for x in d.decisions if x.kind == "roll")


def test_sortie_against_a_dragon_gives_saves_and_melee():
    """V4.01c L1910-1911: during a dragon attack Sortie generates X saves and X melee."""
    game, (mantlet, soldier), _ = arena(["Items/Fire Mantlet", "Amazons/Soldier"], ["Amazons/Soldier"])
    d = roll(game, "p1", "dragon", faces={mantlet: ["4 Sortie"], soldier: ["1 Maneuver"]}, against="dragon")
    t = d.result.totals
    assert (t.get("melee", 0), t.get("save", 0)) == (4, 4)
