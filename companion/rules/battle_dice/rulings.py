"""How this engine settles the gaps and inconsistencies of the Battle Dice document.

Each :class:`Ruling` names the gap, our default answer, why, and the lines it rests on.  R01-R12
are the twelve ambiguities of the reference inventory (Part E, section E8, in that order);
R13 onwards are further gaps found while writing the engine.  A game may choose another variant
of any ruling through ``options`` (``{"R04": "until_used"}``); :func:`resolve_options` checks them.
A ruling with one variant only has no other reading that plays differently (its variant text says why).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from .errors import SetupError


@dataclass(frozen=True)
class Ruling:
    id: str
    gap: str
    ruling: str
    why: str
    citation: str
    default: str
    variants: MappingProxyType[str, str]  # variant name -> what it means

    def describe(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "gap": self.gap,
            "ruling": self.ruling,
            "why": self.why,
            "citation": self.citation,
            "default": self.default,
            "variants": dict(self.variants),
        }


def _r(id: str, gap: str, ruling: str, why: str, citation: str, default: str, **variants: str) -> Ruling:
    assert default in variants, id
    return Ruling(id, gap, ruling, why, citation, default, MappingProxyType(variants))


RULINGS: tuple[Ruling, ...] = (
    _r(
        "R01",
        "Elf Lord, Dwarf Lord and Knight tables are labelled 1D6 but list rows 7-8.",
        "Roll a d8 on those three tables.",
        "Rows 7-8 would be dead text on a d6; the Warrior and Orc Chieftan tables, built the same way, are d8.",
        "BD L542-634 (cf. L397-399, L566-568)",
        "d8",
        d8="roll a d8 so every printed row can come up",
        d6="roll the printed d6; rows 7-8 never happen",
    ),
    _r(
        "R02",
        "The Giant table's last row reads '9-0'.",
        "0 is the d10's 10: the row covers 9 and 10. A d10 face typed or read as 0 counts as 10 everywhere.",
        "A d10 marked 0-9 shows 0 for 10; with that, the Giant rows cover 1-10 exactly.",
        "BD L343",
        "nine_and_ten",
        nine_and_ten="0 means 10 (no other reading gives the table a full range)",
    ),
    _r(
        "R03",
        "Medusa and Warrior grant 'Magic points'; the Magic phase counts 'Spell points'.",
        "Magic points are Spell points: they join the next Magic phase count.",
        "The Magic phase is the only place such points can be spent.",
        "BD L364-366, L408-410, L163-175",
        "spell_points",
        spell_points="Magic points add to the Spell point count",
        no_effect="Magic points are a separate pool that nothing uses",
    ),
    _r(
        "R04",
        "When 'negate the next 1d3 casualties' runs out is not said.",
        "Unused negations lapse at the end of the turn.",
        "Every other table effect ('this turn', morale totals, phase kills) lasts one turn.",
        "BD L258-260, L316-318 (cf. L146, L150 'this turn')",
        "end_of_turn",
        end_of_turn="unused negations are lost in the Morale phase",
        until_used="negations carry over to later turns until used",
    ),
    _r(
        "R05",
        "Gain Initiative ('your hits are resolved first') against simultaneous play.",
        "In the chosen phase the holder's hits land first; enemy dice they destroy do not strike back.",
        "Resolving first only means something if it takes those dice out before they act.",
        "BD L156-161 vs L70-72",
        "kills_first",
        kills_first="the enemy counts its hits after the holder's casualties are removed",
        order_only="both sides still strike with every die; only the order of casualty choices changes",
    ),
    _r(
        "R06",
        "Tied contested points (Tactics, Spell, Maneuver).",
        "On a tie nobody has more: both sides end with 0 points.",
        "Subtracting equal totals leaves 0 for the one with 'more', and the one with 'fewer' loses all.",
        "BD L122-128, L169-175, L229-237",
        "both_zero",
        both_zero="a tie cancels all points",
        both_keep="nobody is 'fewer' or 'more', so both keep and roll all their points",
    ),
    _r(
        "R07",
        "Tied casualties in the Morale phase.",
        "No morale check when both sides lost the same number of units.",
        "Only 'the side that lost more' checks; a tie has no such side.",
        "BD L282",
        "no_check",
        no_check="a tie means nobody checks morale",
        both_check="on a tie (with casualties) both sides check",
    ),
    _r(
        "R08",
        "A d20 set to '1' by an effect: does the monster leave the battle?",
        "No. Monsters leave only on a 1 or 2 rolled in the Roll phase and read at the start of the Monster phase.",
        "The Monster phase looks at the results rolled; a later 'set to 1' changes the face, not the roll.",
        "BD L100-102, L308-310",
        "no_departure",
        no_departure="a set-to-1 monster stays (it simply scores nothing)",
        departs_at_once="a monster set to 1 leaves the battle at once (counted as its owner's casualty)",
    ),
    _r(
        "R09",
        "Dice restored (Rally, Healing), summoned (Summon) or gained (Drain): do they roll this turn?",
        "They return without a face and act from the next Roll phase; they can be chosen as casualties.",
        "Only the Roll phase rolls dice; no effect says to roll them.",
        "BD L94-96, L152-154, L187-189, L203-205, L521-523",
        "unrolled",
        unrolled="new dice wait for the next Roll phase",
        roll_at_once="new dice are rolled as they arrive and act in the phases still to come",
    ),
    _r(
        "R10",
        "Control: in what state does the taken die join your side?",
        "It keeps the face it shows (a monster keeps its own table) and acts for you in the phases still to come.",
        "Taking control moves the unit, not the roll.",
        "BD L199-201",
        "keeps_face",
        keeps_face="the die keeps its face",
        unrolled="the die joins without a face until the next Roll phase",
    ),
    _r(
        "R11",
        "Encircle: '+1 maneuver point next turn'.",
        "The point is added to next turn's Maneuver point count before the comparison.",
        "It is a maneuver point like those the d10s provide.",
        "BD L254-256, L229-237",
        "before_comparison",
        before_comparison="counts in next turn's contest",
        after_comparison="is added to the side's points left after next turn's contest (even if it lost)",
    ),
    _r(
        "R12",
        "Vampire Drain 'gain 1 vampire unit' breaks the equal-dice set-up rule.",
        "Allowed: set-up equality binds only at set-up; the new d20 joins the Vampire army.",
        "The equal-count rule is stated under SETUP only.",
        "BD L521-523 vs L50",
        "new_unit",
        new_unit="the Vampire side gains a new d20",
        no_new_unit="Drain only kills; no unit is gained",
    ),
    _r(
        "R13",
        "Who picks the enemy dice that are 'set to 1' (Tail, Confuse, Outflank, Ensorcelled)?",
        "The side whose effect it is (the caster).",
        "The owner's right to choose covers units destroyed (L66); setting a face is not a casualty.",
        "BD L64-66, L195-197, L250-252",
        "caster",
        caster="the caster picks the dice to set to 1",
        owner="the owner picks, as for casualties",
    ),
    _r(
        "R14",
        "Ordinary dice sets have no d3: how is '1D3' rolled?",
        "Roll a d6 and halve, rounding up (1-2 -> 1, 3-4 -> 2, 5-6 -> 3).",
        "The game uses d4-d20 only (L15-43); halving a d6 is the usual 1d3.",
        "BD L15-43",
        "d6_halved",
        d6_halved="a d6 face is entered and halved",
        d3_value="the value 1-3 is entered directly",
    ),
    _r(
        "R15",
        "Monster phase order: departures, monster duels, Monster points.",
        "Resolve in the order printed: 1-2 leave, then 13-16 destroy, then each Monster point rolls a table.",
        "The document lists them in that order; shields gained from tables therefore protect from later hits only.",
        "BD L100-108",
        "printed_order",
        printed_order="departures, duels, then monster-table rolls",
        tables_first="departures, monster-table rolls, then duels",
    ),
    _r(
        "R16",
        "Both sides roll monster tables in the same (simultaneous) Monster phase: whose effects first?",
        "Side A's rolls resolve first, then side B's.",
        "The order only matters for negations; a fixed order keeps replays identical.",
        "BD L68-72",
        "a_first",
        a_first="side A resolves its monster-table rolls first",
        b_first="side B resolves first",
    ),
    _r(
        "R17",
        "Does a die lost to Control count as a casualty for the Morale phase?",
        "Yes: the side lost a unit this turn.",
        "Morale compares units lost (L282), not only units killed.",
        "BD L280-282, L199-201",
        "counts",
        counts="a controlled die counts as a casualty of its old side",
        not_counted="only destroyed dice count",
    ),
    _r(
        "R18",
        "Do monsters that leave on 1-2 count as casualties?",
        "Yes: the document says they are considered destroyed.",
        "BD L102 '(is considered destroyed)'.",
        "BD L102, L280",
        "counts",
        counts="departures count as the owner's casualties",
        not_counted="departures do not count for morale",
    ),
    _r(
        "R19",
        "When is 'utterly destroyed' checked, and what if both armies die together?",
        "After every phase; if both sides have no dice left at once, the game is a draw.",
        "Play continues until one side routs or is destroyed (L9); a simultaneous wipe-out has no survivor.",
        "BD L7-9",
        "after_each_phase",
        after_each_phase="checked after each phase",
        end_of_turn="checked only after the Morale phase",
    ),
    _r(
        "R20",
        "Effects that gain or remove points of a phase already played this turn.",
        "Gains go to the pool of the next such phase this turn; losses cannot go below 0. "
        "A pool whose phase has passed this turn is emptied at the end of the turn.",
        "Points exist only to be compared in their phase.",
        "BD L116-128, L215-217, L457-459",
        "this_turn",
        this_turn="pools are spent in this turn's phase and cleared at the end of the turn",
    ),
    _r(
        "R21",
        "Which opponent casualties do negations cancel?",
        "Every destruction the opponent inflicts (phase hits, monster duels, kills by choice); "
        "not departures and not Control.",
        "Negation speaks of casualties inflicted by the opponent; departures are self-inflicted and "
        "Control destroys nothing.",
        "BD L316-318, L258-260, L102, L199-201",
        "opponent_destruction",
        opponent_destruction="negations cancel destruction caused by the opponent",
        all_casualties="negations also cancel monsters leaving on 1-2 (the rows that omit 'by opponent')",
    ),
    _r(
        "R22",
        "Summon 'gain 1D3 new dice of one type': which types may be chosen?",
        "The caster picks one unit type; a d20 only if the army has a monster type (and it is that type).",
        "One monster type per army (L54).",
        "BD L203-205, L54",
        "any_type",
        any_type="any of the six unit types (d20 only of the army's own monster type)",
        no_monsters="monsters cannot be summoned",
    ),
    _r(
        "R23",
        "Pick Result (Maneuver 9-10): which results may be picked?",
        "Any of the other four results (Charge, Outflank, Encircle, Withdraw).",
        "Picking Pick Result again would do nothing.",
        "BD L262-263",
        "other_rows",
        other_rows="choose Charge, Outflank, Encircle or Withdraw",
    ),
    _r(
        "R24",
        "What counts toward the morale total, and is equal enough?",
        "Every remaining die of any size showing 2 or 3 (unrolled dice count nothing), plus morale bonuses "
        "minus penalties; a total equal to the casualties holds (only 'less than' routs).",
        "BD L284-286.",
        "BD L284-286",
        "less_than",
        less_than="rout only when the total is less than the casualties",
        at_most="house rule: a total equal to the casualties routs too",
    ),
    _r(
        "R25",
        "Gain Initiative held by both sides for the same phase.",
        "They cancel: that phase is simultaneous.",
        "Nobody's hits can be resolved 'first'.",
        "BD L156-161",
        "cancel",
        cancel="both initiatives for one phase cancel",
    ),
    _r(
        "R26",
        "When are the 1D3/1D6 amounts of an effect rolled?",
        "When the effect is resolved (for phase kills and morale bonuses: when gained, not in that phase).",
        "One roll per effect, at the moment it is applied, keeps the prompt sequence simple.",
        "BD L296-298, L140-142",
        "when_gained",
        when_gained="amounts are rolled as the effect is applied",
    ),
)

RULINGS = RULINGS + (
    _r(
        "R27",
        "Does restoring a die destroyed this turn take back its casualty for the Morale phase?",
        "No: casualties are counted as they happen; a restored die does not reduce them.",
        "Morale compares the units each side lost this turn (L280-282); the loss happened.",
        "BD L152-154, L187-189, L280-282",
        "still_counted",
        still_counted="restored dice still count as this turn's casualties",
        reduce="restoring a die destroyed this turn takes one casualty off the count",
    ),
)

RULING_BY_ID = MappingProxyType({r.id: r for r in RULINGS})

#: Options that are not rulings: ``max_turns`` ends the game as a draw after that many turns.
EXTRA_OPTIONS = {"max_turns": None}


def resolve_options(options: dict[str, Any] | None) -> dict[str, Any]:
    """The full option dict (every ruling's variant plus extras), checking ``options``."""
    resolved: dict[str, Any] = {r.id: r.default for r in RULINGS}
    resolved.update(EXTRA_OPTIONS)
    for key, value in (options or {}).items():
        if key in RULING_BY_ID:
            ruling = RULING_BY_ID[key]
            if value not in ruling.variants:
                raise SetupError(
                    f"option {key}: unknown variant {value!r}; choose one of {sorted(ruling.variants)}"
                )
            resolved[key] = value
        elif key == "max_turns":
            if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 1):
                raise SetupError(f"option max_turns must be a positive integer or null, not {value!r}")
            resolved[key] = value
        else:
            raise SetupError(f"unknown option {key!r}; known: {sorted(RULING_BY_ID)} and max_turns")
    return resolved
