"""The game flow, V4.01c: set-up steps 1-5, then turns of seven phases, to a winner.

``Game(setup)`` validates the forces and starts the flow.  ``game.pending`` is the ``Decision`` the
flow waits for (who, what, the legal choices); ``game.apply(action)`` validates an answer and
moves the game on, or raises a ``GameRuleError`` and changes nothing.  The flow is written as one
generator that yields decisions and receives validated answers, so replaying the accepted answers
in order rebuilds exactly the same game.

Rules followed (citations next to the code): set-up L276-347 and L2454-2489 (multi-player); turn
sequence L349-497; maneuver L370-389; actions L393-480; eighth face L499-535; damage L1104-1119;
multi-player L2490-2505; victory L11-14.
"""

from __future__ import annotations

import random
from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ..core import damage as dmg
from ..core.decision_flow import DecisionFlow
from ..core.decisions import Decision, ask_roll, choice, choose_validator
from ..core.decisions import ask as _ask
from ..core.errors import GameOver, GameRuleError, IllegalAction, IllegalRoll, IllegalSetup, IllegalSpell
from ..core.ids import SEPARATOR, UNPLACED, ArmyId, is_army_id, split_army_id
from ..core.setup_steps import add_unit, force_dice, roll_starting_distance
from ..core.state import (
    BUA,
    DUA,
    FRONTIER,
    INSTANT,
    PHASE_DRAGON,
    PHASE_EIGHTH,
    PHASE_EXPIRE,
    PHASE_MARCH1,
    PHASE_MARCH2,
    PHASE_OVER,
    PHASE_RESERVES,
    PHASE_SETUP,
    PHASE_SPECIES,
    POOL,
    RESERVE,
    UNTIL_ITS_NEXT_TURN,
    UNTIL_TERRAIN_MANEUVERED,
    UNTIL_YOUR_NEXT_TURN,
    Army,
    DieSpec,
    Effect,
    GameState,
    Player,
    TerrainState,
    spec_for,
)
from ..core.terrains import MAGIC, MELEE, MISSILE, parse_terrain
from . import magic as mg
from . import setup as su
from .dua import kill_flow
from .extensions import Extensions
from .rolling import ArmyRoll, RollOutcome, resolve_army_roll
from .rulebook import build_extensions

if TYPE_CHECKING:
    from ..resolution import EffectInForce
    from .magic import AnnouncedSpell

Flow = Generator[Decision, Any, Any]
HOLDING = UNPLACED  # armies revealed but not yet placed (set-up step 4)


class _GameEnded(Exception):
    pass


class _TurnEnded(Exception):
    pass


