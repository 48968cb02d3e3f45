"""Dragonkin (V4.01c L2510-2564): allowance, the Summoning Pool, restrictions, automatic saves,
Dragonkin champions.

* Allowance: one health-worth per full three points of non-Dracolem force (L2512-2514;
  ``setup.dragonkin_allowance``, checked at set-up by ``flow._advanced_pool``).
* They start in the Summoning Pool (L2520) and join armies when summoned (Summon Dragonkin,
  Dragonkin Handlers, Silver Medallion); promotion takes the larger Dragonkin from the Summoning
  Pool (L1139-1141).
* They never leave the terrain where they were summoned (L2521); an army made only of Dragonkin
  sends them back to the Summoning Pool (L2522-2523); killed, they return to the Summoning Pool
  unless one effect kills and buries them (L2525-2527); they carry no items (L2529,
  ``items.can_carry``); they never roll for magic or missile actions (L2532).
* Automatic saves equal to their health are added at step 10 of die roll resolution, only when
  they roll (L2537-2541): the resolution engine does it (``companion.rules.v4.core``).
* Dragon attacks: they sit out a dragon attack that includes a dragon of their element, an Ivory,
  an Ivory Hybrid or a White Dragon, yet may take damage (L2533-2535); Eldarim's Resist Fear lets
  Dragonkin up to the Eldarim's health roll anyway (L838-840): ``may_roll_in_dragon_attack``.
* Dragonkin champions: their logo gives four saves against an individual-targeting effect (the
  engine), and in a melee attack may move a summoned dragon sharing their element from one
  terrain to another (L2546-2564): ``after_roll``.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TYPE_CHECKING, Any

from ...core.decisions import choice, choose_validator
from ...core.errors import IllegalAction
from ...core.state import POOL, RESERVE, GameState, Unit
from .options import DRAGONKIN, is_on

if TYPE_CHECKING:
    from ...core.state import Army
    from ..context import RuleContext
    from ..rolling import RollOutcome

Flow = Generator[Any, Any, Any]
DOC = "V4.01c"
NO_ROLL_ACTIONS = ("magic", "missile")  # L2532


def is_dragonkin(unit: Unit) -> bool:
    return unit.is_unit and unit.spec.species == "Dragonkin"


def element_of(unit: Unit) -> str:
    """A Dragonkin (or elemental Eldarim) die has exactly one element."""
    return unit.spec.elements[0] if unit.spec.elements else ""


def dragon_kind(dragon: Unit) -> str:
    """ "white", "ivory", "ivory hybrid" or "elemental" (hybrids count as elemental here), from the
    dragon's make-up (L540-576)."""
    label = str(getattr(dragon.spec.die, "dragon_type", "") or "")
    if "White" in label or "white" in dragon.name.lower() or len(dragon.spec.elements) >= 5:
        return "white"
    if "Ivory Hybrid" in label:
        return "ivory hybrid"
    if not dragon.spec.elements:
        return "ivory"
    return "elemental"


def frightened_by(kin: Unit, dragons: Sequence[Unit]) -> bool:
    """Whether the Dragonkin may not roll in a dragon attack by these dragons: one of its element,
    an Ivory, an Ivory Hybrid or a White Dragon (L2533-2535)."""
    for d in dragons:
        kind = dragon_kind(d)
        if kind in ("white", "ivory", "ivory hybrid") or element_of(kin) in d.spec.elements:
            return True
    return False


def may_roll_in_dragon_attack(army: Sequence[Unit], dragons: Sequence[Unit]) -> list[str]:
    """Uids of the army's Dragonkin that roll in this dragon attack.  Frightened Dragonkin sit out,
    except that Resist Fear lets Dragonkin up to the total health of the army's Eldarim roll
    (L838-840); the largest are let in first."""
    eldarim = sum(u.health for u in army if u.is_unit and u.spec.species == "Eldarim")
    out = []
    frightened = sorted(
        (u for u in army if is_dragonkin(u) and frightened_by(u, dragons)), key=lambda u: (-u.health, u.uid)
    )
    for u in army:
        if is_dragonkin(u) and not frightened_by(u, dragons):
            out.append(u.uid)
    budget = eldarim
    for u in frightened:
        if u.health <= budget:
            out.append(u.uid)
            budget -= u.health
    return out


# --------------------------------------------------------------------------- flow hooks


