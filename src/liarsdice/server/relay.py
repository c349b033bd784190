"""A table's websocket held by one process while another runs the table (docs/scaling.md).

Two halves. Where the socket is (the gateway), `relay_frames` reads the client's messages and posts
them to the process running the table; what comes back goes to the socket's own `Connection`.
Where the table runs (its owner), a `RemoteConnection` stands for the socket among the table's
connections: it is seated, counted as present and told its own seat's view like any other, and
what the table sends it is posted back to the gateway. Hidden dice never take a wrong turn: the
owner builds each view for the seat of the connection it is addressed to, as for a local one.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from .cluster import CALL_TIMEOUT, Cluster
from .connection import Connection, TokenBucket

MOVED = 1012  # "service restart": the table went to another process; the client connects again
MOVED_REASON = "the table moved to another server: connect again"
TRY_AGAIN = 1013  # "try again later": the table's process does not answer; the client connects again
TAKING_OVER = "the server that ran this table stopped: this one takes the table over within a few seconds"
NO_ANSWER = "the server running this table does not answer: connect again"
T = TypeVar("T")


@dataclass(eq=False)
class RemoteTable:
    """A table that another process runs (`owner`)."""

    code: str
    owner: str


@dataclass(eq=False)
class Relayed:
    """At the gateway: a socket whose table runs in the process `owner`."""

    conn: Connection
    code: str
    owner: str
    heard: bool = False  # the owner has answered the socket's hello
    lost: bool = False  # the owner went (or let the table go) before it answered
    settled: asyncio.Event = field(default_factory=asyncio.Event)  # heard or lost


class RemoteConnection:
    """At the owner: a socket held by the process `gateway`, as its table sees it (the same
    attributes and calls as `Connection`)."""

    def __init__(self, cluster: Cluster, gateway: str, key: str, code: str, rate: float, burst: float) -> None:
        self.cluster = cluster
        self.gateway = gateway
        self.key = key
        self.code = code
        self.seat: int | None = None
        self.name: str | None = None
        self.closed = False
        self.close_code = 1000
        self.bucket = TokenBucket(rate, burst)
        self.refused_in_a_row = 0
        self.odds = False
        # The client's messages in the order it sent them; None: it has gone.
        self.frames: asyncio.Queue[str | None] = asyncio.Queue()
        self.task: asyncio.Task[None] | None = None

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"), allow_nan=False)
        self.cluster.post(self.gateway, {"op": "out", "conn": self.key, "text": text})

    def stop(self) -> None:
        """Close the socket after what was sent to it (the gateway closes it with `close_code`)."""
        if self.closed:
            return
        self.closed = True
        self.cluster.post(self.gateway, {"op": "close", "conn": self.key, "code": self.close_code})
        self.frames.put_nowait(None)

    def abort(self, code: int) -> None:
        self.close_code = code
        self.stop()

    def gone(self) -> None:
        """The socket closed at the gateway, or the gateway is gone: nothing more is sent."""
        self.closed = True
        self.frames.put_nowait(None)


@dataclass
class Gateway:
    """This process's sockets whose tables run elsewhere, by their keys."""

    relayed: dict[str, Relayed] = field(default_factory=dict)

    def deliver(self, message: dict[str, Any]) -> None:
        """A message from an owner to one of these sockets."""
        relayed = self.relayed.get(message["conn"])
        if relayed is None:  # closed here meanwhile
            return
        if not relayed.heard:
            if message["op"] == "close" and int(message["code"]) == MOVED:
                # The owner let the table go before serving this socket: it is served where the table goes.
                relayed.lost = True
                relayed.settled.set()
                return
            relayed.heard = True
            relayed.settled.set()
        if message["op"] == "out":
            relayed.conn.send(message["text"])
        elif message["op"] == "close":
            relayed.conn.close_code = int(message["code"])
            relayed.conn.stop()

    def moved(self, owners: dict[str, str | None]) -> int:
        """Close the sockets whose table's owner is no longer the one they relay to (it died,
        or let the table go): their clients connect again and find its new process. A socket
        the owner never answered is not closed but served where the table goes (`relay`)."""
        closed = 0
        for relayed in list(self.relayed.values()):
            if relayed.code in owners and owners[relayed.code] != relayed.owner and not relayed.conn.closed:
                if not relayed.heard:
                    relayed.lost = True
                    relayed.settled.set()
                    continue
                relayed.conn.close_code = MOVED
                relayed.conn.close_reason = MOVED_REASON
                relayed.conn.stop()
                closed += 1
        return closed


