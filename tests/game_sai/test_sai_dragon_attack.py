"""SAIs in an army's response to a dragon attack (the "Dragon Attack" column of the V4.01c SAI table),
through the dragon attack phase of the flow."""

from __future__ import annotations

import sys
from pathlib import Path

from sai_arena import arena

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "game_species"))
from species_script import Script  # noqa: E402


def _dragon_game(army, faces_of_army):
    game, a, b = arena(army, [])
    st = game.state
    drake = next(u.uid for u in st.units.values() if u.name == "Dragons/Red Drake" and u.owner == "p2")
    st.location[drake] = "frontier"
    faces = {drake: ["12 Jaw"]} | {uid: list(f) for uid, f in zip(a, faces_of_army, strict=True)}
    return game, a, drake, faces


def test_decapitate_slays_a_dragon_that_rolled_jaws_l1428_1431():
    game, a, drake, faces = _dragon_game(["Dwarves/Footman", "Items/Death Vorpal Sword"], [["1 Save"], ["3 Decapitate"]])
    s = Script(game, faces, [("Decapitate: slay", drake)]).play(until_turn=3)
    assert "Decapitate: Dragons/Red Drake is slain" in s.log()
    assert game.state.location[drake] != "frontier"


def test_impale_slays_a_dragon_that_rolled_jaws_l1684_1687():
    game, a, drake, faces = _dragon_game(["Dracolem/Bronze Draco-Gunner"], [["4 Impale"]])
    s = Script(game, faces).play(until_turn=3)
    assert "Impale: Dragons/Red Drake is slain" in s.log()


def test_cloak_in_a_dragon_attack_adds_lasting_saves_l1335_1337():
    game, a, drake, faces = _dragon_game(["Lava Elves/Lurker in the Deep"], [["4 Cloak"]])
    faces[drake] = ["6 Claw"]
    Script(game, faces).play(until_turn=3)
    assert any(e.name == "Cloak" and e.target == "p1@frontier" for e in game.state.effects) or \
        game.state.location[a[0]] != "frontier"


def test_earthfang_logo_slays_a_dragon_that_rolled_jaws_l2854_2857():
    game, a, drake, faces = _dragon_game(["Dwarves/Footman", "Items/Earthfang"], [["1 Save"], ["4 Logo"]])
    s = Script(game, faces).play(until_turn=3)
    assert "Earthfang: Dragons/Red Drake is slain" in s.log()
