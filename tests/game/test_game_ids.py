"""Army ids as a value type (companion.rules.game.ids): parse, format, typed errors, one spelling of an
army not yet placed in both editions."""

from __future__ import annotations

import pytest

from companion.rules.core.ids import UNPLACED, ArmyId, InvalidId, is_army_id
from companion.rules.game import Game, GameRuleError, quick_setup
from companion.rules.r96.game import R96Game
from companion.rules.r96.game import quick_setup as r96_setup

PLAYERS = {"players": [{"name": "Ann"}, {"name": "Ben"}]}


def test_an_army_id_reads_and_writes_back_the_same_text():
    army = ArmyId.parse("p1@frontier")
    assert (army.owner, army.location) == ("p1", "frontier") and str(army) == "p1@frontier"
    owner, location = ArmyId.parse("p2@home-p1")
    assert (owner, location) == ("p2", "home-p1")
    assert ArmyId.parse("p1@a@b").location == "a@b"  # only the first @ separates
    assert ArmyId("p1", "reserve") == ArmyId.parse("p1@reserve") and hash(army) == hash(
        ArmyId("p1", "frontier")
    )


@pytest.mark.parametrize("text", ["p1", "", "@frontier", "p1@", None, 7, ["p1", "frontier"]])
def test_bad_text_is_refused_with_a_typed_error_naming_it(text):
    with pytest.raises(InvalidId, match="army id") as err:
        ArmyId.parse(text)
    assert repr(text) in str(err.value) and isinstance(err.value, GameRuleError)
    assert not is_army_id(text)


def test_an_army_not_yet_placed_is_spelt_the_same_in_both_editions():
    assert str(ArmyId.at("p1", None)) == f"p1@{UNPLACED}" == "p1@unplaced"
    assert not ArmyId.at("p1", None).placed and ArmyId.parse("p1@frontier").placed
    v4 = Game(quick_setup({"force_size": 24, **PLAYERS})).pending_dict()
    r96 = R96Game(r96_setup(PLAYERS)).pending_dict()
    assert v4["topic"] == r96["topic"] == "roll"  # the order-of-play / Horde roll of set-up
    assert v4["army"] == r96["army"] == "p1@unplaced"  # the 1996 flow said "p1@None"
