"""Summon Dragon and Summon White Dragon (V4.01c L2429-2445, L557-576), FAQ95-15, and a scripted game
in which a dragon is summoned by a magic action and attacks."""

from __future__ import annotations

import pytest
from dragon_support import answer, army_units, dragon_uid, new_game, passive, place, small

from companion.rules.core.errors import IllegalSpell
from companion.rules.core.state import POOL
from companion.rules.game.dragon_summoning import can_summon

MAGES = {
    "home": ["Amazons/Oracle", "Amazons/Seer", "Amazons/Seer"],
    "horde": small("Amazons", 5, 1),
    "campaign": small("Amazons", 5, 2),
}


def magic_action(game, spells, faces=("5 Magic", "2 Magic", "2 Magic")):
    """Alice's first march: her home army (Oracle + 2 Seers at Highland City, face 3 = magic) rolls 9
    magic, all of it fire or earth (Amazon Terrain Harmony, V4.01c L790-793), and announces `spells`."""
    answer(game, "march", "p1@home-p1")
    answer(game, "maneuver", "skip")
    answer(game, "action", "magic")
    game.apply({"type": "roll", "faces": list(faces)})
    assert game.pending.topic == "cast"
    return game.apply({"type": "cast", "spells": spells})


def test_summon_dragon_brings_a_dragon_of_the_paid_element_from_a_pool():
    """Summon Dragon paid with fire brings a dragon containing fire (V4.01c L2431-2433)."""
    game = new_game(alice=MAGES)
    red = dragon_uid(game, "Red Drake")
    out = magic_action(game, [{"spell": "Summon Dragon", "target": "home-p2", "element": "Fire"}])
    assert game.state.location[red] == "home-p2"
    assert any("Summon Dragon: Red Drake" in line for line in out["log"])


def test_summon_dragon_finds_nothing_of_another_element():
    """Paid with earth, no earth dragon anywhere: nothing comes."""
    game = new_game(alice=MAGES)
    out = magic_action(game, [{"spell": "Summon Dragon", "target": "home-p2", "element": "Earth"}])
    assert any("no dragon can answer" in line for line in out["log"])
    assert all(
        game.state.location[u.uid] == POOL for u in game.state.units.values() if u.spec.kind == "dragon"
    )


def test_caster_chooses_among_dragons_of_any_pool_or_terrain():
    """'From any Summoning Pool or terrain' (V4.01c L2431-2433): Alice's Red Drake in her pool and
    Bob's Green / Red Drake at the Frontier both contain fire; Alice chooses, and Bob's dragon keeps
    its owner."""
    game = new_game(alice=MAGES, dragons=(("Dragons/Red Drake",), ("Dragons/Green / Red Drake",)))
    (hybrid,) = place(game, "frontier", "Green / Red Drake")
    answer(game, "march", "p1@home-p1")
    answer(game, "maneuver", "skip")
    answer(game, "action", "magic")
    game.apply({"type": "roll", "faces": ["5 Magic", "2 Magic", "2 Magic"]})
    game.apply(
        {"type": "cast", "spells": [{"spell": "Summon Dragon", "target": "home-p2", "element": "Fire"}]}
    )
    d = game.pending
    assert d.topic == "summon_dragon" and d.player == "p1"
    assert {c["value"] for c in d.choices} == {hybrid, dragon_uid(game, "Red Drake")}
    answer(game, "summon_dragon", hybrid)
    assert game.state.location[hybrid] == "home-p2" and game.state.units[hybrid].owner == "p2"


def rules_game():
    return new_game(
        force=30, dragons=(("Dragons/Ivory Drake", "Dragons/Red / Ivory Drake"), ("Dragons/White Drake",))
    )


def test_ivory_dragon_any_element_from_a_pool_never_from_a_terrain():
    """Ivory Dragons answer magic of any one element, from a Summoning Pool only (V4.01c L558-562,
    L2433-2436)."""
    game = rules_game()
    st = game.state
    ivory = st.units[dragon_uid(game, "Ivory Drake")]
    for element in ("Air", "Death", "Earth", "Fire", "Water"):
        assert can_summon(st, ivory, element, False, "home-p2")
    st.location[ivory.uid] = "frontier"
    assert not can_summon(st, ivory, "Fire", False, "home-p2")


