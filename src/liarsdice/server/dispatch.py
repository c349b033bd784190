"""One message from a table's websocket: read, then acted on, or its sender told why not."""

from __future__ import annotations

import time

from ..rules import OptionsError
from .connection import FLOOD_LIMIT, Connection
from .fastforward import finish_now
from .forfeit import forfeit_seat
from .frames import parse_frame
from .limits import RoomError
from .messages import (
    CLIENT_MESSAGE,
    MESSAGE_TYPES,
    Act,
    CallBots,
    ChatIn,
    ClearBots,
    Configure,
    FillBots,
    Finish,
    ForfeitGame,
    Hello,
    InviteBot,
    Leave,
    Ping,
    Rematch,
    Rename,
    Seen,
    Start,
)
from .rooms import Room
from .seatnames import rename_seat


def refuse_here(conn: Connection, frame: str | bytes) -> bool:
    """For a socket relayed to another process: answer here what need not cross (a binary
    frame, one message too many for the rate limit), as `handle` would; whether it did."""
    if isinstance(frame, bytes):
        problem = RoomError("bad_message", "a message is JSON text: binary frames are not read")
    elif not conn.bucket.take():
        problem = RoomError("rate_limited", "too many messages: slow down")
    else:
        return False
    conn.refused_in_a_row += 1
    conn.send({"type": "error", "code": problem.code, "message": problem.message, "ref": None})
    if conn.refused_in_a_row >= FLOOD_LIMIT:
        conn.stop()
    return True


async def handle(room: Room, conn: Connection, frame: str | bytes) -> None:
    """One message from a connection: act on it, or tell that connection why not."""
    ref = None
    received = time.perf_counter()
    try:
        if not conn.bucket.take():
            raise RoomError("rate_limited", "too many messages: slow down")
        message = parse_frame(frame, CLIENT_MESSAGE, MESSAGE_TYPES)
        ref = message.ref
        if isinstance(message, Act):
            await room.act(conn, message.action, message.ref)
            room.manager.metrics.action_latency.observe(time.perf_counter() - received)
        elif isinstance(message, Ping):
            conn.send({"type": "pong", "t": message.t, "ref": message.ref})
        elif isinstance(message, ChatIn):
            await room.chat(conn, message.text)
        elif isinstance(message, FillBots):
            await room.fill_bots(conn, message.level)
        elif isinstance(message, ClearBots):
            await room.clear_bots(conn)
        elif isinstance(message, Configure):
            await room.configure(conn, message.preset, message.options, message.turn_seconds)
        elif isinstance(message, Start):
            await room.start(conn)
        elif isinstance(message, Rematch):
            await room.rematch(conn)
        elif isinstance(message, Leave):
            await room.leave(conn)
        elif isinstance(message, Seen):
            await room.seen(conn, message.round)
        elif isinstance(message, InviteBot):
            await room.invite_bot(conn, message.bot, message.seat)
        elif isinstance(message, CallBots):
            told = await room.call_bots(conn)
            conn.send({"type": "called", "bots": told, "ref": message.ref})
        elif isinstance(message, Rename):
            await rename_seat(room, conn, message.name, message.ref)
        elif isinstance(message, Finish):
            await finish_now(room, conn)
        elif isinstance(message, ForfeitGame):
            await forfeit_seat(room, conn, message.reason)
        elif isinstance(message, Hello):
            raise RoomError("bad_message", "hello comes once, first")
        conn.refused_in_a_row = 0
    except RoomError as e:
        conn.refused_in_a_row += 1
        conn.send({"type": "error", "code": e.code, "message": e.message, "ref": ref})
        if conn.refused_in_a_row >= FLOOD_LIMIT:
            conn.stop()
    except OptionsError as e:
        conn.send({"type": "error", "code": "bad_options", "message": str(e), "ref": ref})
