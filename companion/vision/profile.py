"""A table profile: the faces of one table's own dice, learnt from sightings (torch-free).

A player's dice do not look like anything the networks were trained on (issue 20: 0.1 % of real
face pictures read right by the glyph reader).  So the camera keeps, per table, a *prototype* of
every face it has been shown: the mean embedding (``companion.vision.embedding``) of the crops
that were confirmed to show that face, and how many sightings made it.  A die is then read as the
nearest known face among the faces its roster entry allows; a face that matches nothing known
well enough is ``unreadable`` (tap it), never a guess.

Keys (one prototype each) -- the same face looks alike wherever it is printed in one species' art:

* ``die:<die name>|<face>``: an ID face (each unit type has its own picture);
* ``sp:<species>|<kind>|<face>``: any other face of a die of that species and kind;
* ``any:<kind>|<face>``: a face of a die whose species is not known (standard dice: ``any:d20|17``).

A die's face is looked up from the most specific key to the least.  With ``d`` the distance from
the crop's embedding to each candidate prototype, the nearest candidate is the face read, if the
gate lets it through; else the die is ``unreadable``.  Two gates (the settings say which):

* **margin gate** (settings hold ``min_margin`` and no ``min_confidence`` above 0): the nearest candidate is read when it is nearer
  than ``max_distance`` and the second-nearest known candidate is at least ``min_margin`` farther.
  When every face of the die (its roster entry) has a prototype, no unknown face can be on the
  table, so the looser pair ``max_distance_full`` / ``min_margin_full`` applies; while some of its
  faces are still unknown, a crop of an unknown face must not be read as its nearest known sibling,
  so the stricter pair applies (and always without a roster: ``read_any``/``read_keys``).  A
  prototype made from one sighting is less sure than a mean of several: when the nearest one has a
  single sighting, the four values of ``one_sighting`` (when given) replace them; with more, those
  of ``by_sightings`` (when given: ``{"2": ..., "3": ..., "5": ..., "10": ...}``, the largest
  level not above the nearest prototype's sightings), each pair calibrated on its own level.
  Standard dice (keys ``any:``, read by ``read_any``) are read with the values of
  ``standard_dice`` when given: the margin gate is calibrated on Dragon Dice art only.
* **softmax gate** (older settings: no ``min_margin``, or a ``min_confidence`` above 0): each known candidate weighs
  ``exp(-scale * d^2)`` and *unknown* weighs ``exp(-scale * max_distance^2)``; the nearest
  candidate is read when it is nearer than ``max_distance`` and holds ``min_confidence`` of the
  weight.

A reading's ``confidence`` is that softmax share in both cases.  The settings are chosen on the
calibration art families only (``companion.vision.enroll_sim``) and shipped in the embedding
model's ``model.json``.

The profile file is an ``.npz`` (written atomically: a temporary file, then a rename), by default
beside the game database (``game.sqlite`` -> ``game.sqlite.profile.npz``) or inside a bundle.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

PROFILE_FILE = "profile.npz"
STANDARD_KINDS = ("d4", "d6", "d8", "d10", "d12", "d20")
STANDARD_SIDES = {"d4": 4, "d6": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20}
DD_KINDS = {4: "d4", 6: "d6", 8: "d8", 10: "d10", 12: "d12"}
#: Crops a profile keeps per face, the newest (``learn``): a new embedding network learns the table's
#: faces again from them (``load`` with ``embedder``) instead of asking the players to enrol again.
KEPT_CROPS = 10
#: How many of a die's known faces an unreadable die offers first on the Roll panel (``likely_faces``).
LIKELY_FACES = 2
DEFAULT_SETTINGS = {"scale": 12.0, "max_distance": 0.8, "min_confidence": 0.6, "cocked_threshold": 0.5}


class ProfileError(ValueError):
    """A profile file or a label is malformed, or belongs to another embedding network."""


@dataclass(frozen=True)
class FaceLabel:
    """What a sighting shows: a die kind and a face, and, when known, the die and its species."""

    kind: str
    icon: str  # the face's icon name (``Melee``, ``Trample``, ``ID``), or ``value`` on a standard die
    count: int  # the face's count, or the value of a standard die
    die: str | None = None
    species: str | None = None

    @property
    def text(self) -> str:
        return str(self.count) if self.icon == "value" else f"{self.count} {self.icon}"

    def key(self) -> str:
        """The prototype this sighting teaches."""
        if self.die and self.icon == "ID":
            return f"die:{self.die}|{self.text}"
        if self.species:
            return f"sp:{self.species}|{self.kind}|{self.text}"
        return f"any:{self.kind}|{self.text}"


def margin_gate(settings: dict) -> bool:
    """Whether reading settings ask for the margin gate (else the softmax gate of older settings)."""
    return settings.get("min_margin") is not None and not settings.get("min_confidence")


def die_kind(die) -> str:
    return DD_KINDS[len(die.faces)]


def die_species(die) -> str:
    return die.species or die.name.split("/")[0]


def face_label(die, face_index: int) -> FaceLabel:
    face = die.faces[face_index]
    return FaceLabel(die_kind(die), face.name, int(face.count), die.name, die_species(die))


def face_key(die, face_index: int) -> tuple[str, str]:
    """(the prototype key a sighting of this face teaches, the face text)."""
    lab = face_label(die, face_index)
    return lab.key(), lab.text


def lookup_keys(die, face_index: int) -> list[str]:
    """The keys that may hold this face's prototype, most specific first."""
    lab = face_label(die, face_index)
    keys = [f"die:{die.name}|{lab.text}"] if lab.icon == "ID" else []
    return keys + [f"sp:{lab.species}|{lab.kind}|{lab.text}", f"any:{lab.kind}|{lab.text}"]