class Game(DecisionFlow):
    """One game: state, the decision pending and the log of what happened (``apply``: ``DecisionFlow``)."""

    GAME_OVER_RULE = "V4.01c L11-14"

    def __init__(self, setup: Mapping[str, Any]) -> None:
        self.setup = setup
        self.state, self.armies_at_setup = _build_state(setup)
        self.log: list[str] = []
        # what rule modules remember between steps of this game (not state: a replay rebuilds it)
        self.notes: dict[str, Any] = {}
        # the rule modules that join this game's flow (hooks, phases, spell effects), see ``rulebook``
        self.extensions: Extensions = build_extensions(setup)
        for hook in self.extensions.hooks["setup"]:
            hook(self)
        self._flow = self._interleave(self._run())
        self._pending: Decision | None = next(self._flow)

    @property
    def last_army_roll(self) -> ArmyRoll | None:
        """The army roll the last roll of this game built (a Cantrip re-totals it; the page's running
        total resolves it again with the untapped dice left out); None before any roll."""
        return self.notes.get("last_request")

    def pending_dict(self) -> dict[str, Any] | None:
        """The pending decision as data (``DecisionFlow.pending_dict``); a ``cast`` decision also brings
        the cast form's menu, ``cast_options``: the spells the magic could pay for, with their costs and
        kinds of target, and the targets in play (``spells.cast_form``, V4.01c L2085-2156)."""
        out = super().pending_dict()
        if out is not None and out["kind"] == "cast":
            from .spells.cast_form import cast_options

            out["cast_options"] = cast_options(out, self.state.to_dict())
        return out

    def roll_so_far(self, faces: Mapping[str, str]) -> dict[str, int] | None:
        """What the dice set so far add up to (``TableGame.roll_so_far``): the pending roll is given to
        this game with each die not set on its ID face (a placeholder: this game moves on, so call it on
        a copy), then the army roll it built is resolved again with those dice not counting
        (``ArmyRoll.not_counting``, the engine's own way of leaving a die's results out).  None when no
        army roll is pending, the placeholders stop the roll, or a face set makes its die roll again:
        that die's result comes with its next face (V4.01c L1015-1017)."""
        from dataclasses import replace

        given = self._roll_given(faces)
        if given is None:
            return None
        request, uids = given
        untapped = frozenset(uid for uid in uids if uid not in faces)
        outcome = resolve_army_roll(replace(request, not_counting=frozenset(request.not_counting) | untapped))
        return None if outcome.rerolls else {request.roll: int(outcome.total)}

    def same_results(self, options: Sequence[Mapping[str, str]]) -> bool:
        """Whether the pending roll comes out the same whichever of ``options`` (each ``{uid: face}`` over
        the same dice) its dice show (``TableGame.same_results``): a camera sure of the faces but not of
        which look-alike die shows which.  The roll is given to this game once (as ``roll_so_far`` does:
        call it on a copy), then the army roll it built is resolved with each option's faces, the dice
        no option sets not counting, and compared by ``resolution.same_outcome`` (results, magic by
        element, reports; no SAI moving between units).  False when no army roll is pending or the
        placeholders stop the roll."""
        from dataclasses import replace

        from ..resolution import same_outcome
        from .rolling import army_request

        if not options:
            return False
        keys = set(options[0])
        if any(set(o) != keys for o in options):
            raise IllegalRoll("every option must set the same dice")
        for o in options[1:]:
            self._check_faces(o)
        given = self._roll_given(options[0])
        if given is None:
            return False
        request, uids = given
        out = frozenset(request.not_counting) | {uid for uid in uids if uid not in keys}
        requests = [
            army_request(
                replace(
                    request,
                    dice=tuple((u, (o[u.uid],) if u.uid in o else fs) for u, fs in request.dice),
                    not_counting=out,
                )
            )
            for o in options
        ]
        return same_outcome(requests)

    @property
    def _rolled_dice(self) -> list[dict[str, Any]]:
        pending = self._pending
        return list(pending.dice) if pending is not None and pending.kind == "roll" else []

    def _check_faces(self, faces: Mapping[str, str]) -> dict[str, dict[str, Any]]:
        spec = {d["uid"]: d for d in self._rolled_dice}
        for uid, face in faces.items():
            if uid not in spec or face not in spec[uid]["faces"]:
                raise IllegalRoll(f"{face!r} is not a face of a die of this roll ({uid!r})")
        return spec

    def _roll_given(self, faces: Mapping[str, str]) -> tuple[ArmyRoll, list[str]] | None:
        """The army roll this game builds when the pending roll is given ``faces``, each die not set on
        its ID face (a placeholder; the game moves on), and the roll's dice (uids, in order); None when
        no army roll is pending or the roll stops."""
        pending = self._pending
        if pending is None or pending.kind != "roll" or pending.topic != "roll":
            return None
        spec = self._check_faces(faces)

        def placeholder(uid: str) -> str:
            die = self.state.units[uid].spec.catalogue_die
            faces: list[str] = spec[uid]["faces"]
            return next((f for f in faces if die.find_face(f).is_id), faces[0])

        try:
            self.apply({"type": "roll", "faces": [faces.get(uid) or placeholder(uid) for uid in spec]})
        except GameRuleError:
            return None
        request = self.last_army_roll
        return None if request is None else (request, list(spec))

    # -- the context rule modules use (with ``decisions.ask`` to build a decision) ----------------
    def say(self, text: str) -> None:
        """Write one line of what happened to the game's log."""
        self.log.append(text)

    def player_name(self, pid: str) -> str:
        """The name player `pid` plays under."""
        name: str = self.state.player(pid).name
        return name

    def army_label(self, army: Army | str) -> str:
        """The army (or its id) in words: "Ann's army at Highland", "Ben's Horde army" ..."""
        if isinstance(army, str):
            owner, loc = split_army_id(army)
        else:
            owner, loc = army.owner, army.location
        if loc == HOLDING:
            return f"{self.player_name(owner)}'s Horde army"
        if loc in (DUA, BUA, POOL):  # a dead unit rolling alone (Poison, Firebreath: save or be buried)
            return f"{self.player_name(owner)}'s {loc.upper() if loc != POOL else 'Summoning Pool'}"
        where = "Reserve Area" if loc == RESERVE else self.state.terrains[loc].name
        return f"{self.player_name(owner)}'s army at {where}"

    # -- rolls ----------------------------------------------------------------------------------
    def roll(self, army: Army, roll: str, prompt: str, rule: str, **ctx: Any) -> Flow:
        """Ask the owner to roll `army` for `roll` results; resolve; return the RollOutcome.

        Faces that make a die roll again (Rend, Bullseye ...) bring a follow-up roll of those dice."""
        st = self.state
        dice = [d for d in army.dice if d.is_unit or d.spec.kind == "item"]
        for hook in self.extensions.hooks["roll_dice"]:
            dice = hook(self, army, roll, dice)
        for hook in self.extensions.hooks["before_roll"]:
            dice = yield from hook(self, army, roll, dice, ctx)
        spec: list[dict[str, Any]] = [
            {"uid": d.uid, "die": d.name, "faces": list(d.spec.faces)} for d in dice
        ]
        need = ctx.pop("need", None)  # (results the roll needs, what for): the page's odds show it
        data: dict[str, Any] = {"roll": roll, "army": army.id}
        if need is not None:
            data.update(need=need[0], need_note=need[1])
        faces = yield ask_roll(
            "roll",
            army.owner,
            prompt,
            rule,
            dice=spec,
            data=data,
        )
        rolled = [[f] for f in faces]
        terrain = st.terrains.get(army.location)
        controls = terrain is not None and terrain.face == 8 and terrain.controller == army.owner
        order = bool(ctx.get("order_of_play"))
        dua: dict[str, int] = {}
        for u in st.area(army.owner, DUA):
            if u.is_unit:
                dua[u.spec.species] = dua.get(u.spec.species, 0) + 1
        for hook in self.extensions.hooks["dua_counts"]:
            dua = hook(self, army.owner, dua)
        for hook in self.extensions.hooks[
            "before_resolution"
        ]:  # re-rolls ignoring the face shown (Elemental Relic)
            yield from hook(self, army, roll, dice, rolled, ctx)
        # Delayed SAIs, Howl/Screech/Wave, Bash, Magic Negation, Rapid Growth (sai_attack, species_play).
        skip, extra, sai_choices = yield from _sai_attack.before_resolution(
            self, army, roll, dice, rolled, ctx
        )
        for _ in range(20):
            request = ArmyRoll(
                roll=roll,
                dice=tuple((d, tuple(f)) for d, f in zip(dice, rolled, strict=True)),
                terrain=None if terrain is None or order else terrain.kind,
                face=terrain.face if terrain is not None else 1,
                eighth_face=controls and not order,
                in_reserve=army.location == RESERVE,
                against=ctx.get("against"),
                counter_attack=ctx.get("counter_attack", False),
                counter_maneuver=ctx.get("counter_maneuver", False),
                marching=army.owner == st.marching,
                order_of_play=order,
                ids_count=ctx.get("ids_count", True),
                effects=self.effects_on(army, ctx.get("aimed_at")) + extra,
                dua_counts=tuple(sorted(dua.items())),
                force_points=st.force_size,
                individual=bool(ctx.get("individual", False)),
                counted=tuple(ctx.get("counted", ())),
                choices=tuple({**dict(ctx.get("choices") or {}), **sai_choices}.items()),
                not_counting=skip,
                extra_elements=tuple(
                    e for hook in self.extensions.hooks["terrain_elements"] for e in hook(self, army)
                ),
            )
            try:
                outcome = resolve_army_roll(request)
            except ValueError as exc:  # the resolution engine refused the faces
                raise IllegalRoll(f"these faces cannot be resolved: {exc}") from None
            self.notes["last_request"] = request  # a Cantrip's spells may re-total this roll (spells.casting)
            if not outcome.rerolls:
                break
            again = [spec[i] for i in outcome.rerolls]
            more = yield ask_roll(
                "reroll",
                army.owner,
                f"{self.player_name(army.owner)}: roll again "
                + ", ".join(d["die"] for d in again)
                + " (their face makes them roll again)",
                "V4.01c L1015-1017",
                dice=again,
                data={"roll": roll, "army": army.id, "reroll": True},
            )
            for i, face in zip(outcome.rerolls, more, strict=True):
                rolled[i].append(face)
        # a penalty in a combination roll is placed by the owner (V4.01c L1076-1084)
        request, outcome = yield from _roll_choices.penalty_split(self, army, request, outcome)
        self.notes["last_request"] = request
        st.last_roll = {
            "army": army.id,
            "roll": roll,
            "faces": [{"uid": d.uid, "die": d.name, "faces": f} for d, f in zip(dice, rolled, strict=True)],
            **outcome.to_dict(),
        }
        self.say(f"{self.army_label(army)} rolled {outcome.total} {roll}")
        for hook in self.extensions.hooks["after_roll"]:
            yield from hook(self, army, roll, outcome, ctx)
        return outcome

    def effects_on(self, army: Army, aimed_at: str | None = None) -> tuple[EffectInForce, ...]:
        """Spells in force on this army or its terrain, as the resolution engine (and the odds) take them
        (`aimed_at`: the terrain an attack on the army is aimed at, for effects that match it)."""
        st = self.state
        if not st.effects:
            return ()
        from ..resolution import EffectInForce, get_edition

        known = get_edition("v4")
        out = []
        for e in st.effects:
            name = known.canonical_spell(e.name)
            if name is None:
                continue
            if name == "Wall of Fog":  # missile attacks aimed at an army at that terrain (V4.01c L2384-2387)
                if e.target != aimed_at:
                    continue
                where = "terrain"
            elif e.target == army.id:
                where = "army"
            elif e.target == army.location:
                where = "terrain"
            else:
                continue
            out.append(
                EffectInForce(
                    name,
                    castings=int(e.detail.get("castings", 1)),
                    target=where,
                    hostile=e.owner != army.owner,
                )
            )
        return tuple(out)

    def _terrain_roll(self, pid: str, terrain: TerrainState) -> Flow:
        """Starting distance: roll the terrain die; 8 re-rolls, 7 turns to 6 (V4.01c L340-343)."""
        face, rolled = yield from roll_starting_distance(
            pid, self.player_name(pid), terrain, "V4.01c L340-343", su.starting_face, self.say
        )
        terrain.face = face
        self.say(f"{terrain.name} starts on {face}" + (" (7 turned down to 6)" if rolled == "7" else ""))
        return face

    # -- the whole game -------------------------------------------------------------------------
    def _interleave(self, flow: Flow) -> Flow:
        """The flow's decisions, each preceded by those ``extensions.hooks["before_decision"]`` must ask
        first (state they left needing a choice, such as items no unit can carry)."""
        try:
            decision = next(flow)
        except StopIteration:
            return
        while True:
            for hook in self.extensions.hooks["before_decision"]:
                yield from hook(self)
            answer = yield decision
            try:
                decision = flow.send(answer)
            except StopIteration:
                return

    def _run(self) -> Flow:
        try:
            yield from self._setup_flow()
            st = self.state
            while True:
                for pid in list(st.turn_order):
                    if st.player(pid).eliminated:
                        self._expire_effects_of_eliminated(pid)
                        continue
                    try:
                        yield from self._turn(pid)
                    except _TurnEnded:
                        self.say(f"{self.player_name(pid)}'s turn ends: they have no units left")
        except _GameEnded:
            self.state.phase = PHASE_OVER
            self.state.step = ""
            return

    # -- set-up -----------------------------------------------------------------------------------
    def _setup_flow(self) -> Flow:
        st = self.state
        st.phase, st.step = PHASE_SETUP, "order_of_play"
        # Step 4: order of play from Horde maneuver rolls; ties re-roll (V4.01c L312-316, L2458-2464).
        ranked = yield from self._rank(list(st.player_ids))
        top = ranked[0]
        options = [
            choice("first_turn", "Take the first turn"),
            choice("select_frontier", "Select the Frontier Terrain"),
        ]
        pick = yield _ask(
            "first_or_frontier",
            top,
            "choice",
            f"{self.player_name(top)} rolled the most maneuvers: take the first turn or select the Frontier?",
            "V4.01c L318-322",
            options,
            validate=choose_validator(options),
        )
        order, selector = su.turn_order_after_choice(ranked, pick == "first_turn")
        st.turn_order = order
        st.frontier_selector = selector
        self.say("Order of play: " + ", ".join(self.player_name(p) for p in order))
        # Frontier selection (V4.01c L318-326): any proposed frontier; the others leave the game.
        st.step = "frontier"
        proposals = [(p.id, p.frontier_proposal) for p in st.players]
        options = [
            choice(pid, f"{kind.name} (proposed by {self.player_name(pid)})") for pid, kind in proposals
        ]
        chosen = yield _ask(
            "select_frontier",
            selector,
            "choice",
            f"{self.player_name(selector)}: select the Frontier Terrain",
            "V4.01c L324-326",
            options,
            validate=choose_validator(options),
        )
        kind = dict(proposals)[chosen]
        st.terrains[FRONTIER] = TerrainState(FRONTIER, kind, "frontier", None)
        self.say(f"The Frontier is {kind.name}")
        # Placement, player by player in turn order (V4.01c L328-331, L2476-2482).
        st.step = "placement"
        pending_armies = self.armies_at_setup
        for pid in order:
            home = st.player(pid).home
            self._place(pending_armies[pid]["home"], home)
            counts = self._army_counts()
            homes = {p: st.player(p).home for p in order}
            horde_options = su.legal_horde_terrains(pid, homes, counts)
            if not horde_options:
                raise IllegalSetup(
                    f"{self.player_name(pid)} has no Home Terrain left for their Horde army", "V4.01c L330"
                )
            horde_at = yield from self._only_or_choice(
                "place_horde",
                pid,
                f"{self.player_name(pid)}: place your Horde army at another player's Home Terrain",
                "V4.01c L330",
                [
                    choice(t, f"{st.terrains[t].name} ({self.player_name(st.terrains[t].owner)}'s home)")
                    for t in horde_options
                ],
            )
            self._place(pending_armies[pid]["horde"], horde_at)
            counts = self._army_counts()
            own = {a.location for a in st.armies(pid, include_reserve=False)}
            camp_options = su.legal_campaign_terrains(list(st.terrains), own, counts)
            if not camp_options:
                self._place(pending_armies[pid]["campaign"], RESERVE)
                self.say(
                    f"{self.player_name(pid)} has no terrain left for their Campaign army: it starts in Reserve"
                )
                continue
            camp_at = yield from self._only_or_choice(
                "place_campaign",
                pid,
                f"{self.player_name(pid)}: place your Campaign army at a terrain where you have no army",
                "V4.01c L331; FAQ95 SET-UP 5.C",
                [choice(t, st.terrains[t].name) for t in camp_options],
            )
            self._place(pending_armies[pid]["campaign"], camp_at)
        # Step 5: starting distances (V4.01c L338-343).
        st.step = "starting_distance"
        for pid in order:
            yield from self._terrain_roll(pid, st.terrains[st.player(pid).home])
        yield from self._terrain_roll(selector, st.terrains[FRONTIER])

    def _only_or_choice(
        self, topic: str, pid: str, prompt: str, rule: str, opts: list[dict[str, Any]]
    ) -> Flow:
        """The value of the one choice in ``opts``; of several, the one ``pid`` picks (asked on ``topic``)."""
        if len(opts) == 1:
            return opts[0]["value"]
        return (yield _ask(topic, pid, "choice", prompt, rule, opts, validate=choose_validator(opts)))

    def _rank(self, group: list[str]) -> Flow:
        """Order players by Horde maneuver totals; tied players re-roll among themselves until every
        position is clear (V4.01c L316, L2462-2464)."""
        segments: list[list[str]] = [list(group)]
        while any(len(s) > 1 for s in segments):
            i = next(k for k, s in enumerate(segments) if len(s) > 1)
            tied = segments[i]
            totals: dict[str, int] = {}
            for pid in tied:
                horde = self.state.army(pid, HOLDING)
                out = yield from self.roll(
                    horde,
                    "maneuver",
                    f"{self.player_name(pid)}: roll your Horde army for maneuvers (order of play)",
                    "V4.01c L312-316",
                    order_of_play=True,
                )
                totals[pid] = out.total
            split = su.rank_totals(totals)
            for sub in split:
                if len(sub) > 1:
                    self.say(
                        "Tie between " + ", ".join(self.player_name(p) for p in sub) + ": they roll again"
                    )
            segments[i : i + 1] = split
        return [s[0] for s in segments]

    def _place(self, uids: list[str], where: str) -> None:
        for uid in uids:
            self.state.location[uid] = where
        self.say(
            f"{self.player_name(self.state.units[uids[0]].owner)} places an army at "
            + ("the Reserve Area" if where == RESERVE else self.state.terrains[where].name)
        )

    def _army_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for a in self.state.armies(include_reserve=False):
            counts[a.location] = counts.get(a.location, 0) + 1
        return counts

    # -- a turn -----------------------------------------------------------------------------------
    def _turn(self, pid: str) -> Flow:
        st = self.state
        st.turn += 1
        st.marching = pid
        st.marched = set()
        st.march = 0
        # 1. Expire effects (V4.01c L358-359).
        st.phase, st.step = PHASE_EXPIRE, ""
        gone = [
            e
            for e in st.effects
            if (e.owner == pid and e.expiry == UNTIL_YOUR_NEXT_TURN)
            or (e.expiry == UNTIL_ITS_NEXT_TURN and split_army_id(e.target)[0] == pid)
        ]
        st.effects = [e for e in st.effects if e not in gone]
        for e in gone:
            self.say(f"{e.name} ({self.player_name(e.owner)}) on {e.target} expires")
        # 2. Eighth face phase (V4.01c L361-362, L521-535).
        st.phase = PHASE_EIGHTH
        for terrain in list(st.terrains.values()):
            if terrain.face == 8 and terrain.controller == pid:
                if terrain.kind.icon == "City":
                    yield from self._city(pid, terrain)
                elif terrain.kind.icon == "Temple":
                    yield from self._temple(pid, terrain)
        # 3. Dragon attack phase (V4.01c L364-367) and 4. species abilities phase (L369-370): their
        # rules live in the dragons and species-abilities modules, in this game's ``extensions.phases``.
        for phase in (PHASE_DRAGON, PHASE_SPECIES):
            st.phase, st.step = phase, ""
            hook = self.extensions.phases.get(phase)
            if hook is not None:
                yield from hook(self, pid)
        # 5-6. Marches (V4.01c L372-470).
        for number, phase in ((1, PHASE_MARCH1), (2, PHASE_MARCH2)):
            st.phase, st.march = phase, number
            yield from self._march(pid, number)
        # 7. Reserves phase (V4.01c L480-494).
        st.phase, st.march = PHASE_RESERVES, 0
        yield from self._reinforce(pid)
        yield from self._retreat(pid)
        for hook in self.extensions.hooks[
            "retreat_step"
        ]:  # e.g. a Dragonlord rides its tamed dragon (V4.01c L2923-2926)
            yield from hook(self, pid)
        st.step = ""

    def _expire_effects_of_eliminated(self, pid: str) -> None:
        """An eliminated player's spells expire when their turn would come (V4.01c L2504-2505)."""
        gone = [e for e in self.state.effects if e.owner == pid]
        if gone:
            self.state.effects = [e for e in self.state.effects if e.owner != pid]
            self.say(f"{self.player_name(pid)} is eliminated: their spells expire")

    # -- eighth face icons ------------------------------------------------------------------------
    def _city(self, pid: str, terrain: TerrainState) -> Flow:
        """Recruit a small unit to, or promote one unit in, the controlling army (V4.01c L522-524)."""
        st = self.state
        army = st.army(pid, terrain.id)
        dead = st.area(pid, DUA)
        opts = [choice("none", "Do nothing")]
        seen = set()
        for u in dead:
            if u.is_unit and u.health == 1 and u.name not in seen and "Dracolem" not in u.spec.species:
                seen.add(u.name)
                opts.append(choice(f"recruit:{u.uid}", f"Recruit {u.name} from the DUA"))
        for a in army.units:
            # Dragonkin are promoted from the Summoning Pool (V4.01c L1139-1141)
            bigger = st.area(pid, POOL) if a.spec.species == "Dragonkin" else dead
            for u in bigger:
                if (
                    u.is_unit
                    and u.spec.species == a.spec.species
                    and u.health == a.health + 1
                    and a.spec.species != "Dracolem"
                    and (a.name, u.name) not in seen
                ):
                    seen.add((a.name, u.name))
                    opts.append(choice(f"promote:{a.uid}:{u.uid}", f"Promote {a.name} to {u.name}"))
        if len(opts) == 1:
            return
        st.step = "city"
        pick = yield _ask(
            "city",
            pid,
            "choice",
            f"{self.player_name(pid)}: City at {terrain.name}: recruit or promote?",
            "V4.01c L522-524",
            opts,
            validate=choose_validator(opts),
        )
        if pick.startswith("recruit:"):
            uid = pick.split(":")[1]
            st.location[uid] = terrain.id
            self.say(f"City: {self.player_name(pid)} recruits {st.units[uid].name}")
        elif pick.startswith("promote:"):
            _, old, new = pick.split(":")
            st.location[old], st.location[new] = st.location[new], terrain.id
            self.say(f"City: {self.player_name(pid)} promotes {st.units[old].name} to {st.units[new].name}")

    def _temple(self, pid: str, terrain: TerrainState) -> Flow:
        """Force another player to bury a unit of their choice from their DUA (V4.01c L529-531)."""
        st = self.state
        victims = [p for p in st.active_players() if p != pid and any(u.is_unit for u in st.area(p, DUA))]
        if not victims:
            return
        st.step = "temple"
        opts = [choice("none", "Do nothing")] + [
            choice(p, f"Make {self.player_name(p)} bury a unit") for p in victims
        ]
        victim = yield _ask(
            "temple",
            pid,
            "choice",
            f"{self.player_name(pid)}: Temple at {terrain.name}: force a player to bury a dead unit?",
            "V4.01c L529-531",
            opts,
            validate=choose_validator(opts),
        )
        if victim == "none":
            return
        dead = [u for u in st.area(victim, DUA) if u.is_unit]
        opts = []
        seen = set()
        for u in dead:
            if u.name not in seen:
                seen.add(u.name)
                opts.append(choice(u.uid, f"Bury {u.name}"))
        uid = yield from self._only_or_choice(
            "temple_bury",
            victim,
            f"{self.player_name(victim)}: choose a unit in your DUA to bury (Temple)",
            "V4.01c L529-531",
            opts,
        )
        if (yield from _sai_rise.rise_from_the_ashes(self, [uid], "buried")):  # V4.01c L1772-1776
            return
        st.location[uid] = BUA
        self.say(f"Temple: {self.player_name(victim)} buries {st.units[uid].name}")

    # -- marches ----------------------------------------------------------------------------------
    def _march(self, pid: str, number: int) -> Flow:
        st = self.state
        st.step = "choose_army"
        ready = [a for a in st.armies(pid) if a.id not in st.marched]
        if not ready:
            return
        opts = [choice(a.id, f"March with {self.army_label(a)}") for a in ready] + [
            choice("pass", "Do not march")
        ]
        pick = yield _ask(
            "march",
            pid,
            "choice",
            f"{self.player_name(pid)}: {'first' if number == 1 else 'second'} march: which army marches?",
            "V4.01c L372-376, L466-469; FAQ95 TURN B",
            opts,
            validate=choose_validator(opts),
        )
        if pick == "pass":
            self.say(f"{self.player_name(pid)} does not take march {number}")
            return
        st.marched.add(pick)
        location = ArmyId.parse(pick).location
        if location != RESERVE:
            replaced = False
            for hook in self.extensions.hooks["maneuver_step"]:
                replaced = replaced or (yield from hook(self, pid, location))
            if not replaced:
                yield from self._maneuver_step(pid, location)
        yield from self._action_step(pid, location)
        self.cleanup()

    def _maneuver_step(self, pid: str, tid: str) -> Flow:
        """Maneuver: announce, counter-maneuvers, rolls, move the terrain one step (V4.01c L376-389)."""
        st = self.state
        st.step = "maneuver"
        terrain = st.terrains[tid]
        opts = [choice("maneuver", f"Maneuver at {terrain.name}"), choice("skip", "Skip the maneuver step")]
        pick = yield _ask(
            "maneuver",
            pid,
            "choice",
            f"{self.player_name(pid)}: maneuver at {terrain.name} (face {terrain.face})?",
            "V4.01c L376-380",
            opts,
            validate=choose_validator(opts),
            data={"odds_army": st.army(pid, tid).id, "odds_roll": "maneuver"},
        )
        if pick == "skip":
            return
        self.say(f"{self.player_name(pid)} announces a maneuver at {terrain.name}")
        # Every opposing army at the terrain may counter-maneuver (V4.01c L377-379, L2497-2500).
        counters: list[Army] = []
        for other in self.opponents_in_turn_order(pid):
            army = st.army(other, tid)
            if not army.units:
                continue
            opts = [choice("counter", "Counter-maneuver"), choice("no", "Let the maneuver happen")]
            answer = yield _ask(
                "counter_maneuver",
                other,
                "choice",
                f"{self.player_name(other)}: counter-maneuver {self.player_name(pid)}'s maneuver at {terrain.name}?",
                "V4.01c L377-379",
                opts,
                validate=choose_validator(opts),
                data={"odds_army": army.id, "odds_roll": "maneuver"},
            )
            if answer == "counter":
                counters.append(army)
        success = True
        if counters:
            # The marching player rolls first, then opponents in turn order (V4.01c L1003-1006).
            mine = yield from self.roll(
                st.army(pid, tid),
                "maneuver",
                f"{self.player_name(pid)}: roll your army at {terrain.name} for maneuvers",
                "V4.01c L380-383",
            )
            for army in counters:
                theirs = yield from self.roll(
                    army,
                    "maneuver",
                    f"{self.player_name(army.owner)}: roll your army at {terrain.name} to counter-maneuver",
                    "V4.01c L380-383",
                    counter_maneuver=True,
                    need=(mine.total + 1, "maneuvers to beat the marching army (ties go to the marcher)"),
                )
                # Compared one by one, never combined; ties go to the marcher (L381-383, L2499-2500).
                if mine.total < theirs.total or (
                    mine.total == theirs.total and _counter_wins_ties(self, tid)
                ):
                    success = False
            if not success:
                self.say(f"The maneuver at {terrain.name} fails")
                return
        yield from self._move_terrain(pid, terrain)
        yield from _after_maneuver(self, pid, tid)  # Wall of Thorns (spells/earth.py)

    def _move_terrain(self, pid: str, terrain: TerrainState) -> Flow:
        """A successful maneuver must turn the terrain one step up or down (V4.01c L384-386)."""
        st = self.state
        opts = []
        if terrain.face > 1:
            opts.append(choice("down", f"Turn {terrain.name} down to {terrain.face - 1}"))
        if terrain.face < 8:
            opts.append(choice("up", f"Turn {terrain.name} up to {terrain.face + 1}"))
        st.step = "maneuver_direction"
        way = yield _ask(
            "direction",
            pid,
            "choice",
            f"{self.player_name(pid)}: the maneuver succeeds: turn {terrain.name} up or down?",
            "V4.01c L384-386",
            opts,
            validate=choose_validator(opts),
            data={"terrain": terrain.id},
        )
        old = terrain.face
        terrain.face = old + (1 if way == "up" else -1)
        self.say(f"{terrain.name} turns from {old} to {terrain.face}")
        moved = [e for e in st.effects if e.expiry == UNTIL_TERRAIN_MANEUVERED and e.target == terrain.id]
        for e in moved:
            st.effects.remove(e)
            self.say(f"{e.name} on {terrain.name} ends: the terrain was maneuvered")
        if old == 8:
            lost = terrain.controller
            terrain.controller = None
            if lost is not None and lost != pid:
                self.say(
                    f"{self.player_name(lost)} is out-maneuvered and loses control of {terrain.name} (V4.01c L513-517)"
                )
            elif lost is not None:
                self.say(f"{self.player_name(lost)} gives up control of {terrain.name}")
        if terrain.face == 8:
            terrain.controller = pid
            self.say(f"{self.player_name(pid)} captures {terrain.name}")
            if len(st.captured_by(pid)) >= 2:
                self._win(pid, f"{self.player_name(pid)} captured a second terrain")

    def _legal_actions(self, pid: str, location: str) -> list[str]:
        """Which action the army may take (V4.01c L393-400, L508-510)."""
        if location == RESERVE:
            return [MAGIC]
        terrain = self.state.terrains[location]
        if terrain.face == 8:
            legal = [MELEE, MISSILE, MAGIC] if terrain.controller == pid else [MELEE]
        else:
            legal = [terrain.action()]
        for hook in self.extensions.hooks["actions"]:
            legal = hook(self, pid, location, legal)
        return legal

    def _action_step(self, pid: str, location: str) -> Flow:
        st = self.state
        st.step = "action"
        army = st.army(pid, location)
        if not army.units:
            return
        legal = []
        for action in self._legal_actions(pid, location):
            if action == MELEE and not self._melee_targets(pid, location):
                continue
            if action == MISSILE and not self._missile_targets(pid, location):
                continue
            legal.append(action)
        if not legal:
            return
        opts = [choice(a, f"{a.capitalize()} action") for a in legal] + [
            choice("skip", "Skip the action step")
        ]
        pick = yield _ask(
            "action",
            pid,
            "choice",
            f"{self.player_name(pid)}: action with {self.army_label(army)}?",
            "V4.01c L393-400",
            opts,
            validate=choose_validator(opts),
            data={"odds_army": army.id, "odds_roll": legal[0]},
        )
        if pick == MELEE:
            yield from self._melee(pid, location)
        elif pick == MISSILE:
            yield from self._missile(pid, location)
        elif pick == MAGIC:
            yield from self._magic(pid, location)
        self.cleanup()

    def opponents_in_turn_order(self, pid: str) -> list[str]:
        order = self.state.turn_order or self.state.player_ids
        i = order.index(pid)
        rotated = order[i + 1 :] + order[:i]
        return [p for p in rotated if not self.state.player(p).eliminated]

    def _choose_target(self, pid: str, targets: list[Army], what: str, rule: str) -> Flow:
        """Declare the target before rolling (V4.01c L2493-2494)."""
        if len(targets) == 1:
            return targets[0]
        opts = [choice(a.id, f"{self.army_label(a)} ({a.health} health)") for a in targets]
        tid = yield _ask(
            "target",
            pid,
            "choice",
            f"{self.player_name(pid)}: choose the target of your {what}",
            rule,
            opts,
            validate=choose_validator(opts),
        )
        return next(a for a in targets if a.id == tid)

    # -- melee --------------------------------------------------------------------------------------
    def _melee_targets(self, pid: str, location: str) -> list[Army]:
        """An opposing army at the same terrain (V4.01c L403-405)."""
        return [a for a in self.state.armies_at(location) if a.owner != pid]

    def _melee(self, pid: str, location: str) -> Flow:
        st = self.state
        st.step = "melee"
        target = yield from self._choose_target(
            pid, self._melee_targets(pid, location), "melee attack", "V4.01c L403-405"
        )
        self.say(f"{self.army_label(st.army(pid, location))} attacks {self.army_label(target)} in melee")
        yield from self.attack(st.army(pid, location), target, MELEE, counter=False)
        # Counter-attack by the defender, same process (V4.01c L412-415).
        defender = st.army(target.owner, location)
        attacker = st.army(pid, location)
        if (
            defender.units and attacker.units and _sai_attack.may_counter_attack(self, defender)
        ):  # Surprise, Charge, Foul Stench
            opts = [choice("counter", "Counter-attack"), choice("no", "Do not counter-attack")]
            st.step = "counter_attack"
            answer = yield _ask(
                "counter_attack",
                target.owner,
                "choice",
                f"{self.player_name(target.owner)}: counter-attack {self.army_label(attacker)}?",
                "V4.01c L412-415",
                opts,
                validate=choose_validator(opts),
                data={"odds_army": defender.id, "odds_roll": MELEE},
            )
            if answer == "counter":
                yield from self.attack(defender, attacker, MELEE, counter=True)

    def attack(self, attacker: Army, target: Army, kind: str, counter: bool, ids_count: bool = True) -> Flow:
        """Attack roll, save roll if any hits, damage, allocation (V4.01c L405-411, L430-437), with the
        SAIs of both rolls in play (companion.rules.game.sai_attack)."""
        return (yield from _sai_attack.attack(self, attacker, target, kind, counter, ids_count))

    def inflict(self, target: Army, damage: int, save_roll: bool = True) -> Flow:
        st = self.state
        army = st.army(target.owner, target.location)
        units = [(u.uid, u.name, u.health) for u in army.units]
        legal = dmg.legal_allocations(units, damage)
        if legal == [[]]:
            if damage:
                self.say(f"{damage} damage cannot kill any unit without excess: no unit dies (V4.01c L1113)")
            return
        if len(legal) == 1:
            killed = legal[0]
        else:
            st.step = "allocate_damage"
            opts = [{"value": s, "label": ", ".join(st.units[u].name for u in s)} for s in legal]
            killed = yield _ask(
                "allocate",
                army.owner,
                "allocate",
                f"{self.player_name(army.owner)}: {damage} damage to {self.army_label(army)}: choose units worth "
                f"{dmg.health_to_kill([h for _, _, h in units], damage)} health to kill",
                dmg.RULE,
                opts,
                data={
                    "damage": damage,
                    "army": army.id,
                    "health_to_kill": dmg.health_to_kill([h for _, _, h in units], damage),
                },
                validate=lambda a, units=units, damage=damage: dmg.check_allocation(
                    units, a.get("units"), damage
                ),
            )
        yield from kill_flow(self, killed, save_roll=save_roll, cause="damage")  # death hooks: dua.py

    def _kill(self, uids: list[str]) -> None:
        st = self.state
        for uid in uids:
            st.location[uid] = DUA
            for hook in self.extensions.hooks["killed"]:
                st.location[uid] = hook(self, uid) or st.location[uid]
        if uids:
            self.say("Killed: " + ", ".join(st.units[u].name for u in uids))
        self.check_control_and_elimination()

    # -- missile ------------------------------------------------------------------------------------
    def _tower(self, pid: str, location: str) -> bool:
        t = self.state.terrains.get(location)
        return t is not None and t.face == 8 and t.controller == pid and t.kind.icon == "Tower"

    def _missile_targets(self, pid: str, location: str) -> list[Army]:
        """Any opponent army, except home-to-home and reserves, unless from a Tower
        (V4.01c L427-433, L533-535; FAQ96 MISSILE B)."""
        st = self.state
        tower = self._tower(pid, location)
        here = st.terrains[location]
        out = []
        for a in st.armies():
            if a.owner == pid:
                continue
            if tower:
                out.append(a)
                continue
            if a.location == RESERVE:
                continue
            if here.role == "home" and st.terrains[a.location].role == "home" and a.location != location:
                continue
            out.append(a)
        return [a for a in out if not _sai_status.hidden_by_illusion(self, pid, a.id)]  # Illusion, L1667-1675

    def _missile(self, pid: str, location: str) -> Flow:
        st = self.state
        st.step = "missile"
        target = yield from self._choose_target(
            pid, self._missile_targets(pid, location), "missile attack", "V4.01c L427-433"
        )
        self.say(f"{self.army_label(st.army(pid, location))} shoots at {self.army_label(target)}")
        # Against a Reserve army (Tower only) only non-ID missile results count (V4.01c L533-535).
        yield from self.attack(
            st.army(pid, location), target, MISSILE, counter=False, ids_count=target.location != RESERVE
        )
        yield from _species_play.defensive_volley(self, str(ArmyId(pid, location)), target)  # V4.01c L821-824

    # -- magic --------------------------------------------------------------------------------------
    def _magic(self, pid: str, location: str) -> Flow:
        st = self.state
        st.step = "magic"
        army = st.army(pid, location)
        out = yield from self.roll(
            army,
            "magic",
            f"{self.player_name(pid)}: roll {self.army_label(army)} for magic",
            "V4.01c L449-456",
        )
        if out.total <= 0:
            self.say("No magic results")
            return
        terrain = st.terrains.get(location)
        extra: tuple[str, ...] = ()
        if (
            terrain is not None
            and terrain.face == 8
            and terrain.controller == pid
            and terrain.kind.icon == "Standing Stones"
        ):
            extra = terrain.kind.elements  # V4.01c L526-528
        dice = {u.uid: u for u in army.dice}
        accounting = {
            uid: {
                "die": dice[uid].name,
                "magic": n,
                "may_count_as": sorted(
                    set(out.magic_kinds.get(uid) or mg.magic_kinds(dice[uid])) | set(extra)
                ),
            }
            for uid, n in out.magic_by_die.items()
            if n > 0
        }
        st.step = "announce_spells"
        casts = yield _ask(
            "cast",
            pid,
            "cast",
            f"{self.player_name(pid)}: {out.total} magic: announce your spells and their targets",
            "V4.01c L470-480",
            data={"magic": out.total, "accounting": accounting, "army": army.id},
            validate=lambda a, army=army, out=out, extra=extra: self.validate_casts(pid, army, out, extra, a),
        )
        from .spells.casting import cast_announced

        yield from cast_announced(self, pid, army, casts)  # Dispel Magic, lost targets, effects (spells/)

    def validate_casts(
        self, pid: str, army: Army, out: RollOutcome, extra: tuple[str, ...], action: dict[str, Any]
    ) -> list[AnnouncedSpell]:
        from ..catalogue import load_catalogue
        from .spells.registry import announce as announce_spell
        from .spells.registry import check_all as check_all_spells
        from .spells.registry import mixed_payment

        spells = action.get("spells")
        if not isinstance(spells, list):
            raise IllegalSpell("'spells' must be a list of {spell, target, element}")
        cat = load_catalogue()
        casts = []
        for entry in spells:
            if not isinstance(entry, Mapping):
                raise IllegalSpell(f"each spell must be an object, not {entry!r}")
            card = cat.spell(str(entry.get("spell", "")))
            if card is None:
                raise IllegalSpell(f"unknown spell {entry.get('spell')!r}")
            if army.in_reserve and not card.reserve:
                raise IllegalSpell(f"{card.name} cannot be cast from the Reserve Area", "V4.01c L2127-2129")
            color = card.color
            if color in ("Elemental", "Alloy"):
                pay = entry.get("element") or mixed_payment(card.name)  # spells/registry.py
                if not pay:
                    raise IllegalSpell(
                        f"{card.name} is {color}: say which single element pays for it ('element')",
                        "V4.01c L2093-2100",
                    )
                pay = str(pay).capitalize()
            else:
                pay = mg.spell_kinds_accepted(color, "")[0]
            casts.append(
                announce_spell(self, pid, army, card, entry, pay)
            )  # target kinds: spells/registry.py
        check_all_spells(casts)
        mg.check_payment(out.magic_by_die, {u.uid: u for u in army.dice}, casts, extra, out.magic_kinds)
        return casts

    def _target_present(self, target: str) -> bool:
        st = self.state
        if is_army_id(target):
            owner, loc = split_army_id(target)
            return bool(st.army(owner, loc).units)
        if target in st.units:
            return st.location[target] in st.terrains or st.location[target] == RESERVE
        return True

    def check_target(self, pid: str, card: Any, target: Any) -> None:
        """The target must exist when chosen (V4.01c L473-476); Temple shields from death magic (L529-531)."""
        st = self.state
        if not isinstance(target, str) or not target:
            raise IllegalSpell(
                f"{card.name} needs a target (army id, unit id, terrain id, 'dua:<player>' or 'bua:<player>')"
            )
        owner = None
        if is_army_id(target):
            owner, loc = split_army_id(target)
            if owner not in st.player_ids or not st.army(owner, loc).units:
                raise IllegalSpell(f"there is no army {target!r} to target", "V4.01c L473-476")
            if _sai_status.hidden_by_illusion(self, pid, target):
                raise IllegalSpell(
                    f"{target} is hidden by an Illusion: opposing spells cannot target it",
                    "V4.01c L1667-1675",
                )
            protected_at = loc
        elif target in st.units:
            if (
                st.location[target] not in st.terrains
                and st.location[target] != RESERVE
                and card.color != "Elemental"
            ):
                raise IllegalSpell(f"unit {target!r} is not in play", "V4.01c L473-476")
            owner, protected_at = st.units[target].owner, st.location[target]
        elif target in st.terrains:
            return
        elif target.split(":")[0] in (DUA, BUA) and target.split(":")[-1] in st.player_ids:
            return
        else:
            raise IllegalSpell(
                f"{target!r} is not an army, unit, terrain, DUA or BUA in play", "V4.01c L473-476"
            )
        t = st.terrains.get(protected_at)
        if (
            card.color == "Black"
            and owner != pid
            and t is not None
            and t.face == 8
            and t.controller == owner
            and t.kind.icon == "Temple"
        ):
            raise IllegalSpell(
                f"{self.player_name(owner)}'s army controls a Temple: opponents' death magic cannot affect it",
                "V4.01c L529-531",
            )

    # -- reserves phase ---------------------------------------------------------------------------
    def _reinforce(self, pid: str) -> Flow:
        """Reserve units may go to any terrains, split freely (V4.01c L483-487)."""
        st = self.state
        st.step = "reinforce"
        reserve = [u for u in st.area(pid, RESERVE)]
        if not any(u.is_unit for u in reserve):
            return
        moves = yield _ask(
            "reinforce",
            pid,
            "reinforce",
            f"{self.player_name(pid)}: reinforce: move reserve units to terrains (or none)",
            "V4.01c L483-487",
            data={"units": [u.uid for u in reserve], "terrains": list(st.terrains)},
            validate=lambda a: self._validate_moves(a, {u.uid for u in reserve}, set(st.terrains)),
        )
        for uid, where in moves.items():
            st.location[uid] = where
        if moves:
            self.say(f"{self.player_name(pid)} reinforces with " + ", ".join(st.units[u].name for u in moves))
        self.cleanup()

    def _retreat(self, pid: str) -> Flow:
        """Units at terrains may move to the Reserve Area (V4.01c L489-491)."""
        st = self.state
        st.step = "retreat"
        yield from _species_play.air_flight(self, pid)  # Firewalkers, V4.01c L869-872
        at_terrains = [u for uid, u in st.units.items() if u.owner == pid and st.location[uid] in st.terrains]
        if not at_terrains:
            return
        ids = {u.uid for u in at_terrains}

        def validate(action: dict[str, Any]) -> list[str]:
            units = action.get("units")
            if (
                not isinstance(units, list)
                or not all(isinstance(u, str) for u in units)
                or any(u not in ids for u in units)
                or len(set(units)) != len(units)
            ):
                raise IllegalAction(
                    f"'units' must list distinct ids of your dice at terrains: {sorted(ids)}",
                    "V4.01c L489-491",
                )
            for uid in units:
                for hook in self.extensions.hooks["check_move"]:
                    hook(self, pid, uid, RESERVE)
            for hook in self.extensions.hooks["check_moves"]:
                hook(self, pid, {uid: RESERVE for uid in units})
            return list(units)

        units = yield _ask(
            "retreat",
            pid,
            "retreat",
            f"{self.player_name(pid)}: retreat: move units from terrains to your Reserve Area (or none)",
            "V4.01c L489-491",
            data={"units": sorted(ids)},
            validate=validate,
        )
        for uid in units:
            st.location[uid] = RESERVE
        if units:
            self.say(f"{self.player_name(pid)} retreats " + ", ".join(st.units[u].name for u in units))
        self.cleanup()

    def _validate_moves(
        self, action: dict[str, Any], allowed: set[str], terrains: set[str]
    ) -> dict[str, str]:
        moves = action.get("moves")
        if not isinstance(moves, Mapping):
            raise IllegalAction("'moves' must map unit ids to terrain ids", "V4.01c L483-487")
        for uid, where in moves.items():
            if not isinstance(uid, str) or not isinstance(where, str):
                raise IllegalAction(
                    "'moves' must map unit ids (text) to terrain ids (text)", "V4.01c L483-487"
                )
            if uid not in allowed:
                raise IllegalAction(
                    f"{uid!r} is not one of your units in the Reserve Area", "V4.01c L483-487"
                )
            if where not in terrains:
                raise IllegalAction(f"{where!r} is not a terrain in play", "V4.01c L483-487")
            for hook in self.extensions.hooks["check_move"]:
                hook(self, self.state.units[uid].owner, uid, where)
        for hook in self.extensions.hooks["check_moves"]:
            hook(self, self.state.marching, dict(moves))
        return dict(moves)

    # -- consequences -----------------------------------------------------------------------------
    def cleanup(self) -> None:
        """Items without carriers are buried; army effects end with their army (V4.01c L1068-1074,
        L2733-2736); control and elimination are checked."""
        st = self.state
        for uid, u in st.units.items():
            loc = st.location[uid]
            if u.spec.kind == "item" and (loc in st.terrains or loc == RESERVE):
                if not any(v.is_unit for v in st.dice_at(u.owner, loc)):
                    st.location[uid] = BUA
                    self.say(f"{u.name} has no unit to carry it and is buried")
        alive = []
        for e in st.effects:
            if is_army_id(e.target) and e.expiry != INSTANT:
                owner, loc = split_army_id(e.target)
                if not st.army(owner, loc).units:
                    self.say(f"{e.name} ends: its army is gone")
                    continue
            if e.target in st.units and st.location[e.target] in (DUA, BUA):
                continue
            alive.append(e)
        st.effects = alive
        for hook in self.extensions.hooks["cleanup"]:
            hook(self)
        self.check_control_and_elimination()

    def check_control_and_elimination(self) -> None:
        st = self.state
        for t in st.terrains.values():
            if t.face == 8 and t.controller is not None and not st.army(t.controller, t.id).units:
                self.say(
                    f"{self.player_name(t.controller)} no longer has an army at {t.name}: it turns back to 7 (V4.01c L513-517)"
                )
                t.face, t.controller = 7, None
        for p in st.players:
            if not p.eliminated and not st.units_in_play(p.id):
                p.eliminated = True
                self.say(f"{p.name} has no units left and is eliminated")
        alive = [p.id for p in st.players if not p.eliminated]
        if len(alive) == 1:
            self._win(alive[0], f"{self.player_name(alive[0])} has the last surviving units")
        if st.marching is not None and st.player(st.marching).eliminated and st.phase != PHASE_SETUP:
            raise _TurnEnded()

    def _win(self, pid: str, reason: str) -> None:
        st = self.state
        st.winner, st.win_reason = pid, reason
        self.say(f"{reason}: {self.player_name(pid)} wins (V4.01c L11-14)")
        raise _GameEnded()

    # -- effects (used by spells, dragons and SAI modules) ----------------------------------------
    def add_effect(
        self, name: str, owner: str, target: str, expiry: str = UNTIL_YOUR_NEXT_TURN, **detail: Any
    ) -> Effect:
        st = self.state
        effect = Effect(st.next_effect_id, name, owner, target, expiry, dict(detail))
        st.next_effect_id += 1
        st.effects.append(effect)
        return effect


