"""Helpers for the dragon tests: legal set-ups with chosen armies and dragons, placing dragons,
answering decisions by topic.

Players: Alice (p1, home Highland City) and Bob (p2, home Swampland Temple); Bob picks Alice's
proposed Frontier, Coastland Tower.  Alice goes first.  After set-up the armies stand: Alice's home
army at home-p1, her horde at home-p2, her campaign at the Frontier; Bob's home army at home-p2, his
horde at home-p1, his campaign at the Frontier.  Amazons are used where totals matter: their only
species abilities touch magic and minor terrains (V4.01c L783-797), so melee/missile/save totals are
the icons' own.
"""

from __future__ import annotations

from game_support import PASSIVE as PASSIVE  # re-exported: the passive choice values
from game_support import passive_policy

from companion.rules.catalogue import load_catalogue
from companion.rules.core.decisions import Decision
from companion.rules.game import Game


def small(species: str, n: int, start: int = 0) -> list[str]:
    names = [d.name for d in load_catalogue().of_species(species) if d.is_unit and d.health == 1]
    return [names[(start + i) % len(names)] for i in range(n)]


def setup(
    alice=None,
    bob=None,
    force: int = 15,
    dragons=(("Dragons/Red Drake",), ("Dragons/Blue Drake",)),
    species=("Amazons", "Amazons"),
    homes=("Highland City", "Swampland Temple"),
    frontiers=("Coastland Tower", "Flatland Tower"),
) -> dict:
    """`alice`/`bob`: {"home": [...], "horde": [...], "campaign": [...]} die names (default: 5 small
    units each of `species`)."""
    players = []
    for i, (armies, name) in enumerate(((alice, "Alice"), (bob, "Bob"))):
        share = force // 3
        rest = force - 2 * share
        armies = armies or {
            "home": small(species[i], share),
            "horde": small(species[i], share, 1),
            "campaign": small(species[i], rest, 2),
        }
        players.append(
            {
                "name": name,
                "home": homes[i],
                "frontier": frontiers[i],
                "armies": armies,
                "dragons": list(dragons[i]),
            }
        )
    return {"force_size": force, "players": players}


def zero_faces(decision: Decision) -> list[str]:
    """Faces worth nothing for the roll: no ID, no icon of the roll's type (saves and melee/missile
    for a dragon response)."""
    roll = decision.data.get("roll")
    counted = {"dragon": ("Melee", "Missile", "Save")}.get(roll, (str(roll).capitalize(),))
    out = []
    for die in decision.dice:
        faces = die["faces"]
        ok = [f for f in faces if not f.endswith(" ID") and f.split(" ", 1)[1] not in counted]
        ok.sort(key=lambda f: (f.split(" ", 1)[1] not in ("Magic", "Maneuver", "Save", "Missile", "Melee"),))
        out.append(ok[0] if ok else faces[0])
    return out


def passive(decision: Decision) -> dict:
    if decision.kind == "roll":
        if decision.data.get("roll") == "terrain":
            return {"type": "roll", "faces": ["3"]}
        if decision.data.get("roll") == "dragon" and "dragon" in decision.data:
            return {"type": "roll", "faces": ["0 Belly"]}
        if "order of play" in decision.prompt:  # Alice rolls all IDs, Bob nothing: no endless ties
            if decision.player == "p1":
                return {
                    "type": "roll",
                    "faces": [next(f for f in d["faces"] if f.endswith(" ID")) for d in decision.dice],
                }
            return {"type": "roll", "faces": zero_faces(decision)}
        return {"type": "roll", "faces": zero_faces(decision)}
    if decision.kind == "choice" and "first_turn" in [c["value"] for c in decision.choices]:
        return {"type": "choose", "choice": "first_turn"}
    return passive_policy(decision)  # a passive choice (pass, skip, no, none) where offered, else the first


def new_game(starting=None, **kw) -> Game:
    """A game through set-up (terrains start on `starting[terrain id]` or 3)."""
    starting = starting or {}
    game = Game(setup(**kw))
    for _ in range(200):
        if game.state.phase != "setup":
            break
        d = game.pending
        if d.kind == "roll" and d.data.get("roll") == "terrain":
            game.apply({"type": "roll", "faces": [str(starting.get(d.data["terrain"], 3))]})
        else:
            game.apply(passive(d))
    assert game.state.phase != "setup", "set-up did not finish"
    return game


def dragon_uid(game: Game, name: str, owner: str | None = None, nth: int = 0) -> str:
    full = name if name.startswith("Dragons/") else f"Dragons/{name}"
    found = [
        u.uid for u in game.state.units.values() if u.name == full and (owner is None or u.owner == owner)
    ]
    return found[nth]


def place(game: Game, where: str, *names: str) -> list[str]:
    """Put dragons (by catalogue name, any owner, next not yet placed) at terrain `where`: a test
    shortcut for a summons made earlier."""
    st = game.state
    out = []
    for name in names:
        full = name if name.startswith("Dragons/") else f"Dragons/{name}"
        uid = next(u.uid for u in st.units.values() if u.name == full and st.location[u.uid] == "pool")
        st.location[uid] = where
        out.append(uid)
    return out


def to_dragon_phase(game: Game, player: str = "p2") -> Decision | None:
    """Answer passively until `player`'s dragon attack phase asks its first question."""
    for _ in range(500):
        d = game.pending
        st = game.state
        if st.phase == "dragon_attack" and st.marching == player:
            return d
        game.apply(passive(d))
    raise AssertionError("the dragon attack phase was not reached")


def answer(game: Game, topic: str, value=None, faces=None, units=None) -> dict:
    d = game.pending
    assert d is not None and d.topic == topic, f"expected {topic}, pending {d and d.topic}: {d and d.prompt}"
    if faces is not None:
        return game.apply({"type": "roll", "faces": faces})
    if units is not None:
        return game.apply({"type": "allocate", "units": units})
    return game.apply({"type": "choose", "choice": value})


def faces_of(decision: Decision, pick) -> list[str]:
    """Faces for a roll decision: `pick(die_name, faces)` returns the face for each die."""
    return [pick(d["die"], d["faces"]) for d in decision.dice]


def first(icon: str):
    """A picker: each die shows its first face with this icon (or its ID for "ID")."""

    def pick(_name, faces):
        return next(f for f in faces if f.split(" ", 1)[1] == icon or (icon == "ID" and f.endswith(" ID")))

    return pick


def until_topic(game: Game, topic: str, limit: int = 200) -> Decision:
    for _ in range(limit):
        d = game.pending
        assert d is not None
        if d.topic == topic:
            return d
        game.apply(passive(d))
    raise AssertionError(f"{topic} not reached")


def army_units(game: Game, owner: str, where: str) -> list[str]:
    return [u.name for u in game.state.army(owner, where).units]
