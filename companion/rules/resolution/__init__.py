"""Die roll resolution: ``resolve(request) -> Resolution``, pure, for every edition.

    >>> from companion.rules.catalogue import load_catalogue
    >>> from companion.rules.resolution import RollRequest, RolledUnit, RollTerrain, resolve
    >>> die = load_catalogue()["Dwarves/Footman"]
    >>> req = RollRequest("save", (RolledUnit(die, (die.find_face("1 Save"),)),),
    ...                   terrain=RollTerrain("Highland", face=3))
    >>> resolve(req).totals["save"]
    1

PLUG-IN CONTRACT (for the per-SAI, per-species-ability and per-spell modules)
==========================================================================
Each edition has one :class:`Registry` (``companion.rules.v4.registry.REGISTRY``,
``companion.rules.r96.registry.REGISTRY``).  Plug-in modules only *add entries*; the edition
module (``companion/rules/<edition>/edition.py``) imports them so they register.  Every hook is
pure: it reads its context and returns values; it never mutates the context.

1. SAIs -- ``@REGISTRY.sai("Fly")``, ``def hook(ctx: SaiContext) -> SaiOutcome | None``.
   Called at step 4 once per SAI face rolled (each face of a re-roll list too).  ``ctx.x`` is X
   (the face's count: icons on a d6, the value 3/4 of large/monster/champion faces), ``ctx.face``,
   ``ctx.index``/``ctx.unit`` (the die), ``ctx.reroll_number`` (0 = original roll), and
   ``ctx.roll`` the :class:`RollContext` (purpose, against, counted, terrain, charge,
   counter_attack, individual...).  Return ``None`` when the SAI does nothing in this roll type
   (check its "Applies" column), else a :class:`SaiOutcome`:

   * ``results={"melee": X, "maneuver": X}`` -- SAI-generated results, added at step 8 (v4).
     Give results of any type the SAI generates in this roll; the engine counts only the types
     the roll counts.  Extra keys (e.g. ``"cantrip": X``, magic usable only for cantrip spells)
     land in ``Resolution.other``.
   * ``modifiers=(Modifier(...),)`` -- modifiers the SAI creates (Trumpet: multiply melee/saves of
     Feral units, ``units=frozenset(...)``, ``origin="sai"``).
   * ``reroll=True`` -- the die rolls again and the next face in the list is applied too (Rend,
     Bullseye, Double Strike...).  The engine refuses a face list that goes on after a face whose
     hook did not return ``reroll=True`` (FORMAT.md), so get this right per roll type.
   * ``reports=(Report("Smite", "3 damage to the defending army, no save", amount=3,
     kind="damage_no_save"),)`` -- effects beyond results, for the game flow.
   * ``magic_elements=frozenset({...})`` -- elements of the magic it generates when not the unit's own.
   * ``citation="V4.01c L1576-1580"`` -- where the SAI's rule is written (shown in the step).
   A "may"/"or" choice (Fly: maneuver or save) defaults to the best for the roll and reads
   ``ctx.choose("Fly", default)`` so the caller can override via ``RollRequest.choices``.
   An SAI with no registered hook gives nothing and leaves a ``Report(kind="note")``.

2. Species abilities -- ``@REGISTRY.species_ability("Coral Elves", "Coastal Dodge",
   citation="V4.01c L817-820")``, ``def hook(ctx: RollContext, units: frozenset[int])``.
   Called after step 5 when the roll has counting *units* (never items, V4.01c L2728) of that
   species; ``units`` are their indexes.  ``ctx.normal[i]``/``ctx.ids[i]``/``ctx.rolled[i]`` give
   each unit's step-5 results by type (all five types, counted or not), ``ctx.sai_results[i]``
   its SAI results and ``ctx.sai_faces[i]`` the SAI names it rolled.  Yield contributions:
   :class:`Modifier`, :class:`ElementOption`, :class:`Report`.

3. Spells and other lasting effects -- ``@REGISTRY.spell("Stone Skin")``,
   ``def hook(ctx: RollContext, effect: EffectInForce)``.  Called once per effect in
   ``RollRequest.effects`` with that name (``effect.castings`` combined castings,
   ``effect.target`` "army"/"terrain"/"unit"/"opponent", ``effect.units``, ``effect.hostile``).
   Spell names must be in the edition's ``SPELL_NAMES`` (an unknown name is refused); a known
   spell without a hook changes nothing.  Yield contributions as for species abilities.

4. Core rules -- ``@REGISTRY.rule("Eighth face")``, ``def hook(ctx: RollContext)``: called before
   step 5 (``ctx.rolled`` not filled yet), may also yield :class:`IdMultiplier`.

Hooks must be pure functions of what the context shows: ``resolve`` memoises whole resolutions
of identical requests (a camera reports an unchanged table many times a second).  Data several
hooks derive from the same roll can be computed once with ``ctx.memo(key, factory)``.

:class:`Modifier` fields: ``stage`` ("subtract" step 6, "divide" 7, "multiply" 9, "add" 10),
``result`` (a result type or "all" = every counted type), ``amount`` (number, divisor or
factor), ``source`` (name shown, and the key for ``choices`` of optional ones), ``citation``
("V4.01c L2253-2255"), ``scope`` ("army": not in individual rolls; "unit": only in individual
rolls; "any"), ``units`` (restrict to those units' results), ``counts_as`` (the rolled type to
count as ``result``: an add at step 10 computed by the engine from those units' own rolled
results; spell results are never counted as), ``origin`` ("spell"/"species"/"sai"/"rule"/
"terrain"), ``element`` (for added magic), ``optional`` (a "may": applied unless
``choices[source] is False``), ``note`` (our words for the explained step), ``part`` ("ids": a
multiplier of ID results only; with ``element`` those results may then only be of that element).

The engine applies: subtract (never below 0, ID results removed last), divide (rounded down),
SAI results (v4 step 8), multiply, add (counts-as included).  In v4 each unit's results of a type
get at most one divider and one multiplier (the most favourable to the roll).  A penalty on "all"
results in a combination roll is placed once, split between the counted types
(``choices["<source> split"] = {"melee": 2, "save": 1}``; by default on attacking results
first).  IDs in a combination roll go to saves first unless ``choices["id_as"]`` says otherwise
(a type, or ``{unit index: {"melee": 2, "save": 1}}``).  Every change becomes a :class:`Step`.
"""

