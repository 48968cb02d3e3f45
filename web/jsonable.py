"""Turn the game's value types (dataclasses, enums, tuples, numpy scalars) into JSON-ready data."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def jsonable(obj: Any, _depth: int = 0) -> Any:
    if _depth > 40:
        return repr(obj)
    if obj is None or isinstance(obj, (bool, int, float, str)):
        return obj
    if isinstance(obj, enum.Enum):
        return jsonable(obj.value, _depth + 1) if isinstance(obj.value, (str, int)) else obj.name
    if hasattr(obj, "to_dict") and callable(obj.to_dict):
        return jsonable(obj.to_dict(), _depth + 1)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: jsonable(getattr(obj, f.name), _depth + 1) for f in dataclasses.fields(obj)}
    if isinstance(obj, Mapping):
        return {
            str(k if not isinstance(k, enum.Enum) else jsonable(k)): jsonable(v, _depth + 1)
            for k, v in obj.items()
        }
    if isinstance(obj, (list, tuple, set, frozenset)):
        items = [jsonable(v, _depth + 1) for v in obj]
        return sorted(items, key=repr) if isinstance(obj, (set, frozenset)) else items
    if isinstance(obj, Path):
        return str(obj)
    item = getattr(obj, "item", None)  # numpy scalars
    if callable(item):
        try:
            return item()
        except (TypeError, ValueError):
            pass
    tolist = getattr(obj, "tolist", None)
    if callable(tolist):
        return tolist()
    return str(obj)
