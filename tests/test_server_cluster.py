"""The server on several processes: two `liarsdice serve` sharing one PostgreSQL and one Redis.

Everything is seen from outside, as a browser sees it: real processes, started by the test on a
fresh PostgreSQL database and the suite's Redis, HTTP and table websockets. People on different
processes play whole games at one table; chat and presence cross the processes; the lobby and
history of each process show the other's tables and games; bots and turn timers run once. One
process is killed with SIGKILL in the middle of a game: the people reconnect (to the survivor, as
the browser page does, with a pause and retries), the game plays to its end, and every action a
person was told was done (its `state` with the act's `ref`) is in the finished record at its place.
Every message every seat was sent is checked against the record: a seat is sent its own cup and
no other before the reveal.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from conftest import free_port, new_postgres_database
from liarsdice.record import replay
from liarsdice.server.wsplayer import random_move
from test_server_restart import get, post

EXE = Path(sys.executable).with_name("liarsdice")
# Small, quick games: four seats of two dice (perudo allows 2 to 6 seats, any number of dice).
RULES: dict[str, Any] = {"num_players": 4, "dice_per_player": 2}
TAKEOVER = 15.0  # seconds from a kill to the game going on in the other process, at most
MOVED = "the table moved to another server: connect again"


# ----- the processes -----


class Node:
    """One `liarsdice serve` process: its port, and everything it wrote (read by a thread, so
    that a full pipe never holds it up)."""

    def __init__(self, name: str, port: int, proc: subprocess.Popen[str]) -> None:
        self.name = name
        self.port = port
        self.proc = proc
        self.lines: list[str] = []
        self.reader = threading.Thread(target=self._read, daemon=True)

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def log_problems(self) -> list[str]:
        return [line for line in self.lines if "ERROR" in line or "Traceback" in line]


def _start(name: str, database_url: str, redis_url: str) -> Node:
    port = free_port()
    command = [
        str(EXE),
        "serve",
        "--port",
        str(port),
        "--database-url",
        database_url,
        "--log-level",
        "warning",
        "--bot-delay",
        "0",
        "--reveal-pause",
        "0",
        "--redis-url",
        redis_url,
    ]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    first = proc.stdout.readline()
    node = Node(name, port, proc)
    if f"serving on http://127.0.0.1:{port}" not in first:
        proc.kill()
        rest = proc.stdout.read()
        raise AssertionError(f"process {name} did not start: {first}{rest}")
    node.reader.start()
    return node


@contextmanager
def cluster(database_url: str, redis_url: str, count: int = 2) -> Iterator[list[Node]]:
    """`count` serve processes on one database and one Redis, named A, B..."""
    nodes: list[Node] = []
    try:
        for i in range(count):
            nodes.append(_start(chr(ord("A") + i), database_url, redis_url))
        yield nodes
    except BaseException:
        for node in nodes:  # shown by pytest beside the failure
            print(f"--- the last of what process {node.name} wrote:", *node.lines[-40:], sep="\n")
        raise
    finally:
        for node in nodes:
            if node.alive:
                node.proc.terminate()
                try:
                    node.proc.wait(10)
                except subprocess.TimeoutExpired:
                    node.kill()


@pytest.fixture
def urls(postgres_server: str, redis_server: str) -> tuple[str, str]:
    """A fresh PostgreSQL database and the session's Redis, emptied: what one test's processes
    left there (leases, the sign-up counts of 127.0.0.1, which every test's browsers share)
    must not hold up the next test's."""
    import redis

    redis.Redis.from_url(redis_server).flushdb()
    return new_postgres_database(postgres_server), redis_server


def actions_counted(port: int) -> float:
    """`liarsdice_actions_total` of one process's /metrics."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        text = r.read().decode()
    found = re.search(r"^liarsdice_actions_total (\S+)$", text, re.MULTILINE)
    assert found, "no liarsdice_actions_total in /metrics"
    return float(found.group(1))


def seat_table(port: int) -> tuple[str, list[dict[str, Any]]]:
    """A perudo table made on `port` with every seat taken by a person: its code and the seats'
    tokens."""
    made = post(port, "/api/tables", {"preset": "perudo", "name": "P0", "options": RULES})
    joined = [{"seat": 0, "token": made["token"], "name": "P0"}]
    for i in range(1, RULES["num_players"]):
        got = post(port, f"/api/tables/{made['code']}/join", {"name": f"P{i}"})
        joined.append({"seat": got["seat"], "token": got["token"], "name": f"P{i}"})
    return made["code"], joined


# ----- the people -----


@dataclass
class Acked:
    """A move the server said it made: played at the view of `version` (the steps stored before
    it), so the record's step `version` is this move."""

    version: int
    seat: int
    action: list[Any]
    at: float  # when the answer came


@dataclass
class Player:
    """A person's browser at one seat (or a spectator's, `token` None): it keeps every message,
    plays random legal moves when `moves`, and reconnects when its socket closes."""

    name: str
    seat: int | None
    token: str | None
    code: str
    ports: list[int]  # the processes to connect to, preferred first
    rng: random.Random
    moves: bool = True
    received: list[dict[str, Any]] = field(default_factory=list)
    acked: list[Acked] = field(default_factory=list)
    closes: list[tuple[int | None, str, float]] = field(default_factory=list)  # code, reason, when
    hellos: list[tuple[int, float]] = field(default_factory=list)  # the port, when
    views_at: list[tuple[float, int]] = field(default_factory=list)  # when, the view's version
    ws: ClientConnection | None = None
    view: dict[str, Any] | None = None
    table: dict[str, Any] | None = None
    pending: dict[int, tuple[int, list[Any]]] = field(default_factory=dict)
    acted_at: int = -1
    next_ref: int = 1
    on_act: Callable[[Player], None] | None = None  # called right after every move sent

    async def connect(self, within: float = TAKEOVER + 10) -> None:
        """Say hello to the first process that takes it, retrying with a short pause (link.js)."""
        deadline = time.monotonic() + within
        problems: list[str] = []
        while True:
            for port in self.ports:
                try:
                    await self._hello(port)
                    return
                except (OSError, ConnectionClosed, TimeoutError) as e:
                    problems.append(f"{port}: {type(e).__name__} {e}")
            assert time.monotonic() < deadline, f"{self.name} could not connect again: {problems[-6:]}"
            await asyncio.sleep(0.3)

    async def _hello(self, port: int) -> None:
        ws = await connect(f"ws://127.0.0.1:{port}/ws/{self.code}", open_timeout=5, close_timeout=1)
        try:
            await ws.send(json.dumps({"type": "hello", "token": self.token}))
            while True:
                m = await self._receive(ws, hello=True)
                if m["type"] == "chat_history":
                    break
        except BaseException:
            await ws.close()
            raise
        self.ws = ws
        self.hellos.append((port, time.monotonic()))
        self.pending.clear()  # moves sent on the old socket and never answered may be lost
        self.acted_at = -1

    async def _receive(self, ws: ClientConnection, hello: bool = False) -> dict[str, Any]:
        """The next message; an error fails the test, but for `not_ready` in answer to a hello
        (the table is changing processes: it comes on the same socket)."""
        m: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 20))
        self.received.append(m)
        kind = m["type"]
        if kind == "error" and not (hello and m["code"] == "not_ready"):
            raise AssertionError(f"{self.name} was sent an error: {m}")
        if kind == "table":
            self.table = m["table"]
        elif kind == "state" and m["state"] is not None:
            self.view = m["state"]
            self.views_at.append((time.monotonic(), m["state"]["version"]))
            ref = m.get("ref")
            if ref in self.pending:
                version, action = self.pending.pop(ref)
                assert self.seat is not None
                self.acked.append(Acked(version, self.seat, action, time.monotonic()))
        return m

    async def send(self, message: dict[str, Any]) -> None:
        assert self.ws is not None
        await self.ws.send(json.dumps(message))

    async def next(self) -> dict[str, Any]:
        """The next message, across lost connections (each loss is noted, then connected again)."""
        while True:
            assert self.ws is not None
            try:
                return await self._receive(self.ws)
            except TimeoutError:
                last = self.view and {k: self.view[k] for k in ("version", "round", "to_act", "result")}
                raise AssertionError(f"{self.name} was sent nothing for 20 s; its last view: {last}") from None
            except ConnectionClosed as e:
                self.closes.append((e.rcvd.code if e.rcvd else None, e.rcvd.reason if e.rcvd else "", time.monotonic()))
                await self.connect()

    async def play(self) -> dict[str, Any]:
        """Play (or watch) to the end of the game; the last view."""
        while True:
            if self.view is not None and self.view["result"] is not None:
                return self.view
            await self._move()
            await self.next()

    async def _move(self) -> None:
        view = self.view
        if not self.moves or view is None or view["to_act"] != self.seat or view["version"] <= self.acted_at:
            return
        move = random_move(view, self.rng)
        if move is None:
            return
        ref = self.next_ref
        self.next_ref += 1
        self.pending[ref] = (view["version"], move)
        self.acted_at = view["version"]
        try:
            await self.send({"type": "act", "action": move, "ref": ref})
        except ConnectionClosed:
            return  # noted when the next receive finds the socket closed
        if self.on_act is not None:
            self.on_act(self)

    async def wait_for(self, what: str, check: Callable[[dict[str, Any]], bool], within: float = 15) -> dict[str, Any]:
        """Messages up to the first for which `check` is true (`what` it is, for the failure)."""
        deadline = time.monotonic() + within
        while True:
            try:
                m = await asyncio.wait_for(self.next(), max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                raise AssertionError(f"{self.name} was not sent {what} within {within} s") from None
            if check(m):
                return m

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


def players(code: str, seats: list[dict[str, Any]], ports: list[list[int]], seed: int) -> list[Player]:
    return [
        Player(s["name"], s["seat"], s["token"], code, ports[i], random.Random(seed * 100 + i))
        for i, s in enumerate(seats)
    ]


async def start_and_play(people: list[Player]) -> dict[str, Any]:
    """Connect everyone, have the first (the host) start the game, play it to its end; the
    host's last view."""
    for p in people:
        await p.connect()
    await people[0].send({"type": "start"})
    ends = await asyncio.wait_for(asyncio.gather(*(p.play() for p in people)), 120)
    for p in people:
        await p.close()
    return ends[0]


# ----- what the record says -----


def hands_by_round(record: dict[str, Any]) -> dict[int, dict[str, list[int]]]:
    """Per round, every seat's dice as rolled (perudo has no reroll)."""
    out: dict[int, dict[str, list[int]]] = {}
    for step in record["steps"]:
        if step.get("chance") == "roll":
            out[step["round"]] = step["hands"]
        assert step.get("chance") != "reroll", "these checks know no reroll"
    return out


def moves_in(record: dict[str, Any]) -> int:
    """The players' moves in a record (its other steps are dealt by luck)."""
    return sum(1 for step in record["steps"] if "action" in step)


def check_acked(people: list[Player], record: dict[str, Any]) -> int:
    """Every acknowledged move is the record's step at its place; how many there were."""
    steps = record["steps"]
    seats = record["seats"]
    count = 0
    for p in people:
        for a in p.acked:
            assert a.version < len(steps), f"{p.name}'s move {a.action} (step {a.version}) is not in the record"
            assert steps[a.version] == {"seat": seats[a.seat], "action": a.action}, (
                f"{p.name}'s acknowledged move {a.action} at step {a.version}, but the record has {steps[a.version]}"
            )
            count += 1
    return count


_SECRET_KEYS = {"cup", "hands"}
# Where a message may hold dice: the seat's own cup, and the reveal of a round that ended.
_CUP_PLACES = {("state", "cup"), ("state", "legal", "push", "cup"), ("state", "last_round", "hands")}
# Fields that hold only public numbers (moves, counts, flags, the rules): lists of numbers in them
# are no cup.
_PUBLIC = {"last_round", "result", "pushed", "history", "standing", "bids", "dice", "active", "passed"}
_PUBLIC |= {"exact_used", "folded", "chips", "paid", "options"}


def _walk(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, (*path, str(k)))
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v, path)


