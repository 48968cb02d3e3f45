"""What every special action icon (SAI) contributes to a roll, edition V4.01c.

One entry per row of the V4 SAI table (V4.01c L1178-2080): 77 named SAIs plus the three logo
rows (Eldarim/Dragonkin champions, medallions, relics), 80 in all.  Names are the catalogue's
canonical SAI names (``companion.rules.catalogue.faces.SAI_NAMES``: "Firebreath", "Elemental
Relic", "Logo").

For each SAI and each roll type the table says, in our own words:

* the action results it generates (added at resolution step 8, L1011-1030);
* the modifiers it creates (on this roll, on the defender's save roll, or lasting);
* whether the die is rolled again and the new face applied as well;
* the effects on the game beyond results (kills, burials, moves, lasting effects), as data.

General SAI rules used here (L1180-1238): X is the face's result count (the catalogue stores it);
an SAI does nothing in a roll type its "Applies" column does not list; where the SAI offers a
choice of results the option that most helps the roll is taken unless the caller chooses
(``Situation.choices``); SAI-generated results are never modified at steps 6-7.

Decisions where the text is silent (documented, overridable):

* "Roll this unit again" faces chain: a re-rolled face that re-rolls again is rolled again
  (R96 L745-750 says so for Rend; V4 is silent, inventory A13 gap 7).
* A save against a dragon is the dragon-attack response roll: the "Dragon Attack" mode applies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..text_numbers import is_whole_number
from .contributions import (
    ALL,
    CANTRIP,
    MAGIC,
    MANEUVER,
    MELEE,
    MISSILE,
    RESULT_TYPES,
    SAVE,
    Contribution,
    Modifier,
    Op,
    RollEffect,
    Scope,
    counts_as,
)
from .situation import Situation

DOC = "V4.01c"
X = "X"  # stands for the face's X value in the table below
Amount = int | str


def cite(lines: str) -> str:
    return f"{DOC} L{lines}"


# --------------------------------------------------------------------------- table language


@dataclass(frozen=True)
class EffectSpec:
    kind: str
    amount: Amount | None = None
    target: str = ""
    timing: str = "now"
    detail: str = ""


@dataclass(frozen=True)
class ModSpec:
    """A modifier in a row of the table: a ``Modifier`` whose amount may still be the face's X."""

    stage: Op
    result: str  # a result type, or ALL
    amount: Amount
    reach: Scope
    note: str = ""
    species: str | None = None


@dataclass(frozen=True)
class Mode:
    """What an SAI does in one roll type.  ``alternatives``: the rules offer a choice; each
    alternative is a Mode with a ``label``."""

    results: tuple[tuple[str, Amount], ...] = ()
    rerolls: bool = False
    effects: tuple[EffectSpec, ...] = ()
    modifiers: tuple[ModSpec, ...] = ()
    counts_as: tuple[tuple[str, str], ...] = ()
    loses_automatic_saves: bool = False
    id_results: int = 0
    label: str = ""
    alternatives: tuple[Mode, ...] = ()
    note: str = ""
    #: a condition on the situation beyond the roll type (e.g. "at a terrain")
    when: Callable[[Situation], bool] | None = None


def r(result: str, amount: Amount = X) -> tuple[str, Amount]:
    return (result, amount)


def gen(*results: tuple[str, Amount], **kw: Any) -> Mode:
    return Mode(results=tuple(results), **kw)


def fx(
    kind: str, amount: Amount | None = None, target: str = "", timing: str = "now", detail: str = ""
) -> EffectSpec:
    return EffectSpec(kind, amount, target, timing, detail)


def choice(*alternatives: Mode, note: str = "") -> Mode:
    for alt in alternatives:
        if not alt.label:
            raise ValueError("choice alternatives need labels")
    return Mode(alternatives=tuple(alternatives), note=note)


NOTHING = Mode(note="no effect in this roll type")

#: Roll-type keys the table uses (see ``Situation.keys``).
KEYS = frozenset(
    {
        "maneuver",
        "melee",
        "missile",
        "magic",
        "counter_melee",
        "counter_missile",
        "save",
        "save_vs_melee",
        "save_vs_missile",
        "save_vs_magic",
        "save_vs_individual",
        "dragon",
        "individual",
        "army",
        "non_maneuver",
        "any",
    }
)


@dataclass(frozen=True)
class SAIRule:
    """One row of the SAI table."""

    name: str
    lines: str  # line range of the row in V4.01c
    applies: str  # the "Applies" column, as printed
    modes: Mapping[str, Mode | tuple[Mode, ...]]
    summary: str
    #: logo rows resolve through the die that shows them
    by_die: Callable[[object, Situation], Mode | None] | None = None
    delayed: bool = False
    extra_citations: tuple[str, ...] = field(default=())

    @property
    def citation(self) -> str:
        return cite(self.lines)

    def __post_init__(self) -> None:
        unknown = set(self.modes) - KEYS
        if unknown:
            raise ValueError(f"{self.name}: unknown roll-type keys {sorted(unknown)}")

    def mode_for(self, situation: Situation, die: object = None) -> Mode:
        if self.by_die is not None:
            mode = self.by_die(die, situation)
            if mode is not None:
                return mode
        for key in situation.keys():
            entry = self.modes.get(key)
            if entry is None:
                continue
            candidates = entry if isinstance(entry, tuple) else (entry,)
            for mode in candidates:
                if mode.when is None or mode.when(situation):
                    return mode
        return NOTHING


# --------------------------------------------------------------------------- shorthand effects

DEF = "defending army"
ONE_DEF = "one unit of the defending army"


def _kills(kind: str, amount: Amount, detail: str, target: str = DEF) -> EffectSpec:
    return fx(kind, amount, target, "before the defending army's save roll", detail)


def _lasting(op: Op, result: str, amount: Amount, note: str) -> ModSpec:
    return ModSpec(op, result, amount, Scope.TARGET_ARMY_ROLLS, note)


def _at_terrain(s: Situation) -> bool:
    return s.at_terrain


def _in_reserves(s: Situation) -> bool:
    return not s.at_terrain


def _not_tower_reserve(s: Situation) -> bool:
    return not s.tower_shot_at_reserves


def _dragon_rolled_jaws(s: Situation) -> bool:
    return s.dragon_rolled_jaws


def _id_kill_or_jaws(attack: str) -> dict[str, Mode | tuple[Mode, ...]]:
    """Decapitate (melee, V4.01c L1420-1431) and Impale (missile, V4.01c L1676-1687) are one rule
    printed twice for two attack types: in ``attack``, one defender that rolled its ID is killed at
    step 2 of the save roll and its results do not count; in a dragon attack, one dragon that rolled
    Jaws is killed, else three results of the ``attack`` type (MELEE or MISSILE)."""
    return {
        attack: gen(effects=(_delayed_kill_one_id(),)),
        "dragon": (
            gen(
                effects=(fx("kill_dragon", 1, "one attacking dragon that rolled Jaws"),),
                when=_dragon_rolled_jaws,
            ),
            gen(r(attack, 3), note=f"no dragon rolled Jaws: three {attack}"),
        ),
    }


