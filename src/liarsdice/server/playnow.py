"""The lobby's "Play now" (docs/lobby.md): every process pairs the seekers waiting in the database
(seekrows.py) into tables (pairing.py), seats each at its table with its own secret as the seat
token, and starts the game by itself once every person is at the table.

Every process runs a pass twice a second, and at once when a seeker arrives at it: whichever
claims a group of seekers first makes their table (the claim is atomic: seekrows.claim_seekers),
so with several processes a seeker is never seated twice and a pass elsewhere costs one read.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import time
import uuid
from typing import Any

from ..levels import resolve
from .manager import RoomManager
from .online import publish_online
from .pairing import Match, pair
from .rooms import Room
from .seekrows import (
    Taken,
    claim_seekers,
    forget_old_seekers,
    release_seekers,
    seat_seekers,
    waiting_seekers,
    without_host,
)
from .table import NO_HOST
from .tablerows import Seat

log = logging.getLogger("liarsdice.server")

PASS_EVERY = 0.5  # seconds between pairing passes (a new seeker here wakes one at once)
ONLINE_EVERY = 2.0  # seconds between publishing this process's count of people online
FORGET_EVERY = 60.0  # seconds between deleting the seekers done with (seekrows.forget_old_seekers)
START_WAIT = 20.0  # seconds a new table waits for its people before it starts anyway


class PlayNow:
    """The pairing of one process (app.py runs `run` for as long as the server runs)."""

    def __init__(self, manager: RoomManager) -> None:
        self.manager = manager
        self.wake = asyncio.Event()
        cluster = manager.cluster
        self.name = cluster.id if cluster is not None else uuid.uuid4().hex[:12]
        self._claims = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()
        self.made = 0  # tables made by this process

    async def run(self) -> None:
        published = forgotten = 0.0
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), PASS_EVERY)
            self.wake.clear()
            try:
                await self.pass_once()
                if time.monotonic() - published >= ONLINE_EVERY:
                    published = time.monotonic()
                    await publish_online(self.manager)
                if time.monotonic() - forgotten >= FORGET_EVERY:
                    forgotten = time.monotonic()
                    await self.manager.store.call(forget_old_seekers)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the lobby's pairing pass failed: trying again")

    async def pass_once(self) -> list[str]:
        """Pair whoever waits now; the codes of the tables made."""
        waiting = await self.manager.store.call(waiting_seekers)
        if not waiting:
            return []
        about = {s.id: (name, token_hash) for s, name, token_hash in waiting}
        made = []
        for match in pair([s for s, _, _ in waiting]):
            code = await self.make(match, about)
            if code is not None:
                made.append(code)
        return made

    async def make(self, match: Match, about: dict[int, tuple[str, str]]) -> str | None:
        """Claim the match's seekers and make their table; its code, or None if another
        process claimed one of them first."""
        store = self.manager.store
        ids = [s.id for s in match.seekers]
        claim = f"{self.name}/{next(self._claims)}"
        try:
            await store.call(functools.partial(claim_seekers, ids=ids, claim=claim))
        except Taken:
            return None
        try:
            room = await self.seat(match, about)
        except Exception:
            log.exception("could not make a Play now table: its seekers wait again")
            await store.call(functools.partial(release_seekers, ids=ids, claim=claim))
            return None
        await store.call(functools.partial(seat_seekers, code=room.code, seats={s: i for i, s in enumerate(ids)}))
        self.made += 1
        task = asyncio.get_running_loop().create_task(start_when_seated(room))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return room.code

    async def seat(self, match: Match, about: dict[int, tuple[str, str]]) -> Room:
        """A new table with the match's people (each seat's token is its seeker's secret) and
        its bots; it has no host (the game starts by itself; everyone asks for a rematch)."""
        people = [about[s.id][0] for s in match.seekers]
        names = seat_names(people, match.bots)
        level = resolve(match.level)
        seats = [Seat(names[i], "human", None, about[s.id][1]) for i, s in enumerate(match.seekers)]
        seats += [Seat(name, "bot", level, None) for name in names[len(people) :]]
        # Rated seekers pair only with rated ones (pairing.py); a rated table needs two accounts
        # to rate anyone, so one person left with bots plays casual. Bots are never rated.
        rated = all(s.rated for s in match.seekers) and len(match.seekers) >= 2
        room, _ = await self.manager.create(
            match.preset, names[0], {"num_players": len(seats)}, 0, rated=rated, bots_rated=match.bots > 0
        )
        async with room.lock:
            await self.manager.store.call(functools.partial(without_host, table_id=room.table_id))
            room.host_seat = NO_HOST
            await room.set_seats(list(enumerate(seats)))
        return room


def seat_names(people: list[str], bots: int) -> list[str]:
    """The people's names, each made unique ("Ann (2)"), then "Bot 1", "Bot 2"... for the bots."""
    names: list[str] = []
    taken: set[str] = set()
    for name in people:
        unique, k = name, 2
        while unique.lower() in taken:
            unique, k = f"{name} ({k})", k + 1
        names.append(unique)
        taken.add(unique.lower())
    k = 1
    for _ in range(bots):
        while f"bot {k}" in taken:
            k += 1
        names.append(f"Bot {k}")
        taken.add(f"bot {k}")
    return names


async def start_when_seated(room: Room, wait: float = START_WAIT) -> bool:
    """Start a Play now table's game as soon as every person has the table open (or after
    `wait` seconds: a person not there by then is away, and a bot plays for them after the
    grace period, as for anyone whose connection drops). Whether it started."""
    end = time.monotonic() + wait
    while time.monotonic() < end and not room.closed:
        people = {i for i, s in enumerate(room.seats) if s.kind == "human"}
        here = {c.seat for c in room.conns if c.seat is not None and not c.closed}
        if room.status != "open" or people <= here:
            break
        await asyncio.sleep(0.05)
    async with room.lock:
        if room.closed or room.status != "open":
            return False
        level = next((s.bot_level for s in room.seats if s.kind == "bot" and s.bot_level), resolve("master"))
        left = [(i, Seat(f"Bot {i + 1}", "bot", level, None)) for i, s in enumerate(room.seats) if s.kind == "empty"]
        if left:  # someone left their seat before the start: a bot takes it
            await room.set_seats(left)
        now = time.monotonic()
        for i, s in enumerate(room.seats):
            if s.kind == "human" and not any(c.seat == i and not c.closed for c in room.conns):
                room.away_since.setdefault(i, now)
        await room.new_game()
        return True
