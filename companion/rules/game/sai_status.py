"""Lasting SAI states of single units and armies, and the checks the flow makes against them.

* Netted (Net, V4.01c L1714-1728), webbed (Web, L2060-2071), asleep (Sleep, L1853-1858): the unit
  cannot be rolled nor leave its terrain until the beginning of the SAI owner's next turn.
* Stunned (Stun, L1947-1956): cannot be rolled (unless an individual-targeting effect makes it);
  leaving the terrain ends it.
* Hypnotized (Hypnotic Glare, L1655-1666): cannot be rolled; ends if the glaring unit leaves the
  terrain or is killed.
* Illusion (L1667-1675): the army cannot be targeted by opposing missile attacks or spells.
* Within one melee action: charmed units do not roll saves (Charm, L1319-1325); units picked by
  Foul Stench (L907-914) and every unit after Surprise (L1969-1977) cannot counter-attack.

States live in ``GameState.effects`` (``detail["status"]``), so they show on the page and expire
with the flow's usual expiries; per-march marks live on the game object (rebuilt on replay).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.errors import IllegalAction
from ..core.state import UNTIL_YOUR_NEXT_TURN, Army, Unit

if TYPE_CHECKING:
    from .context import Flow, RuleContext

NO_ROLL = ("netted", "webbed", "asleep", "stunned", "hypnotized")
HOLDS = ("netted", "webbed", "asleep")
RULES = {
    "netted": "V4.01c L1714-1728",
    "webbed": "V4.01c L2060-2071",
    "asleep": "V4.01c L1853-1858",
    "stunned": "V4.01c L1947-1956",
    "hypnotized": "V4.01c L1655-1666",
}
NAMES = {
    "netted": "Net",
    "webbed": "Web",
    "asleep": "Sleep",
    "stunned": "Stun",
    "hypnotized": "Hypnotic Glare",
}


def march_marks(game: RuleContext) -> dict[str, Any]:
    """Marks that last one melee action (charmed units, no counter-attack)."""
    marks = game.notes.get("sai_march", None)
    if marks is None:
        marks = game.notes["sai_march"] = {
            "charmed": set(),
            "no_counter": set(),
            "surprised": False,
            "wave": 0,
        }
    return marks


def reset_march_marks(game: RuleContext) -> None:
    game.notes["sai_march"] = {"charmed": set(), "no_counter": set(), "surprised": False, "wave": 0}


def set_status(game: RuleContext, uid: str, status: str, owner: str, **detail: Any) -> None:
    st = game.state
    game.add_effect(
        NAMES[status], owner, uid, UNTIL_YOUR_NEXT_TURN, status=status, where=st.location[uid], **detail
    )
    game.say(f"{st.units[uid].name} is {status} ({RULES[status]})")


def statuses(game: RuleContext, uid: str) -> list[str]:
    """The lasting states on one unit now (a stun or glare that has ended is not listed)."""
    st = game.state
    out = []
    for e in st.effects:
        if e.target != uid or "status" not in e.detail:
            continue
        status = e.detail["status"]
        if status == "stunned" and st.location[uid] != e.detail.get("where"):
            continue  # leaving the terrain ends the stun (L1953-1955)
        if status == "hypnotized":
            glarer = e.detail.get("glarer")
            if glarer is not None and st.location.get(glarer) != e.detail.get("where"):
                continue  # the glaring unit left the terrain or died (L1663-1664)
        out.append(status)
    return out


def can_roll(game: RuleContext, unit: Unit) -> bool:
    return not any(s in NO_ROLL for s in statuses(game, unit.uid))


def roll_dice_filter(game: RuleContext, army: Army, roll: str, dice: list[Unit]) -> list[Unit]:
    """extensions.hooks["roll_dice"]: netted, webbed, asleep, stunned and hypnotized units are not rolled;
    charmed units roll for the attacker, not for saves; units barred from the counter-attack sit it out."""
    if game.notes.get("sai_individual", False):
        # a unit made to roll by an individual-targeting effect rolls even when stunned (L1951-1953)
        return [d for d in dice if not any(s in HOLDS + ("hypnotized",) for s in statuses(game, d.uid))]
    marks = march_marks(game)
    out = []
    for d in dice:
        if not can_roll(game, d):
            continue
        if roll == "save" and d.uid in marks["charmed"]:
            continue
        if game.notes.get("sai_counter", False) and d.uid in marks["no_counter"]:
            continue
        out.append(d)
    return out


def glaring(game: RuleContext, uid: str) -> bool:
    """Whether unit `uid` holds some unit hypnotized now (Hypnotic Glare, L1655-1666)."""
    st = game.state
    return any(
        e.detail.get("status") == "hypnotized"
        and e.detail.get("glarer") == uid
        and "hypnotized" in statuses(game, e.target)
        for e in st.effects
    )


def glare_option(game: RuleContext, army: Army, roll: str, dice: list[Unit], ctx: dict[str, Any]) -> Flow:
    """extensions.hooks["before_roll"]: a glaring unit may be excluded from any roll until its effect
    expires; rolled, it ends the glare (L1663-1666).  Its owner chooses before each army roll."""
    from .sai_targeting import pick

    if ctx.get("individual") or ctx.get("order_of_play") or game.notes.get("sai_individual", False):
        return dice
    out = list(dice)
    for d in dice:
        if d.is_unit and glaring(game, d.uid):
            answer = yield from pick(
                game,
                army.owner,
                [
                    ("out", f"Leave {d.name} out of this roll: its Hypnotic Glare goes on"),
                    ("roll", f"Roll {d.name}: its Hypnotic Glare ends"),
                ],
                f"Hypnotic Glare: {d.name} ({d.uid}) holds units hypnotized: leave it out of this roll?",
                RULES["hypnotized"],
            )
            if answer == "out":
                out.remove(d)
                game.say(
                    f"{d.name} is left out of the roll: its Hypnotic Glare goes on ({RULES['hypnotized']})"
                )
    return out


def check_move(game: RuleContext, pid: str, uid: str, where: str) -> None:
    """extensions.hooks["check_move"]: netted, webbed and asleep units may not leave their terrain."""
    st = game.state
    if st.location.get(uid) == where:
        return
    for s in statuses(game, uid):
        if s in HOLDS:
            raise IllegalAction(f"{st.units[uid].name} is {s} and cannot leave its terrain", RULES[s])


def may_leave(game: RuleContext, uid: str) -> bool:
    unit = game.state.units.get(uid)
    if unit is not None and unit.spec.species == "Dragonkin":
        return False  # Dragonkin never leave the terrain where they were summoned (V4.01c L2521)
    return not any(s in HOLDS for s in statuses(game, uid))


def hidden_by_illusion(game: RuleContext, pid: str, army_id: str) -> bool:
    """An army under an opponent's... own Illusion cannot be targeted by `pid`'s missiles or spells."""
    return any(e.name == "Illusion" and e.target == army_id and e.owner != pid for e in game.state.effects)


def movable(game: RuleContext, units: Sequence[Unit]) -> list[Unit]:
    return [u for u in units if may_leave(game, u.uid)]
