"""``companion demo``: a scripted opening played on a real server, rolls arriving as real ones do.

The *director* answers each pending decision the way a pair of players might, aiming at a short
showcase: set-up (order of play, frontier, starting distances), a first march that maneuvers and
then melees (attack, saves, losses, counter-attack), and a second march that takes a magic action
and casts a spell.  Rolls are not typed by the director: a *roller* produces them and they go
through the same path as rolls from the table (a reading is staged, shown on the Roll panel, then
confirmed):

* ``SimulatedDiceRoller``: every die of the game is registered with a simulated smart-dice bridge
  (``firmware_bridge.rolls.simulated_feed``, over a real pty and the real link code); the director
  rolls the dice of the pending roll and the faces come back as serial ``rolled`` events.
* ``VisionRoller``: a camera frame of the dice is rendered and read back by the camera pipeline
  (needs a shipped model); the Roll panel shows the frame with a box and label on each die.
* ``TypedRoller``: faces drawn with a seeded random generator, as a player would tap them.
"""

from __future__ import annotations

import logging
import random
import threading
import time

from companion.rules import ArmyId

log = logging.getLogger("companion.demo")

#: What the demo wants to show, in order; the director steers toward the next unshown item.
SHOWCASE = ("setup", "maneuver", "melee", "saves", "magic")


class TypedRoller:
    """Faces picked at random (seeded), as players tapping what they see."""

    source = "demo"

    def __init__(self, seed: int = 7):
        self.rng = random.Random(seed)

    def start(self, store) -> None:
        pass

    def read(self, pending: dict, timeout: float = 10.0) -> dict:
        return {"faces": {d["uid"]: self.rng.choice(d["faces"]) for d in pending["dice"]}}

    def close(self) -> None:
        pass


