"""Request body validation: small declarative field specs, clear 4xx errors naming the field.

Handlers call ``json_body(spec)`` before touching any state, so a malformed body never changes the
game.  A spec maps field names to ``Field``; unknown fields are rejected too (a typo in a field name
should not be silently ignored).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import request

from .errors import APIError


@dataclass(frozen=True)
class Field:
    kind: type | tuple[type, ...]
    required: bool = True
    choices: tuple | None = None
    min: float | None = None
    max: float | None = None
    max_len: int | None = None
    items: Any = None  # a Field for list items, or a dict spec for list-of-objects
    default: Any = None


_KIND_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "an object",
}


def _kind_name(kind) -> str:
    if isinstance(kind, tuple):
        return " or ".join(_KIND_NAMES.get(k, k.__name__) for k in kind)
    return _KIND_NAMES.get(kind, kind.__name__)


def _check(value: Any, field: Field, name: str) -> Any:
    kinds = field.kind if isinstance(field.kind, tuple) else (field.kind,)
    ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
    if not ok and float in kinds and isinstance(value, int) and not isinstance(value, bool):
        ok = True
    if not ok:
        raise APIError(f"field '{name}' must be {_kind_name(field.kind)}", field=name)
    if field.choices is not None and value not in field.choices:
        raise APIError(f"field '{name}' must be one of {', '.join(map(str, field.choices))}", field=name)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if field.min is not None and value < field.min:
            raise APIError(f"field '{name}' must be at least {field.min}", field=name)
        if field.max is not None and value > field.max:
            raise APIError(f"field '{name}' must be at most {field.max}", field=name)
    if field.max_len is not None and isinstance(value, (str, list, dict)) and len(value) > field.max_len:
        raise APIError(f"field '{name}' is too long (at most {field.max_len})", field=name)
    if isinstance(value, str) and field.min is not None and len(value.strip()) < field.min:
        raise APIError(f"field '{name}' must not be empty", field=name)
    if field.items is not None and isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(field.items, dict):
                if not isinstance(item, dict):
                    raise APIError(f"field '{name}[{i}]' must be an object", field=f"{name}[{i}]")
                validate(item, field.items, prefix=f"{name}[{i}].")
            else:
                _check(item, field.items, f"{name}[{i}]")
    return value


def validate(data: Any, spec: dict[str, Field], prefix: str = "") -> dict:
    if not isinstance(data, dict):
        raise APIError("request body must be a JSON object")
    unknown = sorted(set(data) - set(spec))
    if unknown:
        raise APIError(
            f"unknown field '{prefix}{unknown[0]}' (expected: {', '.join(spec) or 'none'})",
            field=prefix + unknown[0],
        )
    out = {}
    for name, field in spec.items():
        if name not in data or data[name] is None:
            if field.required:
                raise APIError(f"field '{prefix}{name}' is required", field=prefix + name)
            out[name] = field.default
            continue
        out[name] = _check(data[name], field, prefix + name)
    return out


MAX_DEPTH = 32  # no action or set-up nests deeper than a few levels


def _depth(value: Any) -> int:
    """How deeply lists and objects nest in value (walked without recursion)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list):
            deepest = max(deepest, d)
            if d <= MAX_DEPTH:
                todo.extend((x, d + 1) for x in v)
    return deepest


def json_body(spec: dict[str, Field]) -> dict:
    """The request's JSON body checked against spec; an empty body counts as ``{}``."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        data: Any = {}
    else:
        if not request.mimetype or request.mimetype != "application/json":
            raise APIError(
                "request body must be JSON (Content-Type: application/json)",
                status=415,
                code="unsupported_media_type",
            )
        try:
            data = request.get_json(silent=True)
        except RecursionError:  # e.g. 120,000 nested '[': Python's parser gives up before the end
            raise APIError(f"request body is nested too deeply (at most {MAX_DEPTH} levels)") from None
        if data is None:
            raise APIError("request body is not valid JSON")
        if _depth(data) > MAX_DEPTH:
            raise APIError(f"request body is nested too deeply (at most {MAX_DEPTH} levels)")
    return validate(data, spec)
