"""Every live table of one server: made, loaded from the database on first use (and after a
restart, every table in play), and put away from memory when idle."""

from __future__ import annotations

import asyncio
import functools
import secrets
import time
from typing import Any

from sqlalchemy import select

from ..record import FORMAT, VERSION, Recorder, replay
from ..rules import OptionsError, find_preset
from .botaccounts import BotLobby, account_of, revoked_among
from .limits import RoomError, build_options, clean_name, hash_token
from .metrics import ServerMetrics
from .rooms import Room, Settings, log
from .storage import Store, TableRow
from .tablerows import Seat, _create_table, _load_table

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
CODE_LENGTH = 6
_CODE_CHARS = frozenset(CODE_ALPHABET)


class RoomManager:
    """Every live table of one server, loaded from the database on first use."""

    def __init__(self, store: Store, settings: Settings, metrics: ServerMetrics | None = None) -> None:
        self.store = store
        self.settings = settings
        self.metrics = metrics or ServerMetrics()
        self.rooms: dict[str, Room] = {}
        self.base_url = ""
        self._loading = asyncio.Lock()
        self.lobby = BotLobby(settings.operator_bots)

    async def create(self, preset: str, name: str, overrides: dict[str, Any], turn_seconds: int) -> tuple[Room, str]:
        name = clean_name(name)
        try:
            options = build_options(preset, overrides)
        except OptionsError as e:
            raise RoomError("bad_options", str(e)) from e
        if not 0 <= turn_seconds <= 3600:
            raise RoomError("bad_options", "the turn timer is 0 (none) to 3600 seconds")
        preset = find_preset(preset).name
        overrides = {**overrides, "num_players": options.num_players}
        token = secrets.token_urlsafe(24)
        seats = [Seat(name, "human", None, hash_token(token))] + [
            Seat(f"Seat {i + 1}") for i in range(1, options.num_players)
        ]
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            table_id = await self.store.call(
                lambda s, code=code: _create_table(s, code, preset, overrides, turn_seconds, seats)  # type: ignore[misc]
            )
            if table_id is not None:
                room = Room(self, table_id, code, preset, overrides, turn_seconds, "open", 0, seats)
                self.rooms[code] = room
                return room, token
        raise RoomError("not_ready", "could not find a free table code")  # pragma: no cover

    async def create_bot_table(self, preset: str, overrides: dict[str, Any], seats: list[Seat]) -> Room:
        """A table with a bot in every seat and no host (the ladder's): nobody holds a seat token."""
        options = build_options(preset, overrides, len(seats))
        preset = find_preset(preset).name
        overrides = {**overrides, "num_players": options.num_players}
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            table_id = await self.store.call(
                lambda s, code=code: _create_table(s, code, preset, overrides, 0, seats)  # type: ignore[misc]
            )
            if table_id is not None:
                room = Room(self, table_id, code, preset, overrides, 0, "open", 0, list(seats))
                room.bots_only = True
                self.rooms[code] = room
                return room
        raise RoomError("not_ready", "could not find a free table code")  # pragma: no cover

    async def get(self, code: str) -> Room | None:
        code = code.strip().upper()
        if len(code) != CODE_LENGTH or not set(code) <= _CODE_CHARS:  # no table: the database need not look
            return None
        room = self.rooms.get(code)
        if room is not None:
            room.touched = time.monotonic()
            return room
        async with self._loading:
            room = self.rooms.get(code)
            if room is not None:
                return room
            data = await self.store.call(lambda s: _load_table(s, code))
            if data is None:
                return None
            room = self._restore(data)
            self.rooms[code] = room
        if room.state is not None and room.status == "playing":
            async with room.lock:
                if room.state.is_chance:  # stored at a new game, before its first deal
                    await room._advance(room.state, [])
                elif room.state.is_terminal:  # stopped between the last step and the result
                    await room._finish()
                room._turn_changed()
                room._schedule()
        return room

    def _restore(self, data: dict[str, Any]) -> Room:
        room = Room(
            self,
            data["id"],
            data["code"],
            data["preset"],
            dict(data["options"]),
            data["turn_seconds"],
            data["status"],
            data["host_seat"],
            list(data["seats"]),
            data["games_played"],
        )
        g = data["game"]
        if g is not None:
            record = {
                "format": FORMAT,
                "version": VERSION,
                "preset": g["preset"],
                "options": g["options"],
                "seats": g["seats"],
                "players": g["players"],
                "seed": g["seed"],
                "steps": g["steps"],
            }
            game_state = None
            for step in replay(record):
                if room.recorder is None:
                    room.game = step.before.game
                    room.recorder = Recorder(
                        room.game, seed=g["seed"], preset=g["preset"], players=g["players"], meta={"table": room.code}
                    )
                room.recorder.note(step.before, step.action, step.after, step.events, g["steps"][step.index])
                room._note_round(step.before, step.events)
                game_state = step.after
            if room.recorder is None:  # a game stored before its first step
                from ..record import game_from_record

                room.game = game_from_record(record)
                room.recorder = Recorder(room.game, seed=g["seed"], preset=g["preset"], players=g["players"])
                game_state = room.game.new_initial_state()
            room.recorder.data["meta"]["started"] = g["started"]
            room.state = game_state
            room.game_id = g["id"]
            room.seed = g["seed"]
        # Nobody is connected to a table just loaded: its people are away from now on, so their
        # turns fall to a bot after the grace period, as for anyone who loses the connection.
        now = time.monotonic()
        room.away_since = {i: now for i, s in enumerate(room.seats) if s.kind == "human"}
        return room

    async def restore_playing(self) -> int:
        """Load every table with a game in play (after a restart), so bots and timers go on."""
        codes = await self.store.call(
            lambda s: list(s.scalars(select(TableRow.code).where(TableRow.status == "playing")))
        )
        for code in codes:
            await self.get(code)
        return len(codes)

    def idle(self, room: Room, now: float) -> bool:
        """Whether `room` may leave memory: no game in play, nobody connected, nothing running
        or waiting, and not asked for in `unload_after` seconds."""
        return (
            room.status != "playing"
            and not room.conns
            and not room.lock.locked()
            and (room.task is None or room.task.done())
            and now - room.touched >= self.settings.unload_after
        )

    def unload_idle(self, now: float | None = None) -> int:
        """Drop the idle tables from memory (see `idle`); how many."""
        now = time.monotonic() if now is None else now
        gone = [code for code, room in self.rooms.items() if self.idle(room, now)]
        for code in gone:
            self.rooms.pop(code).close()
        return len(gone)

    async def sweep(self) -> None:
        """Unload idle tables now and then, for as long as the server runs."""
        every = max(1.0, min(60.0, self.settings.unload_after / 2))
        while True:
            await asyncio.sleep(every)
            gone = self.unload_idle()
            if gone:
                log.info("unloaded %d idle tables; %d in memory", gone, len(self.rooms))

    async def revoked(self, name: str) -> None:
        """The bot account `name` was revoked: let its event socket and every seat it plays here go."""
        self.lobby.revoked(name)
        for room in list(self.rooms.values()):
            await room.revoke_account(name)

    def accounts_here(self) -> set[str]:
        """The bot accounts online or playing a seat at a table in memory."""
        names = set(self.lobby.online)
        for room in self.rooms.values():
            names.update(
                n for c in room.conns if c.seat is not None and (n := account_of(room.seats[c.seat].bot_level))
            )
        return names

    async def watch_revocations(self) -> None:
        """Let go of bot accounts revoked by another process (`liarsdice bot revoke` on the same
        database) every `revocation_check` seconds, for as long as the server runs; a seat token
        of a revoked account is refused at once whatever this check's pace (`Room.attach`)."""
        while True:
            await asyncio.sleep(self.settings.revocation_check)
            here = self.accounts_here()
            if not here:
                continue
            try:
                revoked = await self.store.call(functools.partial(revoked_among, names=here))
            except Exception:
                log.exception("could not check bot accounts for revocations")
                continue
            for name in sorted(revoked):
                log.info("bot account %s was revoked: letting it go", name)
                await self.revoked(name)

    def close(self) -> None:
        for room in self.rooms.values():
            room.close()
