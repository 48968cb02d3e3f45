"""The one face matcher (``companion.rules.match_face``): roll answers and the page's typed and
corrected faces all name a die's face through it."""

import pytest

from companion.rules import IllegalRoll, match_face
from companion.rules.core.decisions import faces_validator

DIE = {
    "die": "Goblins/Thug",
    "uid": "d1",
    "faces": ["2 Melee", "1 Save", "Goblins ID", "2 Melee", "1 Maneuver"],
}


@pytest.mark.parametrize(
    ("given", "face"),
    [
        ("2 melee", "2 Melee"),
        ("  1   Save ", "1 Save"),
        ("id", "Goblins ID"),
        (5, "1 Maneuver"),
        (1, "2 Melee"),
    ],
)
def test_a_face_is_named_by_text_id_or_number(given, face):
    assert match_face(DIE, given) == face


@pytest.mark.parametrize("given", ["3 Melee", 0, 6, True, "Melee"])
def test_a_face_the_die_does_not_have_is_refused_naming_the_die(given):
    with pytest.raises(IllegalRoll, match="Goblins/Thug"):
        match_face(DIE, given)


def test_roll_answers_use_the_same_matcher():
    validate = faces_validator([DIE, DIE])
    assert validate({"faces": ["ID", 4]}) == [match_face(DIE, "ID"), match_face(DIE, 4)]
