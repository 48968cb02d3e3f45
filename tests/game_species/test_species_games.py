"""A short scripted game per species (12), through ``Game.apply``: in each, the species' abilities and
its units' SAIs act at least once (V4.01c L771-998 abilities; SAI table L1178-2084).  The armies
meet at the Frontier (set on the table directly); the turns are the real flow."""

from __future__ import annotations

from sai_arena import arena, blank_face, id_face, put, where
from species_script import Script

from companion.rules.game.state import TerrainState
from companion.rules.game.terrains import parse_terrain


def set_terrain(game, tid, name, face=None):
    t = game.state.terrains[tid]
    game.state.terrains[tid] = TerrainState(t.id, parse_terrain(name), t.role, t.owner,
                                            face=t.face if face is None else face)


def test_dwarves_game_mountain_mastery_dwarven_might_smite():
    """Mountain Mastery (L828-830) wins the maneuver, Smite (L1859-1879) strikes, Dwarven Might
    (L832-834) counter-attacks with saves as melee."""
    foes = ["Coral Elves/Trooper"] * 3 + ["Coral Elves/Fighter"]
    game, a, b = arena(["Dwarves/Warlord", "Dwarves/Footman"], foes, terrain="Highland City", face=5)
    trooper = foes[0]
    s = Script(game, faces={a[0]: ["3 Save", "4 Smite", "3 Save", "3 Melee"],
                            a[1]: ["2 Melee", "1 Melee", "1 Save", "1 Save"],
                            b[2]: [blank_face(trooper, "maneuver"), blank_face(trooper, "save"), id_face(trooper)]},
               answers=[("p1:march", "p1@frontier"), ("p1:maneuver", "maneuver"), ("p2:counter_maneuver", "counter"),
                        ("p1:direction", "up"), ("p1:action", "melee"), ("p2:allocate", [b[0], b[1]]),
                        ("p2:march", "p2@frontier"), ("p2:maneuver", "skip"), ("p2:action", "melee"),
                        ("p1:counter_attack", "counter")])
    s.play(until_turn=2)
    log = s.log()
    assert "Alice's army at Highland City rolled 2 maneuver" in log  # a Footman's 2 melee (Mountain Mastery)
    assert "Smite: 4 damage" in log
    assert "Alice's army at Highland City rolled 4 melee" in log  # counter-attack: 1 save as melee + 3 melee
