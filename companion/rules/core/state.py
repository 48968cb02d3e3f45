"""Value types and the game state.

The state is one plain container (``GameState``) that the flow (``companion.rules.game.flow``)
changes only after an input has been validated.  Every die in a player's force is a ``Unit`` (items
and dragons too, told apart by ``kind``) and is at exactly one *location*: a terrain id, or one of the
player's areas ``reserve``, ``dua`` (dead unit area), ``bua`` (buried unit area), ``pool``
(summoning pool).  An *army* is all of one player's dice at one terrain or in their Reserve Area
(V4.01c L230-236); it is derived from the locations, so a die can never be in two armies.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

from .ids import army_text
from .terrains import TerrainKind

if TYPE_CHECKING:
    from ..catalogue.faces import Face
    from ..catalogue.model import Die


RESERVE, DUA, BUA, POOL = "reserve", "dua", "bua", "pool"
AREAS = (RESERVE, DUA, BUA, POOL)
FRONTIER = "frontier"

# Phases of a turn, in order (V4.01c L349-356).
PHASE_EXPIRE = "expire_effects"
PHASE_EIGHTH = "eighth_face"
PHASE_DRAGON = "dragon_attack"
PHASE_SPECIES = "species_abilities"
PHASE_MARCH1 = "first_march"
PHASE_MARCH2 = "second_march"
PHASE_RESERVES = "reserves"
TURN_PHASES = (
    PHASE_EXPIRE,
    PHASE_EIGHTH,
    PHASE_DRAGON,
    PHASE_SPECIES,
    PHASE_MARCH1,
    PHASE_MARCH2,
    PHASE_RESERVES,
)
PHASE_SETUP = "setup"
PHASE_OVER = "game_over"

# Effect expiries used by the rules.
UNTIL_YOUR_NEXT_TURN = "until the beginning of your next turn"  # the caster's next turn, V4.01c L358-359
UNTIL_ITS_NEXT_TURN = (
    "until the beginning of its next turn"  # the affected army's owner's turn, V4.01c L709-724
)
UNTIL_TERRAIN_MANEUVERED = "until the terrain is successfully maneuvered to a new facing"  # V4.01c L2857
INSTANT = "instantaneous"
WHILE_ARMY_EXISTS = "while the target army exists"  # V4.01c L1068-1074
EXPIRIES = (UNTIL_YOUR_NEXT_TURN, UNTIL_ITS_NEXT_TURN, UNTIL_TERRAIN_MANEUVERED, INSTANT, WHILE_ARMY_EXISTS)


@dataclass(frozen=True)
class DieSpec:
    """What a die is: catalogue facts needed by the flow."""

    name: str  # catalogue name, "Species/Unit" for units
    kind: str  # "unit", "item", "dragon"
    health: int  # 0 for items
    species: str = ""
    elements: tuple[str, ...] = ()
    faces: tuple[str, ...] = ()
    size: str = ""
    points: int = 0  # point value for force building (items: see setup.item_points)
    die: Die | None = field(
        default=None, compare=False, repr=False
    )  # the catalogue Die (None: built by hand)

    @property
    def catalogue_die(self) -> Die:
        """The catalogue ``Die`` this spec was read from (``spec_for``); a spec built by hand has none."""
        if self.die is None:
            raise AttributeError(f"{self.name!r} was not read from the catalogue: it has no faces to look up")
        return self.die

    def find_face(self, text: str) -> Face:
        """The catalogue face of this die written `text` (``Die.find_face``)."""
        return self.catalogue_die.find_face(text)


@cache
def spec_for(name: str) -> DieSpec:
    """The ``DieSpec`` of catalogue die `name` ("Dwarves/Footman", "Dragons/Red Drake", "Items/...")."""
    from ..catalogue import CatalogueError, DieKind, load_catalogue
    from .errors import IllegalSetup

    try:
        die = load_catalogue().get(name)
    except CatalogueError as exc:
        raise IllegalSetup(f"unknown die {name!r} ({exc})") from None
    if die.is_unit:
        kind = "unit"
    elif die.is_item:
        kind = "item"
    elif die.kind is DieKind.DRAGON:
        kind = "dragon"
    elif die.kind is DieKind.MINOR_TERRAIN:
        kind = "minor_terrain"
    else:
        raise IllegalSetup(f"{name!r} is a {die.kind.value}: only units, items and dragons belong to a force")
    size = die.size or ""
    if die.kind is DieKind.ARTIFACT:
        size = "Artifact"
    elif die.kind is DieKind.MEDALLION:
        size = "Medallion"
    elif die.kind is DieKind.RELIC:
        size = "Relic"
    return DieSpec(
        name=die.name,
        kind=kind,
        health=0 if kind == "item" else (die.health or 0),
        species=die.species or "",
        elements=tuple(sorted(str(e) for e in die.elements)),
        faces=tuple(f.text() for f in die.faces),
        size=size,
        die=die,
    )


@dataclass(frozen=True)
class Unit:
    """One die of a player's force (unit, item or dragon), with a stable id."""

    uid: str
    owner: str
    spec: DieSpec

    @property
    def health(self) -> int:
        return self.spec.health

    @property
    def is_unit(self) -> bool:
        return self.spec.kind == "unit"

    @property
    def name(self) -> str:
        return self.spec.name


