"""The dragon attack phase, V4.01c L359-367 and L578-770, a phase of each game's ``extensions.phases``.

At every terrain where the marching player has an army, every dragon there attacks, whoever owns it
(L580-582); the marching player orders the terrains (L643-645).  At one terrain the nine steps are
(L646-694):

1. targets from the table (``dragon_targeting``); 2. owners of dragons with a choice of dragon
targets designate in secret, then all are revealed; 3. dragons roll (a tail, or a breath against a
dragon, rolls again and adds the new result); 4. breath against the army, one at a time: five
health-worth killed, then the elemental effects; 5. treasures: the army may promote a unit;
6. the army's combination roll (melee, missile, saves; IDs split freely); 7. damage, all at once:
dragons on dragons and on the army, the army's melee or missile on the dragons attacking it (never
combined on one dragon), killed dragons back to the Summoning Pool; 8. an army that killed a dragon
may promote as many units as possible; 9. surviving dragons that rolled a wing fly back to the
Summoning Pool.

Damage per icon comes from the rules (claws 6, jaws 12, tail 3, wing 5, breath 5; L696, L748-769)
and is doubled for a White Dragon (L573-574, L696), whatever number a transcription prints on the
face: the White Drake's data shows doubled jaws but plain claws, the White Wyrm doubled everything.

Other modules may join step 6-7 through the game's ``extensions.dragon_response`` (SAIs that kill a dragon which rolled
jaws, Bash, Eldarim taming...): ``hook(game, attack: SiteAttack, outcome: RollOutcome)`` may change
``attack.sai_killed`` (dragons the army's SAIs kill: Decapitate, Impale, Bash; they count for the
step 8 promotion, L688-690), ``attack.slain`` (dragons slain outside the army's kills, no promotion:
an Eldarim champion's slay, L2978-2983) or
``attack.ignored`` (dragons whose non-breath damage is ignored), and may be a generator of decisions.
``extensions.dragon_spare`` let a dragon that would attack the army sit the attack out (a tamed dragon).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from itertools import product
from typing import TYPE_CHECKING, Any

from ..core.decisions import Decision, ask_roll, choice, choose_validator
from ..core.decisions import ask as _ask
from ..core.state import DUA, POOL, UNTIL_ITS_NEXT_TURN, Army, Unit
from . import dragon_promotion as promo
from . import dua
from .dragon_targeting import ARMY, WHITE, dragon_targets, dragon_type
from .rolling import RollOutcome

if TYPE_CHECKING:
    from ..catalogue.faces import Face
    from .context import RuleContext

Flow = Generator[Decision, Any, Any]

# Icon values (V4.01c L696, L748-769).
BASE_DAMAGE = {"Claw": 6, "Jaw": 12, "Tail": 3, "Wing": 5, "Breath": 5, "Belly": 0, "Treasure": 0}
DRAGON_HEALTH_SAVES = 5  # every dragon's automatic saves (L544-545)
BREATH_KILLS = 5  # health-worth killed by a breath against an army (L699-700)

# Elemental breath effects against an army (V4.01c L708-728).
BREATH_EFFECT = {
    "Air": "Lightning Bolt",
    "Death": "Dragon Plague",
    "Earth": "Petrify",
    "Fire": "Dragon Fire",
    "Water": "Poisonous Cloud",
}
LASTING_BREATH = ("Lightning Bolt", "Dragon Plague", "Petrify", "Poisonous Cloud")
LIFE_DRAIN = "Life Drain"  # Ivory: no effect beyond the kills (L722)
TERRAIN_EMPATHY = "Terrain Empathy"  # White (L727-729)

# A game's ``extensions`` hold the hooks other modules add to the attack (``rulebook.build_extensions``):
# ``dragon_response``: see the module docstring (steps 6-7);
# ``dragon_spare``: ``hook(game, dragon: Unit, marching: str, terrain: str) -> bool``: True when a dragon
# that would attack the marching player's army does not (a dragon tamed by a unit of that army,
# V4.01c L2920-2922);
# ``dragon_control``: ``hook(game, dragon: Unit, terrain: str) -> str | None``: the player whose unit
# controls this dragon (an Eldarim champion, V4.01c L3016-3018); that player then says whether it sits
# the attack out, attacks any other dragon there, or attacks as the targeting table says.


def icon(face: str) -> str:
    """The icon of a dragon face text ("6 Claw" -> "Claw")."""
    return face.split(" ", 1)[1] if " " in face else face


@dataclass
class DragonAttack:
    """One dragon's attack this phase: its target (a dragon's uid, or ``ARMY``) and the faces rolled
    (the first roll, then each roll again)."""

    dragon: Unit
    target: str
    faces: list[str] = field(default_factory=list)

    @property
    def icons(self) -> list[str]:
        return [icon(f) for f in self.faces]

    @property
    def white(self) -> bool:
        return dragon_type(self.dragon.spec) == WHITE

    @property
    def factor(self) -> int:
        return 2 if self.white else 1  # V4.01c L573-574

    def damage(self, ignore_breath: bool = False) -> int:
        """Damage inflicted at step 7: claws, jaws, tails and wings (doubled for a White Dragon);
        breath too against a dragon (5, a White Dragon's 10: L696-697)."""
        total = 0
        for i in self.icons:
            if i == "Breath" and (self.target == ARMY or ignore_breath):
                continue
            total += BASE_DAMAGE.get(i, 0) * self.factor
        return total

    @property
    def belly(self) -> bool:
        return "Belly" in self.icons  # its automatic saves do not count this attack (L737-738)

    @property
    def wing(self) -> bool:
        return "Wing" in self.icons

    @property
    def breaths(self) -> int:
        return self.icons.count("Breath")

    @property
    def treasures(self) -> int:
        return self.icons.count("Treasure") * self.factor  # a White Dragon's treasure promotes two (L574-575)

    def toughness(self) -> int:
        """Melee (or missile) results needed to kill this dragon: health plus its five automatic saves,
        unless it rolled a belly (V4.01c L544-545, L737-738)."""
        return self.dragon.health + (0 if self.belly else DRAGON_HEALTH_SAVES)


@dataclass
class SiteAttack:
    """Everything that happens at one terrain in one dragon attack phase."""

    terrain: str
    marching: str
    attacks: list[DragonAttack]
    army_killed: set[str] = field(default_factory=set)  # dragons the army killed with melee/missile
    dragon_killed: set[str] = field(default_factory=set)  # dragons killed by other dragons
    sai_killed: set[str] = field(default_factory=set)  # dragons the army's SAIs killed (promotion, L688-690)
    slain: set[str] = field(default_factory=set)  # dragons slain by other effects (no promotion, L2978-2983)
    ignored: set[str] = field(default_factory=set)  # dragons whose non-breath damage is ignored
    bashed: dict[str, int] = field(default_factory=dict)  # dragon uid -> damage Bash turns back on it
    response: RollOutcome | None = None

    def on_army(self) -> list[DragonAttack]:
        return [a for a in self.attacks if a.target == ARMY]

    def by_uid(self, uid: str) -> DragonAttack:
        return next(a for a in self.attacks if a.dragon.uid == uid)


def dragons_at(game: RuleContext, tid: str) -> list[Unit]:
    st = game.state
    return [u for uid, u in st.units.items() if u.spec.kind == "dragon" and st.location[uid] == tid]


def _dragon_label(game: RuleContext, d: Unit) -> str:
    return f"{game.player_name(d.owner)}'s {d.name.split('/', 1)[-1]} ({d.uid})"


# -- the phase ------------------------------------------------------------------------------------
def dragon_attack_phase(game: RuleContext, pid: str) -> Flow:
    """Dragons attack at every terrain where the marching player has an army (V4.01c L359-367,
    L580-582); the marching player chooses the order of the terrains (L643-645)."""
    st = game.state
    done: set[str] = set()
    while True:
        sites = [t for t in st.terrains if t not in done and st.army(pid, t).units and dragons_at(game, t)]
        if not sites:
            return
        tid = sites[0]
        if len(sites) > 1:
            st.step = "dragon_order"
            opts = [choice(t, f"Dragons at {st.terrains[t].name} attack next") for t in sites]
            tid = yield _ask(
                "dragon_order",
                pid,
                "choice",
                f"{game.player_name(pid)}: dragons attack your armies at several terrains: which first?",
                "V4.01c L643-645",
                opts,
                validate=choose_validator(opts),
            )
        done.add(tid)
        yield from attack_at(game, pid, tid)
        game.cleanup()


def attack_at(game: RuleContext, pid: str, tid: str) -> Flow:
    """The nine steps of a dragon attack at one terrain (V4.01c L646-694)."""
    st = game.state
    where = st.terrains[tid].name
    dragons = dragons_at(game, tid)
    # A controlled dragon: its controller may have it not roll, or attack any other dragon (L3016-3018).
    # One that does not roll sits this attack out (it is neither an attacker nor a target here).
    forced: dict[str, str] = {}
    for d in list(dragons):
        controller = next((c for c in (h(game, d, tid) for h in game.extensions.dragon_control) if c), None)
        if controller is None:
            continue
        others = [o for o in dragons if o.uid != d.uid]
        opts = [
            choice("usual", "Let it attack as the targeting table says"),
            choice("rest", "Have it not roll"),
        ] + [choice(o.uid, f"Have it attack {_dragon_label(game, o)}") for o in others]
        st.step = "dragon_control"
        pick = yield _ask(
            "dragon_target",
            controller,
            "choice",
            f"{game.player_name(controller)}: your controlled {_dragon_label(game, d)} at {where}: what does it do?",
            "V4.01c L3016-3018",
            opts,
            data={"dragon": d.uid, "terrain": tid, "secret": True},
            validate=choose_validator(opts),
        )
        if pick == "rest":
            game.say(
                f"{_dragon_label(game, d)} at {where} does not roll: its controller holds it back (V4.01c L3016-3018)"
            )
            dragons.remove(d)
        elif pick != "usual":
            forced[d.uid] = pick
    for uid, target in list(forced.items()):
        if not any(o.uid == target for o in dragons):  # the dragon it was to attack sits the attack out
            del forced[uid]
    # Step 1: targets from the table (L649-650, L584-636).
    st.step = "dragon_targets"
    options = {d.uid: dragon_targets(d, dragons) for d in dragons}
    # Step 2: dragon vs dragon targets designated in secret, then revealed (L652-655).
    targets: dict[str, str] = dict(forced)
    for d in dragons:
        if d.uid in forced:
            continue
        valid = options[d.uid]
        if not valid:
            targets[d.uid] = ARMY
        elif len(valid) == 1:
            targets[d.uid] = valid[0].uid
        else:
            st.step = "dragon_secret_target"
            opts = [choice(o.uid, f"Attack {_dragon_label(game, o)}") for o in valid]
            targets[d.uid] = yield _ask(
                "dragon_target",
                d.owner,
                "choice",
                f"{game.player_name(d.owner)}: in secret, choose which dragon your {d.name.split('/', 1)[-1]} at {where} attacks",
                "V4.01c L652-655",
                opts,
                data={"dragon": d.uid, "terrain": tid, "secret": True},
                validate=choose_validator(opts),
            )
    for d in list(dragons):
        if targets[d.uid] == ARMY and any(h(game, d, pid, tid) for h in game.extensions.dragon_spare):
            game.say(
                f"{_dragon_label(game, d)} at {where} does not attack {game.army_label(st.army(pid, tid))}"
            )
            dragons.remove(d)
    for d in dragons:
        t = targets[d.uid]
        game.say(
            f"{_dragon_label(game, d)} at {where} attacks "
            + (game.army_label(st.army(pid, tid)) if t == ARMY else _dragon_label(game, st.units[t]))
        )
    site = SiteAttack(tid, pid, [DragonAttack(d, targets[d.uid]) for d in dragons])
    # Step 3: roll the dragons (L657-659); tails and breath against a dragon roll again (L696-697, L758-760).
    st.step = "dragon_roll"
    for a in site.attacks:
        yield from _roll_dragon(game, a)
    army = st.army(pid, tid)
    # Step 4: breath against the army, one breath at a time (L661-664, L698-728).
    st.step = "dragon_breath"
    for a in site.on_army():
        for _ in range(a.breaths):
            if st.army(pid, tid).units:
                yield from breath_on_army(game, a, st.army(pid, tid))
    # Step 5: treasures (L666-668, L762-765).
    st.step = "dragon_treasure"
    promoted: set[str] = set()
    for a in site.on_army():
        for _ in range(a.treasures):
            army = st.army(pid, tid)
            if army.units:
                new = yield from promo.promote_one(
                    game,
                    army,
                    f"Treasure of {_dragon_label(game, a.dragon)}",
                    "V4.01c L666-668, L762-765",
                    exclude=promoted,
                )
                if new:
                    promoted.add(new)
    # Step 6: the army's combination roll in response (L670-681).
    army = st.army(pid, tid)
    if site.on_army() and army.units:
        st.step = "dragon_response"
        site.response = yield from response_roll(game, army, site)
        for hook in game.extensions.dragon_response:
            more = hook(game, site, site.response)
            if isinstance(more, Generator):
                yield from more
    # Step 7: damage, all at once (L683-686).
    st.step = "dragon_damage"
    yield from resolve_damage(game, site)
    # Step 8: promotion after killing a dragon (L688-690).
    army = st.army(pid, tid)
    if (site.army_killed or site.sai_killed) and army.units:
        st.step = "dragon_promotion"
        yield from promo.promote_as_many(
            game, army, "The army killed a dragon", "V4.01c L688-690, L1150-1151"
        )
    # Step 9: wings (L692, L767-769).
    st.step = "dragon_wings"
    for a in site.attacks:
        uid = a.dragon.uid
        if a.wing and st.location[uid] == tid:
            st.location[uid] = POOL
            game.say(f"{_dragon_label(game, a.dragon)} rolled a wing and flies back to the Summoning Pool")
    st.step = ""


def _roll_dragon(game: RuleContext, a: DragonAttack) -> Flow:
    d = a.dragon
    spec = [{"uid": d.uid, "die": d.name, "faces": list(d.spec.faces)}]
    again = False
    for _ in range(50):
        vs = "the army" if a.target == ARMY else _dragon_label(game, game.state.units[a.target])
        faces = yield ask_roll(
            "dragon_reroll" if again else "dragon_roll",
            d.owner,
            f"{game.player_name(d.owner)}: roll {d.name.split('/', 1)[-1]} ({d.uid}) "
            + ("again " if again else "")
            + f"attacking {vs}",
            "V4.01c L696-697, L758-760" if again else "V4.01c L657-659",
            dice=spec,
            data={"roll": "dragon", "dragon": d.uid, "target": a.target, "reroll": again},
        )
        a.faces.append(faces[0])
        got = icon(faces[0])
        game.say(f"{_dragon_label(game, d)} rolls {got}")
        # Tail: roll again (L758-760); breath against a dragon: roll again (L696-697).
        if got == "Tail" or (got == "Breath" and a.target != ARMY):
            again = True
            continue
        return


# -- breath against an army (step 4) ----------------------------------------------------------------
def breath_effects(game: RuleContext, a: DragonAttack) -> list[str]:
    """The elemental breath effects a breath puts on the army (V4.01c L701, L708-728): one per element
    of the dragon (a Hybrid both, L552-553; an Ivory Hybrid its element, L566), Life Drain for an
    Ivory Dragon; a White Dragon's Terrain Empathy gives those of the terrain's elements."""
    kind = dragon_type(a.dragon.spec)
    if kind == WHITE:
        terrain = game.state.terrains[game.state.location[a.dragon.uid]]
        return [BREATH_EFFECT[e] for e in sorted(terrain.kind.elements) if e in BREATH_EFFECT]
    if not a.dragon.spec.elements:
        return [LIFE_DRAIN]
    return [BREATH_EFFECT[e] for e in a.dragon.spec.elements if e in BREATH_EFFECT]


def breath_on_army(game: RuleContext, a: DragonAttack, army: Army) -> Flow:
    """Kill five health-worth (ten with Terrain Empathy), chosen by the army's owner, then apply the
    elemental effects (V4.01c L661-664, L698-728).  Halving effects are not cumulative: a second
    breath of the same kind leaves the one in force (L703-706)."""
    st = game.state
    white = dragon_type(a.dragon.spec) == WHITE
    kills = BREATH_KILLS * (2 if white else 1)  # Terrain Empathy: five more, ten in all (L727-729)
    game.say(
        f"Breath of {_dragon_label(game, a.dragon)}: {kills} health-worth of {game.army_label(army)} "
        f"{'are' if kills > 1 else 'is'} killed" + (" (Terrain Empathy)" if white else "")
    )
    before = {u.uid for u in army.units}
    yield from game.inflict(army, kills, save_roll=False)  # killed outright: no save roll (L699-700)
    now = st.army(army.owner, army.location)
    killed = [uid for uid in before if st.location[uid] == DUA and uid not in {u.uid for u in now.units}]
    killed.sort(key=lambda u: list(st.units).index(u))
    for effect in breath_effects(game, a):
        if effect == LIFE_DRAIN:
            game.say("Life Drain (Ivory breath): no further effect (V4.01c L722)")
        elif effect == "Dragon Fire":
            yield from dragon_fire(game, a, killed)
        else:
            in_force = any(e.name == effect and e.target == army.id for e in st.effects)
            if in_force:
                game.say(
                    f"{effect} is already on {game.army_label(army)}: breath effects of one kind are not "
                    "cumulative (V4.01c L703-706)"
                )
            elif now.units:
                game.add_effect(
                    effect,
                    a.dragon.owner,
                    army.id,
                    UNTIL_ITS_NEXT_TURN,
                    source="dragon breath",
                    dragon=a.dragon.uid,
                    rule="V4.01c L708-728",
                )
                game.say(f"{effect} on {game.army_label(army)} until the beginning of its next turn")


def dragon_fire(game: RuleContext, a: DragonAttack, killed: list[str]) -> Flow:
    """Fire breath: the units this breath killed roll; each that makes no save result is buried
    (V4.01c L719-720).  They roll together (one decision), each counted alone from the DUA, where only
    save-generating SAIs work (L1215-1216); a unit with Rise from the Ashes that is buried rolls
    again and rises to the Reserve Area on that SAI (L1774-1778)."""
    from .rolling import ArmyRoll, resolve_army_roll
    from .sai_rise import rise_from_the_ashes

    st = game.state
    killed = [u for u in killed if st.location[u] == DUA]
    if not killed:
        game.say("Dragon Fire: the breath killed no unit, nothing to roll")
        return
    dice = [st.units[u] for u in killed]
    spec = [{"uid": u.uid, "die": u.name, "faces": list(u.spec.faces)} for u in dice]
    owner = dice[0].owner
    faces = yield ask_roll(
        "dragon_fire_roll",
        owner,
        f"{game.player_name(owner)}: Dragon Fire: roll the units the breath killed; those that roll no save "
        "are buried",
        "V4.01c L719-720",
        dice=spec,
        data={"roll": "save", "dragon_fire": True},
    )
    failed = []
    for unit, face in zip(dice, faces, strict=True):
        out = resolve_army_roll(
            ArmyRoll(
                roll="save",
                dice=((unit, (face,)),),
                individual=True,
                choices=(("in DUA", True),),
                force_points=st.force_size,
            )
        )
        if out.total > 0:
            game.say(f"Dragon Fire: {unit.name} rolls {face}: {out.total} save, it stays in the DUA")
        else:
            game.say(f"Dragon Fire: {unit.name} rolls {face}: no save")
            failed.append(unit.uid)
    risen = yield from rise_from_the_ashes(game, failed, "buried")
    for line in dua.bury(st, [u for u in failed if u not in risen]):
        game.say(f"Dragon Fire: {line}")


# -- the army's response (step 6) ------------------------------------------------------------------
def id_splits(total: int) -> list[tuple[int, int, int]]:
    """Every (melee, missile, save) split of `total` ID results (V4.01c L677-681; V4-36)."""
    return [(m, r, total - m - r) for m in range(total, -1, -1) for r in range(total - m, -1, -1)]


def _single_id(die: Unit, faces: list[str]) -> Face | None:
    ids = [f for f in (die.spec.find_face(x) for x in faces) if f.is_id]
    return ids[0] if len(ids) == 1 else None


def split_choice(
    dice: list[Unit], rolled: list[list[str]], split: tuple[int, int, int]
) -> dict[int, dict[str, int]]:
    """Spread an army-wide split of ID results over the dice that rolled one ID (resolution's
    ``choices["id_as"]``: die index -> results by type)."""
    want = dict(zip(("melee", "missile", "save"), split, strict=True))
    per: dict[int, dict[str, int]] = {}
    for i, (d, faces) in enumerate(zip(dice, rolled, strict=True)):
        face = _single_id(d, faces)
        if face is None:
            continue
        left = face.count
        part: dict[str, int] = {}
        for t in ("melee", "missile", "save"):
            take = min(left, want[t])
            if take:
                part[t] = take
                want[t] -= take
                left -= take
        per[i] = part
    return per


def splittable_ids(dice: list[Unit], rolled: list[list[str]]) -> int:
    return sum(
        f.count for f in (_single_id(d, r) for d, r in zip(dice, rolled, strict=True)) if f is not None
    )


def id_split_hook(
    game: RuleContext, army: Army, roll: str, dice: list[Unit], rolled: list[list[str]], ctx: dict[str, Any]
) -> Flow:
    """``extensions.hooks["before_resolution"]`` entry: in the response to a dragon attack the owner says
    how the IDs rolled count, as melee, missile or saves, split freely (V4.01c L677-681)."""
    if roll != "dragon" or not ctx.get("dragon_response"):
        return
    total = splittable_ids(dice, rolled)
    plague = any(e.name == "Dragon Plague" and e.target == army.id for e in game.state.effects)
    if not total or plague:  # Dragon Plague: the IDs are ignored anyway (L713-714)
        return
    opts = [
        choice(f"{m}/{r}/{s}", f"IDs as {m} melee, {r} missile, {s} saves") for m, r, s in id_splits(total)
    ]
    pick = yield _ask(
        "dragon_ids",
        army.owner,
        "choice",
        f"{game.player_name(army.owner)}: {total} ID results: count them as melee, missile or saves "
        "(split as you like)",
        "V4.01c L677-681",
        opts,
        validate=choose_validator(opts),
    )
    m, r, s = (int(x) for x in pick.split("/"))
    ctx.setdefault("choices", {})["id_as"] = split_choice(dice, rolled, (m, r, s))


def response_roll(game: RuleContext, army: Army, site: SiteAttack) -> Generator[Decision, Any, RollOutcome]:
    """Step 6: the army rolls once, counting melee, missile and saves (V4.01c L670-681), through the
    flow's army roll (SAIs, spells and breath effects in force, Dragonkin that sit out)."""
    outcome: RollOutcome = yield from game.roll(
        army,
        "dragon",
        f"{game.player_name(army.owner)}: roll {game.army_label(army)} against the dragons "
        "(melee, missile and saves count)",
        "V4.01c L670-681",
        against="dragon",
        choices={},
        dragon_response=True,
        dragon_site=site,
    )
    t = outcome.totals
    game.say(
        f"Against the dragons: {t.get('melee', 0)} melee, {t.get('missile', 0)} missile, "
        f"{t.get('save', 0)} saves"
    )
    return outcome


# -- damage (step 7) -----------------------------------------------------------------------------------
def kill_plans(
    attacks: list[DragonAttack], melee: int, missile: int, credit: dict[str, int] | None = None
) -> list[dict[str, str]]:
    """The ways the army's melee and missile results can kill the dragons attacking it: each dragon
    by melee or by missile alone, never both (V4.01c L674-677); only plans to which no further dragon
    could be added are listed (results are applied as far as they go).  ``credit``: damage a dragon
    already takes at the same time (its own, turned back by Bash, L1266-1269)."""
    credit = credit or {}

    def need(a: DragonAttack) -> int:
        return max(0, a.toughness() - credit.get(a.dragon.uid, 0))

    feasible = []
    for plan in product(("none", "melee", "missile"), repeat=len(attacks)):
        need_m = sum(need(a) for a, p in zip(attacks, plan, strict=True) if p == "melee")
        need_r = sum(need(a) for a, p in zip(attacks, plan, strict=True) if p == "missile")
        if need_m <= melee and need_r <= missile:
            feasible.append(plan)
    fset = set(feasible)
    out = []
    for plan in feasible:
        bigger = False
        for i, p in enumerate(plan):
            if p == "none":
                for alt in ("melee", "missile"):
                    if plan[:i] + (alt,) + plan[i + 1 :] in fset:
                        bigger = True
        if not bigger:
            out.append({a.dragon.uid: p for a, p in zip(attacks, plan, strict=True) if p != "none"})
    return out


def resolve_damage(game: RuleContext, site: SiteAttack) -> Flow:
    """Step 7: dragons and the army inflict damage at the same time (V4.01c L683-686)."""
    st = game.state
    pid, tid = site.marching, site.terrain
    army = st.army(pid, tid)
    # Bash: the chosen dragon takes the damage it inflicted, less its automatic saves unless it
    # rolled a belly (V4.01c L1266-1269, L544-545, L737-738).
    for uid, dmg in site.bashed.items():
        victim = site.by_uid(uid)
        if dmg >= victim.toughness():
            site.sai_killed.add(uid)
            game.say(
                f"Bash: {_dragon_label(game, victim.dragon)} takes its own {dmg} damage: killed (V4.01c L1266-1269)"
            )
        else:
            game.say(
                f"Bash: {_dragon_label(game, victim.dragon)} takes its own {dmg} damage, "
                f"{victim.toughness()} needed: the army's melee or missile may finish it (V4.01c L1266-1269)"
            )
    # The army's melee or missile on the dragons attacking it.
    targets = [a for a in site.on_army() if a.dragon.uid not in site.slain | site.sai_killed]
    if site.response is not None and targets:
        melee, missile = site.response.totals.get("melee", 0), site.response.totals.get("missile", 0)
        # damage lands at the same time (L683-686): Bash's turned-back damage adds to the army's
        credit = {uid: dmg for uid, dmg in site.bashed.items() if uid not in site.sai_killed}
        plans = kill_plans(targets, melee, missile, credit)
        plan = plans[0]
        if len(plans) > 1:
            opts = []
            for i, p in enumerate(plans):
                label = (
                    "; ".join(f"{_dragon_label(game, st.units[u])} by {how}" for u, how in p.items())
                    or "none"
                )
                opts.append(choice(str(i), f"Kill {label}"))
            pick = yield _ask(
                "dragon_kills",
                pid,
                "choice",
                f"{game.player_name(pid)}: {melee} melee and {missile} missile: which dragons do they kill?",
                "V4.01c L674-677",
                opts,
                validate=choose_validator(opts),
            )
            plan = plans[int(pick)]
        for uid, how in plan.items():
            site.army_killed.add(uid)
            with_bash = f", {credit[uid]} of them from Bash" if credit.get(uid) else ""
            game.say(
                f"{game.army_label(army)} kills {_dragon_label(game, st.units[uid])} with {how} "
                f"({site.by_uid(uid).toughness()} needed{with_bash})"
            )
        for a in targets:
            if a.dragon.uid not in plan:
                game.say(
                    f"{_dragon_label(game, a.dragon)} survives the army's response (needs {a.toughness()} "
                    "melee or missile)"
                )
    # Dragons on dragons: damage summed per target dragon, less its automatic saves unless it rolled a belly.
    incoming: dict[str, int] = {}
    for a in site.attacks:
        if a.target != ARMY:
            incoming[a.target] = incoming.get(a.target, 0) + a.damage()
    for uid, dmg in incoming.items():
        victim = site.by_uid(uid)
        saves = 0 if victim.belly else DRAGON_HEALTH_SAVES
        net = max(0, dmg - saves)
        if net >= victim.dragon.health:
            site.dragon_killed.add(uid)
            game.say(
                f"{_dragon_label(game, victim.dragon)} takes {dmg} damage, {saves} automatic saves: killed"
            )
        else:
            game.say(
                f"{_dragon_label(game, victim.dragon)} takes {dmg} damage, {saves} automatic saves: survives"
            )
    # Dragons on the army, less the army's saves.
    to_army = sum(a.damage() for a in site.on_army() if a.dragon.uid not in site.ignored)
    saves = site.response.totals.get("save", 0) if site.response is not None else 0
    # Killed dragons go back to their owners' Summoning Pools (L685-686).
    gone = site.army_killed | site.dragon_killed | site.slain | site.sai_killed
    for uid in sorted(gone, key=lambda u: list(st.units).index(u)):
        if st.location[uid] == tid:
            st.location[uid] = POOL
            game.say(f"{_dragon_label(game, st.units[uid])} is killed and returns to the Summoning Pool")
    army = st.army(pid, tid)
    if to_army and army.units:
        net = max(0, to_army - saves)
        game.say(
            f"The dragons inflict {to_army} damage on {game.army_label(army)}, {saves} saves: {net} damage"
        )
        if net:
            yield from game.inflict(army, net)
