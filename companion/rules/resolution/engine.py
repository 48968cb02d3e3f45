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
from collections.abc import Iterable
from types import MappingProxyType

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
    Step,
)
from .registry import IdMultiplier, RollContext, SaiContext

_T = {t: k for k, t in enumerate(RESULT_TYPES)}
_NT = len(RESULT_TYPES)
#: Shared read-only zero row (see _State).
_ZERO_ROW = [0] * _NT
_NO_PARTS = MappingProxyType({})
#: Default result type for IDs in a combination roll (the owner may choose, V4.01c L1083-1086).
_ID_PREFERENCE = (SAVE, MELEE, MISSILE, MANEUVER, MAGIC)


_NONE, _ACTION, _ID, _SAI = 0, 1, 2, 3
#: (id(die), id(face)) -> (face, die, (kind, result type index, count)): once per face of a die.
_CODES: dict = {}
_ROLLING_KINDS = frozenset({"unit", "monster", "equipment", "artifact", "medallion", "relic"})
_UNIT_KINDS = frozenset({"unit", "monster"})


def _face_code(face) -> tuple[int, int, int]:
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
            raise ResolutionError(f"IDs may only count as a counted result type, not {pick!r}", key="choices.id_as")
        return pick
    if len(counted) == 1:
        return next(iter(counted))
    for t in _ID_PREFERENCE:
        if t in counted:
            return t
    return None


class _State:
    """Per-unit result parts: normal (N), ID (I), SAI (S), counted-as (C); army bucket (A)."""

    __slots__ = ("n", "N", "I", "S", "C", "A", "T", "sai_live", "a_elem", "later_factor")

    def __init__(self, n: int):
        # Rows start as the shared all-zero row and are copied on first write; code that writes
        # into a row which may still be shared only ever writes zeros into it (x * f, have - take).
        self.n = n
        self.N = [_ZERO_ROW] * n
        self.I = [_ZERO_ROW] * n
        self.S = [_ZERO_ROW] * n
        self.C = [_ZERO_ROW] * n
        self.A = [0] * _NT
        self.T = [0] * _NT  # running totals of the live parts, kept in step with every change
        self.sai_live = False  # SAI parts are part of the running subtotal
        self.a_elem: dict[str, int] = {}
        self.later_factor: dict[int, dict[int, int]] | None = None  # type -> unit -> factor to come

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

    def remove(self, t: int, amount: int, units: list[int], *, sai: bool, first: tuple = ()) -> None:
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


#: Memo of recent resolutions: a camera reports the same table many times a second, and
#: resolution is a pure function of its request, so an identical request gets the same answer.
_MEMO: OrderedDict = OrderedDict()
_MEMO_SIZE = 512


