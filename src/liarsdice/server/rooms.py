"""Live tables: seats, connections, the game, bots, timers, and the order of things.

A `Room` is one table. Everything that changes it runs under its lock, in this order: compute the
new state with the rules engine (nothing changes if the rules refuse), store every step in the
database and wait for the commit, then update memory, then tell each connection its own view.
So a client is never told of an action the database does not hold, and after a crash the steps in
the database rebuild every table exactly (same dice, same turn).

Bots play the bot seats, and play for a person whose turn timer ran out or who has been away for
longer than the grace period; the person gets the seat back by acting or reconnecting.
"""

from __future__ import annotations

import secrets
import time

from .botaccounts import REVOKED, still_live
from .connection import Link
from .limits import RoomError, clean_chat, hash_token
from .seatkinds import ACCOUNT_LEVEL, account_of
from .storage import ChatRow
from .tablerows import chat_history
from .tableseats import SeatedTable


class Room(SeatedTable):
    """One live table: its connections come and go, and its people chat (the table's other parts
    are the files below this one: table.py says which)."""

    async def attach(self, conn: Link, token: str | None, name: str | None = None) -> None:
        """Seat `conn` by its token, or let it watch (chatting as `name`, else "Spectator N")."""
        async with self.lock:
            if self.closed:  # put away while this connection said hello: the next one loads it again
                raise RoomError("not_ready", "this table was just put away: connect again")
            self.touched = time.monotonic()
            seat = None
            if token:
                wanted = hash_token(token)
                for i, s in enumerate(self.seats):
                    if s.kind == "human" and s.token_hash is not None and secrets.compare_digest(s.token_hash, wanted):
                        seat = i
                        break
                if seat is None:
                    raise RoomError("not_seated", "this token holds no seat at this table: join again or watch")
                account = account_of(self.seats[seat].bot_level)
                if account is not None and not await self.store.call(lambda s: still_live(s, account)):
                    raise RoomError(
                        "revoked", f"the bot account {account!r} was revoked: its seat tokens no longer work"
                    )
            conn.seat = seat
            conn.name = self.spectator_name(name) if seat is None else None
            self.conns.add(conn)
            if seat is not None:
                self.away_since.pop(seat, None)
                self.auto.discard(seat)
            chat = await self.store.call(lambda s: chat_history(s, self.table_id))
            conn.send(
                {
                    "type": "welcome",
                    "role": "player" if seat is not None else "spectator",
                    "seat": seat,
                    "host": seat == self.host_seat,
                    "name": self.seats[seat].name if seat is not None else conn.name,
                    "server_time": int(time.time() * 1000),
                }
            )
            conn.send({"type": "table", "table": self.table_json(self.manager.base_url)})
            conn.send(self.state_message(conn))
            conn.send({"type": "chat_history", "messages": chat})
            self.broadcast_table()
            self.schedule()

    async def detach(self, conn: Link) -> None:
        async with self.lock:
            if conn not in self.conns:  # let go already: its bot account was revoked
                return
            self.conns.discard(conn)
            self.touched = time.monotonic()
            seat = conn.seat
            if seat is not None and not any(c.seat == seat for c in self.conns):
                self.away_since[seat] = time.monotonic()
            self.broadcast_table()
            if not self.end_reveal_if_seen():
                self.schedule()

    async def revoke_account(self, name: str) -> None:
        """The bot account `name` was revoked: its seats' connections are closed, and each seat
        it held is away from now on (played by a bot after the grace period); `attach` refuses
        its seat tokens."""
        async with self.lock:
            level = ACCOUNT_LEVEL + name
            gone = [c for c in self.conns if c.seat is not None and self.seats[c.seat].bot_level == level]
            if not gone:
                return
            now = time.monotonic()
            for conn in gone:
                self.conns.discard(conn)
                conn.send(
                    {
                        "type": "error",
                        "code": "revoked",
                        "message": f"the bot account {name!r} was revoked",
                        "ref": None,
                    }
                )
                conn.close_code = REVOKED
                conn.stop()
                assert conn.seat is not None
                if not any(c.seat == conn.seat for c in self.conns):
                    self.away_since.setdefault(conn.seat, now)
            self.broadcast_table()
            self.schedule()

    # ----- chat -----

    async def chat(self, conn: Link, text: str) -> None:
        text = clean_chat(text)
        name = self.seats[conn.seat].name if conn.seat is not None else conn.name or "Spectator"
        at = int(time.time() * 1000)
        await self.store.call(lambda s: s.add(ChatRow(table_id=self.table_id, seat_no=conn.seat, name=name, text=text)))
        message = {"type": "chat", "from": name, "seat": conn.seat, "text": text, "at": at}
        for c in list(self.conns):
            c.send(message)

    def close(self) -> None:
        self.closed = True
        if self.task is not None:
            self.task.cancel()
        self.close_programs()
        for conn in list(self.conns):
            conn.stop()
