"""The table's own dice: the camera model a server reads with, and the table profile it learns.

**Which profile belongs to the table (one rule).**  The table profile is the file beside the
game database: ``game.sqlite`` -> ``game.sqlite.profile.npz`` (``companion.vision.profile.
profile_beside``; for a game on a PostgreSQL league database, beside the local file the store
names).  When that file does not exist yet, the table starts from the serving bundle's own
profile (a bundle made by ``companion vision enroll``), else from nothing.  Everything the table
learns -- a roll confirmed on the tablet ("as you play") or a tap on the "Teach the camera your
dice" page -- is written to the file beside the database only (atomically: a temporary file, then
a rename); the bundle is never changed, so one bundle can serve many tables.

**How the camera reads with it.**  While the table has a profile (the file, or the bundle's),
``reading_model()`` is the serving bundle with its face embedding network and the table profile:
a die's face is the nearest known face among the faces its roster entry allows, and a face the
profile does not know is ``unreadable`` (tap it), never the glyph reader's guess.  A table with
no profile at all reads with an empty one (``BEFORE_ENROLMENT`` "unread", the default): every die is
left for a tap, cocked from the embedding network's cocked head, until the table learns its dice; the
bundle's own glyph reader, trained on the project's renders, guessed wrong on 1.7 % of the units of
rendered tables of art it never saw (``bench/teach.py``, 0 looks; models/face-embed/CHANGELOG.md,
stop 40).  With "reader" the table reads with the bundle as shipped (the project's own renders: the
demo, the tests of the camera's plumbing).

The embedding network is the bundle's (an enrolled bundle) or the shipped ``models/face-embed``
with its calibrated reading thresholds.
"""

from __future__ import annotations

import copy
import logging
import threading
from pathlib import Path

import numpy as np

#: why a roll whose frame the camera's turn check found turned teaches nothing (the notice to the pages
#: and the confirm's ``record_error``): crops cut from a turned frame would be learnt turned
TURNED_FRAME = (
    "the camera's frame seemed turned, so this roll teaches the camera nothing and its frame is not kept: "
    "turn the picture (Pairing page)"
)

log = logging.getLogger("companion.web")

#: What the camera reads Dragon Dice with while the table has no profile (``BEFORE_ENROLMENT``): "unread",
#: nothing (every die left for a tap), or "reader", the bundle's own glyph reader (the project's renders).
BEFORE_ENROLMENT = ("unread", "reader")


def parse_before_enrolment(value) -> str:
    """``value`` when it is one of ``BEFORE_ENROLMENT``, else a ValueError naming the setting and the value."""
    if value not in BEFORE_ENROLMENT:
        raise ValueError(f"BEFORE_ENROLMENT is {value!r}: one of {', '.join(map(repr, BEFORE_ENROLMENT))}")
    return value


