"""Rolls that differ only in which die shows which face (companion.rules.resolution.alike), and the games'
``same_results`` that a camera sure of the faces but not of which look-alike die shows which asks."""

from __future__ import annotations

import pytest

from companion.rules.catalogue import load_catalogue
from companion.rules.core.errors import GameRuleError
from companion.rules.games import full_setup, start_game
from companion.rules.resolution import ResolutionError, RolledUnit, RollRequest, resolve, same_outcome

from .test_rules_games import SETUPS

CAT = load_catalogue()


def _roll(purpose: str, shown: list[tuple[str, str]]) -> RollRequest:
    units = []
    for name, face in shown:
        die = CAT[name]
        units.append(RolledUnit(die, (die.find_face(face),)))
    return RollRequest(purpose, tuple(units))


def test_two_dice_swapping_faces_they_share_give_the_same_roll():
    # both Goblins, both show "3 Melee" and "3 Save" among their faces
    a = _roll("melee", [("Goblins/Marauder", "3 Melee"), ("Goblins/Filcher", "3 Save")])
    b = _roll("melee", [("Goblins/Marauder", "3 Save"), ("Goblins/Filcher", "3 Melee")])
    assert resolve(a).totals == resolve(b).totals
    assert same_outcome([a, b]) and same_outcome([a])


def test_the_engine_decides_not_the_face_texts():
    # an ID face is worth its own unit's health (V4.01c L113-121): a Cutthroat's is 2, a Marauder's 3
    a = _roll("melee", [("Goblins/Marauder", "3 ID"), ("Goblins/Cutthroat", "3 Melee")])
    b = _roll("melee", [("Goblins/Marauder", "3 Melee"), ("Goblins/Cutthroat", "2 ID")])
    assert resolve(a).totals["melee"] != resolve(b).totals["melee"]
    assert not same_outcome([a, b])
    c = _roll("melee", [("Goblins/Marauder", "4 Melee"), ("Goblins/Cutthroat", "2 Save")])
    assert not same_outcome([a, c])  # other faces altogether


def _sai_pair():
    """Two dice that both show one SAI face and one action face (a swap of the two gives equal totals)."""
    dice = [d for d in CAT if d.species and len(d.faces) == 6]
    for i, x in enumerate(dice):
        for y in dice[i + 1 :]:
            both = {f.text() for f in x.faces} & {f.text() for f in y.faces}
            sai = sorted(t for t in both if x.find_face(t).is_sai)
            plain = sorted(t for t in both if x.find_face(t).is_action)
            if sai and plain:
                return x.name, y.name, sai[0], plain[0]
    raise AssertionError("the catalogue has no two dice sharing an SAI face and an action face")


def test_an_sai_moving_between_units_is_never_the_same_roll():
    """An SAI can act on the very unit that rolled it (Vanish moves it, V4.01c L2019-2023), so a swap that
    moves one is not the same roll even where every total agrees."""
    x, y, sai, plain = _sai_pair()
    for purpose in ("melee", "save", "maneuver"):
        a = _roll(purpose, [(x, sai), (y, plain)])
        b = _roll(purpose, [(x, plain), (y, sai)])
        assert not same_outcome([a, b])
    same_sai = _roll("melee", [(x, sai), (y, sai)])
    assert same_outcome([same_sai, same_sai])  # an SAI on the same unit in every option is fine


def test_requests_that_are_not_one_roll_are_refused_naming_the_difference():
    a = _roll("melee", [("Goblins/Marauder", "3 Melee"), ("Goblins/Filcher", "3 Save")])
    with pytest.raises(ResolutionError, match=r"requests\[1\]\.units\[1\]"):
        same_outcome([a, _roll("melee", [("Goblins/Marauder", "3 Melee"), ("Goblins/Marauder", "3 Save")])])
    with pytest.raises(ResolutionError, match=r"requests\[1\]\.units"):
        same_outcome([a, _roll("melee", [("Goblins/Marauder", "3 Melee")])])
    with pytest.raises(ResolutionError, match=r"requests\[1\]: another roll"):
        same_outcome([a, _roll("save", [("Goblins/Marauder", "3 Save"), ("Goblins/Filcher", "3 Melee")])])
    with pytest.raises(ResolutionError, match="requests"):
        same_outcome([])


def _shared_pair(pending: dict) -> tuple[str, str, str, str]:
    """Two dice of the pending roll with two faces in common (uids, the two faces)."""
    dice = pending["dice"]
    for i, a in enumerate(dice):
        for b in dice[i + 1 :]:
            both = sorted(set(a["faces"]) & set(b["faces"]))
            if len(both) >= 2:
                return a["uid"], b["uid"], both[0], both[1]
    raise AssertionError("no two dice of the opening roll share two faces")


@pytest.mark.parametrize("key", ["v4", "r96"])
def test_each_dragon_dice_game_says_whether_a_swap_changes_its_roll(key):
    game = start_game(full_setup(SETUPS[key]))
    pending = game.pending_dict()
    a, b, x, y = _shared_pair(pending)
    swap = [{a: x, b: y}, {a: y, b: x}]
    assert start_game(full_setup(SETUPS[key])).same_results(swap)

    def total(faces):
        return start_game(full_setup(SETUPS[key])).roll_so_far(faces)

    faces_b = next(d["faces"] for d in pending["dice"] if d["uid"] == b)
    # faces of b the game totals otherwise than y (another result) and alike (the same result)
    other = next(f for f in faces_b if total({a: x, b: f}) != total({a: x, b: y}))
    assert not start_game(full_setup(SETUPS[key])).same_results([{a: x, b: y}, {a: x, b: other}])
    alike = [f for f in faces_b if f != y and total({a: x, b: f}) == total({a: x, b: y})]
    for f in alike:  # the same total: the same roll only if no SAI moves and nothing else differs
        face = next(u for u in start_game(full_setup(SETUPS[key])).state.units.values() if u.uid == b)
        sai = face.spec.catalogue_die.find_face(f).is_sai or face.spec.catalogue_die.find_face(y).is_sai
        assert start_game(full_setup(SETUPS[key])).same_results([{a: x, b: y}, {a: x, b: f}]) == (not sai)
    with pytest.raises(GameRuleError):
        start_game(full_setup(SETUPS[key])).same_results([{a: x}, {b: x}])  # not the same dice
    with pytest.raises(GameRuleError):
        start_game(full_setup(SETUPS[key])).same_results([{a: x}, {a: "9 Nothing"}])
    if key == "r96":  # the 1996 game answers without changing
        log = list(game.log)
        game.same_results(swap)
        assert game.pending_dict() == pending and game.log == log


def test_battle_dice_reads_die_by_die():
    game = start_game(full_setup(SETUPS["battle_dice"]))
    die = game.pending_dict()["dice"][0]
    assert game.same_results([{die["uid"]: die["faces"][0]}] * 2) is False
