"""The army's response and the damage: combination roll with free ID split (V4-36), melee or missile
per dragon never combined, dragon against dragon, White Dragon doubling, belly (V4.01c L670-690,
L696-697, L737-769, L571-576)."""

from __future__ import annotations

import pytest
from dragon_support import answer, army_units, new_game, place, to_dragon_phase, zero_faces

from companion.rules.core.state import DUA, POOL, Unit, spec_for
from companion.rules.game.dragons import DragonAttack, kill_plans


def attack(name: str, *faces: str, target: str = "army", uid: str = "d1") -> DragonAttack:
    return DragonAttack(Unit(uid, "p1", spec_for(f"Dragons/{name}")), target, list(faces))


# -- pure: damage per icon and the kill plans -------------------------------------------------------
def test_icon_damage():
    """Claws 6, jaws 12, tail 3 (+ the next result), wing 5, belly 0 (V4.01c L737-769)."""
    assert attack("Red Drake", "6 Claw").damage() == 6
    assert attack("Red Drake", "12 Jaw").damage() == 12
    assert attack("Red Drake", "3 Tail", "5 Wing").damage() == 8
    assert attack("Red Drake", "0 Belly").damage() == 0
    assert attack("Red Drake", "5 Breath").damage() == 0  # against an army breath kills in step 4 instead
    assert attack("Red Drake", "5 Breath", "6 Claw", target="d2").damage() == 11  # breath 5 against a dragon


def test_white_dragon_doubles_claws_jaws_tail_wing_breath_and_treasure():
    """A White Dragon's claws, jaws, tail and wing damage and its treasures are doubled (V4.01c
    L573-575), its breath against a dragon is ten (L696).  Values come from the rule, whatever the
    transcribed face shows (White Drake: '24 Jaw' but '6 Claw')."""
    assert attack("White Drake", "6 Claw").damage() == 12
    assert attack("White Drake", "24 Jaw").damage() == 24
    assert attack("White Wyrm", "6 Tail", "12 Claw").damage() == 18
    assert attack("White Drake", "5 Wing").damage() == 10
    assert attack("White Drake", "5 Breath", "0 Belly", target="d2").damage() == 10
    assert attack("White Wyrm", "2 Treasure").treasures == 2
    assert attack("Red Wyrm", "1 Treasure").treasures == 1


def test_toughness_health_plus_five_saves_unless_belly():
    """Each dragon has 5 health and 5 automatic saves, a White Dragon 10 and 5 (V4.01c L544-545); a
    belly drops the saves for this attack (L737-738)."""
    assert attack("Red Drake", "6 Claw").toughness() == 10
    assert attack("Red Drake", "0 Belly").toughness() == 5
    assert attack("White Drake", "6 Claw").toughness() == 15
    assert attack("White Drake", "0 Belly").toughness() == 10


def test_melee_and_missile_never_combined_on_one_dragon():
    """The damage to slay a dragon comes from melee or from missile, never both (V4.01c L674-675):
    6 melee + 6 missile cannot kill a dragon needing 10."""
    assert kill_plans([attack("Red Drake", "6 Claw")], 6, 6) == [{}]
    assert kill_plans([attack("Red Drake", "6 Claw")], 10, 0) == [{"d1": "melee"}]
    assert kill_plans([attack("Red Drake", "6 Claw")], 0, 10) == [{"d1": "missile"}]


def test_melee_for_one_dragon_missile_for_another():
    """Several dragons: melee may go to one, missile to another (V4.01c L675-677)."""
    a, b = attack("Red Drake", "6 Claw", uid="a"), attack("Blue Drake", "6 Claw", uid="b")
    plans = kill_plans([a, b], 10, 10)
    assert {tuple(sorted(p.items())) for p in plans} == {
        (("a", "melee"), ("b", "missile")),
        (("a", "missile"), ("b", "melee")),
    }
    assert kill_plans([a, b], 20, 0) == [{"a": "melee", "b": "melee"}]
    assert {tuple(p.items()) for p in kill_plans([a, b], 12, 0)} == {(("a", "melee"),), (("b", "melee"),)}


