"""``sai_targeting.reroll_in_place``: the chosen units of a roll are rolled again in one ``sai_roll``
decision and their new faces replace their entries of the roll in place (Confuse V4.01c L1359-1364,
Rapid Growth L968-973 re-roll this way)."""

from __future__ import annotations

import pytest
from sai_arena import arena

from companion.rules.core.errors import IllegalRoll
from companion.rules.game.sai_targeting import reroll_in_place


def _start(note: str = ""):
    game, a, _ = arena(["Dwarves/Footman", "Dwarves/Crossbowman", "Dwarves/Footman"], ["Goblins/Thug"])
    dice = [game.state.units[u] for u in a]
    rolled = [[d.spec.faces[0]] for d in dice]
    before = [list(r) for r in rolled]
    flow = reroll_in_place(
        game, "p1", dice, rolled, [a[2], a[0]], source="Confuse", rule="L1359-1364", roll="save", note=note
    )
    return game, a, dice, rolled, before, flow


def test_one_sai_roll_decision_for_the_chosen_dice_in_the_order_chosen():
    game, a, dice, rolled, before, flow = _start(note="; their earlier results are ignored")
    decision = next(flow)
    assert (decision.topic, decision.kind, decision.player, decision.rule) == (
        "sai_roll",
        "roll",
        "p1",
        "L1359-1364",
    )
    name = game.player_name("p1")
    assert decision.prompt == (
        f"{name}: Confuse: roll again {dice[2].name}, {dice[0].name}; their earlier results are ignored"
    )
    assert [d["uid"] for d in decision.dice] == [a[2], a[0]]
    assert decision.dice[0]["faces"] == list(dice[2].spec.faces)
    assert decision.data == {"roll": "save", "reroll": True}
    assert rolled == before  # nothing changes before the answer


def test_new_faces_replace_the_chosen_entries_in_place_and_leave_the_others():
    _, a, dice, rolled, before, flow = _start()
    decision = next(flow)
    assert decision.prompt.endswith(": Confuse: roll again Dwarves/Footman, Dwarves/Footman")
    entries = [rolled[0], rolled[2]]
    faces = decision.validate({"type": "roll", "faces": [2, 3]})
    with pytest.raises(StopIteration):
        flow.send(faces)
    assert rolled == [[dice[0].spec.faces[2]], before[1], [dice[2].spec.faces[1]]]
    assert rolled[0] is entries[0] and rolled[2] is entries[1]  # the same lists, changed in place


def test_a_wrong_number_of_faces_is_refused_by_name():
    _, _, _, rolled, before, flow = _start()
    decision = next(flow)
    with pytest.raises(IllegalRoll, match="2 dice must be rolled, but 1 faces were given"):
        decision.validate({"type": "roll", "faces": [1]})
    assert rolled == before
