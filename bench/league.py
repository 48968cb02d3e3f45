"""League figures: events per second sustained into PostgreSQL from N tables, resync time of 1,000
queued events, the organizer's page p95 with 50 live tables, and a screenshot of that page.

    python bench/league.py [--tables 1,10,50] [--steps 300] [--pace 1.0] [--live-seconds 40]
                           [--page-requests 200] [--json] [--screenshot artifacts/screenshots/league-organizer.png]

Everything runs on this machine: a PostgreSQL cluster of its own in a temporary folder (fsync on, as a
league would run it), ``companion league serve`` as its own process, and each table as its own process
(``python -m companion.league.simulate``: random legal games on its local SQLite log, pushed over HTTP
through the same outbox as ``companion serve --league``).

* CPU per event: the CPU seconds the league side (league server process and every PostgreSQL process)
  used during a run, per event stored; its inverse is events/s per core, a figure the other jobs on a
  shared machine do not distort (the wall-clock rates are what this machine gave at that moment; the
  load average at start is printed with them).
* sustained rate, N tables: each table first plays ``--steps`` events offline (not timed), then all N
  push at once with one event per request (as in live play, where each action is pushed on its own);
  the rate is the slope of the events stored in PostgreSQL between 10 % and 90 % of the total (process
  start and stragglers left out).  Once more with batches of 200 (a venue catching up after an outage).
  The tables' pushers, the league server and PostgreSQL share this machine's cores; the tables run at
  the lowest priority (``nice 19``), as if they were on machines of their own.
* resync: one table plays 1,000 actions offline, then one outbox pushes them (batches of 200); the figure
  is the wall time from the first request to the last acknowledgement.
* organizer page: ``GET /league/`` repeated while the 50 tables play live, one action every ``--pace``
  seconds each (a brisk human table makes one every few seconds), and again once they are idle.

Prints one line per figure; ``--json`` prints them as one JSON object as well.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.league.cluster import LocalCluster, free_port  # noqa: E402
from companion.league.push import issue_token  # noqa: E402
from companion.session.pg_store import connect  # noqa: E402

ORG = "bench-organizer-" + "x" * 16


TICK = os.sysconf("SC_CLK_TCK")


def _cpu(pid: int, children: bool = False) -> float:
    """CPU seconds a process used (with its reaped children's when asked), from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if children else 0)
    return ticks / TICK


def league_cpu(server_pid: int, pg: LocalCluster) -> float:
    """CPU seconds used so far by the league side: the league server and every PostgreSQL process."""
    postmaster = int((pg.data / "postmaster.pid").read_text().split()[0])
    total = _cpu(server_pid) + _cpu(postmaster, children=True)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == postmaster:
                total += _cpu(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    return total


_COUNTER: dict = {}


def stored(dsn: str) -> int:
    """Events in the database (one connection kept for the polling, so polling costs PostgreSQL little)."""
    conn = _COUNTER.get(dsn)
    if conn is None or conn.closed:
        conn = _COUNTER[dsn] = connect(dsn, migrate_schema=False)
    return conn.execute("SELECT count(*) FROM events").fetchone()[0]


def start_league(dsn: str, port: int) -> subprocess.Popen:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion",
            "league",
            "serve",
            "--dsn",
            dsn,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--organizer-token",
            ORG,
            "--threads",
            "32",
            "--pool",
            "16",
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/league/?token={ORG}", timeout=2).read()
            return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the league server did not start:\n" + (proc.stdout.read() if proc.stdout else ""))


SPAWNED: list[subprocess.Popen] = []


def _simulate(db: Path, url: str, token: str, *extra) -> subprocess.Popen:
    """A table process, at the lowest CPU priority: at a real event each table has its own machine, so
    here the league server and PostgreSQL go first on the shared cores."""
    db.parent.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "companion.league.simulate",
            "--db",
            str(db),
            "--league",
            url,
            "--token",
            token,
            *map(str, extra),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: os.nice(19),
    )
    SPAWNED.append(proc)
    return proc


def _wait_all(procs: list[subprocess.Popen], what: str, on_tick=None) -> None:
    while any(p.poll() is None for p in procs):
        if on_tick:
            on_tick()
        time.sleep(0.1)
    failed = [
        (p.returncode, p.stdout.read()[-300:], p.stderr.read()[-500:]) for p in procs if p.returncode != 0
    ]
    if failed:
        raise SystemExit(
            f"{len(failed)} {what} failed; the first: exit status {failed[0][0]}, "
            f"output {failed[0][1]!r}, errors {failed[0][2]!r}"
        )


def run_tables(dsn: str, url: str, tokens: list[str], folder: Path, steps: int, batch: int, cpu=None) -> dict:
    """N tables, each with ``steps`` events played offline (not timed), push them at once, ``batch`` events
    per request (1: every event on its own, as in live play); the stored-events curve gives the rate."""
    dbs = [folder / f"table{i + 1}" / "table.sqlite" for i in range(len(tokens))]
    gen = []
    for i, (db, token) in enumerate(zip(dbs, tokens, strict=True)):
        gen.append(
            _simulate(
                db,
                url,
                token,
                "--steps",
                steps,
                "--games",
                5,
                "--seed",
                i + 1,
                "--undo-every",
                23,
                "--no-push",
            )
        )
        if len(gen) >= (os.cpu_count() or 2):
            _wait_all(gen, "table(s) playing")
            gen = []
    _wait_all(gen, "table(s) playing")
    before = stored(dsn)
    cpu0 = cpu() if cpu else 0.0
    t0 = time.monotonic()
    curve: list[tuple[float, int]] = []
    pushers = [
        _simulate(db, url, token, "--steps", 0, "--batch", batch, "--drain", "--drain-seconds", 600)
        for db, token in zip(dbs, tokens, strict=True)
    ]
    _wait_all(pushers, "pusher(s)", lambda: curve.append((time.monotonic() - t0, stored(dsn) - before)))
    curve.append((time.monotonic() - t0, stored(dsn) - before))
    total = curve[-1][1]
    lo = next(t for t, n in curve if n >= 0.1 * total)
    hi = next(t for t, n in curve if n >= 0.9 * total)
    rate = (0.8 * total) / (hi - lo) if hi > lo else float("nan")
    out = {
        "tables": len(tokens),
        "batch": batch,
        "events": total,
        "wall_s": round(curve[-1][0], 2),
        "sustained_events_per_s": round(rate, 1),
    }
    if cpu:
        out["league_cpu_ms_per_event"] = round((cpu() - cpu0) * 1000 / total, 2)
        out["events_per_s_per_core"] = round(1000 / out["league_cpu_ms_per_event"], 1)
    return out


def live_page(
    dsn: str, url: str, tokens: list[str], folder: Path, pace: float, seconds: float, requests: int
) -> dict:
    """The organizer's page while every table plays live, one action every ``pace`` seconds."""
    steps = int(seconds / pace)
    procs = [
        _simulate(
            folder / f"table{i + 1}" / "table.sqlite",
            url,
            token,
            "--steps",
            steps,
            "--pace",
            pace,
            "--games",
            5,
            "--seed",
            500 + i,
            "--drain",
        )
        for i, token in enumerate(tokens)
    ]
    time.sleep(min(5.0, seconds / 4))  # every table is up and pushing
    before = stored(dsn)
    t0 = time.monotonic()
    times = page_times(url, requests, alive=lambda: all(p.poll() is None for p in procs))
    rate = (stored(dsn) - before) / (time.monotonic() - t0)
    _wait_all(procs, "live table(s)")
    return {
        "tables": len(tokens),
        "pace_s": pace,
        "events_per_s_meanwhile": round(rate, 1),
        "requests": len(times),
        "p50_ms": pct(times, 50),
        "p95_ms": pct(times, 95),
        "max_ms": round(max(times), 1),
    }


def page_times(url: str, n: int, alive=lambda: True) -> list[float]:
    times = []
    for _ in range(n):
        if not alive():
            break
        t = time.perf_counter()
        with urllib.request.urlopen(f"{url}/league/?token={ORG}", timeout=30) as r:
            r.read()
        times.append((time.perf_counter() - t) * 1000)
    return times


def pct(values: list[float], q: float) -> float:
    return round(statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1], 1)


