"""The bot accounts online on this server (`/ws/bot`, botsocket.py), and the invitations to a
table's seat they are sent and answer (docs/protocol.md, "Bot accounts"); operator bots are
listed beside them."""

from __future__ import annotations

import itertools
import weakref
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from .botaccounts import REVOKED
from .cluster import Cluster, text_of
from .connection import Connection
from .limits import RoomError
from .storage import utcnow

if TYPE_CHECKING:
    from redis.typing import EncodableT, FieldT

INVITE_LIMIT = 32  # invitations one bot may have unanswered; older ones are dropped


class Table(Protocol):
    """A table run by this process, as an invitation to it needs it (rooms.Room); a protocol,
    so that this module imports no module that imports it back."""

    def invitation(self, seat: int | None) -> dict[str, Any]: ...

    async def seat_account(self, name: str, seat: int | None) -> tuple[int, str]: ...


class Host(Protocol):
    """Whoever an invitation answers: the host's Connection, the ladder, or a way to the host
    of a table run by another process."""

    def send(self, message: dict[str, Any]) -> None: ...


@dataclass
class Invite:
    id: int
    code: str  # the table's
    seat: int | None  # None: the first seat empty when it is accepted (a table that wants bots)
    host: Host  # what `send`s the host a message: its Connection, or a way to it in another process
    at: datetime
    room: Table | None = None  # the table, when it runs in this process


class _HostElsewhere:
    """The host of a table run by another process, as an invitation from there answers it."""

    def __init__(self, cluster: Cluster, process: str, key: str) -> None:
        self.cluster, self.process, self.key = cluster, process, key

    def send(self, message: dict[str, Any]) -> None:
        self.cluster.post(self.process, {"op": "tell", "host": self.key, "message": message})


