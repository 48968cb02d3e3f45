"""The table's pages say who made the last roll and the last change: ``/api/state``'s ``last_roll``
carries its event's ``seq``, ``by`` and ``who`` (in words), and ``last_change`` the last action in
force; an undo brings back the previous roll's author.  Over a real waitress server."""

from __future__ import annotations

import pytest
from web_helpers import call_json

from web.play import who_made

HOST = "h" * 32


def _call(base: str, method: str, path: str, token: str | None = None, body=None) -> tuple[int, dict]:
    return call_json(base, method, path, body, token)


@pytest.fixture
def base(waitress_table):
    return waitress_table(HOST)[1].base_url


def test_the_state_says_who_made_the_last_roll_and_an_undo_brings_back_the_one_before(base):
    assert _call(base, "POST", "/api/games", HOST, {"players": ["Ann", "Bob"], "quick": True})[0] == 201
    st = _call(base, "GET", "/api/state")[1]
    assert st["last_roll"] is None and st["last_change"] is None
    # the host types the faces of the first roll
    pending = st["pending"]
    assert pending["kind"] == "roll"
    status, body = _call(
        base, "POST", "/api/rolls", HOST, {"faces": {d["uid"]: d["faces"][0] for d in pending["dice"]}}
    )
    assert status == 200, body
    st = _call(base, "GET", "/api/state")[1]
    host_roll = st["last_roll"]
    assert host_roll["by"] == {"role": "host", "source": "typed"} and host_roll["who"] == "the host (typed)"
    assert st["last_change"] == {
        "seq": host_roll["seq"],
        "type": "roll",
        "by": host_roll["by"],
        "who": "the host (typed)",
    }
    # a paired tablet rolls next: the page now names the tablet
    code = _call(base, "GET", "/api/pairing", HOST)[1]["code"]
    tablet = _call(base, "POST", "/api/pair", body={"code": code, "name": "kitchen tablet"})[1]["token"]
    status, body = _call(
        base, "POST", "/api/decisions", tablet, {"action": {"type": "roll_for_me", "seed": 3}}
    )
    assert status == 200, body
    st = _call(base, "GET", "/api/state")[1]
    assert st["last_roll"]["seq"] == body["seq"] > host_roll["seq"]
    assert st["last_roll"]["by"] == {"role": "tablet", "name": "kitchen tablet"}
    assert st["last_roll"]["who"] == "kitchen tablet" == st["last_change"]["who"]
    # the tablet takes its roll back: the last roll is the host's again, and says so
    assert _call(base, "POST", "/api/undo", tablet, {})[0] == 200
    st = _call(base, "GET", "/api/state")[1]
    assert (st["last_roll"]["seq"], st["last_roll"]["who"]) == (host_roll["seq"], "the host (typed)")
    assert st["last_change"]["seq"] == host_roll["seq"]


def test_who_made_in_words():
    assert who_made(None) is None  # a log written before events recorded who made them
    assert who_made({"role": "tablet"}) == "a tablet"
    assert who_made({"role": "demo", "source": "camera"}) == "the demo (camera)"
    assert who_made({"role": "cli"}) == "the command line"
