"""HTTP helpers the web tests share: JSON requests to a real server (``companion serve`` or an in-process
waitress ``Server``), as a second client at the table would send them.  Imported by module name
(``tests/web`` is on pytest's ``pythonpath``)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request


def _request(base: str, method: str, path: str, body=None, token: str | None = None) -> urllib.request.Request:
    req = urllib.request.Request(base + path, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    if body is not None:
        req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("X-Companion-Token", token)
    return req


def request_json(base: str, method: str, path: str, body=None, token: str | None = None,
                 timeout: float = 30) -> dict:
    """The JSON answer of METHOD base+path; an HTTP error status raises ``urllib.error.HTTPError``."""
    with urllib.request.urlopen(_request(base, method, path, body, token), timeout=timeout) as r:
        return json.loads(r.read())


def call_json(base: str, method: str, path: str, body=None, token: str | None = None,
              timeout: float = 30) -> tuple[int, dict]:
    """(status, JSON answer) of METHOD base+path, error statuses included."""
    try:
        with urllib.request.urlopen(_request(base, method, path, body, token), timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def api(server, method: str, path: str, body=None, token: str | None = None, timeout: float = 30) -> dict:
    """``request_json`` against a ``ServerProcess`` (the conftest ``serve`` fixture)."""
    return request_json(server.url, method, path, body, token, timeout)


def first_answer(pending: dict, seed: int) -> dict:
    """An answer to the pending decision that moves a game on through the API: a seeded roll, the first
    choice that is not a pass/skip/no, the first allocation, no spells, no reinforcements, no retreat."""
    kind = pending["kind"]
    if kind == "roll":
        return {"type": "roll_for_me", "seed": seed}
    if kind == "choice":
        values = [c["value"] for c in pending["choices"]]
        return {"type": "choose", "choice": next((v for v in values if v not in ("pass", "skip", "no")), values[0])}
    if kind == "allocate":
        return {"type": "allocate", "units": pending["choices"][0]["value"]}
    if kind == "cast":
        return {"type": "cast", "spells": []}
    if kind == "reinforce":
        return {"type": "reinforce", "moves": {}}
    return {"type": "retreat", "units": []}