class BotLobby:
    """The bot accounts connected to `/ws/bot`, and the invitations they have not answered.

    With several processes (docs/scaling.md) an account is online at one of them, named in a
    Redis hash; a table run by another process invites it through that process, which keeps the
    invitation and seats the account (wherever the table runs) when it accepts."""

    def __init__(self, operator_bots: dict[str, str], cluster: Cluster | None = None) -> None:
        self.operator_bots = dict(operator_bots)
        self.online: dict[str, Connection] = {}
        self.invites: dict[str, dict[int, Invite]] = {}
        self._ids = itertools.count(1)
        self.cluster = cluster
        self.elsewhere: dict[str, str] = {}  # accounts online at other processes -> which (`refresh`)
        self._hosts: weakref.WeakValueDictionary[str, Host] = weakref.WeakValueDictionary()

    def online_names(self) -> list[str]:
        """The accounts online at any process, by name."""
        here = {n for n, c in self.online.items() if not c.closed}
        return sorted(here | set(self.elsewhere))

    def listing(self) -> list[dict[str, str]]:
        """The bots a host may invite: the operator's programs, then the accounts online."""
        out = [{"name": n, "kind": "operator"} for n in sorted(self.operator_bots)]
        out += [{"name": n, "kind": "account"} for n in self.online_names() if n not in self.operator_bots]
        return out

    def connect(self, name: str, conn: Connection) -> None:
        """`name` is online on `conn`; an older connection of the same account is closed (here,
        or at the process it was online at)."""
        old = self.online.get(name)
        if old is not None and old is not conn:
            self.replaced(name)
        self.online[name] = conn
        if self.cluster is not None:
            elsewhere = self.elsewhere.pop(name, None)
            if elsewhere is not None and elsewhere != self.cluster.id:
                self.cluster.post(elsewhere, {"op": "bot_replaced", "name": name})
            self.cluster.later(self.cluster.redis.hset(self._key(), name, self.cluster.id))

    def replaced(self, name: str) -> None:
        """The account `name` connected again (maybe at another process): its socket here goes."""
        old = self.online.pop(name, None)
        if old is not None:
            old.send({"type": "error", "code": "replaced", "message": "this bot connected again", "ref": None})
            old.stop()

    def revoked(self, name: str) -> None:
        """The account `name` was revoked: its event socket is told so and closed, its
        invitations dropped."""
        conn = self.online.pop(name, None)
        self.invites.pop(name, None)
        self.elsewhere.pop(name, None)
        if conn is not None:
            message = "this bot account was revoked: its token no longer works"
            conn.send({"type": "error", "code": "revoked", "message": message, "ref": None})
            conn.close_code = REVOKED
            conn.stop()
            self._forget(name)

    def disconnect(self, name: str, conn: Connection) -> None:
        if self.online.get(name) is conn:
            del self.online[name]
            self.invites.pop(name, None)
            self._forget(name)

    def _key(self) -> str:
        assert self.cluster is not None
        return f"{self.cluster.prefix}:bots"

    def _forget(self, name: str) -> None:
        if self.cluster is not None:
            cluster, key = self.cluster, self._key()

            async def forget() -> None:
                if await cluster.redis.hget(key, name) == cluster.id:
                    await cluster.redis.hdel(key, name)

            cluster.later(forget())

    async def refresh(self) -> None:
        """Say again which accounts are online here (so a hash entry lost or overwritten heals
        itself), and learn which are online elsewhere, forgetting those of dead processes."""
        assert self.cluster is not None
        cluster, key = self.cluster, self._key()
        here: dict[FieldT, EncodableT] = {n: cluster.id for n, c in self.online.items() if not c.closed}
        if here:
            await cluster.redis.hset(key, mapping=here)
        everyone = {text_of(n): text_of(p) for n, p in (await cluster.redis.hgetall(key)).items()}
        alive = await cluster.alive(everyone.values())
        dead = [n for n, p in everyone.items() if p not in alive]
        if dead:
            await cluster.redis.hdel(key, *dead)
        self.elsewhere = {n: p for n, p in everyone.items() if p in alive and p != cluster.id}

    def invite(self, name: str, room: Table, seat: int | None, host: Host) -> None:
        conn = self.online.get(name)
        if conn is None or conn.closed:
            process = self.elsewhere.get(name)
            if process is None or self.cluster is None:
                online = ", ".join(b["name"] for b in self.listing()) or "none"
                raise RoomError("no_bot", f"no bot named {name!r} is online: the bots online are {online}")
            key = self.cluster.new_key()
            self._hosts[key] = host
            details = room.invitation(seat)
            host_at = [self.cluster.id, key]
            self.cluster.post(process, {"op": "invite", "name": name, "details": details, "host": host_at})
            return
        self._invite_here(name, conn, room.invitation(seat), host, room)

    def _invite_here(
        self, name: str, conn: Connection, details: dict[str, Any], host: Host, room: Table | None
    ) -> None:
        pending = self.invites.setdefault(name, {})
        invite = Invite(next(self._ids), details["table"], details["seat"], host, utcnow(), room)
        pending[invite.id] = invite
        while len(pending) > INVITE_LIMIT:
            pending.pop(next(iter(pending)))
        conn.send({"type": "invite", "id": invite.id, **details})

    def invited(self, message: dict[str, Any]) -> None:
        """An invitation from a table run by another process, for an account online here."""
        assert self.cluster is not None
        process, key = message["host"]
        host = _HostElsewhere(self.cluster, process, key)
        name = message["name"]
        conn = self.online.get(name)
        if conn is None or conn.closed:
            host.send({"type": "error", "code": "no_bot", "message": f"the bot {name!r} went offline", "ref": None})
            return
        self._invite_here(name, conn, message["details"], host, None)

    def tell(self, message: dict[str, Any]) -> None:
        """What the invited account's process tells the host of a table run here."""
        host = self._hosts.get(message["host"])
        if host is not None:
            host.send(message["message"])

    def call_all(self, room: Table, host: Host) -> int:
        """Tell every bot account online that `room` wants bots (an invitation to the first empty
        seat, whichever it is when accepted); how many were told."""
        names = self.online_names()
        for name in names:
            self.invite(name, room, None, host)
        return len(names)

    def take(self, name: str, invite_id: int) -> Invite:
        invite = self.invites.get(name, {}).pop(invite_id, None)
        if invite is None:
            raise RoomError("no_invite", f"no invitation {invite_id} is waiting for this bot")
        return invite
