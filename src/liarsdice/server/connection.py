"""One websocket as a table sees it: its seat, its outgoing queue and its rate limit."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

log = logging.getLogger("liarsdice.server")

MAX_MESSAGE = 4096
RATE_PER_SECOND = 20.0
RATE_BURST = 40.0
FLOOD_LIMIT = 100  # refused messages in a row before the connection is closed
SEND_QUEUE = 256  # messages waiting for a slow client before it is dropped
SEND_TIMEOUT = 10.0


class TokenBucket:
    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Link(Protocol):
    """One websocket as a table sees it: a `Connection` of this process, or one held by another
    process while this one runs the table (relay.RemoteConnection)."""

    seat: int | None
    name: str | None  # a spectator's name in the chat
    closed: bool
    close_code: int
    bucket: TokenBucket
    refused_in_a_row: int
    odds: bool  # this socket asked for its seat's odds panel (ShowOdds)

    def send(self, message: dict[str, Any] | str) -> None: ...

    def stop(self) -> None: ...


def refuse(conn: Link, code: str, message: str, ref: int | None) -> None:
    """Tell `conn` that its message is refused, and why; FLOOD_LIMIT refusals in a row close it."""
    conn.refused_in_a_row += 1
    conn.send({"type": "error", "code": code, "message": message, "ref": ref})
    if conn.refused_in_a_row >= FLOOD_LIMIT:
        conn.stop()


class Connection:
    """One websocket: its seat (None: a spectator), its outgoing queue and its rate limit."""

    def __init__(
        self,
        send: Callable[[str], Awaitable[None]],
        close: Callable[[int], Awaitable[None]],
        rate: float = RATE_PER_SECOND,
        burst: float = RATE_BURST,
    ) -> None:
        self._send = send
        self._close = close
        self.seat: int | None = None
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=SEND_QUEUE)
        self.bucket = TokenBucket(rate, burst)
        self.refused_in_a_row = 0
        self.closed = False
        self.name: str | None = None  # a spectator's name in the chat (seats chat by their seat's name)
        self.odds = False  # its seat's odds panel asked for (ShowOdds): counted for it on its turns
        self.close_code = 1000  # the code the socket is closed with once the queue is sent
        self.close_reason = ""  # and the reason given with it

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        # allow_nan=False: NaN and Infinity are not JSON; better a failure here than a client
        # that cannot read what it is sent
        text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"), allow_nan=False)
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("closing a connection that does not read its messages")
            self.abort(1013)

    async def pump(self) -> None:
        """Send queued messages in order, each with a time limit, until told to stop."""
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                # a timeout scope rather than wait_for, which makes a task of every message
                async with asyncio.timeout(SEND_TIMEOUT):
                    await self._send(text)
        except Exception:
            self.closed = True
        with contextlib.suppress(Exception):
            await self._close(self.close_code)

    def stop(self) -> None:
        """Close after what is queued has been sent."""
        self.closed = True
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            self.abort(1001)

    def abort(self, code: int) -> None:
        """Close now, dropping what is queued."""
        self.closed = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)
