"""The leases behind several server processes (docs/scaling.md), tested in one process: two
`RoomManager`s, each with its own `Cluster` on the suite's Redis, share one database.

What the black-box tests (test_server_cluster.py) cannot force is tested here: a process that
loses a table's lease lets the table go and writes nothing more to it; one that cannot renew
its leases stops writing before they can expire; a job that must run once (the ladder) runs in
one process and moves to another when that one leaves.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from liarsdice.server.cluster import LEASE_SECONDS, Cluster
from liarsdice.server.connection import Connection
from liarsdice.server.limits import RoomError
from liarsdice.server.manager import RoomManager
from liarsdice.server.metrics import ServerMetrics
from liarsdice.server.relay import MOVED, RemoteTable
from liarsdice.server.rooms import Room
from liarsdice.server.settings import Settings
from liarsdice.server.storage import StepRow, Store
from liarsdice.server.wsplayer import random_move


class Socket(Connection):
    """A connection that keeps what it is sent, and how it was closed."""

    def __init__(self) -> None:
        async def nothing(*_: Any) -> None:
            return None

        super().__init__(nothing, nothing, rate=1e9, burst=1e9)
        self.messages: list[dict[str, Any]] = []

    def send(self, message: dict[str, Any] | str) -> None:
        import json

        if not self.closed:
            self.messages.append(json.loads(message) if isinstance(message, str) else message)

    def view(self) -> dict[str, Any] | None:
        states = [m["state"] for m in self.messages if m["type"] == "state" and m["state"] is not None]
        return states[-1] if states else None


@asynccontextmanager
async def process(db: str, redis_url: str, prefix: str) -> AsyncIterator[RoomManager]:
    """One server process's tables and link to the others (without its web server)."""
    store = await asyncio.to_thread(Store, db)
    cluster = Cluster(redis_url, prefix=prefix)
    await cluster.start()
    manager = RoomManager(store, Settings(grace=1000.0, bot_delay=0.0), cluster=cluster)
    watch = asyncio.create_task(manager.watch_cluster())
    try:
        yield manager
    finally:
        watch.cancel()
        manager.close()
        await cluster.stop()
        await asyncio.to_thread(store.close)