def test_ivory_hybrid_from_a_pool_by_any_element_from_a_terrain_only_by_its_own():
    """Ivory Hybrids: any one element from a Summoning Pool (L2433-2436); from a terrain only by
    magic matching their element (L568-569)."""
    game = rules_game()
    st = game.state
    hyb = st.units[dragon_uid(game, "Red / Ivory Drake")]
    assert can_summon(st, hyb, "Water", False, "home-p2")
    st.location[hyb.uid] = "frontier"
    assert not can_summon(st, hyb, "Water", False, "home-p2")
    assert can_summon(st, hyb, "Fire", False, "home-p2")


def test_white_dragon_only_by_summon_white_dragon():
    """Summon Dragon never summons a White Dragon (L576, L1963-1964); Summon White Dragon summons one
    from a pool or a terrain and nothing else (L2441-2445)."""
    game = rules_game()
    st = game.state
    white = st.units[dragon_uid(game, "White Drake")]
    ivory = st.units[dragon_uid(game, "Ivory Drake")]
    for element in ("Air", "Death", "Earth", "Fire", "Water"):
        assert not can_summon(st, white, element, False, "home-p2")
    assert can_summon(st, white, None, True, "home-p2")
    assert not can_summon(st, ivory, None, True, "home-p2")
    st.location[white.uid] = "frontier"
    assert can_summon(st, white, None, True, "home-p2")
    assert not can_summon(st, white, None, True, "frontier")  # already there: nothing to summon


def test_summon_white_dragon_in_play():
    """Summon White Dragon (14) in a magic action brings Bob's White Drake from his pool."""
    game = new_game(
        force=30,
        dragons=(("Dragons/Red Drake", "Dragons/Blue Drake"), ("Dragons/White Drake",)),
        alice={
            "home": ["Amazons/Oracle"] * 3,
            "horde": small("Amazons", 10, 1),
            "campaign": small("Amazons", 11, 2),
        },
    )
    white = dragon_uid(game, "White Drake")
    magic_action(
        game,
        [{"spell": "Summon White Dragon", "target": "frontier", "element": "Fire"}],
        faces=("5 Magic", "5 Magic", "5 Magic"),
    )
    assert game.state.location[white] == "frontier"


class TestFAQ95_15:
    """FAQ95-15 [F] Summon moves a dragon already in play — EARTH 5.B, 5.C."""

    def test_summon_moves_a_dragon_from_one_terrain_to_another(self):
        game = new_game(alice=MAGES)
        (red,) = place(game, "frontier", "Red Drake")
        magic_action(game, [{"spell": "Summon Dragon", "target": "home-p2", "element": "Fire"}])
        assert game.state.location[red] == "home-p2"

    def test_summon_cannot_send_a_dragon_to_a_reserve_area(self):
        game = new_game(alice=MAGES)
        answer(game, "march", "p1@home-p1")
        answer(game, "maneuver", "skip")
        answer(game, "action", "magic")
        game.apply({"type": "roll", "faces": ["5 Magic", "2 Magic", "2 Magic"]})
        with pytest.raises(IllegalSpell):
            game.apply(
                {
                    "type": "cast",
                    "spells": [{"spell": "Summon Dragon", "target": "p1@reserve", "element": "Fire"}],
                }
            )
        assert game.pending.topic == "cast"