class SimulatedDiceRoller:
    """Rolls through the smart-dice simulator and the real serial link code."""

    source = "serial"

    def __init__(self, seed: int = 7, speed: float = 4.0):
        self.seed = seed
        self.speed = speed
        self.feed = None
        self.uid_of: dict[str, str] = {}
        self.name_of: dict[str, str] = {}  # die id -> catalogue name
        self._readings: dict[str, object] = {}
        self._cond = threading.Condition()

    def start(self, store) -> None:
        from firmware_bridge.registry import DieRegistry
        from firmware_bridge.rolls import simulated_feed

        state = store.session.game.state
        registry = DieRegistry()
        for uid, unit in state.units.items():
            if unit.spec.kind in ("unit", "item"):
                die_id = f"sim-{uid}"
                registry.register_catalogue(die_id, unit.spec.name)
                self.uid_of[die_id], self.name_of[die_id] = uid, unit.spec.name
        for tid, terrain in state.terrains.items():
            die_id = f"sim-{tid}"[:16]
            registry.register_catalogue(die_id, f"Terrains/{terrain.name}")
            self.uid_of[die_id], self.name_of[die_id] = tid, f"Terrains/{terrain.name}"
        # the proposed frontier terrains are on the table too, before one of them becomes the frontier
        for i, player in enumerate(store.session.game.setup.get("players", [])):
            name = f"Terrains/{player['frontier']}" if player.get("frontier") else None
            if name and name not in self.name_of.values():
                die_id = f"sim-front-{i + 1}"
                registry.register_catalogue(die_id, name)
                self.uid_of[die_id], self.name_of[die_id] = f"frontier-{i + 1}", name
        self.feed = simulated_feed(
            registry, seed=self.seed, speed=self.speed, noise=True, on_reading=self._on_reading
        )
        if not self.feed.link.wait_connected(10):
            raise RuntimeError("the simulated bridge did not connect")

    def _on_reading(self, reading) -> None:
        with self._cond:
            self._readings[reading.die_id] = reading
            self._cond.notify_all()

    def _die_id(self, uid: str) -> str | None:
        for die_id, u in self.uid_of.items():
            if u == uid:
                return die_id
        return None

    def read(self, pending: dict, timeout: float = 10.0) -> dict:
        wanted: dict[str, dict] = {}
        for d in pending["dice"]:
            die_id = self._die_id(d["uid"])
            if die_id is None:  # a die whose id changed since the start (the chosen frontier terrain):
                die_id = next(
                    (
                        i
                        for i, name in self.name_of.items()  # the same physical die by its name
                        if name == d["die"] and i not in wanted
                    ),
                    None,
                )
            if die_id is not None:
                wanted[die_id] = d
        with self._cond:
            for die_id in wanted:
                self._readings.pop(die_id, None)
        faces: dict[str, str] = {}
        problems: dict[str, str] = {}
        for _attempt in range(
            3
        ):  # a die whose report was lost on the link is rolled again, as a player would
            left = [die_id for die_id, d in wanted.items() if d["uid"] not in faces]
            if not left:
                break
            for die_id in left:
                self.feed.roll(die_id)
            self._collect(wanted, faces, problems, time.monotonic() + timeout / 3)
        for die_id, d in wanted.items():
            if d["uid"] not in faces:
                problems[d["uid"]] = f"no reading from smart die {die_id}: tap its face"
        for d in pending["dice"]:
            if d["uid"] not in faces and d["uid"] not in problems:
                problems[d["uid"]] = "no smart die registered for it: tap its face"
        with self._cond:  # each face read, as the smart die's reading of the roll's die
            readings = [
                self._readings[i].die_reading().for_die(d["uid"])
                for i, d in wanted.items()
                if d["uid"] in faces and i in self._readings and self._readings[i].is_usable()
            ]
        return {"faces": faces, "problems": problems, "readings": readings}

    def _collect(self, wanted: dict, faces: dict, problems: dict, deadline: float) -> None:
        with self._cond:
            while len(faces) + len(problems) < len(wanted) and time.monotonic() < deadline:
                for die_id, reading in list(self._readings.items()):
                    if die_id not in wanted or wanted[die_id]["uid"] in faces:
                        continue
                    uid = wanted[die_id]["uid"]
                    if reading.is_usable():
                        faces[uid] = _terrain_face(wanted[die_id], reading.meaning.face_text)
                        problems.pop(uid, None)
                    elif reading.needs_reroll:
                        problems[uid] = "cocked: rolled again"
                        self._readings.pop(die_id)
                        self.feed.roll(die_id)
                        problems.pop(uid)
                self._cond.wait(0.1)

    def close(self) -> None:
        if self.feed is not None:
            self.feed.close()


def _terrain_face(die: dict, face_text: str) -> str:
    """A terrain die's face for the starting-distance roll is its number."""
    if die["die"].startswith("Terrains/") and face_text not in die["faces"]:
        number = face_text.split()[0]
        if number in die["faces"]:
            return number
    return face_text


class VisionRoller:
    """Rolls as the camera sees them: a frame of the dice showing random faces is rendered
    (``companion.vision.roll_frames.render_roll``) and read back by ``model`` (a shipped name or a
    bundle folder made by ``companion vision enroll``; ``companion demo --model``), each die assigned to
    its unit (``companion.vision.roll_reading.read_roll``, the camera's own path).  Needs that model to
    load (default the shipped ``models/dragon-dice``)."""

    source = "camera"

    def __init__(self, seed: int = 7, model: str = "dragon-dice", frame_size: int = 1280):
        self.rng = random.Random(seed)
        self.model = model
        self.frame_size = frame_size  # a 1280 px camera frame, as the model card's held-out set
        self.rolls = 0

    def start(self, store) -> None:
        from companion.vision.reader import load_model

        load_model(self.model)  # fails (ModelError) when no model is shipped

    def read(self, pending: dict, timeout: float = 10.0) -> dict:
        from companion.vision.roll_frames import render_roll
        from companion.vision.roll_reading import read_roll

        chosen = {d["uid"]: self.rng.randrange(len(d["faces"])) for d in pending["dice"]}
        names = [d["die"] for d in pending["dice"]]
        self.rolls += 1
        scene = render_roll(
            [(d["die"], chosen[d["uid"]]) for d in pending["dice"]], seed=self.rolls, size=self.frame_size
        )
        read = read_roll(scene.image, names, model=self.model)
        from .play import vision_faces, vision_readings

        faces, boxes, problems = vision_faces(pending, read)
        known = {d["uid"]: d["faces"][chosen[d["uid"]]] for d in pending["dice"]}  # what the script rendered
        return {
            "faces": faces,
            "problems": problems,
            "boxes": boxes,
            "frame": scene.image,
            "known": known,
            "readings": vision_readings(pending, read),
        }

    def close(self) -> None:
        pass


