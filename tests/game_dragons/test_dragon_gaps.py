"""Closing gaps of issue 7 in the dragon rules: breath kills and Open Grave, Dragon Fire (the DUA's
SAI rule, Rise from the Ashes on burial), combined Summon Dragon castings, the dragon phase with no
fallback in the flow, Bash and Sneak Attack in the response, the Eldarim spare hook."""

from __future__ import annotations

import inspect

from dragon_support import answer, army_units, dragon_uid, new_game, passive, place, small, to_dragon_phase
from test_dragon_breath import big_bob, breath_game, breathe

from companion.rules.core.state import BUA, DUA, POOL, RESERVE, UNTIL_YOUR_NEXT_TURN
from companion.rules.game import flow

BOB_HOME = "p2@home-p2"


def test_breath_kills_ignore_open_grave():
    """V4.01c L2240-2245: Open Grave sends to the Reserve Area only units killed *following a save
    roll*; with no save roll possible it does nothing.  A breath kills five health-worth outright
    (L699-700, no save roll), so the dead go to the DUA even with Open Grave on the army."""
    game = breath_game("Ivory Drake", bob=big_bob())
    game.add_effect("Open Grave", "p2", BOB_HOME, UNTIL_YOUR_NEXT_TURN)
    before = {u.uid for u in game.state.army("p2", "home-p2").units}
    breathe(game)
    st = game.state
    dead = [u for u in before if st.location[u] != "home-p2"]
    assert len(dead) == 5
    assert {st.location[u] for u in dead} == {DUA}  # not RESERVE
    assert not any("Open Grave" in line for line in game.log)


def test_dragon_claws_after_the_response_roll_do_follow_a_save_roll():
    """The other side of L2240-2245: claws are damage the army rolled saves against in its
    response (L670-686), so Open Grave keeps those dead out of the DUA."""
    game = breath_game("Ivory Drake", bob=big_bob())
    game.add_effect("Open Grave", "p2", BOB_HOME, UNTIL_YOUR_NEXT_TURN)
    answer(game, "dragon_roll", faces=["6 Claw"])
    d = game.pending
    assert d.data.get("roll") == "dragon"
    game.apply(
        {"type": "roll", "faces": [next(f for f in x["faces"] if f.endswith("Maneuver")) for x in d.dice]}
    )
    while game.pending.topic == "allocate":
        game.apply(passive(game.pending))
    st = game.state
    gone = [u for u in st.units.values() if u.owner == "p2" and u.is_unit and st.location[u.uid] == RESERVE]
    assert len(gone) == 6 and any("Open Grave" in line for line in game.log)


def _phoenix_burned():
    """Alice's Red Drake breathes on Bob's home army (a Phoenix and Guardians); Bob gives the Phoenix
    and a Guardian to the five health-worth killed, and the Phoenix's Rise from the Ashes roll when
    killed fails.  The Dragon Fire roll is pending."""
    bob = {
        "home": [
            "Firewalkers/Phoenix",
            "Firewalkers/Guardian",
            "Firewalkers/Guardian",
            "Firewalkers/Guardian",
        ],
        "horde": ["Firewalkers/Guardian"] * 4,
        "campaign": ["Firewalkers/Guardian"] * 4,
    }
    game = breath_game("Red Drake", bob=bob, force=15)
    breathe(game)
    st = game.state
    phoenix = next(u.uid for u in st.units.values() if u.name == "Firewalkers/Phoenix")
    d = game.pending
    if d.topic == "allocate":  # 5 health-worth: the Phoenix and a Guardian
        game.apply(
            {"type": "allocate", "units": next(c["value"] for c in d.choices if phoenix in c["value"])}
        )
    d = game.pending
    assert d.topic == "sai_roll" and d.dice[0]["uid"] == phoenix and "killed" in d.prompt
    game.apply({"type": "roll", "faces": ["4 Seize"]})  # no Rise from the Ashes when killed (L1774-1776)
    assert st.location[phoenix] == DUA
    d = game.pending
    assert d.topic == "dragon_fire_roll" and len(d.dice) == 2
    return game, phoenix


