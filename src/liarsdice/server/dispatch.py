"""One frame from a websocket: read into its message type (frames.py, messages.py), handed to the
handler registered for that type, or its sender told why not (docs/protocol.md, "Errors").

Each socket has its registry of handlers (`Handlers`): a table's (tablehandlers.py) and a bot
account's event socket's (botsocket.py). `dispatch` does what is the same for every message of
either: the rate limit, the reading, the refusal; the handler does what the message asks.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Generic, Protocol, TypeVar

from pydantic import TypeAdapter

from ..rules import OptionsError
from .connection import Link, refuse
from .frames import parse_frame
from .limits import RoomError
from .messages import Message

M = TypeVar("M", bound=Message)
U = TypeVar("U", bound=Message)  # the union of the messages one socket takes


class Sender(Protocol):
    """Who sent a message: at least its connection (a handler's sender says more)."""

    @property
    def conn(self) -> Link: ...


S = TypeVar("S", bound=Sender)


class Handlers(Generic[S, U]):
    """The handler of each message type one socket takes (read by `adapter`, one of `types`),
    each called with the message's sender (S) and the message."""

    def __init__(self, adapter: TypeAdapter[U], types: str) -> None:
        self.adapter = adapter
        self.types = types
        # Every value takes the message of its key: `on` pairs them, and checks the pair.
        self._by_type: dict[type[Message], Callable[[S, Any], Awaitable[None]]] = {}

    def on(self, kind: type[M], handler: Callable[[S, M], Awaitable[None]]) -> Handlers[S, U]:
        """Hand the messages of type `kind` to `handler`."""
        self._by_type[kind] = handler
        return self

    def kinds(self) -> set[type[Message]]:
        return set(self._by_type)

    def read(self, frame: str | bytes) -> U:
        """The message `frame` holds; RoomError says what is wrong with it."""
        return parse_frame(frame, self.adapter, self.types)

    def handler(self, message: M) -> Callable[[S, M], Awaitable[None]]:
        return self._by_type[type(message)]


async def dispatch(handlers: Handlers[S, U], sender: S, frame: str | bytes) -> None:
    """One message from `sender`'s connection: acted on by its handler, or refused (a refusal
    says why, with the message's ref; too many in a row close the connection)."""
    conn = sender.conn
    ref = None
    try:
        if not conn.bucket.take():
            raise RoomError("rate_limited", "too many messages: slow down")
        message = handlers.read(frame)
        ref = message.answer_ref()
        await handlers.handler(message)(sender, message)
        conn.refused_in_a_row = 0
    except RoomError as e:
        refuse(conn, e.code, e.message, ref)
    except OptionsError as e:
        conn.send({"type": "error", "code": "bad_options", "message": str(e), "ref": ref})


def refuse_here(conn: Link, frame: str | bytes) -> bool:
    """For a socket relayed to another process: answer here what need not cross (a binary
    frame, one message too many for the rate limit), as `dispatch` would; whether it did."""
    if isinstance(frame, bytes):
        problem = RoomError("bad_message", "a message is JSON text: binary frames are not read")
    elif not conn.bucket.take():
        problem = RoomError("rate_limited", "too many messages: slow down")
    else:
        return False
    refuse(conn, problem.code, problem.message, None)
    return True