def check_no_leak(person: Player, record: dict[str, Any]) -> int:
    """Every message `person` was sent: its own cup only, the seat's own view, and other cups
    only in the reveal of a round that ended. How many views were checked against the record."""
    hands = hands_by_round(record)
    seat = person.seat
    mine = record["seats"][seat] if seat is not None else None
    current: dict[str, list[int]] | None = None  # the hands of the round being played
    checked = 0
    for m in person.received:
        where = f"{person.name} was sent {m}"
        if m["type"] == "welcome":
            assert m["seat"] == seat, where
        state = m.get("state") if m["type"] == "state" else None
        if state is not None:
            assert state["seat"] == seat, where
            over = state["result"] is not None
            current = None if over else hands[state["round"]]
            if seat is None:
                assert state["cup"] == [] and state["legal"] is None, where
            elif not over and state["dice"][seat] > 0:
                assert current is not None and mine is not None
                assert state["cup"] == sorted(current[mine]), where
                checked += 1
            legal = state.get("legal")
            if legal and legal.get("push"):
                assert legal["push"]["cup"] == state["cup"], where
            if state["last_round"] is not None and not over:
                assert state["last_round"]["round"] < state["round"], where
            assert "bot_view" not in state, where
        for path, value in _walk(m):
            if path and path[-1] in _SECRET_KEYS:
                assert path in _CUP_PLACES, f"dice under {'.'.join(path)}: {where}"
            if current is None or _PUBLIC & set(path) or not isinstance(value, list) or len(value) < 2:
                continue
            if all(isinstance(v, int) and not isinstance(v, bool) for v in value):
                for name, hand in current.items():
                    if name != mine and len(hand) >= 2 and sorted(value) == sorted(hand):
                        own = current.get(mine) if mine is not None else None
                        assert own is not None and sorted(own) == sorted(hand), (
                            f"{name}'s hidden dice {hand} under {'.'.join(path)}: {where}"
                        )
    return checked