def _saves_and_backlash_or(attack: str) -> dict[str, Mode | tuple[Mode, ...]]:
    """Counter (melee, V4.01c L1372-1398) and Volley (missile, V4.01c L2024-2038) are one rule
    printed twice for two attack types: saving against ``attack``, X saves and X damage to the
    attacking army that only spell-generated saves reduce; in any other save roll, X saves; in
    ``attack``, X results of that type; in a dragon attack, X saves and X ``attack`` results
    (MELEE or MISSILE)."""
    return {
        f"save_vs_{attack}": gen(
            r(SAVE),
            effects=(
                fx(
                    "damage_spell_saves_only",
                    X,
                    "the attacking army",
                    detail="reducible only by spell-generated saves",
                ),
            ),
        ),
        "save": gen(r(SAVE)),
        attack: gen(r(attack)),
        "dragon": gen(r(SAVE), r(attack)),
    }


def _maneuver_or_move_three() -> dict[str, Mode | tuple[Mode, ...]]:
    """Firewalking (V4.01c L1527-1538) and Teleport (V4.01c L1989-1997) are one rule printed
    under two names (inventory.md L544 and L588 say the same): in a maneuver roll, X maneuver
    results; in any non-maneuver roll, this unit may move itself and up to 3 health-worth of
    units in its army to any terrain."""
    return {
        "maneuver": gen(r(MANEUVER)),
        "non_maneuver": gen(
            effects=(
                fx(
                    "move",
                    3,
                    "this unit and up to 3 health-worth of its army",
                    detail="may move together to any terrain",
                ),
            )
        ),
    }


def _alike(mode: Mode, *keys: str) -> dict[str, Mode | tuple[Mode, ...]]:
    """One mode for several roll types: the rows that print one effect for "Melee, Missile" (and
    the like) map each of those roll-type keys to the same mode."""
    return dict.fromkeys(keys, mode)


def _defender_subtracts_saves() -> Mode:
    """Howl (melee and missile, V4.01c L1637-1642), Screech (melee, V4.01c L1798-1804) and Wave
    (melee, V4.01c L2039-2048) print one rule (inventory.md L554, L569, L593): the defending army
    subtracts X saves from its save roll."""
    return gen(
        modifiers=(ModSpec(Op.SUBTRACT, SAVE, X, Scope.DEFENDER_SAVE_ROLL, "defender subtracts X saves"),)
    )


def _maneuver_or_die() -> EffectSpec:
    """Firecloud (melee and missile, V4.01c L1519-1526) and Smother (melee, V4.01c L1880-1887) print
    one rule (inventory.md L543, L577): up to X health-worth of defenders make a maneuver roll, and
    those that fail are killed, before the defending army's save roll."""
    return _kills("maneuver_or_kill", X, "up to X health-worth roll maneuver or die")


def _maneuver_or_die_then_bury(attack: str) -> dict[str, Mode | tuple[Mode, ...]]:
    """Crush (missile, V4.01c L1408-1419) and Stomp (melee, V4.01c L1927-1937) are one rule printed
    twice for two attack types (inventory.md L533, L581): in ``attack``, up to X health-worth of
    defenders make a maneuver roll, those that fail are killed and each killed unit saves or is
    buried; in a dragon attack, X results of the ``attack`` type (MELEE or MISSILE)."""
    return {
        attack: gen(
            effects=(
                _kills(
                    "maneuver_or_kill_then_save_or_bury",
                    X,
                    "up to X health-worth roll maneuver or die; the dead save or are buried",
                ),
            )
        ),
        "dragon": gen(r(attack)),
    }


def _save_or_die_then_bury() -> EffectSpec:
    """Flaming Arrow (missile, V4.01c L1547-1561) and Poison (melee, V4.01c L1736-1745) print one
    effect (inventory.md L546, L563): X health-worth of defenders save or are killed, and each
    killed unit saves again or is buried."""
    return _kills(
        "save_or_kill_then_save_or_bury", X, "X health-worth save or die; the dead save again or are buried"
    )


def _roll_or_held(kind: str, roll: str, held: str) -> dict[str, Mode | tuple[Mode, ...]]:
    """Net (maneuver roll, V4.01c L1714-1728) and Web (melee roll, V4.01c L2060-2071) are one rule
    for two roll types (inventory.md L561, L595): in melee or missile, up to X health-worth of
    defenders make a ``roll`` roll and those that fail are ``held`` (cannot roll or leave the
    terrain) until your next turn; neither does anything to a Reserve Army shot from a Tower
    (inventory.md L198)."""
    effect = _kills(kind, X, f"up to X health-worth roll {roll} or are {held}")
    return {
        "melee": gen(effects=(effect,)),
        "missile": (
            gen(effects=(effect,), when=_not_tower_reserve),
            Mode(note="no effect on a Reserve Army shot from a Tower"),
        ),
    }


def _galeforce(when: Callable[[Situation], bool] | None = None) -> Mode:
    """Galeforce (V4.01c L1599-1608; inventory.md L550): in melee or missile, or in a magic action
    at a terrain (``when=_at_terrain``), an opposing army anywhere suffers -4 saves and -4 maneuver
    on all its rolls until your next turn."""
    return gen(
        modifiers=(
            _lasting(Op.SUBTRACT, SAVE, 4, "opposing army: -4 saves"),
            _lasting(Op.SUBTRACT, MANEUVER, 4, "opposing army: -4 maneuver"),
        ),
        when=when,
    )


def _double_one_units(result: str) -> ModSpec:
    """Elevate (V4.01c L1485-1498; inventory.md L538) doubles one unit's missile (missile roll) or
    saves (save vs melee); in a dragon attack, either of the two."""
    return ModSpec(
        Op.MULTIPLY, result, 2, Scope.ONE_UNIT, f"double one unit's {'saves' if result == SAVE else result}"
    )


def _delayed_kill_one_id() -> EffectSpec:
    """Decapitate, Impale (above) and Earthfang's melee (V4.01c L2825-2864) are delayed to step 2 of
    the defending army's save roll (inventory.md L269, L607): one unit that rolled its ID is killed
    and its results do not count."""
    return fx(
        "delayed_kill_id",
        1,
        DEF,
        "step 2 of the defending army's save roll",
        "one unit that rolled its ID is killed; its results do not count",
    )


def _feral_doubling() -> Mode:
    """Trumpet (V4.01c L2011-2018; inventory.md L590): in a dragon attack, melee attack or save
    roll alike, each Feral unit in this army doubles its melee and save results, so the three
    modes are this one."""
    return gen(
        modifiers=(
            ModSpec(
                Op.MULTIPLY, MELEE, 2, Scope.UNITS_OF_SPECIES, "Feral units double melee", species="Feral"
            ),
            ModSpec(
                Op.MULTIPLY, SAVE, 2, Scope.UNITS_OF_SPECIES, "Feral units double saves", species="Feral"
            ),
        )
    )


# --------------------------------------------------------------------------- the logo rows