async def until(check: Callable[[], bool], seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, f"not within {seconds} s: {what}"
        await asyncio.sleep(0.05)


# Each test takes seconds; past this one fails where it waits (a hang seen once under a loaded
# CI, in the pytest-timeout's thread dump only the event loop's select).
TEST_SECONDS = 90


def run(test: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(asyncio.wait_for(test(), TEST_SECONDS))


def steps_stored(manager: RoomManager, game_id: int) -> int:
    return manager.store.call_sync(
        lambda s: s.scalar(select(func.count()).select_from(StepRow).where(StepRow.game_id == game_id))
    )


async def a_game_in_play(manager: RoomManager) -> tuple[Room, list[Socket]]:
    """A two-seat table of two people, both connected, the game started."""
    room, token = await manager.create("perudo", "Ann", {"num_players": 2}, 0)
    _, other_token = await room.join("Bob")
    sockets = [Socket(), Socket()]
    await room.attach(sockets[0], token)
    await room.attach(sockets[1], other_token)
    await room.start(sockets[0])
    return room, sockets


async def move(room: Room, sockets: list[Socket]) -> None:
    """The move of whoever is to act: a legal one from their own view."""
    assert room.state is not None and room.state.to_act is not None
    socket = sockets[room.state.to_act]
    view = socket.view()
    assert view is not None
    await room.act(socket, random_move(view, random.Random(len(socket.messages))) or ["challenge"], None)


def test_a_process_that_loses_a_tables_lease_lets_it_go(tmp_path: Path, redis_server: str) -> None:
    async def test() -> None:
        db = f"sqlite:///{tmp_path / 'db.sqlite3'}"
        async with process(db, redis_server, "t1") as a, process(db, redis_server, "t1") as b:
            room, sockets = await a_game_in_play(a)
            assert a.cluster is not None and b.cluster is not None
            assert isinstance(await b.locate(room.code), RemoteTable)
            # Another process takes the lease (as after a long pause of this one): at its next
            # renewal this one finds out, lets the table go and closes its sockets with 1012.
            await a.cluster.redis.set(a.cluster.owner_key(room.code), b.cluster.id, px=10_000)
            await until(lambda: room.code not in a.rooms, 3 * LEASE_SECONDS, "the table let go")
            assert all(s.closed and s.close_code == MOVED for s in sockets)
            assert room.closed
            game_id = room.game_id
            assert game_id is not None
            before = steps_stored(a, game_id)
            with pytest.raises(RoomError, match="moving to another server"):
                await move(room, sockets)
            assert steps_stored(a, game_id) == before

    run(test)


def test_a_process_that_cannot_renew_its_leases_stops_writing(tmp_path: Path, redis_server: str) -> None:
    async def test() -> None:
        db = f"sqlite:///{tmp_path / 'db.sqlite3'}"
        async with process(db, redis_server, "t2") as a:
            room, sockets = await a_game_in_play(a)
            assert a.cluster is not None and room.game_id is not None
            before = steps_stored(a, room.game_id)
            # As if Redis had not answered for longer than is safe: the lease may have expired.
            a.cluster.renewed = time.monotonic() - LEASE_SECONDS
            with pytest.raises(RoomError, match="moving to another server"):
                await move(room, sockets)
            assert steps_stored(a, room.game_id) == before
            a.cluster.renewed = time.monotonic()
            await move(room, sockets)
            assert steps_stored(a, room.game_id) > before

    run(test)


def test_a_job_for_one_process_runs_once_and_moves_when_it_leaves(tmp_path: Path, redis_server: str) -> None:
    async def test() -> None:
        db = f"sqlite:///{tmp_path / 'db.sqlite3'}"
        running: list[str] = []

        def job_of(name: str) -> Callable[[], Coroutine[Any, Any, None]]:
            async def job() -> None:
                running.append(name)
                try:
                    await asyncio.sleep(3600)
                finally:
                    running.remove(name)

            return job

        async with process(db, redis_server, "t3") as a:
            lead_a = asyncio.create_task(a.lead("~ladder", job_of("a")))
            async with process(db, redis_server, "t3") as b:
                lead_b = asyncio.create_task(b.lead("~ladder", job_of("b")))
                await until(lambda: bool(running), 5, "the job started")
                await asyncio.sleep(2 * LEASE_SECONDS)
                assert running == ["a"], "the job runs in one process only"
                # a leaves (its lease is let go at once, as at a restart): b takes the job over
                lead_a.cancel()
                assert a.cluster is not None
                await a.cluster.release("~ladder")
                await until(lambda: running == ["b"], 3 * LEASE_SECONDS, "the job moved to b")
                lead_b.cancel()

    run(test)


def test_a_table_nobody_runs_is_taken_over_with_its_game(tmp_path: Path, redis_server: str) -> None:
    async def test() -> None:
        db = f"sqlite:///{tmp_path / 'db.sqlite3'}"
        async with process(db, redis_server, "t4") as a, process(db, redis_server, "t4") as b:
            room, sockets = await a_game_in_play(a)
            await move(room, sockets)
            steps = room.steps_done
            # a stops renewing (as if killed): after its lease expires, b takes the table with
            # every step stored, though nobody asked b for it.
            assert a.cluster is not None
            for task in a.cluster._tasks:
                task.cancel()
            await until(lambda: room.code in b.rooms, 4 * LEASE_SECONDS, "b took the table over")
            taken = b.rooms[room.code]
            assert taken.status == "playing" and taken.steps_done == steps
            assert taken.state is not None and room.state is not None
            assert taken.state.view(None) == room.state.view(None)
            metrics = ServerMetrics()
            metrics.manager = b
            text = metrics.exposition().decode()
            assert "liarsdice_leases 1.0" in text
            assert 'liarsdice_relayed_sockets{direction="out"} 0.0' in text

    run(test)


def test_healthz_says_when_a_process_cannot_hold_tables(tmp_path: Path, redis_server: str) -> None:
    from fastapi.testclient import TestClient

    from liarsdice.server.app import create_app

    app = create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}", Settings(redis_url=redis_server))
    with TestClient(app) as client:
        answer = client.get("/healthz")
        assert answer.status_code == 200 and answer.json()["redis"] == "ok"
        manager: RoomManager = app.state.rooms
        assert manager.cluster is not None
        for task in manager.cluster._tasks:  # as if Redis had not answered for a while
            if task.get_name() == "cluster leases":
                client.portal.call(_cancel, task)
        manager.cluster.renewed = time.monotonic() - LEASE_SECONDS
        answer = client.get("/healthz")
        assert answer.status_code == 503 and "Redis has not answered" in answer.json()["redis"]


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
