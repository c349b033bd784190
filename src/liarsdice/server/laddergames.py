"""The ladder's tables (ladder.py): kept going while fewer than `tables` ladder games are in
play, each with its entrants seated (an account invited to its seat, as a host would invite
it), and the games rated as they finish (ladderratings.py)."""

from __future__ import annotations

import asyncio
import functools
import itertools
import logging
import random
import time
from collections.abc import Mapping, Sequence
from typing import Any

from .connection import Connection
from .ladder import LadderConfig
from .ladderratings import entrant_json, games_per_entrant, ladder_in_play, note_game, rate_finished
from .limits import RoomError
from .manager import RoomManager
from .rooms import Room
from .seatkinds import ACCOUNT_LEVEL
from .tablerows import Seat

log = logging.getLogger("liarsdice.server.ladder")

REST_AFTER_NO_ANSWER = 600.0  # seconds an account that declined or did not answer is not invited to that preset


async def _nowhere(_text: str) -> None:  # pragma: no cover - the ladder's host sends nothing
    return None


async def _no_close(_code: int) -> None:  # pragma: no cover
    return None


class _LadderHost(Connection):
    """The ladder as the host of one of its tables: invitations go out in its name, and what a
    host would be told (an account declined) is counted and logged, not sent anywhere."""

    def __init__(self, code: str) -> None:
        super().__init__(_nowhere, _no_close)
        self.code = code
        self.declined = 0

    def send(self, message: dict[str, Any] | str) -> None:
        if isinstance(message, dict) and message.get("code") == "declined":
            self.declined += 1
            log.info("ladder table %s: %s", self.code, message.get("message"))


class Ladder:
    """Keeps `config.tables` ladder games going and rates them as they finish."""

    def __init__(self, manager: RoomManager, config: LadderConfig) -> None:
        self.manager = manager
        self.config = config
        self._presets = itertools.cycle(config.presets)
        # Seating only: which entrants meet and where they sit (the dice are the tables' own).
        self._rng = random.Random()
        # Tables waiting for invited accounts to sit down: they count as in play.
        self._opening: set[asyncio.Task[None]] = set()
        # (account, preset) -> when it may be invited again, after it declined or did not answer.
        self._resting: dict[tuple[str, str], float] = {}

    async def run(self) -> None:
        """Look after the ladder for as long as the server runs."""
        try:
            while True:
                try:
                    await self.tick()
                except asyncio.CancelledError:
                    raise
                except Exception:  # one bad look must not end the ladder: the next one tries again
                    log.exception("the ladder could not open or rate a game")
                await asyncio.sleep(self.config.every)
        finally:
            for task in self._opening:
                task.cancel()

    async def tick(self) -> None:
        store = self.manager.store
        rated = await store.call(rate_finished)
        if rated:
            log.info("ladder: rated %d games", rated)
        in_play = await store.call(ladder_in_play) + len(self._opening)
        for _ in range(self.config.tables - in_play):
            preset = next(self._presets)
            entrants = self._pick(preset, await store.call(functools.partial(games_per_entrant, preset=preset)))
            if any(e.startswith(ACCOUNT_LEVEL) for e in entrants):
                # Accounts answer in their own time: the table fills and starts on the side.
                task = asyncio.create_task(self.open_table(preset, entrants))
                self._opening.add(task)
                task.add_done_callback(self._opened)
            else:
                await self.open_table(preset, entrants)

    def _opened(self, task: asyncio.Task[None]) -> None:
        self._opening.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("the ladder could not open a table", exc_info=task.exception())

    def accounts_online(self, preset: str) -> list[str]:
        """The bot accounts online that may be invited to `preset`'s ladder now."""
        if not self.config.accounts:
            return []
        now = time.monotonic()
        lobby = self.manager.lobby
        return [
            ACCOUNT_LEVEL + name
            for name in lobby.online_names()
            if name not in lobby.operator_bots and self._resting.get((name, preset), 0) <= now
        ]

    def _pick(self, preset: str, counts: Mapping[str, int]) -> list[str]:
        """The entrants of a new table of `preset`: those with the fewest games there first
        (ties drawn at random), seated in random order."""
        pool = [*self.config.entrants, *self.accounts_online(preset)]
        self._rng.shuffle(pool)
        pool.sort(key=lambda e: counts.get(e, 0))
        chosen = pool[: self.config.seats]
        self._rng.shuffle(chosen)
        return chosen

    async def open_table(self, preset: str, entrants: list[str]) -> None:
        """Open a table of `preset` for `entrants`, invite its accounts and start it once they
        sit; an account that declines or does not answer within `accept_wait` seconds gives
        its seat to another entrant (the operator's programs and anchors always can play)."""
        seats = [
            Seat(f"Seat {i + 1}") if e.startswith(ACCOUNT_LEVEL) else self._seat(e, entrants)
            for i, e in enumerate(entrants)
        ]
        overrides = {**self.config.overrides, "num_players": self.config.seats}
        room = await self.manager.create_bot_table(preset, overrides, seats, self.config.turn_seconds)
        accounts = {i: e for i, e in enumerate(entrants) if e.startswith(ACCOUNT_LEVEL)}
        if accounts:
            host = _LadderHost(room.code)
            for seat, entrant in accounts.items():
                try:
                    self.manager.lobby.invite(entrant[len(ACCOUNT_LEVEL) :], room, seat, host)
                except RoomError:  # gone offline since: its seat is given to another below
                    host.declined += 1
            deadline = time.monotonic() + self.config.accept_wait
            while time.monotonic() < deadline:
                empty = [i for i in accounts if room.seats[i].kind == "empty"]
                if not empty or host.declined >= len(empty):
                    break
                await asyncio.sleep(min(0.05, self.config.every))
            await self._replace_absent(room, preset, entrants, accounts)
        game_id = await room.start_bots_only()
        store = self.manager.store
        await store.call(lambda s: note_game(s, game_id, preset, entrants))
        log.info("ladder: table %s, %s, %s", room.code, preset, " vs ".join(s.name for s in room.seats))

    def _seat(self, entrant: str, entrants: Sequence[str]) -> Seat:
        """The seat of an operator's program or an anchor, named as the leaderboard names it."""
        base = entrant_json(entrant)["name"]
        same = [e for e in entrants if entrant_json(e)["name"].lower() == base.lower()]
        k = same.index(entrant) + 1
        return Seat(base if k == 1 else f"{base} ({k})", "bot", entrant, None)

    async def _replace_absent(self, room: Room, preset: str, entrants: list[str], accounts: dict[int, str]) -> None:
        """Give the seats of invited accounts that did not sit to entrants who always can."""
        async with room.lock:
            absent = [i for i in accounts if room.seats[i].kind == "empty"]
            if not absent:
                return
            # Under the lock: a late acceptance finds its seat taken and is told so.
            now = time.monotonic()
            for i in absent:
                self._resting[(accounts[i][len(ACCOUNT_LEVEL) :], preset)] = now + REST_AFTER_NO_ANSWER
            counts = await self.manager.store.call(lambda s: games_per_entrant(s, preset))
            spare = [e for e in self.config.entrants if e not in entrants]
            self._rng.shuffle(spare)
            spare.sort(key=lambda e: counts.get(e, 0))
            changed = []
            for i, entrant in zip(absent, spare, strict=False):
                entrants[i] = entrant
                changed.append((i, self._seat(entrant, entrants)))
            await room.set_seats(changed)
