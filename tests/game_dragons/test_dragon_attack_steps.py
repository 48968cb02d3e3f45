"""The dragon attack phase in the flow, step by step (V4.01c L646-694), plus the phase's reach
(L359-367, L580-582) and the order of terrains (L643-645).

Set-up (dragon_support): Bob's home army at Swampland Temple (home-p2) is 5 one-health Amazons
(Soldier, Runner, Darter, Charioteer, Seer).  Dragons are placed at a terrain by hand (a summons made
earlier), then Alice's turn passes and Bob's dragon attack phase begins.
"""

from __future__ import annotations

from dragon_support import (
    answer,
    army_units,
    faces_of,
    new_game,
    passive,
    place,
    to_dragon_phase,
    zero_faces,
)

from companion.rules.core.state import DUA, POOL


def response(game, pick=None):
    """Answer the army's response roll (zero results unless `pick` gives faces)."""
    d = game.pending
    assert d.topic == "roll" and d.data["roll"] == "dragon", d.prompt
    faces = zero_faces(d) if pick is None else faces_of(d, pick)
    return game.apply({"type": "roll", "faces": faces})


def test_dragons_attack_only_where_the_marching_player_has_an_army():
    """Dragon attacks happen only at terrains with an army of the marching player (V4.01c L580-582):
    a dragon at Alice's home (where Bob's horde stands) attacks in Bob's turn, not in Alice's."""
    game = new_game()
    st = game.state
    # Bob's horde at home-p1; nobody at... move Bob's horde away: Bob then has no army at home-p1.
    for u in st.army("p2", "home-p1").units:
        st.location[u.uid] = "reserve"
    (blue,) = place(game, "home-p1", "Blue Drake")
    for _ in range(100):
        if game.state.marching == "p2" and game.state.phase == "first_march":
            break
        assert game.pending.topic not in ("dragon_roll", "dragon_target")
        game.apply(passive(game.pending))
    assert game.state.marching == "p2" and game.state.phase == "first_march"
    assert not any("attacks" in line and "Blue Drake" in line for line in game.log)
    assert game.state.location[blue] == "home-p1"


def test_step1_single_dragon_attacks_the_army_and_owner_rolls():
    """Step 1: with no other dragon, the dragon attacks the marching player's army (L584-587); its
    owner rolls it, whoever marches (L580-582, L642-643)."""
    game = new_game()
    place(game, "home-p2", "Red Drake")
    d = to_dragon_phase(game)
    assert d.topic == "dragon_roll" and d.player == "p1" and d.data["target"] == "army"
    assert any("Red Drake" in line and "attacks Bob's army at Swampland Temple" in line for line in game.log)


def test_step1_dragons_that_attack_each_other_leave_the_army_alone():
    """Step 1 with V4-37's first case: Red and Blue elementals attack each other, not the army; no
    response roll is asked (step 6 skipped, L670)."""
    game = new_game()
    red, blue = place(game, "home-p2", "Red Drake", "Blue Drake")
    d = to_dragon_phase(game)
    assert d.topic == "dragon_roll" and d.data["target"] == blue
    answer(game, "dragon_roll", faces=["6 Claw"])
    d = game.pending
    assert d.topic == "dragon_roll" and d.data["target"] == red
    answer(game, "dragon_roll", faces=["6 Claw"])
    # 6 damage - 5 automatic saves = 1 < 5 health: both survive; no army roll; Bob marches on.
    assert game.state.location[red] == "home-p2" and game.state.location[blue] == "home-p2"
    assert game.pending.topic not in ("roll", "dragon_ids")
    assert len(army_units(game, "p2", "home-p2")) == 5