class TableVision:
    """The serving bundle, its embedding network and the table profile (learnt in place)."""

    def __init__(self, model: str, db_path: str | Path, before_enrolment: str = "unread"):
        from companion.vision.profile import profile_beside

        self.before_enrolment = parse_before_enrolment(before_enrolment)
        self.model = str(model)
        self.path = profile_beside(db_path)
        self.lock = threading.RLock()
        self._profile = None
        self._loaded = False
        self._parts = None
        self.lessons = 0  # lessons learnt since the server started; the last one can be taken back
        self._before = None  # (lesson number, the profile before it, or None when there was no file)

    # -- the parts -----------------------------------------------------------------------------
    def base(self):
        from companion.vision.reader import load_model

        return load_model(self.model)

    def parts(self) -> tuple:
        """(embedder, crop size, crop margin, reading settings) of the table's embedding network."""
        if self._parts is None:
            base = self.base()
            if base.embedder is not None:
                self._parts = (base.embedder, base.embed_crop, base.embed_margin, dict(base.profile.settings))
            else:
                from companion.vision.crops import CROP_MARGIN
                from companion.vision.embedding import EMBED_INPUT, FaceEmbedder
                from companion.vision.enroll import embedding_model

                folder, meta = embedding_model()
                crop = meta.get("crop", {})
                self._parts = (
                    FaceEmbedder(folder / meta.get("onnx", "embed.onnx"), int(meta.get("turns", 4))),
                    int(crop.get("size", EMBED_INPUT)),
                    float(crop.get("margin", CROP_MARGIN)),
                    dict(meta.get("reading", {})),
                )
        return self._parts

    def embedder_id(self) -> str:
        from companion.vision.profile import embedder_id

        return embedder_id(self.parts()[0].path)

    def profile(self, create: bool = False):
        """The table profile (the file beside the game, else the bundle's), or None when there is none
        and ``create`` is false; with ``create``, an empty one (saved at the first lesson)."""
        from companion.vision.profile import TableProfile

        with self.lock:
            if not self._loaded:
                if self.path.is_file():
                    # a profile learnt with an earlier embedding network is learnt again from its kept
                    # crops (a model update keeps what the table learnt) and saved at once
                    self._profile = TableProfile.load(self.path, self.embedder_id(), self.parts()[0])
                    self._profile.settings.update(self.parts()[3])
                    if self._profile.relearnt_from:
                        self._profile.save(self.path)
                        log.info(
                            "table profile %s learnt again with embedding network %s (was %s): %d faces",
                            self.path,
                            self._profile.embedder_id,
                            self._profile.relearnt_from,
                            len(self._profile),
                        )
                else:
                    base = self.base()
                    self._profile = base.profile.copy() if base.profile is not None else None
                self._loaded = True
            if self._profile is None and create:
                self._profile = self._empty_profile()
            return self._profile

    def _empty_profile(self):
        from companion.vision.profile import TableProfile

        embedder, _, _, settings = self.parts()
        return TableProfile(self.embedder_id(), embedder.dim, settings)

    def reading_model(self):
        """The model the camera reads with: the bundle with the table profile; with none yet, the bundle
        with an empty one (every die left for a tap), or with ``before_enrolment`` "reader" the bundle
        alone."""
        prof = self.profile()
        if prof is None:
            return (
                self.base()
                if self.before_enrolment == "reader"
                else self._with_profile(self._empty_profile())
            )
        return self._with_profile(prof)

    def _with_profile(self, prof):
        embedder, size, margin, _ = self.parts()
        m = copy.copy(self.base())  # the loaded bundle is shared (cached): only this copy carries the profile
        m.embedder, m.profile, m.embed_crop, m.embed_margin = embedder, prof, size, margin
        return m

    # -- learning ------------------------------------------------------------------------------
    def crops(self, frame: np.ndarray, boxes) -> np.ndarray:
        from companion.vision.table_reading import embedding_crops

        _, size, margin, _ = self.parts()
        return embedding_crops(frame, np.asarray(boxes, float).reshape(-1, 4), size, margin)

    def embed(self, frame: np.ndarray, boxes) -> tuple[np.ndarray, np.ndarray]:
        return self.parts()[0](self.crops(frame, boxes))

    def learn(self, frame: np.ndarray, confirmed: list[tuple[list[float], object]]) -> int:
        """Teach the table profile (box in ``frame``, ``FaceLabel``) sightings; saved before it counts.

        The lesson is made on a copy, saved atomically, and only then becomes the table's profile:
        a failure (bad box, disk full) leaves the profile as it was.  Returns the sightings added."""
        from companion.vision.table_reading import learn_confirmed_roll

        if not confirmed:
            return 0
        with self.lock:
            had_file = self.path.is_file()
            current = self.profile()
            new = current.copy() if current is not None else self._empty_profile()
            learn_confirmed_roll(self._with_profile(new), frame, confirmed, save=False)  # checks the boxes
            new.save(self.path)
            self._profile = new
            self.lessons += 1
            self._before = (self.lessons, current if had_file else None)
        log.info("table profile %s learnt %d sightings (%d faces known)", self.path, len(confirmed), len(new))
        return len(confirmed)

    def undo(self, lesson: int) -> None:
        """Take back lesson number ``lesson`` (a mistaken tap); only the last lesson can be taken back."""
        with self.lock:
            if self._before is None or self._before[0] != lesson or lesson != self.lessons:
                raise LookupError("only the last lesson can be taken back")
            _, previous = self._before
            if previous is None:  # the table had no profile file before that lesson
                self.path.unlink(missing_ok=True)
                self._profile, self._loaded = None, False
            else:
                previous.save(self.path)
                self._profile = previous
            self._before = None
            self.lessons += 1  # an undone lesson is not undone twice
        log.info("table profile %s: lesson %d taken back", self.path, lesson)


