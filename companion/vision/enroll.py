"""Enrolment: teach a bundle's table profile a table's own dice (torch-free, seconds on 2 cores).

Two sources, both validated completely before anything is written (bad input changes nothing):

* **corrections** -- the folder the tablet writes (``companion.vision.learning``): ``<name>.jpg``
  + ``<name>.json`` ``{"dice": [...]}`` with, per die, a ``box`` and either a Dragon Dice face
  (``kind`` d4..d12, ``icon``, ``count``, optionally ``die`` = catalogue name and ``species``) or a
  standard die's value (``{"box": [...], "kind": "d20", "value": 17}``).  Cocked dice teach nothing.
* **art** -- pictures of faces a player has (scans, photos of each face), listed in
  ``DIR/faces.csv`` with columns ``image, species, kind, icon, count``.  Each picture is put onto
  rendered dice (``synth.real_dice.place_face_picture``) several times and every view is enrolled.

The result is a model bundle (``--out``): the base bundle's files, the embedding network and the
profile, with an ``embedding`` section in ``model.json`` (``companion.vision.table_reading``).  It
works wherever a model name does.  The bundle is built in a temporary folder beside ``--out`` and
renamed into place.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.vision.crops import CROP_MARGIN
from companion.vision.detections import box_problem
from companion.vision.embedding import EMBED_INPUT, FaceEmbedder
from companion.vision.model_files import EMBED_MODEL as EMBED_MODEL
from companion.vision.model_files import embedding_model as embedding_model
from companion.vision.numerals import SIDES, load_bundle
from companion.vision.profile import (
    DD_KINDS,
    PROFILE_FILE,
    STANDARD_KINDS,
    FaceLabel,
    TableProfile,
    embedder_id,
)

ART_COLUMNS = ("image", "species", "kind", "icon", "count")
ART_VIEWS = 8


class EnrollError(ValueError):
    """Enrolment input is bad; the message names the file and the key."""


@dataclass
class Sighting:
    source: str  # the file and key that gave its face (for messages): "frame_00.json: dice[2].icon"
    image: np.ndarray  # the frame (corrections) or the picture (art)
    box: list[float] | None  # the die's box in the frame; None for an art picture
    label: FaceLabel


def _catalogue():
    from companion.rules.catalogue import load_catalogue  # noqa: PLC0415

    return load_catalogue()


def _faces_of(catalogue, kind: str, species: str | None = None) -> set[tuple[str, int]]:
    out = set()
    for die in catalogue:
        if DD_KINDS.get(len(die.faces)) == kind and (species is None or die.species == species):
            out.update((f.name, int(f.count)) for f in die.faces)
    return out


def check_die_record(rec, where: str, w: int, h: int, catalogue) -> FaceLabel | None:
    """One die of a correction record -> its label (None for a cocked die); raises ``EnrollError``."""
    if not isinstance(rec, dict):
        raise EnrollError(f"{where}: each die must be an object")
    if problem := box_problem(rec.get("box"), w, h):
        raise EnrollError(f"{where}.box: {problem}")
    kind = rec.get("kind")
    if "value" in rec:  # a standard die: d4..d20 with a number
        if kind not in STANDARD_KINDS:
            raise EnrollError(
                f"{where}.kind: a standard die is one of {', '.join(STANDARD_KINDS)}, not {kind!r}"
            )
        v = rec["value"]
        if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= SIDES[kind]:
            raise EnrollError(f"{where}.value: a {kind} shows 1..{SIDES[kind]}, not {v!r}")
        return FaceLabel(kind, "value", v)
    if kind not in DD_KINDS.values():
        raise EnrollError(
            f"{where}.kind: must be one of {', '.join(DD_KINDS.values())} "
            f"(or a standard die d4..d20 with a 'value'), not {kind!r}"
        )
    if rec.get("cocked"):
        return None
    icon, count = rec.get("icon"), rec.get("count")
    if not isinstance(icon, str) or not icon:
        raise EnrollError(f"{where}.icon: the face's icon kind is required unless the die is cocked")
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        raise EnrollError(f"{where}.count: must be a non-negative integer, not {count!r}")
    name, species = rec.get("die"), rec.get("species")
    if name is not None:
        die = catalogue.find(name) if isinstance(name, str) else None
        if die is None:
            raise EnrollError(f"{where}.die: {name!r} is not a die in the catalogue")
        if DD_KINDS.get(len(die.faces)) != kind:
            raise EnrollError(f"{where}.kind: {die.name} is a {DD_KINDS.get(len(die.faces))}, not a {kind}")
        if (icon, count) not in {(f.name, int(f.count)) for f in die.faces}:
            raise EnrollError(
                f"{where}.icon: {die.name} has no face '{count} {icon}' "
                f"(its faces: {', '.join(f.text() for f in die.faces)})"
            )
        return FaceLabel(kind, icon, count, die.name, die.species)
    if species is not None and not _faces_of(catalogue, kind, species):
        raise EnrollError(f"{where}.species: no {kind} of species {species!r} in the catalogue")
    if (icon, count) not in _faces_of(catalogue, kind, species):
        raise EnrollError(
            f"{where}.icon: no {kind}{' of ' + species if species else ''} has a face '{count} {icon}'"
        )
    return FaceLabel(kind, icon, count, None, species)


def read_corrections(folder: Path, catalogue=None) -> list[Sighting]:
    """Every confirmed face in a corrections folder; raises ``EnrollError`` naming file and key."""
    catalogue = catalogue or _catalogue()
    folder = Path(folder)
    if not folder.is_dir():
        raise EnrollError(f"{folder}: no such corrections folder")
    records = sorted(folder.glob("*.json"))
    if not records:
        raise EnrollError(f"{folder}: holds no corrections (<name>.jpg + <name>.json)")
    out = []
    for rec_path in records:
        img_path = next(
            (rec_path.with_suffix(s) for s in (".jpg", ".jpeg", ".png") if rec_path.with_suffix(s).is_file()),
            None,
        )
        if img_path is None:
            raise EnrollError(f"{rec_path.name}: its frame {rec_path.stem}.jpg is missing")
        image = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
        if image is None:
            raise EnrollError(f"{img_path.name}: not a readable image")
        try:
            data = json.loads(rec_path.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise EnrollError(f"{rec_path.name}: not JSON ({exc})") from exc
        dice = data.get("dice") if isinstance(data, dict) else None
        if not isinstance(dice, list):
            raise EnrollError(f"{rec_path.name}.dice: must be a list of dice")
        h, w = image.shape[:2]
        for k, rec in enumerate(dice):
            lab = check_die_record(rec, f"{rec_path.name}: dice[{k}]", w, h, catalogue)
            if lab is not None:
                where = f"{rec_path.name}: dice[{k}].{'value' if lab.icon == 'value' else 'icon'}"
                out.append(Sighting(where, image, [float(v) for v in rec["box"]], lab))
    if not out:
        raise EnrollError(f"{folder}: no die with a confirmed face to learn from")
    return out


MIN_ART_PX = 8  # a face picture smaller than this shows no art (``place_face_picture`` needs 4)


def read_art(folder: Path, catalogue=None) -> list[Sighting]:
    """The face pictures listed in ``folder/faces.csv``; raises ``EnrollError`` naming file and key."""
    catalogue = catalogue or _catalogue()
    folder = Path(folder)
    table = folder / "faces.csv"
    if not table.is_file():
        raise EnrollError(f"{table}: missing (columns {', '.join(ART_COLUMNS)})")
    species_known = {d.species for d in catalogue if d.species}
    out = []
    try:  # a table saved by a spreadsheet starts with a byte-order mark: not part of the first column
        text = table.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        line = table.read_bytes()[: exc.start].count(b"\n") + 1
        raise EnrollError(f"faces.csv line {line}: not UTF-8 text (save the table as UTF-8)") from None
    with io.StringIO(text, newline="") as f:
        reader = csv.DictReader(f)
        cols = [c.strip() for c in (reader.fieldnames or [])]
        missing = [c for c in ART_COLUMNS if c not in cols]
        if missing:
            raise EnrollError(
                f"faces.csv: missing column(s) {', '.join(missing)} (needs {', '.join(ART_COLUMNS)})"
            )
        for raw in reader:
            n = reader.line_num  # the file's own line (blank lines are skipped, not counted out)
            where = f"faces.csv line {n}"
            if None in raw:  # more fields than the header names
                raise EnrollError(f"{where}: {len(cols) + len(raw[None])} fields, {len(cols)} expected")
            row = {(k or "").strip(): (v or "").strip() for k, v in raw.items()}
            img_path = folder / row["image"]
            if not row["image"] or not img_path.is_file():
                raise EnrollError(f"{where}: image: {row['image']!r} is missing")
            picture = cv2.imread(str(img_path), cv2.IMREAD_UNCHANGED)
            if picture is None:
                raise EnrollError(f"{where}: image: {row['image']!r} is not a readable image")
            if picture.ndim == 2:
                picture = cv2.cvtColor(picture, cv2.COLOR_GRAY2BGR)
            if min(picture.shape[:2]) < MIN_ART_PX:
                raise EnrollError(
                    f"{where}: image: {row['image']!r} is {picture.shape[1]}x{picture.shape[0]} pixels: "
                    f"too small for a face (at least {MIN_ART_PX}x{MIN_ART_PX})"
                )
            if row["species"] not in species_known:
                raise EnrollError(f"{where}: species: {row['species']!r} is not a species of the catalogue")
            kind = row["kind"]
            if kind not in DD_KINDS.values():
                raise EnrollError(
                    f"{where}: kind: must be one of {', '.join(DD_KINDS.values())}, not {kind!r}"
                )
            try:
                count = int(row["count"])
            except ValueError:
                raise EnrollError(f"{where}: count: {row['count']!r} is not a whole number") from None
            if (row["icon"], count) not in _faces_of(catalogue, kind, row["species"]):
                raise EnrollError(
                    f"{where}: icon: no {row['species']} {kind} has a face '{count} {row['icon']}'"
                )
            out.append(
                Sighting(
                    f"faces.csv line {n}: icon",
                    picture,
                    None,
                    FaceLabel(kind, row["icon"], count, None, row["species"]),
                )
            )
    if not out:
        raise EnrollError(f"{table}: lists no face pictures")
    return out


def sighting_crops(
    sightings: list[Sighting],
    views: int = ART_VIEWS,
    seed: int = 0,
    size: int = EMBED_INPUT,
    margin: float = CROP_MARGIN,
) -> tuple[np.ndarray, list[FaceLabel]]:
    """Crops to embed: a frame's die cut by ``crop_die``; an art picture placed on ``views`` dice."""
    from companion.vision.crops import crop_die  # noqa: PLC0415

    rng = np.random.default_rng(seed)
    crops, labels = [], []
    for s in sightings:
        if s.box is not None:
            crops.append(crop_die(s.image, s.box, size, margin))
            labels.append(s.label)
        else:
            from companion.vision.synth.real_dice import place_face_picture  # noqa: PLC0415

            for _ in range(views):
                crops.append(
                    np.ascontiguousarray(place_face_picture(s.image, s.label.kind, rng, size=size)[..., :3])
                )
                labels.append(s.label)
    return np.stack(crops), labels