def vision_problem(model: str = "dragon-dice") -> str | None:
    """Why the camera pipeline cannot read rendered frames here (a missing package, no shipped
    model, a model that does not load), in words; ``None`` when it can."""
    try:
        import scipy.optimize  # noqa: F401  (the roster assignment needs it)

        from companion.vision.reader import load_model
        from companion.vision.roll_frames import render_roll  # noqa: F401
        from companion.vision.roll_reading import read_roll  # noqa: F401

        load_model(model)
    except ImportError as exc:
        return f"a package the camera pipeline needs is missing ({exc})"
    except Exception as exc:  # ModelError (no model shipped) or a model that does not load
        return f"{type(exc).__name__}: {exc}"
    return None


def vision_available(model: str = "dragon-dice") -> bool:
    """Whether the camera pipeline and a shipped model are there to read rendered frames."""
    return vision_problem(model) is None


class Director:
    """Answers decisions to show the SHOWCASE, then stops (players go on by hand)."""

    def __init__(self, store, roller, pace: float = 1.2, out=None):
        self.store = store
        self.roller = roller
        self.pace = pace
        self.shown: list[str] = []
        self.countered = False
        self.out = out
        self.done = threading.Event()
        self.stop = threading.Event()
        self.error: str | None = None
        self.thread: threading.Thread | None = None  # set by play_demo

    def finish(self, timeout: float = 60.0) -> None:
        """Stop after the step in progress and wait for it: a camera read still running in a native
        library when the interpreter exits aborts the process."""
        self.stop.set()
        if self.thread is not None:
            self.thread.join(timeout)

    def say(self, text: str) -> None:
        log.info(text)
        if self.out is not None:
            print(f"[demo] {text}", file=self.out, flush=True)

    def _mark(self, what: str) -> None:
        if what not in self.shown:
            self.shown.append(what)
            self.say(f"shown: {what}")

    def run(self) -> None:
        try:
            self.roller.start(self.store)
            while not self.stop.is_set() and not self.done.is_set():
                pending = self.store.session.pending()
                if pending is None:
                    break
                self.step(pending)
                if all(s in self.shown for s in SHOWCASE):
                    self.done.set()
                    break
                self.stop.wait(self.pace)
        except Exception as exc:  # the demo must never take the server down
            self.error = f"{type(exc).__name__}: {exc}"
            log.exception("demo director stopped")
        finally:
            self.done.set()
            self.say("scripted opening finished: " + ", ".join(self.shown) + "; play on by tapping")

    def step(self, pending: dict) -> None:
        kind = pending["kind"]
        state = self.store.session.state_dict()
        if state.get("phase") != "setup":
            self._mark("setup")
        if kind == "roll":
            self._roll(pending)
            if self.stop.is_set():
                return
            roll = pending.get("roll")
            if roll == "save":
                self._mark("saves")
            elif roll == "melee":
                self._mark("melee")
            elif roll == "magic":
                self._mark("magic")
            return
        action = self.answer(pending, state)
        self.say(describe(pending, action))
        self.store.submit(action, {"role": "demo"})

    def _roll(self, pending: dict) -> bool:
        """Roll the pending dice through the roller and confirm the reading.  A die the source could
        not read is never given a made-up face: when the script knows the face it rolled (it rendered
        the camera frame) that face is typed and the reading says so (``typed_by_script``), never as
        a player's correction; otherwise the die stays unread on the Roll page and the demo waits for
        the players to tap its face and confirm.  True when the director confirmed the roll."""
        from . import play

        got = self.roller.read(pending)
        faces, problems = dict(got["faces"]), dict(got.get("problems", {}))
        known = got.get("known") or {}
        names = {d["uid"]: d["die"].split("/")[-1] for d in pending["dice"]}
        unread = [d["uid"] for d in pending["dice"] if d["uid"] not in faces]
        typed = [u for u in unread if u in known]
        for uid in typed:
            faces[uid] = known[uid]
            problems[uid] = f"not read by the {self.roller.source}: the demo script typed the face it rolled"
        with self.store.lock:
            reading = play.reading_from_faces(
                self.store,
                faces,
                self.roller.source,
                boxes=got.get("boxes"),
                frame=got.get("frame"),
                problems=[f"{u}: {p}" for u, p in problems.items()],
                readings=got.get("readings"),
            )
            reading["typed_by_script"] = typed
            self.store.set_reading(reading)
        if typed:
            self.say(
                f"the {self.roller.source} could not read "
                + ", ".join(f"{names[u]} ({u})" for u in typed)
                + "; the demo script typed the face it rolled: "
                + ", ".join(f"{names[u]} {faces[u]}" for u in typed)
            )
        missing = [u for u in unread if u not in known]
        if missing:
            self.say(
                f"the {self.roller.source} could not read "
                + ", ".join(f"{names[u]} ({u})" for u in missing)
                + ": nothing is made up. Tap its face on the Roll page and confirm; the demo waits."
            )
            self._wait_for_players()
            return False
        self.stop.wait(self.pace)  # let the tablets show the reading before it is confirmed
        with self.store.lock:
            play.submit_reading(
                self.store,
                self.store.reading,
                {"role": "demo", "source": self.store.reading.get("source") or "demo"},
            )
        return True

    def _wait_for_players(self) -> None:
        """Until a player answers the pending decision (the log moves on) or the demo is stopped."""
        seq = self.store.last_seq
        while not self.stop.is_set() and self.store.last_seq == seq:
            self.stop.wait(0.2)

    def answer(self, pending: dict, state: dict) -> dict:
        kind = pending["kind"]
        values = [c["value"] for c in pending.get("choices", [])]
        if kind == "choice":
            return {"type": "choose", "choice": self._choose(_topic(pending), values, state)}
        if kind == "allocate":
            return {"type": "allocate", "units": pending["choices"][0]["value"]}
        if kind == "cast":
            spells = self._spell(pending, state)
            if spells:
                self._mark("magic")
            return {"type": "cast", "spells": spells}
        if kind == "reinforce":
            return {"type": "reinforce", "moves": {}}
        if kind == "retreat":
            return {"type": "retreat", "units": []}
        raise ValueError(f"the demo cannot answer a {kind!r} decision")

    def _choose(self, topic: str, values: list, state: dict):
        def first(*wanted):
            for w in wanted:
                if w in values:
                    return w
            return values[0]

        if topic == "march":
            armies = [v for v in values if v != "pass"]
            if "melee" not in self.shown:
                contested = [a for a in armies if self._opponents_at(a, state)]
                return (contested or armies or ["pass"])[0]
            if "magic" not in self.shown:
                reserve = [a for a in armies if a.endswith("@reserve")]
                magic_now = [a for a in armies if self._action_at(a, state) == "magic"]
                return (magic_now or reserve or armies or ["pass"])[0]
            return "pass" if "pass" in values else values[0]
        if topic == "counter_maneuver":
            # One contested maneuver is shown; after that, while the melee is still to come, the defender
            # lets maneuvers through so the terrains can be turned to a melee face.
            if self.countered and "melee" not in self.shown:
                return first("no", "counter")
            self.countered = True
            return first("counter", "no")
        if topic == "maneuver":
            self._mark("maneuver")
            return first("maneuver", "skip")
        if topic == "direction":
            return self._direction(values, state)
        if topic == "action":
            if "melee" not in self.shown:
                return first("melee", "missile", "magic", "skip")
            return first("magic", "melee", "missile", "skip")
        if topic == "counter_attack":
            return first("counter", "no")
        return first("first_turn")

    def _opponents_at(self, army: str, state: dict) -> bool:
        owner, loc = ArmyId.parse(army)
        return any(a["location"] == loc and a["owner"] != owner for a in state.get("armies", []))

    def _action_at(self, army: str, state: dict) -> str | None:
        loc = ArmyId.parse(army).location
        for t in state.get("terrains", []):
            if t["id"] == loc:
                return t.get("action")
        return None

    def _direction(self, values: list, state: dict):
        """Turn the terrain to a face whose action the showcase still needs."""
        from companion.rules import terrain_action

        wanted = (self.store.session.pending() or {}).get("terrain")  # the terrain the decision turns
        pending_terrain = next((t for t in state.get("terrains", []) if t["id"] == wanted), None)
        if pending_terrain is None:
            return values[0]
        want = "melee" if "melee" not in self.shown else "magic"
        targets = [f for f in range(1, 8) if terrain_action(pending_terrain["name"], f) == want]
        if not targets:
            return values[0]

        def distance(v) -> int:  # steps left to the nearest face that allows the wanted action
            face = pending_terrain["face"] + (1 if v == "up" else -1)
            return min(abs(face - f) for f in targets) if 1 <= face <= 7 else 99

        return min(values, key=distance)

    def _spell(self, pending: dict, state: dict) -> list[dict]:
        """A showcase spell the engine's cast options say the army's magic can pay for, on a sensible target."""
        options = {o["spell"]: o for o in (pending.get("cast_options") or {}).get("spells", [])}
        elements: dict[str, int] = {}
        for entry in (pending.get("accounting") or {}).values():
            for e in entry.get("may_count_as", []):
                elements[e] = elements.get(e, 0) + int(entry.get("magic", 0))
        army = pending.get("army", "")
        owner = ArmyId.parse(army).owner
        enemies = [a["id"] for a in state.get("armies", []) if a["owner"] != owner]
        wanted = ("Stone Skin", "Hailstorm", "Lightning Strike", "Watery Double", "Palsy", "Ash Storm")
        for name in wanted:
            option = options.get(name)
            if option is None:
                continue
            for element in elements:  # the first of the rolled elements that can pay it
                if element not in option["elements"]:
                    continue
                target = (
                    army if name in ("Stone Skin", "Watery Double") else (enemies[0] if enemies else army)
                )
                return [{"spell": name, "target": target, "element": element}]
        return []


