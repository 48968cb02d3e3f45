"""What a source says one die shows: ``DieReading``, the value every dice source produces.

Three sources read rolls: the camera (``companion.vision``), the smart dice (``firmware_bridge``) and
a player typing or tapping faces (the Roll panel, ``companion game roll --faces``).  Each gives one
``DieReading`` per die; the session takes a roll as readings (``GameSession.submit_readings``) and
logs them with the roll's faces, so a judge sees which die which source read, and how surely.

This module sits between the sources and the session: it imports nothing of vision, torch, flask or
serial, and the rules never import it (they take faces only)::

    r = DieReading.typed("u3", "2 Melee")
    r.is_read, r.source, r.to_dict()     # True, Source.TYPED, {"die": "u3", "face": "2 Melee", ...}
    parse_reading({"die": "u3", "face": "2 Melee", "source": "typed"}) == r
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any


class ReadingError(ValueError):
    """A reading that cannot be: an unknown source or state, a face on an unread die, a bad box..."""


class Source(StrEnum):
    """Where a reading came from.  The values are the ``by.source`` words event logs already hold."""

    CAMERA = "camera"
    SMART_DIE = "serial"  # a smart die, through the serial bridge
    TYPED = "typed"  # typed or tapped by a player (or, in a demo, by its script)


class State(StrEnum):
    """What the source saw: a face (``read``), a die leaning on something (``cocked``: reroll it), or
    a die whose face it could not tell (``unreadable``: a player taps it)."""

    READ = "read"
    COCKED = "cocked"
    UNREADABLE = "unreadable"


def parse_source(value: object) -> Source:
    """``Source`` from its value (``"camera"``, ``"serial"``, ``"typed"``) or its name (``"smart_die"``)."""
    if isinstance(value, Source):
        return value
    for s in Source:
        if value in (s.value, s.name.lower()):
            return s
    raise ReadingError(f"unknown reading source {value!r}: one of " + ", ".join(s.value for s in Source))


def parse_state(value: object) -> State:
    if isinstance(value, State):
        return value
    for s in State:
        if value == s.value:
            return s
    raise ReadingError(f"unknown reading state {value!r}: one of " + ", ".join(s.value for s in State))


@dataclass(frozen=True)
class DieReading:
    """One die as a source read it.

    * ``die``: which die: the pending roll's die id (``"u3"``) once the reading is matched to the roll;
      before that, what the source knows it by (a smart die's id, a camera detection's ``"#2"``);
    * ``face``: the face as the catalogue writes it (``"2 Melee"``, ``"ID"``, ``"17"``); None unless
      ``state`` is ``read``;
    * ``confidence``: 0..1, how sure the source is of ``face`` (1 for a typed face or a smart die);
    * ``source``: ``Source.CAMERA``, ``Source.SMART_DIE`` or ``Source.TYPED``;
    * ``state``: ``read``, ``cocked`` or ``unreadable``;
    * ``name``: the catalogue die (``"Dwarves/Mammoth Rider"``, ``"d20"``) when the source knows it;
    * ``face_index``: the face's 0-based place on that die, when known;
    * ``box``: camera only, the die's box ``(x1, y1, x2, y2)`` in pixels of the frame;
    * ``frame``: camera only, which frame of the source it was read from (its frame count);
    * ``device``: smart die only, the die's hardware id (``"pxA7F3"``);
    * ``problem``: why a die is not read, in words (``"die pxZZ9 is not registered"``);
    * ``likely``: ``unreadable`` camera dice only, the die's faces nearest what the camera saw, nearest
      first (``TableProfile.likely_faces``; a standard die's values, ``"17"``, from
      ``TableProfile.likely_values``): what the Roll panel offers first for the tap.  Not a
      reading: the die stays unreadable until a player taps a face (issue 20: never a guess).
    """

    die: str
    face: str | None
    confidence: float = 1.0
    source: Source = Source.TYPED
    state: State = State.READ
    name: str | None = None
    face_index: int | None = None
    box: tuple[float, float, float, float] | None = None
    frame: int | None = None
    device: str | None = None
    problem: str | None = None
    likely: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.die, str) or not self.die:
            raise ReadingError(f"a reading names its die (a non-empty string), not {self.die!r}")
        object.__setattr__(self, "source", parse_source(self.source))
        object.__setattr__(self, "state", parse_state(self.state))
        if self.state is State.READ:
            if not isinstance(self.face, str) or not self.face.strip():
                raise ReadingError(f"die {self.die}: a read die needs its face text, not {self.face!r}")
        elif self.face is not None:
            raise ReadingError(f"die {self.die}: a {self.state.value} die has no face (got {self.face!r})")
        c = self.confidence
        if isinstance(c, bool) or not isinstance(c, (int, float)) or not (0.0 <= c <= 1.0):
            raise ReadingError(f"die {self.die}: confidence must be a number from 0 to 1, not {c!r}")
        object.__setattr__(self, "confidence", float(c))
        if self.face_index is not None and (
            isinstance(self.face_index, bool) or not isinstance(self.face_index, int) or self.face_index < 0
        ):
            raise ReadingError(
                f"die {self.die}: face_index must be a whole number >= 0, not {self.face_index!r}"
            )
        if self.box is not None:
            object.__setattr__(self, "box", _box(self.die, self.box))
        if self.frame is not None and (isinstance(self.frame, bool) or not isinstance(self.frame, int)):
            raise ReadingError(f"die {self.die}: frame must be a frame number, not {self.frame!r}")
        object.__setattr__(self, "likely", _likely(self.die, self.state, self.likely))

    # -- constructors ---------------------------------------------------------------------------------
    @classmethod
    def typed(
        cls, die: str, face: str, *, name: str | None = None, face_index: int | None = None
    ) -> DieReading:
        """A face a player typed or tapped: sure, from ``Source.TYPED``."""
        return cls(die, face, 1.0, Source.TYPED, State.READ, name=name, face_index=face_index)

    # -- questions --------------------------------------------------------------------------------------
    @property
    def is_read(self) -> bool:
        return self.state is State.READ

    @property
    def is_cocked(self) -> bool:
        return self.state is State.COCKED

    def for_die(self, die: str) -> DieReading:
        """The same reading matched to the roll's die ``die`` (a smart die keeps its id in ``device``)."""
        device = self.device if self.device is not None or self.source is not Source.SMART_DIE else self.die
        return replace(self, die=die, device=device)

    def corrected(self, face: str, face_index: int | None = None) -> DieReading:
        """A player's tap that sets this die's face: a typed reading of the same die (box and frame kept,
        so the camera's picture of the die still goes with it)."""
        return replace(
            self,
            face=face,
            face_index=face_index,
            confidence=1.0,
            source=Source.TYPED,
            state=State.READ,
            problem=None,
            device=None,
            likely=(),
        )

    # -- JSON -------------------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON form: ``die``, ``face``, ``confidence``, ``source``, ``state``, then only the fields set."""
        out: dict[str, Any] = {
            "die": self.die,
            "face": self.face,
            "confidence": round(self.confidence, 4),
            "source": self.source.value,
            "state": self.state.value,
        }
        for key in ("name", "face_index", "box", "frame", "device", "problem"):
            value = getattr(self, key)
            if value is not None:
                out[key] = list(value) if key == "box" else value
        if self.likely:
            out["likely"] = list(self.likely)
        return out