def test_scripted_game_dragon_summoned_then_attacks_both_players_armies():
    """A scripted game: Alice summons her Red Drake to Bob's home by a magic action (V4.01c L2429-2436);
    in Bob's turn it attacks his army there (L359-367) and he answers; in Alice's next turn it attacks
    her own horde army there too: dragons attack whoever summoned them (L580-582)."""
    game = new_game(alice=MAGES)
    red = dragon_uid(game, "Red Drake")
    magic_action(game, [{"spell": "Summon Dragon", "target": "home-p2", "element": "Fire"}])
    # Bob's turn: the dragon attacks his home army.
    for _ in range(50):
        d = game.pending
        if d.topic == "dragon_roll":
            break
        game.apply(passive(d))
    assert game.state.marching == "p2" and d.player == "p1"
    answer(game, "dragon_roll", faces=["6 Claw"])
    d = game.pending
    pick = {
        "Amazons/Soldier": "1 Save",
        "Amazons/Runner": "1 Save",
        "Amazons/Darter": "1 Save",
        "Amazons/Charioteer": "1 Save",
        "Amazons/Seer": "1 Save",
    }
    game.apply({"type": "roll", "faces": [pick[x["die"]] for x in d.dice]})
    d = game.pending
    if d.topic == "allocate":
        game.apply({"type": "allocate", "units": d.choices[0]["value"]})
    assert len(army_units(game, "p2", "home-p2")) == 4  # 6 damage - 5 saves
    # Alice's next turn: her own dragon attacks her horde at Swampland Temple.
    for _ in range(200):
        d = game.pending
        if d.topic == "dragon_roll" and game.state.marching == "p1":
            break
        game.apply(passive(d))
    assert d.data["dragon"] == red and d.data["target"] == "army"
    assert any("attacks Alice's army at Swampland Temple" in line for line in game.log)
    answer(game, "dragon_roll", faces=["5 Wing"])
    d = game.pending
    game.apply(passive(d))
    assert game.state.location[red] == POOL  # flew back after the attack


def test_summon_white_dragon_paid_with_a_mix_of_elements():
    """Summon White Dragon takes any combination of magic elements (V4.01c L2441-2443): two Lava Elf
    Necromancers (death/fire, 5 each) and two Coral Elf Enchanters (air/water, 4 each) pay its 14
    together, though no single element reaches 14."""
    game = new_game(
        force=30,
        dragons=(("Dragons/Red Drake", "Dragons/Blue Drake"), ("Dragons/White Drake",)),
        alice={
            "home": ["Lava Elves/Necromancer"] * 2 + ["Coral Elves/Enchanter"] * 2,
            "horde": small("Amazons", 10, 1),
            "campaign": small("Amazons", 8, 2),
        },
    )
    white = dragon_uid(game, "White Drake")
    answer(game, "march", "p1@home-p1")
    answer(game, "maneuver", "skip")
    answer(game, "action", "magic")
    d = game.pending
    game.apply(
        {"type": "roll", "faces": ["5 Magic" if "Necromancer" in x["die"] else "4 Magic" for x in d.dice]}
    )
    with pytest.raises(IllegalSpell):  # fire alone cannot pay 14
        game.apply(
            {
                "type": "cast",
                "spells": [{"spell": "Summon White Dragon", "target": "frontier", "element": "Fire"}],
            }
        )
    game.apply({"type": "cast", "spells": [{"spell": "Summon White Dragon", "target": "frontier"}]})
    assert game.state.location[white] == "frontier"


def test_session_log_replays_a_dragon_game(tmp_path):
    """The session layer rebuilds a game from its event log (companion/session): a summons, a dragon's
    tail and breath, the Dragon Fire roll replay to the same state."""
    from dragon_support import setup

    from companion.session import GameSession

    s = GameSession.create(tmp_path / "d.db", setup(alice=MAGES))

    def step(action):
        s.submit(action)

    def go(policy_until):
        for _ in range(300):
            d = s.game.pending
            if policy_until(d):
                return d
            if d.kind == "roll" and d.data.get("roll") == "terrain":
                step({"type": "roll", "faces": ["3"]})
            else:
                step(passive(d))
        raise AssertionError("not reached")

    go(lambda d: d.topic == "march" and s.game.state.marching == "p1")
    step({"type": "choose", "choice": "p1@home-p1"})
    step({"type": "choose", "choice": "skip"})
    step({"type": "choose", "choice": "magic"})
    step({"type": "roll", "faces": ["5 Magic", "2 Magic", "2 Magic"]})
    step({"type": "cast", "spells": [{"spell": "Summon Dragon", "target": "home-p2", "element": "Fire"}]})
    go(lambda d: d.topic == "dragon_roll")
    step({"type": "roll", "faces": ["3 Tail"]})
    step({"type": "roll", "faces": ["5 Breath"]})  # the roll again: breath on the army after a tail
    go(lambda d: d.topic == "march" and s.game.state.marching == "p2")
    state = s.state_dict()
    assert "p2@home-p2" not in {a["id"] for a in state["armies"]}  # the breath killed all 5 health
    fresh = GameSession.open(tmp_path / "d.db")
    assert fresh.state_dict() == state
    assert any("Breath of" in line for line in s.game.log)
