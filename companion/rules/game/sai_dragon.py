"""SAIs of an army's response to a dragon attack that act beyond results (V4.01c L646-693 and the
"Dragon Attack" column of the SAI table): a hook of each game's ``extensions.dragon_response``.

* Decapitate (L1428-1431), Impale (L1684-1687), Earthfang's logo (L2854-2857): when an attacking dragon
  rolled Jaws, the army's player picks one such dragon and kills it (it returns to the Summoning Pool
  and counts for the step 8 promotion, L688-690);
  otherwise the SAI's 3 melee / missile (4 for Earthfang) are counted by the resolution.
* Cloak (L1335-1337): X non-magical saves for the army until its owner's next turn.

Bash against a dragon (L1266-1269) is asked before the response is totalled (``sai_attack``: the
chosen dragon's damage becomes saves and comes back on it at step 7, ``dragons.resolve_damage``);
the champions' taming is the Eldarim module's.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any

from ..core.decisions import Decision
from ..core.state import UNTIL_YOUR_NEXT_TURN
from .sai_general import sai_reports
from .sai_targeting import pick

if TYPE_CHECKING:
    from .context import RuleContext

Flow = Generator[Decision, Any, Any]


def response_hook(game: RuleContext, site: Any, outcome: Any) -> Flow:
    st = game.state
    army = st.army(site.marching, site.terrain)
    for r, _uid in sai_reports(outcome, {"kill_dragon", "lasting_modifier"}):
        if r["kind"] == "lasting_modifier" and r["source"] == "Cloak" and army.units:
            game.add_effect(
                "Cloak", army.owner, army.id, UNTIL_YOUR_NEXT_TURN, castings=int(r["amount"] or 0)
            )
            game.say(
                f"Cloak: {game.army_label(army)} adds {r['amount']} saves until its next turn (V4.01c L1335-1337)"
            )
        elif r["kind"] == "kill_dragon":
            yield from _slay(game, site, army.owner, r["source"])
    # The response roll is resolved without knowing the dragons' faces, so Decapitate and Impale were
    # counted as 3 melee / missile: with a Jaws dragon they slay it instead (L1428-1431, L1684-1687).
    done = {r["source"] for r, _ in sai_reports(outcome, {"kill_dragon"})}
    rolled = {f["uid"]: f["faces"] for f in (st.last_roll or {}).get("faces", [])}
    for uid in outcome.uids:
        unit = st.units[uid]
        for face in rolled.get(uid, []):
            sai = unit.spec.find_face(face).sai
            if sai == "Logo" and "Earthfang" in unit.name:
                sai = "Earthfang"  # its logo slays a Jaws dragon too (L2854-2857)
            if sai in NO_JAWS and sai not in done:
                result, amount = NO_JAWS[sai]
                slain = yield from _slay(game, site, army.owner, sai)
                if slain:
                    outcome.totals[result] = max(0, outcome.totals.get(result, 0) - amount)


NO_JAWS = {"Decapitate": ("melee", 3), "Impale": ("missile", 3), "Earthfang": ("melee", 4)}


def _slay(game: RuleContext, site: Any, owner: str, source: str) -> Flow:
    st = game.state
    jaws = [
        a.dragon
        for a in site.on_army()
        if "Jaw" in a.icons and a.dragon.uid not in site.slain | site.sai_killed
    ]
    if not jaws:
        return False
    options = [(d.uid, f"{d.name.split('/', 1)[-1]} ({d.uid})") for d in jaws]
    uid = yield from pick(
        game, owner, options, f"{source}: kill a dragon that rolled Jaws", "V4.01c L1420-1431, L1676-1687"
    )
    site.sai_killed.add(uid)
    game.say(f"{source}: {st.units[uid].name} is killed (V4.01c L1428-1431)")
    return True