FIELDS = (
    "die",
    "face",
    "confidence",
    "source",
    "state",
    "name",
    "face_index",
    "box",
    "frame",
    "device",
    "problem",
    "likely",
)


def parse_reading(data: object) -> DieReading:
    """A ``DieReading`` from its JSON form (``DieReading.to_dict``); ``ReadingError`` names what is wrong."""
    if isinstance(data, DieReading):
        return data
    if not isinstance(data, Mapping):
        raise ReadingError(f"a die reading is a JSON object, not {type(data).__name__}")
    unknown = set(data) - set(FIELDS)
    if unknown:
        raise ReadingError(f"unknown field(s) of a die reading: {', '.join(sorted(map(str, unknown)))}")
    if "die" not in data:
        raise ReadingError("a die reading needs 'die'")
    fields: dict[str, Any] = {
        k: (tuple(v) if k in ("box", "likely") and isinstance(v, list) else v) for k, v in data.items()
    }
    return DieReading(**fields)


def _likely(die: str, state: State, likely: object) -> tuple[str, ...]:
    if not isinstance(likely, (tuple, list)) or not all(isinstance(f, str) and f.strip() for f in likely):
        raise ReadingError(f"die {die}: likely must be a list of face texts, not {likely!r}")
    if likely and state is not State.UNREADABLE:
        raise ReadingError(
            f"die {die}: only an unreadable die has likely faces (this one is {state.value}): "
            "a read die has its face, a cocked one is rolled again"
        )
    if len(set(likely)) != len(likely):
        raise ReadingError(f"die {die}: likely names a face twice ({list(likely)})")
    return tuple(likely)


def _box(die: str, box: object) -> tuple[float, float, float, float]:
    try:
        if not isinstance(box, Iterable):
            raise TypeError(box)
        values = tuple(float(v) for v in box)
    except (TypeError, ValueError):
        raise ReadingError(f"die {die}: box must be four numbers x1 y1 x2 y2, not {box!r}") from None
    if len(values) != 4 or not all(math.isfinite(v) for v in values):
        raise ReadingError(f"die {die}: box must be four numbers x1 y1 x2 y2, not {box!r}")
    x1, y1, x2, y2 = values
    if x2 <= x1 or y2 <= y1:
        raise ReadingError(f"die {die}: box {list(values)} has no area (x2 must exceed x1, y2 exceed y1)")
    return (x1, y1, x2, y2)