def _advanced_pool(
    p: Mapping[str, Any], name: str, force: int, armies: Mapping[str, list[DieSpec]], n_players: int
) -> list[DieSpec]:
    """Advanced set-up add-ons that start in the Summoning Pool: Dragonkin (V4.01c L2510-2520) and
    minor terrains (L2595-2602)."""
    out = []
    kin = p.get("dragonkin", [])
    if not isinstance(kin, list):
        raise IllegalSetup(f"{name}: 'dragonkin' must be a list of Dragonkin unit names", "V4.01c L2510-2520")
    kin_specs = [spec_for(str(d)) for d in kin]
    for spec in kin_specs:
        if spec.kind != "unit" or spec.species != "Dragonkin":
            raise IllegalSetup(f"{name}: {spec.name} is not a Dragonkin unit", "V4.01c L2510-2520")
    dracolem = sum(su.force_points([d]) for army in armies.values() for d in army if d.species == "Dracolem")
    allowed = su.dragonkin_allowance(force, dracolem)
    health = sum(d.health for d in kin_specs)
    if health > allowed:
        raise IllegalSetup(
            f"{name}: {health} health of Dragonkin, but a {force}-point force "
            f"({dracolem} of Dracolem) allows {allowed}",
            "V4.01c L2512-2514",
        )
    out += kin_specs
    minors = p.get("minor_terrains", [])
    if not isinstance(minors, list):
        raise IllegalSetup(
            f"{name}: 'minor_terrains' must be a list of minor terrain names", "V4.01c L2599-2600"
        )
    minor_specs = [spec_for(str(m) if "/" in str(m) else f"Terrains/{m}") for m in minors]
    for spec in minor_specs:
        if spec.kind != "minor_terrain":
            raise IllegalSetup(f"{name}: {spec.name} is not a minor terrain", "V4.01c L2595-2602")
    if len(minor_specs) > su.minor_terrain_allowance(n_players):
        raise IllegalSetup(
            f"{name}: {len(minor_specs)} minor terrains, but a {n_players}-player game allows "
            f"{su.minor_terrain_allowance(n_players)}",
            "V4.01c L2599-2600",
        )
    return out + minor_specs