async def relay_frames(
    cluster: Cluster,
    gateway: Gateway,
    conn: Connection,
    code: str,
    owner: str,
    hello: dict[str, Any],
    next_frame: Callable[[], Awaitable[str | bytes]],
    refuse: Callable[[Connection, str | bytes], bool],
) -> bool:
    """Relay the socket `conn` to the table `code` run by `owner`, until either side closes;
    False, with nothing read from the socket, if the owner did not answer the hello (it went,
    or let the table go, or said nothing for CALL_TIMEOUT): the socket is to be served where the
    table runs now.

    `hello` is the client's hello (token and name), already read and checked; `next_frame()`
    reads the client's next message (raising once the socket closes); `refuse(conn, frame)`
    answers here what need not cross to the owner (a binary frame, a flood), returning whether
    it did.
    """
    key = cluster.new_key()
    relayed = Relayed(conn, code, owner)
    gateway.relayed[key] = relayed
    cluster.post(owner, {"op": "attach", "code": code, "conn": key, "from": cluster.id, **hello})
    try:
        # Nothing is read until the owner answers: what the client sends meanwhile waits in
        # the socket for whichever process serves it.
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(relayed.settled.wait(), CALL_TIMEOUT)
        if not relayed.heard:
            return False
        while not conn.closed:
            frame = await next_frame()
            if not refuse(conn, frame):
                cluster.post(owner, {"op": "frame", "conn": key, "text": frame})
        return True
    finally:
        gateway.relayed.pop(key, None)
        with contextlib.suppress(Exception):
            cluster.post(owner, {"op": "detach", "conn": key})


async def relay(
    cluster: Cluster,
    gateway: Gateway,
    conn: Connection,
    table: RemoteTable,
    hello: dict[str, Any],
    next_frame: Callable[[], Awaitable[str | bytes]],
    refuse: Callable[[Connection, str | bytes], bool],
    take_over: Callable[[RemoteTable], Awaitable[T | RemoteTable | None]],
) -> T | None:
    """Serve the socket `conn` at `table`, which another process runs, through that process.

    If that process is gone (killed: Redis dropped its inbox at once, but its lease stands until
    it expires), the client is told `not_ready` at once, and served where the table goes once
    the lease has gone: `take_over(table)` waits for that. Returns the table (T) if it came to
    run here, for the caller to serve `conn` at; None once `conn` was served or told why not.
    """
    target: T | RemoteTable | None = table
    tries = 0
    while isinstance(target, RemoteTable) and not conn.closed:
        if tries == 3:  # an owner that keeps its lease and never answers
            conn.send({"type": "error", "code": "not_ready", "message": NO_ANSWER, "ref": None})
            conn.close_code, conn.close_reason = TRY_AGAIN, NO_ANSWER
            conn.stop()
            return None
        tries += 1
        if await cluster.listening(target.owner):
            code, owner = target.code, target.owner
            if await relay_frames(cluster, gateway, conn, code, owner, hello, next_frame, refuse):
                return None
        if tries == 1:
            conn.send({"type": "error", "code": "not_ready", "message": TAKING_OVER, "ref": None})
        target = await take_over(target)
    if conn.closed or isinstance(target, RemoteTable):
        return None
    if target is None:
        message = f"no table with the code {table.code!r}"
        conn.send({"type": "error", "code": "no_table", "message": message, "ref": None})
    return target
