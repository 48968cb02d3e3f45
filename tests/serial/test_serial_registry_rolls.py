"""The die registry and the readings the game gets from it."""

from __future__ import annotations

import json
import time

import pytest

from firmware_bridge.link import LinkClosed
from firmware_bridge.protocol import Battery, DieState, FrameError, RollState
from firmware_bridge.registry import DieRegistry, RegistryError
from firmware_bridge.rolls import reading_from, simulated_feed


@pytest.fixture(scope="module")
def catalogue():
    from companion.rules.catalogue import load_catalogue

    return load_catalogue()


def test_catalogue_and_standard_dice_read_their_faces(catalogue):
    reg = DieRegistry(catalogue=catalogue)
    reg.register("pxA", "Amazons/Charioteer")
    reg.register_catalogue("pxM", "Dwarves/Androsphinx", face_map=[9, 8, 7, 6, 5, 4, 3, 2, 1, 0])
    reg.register("pxD", "Dragons/Black Drake")
    reg.register("pxT", "d20")
    reg.register_standard("pxZ", "d10", values=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    terrain = next(d for d in catalogue if d.name.startswith("Terrains/"))
    reg.register("pxL", terrain.name)
    charioteer = catalogue.get("Amazons/Charioteer")
    meaning = reg.interpret("pxA", 1)
    assert (meaning.name, meaning.face_number, meaning.face) == ("Amazons/Charioteer", 2, charioteer.faces[1])
    sphinx = catalogue.get("Dwarves/Androsphinx")
    assert reg.interpret("pxM", 0).face == sphinx.faces[9]  # the die's index 0 is catalogue face 10
    assert reg.interpret("pxM", 9).face_text == "4 ID"
    assert reg.interpret("pxD", 0).face_text == "12 Jaw"
    assert reg.interpret("pxT", 19).face_text == "20"
    assert reg.interpret("pxZ", 0).face_number == 0
    assert [reg.interpret("pxL", i).face for i in range(len(terrain.faces))] == list(terrain.faces)


def test_registry_file_round_trip(tmp_path, catalogue):
    reg = DieRegistry(catalogue=catalogue)
    reg.register_catalogue("pxA", "Charioteer", face_map=[5, 4, 3, 2, 1, 0])  # short name, unambiguous
    reg.register("pxT", "d8")
    path = tmp_path / "dice.json"
    reg.save(path)
    document = json.loads(path.read_text())
    assert document == {
        "version": 1,
        "dice": {
            "pxA": {"catalogue": "Amazons/Charioteer", "face_map": [5, 4, 3, 2, 1, 0]},
            "pxT": {"standard": "d8"},
        },
    }
    again = DieRegistry.load(path, catalogue=catalogue)
    assert list(again) == ["pxA", "pxT"]
    assert again.interpret("pxA", 0) == reg.interpret("pxA", 0)


@pytest.mark.parametrize(
    "document,fragment",
    [
        ({"dice": {"pxA": {"catalogue": "Amazons/Nobody"}}}, "not a die of the catalogue"),
        (
            {"dice": {"pxA": {"catalogue": "Amazons/Charioteer", "face_map": [0, 1, 2, 3, 4]}}},
            "each of its 6 faces",
        ),
        (
            {"dice": {"pxA": {"catalogue": "Amazons/Charioteer", "face_map": [0, 0, 2, 3, 4, 5]}}},
            "each of its 6",
        ),
        ({"dice": {"pxA": {"standard": "d7"}}}, "not a standard die"),
        ({"dice": {"pxA": {"standard": "d6", "values": [1, 2]}}}, "6 integers"),
        ({"dice": {"px A": {"standard": "d6"}}}, "die_id"),
        ({"dice": {"pxA": {}}}, "needs 'catalogue' or 'standard'"),
        ({"dice": {"pxA": {"catalogue": 5}}}, "'catalogue' must be a die's name"),
        ({"dice": {"pxA": {"catalogue": None}}}, "'catalogue' must be a die's name"),
        ({"dice": {"pxA": {"catalogue": ["Amazons/Charioteer"]}}}, "'catalogue' must be a die's name"),
        ({"dice": {"pxA": {"catalogue": "Amazons/Charioteer", "face_map": 5}}}, "face_map must be a list"),
        ({"dice": {"pxA": {"standard": "d6", "values": 5}}}, "values must be a list"),
        ({"dice": {"pxA": {"standard": 6}}}, "not a standard die"),
        ({"dice": []}, "'dice' object"),
        ({"version": 2, "dice": {}}, "version"),
    ],
)
def test_bad_registries_name_the_problem(document, fragment, catalogue):
    with pytest.raises(RegistryError, match=fragment):
        DieRegistry.from_document(document, catalogue=catalogue)


def test_unreadable_file(tmp_path, catalogue):
    path = tmp_path / "dice.json"
    with pytest.raises(RegistryError, match="does not exist"):
        DieRegistry.load(path)
    path.write_text("{not json")
    with pytest.raises(RegistryError, match="not valid JSON"):
        DieRegistry.load(path, catalogue=catalogue)
    assert len(DieRegistry.load_or_empty(tmp_path / "new.json", catalogue=catalogue)) == 0
    with pytest.raises(RegistryError, match="cannot be read"):
        DieRegistry.load_or_empty(tmp_path, catalogue=catalogue)  # a folder


def test_failed_registration_changes_nothing(catalogue):
    reg = DieRegistry(catalogue=catalogue)
    reg.register("pxA", "d6")
    with pytest.raises(RegistryError):
        reg.register("pxA", "Amazons/Nobody")
    assert reg.interpret("pxA", 5).face_text == "6"
    with pytest.raises(RegistryError, match="no face index 6"):
        reg.interpret("pxA", 6)
    with pytest.raises(RegistryError, match="not registered"):
        reg.interpret("pxB", 0)


def test_readings_from_messages(catalogue):
    reg = DieRegistry(catalogue=catalogue)
    reg.register("pxA", "Amazons/Charioteer")
    rolled = reading_from(DieState(5, "pxA", RollState.ROLLED, 1), reg)
    assert rolled.is_usable() and rolled.meaning.face_text == "2 Melee"
    assert rolled.as_dict() == {
        "die": "pxA",
        "state": "rolled",
        "face_index": 1,
        "seq": 5,
        "registered": True,
        "kind": "catalogue",
        "name": "Amazons/Charioteer",
        "face_text": "2 Melee",
        "face_number": 2,
        "icon": "Melee",
        "count": 2,
    }
    crooked = reading_from(DieState(6, "pxA", RollState.CROOKED, -1), reg)
    assert crooked.needs_reroll and not crooked.is_usable() and "reroll" in crooked.problem
    stranger = reading_from(DieState(7, "pxQ", RollState.ROLLED, 3), reg)
    assert stranger.registered is False and stranger.meaning is None and "not registered" in stranger.problem
    impossible = reading_from(DieState(8, "pxA", RollState.ROLLED, 9), reg)
    assert impossible.meaning is None and "no face index 9" in impossible.problem
    faceless = reading_from(DieState(12, "pxA", RollState.ROLLED, -1), reg)
    assert faceless.registered and faceless.meaning is None and not faceless.is_usable()
    assert "could not tell its face" in faceless.problem
    assert "could not tell its face" in reading_from(DieState(13, "pxQ", RollState.ROLLED, -1), None).problem
    assert reading_from(DieState(9, "pxA", RollState.ROLLING, -1), reg) is None
    assert reading_from(DieState(10, "pxA", RollState.ONFACE, 2), reg) is None  # put down by hand
    raw = reading_from(DieState(11, "pxQ", RollState.ROLLED, 3), None)
    assert raw.registered is None and raw.as_dict() == {
        "die": "pxQ",
        "state": "rolled",
        "face_index": 3,
        "seq": 11,
    }


def test_simulated_feed_through_a_real_pty(catalogue):
    reg = DieRegistry(catalogue=catalogue)
    reg.register("pxA", "Amazons/Charioteer")
    reg.register("pxT", "d20")
    callback = []
    feed = simulated_feed(reg, dice=1, seed=4, speed=10, noise=True, on_reading=callback.append)
    try:
        assert feed.link.wait_connected(3)
        assert feed.link.url.startswith("/dev/")  # a real pty, not a shortcut
        stranger = feed.runner.sim.dice[-1].die_id
        for die_id in ("pxA", "pxT", stranger):
            feed.roll(die_id)
        readings = {}
        deadline = time.monotonic() + 5
        while len(readings) < 3 and time.monotonic() < deadline:
            r = feed.readings.get(timeout=5)
            readings[r.die_id] = r
        assert sorted(callback, key=lambda r: r.seq) == sorted(readings.values(), key=lambda r: r.seq)
        truth = {m.die_id: m for m in feed.runner.sim.finished_rolls()}
        for die_id in ("pxA", "pxT"):
            assert readings[die_id].seq == truth[die_id].seq
            if truth[die_id].state is RollState.ROLLED:
                assert readings[die_id].meaning == reg.interpret(die_id, truth[die_id].face_index)
        assert readings[stranger].registered is False
        # batteries of every die, for the tablet
        assert feed.link.wait_connected(1)

        def latest_sent():
            return {m.die_id: m.percent for m in feed.runner.sim.emitted if isinstance(m, Battery)}

        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and (
            len(feed.batteries()) < 3 or {k: v.percent for k, v in feed.batteries().items()} != latest_sent()
        ):
            time.sleep(0.05)
        assert {k: v.percent for k, v in feed.batteries().items()} == latest_sent()
        names = {d.die_id: d.name for d in feed.dice()}
        assert names == {"pxA": "Amazons/Charioteer", "pxT": "d20", stranger: None}
        # LIST refreshes every die's state without inventing rolls
        before = feed.readings.qsize() + len(callback)
        lines_before = feed.stats().counts.accepted.get("DDR", 0)
        feed.list_dice()
        deadline = time.monotonic() + 3
        while feed.stats().counts.accepted.get("DDR", 0) < lines_before + 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert feed.stats().counts.accepted.get("DDR", 0) == lines_before + 3
        time.sleep(0.1)
        assert feed.readings.qsize() + len(callback) == before
        feed.blink("pxA", 2, "00FF00")
        deadline = time.monotonic() + 3
        while not feed.runner.sim.blinks and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [b.die_id for b in feed.runner.sim.blinks] == ["pxA"]
        with pytest.raises(FrameError):
            feed.blink("bad id", 2)
    finally:
        feed.close()
    with pytest.raises(LinkClosed):
        feed.blink("pxA")