def _request_key(request: RollRequest, ed: Edition):
    """A hashable key holding everything the request says, or ``None`` when some part of it is
    not hashable (then the request is simply not memoised)."""
    try:
        choices = tuple(sorted(request.choices.items(), key=repr)) if request.choices else ()
        effects = tuple(
            (e.name, e.castings, e.target, e.units, e.hostile, e.element,
             tuple(sorted(e.details.items(), key=repr)) if e.details else ())
            for e in request.effects
        )
        key = (
            id(ed), request.purpose, request.against, request.counted, request.terrain, request.in_reserve,
            request.individual, request.counter_attack, request.charge, request.counter_maneuver,
            request.marching, request.force_points, choices, effects,
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
    if hit is not None and hit[0] is ed and len(hit[1]) == len(dice) and all(
        a is b for a, b in zip(hit[1], dice, strict=True)
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
    if request.purpose not in PURPOSES:
        raise ResolutionError(f"unknown roll purpose {request.purpose!r}", key="roll.for")
    if request.against is not None and request.against not in AGAINST:
        raise ResolutionError(f"unknown 'against' {request.against!r}", key="roll.against")
    counted = request.counted_types()
    for t in counted:
        if t not in _T:
            raise ResolutionError(f"unknown result type {t!r}", key="roll.counted")
    reg = ed.registry
    cites = ed.citations
    texts = ed.texts
    num = ed.step_numbers
    ctx = RollContext(request, counted)
    units = request.units
    n = len(units)
    st = _State(n)
    steps: list[Step] = []
    reports: list[Report] = []
    other: dict[str, int] = {}
    mods: list[Modifier] = []
    elem_opts: list[ElementOption] = []
    sai_elem: dict[int, frozenset[str]] = {}
    id_elem: dict[int, str] = {}  # unit -> the only element(s) its ID magic may take
    sai_log: list = []  # (result type, amount, unit index, face, citation) of counted SAI results
    counting = [u.counts for u in units]

    # Steps 3-4: SAIs on every face, re-roll chains checked (FORMAT: a list stops where re-rolling stops).
    codes = []
    groups: dict[str, list[int]] = {}  # species -> indexes of its counting units
    for i, unit in enumerate(units):
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
        if not faces:
            raise ResolutionError("no face given", key=f"roll.faces[{i}]")
        unit_codes = []
        for k, face in enumerate(faces):
            entry = _CODES.get((id(die), id(face)))
            if entry is None or entry[0] is not face or entry[1] is not die:
                if face not in die.faces:
                    raise ResolutionError(f"{die.name} has no face {face.text()!r}", key=f"roll.faces[{i}][{k}]")
                if len(_CODES) > 200_000:
                    _CODES.clear()
                # the entry holds face and die, so their ids stay unique while it lives
                entry = _CODES[(id(die), id(face))] = (face, die, _face_code(face))
            unit_codes.append(entry[2])
        codes.append(unit_codes)
        if len(faces) == 1 and unit_codes[0][0] != _SAI:
            continue  # the common case: one plain face
        last = len(faces) - 1
        for k, face in enumerate(faces):
            rerolls = False
            if face.is_sai:
                ctx.sai_faces[i] = ctx.sai_faces[i] + (face.sai,)
                hook = reg.sais.get(face.sai)
                if hook is None:
                    reports.append(Report(face.sai, f"no roll contribution is registered for {face.sai} in {ed.key}", unit=i, kind="note"))
                    out = None
                else:
                    out = hook(SaiContext(ctx, i, face, k))
                if out is not None:
                    rerolls = out.reroll
                    if counting[i]:
                        for key, val in out.results.items():
                            if key in _T:
                                res = ctx.sai_results[i]
                                res[key] = res.get(key, 0) + val
                                if st.S[i] is _ZERO_ROW:
                                    st.S[i] = [0] * _NT
                                st.S[i][_T[key]] += val
                                if key in counted and val:
                                    sai_log.append((key, val, i, face, out.citation))
                            else:
                                other[key] = other.get(key, 0) + val
                        if out.magic_elements is not None:
                            sai_elem[i] = out.magic_elements
                        mods.extend(out.modifiers)
                        reports.extend(out.reports)
            if k < last and rerolls:
                steps.append(Step(num.get("reroll", num["count"]), f"{face.sai}: roll again", cites.get("reroll", ""),
                                  f"{unit.name} rolled again after {face.text()} and shows {faces[k + 1].text()}; "
                                  "both faces count", source=unit.name))
            if k < last and not rerolls:
                raise ResolutionError(
                    f"face {face.text()!r} does not make the die roll again in a {request.purpose} roll, "
                    "but more faces follow it",
                    key=f"roll.faces[{i}][{k + 1}]",
                )
            if k == last and rerolls:
                reports.append(Report(face.sai or face.name, "roll this unit again and apply the new face too",
                                      unit=i, kind="reroll_pending"))

    ctx._species_index = {k: frozenset(v) for k, v in groups.items()}

    # Core rules of the edition (eighth face, automatic saves...).
    id_factor = 1
    collected: list = []
    for _name, hook in reg.rules.items():
        for c in hook(ctx):
            if isinstance(c, IdMultiplier):
                id_factor *= c.factor
                steps.append(Step(num["count"], c.source, c.citation, f"ID results are multiplied by {c.factor}"))
            else:
                collected.append(c)

    # Step 5: count non-SAI results per unit.
    sum_n = [0] * _NT
    sum_i = [0] * _NT
    if "id_as" in request.choices:
        id_t_all = None
    else:  # the default type of every ID depends only on the counted types
        try:
            id_t_all = _ID_DEFAULT[counted]
        except KeyError:
            id_t_all = _ID_DEFAULT[counted] = _id_type(request, counted, -1)
    for i in range(n):
        if not counting[i]:
            continue
        Ni = st.N[i] = [0] * _NT
        Ii = st.I[i] = [0] * _NT
        for kind, k, count in codes[i]:
            if kind == _ACTION:
                Ni[k] += count
                sum_n[k] += count
            elif kind == _ID:
                split = _id_split(request, counted, i, count) if id_t_all is None else None
                if split is None:
                    id_t = id_t_all if id_t_all is not None else _id_type(request, counted, i)
                    split = {id_t: count} if id_t is not None else {}
                for t, v in split.items():
                    k = _T[t]
                    Ii[k] += v * id_factor
                    sum_i[k] += v * id_factor
    # species and spell hooks read the counted rows through ctx.normal / ctx.ids / ctx.rolled,
    # built on first use; the rows are withdrawn before the stages below change them in place
    ctx._rows = (st.N, st.I, RESULT_TYPES)
    T = st.T
    for k in range(_NT):
        T[k] = sum_n[k] + sum_i[k]
    if ed.sai_at_count:
        st.add_sai()
    for t in RESULT_TYPES:
        if t in counted:
            k = _T[t]
            normal = sum_n[k]
            ids = sum_i[k]
            if normal or ids:
                steps.append(Step(num["count"], texts["count"], cites["count"],
                                  f"{normal} from action icons + {ids} from ID icons", t, 0, normal + ids))
            if st.sai_live:  # an edition that counts SAI results with the others
                _sai_steps(steps, sai_log, t, normal + ids, num["count"], units, cites)

    # Species abilities and spells in force, given the counted results.
    if reg.abilities:
        for species, idx in ctx._species_index.items():
            for entry in reg.abilities.get(species, ()):
                collected.extend(entry.hook(ctx, idx))
    for e_i, effect in enumerate(request.effects):
        name = ed.canonical_spell(effect.name)
        if name is None:
            raise ResolutionError(f"unknown spell {effect.name!r} in edition {ed.key}", key=f"effects[{e_i}].spell")
        hook = reg.spells.get(name)
        if hook is not None:
            collected.extend(hook(ctx, effect))
    for c in collected:
        if isinstance(c, Modifier):
            mods.append(c)
        elif isinstance(c, ElementOption):
            elem_opts.append(c)
        elif isinstance(c, Report):
            reports.append(c)
        else:
            raise TypeError(f"a hook returned {c!r}, not a Modifier, ElementOption or Report")

    ctx._rows = None

    # Which modifiers touch this roll.
    live: list[Modifier] = []
    for m in mods:
        if m.scope == "army" and request.individual:
            continue
        if m.scope == "unit" and not request.individual:
            continue
        if m.optional and request.choices.get(m.source, True) is False:
            reports.append(Report(m.source, "not applied: the player chose not to", kind="note"))
            continue
        live.append(m)

    by_stage: dict[str, list[Modifier]] = {}
    for m in live:
        by_stage.setdefault(m.stage, []).append(m)

    # Result types that matter: those counted, and those a counts-as reads (a modifier on any other
    # type cannot change the outcome, so it is skipped).
    needed = set(counted)
    for m in live:
        if m.counts_as is not None:
            needed.add(m.counts_as)
    counted_list = [t for t in RESULT_TYPES if t in counted]

    def targets(m: Modifier) -> list[str]:
        if m.result == ALL:
            return counted_list
        return [m.result] if m.result in needed else []

    def unit_list(m: Modifier) -> list[int]:
        if m.units is None:
            return [i for i in range(n) if counting[i]]
        return sorted(i for i in m.units if i < n and counting[i])

    def touches_sai(m: Modifier) -> bool:
        return ed.spells_touch_sai or m.origin != "spell"

    def record(stage: str, m: Modifier, t: str, before: int, after: int, text: str) -> None:
        if before != after:
            steps.append(Step(num[stage], m.source, m.citation, m.note or text, t, before, after, m.source))

    unit_mults = [m for m in by_stage.get(MULTIPLY, ()) if m.units is not None and m.amount > 1]
    if unit_mults:  # which units' results a unit multiplier will raise later, per type
        later: dict[int, dict[int, int]] = {}
        for m in unit_mults:
            for t in targets(m):
                per = later.setdefault(_T[t], {})
                for i in m.units:
                    per[i] = max(per.get(i, 1), m.amount)
        st.later_factor = later

    # the units the owner says lose a subtracted penalty first (FAQ95 MAGIC-GEN G: which icons take it)
    penalty_first = request.choices.get("penalty first") or ()
    if penalty_first:
        if not isinstance(penalty_first, (list, tuple)) or not all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i < n for i in penalty_first):
            raise ResolutionError(f"'penalty first' must list unit indexes 0..{n - 1}", key="roll.choices")
        penalty_first = tuple(penalty_first)

    for stage in ed.stages:
        if stage == "sai":
            before = {t: st.total(_T[t]) for t in counted}
            st.add_sai()
            for t in RESULT_TYPES:
                if t in counted:
                    _sai_steps(steps, sai_log, t, before[t], num["sai"], units, cites)
            continue
        stage_mods = by_stage.get(stage)
        if not stage_mods:
            continue
        if stage == SUBTRACT:
            for m in stage_mods:
                if m.result == ALL and len(counted) > 1 and m.units is None:
                    _split_subtract(m, st, request, counted, unit_list(m), touches_sai(m), steps, num[stage])
                    continue
                for t in targets(m):
                    k = _T[t]
                    us = unit_list(m)
                    before = st.total(k, None if m.units is None else us)
                    st.remove(k, m.amount, us, sai=touches_sai(m), first=penalty_first)
                    after = st.total(k, None if m.units is None else us)
                    record(stage, m, t, before, after, f"subtract {m.amount} (never below 0; ID results last)")
        elif stage == DIVIDE:
            plan = _plan(stage_mods, ed.one_divider, lambda m: -m.amount, targets, unit_list, reports,
                         cites.get("one_divider", ""))
            for m, t, us, army in plan:
                k = _T[t]
                sai = touches_sai(m)
                full_before = st.total(k)
                if army:
                    have = st.total(k, us, sai=sai)
                    after = have // m.amount if m.amount > 0 else have
                    st.remove(k, have - after, us, sai=sai)
                    record(stage, m, t, full_before, st.total(k), f"divide by {m.amount}, rounded down (ID results last)")
                else:
                    for i in us:
                        have = st.N[i][k] + st.I[i][k] + st.C[i][k] + (st.S[i][k] if sai and st.sai_live else 0)
                        st.remove(k, have - have // m.amount, [i], sai=sai)
                    record(stage, m, t, full_before, st.total(k), f"divide by {m.amount}, rounded down")
        elif stage == MULTIPLY:
            plan = _plan(stage_mods, ed.one_multiplier, lambda m: m.amount, targets, unit_list, reports,
                         cites.get("one_multiplier", ""))
            for m, t, us, army in plan:
                k = _T[t]
                sai = touches_sai(m) and st.sai_live
                before = st.total(k)
                f = m.amount
                N, I_, C, S = st.N, st.I, st.C, st.S
                if m.part == "ids":
                    for i in us:
                        old = I_[i][k]
                        if old:
                            st.T[k] += old * (f - 1)
                            I_[i][k] = old * f
                            if t == MAGIC and m.element:
                                id_elem[i] = m.element
                    record(stage, m, t, before, st.total(k), f"ID results multiplied by {f}")
                    continue
                for i in us:
                    old = N[i][k] + I_[i][k] + C[i][k] + (S[i][k] if sai else 0)
                    if old:
                        st.T[k] += old * (f - 1)
                        N[i][k] *= f
                        I_[i][k] *= f
                        C[i][k] *= f
                        if sai:
                            S[i][k] *= f
                if army:
                    st.T[k] += st.A[k] * (f - 1)
                    st.A[k] *= f
                record(stage, m, t, before, st.total(k), f"multiply by {f}")
        elif stage == ADD:
            for m in stage_mods:
                if m.counts_as is not None:
                    src = _T[m.counts_as]
                    t = m.result
                    k = _T[t]
                    before = st.total(k)
                    moved = 0
                    # a combination roll: the owner may convert only part of them (V4.01c L1083-1084)
                    limit = request.choices.get(f"{m.source} amount") if m.counts_as in counted else None
                    if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool) or limit < 0):
                        raise ResolutionError(f"how many results {m.source} converts must be a whole number >= 0, "
                                              f"not {limit!r}", key=f"choices.{m.source} amount")
                    for i in unit_list(m):
                        v = st.N[i][src] + st.I[i][src] + (st.S[i][src] if st.sai_live else 0)
                        if limit is not None:
                            v = min(v, limit - moved)
                        if v <= 0:
                            continue
                        moved += v
                        if st.C[i] is _ZERO_ROW:
                            st.C[i] = [0] * _NT
                        st.C[i][k] += v
                        st.T[k] += v
                        if m.counts_as in counted:  # a combination roll: the results change type
                            st.remove(src, v, [i], sai=True)
                    record(stage, m, t, before, st.total(k), m.note or f"{moved} {m.counts_as} results count as {t}")
                else:
                    for t in targets(m):
                        k = _T[t]
                        before = st.total(k)
                        st.A[k] += m.amount
                        st.T[k] += m.amount
                        if t == MAGIC and m.element:
                            st.a_elem[m.element] = st.a_elem.get(m.element, 0) + m.amount
                        record(stage, m, t, before, st.total(k), f"add {m.amount}")
        else:  # pragma: no cover - edition data error
            raise ValueError(f"edition {ed.key}: unknown stage {stage!r}")

    st.add_sai()
    totals = {}
    for t in RESULT_TYPES:
        if t in counted:
            totals[t] = max(0, st.total(_T[t]))
    counted_k = [(t, _T[t]) for t in RESULT_TYPES if t in counted]
    N, I_, S, C = st.N, st.I, st.S, st.C
    pu = []
    if len(counted_k) == 1:
        t, k = counted_k[0]
        for i in range(n):
            v = N[i][k] + I_[i][k] + S[i][k] + C[i][k]
            pu.append(MappingProxyType({t: v}) if v else _NO_PARTS)
    else:
        for i in range(n):
            d = {t: v for t, k in counted_k if (v := N[i][k] + I_[i][k] + S[i][k] + C[i][k])}
            pu.append(MappingProxyType(d) if d else _NO_PARTS)
    per_unit = tuple(pu)
    magic: dict[str, int] = {}
    if MAGIC in counted:
        magic = _magic_by_element(request, st, elem_opts, sai_elem, counting, id_elem)
    return Resolution(
        edition=ed.key,
        purpose=request.purpose,
        totals=MappingProxyType(totals),
        magic=MappingProxyType(magic),
        other=MappingProxyType(other),
        steps=tuple(steps),
        reports=tuple(reports),
        per_unit=per_unit,
    )


