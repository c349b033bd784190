"""Kill the server with SIGKILL in the middle of games, start it again: nothing is lost.

A real `liarsdice serve` process plays tables with a person (this test, over a websocket) and
bots. It is killed with SIGKILL at once after a move is sent, so moves, bot moves and deals are
in flight. Started again on the same database, every table resumes where it was: the person gets
the same seat and cup back, every action anyone was told of is in the game, and the game plays on
to a result whose record replays.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

from conftest import free_port
from liarsdice.record import replay
from liarsdice.server.wsplayer import random_move

EXE = Path(sys.executable).with_name("liarsdice")


@contextmanager
def server(db: Path, port: int) -> Iterator[subprocess.Popen[str]]:
    proc = subprocess.Popen(
        [
            str(EXE),
            "serve",
            "--grace",
            "0.5",
            "--port",
            str(port),
            "--database-url",
            f"sqlite:///{db}",
            "--bot-delay",
            "0.02",
            "--reveal-pause",
            "0",
            "--log-level",
            "warning",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "serving on" in line, line
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(10)


def post(port: int, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.loads(r.read())  # type: ignore[no-any-return]


def get(port: int, path: str) -> Any:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
        return json.loads(r.read())


def recv(ws: ClientConnection) -> dict[str, Any]:
    return json.loads(ws.recv(timeout=15))  # type: ignore[no-any-return]


@contextmanager
def hello(port: int, code: str, token: str) -> Iterator[tuple[ClientConnection, dict[str, Any] | None]]:
    """A seat's websocket, past its welcome: the socket and the view it was sent."""
    with connect(f"ws://127.0.0.1:{port}/ws/{code}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        state = None
        while True:
            m = recv(ws)
            if m["type"] == "error":
                raise AssertionError(m)
            if m["type"] == "state":
                state = m["state"]
            if m["type"] == "chat_history":
                break
        yield ws, state


def next_view(ws: ClientConnection) -> dict[str, Any]:
    while True:
        m = recv(ws)
        if m["type"] == "error":
            raise AssertionError(m)
        if m["type"] == "state" and m["state"] is not None:
            return m["state"]  # type: ignore[no-any-return]


def play_then_kill(ws: ClientConnection, proc: subprocess.Popen[str], rng: random.Random) -> list[dict[str, Any]]:
    """Start the table, play a few moves, and kill the server right behind one more move.
    Returns every view the person was told of, in order."""
    seen: list[dict[str, Any]] = []
    ws.send(json.dumps({"type": "fill_bots", "level": "probability"}))
    ws.send(json.dumps({"type": "start"}))
    moves = 0
    while True:
        view = next_view(ws)
        seen.append(view)
        assert view["result"] is None, "the game ended before the kill"
        move = random_move(view, rng, challenge_rate=0.05)
        if move is None:
            continue
        ws.send(json.dumps({"type": "act", "action": move}))
        moves += 1
        if moves == 4:
            # the bots of every table are playing, and this move is on its way
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(10)
            return seen


def rounds_of(record: dict[str, Any]) -> dict[int, tuple[dict[str, list[int]], list[tuple[str, Any]]]]:
    """Per round: the hands rolled and the actions played, from a game record."""
    out: dict[int, tuple[dict[str, list[int]], list[tuple[str, Any]]]] = {}
    current = 0
    for step in record["steps"]:
        if step.get("chance") == "roll":
            current = step["round"]
            out[current] = (step["hands"], [])
        elif "action" in step:
            out[current][1].append((step["seat"], step["action"]))
    return out


def test_sigkill_mid_game_loses_no_action(tmp_path: Path) -> None:
    db = tmp_path / "liarsdice.sqlite3"
    port = free_port()
    rng = random.Random(5)
    with server(db, port) as proc:
        tables = [
            post(port, "/api/tables", {"preset": preset, "name": "Ann", "options": {"num_players": 3}})
            for preset in ("perudo", "soar", "tavern")
        ]
        for t in tables[1:]:  # bots only, at full speed, while the kill comes
            with hello(port, t["code"], t["token"]) as (other, _):
                other.send(json.dumps({"type": "fill_bots"}))
                other.send(json.dumps({"type": "start"}))
                next_view(other)
        with hello(port, tables[0]["code"], tables[0]["token"]) as (ws, _):
            seen = play_then_kill(ws, proc, rng)
    last = seen[-1]

    # the database holds every step of every game in order, without gaps
    with sqlite3.connect(db) as conn:
        games = [g for (g,) in conn.execute("select id from games")]
        assert len(games) == 3
        for game_id in games:
            idx = [i for (i,) in conn.execute("select idx from steps where game_id = ? order by idx", (game_id,))]
            assert idx and idx == list(range(len(idx)))

    with server(db, port), hello(port, tables[0]["code"], tables[0]["token"]) as (ws, view):
        assert view is not None and view["game_id"] == last["game_id"] and view["seat"] == 0
        if view["round"] == last["round"]:
            assert view["cup"] == last["cup"]
            assert view["history"][: len(last["history"])] == last["history"]
        else:
            assert view["round"] > last["round"]
        while view["result"] is None:  # play on to the end
            move = random_move(view, rng)
            if move is not None:
                ws.send(json.dumps({"type": "act", "action": move}))
            view = next_view(ws)
        record = get(port, f"/api/games/{last['game_id']}")
        assert list(replay(record))[-1].after.is_terminal
        # every view the person was told of before the kill is in the game, with the same dice
        played = rounds_of(record)
        for told in seen:
            hands, actions = played[told["round"]]
            assert sorted(hands["Ann"]) == told["cup"], (told["round"], hands, told["cup"])
            assert [(h["seat"], h["action"]) for h in told["history"]] == [
                (told["seats"].index(name), action) for name, action in actions[: len(told["history"])]
            ]
        # the bot-only tables were resumed too, and play on to their end
        deadline = time.monotonic() + 90
        for t in tables[1:]:
            while get(port, f"/api/tables/{t['code']}")["status"] != "finished":
                assert time.monotonic() < deadline, "a resumed table stopped playing"
                time.sleep(0.2)


def test_a_bad_database_url_is_refused_clearly(tmp_path: Path) -> None:
    run = subprocess.run(
        [str(EXE), "serve", "--port", "0", "--database-url", "mysql://nobody@nowhere/x"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode != 0
    assert "unsupported database URL" in run.stderr and "postgresql://" in run.stderr


@pytest.mark.parametrize("args", [["--port", "70000"], ["--grace", "-1"], ["--log-level", "loud"]])
def test_bad_serve_arguments_are_refused(args: list[str]) -> None:
    run = subprocess.run([str(EXE), "serve", *args], capture_output=True, text=True, timeout=30)
    assert run.returncode == 2 and "error:" in run.stderr.lower()


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://127.0.0.1:6379", "starts with redis://, rediss:// or unix://"),
        ("redis://127.0.0.1:1/0", "Redis does not answer at redis://127.0.0.1:1/0"),
    ],
)
def test_a_bad_redis_url_is_refused_clearly(tmp_path: Path, url: str, said: str) -> None:
    db = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    run = subprocess.run(
        [str(EXE), "serve", "--port", "0", "--database-url", db, "--redis-url", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert said in run.stderr and "Traceback" not in run.stderr, run.stderr
