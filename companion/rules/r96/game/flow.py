"""The 1996 game flow (edition ``r96``): set-up, three-phase turns, combat, magic, dragons, to a winner.

``R96Game(setup)`` has the interface ``companion.session.GameSession`` drives (like
``companion.rules.game.Game``): ``pending`` (a ``Decision``), ``apply(action)``, ``pending_dict()``,
``over``, ``log`` and ``state`` (``to_dict()``, ``player(pid).name``).  The flow is one generator
that yields decisions and receives validated answers, so replaying the accepted answers rebuilds
the same game.  Set-up R96 L139-262; turn L264-528; damage L530-564; routing L566-608; eighth face
L610-680; SAIs L685-790; racial abilities L792-824; dragons L826-920; modifiers L922-961; spells
L964-1081.  Where a FAQ ruling decides something, the citation says so; see ``RULINGS.md``.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import Any

from ...core import damage as dmg
from ...core.decision_flow import DecisionFlow
from ...core.decisions import Decision, choice
from ...core.errors import (
    IllegalAction,
    IllegalRoll,
    IllegalSetup,
)
from ...core.ids import UNPLACED, ArmyId, army_text, is_army_id, split_army_id
from ...core.setup_steps import add_unit, force_dice, roll_starting_distance
from ...core.state import BUA, DUA, FRONTIER, RESERVE, Effect, Player, TerrainState, Unit
from ...core.terrains import MAGIC, MELEE, MISSILE, parse_terrain
from ...resolution import EffectInForce, RollTerrain, same_outcome
from . import setup as su
from .asking import ask as _ask
from .asking import ask_roll
from .dragon_attacks import DragonAttacks
from .magic_actions import MagicActions
from .options import game_options
from .rolls import Rolled, icon_counts, resolve_roll, roll_request, sai_faces
from .spellbook import (
    BONUS_SAVE_SPELLS,
    ROLL_SPELLS,
    SPELLS,
    R96SpellCard,
)
from .state import R96State

Flow = Generator[Decision, Any, Any]
TERRAIN_TYPES_1996 = ("Coastland", "Flatland", "Highland", "Swampland")
EIGHTH_ICONS_1996 = ("City", "Standing Stones", "Standing Stone", "Temple", "Tower")
START, END = "start", "end"


class _GameEnded96(Exception):
    pass


class R96Game(MagicActions, DragonAttacks, DecisionFlow):
    """One 1996 game: state, the pending decision, the log (``apply``: ``DecisionFlow``)."""

    GAME_OVER_RULE = "R96 L33-35"

    def __init__(self, setup: Mapping[str, Any]):
        if not isinstance(setup, Mapping):
            raise IllegalSetup("the set-up must be a JSON object")
        self.setup = setup
        self.options = game_options(setup.get("options"))
        self.state, self._armies = _build_state(setup, self.options)
        self.state.options = self.options
        self.log: list[str] = []
        self._rolling: Rolled | None = None  # the army roll being asked for (its dice, purpose, context)
        self._flow = self._run()
        self._pending: Decision | None = next(self._flow)

    # -- the interface GameSession uses -----------------------------------------------------------
    def pending_dict(self) -> dict[str, Any] | None:
        if self._pending is None:
            return None
        out = self._pending.to_dict()
        out["edition"] = "r96"
        return out

    def roll_so_far(self, faces: Mapping[str, str]) -> dict[str, int] | None:
        """What the dice set so far add up to (``TableGame.roll_so_far``): the pending army roll
        resolved, as ``_roll`` resolves it (its purpose, terrain, spells in force, options), with only
        the dice that have a face; nothing changes.  None when no army roll is pending, or a face set
        is Rend: that die rolls again and its result comes with the next face (R96 L765-773)."""
        asked = self._army_roll()
        if asked is None:
            return None
        rolled = self._given(asked, faces)
        if not rolled.units:
            return {asked.purpose: 0}
        try:
            self._resolve(rolled)
        except IllegalRoll:
            return None
        if any(r.kind == "reroll_pending" for r in rolled.res.reports):
            return None
        return {asked.purpose: 0, **{k: int(v) for k, v in rolled.totals.items()}}

    def same_results(self, options: Sequence[Mapping[str, str]]) -> bool:
        """Whether the pending army roll comes out the same whichever of ``options`` (each ``{uid: face}``
        over the same dice) its dice show (``TableGame.same_results``): each option's dice resolved as
        ``_roll`` resolves them, the dice no option sets left out, compared by
        ``resolution.same_outcome`` (no SAI moving between units).  Nothing changes; False when no army
        roll is pending."""
        asked = self._army_roll()
        if not options or asked is None:
            return False
        if any(set(o) != set(options[0]) for o in options):
            raise IllegalRoll("every option must set the same dice")
        given = [self._given(asked, o) for o in options]
        terrain, effects = self._where_rolled(given[0])
        made = [roll_request(rolled, terrain, effects, self.options) for rolled in given]
        try:
            return same_outcome([req for req, _ in made], made[0][1])
        except ValueError:  # faces the engine cannot resolve: not the same roll
            return False

    def _army_roll(self) -> Rolled | None:
        """The army roll pending (what ``_roll`` asked for), or None."""
        pending = self._pending
        if pending is None or pending.kind != "roll" or pending.topic != "roll":
            return None
        return self._rolling

    @staticmethod
    def _given(asked: Rolled, faces: Mapping[str, str]) -> Rolled:
        """``asked`` with only the dice ``faces`` sets, showing those faces; a face that is not one of its
        die's is refused (``IllegalRoll``)."""
        units = {u.uid: u for u in asked.units}
        for uid, face in faces.items():
            if uid not in units or face not in units[uid].spec.faces:
                raise IllegalRoll(f"{face!r} is not a face of a die of this roll ({uid!r})")
        tapped = [u for u in asked.units if u.uid in faces]
        return Rolled(
            tapped,
            [[faces[u.uid]] for u in tapped],
            asked.purpose,
            asked.owner,
            asked.location,
            dict(asked.ctx),
        )

    # -- small helpers ----------------------------------------------------------------------------
    def say(self, text: str) -> None:
        self.log.append(text)

    def player_name(self, pid: str) -> str:
        return self.state.player(pid).name

    def _where(self, loc: str) -> str:
        return "the Reserve Area" if loc == RESERVE else self.state.terrains[loc].name

    def _label(self, owner: str, loc: str) -> str:
        return f"{self.player_name(owner)}'s army at {self._where(loc)}"

    def _units(self, owner: str, loc: str) -> list[Unit]:
        return [u for u in self.state.dice_at(owner, loc) if u.is_unit]

    def _dragons_at(self, tid: str) -> list[Unit]:
        st = self.state
        return [u for uid, u in st.units.items() if u.spec.kind == "dragon" and st.location[uid] == tid]

    def _dead(self, pid: str) -> list[Unit]:
        """Dead units of a player (dragons in the dead unit area are not dead units, FAQ95 AIR 2.D)."""
        return [u for u in self.state.area(pid, DUA) if u.is_unit]

    def add_effect(self, name: str, owner: str, target: str, ends: str, of: str, **detail: Any) -> Effect:
        st = self.state
        e = Effect(st.next_effect_id, name, owner, target, ends, {"of": of, "after": st.turn, **detail})
        st.next_effect_id += 1
        st.effects.append(e)
        return e

    # -- rolls --------------------------------------------------------------------------------------
    def _roll_terrain(self, owner: str, loc: str | None, order_of_play: bool = False) -> RollTerrain | None:
        t = self.state.terrains.get(loc or "")
        if t is None or order_of_play:
            return None
        return RollTerrain(
            t.kind.type,
            face=t.face,
            eighth=t.kind.icon,
            controlled=t.face == 8 and t.controller == owner,
            name=t.name,
        )

    def _effects_for(
        self,
        owner: str,
        loc: str | None,
        units: list[Unit],
        target_loc: str | None = None,
        skip: set[int] | None = None,
    ) -> tuple[EffectInForce, ...]:
        """Spells and breaths in force on this roll (army, its terrain, its units; missile fog)."""
        st = self.state
        army = army_text(owner, UNPLACED if loc is None else loc)
        index = {u.uid: i for i, u in enumerate(units)}
        merged: dict[tuple[str, str, frozenset[int], bool], int] = {}
        key: tuple[str, str, frozenset[int], bool]
        for e in st.effects:
            if skip and e.id in skip or e.name not in ROLL_SPELLS:
                continue
            n = int(e.detail.get("castings", 1))
            if e.target == army:
                key = (e.name, "army", frozenset(), e.owner != owner)
            elif loc is not None and e.target == loc:
                key = (e.name, "terrain", frozenset(), e.owner != owner)
            elif e.target in index:
                key = (e.name, "unit", frozenset({index[e.target]}), e.owner != owner)
            elif target_loc is not None and e.target == target_loc and e.name == "Wall of Fog":
                key = (e.name, "opponent", frozenset(), True)
            else:
                continue
            merged[key] = merged.get(key, 0) + n
        out = []
        for (name, target, us, hostile), n in merged.items():
            if not SPELLS.get(name, R96SpellCard(name, "", 0, "", "")).stacks:
                n = 1  # more castings on one target add nothing (FAQ95 FIRE 4.A, WATER 3.C)
            out.append(EffectInForce(name, castings=n, target=target, units=us, hostile=hostile))
        return tuple(out)

    def effects_on(self, army: Any) -> tuple[EffectInForce, ...]:
        """Spells in force on this army or its terrain, as the resolution engine (and the odds) take
        them; the same interface as the V4.01c ``Game.effects_on``."""
        loc = None if army.location in (UNPLACED, "None") else army.location  # "None": logs before ArmyId
        return self._effects_for(army.owner, loc, self._units(army.owner, loc) if loc else [])

    def _resolve(
        self, rolled: Rolled, choices: dict[str, Any] | None = None, skip: set[int] | None = None
    ) -> Rolled:
        terrain, effects = self._where_rolled(rolled, skip)
        try:
            return resolve_roll(rolled, terrain, effects, self.options, choices)
        except ValueError as exc:
            raise IllegalRoll(f"these faces cannot be resolved: {exc}") from None

    def _where_rolled(self, rolled: Rolled, skip: set[int] | None = None) -> tuple[Any, tuple[Any, ...]]:
        """The terrain and the effects in force a roll is resolved with."""
        order = bool(rolled.ctx.get("order_of_play"))
        terrain = self._roll_terrain(rolled.owner, rolled.location, order)
        effects = (
            ()
            if order
            else self._effects_for(
                rolled.owner, rolled.location, rolled.units, rolled.ctx.get("target_loc"), skip
            )
        )
        return terrain, effects

    def _roll(
        self, owner: str, units: list[Unit], purpose: str, loc: str | None, prompt: str, rule: str, **ctx: Any
    ) -> Flow:
        """Ask ``owner`` to roll ``units``; rolls again for Rend (R96 L765-773); returns a ``Rolled``."""
        spec = [{"uid": u.uid, "die": u.name, "faces": list(u.spec.faces)} for u in units]
        need = ctx.pop("need", None)  # (results the roll needs, what for): the page's odds show it
        self._rolling = Rolled(list(units), [], purpose, owner, loc, dict(ctx, in_reserve=loc == RESERVE))
        data: dict[str, Any] = {"roll": purpose, "army": army_text(owner, UNPLACED if loc is None else loc)}
        if need is not None:
            data.update(need=need[0], need_note=need[1])
        faces = yield ask_roll("roll", owner, prompt, rule, dice=spec, data=data)
        rolled = Rolled(
            list(units), [[f] for f in faces], purpose, owner, loc, dict(ctx, in_reserve=loc == RESERVE)
        )
        for _ in range(30):
            self._resolve(rolled)
            again = sorted(
                {r.unit for r in rolled.res.reports if r.kind == "reroll_pending" and r.unit is not None}
            )
            if not again:
                break
            more_spec = [spec[i] for i in again]
            more = yield ask_roll(
                "reroll",
                owner,
                f"{self.player_name(owner)}: roll again "
                + ", ".join(d["die"] for d in more_spec)
                + " (Rend rolls again)",
                "R96 L765-773",
                dice=more_spec,
                data={"roll": purpose, "reroll": True},
            )
            for i, f in zip(again, more, strict=True):
                rolled.faces[i].append(f)
        self.state.last_roll = {
            "army": army_text(owner, UNPLACED if loc is None else loc),
            "roll": purpose,
            "totals": dict(rolled.totals),
            "faces": [
                {"uid": u.uid, "die": u.name, "faces": f} for u, f in zip(units, rolled.faces, strict=True)
            ],
            "steps": [s.as_dict() for s in rolled.res.steps],
        }
        shown = ", ".join(f"{v} {k}" for k, v in rolled.totals.items())
        self.say(f"{self.player_name(owner)} rolled {shown or 'nothing'} ({purpose})")
        return rolled

    # -- the whole game ---------------------------------------------------------------------------
    def _run(self) -> Flow:
        st = self.state
        try:
            yield from self._setup_flow()
            self._check()
            while True:
                for pid in list(st.turn_order):
                    if st.player(pid).eliminated:
                        continue
                    yield from self._turn(pid)
        except _GameEnded96:
            st.phase, st.step = "game_over", ""

    # -- set-up (R96 L139-262) ----------------------------------------------------------------------
    def _setup_flow(self) -> Flow:
        st = self.state
        st.phase, st.step = "setup", "order_of_play"
        order = yield from self._rank(list(st.player_ids))
        st.turn_order = order
        first = order[0]
        self.say("Order of play: " + ", ".join(self.player_name(p) for p in order))
        st.step = "frontier"
        opts = [
            choice(p.id, f"{p.frontier_proposal.name} (proposed by {p.name})")
            for p in st.players
            if p.frontier_proposal is not None
        ]  # every 1996 player proposes one (set-up)
        chosen = yield _ask(
            "select_frontier",
            first,
            "choice",
            f"{self.player_name(first)}: choose the frontier among the proposed terrains",
            "R96 L226-231; FAQ95 SET-UP 3.A",
            opts,
        )
        kind = st.player(chosen).frontier_proposal
        assert kind is not None, "every 1996 player proposes a frontier terrain (set-up)"
        st.terrains[FRONTIER] = TerrainState(FRONTIER, kind, "frontier", None)
        self.say(
            f"The frontier is {kind.name}; the other proposed terrains leave the game (FAQ95 SET-UP 4.D)"
        )
        st.step = "placement"
        for pid in order:
            self._place(self._armies[pid]["home"], st.player(pid).home)
        for pid in order:
            for army in ("horde", "campaign"):
                counts = {t: len(st.armies_at(t)) for t in st.terrains}
                own = {a.location for a in st.armies(pid)}
                if army == "horde":
                    legal = [st.player(o).home for o in order if o != pid]
                    legal = [t for t in legal if t not in own and counts[t] < su.PLACEMENT_CAP]
                else:
                    legal = su.legal_campaign_terrains(list(st.terrains), own, counts)
                if not legal:
                    self._place(self._armies[pid][army], RESERVE)
                    self.say(
                        f"{self.player_name(pid)}'s {army} has no legal terrain and starts in reserve "
                        "(R96 L246-249; FAQ96 SET-UP E.5)"
                    )
                    continue
                where = legal[0]
                if len(legal) > 1:
                    opts = [choice(t, st.terrains[t].name) for t in legal]
                    where = yield _ask(
                        f"place_{army}",
                        pid,
                        "choice",
                        f"{self.player_name(pid)}: place your {army} army",
                        "R96 L233-249; FAQ95 SET-UP 5.C",
                        opts,
                    )
                self._place(self._armies[pid][army], where)
                self.say(f"{self.player_name(pid)}'s {army} army is placed at {st.terrains[where].name}")
        st.step = "distances"
        for pid in order:
            yield from self._terrain_roll(pid, st.terrains[st.player(pid).home])
        yield from self._terrain_roll(first, st.terrains[FRONTIER])

    def _place(self, uids: list[str], where: str) -> None:
        for uid in uids:
            self.state.location[uid] = where

    def _rank(self, group: list[str]) -> Flow:
        """Order of play: horde maneuver rolls, no terrain, cantrips ignored; ties re-roll (R96 L208-224;
        FAQ96 SET-UP D.1-D.3)."""
        totals = {}
        for pid in group:
            units = [self.state.units[u] for u in self._armies[pid]["horde"]]
            r = yield from self._roll(
                pid,
                units,
                "maneuver",
                None,
                f"{self.player_name(pid)}: roll your horde for the order of play",
                "R96 L208-224",
                order_of_play=True,
            )
            totals[pid] = r.total("maneuver")
        out = []
        for g in su.ranked_groups(totals):
            if len(g) == 1:
                out.extend(g)
            else:
                self.say("Tie: " + ", ".join(self.player_name(p) for p in g) + " roll again (R96 L224)")
                out.extend((yield from self._rank(g)))
        return out

    def _terrain_roll(self, pid: str, terrain: TerrainState) -> Flow:
        """Starting distance: roll the terrain die; 8 re-rolls, any other face stands (R96 L251-255)."""
        face, _ = yield from roll_starting_distance(
            pid,
            self.player_name(pid),
            terrain,
            "R96 L251-255",
            su.starting_face,
            self.say,
            "roll again (R96 L253)",
        )
        terrain.face = face
        self.say(f"{terrain.name} starts on face {face}")

    # -- a turn (R96 L264-528) ------------------------------------------------------------------------
    def _turn(self, pid: str) -> Flow:
        st = self.state
        st.turn += 1
        st.marching, st.marched, st.march = pid, set(), 0
        st.phase = "expire_effects"
        self._expire(pid, START)
        st.phase = "eighth_face"
        for t in list(st.terrains.values()):
            if t.face == 8 and t.controller == pid:
                if t.kind.icon == "City":
                    yield from self._city(pid, t)
                elif t.kind.icon == "Temple":
                    yield from self._temple(pid)
        st.phase = "dragon_attack"
        yield from self._dragon_phase(pid)
        for number, phase in ((1, "first_march"), (2, "second_march")):
            st.phase, st.march = phase, number
            if st.player(pid).eliminated:
                break
            yield from self._march(pid, number)
        st.phase, st.march = "reserves", 0
        if not st.player(pid).eliminated:
            yield from self._reserves(pid)
        self._expire(pid, END)

    def _expire(self, pid: str, when: str) -> None:
        st = self.state
        keep = []
        for e in st.effects:
            if e.expiry == when and e.detail.get("of") == pid and st.turn > e.detail.get("after", 0):
                self.say(f"{e.name} ({self.player_name(e.owner)}) ends")
                continue
            keep.append(e)
        st.effects = keep

    def _city(self, pid: str, t: TerrainState) -> Flow:
        """City: recruit a dead common into the controlling army, or promote one of its units (R96 L652-661)."""
        units = self._units(pid, t.id)
        opts = [choice("none", "Neither")]
        seen = set()
        for d in self._dead(pid):
            if d.health == 1 and d.name not in seen:
                seen.add(d.name)
                opts.append(choice(f"recruit:{d.uid}", f"Recruit {d.name}"))
        for live, dead in self._promotions(units, pid):
            opts.append(choice(f"promote:{live.uid}:{dead.uid}", f"Promote {live.name} to {dead.name}"))
        if len(opts) == 1:
            return
        pick = yield _ask(
            "city",
            pid,
            "choice",
            f"{self.player_name(pid)}: your army holds the City of {t.name}: recruit or promote",
            "R96 L652-661",
            opts,
        )
        if pick.startswith("recruit:"):
            self.state.location[pick.split(":")[1]] = t.id
            self.say(f"{self.player_name(pid)} recruits a unit at {t.name}")
        elif pick.startswith("promote:"):
            _, live, dead = pick.split(":")
            self._swap(live, dead)

    def _promotions(
        self, units: list[Unit], pid: str, taken: set[str] | None = None
    ) -> list[tuple[Unit, Unit]]:
        """(live, dead) pairs: the same race, one health more (R96 L655-661, R96-18)."""
        out, seen = [], set()
        for live in units:
            for dead in self._dead(pid):
                if taken and dead.uid in taken:
                    continue
                key = (live.name, dead.name)
                if (
                    dead.spec.species == live.spec.species
                    and dead.health == live.health + 1
                    and key not in seen
                ):
                    seen.add(key)
                    out.append((live, dead))
        return out

    def _swap(self, live: str, dead: str) -> None:
        st = self.state
        where = st.location[live]
        st.location[dead], st.location[live] = where, DUA
        self.say(f"{st.units[live].name} is promoted to {st.units[dead].name}")

    def _temple(self, pid: str) -> Flow:
        """Temple: force another player to bury one dead unit, of that player's choice (R96 L668-673)."""
        st = self.state
        opts = [choice(o, self.player_name(o)) for o in st.turn_order if o != pid and self._dead(o)] + [
            choice("none", "No one")
        ]
        if len(opts) == 1:
            return
        who = yield _ask(
            "temple",
            pid,
            "choice",
            f"{self.player_name(pid)}: your Temple forces a player to bury a dead unit",
            "R96 L668-673",
            opts,
        )
        if who == "none":
            return
        dead = {u.name: u for u in self._dead(who)}
        opts = [choice(u.uid, u.name) for u in dead.values()]
        uid = yield _ask(
            "temple_bury",
            who,
            "choice",
            f"{self.player_name(who)}: choose the dead unit to bury",
            "R96 L668-673",
            opts,
        )
        st.location[uid] = BUA
        self.say(f"{self.player_name(who)} buries {st.units[uid].name}")

    def _march(self, pid: str, number: int) -> Flow:
        """One march: choose an army that has not marched, maneuver, act (R96 L264-290, L483-492;
        FAQ96 TURN A-B: marches and actions are optional, one march per army)."""
        st = self.state
        armies = [a for a in st.armies(pid) if a.location not in st.marched]
        if not armies:
            return
        opts = [choice(a.location, self._label(pid, a.location)) for a in armies] + [
            choice("pass", "No march")
        ]
        loc = yield _ask(
            "march",
            pid,
            "choice",
            f"{self.player_name(pid)}: march {number}: choose an army to act with",
            "R96 L264-290, L483-492; FAQ96 TURN B",
            opts,
        )
        if loc == "pass":
            return
        st.marched.add(loc)
        if loc != RESERVE and not self._paralysed(pid, loc):
            st.step = "maneuver"
            yield from self._maneuver(pid, loc)
        if self._units(pid, loc):
            st.step = "action"
            yield from self._action(pid, loc)
        st.step = ""

    def _maneuver(self, pid: str, tid: str) -> Flow:
        """Maneuver: opposed by counter-maneuvers; the acting army needs as many maneuvers as the best
        counter (ties and 0-0 go to it); counters never add up (R96 L276-309; FAQ96 TURN C-F)."""
        st = self.state
        t = st.terrains[tid]
        opts = [choice("maneuver", "Maneuver"), choice("stay", "Do not maneuver")]
        pick = yield _ask(
            "maneuver",
            pid,
            "choice",
            f"{self.player_name(pid)}: maneuver at {t.name} (face {t.face})?",
            "R96 L276-284",
            opts,
            data={"odds_army": str(ArmyId(pid, tid)), "odds_roll": "maneuver"},
        )
        if pick == "stay":
            return
        counters = []
        for o in st.turn_order:
            if o != pid and self._units(o, tid) and not self._paralysed(o, tid):
                yn = [choice(True, "Counter-maneuver"), choice(False, "Let it pass")]
                if (
                    yield _ask(
                        "counter_maneuver",
                        o,
                        "choice",
                        f"{self.player_name(o)}: counter-maneuver {self.player_name(pid)} at {t.name}?",
                        "R96 L284-290",
                        yn,
                        data={"odds_army": str(ArmyId(o, tid)), "odds_roll": "maneuver"},
                    )
                ):
                    counters.append(o)
        ok = True
        if counters:
            mine = yield from self._roll(
                pid,
                self._units(pid, tid),
                "maneuver",
                tid,
                f"{self.player_name(pid)}: roll your army at {t.name} for maneuvers",
                "R96 L291-297",
            )
            best = 0
            for o in counters:
                r = yield from self._roll(
                    o,
                    self._units(o, tid),
                    "maneuver",
                    tid,
                    f"{self.player_name(o)}: roll to counter-maneuver at {t.name}",
                    "R96 L291-297",
                    counter_maneuver=True,
                    need=(
                        mine.total("maneuver") + 1,
                        "maneuvers to beat the maneuvering army (ties go to it)",
                    ),
                )
                best = max(best, r.total("maneuver"))
            ok = mine.total("maneuver") >= best
            self.say(
                f"The maneuver {'succeeds' if ok else 'fails'} ({mine.total('maneuver')} against {best})"
            )
        if not ok:
            return
        dirs = [choice(d, f"Turn to face {t.face + d}") for d in (1, -1) if 1 <= t.face + d <= 8]
        step = yield _ask(
            "direction",
            pid,
            "choice",
            f"{self.player_name(pid)}: turn {t.name} up or down one face",
            "R96 L276-284",
            dirs,
            data={"terrain": t.id},
        )
        self._turn_terrain(t, step, pid)
        self._check()

    def _turn_terrain(self, t: TerrainState, step: int, by: str | None = None) -> None:
        if t.face == 8:
            self.say(f"{t.name} leaves its eighth face: control is lost (R96 L644-646)")
            t.controller = None
        t.face = max(1, min(8, t.face + step))
        self.say(f"{t.name} turns to face {t.face}")
        if t.face == 8 and by is not None:
            t.controller = by
            self.say(f"{self.player_name(by)} captures {t.name} (R96 L612-617)")

    # -- actions -------------------------------------------------------------------------------------
    def _legal_actions(self, pid: str, loc: str) -> list[str]:
        """Reserve: magic only; at a terrain the face's icon; a controller of the eighth face any,
        its enemies there melee only (R96 L311-314, L617-620; FAQ96 SET-UP; R96-36)."""
        if self._paralysed(pid, loc):
            return []
        if loc == RESERVE:
            return [MAGIC]
        t = self.state.terrains[loc]
        if t.face == 8:
            acts = [MELEE, MISSILE, MAGIC] if t.controller == pid else [MELEE]
        else:
            acts = [t.kind.action_at(t.face)]
        out = []
        for a in acts:
            if a == MELEE and not self._enemies_at(pid, loc):
                continue
            if a == MISSILE and not self._missile_targets(pid, loc):
                continue
            out.append(a)
        return out

    def _paralysed(self, owner: str, loc: str) -> bool:
        """Blue breath: the army rolls only saves until its owner's next turn (R96 L858-860)."""
        return any(
            e.name == "Paralysis" and e.target == army_text(owner, UNPLACED if loc is None else loc)
            for e in self.state.effects
        )

    def _enemies_at(self, pid: str, loc: str) -> list[str]:
        return [o for o in self.state.turn_order if o != pid and self._units(o, loc)]

    def _action(self, pid: str, loc: str) -> Flow:
        legal = self._legal_actions(pid, loc)
        if not legal:
            self.say(f"{self._label(pid, loc)} has no action it can take")
            return
        opts = [choice(a, a.title()) for a in legal] + [choice("none", "No action")]
        act = yield _ask(
            "action",
            pid,
            "choice",
            f"{self.player_name(pid)}: action for {self._label(pid, loc)}",
            "R96 L311-314",
            opts,
            data={"odds_army": str(ArmyId(pid, loc)), "odds_roll": legal[0]},
        )
        if act == MELEE:
            yield from self._melee(pid, loc)
        elif act == MISSILE:
            yield from self._missile(pid, loc)
        elif act == MAGIC:
            yield from self._magic(pid, loc)
        self._check()

    def _choose_army(self, pid: str, owners_locs: list[tuple[str, str]], what: str, rule: str) -> Flow:
        opts = [choice(str(ArmyId(o, loc)), self._label(o, loc)) for o, loc in owners_locs]
        if len(opts) == 1:
            return owners_locs[0]
        picked = yield _ask(
            "target", pid, "choice", f"{self.player_name(pid)}: choose the army to {what}", rule, opts
        )
        return split_army_id(picked)

    # melee (R96 L316-353) -----------------------------------------------------------------------------
    def _melee(self, pid: str, loc: str) -> Flow:
        opp, _ = yield from self._choose_army(
            pid,
            [(o, loc) for o in self._enemies_at(pid, loc)],
            "attack in melee",
            "R96 L325-327; FAQ96 MELEE B",
        )
        mode = yield _ask(
            "melee_mode",
            pid,
            "choice",
            f"{self.player_name(pid)}: skirmish or charge?",
            "R96 L325-353",
            [choice("skirmish", "Skirmish"), choice("charge", "Charge")],
        )
        if mode == "skirmish":
            yield from self._skirmish(pid, opp, loc)
        else:
            yield from self._charge(pid, opp, loc)

    def _skirmish(self, pid: str, opp: str, loc: str) -> Flow:
        """Skirmish: attack, the target saves, then (unless routed or destroyed) counter-attacks and the
        acting army saves (R96 L328-340; FAQ96 MELEE C-E)."""
        att = yield from self._roll(
            pid,
            self._units(pid, loc),
            "melee",
            loc,
            f"{self.player_name(pid)}: roll your army at {self._where(loc)} for melee",
            "R96 L328-331",
        )
        yield from self._attacker_sais(att, opp, loc)
        routed = False
        if att.total("melee") > 0 and self._units(opp, loc):
            routed = yield from self._save_roll(opp, loc, att.total("melee"), MELEE, pid, can_rout=True)
        if routed:
            self.say(
                f"{self._label(opp, loc)} routs and forfeits its counter-attack (R96 L599-600; FAQ96 MELEE D)"
            )
            yield from self._pursue(pid, loc)
            return
        while self._units(opp, loc) and self._units(pid, loc):
            ctr = yield from self._roll(
                opp,
                self._units(opp, loc),
                "melee",
                loc,
                f"{self.player_name(opp)}: counter-attack: roll for melee",
                "R96 L334-337",
                counter_attack=True,
            )
            yield from self._attacker_sais(ctr, pid, loc)
            if ctr.total("melee") <= 0 or not self._units(pid, loc):
                return
            att_routed = yield from self._save_roll(pid, loc, ctr.total("melee"), MELEE, opp, can_rout=True)
            if not att_routed:
                return
            opts = [
                choice("again", "Counter-attack again (FAQ96 MELEE E)"),
                choice("pursue", "Pursue (R96 L579-581)"),
                choice("stop", "Neither"),
            ]
            pick = yield _ask(
                "routed_attacker",
                opp,
                "choice",
                f"{self.player_name(opp)}: the acting army routs",
                "R96 L579-581; FAQ96 MELEE E",
                opts,
            )
            if pick == "pursue":
                yield from self._pursue(opp, loc, ask=False)
                return
            if pick == "stop":
                return

    def _charge(self, pid: str, opp: str, loc: str) -> Flow:
        """Charge: both roll at once; the charger's melee and maneuvers are damage, the target's saves
        reduce it and its melee hits the charger, whose rolled saves never count but whose spell saves
        do (R96 L341-351; FAQ95 MELEE F, J; FAQ96 SAI F-G)."""
        st = self.state
        att = yield from self._roll(
            pid,
            self._units(pid, loc),
            "melee",
            loc,
            f"{self.player_name(pid)}: charge! roll your army",
            "R96 L341-345",
            charge=True,
        )
        dfn = yield from self._roll(
            opp,
            self._units(opp, loc),
            "melee",
            loc,
            f"{self.player_name(opp)}: you are charged: roll for saves and melee",
            "R96 L347-351",
            counted=("melee", "save"),
            against=MELEE,
            charge=True,
            counter_attack=True,
        )
        yield from self._penalty_split(dfn)
        # a defender's Counter in a charge: saves and hits the charger cannot save (R96 L755-757; FAQ96 SAI 3.B)
        counter = sum(x for _, x in sai_faces(dfn, "Counter"))
        t = st.terrains[loc]
        factor = 2 if t.face == 8 and t.controller == opp else 1
        dfn_melee = max(0, dfn.total("melee") - counter)
        dfn_saves = dfn.total("save") + counter * factor
        att_ids, att_saves = icon_counts(att, t.kind.type)
        dfn_ids, dfn_save_icons = icon_counts(dfn, t.kind.type)
        # SAIs: the attacker's first, then the defender's (FAQ96 SAI F); cantrips never change this roll
        yield from self._attacker_sais(att, opp, loc, charge=True)
        yield from self._cantrips(dfn)
        bonus = self._bonus_saves(pid, loc)
        to_def = max(0, att.total("melee") - dfn_saves)
        to_att = max(0, dfn_melee - bonus)
        self.say(
            f"Charge: {to_def} damage to {self._label(opp, loc)}, {to_att} to the charger"
            + (f" (its spells saved {min(bonus, dfn_melee)})" if bonus and dfn_melee else "")
            + (f" and {counter} counter hits, no save" if counter else "")
        )
        yield from self._inflict(opp, loc, to_def, "R96 L347-349")
        yield from self._inflict(pid, loc, to_att + counter, "R96 L349-351; FAQ95 MELEE J")
        if not self.options["routing"] or t.face <= 1:
            return
        # all damage first, then routs (R96 L603-608)
        defender_left = bool(self._units(opp, loc))
        att_rout = (
            bool(self._units(pid, loc))
            and defender_left
            and (
                att_ids > att_saves
                or (self.options["charger_rout_on_tie"] and att_ids == att_saves and att_ids > 0)
            )
        )
        def_rout = defender_left and dfn_ids > dfn_save_icons
        if att_ids and not defender_left:
            self.say("The target army is destroyed: the charger cannot rout (FAQ95 MELEE I)")
        if att_rout and def_rout:
            self.say("Both armies rout: the terrain turns down one face and the action ends (R96 L605-608)")
            self._turn_terrain(t, -1)
            return
        if def_rout:
            self.say(f"{self._label(opp, loc)} routs (R96 L571-574; FAQ96 MELEE G)")
            yield from self._pursue(pid, loc)
        elif att_rout:
            self.say(
                f"{self._label(pid, loc)} routs: {att_ids} ID icons against {att_saves} save icons "
                "(R96 L603-605; FAQ96 MELEE H)"
            )
            yield from self._pursue(opp, loc)

    def _bonus_saves(self, owner: str, loc: str) -> int:
        """Automatic saves from spells on the army (they protect a charger, FAQ95 MELEE J)."""
        total = 0
        for e in self._effects_for(owner, loc, self._units(owner, loc)):
            if e.name in BONUS_SAVE_SPELLS and e.target == "army":
                total += BONUS_SAVE_SPELLS[e.name] * (e.castings if e.name != "Wall of Ice" else 1)
        return total

    def _penalty_split(self, rolled: Rolled) -> Flow:
        """A penalty in a roll used for several effects (charged army, dragon attack) is placed as the
        owner likes, all of it (R96 L934-951, R96-29, R96-30; FAQ95 FIRE 1.E)."""
        counted = [t for t in ("melee", "missile", "save") if t in (rolled.ctx.get("counted") or ())]
        if rolled.purpose == "dragon":
            counted = ["melee", "missile", "save"]
        if len(counted) < 2:
            return
        choices: dict[str, Any] = {}
        for e in self._effects_for(rolled.owner, rolled.location, rolled.units):
            if e.name not in ("Ash Storm", "Palsy") or e.target not in ("army", "terrain"):
                continue
            splits = _compositions(e.castings, len(counted))
            opts = [
                choice(
                    {t: n for t, n in zip(counted, sp, strict=True) if n},
                    ", ".join(f"-{n} {t}" for t, n in zip(counted, sp, strict=True) if n),
                )
                for sp in splits
            ]
            pick = yield _ask(
                "penalty_split",
                rolled.owner,
                "choice",
                f"{self.player_name(rolled.owner)}: place the {e.name} penalty (-{e.castings})",
                "R96 L934-951",
                opts,
            )
            choices[f"{e.name} split"] = pick
        ids = [
            i
            for i, (u, fs) in enumerate(zip(rolled.units, rolled.faces, strict=True))
            if u.spec.find_face(fs[0]).is_id
        ]
        if ids:  # IDs count as whichever result the owner needs (R96 L117-122, L891-893; FAQ95 FIRE 3.D)
            types = [t for t in ("save", "melee", "missile") if t in counted]
            opts = [choice(t, f"ID icons count as {t}") for t in types]
            if len(ids) > 1:  # each ID icon is the owner's to use (FAQ95 FIRE 3.D: per die)
                opts.append(choice("each", "Choose for each unit"))
            pick = yield _ask(
                "id_as",
                rolled.owner,
                "choice",
                f"{self.player_name(rolled.owner)}: what do the ID icons of {len(ids)} unit(s) count as?",
                "R96 L117-122, L889-893",
                opts,
            )
            if pick == "each":
                per = [types[0]] * len(rolled.units)
                for i in ids:
                    name = rolled.units[i].name
                    per[i] = yield _ask(
                        "id_as",
                        rolled.owner,
                        "choice",
                        f"{self.player_name(rolled.owner)}: what does {name}'s ID icon count as?",
                        "R96 L117-122; FAQ95 FIRE 3.D",
                        [choice(t, f"{name}'s ID counts as {t}") for t in types],
                    )
                pick = tuple(per)
            choices["id_as"] = pick
        if choices:
            self._resolve(rolled, choices)

    def _rout_check(self, rolled: Rolled, loc: str) -> bool:
        """More ID icons than save icons routs; spell saves never count; a penalty in force may be put
        on ID icons to avoid it (R96 L571-577; FAQ95 FIRE 1.F, DEATH 2.E; decision D-ROUT-PENALTY)."""
        t = self.state.terrains.get(loc)
        if not self.options["routing"] or t is None or t.face <= 1:
            return False
        ids, saves = icon_counts(rolled, t.kind.type)
        penalty = sum(
            e.castings
            for e in self._effects_for(rolled.owner, loc, rolled.units)
            if e.name in ("Ash Storm", "Palsy") and e.target in ("army", "terrain")
        )
        if ids > saves and ids - min(penalty, ids) <= saves:
            self.say(f"The penalty in force is taken from {ids - saves} ID icon(s): no rout (FAQ95 FIRE 1.F)")
            return False
        return ids > saves

    def _pursue(self, pid: str, loc: str, ask: bool = True) -> Flow:
        """Pursuit: turn the terrain down one face and act again with the new icon (R96 L579-597)."""
        t = self.state.terrains[loc]
        if not self._units(pid, loc) or t.face <= 1:
            return
        if ask:
            go = yield _ask(
                "pursue",
                pid,
                "choice",
                f"{self.player_name(pid)}: pursue the routed army?",
                "R96 L579-581",
                [
                    choice(True, f"Pursue: turn {t.name} to face {t.face - 1} and act again"),
                    choice(False, "Do not pursue"),
                ],
            )
            if not go:
                return
        self._turn_terrain(t, -1)
        self._check()
        yield from self._action(pid, loc)

    def _save_roll(
        self,
        owner: str,
        loc: str,
        damage: int,
        against: str,
        attacker: str | None,
        can_rout: bool,
        counters: bool = False,
    ) -> Flow:
        """The damaged army rolls saves (always, FAQ96 MELEE A; optional with option
        ``optional_save_roll`` when no rout can follow, FAQ95 MELEE A); returns whether it routs."""
        t = self.state.terrains.get(loc)
        rout_possible = can_rout and self.options["routing"] and t is not None and t.face > 1
        if self.options["optional_save_roll"] and not rout_possible:
            opts = [choice(True, "Roll saves"), choice(False, f"Take the {damage} damage unsaved")]
            if not (
                yield _ask(
                    "save_or_not",
                    owner,
                    "choice",
                    f"{self.player_name(owner)}: roll saves against {damage}?",
                    "FAQ95 MELEE A",
                    opts,
                )
            ):
                yield from self._inflict(owner, loc, damage, "FAQ95 MELEE A")
                return False
        sv = yield from self._roll(
            owner,
            self._units(owner, loc),
            "save",
            loc,
            f"{self.player_name(owner)}: roll saves against {damage} {against} damage",
            "R96 L537-545",
            against=against,
            need=(damage, "saves to stop every hit"),
        )
        counter = extra_saves = 0
        if against == MELEE and attacker is not None:
            counter = sum(x for _, x in sai_faces(sv, "Counter"))  # R96 L755-757: hits, no save
        elif counters and attacker is not None:  # cantrip magic damage inside a melee: FAQ96 SAI 3.D
            counter = extra_saves = sum(x for _, x in sai_faces(sv, "Counter"))
        before = {e.id for e in self.state.effects}
        new = yield from self._cantrips(sv)
        if new:  # a cantrip's Stoneskin protects this very roll, other new spells do not (R96 L698-700; FAQ96 SAI G)
            later = {
                e.id for e in self.state.effects if e.id not in before and e.name not in BONUS_SAVE_SPELLS
            }
            self._resolve(sv, skip=later)
        saves = sv.total("save") + extra_saves
        routed = can_rout and self._rout_check(sv, loc)
        self.say(f"{saves} saves against {damage}: {max(0, damage - saves)} damage")
        yield from self._inflict(owner, loc, damage - saves, "R96 L546-560")
        if counter and attacker is not None:
            rule = "R96 L755-757" if against == MELEE else "R96 L755-757; FAQ96 SAI 3.D"
            self.say(f"Counter: {counter} hits on {self._label(attacker, loc)}, no save ({rule})")
            yield from self._inflict(
                attacker, loc, counter, rule if against != MELEE else "R96 L755-757; FAQ96 SAI 3"
            )
        return routed and bool(self._units(owner, loc))

    def _attacker_sais(self, rolled: Rolled, opp: str, loc: str, charge: bool = False) -> Flow:
        """The acting army's SAIs before the target rolls: Smite kills first (skirmish), cantrips cast
        immediate spells (R96 L685-700; FAQ96 SAI E)."""
        smite = sum(x for _, x in sai_faces(rolled, "Smite")) if not charge and rolled.purpose == MELEE else 0
        if smite and self._units(opp, loc):
            self.say(f"Smite: {smite} hits no save can stop (R96 L775-779)")
            yield from self._inflict(opp, loc, smite, "R96 L775-779; FAQ96 SAI E")
        # a cantrip's damaging spell inside a melee attack meets the defender's Counters (FAQ96 SAI 3.D)
        self._melee_cantrip_by = rolled.owner if rolled.purpose == MELEE else None
        try:
            yield from self._cantrips(rolled)
        finally:
            self._melee_cantrip_by = None

    def _cantrips(self, rolled: Rolled) -> Flow:
        """Cantrip outside a magic action buys immediate spells, never doubled (R96 L741-748; FAQ96 SAI 2).
        Returns whether any spell was cast."""
        if rolled.purpose in ("magic", "maneuver"):
            return False
        pools: dict[str, int] = {}
        for i, x in sai_faces(rolled, "Cantrip"):
            key = "/".join(sorted(rolled.units[i].spec.elements))
            pools[key] = pools.get(key, 0) + x
        loc = rolled.location
        if not pools or loc is None or not self._units(rolled.owner, loc):
            return False
        return (yield from self._cast(rolled.owner, loc, pools, immediate=True))

    def _inflict(self, owner: str, loc: str, damage: int, rule: str, bury: bool = False) -> Flow:
        """The owner kills enough units to cover the damage, never in excess (R96 L546-560, R96-12)."""
        units = [(u.uid, u.name, u.health) for u in self._units(owner, loc)]
        if damage <= 0 or not units:
            return
        need = dmg.health_to_kill([h for _, _, h in units], damage)
        if need == 0:
            self.say(
                f"{damage} damage cannot be taken by {self._label(owner, loc)}: no unit dies (R96 L556-560)"
            )
            return
        sets = dmg.legal_allocations(units, damage)
        if len(sets) == 1:  # one legal set (identical dice are interchangeable): no need to ask
            chosen = sets[0]
        else:
            chosen = yield _ask(
                "allocate",
                owner,
                "allocate",
                f"{self.player_name(owner)}: choose units worth {need} health "
                f"to lose from {self._label(owner, loc)} ({damage} damage)",
                "R96 L546-560",
                [{"value": s, "label": ", ".join(self.state.units[u].name for u in s)} for s in sets],
                data={"damage": damage, "army": army_text(owner, UNPLACED if loc is None else loc)},
                validate=lambda a: dmg.check_allocation(units, a.get("units"), damage),
            )
        self._kill(list(chosen), bury)

    def _kill(self, uids: list[str], bury: bool = False) -> None:
        """Dead units go to the dead unit area (or buried); Open Grave sends them to reserve (R96 L1075-1078)."""
        st = self.state
        for uid in uids:
            u = st.units[uid]
            loc = st.location[uid]
            graved = any(
                e.name == "Open Grave" and e.target == str(ArmyId(u.owner, loc)) and e.owner == u.owner
                for e in st.effects
            )
            if graved and not bury:
                st.location[uid] = RESERVE
                self.say(f"{u.name} dies and goes to reserve (Open Grave)")
            else:
                st.location[uid] = BUA if bury else DUA
                self.say(f"{u.name} is {'killed and buried' if bury else 'killed'}")
        self._check()

    # missile (R96 L355-375) ---------------------------------------------------------------------------
    def _missile_targets(self, pid: str, loc: str) -> list[tuple[str, str]]:
        """Same terrain; home to frontier; frontier to any home; a Tower controller anywhere but reserves;
        never home to home (R96 L360-362, L676-678; FAQ96 MISSILE A-B)."""
        st = self.state
        if loc == RESERVE:
            return []
        t = st.terrains[loc]
        tower = t.face == 8 and t.controller == pid and t.kind.icon == "Tower"
        out = []
        for a in st.armies():
            if a.owner == pid or a.location == RESERVE:
                continue
            there = a.location
            if tower or there == loc or FRONTIER in (loc, there):
                out.append((a.owner, there))
        return out

    def _missile(self, pid: str, loc: str) -> Flow:
        opp, tloc = yield from self._choose_army(
            pid, self._missile_targets(pid, loc), "shoot at", "R96 L360-362"
        )
        att = yield from self._roll(
            pid,
            self._units(pid, loc),
            "missile",
            loc,
            f"{self.player_name(pid)}: roll your army for missile",
            "R96 L364-368",
            target_loc=tloc,
        )
        # Bullseye: one unit of the acting player's choice per die, alone saving (R96 L731-736; FAQ96 SAI 1)
        for i, x in sai_faces(att, "Bullseye"):
            targets = self._units(opp, tloc)
            if not targets:
                break
            opts = [choice(u.uid, f"{u.name} ({u.health} health)") for u in targets]
            uid = yield _ask(
                "bullseye",
                pid,
                "choice",
                f"{self.player_name(pid)}: Bullseye ({x}) from {att.units[i].name}: choose the target unit",
                "R96 L731-736",
                opts,
            )
            u = self.state.units[uid]
            if self.options["spells_modify_sais"] and any(
                e.name == "Dancing Lights" for e in self._effects_for(pid, loc, att.units)
            ):
                x //= 2  # FAQ95 FIRE 4.F (FAQ-CONFLICT-2 switched to FAQ95): Dancing Lights halves Bullseye
            r = yield from self._roll(
                opp,
                [u],
                "save",
                tloc,
                f"{self.player_name(opp)}: {u.name} saves alone against Bullseye {x}",
                "R96 L731-736; FAQ96 SAI 1.B",
                against=MISSILE,
                individual=True,
            )
            if x - r.total("save") >= u.health:
                self._kill([uid])
            else:
                self.say(f"{u.name} survives the Bullseye")
        yield from self._cantrips(att)
        if att.total("missile") > 0 and self._units(opp, tloc):
            routed = yield from self._save_roll(
                opp, tloc, att.total("missile"), MISSILE, pid, can_rout=tloc == loc
            )
            if routed:
                self.say(f"{self._label(opp, tloc)} routs (FAQ96 MISSILE D)")
                yield from self._pursue(pid, loc)

    # reserves (R96 L494-528) -------------------------------------------------------------------------
    def _reserves(self, pid: str) -> Flow:
        st = self.state
        st.step = "reinforce"
        reserve = [u.uid for u in st.area(pid, RESERVE) if u.is_unit]
        if reserve:
            moves = yield _ask(
                "reinforce",
                pid,
                "reinforce",
                f"{self.player_name(pid)}: reinforce: move reserve units to a home terrain or the frontier",
                "R96 L504-512",
                data={"units": reserve, "terrains": list(st.terrains)},
                validate=lambda a: self._check_moves(a.get("moves"), set(reserve), set(st.terrains)),
            )
            for uid, dest in moves.items():
                st.location[uid] = dest
            if moves:
                self.say(f"{self.player_name(pid)} reinforces with {len(moves)} unit(s)")
        st.step = "retreat"
        field = [
            u.uid
            for u in st.units.values()
            if u.owner == pid and u.is_unit and st.location[u.uid] in st.terrains
        ]
        if field:
            units = yield _ask(
                "retreat",
                pid,
                "retreat",
                f"{self.player_name(pid)}: retreat: move units to reserve",
                "R96 L514-528",
                data={"units": field},
                validate=lambda a: self._check_retreat(a.get("units"), set(field)),
            )
            for uid in units:
                st.location[uid] = RESERVE
            if units:
                self.say(f"{self.player_name(pid)} retreats {len(units)} unit(s) to reserve")
        st.step = ""
        self._check()

    @staticmethod
    def _check_moves(moves: Any, allowed: set[str], terrains: set[str]) -> dict[str, str]:
        if moves is None:
            return {}
        if not isinstance(moves, Mapping):
            raise IllegalAction("'moves' must map unit ids to terrain ids", "R96 L504-512")
        for uid, dest in moves.items():
            if uid not in allowed:
                raise IllegalAction(f"{uid!r} is not one of your reserve units", "R96 L504-512")
            if dest not in terrains:
                raise IllegalAction(f"{dest!r} is not a terrain in play", "R96 L504-512")
        return dict(moves)

    @staticmethod
    def _check_retreat(units: Any, allowed: set[str]) -> list[str]:
        if units is None:
            return []
        if (
            not isinstance(units, list)
            or any(u not in allowed for u in units)
            or len(set(units)) != len(units)
        ):
            raise IllegalAction("retreat lists your units at terrains, each once", "R96 L514-528")
        return list(units)

    # control, elimination, victory --------------------------------------------------------------------
    def _check(self) -> None:
        st = self.state
        for t in st.terrains.values():
            if t.face == 8 and t.controller is not None and not self._units(t.controller, t.id):
                self.say(f"{t.name} is abandoned by its capturer: it turns back to face 7 (R96 L612-617)")
                t.face, t.controller = 7, None
        keep = []
        for e in st.effects:
            if is_army_id(e.target):
                o, loc = split_army_id(e.target)
                if not self._units(o, loc):
                    continue
            keep.append(e)
        st.effects = keep
        if st.phase == "setup":
            return
        for p in st.players:
            if not p.eliminated and not st.units_in_play(p.id):
                p.eliminated = True
                st.effects = [e for e in st.effects if e.owner != p.id]  # R96 L426-428
                self.say(f"{p.name} has no units left")
        for p in st.players:
            if len(st.captured_by(p.id)) >= 2:
                self._win(p.id, f"{p.name} has captured two terrains (R96 L33-35)")
        alive = [p.id for p in st.players if not p.eliminated]
        if len(alive) == 1:
            self._win(
                alive[0], f"{self.player_name(alive[0])} has the last units in play (decision D-LAST-ARMY)"
            )

    def _win(self, pid: str, reason: str) -> None:
        self.state.winner, self.state.win_reason = pid, reason
        self.say(f"{reason}: {self.player_name(pid)} wins")
        raise _GameEnded96()


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to split ``total`` points into ``parts`` ordered shares."""
    if parts == 1:
        return [(total,)]
    return [(k, *rest) for k in range(total, -1, -1) for rest in _compositions(total - k, parts - 1)]


def _build_state(
    setup: Mapping[str, Any], options: dict[str, Any]
) -> tuple[R96State, dict[str, dict[str, list[str]]]]:
    size = setup.get("force_size")
    players_in = setup.get("players")
    if not isinstance(players_in, list) or len(players_in) < 2:
        raise IllegalSetup("a battle needs two or more players", "R96 L133-137")
    size = su.battle_size(size)
    st = R96State(force_size=size, players=[])

    armies: dict[str, dict[str, list[str]]] = {}
    for i, p in enumerate(players_in, start=1):
        if not isinstance(p, Mapping):
            raise IllegalSetup(f"player {i} must be an object")
        pid = f"p{i}"
        name = str(p.get("name") or pid)
        home = parse_terrain(str(p.get("home", "")))
        front = parse_terrain(str(p.get("frontier", "")))
        for kind in (home, front):
            if kind.type not in TERRAIN_TYPES_1996 or kind.icon not in EIGHTH_ICONS_1996:
                raise IllegalSetup(
                    f"{name}: {kind.name} is not a 1996 terrain (coastland, flatland, highland or "
                    "swampland with a city, standing stones, temple or tower)",
                    "R96 L195-206",
                )
        specs, dragon_specs = force_dice(p, name, "home, campaign and horde", "R96 L157-163", "R96 L146-150")
        total = su.validate_force(size, specs, dragon_specs, options["single_race_home_campaign"], who=name)
        tid = f"home-{pid}"
        st.players.append(Player(pid, name, tid, front, force_points=total))
        st.terrains[tid] = TerrainState(tid, home, "home", pid)
        armies[pid] = {}
        for army in su.ARMY_NAMES:
            armies[pid][army] = [add_unit(st, pid, spec, UNPLACED) for spec in specs[army]]
        for spec in dragon_specs:  # dragons start in their owner's dead unit area (R96 L152-155)
            add_unit(st, pid, spec, DUA)
    return st, armies