def check_finished(port: int, game_id: int, people: list[Player], least: int = 4) -> dict[str, Any]:
    """The record of a finished game: it replays to its end, every acknowledged move is in it
    (`least` of them at the least, so that the check checks something), and nobody was sent
    another's hidden die."""
    record: dict[str, Any] = get(port, f"/api/games/{game_id}")
    assert list(replay(record))[-1].after.is_terminal
    acked = check_acked(people, record)
    assert acked >= least, f"only {acked} acknowledged moves"
    views = {p.name: check_no_leak(p, record) for p in people}
    assert sum(views.values()) >= 2 * least, f"only {views} views checked"
    return record


# ----- the tests -----


def chat_line(text: str) -> Callable[[dict[str, Any]], bool]:
    return lambda m: m["type"] == "chat" and m["text"] == text


def test_people_on_two_processes_play_one_table(urls: tuple[str, str]) -> None:
    database_url, redis_url = urls
    with cluster(database_url, redis_url) as (a, b):
        code, seats = seat_table(a.port)
        # seats 0 and 1 on A (where the table was made), 2 and 3 and a spectator on B
        people = players(code, seats, [[a.port], [a.port], [b.port], [b.port]], seed=1)
        watcher = Player("watcher", None, None, code, [b.port], random.Random(9))

        async def scenario() -> dict[str, Any]:
            for p in [*people, watcher]:
                await p.connect()
            # presence crosses the processes: everyone sees all four seats connected
            for p in [*people, watcher]:
                if not (p.table and all(s["connected"] for s in p.table["seats"])):
                    await p.wait_for(
                        "a table with all four seats connected",
                        lambda m: m["type"] == "table" and all(s["connected"] for s in m["table"]["seats"]),
                    )
            # chat crosses the processes, both ways
            for sender, line in ((people[0], "from A"), (people[3], "from B")):
                await sender.send({"type": "chat", "text": line})
                for p in [*people, watcher]:
                    said = [m for m in p.received if chat_line(line)(m)]
                    if not said:
                        said = [await p.wait_for(f"the chat line {line!r}", chat_line(line))]
                    assert said[0]["from"] == sender.name and said[0]["seat"] == sender.seat
            await people[0].send({"type": "start"})
            ends = await asyncio.wait_for(asyncio.gather(*(p.play() for p in [*people, watcher])), 120)
            for p in [*people, watcher]:
                await p.close()
            return ends[0]

        last = asyncio.run(scenario())
        record = check_finished(b.port, last["game_id"], [*people, watcher])
        # every move made once, by A (which runs the table): B, relaying, made none
        assert (actions_counted(a.port), actions_counted(b.port)) == (moves_in(record), 0)
        assert all(p.closes == [] for p in people), "a socket closed though no process went away"
        assert a.log_problems() == [] and b.log_problems() == []