def test_step2_secret_designation_then_reveal():
    """Step 2: the owner of a dragon with several dragon targets designates one in secret; the choices
    are revealed only once all are made (V4.01c L652-655)."""
    game = new_game(
        force=30,
        dragons=(
            ("Dragons/Red Drake", "Dragons/Green Drake"),
            ("Dragons/Blue Drake", "Dragons/Yellow Drake"),
        ),
    )
    red, green, blue = place(game, "home-p2", "Red Drake", "Green Drake", "Blue Drake")
    d = to_dragon_phase(game)
    # Red may attack Green or Blue: Alice designates in secret.
    assert d.topic == "dragon_target" and d.player == "p1" and d.data["secret"] is True
    assert {c["value"] for c in d.choices} == {green, blue}
    mark = len(game.log)
    answer(game, "dragon_target", blue)
    assert not any("attacks" in line for line in game.log[mark:])  # not revealed yet
    d = game.pending
    assert d.topic == "dragon_target" and d.data["dragon"] == green
    answer(game, "dragon_target", blue)
    d = game.pending
    assert d.topic == "dragon_target" and d.data["dragon"] == blue and d.player == "p2"
    answer(game, "dragon_target", red)
    revealed = [line for line in game.log[mark:] if "attacks" in line]
    assert len(revealed) == 3  # revealed together, once all three designated
    assert game.pending.topic == "dragon_roll"


