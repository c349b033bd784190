"""A flood of wrong passwords from one address, and what everyone else sees meanwhile.

    python benchmarks/signin_flood.py [--tries 1000] [--concurrency 10] [--baseline 5]

Starts `liarsdice serve` on loopback (SQLite in a temporary directory, bots without delay),
makes an account, and a table where a player (this script, over a websocket) plays random legal
moves against bots, game after game. Then, first for `--baseline` seconds without a flood and
then during the flood:
- another address (127.0.0.2) signs in to the account again and again with the right password:
  the time each sign-in's POST takes;
- the player's moves: the time from sending a move to the table's answer for it;
while 127.0.0.1 posts `--tries` wrong passwords (`--concurrency` at once, from a process of its
own, so that the measuring event loop is not the flood's). Prints how the flood
was answered (401: a password hashed and refused; 429: refused by the limit, nothing hashed)
and the figures of both phases (median, p95, max). Nothing is asserted (tests/test_people.py
and tests/test_people_attacks.py check the outcomes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import re
import statistics
import tempfile
import time
from collections import Counter
from multiprocessing import Queue
from pathlib import Path
from typing import Any

import httpx
from load_services import Server, process_cpu
from websockets.asyncio.client import connect

from liarsdice.server.wsplayer import random_move

PASSWORD = "correct horse battery"
THINK = 0.2  # seconds the player waits before each move


async def csrf(client: httpx.AsyncClient, path: str) -> str:
    page = await client.get(path)
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    if found is None:
        raise SystemExit(f"no CSRF token on {path}: {page.status_code}")
    return found.group(1)


def figures(name: str, ms: list[float]) -> str:
    if not ms:
        return f"{name}: none"
    ordered = sorted(ms)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{name}: n={len(ms)} median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, max {ordered[-1]:.1f} ms"


class Phase:
    def __init__(self) -> None:
        self.signins: list[float] = []
        self.moves: list[float] = []
        self.signin_statuses: Counter[int] = Counter()
        self.refused = 0  # moves the table refused (none expected)


async def sign_in_again_and_again(base: str, phase: list[Phase], stop: asyncio.Event) -> None:
    """The other address: a fresh browser signs in, each time, with the right password."""
    transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
    async with httpx.AsyncClient(base_url=base, transport=transport, timeout=60) as client:
        while not stop.is_set():
            client.cookies.clear()
            token = await csrf(client, "/signin")
            started = time.perf_counter()
            got = await client.post("/signin", data={"csrf": token, "name": "Ana", "password": PASSWORD})
            phase[0].signins.append((time.perf_counter() - started) * 1000)
            phase[0].signin_statuses[got.status_code] += 1
            await asyncio.sleep(0.05)


async def play(base: str, phase: list[Phase], stop: asyncio.Event) -> int:
    """A player at a table of bots, game after game; the time each move takes to be answered."""
    rng = random.Random(7)
    games = 0
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        while not stop.is_set():
            made = (await client.post("/api/tables", json={"preset": "perudo", "name": "Player"})).json()
            ws_url = base.replace("http", "ws", 1) + f"/ws/{made['code']}"
            async with connect(ws_url) as ws:
                await ws.send(json.dumps({"type": "hello", "token": made["token"]}))
                await ws.send(json.dumps({"type": "fill_bots", "level": "random"}))
                await ws.send(json.dumps({"type": "start"}))
                ref = 0
                seen: set[int] = set()
                state: dict[str, Any] | None = None
                while not stop.is_set():
                    if state is None:  # wait for the table to say something new
                        m = json.loads(await asyncio.wait_for(ws.recv(), 30))
                        if m["type"] != "state" or m.get("state") is None or m["state"]["phase"] == "lobby":
                            continue
                        state = m["state"]
                    last = state.get("last_round")
                    if last and state.get("reveal_until") and last["round"] not in seen:
                        seen.add(last["round"])  # seen: the next round starts without the pause
                        await ws.send(json.dumps({"type": "seen", "round": last["round"]}))
                    if state["result"] is not None:
                        games += 1
                        break
                    move = random_move(state, rng)
                    state = None
                    if move is None:  # not this player's turn
                        continue
                    await asyncio.sleep(THINK)  # a person's pace: the table's message limit holds
                    ref += 1
                    started = time.perf_counter()
                    await ws.send(json.dumps({"type": "act", "action": move, "ref": ref}))
                    while True:
                        reply = json.loads(await asyncio.wait_for(ws.recv(), 30))
                        if (reply.get("ref") == ref and reply["type"] == "state") or reply["type"] == "error":
                            break
                    if reply["type"] == "error":
                        phase[0].refused += 1
                        continue
                    phase[0].moves.append((time.perf_counter() - started) * 1000)
                    if reply["type"] == "state":
                        state = reply["state"]  # perhaps this player's turn again
    return games


async def flood(base: str, tries: int, concurrency: int) -> tuple[Counter[int], float]:
    statuses: Counter[int] = Counter()
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:
        token = await csrf(client, "/signin")
        numbers = iter(range(tries))

        async def one_by_one() -> None:
            for i in numbers:
                form = {"csrf": token, "name": "Ana", "password": f"wrong guess {i:04}"}
                statuses[(await client.post("/signin", data=form)).status_code] += 1

        started = time.perf_counter()
        await asyncio.gather(*(one_by_one() for _ in range(concurrency)))
        return statuses, time.perf_counter() - started


def flood_process(base: str, tries: int, concurrency: int, answer: Queue[tuple[dict[int, int], float]]) -> None:
    """The flood, in a process of its own: the measuring event loop is not the flood's."""
    statuses, took = asyncio.run(flood(base, tries, concurrency))
    answer.put((dict(statuses), took))