def resync(dsn: str, url: str, token: str, folder: Path) -> dict:
    from companion.league.outbox import HttpTransport, Outbox

    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "table.sqlite"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "companion.league.simulate",
            "--db",
            str(db),
            "--league",
            url,
            "--token",
            token,
            "--steps",
            "1000",
            "--games",
            "10",
            "--seed",
            "99",
            "--no-push",
        ],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    box = Outbox(db, HttpTransport(url, token, timeout=60), batch=200)
    queued = box.waiting()
    t = time.perf_counter()
    ok = box.sync()
    took = time.perf_counter() - t
    if not ok or box.waiting():
        raise SystemExit(f"resync failed: {box.status()}")
    return {"queued_events": queued, "resync_s": round(took, 3), "events_per_s": round(queued / took, 1)}


def screenshot(url: str, out: Path) -> bool:
    exe = shutil.which("chromium")
    if exe is None:
        print("no chromium: screenshot skipped", file=sys.stderr)
        return False
    from playwright.sync_api import sync_playwright

    out.parent.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=exe, args=["--no-sandbox", "--disable-gpu"])
        page = b.new_page(viewport={"width": 1400, "height": 1700})
        page.goto(f"{url}/league/?token={ORG}")
        page.screenshot(path=str(out))  # the top of the page: the clock and the 50 tables' live state
        b.close()
    return True


