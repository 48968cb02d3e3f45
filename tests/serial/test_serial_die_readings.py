"""A smart die's roll as the value every dice source gives: ``Reading.die_reading()``."""

from __future__ import annotations

import pytest

from companion.readings import Source, State
from firmware_bridge.protocol import DieState, RollState
from firmware_bridge.registry import DieRegistry
from firmware_bridge.rolls import reading_from


def _registry() -> DieRegistry:
    registry = DieRegistry()
    registry.register_catalogue("pxB001", "Dwarves/Mammoth Rider")
    registry.register_standard("pxD020", "d20")
    return registry


def test_a_rolled_registered_die_reads_its_catalogue_face_surely():
    registry = _registry()
    reading = reading_from(DieState(seq=3, die_id="pxB001", state=RollState.ROLLED, face_index=4), registry)
    got = reading.die_reading()
    assert got.state is State.READ and got.source is Source.SMART_DIE and got.confidence == 1.0
    assert (got.die, got.device, got.name) == ("pxB001", "pxB001", "Dwarves/Mammoth Rider")
    assert got.face == reading.meaning.face_text and got.face_index == reading.meaning.face_number - 1
    matched = got.for_die("u7")
    assert (matched.die, matched.device, matched.face) == ("u7", "pxB001", got.face)


def test_a_standard_die_reads_its_value():
    reading = reading_from(
        DieState(seq=2, die_id="pxD020", state=RollState.ROLLED, face_index=16), _registry()
    )
    got = reading.die_reading()
    assert (got.name, got.face, got.state) == ("d20", reading.meaning.face_text, State.READ)
    assert got.face_index == int(got.face) - 1


@pytest.mark.parametrize(
    "state, die_id, face_index, expected",
    [
        (RollState.CROOKED, "pxB001", 1, State.COCKED),
        (RollState.ROLLED, "pxZZZ9", 1, State.UNREADABLE),  # not registered
        (RollState.ROLLED, "pxB001", 9, State.UNREADABLE),  # a face the registered die does not have
    ],
)
def test_a_smart_die_that_cannot_be_read_gives_no_face(state, die_id, face_index, expected):
    reading = reading_from(DieState(seq=1, die_id=die_id, state=state, face_index=face_index), _registry())
    got = reading.die_reading()
    assert got.state is expected and got.face is None and got.source is Source.SMART_DIE
    assert got.device == die_id and got.problem == reading.problem and got.problem