def test_step3_tail_rolls_again_and_adds():
    """Step 3: a tail inflicts 3 and the dragon rolls again, the new result applied as well
    (V4.01c L758-760): tail + claw = 9 damage on the army."""
    game = new_game()
    place(game, "home-p2", "Red Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["3 Tail"])
    answer(game, "dragon_reroll", faces=["3 Tail"])
    answer(game, "dragon_reroll", faces=["6 Claw"])
    response(game)
    assert any("inflict 12 damage" in line for line in game.log)  # 3 + 3 + 6
    assert army_units(game, "p2", "home-p2") == []


def test_step3_breath_against_a_dragon_rolls_again():
    """Against a dragon a breath inflicts 5 and the dragon rolls again (V4.01c L696-697): breath +
    claw = 11 against 5 automatic saves = 6 >= 5 health: the target dies and returns to the pool."""
    game = new_game()
    red, blue = place(game, "home-p2", "Red Drake", "Blue Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["5 Breath"])
    answer(game, "dragon_reroll", faces=["6 Claw"])
    answer(game, "dragon_roll", faces=["0 Belly"])
    st = game.state
    assert st.location[blue] == POOL and st.units[blue].owner == "p2"
    assert st.location[red] == "home-p2"  # Blue rolled belly: 0 damage


def test_step4_breath_kills_before_the_army_rolls():
    """Step 4: breath against the army kills five health-worth at once (L661-664, L699-700); the
    killed units do not roll in the response (damage is otherwise simultaneous, L683-684)."""
    game = new_game(
        bob={
            "home": ["Amazons/War Chief", "Amazons/Warrior", "Amazons/Soldier", "Amazons/Runner"],
            "horde": ["Amazons/Soldier"] * 5,
            "campaign": ["Amazons/Soldier"] * 3,
        },
        dragons=(("Dragons/Ivory Drake",), ("Dragons/Blue Drake",)),
    )
    place(game, "home-p2", "Ivory Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["5 Breath"])
    d = game.pending  # 5 of 7 health: War Chief + Warrior, or War Chief + Soldier + Runner ...
    assert d.topic == "allocate" and d.player == "p2" and d.data["health_to_kill"] == 5
    game.apply({"type": "allocate", "units": [u for u in d.choices[0]["value"]]})
    d = game.pending
    assert d.topic == "roll" and d.data["roll"] == "dragon"
    assert sum(game.state.units[x["uid"]].health for x in d.dice) == 2


def test_step5_wyrm_treasure_with_a_larger_unit_in_the_dua():
    """Step 5: treasure promotes one unit: Soldier (1) -> Warrior (2) from Bob's DUA (L762-765, L1138-1141)."""
    game = new_game(
        dragons=(("Dragons/Red Wyrm",), ("Dragons/Blue Drake",)),
        bob={
            "home": ["Amazons/Soldier"] * 5,
            "horde": ["Amazons/Warrior", "Amazons/Soldier", "Amazons/Soldier", "Amazons/Soldier"],
            "campaign": ["Amazons/Soldier"] * 5,
        },
    )
    st = game.state
    warrior = next(u.uid for u in st.units.values() if u.name == "Amazons/Warrior")
    st.location[warrior] = DUA  # killed earlier (test shortcut)
    place(game, "home-p2", "Red Wyrm")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["1 Treasure"])
    d = game.pending
    assert d.topic == "dragon_treasure" and d.player == "p2"
    pick = next(c["value"] for c in d.choices if c["value"] != "none")
    answer(game, "dragon_treasure", pick)
    assert st.location[warrior] == "home-p2"
    assert sorted(army_units(game, "p2", "home-p2")) == ["Amazons/Soldier"] * 4 + ["Amazons/Warrior"]


def test_step6_combination_roll_counts_melee_missile_and_saves():
    """Step 6: one combination roll counting melee, missile and saves (V4.01c L670-673, L1076-1080):
    Soldier melee 1, Runner missile 1, Darter missile 2, Charioteer save 1, Seer save 1."""
    game = new_game()
    place(game, "home-p2", "Red Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["6 Claw"])
    d = game.pending
    pick = {
        "Amazons/Soldier": "2 Melee",
        "Amazons/Runner": "1 Missile",
        "Amazons/Darter": "2 Missile",
        "Amazons/Charioteer": "1 Save",
        "Amazons/Seer": "1 Save",
    }
    game.apply({"type": "roll", "faces": [pick[x["die"]] for x in d.dice]})
    assert "Against the dragons: 2 melee, 3 missile, 2 saves" in game.log
    assert any("6 damage" in line and "2 saves: 4 damage" in line for line in game.log)


def test_step7_simultaneous_damage_a_killed_dragon_still_hurts():
    """Step 7: dragons and the army inflict damage at the same time (V4.01c L683-686): the army's 10
    melee kill the Red Drake (5 health + 5 saves), which still inflicts its 6 claw damage; the dead
    dragon returns to its owner's Summoning Pool."""
    game = new_game(
        bob={
            "home": ["Amazons/War Chief", "Amazons/War Chief", "Amazons/Soldier"],
            "horde": ["Amazons/Soldier"] * 5,
            "campaign": ["Amazons/Soldier"] * 3,
        }
    )
    (red,) = place(game, "home-p2", "Red Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["6 Claw"])
    d = game.pending
    pick = {"Amazons/War Chief": "4 Melee", "Amazons/Soldier": "2 Melee"}
    game.apply({"type": "roll", "faces": [pick[x["die"]] for x in d.dice]})
    st = game.state
    assert st.location[red] == POOL
    assert any("kills" in line and "Red Drake" in line and "melee" in line for line in game.log)
    # 6 damage on 3 + 3 + 1 health with 0 saves: 6 health die (both War Chiefs).
    assert any("inflict 6 damage" in line for line in game.log)


def test_step8_promotion_after_killing_a_dragon():
    """Step 8: an army that killed a dragon may promote as many units as possible, all at once, even
    units that did not roll (V4.01c L688-690, L1144-1151)."""
    game = new_game(
        bob={
            "home": ["Amazons/War Chief", "Amazons/War Chief", "Amazons/Soldier"],
            "horde": ["Amazons/Warrior", "Amazons/Soldier", "Amazons/Soldier", "Amazons/Soldier"],
            "campaign": ["Amazons/Soldier"] * 3,
        }
    )
    st = game.state
    warrior = next(u.uid for u in st.units.values() if u.name == "Amazons/Warrior")
    st.location[warrior] = DUA
    place(game, "home-p2", "Red Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["0 Belly"])  # belly: no damage, no automatic saves
    d = game.pending
    pick = {"Amazons/War Chief": "3 Melee", "Amazons/Soldier": "1 Save"}
    game.apply({"type": "roll", "faces": [pick[x["die"]] for x in d.dice]})  # 6 melee >= 5 health
    d = game.pending
    assert d.topic == "dragon_promotion" and d.player == "p2"
    answer(game, "dragon_promotion", "promote")
    assert st.location[warrior] == "home-p2"
    assert sorted(army_units(game, "p2", "home-p2")) == [
        "Amazons/War Chief",
        "Amazons/War Chief",
        "Amazons/Warrior",
    ]


def test_step9_wings_are_resolved_last():
    """Step 9: a surviving dragon that rolled a wing flies back to the Summoning Pool after the rest
    (V4.01c L692, L767-769): its 5 damage is dealt first (step 7), then it leaves."""
    game = new_game()
    (red,) = place(game, "home-p2", "Red Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["5 Wing"])
    mark = len(game.log)
    response(game)
    lines = game.log[mark:]
    hurt = next(i for i, line in enumerate(lines) if "inflict 5 damage" in line)
    flew = next(i for i, line in enumerate(lines) if "flies back" in line)
    assert hurt < flew
    assert game.state.location[red] == POOL
    assert len(army_units(game, "p2", "home-p2")) == 0


def test_wing_dragon_killed_by_the_army_still_promotes():
    """A wing dragon the army kills is killed (step 7) and the army promotes (step 8) before wings
    (step 9) could take it away."""
    game = new_game(
        force=30,
        dragons=(("Dragons/Red Drake", "Dragons/Blue Wyrm"), ("Dragons/Blue Drake", "Dragons/Green Drake")),
        bob={
            "home": ["Amazons/War Chief"] * 3 + ["Amazons/Soldier"] * 2,
            "horde": ["Amazons/Warrior"] + ["Amazons/Soldier"] * 8,
            "campaign": ["Amazons/Soldier"] * 9,
        },
    )
    st = game.state
    warrior = next(u.uid for u in st.units.values() if u.name == "Amazons/Warrior")
    st.location[warrior] = DUA
    (red,) = place(game, "home-p2", "Red Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["5 Wing"])
    d = game.pending
    pick = {"Amazons/War Chief": "4 Melee", "Amazons/Soldier": "1 Save"}
    game.apply({"type": "roll", "faces": [pick[x["die"]] for x in d.dice]})  # 12 melee, 2 saves
    # 5 wing damage - 2 saves = 3: one War Chief dies (the only set of 3 health).
    assert any("5 damage" in line and "2 saves: 3 damage" in line for line in game.log)
    assert sorted(army_units(game, "p2", "home-p2")) == ["Amazons/Soldier"] * 2 + ["Amazons/War Chief"] * 2
    d = game.pending
    assert d.topic == "dragon_promotion"
    assert st.location[red] == POOL
    assert any("killed and returns to the Summoning Pool" in line for line in game.log)
    answer(game, "dragon_promotion", "promote")
    assert st.location[warrior] == "home-p2"
    assert not any("flies back" in line for line in game.log)


def test_marching_player_orders_the_terrains():
    """With dragons at several of the marching player's terrains, that player picks the order
    (V4.01c L643-645)."""
    game = new_game(
        force=30,
        dragons=(("Dragons/Red Drake", "Dragons/Red Wyrm"), ("Dragons/Blue Drake", "Dragons/Blue Wyrm")),
    )
    place(game, "home-p2", "Red Drake")
    place(game, "frontier", "Red Wyrm")
    d = to_dragon_phase(game)
    assert d.topic == "dragon_order" and d.player == "p2"
    assert {c["value"] for c in d.choices} == {"home-p2", "frontier"}
    answer(game, "dragon_order", "frontier")
    d = game.pending
    assert d.topic == "dragon_roll" and d.data["dragon"] == game.state.units[d.dice[0]["uid"]].uid
    assert game.state.location[d.data["dragon"]] == "frontier"


def test_passive_policy_reaches_the_next_phase():
    """After every dragon attack the flow goes on to the species abilities phase and the marches."""
    game = new_game()
    place(game, "home-p2", "Red Drake")
    to_dragon_phase(game)
    for _ in range(20):
        if game.state.phase != "dragon_attack":
            break
        game.apply(passive(game.pending))
    assert game.state.phase in ("species_abilities", "first_march")
    assert game.state.marching == "p2"


def test_every_dragon_decision_topic_is_listed():
    """Programs read ``Decision.topic``; the dragon topics are in ``decisions.TOPICS``."""
    from companion.rules.core.decisions import TOPICS

    game = new_game(
        force=30,
        dragons=(
            ("Dragons/Red Drake", "Dragons/Green Drake"),
            ("Dragons/Blue Drake", "Dragons/Yellow Drake"),
        ),
    )
    place(game, "home-p2", "Red Drake", "Green Drake", "Blue Drake")
    to_dragon_phase(game)
    seen = set()
    while game.state.phase == "dragon_attack":
        seen.add(game.pending.topic)
        game.apply(passive(game.pending))
    assert {"dragon_target", "dragon_roll"} <= seen <= set(TOPICS)


def test_spare_hook_keeps_a_dragon_from_attacking_the_army():
    """A game's ``extensions.dragon_spare``: a dragon spared (e.g. tamed by a unit of the army, V4.01c L2920-2922,
    the advanced components' rule) does not attack the army; the others still do."""
    game = new_game(
        force=30,
        dragons=(("Dragons/Red Drake", "Dragons/Red Wyrm"), ("Dragons/Blue Drake", "Dragons/Blue Wyrm")),
    )
    drake, wyrm = place(game, "home-p2", "Red Drake", "Red Wyrm")

    def spare(g, dragon, marching, terrain):
        return dragon.uid == drake

    game.extensions.dragon_spare.append(spare)  # this game only: no other game sees the hook
    d = to_dragon_phase(game)
    assert d.topic == "dragon_roll" and d.data["dragon"] == wyrm
    assert any("does not attack" in line and "Red Drake" in line for line in game.log)
    answer(game, "dragon_roll", faces=["6 Claw"])
    assert game.pending.topic == "roll" and game.pending.data["roll"] == "dragon"


def killing_game(bob_home, horde, dead):
    """Bob's army kills a Red Drake that rolled a belly (5 melee needed) with 6 melee;
    `dead` die names of Bob's are put in his DUA first."""
    game = new_game(
        bob={
            "home": bob_home,
            "horde": horde,
            "campaign": ["Amazons/Soldier"]
            * (15 - 5 - sum({"Amazons/War Chief": 3, "Amazons/Warrior": 2}.get(n, 1) for n in bob_home)),
        }
    )
    st = game.state
    for name in dead:
        uid = next(
            u.uid
            for u in st.units.values()
            if u.owner == "p2" and u.name == name and st.location[u.uid] == "home-p1"
        )
        st.location[uid] = DUA
    place(game, "home-p2", "Red Drake")
    to_dragon_phase(game)
    answer(game, "dragon_roll", faces=["0 Belly"])
    d = game.pending
    pick = {"Amazons/War Chief": "4 Melee", "Amazons/Soldier": "2 Melee"}  # 6 melee >= 5
    game.apply(
        {"type": "roll", "faces": [pick.get(x["die"]) or zero_faces(d)[i] for i, x in enumerate(d.dice)]}
    )
    return game


def test_promotion_asks_which_units_when_there_is_a_choice():
    """Step 8 with one Warrior in the DUA and two different small units able to take it: the owner
    chooses which is promoted (V4.01c L1144-1147)."""
    game = killing_game(
        ["Amazons/War Chief", "Amazons/Soldier", "Amazons/Runner"],
        ["Amazons/Warrior", "Amazons/Soldier", "Amazons/Soldier", "Amazons/Soldier"],
        ["Amazons/Warrior"],
    )
    answer(game, "dragon_promotion", "promote")
    d = game.pending
    assert d.topic == "dragon_promotion_units"
    labels = sorted(c["label"] for c in d.choices)
    assert labels == ["Amazons/Runner -> Amazons/Warrior", "Amazons/Soldier -> Amazons/Warrior"]
    answer(game, "dragon_promotion_units", next(c["value"] for c in d.choices if "Runner" in c["label"]))
    assert sorted(army_units(game, "p2", "home-p2")) == [
        "Amazons/Soldier",
        "Amazons/War Chief",
        "Amazons/Warrior",
    ]


def test_promotion_may_be_declined():
    """'May promote' (V4.01c L688-690): declining leaves the army as it was."""
    game = killing_game(
        ["Amazons/War Chief", "Amazons/Soldier", "Amazons/Runner"],
        ["Amazons/Warrior", "Amazons/Soldier", "Amazons/Soldier", "Amazons/Soldier"],
        ["Amazons/Warrior"],
    )
    answer(game, "dragon_promotion", "none")
    assert sorted(army_units(game, "p2", "home-p2")) == [
        "Amazons/Runner",
        "Amazons/Soldier",
        "Amazons/War Chief",
    ]


def test_no_promotion_offered_without_a_larger_unit():
    """Promotion needs a unit one health larger in the DUA (V4.01c L1138-1141): none there, no question."""
    game = killing_game(
        ["Amazons/War Chief", "Amazons/Soldier", "Amazons/Runner"],
        ["Amazons/Warrior", "Amazons/Soldier", "Amazons/Soldier", "Amazons/Soldier"],
        [],
    )
    assert game.pending.topic != "dragon_promotion"
    assert any("no unit of" in line and "can be promoted" in line for line in game.log)
