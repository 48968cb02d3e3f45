"""Effects in force and their expiries; spells cast through the effects hook; FAQ95-04, FAQ95-30."""

from __future__ import annotations

from game_support import choose, faces_for, passive_policy, plain_setup, run_until, setup_done

from companion.rules.core.state import UNTIL_ITS_NEXT_TURN, UNTIL_TERRAIN_MANEUVERED, UNTIL_YOUR_NEXT_TURN
from companion.rules.game import Game


def started(faces=None, setup=None) -> Game:
    game = Game(setup or plain_setup())
    setup_done(game, faces)
    return game


def test_its_next_turn_expires_at_the_affected_armys_owner_turn():
    """Dragon breath effects last "until the beginning of its next turn" (V4.01c L709-724)."""
    game = started()
    st = game.state
    breath = game.add_effect("Lightning Bolt breath", "p1", "p2@frontier", UNTIL_ITS_NEXT_TURN)
    caster_turn = game.add_effect("Stone Skin", "p1", "p1@frontier", UNTIL_YOUR_NEXT_TURN)
    run_until(game, lambda d: d.player == "p2" and d.topic == "march")
    assert breath not in st.effects and caster_turn in st.effects
    run_until(game, lambda d: d.player == "p1" and d.topic == "march")
    assert caster_turn not in st.effects


def test_terrain_effect_ends_when_the_terrain_is_maneuvered():
    game = started({"frontier": 4})
    st = game.state
    lasting = game.add_effect("Relic glow", "p2", "frontier", UNTIL_TERRAIN_MANEUVERED)
    choose(game, "p1@frontier")
    choose(game, "maneuver")
    choose(game, "no")
    assert lasting in st.effects
    choose(game, "up")
    assert lasting not in st.effects


def test_army_effect_ends_when_the_army_is_gone():
    game = started({"frontier": 4})
    st = game.state
    effect = game.add_effect("Stone Skin", "p1", "p1@frontier")
    d = run_until(game, lambda d: d.kind == "retreat" and d.player == "p1")
    game.apply({"type": "retreat", "units": [u.uid for u in st.army("p1", "frontier").units]})
    assert effect not in st.effects
    assert d.topic == "retreat"


def magic_setup() -> dict:
    setup = plain_setup()
    setup["players"][0]["armies"]["campaign"] = ["Dwarves/Theurgist"] * 5
    return setup


def test_announced_spells_are_cast_one_at_a_time_through_the_effects_hook(monkeypatch):
    cast_log = []

    def stone_skin(game, cast):
        cast_log.append(cast["target"])
        game.add_effect(cast["spell"], cast["caster"], cast["target"])

    game = started({"frontier": 1}, magic_setup())
    game.extensions.spell_effects["Stone Skin"] = stone_skin  # this game's effect of the spell
    choose(game, "p1@frontier")
    choose(game, "skip")
    choose(game, "magic")
    game.apply({"type": "roll", "faces": ["2 Magic"] * 5})
    game.apply(
        {
            "type": "cast",
            "spells": [
                {"spell": "Stone Skin", "target": "p1@frontier"},
                {"spell": "Stone Skin", "target": "p1@home-p1"},
            ],
        }
    )
    assert cast_log == ["p1@frontier", "p1@home-p1"]
    assert [(e.name, e.target, e.expiry) for e in game.state.effects] == [
        ("Stone Skin", "p1@frontier", UNTIL_YOUR_NEXT_TURN),
        ("Stone Skin", "p1@home-p1", UNTIL_YOUR_NEXT_TURN),
    ]
    # FAQ95-30: no counter-attack follows a magic action; the second march comes next.
    assert game.pending.topic == "march" and game.state.march == 2


