"""Load on the web server: many tables of four websocket players, each playing whole games.

    python benchmarks/server_load.py [--tables N] [--seconds S] [--think T] [--clients K]
                                     [--servers N [N ...]] [--repeats R] [--database sqlite|postgresql]

Starts `liarsdice serve` on loopback, creates N tables through its HTTP API, seats four players
at each over websockets, and lets them play `perudo` (or --preset) games back to back: a player
moves `--think` seconds (with +-50% jitter) after it is told it is its turn, choosing a random
legal move from its own view. A finished game is followed by a rematch.

The players run in K worker processes (`--clients`, default 2), the tables split among them, so
the load generator is not what is measured; each worker sends back its figures. After a warm-up
the script measures for S seconds and prints, per run:

- actions per second (moves made, all tables together),
- the time from a move being sent to the update for it being received by every seat of its table
  (p50, p90, p99, max over all moves),
- errors (any `error` message, refused move or lost connection) and the games finished,
- CPU: each server process's, the generator's (all workers: CPU per action and how late their
  event loops woke, which shows whether they fell behind), and the whole machine's.

`--servers 1 2` runs one and then two server processes, `--repeats R` times, interleaved
(1, 2, 1, 2, ...), and ends with a side-by-side summary (medians over the repeats, and the
medians of the 2-to-1 ratios of each pair). With more than one process the servers share one
PostgreSQL and one Redis that the script starts in a temporary directory (`liarsdice serve
--redis-url`); a table is created through the processes in turn and seat i of every table
connects to process i % N. With one process the database is SQLite unless `--database
postgresql` is given (Redis is used when any run has more than one process, so the runs
compare like with like). Nothing is asserted: it prints figures.

The servers run `liarsdice` from this virtualenv, or the command in $LIARSDICE_BENCH_COMMAND
(e.g. `python /path/to/other/tree/serve.py`, to compare builds side by side, or a wrapper that
profiles). On a machine shared with other work, CPU time per action moves least with the load.

    make bench-server ARGS="--tables 200 --think 0.5 --seconds 30 --servers 1 2 --repeats 3"
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import platform
import shlex
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from load_players import worker_main
from load_services import (
    Server,
    machine_busy,
    new_database,
    postgres_cluster,
    process_cpu,
    redis_server,
    redis_url_supported,
    tree_cpu,
)

READY_TIMEOUT = 180.0  # seconds for a worker to connect its players


@dataclass
class Run:
    servers: int
    elapsed: float = 0.0
    latencies: list[float] = field(default_factory=list)  # ms
    actions: int = 0
    games: int = 0
    errors: int = 0
    error_texts: list[str] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)  # ms
    server_cpu: list[float] = field(default_factory=list)  # seconds, per server process
    services_cpu: dict[str, float] = field(default_factory=dict)  # seconds: PostgreSQL, Redis
    client_cpu: float = 0.0  # seconds, all workers
    machine: tuple[float, float] = (0.0, 0.0)  # busy, total CPU seconds
    log_problems: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.actions / self.elapsed if self.elapsed else float("nan")

    def p(self, q: float) -> float:
        return percentile(self.latencies, q)


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


async def create_tables(bases: list[str], count: int, preset: str) -> list[tuple[str, list[str]]]:
    """`count` tables of four seats, table i made (and joined) through server i % N."""
    limits = httpx.Limits(max_connections=50)
    clients = [httpx.AsyncClient(base_url=b, timeout=60, limits=limits) for b in bases]
    try:

        async def make(i: int) -> tuple[str, list[str]]:
            http = clients[i % len(clients)]
            body = {"preset": preset, "name": "P1", "options": {"num_players": 4}}
            response = await http.post("/api/tables", json=body)
            response.raise_for_status()
            made = response.json()
            tokens = [made["token"]]
            for k in range(2, 5):
                joined = await http.post(f"/api/tables/{made['code']}/join", json={"name": f"P{k}"})
                joined.raise_for_status()
                tokens.append(joined.json()["token"])
            return made["code"], tokens

        return list(await asyncio.gather(*(make(i) for i in range(count))))
    finally:
        for c in clients:
            await c.aclose()


def play(
    args: argparse.Namespace,
    bases: list[str],
    tables: list[tuple[str, list[str]]],
    run: Run,
    pids: list[int],
    services: dict[str, int],
) -> None:
    """Play the tables from `args.clients` worker processes; fill `run` with what they saw.
    `pids` are the servers', `services` the pids of what they use (name -> pid)."""
    ctx = multiprocessing.get_context("spawn")
    workers = []
    for k in range(args.clients):
        share = tables[k :: args.clients]
        if not share:
            continue
        mine, theirs = ctx.Pipe()
        spec = {"bases": bases, "tables": share, "think": args.think, "stagger": 0.005 * args.clients}
        process = ctx.Process(target=worker_main, args=(spec, theirs), name=f"load-client-{k}", daemon=True)
        process.start()
        workers.append((process, mine))
    try:
        for process, pipe in workers:
            if not pipe.poll(READY_TIMEOUT):
                raise SystemExit(f"{process.name} did not connect its players in {READY_TIMEOUT:g} s")
            kind, detail = pipe.recv()
            if kind != "ready":
                raise SystemExit(f"{process.name} failed: {detail}")
        start = time.monotonic() + args.warmup
        end = start + args.seconds
        for _, pipe in workers:
            pipe.send((start, end))
        time.sleep(max(0.0, start - time.monotonic()))
        client_pids = [p.pid for p, _ in workers if p.pid is not None]
        servers0 = [process_cpu(pid) for pid in pids]
        services0 = {name: tree_cpu(pid) for name, pid in services.items()}
        clients0 = sum(process_cpu(pid) for pid in client_pids)
        machine0 = machine_busy()
        time.sleep(max(0.0, end - time.monotonic()))
        run.server_cpu = [process_cpu(pid) - before for pid, before in zip(pids, servers0, strict=True)]
        run.client_cpu = sum(process_cpu(pid) for pid in client_pids) - clients0
        run.services_cpu = {name: tree_cpu(pid) - services0[name] for name, pid in services.items()}
        machine1 = machine_busy()
        run.machine = (machine1[0] - machine0[0], machine1[1] - machine0[1])
        run.elapsed = end - start
        for process, pipe in workers:
            if not pipe.poll(60):
                raise SystemExit(f"{process.name} did not report within a minute of the end")
            kind, figures = pipe.recv()
            if kind != "done":
                raise SystemExit(f"{process.name} failed: {figures}")
            run.latencies += [x * 1000 for x in figures["latencies"]]
            run.lags += [x * 1000 for x in figures["lags"]]
            run.actions += figures["actions"]
            run.games += figures["games"]
            run.errors += figures["errors"]
            run.error_texts += figures["error_texts"]
    finally:
        for process, _ in workers:
            process.join(30)
            if process.is_alive():
                process.kill()