def _champion_logo(die: object, s: Situation) -> Mode | None:
    """Eldarim champions (L1811-1828, L2866-3058) and Dragonkin champions (L2546-2564)."""
    species = getattr(die, "species", None)
    name = str(getattr(die, "name", "")).split("/")[-1]
    if species not in ("Dragonkin", "Eldarim"):
        return None
    # Any save of a unit targeted alone (V4.01c L1210), whatever the effect is (melee, missile, magic):
    # Eldarim champions L2882-2888, Dragonkin champions L2558-2561.
    if s.roll_for == "save" and s.is_individual:
        return gen(r(SAVE, 4), note="champion logo: four saves against an individual-targeting effect")
    if species == "Dragonkin":
        if s.roll_for == "melee":
            return gen(
                effects=(
                    fx(
                        "move_dragon",
                        None,
                        "a summoned dragon sharing this champion's element",
                        detail="may move it from one terrain to another",
                    ),
                )
            )
        return NOTHING
    plain = name.replace(" ", "").lower()
    ability = (
        "tame"
        if "master" in plain or "lord" in plain
        else "slay"
        if "hunter" in plain or "slayer" in plain
        else "control"
    )
    white = any(w in plain for w in ("dragonlord", "dragonslayer", "dragoncrusader"))
    if s.is_dragon_attack:
        return gen(
            effects=(
                fx(
                    f"{ability}_dragon",
                    None,
                    "one dragon that attacked this army",
                    detail="its non-breath damage this attack is ignored"
                    + ("" if white else "; only a dragon containing the champion's element"),
                ),
            )
        )
    if white:
        return NOTHING
    # Dragonmaster, Dragonhunter, Dragonzealot: in other rolls the logo is an ID worth two results.
    return Mode(id_results=2, note="elemental champion logo counts as an ID icon generating two results")


def _medallion_logo(die: object, s: Situation) -> Mode:
    """Medallions (L1829-1838, L2776-2824): the alloy decides."""
    color = str(getattr(die, "color", "") or getattr(die, "name", ""))
    if "Bronze" in color:
        if s.roll_for == "magic":
            return gen(r(MAGIC), note="X magic of any element")
        if not s.is_maneuver:
            return gen(r(CANTRIP), note="cantrip magic ignoring species and element requirements")
        return NOTHING
    if "Silver" in color:
        if s.is_maneuver:
            return NOTHING
        return gen(
            effects=(
                fx(
                    "silver_medallion",
                    1,
                    "the carrying army",
                    detail="one of: an item BUA->army; a Dragonkin or minor terrain BUA->Summoning "
                    "Pool; at a terrain, a small Dragonkin joins or 1 health-worth of "
                    "Dragonkin is promoted",
                ),
            )
        )
    if "Gold" in color:
        if s.is_maneuver:
            return NOTHING
        return gen(
            effects=(fx("return_from_dua", 4, "the carrying army", detail="may return up to 4 health-worth"),)
        )
    return NOTHING


def _relic_logo(die: object, s: Situation) -> Mode:
    """Relics (L1839-1846, L2825-2864): Elemental Relic logo = every element; Earthfang."""
    name = str(getattr(die, "name", ""))
    if "Earthfang" in name:
        if s.is_dragon_attack:
            if s.dragon_rolled_jaws:
                return gen(effects=(fx("kill_dragon", 1, "one attacking dragon that rolled Jaws"),))
            return gen(r(MELEE, 4), note="no dragon rolled Jaws: four melee")
        if s.roll_for in ("magic", "missile"):
            return gen(
                modifiers=(
                    ModSpec(
                        Op.SUBTRACT,
                        ALL,
                        2,
                        Scope.TERRAIN_ROLLS,
                        "Chill Wind: -2 to every army roll at this terrain until it is "
                        "maneuvered to a new face; cumulative",
                    ),
                ),
                effects=(fx("chill_wind", 2, "this terrain", "until the terrain changes face"),),
            )
        if s.roll_for == "melee":
            return gen(effects=(_delayed_kill_one_id(),))
        return NOTHING
    # Elemental Relic: the logo matches every element and ivory.
    return _ELEMENTAL_RELIC_MODE if not s.is_maneuver else NOTHING


def _logo(die: object, s: Situation) -> Mode | None:
    mode = _champion_logo(die, s)
    if mode is None:
        return Mode(note="logo of a die the V4 rules do not describe (e.g. Dracolem): no effect")
    return mode


_ELEMENTAL_RELIC_MODE = gen(
    effects=(
        fx(
            "relic_reroll_recruit_promote",
            X,
            "matching units of the carrying army",
            detail="X health-worth re-rolled once, or X small units recruited, or "
            "X health-worth promoted; may be split",
        ),
    )
)


# --------------------------------------------------------------------------- the table