def test_dragon_fire_in_the_dua_counts_only_save_generating_sais():
    """V4.01c L719-720 with L1215-1216: the units the fire breath killed roll from the DUA, where only
    SAIs that generate saves work.  The Phoenix's Fly gives saves (L1586-1587): it stays in the DUA;
    the Guardian's melee is no save: buried."""
    game, phoenix = _phoenix_burned()
    d = game.pending
    guardian = next(x["uid"] for x in d.dice if x["uid"] != phoenix)
    game.apply({"type": "roll", "faces": ["4 Fly" if x["uid"] == phoenix else "1 Melee" for x in d.dice]})
    assert game.state.location[phoenix] == DUA and game.state.location[guardian] == BUA


def test_dragon_fire_does_not_count_other_sais_in_the_dua():
    """L1215-1216: a Seize (no save results) counts nothing in the DUA: the Phoenix is buried, and its
    Rise from the Ashes burial roll fails (a Save face is no Rise)."""
    game, phoenix = _phoenix_burned()
    d = game.pending
    game.apply({"type": "roll", "faces": ["4 Seize" if x["uid"] == phoenix else "1 Save" for x in d.dice]})
    d = game.pending
    assert d.topic == "sai_roll" and "buried" in d.prompt
    game.apply({"type": "roll", "faces": ["4 Save"]})
    assert game.state.location[phoenix] == BUA


def test_dragon_fire_burial_lets_rise_from_the_ashes_roll():
    """V4.01c L1774-1778: a unit with Rise from the Ashes that is killed or buried rolls; on that SAI it
    goes to the Reserve Area.  Its roll when killed failed; buried by Dragon Fire, it rises."""
    game, phoenix = _phoenix_burned()
    d = game.pending
    game.apply({"type": "roll", "faces": ["4 Seize" if x["uid"] == phoenix else "1 Save" for x in d.dice]})
    d = game.pending
    assert d.topic == "sai_roll" and d.dice[0]["uid"] == phoenix and "buried" in d.prompt
    game.apply({"type": "roll", "faces": ["4 Rise from the Ashes"]})
    assert game.state.location[phoenix] == RESERVE
    assert any("Rise from the Ashes" in line and "buried" in line for line in game.log)


def _summoner(dragons):
    """Alice's home army (three Oracles, three Seers: up to 21 fire magic at Highland City) takes a
    magic action; the cast decision is pending."""
    mages = {
        "home": ["Amazons/Oracle"] * 3 + ["Amazons/Seer"] * 3,
        "horde": small("Amazons", 9, 1),
        "campaign": small("Amazons", 9, 2),
    }
    game = new_game(alice=mages, force=30, dragons=dragons)
    answer(game, "march", "p1@home-p1")
    answer(game, "maneuver", "skip")
    answer(game, "action", "magic")
    d = game.pending
    game.apply(
        {
            "type": "roll",
            "faces": [
                max((f for f in x["faces"] if f.endswith("Magic")), key=lambda f: int(f.split()[0]))
                for x in d.dice
            ],
        }
    )
    assert game.pending.topic == "cast" and game.pending.data["magic"] >= 14
    return game


def test_combined_summon_dragon_brings_one_dragon_per_casting():
    """V4.01c L2143-2149: a highlighted number (Summon Dragon's "one", L2431) is multiplied by the
    combined castings: two combined castings summon two dragons, the caster choosing each (Bob's
    Red Wyrm from his pool keeps its owner)."""
    game = _summoner(
        (("Dragons/Red Drake", "Dragons/Blue Drake"), ("Dragons/Red Wyrm", "Dragons/Blue Drake"))
    )
    red, wyrm = dragon_uid(game, "Red Drake"), dragon_uid(game, "Red Wyrm")
    game.apply(
        {
            "type": "cast",
            "spells": [{"spell": "Summon Dragon", "target": "home-p2", "element": "Fire", "castings": 2}],
        }
    )
    d = game.pending
    assert d.topic == "summon_dragon" and {c["value"] for c in d.choices} == {red, wyrm}
    answer(game, "summon_dragon", wyrm)
    assert game.state.location[wyrm] == "home-p2" and game.state.units[wyrm].owner == "p2"
    # The second casting: only the Red Drake is left to answer, it comes without a question.
    assert game.state.location[red] == "home-p2"
    assert sum("Summon Dragon:" in line and "comes from" in line for line in game.log) == 2