def _sai_steps(steps, sai_log, t, running, number, units, cites) -> None:
    """One explained step per SAI face that generated results of type ``t`` (V4.01c step 8)."""
    for key, val, i, face, citation in sai_log:
        if key == t:
            after = running + val
            name = units[i].name
            steps.append(Step(number, face.sai, citation or cites.get("sai_table", cites.get("sai", "")),
                              f"{name} rolled {face.text()}: {val} {t} generated by the SAI", t, running, after, name))
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


def _split_subtract(m: Modifier, st: _State, request: RollRequest, counted, units, sai, steps, number) -> None:
    """A penalty on "all results" in a combination roll is applied once, split between the counted
    types as the owner wishes, all of it where possible (V4.01c L1080-1082; R96 L934-951).
    ``choices["<source> split"] = {"melee": 2, "save": 1}`` sets the split; by default the penalty
    falls on the largest attacking total first and on saves last."""
    chosen = request.choices.get(f"{m.source} split")
    plan: list[tuple[str, int]] = []
    if isinstance(chosen, dict):
        for t, v in chosen.items():
            if t not in counted:
                raise ResolutionError(f"{t!r} is not counted in this roll", key=f"choices.{m.source} split")
            plan.append((t, int(v)))
        if sum(v for _, v in plan) != m.amount:
            raise ResolutionError(f"the split must place all {m.amount} points", key=f"choices.{m.source} split")
    else:
        order = sorted((t for t in counted if t != SAVE), key=lambda t: -st.total(_T[t]))
        if SAVE in counted:
            order.append(SAVE)
        left = m.amount
        for t in order:
            take = min(left, st.total(_T[t], units, sai=sai) if st.sai_live or not sai else st.total(_T[t], units))
            if take:
                plan.append((t, take))
                left -= take
    for t, v in plan:
        k = _T[t]
        before = st.total(k)
        st.remove(k, v, units, sai=sai)
        after = st.total(k)
        if before != after:
            steps.append(Step(number, m.source, m.citation, f"{v} of the penalty placed on {t} (combination roll)",
                              t, before, after, m.source))