_RULES: tuple[SAIRule, ...] = (
    SAIRule(
        "Attune",
        "1243-1249",
        "Magic",
        {
            "magic": gen(
                r(MAGIC),
                effects=(
                    fx(
                        "attune_element",
                        X,
                        "one unit of the marching army",
                        detail="may turn its normal magic into the Attune magic's element",
                    ),
                ),
                note="X magic of any element",
            ),
        },
        "X magic of any element; may retint one unit's normal magic",
    ),
    SAIRule(
        "Bash",
        "1250-1269",
        "Dragon Attack, Save*",
        {
            "save_vs_melee": gen(
                r(SAVE, "BASH"),
                effects=(
                    fx(
                        "damage",
                        "BASH",
                        "one attacking unit",
                        detail="damage equal to its own melee results; it may save",
                    ),
                ),
            ),
            "dragon": gen(
                r(SAVE, "BASH_DRAGON"),
                effects=(
                    fx(
                        "damage",
                        "BASH_DRAGON",
                        "one attacking dragon that did damage",
                        detail="damage equal to the damage it inflicted",
                    ),
                ),
            ),
            "save": gen(r(SAVE)),
        },
        "saves equal to a targeted attacker's melee (which it takes as damage); else X saves",
    ),
    SAIRule(
        "Belly",
        "1270-1272",
        "Any",
        {
            "any": Mode(loses_automatic_saves=True, note="this unit's automatic saves do not count"),
        },
        "the unit loses its automatic saves",
    ),
    SAIRule(
        "Breath",
        "1273-1279",
        "Melee",
        {
            "melee": gen(effects=(_kills("kill", X, "X health-worth of defending units are killed"),)),
        },
        "kill X health-worth of defenders",
    ),
    SAIRule(
        "Bullseye",
        "1280-1295",
        "Dragon Attack, Missile",
        {
            "missile": gen(
                rerolls=True,
                effects=(_kills("save_or_kill", X, "X health-worth targeted; each saves or is killed"),),
            ),
            "dragon": gen(r(MISSILE)),
        },
        "missile: X health-worth save or die, roll again; DA: X missile",
    ),
    SAIRule(
        "Cantrip",
        "1296-1306",
        "Magic, Non-Maneuver",
        {
            "magic": gen(r(MAGIC)),
            "non_maneuver": gen(r(CANTRIP), note="X magic for spells marked Cantrip only"),
        },
        "magic action / Magic Negation: X magic; other non-maneuver rolls: X cantrip magic",
    ),
    SAIRule(
        "Charge",
        "1309-1318",
        "Melee*",
        {
            "counter_melee": Mode(note="no effect during a counter-attack"),
            "melee": gen(
                counts_as=((MANEUVER, MELEE),),
                effects=(
                    fx(
                        "charge",
                        None,
                        DEF,
                        "instead of the save roll and counter-attack",
                        "the defender makes a combination save + melee roll; its melee damages the attacking army, "
                        "reducible only by spell saves",
                    ),
                ),
            ),
        },
        "attacking army counts all maneuver as melee; defender answers with save + melee",
    ),
    SAIRule(
        "Charm",
        "1319-1325",
        "Melee",
        {
            "melee": gen(
                effects=(
                    _kills(
                        "charm",
                        X,
                        "up to X health-worth of defenders do not save this march; their "
                        "owner rolls them and their results join the attacker's",
                    ),
                )
            ),
        },
        "up to X health-worth of defenders roll for the attacker",
    ),
    SAIRule(
        "Choke",
        "1326-1331",
        "Melee",
        {
            "melee": gen(
                effects=(
                    fx(
                        "delayed_kill_id",
                        X,
                        DEF,
                        "step 2 of the defending army's save roll",
                        "up to X health-worth of units that rolled their ID are killed; their results "
                        "do not count",
                    ),
                )
            ),
        },
        "delayed: up to X health-worth of defenders showing ID are killed",
        delayed=True,
    ),
    SAIRule(
        "Cloak",
        "1332-1345",
        "Dragon Attack, Individual, Magic, Save",
        {
            "individual": choice(*(gen(r(t), label=t) for t in RESULT_TYPES)),
            **_alike(
                gen(
                    modifiers=(
                        ModSpec(
                            Op.ADD,
                            SAVE,
                            X,
                            Scope.OWN_ARMY_ROLLS,
                            "X non-magical saves for this army until your next turn",
                        ),
                    )
                ),
                "dragon",
                "save",
            ),
            "magic": gen(r(MAGIC)),
        },
        "save/DA: +X saves to this army until your next turn; magic: X magic; individual: X of any",
    ),
    SAIRule(
        "Coil",
        "1346-1356",
        "Dragon Attack, Melee",
        {
            "melee": gen(
                effects=(
                    fx(
                        "coil",
                        X,
                        ONE_DEF,
                        "now",
                        "the unit takes X damage and rolls save + melee; its melee damages the coiling "
                        "unit with no save",
                    ),
                )
            ),
            "dragon": gen(r(MELEE)),
        },
        "melee: one defender takes X damage, fights back; DA: X melee",
    ),
    SAIRule(
        "Confuse",
        "1357-1364",
        "Melee, Missile",
        _alike(
            gen(
                effects=(
                    fx(
                        "delayed_reroll",
                        X,
                        DEF,
                        "step 2 of the defending army's save roll",
                        "up to X health-worth of defenders are rolled again, earlier results ignored",
                    ),
                )
            ),
            "melee",
            "missile",
        ),
        "delayed: up to X health-worth of defenders re-roll their saves",
        delayed=True,
    ),
    SAIRule(
        "Convert",
        "1365-1371",
        "Melee",
        {
            "melee": gen(
                effects=(
                    _kills("save_or_kill", X, "up to X health-worth save or are killed"),
                    fx(
                        "return_from_dua",
                        X,
                        "the attacking army",
                        "after the kills",
                        "may return up to the health-worth killed from the attacker's DUA",
                    ),
                )
            ),
        },
        "up to X health-worth save or die; attacker returns as much from its DUA",
    ),
    SAIRule(
        "Counter",
        "1372-1398",
        "Dragon Attack, Melee, Save*",
        _saves_and_backlash_or(MELEE),
        "save vs melee: X saves + X damage back; other saves: X saves; melee: X melee; DA: both",
    ),
    SAIRule(
        "Create Fireminions",
        "1399-1407",
        "Any Non-Individual",
        {
            "army": choice(
                *(gen(r(t), label=t) for t in RESULT_TYPES),
                note="X results of one type of your choice (may be split in combination rolls)",
            ),
        },
        "X magic, maneuver, melee, missile or save results",
    ),
    SAIRule(
        "Crush",
        "1408-1419",
        "Dragon Attack, Missile",
        _maneuver_or_die_then_bury(MISSILE),
        "missile: up to X health-worth maneuver or die (then save or buried); DA: X missile",
    ),
    SAIRule(
        "Decapitate",
        "1420-1431",
        "Melee, Dragon Attack",
        _id_kill_or_jaws(MELEE),
        "delayed: kill one defender showing ID; DA: kill a Jaws dragon, else 3 melee",
        delayed=True,
    ),
    SAIRule(
        "Dispel Magic",
        "1432-1448",
        "Special",
        {},
        "no effect in ordinary rolls; a special roll of its own negates magic aimed at the unit, its army "
        "or its terrain",
    ),
    SAIRule(
        "Double Strike",
        "1449-1466",
        "Dragon Attack, Melee",
        {
            "melee": gen(
                rerolls=True,
                effects=(_kills("save_or_kill", 4, "4 health-worth targeted; each saves or is killed"),),
            ),
            "dragon": gen(r(MELEE, 4)),
        },
        "melee: 4 health-worth save or die, roll again; DA: 4 melee",
    ),
    SAIRule(
        "Elemental Relic",
        "1467-1484",
        "Non-Maneuver",
        {
            "non_maneuver": _ELEMENTAL_RELIC_MODE,
        },
        "re-roll, recruit or promote X health-worth of matching units",
        extra_citations=(cite("2825-2844"),),
    ),
    SAIRule(
        "Elevate",
        "1485-1498",
        "Dragon Attack, Maneuver, Missile, Save*",
        {
            "maneuver": gen(r(MANEUVER)),
            "missile": gen(modifiers=(_double_one_units(MISSILE),)),
            "save_vs_melee": gen(modifiers=(_double_one_units(SAVE),)),
            "dragon": choice(
                gen(modifiers=(_double_one_units(SAVE),), label=SAVE),
                gen(modifiers=(_double_one_units(MISSILE),), label=MISSILE),
            ),
        },
        "maneuver: X maneuver; missile/save vs melee/DA: double one unit's results",
    ),
    SAIRule(
        "Entangle",
        "1499-1501",
        "Melee",
        {
            "melee": gen(effects=(_kills("kill", X, "up to X health-worth of defenders are killed"),)),
        },
        "up to X health-worth of defenders killed",
    ),
    SAIRule(
        "Fabricate",
        "1502-1509",
        "Save, Magic",
        {
            "save": gen(r(SAVE), when=lambda s: not s.is_individual),
            "magic": gen(
                effects=(
                    fx(
                        "summon_equipment",
                        X,
                        "this army",
                        detail="summon equipment worth up to X value from the Summoning Pool",
                    ),
                )
            ),
        },
        "army save: X saves; magic: summon up to X value of equipment",
    ),
    SAIRule(
        "Ferry",
        "1510-1513",
        "Non-Maneuver",
        {
            "non_maneuver": gen(
                effects=(
                    fx(
                        "move",
                        4,
                        "this unit and up to 4 health-worth of its army",
                        detail="may move together to any terrain",
                    ),
                )
            ),
        },
        "this unit and 4 health-worth of its army may move",
    ),
    SAIRule(
        "Firebreath",
        "1514-1518",
        "Melee",
        {
            "melee": gen(effects=(fx("damage_no_save", X, DEF, detail="units killed save or are buried"),)),
        },
        "X damage to the defenders with no save; the dead save or are buried",
    ),
    SAIRule(
        "Firecloud",
        "1519-1526",
        "Melee, Missile",
        _alike(gen(effects=(_maneuver_or_die(),)), "melee", "missile"),
        "up to X health-worth maneuver or die",
    ),
    SAIRule(
        "Firewalking",
        "1527-1538",
        "Maneuver, Non-Maneuver",
        _maneuver_or_move_three(),
        "maneuver: X maneuver; otherwise may move with 3 health-worth",
    ),
    SAIRule(
        "Flame",
        "1539-1546",
        "Melee",
        {
            "melee": gen(
                effects=(_kills("kill_and_bury", 2, "up to 2 health-worth of defenders killed and buried"),)
            ),
        },
        "2 health-worth of defenders killed and buried",
    ),
    SAIRule(
        "Flaming Arrow",
        "1547-1561",
        "Dragon Attack, Missile",
        {
            "missile": gen(effects=(_save_or_die_then_bury(),)),
            "dragon": gen(r(MISSILE)),
        },
        "missile: X health-worth save or die, then save or be buried; DA: X missile",
    ),
    SAIRule(
        "Flurry",
        "1562-1575",
        "Dragon Attack, Melee, Save*",
        {
            "melee": gen(r(MELEE), rerolls=True),
            "save_vs_melee": gen(r(SAVE)),
            "dragon": choice(gen(r(SAVE), label=SAVE), gen(r(MELEE), rerolls=True, label=MELEE)),
        },
        "melee: X melee and roll again; save vs melee: X saves; DA: X saves or X melee + roll again",
    ),
    SAIRule(
        "Fly",
        "1576-1588",
        "Any",
        {
            "any": choice(gen(r(MANEUVER), label=MANEUVER), gen(r(SAVE), label=SAVE)),
        },
        "X maneuver or X saves",
    ),
    SAIRule(
        "Frost Breath",
        "1589-1598",
        "Melee, Missile",
        _alike(
            gen(
                modifiers=(
                    _lasting(Op.DIVIDE, ALL, 2, "an opposing army at this terrain halves all its results"),
                )
            ),
            "melee",
            "missile",
        ),
        "an opposing army at this terrain halves its results until your next turn",
    ),
    SAIRule(
        "Galeforce",
        "1599-1608",
        "Magic*, Melee, Missile",
        {**_alike(_galeforce(), "melee", "missile"), "magic": _galeforce(when=_at_terrain)},
        "an opposing army anywhere: -4 saves and -4 maneuver until your next turn",
    ),
    SAIRule(
        "Gate",
        "1609-1617",
        "Non-Maneuver",
        {
            "non_maneuver": gen(
                effects=(
                    fx(
                        "move",
                        4,
                        "up to 4 health-worth of other Dracolem of a matching alloy",
                        detail="may move to any terrain or the Reserve Area",
                    ),
                )
            ),
        },
        "moves up to 4 health-worth of other matching Dracolem",
    ),
    SAIRule(
        "Gore",
        "1618-1626",
        "Dragon Attack, Melee",
        {
            "melee": gen(effects=(fx("damage_unit", 2, ONE_DEF, detail="if Gore kills it, it is buried"),)),
            "dragon": gen(r(MELEE, 4)),
        },
        "melee: one defender takes 2 damage (buried if killed); DA: 4 melee",
    ),
    SAIRule(
        "Hoof",
        "1627-1636",
        "Dragon Attack, Maneuver, Save",
        {
            "maneuver": gen(r(MANEUVER)),
            "save": gen(r(SAVE)),
            "dragon": gen(r(SAVE)),
        },
        "X maneuver / X saves",
    ),
    SAIRule(
        "Howl",
        "1637-1642",
        "Melee, Missile",
        _alike(_defender_subtracts_saves(), "melee", "missile"),
        "the defending army subtracts X saves",
    ),
    SAIRule(
        "Hug",
        "1643-1654",
        "Dragon Attack, Melee",
        {
            "melee": gen(
                effects=(
                    fx(
                        "hug",
                        X,
                        ONE_DEF,
                        detail="X damage with no save; the unit rolls melee and its melee "
                        "damages the hugging unit with no save",
                    ),
                )
            ),
            "dragon": gen(r(MELEE)),
        },
        "melee: one defender takes X unsavable damage and hits back; DA: X melee",
    ),
    SAIRule(
        "Hypnotic Glare",
        "1655-1666",
        "Melee",
        {
            "melee": gen(
                effects=(
                    fx(
                        "delayed_hypnotize",
                        None,
                        DEF,
                        "step 2 of the defending army's save roll",
                        "every unit that rolled its ID is hypnotized until your next turn; its results "
                        "do not count as saves",
                    ),
                )
            ),
        },
        "delayed: defenders showing ID are hypnotized and their results ignored",
        delayed=True,
    ),
    SAIRule(
        "Illusion",
        "1667-1675",
        "Magic, Melee, Missile",
        _alike(
            gen(
                effects=(
                    fx(
                        "illusion",
                        None,
                        "one of your armies",
                        "until your next turn",
                        "cannot be targeted by opposing missile attacks or spells",
                    ),
                )
            ),
            "magic",
            "melee",
            "missile",
        ),
        "one of your armies cannot be targeted by missiles or opposing spells",
    ),
    SAIRule(
        "Impale",
        "1676-1687",
        "Dragon Attack, Missile",
        _id_kill_or_jaws(MISSILE),
        "delayed: kill one defender showing ID; DA: kill a Jaws dragon, else 3 missile",
        delayed=True,
    ),
    SAIRule(
        "Kick",
        "1688-1697",
        "Dragon Attack, Melee, Save",
        {
            "melee": gen(effects=(fx("damage_unit", X, ONE_DEF),)),
            "save": gen(r(SAVE)),
            "dragon": gen(r(MELEE), r(SAVE)),
        },
        "melee: one defender takes X damage; save: X saves; DA: X melee + X saves",
    ),
    SAIRule(
        "Magic Suppression",
        "1698-1713",
        "Magic, Melee, Missile",
        {
            **_alike(
                gen(modifiers=(_lasting(Op.SUBTRACT, MAGIC, 4, "an opposing army anywhere: -4 magic"),)),
                "melee",
                "missile",
            ),
            "magic": gen(r(MAGIC, 4)),
        },
        "melee/missile: an opposing army -4 magic until your next turn; magic: 4 magic",
    ),
    SAIRule(
        "Net",
        "1714-1728",
        "Individual, Melee, Missile",
        {
            **_roll_or_held("maneuver_or_net", MANEUVER, "netted"),
            "save_vs_individual": gen(r(SAVE)),
        },
        "up to X health-worth maneuver or are netted; individual save: X saves",
    ),
    SAIRule(
        "Plague",
        "1729-1735",
        "Melee",
        {
            "melee": gen(
                effects=(
                    _kills(
                        "plague",
                        1,
                        "one defender saves or dies; on a death its owner picks another, "
                        "until a save succeeds",
                        target=ONE_DEF,
                    ),
                )
            ),
        },
        "chain of save-or-die on the defenders",
    ),
    SAIRule(
        "Poison",
        "1736-1745",
        "Melee",
        {"melee": gen(effects=(_save_or_die_then_bury(),))},
        "X health-worth save or die, then save or be buried",
    ),
    SAIRule(
        "Regenerate",
        "1746-1750",
        "Non-Maneuver",
        {
            "non_maneuver": choice(
                gen(r(SAVE), label=SAVE),
                gen(
                    effects=(
                        fx(
                            "return_from_dua",
                            X,
                            "this army",
                            detail="return up to X health-worth of units from the DUA",
                        ),
                    ),
                    label="return units",
                ),
            ),
        },
        "X saves, or return X health-worth from the DUA",
    ),
    SAIRule(
        "Rend",
        "1751-1766",
        "Dragon Attack, Maneuver, Melee",
        {
            "melee": gen(r(MELEE), rerolls=True),
            "dragon": gen(r(MELEE), rerolls=True),
            "maneuver": gen(r(MANEUVER)),
        },
        "melee/DA: X melee and roll again; maneuver: X maneuver",
    ),
    SAIRule(
        "Rise from the Ashes",
        "1767-1781",
        "Save, Special",
        {
            "save": gen(r(SAVE)),
        },
        "save: X saves; special roll when the unit is killed or buried (a roll of its own)",
    ),
    SAIRule(
        "Roar",
        "1782-1790",
        "Melee",
        {
            "melee": gen(
                effects=(
                    _kills("to_reserves", X, "up to X health-worth of defenders go to their Reserve Area"),
                )
            ),
        },
        "up to X health-worth of defenders go to Reserves before saving",
    ),
    SAIRule(
        "Scare",
        "1791-1797",
        "Melee",
        {
            "melee": gen(
                effects=(
                    _kills(
                        "save_or_reserves",
                        X,
                        "up to X health-worth save; failures go to Reserves, those showing ID are killed",
                    ),
                )
            ),
        },
        "up to X health-worth save or flee; ID rollers die",
    ),
    SAIRule(
        "Screech",
        "1798-1804",
        "Melee",
        {"melee": _defender_subtracts_saves()},
        "the defending army subtracts X saves",
    ),
    SAIRule(
        "Seize",
        "1805-1810",
        "Missile",
        {
            "missile": gen(
                effects=(
                    _kills(
                        "id_to_reserves_else_kill",
                        X,
                        "up to X health-worth rolled: ID to Reserves, anything else killed",
                    ),
                )
            ),
        },
        "up to X health-worth rolled: ID flees, others die",
    ),
    SAIRule(
        "Logo",
        "1811-1828",
        "Special",
        {},
        "champion logo",
        by_die=_logo,
        extra_citations=(cite("2546-2564"), cite("2866-3058")),
    ),
    SAIRule(
        "Logo (Medallion)",
        "1829-1838",
        "Special",
        {},
        "medallion logo",
        by_die=_medallion_logo,
        extra_citations=(cite("2776-2824"),),
    ),
    SAIRule(
        "Logo (Relic)",
        "1839-1846",
        "Special",
        {},
        "relic logo",
        by_die=_relic_logo,
        extra_citations=(cite("2825-2864"),),
    ),
    SAIRule(
        "Slay",
        "1848-1852",
        "Melee",
        {
            "melee": gen(
                effects=(
                    _kills(
                        "roll_id_or_kill",
                        1,
                        "one defender is rolled; unless it shows its ID it is killed",
                        target=ONE_DEF,
                    ),
                )
            ),
        },
        "one defender dies unless it rolls its ID",
    ),
    SAIRule(
        "Sleep",
        "1853-1858",
        "Melee",
        {
            "melee": gen(
                effects=(
                    fx(
                        "sleep",
                        1,
                        "one unit of an opposing army at this terrain",
                        "until your next turn",
                        "asleep: cannot be rolled or leave its terrain",
                    ),
                )
            ),
        },
        "one opposing unit sleeps",
    ),
    SAIRule(
        "Smite",
        "1859-1879",
        "Dragon Attack, Melee",
        {
            "melee": gen(effects=(fx("damage_no_save", X, DEF),)),
            "dragon": gen(r(MELEE)),
        },
        "melee: X damage with no save; DA: X melee",
    ),
    SAIRule(
        "Smother",
        "1880-1887",
        "Melee",
        {"melee": gen(effects=(_maneuver_or_die(),))},
        "up to X health-worth maneuver or die",
    ),
    SAIRule(
        "Sneak Attack",
        "1888-1902",
        "Dragon Attack, Magic, Melee, Missile",
        {
            **_alike(
                gen(
                    effects=(
                        fx(
                            "damage_no_save",
                            X,
                            "an opposing army at this terrain",
                            detail="Dragonkin killed are buried",
                        ),
                    )
                ),
                "missile",
                "magic",
            ),
            **_alike(gen(r(MELEE)), "melee", "dragon"),
        },
        "missile/magic: X unsavable damage; melee/DA: X melee",
    ),
    SAIRule(
        "Sortie",
        "1903-1912",
        "Dragon Attack, Melee, Save",
        {
            "melee": gen(r(MELEE)),
            "save": gen(r(SAVE)),
            "dragon": gen(r(SAVE), r(MELEE)),
        },
        "X melee / X saves; DA: both",
    ),
    SAIRule(
        "Spell Disruption",
        "1913-1926",
        "Magic, Melee, Missile",
        {
            **_alike(
                gen(
                    effects=(
                        fx(
                            "expire_spells",
                            4,
                            "an opposing army at any terrain",
                            detail="4 points of spells cast on it expire at once",
                        ),
                    )
                ),
                "melee",
                "missile",
            ),
            "magic": gen(r(MAGIC, 4)),
        },
        "melee/missile: 4 points of spells on an opposing army expire; magic: 4 magic",
    ),
    SAIRule(
        "Stomp",
        "1927-1937",
        "Dragon Attack, Melee",
        _maneuver_or_die_then_bury(MELEE),
        "melee: up to X health-worth maneuver or die (then save or buried); DA: X melee",
    ),
    SAIRule(
        "Stone",
        "1938-1946",
        "Dragon Attack, Melee, Missile",
        {
            "melee": gen(effects=(fx("damage_no_save", X, DEF),)),
            "missile": gen(effects=(fx("damage_no_save", X, DEF),)),
            "dragon": gen(r(MISSILE)),
        },
        "melee/missile: X damage with no save; DA: X missile",
    ),
    SAIRule(
        "Stun",
        "1947-1956",
        "Melee",
        {
            "melee": gen(
                rerolls=True,
                effects=(_kills("maneuver_or_stun", X, "up to X health-worth roll maneuver or are stunned"),),
            ),
        },
        "up to X health-worth maneuver or are stunned; roll again",
    ),
    SAIRule(
        "Summon Dragon",
        "1957-1968",
        "Magic*",
        {
            "magic": (
                gen(
                    rerolls=True,
                    effects=(
                        fx(
                            "summon_dragon",
                            1,
                            "any terrain",
                            detail="summon a non-White dragon containing this item's element, or an Ivory Dragon",
                        ),
                    ),
                    when=_at_terrain,
                ),
                gen(r(MAGIC), note="magic action in Reserves: X magic"),
            ),
        },
        "at a terrain: summon a dragon and roll again; in Reserves: X magic",
    ),
    SAIRule(
        "Surprise",
        "1969-1977",
        "Melee",
        {
            "counter_melee": Mode(note="no effect during a counter-attack"),
            "melee": gen(
                effects=(
                    fx(
                        "no_counter_attack",
                        None,
                        DEF,
                        detail="cannot counter-attack this march; it still saves",
                    ),
                )
            ),
        },
        "the defender cannot counter-attack",
    ),
    SAIRule(
        "Swallow",
        "1978-1981",
        "Melee",
        {
            "melee": gen(
                effects=(
                    _kills(
                        "roll_id_or_kill_and_bury",
                        1,
                        "one defender is rolled; unless it shows its ID it is killed and buried",
                        target=ONE_DEF,
                    ),
                )
            ),
        },
        "one defender dies and is buried unless it rolls its ID",
    ),
    SAIRule(
        "Tail",
        "1982-1988",
        "Dragon Attack, Melee",
        {
            "melee": gen(r(MELEE, 2), rerolls=True),
            "dragon": gen(r(MELEE, 2), rerolls=True),
        },
        "two melee and roll again",
    ),
    SAIRule(
        "Teleport",
        "1989-1997",
        "Maneuver, Non-Maneuver",
        _maneuver_or_move_three(),
        "maneuver: X maneuver; otherwise may move with 3 health-worth",
    ),
    SAIRule(
        "Trample",
        "1998-2010",
        "Any",
        {
            "any": gen(r(MANEUVER), r(MELEE)),
        },
        "X maneuver and X melee",
    ),
    SAIRule(
        "Trumpet",
        "2011-2018",
        "Dragon Attack, Melee, Save",
        {"melee": _feral_doubling(), "save": _feral_doubling(), "dragon": _feral_doubling()},
        "every Feral unit of the army doubles its melee and saves",
    ),
    SAIRule(
        "Vanish",
        "2019-2023",
        "Save",
        {
            "save": gen(
                r(SAVE),
                effects=(
                    fx(
                        "move",
                        1,
                        "this unit",
                        "after the roll",
                        "may then move to any terrain or its Reserve Area; its saves stay with the army it left",
                    ),
                ),
            ),
        },
        "X saves; the unit may then leave",
    ),
    SAIRule(
        "Volley",
        "2024-2038",
        "Dragon Attack, Missile, Save*",
        _saves_and_backlash_or(MISSILE),
        "save vs missile: X saves + X damage back; saves: X; missile: X; DA: X saves + X missile",
    ),
    SAIRule(
        "Wave",
        "2039-2048",
        "Melee, Maneuver*",
        {
            "melee": _defender_subtracts_saves(),
            "maneuver": (
                gen(
                    modifiers=(
                        ModSpec(
                            Op.SUBTRACT,
                            MANEUVER,
                            X,
                            Scope.COUNTER_MANEUVER,
                            "each counter-maneuvering army subtracts X maneuver",
                        ),
                    ),
                    when=lambda s: s.marching and not s.counter_maneuver,
                ),
                Mode(note="no effect unless rolled in the marching army's maneuver"),
            ),
        },
        "melee: defender -X saves; marching maneuver: counter-maneuvering armies -X maneuver",
    ),
    SAIRule(
        "Wayfare",
        "2049-2059",
        "Dragon Attack, Maneuver",
        {
            "maneuver": choice(
                gen(r(MANEUVER), label=MANEUVER),
                gen(
                    effects=(
                        fx(
                            "move",
                            1,
                            "this item and one unit able to carry it",
                            detail="to any other terrain or the Reserve Area",
                        ),
                    ),
                    label="move",
                ),
            ),
            "dragon": gen(
                effects=(
                    fx("move", 1, "this item and one unit able to carry it", detail="may move anywhere"),
                )
            ),
        },
        "maneuver: X maneuver, or the item and a carrier move; DA: they may move",
    ),
    SAIRule(
        "Web",
        "2060-2071",
        "Melee, Missile",
        _roll_or_held("melee_or_web", MELEE, "webbed"),
        "up to X health-worth roll melee or are webbed",
    ),
    SAIRule(
        "Wild Growth",
        "2072-2080",
        "Non-Maneuver",
        {
            "non_maneuver": choice(
                gen(r(SAVE), label=SAVE),
                gen(
                    effects=(
                        fx("promote", X, "this army", detail="promote X health-worth of units, all at once"),
                    ),
                    label="promote",
                ),
            ),
        },
        "X saves or promote X health-worth (may be split)",
    ),
    SAIRule(
        "Wither",
        "2081-2084",
        "Melee",
        {
            "melee": gen(
                modifiers=(
                    _lasting(Op.SUBTRACT, ALL, X, "an opposing army at this terrain: -X to all rolls"),
                )
            ),
        },
        "an opposing army at this terrain subtracts X from all rolls until your next turn",
    ),
)