def test_combined_summon_with_too_few_dragons_brings_what_there_is():
    """Two combined castings with one fire dragon in play: one comes, nothing more can answer."""
    game = _summoner(
        (("Dragons/Red Drake", "Dragons/Blue Drake"), ("Dragons/Green Drake", "Dragons/Blue Drake"))
    )
    red = dragon_uid(game, "Red Drake")
    out = game.apply(
        {
            "type": "cast",
            "spells": [{"spell": "Summon Dragon", "target": "home-p2", "element": "Fire", "castings": 2}],
        }
    )
    assert game.state.location[red] == "home-p2"
    assert any("no further dragon can answer" in line for line in out["log"])


def test_the_flow_has_no_dragon_fallback_left():
    """The dragon attack phase is the dragons module's, in each game's phases (V4.01c L364-367): the flow
    keeps no "not handled here" branch for it."""
    src = inspect.getsource(flow.Game._turn) if hasattr(flow.Game, "_turn") else inspect.getsource(flow)
    assert "not handled here" not in src
    from companion.rules.game import dragons
    from companion.rules.game.rulebook import build_extensions

    assert build_extensions({}).phases[flow.PHASE_DRAGON] is dragons.dragon_attack_phase


def test_dragons_in_the_phase_attack_without_a_fallback():
    """A dragon at the marching player's army attacks it in the dragon attack phase (L580-582)."""
    game = new_game()
    place(game, "home-p2", "Red Drake")
    d = to_dragon_phase(game)
    assert d.topic == "dragon_roll"
    assert army_units(game, "p2", "home-p2")
    assert all(
        game.state.location[u.uid] != POOL for u in game.state.units.values() if u.name == "Dragons/Red Drake"
    )


def _eldarim_home():
    from dragon_support import small

    quiet = [
        "Eldarim/Morehl Spellbinder (Air)",
        "Eldarim/Morehl Sprinter (Air)",
        "Eldarim/Morehl Sprinter (Air)",
    ]
    return {
        "home": ["Eldarim/Fire Dragon Zealot"] + quiet,
        "horde": small("Eldarim", 5, 1),
        "campaign": small("Eldarim", 3, 2),
    }


def _respond(game, zealot_face):
    """Bob's response roll: the Zealot shows `zealot_face`, the others faces worth nothing here."""
    d = game.pending
    assert d.data.get("roll") == "dragon", d.prompt
    from dragon_support import zero_faces

    faces = [
        zealot_face if x["die"] == "Eldarim/Fire Dragon Zealot" else z
        for x, z in zip(d.dice, zero_faces(d), strict=True)
    ]
    return game.apply({"type": "roll", "faces": faces})


def test_bash_turns_a_dragons_damage_back_on_it():
    """V4.01c L1266-1269: during a dragon attack, Bash chooses an attacking dragon that inflicted
    damage; it takes that much damage and Bash gives as many saves.  A Red Drake's Jaws (12) come
    back on it: 12 against its 5 health and 5 automatic saves kills it (L544-545), and the army's 12
    saves stop the 12 damage."""
    game = breath_game("Red Drake", bob=_eldarim_home())
    drake = dragon_uid(game, "Red Drake")
    answer(game, "dragon_roll", faces=["12 Jaw"])
    before = len(army_units(game, "p2", "home-p2"))
    _respond(game, "4 Bash")
    while game.pending.topic in ("dragon_promotion", "dragon_promotion_units"):
        game.apply(passive(game.pending))
    assert "Against the dragons: 0 melee, 0 missile, 12 saves" in game.log
    assert any(line.startswith("Bash:") and "killed" in line for line in game.log)
    assert game.state.location[drake] == POOL
    assert len(army_units(game, "p2", "home-p2")) == before  # 12 damage - 12 saves


def test_bash_on_a_dragon_that_did_too_little_damage_leaves_it_alive():
    """Claws (6) turned back: 6 < 5 health + 5 saves, the dragon survives; the army still gets 6 saves."""
    game = breath_game("Red Drake", bob=_eldarim_home())
    drake = dragon_uid(game, "Red Drake")
    answer(game, "dragon_roll", faces=["6 Claw"])
    _respond(game, "4 Bash")
    assert "Against the dragons: 0 melee, 0 missile, 6 saves" in game.log
    assert any(line.startswith("Bash:") and "may finish it" in line for line in game.log)
    assert any("survives the army's response" in line for line in game.log)
    assert game.state.location[drake] == "home-p2"


