"""Helpers for the spell and DUA tests: a game at Alice's first march, dice put where a test wants
them, and a driver that casts spells through the real flow (march, magic roll, announcement)."""

from __future__ import annotations

from game_support import faces_for, passive_policy, plain_setup, run_until, setup_done

from companion.rules.core.state import Unit, spec_for
from companion.rules.game import Game

RULEBOOK = "V4.01c"

__all__ = [
    "add_die",
    "answer",
    "cast_spells",
    "clear_army",
    "effect",
    "faces_for",
    "id_face",
    "new_game",
    "passive_policy",
    "drive",
    "max_faces",
    "melee_march",
    "no_id_until",
    "roll_total",
    "scent_of_fear_then_palsy",
    "totals_around_cast",
    "blank_save_total",
    "cast_at_bobs_unit",
    "run_until",
    "show_action",
    "until_topic",
    "units_at",
    "zero_face",
    "zero_faces",
]


def new_game(species=("Undead", "Treefolk"), force: int = 24) -> Game:
    """Alice (p1) and Bob (p2), 8 small units per army; Alice's first march is pending.
    Terrains: home-p1 Highland City (face 3: magic), home-p2 Swampland Temple, frontier Coastland Tower."""
    game = Game(plain_setup(force=force, shares=(8, 8, 8), species=list(species)))
    setup_done(game)
    return game


def add_die(game: Game, owner: str, name: str, location: str) -> str:
    """Put one more die of `owner` at `location` (terrain id, 'reserve', 'dua', 'bua', 'pool')."""
    st = game.state
    uid = f"x{len(st.units) + 1}"
    while uid in st.units:
        uid += "x"
    st.units[uid] = Unit(uid, owner, spec_for(name))
    st.location[uid] = location
    return uid


def units_at(game: Game, owner: str, location: str) -> list[str]:
    return [u.uid for u in game.state.dice_at(owner, location) if u.is_unit]


def clear_army(game: Game, owner: str, location: str, keep: int = 0, to: str = "bua") -> None:
    """Move all but `keep` units of an army out of play (to the BUA by default)."""
    for uid in units_at(game, owner, location)[keep:]:
        game.state.location[uid] = to


def answer(game: Game, value) -> dict:
    d = game.pending
    if d.kind == "choice":
        return game.apply({"type": "choose", "choice": value})
    if d.kind == "roll":
        return game.apply({"type": "roll", "faces": value})
    if d.kind == "allocate":
        return game.apply({"type": "allocate", "units": value})
    raise AssertionError(f"cannot answer {d.kind}")


def cast_spells(
    game: Game, spells: list[dict], location: str = "home-p1", faces: list[str] | None = None, pid: str = "p1"
) -> dict:
    """From Alice's pending first march: march with her army at `location`, skip the maneuver, take
    the magic action (the terrain is set to a magic face), roll `faces` (default: most magic) and
    announce `spells`.  Returns the accepted cast action."""
    st = game.state
    if game.pending.topic == "cast":  # a refused announcement leaves the same decision pending
        return in_announced_order(game, game.apply({"type": "cast", "spells": spells}))
    if location in st.terrains:
        show_action(game, location, "magic")
    d = game.pending
    assert d.topic == "march", d.prompt
    game.apply({"type": "choose", "choice": f"{pid}@{location}"})
    if location in st.terrains:
        game.apply({"type": "choose", "choice": "skip"})
    d = game.pending
    if d.topic == "action":
        game.apply({"type": "choose", "choice": "magic"})
    d = game.pending
    assert d.kind == "roll" and d.data["roll"] == "magic", d.prompt
    game.apply({"type": "roll", "faces": faces or faces_for(d, "magic", "max")})
    d = game.pending
    assert d.topic == "cast", d.prompt
    return in_announced_order(game, game.apply({"type": "cast", "spells": spells}))


def show_action(game: Game, location: str, action: str) -> None:
    """Turn the terrain `location` to its first face whose action is `action`."""
    terrain = game.state.terrains[location]
    terrain.face = next(i for i in range(1, 8) if terrain.kind.action_at(i) == action)


def melee_march(game: Game, location: str = "home-p1", pid: str = "p1") -> None:
    """From `pid`'s pending march: the terrain `location` shows a melee face, the army there marches,
    skips the maneuver and takes the melee action; the melee roll is then pending."""
    show_action(game, location, "melee")
    game.apply({"type": "choose", "choice": f"{pid}@{location}"})
    game.apply({"type": "choose", "choice": "skip"})
    game.apply({"type": "choose", "choice": "melee"})


def in_announced_order(game: Game, out: dict) -> dict:
    """Answer the caster's "which spell resolves next?" (V4.01c L470-473) with the first listed, the
    order announced; the log lines of those answers join `out`'s."""
    while game.pending is not None and game.pending.topic == "spell_order":
        more = game.apply({"type": "choose", "choice": game.pending.choices[0]["value"]})
        out["log"] = out["log"] + more["log"]
    return out