def _build_state(setup: Mapping[str, Any]) -> tuple[GameState, dict[str, dict[str, list[str]]]]:
    """Check steps 1-3 of set-up and build the state (armies not yet placed)."""
    if not isinstance(setup, Mapping):
        raise IllegalSetup("the set-up must be an object")
    force = setup.get("force_size")
    if not isinstance(force, int) or isinstance(force, bool) or force <= 0:
        raise IllegalSetup(
            f"force_size must be a positive whole number of points, not {force!r}", "V4.01c L276-281"
        )
    players_in = setup.get("players")
    if not isinstance(players_in, list) or len(players_in) < 2:
        raise IllegalSetup("a game needs a list of at least two players", "V4.01c L259-263")
    players: list[Player] = []
    st = GameState(force_size=force, players=players)
    armies_by_player: dict[str, dict[str, list[str]]] = {}
    seen_ids = set()
    for i, p in enumerate(players_in, start=1):
        if not isinstance(p, Mapping):
            raise IllegalSetup(f"player {i} must be an object")
        pid = str(p.get("id") or f"p{i}")
        if pid in seen_ids or SEPARATOR in pid or ":" in pid:
            raise IllegalSetup(f"player id {pid!r} is repeated or contains '@' or ':'")
        seen_ids.add(pid)
        name = str(p.get("name") or pid)
        home_kind = parse_terrain(str(p.get("home", "")))
        if home_kind.advanced:
            raise IllegalSetup(
                f"{name}: {home_kind.name} is an advanced terrain: only usable as the Frontier",
                "V4.01c L2566",
            )
        frontier_kind = parse_terrain(str(p.get("frontier", "")))
        tid = f"home-{pid}"
        player = Player(pid, name, tid, frontier_kind)
        players.append(player)
        st.terrains[tid] = TerrainState(tid, home_kind, "home", pid)
        specs, dragon_specs = force_dice(
            p, name, "the home, horde and campaign armies", "V4.01c L296-302", "V4.01c L290-292"
        )
        player.force_points = su.validate_force(force, specs, dragon_specs, who=name)
        pool_specs = list(dragon_specs) + _advanced_pool(p, name, force, specs, len(players_in))
        armies_by_player[pid] = {}
        for army_name in su.ARMY_NAMES:
            where = HOLDING if army_name == "horde" else "unplaced-" + army_name
            armies_by_player[pid][army_name] = [add_unit(st, pid, spec, where) for spec in specs[army_name]]
        for spec in pool_specs:
            add_unit(st, pid, spec, POOL)
    # Until placed, the Horde armies wait in a holding place (they roll for the order of play).
    return st, armies_by_player