def standard_profile_beside(database) -> Path:
    """The table's standard-dice profile: ``game.sqlite`` -> ``game.sqlite.standard-profile.npz``."""
    return Path(str(database) + ".standard-profile.npz")


class StandardTableVision(TableVision):
    """The table's standard dice (Battle Dice d4..d20): the ``--standard-model`` numeral bundle and the
    table profile it learns "as you play", in the file beside the game (``standard_profile_beside``),
    else the bundle's own.  Only a bundle made by ``companion vision enroll`` (an embedding network and a
    table profile) has one: a shipped reader such as ``polyhedral`` reads as shipped and learns nothing.
    The bundle is never changed; the camera reads standard dice with it and the learnt profile."""

    def __init__(self, model: str, db_path: str | Path):
        super().__init__(model, db_path)
        self.path = standard_profile_beside(db_path)

    def enrolled(self) -> bool:
        from companion.vision.numerals import enrolled_bundle

        return enrolled_bundle(self.model)

    def base(self):
        from companion.vision.numerals import load_numeral_model

        return load_numeral_model(self.model)

    def parts(self) -> tuple:
        if self._parts is None:
            base = self.base()
            self._parts = (base.embedder, base.embed_crop, base.embed_margin, dict(base.profile.settings))
        return self._parts

    def profile(self, create: bool = False):
        """The table's standard-dice profile, or None for a bundle that has none (never made empty here)."""
        return super().profile() if self.enrolled() else None

    def _with_profile(self, prof):
        m = copy.copy(self.base())  # the loaded bundle is shared (cached): only this copy carries the profile
        m.profile = prof
        return m


def table_vision(store) -> TableVision | None:
    return getattr(store, "table_vision", None)


def standard_vision(store) -> StandardTableVision | None:
    return getattr(store, "standard_vision", None)


def init_app(app, store) -> TableVision:
    """One ``TableVision`` per server, for the game file of ``store`` and the ``CAMERA_MODEL`` bundle, and
    one ``StandardTableVision`` for the ``STANDARD_MODEL`` bundle (Battle Dice rolls)."""
    from companion.vision import DEFAULT_STANDARD_MODEL

    vision = TableVision(
        app.config.get("CAMERA_MODEL") or "dragon-dice",
        store.db_path,
        app.config["BEFORE_ENROLMENT"],
    )
    app.extensions["table_vision"] = vision
    store.table_vision = vision  # the camera threads read through the store (no app context there)
    standard = StandardTableVision(app.config.get("STANDARD_MODEL") or DEFAULT_STANDARD_MODEL, store.db_path)
    app.extensions["standard_vision"] = standard
    store.standard_vision = standard
    return vision


# ---------------------------------------------------------------------------------------------
# "as you play": a confirmed camera roll teaches the table its crops


def staged_camera_roll(store, reading: dict | None = None) -> dict | None:
    """What a confirm may learn from, taken before the roll is submitted: the staged camera reading
    (``reading``, default ``store.reading``; with its frame) and the pending roll's dice; None when the
    roll was not read by the camera."""
    reading = store.reading if reading is None else reading
    frame = getattr(store, "reading_frame", None)
    if not reading or reading.get("source") != "camera" or not reading.get("frame") or frame is None:
        return None
    pending = store.session.pending() if store.session is not None else None
    if not pending or pending.get("kind") != "roll" or pending.get("roll") != reading.get("roll"):
        return None
    return {"reading": reading, "frame": frame, "dice": pending["dice"]}


def roster_keys(profile, dice) -> list[str]:
    """The profile's keys of every known face of ``dice`` (catalogue dice)."""
    from companion.vision.profile import lookup_keys

    keys: list[str] = []
    for die in dice:
        for k in range(len(die.faces)):
            key = next((x for x in lookup_keys(die, k) if x in profile), None)
            if key is not None and key not in keys:
                keys.append(key)
    return keys