@dataclass(frozen=True)
class Army:
    """All of one player's dice at one terrain or in their Reserve Area (V4.01c L230-236)."""

    owner: str
    location: str  # terrain id or "reserve"
    dice: tuple[Unit, ...]

    @property
    def id(self) -> str:
        return army_id(self.owner, self.location)

    @property
    def units(self) -> tuple[Unit, ...]:
        return tuple(d for d in self.dice if d.is_unit)

    @property
    def health(self) -> int:
        return sum(u.health for u in self.units)

    @property
    def in_reserve(self) -> bool:
        return self.location == RESERVE


def army_id(owner: str, location: str) -> str:
    """The text form of an army's id (``ids.ArmyId``)."""
    return army_text(owner, location)


@dataclass
class TerrainState:
    """A terrain die in play: its kind, the face showing and who controls its eighth face."""

    id: str  # "home-<player>" or "frontier"
    kind: TerrainKind
    role: str  # "home" or "frontier"
    owner: str | None  # player whose Home Terrain it is; None for the Frontier
    face: int = 1
    controller: str | None = None  # player whose army captured the eighth face

    @property
    def name(self) -> str:
        return self.kind.name

    def action(self) -> str | None:
        return None if self.face == 8 else self.kind.action_at(self.face)


@dataclass
class Effect:
    """An effect in force: spell or rule effect, with its owner, target and expiry."""

    id: int
    name: str
    owner: str
    target: str
    expiry: str = UNTIL_YOUR_NEXT_TURN
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class Player:
    id: str
    name: str
    home: str  # terrain id of the Home Terrain
    frontier_proposal: TerrainKind | None = None
    eliminated: bool = False
    force_points: int = 0


