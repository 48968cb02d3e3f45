"""A real PostgreSQL server for the league tests: one cluster per test session, in a temporary folder,
started with Debian's binaries (as the ``postgres`` user when the tests run as root) and stopped at the
end; each test gets a database of its own.  Skipped, with that reason, only where PostgreSQL or psycopg
is not installed (in CI, ``COMPANION_FULL_SUITE=1``, that fails instead)."""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile

import pytest

_NO_PG = "needs PostgreSQL (Debian package postgresql: initdb, pg_ctl) and psycopg 3 (the league extra)"
_db_numbers = itertools.count(1)


def _pg_available() -> bool:
    from companion.league.cluster import find_bin

    try:
        import psycopg  # noqa: F401
    except ImportError:
        return False
    return find_bin() is not None


@pytest.fixture(scope="session")
def pg_cluster():
    if not _pg_available():
        if os.environ.get("COMPANION_FULL_SUITE", "") not in ("", "0"):
            pytest.fail(_NO_PG)
        pytest.skip(_NO_PG)
    from companion.league.cluster import LocalCluster

    folder = tempfile.mkdtemp(prefix="league-pg-")
    pg = LocalCluster.start(folder, fsync=False)
    try:
        yield pg
    finally:
        pg.stop("immediate")
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def pg_dsn(pg_cluster):
    """A fresh, empty database on the session's cluster."""
    if not pg_cluster.running():
        pg_cluster.start_again()
    return pg_cluster.dsn(f"t{next(_db_numbers)}")