def agreed_reading(profile, emb, p_cocked: float, dice) -> tuple:
    """(face text or None, die name or None, confidence, cocked) of one crop whose die is one of ``dice``.

    Each die reads the crop among its own faces (``TableProfile.read_die``, the shipped gate); the
    face is read only when every die that reads it at all reads the same face (an ID face: of the
    same die).  Dice disagreeing means the crop could be either: unread, never a guess."""
    found, best = set(), 0.0
    for die in dice:
        m = profile.read_die(emb, die, p_cocked)
        if m.cocked:
            return None, None, float(m.confidence), True
        best = max(best, float(m.confidence))
        if m.label is not None:
            found.add((m.label.text, die.name if m.label.icon == "ID" else None))
    if len(found) != 1:
        return None, None, best, False
    text, die_name = found.pop()
    holders = [d.name for d in dice if any(f.text() == text for f in d.faces)]
    return text, die_name or (holders[0] if len(holders) == 1 else None), best, False


def confirmed_sightings(staged: dict, faces: dict[str, str]) -> list[tuple[str, list[float], str, str]]:
    """(uid, box, die name, confirmed face) of the dice of a confirmed camera roll that may teach.

    Left out: dice without a box on the frame (typed, not seen), dice the camera called cocked
    (the frame does not show the face confirmed after the reroll), and dice the camera did not
    read whose box may belong to another die: an unread die teaches only when no other die of
    the roll with a box on the frame has as many faces (the box-to-die match of an unread die
    rests on its kind only, and the player taps faces per unit, not per box).  So an unread die
    (a tapped one), or a read die a player corrected (its box was matched by a face it did not show;
    also a die posted whole with a face unlike the camera's, ``POST /api/rolls``),
    teaches only when every other die of the roll with as many faces was read by the camera on a box
    of its own, as read: those dice were put on their boxes by the faces they show, and the box left
    is this die's.  Another unread, corrected, cocked or unseen die of its size could own the box."""
    reading = staged["reading"]
    boxes = reading.get("boxes") or {}
    cocked = set(reading.get("cocked") or ())
    tapped = set(reading.get("unread") or ()) | set(reading.get("corrected") or ())
    # faces confirmed unlike the camera's without a tap (``POST /api/rolls`` over a staged camera roll):
    # a player's face on a box the camera matched by another face, as a correction is
    tapped |= {u for u, f in (reading.get("faces") or {}).items() if faces.get(u) not in (None, f)}
    dice = {d["uid"]: d for d in staged["dice"]}
    not_read = tapped | cocked | {u for u in dice if u not in boxes}
    out = []
    for uid, d in dice.items():
        box, face = boxes.get(uid), faces.get(uid)
        if box is None or face is None or uid in cocked:
            continue
        if uid in tapped and any(
            len(o["faces"]) == len(d["faces"]) and v in not_read for v, o in dice.items() if v != uid
        ):
            continue
        out.append((uid, [float(v) for v in box], d["die"], face))
    return out


def crop_shows(vision, frame, box, label, roster) -> bool:
    """Whether the crop alone reads as ``label`` among every known face of the roll's dice.

    A die the camera read was matched to its box by the faces its own unit allows; when that
    match was wrong (two dice's boxes swapped) the crop shows another die, and teaching it would
    teach the wrong face.  So a read die teaches only when, of every face of the roll's dice the table knows, the
    nearest to its crop is the confirmed one (and near enough to be read)."""
    profile = vision.profile()
    keys = roster_keys(profile, roster) if profile is not None else []
    if not keys:
        return False
    emb, _ = vision.embed(frame, [box])
    d = np.array([np.linalg.norm(profile.prototype(k) - emb[0]) for k in keys])
    nearest = profile.label_of(keys[int(np.argmin(d))])
    return (
        float(d.min()) < profile.settings["max_distance"]
        and nearest.text == label.text
        and nearest.die in (None, label.die)
    )


def _standard_dice_only(dice) -> bool:
    """A roll of standard dice (Battle Dice, d4..d20): the Dragon Dice table profile does not learn them.
    It holds the faces of catalogue dice read with the Dragon Dice embedding (``face-embed``, which reads
    numerals at chance: ``models/polyhedral/MODEL_CARD.md``); standard dice teach the table's
    standard-dice profile (``StandardTableVision``) when the ``--standard-model`` bundle was enrolled
    (``companion vision enroll --corrections DIR --model polyhedral-oblique``, from the corrections the
    tablet saves: ``web.play.save_standard_correction``)."""
    from companion.vision.numerals import SIDES

    return bool(dice) and all(d["die"] in SIDES for d in dice)


