"""Magic actions of the r96 flow (R96 L377-481): the roll, terrain advantage, death magic by burial,
announcing spells (colours and costs, R96 L398-412) and resolving the 25 spells (R96 L964-1081).
A mixin of ``R96Game``: it works on the game's state through the game's own helpers.

A ``cast`` answer lists the spells announced, each ``{"spell": name, "count": castings (default 1)}``
plus what it targets: ``"target": "p2@frontier"`` (an army) or ``"frontier"`` (a terrain);
``"units": [uid, ...]`` (one per casting for Lightning Strike, Finger of Death, Burning Hands; the dead
units chosen for Breath/Spark of Life, Reanimate Dead, Dust to Dust); ``"moves": {uid: terrain}`` (Path);
``"dragon": uid, "target": terrain`` (Summon ... Dragon).  The decision's ``pools`` give the magic by
colour group (``{"Earth/Fire": 3}``: any of those colours, split freely) and ``black_due`` the black
points burial obliges the caster to spend."""

from __future__ import annotations

from collections.abc import Generator, Mapping
from itertools import combinations
from typing import Any

from ...core import damage as dmg
from ...core.decisions import Decision, choice
from ...core.errors import IllegalAllocation, IllegalSpell
from ...core.ids import ArmyId, is_army_id, split_army_id
from ...core.state import BUA, DUA, RESERVE
from ...core.terrains import MAGIC
from . import setup as su
from .asking import ask as _ask
from .host import R96Host
from .rolls import Rolled, sai_faces
from .spellbook import COLOUR_NAMES, DEATH_SPELLS, SPELLS, R96SpellCard, card, payable

Flow = Generator[Decision, Any, Any]
START, END = "start", "end"