def play_random(game: Game, rng: random.Random, max_steps: int = 100000) -> int:
    """Answer every decision with a random legal answer until the game ends; returns steps taken."""
    steps = 0
    while game.pending is not None and steps < max_steps:
        game.apply(random_answer(game, rng), rng=rng)
        steps += 1
    return steps


def _or_none(d: Decision, answer: dict[str, Any], none: dict[str, Any]) -> dict[str, Any]:
    """A random move set some rule forbids (a Dragonkin leaving, an item without its carrier) becomes
    no move at all."""
    assert d.validate is not None, "a decision with moves to pick has a validator"
    try:
        d.validate(answer)
    except GameRuleError:
        return none
    return answer


def random_answer(game: Game, rng: random.Random) -> dict[str, Any]:
    """A random legal answer to the pending decision (for property tests, benchmarks, solo play)."""
    d = game.pending
    if d is None:
        raise GameOver("the game is over")
    if d.kind == "roll":
        return {"type": "roll_for_me", "seed": rng.randrange(2**31)}
    if d.kind == "choice":
        values = [c["value"] for c in d.choices]
        # Prefer acting over passing, so random games end.
        active = [v for v in values if v not in ("pass", "skip", "no", "none")] or values
        pool = active if rng.random() < 0.85 else values
        return {"type": "choose", "choice": rng.choice(pool)}
    if d.kind == "allocate":
        return {"type": "allocate", "units": rng.choice(d.choices)["value"]}
    if d.kind == "cast":
        return {"type": "cast", "spells": []}
    if d.kind == "reinforce":
        terrains = d.data["terrains"]
        moves = {u: rng.choice(terrains) for u in d.data["units"] if rng.random() < 0.7}
        return _or_none(d, {"type": "reinforce", "moves": moves}, {"type": "reinforce", "moves": {}})
    if d.kind == "retreat":
        units = [u for u in d.data["units"] if rng.random() < 0.05]
        return _or_none(d, {"type": "retreat", "units": units}, {"type": "retreat", "units": []})
    raise GameRuleError(f"no random answer for {d.kind}")


from . import roll_choices as _roll_choices  # noqa: E402  (the roller's choices: penalty splits)
from . import sai_attack as _sai_attack  # noqa: E402  (SAIs in play)
from . import sai_rise as _sai_rise  # noqa: E402
from . import sai_status as _sai_status  # noqa: E402
from . import species_play as _species_play  # noqa: E402
from .spells.air import counter_wins_ties as _counter_wins_ties  # noqa: E402  (Fields of Ice)
from .spells.earth import wall_of_thorns_after_maneuver as _after_maneuver  # noqa: E402
