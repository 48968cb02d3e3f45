"""The extension points of one V4.01c game: where rule modules plug into the flow.

Each ``Game`` builds its own ``Extensions`` from its set-up (``rulebook.build_extensions``), as the
resolution engine builds one registry per edition: nothing is filled at import time and no module
holds a global list, so two games in one process never share (or leak) a hook.

Hook points (``Extensions.hooks[point]``, each a list run in order; every hook is pure):

* ``"setup"``: fn(game) once the state is built (validate the game options; may raise IllegalSetup);
* ``"roll_dice"``: fn(game, army, roll, dice) -> the dice that take part in the army roll;
* ``"before_roll"``: generator fn(game, army, roll, dice, ctx) -> the dice that roll, after "roll_dice",
  when the roller may leave a die out (a glaring unit, V4.01c L1665-1666);
* ``"before_resolution"``: generator fn(game, army, roll, dice, rolled, ctx) that may replace faces in
  `rolled` (re-rolls ignoring the previous result) before the roll is resolved;
* ``"after_roll"``: generator fn(game, army, roll, outcome, ctx) run once a roll is resolved (SAI reports);
* ``"maneuver_step"``: generator fn(game, pid, location) -> True when it took the place of the maneuver step;
* ``"actions"``: fn(game, pid, location, legal) -> the legal actions (a minor terrain may add one);
* ``"killed"``: fn(game, uid) -> the area a killed die goes to instead of the DUA, or None;
* ``"cleanup"``: fn(game) after every consequence (armies made only of Dragonkin, carriers, burials);
* ``"check_move"``: fn(game, pid, uid, where) raising IllegalAction when a die may not move there;
* ``"check_moves"``: fn(game, pid, moves: {uid: where}) raising IllegalAction for a move set the rules forbid;
* ``"dua_counts"``: fn(game, pid, counts) -> DUA units per species for abilities (Deadlands adds);
* ``"terrain_elements"``: fn(game, army) -> extra elements of the army's terrain (a minor terrain's);
* ``"retreat_step"``: generator fn(game, pid) at the end of the Retreat step of the Reserves Phase;
* ``"before_decision"``: generator fn(game) whose decisions come before the flow's next one (items to bury).

Besides: ``phases[phase]`` is a generator fn(game, marching_player) playing a phase whose rules live
in another module (dragon attacks, species abilities); ``spell_effects[name]`` is fn(game, cast) run
when an announced spell is cast (V4.01c L477-480; a generator when it asks for decisions);
``death`` lists the death hooks every kill goes through (``dua.kill_flow``), in their order;
``dragon_response`` / ``dragon_spare`` / ``dragon_control`` join the dragon attack phase (``dragons``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

HOOK_POINTS = (
    "setup",
    "roll_dice",
    "after_roll",
    "maneuver_step",
    "actions",
    "killed",
    "cleanup",
    "check_move",
    "dua_counts",
    "terrain_elements",
    "check_moves",
    "before_resolution",
    "retreat_step",
    "before_roll",
    "before_decision",
)

Hook = Callable[..., Any]


@dataclass
class Extensions:
    """What one game's rule modules plugged into its flow (see the module docstring)."""

    hooks: dict[str, list[Hook]] = field(default_factory=lambda: {point: [] for point in HOOK_POINTS})
    phases: dict[str, Hook] = field(default_factory=dict)
    spell_effects: dict[str, Hook] = field(default_factory=dict)
    death: list[tuple[int, str, Hook]] = field(default_factory=list)
    dragon_response: list[Hook] = field(default_factory=list)
    dragon_spare: list[Hook] = field(default_factory=list)
    dragon_control: list[Hook] = field(default_factory=list)

    def add(self, point: str, *hooks: Hook) -> None:
        """Run `hooks` at `point` (one of ``HOOK_POINTS``), after those added before."""
        if point not in self.hooks:
            raise KeyError(f"no hook point {point!r}; the points are {', '.join(HOOK_POINTS)}")
        self.hooks[point].extend(hooks)

    def add_death_hook(self, order: int, name: str, hook: Hook) -> None:
        """A death hook: kills go through the hooks by (order, name); a name replaces its earlier hook."""
        self.death[:] = [h for h in self.death if h[1] != name]
        self.death.append((order, name, hook))
        self.death.sort(key=lambda h: (h[0], h[1]))
