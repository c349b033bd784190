"""The players of `server_load.py`: one worker process plays its share of the tables.

A worker is started by the benchmark (multiprocessing, spawn), connects the four seats of each
of its tables (seat i to server i % N), says it is ready, waits for the measuring window the
parent gives it (times on the machine's monotonic clock, which every process shares), plays
until the window ends and sends back what it saw. A table's four seats are always in one
worker, so the time from a move to its update at all four seats is taken on one clock.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any

MAX_ERRORS_KEPT = 20  # error texts sent back per worker (all are counted)
LAG_TICK = 0.02  # seconds between the event-loop lag probes


@dataclass
class Table:
    code: str
    tokens: list[str]
    pending: tuple[float, int] | None = None  # (time sent, version when sent)
    arrived: dict[int, float] = field(default_factory=dict)


@dataclass
class Window:
    """When the worker measures (time.monotonic()), and what it measured."""

    start: float = float("inf")
    end: float = float("inf")
    latencies: list[float] = field(default_factory=list)
    actions: int = 0
    games: int = 0
    states: int = 0
    errors: int = 0
    error_texts: list[str] = field(default_factory=list)
    lags: list[float] = field(default_factory=list)

    def measuring(self, at: float) -> bool:
        return self.start <= at < self.end

    def error(self, text: str) -> None:
        self.errors += 1
        if len(self.error_texts) < MAX_ERRORS_KEPT:
            self.error_texts.append(text)


async def player(ws_base: str, table: Table, seat: int, think: float, window: Window, stop: asyncio.Event) -> None:
    from websockets.asyncio.client import connect

    from liarsdice.server.wsplayer import random_move

    rng = random.Random(f"{table.code}:{seat}")
    try:
        # compression as a browser asks for it (permessage-deflate)
        async with connect(f"{ws_base}/ws/{table.code}", max_size=2**22, open_timeout=60, ping_interval=None) as ws:
            await ws.send(json.dumps({"type": "hello", "token": table.tokens[seat]}))
            moving: asyncio.Task[None] | None = None
            acted_at_version = -1

            async def move_later(view: dict[str, Any]) -> None:
                await asyncio.sleep(think * rng.uniform(0.5, 1.5) if think > 0 else 0)
                move = random_move(view, rng)
                if move is None or stop.is_set():
                    return
                table.pending = (time.monotonic(), view["version"])
                table.arrived = {}
                await ws.send(json.dumps({"type": "act", "action": move}))
                if window.measuring(table.pending[0]):
                    window.actions += 1

            while not stop.is_set():
                try:
                    raw = await asyncio.wait_for(ws.recv(), 1.0)
                except TimeoutError:
                    continue
                now = time.monotonic()
                message = json.loads(raw)
                kind = message["type"]
                if kind == "error":
                    # not_ready: a rematch asked for twice (two seats saw the result); harmless
                    if window.measuring(now) or message["code"] != "not_ready":
                        window.error(f"{table.code}/{seat}: {message['code']}: {message['message']}")
                    continue
                if kind == "welcome" and seat == 0:
                    await ws.send(json.dumps({"type": "start"}))
                if kind != "state" or message["state"] is None:
                    continue
                view = message["state"]
                window.states += 1
                pending = table.pending
                if pending is not None and view["version"] > pending[1] and seat not in table.arrived:
                    table.arrived[seat] = now
                    if len(table.arrived) == 4:
                        if window.measuring(pending[0]):
                            window.latencies.append(max(table.arrived.values()) - pending[0])
                        table.pending = None
                if view["result"] is not None:
                    if seat == 0 and view["version"] != acted_at_version:
                        acted_at_version = view["version"]
                        if window.measuring(now):
                            window.games += 1
                        await ws.send(json.dumps({"type": "rematch"}))
                    continue
                if view["to_act"] == seat and view["version"] != acted_at_version:
                    acted_at_version = view["version"]
                    if moving is not None and not moving.done():
                        moving.cancel()
                    moving = asyncio.create_task(move_later(view))
    except Exception as e:  # a lost connection is an error of the run
        if not stop.is_set():
            window.error(f"{table.code}/{seat}: connection: {e!r}")


async def _lag_probe(window: Window, stop: asyncio.Event) -> None:
    """How late the event loop wakes a sleeper: a worker that falls behind shows it here."""
    while not stop.is_set():
        asked = time.monotonic()
        await asyncio.sleep(LAG_TICK)
        woke = time.monotonic()
        if window.measuring(asked):
            window.lags.append(woke - asked - LAG_TICK)


async def _play(spec: dict[str, Any], pipe: Connection) -> dict[str, Any]:
    window = Window()
    stop = asyncio.Event()
    bases = [b.replace("http://", "ws://") for b in spec["bases"]]
    loop = asyncio.get_running_loop()
    tasks = [asyncio.create_task(_lag_probe(window, stop))]
    for code, tokens in spec["tables"]:
        table = Table(code, tokens)
        # seats 1-3 first, the host last: the host's welcome starts the game
        for seat in (1, 2, 3, 0):
            base = bases[seat % len(bases)]
            tasks.append(asyncio.create_task(player(base, table, seat, spec["think"], window, stop)))
        await asyncio.sleep(spec["stagger"])
    pipe.send(("ready", None))
    window.start, window.end = await loop.run_in_executor(None, pipe.recv)
    await asyncio.sleep(max(0.0, window.start - time.monotonic()))
    cpu_start = time.process_time()
    await asyncio.sleep(max(0.0, window.end - time.monotonic()))
    cpu = time.process_time() - cpu_start
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {
        "latencies": window.latencies,
        "actions": window.actions,
        "games": window.games,
        "states": window.states,
        "errors": window.errors,
        "error_texts": window.error_texts,
        "lags": window.lags,
        "cpu": cpu,
    }


def worker_main(spec: dict[str, Any], pipe: Connection) -> None:
    """Entry point of a worker process: play `spec["tables"]`, send the figures down `pipe`."""
    try:
        import uvloop  # a lighter loop leaves more of the machine to the server

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    try:
        pipe.send(("done", runner(_play(spec, pipe))))
    except BaseException as e:
        pipe.send(("failed", repr(e)))
        raise