class MagicActions(R96Host):
    """Magic action, casting and spell effects."""

    # magic (R96 L377-481) ----------------------------------------------------------------------------
    def _magic(self, pid: str, loc: str) -> Flow:
        st = self.state
        mag = yield from self._roll(
            pid,
            self._units(pid, loc),
            "magic",
            loc,
            f"{self.player_name(pid)}: roll {self._label(pid, loc)} for magic",
            "R96 L377-395",
        )
        choices: dict[str, Any] = {}
        plain = dict(self._resolve(mag, {"Terrain advantage": False}).res.magic)
        self._resolve(mag)
        if dict(mag.res.magic) != plain:
            opts = [
                choice(True, "Double ID magic of the terrain's colours (those points only of those colours)"),
                choice(False, "Do not double: keep every colour open"),
            ]
            if not (
                yield _ask(
                    "terrain_advantage",
                    pid,
                    "choice",
                    f"{self.player_name(pid)}: use the terrain advantage?",
                    "R96 L439-452; FAQ95 MAGIC-GEN G",
                    opts,
                )
            ):
                choices["Terrain advantage"] = False
        buried = 0
        if loc != RESERVE:
            eligible = sum(
                u.health
                for u, fs in zip(mag.units, mag.faces, strict=True)
                if "Death" in u.spec.elements and u.spec.find_face(fs[0]).is_id
            )
            opts = [choice("none", "No death magic burial")]
            for o in st.turn_order:
                healths = [u.health for u in self._dead(o)]
                for n in range(1, eligible + 1):
                    if dmg.health_to_kill(healths, n) == n:
                        opts.append(
                            choice(f"{o}:{n}", f"{self.player_name(o)} buries {n} health: +{n} black")
                        )
            if len(opts) > 1:
                pick = yield _ask(
                    "death_magic",
                    pid,
                    "choice",
                    f"{self.player_name(pid)}: double black ID magic by burial?",
                    "R96 L454-470; FAQ95 MAGIC-GEN I-L",
                    opts,
                )
                if pick != "none":
                    who, n = pick.split(":")
                    buried = int(n)
                    yield from self._bury_exact(who, buried)
                    choices["Death magic burial"] = buried
        yield from self._penalty_icons(pid, mag, choices)
        self._resolve(mag, choices)
        pools = {k: v for k, v in mag.res.magic.items() if v > 0}
        if buried:
            self.say(f"{2 * buried} black points must be spent (R96 L460-462)")
        yield from self._cast(
            pid, loc, pools, black_due=2 * buried if self.options["burial_points_must_be_spent"] else 0
        )

    def _penalty_icons(self, pid: str, mag: Rolled, choices: dict[str, Any]) -> Flow:
        """A magic penalty (Ash Storm, Palsy ...) comes off the icons the roller picks (FAQ95 MAGIC-GEN G,
        FAQ95-09): offered by colour group when the choice changes the points left."""
        groups: dict[str, list[int]] = {}
        for i, u in enumerate(mag.units):
            groups.setdefault("/".join(sorted(u.spec.elements)), []).append(i)
        if len(groups) < 2:
            return
        outcomes: dict[tuple[tuple[str, int], ...], tuple[str, tuple[int, ...] | None]] = {}
        self._resolve(mag, choices)
        outcomes[tuple(sorted(mag.res.magic.items()))] = ("default", None)
        for key, idx in groups.items():
            self._resolve(mag, {**choices, "penalty first": tuple(idx)})
            outcomes.setdefault(tuple(sorted(mag.res.magic.items())), (key, tuple(idx)))
        if len(outcomes) < 2:
            return

        def shown(pools: tuple[tuple[str, int], ...]) -> str:
            return (
                ", ".join(
                    f"{n} {'/'.join(COLOUR_NAMES.get(c, c) for c in g.split('/'))}" for g, n in pools if n > 0
                )
                or "0"
            )

        opts = []
        for pools, (key, _idx) in outcomes.items():
            who = (
                "where it costs least"
                if key == "default"
                else f"on the {'/'.join(COLOUR_NAMES.get(c, c) for c in key.split('/'))} units' icons first"
            )
            opts.append(choice(key, f"Penalty {who}: {shown(pools)} left"))
        pick = yield _ask(
            "magic_penalty",
            pid,
            "choice",
            f"{self.player_name(pid)}: which units' magic icons take the penalty?",
            "FAQ95 MAGIC-GEN G",
            opts,
        )
        chosen = next(idx for key, idx in outcomes.values() if key == pick)
        if chosen is not None:
            choices["penalty first"] = chosen

    def _bury_exact(self, who: str, n: int) -> Flow:
        """The targeted player buries dead units of exactly ``n`` health, choosing which when there is a
        choice (R96 L458-459; FAQ95 MAGIC-GEN K-L)."""
        dead = self._dead(who)
        sets, seen = [], set()
        for r in range(1, len(dead) + 1):
            for combo in combinations(dead, r):
                key = tuple(sorted(u.name for u in combo))
                if sum(u.health for u in combo) == n and key not in seen:
                    seen.add(key)
                    sets.append([u.uid for u in combo])
        if len(sets) == 1:
            chosen = sets[0]
        else:
            valid = {u.uid: u.health for u in dead}

            def check(a: dict[str, Any]) -> list[str]:
                us = a.get("units")
                if (
                    not isinstance(us, list)
                    or len(set(us)) != len(us)
                    or any(u not in valid for u in us)
                    or sum(valid[u] for u in us) != n
                ):
                    raise IllegalAllocation(f"bury dead units worth exactly {n} health", "FAQ95 MAGIC-GEN L")
                return us

            chosen = yield _ask(
                "bury",
                who,
                "allocate",
                f"{self.player_name(who)}: bury dead units worth {n} health",
                "R96 L458-459; FAQ95 MAGIC-GEN L",
                [{"value": s, "label": ", ".join(self.state.units[u].name for u in s)} for s in sets],
                validate=check,
            )
        for uid in chosen:
            self.state.location[uid] = BUA
        self.say(f"{self.player_name(who)} buries " + ", ".join(self.state.units[u].name for u in chosen))

    # casting ------------------------------------------------------------------------------------------
    def _cast(
        self, pid: str, loc: str, pools: dict[str, int], immediate: bool = False, black_due: int = 0
    ) -> Flow:
        """Announce spells and their targets, then resolve them (R96 L407-437; FAQ95 MAGIC-GEN E-F)."""
        if not pools:
            return False
        shown = ", ".join(
            f"{n} {'/'.join(COLOUR_NAMES.get(c, c) for c in g.split('/'))}" for g, n in pools.items()
        )
        spells = yield _ask(
            "cast",
            pid,
            "cast",
            f"{self.player_name(pid)}: cast spells with {shown}"
            + (" (cantrip: immediate spells)" if immediate else ""),
            "R96 L407-437",
            data={
                "pools": dict(pools),
                "magic": sum(pools.values()),
                "black_due": black_due,
                "army": str(ArmyId(pid, loc)),
                "immediate": immediate,
                "cast_options": self._cast_options(pools),
            },
            validate=lambda a: self._validate_casts(pid, loc, pools, a, black_due),
        )
        for s in spells:
            self.say(
                f"{self.player_name(pid)} casts {s['spell']}" + (f" x{s['count']}" if s["count"] > 1 else "")
            )
        for s in spells:
            yield from self._resolve_spell(pid, loc, s)
            self._check()
        return bool(spells)

    def _cast_options(self, pools: dict[str, int]) -> dict[str, Any]:
        """For the page's cast form: spells on an army or a terrain that one casting of the pools pays for,
        and the targets in play (the flow still checks every announcement)."""
        spells = [
            {"spell": c.name, "cost": c.cost, "elements": [c.element]}
            for c in SPELLS.values()
            if c.target in ("army", "own_army", "terrain") and payable({c.element: c.cost}, pools)
        ]
        targets = [{"value": a.id, "label": self._label(a.owner, a.location)} for a in self.state.armies()]
        targets += [{"value": t.id, "label": t.name} for t in self.state.terrains.values()]
        return {"spells": spells, "targets": targets}

    def _validate_casts(
        self, pid: str, loc: str, pools: dict[str, int], action: dict[str, Any], black_due: int
    ) -> list[dict[str, Any]]:
        st = self.state
        raw = action.get("spells")
        if not isinstance(raw, list):
            raise IllegalSpell("'spells' must be a list of {spell, target, ...}")
        out: list[dict[str, Any]] = []
        costs: dict[str, int] = {}
        per_target: set[tuple[str, Any]] = set()
        reserve = loc == RESERVE
        for entry in raw:
            if not isinstance(entry, Mapping):
                raise IllegalSpell("each spell must be an object")
            c = card(str(entry.get("spell", "")))
            if c is None:
                raise IllegalSpell(f"{entry.get('spell')!r} is not a 1996 spell", "R96 L964-1081")
            n = entry.get("count", 1)
            if not isinstance(n, int) or isinstance(n, bool) or n < 1:
                raise IllegalSpell(f"{c.name}: count must be a positive number")
            s: dict[str, Any] = {"spell": c.name, "count": n}
            costs[c.element] = costs.get(c.element, 0) + c.cost * n
            target = entry.get("target")
            if c.target in ("army", "own_army"):
                o, where = self._army_ref(target, c)
                if c.target == "own_army" and o != pid:
                    raise IllegalSpell(f"{c.name} only targets your own armies", c.citation)
                if reserve and o != pid:
                    raise IllegalSpell(
                        "a reserve army's magic only targets its own player's armies", "R96 L472-480"
                    )
                if (
                    c.damaging
                    and o == pid
                    and not (c.name == "Hailstorm" and self.options["hailstorm_own_army"])
                ):
                    raise IllegalSpell(f"{c.name} inflicts damage: never on your own army", "R96 L424-425")
                self._temple_guard(pid, c, o, where)
                if not c.stacks:
                    if n > 1 or (c.name, target) in per_target:
                        raise IllegalSpell(f"more castings of {c.name} go on other targets", c.citation)
                    per_target.add((c.name, target))
                s["target"] = str(ArmyId(o, where))
            elif c.target == "terrain":
                if reserve:
                    raise IllegalSpell("a reserve army's magic never targets a terrain", "R96 L472-480")
                if target not in st.terrains:
                    raise IllegalSpell(f"{c.name} targets a terrain: one of {list(st.terrains)}", c.citation)
                if not c.stacks:
                    if n > 1 or (c.name, target) in per_target:
                        raise IllegalSpell(f"one {c.name} per terrain per action", c.citation)
                    per_target.add((c.name, target))
                s["target"] = target
            elif c.target == "unit":
                us = entry.get("units")
                if not isinstance(us, list) or len(us) != n:
                    raise IllegalSpell(f"{c.name}: give 'units', one unit id per casting", c.citation)
                for uid in us:
                    if uid not in st.units or not st.units[uid].is_unit or not self._in_play(uid):
                        raise IllegalSpell(
                            f"{uid!r} is not a unit in play (dragons cannot be targeted)", c.citation
                        )
                    u = st.units[uid]
                    if reserve and u.owner != pid:
                        raise IllegalSpell(
                            "a reserve army's magic only targets its own player's units", "R96 L472-480"
                        )
                    if c.damaging and u.owner == pid:
                        raise IllegalSpell(
                            f"{c.name} inflicts damage: never on your own units", "R96 L424-425"
                        )
                    self._temple_guard(pid, c, u.owner, st.location[uid])
                if c.name == "Burning Hands" and len(set(us)) != len(us):
                    raise IllegalSpell("Burning Hands cannot be stacked on one unit", "FAQ95 FIRE 3.A")
                s["units"] = list(us)
            elif c.target in ("own_dead", "any_dead"):
                us = entry.get("units")
                if not isinstance(us, list) or len(set(us)) != len(us):
                    raise IllegalSpell(f"{c.name}: give 'units', the dead unit ids", c.citation)
                for uid in us:
                    if uid not in st.units or not st.units[uid].is_unit or st.location[uid] != DUA:
                        raise IllegalSpell(
                            f"{uid!r} is not a dead unit (dragons are never dead units)", "FAQ95 AIR 2.D"
                        )
                    if c.target == "own_dead" and st.units[uid].owner != pid:
                        raise IllegalSpell(f"{c.name} raises only your own dead", "FAQ95 AIR 2.B")
                    if reserve and st.units[uid].owner != pid:
                        raise IllegalSpell(
                            "a reserve army's magic only targets its own player's units", "R96 L472-480"
                        )
                healths = [st.units[u].health for u in us]
                if c.name == "Reanimate Dead":
                    if any(h != 1 for h in healths) or len(us) > n:
                        raise IllegalSpell(
                            "Reanimate Dead returns one 1-health unit per casting", "R96 L1062-1063"
                        )
                elif sum(healths) > n:
                    raise IllegalSpell(
                        f"{n} casting(s) of {c.name} reach {n} health, not {sum(healths)}", c.citation
                    )
                if c.target == "own_dead" and loc is None:
                    raise IllegalSpell(f"{c.name} returns units to the casting army", c.citation)
                s["units"] = list(us)
            elif c.target == "own_unit":
                moves = entry.get("moves")
                if not isinstance(moves, Mapping) or not 1 <= len(moves) <= n:
                    raise IllegalSpell(f"Path: give 'moves' {{unit: terrain}}, at most {n}", c.citation)
                for uid, dest in moves.items():
                    if (
                        uid not in st.units
                        or st.units[uid].owner != pid
                        or not st.units[uid].is_unit
                        or st.location[uid] not in st.terrains
                    ):
                        raise IllegalSpell(
                            f"{uid!r}: Path moves one of your units at a terrain", "FAQ95 EARTH 3.A-D"
                        )
                    if dest not in st.terrains or dest == st.location[uid]:
                        raise IllegalSpell(
                            f"{dest!r}: Path moves a unit to another terrain", "FAQ95 EARTH 3.C-D"
                        )
                s["moves"] = dict(moves)
            elif c.target == "dragon":
                colour = c.name.split()[1].lower()
                uid = entry.get("dragon")
                if (
                    uid not in st.units
                    or st.units[uid].spec.kind != "dragon"
                    or su.dragon_colour(st.units[uid].spec) != colour
                ):
                    raise IllegalSpell(f"{c.name} sends a {colour} dragon: give 'dragon'", c.citation)
                if st.location[uid] not in (DUA, *st.terrains):
                    raise IllegalSpell("that dragon is not in a dead unit area or at a terrain", c.citation)
                if reserve or target not in st.terrains:
                    raise IllegalSpell(
                        f"{c.name} sends the dragon to a terrain (never from reserve)",
                        "R96 L472-480; FAQ95 EARTH 5.C",
                    )
                if n > 1:
                    raise IllegalSpell("one dragon per summoning", c.citation)
                s.update(dragon=uid, target=target)
            out.append(s)
        if costs and not payable(costs, pools):
            need = ", ".join(f"{v} {COLOUR_NAMES[k]}" for k, v in costs.items())
            raise IllegalSpell(f"the magic rolled cannot pay {need}", "R96 L398-412")
        if black_due and costs.get("Death", 0) < black_due:
            raise IllegalSpell(
                f"the {black_due} black points gained by burial must all be spent", "R96 L460-462"
            )
        return out

    def _army_ref(self, target: Any, c: R96SpellCard) -> tuple[str, str]:
        if not is_army_id(target):
            raise IllegalSpell(f"{c.name} targets an army: '<player>@<terrain or reserve>'", c.citation)
        o, where = split_army_id(target)
        if o not in self.state.player_ids or not self._units(o, where):
            raise IllegalSpell(f"there is no army {target!r}", c.citation)
        return o, where

    def _temple_guard(self, pid: str, c: R96SpellCard, owner: str, where: str) -> None:
        t = self.state.terrains.get(where)
        if (
            c.name in DEATH_SPELLS
            and owner != pid
            and t is not None
            and t.face == 8
            and t.controller == owner
            and t.kind.icon == "Temple"
        ):
            raise IllegalSpell("an army holding a Temple is immune to opposing death magic", "R96 L668-669")

    def _in_play(self, uid: str) -> bool:
        loc = self.state.location[uid]
        return loc in self.state.terrains or loc == RESERVE

    def _resolve_spell(self, pid: str, loc: str, s: dict[str, Any]) -> Flow:
        st = self.state
        c = SPELLS[s["spell"]]
        n = s["count"]
        if c.expiry != "instant":
            ends, of = (END, pid) if c.expiry == "end_next_turn" else (START, pid)
            targets = s["units"] if c.target == "unit" else [s["target"]]
            for t in targets:
                self.add_effect(c.name, pid, t, ends, of, castings=n, citation=c.citation)
            return
        if c.name == "Hailstorm":
            o, where = split_army_id(s["target"])
            if o == pid:  # FAQ95 AIR 1.A (option hailstorm_own_army): no save
                yield from self._inflict(o, where, n, "FAQ95 AIR 1.A")
            else:  # one save roll for all Hailstorms of this action; never a rout (FAQ95 AIR 1.C, 1.E)
                melee_by = getattr(self, "_melee_cantrip_by", None)  # FAQ96 SAI 3.D: Counters answer it
                yield from self._save_roll(
                    o, where, n, MAGIC, melee_by, can_rout=False, counters=melee_by is not None
                )
        elif c.name == "Lightning Strike":
            for uid in s["units"]:  # each strike alone (R96 L1007-1008)
                if not self._in_play(uid):
                    continue
                u = st.units[uid]
                where = st.location[uid]
                if where == RESERVE and self._grave_guard(u.owner):
                    self.say(f"Open Grave: the strike on {u.name} in reserve is ignored (FAQ95 DEATH 4.C)")
                    continue
                r = yield from self._roll(
                    u.owner,
                    [u],
                    "save",
                    where,
                    f"{self.player_name(u.owner)}: {u.name} rolls "
                    "against Lightning Strike (a save or its ID saves it)",
                    "R96 L1007-1008",
                    against=MAGIC,
                    individual=True,
                )
                face = u.spec.find_face(r.faces[0][0])
                melee_by = getattr(self, "_melee_cantrip_by", None)
                counter = sum(x for _, x in sai_faces(r, "Counter")) if melee_by is not None else 0
                if r.total("save") <= 0 and not face.is_id and not counter:
                    self._kill([uid])
                else:
                    self.say(f"{u.name} survives the Lightning Strike")
                if (
                    counter and melee_by is not None
                ):  # FAQ96 SAI 3.D: a save, and hits the attacking army cannot save
                    self.say(
                        f"Counter: {counter} hits on {self._label(melee_by, where)}, no save (FAQ96 SAI 3.D)"
                    )
                    yield from self._inflict(melee_by, where, counter, "FAQ96 SAI 3.D")
        elif c.name == "Finger of Death":
            hits: dict[str, int] = {}
            for uid in s["units"]:
                hits[uid] = hits.get(uid, 0) + 1
            dead = [u for u, h in hits.items() if self._in_play(u) and h >= st.units[u].health]
            for uid in list(dead):
                if st.location[uid] == RESERVE and self._grave_guard(st.units[uid].owner):
                    self.say("Open Grave: Finger of Death on a reserve unit is ignored (FAQ95 DEATH 4.C)")
                    dead.remove(uid)
            if dead:
                self._kill(dead)
            else:
                self.say("Finger of Death kills nothing (no wounds carry over, FAQ95 DEATH 3.F)")
        elif c.name in ("Breath of Life", "Spark of Life", "Reanimate Dead"):
            for uid in s["units"]:
                if st.location[uid] == DUA and self._units(pid, loc or ""):
                    st.location[uid] = loc
                    self.say(f"{st.units[uid].name} returns to {self._label(pid, loc)}")
        elif c.name == "Dust to Dust":
            for uid in s["units"]:
                if st.location[uid] == DUA:
                    st.location[uid] = BUA
                    self.say(f"{st.units[uid].name} is buried")
        elif c.name == "Path":
            for uid, dest in s["moves"].items():
                if st.location[uid] in st.terrains:
                    st.location[uid] = dest
                    self.say(f"{st.units[uid].name} moves to {st.terrains[dest].name}")
        elif c.target == "dragon":
            st.location[s["dragon"]] = s["target"]
            self.say(f"{st.units[s['dragon']].name} is sent to {st.terrains[s['target']].name}")
        elif c.name == "Flash Flood":
            yield from self._flash_flood(s["target"])

    def _grave_guard(self, owner: str) -> bool:
        return any(
            e.name == "Open Grave" and e.target == str(ArmyId(owner, RESERVE)) for e in self.state.effects
        )

    def _flash_flood(self, tid: str) -> Flow:
        """Down one face unless an army there rolls 8 maneuvers; counters never add; nothing on face 1
        (R96 L1053-1055; FAQ95 WATER 4.C-E)."""
        st = self.state
        t = st.terrains[tid]
        if t.face <= 1:
            self.say(f"Flash Flood: {t.name} is on face 1, nothing happens (FAQ95 WATER 4.D)")
            return
        best = 0
        for o in st.turn_order:
            if not self._units(o, tid) or self._paralysed(o, tid):
                continue
            go = yield _ask(
                "resist_flood",
                o,
                "choice",
                f"{self.player_name(o)}: roll maneuvers to resist the Flash Flood at {t.name}?",
                "R96 L1053-1055",
                [choice(True, "Roll"), choice(False, "Do not roll")],
            )
            if go:
                r = yield from self._roll(
                    o,
                    self._units(o, tid),
                    "maneuver",
                    tid,
                    f"{self.player_name(o)}: roll maneuvers against the flood (8 needed)",
                    "R96 L1053-1055",
                )
                best = max(best, r.total("maneuver"))
        if best >= 8:
            self.say(f"The flood at {t.name} is resisted ({best} maneuvers)")
        else:
            self._turn_terrain(t, -1)