#: All 80 rows of the V4 SAI table, by name.  The three logo rows share the face name "Logo";
#: ``rule_for_face`` picks the right one from the die.
SAI_RULES: dict[str, SAIRule] = {rule.name: rule for rule in _RULES}


# --------------------------------------------------------------------------- resolution


def _amount(value: Amount, x: int, s: Situation) -> int:
    if isinstance(value, int):
        return value
    if value == X:
        return x
    if value == "BASH":
        return s.bash_target_melee
    if value == "BASH_DRAGON":
        return s.bash_dragon_damage
    raise ValueError(f"unknown amount {value!r}")


def _score(mode: Mode, s: Situation) -> tuple[Any, ...]:
    counted = s.counted
    key = []
    for t in counted:
        key.append(sum(1 for rt, _ in mode.results if rt == t))
    return (tuple(key), mode.rerolls, bool(mode.modifiers), bool(mode.effects))


def _pick(rule: SAIRule, mode: Mode, s: Situation) -> tuple[Mode, str | None, tuple[str, ...]]:
    if not mode.alternatives:
        return mode, None, ()
    labels = tuple(alt.label for alt in mode.alternatives)
    wanted = s.choices.get(rule.name)
    if wanted is not None:
        for alt in mode.alternatives:
            if alt.label.lower() == str(wanted).lower():
                return alt, alt.label, labels
        raise ValueError(f"{rule.name}: no option {wanted!r} here; options: {', '.join(labels)}")
    best = mode.alternatives[0]
    for alt in mode.alternatives[1:]:
        if _score(alt, s) > _score(best, s):
            best = alt
    return best, best.label, labels


