"""Load on the web server: many tables of four websocket players, each playing whole games.

    python benchmarks/server_load.py [--tables N] [--seconds S] [--think T] [--preset P]

Starts `liarsdice serve` on loopback (a fresh SQLite database in a temporary directory), creates
N tables through the HTTP API, seats four players at each over websockets, and lets them play
`perudo` (or --preset) games back to back: a player moves `--think` seconds (with +-50% jitter)
after it is told it is its turn, choosing a random legal move from its own view. A finished game
is followed by a rematch. After a warm-up the script measures for S seconds and prints:

- actions per second (moves made, all tables together),
- the time from a move being sent to the update for it being received by every seat of its table
  (p50, p90, p99, max over all moves),
- errors (any `error` message, refused move or lost connection) and the games finished.

The server runs in its own process and the players in this one, so on a 2-core machine each has a
core. Nothing is asserted: it prints figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from websockets.asyncio.client import connect

from liarsdice.server.wsplayer import random_move

EXE = Path(sys.executable).with_name("liarsdice")


@dataclass
class Table:
    code: str
    tokens: list[str]
    pending: tuple[float, int] | None = None  # (time sent, version when sent)
    arrived: dict[int, float] = field(default_factory=dict)
    games: int = 0


@dataclass
class Stats:
    measuring: bool = False
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    errors: list[str] = field(default_factory=list)
    games: int = 0
    states: int = 0


async def player(base: str, table: Table, seat: int, think: float, stats: Stats, stop: asyncio.Event) -> None:
    rng = random.Random(f"{table.code}:{seat}")
    ws_url = base.replace("http://", "ws://") + f"/ws/{table.code}"
    try:
        async with connect(ws_url, max_size=2**22, open_timeout=60, ping_interval=None) as ws:
            await ws.send(json.dumps({"type": "hello", "token": table.tokens[seat]}))
            moving: asyncio.Task[None] | None = None
            acted_at_version = -1

            async def move_later(view: dict[str, Any]) -> None:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5) if think > 0 else 0)
                move = random_move(view, rng)
                if move is None or stop.is_set():
                    return
                table.pending = (time.perf_counter(), view["version"])
                table.arrived = {}
                await ws.send(json.dumps({"type": "act", "action": move}))
                if stats.measuring:
                    stats.actions += 1

            while not stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                now = time.perf_counter()
                message = json.loads(raw)
                kind = message["type"]
                if kind == "error":
                    if stats.measuring or message["code"] not in ("not_ready",):
                        stats.errors.append(f"{table.code}/{seat}: {message['code']}: {message['message']}")
                    continue
                if kind == "welcome" and seat == 0:
                    await ws.send(json.dumps({"type": "start"}))
                if kind != "state" or message["state"] is None:
                    continue
                view = message["state"]
                stats.states += 1
                pending = table.pending
                if pending is not None and view["version"] > pending[1] and seat not in table.arrived:
                    table.arrived[seat] = now
                    if len(table.arrived) == 4:
                        if stats.measuring:
                            stats.latencies.append(max(table.arrived.values()) - pending[0])
                        table.pending = None
                if view["result"] is not None:
                    if seat == 0 and view["version"] != acted_at_version:
                        acted_at_version = view["version"]
                        table.games += 1
                        if stats.measuring:
                            stats.games += 1
                        await ws.send(json.dumps({"type": "rematch"}))
                    continue
                if view["to_act"] == seat and view["version"] != acted_at_version:
                    acted_at_version = view["version"]
                    if moving is not None and not moving.done():
                        moving.cancel()
                    moving = asyncio.create_task(move_later(view))
    except Exception as e:  # a lost connection is an error of the run
        if not stop.is_set():
            stats.errors.append(f"{table.code}/{seat}: connection: {e!r}")


async def run(args: argparse.Namespace, base: str) -> Stats:
    stats = Stats()
    stop = asyncio.Event()
    limits = httpx.Limits(max_connections=50)
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=limits) as http:

        async def make_table(i: int) -> Table:
            made = (
                await http.post(
                    "/api/tables",
                    json={"preset": args.preset, "name": "P1", "options": {"num_players": 4}},
                )
            ).json()
            tokens = [made["token"]]
            for k in range(2, 5):
                joined = (await http.post(f"/api/tables/{made['code']}/join", json={"name": f"P{k}"})).json()
                tokens.append(joined["token"])
            return Table(made["code"], tokens)

        tables = await asyncio.gather(*(make_table(i) for i in range(args.tables)))
    print(f"{len(tables)} tables created; connecting {4 * len(tables)} players", flush=True)
    players = []
    for t in tables:
        # seats 1-3 first, the host last: the host's welcome starts the game
        for seat in (1, 2, 3, 0):
            players.append(asyncio.create_task(player(base, t, seat, args.think, stats, stop)))
        await asyncio.sleep(0.005)
    await asyncio.sleep(args.warmup)
    stats.measuring = True
    started = time.perf_counter()
    await asyncio.sleep(args.seconds)
    stats.measuring = False
    elapsed = time.perf_counter() - started
    stop.set()
    await asyncio.gather(*players, return_exceptions=True)
    stats.elapsed = elapsed  # type: ignore[attr-defined]
    return stats


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="concurrent tables of four players (200)")
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds (60)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring (10)")
    parser.add_argument("--think", type=float, default=1.0, help="mean seconds a player takes to move (1.0)")
    parser.add_argument("--preset", default="perudo", help="rules of every table (perudo)")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0 or args.think < 0 or args.warmup < 0:
        parser.error("--tables must be 1 or more, --seconds above 0, --think and --warmup 0 or more")
    command = shlex.join([sys.executable, *sys.argv]) if argv is None else shlex.join(argv)
    print(f"command: {command}")
    print(f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "load.sqlite3"
        server = subprocess.Popen(
            [
                str(EXE),
                "serve",
                "--port",
                "0",
                "--database-url",
                f"sqlite:///{db}",
                "--log-level",
                "warning",
                "--bot-delay",
                "0",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert server.stdout is not None
        line = server.stdout.readline().strip()
        if "serving on" not in line:
            print(f"the server did not start: {line}")
            return 1
        base = line.split("serving on ", 1)[1]
        print(f"server: {base} (SQLite at {db}); {args.tables} tables, think {args.think:g} s, preset {args.preset}")
        try:
            stats = asyncio.run(run(args, base))
        finally:
            server.terminate()
            try:
                out, _ = server.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()
                out, _ = server.communicate()
    elapsed = stats.elapsed  # type: ignore[attr-defined]
    lat = [x * 1000 for x in stats.latencies]
    print()
    print(f"measured {elapsed:.1f} s after a {args.warmup:g} s warm-up")
    print(f"actions per second:        {stats.actions / elapsed:,.1f} ({stats.actions} moves)")
    print(f"updates measured:          {len(lat)} (move sent -> update received by all 4 seats)")
    if lat:
        print(
            f"latency ms:                p50 {percentile(lat, 50):.1f}  p90 {percentile(lat, 90):.1f}  "
            f"p99 {percentile(lat, 99):.1f}  max {max(lat):.1f}  mean {statistics.fmean(lat):.1f}"
        )
    print(f"games finished:            {stats.games}")
    print(f"errors:                    {len(stats.errors)}")
    for e in stats.errors[:10]:
        print(f"  {e}")
    problems = [x for x in (out or "").splitlines() if "ERROR" in x or "Traceback" in x]
    print(f"server log errors:         {len(problems)}")
    for x in problems[:5]:
        print(f"  {x}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
