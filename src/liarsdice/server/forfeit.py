"""A bot account's seat forfeits its game: `liarsdice bot connect --bot-fallback forfeit`, whose
program failed a move, says `forfeit` on the seat's websocket (docs/protocol.md, "Bot accounts").

The game ends as a forfeit ends it in `play` and in the arena (`match.forfeit_result`): that seat
is placed last and every other seat shares first place, so the seat that forfeited cannot win and
the ladder rates the game as its loss. The record keeps the steps played (no result: the steps do
not end the game, and a replay checks that) and says in its meta who forfeited and why; the
table's `forfeit` says it to everyone at the table (made again from the stored record when the
table is loaded, after a restart say: `restored_forfeit`). Only a bot account's seat forfeits: a
person who stops playing is played by a bot, and gets the seat back by acting.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any, Protocol

from ..bots.base import Forfeited
from ..match import forfeit_result
from ..record import Recorder, result_to_json
from ..rules import GameOver, GameResult, GameState, Options
from .connection import Link
from .limits import RoomError
from .seatkinds import OPERATOR_LEVEL, account_of
from .tablerows import Seat


class Room(Protocol):
    """What of a table (rooms.Room) a forfeit needs; a protocol, so that this module imports no
    module that imports it back."""

    status: str
    game_id: int | None
    seats: list[Seat]
    state: GameState | None
    recorder: Recorder | None
    lock: asyncio.Lock
    forfeited: dict[str, Any] | None
    bot_levels: dict[int, tuple[str, int | None]]
    program_ends: dict[int, tuple[Any, ...]]

    async def finish(self) -> None: ...

    def schedule(self) -> None: ...

    def broadcast_state(self, ref: tuple[Link, int | None] | None = None) -> None: ...


async def forfeit_seat(room: Room, conn: Link, reason: str) -> None:
    """End the game at `conn`'s seat by its forfeit; RoomError says why not."""
    async with room.lock:
        state = room.state
        if state is None or room.status != "playing" or room.recorder is None:
            raise RoomError("no_game", "no game is being played at this table")
        seat = conn.seat
        if seat is None:
            raise RoomError("not_seated", "spectators have no game to forfeit")
        if account_of(room.seats[seat].bot_level) is None:
            raise RoomError(
                "not_ready",
                "only a bot account's seat forfeits (its program failed a move): "
                "a person who stops playing is played by a bot until they act again",
            )
        name = room.seats[seat].name
        reason = " ".join(reason.split()) or "forfeited"
        result = forfeit_result(len(room.seats), seat, state.options.rounds == "single")
        room.forfeited = forfeit_json(seat, reason, result, state.seats)
        meta = room.recorder.data["meta"]
        meta["forfeit"] = {"seat": name, "reason": reason}
        meta["stopped"] = f"{name} forfeited"
        # The operator's programs at the table are told as `play` tells every bot of a forfeit.
        ending = (Forfeited(seat, reason), GameOver(result))
        for other, (level, game_id) in room.bot_levels.items():
            if level.startswith(OPERATOR_LEVEL) and game_id == room.game_id:
                room.program_ends[other] = ending
        await room.finish()
        room.schedule()  # the seat's turn timer, or a bot's move, is called off
        room.broadcast_state()


def forfeit_json(seat: int, reason: str, result: GameResult, seats: Sequence[str]) -> dict[str, Any]:
    """The table's `forfeit` (docs/protocol.md, TableInfo): the seat, why, and the places."""
    return {"seat": seat, "reason": reason, "result": result_to_json(result, seats)}


def restored_forfeit(recorded: dict[str, Any] | None, seats: Sequence[str], options: Options) -> dict[str, Any] | None:
    """The table's `forfeit` again, from the stored record's `meta.forfeit` (`{seat, reason}`,
    the seat by its name: names at a table are unique); None if the game was not forfeited."""
    if recorded is None or recorded.get("seat") not in seats:
        return None
    seat = list(seats).index(recorded["seat"])
    result = forfeit_result(len(seats), seat, options.rounds == "single")
    return forfeit_json(seat, str(recorded.get("reason") or "forfeited"), result, seats)