def _mode_in(rule: SAIRule, situation: Situation, die: object) -> Mode:
    """The SAI's mode in this roll.  In a combination roll (other than a dragon attack, which has
    its own column) an SAI that does different things for the counted types is counted for one
    of them only, the roller's choice (V4.01c L1093-1096: Counter in a Coil target's roll)."""
    counted = situation.counted
    if len(counted) < 2 or situation.is_dragon_attack:
        return rule.mode_for(situation, die)
    alternatives: list[Mode] = []
    for result_type in counted:
        sub = replace(
            situation,
            roll_for=result_type,
            against=situation.against if result_type == SAVE else None,
            counted_override=None,
        )
        mode = rule.mode_for(sub, die)
        if mode is NOTHING or (
            not mode.results
            and not mode.alternatives
            and mode.note
            and not mode.effects
            and not mode.modifiers
            and not mode.counts_as
            and not mode.rerolls
        ):
            continue
        if mode.alternatives:
            return mode  # an SAI with its own choice (Fly, Create Fireminions) keeps it
        if any(m == mode for m in alternatives):
            continue
        alternatives.append(replace(mode, label=result_type))
    if not alternatives:
        return NOTHING
    if len(alternatives) == 1:
        return replace(alternatives[0], label="")
    return Mode(alternatives=tuple(alternatives), note="combination roll: counted for one result type only")