def one_run(
    args: argparse.Namespace, n: int, cluster: tuple[str, int] | None, use_redis: bool, tmp: Path, index: int
) -> Run:
    run = Run(servers=n)
    services: dict[str, int] = {}
    if cluster is None:
        database = f"sqlite:///{tmp / f'run{index}.sqlite3'}"
    else:
        database = new_database(cluster[0])
        services["PostgreSQL"] = cluster[1]
    with redis_server() if use_redis else nullcontext(None) as redis:
        redis_url = None
        if redis is not None:
            redis_url, services["Redis"] = redis
        servers: list[Server] = []
        try:
            for k in range(n):  # one after the other: the first applies the migrations
                servers.append(Server(database, redis_url, tmp / f"run{index}-server{k}.log"))
            bases = [s.base for s in servers]
            shown = "SQLite" if cluster is None else "PostgreSQL"
            shown += " + Redis" if redis_url is not None else ""
            print(f"servers: {' '.join(bases)} ({shown})", flush=True)
            tables = asyncio.run(create_tables(bases, args.tables, args.preset))
            print(f"{len(tables)} tables created; {4 * len(tables)} players in {args.clients} processes", flush=True)
            play(args, bases, tables, run, [s.pid for s in servers], services)
        finally:
            for s in servers:
                s.stop()
                run.log_problems += [x for x in s.log().splitlines() if "ERROR" in x or "Traceback" in x]
    return run


def print_run(args: argparse.Namespace, run: Run) -> None:
    lat = run.latencies
    print(f"measured {run.elapsed:.1f} s after a {args.warmup:g} s warm-up; {run.servers} server process(es)")
    print(f"actions per second:        {run.rate:,.1f} ({run.actions} moves)")
    print(f"updates measured:          {len(lat)} (move sent -> update received by all 4 seats)")
    if lat:
        print(
            f"latency ms:                p50 {run.p(50):.1f}  p90 {run.p(90):.1f}  "
            f"p99 {run.p(99):.1f}  max {max(lat):.1f}  mean {statistics.fmean(lat):.1f}"
        )
    print(f"games finished:            {run.games}")
    print(f"errors:                    {run.errors}")
    for e in run.error_texts[:10]:
        print(f"  {e}")
    per_server = "  ".join(f"{100 * c / run.elapsed:.0f}%" for c in run.server_cpu)
    # CPU time per move is what contention on a shared machine changes least
    per_move = 1e6 * sum(run.server_cpu) / run.actions if run.actions else float("nan")
    print(f"server CPU:                {per_server} of one core ({per_move:,.0f} us per action)")
    for name, cpu in run.services_cpu.items():
        print(f"{name + ' CPU:':<27}{100 * cpu / run.elapsed:.0f}% of one core")
    per_action = 1e6 * run.client_cpu / run.actions if run.actions else float("nan")
    lag = (
        f"loop lag ms p50 {percentile(run.lags, 50):.1f} p99 {percentile(run.lags, 99):.1f} max {max(run.lags):.1f}"
        if run.lags
        else "no loop lag samples"
    )
    print(
        f"load generator:            {args.clients} processes, {100 * run.client_cpu / run.elapsed:.0f}% of one core "
        f"in all ({per_action:,.0f} us per action); {lag}"
    )
    busy, total = run.machine
    cores = os.cpu_count() or 1
    print(f"machine CPU busy:          {busy / total * cores:.2f} of {cores} cores" if total else "")
    print(f"server log errors:         {len(run.log_problems)}")
    for x in run.log_problems[:5]:
        print(f"  {x}")


