"""Smart dice over serial: the companion's side of a smart-dice bridge.

Modules, from the wire up:

``protocol``   codec of the line protocol (version 1): ``parse_line`` / ``format_line``, message
               values (``Hello``, ``DieState``, ``Battery``, ``Fault``; host commands ``Ping``,
               ``Blink``, ``ListDice``), ``DropReason`` and ``FrameError``.
``intake``     ``LineIntake``: decode + duplicate suppression by ``seq`` (last 64 since the last
               hello) + counters of accepted and dropped lines by reason.
``link``       ``BridgeLink``: pyserial ``serial_for_url`` + ``serial.threaded.ReaderThread`` + a
               ``Packetizer`` framer; reconnects with backoff; ``ping()``, ``blink()``,
               ``list_dice()``, ``stats()``.
``registry``   ``DieRegistry``: die_id -> catalogue die (with face map) or standard d4..d20, JSON.
``rolls``      the API for the game and the web page (below).
``simulator``  ``BridgeSimulator``: a Pixels-like bridge as a deterministic state machine.
``sim_ports``    runs the simulator in real time on a pty or TCP socket (``SimulatorRunner``).
``firmware/``  the reference bridge firmware in portable C99, with host tests.

For the game session and the web page (``companion serve --serial URL``)::

    from firmware_bridge.registry import DieRegistry
    from firmware_bridge.rolls import open_feed

    feed = open_feed(url, DieRegistry.load(path), on_reading=callback)   # started, reconnects
    # callback(reading) runs in the reader thread for each finished roll; or poll feed.readings
    # (a queue.Queue).  A Reading has: die_id, seq, state (RollState.ROLLED or CROOKED),
    # face_index, registered (bool, None without a registry), meaning (FaceMeaning: name such as
    # "Amazons/Charioteer" or "d20", face_text such as "2 Melee", face: the catalogue Face,
    # face_number), problem (why it cannot be used: unregistered die, crooked die, impossible
    # face), needs_reroll, is_usable(), as_dict().
    feed.dice()        # [DieStatus]: per die its last state, face, registered name, battery
    feed.batteries()   # {die_id: BatteryStatus(percent, charging, received_at)}
    feed.blink(die_id, count=3, color="FFFFFF")   # LinkClosed if the bridge is unplugged
    feed.stats()       # LinkStats: counters (accepted/dropped by reason), connects, bridge name
    feed.close()

For ``companion demo --dice simulated``: ``rolls.simulated_feed(registry, seed=..., auto=...)``
starts a simulated bridge in this process, on a real pty, read through the real link; it returns
a ``SimulatedFeed`` (the same API, plus ``roll(die_id)`` to make a registered die roll now).
"""
