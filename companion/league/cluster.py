"""A PostgreSQL cluster in a folder of its own (Debian's ``postgresql`` binaries): for tests, the bench,
and ``companion league db`` (the one command that starts a league's database).

    with LocalCluster.start("/tmp/league-db", port=0) as pg:   # port 0: a free port
        pg.dsn("league")          # postgresql://league@127.0.0.1:PORT/league (created if missing)
        pg.stop(); pg.start_again()

PostgreSQL refuses to run as root; as root the cluster is created and run as the ``postgres`` user
(``runuser``), so its folder is handed to that user.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path

PG_BIN_CANDIDATES = ("/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin")
SUPERUSER = "league"


class ClusterError(RuntimeError):
    """The PostgreSQL binaries are missing or the server did not start or stop."""


def find_bin() -> Path | None:
    """The folder holding initdb/pg_ctl (PG_BIN overrides), or None when PostgreSQL is not installed."""
    env = os.environ.get("PG_BIN")
    for cand in ([env] if env else []) + list(PG_BIN_CANDIDATES):
        if cand and (Path(cand) / "initdb").exists() and (Path(cand) / "pg_ctl").exists():
            return Path(cand)
    found = shutil.which("initdb")
    return Path(found).parent if found and shutil.which("pg_ctl") else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class LocalCluster:
    def __init__(self, folder: str | Path, port: int, bin_dir: Path, fsync: bool = True) -> None:
        self.folder = Path(folder)
        self.data = self.folder / "data"
        self.port = port
        self.bin = bin_dir
        self.fsync = fsync
        self._as_root = os.geteuid() == 0

    # -- running commands as the right user ----------------------------------------------------------
    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        cmd = list(args)
        if self._as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        if check and proc.returncode != 0:
            raise ClusterError(
                f"{' '.join(args[:2])} failed ({proc.returncode}): {proc.stderr.strip()[-800:]}"
            )
        return proc

    @classmethod
    def start(cls, folder: str | Path, port: int = 0, fsync: bool = True) -> LocalCluster:
        """Create the cluster in ``folder`` (unless it exists) and start it on 127.0.0.1:port."""
        bin_dir = find_bin()
        if bin_dir is None:
            raise ClusterError(
                "PostgreSQL is not installed (no initdb/pg_ctl; Debian: apt-get install postgresql)"
            )
        folder = Path(folder)
        if folder.exists() and not folder.is_dir():
            raise ClusterError(f"{folder} is a file, not a folder for the database files")
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ClusterError(f"cannot make the folder {folder}: {exc.strerror or exc}") from None
        pg = cls(folder, port or free_port(), bin_dir, fsync=fsync)
        if pg._as_root:
            uid, gid = pwd.getpwnam("postgres").pw_uid, pwd.getpwnam("postgres").pw_gid
            os.chown(folder, uid, gid)
            os.chmod(folder, 0o755)
            if pg._run("test", "-w", str(folder), check=False).returncode != 0:
                raise ClusterError(
                    f"the postgres user cannot reach {folder}: its parent folders must be "
                    "readable by others (chmod o+x)"
                )
        if not (pg.data / "PG_VERSION").exists():
            pg._run(
                str(bin_dir / "initdb"),
                "-D",
                str(pg.data),
                "-A",
                "trust",
                "-U",
                SUPERUSER,
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                *(() if fsync else ("--no-sync",)),
            )
        pg.start_again()
        return pg

    def start_again(self) -> None:
        opts = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c max_connections=300"
        if not self.fsync:
            opts += " -c fsync=off"  # a crash of the server (not of the machine) loses nothing
        self._run(
            str(self.bin / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            opts,
            "-l",
            str(self.folder / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "-t", "60", "stop", check=False
        )

    def kill(self) -> None:
        """Stop the server abruptly (immediate mode: no checkpoint, as on a crash)."""
        self.stop("immediate")

    def running(self) -> bool:
        return (
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "status", check=False).returncode == 0
        )

    def dsn(self, dbname: str = "league") -> str:
        """A DSN for database ``dbname`` (created on first use)."""
        import psycopg

        base = f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                with psycopg.connect(f"{base}/postgres", autocommit=True, connect_timeout=3) as conn:
                    if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchone():
                        conn.execute(f'CREATE DATABASE "{dbname}"')
                break
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        return f"{base}/{dbname}"

    def pg_dump(self, dbname: str, out: str | Path) -> Path:
        """A plain-SQL backup of ``dbname`` (what the README's backup command does)."""
        out = Path(out)
        proc = subprocess.run(
            [
                str(self.bin / "pg_dump"),
                "-h",
                "127.0.0.1",
                "-p",
                str(self.port),
                "-U",
                SUPERUSER,
                "-f",
                str(out),
                dbname,
            ],
            capture_output=True,
            text=True,
            timeout=300,
        )
        if proc.returncode != 0:
            raise ClusterError(f"pg_dump failed: {proc.stderr.strip()[-800:]}")
        return out

    def __enter__(self) -> LocalCluster:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
