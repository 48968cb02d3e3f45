"""A staged roll's readings: the ``DieReading`` values behind the Roll panel's faces.

The page's staged roll (``store.reading``, see ``web.play``) shows ``faces`` by die; beside them it
keeps ``readings``, each die's ``companion.readings.DieReading`` as JSON, as its source gave it (the
camera's confidence and box, the smart die's id).  On confirm, ``confirmed_readings`` gives the session
one reading per die: the source's own where the face is still the one it read, a typed one where a
player tapped a face (or a demo script typed it), keeping the camera's box of that die.
"""

from __future__ import annotations

from companion.readings import DieReading, ReadingError, Source, parse_reading, parse_source


def keyed_readings(readings, faces: dict) -> dict:
    """``{die: reading JSON}`` of ``readings`` (DieReading values); a read die's face is written as the
    roll's own face text (``faces``: the checked faces of the staged roll)."""
    out = {}
    for r in readings or ():
        d = r.to_dict()
        if r.is_read and r.die in faces:
            d["face"] = faces[r.die]
        out[r.die] = d
    return out


def source_of(word: str | None) -> Source:
    """The source of faces given without readings: the staged roll's ``source`` word ("demo": typed)."""
    try:
        return parse_source(word)
    except ReadingError:
        return Source.TYPED


def confirmed_readings(reading: dict, pending: dict) -> list[DieReading]:
    """One reading per die of the pending roll that has a face in the staged ``reading``, in the roll's order."""
    kept = reading.get("readings") or {}
    retyped = set(reading.get("corrected") or []) | set(reading.get("typed_by_script") or [])
    out = []
    for d in pending["dice"]:
        uid, face = d["uid"], reading["faces"].get(d["uid"])
        if face is None:
            continue
        index = d["faces"].index(face) if face in d["faces"] else None
        own = parse_reading(kept[uid]) if uid in kept else None
        if own is not None and own.is_read and own.face == face and uid not in retyped:
            out.append(own)
        elif own is not None:  # a player's tap (or the demo script) set this die's face
            out.append(own.corrected(face, index))
        else:  # a face given with no reading behind it: tapped (typed), or posted as from its source
            source = Source.TYPED if uid in retyped else source_of(reading.get("source"))
            out.append(DieReading(uid, face, 1.0, source, name=d["die"], face_index=index))
    return out