_LOOKUP: dict[int, tuple] = {}  # id(die) -> (die, its faces' texts and lookup keys)


def _die_lookup(die) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Per face of ``die``: (its text, its ``lookup_keys``) -- kept, as a roster reading asks for every
    (detection, unit) pair and a catalogue die never changes.  Kept by the die object's identity (the
    entry holds the die, so the id stays its own): hashing a frozen die costs more than the lookup."""
    hit = _LOOKUP.get(id(die))
    if hit is None or hit[0] is not die:
        if len(_LOOKUP) > 4096:
            _LOOKUP.clear()
        hit = (die, tuple((die.faces[k].text(), tuple(lookup_keys(die, k))) for k in range(len(die.faces))))
        _LOOKUP[id(die)] = hit
    return hit[1]


@dataclass
class Match:
    """The reading of one crop against a profile: ``label`` None means unreadable or cocked."""

    label: FaceLabel | None
    confidence: float
    distance: float
    cocked: bool
    unreadable: bool
    face_index: int | None = None


class TableProfile:
    """Face prototypes of one table: sums of unit embeddings and sighting counts per key."""

    def __init__(self, embedder_id: str, dim: int, settings: dict | None = None):
        self.embedder_id, self.dim = str(embedder_id), int(dim)
        self.settings = {**DEFAULT_SETTINGS, **(settings or {})}
        self._sum: dict[str, np.ndarray] = {}
        self._n: dict[str, int] = {}
        self._label: dict[str, FaceLabel] = {}
        # key -> (the sum it was made from, the unit prototype): made again whenever ``_sum[key]`` is
        # another array (``add`` always puts a new one), so a reading does not normalise per die
        self._unit: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        # key -> the newest crops that taught it (uint8, at most ``KEPT_CROPS``; ``learn`` keeps them)
        self._crops: dict[str, list[np.ndarray]] = {}
        #: the embedding network this profile was learnt with before ``load`` learnt it again (else None)
        self.relearnt_from: str | None = None

    # ------------------------------------------------------------------ contents
    def __len__(self) -> int:
        return len(self._n)

    def __contains__(self, key: str) -> bool:
        return key in self._n

    def sightings(self, key: str) -> int:
        return self._n.get(key, 0)

    def keys(self) -> list[str]:
        return sorted(self._n)

    def label_of(self, key: str) -> FaceLabel:
        return self._label[key]

    def prototype(self, key: str) -> np.ndarray:
        s = self._sum[key]
        kept = self._unit.get(key)
        if kept is None or kept[0] is not s:
            kept = (s, (s / max(np.linalg.norm(s), 1e-12)).astype(np.float32))
            self._unit[key] = kept
        return kept[1]

    def copy(self) -> TableProfile:
        other = TableProfile(self.embedder_id, self.dim, self.settings)
        other._sum = {k: v.copy() for k, v in self._sum.items()}
        other._n, other._label = dict(self._n), dict(self._label)
        other._crops = {k: list(v) for k, v in self._crops.items()}
        return other

    def kept_crops(self, key: str) -> int:
        """How many of ``key``'s crops the profile keeps (to learn them again with a new network)."""
        return len(self._crops.get(key, ()))

    def add(self, embeddings: np.ndarray, labels: list[FaceLabel]) -> None:
        """Add sightings (unit embeddings, one label each); all checked before any is added."""
        emb = np.asarray(embeddings, np.float64)
        if emb.ndim != 2 or emb.shape[1] != self.dim or len(emb) != len(labels):
            raise ProfileError(f"expected {len(labels)} embeddings of {self.dim} values, not {emb.shape}")
        if not np.isfinite(emb).all():
            raise ProfileError("embeddings hold NaN or infinite values")
        for lab in labels:
            if not isinstance(lab, FaceLabel):
                raise ProfileError(f"a sighting's label must be a FaceLabel, not {lab!r}")
        for e, lab in zip(emb, labels, strict=True):
            k = lab.key()
            self._sum[k] = self._sum.get(k, np.zeros(self.dim)) + e
            self._n[k] = self._n.get(k, 0) + 1
            self._label[k] = FaceLabel(
                lab.kind,
                lab.icon,
                lab.count,
                lab.die if k.startswith("die:") else None,
                lab.species if not k.startswith("any:") else None,
            )

    def learn(self, crops: np.ndarray, labels: list[FaceLabel], embedder) -> None:
        """Teach the profile confirmed crops (uint8 (N, 64, 64, 3) cut by ``crop_die``): "as you play".

        The next reading already uses them; call ``save`` to keep them."""
        if len(crops) != len(labels):
            raise ProfileError(f"{len(crops)} crops but {len(labels)} labels")
        if not len(crops):
            return
        crops = np.asarray(crops)
        emb, _ = embedder(crops)
        self.add(emb, labels)
        for crop, lab in zip(crops, labels, strict=True):
            kept = self._crops.setdefault(lab.key(), [])
            kept.append(np.array(crop, np.uint8))
            del kept[:-KEPT_CROPS]

    # ------------------------------------------------------------------ reading
    def _weights(self, emb: np.ndarray, keys: list[str]) -> tuple[np.ndarray, np.ndarray]:
        protos = np.stack([self.prototype(k) for k in keys])
        return self._weights_of(protos @ np.asarray(emb, np.float32))

    def _weights_of(self, dots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(weights, distances) from the dot products of unit vectors (float32)."""
        d2 = np.clip(2.0 - 2.0 * dots, 0.0, 4.0)
        return np.exp(-self.settings["scale"] * d2), np.sqrt(d2)

    def unknown_weight(self) -> float:
        return float(np.exp(-self.settings["scale"] * self.settings["max_distance"] ** 2))

    def face_weights(self, emb: np.ndarray, die) -> tuple[np.ndarray, np.ndarray]:
        """Per face of ``die``: the weight of its prototype (0 where no prototype is known, and on
        a repeat of an earlier identical face) and its distance (inf where unknown)."""
        w, d, _ = self._face_table(emb, die)
        return w, d

    def face_table(self, emb: np.ndarray, die) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``face_weights`` and the sightings of each face's prototype: what ``read_die`` decides
        from (pass it back as its ``table``)."""
        return self._face_table(emb, die)

    def _face_table(self, emb: np.ndarray, die) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``face_weights`` and the sightings of each face's prototype (0 where unknown)."""
        w, d, n = np.zeros(len(die.faces)), np.full(len(die.faces), np.inf), np.zeros(len(die.faces), int)
        seen: set[str] = set()
        faces, keys = [], []
        for k, (text, candidates) in enumerate(_die_lookup(die)):
            key = next((x for x in candidates if x in self._n), None)
            if key is None or text in seen:
                continue
            seen.add(text)
            faces.append(k)
            keys.append(key)
        if keys:
            e = np.asarray(emb, np.float32)
            # one vector dot per face: what a one-row product gives, to the last bit (a product with the
            # stacked prototypes rounds differently, and a reading must not depend on how many faces are known)
            dots = np.array([np.dot(self.prototype(x), e) for x in keys], np.float32)
            w[faces], d[faces] = self._weights_of(dots)
            n[faces] = [self._n[x] for x in keys]
        return w, d, n

    def die_fully_known(self, die) -> bool:
        """Whether every distinct face of ``die`` has a prototype (no unknown face can show)."""
        return all(any(x in self._n for x in keys) for _, keys in _die_lookup(die))

    def gate(self, sightings: int = 2, standard: bool = False) -> dict:
        """The reading settings that apply when the nearest prototype has ``sightings`` sightings
        (``standard``: the candidates are standard dice's values)."""
        s = self.settings
        if standard and s.get("standard_dice"):  # Dragon Dice's gates per sightings level stay out
            s = {**{k: v for k, v in s.items() if k != "by_sightings"}, **s["standard_dice"]}
        if not margin_gate(s):
            return s
        one = s.get("one_sighting")
        if one and sightings <= 1:
            return {**s, **one}
        # ``by_sightings``: {"2": gate, "3": gate, ...}: the gate of the largest level <= sightings
        levels = [int(x) for x in s.get("by_sightings") or {} if int(x) <= sightings]
        return {**s, **s["by_sightings"][str(max(levels))]} if levels else s

    def _decide(
        self,
        w: np.ndarray,
        d: np.ndarray,
        p_cocked: float,
        full: bool = False,
        n=None,
        standard: bool = False,
    ) -> tuple[int | None, float, bool]:
        """(index of the face read or None, confidence, cocked); ``full``: every face of the die is known;
        ``n``: the sightings of each candidate's prototype; ``standard``: candidates of standard dice."""
        s = self.settings
        if p_cocked >= s["cocked_threshold"]:
            return None, float(p_cocked), True
        if not len(w) or not np.isfinite(d).any():
            return None, 0.0, False
        k = int(np.argmin(np.where(np.isfinite(d), d, np.inf)))
        s = self.gate(int(n[k]) if n is not None else 2, standard)
        if s is not self.settings:  # the weights under the settings that apply
            w = np.where(np.isfinite(d), np.exp(-s["scale"] * np.where(np.isfinite(d), d, 0) ** 2), 0.0)
        conf = float(w[k] / (w.sum() + np.exp(-s["scale"] * s["max_distance"] ** 2) + 1e-12))
        if margin_gate(s):
            others = np.delete(d, k)
            margin = float(others.min() - d[k]) if len(others) else float("inf")
            max_d, min_m = (
                (s.get("max_distance_full", s["max_distance"]), s.get("min_margin_full", s["min_margin"]))
                if full
                else (s["max_distance"], s["min_margin"])
            )
            if d[k] >= max_d or margin < min_m:
                return None, conf, False
            return k, conf, False
        if d[k] >= s["max_distance"] or conf < s["min_confidence"]:
            return None, conf, False
        return k, conf, False

    def read_die(self, emb: np.ndarray, die, p_cocked: float = 0.0, table=None) -> Match:
        """The nearest known face of ``die`` (a roster entry), or unreadable / cocked.

        ``table``: this crop's ``face_table`` for ``die`` when the caller has it already (a roster
        reading weighs every face of every unit first), so it is not computed twice."""
        w, d, n = self._face_table(emb, die) if table is None else table
        k, conf, cocked = self._decide(w, d, p_cocked, self.die_fully_known(die), n)
        if k is None:
            return Match(
                None, round(conf, 4), float(np.min(d)) if len(d) else float("inf"), cocked, not cocked
            )
        return Match(face_label(die, k), round(conf, 4), float(d[k]), False, False, k)

    def likely_faces(self, emb: np.ndarray, die, table=None, most: int = LIKELY_FACES) -> list[int]:
        """Indices of ``die``'s known faces nearest the crop, nearest first, each printed face once, at
        most ``most``: what the Roll panel offers first for a die the gate left unreadable, so the tap
        is one touch more often.  Not a reading (issue 20 part 4: a face that matches nothing known well
        is unreadable, never a guess): the die stays unreadable until a player taps.  ``table``: as for
        ``read_die``."""
        _, d, _ = self._face_table(emb, die) if table is None else table
        return [int(k) for k in np.argsort(d, kind="stable") if np.isfinite(d[k])][: max(0, int(most))]

    def likely_faces_among(
        self, emb: np.ndarray, dice: Sequence[Any], most: int = LIKELY_FACES
    ) -> list[list[tuple[Any, int]]]:
        """``likely_faces`` for a crop whose die may be any of ``dice`` (the "Teach the camera your
        dice" page: a die found matches every roster die of its kind): the known faces nearest the
        crop over all of them, nearest first, at most ``most``.  Each known face is one prototype and
        comes as the ``(die, face index)`` pairs that show it, in the order of ``dice``: one pair for
        an ID face, every die of ``dice`` with that face for a species face (their prototype is one:
        the crop cannot tell those dice apart, and a tap on either teaches the same face).  Ties keep
        the order of ``dice``, then of the faces.  Not a reading: the die stays unread until a tap."""
        found: dict[str, tuple[float, list[tuple[Any, int]]]] = {}
        for die in dice:
            table = self._face_table(emb, die)
            lookup = _die_lookup(die)
            for k in self.likely_faces(emb, die, table, most=len(die.faces)):
                key = next(x for x in lookup[k][1] if x in self._n)
                found.setdefault(key, (float(table[1][k]), []))[1].append((die, k))
        ranked = sorted(found.values(), key=lambda v: v[0])  # stable: first seen first on a tie
        return [pairs for _, pairs in ranked][: max(0, int(most))]

    def likely_values(self, emb: np.ndarray, kind: str, most: int = LIKELY_FACES) -> list[int]:
        """``likely_faces`` for a standard die of ``kind`` (``"d20"``): the values of that kind the table
        has taught (``any:<kind>|<value>`` prototypes) nearest the crop, nearest first, each value once,
        only values the kind has (1..sides), at most ``most``; ties keep the lower value first.  What the
        Roll panel offers first for a standard die the camera left unread.  Not a reading: the die stays
        unread until a player taps."""
        if kind not in STANDARD_SIDES:
            raise ProfileError(f"not a standard die kind: {kind!r} (one of {', '.join(STANDARD_KINDS)})")
        values = [v for v in range(1, STANDARD_SIDES[kind] + 1) if f"any:{kind}|{v}" in self._n]
        if not values:
            return []
        e = np.asarray(emb, np.float32)
        # one vector dot per value, as ``_face_table`` does: the order must not depend on how many are known
        dots = np.array([np.dot(self.prototype(f"any:{kind}|{v}"), e) for v in values], np.float32)
        _, d = self._weights_of(dots)
        return [values[int(i)] for i in np.argsort(d, kind="stable")][: max(0, int(most))]

    def read_any(self, emb: np.ndarray, kind: str | None = None, p_cocked: float = 0.0) -> Match:
        """The nearest known face among every face this profile knows (of ``kind`` when given)."""
        keys = [k for k in self._n if kind is None or self._label[k].kind == kind]
        if not keys:
            return self.read_keys(emb, [], p_cocked)
        return self.read_keys(emb, keys, p_cocked)

    def read_keys(self, emb: np.ndarray, keys: list[str], p_cocked: float = 0.0) -> Match:
        if keys:
            w, d = self._weights(emb, keys)
            # one face known under several keys (a species' and a die's) counts once: its best weight
            best: dict[tuple, int] = {}
            for i, k in enumerate(keys):
                t = (self._label[k].kind, self._label[k].text)
                if t not in best or w[i] > w[best[t]]:
                    best[t] = i
            idx = np.array(sorted(best.values()), int)
            keys, w, d = [keys[i] for i in idx], w[idx], d[idx]
        else:
            w, d = np.zeros(0), np.zeros(0)
        k, conf, cocked = self._decide(
            w,
            d,
            p_cocked,
            False,
            np.array([self._n[x] for x in keys], int),
            bool(keys) and all(x.startswith("any:") for x in keys),
        )
        if k is None:
            return Match(
                None, round(conf, 4), float(np.min(d)) if len(d) else float("inf"), cocked, not cocked
            )
        return Match(self._label[keys[k]], round(conf, 4), float(d[k]), False, False)

    def known_faces(self, dice) -> tuple[int, int]:
        """(faces of these dice with a prototype, distinct faces): "how many of the army's faces are known"."""
        known, total = set(), set()
        for die in dice:
            for k in range(len(die.faces)):
                t = (die.name, die.faces[k].text())
                total.add(t)
                if any(x in self._n for x in lookup_keys(die, k)):
                    known.add(t)
        return len(known), len(total)

    # ------------------------------------------------------------------ files
    def save(self, path: str | os.PathLike) -> Path:
        """Write atomically: a temporary file beside ``path``, then a rename over it."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        keys = self.keys()
        labels = [self._label[k].__dict__ for k in keys]
        meta = {
            "embedder_id": self.embedder_id,
            "dim": self.dim,
            "settings": self.settings,
            "labels": labels,
            "version": 1,
        }
        sums = np.stack([self._sum[k] for k in keys]).astype(np.float64) if keys else np.zeros((0, self.dim))
        kept = {}
        if any(self._crops.values()):
            crop_keys = [k for k in keys for _ in self._crops.get(k, ())]
            kept = {
                "crops": np.stack([c for k in keys for c in self._crops.get(k, ())]),
                "crop_keys": np.array(crop_keys, dtype=str),
            }
        fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                np.savez(
                    f,
                    keys=np.array(keys, dtype=str),
                    sums=sums,
                    counts=np.array([self._n[k] for k in keys], np.int64),
                    meta=np.array(json.dumps(meta)),
                    **kept,
                )
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        return path

    @classmethod
    def load(cls, path: str | os.PathLike, embedder_id: str | None = None, embedder=None) -> TableProfile:
        """The profile saved at ``path``.  ``embedder_id``: the network it must have been learnt with.  A
        profile learnt with another network is refused (``ProfileError``: enrol the dice again), unless
        ``embedder`` (that network, a ``FaceEmbedder``) is given and the profile kept crops of every face
        it knows: then it is learnt again from them (``relearnt_from`` names the old network; the caller
        saves it), its prototypes the means of the kept crops (at most ``KEPT_CROPS`` a face)."""
        path = Path(path)
        try:
            with np.load(path, allow_pickle=False) as z:
                meta = json.loads(str(z["meta"]))
                keys, sums, counts = [str(k) for k in z["keys"]], z["sums"], z["counts"]
                crops = z["crops"] if "crops" in z.files else np.zeros((0, 1, 1, 3), np.uint8)
                crop_keys = [str(k) for k in z["crop_keys"]] if "crop_keys" in z.files else []
        except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
            raise ProfileError(f"{path}: not a table profile ({exc})") from exc
        if len(crop_keys) != len(crops) or not set(crop_keys) <= set(keys):
            raise ProfileError(f"{path}: not a table profile (its kept crops do not match its faces)")
        labels = {k: FaceLabel(**lab) for k, lab in zip(keys, meta["labels"], strict=True)}
        if embedder_id is not None and meta["embedder_id"] != embedder_id:
            if embedder is None:
                raise ProfileError(
                    f"{path} was learnt with embedding network {meta['embedder_id']}, "
                    f"not {embedder_id}: enrol the dice again"
                )
            return cls._relearn(path, meta, keys, labels, crops, crop_keys, embedder_id, embedder)
        prof = cls(meta["embedder_id"], meta["dim"], meta.get("settings"))
        for k, s, n in zip(keys, sums, counts, strict=True):
            prof._sum[k], prof._n[k], prof._label[k] = np.asarray(s, np.float64), int(n), labels[k]
        for k, c in zip(crop_keys, crops, strict=True):
            prof._crops.setdefault(k, []).append(c)
        return prof

    @classmethod
    def _relearn(cls, path, meta, keys, labels, crops, crop_keys, embedder_id, embedder) -> TableProfile:
        """``load``'s profile learnt again with a new network from the crops it kept."""
        bare = [k for k in keys if k not in set(crop_keys)]
        if bare:
            raise ProfileError(
                f"{path} was learnt with embedding network {meta['embedder_id']}, not {embedder_id}, and "
                f"kept no crops of {len(bare)} of its {len(keys)} faces (e.g. {bare[0]}): enrol the dice again"
            )
        prof = cls(embedder_id, embedder.dim, meta.get("settings"))
        try:
            prof.learn(crops, [labels[k] for k in crop_keys], embedder)
        except ValueError as exc:  # EmbeddingError: the kept crops do not fit the new network's input
            raise ProfileError(
                f"{path}: its kept crops cannot be read by embedding network {embedder_id} ({exc}): "
                "enrol the dice again"
            ) from exc
        prof.relearnt_from = str(meta["embedder_id"])
        return prof

    @classmethod
    def load_or_new(
        cls, path: str | os.PathLike, embedder_id: str, dim: int, settings: dict | None = None
    ) -> TableProfile:
        path = Path(path)
        if path.is_file():
            prof = cls.load(path, embedder_id)
            prof.settings.update(settings or {})
            return prof
        return cls(embedder_id, dim, settings)


def profile_beside(database: str | os.PathLike) -> Path:
    """The profile file that goes with a game database: ``game.sqlite`` -> ``game.sqlite.profile.npz``."""
    return Path(str(database) + ".profile.npz")


def embedder_id(onnx_path: str | os.PathLike) -> str:
    """A short identity of an embedding network file (its SHA-1): a profile is only valid with it."""
    import hashlib  # noqa: PLC0415

    return hashlib.sha1(Path(onnx_path).read_bytes()).hexdigest()[:16]
