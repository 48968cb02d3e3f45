"""The facts about a roll that V4 roll plug-ins look at (what the roll is for, who rolls, where).

A small value type of our own, so that the SAI, species and spell tables stay independent of
how the resolution engine stores its state; the engine builds one per roll.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .contributions import MELEE, MISSILE, SAVE

#: roll purposes (``for``) and save targets (``against``), as in the scenario format
ROLL_FOR = ("maneuver", "melee", "missile", "magic", "save")
SAVE_AGAINST = ("melee", "missile", "magic", "dragon", "individual")


@dataclass(frozen=True, slots=True)
class Situation:
    """One roll as the plug-ins see it.

    ``roll_for``: maneuver, melee, missile, magic or save.  ``against``: for saves, what the
    damage comes from (melee, missile, magic, dragon or individual); a save against a dragon is
    the army's response to a dragon attack (V4.01c L646-693), a combination roll counting melee,
    missile and saves.
    """

    roll_for: str
    against: str | None = None
    counter_attack: bool = False  # a melee (or Defensive Volley missile) counter-attack
    counter_maneuver: bool = False  # rolled to oppose a maneuver
    marching: bool = True  # rolled by the marching army (False: e.g. a roll to resist Flash Flood)
    at_terrain: bool = True  # False: the army is in its Reserve Area
    individual: bool = False  # a unit rolling alone (individual-targeting effect)
    magic_negation: bool = False  # Frostwings Magic Negation roll (V4.01c L860-870)
    terrain_elements: frozenset[str] = frozenset()  # element names of the terrain (and minor terrain)
    #: Dragon attacks: whether any attacking dragon rolled Jaws (Decapitate, Impale, Earthfang)
    dragon_rolled_jaws: bool = False
    #: Bash vs melee: the melee results of the attacking unit it targets (default: the largest)
    bash_target_melee: int = 0
    #: Bash in a dragon attack: the damage the chosen dragon inflicted
    bash_dragon_damage: int = 0
    #: a missile attack at a Reserve Army from a Tower eighth face (Net and Web do nothing)
    tower_shot_at_reserves: bool = False
    #: the rolling units are in the DUA (Exhume): only save-generating SAIs work (L1215-1216)
    in_dua: bool = False
    #: player's choices where a rule offers one, keyed by SAI/ability name -> option label
    choices: Mapping[str, str] = field(default_factory=dict)
    #: result types counted when they differ from the purpose's (a combination roll, L1076-1096)
    counted_override: tuple[str, ...] | None = None
    _counted: tuple[str, ...] = field(default=(), init=False, repr=False, compare=False)
    _key: tuple[Any, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.roll_for not in ROLL_FOR:
            raise ValueError(f"unknown roll purpose {self.roll_for!r}; expected one of {ROLL_FOR}")
        if self.against is not None:
            if self.roll_for != "save":
                raise ValueError(f"'against' is only for save rolls, not {self.roll_for!r}")
            if self.against not in SAVE_AGAINST:
                raise ValueError(f"unknown save target {self.against!r}; expected one of {SAVE_AGAINST}")
        object.__setattr__(self, "_counted", self._compute_counted())
        object.__setattr__(
            self,
            "_key",
            (
                self.roll_for,
                self.against,
                self.counter_attack,
                self.counter_maneuver,
                self.marching,
                self.at_terrain,
                self.individual,
                self.magic_negation,
                self.terrain_elements,
                self.dragon_rolled_jaws,
                self.bash_target_melee,
                self.bash_dragon_damage,
                self.tower_shot_at_reserves,
                self.in_dua,
                tuple(sorted((str(k), str(v)) for k, v in self.choices.items())),
                self._counted,
            ),
        )

    @property
    def key(self) -> tuple[Any, ...]:
        """A hashable summary of everything the plug-in tables read (for caching their answers)."""
        return self._key

    @property
    def is_dragon_attack(self) -> bool:
        return self.roll_for == "save" and self.against == "dragon"

    @property
    def is_maneuver(self) -> bool:
        return self.roll_for == "maneuver"

    @property
    def primary(self) -> str:
        """The result type the roll is for (what an ID generates, L1050-1066): the purpose's own name."""
        return self.roll_for

    @property
    def counted(self) -> tuple[str, ...]:
        """Result types this roll counts, the primary one first.  A dragon attack response counts
        saves, melee and missile (V4.01c L646-693, combination roll L1076-1096)."""
        return self._counted

    def _compute_counted(self) -> tuple[str, ...]:
        if self.counted_override:
            rest = tuple(t for t in self.counted_override if t != self.primary)
            return ((self.primary,) if self.primary in self.counted_override else ()) + rest
        if self.is_dragon_attack:
            return (SAVE, MELEE, MISSILE)
        return (self.primary,)

    @property
    def is_individual(self) -> bool:
        """A unit rolling alone against an effect that targets it (V4.01c L1225-1226)."""
        return self.individual or self.against == "individual"

    def keys(self) -> tuple[str, ...]:
        """Lookup keys, most specific first, for the per-roll-type tables of the plug-ins:
        ``dragon``; ``save_vs_<against>``, ``save``; ``counter_<for>``, ``<for>``; then
        ``individual`` or ``army``; ``non_maneuver`` (any roll not counting maneuver); ``any``."""
        out: list[str] = []
        if self.is_dragon_attack:
            out.append("dragon")
        elif self.roll_for == "save":
            if self.against is not None:
                out.append(f"save_vs_{self.against}")
            if self.is_individual:
                if self.against != "individual":  # saving against an individual-targeting effect (L1210)
                    out.append("save_vs_individual")
                out.append("individual")
            out.append("save")
        else:
            if self.counter_attack:
                out.append(f"counter_{self.roll_for}")
            out.append(self.roll_for)
        if not self.is_individual:
            out.append("army")
        elif "individual" not in out:
            out.append("individual")
        if not self.is_maneuver:
            out.append("non_maneuver")
        out.append("any")
        return tuple(out)
