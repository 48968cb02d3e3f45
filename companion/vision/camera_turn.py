"""Which way the camera looks at the table, and turning its frames so that the far side is at the top.

A camera looking obliquely at the table sees a die's up face nearer the far side of the die's outline,
and the standard-dice reader was trained that way: the up face of a d20 is the one facing the top of
the picture.  A camera (or a phone) that looks at the table from its side, or whose picture comes
upside down, breaks that, and the reader then reads *side* faces with confidence: on the TEST styles
(strict; dice sized for a 1280 px frame), with the picture turned 90, 180 or 270 degrees, 9.4-11.1 % of
all standard dice are read wrong (d12 up to 23 %) and almost none right (``bench/camera_turn.py``).

So a source can be given a **turn** (0, 90, 180 or 270 degrees clockwise; ``--turn``), applied to
every frame before anything reads it, and the reader itself **checks the turn**: a die's crop turned
the right way up is read far more surely than turned any other way, so over a few dice the turn whose
reading is surest is the one the camera needs (``TurnCheck``; ``MIN_DICE`` dice before it speaks).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

TURNS = (0, 90, 180, 270)
#: Dice seen before the check names a turn: on the calibration styles at 1280 px (``bench/camera_turn.py``),
#: the fewest with which a camera the right way up was told to turn in at most 0.5 % of random sets of
#: dice and a turned one was found in at least 95 %: chosen again for each reader shipped (the width-48
#: one-look reader of stop 37: 8 dice, turned cameras found in 96.5-97.7 % of sets; the five-look width-32
#: reader before it: 5).
MIN_DICE = 8
#: How much surer (mean confidence over the dice seen) another turn must read than the frames' own before
#: the check names it: where no turn reads much surer (a camera straight above the table, where dice lie
#: every way round), it says nothing rather than guess a turn.
MIN_LEAD = 0.15  # set before any measurement; MIN_DICE was then chosen under it
#: Once this many times ``min_dice`` dice have shown the frames the right way up, the check rests (weighs no
#: more dice) until the turn is set again: weighing a standard die reads it four times more (a frame of 10
#: dice: about 90 ms beside the reading's 50-60 ms, over the 250 ms settle-to-reading budget).
REST_FACTOR = 4
#: The same for Dragon Dice frames, weighed by the ``turn-up`` network: its evidence is noise where the camera
#: looks straight down, so it waits for more dice and a larger lead.  Chosen on the calibration art families
#: (turned frames found: 99.8 % at 90 and 180 degrees with 8 dice) and the project's own top-down-ish
#: procedural frames (40 rolls, 325 dice: a turn named in 0.1 % of random sets of 8; at 5 dice and a
#: lead of 0.15 it was 35 %) (``models/turn-up/CHANGELOG.md``).
UP_MIN_DICE = 8
UP_MIN_LEAD = 0.5


class TurnError(ValueError):
    """A turn that is not 0, 90, 180 or 270 degrees."""


def parse_turn(text) -> int:
    """A turn in degrees clockwise (``"90"``, ``90``): 0, 90, 180 or 270, else ``TurnError``."""
    try:
        turn = int(str(text).strip().rstrip("°"))
    except ValueError:
        raise TurnError(f"turn must be 0, 90, 180 or 270 (degrees clockwise), not {text!r}") from None
    if turn not in TURNS:
        raise TurnError(f"turn must be 0, 90, 180 or 270 (degrees clockwise), not {turn}")
    return turn


def is_turn(text) -> bool:
    try:
        parse_turn(text)
    except TurnError:
        return False
    return True


def turn_image(image: np.ndarray, turn: int) -> np.ndarray:
    """``image`` (H W ...) turned ``turn`` degrees clockwise (a new contiguous array; 0: unchanged)."""
    turn = parse_turn(turn)
    if turn == 0:
        return image
    return np.ascontiguousarray(np.rot90(image, -(turn // 90), axes=(0, 1)))


def turn_crops(crops: np.ndarray, turn: int) -> np.ndarray:
    """A stack of crops (N H W C), each turned ``turn`` degrees clockwise."""
    turn = parse_turn(turn)
    if turn == 0:
        return crops
    return np.ascontiguousarray(np.rot90(crops, -(turn // 90), axes=(1, 2)))


def unturn_boxes(boxes, turn: int, turned_shape) -> np.ndarray:
    """Boxes (x1 y1 x2 y2) found in a frame turned ``turn`` degrees clockwise (``turned_shape``: that
    frame's H, W), as they lie in the frame before it was turned."""
    turn = parse_turn(turn)
    b = np.asarray(boxes, float).reshape(-1, 4)
    h, w = turned_shape[:2]
    x1, y1, x2, y2 = b.T
    if turn == 0:
        return b.copy()
    if turn == 90:  # the original's (x, y) went to (H0 - 1 - y, x): H0 = w
        return np.stack([y1, w - x2, y2, w - x1], 1)
    if turn == 180:
        return np.stack([w - x2, h - y2, w - x1, h - y1], 1)
    return np.stack([h - y2, x1, h - y1, x2], 1)  # 270


@dataclass
class TurnCheck:
    """Evidence, over the dice seen so far, of the turn the frames still need.

    ``add`` takes, per die, the reader's confidence with the die's crop turned by each of ``TURNS``
    (a row of four); the turn with the highest mean confidence is the one the frames need on top of
    what they were given, when it leads the frames' own turn by ``MIN_LEAD``.  Until ``MIN_DICE`` dice
    are seen it says nothing."""

    min_dice: int = MIN_DICE
    min_lead: float = MIN_LEAD
    totals: np.ndarray = field(default_factory=lambda: np.zeros(len(TURNS)))
    dice: int = 0

    def add(self, confidences) -> None:
        c = np.asarray(confidences, float).reshape(-1, len(TURNS))
        if not np.isfinite(c).all():
            raise ValueError("turn check: confidences must be finite numbers")
        self.totals = self.totals + c.sum(0)
        self.dice += len(c)

    @property
    def resting(self) -> bool:
        """Enough dice showed the frames the right way up: more would cost time and tell nothing new."""
        return self.dice >= REST_FACTOR * self.min_dice and self.needed() == 0

    def weigh(self, evidence) -> bool:
        """Add a frame's dice (``evidence()``: their rows, computed only while the check does not rest)
        and say whether the frames are now known to be turned: no face of them is then to be kept."""
        if not self.resting:
            self.add(evidence())
        return bool(self.needed())

    def needed(self) -> int | None:
        """The further turn (degrees clockwise) the frames need, 0 when they are right; None: too few dice."""
        if self.dice < self.min_dice:
            return None
        best = int(np.argmax(self.totals))
        if best and (self.totals[best] - self.totals[0]) / self.dice < self.min_lead:
            return 0  # no other turn reads clearly surer: the frames are not known to be wrong
        return TURNS[best]

    def advice(self, current: int = 0) -> str | None:
        """What to tell the players when the frames are the wrong way round (None when right or unknown)."""
        more = self.needed()
        if not more:
            return None
        should = (parse_turn(current) + more) % 360
        return (
            f"the dice read best with the picture turned {more} degrees clockwise more: the far side of the "
            f"table is not at the top of the camera's picture, and the dice's faces would be read wrong. "
            f"Turn the camera, or give it turn {should} (--turn {should}); {self.dice} dice seen"
        )

    def to_dict(self) -> dict:
        return {
            "dice": self.dice,
            "mean_confidence": {
                str(t): round(float(v) / max(self.dice, 1), 4)
                for t, v in zip(TURNS, self.totals, strict=True)
            },
            "needed": self.needed(),
        }


def dragon_dice_check() -> TurnCheck:
    """A turn check for Dragon Dice frames (``UpReader`` evidence)."""
    return TurnCheck(min_dice=UP_MIN_DICE, min_lead=UP_MIN_LEAD)


class SourceTurn:
    """A camera source's turn (frames are turned by it before anything reads them) and its checks: one
    weighed by the standard-dice reader (``check``), one by the ``turn-up`` network on Dragon Dice
    (``up_check``)."""

    def __init__(self, turn=0):
        self.turn = parse_turn(turn)
        self.check = TurnCheck()
        self.up_check = dragon_dice_check()

    def frame(self, frame: np.ndarray) -> np.ndarray:
        return turn_image(frame, self.turn)

    def needed(self) -> int | None:
        """The further turn a check names (the first that names one), 0 when one says the frames are
        right, None before either has seen enough dice."""
        answers = [c.needed() for c in (self.check, self.up_check)]
        return next((a for a in answers if a), 0 if 0 in answers else None)

    def advice(self) -> str | None:
        return self.check.advice(self.turn) or self.up_check.advice(self.turn)

    def status(self) -> dict:
        """``turn``, ``turn_check``, and while the frames seem the wrong way round ``turn_advice`` (words) and
        ``turn_suggested`` (the turn to give instead)."""
        advice = self.advice()
        more = self.needed()
        out = {
            "turn": self.turn,
            "turn_check": self.check.to_dict(),
            "turn_check_dragon_dice": self.up_check.to_dict(),
        }
        if advice and more:
            out.update(turn_advice=advice, turn_suggested=(self.turn + more) % 360)
        return out


class UpReader:
    """The "which way is up" network (``models/turn-up``): for die crops, the evidence ``TurnCheck`` weighs.

    It names the turn by which a crop is seen away from "far side at the top" from the die's own
    shape (the near side faces below the top face), so it needs no face the table has taught and reads
    Dragon Dice of art it has never seen.  Trained on renders only (``models/turn-up/MODEL_CARD.md``)."""

    def __init__(self, bundle=None):
        import json  # noqa: PLC0415
        from pathlib import Path  # noqa: PLC0415

        from companion.vision.onnx_session import ModelError, onnx_session  # noqa: PLC0415
        from companion.vision.reader import resolve_model  # noqa: PLC0415

        folder = resolve_model(bundle or "turn-up")
        meta = json.loads((Path(folder) / "model.json").read_text())
        if meta.get("form") != "turn-up" or list(meta.get("turns", [])) != list(TURNS):
            raise ModelError(
                f"{folder} is not a turn-up network (model.json form 'turn-up', turns {list(TURNS)})"
            )
        self.session = onnx_session(Path(folder) / meta.get("onnx", "up.onnx"))
        crop = meta.get("crop", {})
        self.size, self.margin = int(crop.get("size", 64)), float(crop.get("margin", 1.15))

    def seen_turn(self, crops: np.ndarray) -> np.ndarray:
        """(n, 4): the probability that each crop is seen turned by each of ``TURNS`` (clockwise)."""
        if not len(crops):
            return np.zeros((0, len(TURNS)))
        x = np.ascontiguousarray(crops.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0
        z = self.session.run(None, {"crops": x})[0]
        e = np.exp(z - z.max(1, keepdims=True))
        return e / e.sum(1, keepdims=True)

    def turn_confidences(self, image: np.ndarray, boxes) -> np.ndarray:
        """(dice, 4), as ``NumeralModel.turn_confidences``: how surely each die of ``boxes`` would be
        upright with the frame turned a further 0, 90, 180, 270 degrees clockwise."""
        from companion.vision.crops import crop_die  # noqa: PLC0415

        boxes = np.asarray(boxes, float).reshape(-1, 4)
        if not len(boxes):
            return np.zeros((0, len(TURNS)))
        seen = self.seen_turn(np.stack([crop_die(image, b, self.size, self.margin) for b in boxes]))
        # turning the frame by u puts a die seen turned t upright when u + t = 360
        return np.stack([seen[:, TURNS.index((360 - u) % 360)] for u in TURNS], axis=1)


_UP_READER: UpReader | None = None


def weigh_dragon_dice(check: TurnCheck, image: np.ndarray, boxes) -> bool:
    """Add the Dragon Dice of ``boxes`` in ``image`` to ``check`` (the ``turn-up`` network's evidence) and
    say whether the frames are now known to be turned (with no dice: what the check already knows)."""
    boxes = np.asarray(boxes, float).reshape(-1, 4)
    if not len(boxes):
        return bool(check.needed())
    return check.weigh(lambda: up_reader().turn_confidences(image, boxes))


def up_reader() -> UpReader:
    """The shipped ``turn-up`` network, loaded once."""
    global _UP_READER
    if _UP_READER is None:
        _UP_READER = UpReader()
    return _UP_READER


def withhold_units(units: list[dict]) -> None:
    """A roll's units (``assign`` / ``read_roll``) read from frames the wrong way round: no face is kept,
    and no likely face is offered (cocked stays: it comes from the die's shape)."""
    for u in units:
        if not u.get("cocked"):
            u["face_index"], u["face"] = None, None
            u.pop("alternatives", None)


def withhold(readings) -> None:
    """Leave every die of ``readings`` (``SeenDie`` or ``StandardReading``) that is not cocked unreadable:
    its frame is the wrong way round, so no face read in it is trusted (cocked comes from the die's shape)."""
    for r in readings:
        if getattr(r, "cocked", False):
            continue
        for name, empty in (
            ("icon", None),
            ("count", None),
            ("value", None),
            ("reading", None),
            ("likely", []),
        ):
            if hasattr(r, name):
                setattr(r, name, empty)
        r.unreadable = True