def describe(pending: dict, action: dict) -> str:
    """The director's answer in a plain sentence (what a player at the table would say)."""
    who = pending.get("player_name") or pending.get("player", "")
    kind = action.get("type")
    if kind == "choose":
        label = next(
            (c["label"] for c in pending.get("choices", []) if c["value"] == action["choice"]),
            str(action["choice"]),
        )
        return f"{who}: {label}"
    if kind == "allocate":
        return f"{who} removes {len(action['units'])} unit(s) as losses"
    if kind == "cast":
        spells = action.get("spells") or []
        if not spells:
            return f"{who} casts no spell"
        return f"{who} casts " + ", ".join(f"{s['spell']} ({s['element']}) on {s['target']}" for s in spells)
    if kind == "reinforce":
        return f"{who} moves no reinforcements"
    if kind == "retreat":
        return f"{who} does not retreat"
    return f"{who} answers"


def _topic(pending: dict) -> str:
    """The decision's stable topic (``Decision.topic``), never read from the prompt's words."""
    return pending.get("topic") or ""


def play_demo(store, roller, pace: float, out=None) -> Director:
    director = Director(store, roller, pace=pace, out=out)
    director.thread = threading.Thread(target=director.run, name="demo-director", daemon=True)
    director.thread.start()
    return director
