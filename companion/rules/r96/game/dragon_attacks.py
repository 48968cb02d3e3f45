"""Dragon attacks in the r96 flow (R96 L826-922): dragons roll at the start of the turn of an army's owner
at their terrain; breaths, the army's response, slaying and promotion, treasure and wing; dragons of
different colours fight each other.  A mixin of ``R96Game``."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from ...core.decisions import Decision, choice
from ...core.errors import IllegalAllocation
from ...core.ids import ArmyId
from ...core.state import DUA, Unit
from . import dragons as dr
from .asking import ask as _ask
from .asking import ask_roll
from .host import R96Host

Flow = Generator[Decision, Any, Any]
START, END = "start", "end"


class DragonAttacks(R96Host):
    """The dragon phase of a turn."""

    # dragons (R96 L826-920) -----------------------------------------------------------------------------
    def _dragon_phase(self, pid: str) -> Flow:
        st = self.state
        for tid in list(st.terrains):
            dragons = self._dragons_at(tid)
            if not dragons or not self._units(pid, tid):
                continue
            if dr.fight_at(dragons):
                yield from self._dragon_fight(pid, tid, dragons)
            else:
                yield from self._dragon_attack(pid, tid, dragons)
            self._check()

    def _roll_dragon(self, d: Unit, why: str) -> Flow:
        spec = [{"uid": d.uid, "die": d.name, "faces": list(d.spec.faces)}]
        faces: list[str] = []
        while True:
            got = yield ask_roll(
                "dragon_roll",
                d.owner,
                f"{self.player_name(d.owner)}: roll {d.name} ({why})",
                "R96 L838-880",
                dice=spec,
                data={"roll": "dragon"},
            )
            faces.append(got[0])
            r = dr.DragonRoll(d, faces)
            if not r.rolls_again:
                self.say(f"{d.name} rolled " + ", ".join(faces))
                return r

    def _saves_negated(self, d: Unit) -> bool:
        return any(e.name == "Dragon breath" and e.target == d.uid for e in self.state.effects)

    def _dragon_fight(self, pid: str, tid: str, dragons: list[Unit]) -> Flow:
        """Dragons of different colours attack each other (R96 L907-915)."""
        targets: dict[str, str] = {}
        for d in dragons:
            legal = dr.legal_dragon_targets(d, dragons)
            if len(legal) == 1:
                targets[d.uid] = legal[0].uid
            else:
                targets[d.uid] = yield _ask(
                    "dragon_target",
                    d.owner,
                    "choice",
                    f"{self.player_name(d.owner)}: {d.name} attacks which dragon?",
                    "R96 L907-915",
                    [choice(x.uid, f"{x.name} ({self.player_name(x.owner)})") for x in legal],
                )
        rolls = {}
        for d in dragons:
            rolls[d.uid] = yield from self._roll_dragon(d, "dragon against dragon")
        for uid, r in rolls.items():
            if (
                r.breath
            ):  # negates the target's automatic saves until the end of the acting player's next turn
                self.add_effect("Dragon breath", r.dragon.owner, targets[uid], END, pid)
        taken: dict[str, int] = {}
        for uid, r in rolls.items():
            taken[targets[uid]] = taken.get(targets[uid], 0) + r.damage
        for uid, hit in taken.items():
            d = self.state.units[uid]
            need = dr.kill_threshold(rolls[uid].belly, self._saves_negated(d))
            if hit >= need:
                self.state.location[uid] = DUA
                self.say(f"{d.name} is slain ({hit} damage) and returns to its owner's dead unit area")
            else:
                self.say(f"{d.name} takes {hit} damage and survives (needs {need})")
        for uid, r in rolls.items():
            if r.wing and self.state.location[uid] == tid:
                self.state.location[uid] = DUA
                self.say(f"{r.dragon.name} flies away")

    def _dragon_attack(self, pid: str, tid: str, dragons: list[Unit]) -> Flow:
        """Dragons of one colour attack the acting player's army there at the start of its turn
        (R96 L829-905)."""
        st = self.state
        army = str(ArmyId(pid, tid))
        rolls = []
        for d in dragons:
            rolls.append((yield from self._roll_dragon(d, f"it attacks {self._label(pid, tid)}")))
        for r in rolls:
            if r.breath and self._units(pid, tid):
                yield from self._breath(pid, tid, r)
        if not self._units(pid, tid):
            return
        paralysed = any(e.name == "Paralysis" and e.target == army for e in st.effects)
        if paralysed:
            resp = yield from self._roll(
                pid,
                self._units(pid, tid),
                "save",
                tid,
                f"{self.player_name(pid)}: paralysed: roll saves against the dragon",
                "R96 L858-860",
                against="dragon",
            )
        else:
            resp = yield from self._roll(
                pid,
                self._units(pid, tid),
                "dragon",
                tid,
                f"{self.player_name(pid)}: roll against the dragon (melee, missile and saves)",
                "R96 L891-896",
            )
        yield from self._penalty_split(resp)
        yield from self._cantrips(resp)
        damage = sum(r.damage for r in rolls)
        saves = resp.total("save")
        slain: list[dr.DragonRoll] = []
        melee, missile = resp.total("melee"), resp.total("missile")
        if rolls and (melee or missile):
            if len(rolls) == 1:
                plan = {rolls[0].dragon.uid: max(melee, missile)}
            else:  # melee against one, missile against another (R96 L919-922)
                opts = []
                for a in rolls:
                    for b in rolls:
                        if a is not b:
                            opts.append(
                                choice(
                                    f"{a.dragon.uid}:{b.dragon.uid}",
                                    f"Melee ({melee}) on {a.dragon.name}, "
                                    f"missile ({missile}) on {b.dragon.name}",
                                )
                            )
                    opts.append(
                        choice(
                            f"{a.dragon.uid}:{a.dragon.uid}",
                            f"All ({max(melee, missile)}) on {a.dragon.name}",
                        )
                    )
                pick = yield _ask(
                    "dragon_hits",
                    pid,
                    "choice",
                    f"{self.player_name(pid)}: aim your hits",
                    "R96 L919-922",
                    opts,
                )
                a, b = pick.split(":")
                plan = {a: max(melee, missile)} if a == b else {a: melee, b: missile}
            for r in rolls:
                hit = plan.get(r.dragon.uid, 0)
                if hit >= dr.kill_threshold(r.belly, self._saves_negated(r.dragon)):
                    slain.append(r)
        self.say(f"The dragons deal {damage} damage; {saves} saves")
        yield from self._inflict(pid, tid, damage - saves, "R96 L872-880")
        for r in slain:
            st.location[r.dragon.uid] = DUA
            self.say(f"{r.dragon.name} is slain by {self._label(pid, tid)} (R96 L898-900)")
        if slain and self._units(pid, tid):
            yield from self._slayers_promote(pid, tid)
        for r in rolls:
            if r.treasure and self._units(pid, tid):
                pairs = self._promotions(self._units(pid, tid), pid)
                if pairs:
                    opts = [choice(f"{a.uid}:{b.uid}", f"Promote {a.name} to {b.name}") for a, b in pairs]
                    opts.append(choice("none", "No promotion"))
                    pick = yield _ask(
                        "treasure",
                        pid,
                        "choice",
                        f"{self.player_name(pid)}: treasure: promote one unit",
                        "R96 L881-884",
                        opts,
                    )
                    if pick != "none":
                        self._swap(*pick.split(":"))
            if r.wing and st.location[r.dragon.uid] == tid:
                st.location[r.dragon.uid] = DUA
                self.say(f"{r.dragon.name} flies away (R96 L886-887)")

    def _slayers_promote(self, pid: str, tid: str) -> Flow:
        """An army that slays a dragon "may promote as many units as possible ... All promotions occur
        simultaneously" (R96 L902-905): every largest matching of its units to dead units of their race
        one health larger is found against the dead unit area as it is now (a unit traded into it
        cannot be taken again), the owner picks one or none, then all the trades happen at once."""
        sets = self._promotion_sets(self._units(pid, tid), pid)
        if not sets:
            return
        opts = [
            choice(
                ",".join(f"{a.uid}:{b.uid}" for a, b in pairs),
                "Promote " + ", ".join(f"{a.name} to {b.name}" for a, b in pairs),
            )
            for pairs in sets
        ]
        opts.append(choice("none", "No promotion"))
        pick = yield _ask(
            "dragon_promotion",
            pid,
            "choice",
            f"{self.player_name(pid)}: your army slew a dragon: promote "
            "as many units as possible, all at once?",
            "R96 L902-905",
            opts,
        )
        if pick == "none":
            return
        pairs = [tuple(p.split(":")) for p in pick.split(",")]
        for live, dead in pairs:  # the pairs are disjoint and were matched before any trade
            self._swap(live, dead)

    def _promotion_sets(self, units: list[Unit], pid: str, limit: int = 24) -> list[list[tuple[Unit, Unit]]]:
        """Largest sets of (live, dead) promotions with no unit used twice (R96 L655-661), one per
        distinct set of die names."""
        dead = self._dead(pid)
        cands = []
        for live in units:
            by_name: dict[str, list[Unit]] = {}
            for d in dead:
                if d.spec.species == live.spec.species and d.health == live.health + 1:
                    by_name.setdefault(d.name, []).append(d)
            cands.append((live, by_name))
        found: dict[tuple[tuple[str, str], ...], list[tuple[Unit, Unit]]] = {}
        best = [0]
        visits = [0]

        def walk(i: int, pairs: list[tuple[Unit, Unit]], used: set[str]) -> None:
            visits[0] += 1
            if len(found) >= limit or visits[0] > 20000:  # a large army: the first sets found are enough
                return
            if len(pairs) + (len(cands) - i) < best[0]:
                return
            if i == len(cands):
                if pairs and len(pairs) >= best[0]:
                    if len(pairs) > best[0]:
                        found.clear()
                        best[0] = len(pairs)
                    found.setdefault(tuple(sorted((a.name, b.name) for a, b in pairs)), list(pairs))
                return
            live, by_name = cands[i]
            for group in by_name.values():
                free = next((d for d in group if d.uid not in used), None)
                if free is not None:
                    walk(i + 1, [*pairs, (live, free)], used | {free.uid})
            walk(i + 1, pairs, used)

        walk(0, [], set())
        return list(found.values())

    def _breath(self, pid: str, tid: str, r: dr.DragonRoll) -> Flow:
        """Breath on the army, resolved before it responds (R96 L849-870)."""
        st = self.state
        army = str(ArmyId(pid, tid))
        colour = r.colour
        self.say(f"{r.dragon.name} breathes: {dr.BREATHS[colour]}")
        if colour == "gold":
            units = self._units(pid, tid)
            n = min(5, len(units))
            chosen = [u.uid for u in units]
            if n < len(units):

                def check(a: dict[str, Any]) -> list[str]:
                    us = a.get("units")
                    ids = {u.uid for u in units}
                    if not isinstance(us, list) or len(set(us)) != n or any(u not in ids for u in us):
                        raise IllegalAllocation(f"choose {n} different units of the army", "R96 L853-856")
                    return us

                chosen = yield _ask(
                    "turn_to_stone",
                    pid,
                    "allocate",
                    f"{self.player_name(pid)}: choose {n} units to roll against Turn to Stone",
                    "R96 L853-856",
                    [{"value": [u.uid for u in units[:n]], "label": ", ".join(u.name for u in units[:n])}],
                    data={"count": n, "candidates": [u.uid for u in units]},
                    validate=check,
                )
            for uid in chosen:
                u = st.units[uid]
                sv = yield from self._roll(
                    pid,
                    [u],
                    "save",
                    tid,
                    f"{self.player_name(pid)}: {u.name} rolls alone: a save or it turns to stone",
                    "R96 L853-856",
                    against="dragon",
                    individual=True,
                )
                if sv.total("save") <= 0:
                    self._kill([uid])
        elif colour == "blue":
            self.add_effect("Paralysis", r.dragon.owner, army, START, pid)
        elif colour == "red":
            yield from self._inflict(pid, tid, 5, "R96 L862-863", bury=True)
        elif colour == "green":
            self.add_effect("Frost", r.dragon.owner, army, START, pid)
        elif colour == "black":
            units = self._units(pid, tid)
            rolled = yield from self._roll(
                pid,
                units,
                "save",
                tid,
                f"{self.player_name(pid)}: roll every unit: those showing their ID die of Disease",
                "R96 L869-870",
                against="dragon",
            )
            dead = [u.uid for u, fs in zip(units, rolled.faces, strict=True) if u.spec.find_face(fs[0]).is_id]
            if dead:
                self._kill(dead, bury=True)