def learn_confirmed_roll(store, staged: dict | None, faces: dict[str, str]) -> int | None:
    """After a confirmed roll: teach the table profile the crops of its dice at once.

    Dice confirmed as the camera read them teach only where ``crop_shows`` agrees with that face; dice
    a player gave their face (the camera left them unread, or read them wrong) teach the face given
    where ``confirmed_sightings`` allows.  A roll whose frame the camera's turn check found turned
    (``reading["turned"]``) teaches nothing, and the pages are told why.  Never blocks the roll (it is already in
    the log): a failure is reported to the pages as a ``profile_problem`` notice.  Returns the
    number of sightings learnt (None when not a camera roll; 0 for a roll of standard dice)."""
    vision = table_vision(store)
    if staged is None or vision is None:
        return None
    if staged["reading"].get("turned"):  # the camera's turn check named a turn (TURNED_FRAME says why)
        store.notice("profile_problem", {"problem": TURNED_FRAME})
        return 0
    if _standard_dice_only(staged["dice"]):  # the Dragon Dice profile holds no numerals: the standard one
        return learn_standard_roll(store, staged, faces)

    def sightings() -> list:
        from companion.rules.catalogue import load_catalogue
        from companion.vision.profile import face_label

        cat = load_catalogue()
        roster = [cat.get(n) for n in dict.fromkeys(d["die"] for d in staged["dice"])]
        # a die a player gave its face (tapped unread, or corrected) teaches its box as confirmed_sightings
        # allows; a die confirmed as the camera read it, where its crop shows that face (crop_shows)
        tapped = set(staged["reading"].get("unread") or ()) | set(staged["reading"].get("corrected") or ())
        confirmed = []
        for uid, box, name, text in confirmed_sightings(staged, faces):
            die = cat.get(name)
            label = face_label(die, next(i for i, f in enumerate(die.faces) if f.text() == text))
            if uid in tapped or crop_shows(vision, staged["frame"], box, label, roster):
                confirmed.append((box, label))
        return confirmed

    return _learn_roll(store, vision, staged, sightings, "table profile")


def _learn_roll(store, vision, staged: dict, sightings, profile: str, **learnt) -> int:
    """Teach VISION the ``(box, label)`` pairs ``sightings()`` gives on the staged roll's frame; the number
    learnt.  A lesson is told to the pages as a ``profile_learnt`` notice (plus LEARNT); a failure, in
    ``sightings`` or in learning, never blocks the roll (it is in the log already): it is logged naming
    PROFILE, told as a ``profile_problem`` notice, and 0 is returned."""
    try:
        n = vision.learn(staged["frame"], sightings())
    except Exception as exc:  # the roll is confirmed whatever happens here
        log.warning("the %s did not learn the confirmed roll: %s", profile, exc)
        store.notice("profile_problem", {"problem": f"the camera did not learn this roll's dice: {exc}"})
        return 0
    if n:
        store.notice("profile_learnt", {"sightings": n, "faces_known": len(vision.profile()), **learnt})
    return n


def learn_standard_roll(store, staged: dict, faces: dict[str, str]) -> int:
    """After a confirmed camera roll of standard dice: teach the table's standard-dice profile each die's
    confirmed value (``FaceLabel(kind, "value", v)``, the label ``companion vision enroll`` gives a
    standard die), the dice ``confirmed_sightings`` allows.  A die's label is its size and value only,
    so a die read on another die's box of its size still shows the value read.  Nothing when the
    ``--standard-model`` bundle has no profile (a shipped reader); a failure never blocks the roll."""
    vision = standard_vision(store)
    if vision is None or vision.profile() is None:
        return 0

    def sightings() -> list:
        from companion.vision.profile import FaceLabel

        return [
            (box, FaceLabel(kind, "value", int(value)))
            for _, box, kind, value in confirmed_sightings(staged, faces)
        ]

    return _learn_roll(store, vision, staged, sightings, "standard-dice profile", standard=True)