from .alike import same_outcome
from .editions import Edition, get_edition
from .engine import resolve
from .model import (
    ADD,
    ALL,
    CANTRIP,
    DIVIDE,
    IVORY,
    MAGIC,
    MANEUVER,
    MELEE,
    MISSILE,
    MULTIPLY,
    RESULT_TYPES,
    SAVE,
    SUBTRACT,
    EffectInForce,
    ElementOption,
    Modifier,
    Op,
    Report,
    Resolution,
    ResolutionError,
    RolledUnit,
    RollRequest,
    RollTerrain,
    SaiOutcome,
    Scope,
    Step,
)
from .registry import IdMultiplier, Registry, RollContext, SaiContext

__all__ = [
    "same_outcome",
    "ADD",
    "ALL",
    "CANTRIP",
    "DIVIDE",
    "IVORY",
    "MAGIC",
    "MANEUVER",
    "MELEE",
    "MISSILE",
    "MULTIPLY",
    "RESULT_TYPES",
    "SAVE",
    "SUBTRACT",
    "Edition",
    "EffectInForce",
    "ElementOption",
    "IdMultiplier",
    "Modifier",
    "Op",
    "Registry",
    "Report",
    "Resolution",
    "ResolutionError",
    "RollContext",
    "RollRequest",
    "RolledUnit",
    "SaiContext",
    "SaiOutcome",
    "Scope",
    "Step",
    "RollTerrain",
    "get_edition",
    "resolve",
]