def main() -> int:
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # clean up the cluster and the server
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", default="1,10,50", help="table counts to run (comma-separated)")
    ap.add_argument("--steps", type=int, default=300, help="events each table pushes per run")
    ap.add_argument("--pace", type=float, default=1.0, help="seconds between actions at a live table")
    ap.add_argument("--live-seconds", type=float, default=40, help="how long the live tables play")
    ap.add_argument("--page-requests", type=int, default=200)
    ap.add_argument("--screenshot", default=str(ROOT / "artifacts" / "screenshots" / "league-organizer.png"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    counts = [int(x) for x in args.tables.split(",")]

    work = Path(tempfile.mkdtemp(prefix="league-bench-"))
    work.chmod(0o755)  # as root, PostgreSQL runs as the postgres user, who must reach its folder
    pg = LocalCluster.start(work / "pg", fsync=True)
    league = None
    out: dict = {"machine_cpus": os.cpu_count()}
    try:
        dsn = pg.dsn("league")
        conn = connect(dsn)
        tokens = [issue_token(conn, "table", str(i + 1)) for i in range(max(counts))]
        rng = random.Random(1)
        for i in range(max(counts) * 2):  # players and a first round, as at a real event
            conn.execute(
                "INSERT INTO league_players (name, force) VALUES (%s, %s)",
                (f"Player {i + 1:03d}", rng.choice(["Dwarves/Goblins", "Coral Elves", "Amazons", "Undead"])),
            )
        conn.close()
        port = free_port()
        league = start_league(dsn, port)
        url = f"http://127.0.0.1:{port}"
        urllib.request.urlopen(
            urllib.request.Request(
                f"{url}/league/api/rounds",
                data=json.dumps({"method": "swiss", "minutes": 90}).encode(),
                headers={"Content-Type": "application/json", "X-League-Token": ORG},
            ),
            timeout=30,
        ).read()

        out["runs"] = []
        cpu = functools.partial(league_cpu, league.pid, pg)
        out["load_average_at_start"] = os.getloadavg()[0]
        for n in counts:
            r = run_tables(dsn, url, tokens[:n], work / f"run{n}", args.steps, batch=1, cpu=cpu)
            out["runs"].append(r)
            print(
                f"{n:3d} tables, one event per push: {r['events']} events in {r['wall_s']} s; sustained "
                f"{r['sustained_events_per_s']} events/s into PostgreSQL; league side (server + PostgreSQL) "
                f"{r['league_cpu_ms_per_event']} ms CPU per event = {r['events_per_s_per_core']} events/s per "
                f"core",
                flush=True,
            )
        r = run_tables(dsn, url, tokens[: max(counts)], work / "runbatch", args.steps, batch=200, cpu=cpu)
        out["runs"].append(r)
        print(
            f"{max(counts):3d} tables catching up (batches of 200): {r['events']} events in {r['wall_s']} s; "
            f"sustained {r['sustained_events_per_s']} events/s; {r['league_cpu_ms_per_event']} ms CPU per "
            f"event = {r['events_per_s_per_core']} events/s per core",
            flush=True,
        )
        lp = live_page(
            dsn, url, tokens[: max(counts)], work / "live", args.pace, args.live_seconds, args.page_requests
        )
        out["organizer_page_live"] = lp
        print(
            f"organizer page while {lp['tables']} tables play (one action per {lp['pace_s']} s each, "
            f"{lp['events_per_s_meanwhile']} events/s): p50 {lp['p50_ms']} ms, p95 {lp['p95_ms']} ms, "
            f"max {lp['max_ms']} ms ({lp['requests']} requests)",
            flush=True,
        )
        idle = page_times(url, args.page_requests)
        out["organizer_page_idle"] = {"requests": len(idle), "p50_ms": pct(idle, 50), "p95_ms": pct(idle, 95)}
        print(
            f"organizer page, {max(counts)} tables shown, idle: p50 {out['organizer_page_idle']['p50_ms']} ms, "
            f"p95 {out['organizer_page_idle']['p95_ms']} ms",
            flush=True,
        )
        with connect(dsn) as c:
            extra = issue_token(c, "table", "resync")
        rs = resync(dsn, url, extra, work / "resync")
        out["resync"] = rs
        print(
            f"resync: {rs['queued_events']} queued events pushed in {rs['resync_s']} s "
            f"({rs['events_per_s']} events/s)",
            flush=True,
        )
        with connect(dsn) as c:
            n_events, size = c.execute(
                "SELECT count(*), pg_total_relation_size('events') FROM events"
            ).fetchone()
        out["events_in_database"] = n_events
        out["bytes_per_event"] = round(size / n_events)
        print(
            f"storage: {n_events} events take {size / 2**20:.1f} MiB with their indexes "
            f"({out['bytes_per_event']} bytes per event)",
            flush=True,
        )
        out["load_average_at_end"] = os.getloadavg()[0]
        print(
            f"load average (1 min) at start {out['load_average_at_start']:.1f}, at end "
            f"{out['load_average_at_end']:.1f}, on {os.cpu_count()} cores",
            flush=True,
        )
        if args.screenshot and screenshot(url, Path(args.screenshot)):
            out["screenshot"] = args.screenshot
            print(f"screenshot: {args.screenshot}")
    finally:
        for proc in SPAWNED:
            if proc.poll() is None:
                proc.kill()
        if league is not None:
            league.terminate()
            league.wait(10)
        pg.stop()
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
