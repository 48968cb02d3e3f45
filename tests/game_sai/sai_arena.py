"""An arena for SAI tests: a started game whose Frontier holds exactly the armies a test names, and a
driver that runs one piece of the flow (an attack, a roll, a phase) with scripted answers.

The flow's own generators are driven (``game._attack``, ``game.roll`` ...), so the code under test is
the game's; only the set-up is shortcut (dice are placed on the table directly).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Mapping

from decision_answers import answer_with, first_option, scripted_faces
from decision_answers import blank_face as blank_face  # re-exported: the tests' face worth nothing
from game_support import plain_setup, setup_done

from companion.rules.core.state import RESERVE, TerrainState, Unit, spec_for
from companion.rules.core.terrains import parse_terrain
from companion.rules.game import Game


def arena(
    p1: list[str],
    p2: list[str],
    terrain: str = "Coastland Tower",
    face: int = 3,
    force: int = 15,
    p1_dua=(),
    p2_dua=(),
    p1_bua=(),
    p2_bua=(),
    p1_pool=(),
    p2_reserve=(),
    p1_reserve=(),
) -> tuple[Game, list[str], list[str]]:
    """Alice (p1) and Bob (p2) each have exactly the dice `p1` / `p2` at the Frontier (`terrain`,
    showing `face`); their other armies stay where set-up put them.  Returns (game, p1 uids, p2 uids)."""
    game = Game(plain_setup(force=force))
    setup_done(game, {"frontier": face})
    st = game.state
    for uid, loc in list(st.location.items()):
        if loc == "frontier":
            st.location[uid] = RESERVE
    st.terrains["frontier"] = TerrainState("frontier", parse_terrain(terrain), "frontier", None, face=face)
    a = put(game, "p1", "frontier", p1)
    b = put(game, "p2", "frontier", p2)
    for owner, area, names in (
        ("p1", "dua", p1_dua),
        ("p2", "dua", p2_dua),
        ("p1", "bua", p1_bua),
        ("p2", "bua", p2_bua),
        ("p1", "pool", p1_pool),
        ("p2", RESERVE, p2_reserve),
        ("p1", RESERVE, p1_reserve),
    ):
        put(game, owner, area, list(names))
    return game, a, b


def put(game: Game, owner: str, location: str, names: list[str]) -> list[str]:
    st = game.state
    out = []
    for name in names:
        uid = f"t{len(st.units) + 1}"
        while uid in st.units:
            uid += "x"
        st.units[uid] = Unit(uid, owner, spec_for(name))
        st.location[uid] = location
        out.append(uid)
    return out


def sai_face(name: str, sai: str) -> str:
    die = spec_for(name)
    hit = [f for f in die.faces if f.split(" ", 1)[1] == sai or f.endswith(" " + sai)]
    assert hit, f"{name} has no {sai} face: {die.faces}"
    return hit[0]


def id_face(name: str) -> str:
    return next(f for f in spec_for(name).faces if f.endswith(" ID"))


def icon_face(name: str, icon: str) -> str:
    """The face of die `name` with the most `icon` results (e.g. "Save")."""
    faces = [f for f in spec_for(name).faces if f.split(" ", 1)[1] == icon]
    assert faces, f"{name} has no {icon} face"
    return max(faces, key=lambda f: int(f.split(" ")[0]))


class Driver:
    """Runs a flow generator, answering its decisions.

    ``faces``: uid -> list of faces, used in order each time that die is rolled; unlisted dice show a
    face worth nothing for the roll.  ``answers``: list of (test, answer) where test is a topic, a
    prompt fragment or a callable on the decision; the first unused match answers (a choice value, a
    list of uids, ... as the decision's kind takes it).  Otherwise the first option is taken."""

    def __init__(
        self,
        game: Game,
        gen: Generator,
        faces: Mapping[str, list[str]] | None = None,
        answers: list | None = None,
    ):
        self.game = game
        self.gen = gen
        self.faces = {k: list(v) for k, v in (faces or {}).items()}
        self.answers = list(answers or [])
        self.decisions: list = []
        self.result = None
        self.done = False

    def _action(self, d) -> dict:
        if d.kind == "roll":
            return {"type": "roll", "faces": scripted_faces(d, self.faces)}
        for i, (test, answer) in enumerate(self.answers):
            hit = test(d) if callable(test) else (test == d.topic or test.lower() in d.prompt.lower())
            if hit:
                self.answers.pop(i)
                return answer_with(d, answer)
        return first_option(d)

    def run(self, limit: int = 200):
        answer = None
        first = True
        for _ in range(limit):
            try:
                d = next(self.gen) if first else self.gen.send(answer)
            except StopIteration as stop:
                self.done = True
                self.result = stop.value
                return self.result
            first = False
            self.decisions.append(d)
            action = self._action(d)
            answer = d.validate(action)
        raise AssertionError("the flow did not finish")

    def topics(self) -> list[str]:
        return [d.topic for d in self.decisions]


def drive(game: Game, gen: Generator, faces=None, answers=None) -> Driver:
    driver = Driver(game, gen, faces, answers)
    driver.run()
    return driver


def attack(
    game: Game,
    kind: str = "melee",
    faces=None,
    answers=None,
    attacker: str = "p1",
    counter: bool = False,
    target_loc: str = "frontier",
    attacker_loc: str = "frontier",
) -> Driver:
    st = game.state
    defender = "p2" if attacker == "p1" else "p1"
    return drive(
        game,
        game.attack(st.army(attacker, attacker_loc), st.army(defender, target_loc), kind, counter),
        faces,
        answers,
    )


def roll(
    game: Game, owner: str, roll_type: str, faces=None, answers=None, location: str = "frontier", **ctx
) -> Driver:
    st = game.state
    return drive(
        game, game.roll(st.army(owner, location), roll_type, "test roll", "test", **ctx), faces, answers
    )


def where(game: Game, uids) -> list[str]:
    return [game.state.location[u] for u in uids]


def topic_is(topic: str) -> Callable:
    return lambda d: d.topic == topic


def wild_growth_roll(
    p1_dua: list[str],
    split: str,
    promote: str = "p0",
    p1: tuple[str, ...] = ("Treefolk/Noble Willow", "Treefolk/Oakling"),
    p2: tuple[str, ...] = ("Amazons/Soldier",),
    roll_type: str = "save",
    against: str = "melee",
) -> tuple[Game, list[str], list[str], Driver]:
    """Alice's first die (a Noble Willow) shows 4 Wild Growth in a roll counting saves; she answers
    the split of its X between saves and promotions (V4.01c L2075-2078) with `split` (e.g.
    "Save:2,promote:2") and the promotion question with `promote`.  Returns (game, Alice's uids at the
    Frontier, her DUA uids as they were before the roll, driver)."""
    game, a, _ = arena(list(p1), list(p2), p1_dua=p1_dua)
    dua = [u.uid for u in game.state.area("p1", "dua")]
    d = roll(
        game,
        "p1",
        roll_type,
        faces={a[0]: ["4 Wild Growth"]},
        against=against,
        answers=[("split its", split), ("Wild Growth: promote", promote)],
    )
    return game, a, dua, d