def roll_dice(game: RuleContext, army: Army, roll: str, dice: list[Unit]) -> list[Unit]:
    """Dragonkin never roll for magic or missile actions (L2532); in the response to a dragon attack
    (roll ``"dragon"``) the frightened ones sit out unless Resist Fear lets them roll (L2533-2535,
    L838-840)."""
    if not is_on(game, DRAGONKIN):
        return dice
    if roll in NO_ROLL_ACTIONS:
        return [d for d in dice if not is_dragonkin(d)]
    if roll == "dragon":
        st = game.state
        dragons = [
            u for u in st.units.values() if u.spec.kind == "dragon" and st.location[u.uid] == army.location
        ]
        allowed = set(may_roll_in_dragon_attack([d for d in dice if d.is_unit], dragons))
        return [d for d in dice if not is_dragonkin(d) or d.uid in allowed]
    return dice


def killed(game: RuleContext, uid: str) -> str | None:
    """A killed Dragonkin returns to its owner's Summoning Pool, never the DUA (L2525-2526)."""
    unit = game.state.units[uid]
    return POOL if is_dragonkin(unit) else None


def cleanup(game: RuleContext) -> None:
    """An army made only of Dragonkin: they return to the Summoning Pool, the army is gone
    (L2522-2523)."""
    st = game.state
    places = {
        (u.owner, st.location[u.uid])
        for u in st.units.values()
        if is_dragonkin(u) and (st.location[u.uid] in st.terrains or st.location[u.uid] == RESERVE)
    }
    for owner, loc in sorted(places):
        units = st.army(owner, loc).units
        if units and all(is_dragonkin(u) for u in units):
            for u in units:
                st.location[u.uid] = POOL
            game.say(
                f"{game.player_name(owner)}'s army of Dragonkin alone returns to the Summoning Pool (V4.01c L2522-2523)"
            )


def check_move(game: RuleContext, pid: str, uid: str, where: str) -> None:
    """Dragonkin cannot leave the terrain where they were summoned (L2521)."""
    unit = game.state.units[uid]
    if is_dragonkin(unit) and game.state.location[uid] != where:
        raise IllegalAction(
            f"{unit.name} is a Dragonkin: it cannot leave the terrain where it was summoned", f"{DOC} L2521"
        )


def summon(st: GameState, uids: Sequence[str], location: str, rule: str) -> list[str]:
    """Dragonkin join the army at `location` from their owner's Summoning Pool; validates first."""
    for uid in uids:
        u = st.units.get(uid)
        if u is None or not is_dragonkin(u) or st.location[uid] != POOL:
            raise IllegalAction(f"{uid!r} is not a Dragonkin in a Summoning Pool", rule)
        if location not in st.terrains or not st.army(u.owner, location).units:
            raise IllegalAction(
                f"Dragonkin join an army at a terrain; {u.owner} has none at {location!r}", rule
            )
    for uid in uids:
        st.location[uid] = location
    return [f"{st.units[u].name} joins the army at {st.terrains[location].name}" for u in uids]


def after_roll(game: RuleContext, army: Army, roll: str, outcome: RollOutcome, ctx: dict[str, Any]) -> Flow:
    """Dragonkin champion logo in a melee attack: move a summoned dragon sharing its element from
    one terrain to another (L2556-2560)."""
    if roll != "melee" or not is_on(game, DRAGONKIN) or ctx.get("no_sai_effects"):
        return
    st = game.state
    rolled = (st.last_roll or {}).get("faces", [])
    for report in outcome.reports:
        i = report.get("unit")
        if report.get("kind") != "move_dragon" or i is None or i >= len(rolled):
            continue
        champ = st.units[rolled[i]["uid"]]
        dragons = [
            u
            for u in st.units.values()
            if u.spec.kind == "dragon"
            and st.location[u.uid] in st.terrains
            and element_of(champ) in u.spec.elements
        ]
        if not dragons:
            continue
        from ...core.decisions import ask as _ask

        opts = [choice("none", "Move no dragon")]
        for d in dragons:
            for t in st.terrains:
                if t != st.location[d.uid]:
                    opts.append(
                        choice(
                            f"{d.uid}>{t}",
                            f"Move {d.name} from {st.terrains[st.location[d.uid]].name} "
                            f"to {st.terrains[t].name}",
                        )
                    )
        pick = yield _ask(
            "dragonkin",
            champ.owner,
            "choice",
            f"{game.player_name(champ.owner)}: {champ.name}'s logo: move a summoned dragon sharing its element?",
            f"{DOC} L2556-2560",
            opts,
            validate=choose_validator(opts),
        )
        if pick != "none":
            uid, dest = pick.split(">", 1)
            st.location[uid] = dest
            game.say(f"{champ.name} moves {st.units[uid].name} to {st.terrains[dest].name}")
