"""Pairings for a round: round robin (the circle method) or Swiss (a maximum-weight matching).

Pure functions over player ids and past results; no database.

* ``round_robin(players, round_no)``: the classic circle (Berger) schedule: player 0 stays, the others
  rotate one place per round; with an odd count a ``None`` seat gives one player a bye each round.
  Over ``n - 1`` rounds (``n`` even) everybody meets everybody once.
* ``swiss(players, points, played, byes)``: players with equal or close points meet, nobody meets the
  same opponent twice while another pairing exists, and with an odd count the lowest-ranked player who
  has not had a bye gets it.  The pairing is a maximum-weight perfect matching (networkx
  ``max_weight_matching``, Edmonds' blossom algorithm) on the graph of allowed games, each weighted
  ``BIG - (points difference)^2`` so that score groups are kept together; a rematch is an edge of much
  lower weight, used only when no other perfect matching exists.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

Pair = tuple[Hashable, Hashable | None]


def round_robin(players: Sequence[Hashable], round_no: int) -> list[Pair]:
    """The pairs of round ``round_no`` (1-based) of a round robin; ``(p, None)`` is a bye."""
    if round_no < 1:
        raise ValueError("rounds are numbered from 1")
    seats: list[Hashable | None] = list(players)
    if len(seats) < 2:
        raise ValueError("a round needs at least two players")
    if len(seats) % 2:
        seats.append(None)
    n = len(seats)
    k = (round_no - 1) % (n - 1)
    rest = seats[1:]
    rest = rest[-k:] + rest[:-k] if k else rest
    order = [seats[0]] + rest
    pairs = []
    for i in range(n // 2):
        a, b = order[i], order[n - 1 - i]
        if a is None:
            a, b = b, None
        if i == 0 and round_no % 2 == 0 and b is not None:
            a, b = b, a  # the fixed player alternates sides
        pairs.append((a, b))
    return pairs


def swiss(
    players: Sequence[Hashable],
    points: Mapping[Hashable, Any],
    played: set[frozenset[Hashable]],
    byes: set[Hashable],
) -> list[Pair]:
    """Swiss pairs for the next round (see the module text).  ``players`` in ranking order."""
    import networkx as nx

    players = list(players)
    if len(players) < 2:
        raise ValueError("a round needs at least two players")
    bye: Hashable | None = None
    if len(players) % 2:
        candidates = [p for p in reversed(players) if p not in byes] or list(reversed(players))
        bye = candidates[0]
        players.remove(bye)
    big = 10**6
    g: nx.Graph[Hashable] = nx.Graph()
    g.add_nodes_from(players)
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            diff = float(points.get(a, 0)) - float(points.get(b, 0))
            weight = big - diff * diff * 100 - abs(players.index(b) - i)  # keep neighbours in rank together
            if frozenset((a, b)) in played:
                weight -= big // 2  # a rematch only when nothing else pairs everybody
            g.add_edge(a, b, weight=weight)
    matching = nx.max_weight_matching(g, maxcardinality=True)
    pairs: list[Pair] = []
    for a, b in matching:
        first, second = (a, b) if players.index(a) < players.index(b) else (b, a)
        pairs.append((first, second))
    pairs.sort(key=lambda p: players.index(p[0]))
    if bye is not None:
        pairs.append((bye, None))
    return pairs