def _kill_mid_game(urls: tuple[str, str], kill_maker: bool, seed: int) -> None:
    """Seats 0 and 1 on A (which made the table, so runs it), 2 and 3 on B; each falls back on
    the other process. Once six moves have been acknowledged, one process is killed right after
    the next move is sent (so that it is on its way)."""
    database_url, redis_url = urls
    with cluster(database_url, redis_url) as (a, b):
        victim, survivor = (a, b) if kill_maker else (b, a)
        code, seats = seat_table(a.port)
        people = players(code, seats, [[a.port, b.port]] * 2 + [[b.port, a.port]] * 2, seed)
        killed: list[float] = []

        def kill_when_under_way(_: Player) -> None:
            if not killed and sum(len(p.acked) for p in people) >= 6:
                victim.kill()
                killed.append(time.monotonic())

        for p in people:
            p.on_act = kill_when_under_way
        last = asyncio.run(start_and_play(people))
        assert killed, "the game ended before the kill"
        kill = killed[0]
        assert not victim.alive and survivor.alive
        known = max(version for p in people for when, version in p.views_at if when <= kill)

        for p in people:
            after = [port for port, when in p.hellos if when > kill]
            lost = [c for c in p.closes if c[2] > kill]
            if p.ports[0] == victim.port:
                # its process went away: the socket dropped, and it plays on through the survivor
                assert lost and lost[0][0] != 1000, (p.name, p.closes)
                assert after and set(after) == {survivor.port}, (p.name, p.hellos)
            elif kill_maker:
                # relayed by the survivor to the table's dead process: told to connect again
                assert (1012, MOVED) in [(c[0], c[1]) for c in lost], (p.name, p.closes)
                assert after and set(after) == {survivor.port}, (p.name, p.hellos)
            else:
                assert p.closes == [] and after == [], f"{p.name} is on the table's own process: {p.closes}"
            if after:
                # back at the table, and the game going on, within TAKEOVER of the kill
                back = min(when for _, when in p.hellos if when > kill)
                on = [when for when, version in p.views_at if when >= back and version > known]
                assert on, f"{p.name} saw the game go no further after the kill"
                assert on[0] - kill < TAKEOVER, f"{p.name} saw the game go on {on[0] - kill:.1f} s after the kill"
        assert any(a.at > kill for p in people for a in p.acked), "no move was acknowledged after the kill"
        record = check_finished(survivor.port, last["game_id"], people)
        if not kill_maker:  # the survivor ran the whole game, and the killed process none of it
            assert actions_counted(survivor.port) == moves_in(record)
        assert survivor.log_problems() == [], survivor.log_problems()