def _plan(mods, one_only, favour, targets, unit_list, reports, citation):
    """(modifier, result type, units, army-wide) to apply, in order.

    With ``one_only`` (V4.01c L1063-1064; SAI targeting rules L1231-1233) each unit's results of a
    type get at most one such modifier: the one most favourable to the roll (the smallest divisor,
    the largest multiplier).  A modifier restricted to units is applied to them unit by unit; an
    army-wide one to the army's total, over the units that no unit modifier of the stage covered."""
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
                reports.append(Report(m.source, f"not applied to {t}: at most one such modifier per result type "
                                                f"({citation})", kind="note"))
    return out


def _magic_by_element(request, st: _State, elem_opts, sai_elem, counting, id_elem) -> dict[str, int]:
    """Magic results grouped by the elements they may take (V4.01c L449-480: a unit's magic may be
    any one of its elements, split freely)."""
    k = _T[MAGIC]
    out: dict[str, int] = {}

    def add(key: str, v: int) -> None:
        if v > 0:
            out[key] = out.get(key, 0) + v

    for i, unit in enumerate(request.units):
        if not counting[i]:
            continue
        elems = {e.value for e in unit.die.elements}
        for opt in elem_opts:
            if i in opt.units:
                elems = set(opt.elements) if opt.replace else elems | set(opt.elements)
        key = "/".join(sorted(elems)) if elems else IVORY
        own = st.N[i][k] + st.C[i][k]
        if i in id_elem:
            add(id_elem[i], st.I[i][k])
        else:
            own += st.I[i][k]
        sai_v = st.S[i][k]
        if i in sai_elem:
            add("/".join(sorted(sai_elem[i])) or IVORY, sai_v)
        else:
            own += sai_v
        add(key, own)
    army = st.A[k]
    for key, v in st.a_elem.items():
        add(key, min(v, army))
        army -= min(v, army)
    add("any", army)
    return out
