"""``ask_roll`` (``companion.rules.core.decisions``): the one way rule modules ask for a roll of some dice;
the decision carries the dice, the data and the citation given, and reads its answer face by face."""

import pytest

from companion.rules import IllegalRoll
from companion.rules.core.decisions import ask_roll

DIE = {
    "die": "Goblins/Thug",
    "uid": "d1",
    "faces": ["2 Melee", "1 Save", "Goblins ID", "2 Melee", "1 Maneuver"],
}
OTHER = {**DIE, "uid": "d2"}


def _decision():
    return ask_roll("sai_roll", "p1", "p1: roll again", "V4.01c L968-973", dice=[DIE, OTHER], data={"x": 1})


def test_the_decision_is_a_roll_on_the_topic_with_the_dice_data_and_citation_given():
    out = _decision().to_dict()
    assert (out["kind"], out["topic"], out["player"]) == ("roll", "sai_roll", "p1")
    assert (out["prompt"], out["rule"], out["answer"]) == ("p1: roll again", "V4.01c L968-973", "roll")
    assert [d["uid"] for d in out["dice"]] == ["d1", "d2"]
    assert out["x"] == 1 and out["choices"] == []


def test_the_answer_is_read_one_face_per_die_in_order():
    validate = _decision().validate
    assert validate is not None
    assert validate({"faces": ["id", 5]}) == ["Goblins ID", "1 Maneuver"]


@pytest.mark.parametrize(
    ("answer", "message"),
    [
        ({"faces": ["id"]}, "2 dice must be rolled, but 1 faces were given"),
        ({"faces": "id"}, "'faces' must be a list"),
        ({"faces": ["id", "3 Melee"]}, "Goblins/Thug has no face '3 Melee'"),
    ],
)
def test_a_wrong_answer_is_refused_naming_what_is_wrong(answer, message):
    validate = _decision().validate
    assert validate is not None
    with pytest.raises(IllegalRoll, match=message):
        validate(answer)