def print_summary(plan: list[int], runs: list[Run]) -> None:
    kinds = sorted(set(plan))
    print()
    print("summary (medians over the repeats)")
    print(
        f"{'servers':>8} {'runs':>5} {'actions/s':>10} {'p50 ms':>8} {'p99 ms':>8} {'server CPU':>11} {'us/action':>10}"
    )
    for n in kinds:
        mine = [r for r in runs if r.servers == n]
        cpu = statistics.median(sum(r.server_cpu) / r.elapsed for r in mine)
        per_move = statistics.median(1e6 * sum(r.server_cpu) / max(1, r.actions) for r in mine)
        print(
            f"{n:>8} {len(mine):>5} {statistics.median(r.rate for r in mine):>10,.1f} "
            f"{statistics.median(r.p(50) for r in mine):>8.1f} {statistics.median(r.p(99) for r in mine):>8.1f} "
            f"{100 * cpu:>10.0f}% {per_move:>10,.0f}"
        )
    if len(kinds) > 1:
        first = kinds[0]
        for n in kinds[1:]:
            # the runs of one repeat are side by side: compare within each, then take the median
            pairs = list(
                zip([r for r in runs if r.servers == n], [r for r in runs if r.servers == first], strict=False)
            )
            rate = statistics.median(a.rate / b.rate for a, b in pairs)
            p99 = statistics.median(a.p(99) / b.p(99) for a, b in pairs)
            print(f"{n} vs {first} processes ({len(pairs)} pairs): actions/s x{rate:.2f}, p99 x{p99:.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="concurrent tables of four players (200)")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds (60)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring (10)")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds a player takes to move (1.0)")
    parser.add_argument("--preset", default="perudo", help="rules of every table (perudo)")
    parser.add_argument("--clients", type=int, default=2, help="worker processes playing the tables (2)")
    parser.add_argument(
        "--servers", type=int, nargs="+", default=[1], help="server processes per run; a list runs each in turn (1)"
    )
    parser.add_argument("--repeats", type=int, default=1, help="times the list of --servers is run, interleaved (1)")
    parser.add_argument(
        "--database",
        choices=["sqlite", "postgresql"],
        help="the servers' database (default: sqlite for one process only, else postgresql)",
    )
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0 or args.think < 0 or args.warmup < 0:
        parser.error("--tables must be 1 or more, --seconds above 0, --think and --warmup 0 or more")
    if args.clients < 1 or args.repeats < 1 or min(args.servers) < 1:
        parser.error("--clients, --repeats and every --servers must be 1 or more")
    several = max(args.servers) > 1
    database = args.database or ("postgresql" if several else "sqlite")
    if several and database == "sqlite":
        parser.error(
            "more than one server process shares a PostgreSQL database: leave --database out or say postgresql"
        )
    if several and not redis_url_supported():
        parser.error("this liarsdice serve has no --redis-url yet: more than one process cannot share the tables")
    plan = [n for _ in range(args.repeats) for n in args.servers]
    command = shlex.join([sys.executable, *sys.argv]) if argv is None else shlex.join(argv)
    print(f"command: {command}")
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores")
    print(f"{args.tables} tables, think {args.think:g} s, preset {args.preset}; runs: {plan}")
    runs: list[Run] = []
    with tempfile.TemporaryDirectory() as tmp, ExitStack() as stack:
        cluster = stack.enter_context(postgres_cluster()) if database == "postgresql" else None
        for i, n in enumerate(plan):
            print(f"\n=== run {i + 1}/{len(plan)}: {n} server process(es)", flush=True)
            run = one_run(args, n, cluster, several, Path(tmp), i)
            print_run(args, run)
            runs.append(run)
    if len(plan) > 1:
        print_summary(plan, runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
