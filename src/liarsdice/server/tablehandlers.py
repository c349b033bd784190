"""What each message on a table's websocket does (docs/protocol.md), by concern: play, the seats
and the host's controls, chat, and the connection itself.

Each handler calls down into the table (rooms.py), its names (seatnames.py), a forfeit
(forfeit.py) or skipping to the end (fastforward.py), and answers its sender if the message asks
for an answer; a refusal is a RoomError, which dispatch.py tells the sender. `TABLE_HANDLERS` is
the registry: one handler for every message type.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import get_args

from .connection import Link
from .dispatch import Handlers
from .fastforward import finish_now
from .forfeit import forfeit_seat
from .hints import send_hint
from .limits import RoomError
from .messages import (
    CLIENT_MESSAGE,
    MESSAGE_TYPES,
    Act,
    AskHint,
    CallBots,
    ChatIn,
    ClearBots,
    ClientMessage,
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
    ShowOdds,
    Start,
)
from .rooms import Room
from .seatnames import rename_seat


@dataclass(frozen=True)
class AtTable:
    """Who sent a message: its table, its connection, and when it came (time.perf_counter)."""

    room: Room
    conn: Link
    received: float = field(default_factory=time.perf_counter)


# ----- play -----


async def act(at: AtTable, message: Act) -> None:
    await at.room.act(at.conn, message.action, message.ref)
    at.room.manager.metrics.action_latency.observe(time.perf_counter() - at.received)


async def seen(at: AtTable, message: Seen) -> None:
    await at.room.seen(at.conn, message.round)


async def finish(at: AtTable, message: Finish) -> None:
    await finish_now(at.room, at.conn)


async def forfeit(at: AtTable, message: ForfeitGame) -> None:
    await forfeit_seat(at.room, at.conn, message.reason)


# ----- the seats and the host's controls -----


async def fill_bots(at: AtTable, message: FillBots) -> None:
    await at.room.fill_bots(at.conn, message.level)


async def clear_bots(at: AtTable, message: ClearBots) -> None:
    await at.room.clear_bots(at.conn)


async def configure(at: AtTable, message: Configure) -> None:
    await at.room.configure(at.conn, message.preset, message.options, message.turn_seconds)


async def start(at: AtTable, message: Start) -> None:
    await at.room.start(at.conn)


async def rematch(at: AtTable, message: Rematch) -> None:
    await at.room.rematch(at.conn)


async def leave(at: AtTable, message: Leave) -> None:
    await at.room.leave(at.conn)


async def invite_bot(at: AtTable, message: InviteBot) -> None:
    await at.room.invite_bot(at.conn, message.bot, message.seat)


async def call_bots(at: AtTable, message: CallBots) -> None:
    told = await at.room.call_bots(at.conn)
    at.conn.send({"type": "called", "bots": told, "ref": message.ref})


async def rename(at: AtTable, message: Rename) -> None:
    await rename_seat(at.room, at.conn, message.name, message.ref)


# ----- chat -----


async def chat(at: AtTable, message: ChatIn) -> None:
    await at.room.chat(at.conn, message.text)


# ----- the connection -----


async def ping(at: AtTable, message: Ping) -> None:
    at.conn.send({"type": "pong", "t": message.t, "ref": message.ref})


async def hello_again(at: AtTable, message: Hello) -> None:
    raise RoomError("bad_message", "hello comes once, first")


async def show_odds(at: AtTable, message: ShowOdds) -> None:
    # From now on this socket's state carries its seat's odds on its turns (or stops): the
    # answer is the state as it stands, so a panel opened mid-turn fills at once.
    at.conn.odds = message.show
    state = at.room.state_message(at.conn)
    state["ref"] = message.ref
    at.conn.send(state)


async def hint(at: AtTable, message: AskHint) -> None:
    await send_hint(at.room, at.conn, message.ref)


TABLE_HANDLERS = (
    Handlers[AtTable, ClientMessage](CLIENT_MESSAGE, MESSAGE_TYPES)
    .on(Act, act)
    .on(Seen, seen)
    .on(Finish, finish)
    .on(ForfeitGame, forfeit)
    .on(FillBots, fill_bots)
    .on(ClearBots, clear_bots)
    .on(Configure, configure)
    .on(Start, start)
    .on(Rematch, rematch)
    .on(Leave, leave)
    .on(InviteBot, invite_bot)
    .on(CallBots, call_bots)
    .on(Rename, rename)
    .on(ChatIn, chat)
    .on(Ping, ping)
    .on(Hello, hello_again)
    .on(ShowOdds, show_odds)
    .on(AskHint, hint)
)
# A message type without a handler would end its socket with a KeyError: none is left out.
assert TABLE_HANDLERS.kinds() == set(get_args(ClientMessage))