def rule_for_face(name: str, die: object = None) -> SAIRule:
    """The table row for an SAI face name (canonical catalogue name), using the die for logos."""
    if name == "Logo":
        kind = str(getattr(die, "kind", "") or "")
        if kind.endswith("medallion"):
            return SAI_RULES["Logo (Medallion)"]
        if kind.endswith("relic"):
            return SAI_RULES["Logo (Relic)"]
        return SAI_RULES["Logo"]
    try:
        return SAI_RULES[name]
    except KeyError:
        pass
    from companion.rules.catalogue.faces import SAI_ALIASES  # the face data's spellings

    alias = SAI_ALIASES.get(name)
    if alias is not None:
        return SAI_RULES[alias]
    raise KeyError(f"unknown SAI {name!r}")


def sai_contribution(name: str, x: int, situation: Situation, die: object = None) -> Contribution:
    """What an SAI face showing ``x`` results contributes to a roll of this ``situation``.

    ``die`` (a catalogue ``Die`` or anything with ``kind``/``name``/``species``/``color``) is
    needed only for the logo faces.
    """
    if x < 0:
        raise ValueError(f"{name}: X cannot be negative ({x})")
    rule = rule_for_face(name, die)
    split = situation.choices.get(f"{rule.name} split")
    if split:
        return _split_contribution(rule, name, x, situation, die, split)
    mode, chosen, options = _pick(rule, _mode_in(rule, situation, die), situation)
    if situation.in_dua:
        # In the DUA only SAIs that generate saves work, and only their saves (L1215-1216).
        if not any(rt == SAVE for rt, _ in mode.results):
            mode = Mode(note="in the DUA only save-generating SAIs work")
        else:
            mode = Mode(results=tuple((rt, a) for rt, a in mode.results if rt == SAVE))
    citation = rule.citation
    if rule.extra_citations:
        citation = "; ".join((citation, *rule.extra_citations))
    results: dict[str, int] = {}
    for result_type, amount in mode.results:
        results[result_type] = results.get(result_type, 0) + _amount(amount, x, situation)
    modifiers = tuple(
        Modifier(
            m.stage,
            m.result,
            _amount(m.amount, x, situation),
            rule.name,
            citation,
            reach=m.reach,
            note=m.note,
            species=m.species,
        )
        for m in mode.modifiers
    )
    counts = tuple(counts_as(src, dst, rule.name, citation) for src, dst in mode.counts_as)
    effects = tuple(
        RollEffect(
            e.kind,
            rule.name,
            citation,
            None if e.amount is None else _amount(e.amount, x, situation),
            e.target,
            e.timing,
            e.detail,
        )
        for e in mode.effects
    )
    return Contribution(
        source=rule.name,
        citation=citation,
        results=results,
        modifiers=modifiers,
        counts_as=counts,
        effects=effects,
        rerolls=mode.rerolls,
        loses_automatic_saves=mode.loses_automatic_saves,
        id_results=mode.id_results,
        chosen=chosen,
        options=options,
        note=mode.note,
    )


