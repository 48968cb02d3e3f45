"""What the page learns about the smart dice when things go wrong (issue 21): a die that is not
registered is logged once (with how to register it), not on every roll; each die carries the time
of its last contact, and when the bridge is lost the dice listed are marked stale."""

from __future__ import annotations

import logging
import time

from firmware_bridge.link import BridgeLink, LinkEvent
from firmware_bridge.protocol import Battery, DieState, RollState
from firmware_bridge.registry import DieRegistry
from firmware_bridge.rolls import DiceFeed


def feed() -> DiceFeed:
    return DiceFeed(BridgeLink("loop://"), DieRegistry())  # never started: events are fed by hand


def test_an_unregistered_die_is_logged_once_with_how_to_register_it(caplog):
    f = feed()
    with caplog.at_level(logging.INFO, logger="firmware_bridge.rolls"):
        for seq in range(1, 6):
            f._on_event(LinkEvent(DieState(seq, "pxZZ9", RollState.ROLLED, seq % 6), time.monotonic()))
        f._on_event(LinkEvent(DieState(9, "pxOther", RollState.ROLLED, 1), time.monotonic()))
    told = [r.getMessage() for r in caplog.records if "not registered" in r.getMessage()]
    assert len(told) == 2, told  # once per die
    assert "pxZZ9" in told[0] and "companion dice pair" in told[0]
    assert f.readings.qsize() == 6, "every roll is still reported as a reading with its problem"


def test_each_die_carries_its_last_contact():
    f = feed()
    before = time.time()
    f._on_event(LinkEvent(Battery(1, "pxA1", 80, False), time.monotonic()))
    (die,) = [d.as_dict() for d in f.dice()]
    assert die["die"] == "pxA1" and die["battery_percent"] == 80
    assert before <= die["last_contact"] <= time.time()


class FakeFeed:
    def __init__(self, dice):
        self._dice = dice

    def dice(self):
        return self._dice


def test_a_lost_bridge_marks_its_dice_stale():
    from web.sources import SerialSource

    class Store:
        def notice(self, kind, payload):
            pass

    f = feed()
    f._on_event(LinkEvent(Battery(1, "pxA1", 80, False), time.monotonic()))
    source = SerialSource("loop://", Store())
    source.feed = f
    source._set("connected", "1 registered dice")
    live = source.status()
    assert live["dice"][0]["stale"] is False and live["last_contact"] is not None
    source._set("lost", "device unplugged")
    lost = source.status()
    assert lost["dice"][0]["stale"] is True
    assert lost["dice"][0]["battery_percent"] == 80 and lost["dice"][0]["last_contact"] <= time.time()
    assert lost["last_contact"] >= live["last_contact"]
    time.sleep(0.01)
    assert source.status()["last_contact"] == lost["last_contact"], "kept while the bridge is lost"


def test_the_page_is_told_how_to_register_an_unknown_die():
    from firmware_bridge.rolls import Reading
    from web.play import serial_reading

    class Store:
        notices = []

        def notice(self, kind, payload):
            self.notices.append((kind, payload))

    store = Store()
    serial_reading(
        store,
        Reading("pxZZ9", 3, RollState.ROLLED, 2, registered=False, problem="die pxZZ9 is not registered"),
    )
    ((kind, payload),) = store.notices
    assert kind == "serial_problem" and payload["die"] == "pxZZ9"
    assert "companion dice pair" in payload["how"]