@dataclass
class GameState:
    """Everything the table shows, plus where the turn stands."""

    force_size: int
    players: list[Player]
    units: dict[str, Unit] = field(default_factory=dict)
    location: dict[str, str] = field(default_factory=dict)
    terrains: dict[str, TerrainState] = field(default_factory=dict)
    effects: list[Effect] = field(default_factory=list)
    turn_order: list[str] = field(default_factory=list)
    turn: int = 0  # 1-based count of turns taken
    marching: str | None = None
    phase: str = PHASE_SETUP
    march: int = 0
    step: str = ""
    marched: set[str] = field(default_factory=set)
    winner: str | None = None
    win_reason: str = ""
    next_effect_id: int = 1
    last_roll: dict[str, Any] | None = None
    frontier_selector: str | None = None
    spells_announced: list[dict[str, Any]] = field(default_factory=list)

    # -- look-ups -------------------------------------------------------------------------------
    def player(self, pid: str) -> Player:
        for p in self.players:
            if p.id == pid:
                return p
        raise KeyError(pid)

    @property
    def player_ids(self) -> list[str]:
        return [p.id for p in self.players]

    def dice_at(self, owner: str, location: str) -> tuple[Unit, ...]:
        return tuple(
            u for uid, u in self.units.items() if u.owner == owner and self.location[uid] == location
        )

    def army(self, owner: str, location: str) -> Army:
        return Army(owner, location, self.dice_at(owner, location))

    def armies(self, owner: str | None = None, include_reserve: bool = True) -> list[Army]:
        """Armies with at least one unit (items alone are not an army)."""
        found: dict[tuple[str, str], list[Unit]] = {}
        for uid, u in self.units.items():
            loc = self.location[uid]
            if owner is not None and u.owner != owner:
                continue
            if loc in self.terrains or (include_reserve and loc == RESERVE):
                found.setdefault((u.owner, loc), []).append(u)
        out = []
        order = {pid: i for i, pid in enumerate(self.player_ids)}
        tord = {tid: i for i, tid in enumerate(self.terrains)}
        for (own, loc), dice in sorted(
            found.items(), key=lambda kv: (order[kv[0][0]], tord.get(kv[0][1], len(tord)))
        ):
            army = Army(own, loc, tuple(dice))
            if army.units:
                out.append(army)
        return out

    def armies_at(self, terrain_id: str) -> list[Army]:
        return [a for a in self.armies() if a.location == terrain_id]

    def units_in_play(self, owner: str) -> list[Unit]:
        """Units at terrains or in reserve: a player with none of these is eliminated."""
        return [
            u
            for uid, u in self.units.items()
            if u.owner == owner
            and u.is_unit
            and (self.location[uid] in self.terrains or self.location[uid] == RESERVE)
        ]

    def area(self, owner: str, area: str) -> list[Unit]:
        return [u for uid, u in self.units.items() if u.owner == owner and self.location[uid] == area]

    def captured_by(self, pid: str) -> list[TerrainState]:
        return [t for t in self.terrains.values() if t.face == 8 and t.controller == pid]

    def active_players(self) -> list[str]:
        return [pid for pid in self.turn_order if not self.player(pid).eliminated]

    # -- the page's view --------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        def unit_dict(u: Unit) -> dict[str, Any]:
            return {
                "uid": u.uid,
                "die": u.spec.name,
                "kind": u.spec.kind,
                "species": u.spec.species,
                "health": u.spec.health,
                "elements": list(u.spec.elements),
            }

        players = []
        for p in self.players:
            players.append(
                {
                    "id": p.id,
                    "name": p.name,
                    "home": p.home,
                    "eliminated": p.eliminated,
                    "force_points": p.force_points,
                    "captured": [t.id for t in self.captured_by(p.id)],
                    "reserve": [unit_dict(u) for u in self.area(p.id, RESERVE)],
                    "dua": [unit_dict(u) for u in self.area(p.id, DUA)],
                    "bua": [unit_dict(u) for u in self.area(p.id, BUA)],
                    "summoning_pool": [unit_dict(u) for u in self.area(p.id, POOL)],
                }
            )
        terrains = []
        for t in self.terrains.values():
            terrains.append(
                {
                    "id": t.id,
                    "name": t.name,
                    "type": t.kind.type,
                    "eighth_face": t.kind.icon,
                    "elements": list(t.kind.elements),
                    "role": t.role,
                    "owner": t.owner,
                    "face": t.face,
                    "action": t.action(),
                    "controller": t.controller,
                }
            )
        armies = []
        for a in self.armies():
            armies.append(
                {
                    "id": a.id,
                    "owner": a.owner,
                    "location": a.location,
                    "health": a.health,
                    "units": [unit_dict(u) for u in a.dice],
                }
            )
        return {
            "force_size": self.force_size,
            "players": players,
            "terrains": terrains,
            "armies": armies,
            "effects": [
                {
                    "id": e.id,
                    "name": e.name,
                    "owner": e.owner,
                    "target": e.target,
                    "expiry": e.expiry,
                    **e.detail,
                }
                for e in self.effects
            ],
            "turn_order": list(self.turn_order),
            "turn": self.turn,
            "marching_player": self.marching,
            "phase": self.phase,
            "march": self.march,
            "step": self.step,
            "marched": sorted(self.marched),
            "winner": self.winner,
            "win_reason": self.win_reason,
            "last_roll": self.last_roll,
            "spells_announced": list(self.spells_announced),
        }
