"""Clubs and tournaments: many tables, one PostgreSQL database, live standings and a judge's view.

* :mod:`.cluster`: start a PostgreSQL cluster in a folder (tests, bench, ``companion league db``);
* the event log itself lives in :mod:`companion.session.pg_store` (``companion serve --db postgresql://``);
* :mod:`.push`: what the league accepts from a table (tokens, order, idempotence), in one place;
* :mod:`.outbox`: a table's outbox, pushing its local SQLite log to the league when reachable;
* :mod:`.live`: each table's live state and results, written by every accepted push;
* :mod:`.pairing`, :mod:`.standings`, :mod:`.organizer`: rounds, pairings, standings, export;
* :mod:`.simulate`: a table process playing random games (fault tests, ``bench/league.py``).

The organizer's and judges' pages and the push API are ``web/league/app.py`` (``companion league serve``).
"""