def test_bash_damage_and_the_armys_melee_land_together_on_a_dragon():
    """V4.01c L1266-1269 with L683-686 (damage is simultaneous): Tail (3) then Claws (6): 9 damage
    turned back by Bash; one more melee from the army makes the 10 the drake needs (5 health + 5
    saves), so it is killed though neither alone would kill it."""
    from dragon_support import zero_faces

    game = breath_game("Red Drake", bob=_eldarim_home())
    drake = dragon_uid(game, "Red Drake")
    answer(game, "dragon_roll", faces=["3 Tail"])
    answer(game, "dragon_reroll", faces=["6 Claw"])
    d = game.pending
    assert d.data.get("roll") == "dragon", d.prompt
    faces, melee_given = [], False
    for x, z in zip(d.dice, zero_faces(d), strict=True):
        if x["die"] == "Eldarim/Fire Dragon Zealot":
            faces.append("4 Bash")
        elif not melee_given and "1 Melee" in x["faces"]:
            faces.append("1 Melee")
            melee_given = True
        else:
            faces.append(z)
    assert melee_given
    game.apply({"type": "roll", "faces": faces})
    assert any("of them from Bash" in line for line in game.log), game.log[-8:]
    assert game.state.location[drake] != "home-p2"


def test_sneak_attack_in_the_dragon_response_is_melee():
    """V4.01c L1900-1901: during a dragon attack Sneak Attack generates X melee results (no damage to
    an army): the Zealot's 4 Sneak Attack with nothing else is 4 melee against the dragon."""
    game = breath_game("Red Drake", bob=_eldarim_home())
    answer(game, "dragon_roll", faces=["6 Claw"])
    out = _respond(game, "4 Sneak Attack")
    assert "Against the dragons: 4 melee, 0 missile, 0 saves" in game.log
    assert not any("no save possible" in line for line in out["log"])


def test_two_bashes_each_choose_their_dragon():
    """Each Bash chooses a dragon that inflicted damage (V4.01c L1266-1269): one turns the Red Drake's
    claws (6) back, too little to kill it (5 health + 5 saves, L544-545); the other the Red Wyrm's
    Jaws (12), which kills it.  Bash gives 6 + 12 = 18 saves."""
    from dragon_support import small

    quiet = ["Eldarim/Morehl Spellbinder (Air)", "Eldarim/Morehl Sprinter (Air)"]
    bob = {
        "home": ["Eldarim/Fire Dragon Zealot", "Eldarim/Earth Dragon Zealot"] + quiet * 2,
        "horde": small("Eldarim", 9, 1),
        "campaign": small("Eldarim", 9, 2),
    }
    game = breath_game("Red Drake", bob=bob, force=30, extra=("Red Wyrm",))
    drake, wyrm = dragon_uid(game, "Red Drake"), dragon_uid(game, "Red Wyrm")
    for _ in range(2):
        d = game.pending
        assert d.topic == "dragon_roll"
        game.apply({"type": "roll", "faces": ["6 Claw" if d.data["dragon"] == drake else "12 Jaw"]})
    from dragon_support import zero_faces

    d = game.pending
    game.apply(
        {
            "type": "roll",
            "faces": [
                "4 Bash" if "Zealot" in x["die"] else z for x, z in zip(d.dice, zero_faces(d), strict=True)
            ],
        }
    )
    picks = []
    while game.pending.topic == "sai_option" and "Bash" in game.pending.prompt:
        want = drake if not picks else wyrm
        picks.append(want)
        game.apply({"type": "choose", "choice": want})
    assert picks == [drake, wyrm]
    while game.pending.topic in ("dragon_promotion", "dragon_promotion_units"):
        game.apply(passive(game.pending))
    assert "Against the dragons: 0 melee, 0 missile, 18 saves" in game.log
    assert game.state.location[wyrm] == POOL and game.state.location[drake] == "home-p2"


def test_eldarim_tamed_dragons_feed_the_spare_hooks():
    """V4.01c L2920-2922: a tamed dragon never attacks its tamer's army.  The Eldarim module's hook is
    in every game's ``extensions.dragon_spare`` (it answers only when the game plays the Eldarim champions);
    tests/game_advanced/test_adv_dragonkin.py plays the whole case."""
    from companion.rules.game.advanced import eldarim
    from companion.rules.game.rulebook import build_extensions

    assert eldarim.spare_hook in build_extensions({}).dragon_spare
