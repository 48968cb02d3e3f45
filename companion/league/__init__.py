"""Clubs and tournaments: many tables, one PostgreSQL database, live standings and a judge's view.

* :mod:`.cluster`: start a PostgreSQL cluster in a folder (tests, bench, ``companion league db``);
* the event log itself lives in :mod:`companion.session.pg_store` (``companion serve --db postgresql://``);
* :mod:`.push`: what the league accepts from a table (tokens, order, idempotence), in one place;
* :mod:`.outbox`: a table's outbox, pushing its local SQLite log to the league when reachable;
* :mod:`.pairing`, :mod:`.standings`: rounds, pairings and standings for the organizer.
"""