def enroll(
    base: str,
    out: Path,
    sightings: list[Sighting],
    *,
    embedding: str | None = None,
    views: int = ART_VIEWS,
    seed: int = 0,
    progress: bool = False,
) -> dict:
    """Write bundle ``out``: ``base`` (a model name or folder, possibly an enrolled bundle whose profile
    then grows) + the embedding network + a profile that has learnt ``sightings``.  Returns figures.

    ``embedding`` None: the base bundle's ``embedding_network`` (``polyhedral-oblique`` names
    ``numeral-embed``), else ``face-embed``."""
    from companion.vision.reader import ModelError, resolve_model  # noqa: PLC0415

    t0 = time.perf_counter()
    if not sightings:
        raise EnrollError(
            "nothing to enrol: no sighting was given (a face seen in a frame, or a picture of one)"
        )
    target = Path(out)
    if target.exists() and not (target / "model.json").is_file():
        raise EnrollError(
            f"{target} exists and is not a model bundle: give a new folder or a bundle to update"
        )
    above = next(p for p in target.absolute().parents if p.exists())  # where the folder would be made
    if not above.is_dir() or not os.access(above, os.W_OK):
        raise EnrollError(
            f"{target}: cannot make the bundle folder: {above} is not a folder you can write in"
        )
    base_dir = resolve_model(base).resolve()
    base_meta = load_bundle(base_dir).meta  # every file read: a broken base is refused naming its file
    form = base_meta.get("form")
    for s in sightings if form in ("numerals", "dragon-dice") else ():  # a die the base cannot read
        if (s.label.icon == "value") != (form == "numerals"):
            raise EnrollError(
                f"{s.source}: a {'standard' if s.label.icon == 'value' else 'Dragon Dice'} die's face, but the "
                f"base model {base_dir} reads {'standard' if form == 'numerals' else 'Dragon Dice'} dice only "
                f"(standard dice enrol into polyhedral-oblique or polyhedral, Dragon Dice into dragon-dice)"
            )
    numerals = (
        base_meta.get("form") == "numerals"
    )  # standard dice (polyhedral): the box finder is named in it
    if not (base_dir / "face.onnx").is_file() or not (numerals or (base_dir / "detector.onnx").is_file()):
        raise ModelError(
            f"{base_dir}: a base bundle needs face.onnx and a die finder (detector.onnx, or a "
            f"numeral bundle's box_finder): dragon-dice, d6 or polyhedral"
        )
    if base_meta.get("embedding"):  # an enrolled bundle: keep its network and grow its profile
        spec = dict(base_meta["embedding"])
        onnx = base_dir / spec["onnx"]
        emb_meta = {
            "reading": spec.get("reading", {}),
            "turns": spec.get("turns", 4),
            "crop": spec.get("crop", {}),
        }
    else:
        emb_dir, emb_meta = embedding_model(embedding or base_meta.get("embedding_network", EMBED_MODEL))
        onnx = emb_dir / emb_meta.get("onnx", "embed.onnx")
        spec = None
    embedder = FaceEmbedder(onnx, int(emb_meta.get("turns", 4)))
    crop = emb_meta.get("crop", {})
    size, margin = int(crop.get("size", EMBED_INPUT)), float(crop.get("margin", CROP_MARGIN))
    eid = embedder_id(onnx)
    if spec is not None and (base_dir / spec.get("profile", PROFILE_FILE)).is_file():
        profile = TableProfile.load(base_dir / spec.get("profile", PROFILE_FILE), eid)
    else:
        profile = TableProfile(eid, embedder.dim, emb_meta.get("reading"))
    t_embed = time.perf_counter()
    crops, labels = sighting_crops(sightings, views, seed, size, margin)
    profile.learn(crops, labels, embedder)
    t_embed = time.perf_counter() - t_embed
    out = Path(out).resolve()
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as exc:
        raise EnrollError(f"{target}: cannot make the bundle folder ({exc.strerror or exc})") from None
    try:
        for f in base_dir.iterdir():
            if f.is_file() and f.suffix in (".onnx", ".json") and f.name not in ("model.json",):
                shutil.copyfile(f, tmp / f.name)
        if spec is None:
            shutil.copyfile(onnx, tmp / "embed.onnx")
        meta = dict(base_meta)
        meta["name"] = out.name
        meta["embedding"] = {
            "onnx": "embed.onnx",
            "profile": PROFILE_FILE,
            "turns": int(emb_meta.get("turns", 4)),
            "crop": {"size": size, "margin": margin},
            "reading": profile.settings,
            "embedder_id": eid,
        }
        meta["enrolled_from"] = base_meta.get("enrolled_from", base_meta.get("name", base_dir.name))
        profile.save(tmp / PROFILE_FILE)
        (tmp / "model.json").write_text(json.dumps(meta, indent=1))
        if out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=out.parent))
            old.rmdir()
            out.rename(old)
            tmp.rename(out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    from companion.vision.reader import _CACHE  # noqa: PLC0415

    _CACHE.pop(out, None)  # a model loaded from here before must be read again
    return {
        "bundle": str(out),
        "crops": len(crops),
        "sightings": len(sightings),
        "faces_known": len(profile),
        "embed_seconds": round(t_embed, 3),
        "seconds": round(time.perf_counter() - t0, 3),
    }
