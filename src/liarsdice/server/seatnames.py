"""Names at a table: telling a joiner whose name was taken, and a player renaming their seat.

A seat's name is stored with the seat (as at join), so a new name lasts across reconnects and
a restart of the server. Names change only before the game starts: a game's record, its moves
and its ranking name the seats as they were when it started, and a rematch follows at once.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any, Protocol

from .connection import Link
from .limits import RoomError, clean_name
from .tablerows import Seat


class Room(Protocol):
    """What of a table (rooms.Room) names need; a protocol, so this module imports no module
    that imports it back."""

    code: str
    status: str
    rated: bool
    seats: list[Seat]
    conns: set[Link]
    lock: asyncio.Lock

    async def set_seats(self, changed: list[tuple[int, Seat]]) -> None: ...


def taken_names(room: Room, seat: int | None) -> set[str]:
    """The names, lower-cased, that seat `seat` may not take: the other seats' names, the
    "Seat N" of the others, and the spectators' chat names."""
    taken = {s.name.lower() for i, s in enumerate(room.seats) if i != seat and s.kind != "empty"}
    taken |= {f"seat {i + 1}" for i in range(len(room.seats)) if i != seat}
    taken |= {c.name.lower() for c in room.conns if c.seat is None and c.name and not c.closed}
    return taken


def join_answer(room: Room, seat: int, token: str, asked: str) -> dict[str, Any]:
    """The answer to a join: the seat, its token, the name it got, and why, if it is not the
    name asked for (another seat has it: a number was added)."""
    name = room.seats[seat].name
    wanted = clean_name(asked)  # as join cleaned it: it was accepted there
    notice = None
    if name != wanted:
        notice = (
            f"the name {wanted} is taken at this table, so you sit as {name}: "
            "you can change your name at the table before the game starts"
        )
    return {"seat": seat, "token": token, "code": room.code, "name": name, "notice": notice}


async def rename_seat(room: Room, conn: Link, name: object, ref: int | None = None) -> str:
    """The player at `conn`'s seat takes the name `name`, checked as a name at join is; every
    connection is told the table again, and the seat's own connections `renamed`."""
    seat = conn.seat
    if seat is None:
        raise RoomError("not_seated", "only a seated player has a name to change: take a seat first")
    new = clean_name(name)
    async with room.lock:
        current = room.seats[seat]
        if room.status != "open":
            raise RoomError("not_ready", "names change only before the game starts, while the table waits for players")
        if room.rated:
            raise RoomError("not_ready", "at a rated table a seat keeps its account's name")
        if current.bot_level is not None:  # a person's seat has none; a bot account's names it
            raise RoomError("not_ready", "a bot account's seat keeps the account's name")
        if new != current.name:
            if new.lower() in taken_names(room, seat):
                raise RoomError("name_taken", f"the name {new} is taken at this table: choose another")
            await room.set_seats([(seat, replace(current, name=new))])
        for c in list(room.conns):
            if c.seat == seat:
                c.send({"type": "renamed", "seat": seat, "name": new, "ref": ref if c is conn else None})
    return new
