"""A table whose process was killed, reached through another process (docs/scaling.md).

The killed process's lease stands until it expires (3 s). A client that connects to the other
process meanwhile is told `not_ready` at once, while that lease still stands, and is then served
the table on the same socket once the lease has gone: never silence, and never a close (1012)
before anything. An HTTP request about the table is answered too, once the table is taken over,
rather than refused after waiting for a process that is gone.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from liarsdice.server.connection import Connection
from liarsdice.server.relay import MOVED, Gateway, Relayed
from test_server_cluster import RULES, cluster, seat_table, urls
from test_server_restart import get, post

__all__ = ["urls"]  # a fixture, used by name


def lease_holder_pid(redis_url: str, code: str) -> int | None:
    """The pid in the name of the process holding the table's lease (None: no process holds it)."""
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    try:
        holder = client.get(f"liarsdice:owner:{code}")
    finally:
        client.close()
    return None if holder is None else int(str(holder).split(":")[1])


async def first_and_rest(port: int, code: str, token: str, redis_url: str) -> tuple[Any, int | None, list[Any]]:
    """Say hello at `port`: the first message (or how the socket closed, if it closed first), the
    lease's holder just after it came, and every message up to `chat_history` (the table served)."""
    async with connect(f"ws://127.0.0.1:{port}/ws/{code}", open_timeout=10, close_timeout=1) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        try:
            first = json.loads(await asyncio.wait_for(ws.recv(), 20))
        except ConnectionClosed as e:
            return ("closed", e.rcvd.code if e.rcvd else None), None, []
        holder = await asyncio.to_thread(lease_holder_pid, redis_url, code)
        rest = [first]
        while rest[-1]["type"] != "chat_history":
            rest.append(json.loads(await asyncio.wait_for(ws.recv(), 20)))
        await ws.send(json.dumps({"type": "ping", "t": 1}))  # the socket stays open, served
        while rest[-1]["type"] != "pong":
            rest.append(json.loads(await asyncio.wait_for(ws.recv(), 20)))
        return first, holder, rest


def test_a_killed_owners_table_is_served_through_the_other_process(urls: tuple[str, str]) -> None:
    database_url, redis_url = urls
    with cluster(database_url, redis_url) as (a, b):
        code, seats = seat_table(a.port)  # made on A: A runs it
        assert lease_holder_pid(redis_url, code) == a.proc.pid
        a.kill()
        first, holder, rest = asyncio.run(first_and_rest(b.port, code, seats[2]["token"], redis_url))
        # told at once, while the dead process's lease still stood: not a silence, not a close
        assert first != ("closed", 1012), "the socket was closed (1012) before it was told anything"
        assert first["type"] == "error" and first["code"] == "not_ready", first
        assert holder == a.proc.pid, "not_ready came only once the dead process's lease had gone"
        assert "try again" not in first["message"]  # nothing to do: the table comes on this socket
        # then served on the same socket, once B took the table over
        welcome = next(m for m in rest if m["type"] == "welcome")
        assert welcome["seat"] == seats[2]["seat"] and welcome["role"] == "player"
        assert [m["type"] for m in rest].count("error") == 1, rest
        assert any(m["type"] == "state" for m in rest)
        assert lease_holder_pid(redis_url, code) == b.proc.pid
        assert b.log_problems() == [], b.log_problems()


def test_http_about_a_killed_owners_table_waits_for_the_takeover(urls: tuple[str, str]) -> None:
    database_url, redis_url = urls
    with cluster(database_url, redis_url) as (a, b):
        made = post(a.port, "/api/tables", {"preset": "perudo", "name": "Ann", "options": RULES})
        a.kill()
        # answered by B once it has the table, rather than 409 after waiting for A to answer
        info = get(b.port, f"/api/tables/{made['code']}")
        assert info["code"] == made["code"] and info["seats"][0]["name"] == "Ann"
        joined = post(b.port, f"/api/tables/{made['code']}/join", {"name": "Bo"})
        assert joined["seat"] == 1
        assert lease_holder_pid(redis_url, made["code"]) == b.proc.pid
        assert b.log_problems() == [], b.log_problems()


def test_a_socket_never_answered_is_kept_when_its_table_moves() -> None:
    """Where Redis cannot yet tell the owner is gone (its connection not yet closed), the socket
    is relayed to it and waits for its answer: when the table's lease leaves that owner, a socket
    it never answered is handed back to be served where the table goes, not closed with 1012
    before anything; one it served is closed (its page connects again)."""

    async def scenario() -> None:
        async def send(text: str) -> None:
            pass

        async def close(code: int) -> None:
            pass

        gateway = Gateway()
        waiting = Relayed(Connection(send, close), "ABCDEF", "dead")
        served = Relayed(Connection(send, close), "ABCDEF", "dead")
        let_go = Relayed(Connection(send, close), "GHJKLM", "alive")
        gateway.relayed.update({"w": waiting, "s": served, "l": let_go})
        gateway.deliver({"op": "out", "conn": "s", "text": '{"type": "welcome"}'})
        # the owner of GHJKLM let it go before serving the socket: it says so with a 1012 close
        gateway.deliver({"op": "close", "conn": "l", "code": MOVED})
        assert let_go.settled.is_set() and let_go.lost and not let_go.conn.closed
        assert gateway.moved({"ABCDEF": None}) == 1
        assert waiting.settled.is_set() and waiting.lost and not waiting.conn.closed
        assert served.conn.closed and served.conn.close_code == MOVED and not served.lost

    asyncio.run(scenario())