def test_the_process_running_the_table_is_killed_mid_game(urls: tuple[str, str]) -> None:
    _kill_mid_game(urls, kill_maker=True, seed=2)


def test_a_process_relaying_players_is_killed_mid_game(urls: tuple[str, str]) -> None:
    _kill_mid_game(urls, kill_maker=False, seed=3)


def test_lobby_and_history_show_every_process(urls: tuple[str, str]) -> None:
    database_url, redis_url = urls
    with cluster(database_url, redis_url) as (a, b):
        on_a = post(a.port, "/api/tables", {"preset": "perudo", "name": "Ann", "options": RULES})
        on_b = post(b.port, "/api/tables", {"preset": "perudo", "name": "Cy", "options": RULES})
        bo = post(b.port, f"/api/tables/{on_a['code']}/join", {"name": "Bo"})  # A's table, joined on B
        assert bo["seat"] == 1
        for node in (a, b):
            lobby = {t["code"]: t for t in get(node.port, "/api/tables")}
            assert {on_a["code"], on_b["code"]} <= set(lobby), (node.name, lobby)
            assert lobby[on_a["code"]]["names"][:2] == ["Ann", "Bo"], (node.name, lobby[on_a["code"]])
            for code, names in ((on_a["code"], ["Ann", "Bo"]), (on_b["code"], ["Cy"])):
                seats = get(node.port, f"/api/tables/{code}")["seats"]
                assert [s["name"] for s in seats if s["kind"] != "empty"] == names, (node.name, code, seats)
        # a game at A's table, its host connected to B, Bo to A, two bots: once finished, it is
        # in the history of both and in the lobby of neither
        host = Player("Ann", 0, on_a["token"], on_a["code"], [b.port], random.Random(4))
        other = Player("Bo", 1, bo["token"], on_a["code"], [a.port], random.Random(5))

        async def game() -> dict[str, Any]:
            for p in (host, other):
                await p.connect()
            await host.send({"type": "fill_bots", "level": "random"})
            await host.wait_for(
                "the bots seated",
                lambda m: m["type"] == "table" and all(s["kind"] != "empty" for s in m["table"]["seats"]),
            )
            await host.send({"type": "start"})
            ends = await asyncio.wait_for(asyncio.gather(host.play(), other.play()), 60)
            for p in (host, other):
                await p.close()
            return ends[0]

        game_id = asyncio.run(game())["game_id"]
        for node in (a, b):
            assert game_id in [g["id"] for g in get(node.port, "/api/games")], node.name
            assert on_a["code"] not in {t["code"] for t in get(node.port, "/api/tables")}, "a finished table is open"
            assert get(node.port, f"/api/tables/{on_a['code']}")["status"] == "finished", node.name
        check_finished(a.port, game_id, [host, other], least=1)  # bots may leave them few moves
        assert a.log_problems() == [] and b.log_problems() == []


