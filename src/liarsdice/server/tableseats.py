"""A table's seats before its game: joining, leaving, the bots the host seats or invites, and
the rules the host sets; each change stored, then held, then told to everyone."""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING, Any

from ..levels import resolve
from ..rules import OptionsError, find_preset
from .connection import Link
from .limits import RoomError, build_options, check_turn_seconds, clean_name, hash_token
from .seatkinds import ACCOUNT_LEVEL, OPERATOR_LEVEL
from .tableplay import PlayingTable
from .tablerows import Seat, save_rules, save_seat

if TYPE_CHECKING:
    from sqlalchemy.orm import Session


class SeatedTable(PlayingTable):
    """A table whose seats people take and the host fills."""

    async def join(self, name: str, account: str | None = None) -> tuple[int, str]:
        """Seat a person as `name`; at a rated table only a signed-in one (`account`, the name
        of their account, which is then the seat's name)."""
        name = clean_name(name)
        if self.rated:
            if account is None:
                raise RoomError("sign_in", "sign in to sit at a rated table: its games change its players' ratings")
            name = account
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "this table's game has started: watch it, or ask for a rematch")
            if self.bots_only:
                raise RoomError("not_ready", "this is a bot ladder table: its seats are for bots; watch it")
            empty = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if not empty:
                raise RoomError("not_ready", "every seat at this table is taken")
            seat = empty[0]
            if self.rated and any(s.kind == "human" and s.name.lower() == name.lower() for s in self.seats):
                raise RoomError("not_ready", f"{name} sits at this rated table already: one seat per account")
            name = self._unique_name(name, seat)
            token = secrets.token_urlsafe(24)
            await self.set_seats([(seat, Seat(name, "human", None, hash_token(token)))])
            return seat, token

    async def hand_over(self, seat: object, token_hash: object) -> tuple[str, str]:
        """A new token for `seat`, if it still holds the token whose hash is `token_hash` (its
        signed-in owner takes it on another device: personseats.py); the seat's name and token."""
        if not isinstance(seat, int) or not isinstance(token_hash, str) or not 0 <= seat < len(self.seats):
            raise RoomError("not_seated", "no such seat at this table")
        async with self.lock:
            held = self.seats[seat]
            if (
                held.kind != "human"
                or held.token_hash is None
                or not secrets.compare_digest(held.token_hash, token_hash)
            ):
                raise RoomError(
                    "not_seated", "this seat is not yours any more: someone else sits there, or it was left"
                )
            token = secrets.token_urlsafe(24)
            await self.set_seats([(seat, Seat(held.name, held.kind, held.bot_level, hash_token(token)))])
            return held.name, token

    def _unique_name(self, name: str, seat: int) -> str:
        taken = {s.name.lower() for i, s in enumerate(self.seats) if i != seat and s.kind != "empty"}
        taken |= {f"seat {i + 1}" for i in range(len(self.seats)) if i != seat}
        if name.lower() not in taken:
            return name
        k = 2
        while f"{name} ({k})".lower() in taken:
            k += 1
        return f"{name} ({k})"

    async def leave(self, conn: Link) -> None:
        """A seated player gives the seat up before the start (the host keeps the table)."""
        seat = conn.seat
        if seat is None:
            raise RoomError("not_seated", "spectators have no seat to leave")
        if seat == self.host_seat:
            raise RoomError("not_host", "the host keeps the table: there is no leaving it")
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "seats can be left only before the game starts")
            former = self.seats[seat].name
            await self.set_seats([(seat, Seat(f"Seat {seat + 1}"))])
            for c in self.conns:
                if c.seat == seat:
                    c.seat = None  # watching from now on, chatting under the same name
                    c.name = self.spectator_name(former)
                    c.send(
                        {
                            "type": "welcome",
                            "role": "spectator",
                            "seat": None,
                            "host": False,
                            "name": c.name,
                            "server_time": int(time.time() * 1000),
                        }
                    )
            self.away_since.pop(seat, None)
            self.broadcast_table()  # the seat's connections now watch

    def bots_allowed(self) -> None:
        """Bots sit at a rated table only where its host said so when making it."""
        if self.rated and not self.bots_rated:
            raise RoomError("not_ready", "bots may not sit at this rated table: its host did not allow them")

    async def fill_bots(self, conn: Link, level: str) -> None:
        self.host_only(conn)
        self.bots_allowed()
        try:
            level = resolve(level)  # stored as the bot that plays it: "Master" is "duel"
        except ValueError as e:
            raise RoomError("bad_message", str(e)) from None
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "bots can be seated only before the game starts")
            changed: list[tuple[int, Seat]] = []
            k = 1
            for i, s in enumerate(self.seats):
                if s.kind == "empty":
                    while f"bot {k}" in {x.name.lower() for x in self.seats}:
                        k += 1
                    changed.append((i, Seat(f"Bot {k}", "bot", level, None)))
                    k += 1
            if not changed:
                raise RoomError("not_ready", "there is no empty seat to fill")
            await self.set_seats(changed)

    async def clear_bots(self, conn: Link) -> None:
        self.host_only(conn)
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "bots can leave only before the game starts")
            await self.set_seats([(i, Seat(f"Seat {i + 1}")) for i, s in enumerate(self.seats) if s.kind == "bot"])

    def _empty_seat(self, seat: int | None) -> int:
        """`seat` if it is empty (the first empty seat if None), else RoomError saying why not
        (bots are what fill seats this way: not at a rated table that does not allow them)."""
        self.bots_allowed()
        if self.status != "open":
            raise RoomError("not_ready", "bots can be seated only before the game starts")
        empty = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
        if seat is None:
            if not empty:
                raise RoomError("not_ready", "there is no empty seat to fill")
            return empty[0]
        if seat not in empty:
            free = ", ".join(str(i) for i in empty) or "none"
            raise RoomError("not_ready", f"seat {seat} is not empty: the empty seats are {free}")
        return seat

    async def invite_bot(self, conn: Link, name: str, seat: int | None) -> None:
        """The host invites an operator's bot (seated at once) or an online bot account (which
        is asked, and takes the seat if it accepts while the seat is still empty)."""
        self.host_only(conn)
        lobby = self.manager.lobby
        async with self.lock:
            seat = self._empty_seat(seat)
            if name in lobby.operator_bots:
                await self.set_seats([(seat, Seat(self._unique_name(name, seat), "bot", OPERATOR_LEVEL + name, None))])
                return
            lobby.invite(name, self, seat, conn)

    async def seat_account(self, name: str, seat: int | None) -> tuple[int, str]:
        """Seat the bot account `name` (it accepted an invitation): the seat and its token."""
        async with self.lock:
            seat = self._empty_seat(seat)
            token = secrets.token_urlsafe(24)
            account = Seat(self._unique_name(name, seat), "human", ACCOUNT_LEVEL + name, hash_token(token))
            await self.set_seats([(seat, account)])
            return seat, token

    async def call_bots(self, conn: Link) -> int:
        """The host says this open table wants bots: every bot account online is invited to the
        first empty seat (the first to accept takes it); how many were told."""
        self.host_only(conn)
        async with self.lock:
            self._empty_seat(None)
            told = self.manager.lobby.call_all(self, conn)
        if not told:
            raise RoomError("no_bot", "no bot account is online to call")
        return told

    async def set_seats(self, changed: list[tuple[int, Seat]]) -> None:
        """Store the seats that changed, then hold them and tell everyone (under the lock)."""
        if not self.manager.runs(self):
            raise RoomError("not_ready", "this table is moving to another server: try again")
        table_id = self.table_id

        def save(session: Session) -> None:
            for i, seat in changed:
                save_seat(session, table_id, i, seat)

        await self.store.call(save)
        for i, seat in changed:
            self.seats[i] = seat
        self.broadcast_table()

    async def configure(
        self, conn: Link, preset: str | None, options: dict[str, Any] | None, turn_seconds: int | None
    ) -> None:
        self.host_only(conn)
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "the rules can change only before the game starts")
            new_preset = find_preset(preset).name if preset is not None else self.preset
            overrides = dict(options) if options is not None else dict(self.overrides)
            if self.rated and set(overrides) - {"num_players"}:
                raise RoomError("bad_options", "a rated table plays its preset's own rules: only the seats may change")
            try:
                built = build_options(new_preset, overrides)
            except OptionsError as e:
                raise RoomError("bad_options", str(e)) from e
            n = built.num_players
            if any(s.kind == "human" for s in self.seats[n:]):
                raise RoomError("bad_options", f"seats above {n} are taken by people: they must leave first")
            seconds = self.turn_seconds if turn_seconds is None else turn_seconds
            check_turn_seconds(seconds)
            seats = self.seats[:n] + [Seat(f"Seat {i + 1}") for i in range(len(self.seats), n)]
            overrides["num_players"] = n
            await self.store.call(lambda s: save_rules(s, self.table_id, new_preset, overrides, seconds, seats))
            self.preset, self.overrides, self.turn_seconds, self.seats = new_preset, overrides, seconds, seats
            self.broadcast_table()
