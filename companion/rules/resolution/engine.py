"""The die roll resolution engine: :func:`resolve`, a pure function from a
:class:`~companion.rules.resolution.model.RollRequest` to a
:class:`~companion.rules.resolution.model.Resolution`.

The order follows Die Roll Resolution, V4.01c L1002-1031 (the edition object gives the stage
order, so R96's four-step order, R96 L953-961, runs through the same code):

* steps 1-3: the faces (re-rolls included) are given by the caller, in order;
* step 4: each SAI face is looked up in the edition's registry and applied (its results wait);
* step 5: non-SAI results are counted per unit (ID results as the roll's type, worth the unit's
  health, V4.01c L113-121; monster icons already carry their value 4, L1132-1137);
* steps 6/7: subtracting, then dividing modifiers (rounded down, never below 0; ID results are
  removed last, L1058-1061);
* step 8: SAI-generated results join;
* step 9: multiplying modifiers (at most one per result type, L1063-1066);
* step 10: adding modifiers, counts-as results (only rolled results, L1040-1048).

Results are tracked per unit so that ID-last removal, counts-as and magic elements stay exact.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .editions import Edition, get_edition
from .model import (
    ADD,
    AGAINST,
    ALL,
    DIVIDE,
    ICON_RESULT,
    IVORY,
    MAGIC,
    MANEUVER,
    MELEE,
    MISSILE,
    MULTIPLY,
    PURPOSES,
    RESULT_TYPES,
    SAVE,
    SUBTRACT,
    ElementOption,
    Modifier,
    Report,
    Resolution,
    ResolutionError,
    RollRequest,
    Scope,
    Step,
)
from .registry import Contribution, IdMultiplier, RollContext, SaiContext

if TYPE_CHECKING:
    from ..catalogue import Die, Face
    from .model import RolledUnit, SaiOutcome

_T = {t: k for k, t in enumerate(RESULT_TYPES)}
_NT = len(RESULT_TYPES)
#: Shared read-only zero row (see _Tally).
_ZERO_ROW = [0] * _NT
_NO_PARTS: Mapping[str, int] = MappingProxyType({})
#: counted result types -> (those types in the order of RESULT_TYPES, with their row indexes).
_COUNTED: dict[frozenset[str], tuple[list[str], list[tuple[str, int]]]] = {}
#: Default result type for IDs in a combination roll (the owner may choose, V4.01c L1083-1086).
_ID_PREFERENCE = (SAVE, MELEE, MISSILE, MANEUVER, MAGIC)
#: The only reach of a modifier the engine applies (the plug-ins bind or report the others).
_THIS_ROLL = Scope.THIS_ROLL


_NONE, _ACTION, _ID, _SAI = 0, 1, 2, 3
#: id(face) -> (face, die, code, (code,)), code = (kind, result type index, count): once per face of a die.
_Code = tuple[int, int, int]
_CodeEntry = tuple["Face", "Die", _Code, tuple[_Code]]
_CODES: dict[int, _CodeEntry] = {}
_ROLLING_KINDS = frozenset({"unit", "monster", "equipment", "artifact", "medallion", "relic"})
_UNIT_KINDS = frozenset({"unit", "monster"})


def _face_code(face: Face) -> _Code:
    if face.is_id:
        return (_ID, -1, face.count)
    if face.is_sai:
        return (_SAI, -1, face.count)
    t = ICON_RESULT.get(face.icon)
    if t is not None:
        return (_ACTION, _T[t], face.count)
    return (_NONE, -1, face.count)


#: counted result types -> the type IDs count as when the caller does not choose (few entries).
_ID_DEFAULT: dict[frozenset[str], str | None] = {}


def _id_type(request: RollRequest, counted: frozenset[str], index: int) -> str | None:
    choice = request.choices.get("id_as")
    if isinstance(choice, str):
        pick = choice
    elif isinstance(choice, (list, tuple)) and index < len(choice):
        pick = choice[index]
    elif isinstance(choice, dict) and index in choice:
        pick = choice[index]
    else:
        pick = None
    if pick is not None:
        if pick not in counted:
            raise ResolutionError(
                f"IDs may only count as a counted result type, not {pick!r}", key="choices.id_as"
            )
        return pick
    if len(counted) == 1:
        return next(iter(counted))
    for t in _ID_PREFERENCE:
        if t in counted:
            return t
    return None


class _Tally:
    """The running tally of one roll, which the steps of :func:`_resolve` fill in turn.

    What the roll is: the request, its edition, the counted result types, the plug-in context, which
    units count.  Each unit's results in parts: normal (``N``), ID (``I``), SAI (``S``), counted-as
    (``C``); the army's own bucket (``A``: modifiers that add to the army's total) and the running
    totals of the live parts (``T``), kept in step with every change.  What the steps collect: the
    explained steps, reports, results outside the counted types, modifiers and element options.
    And, once the modifiers are known, the plan: the live modifiers by stage and what they reach.
    """

    __slots__ = (
        "request",
        "ed",
        "counted",
        "ctx",
        "units",
        "n",
        "counting",
        "codes",
        "groups",
        "N",
        "I",
        "S",
        "C",
        "A",
        "T",
        "sai_live",
        "a_elem",
        "later_factor",
        "sai_elem",
        "id_elem",
        "steps",
        "reports",
        "other",
        "mods",
        "collected",
        "elem_opts",
        "sai_log",
        "id_factor",
        "by_stage",
        "needed",
        "counted_list",
        "counted_k",
        "penalty_first",
    )
    # set by the later steps (_plan_modifiers): the live modifiers by stage, the result types the roll
    # reads (the counted ones, plus those a counts-as reads), the units that lose a penalty first
    by_stage: dict[str, list[Modifier]]
    needed: frozenset[str] | set[str]
    penalty_first: tuple[int, ...]

    def __init__(self, request: RollRequest, ed: Edition):
        if request.purpose not in PURPOSES:
            raise ResolutionError(f"unknown roll purpose {request.purpose!r}", key="roll.for")
        if request.against is not None and request.against not in AGAINST:
            raise ResolutionError(f"unknown 'against' {request.against!r}", key="roll.against")
        counted = request.counted_types()
        try:
            self.counted_list, self.counted_k = _COUNTED[counted]
        except KeyError:
            for t in counted:
                if t not in _T:
                    raise ResolutionError(f"unknown result type {t!r}", key="roll.counted") from None
            counted_list = [t for t in RESULT_TYPES if t in counted]
            self.counted_list, self.counted_k = _COUNTED[counted] = (
                counted_list,
                [(t, _T[t]) for t in counted_list],
            )
        self.request = request
        self.ed = ed
        self.counted = counted
        self.ctx = RollContext(request, counted)
        self.units = units = request.units
        self.n = n = len(units)
        self.counting = [u.counts for u in units]
        self.codes: list[Sequence[_Code]] = []  # per unit, per face: (kind, result type index, count)
        self.groups: dict[str, list[int]] = {}  # species -> indexes of its counting units
        # Rows start as the shared all-zero row and are copied on first write; code that writes
        # into a row which may still be shared only ever writes zeros into it (x * f, have - take).
        self.N = [_ZERO_ROW] * n
        self.I = [_ZERO_ROW] * n
        self.S = [_ZERO_ROW] * n
        self.C = [_ZERO_ROW] * n
        self.A = [0] * _NT
        self.T = [0] * _NT
        self.sai_live = False  # SAI parts are part of the running totals
        self.a_elem: dict[str, int] = {}  # element -> magic the army bucket holds of it
        self.later_factor: dict[int, dict[int, int]] | None = None  # type -> unit -> factor to come
        self.sai_elem: dict[int, frozenset[str]] = {}  # unit -> elements of its SAI magic
        self.id_elem: dict[int, str] = {}  # unit -> the only element(s) its ID magic may take
        self.steps: list[Step] = []
        self.reports: list[Report] = []
        self.other: dict[str, int] = {}
        self.mods: list[Modifier] = []
        self.collected: list[Contribution] = []  # what the core rules, species and spell hooks returned
        self.elem_opts: list[ElementOption] = []
        self.sai_log: list[
            tuple[str, int, int, Face, str]
        ] = []  # (result type, amount, unit index, face, citation) of counted SAI results
        self.id_factor = 1

    # -- the running totals

    def total(self, t: int, units: Iterable[int] | None = None, *, sai: bool = True) -> int:
        if units is None and (sai or not self.sai_live):
            return self.T[t]
        idx = range(self.n) if units is None else units
        s = 0
        for i in idx:
            s += self.N[i][t] + self.I[i][t] + self.C[i][t]
            if sai and self.sai_live:
                s += self.S[i][t]
        if units is None:
            s += self.A[t]
        return s

    def remove(
        self, t: int, amount: int, units: list[int], *, sai: bool, first: tuple[int, ...] = ()
    ) -> None:
        """Take ``amount`` results of type ``t`` away, ID results last (V4.01c L1058-1061).
        The owner chooses which units lose them (``first``: the units the owner named, choice
        ``"penalty first"``); by default those whose results a later modifier multiplies lose them
        last (the best for the roll), then the last unit listed first."""
        order = units[::-1]
        factors = self.later_factor.get(t) if self.later_factor else None
        if factors:
            order.sort(key=lambda i: factors.get(i, 1))
        if first:
            order = [i for i in first if i in order] + [i for i in order if i not in first]
        parts = [self.N, self.C] + ([self.S] if sai and self.sai_live else []) + [self.I]
        left = amount
        for part in parts:
            for i in order:
                if left <= 0:
                    break
                have = part[i][t]
                if have:
                    take = have if have < left else left
                    part[i][t] = have - take
                    left -= take
        self.T[t] -= amount - left

    def add_sai(self) -> None:
        """Step 8: SAI-generated results join the running totals."""
        if not self.sai_live:
            self.sai_live = True
            T = self.T
            for row in self.S:
                if row is not _ZERO_ROW:
                    for k in range(_NT):
                        if row[k]:
                            T[k] += row[k]

    # -- what a modifier reaches

    def targets(self, m: Modifier) -> list[str]:
        """The result types ``m`` changes: every counted type for ``"all"``; else its own type when
        it matters (counted, or read by a counts-as; a modifier on any other type cannot change
        the outcome, so it is skipped)."""
        if m.result == ALL:
            return self.counted_list
        return [m.result] if m.result in self.needed else []

    def unit_list(self, m: Modifier) -> list[int]:
        """The counting units whose results ``m`` changes."""
        counting = self.counting
        if m.units is None:
            return [i for i in range(self.n) if counting[i]]
        n = self.n
        return sorted(i for i in m.units if i < n and counting[i])

    def touches_sai(self, m: Modifier) -> bool:
        """Whether ``m`` changes SAI-generated results (R96: spells never do)."""
        return self.ed.spells_touch_sai or m.origin != "spell"

    def record(self, stage: str, m: Modifier, t: str, before: int, after: int, text: str) -> None:
        """An explained step for ``m``, when it changed the total."""
        if before != after:
            self.steps.append(
                Step(
                    self.ed.step_numbers[stage],
                    m.source,
                    m.citation,
                    m.note or text,
                    t,
                    before,
                    after,
                    m.source,
                )
            )


#: Memo of recent resolutions: a camera reports the same table many times a second, and
#: resolution is a pure function of its request, so an identical request gets the same answer.
_MEMO: OrderedDict[tuple[Any, ...], tuple[Edition, tuple[Die, ...], Resolution]] = OrderedDict()
_MEMO_SIZE = 512


def _request_key(request: RollRequest, ed: Edition) -> tuple[Any, ...] | None:
    """A hashable key holding everything the request says, or ``None`` when some part of it is
    not hashable (then the request is simply not memoised)."""
    try:
        choices = tuple(sorted(request.choices.items(), key=repr)) if request.choices else ()
        effects = tuple(
            (
                e.name,
                e.castings,
                e.target,
                e.units,
                e.hostile,
                e.element,
                tuple(sorted(e.details.items(), key=repr)) if e.details else (),
            )
            for e in request.effects
        )
        key = (
            id(ed),
            request.purpose,
            request.against,
            request.counted,
            request.terrain,
            request.in_reserve,
            request.individual,
            request.counter_attack,
            request.charge,
            request.counter_maneuver,
            request.marching,
            request.force_points,
            choices,
            effects,
            tuple(sorted(request.dua_counts.items())) if request.dua_counts else (),
            tuple((u.faces, u.counts, u.label) for u in request.units),
        )
        hash(key)
    except TypeError:
        return None
    return key


def resolve(request: RollRequest, edition: Edition | None = None, *, memo: bool = True) -> Resolution:
    """Resolve one die roll.  Pure: same request, same answer; no I/O, clock or randomness.

    Raises :class:`ResolutionError` (naming the offending input) for a request that cannot be
    resolved: unknown purpose, a re-roll list that goes on after a face that does not re-roll,
    an unknown spell, a die that cannot roll (terrain, dragon).
    ``memo=False`` skips the memo of recent identical requests (benchmarks of fresh rolls).
    """
    ed = edition if edition is not None else get_edition(request.edition)
    if not memo:
        return _resolve(request, ed)
    key = _request_key(request, ed)
    if key is None:
        return _resolve(request, ed)
    hit = _MEMO.get(key)
    dice = tuple(u.die for u in request.units)
    if (
        hit is not None
        and hit[0] is ed
        and len(hit[1]) == len(dice)
        and all(a is b for a, b in zip(hit[1], dice, strict=True))
    ):
        try:
            _MEMO.move_to_end(key)
        except KeyError:  # evicted meanwhile by another thread
            pass
        return hit[2]
    result = _resolve(request, ed)
    _MEMO[key] = (ed, dice, result)
    while len(_MEMO) > _MEMO_SIZE:
        try:
            _MEMO.popitem(last=False)
        except KeyError:
            break
    return result


def _resolve(request: RollRequest, ed: Edition) -> Resolution:
    """Die Roll Resolution (V4.01c L1002-1031; R96 L953-961 through the edition's stage order): a
    pipeline of named steps over one running tally of the roll."""
    tally = _Tally(request, ed)  # the roll checked: purpose, what saves are against, counted types
    _read_faces(tally)  # steps 3-4: each face's code; SAI faces and re-roll chains
    _core_rules(tally)  # the edition's own rules (eighth face, automatic saves, ID multipliers)
    _count_results(tally)  # step 5: action and ID icons per unit
    _species_and_spells(tally)  # species abilities and spells in force, given the counted results
    _plan_modifiers(tally)  # which modifiers touch this roll, by stage
    _apply_stages(tally)  # steps 6-10 in the edition's order: subtract, divide, SAI, multiply, add
    return _result(tally)


def _read_faces(tally: _Tally) -> None:
    """Steps 3-4: each die may roll with the army and shows faces it has; each face's code (action,
    ID, SAI); SAI faces go to the edition's registry and re-roll chains are checked (FORMAT: a list
    of faces stops where re-rolling stops)."""
    counting = tally.counting
    codes = tally.codes
    groups = tally.groups
    for i, unit in enumerate(tally.units):
        die = unit.die
        kind = die.kind
        if kind not in _ROLLING_KINDS:
            raise ResolutionError(f"{die.name} ({kind.value}) is not rolled with an army", key=f"units[{i}]")
        if counting[i] and die.species and kind in _UNIT_KINDS:
            g = groups.get(die.species)
            if g is None:
                groups[die.species] = [i]
            else:
                g.append(i)
        faces = unit.faces
        if len(faces) == 1:  # the common case: one face
            face = faces[0]
            entry = _CODES.get(id(face))
            if entry is None or entry[0] is not face or entry[1] is not die:
                entry = _code_entry(die, face, i, 0)
            codes.append(entry[3])
            if entry[2][0] != _SAI:
                continue
        else:
            if not faces:
                raise ResolutionError("no face given", key=f"roll.faces[{i}]")
            unit_codes = []
            for k, face in enumerate(faces):
                entry = _CODES.get(id(face))
                if entry is None or entry[0] is not face or entry[1] is not die:
                    entry = _code_entry(die, face, i, k)
                unit_codes.append(entry[2])
            codes.append(unit_codes)
        _sai_faces(tally, i, unit)
    tally.ctx._species_index = {k: frozenset(v) for k, v in groups.items()}


def _code_entry(die: Die, face: Face, i: int, k: int) -> _CodeEntry:
    """The code of a face of a die, checked once and kept (``_CODES``)."""
    if face not in die.faces:
        raise ResolutionError(f"{die.name} has no face {face.text()!r}", key=f"roll.faces[{i}][{k}]")
    if len(_CODES) > 200_000:
        _CODES.clear()
    code = _face_code(face)
    # the entry holds face and die, so their ids stay unique while it lives
    entry = _CODES[id(face)] = (face, die, code, (code,))
    return entry


def _sai_faces(tally: _Tally, i: int, unit: RolledUnit) -> None:
    """Step 4 for one unit: each SAI face (re-rolls included) looked up in the edition's registry
    and applied (its results wait for step 8); a face that does not re-roll ends the list."""
    ed = tally.ed
    ctx = tally.ctx
    reports = tally.reports
    faces = unit.faces
    counting = tally.counting[i]
    last = len(faces) - 1
    for k, face in enumerate(faces):
        rerolls = False
        if face.sai is not None:  # a SAI face (catalogue.faces.Face: sai is set on those only)
            ctx.sai_faces[i] = ctx.sai_faces[i] + (face.sai,)
            hook = ed.registry.sais.get(face.sai)
            if hook is None:
                reports.append(
                    Report(
                        face.sai,
                        f"no roll contribution is registered for {face.sai} in {ed.key}",
                        unit=i,
                        kind="note",
                    )
                )
                out = None
            else:
                out = hook(SaiContext(ctx, i, face, k))
            if out is not None:
                rerolls = out.reroll
                if counting:
                    _sai_outcome(tally, i, face, out)
        if k < last and rerolls:
            num = ed.step_numbers
            tally.steps.append(
                Step(
                    num.get("reroll", num["count"]),
                    f"{face.sai}: roll again",
                    ed.citations.get("reroll", ""),
                    f"{unit.name} rolled again after {face.text()} and shows {faces[k + 1].text()}; "
                    "both faces count",
                    source=unit.name,
                )
            )
        if k < last and not rerolls:
            raise ResolutionError(
                f"face {face.text()!r} does not make the die roll again in a {tally.request.purpose} roll, "
                "but more faces follow it",
                key=f"roll.faces[{i}][{k + 1}]",
            )
        if k == last and rerolls:
            reports.append(
                Report(
                    face.sai or face.name,
                    "roll this unit again and apply the new face too",
                    unit=i,
                    kind="reroll_pending",
                )
            )


def _sai_outcome(tally: _Tally, i: int, face: Face, out: SaiOutcome) -> None:
    """What one SAI face of a counting unit does: its results wait in the unit's SAI part (step 8),
    other results (cantrip magic) go aside, its modifiers and reports join the tally."""
    ctx = tally.ctx
    for key, val in out.results.items():
        if key in _T:
            res = ctx.sai_results[i]
            res[key] = res.get(key, 0) + val
            row = tally.S[i]
            if row is _ZERO_ROW:
                row = tally.S[i] = [0] * _NT
            row[_T[key]] += val
            if key in tally.counted and val:
                tally.sai_log.append((key, val, i, face, out.citation))
        else:
            tally.other[key] = tally.other.get(key, 0) + val
    if out.magic_elements is not None:
        tally.sai_elem[i] = out.magic_elements
    tally.mods.extend(out.modifiers)
    tally.reports.extend(out.reports)


def _core_rules(tally: _Tally) -> None:
    """The edition's core rules (eighth face, automatic saves...): ID multipliers are kept for step 5,
    the rest joins the species and spell contributions."""
    ed = tally.ed
    ctx = tally.ctx
    collected = tally.collected
    for hook in ed.registry.rules.values():
        for c in hook(ctx):
            if isinstance(c, IdMultiplier):
                tally.id_factor *= c.factor
                tally.steps.append(
                    Step(
                        ed.step_numbers["count"],
                        c.source,
                        c.citation,
                        f"ID results are multiplied by {c.factor}",
                    )
                )
            else:
                collected.append(c)


def _count_results(tally: _Tally) -> None:
    """Step 5: the non-SAI results per unit (ID results as the roll's type, worth the unit's health,
    V4.01c L113-121; monster icons already carry their value 4, L1132-1137)."""
    request = tally.request
    counted = tally.counted
    counting = tally.counting
    codes = tally.codes
    id_factor = tally.id_factor
    N = tally.N
    I_ = tally.I
    sum_n = [0] * _NT
    sum_i = [0] * _NT
    if "id_as" in request.choices:
        id_t_all = None
    else:  # the default type of every ID depends only on the counted types
        try:
            id_t_all = _ID_DEFAULT[counted]
        except KeyError:
            id_t_all = _ID_DEFAULT[counted] = _id_type(request, counted, -1)
    for i in range(tally.n):
        if not counting[i]:
            continue
        for kind, k, count in codes[i]:
            if kind == _ACTION:
                row = N[i]
                if row is _ZERO_ROW:
                    row = N[i] = [0] * _NT
                row[k] += count
                sum_n[k] += count
            elif kind == _ID:
                split = _id_split(request, counted, i, count) if id_t_all is None else None
                if split is None:
                    id_t = id_t_all if id_t_all is not None else _id_type(request, counted, i)
                    split = {id_t: count} if id_t is not None else {}
                row = I_[i]
                for t, v in split.items():
                    if row is _ZERO_ROW:
                        row = I_[i] = [0] * _NT
                    k = _T[t]
                    row[k] += v * id_factor
                    sum_i[k] += v * id_factor
    # species and spell hooks read the counted rows through ctx.normal / ctx.ids / ctx.rolled,
    # built on first use; the rows are withdrawn before the stages change them in place
    tally.ctx._rows = (N, I_, RESULT_TYPES)
    T = tally.T
    for k in range(_NT):
        T[k] = sum_n[k] + sum_i[k]
    ed = tally.ed
    if ed.sai_at_count:
        tally.add_sai()
    number = ed.step_numbers["count"]
    for t, k in tally.counted_k:
        normal = sum_n[k]
        ids = sum_i[k]
        if normal or ids:
            tally.steps.append(
                Step(
                    number,
                    ed.texts["count"],
                    ed.citations["count"],
                    f"{normal} from action icons + {ids} from ID icons",
                    t,
                    0,
                    normal + ids,
                )
            )
        if tally.sai_live:  # an edition that counts SAI results with the others
            _sai_steps(tally, t, normal + ids, number)


def _species_and_spells(tally: _Tally) -> None:
    """Species abilities and spells in force, given the counted results: their modifiers, element
    options and reports join the tally (with the core rules' own)."""
    request = tally.request
    ed = tally.ed
    reg = ed.registry
    ctx = tally.ctx
    collected = tally.collected
    if reg.abilities:
        for species, idx in (ctx._species_index or {}).items():  # set by _read_faces
            for entry in reg.abilities.get(species, ()):
                collected.extend(entry.hook(ctx, idx))
    for e_i, effect in enumerate(request.effects):
        name = ed.canonical_spell(effect.name)
        if name is None:
            raise ResolutionError(
                f"unknown spell {effect.name!r} in edition {ed.key}", key=f"effects[{e_i}].spell"
            )
        hook = reg.spells.get(name)
        if hook is not None:
            collected.extend(hook(ctx, effect))
    mods = tally.mods
    for c in collected:
        if isinstance(c, Modifier):
            mods.append(c)
        elif isinstance(c, ElementOption):
            tally.elem_opts.append(c)
        elif isinstance(c, Report):
            tally.reports.append(c)
        else:
            raise TypeError(f"a hook returned {c!r}, not a Modifier, ElementOption or Report")
    ctx._rows = None


def _plan_modifiers(tally: _Tally) -> None:
    """Which modifiers touch this roll, by stage: an army modifier never touches a unit's own roll and
    a unit modifier never an army roll (V4.01c L1050-1066); a "may" modifier the player declined is
    left out; a modifier that reaches other rolls than this one (``Modifier.reach``) is a plug-in's
    error.  Also which units a later multiplier will raise (they lose penalties last) and the units
    the owner says lose a penalty first."""
    request = tally.request
    by_stage: dict[str, list[Modifier]] = {}
    needed: frozenset[str] | set[str] = tally.counted
    if tally.mods:
        individual = request.individual
        choices = request.choices
        for m in tally.mods:
            if m.reach is not _THIS_ROLL:
                raise TypeError(
                    f"{m.source}: a modifier of {m.reach.value!r} reached this roll; a plug-in binds it "
                    "to this roll's units or reports it"
                )
            if m.scope == "army" and individual:
                continue
            if m.scope == "unit" and not individual:
                continue
            if m.optional and choices.get(m.source, True) is False:
                tally.reports.append(Report(m.source, "not applied: the player chose not to", kind="note"))
                continue
            by_stage.setdefault(m.stage, []).append(m)
            if m.counts_as is not None:  # a counts-as reads results of another type
                if not isinstance(needed, set):  # still the counted types themselves (a frozenset)
                    needed = set(needed)
                needed.add(m.counts_as)
    tally.by_stage = by_stage
    tally.needed = needed
    unit_mults = [m for m in by_stage.get(MULTIPLY, ()) if m.units is not None and m.amount > 1]
    if unit_mults:  # which units' results a unit multiplier will raise later, per type
        later: dict[int, dict[int, int]] = {}
        for m in unit_mults:
            for t in tally.targets(m):
                per = later.setdefault(_T[t], {})
                for i in m.units or ():
                    per[i] = max(per.get(i, 1), m.amount)
        tally.later_factor = later
    # the units the owner says lose a subtracted penalty first (FAQ95 MAGIC-GEN G: which icons take it)
    penalty_first = request.choices.get("penalty first") or ()
    if penalty_first:
        n = tally.n
        if not isinstance(penalty_first, (list, tuple)) or not all(
            isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n for i in penalty_first
        ):
            raise ResolutionError(f"'penalty first' must list unit indexes 0..{n - 1}", key="roll.choices")
        penalty_first = tuple(penalty_first)
    tally.penalty_first = penalty_first


def _apply_stages(tally: _Tally) -> None:
    """Steps 6-10 in the edition's stage order (V4.01c: subtract, divide, SAI results, multiply, add;
    R96 L953-961: subtract, divide, multiply, add)."""
    by_stage = tally.by_stage
    for stage in tally.ed.stages:
        if stage == "sai":
            _stage_sai(tally)
            continue
        stage_mods = by_stage.get(stage)
        if not stage_mods:
            continue
        step = _STAGE_STEPS.get(stage)
        if step is None:  # pragma: no cover - edition data error
            raise ValueError(f"edition {tally.ed.key}: unknown stage {stage!r}")
        step(tally, stage_mods)


def _stage_sai(tally: _Tally) -> None:
    """Step 8: the SAI-generated results join (V4.01c L1025), one explained step per SAI face."""
    before = {t: tally.T[k] for t, k in tally.counted_k}
    tally.add_sai()
    number = tally.ed.step_numbers["sai"]
    for t, _k in tally.counted_k:
        _sai_steps(tally, t, before[t], number)


def _stage_subtract(tally: _Tally, stage_mods: list[Modifier]) -> None:
    """Step 6: subtracting modifiers, never below 0, ID results last (V4.01c L1021, L1058-1061); a
    penalty on all results of a combination roll is split between the counted types."""
    number = tally.ed.step_numbers[SUBTRACT]
    multi = len(tally.counted) > 1
    for m in stage_mods:
        us = tally.unit_list(m)
        if m.result == ALL and multi and m.units is None:
            _split_subtract(tally, m, us, tally.touches_sai(m), number)
            continue
        sai = tally.touches_sai(m)
        where = None if m.units is None else us
        for t in tally.targets(m):
            k = _T[t]
            before = tally.total(k, where)
            tally.remove(k, m.amount, us, sai=sai, first=tally.penalty_first)
            after = tally.total(k, where)
            tally.record(
                SUBTRACT, m, t, before, after, f"subtract {m.amount} (never below 0; ID results last)"
            )


def _stage_divide(tally: _Tally, stage_mods: list[Modifier]) -> None:
    """Step 7: dividing modifiers, rounded down (V4.01c L1023; at most one per result type where the
    edition says so, L1063-1064)."""
    plan = _plan(
        tally, stage_mods, tally.ed.one_divider, _smallest_divisor, tally.ed.citations.get("one_divider", "")
    )
    N, I_, C, S = tally.N, tally.I, tally.C, tally.S
    for m, t, us, army in plan:
        k = _T[t]
        sai = tally.touches_sai(m)
        full_before = tally.total(k)
        if army:
            have = tally.total(k, us, sai=sai)
            after = have // m.amount if m.amount > 0 else have
            tally.remove(k, have - after, us, sai=sai)
            tally.record(
                DIVIDE,
                m,
                t,
                full_before,
                tally.total(k),
                f"divide by {m.amount}, rounded down (ID results last)",
            )
        else:
            for i in us:
                have = N[i][k] + I_[i][k] + C[i][k] + (S[i][k] if sai and tally.sai_live else 0)
                tally.remove(k, have - have // m.amount, [i], sai=sai)
            tally.record(DIVIDE, m, t, full_before, tally.total(k), f"divide by {m.amount}, rounded down")


def _stage_multiply(tally: _Tally, stage_mods: list[Modifier]) -> None:
    """Step 9: multiplying modifiers (V4.01c L1027; at most one per result type, L1063-1066)."""
    plan = _plan(
        tally,
        stage_mods,
        tally.ed.one_multiplier,
        _largest_factor,
        tally.ed.citations.get("one_multiplier", ""),
    )
    N, I_, C, S, T = tally.N, tally.I, tally.C, tally.S, tally.T
    for m, t, us, army in plan:
        k = _T[t]
        sai = tally.touches_sai(m) and tally.sai_live
        before = tally.total(k)
        f = m.amount
        if m.part == "ids":
            for i in us:
                old = I_[i][k]
                if old:
                    T[k] += old * (f - 1)
                    I_[i][k] = old * f
                    if t == MAGIC and m.element:
                        tally.id_elem[i] = m.element
            tally.record(MULTIPLY, m, t, before, tally.total(k), f"ID results multiplied by {f}")
            continue
        for i in us:
            old = N[i][k] + I_[i][k] + C[i][k] + (S[i][k] if sai else 0)
            if old:
                T[k] += old * (f - 1)
                N[i][k] *= f
                I_[i][k] *= f
                C[i][k] *= f
                if sai:
                    S[i][k] *= f
        if army:
            T[k] += tally.A[k] * (f - 1)
            tally.A[k] *= f
        tally.record(MULTIPLY, m, t, before, tally.total(k), f"multiply by {f}")


def _stage_add(tally: _Tally, stage_mods: list[Modifier]) -> None:
    """Step 10: adding modifiers, and results that count as another type (only rolled results,
    V4.01c L1029, L1040-1048)."""
    for m in stage_mods:
        if m.counts_as is not None:
            _counts_as(tally, m)
            continue
        for t in tally.targets(m):
            k = _T[t]
            before = tally.total(k)
            tally.A[k] += m.amount
            tally.T[k] += m.amount
            if t == MAGIC and m.element:
                tally.a_elem[m.element] = tally.a_elem.get(m.element, 0) + m.amount
            tally.record(ADD, m, t, before, tally.total(k), f"add {m.amount}")


def _counts_as(tally: _Tally, m: Modifier) -> None:
    """A unit's rolled ``m.counts_as`` results counted as ``m.result`` (V4.01c L1040-1048); in a
    combination roll the owner may convert only part of them (L1083-1084) and they change type."""
    assert m.counts_as is not None, "only counts-as modifiers come here"
    src = _T[m.counts_as]
    t = m.result
    k = _T[t]
    before = tally.total(k)
    moved = 0
    combination = m.counts_as in tally.counted
    limit = tally.request.choices.get(f"{m.source} amount") if combination else None
    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
        raise ResolutionError(
            f"how many results {m.source} converts must be a whole number >= 0, not {limit!r}",
            key=f"choices.{m.source} amount",
        )
    N, I_, S, C = tally.N, tally.I, tally.S, tally.C
    for i in tally.unit_list(m):
        v = N[i][src] + I_[i][src] + (S[i][src] if tally.sai_live else 0)
        if limit is not None:
            v = min(v, limit - moved)
        if v <= 0:
            continue
        moved += v
        if C[i] is _ZERO_ROW:
            C[i] = [0] * _NT
        C[i][k] += v
        tally.T[k] += v
        if combination:  # a combination roll: the results change type
            tally.remove(src, v, [i], sai=True)
    tally.record(ADD, m, t, before, tally.total(k), m.note or f"{moved} {m.counts_as} results count as {t}")


_STAGE_STEPS: dict[str, Callable[[_Tally, list[Modifier]], None]] = {
    SUBTRACT: _stage_subtract,
    DIVIDE: _stage_divide,
    MULTIPLY: _stage_multiply,
    ADD: _stage_add,
}


def _smallest_divisor(m: Modifier) -> int:
    return -m.amount


def _largest_factor(m: Modifier) -> int:
    return m.amount


def _result(tally: _Tally) -> Resolution:
    """The outcome: totals of the counted types (never below 0), magic by element, other results,
    the explained steps and reports, and each unit's results."""
    tally.add_sai()
    T = tally.T
    counted_k = tally.counted_k
    totals = {t: max(0, T[k]) for t, k in counted_k}
    N, I_, S, C = tally.N, tally.I, tally.S, tally.C
    pu = []
    if len(counted_k) == 1:
        t, k = counted_k[0]
        for i in range(tally.n):
            v = N[i][k] + I_[i][k] + S[i][k] + C[i][k]
            pu.append(MappingProxyType({t: v}) if v else _NO_PARTS)
    else:
        for i in range(tally.n):
            d = {t: v for t, k in counted_k if (v := N[i][k] + I_[i][k] + S[i][k] + C[i][k])}
            pu.append(MappingProxyType(d) if d else _NO_PARTS)
    magic: dict[str, int] = _magic_by_element(tally) if MAGIC in tally.counted else {}
    return Resolution(
        edition=tally.ed.key,
        purpose=tally.request.purpose,
        totals=MappingProxyType(totals),
        magic=MappingProxyType(magic),
        other=MappingProxyType(tally.other),
        steps=tuple(tally.steps),
        reports=tuple(tally.reports),
        per_unit=tuple(pu),
    )


def _sai_steps(tally: _Tally, t: str, running: int, number: int) -> None:
    """One explained step per SAI face that generated results of type ``t`` (V4.01c step 8)."""
    units = tally.units
    cites = tally.ed.citations
    for key, val, i, face, citation in tally.sai_log:
        if key == t:
            after = running + val
            name = units[i].name
            tally.steps.append(
                Step(
                    number,
                    face.sai or face.text(),
                    citation or cites.get("sai_table", cites.get("sai", "")),
                    f"{name} rolled {face.text()}: {val} {t} generated by the SAI",
                    t,
                    running,
                    after,
                    name,
                )
            )
            running = after


def _id_split(request: RollRequest, counted: frozenset[str], index: int, count: int) -> dict[str, int] | None:
    """An ID's results split between counted types in a combination roll, when the caller says so:
    ``choices["id_as"] = {unit index: {"melee": 2, "save": 1}}`` (V4.01c L677-681, L1083-1086)."""
    choice = request.choices.get("id_as")
    if not isinstance(choice, dict):
        return None
    split = choice.get(index)
    if not isinstance(split, dict):
        return None
    if sum(split.values()) != count or any(t not in counted or v < 0 for t, v in split.items()):
        raise ResolutionError(
            f"an ID worth {count} must be split into counted result types adding up to {count}, not {split!r}",
            key=f"choices.id_as[{index}]",
        )
    return dict(split)


def _split_subtract(tally: _Tally, m: Modifier, units: list[int], sai: bool, number: int) -> None:
    """A penalty on "all results" in a combination roll is applied once, split between the counted
    types as the owner wishes, all of it where possible (V4.01c L1080-1082; R96 L934-951).
    ``choices["<source> split"] = {"melee": 2, "save": 1}`` sets the split; by default the penalty
    falls on the largest attacking total first (equal totals in the order of ``RESULT_TYPES``) and
    on saves last."""
    counted = tally.counted
    chosen = tally.request.choices.get(f"{m.source} split")
    plan: list[tuple[str, int]] = []
    if isinstance(chosen, dict):
        for t, v in chosen.items():
            if t not in counted:
                raise ResolutionError(f"{t!r} is not counted in this roll", key=f"choices.{m.source} split")
            plan.append((t, int(v)))
        if sum(v for _, v in plan) != m.amount:
            raise ResolutionError(
                f"the split must place all {m.amount} points", key=f"choices.{m.source} split"
            )
    else:
        order = sorted((t for t in tally.counted_list if t != SAVE), key=lambda t: -tally.total(_T[t]))
        if SAVE in counted:
            order.append(SAVE)
        left = m.amount
        for t in order:
            k = _T[t]
            take = min(
                left, tally.total(k, units, sai=sai) if tally.sai_live or not sai else tally.total(k, units)
            )
            if take:
                plan.append((t, take))
                left -= take
    for t, v in plan:
        k = _T[t]
        before = tally.total(k)
        tally.remove(k, v, units, sai=sai)
        after = tally.total(k)
        if before != after:
            tally.steps.append(
                Step(
                    number,
                    m.source,
                    m.citation,
                    f"{v} of the penalty placed on {t} (combination roll)",
                    t,
                    before,
                    after,
                    m.source,
                )
            )


def _plan(
    tally: _Tally, mods: list[Modifier], one_only: bool, favour: Callable[[Modifier], int], citation: str
) -> list[tuple[Modifier, str, list[int], bool]]:
    """(modifier, result type, units, army-wide) to apply, in order.

    With ``one_only`` (V4.01c L1063-1064; SAI targeting rules L1231-1233) each unit's results of a
    type get at most one such modifier: the one most favourable to the roll (the smallest divisor,
    the largest multiplier).  A modifier restricted to units is applied to them unit by unit; an
    army-wide one to the army's total, over the units that no unit modifier of the stage covered."""
    targets = tally.targets
    unit_list = tally.unit_list
    out = []
    if not one_only:
        for m in mods:
            for t in targets(m):
                out.append((m, t, unit_list(m), m.units is None))
        return out
    types: list[str] = []
    for m in mods:
        for t in targets(m):
            if t not in types:
                types.append(t)
    for t in types:
        cands = [m for m in mods if t in targets(m)]
        unit_best: dict[int, Modifier] = {}
        for m in cands:
            if m.units is not None:
                for i in unit_list(m):
                    if i not in unit_best or favour(m) > favour(unit_best[i]):
                        unit_best[i] = m
        army_cands = [m for m in cands if m.units is None]
        army_best = None
        for m in army_cands:
            if army_best is None or favour(m) > favour(army_best):
                army_best = m
        if army_best is not None:
            # an army-wide modifier competes with unit ones for each unit
            for i in unit_list(army_best):
                if i in unit_best and favour(army_best) > favour(unit_best[i]):
                    del unit_best[i]
        for m in cands:
            if m is army_best:
                out.append((m, t, [i for i in unit_list(m) if i not in unit_best], True))
            elif m.units is not None and any(b is m for b in unit_best.values()):
                out.append((m, t, sorted(i for i, b in unit_best.items() if b is m), False))
            else:
                tally.reports.append(
                    Report(
                        m.source,
                        f"not applied to {t}: at most one such modifier per result type ({citation})",
                        kind="note",
                    )
                )
    return out


def _magic_by_element(tally: _Tally) -> dict[str, int]:
    """Magic results grouped by the elements they may take (V4.01c L449-480: a unit's magic may be
    any one of its elements, split freely)."""
    k = _T[MAGIC]
    out: dict[str, int] = {}
    elem_opts, sai_elem, counting, id_elem = tally.elem_opts, tally.sai_elem, tally.counting, tally.id_elem

    def add(key: str, v: int) -> None:
        if v > 0:
            out[key] = out.get(key, 0) + v

    for i, unit in enumerate(tally.units):
        if not counting[i]:
            continue
        elems = {e.value for e in unit.die.elements}
        for opt in elem_opts:
            if i in opt.units:
                elems = set(opt.elements) if opt.replace else elems | set(opt.elements)
        key = "/".join(sorted(elems)) if elems else IVORY
        own = tally.N[i][k] + tally.C[i][k]
        if i in id_elem:
            add(id_elem[i], tally.I[i][k])
        else:
            own += tally.I[i][k]
        sai_v = tally.S[i][k]
        if i in sai_elem:
            add("/".join(sorted(sai_elem[i])) or IVORY, sai_v)
        else:
            own += sai_v
        add(key, own)
    army = tally.A[k]
    for key, v in tally.a_elem.items():
        add(key, min(v, army))
        army -= min(v, army)
    add("any", army)
    return out
