"""Eldarim (V4.01c L838-850) and Eldarim champions: tame, slay or control a dragon (L2866-3058).

* Dragonkin Handlers (L842-850), Species Abilities Phase: one army with an Eldarim at a terrain
  takes a small Dragonkin from the Summoning Pool, or promotes one of its Dragonkin; the Dragonkin
  must match an element of the terrain, and the army's Dragonkin may not then be worth more health
  than its Eldarim.
* Champions (L2866-2903): in the army's response to a dragon attack (step 6), a champion whose logo
  comes up may tame, slay or control one dragon that attacked the army this turn; that dragon's
  non-breath damage of this attack is ignored.  White champions (Dragonlord, Dragonslayer,
  Dragoncrusader) may pick any dragon; the elemental ones (Dragonmaster, Dragonhunter,
  Dragonzealot) only a dragon containing their element; only a White champion affects a White
  Dragon (L2903).  In other rolls the elemental champions' logo is an ID worth two results, and
  every champion's logo gives four saves against individual-targeting effects: the resolution
  engine counts both.
* Slay (L2969-2983): the dragon leaves the game; no promotion; a slain White Dragon is rolled and a
  Jaws result buries the slayer.
* Tame (L2906-2956) and control (L3003-3057) last while the champion and the dragon stay at the
  same terrain, until the champion tames or controls another dragon, or another unit tames or
  controls this one; a tamed or controlled White Dragon is freed in the Effects Expire step of the
  champion owner's turn.  They are kept as effects on the dragon (``tamed_by``, ``controlled_by``)
  for the dragon attack phase to read.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ...core.decisions import choice, choose_validator
from ...core.state import BUA, POOL, UNTIL_YOUR_NEXT_TURN, GameState, Unit
from .dragonkin import dragon_kind, element_of, is_dragonkin
from .options import DRAGONKIN, ELDARIM, is_on

if TYPE_CHECKING:
    from ..context import RuleContext
    from ..dragons import SiteAttack
    from ..rolling import RollOutcome

Flow = Generator[Any, Any, Any]
DOC = "V4.01c"
REMOVED = "removed"  # a slain dragon leaves the game (L2978-2981)
TOGETHER = "while the champion and the dragon stay at the same terrain"
WHITE_CHAMPIONS = ("Dragonlord", "Dragonslayer", "Dragoncrusader")
ABILITY = {
    "Dragonlord": "tame",
    "Dragonmaster": "tame",
    "Dragonslayer": "slay",
    "Dragonhunter": "slay",
    "Dragoncrusader": "control",
    "Dragonzealot": "control",
}
EFFECT_NAME = {"tame": "Tamed", "control": "Controlled"}


def is_eldarim(unit: Unit) -> bool:
    return unit.is_unit and unit.spec.species == "Eldarim"


def champion_type(unit: Unit) -> str | None:
    """ "Dragonlord" ... "Dragonzealot" for an Eldarim champion, else None."""
    if not is_eldarim(unit):
        return None
    plain = unit.name.split("/")[-1].replace(" ", "").lower()
    for name in ABILITY:
        if name.lower() in plain:
            return name
    return None


def ability(unit: Unit) -> str | None:
    kind = champion_type(unit)
    return ABILITY.get(kind) if kind else None


def may_affect(champion: Unit, dragon: Unit) -> bool:
    """Whether this champion may tame / slay / control this dragon: White champions any dragon,
    elemental ones a dragon containing their element, and only White champions a White Dragon
    (L2903, L2911, L2946-2947, L2969, L2994-2995, L3008, L3052-3053)."""
    kind = champion_type(champion)
    if kind is None:
        return False
    white = kind in WHITE_CHAMPIONS
    if dragon_kind(dragon) == "white":
        return white
    return white or element_of(champion) in dragon.spec.elements


def tamed_by(st: GameState, dragon_uid: str) -> str | None:
    """The unit that has tamed this dragon, if any (a tamed dragon never attacks its army, L2920-2922)."""
    return _holder(st, dragon_uid, "Tamed")


def controlled_by(st: GameState, dragon_uid: str) -> str | None:
    """The unit that controls this dragon, if any (L3016-3026)."""
    return _holder(st, dragon_uid, "Controlled")


def _holder(st: GameState, dragon_uid: str, name: str) -> str | None:
    for e in st.effects:
        if e.name == name and e.target == dragon_uid:
            return e.detail.get("by")
    return None


def spares(st: GameState, dragon_uid: str, owner: str, location: str) -> bool:
    """Whether a tamed dragon refuses to attack the army of `owner` at `location` because its tamer is
    in that army (L2920-2922); it still attacks other dragons."""
    tamer = tamed_by(st, dragon_uid)
    return tamer is not None and st.units[tamer].owner == owner and st.location[tamer] == location


def spare_hook(game: RuleContext, dragon: Unit, pid: str, location: str) -> bool:
    """Dragon attack (a game's ``extensions.dragon_spare``): a dragon that would attack `pid`'s army at `location`
    does not when a unit of that army tamed it (L2920-2922), or controls it (its controller lets it
    not roll, L3016-3018)."""
    if not is_on(game, ELDARIM):
        return False
    st = game.state
    if spares(st, dragon.uid, pid, location):
        return True
    by = controlled_by(st, dragon.uid)
    return by is not None and st.units[by].owner == pid and st.location[by] == location


def control_hook(game: RuleContext, dragon: Unit, location: str) -> str | None:
    """Dragon attack (a game's ``extensions.dragon_control``): the player whose unit controls this dragon at this
    terrain decides what it does (L3016-3018)."""
    if not is_on(game, ELDARIM):
        return None
    st = game.state
    by = controlled_by(st, dragon.uid)
    if by is None or st.location.get(by) != location:
        return None
    return st.units[by].owner


def ride(game: RuleContext, pid: str) -> Flow:
    """Retreat step of the Reserves Phase: a champion that tamed a dragon may ride it, moving both to
    any other terrain; the dragon stays tamed (L2923-2926)."""
    if not is_on(game, ELDARIM):
        return
    st = game.state
    from ...core.decisions import ask as _ask

    for e in [e for e in st.effects if e.name == "Tamed" and e.owner == pid]:
        tamer, dragon = e.detail.get("by"), e.target
        if tamer not in st.units or dragon not in st.units or st.location[tamer] != st.location[dragon]:
            continue
        here = st.location[dragon]
        if here not in st.terrains:
            continue
        opts = [choice("stay", "Do not ride")] + [
            choice(t, f"Ride to {st.terrains[t].name}") for t in st.terrains if t != here
        ]
        pick = yield _ask(
            "dragonkin",
            pid,
            "choice",
            f"{game.player_name(pid)}: {st.units[tamer].name} may ride the tamed "
            f"{st.units[dragon].name} to another terrain",
            f"{DOC} L2923-2926",
            opts,
            validate=choose_validator(opts),
        )
        if pick != "stay":
            st.location[tamer] = st.location[dragon] = pick
            e.detail["terrain"] = pick
            game.say(f"{st.units[tamer].name} rides {st.units[dragon].name} to {st.terrains[pick].name}")


# --------------------------------------------------------------------------- Dragonkin Handlers


def handlers_options(game: RuleContext, pid: str) -> list[dict[str, Any]]:
    """Legal uses of Dragonkin Handlers for `pid` now (L842-850)."""
    st = game.state
    opts: list[dict[str, Any]] = []
    seen = set()
    for army in st.armies(pid, include_reserve=False):
        eldarim = sum(u.health for u in army.units if is_eldarim(u))
        if not eldarim:
            continue
        kin = sum(u.health for u in army.units if is_dragonkin(u))
        elements = set(st.terrains[army.location].kind.elements)
        pool = [u for u in st.area(pid, POOL) if is_dragonkin(u) and element_of(u) in elements]
        for u in pool:
            key = (army.location, "join", u.name)
            if u.health == 1 and kin + 1 <= eldarim and key not in seen:
                seen.add(key)
                opts.append(
                    choice(
                        f"join:{u.uid}:{army.location}",
                        f"{u.name} joins the army at {st.terrains[army.location].name}",
                    )
                )
        for a in army.units:
            if not is_dragonkin(a):
                continue
            for b in pool:
                key = (army.location, a.name, b.name)
                if b.health == a.health + 1 and kin + 1 <= eldarim and key not in seen:
                    seen.add(key)
                    opts.append(
                        choice(
                            f"promote:{a.uid}:{b.uid}",
                            f"Promote {a.name} to {b.name} at {st.terrains[army.location].name}",
                        )
                    )
    return opts


def dragonkin_handlers(game: RuleContext, pid: str) -> Flow:
    """Species Abilities Phase: Dragonkin Handlers (L842-850)."""
    if not is_on(game, DRAGONKIN):  # Dragonkin Handlers is an Eldarim species ability (standard species)
        return
    opts = handlers_options(game, pid)
    if not opts:
        return
    from ...core.decisions import ask as _ask

    opts = [choice("none", "Do not use Dragonkin Handlers")] + opts
    game.state.step = "dragonkin_handlers"
    pick = yield _ask(
        "dragonkin",
        pid,
        "choice",
        f"{game.player_name(pid)}: Dragonkin Handlers: add or promote a Dragonkin?",
        f"{DOC} L842-850",
        opts,
        validate=choose_validator(opts),
    )
    st = game.state
    verb, a, b = pick.split(":") if pick != "none" else ("none", "", "")
    if verb == "join":
        st.location[a] = b
        game.say(
            f"Dragonkin Handlers: {st.units[a].name} joins {game.player_name(pid)}'s army at {st.terrains[b].name}"
        )
    elif verb == "promote":
        st.location[b], st.location[a] = st.location[a], POOL
        game.say(f"Dragonkin Handlers: {st.units[a].name} is promoted to {st.units[b].name}")


# --------------------------------------------------------------------------- champions in a dragon attack


def _controlled_dragons_fight(game: RuleContext, site: SiteAttack, outcome: RollOutcome) -> Flow:
    """When another dragon attacks the army of a unit controlling a dragon at that terrain, the
    controlled dragon is rolled and its damage (no Wing) joins the army's melee; it is not part of the
    army (L3016-3026).  A controlled dragon attacking its controller's army does no non-breath damage
    (the controller would not have let it roll)."""
    from ...core.decisions import ask_roll
    from .. import dragons as dg

    st = game.state
    attackers = {a.dragon.uid for a in site.on_army()}
    for e in [e for e in st.effects if e.name == "Controlled"]:
        by, uid = e.detail.get("by"), e.target
        if by not in st.units or st.units[by].owner != site.marching or st.location.get(by) != site.terrain:
            continue
        if st.location.get(uid) != site.terrain:
            continue
        if uid in attackers:
            site.ignored.add(uid)
            game.say(f"{st.units[uid].name} is controlled by {st.units[by].name}: it does not harm that army")
            continue
        if not attackers:
            continue
        dragon = st.units[uid]
        spec = [{"uid": uid, "die": dragon.name, "faces": list(dragon.spec.faces)}]
        faces = yield ask_roll(
            "roll",
            st.units[by].owner,
            f"{game.player_name(st.units[by].owner)}: roll your controlled "
            f"{dragon.name}: its damage joins your army's melee",
            f"{DOC} L3016-3026",
            dice=spec,
            data={"roll": "controlled_dragon", "dragon": uid},
        )
        icon = dg.icon(faces[0])
        damage = (
            0
            if icon == "Wing"
            else dg.BASE_DAMAGE.get(icon, 0) * (2 if dragon_kind(dragon) == "white" else 1)
        )
        outcome.totals["melee"] = outcome.totals.get("melee", 0) + damage
        game.say(f"Controlled {dragon.name} rolled {icon}: {damage} added to the army's melee")


def response_hook(game: RuleContext, site: SiteAttack, outcome: RollOutcome) -> Flow:
    """Dragon attack, step 6: controlled dragons fight for their controller's army; champions whose
    logo came up tame, slay or control a dragon that attacked their army (a game's ``extensions.dragon_response``)."""
    if not is_on(game, ELDARIM):
        return
    yield from _controlled_dragons_fight(game, site, outcome)
    st = game.state
    rolled = (st.last_roll or {}).get("faces", [])
    attackers = [a.dragon for a in site.on_army()]
    from ...core.decisions import ask as _ask

    for report in outcome.reports:
        i = report.get("unit")
        kind = report.get("kind", "")
        if kind not in ("tame_dragon", "slay_dragon", "control_dragon") or i is None or i >= len(rolled):
            continue
        champ = st.units[rolled[i]["uid"]]
        targets = [
            d
            for d in attackers
            if may_affect(champ, d)
            and st.location[d.uid] == site.terrain
            and d.uid not in site.slain | getattr(site, "sai_killed", set())
        ]  # not one already killed
        if not targets:
            continue
        what = kind.split("_")[0]
        opts = [choice("none", f"Do not {what} a dragon")] + [
            choice(d.uid, f"{what.capitalize()} {d.name}") for d in targets
        ]
        pick = yield _ask(
            "dragonkin",
            champ.owner,
            "choice",
            f"{game.player_name(champ.owner)}: {champ.name} rolled its logo: {what} a dragon that attacked "
            "your army?",
            f"{DOC} L2906-3057",
            opts,
            validate=choose_validator(opts),
        )
        if pick == "none":
            continue
        dragon = st.units[pick]
        site.ignored.add(dragon.uid)  # its non-breath damage this attack is ignored
        if what == "slay":
            yield from _slay(game, site, champ, dragon)
        else:
            bind(game, champ, dragon, what)


def _slay(game: RuleContext, site: SiteAttack, champ: Unit, dragon: Unit) -> Flow:
    """The dragon is removed from the game, no promotion; a slain White Dragon is rolled and Jaws
    buries the slayer (L2978-2983)."""
    st = game.state
    site.slain.add(dragon.uid)
    st.location[dragon.uid] = REMOVED
    st.effects = [e for e in st.effects if e.target != dragon.uid]
    game.say(f"{champ.name} slays {dragon.name}: it is removed from the game (V4.01c L2978-2981)")
    if dragon_kind(dragon) == "white":
        from ...core.decisions import ask_roll

        spec = [{"uid": dragon.uid, "die": dragon.name, "faces": list(dragon.spec.faces)}]
        faces = yield ask_roll(
            "roll",
            champ.owner,
            f"{game.player_name(champ.owner)}: roll the slain {dragon.name}: Jaws buries the slayer",
            f"{DOC} L2978-2983",
            dice=spec,
            data={"roll": "slain_white_dragon"},
        )
        if "Jaw" in faces[0]:
            st.location[champ.uid] = BUA
            game.say(f"The White Dragon rolled Jaws: {champ.name} is buried")


def bind(game: RuleContext, champ: Unit, dragon: Unit, what: str) -> None:
    """Tame or control: one dragon per champion, one champion per dragon (L2929-2941, L3027-3036)."""
    st = game.state
    st.effects = [
        e
        for e in st.effects
        if not (
            e.name in EFFECT_NAME.values() and (e.target == dragon.uid or e.detail.get("by") == champ.uid)
        )
    ]
    expiry = UNTIL_YOUR_NEXT_TURN if dragon_kind(dragon) == "white" else TOGETHER
    game.add_effect(
        EFFECT_NAME[what], champ.owner, dragon.uid, expiry, by=champ.uid, terrain=st.location[dragon.uid]
    )
    game.say(f"{champ.name} {'tames' if what == 'tame' else 'controls'} {dragon.name}")


def cleanup(game: RuleContext) -> None:
    """Taming and control end when the champion or the dragon leaves the terrain (L2936-2941,
    L3031-3036)."""
    st = game.state
    keep = []
    for e in st.effects:
        if e.name in EFFECT_NAME.values() and e.expiry == TOGETHER:
            by = e.detail.get("by")
            if by not in st.units or e.target not in st.units or st.location[by] != st.location[e.target]:
                game.say(f"{e.name} ends: the champion and the dragon are no longer together")
                continue
        keep.append(e)
    st.effects = keep