def _split_contribution(
    rule: SAIRule, name: str, x: int, situation: Situation, die: object, split: str
) -> Contribution:
    """An SAI offering a choice of different results may have its X split between them (V4.01c
    L1089-1090; Wild Growth L2075-2078): ``choices["<SAI> split"] = "Save:2,promote:2"`` (option
    labels and shares summing to X); each share is that option's contribution with X = the share."""
    parts: list[tuple[str, int]] = []
    for item in str(split).split(","):
        label, _, share = item.partition(":")
        if not is_whole_number(share.strip()):
            raise ValueError(f"{rule.name} split: {item!r} is not 'option:number'")
        parts.append((label.strip(), int(share)))
    if sum(n for _, n in parts) != x:
        raise ValueError(f"{rule.name} split {split!r} does not add up to X = {x}")
    base = {k: v for k, v in situation.choices.items() if k != f"{rule.name} split"}
    pieces = [
        sai_contribution(name, n, replace(situation, choices={**base, rule.name: label}), die)
        for label, n in parts
        if n > 0
    ]
    results: dict[str, int] = {}
    for piece in pieces:
        for k, v in piece.results.items():
            results[k] = results.get(k, 0) + v
    return Contribution(
        source=rule.name,
        citation=pieces[0].citation if pieces else rule.citation,
        results=results,
        modifiers=tuple(m for p in pieces for m in p.modifiers),
        counts_as=tuple(c for p in pieces for c in p.counts_as),
        effects=tuple(e for p in pieces for e in p.effects),
        rerolls=any(p.rerolls for p in pieces),
        note=f"split: {split}",
    )


def applies(name: str, situation: Situation, die: object = None) -> bool:
    """Whether the SAI does anything at all in this roll."""
    return not sai_contribution(name, 1, situation, die).is_empty


def rerolls(name: str, situation: Situation, die: object = None) -> bool:
    """Whether this SAI face makes its die roll again in this roll (Rend, Bullseye, Tail ...)."""
    return sai_contribution(name, 1, situation, die).rerolls


__all__ = ["SAI_RULES", "SAIRule", "applies", "rerolls", "rule_for_face", "sai_contribution"]