def roll_total(
    game: Game,
    army_id: str,
    roll: str,
    faces: list[str],
    against: str | None = None,
    counter_attack: bool = False,
) -> int:
    """The total an army roll with these faces would give now, spells in force included."""
    from companion.rules.game.rolling import ArmyRoll, resolve_army_roll

    st = game.state
    owner, loc = army_id.split("@", 1)
    army = st.army(owner, loc)
    dice = [d for d in army.dice if d.is_unit]
    terrain = st.terrains.get(loc)
    request = ArmyRoll(
        roll=roll,
        dice=tuple((d, (f,)) for d, f in zip(dice, faces, strict=True)),
        terrain=terrain.kind if terrain else None,
        face=terrain.face if terrain else 1,
        in_reserve=loc == "reserve",
        against=against,
        marching=owner == st.marching,
        effects=game.effects_on(army),
        force_points=st.force_size,
        counter_attack=counter_attack,
    )
    return resolve_army_roll(request).total


def cast_at_bobs_unit(game: Game, spell: str) -> str:
    """Alice casts `spell` at Bob's first unit at her home (home-p1); returns that unit."""
    uid = units_at(game, "p2", "home-p1")[0]
    cast_spells(game, [{"spell": spell, "target": uid}])
    return uid


def totals_around_cast(
    game: Game,
    army_id: str,
    roll: str,
    spell: str,
    target: str | None = None,
    best_for: str | None = None,
    against: str | None = None,
) -> tuple[int, int]:
    """The army's `roll` total, each unit showing its best face for `best_for` (default: `roll`), before
    and after Alice casts `spell` on `target` (default: that army)."""
    faces = max_faces(game, army_id, best_for or roll)
    before = roll_total(game, army_id, roll, faces, against=against)
    cast_spells(game, [{"spell": spell, "target": target or army_id}])
    return before, roll_total(game, army_id, roll, faces, against=against)


def blank_save_total(game: Game, army_id: str) -> int:
    """The army's save total against melee now when every unit shows a face worth nothing for saves:
    what spells and effects in force add."""
    return roll_total(game, army_id, "save", zero_faces(game, army_id, "save"), against="melee")


def scent_of_fear_then_palsy(game: Game) -> tuple[list[str], list[dict]]:
    """Bob keeps three units at the Frontier (his others there go to his BUA); returns those three and
    the announcement Scent of Fear on them, then Palsy on their army."""
    clear_army(game, "p2", "frontier", keep=3)
    three = units_at(game, "p2", "frontier")
    spells = [
        {"spell": "Scent of Fear", "target": "frontier", "units": three},
        {"spell": "Palsy", "target": "p2@frontier"},
    ]
    return three, spells


def zero_faces(game: Game, army_id: str, roll: str) -> list[str]:
    """Faces worth nothing for `roll` for every unit of the army."""
    from game_support import ZERO_PREFERENCE

    owner, loc = army_id.split("@", 1)
    out = []
    for d in game.state.army(owner, loc).units:
        for icon in ZERO_PREFERENCE[roll]:
            hit = [f for f in d.spec.faces if f.split(" ", 1)[1] == icon]
            if hit:
                out.append(hit[0])
                break
    return out


def id_face(game: Game, uid: str) -> str:
    return next(f for f in game.state.units[uid].spec.faces if f.endswith(" ID"))


def zero_face(game: Game, uid: str, roll: str = "save") -> str:
    from game_support import ZERO_PREFERENCE

    faces = game.state.units[uid].spec.faces
    for icon in ZERO_PREFERENCE[roll]:
        hit = [f for f in faces if f.split(" ", 1)[1] == icon]
        if hit:
            return hit[0]
    raise AssertionError(f"no zero face for {roll}")


def effect(game: Game, name: str):
    found = [e for e in game.state.effects if e.name == name]
    return found[0] if found else None


def drive(game: Game, gen, answers=()):
    """Run a flow generator outside the game's own flow (a death batch, a hook), answering its
    decisions with `answers` in order (validated like the flow would); returns its value."""
    answers = list(answers)
    try:
        decision = next(gen)
        while True:
            action = answers.pop(0)
            decision = gen.send(decision.validate(action) if decision.validate else action)
    except StopIteration as stop:
        return stop.value


def until_topic(game: Game, *topics: str, limit: int = 400):
    """Answer passively until a decision of one of `topics` is pending."""
    return run_until(game, lambda d: d.topic in topics, limit=limit)


def max_faces(game: Game, army_id: str, roll: str) -> list[str]:
    """The best face of each unit of the army for `roll` (its ID or the largest icon)."""
    owner, loc = army_id.split("@", 1)
    want = roll.capitalize()
    out = []
    for d in game.state.army(owner, loc).units:

        def score(text: str) -> int:
            n, _, icon = text.partition(" ")
            return int(n) if icon in (want, "ID") else -1

        out.append(max(d.spec.faces, key=score))
    return out


def no_id_until(game: Game, *topics: str, limit: int = 200):
    """Answer until a decision of `topics`: rolls with a face that is no ID and no save (first such),
    allocations with the first legal set, choices passively."""
    for _ in range(limit):
        d = game.pending
        if d.topic in topics:
            return d
        if d.kind == "roll":
            faces = []
            for die in d.dice:
                plain = [f for f in die["faces"] if not f.endswith(" ID") and not f.endswith(" Save")]
                faces.append(plain[0] if plain else die["faces"][0])
            game.apply({"type": "roll", "faces": faces})
        else:
            game.apply(passive_policy(d))
    raise AssertionError("decision not reached")
