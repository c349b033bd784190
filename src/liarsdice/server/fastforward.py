"""Skip to the end: when every player still in is one of the server's bots, the rest of the game
is played at once, with no bot delay, no reveal pause and no turn timer, and the result shown.

The bots play exactly the moves they would have played at their own pace: each move is drawn
from the same seed and step number as the table's own turns draw it (tableplay.py), and the dice
from the same dealer, so skipping changes how soon the game ends, never how it ends.
"""

from __future__ import annotations

import asyncio
import logging
import random
from typing import Protocol

from ..bots import Bot
from ..rules import AnyAction, GameState
from .connection import Link
from .limits import RoomError
from .table import Step
from .tablerows import Seat

log = logging.getLogger("liarsdice.server")

MAX_STEPS = 200_000  # far more than any table's game takes; a guard, not a rule


class Room(Protocol):
    """What of a table (rooms.Room) skipping needs; a protocol, so this module imports no
    module that imports it back."""

    code: str
    status: str
    seed: int
    seats: list[Seat]
    state: GameState | None
    lock: asyncio.Lock

    @property
    def steps_done(self) -> int: ...

    def dealer(self, step: int) -> random.Random: ...

    async def bot_for(self, seat: int, level: str) -> Bot: ...

    async def advance(
        self, state: GameState, pending: list[Step], ref: tuple[Link, int | None] | None = None
    ) -> None: ...


def people_still_in(room: Room, state: GameState) -> list[str]:
    """The names of the seats still in the game that are not the server's bots."""
    active = state.view(None).active
    return [s.name for i, s in enumerate(room.seats) if active[i] and s.kind != "bot"]


async def finish_now(room: Room, conn: Link) -> int:
    """Play the game to its end at once (for anyone at the table, when only bots are still in);
    how many steps were played. RoomError says why not."""
    async with room.lock:
        state = room.state
        if state is None or room.status != "playing":
            raise RoomError("no_game", "no game is being played at this table")
        people = people_still_in(room, state)
        if people:
            who = " and ".join(people)
            raise RoomError(
                "not_ready",
                f"{who} {'is' if len(people) == 1 else 'are'} still playing: a game is skipped to its end "
                "only when every player still in is a bot",
            )
        active = state.view(None).active
        bots: dict[int, Bot] = {}
        for seat, s in enumerate(room.seats):
            if active[seat]:
                bots[seat] = await room.bot_for(seat, s.bot_level or "probability")
        first = room.steps_done
        pending = await asyncio.to_thread(_play_out, room, state, bots, first)
        if pending:
            await room.advance(state, pending)
        return len(pending)


def _play_out(room: Room, state: GameState, bots: dict[int, Bot], first: int) -> list[Step]:
    """Every step from `state` to the end (or to a bot that fails: the table's usual turns go on
    from there), dealt and played as the table would."""
    pending: list[Step] = []
    current = state
    index = first
    while not current.is_terminal and len(pending) < MAX_STEPS:
        try:
            if current.is_chance:
                action: AnyAction = current.sample_chance(room.dealer(index))
                after, events = current.apply(action)
            else:
                seat = current.to_act
                assert seat is not None
                bot = bots[seat]
                bot.rng.seed(f"{room.seed}:{index}:{seat}")
                action = bot.act(current.view(seat))
                after, events = current.apply(action, seat)
        except Exception:
            log.exception("a bot failed while table %s skipped to the end: the game goes on from there", room.code)
            break
        pending.append((current, action, after, events))
        current = after
        index += 1
    return pending