def test_faq95_30_ids_generate_magic_for_an_army_without_mages():
    """FAQ95-30: IDs (health 2 + 1) in a magic action -> 3 magic, accounted to their dice."""
    setup = plain_setup()
    setup["players"][0]["armies"]["campaign"] = ["Dwarves/Sergeant", "Dwarves/Footman", "Dwarves/Footman"]
    setup["players"][0]["armies"]["home"] = ["Dwarves/Footman"] * 6
    setup["players"][0]["armies"]["horde"] = ["Dwarves/Footman"] * 5
    setup["force_size"] = 15
    game = started({"frontier": 1}, setup)
    choose(game, "p1@frontier")
    choose(game, "skip")
    choose(game, "magic")
    d = game.pending
    faces = ["2 ID", "1 ID", "1 Melee"]
    game.apply({"type": "roll", "faces": faces})
    d = game.pending
    assert d.kind == "cast" and d.data["magic"] == 3
    assert sorted(a["magic"] for a in d.data["accounting"].values()) == [1, 2]


def test_faq95_04_order_roll_ignores_cantrips_and_terrain():
    """FAQ95-04: a Horde rolling 2 maneuvers and a Cantrip, Dwarves in it -> 2 (no doubling)."""
    setup = plain_setup()
    setup["players"][0]["armies"]["horde"] = ["Dwarves/Wizard", "Dwarves/Pony Rider", "Dwarves/Sentry"]
    setup["players"][0]["armies"]["home"] = ["Dwarves/Footman"] * 5
    setup["players"][0]["armies"]["campaign"] = ["Dwarves/Footman"] * 5
    setup["force_size"] = 15
    game = Game(setup)
    d = game.pending
    assert d.topic == "roll" and [x["die"] for x in d.dice][0] == "Dwarves/Wizard"
    game.apply({"type": "roll", "faces": ["4 Cantrip", "1 Maneuver", "1 Maneuver"]})
    assert game.state.last_roll["total"] == 2


def test_items_roll_with_their_army_take_no_damage_and_are_buried_without_carriers():
    """Items: worth points (medium 2), rolled with the army, never damaged, buried when no unit is left
    to carry them (V4.01c L2726-2740)."""
    setup = plain_setup()
    setup["players"][1]["armies"]["campaign"] = [
        "Goblins/Thug",
        "Goblins/Mugger",
        "Goblins/Pelter",
        "Items/Death Dawn Blade",
    ]
    game = started({"frontier": 6}, setup)
    st = game.state
    blade = next(u for u in st.units.values() if u.spec.kind == "item")
    assert st.location[blade.uid] == "frontier" and st.player("p2").force_points == 15
    choose(game, "p1@frontier")
    choose(game, "skip")
    choose(game, "melee")
    game.apply({"type": "roll", "faces": faces_for(game.pending, "melee", "max")})
    assert st.last_roll["total"] >= 3
    d = game.pending
    assert d.player == "p2" and [x["die"] for x in d.dice][-1] == "Items/Death Dawn Blade"
    game.apply({"type": "roll", "faces": ["1 Melee", "1 Melee", "1 Missile", "1 Melee"]})
    assert st.army("p2", "frontier").units == ()  # 3+ damage, no saves: the three small units die
    assert len(st.area("p2", "dua")) == 3
    assert st.location[blade.uid] == "bua"
    assert any("no unit to carry it" in line for line in game.log)


def test_phase_hooks_run_in_order_and_may_ask_decisions(monkeypatch):
    """Phases 3 and 4 (dragon attack, species abilities) run through hooks of other modules."""
    from companion.rules.core.decisions import Decision, choice, choose_validator

    seen = []

    def dragons(game, pid):
        seen.append(("dragon_attack", pid, game.state.phase))
        opts = [choice("ok", "Understood")]
        answer = yield Decision(
            pid, "choice", "A dragon attacks!", "V4.01c L646-693", opts, validate=choose_validator(opts)
        )
        seen.append(answer)

    def species(game, pid):
        seen.append(("species_abilities", pid, game.state.phase))
        return
        yield

    game = Game(plain_setup())
    game.extensions.phases["dragon_attack"] = dragons  # this game's phases, in its extensions
    game.extensions.phases["species_abilities"] = species
    while game.state.phase == "setup":
        d = game.pending
        if d.prompt == "A dragon attacks!":
            break
        game.apply(passive_policy(d))
    assert game.pending.prompt == "A dragon attacks!" and game.state.phase == "dragon_attack"
    choose(game, "ok")
    assert seen == [
        ("dragon_attack", "p1", "dragon_attack"),
        "ok",
        ("species_abilities", "p1", "species_abilities"),
    ]
    assert game.pending.topic == "march"