def _bots_and_a_person(urls: tuple[str, str], turn_seconds: int, moves: bool, seed: int) -> None:
    """A table made on A, its host (the one person) connected through B, three bots: every
    move is made once, and counted once, by the process that runs the table."""
    database_url, redis_url = urls
    with cluster(database_url, redis_url) as (a, b):
        made = post(
            a.port, "/api/tables", {"preset": "perudo", "name": "Ann", "options": RULES, "turn_seconds": turn_seconds}
        )
        host = Player("Ann", 0, made["token"], made["code"], [b.port], random.Random(seed), moves=moves)
        # someone watching on A too: A has a live connection at the table it runs, B relays
        watcher = Player("watcher", None, None, made["code"], [a.port], random.Random(seed))

        async def game() -> dict[str, Any]:
            await host.connect()
            await watcher.connect()
            await host.send({"type": "fill_bots", "level": "probability"})
            await host.wait_for(
                "the bots seated",
                lambda m: m["type"] == "table" and all(s["kind"] != "empty" for s in m["table"]["seats"]),
            )
            await host.send({"type": "start"})
            ends = await asyncio.wait_for(asyncio.gather(host.play(), watcher.play()), 90)
            for p in (host, watcher):
                await p.close()
            return ends[0]

        last = asyncio.run(game())
        record = get(b.port, f"/api/games/{last['game_id']}")
        assert list(replay(record))[-1].after.is_terminal
        moves_made = [s for s in record["steps"] if "action" in s]
        # one seat never acts twice in a row within a round (a round's first move follows a roll)
        for before, step in pairwise(record["steps"]):
            assert not ("action" in before and "action" in step and before["seat"] == step["seat"]), (before, step)
        counted = sum(actions_counted(node.port) for node in (a, b))
        assert counted == len(moves_made), f"the processes counted {counted} moves, the record has {len(moves_made)}"
        person = [s for s in moves_made if s["seat"] == "Ann"]
        assert person, "the person's seat never moved"
        if moves:
            check_acked([host], record)
        check_no_leak(host, record)
        check_no_leak(watcher, record)
        assert a.log_problems() == [] and b.log_problems() == [], a.log_problems() + b.log_problems()


def test_bots_run_once(urls: tuple[str, str]) -> None:
    _bots_and_a_person(urls, turn_seconds=0, moves=True, seed=5)


def test_a_turn_timer_runs_once(urls: tuple[str, str]) -> None:
    _bots_and_a_person(urls, turn_seconds=1, moves=False, seed=6)