async def main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="liarsdice-flood-") as tmp:
        server = Server(f"sqlite:///{Path(tmp) / 'db.sqlite3'}", None, Path(tmp) / "server.log")
        try:
            base = server.base
            async with httpx.AsyncClient(base_url=base, timeout=60) as client:
                token = await csrf(client, "/signup")
                made = await client.post("/signup", data={"csrf": token, "name": "Ana", "password": PASSWORD})
                if made.status_code != 303:
                    raise SystemExit(f"could not make the account: {made.status_code}")
            baseline, during = Phase(), Phase()
            current = [baseline]
            stop = asyncio.Event()
            signing = asyncio.create_task(sign_in_again_and_again(base, current, stop))
            playing = asyncio.create_task(play(base, current, stop))
            await asyncio.sleep(args.baseline)
            current[0] = during
            answer: Queue[tuple[dict[int, int], float]] = multiprocessing.Queue()
            flooder = multiprocessing.Process(target=flood_process, args=(base, args.tries, args.concurrency, answer))
            cpu_before = process_cpu(server.pid)
            flooder.start()
            statuses, took = await asyncio.to_thread(answer.get)
            flood_cpu = process_cpu(server.pid) - cpu_before
            flooder.join()
            stop.set()
            await signing
            games = await playing
            print(f"flood: {args.tries} wrong passwords from 127.0.0.1, {args.concurrency} at once, in {took:.1f} s")
            print(f"  answered: {dict(sorted(statuses.items()))} (401: hashed and refused; 429: refused unhashed)")
            print(f"  the server's CPU meanwhile: {flood_cpu:.1f} s (all it did, the others' sign-ins and play too)")
            for name, phase in (("without a flood", baseline), ("during the flood", during)):
                print(name + ":")
                print("  " + figures("127.0.0.2 signs in (POST)", phase.signins), dict(phase.signin_statuses))
                print(
                    "  " + figures("a move at a table of bots, sent to answered", phase.moves),
                    f"refused: {phase.refused}",
                )
            print(f"games finished: {games}")
        finally:
            server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tries", type=int, default=1000, help="wrong passwords sent (default 1000)")
    parser.add_argument("--concurrency", type=int, default=10, help="sent at once (default 10)")
    parser.add_argument("--baseline", type=float, default=5.0, help="seconds measured before the flood")
    asyncio.run(main(parser.parse_args()))
