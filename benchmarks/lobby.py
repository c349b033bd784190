"""How long Play now takes: from the second seeker's "Play now" to both seated and their game
started (docs/lobby.md).

Starts `liarsdice serve` (a fresh SQLite database in a temporary folder), then, N times: a first
seeker waits; the second seeks (the clock starts as its request is sent); both ask for news every
20 ms (the page asks every second: add up to a second for a browser) until both are told
`seated`; then both open the table's websocket and the clock stops at the first game state each
receives (the game starts by itself once both are at the table). Prints the median and the worst.

    python benchmarks/lobby.py [--pairs 20]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from websockets.asyncio.client import connect

EXE = Path(sys.executable).with_name("liarsdice")


def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


def seated(base: str, token: str) -> dict[str, Any]:
    while True:
        news = post(f"{base}/api/lobby/seek/news", {"token": token})
        if news["status"] == "seated":
            return news
        time.sleep(0.02)


async def first_state(ws_base: str, code: str, token: str) -> None:
    async with connect(f"{ws_base}/ws/{code}") as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "state" and message["state"] is not None:
                return


async def both_playing(ws_base: str, code: str, tokens: list[str]) -> None:
    await asyncio.gather(*(first_state(ws_base, code, t) for t in tokens))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20, help="how many pairs to seat (default 20)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        command = [str(EXE), "serve", "--port", "0", "--database-url", f"sqlite:///{folder}/db.sqlite3"]
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        try:
            assert proc.stdout is not None
            line = ""
            while "serving on " not in line:
                line = proc.stdout.readline()
                if not line:
                    raise SystemExit("liarsdice serve did not start")
            base = line.split("serving on ", 1)[1].split()[0].rstrip("/")
            ws_base = base.replace("http://", "ws://", 1)
            seated_in, playing_in = [], []
            for i in range(args.pairs):
                body = {"preset": "openspiel", "seats": 2, "wait": 60}
                first = post(f"{base}/api/lobby/seek", {**body, "name": f"A{i}"})
                time.sleep(0.6)  # the first is waiting when the second comes
                started = time.perf_counter()
                second = post(f"{base}/api/lobby/seek", {**body, "name": f"B{i}"})
                a, b = seated(base, first["token"]), seated(base, second["token"])
                seated_in.append(time.perf_counter() - started)
                assert a["code"] == b["code"]
                asyncio.run(both_playing(ws_base, a["code"], [first["token"], second["token"]]))
                playing_in.append(time.perf_counter() - started)
        finally:
            proc.terminate()
            proc.wait(10)
    ms = lambda xs: f"median {statistics.median(xs) * 1000:.0f} ms, worst {max(xs) * 1000:.0f} ms"  # noqa: E731
    print(f"{args.pairs} pairs: second seek to both told seated: {ms(seated_in)}")
    print(f"{args.pairs} pairs: second seek to both with the game started: {ms(playing_in)}")


if __name__ == "__main__":
    main()