# -- in the flow -------------------------------------------------------------------------------------
class TestV4_36:
    """V4-36 [W] Dragon ID allocation in a dragon attack — V4 L677-681: a 3-health unit's ID may be
    3 melee, 3 missile, 3 saves or split (2 melee + 1 save)."""

    def game_with_war_chief_id(self):
        game = new_game(
            bob={
                "home": ["Amazons/War Chief", "Amazons/Soldier", "Amazons/Soldier"],
                "horde": ["Amazons/Soldier"] * 5,
                "campaign": ["Amazons/Soldier"] * 5,
            }
        )
        place(game, "home-p2", "Red Drake")
        to_dragon_phase(game)
        answer(game, "dragon_roll", faces=["6 Claw"])
        d = game.pending
        faces = zero_faces(d)
        faces[[x["die"] for x in d.dice].index("Amazons/War Chief")] = "3 ID"
        game.apply({"type": "roll", "faces": faces})
        return game

    def test_every_split_is_offered(self):
        game = self.game_with_war_chief_id()
        d = game.pending
        assert d.topic == "dragon_ids" and d.player == "p2"
        values = {c["value"] for c in d.choices}
        assert len(values) == 10  # (m, r, s) with m + r + s = 3
        assert {"3/0/0", "0/3/0", "0/0/3", "2/0/1"} <= values

    def test_two_melee_one_save(self):
        game = self.game_with_war_chief_id()
        answer(game, "dragon_ids", "2/0/1")
        assert "Against the dragons: 2 melee, 0 missile, 1 saves" in game.log
        assert any("6 damage" in line and "1 saves: 5 damage" in line for line in game.log)

    def test_all_missile(self):
        game = self.game_with_war_chief_id()
        answer(game, "dragon_ids", "0/3/0")
        assert "Against the dragons: 0 melee, 3 missile, 0 saves" in game.log


def test_army_kills_two_dragons_one_by_melee_one_by_missile():
    """Two dragons attack the army (same element: no dragon fight); 10 melee and 10 missile kill both,
    one each (V4.01c L675-677); both return to the Summoning Pool (L685-686)."""
    game = new_game(
        force=30,
        dragons=(("Dragons/Red Drake", "Dragons/Red Wyrm"), ("Dragons/Blue Drake", "Dragons/Blue Wyrm")),
        bob={
            "home": [
                "Amazons/Spearer",
                "Amazons/Spearer",
                "Amazons/War Chief",
                "Amazons/War Chief",
                "Amazons/Soldier",
                "Amazons/Soldier",
            ],
            "horde": ["Amazons/Soldier"] * 8,
            "campaign": ["Amazons/Soldier"] * 8,
        },
    )
    drake, wyrm = place(game, "home-p2", "Red Drake", "Red Wyrm")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["0 Belly"])
    answer(game, "dragon_roll", faces=["0 Belly"])  # bellies: 5 needed each
    d = game.pending
    pick = {"Amazons/Spearer": "4 Missile", "Amazons/War Chief": "3 Melee", "Amazons/Soldier": "1 Save"}
    game.apply({"type": "roll", "faces": [pick[x["die"]] for x in d.dice]})  # 6 melee, 8 missile
    d = game.pending
    assert d.topic == "dragon_kills"
    plan = next(c["value"] for c in d.choices if "by melee" in c["label"] and "by missile" in c["label"])
    answer(game, "dragon_kills", plan)
    st = game.state
    assert st.location[drake] == POOL and st.location[wyrm] == POOL


def test_two_dragons_on_one_dragon_add_their_damage():
    """Dragon against dragon: damage of both attackers on the Blue Drake, 6 + 6 = 12, less its 5
    automatic saves = 7 >= 5 health: killed (V4.01c L683-686); a claw alone (1) would not."""
    game = new_game(
        force=30,
        dragons=(("Dragons/Red Drake", "Dragons/Red Wyrm"), ("Dragons/Blue Drake", "Dragons/Blue Wyrm")),
    )
    r1, r2, blue = place(game, "home-p2", "Red Drake", "Red Wyrm", "Blue Drake")
    d = to_dragon_phase(game)
    assert d.topic == "dragon_target" and d.data["dragon"] == blue  # Blue chooses between the reds
    answer(game, "dragon_target", r1)
    answer(game, "dragon_roll", faces=["6 Claw"])
    answer(game, "dragon_roll", faces=["6 Claw"])
    answer(game, "dragon_roll", faces=["6 Claw"])
    st = game.state
    assert st.location[blue] == POOL
    assert st.location[r1] == "home-p2"  # 6 - 5 = 1 < 5
    assert any("takes 12 damage, 5 automatic saves: killed" in line for line in game.log)


def test_belly_drops_the_target_dragons_saves():
    """A dragon that rolled a belly has no automatic saves this attack (V4.01c L737-738): a tail and a
    wing (3 + 5 = 8 >= 5) kill it."""
    game = new_game()
    red, blue = place(game, "home-p2", "Red Drake", "Blue Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["3 Tail"])
    answer(game, "dragon_reroll", faces=["5 Wing"])
    answer(game, "dragon_roll", faces=["0 Belly"])
    st = game.state
    assert st.location[blue] == POOL
    assert st.location[red] == POOL  # the surviving Red rolled a wing: it flies away (step 9)


def test_white_dragon_claw_on_the_army_is_doubled():
    """A White Dragon's claw inflicts 12 on the army (V4.01c L573-574)."""
    game = new_game(
        force=30,
        dragons=(("Dragons/White Drake",), ("Dragons/Blue Drake", "Dragons/Green Drake")),
        bob={
            "home": ["Amazons/Soldier"] * 14,
            "horde": ["Amazons/Soldier"] * 8,
            "campaign": ["Amazons/Soldier"] * 8,
        },
    )
    place(game, "home-p2", "White Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["6 Claw"])
    d = game.pending
    game.apply({"type": "roll", "faces": zero_faces(d)})
    assert any("inflict 12 damage" in line for line in game.log)
    assert len(army_units(game, "p2", "home-p2")) == 2


def test_white_wyrm_treasure_promotes_two_units():
    """A White Dragon's treasure promotes two units instead of one (V4.01c L574-575)."""
    game = new_game(
        force=30,
        dragons=(("Dragons/White Wyrm",), ("Dragons/Blue Drake", "Dragons/Green Drake")),
        bob={
            "home": ["Amazons/Soldier"] * 10,
            "horde": ["Amazons/Warrior"] * 2 + ["Amazons/Soldier"] * 6,
            "campaign": ["Amazons/Soldier"] * 10,
        },
    )
    st = game.state
    warriors = [u.uid for u in st.units.values() if u.name == "Amazons/Warrior"]
    for w in warriors:
        st.location[w] = DUA
    place(game, "home-p2", "White Wyrm")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["2 Treasure"])
    for _ in range(2):
        d = game.pending
        assert d.topic == "dragon_treasure"
        answer(game, "dragon_treasure", next(c["value"] for c in d.choices if c["value"] != "none"))
    assert all(st.location[w] == "home-p2" for w in warriors)
    assert army_units(game, "p2", "home-p2").count("Amazons/Warrior") == 2


def test_white_dragon_breath_on_a_dragon_is_ten_and_rolls_again():
    """A White Dragon's breath on a dragon inflicts ten, then it rolls again (V4.01c L696-697):
    breath 10 + belly 0 against the Red's 5 saves: killed."""
    game = new_game(force=30, dragons=(("Dragons/Red Drake", "Dragons/Red Wyrm"), ("Dragons/White Drake",)))
    red, white = place(game, "home-p2", "Red Drake", "White Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["0 Belly"])  # the Red attacks the White
    answer(game, "dragon_roll", faces=["5 Breath"])  # the White attacks the Red
    answer(game, "dragon_reroll", faces=["0 Belly"])
    st = game.state
    assert st.location[red] == POOL
    assert st.location[white] == "home-p2"


@pytest.mark.parametrize("face,killed", [("0 Belly", True), ("5 Wing", False)])
def test_killing_a_white_dragon_needs_fifteen_or_ten_on_a_belly(face, killed):
    """A White Dragon has 10 health and 5 automatic saves (V4.01c L544-545): 12 melee do not kill it,
    unless it rolled a belly (L737-738)."""
    game = new_game(
        force=30,
        dragons=(("Dragons/White Drake",), ("Dragons/Blue Drake", "Dragons/Green Drake")),
        bob={
            "home": ["Amazons/War Chief"] * 4 + ["Amazons/Soldier"] * 3,
            "horde": ["Amazons/Soldier"] * 8,
            "campaign": ["Amazons/Soldier"] * 7,
        },
    )
    (white,) = place(game, "home-p2", "White Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=[face])
    d = game.pending
    pick = {"Amazons/War Chief": "3 Melee", "Amazons/Soldier": "1 Save"}
    game.apply({"type": "roll", "faces": [pick[x["die"]] for x in d.dice]})  # 12 melee, 3 saves
    assert (game.state.location[white] == POOL) is True  # killed, or flew away with its wing
    assert any("kills" in line and "White Drake" in line for line in game.log) is killed
