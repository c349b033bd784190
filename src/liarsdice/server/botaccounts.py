"""Bot accounts: a name and a secret token, and the bots online on this server.

An account is made by the operator (`liarsdice bot create NAME`); its token is shown once and
only its SHA-256 is stored. With the token a bot opens `/ws/bot` and is online: hosts may invite
it to an empty seat, it accepts or declines, and a seat it accepts is its own, with a seat token,
played over `/ws/{code}` exactly as a browser plays a seat (docs/protocol.md, "Bot accounts").

Operator bots (`liarsdice serve --bot NAME=COMMAND`) are programs the server runs itself, through
`ExecBot`; they are listed beside the online accounts and seated at once when invited.
"""

from __future__ import annotations

import hmac
import itertools
import secrets
import weakref
from collections import deque
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .connection import Connection
from .limits import RoomError, clean_name, hash_token

# Re-exported: what a seat's bot_level says, for the modules that ask here.
from .seatkinds import ACCOUNT_LEVEL as ACCOUNT_LEVEL
from .seatkinds import OPERATOR_LEVEL as OPERATOR_LEVEL
from .seatkinds import account_of as account_of
from .storage import BotAccountRow, as_utc, utcnow

if TYPE_CHECKING:
    from .cluster import Cluster
    from .rooms import Room

INVITE_LIMIT = 32  # invitations one bot may have unanswered; older ones are dropped
REVOKED = 4001  # the close code for a wrong or revoked token (1008 is any policy violation)
SIGNUP_WINDOW = 3600.0  # seconds over which the page's account creations per address are counted


class SignupLimit:
    """At most `per_hour` accounts made from the page per client address, in memory (a restart
    forgets; enough to keep a script from filling the database)."""

    def __init__(self, per_hour: int) -> None:
        self.per_hour = per_hour
        self.made: dict[str, deque[float]] = {}

    def wait(self, address: str, now: float) -> float:
        """Seconds before `address` may make another account (0: now)."""
        times = self.made.get(address)
        if times is None:
            return 0.0
        while times and times[0] <= now - SIGNUP_WINDOW:
            times.popleft()
        if not times:
            del self.made[address]  # forget quiet addresses: the table stays small
            return 0.0
        return 0.0 if len(times) < self.per_hour else times[0] + SIGNUP_WINDOW - now

    def note(self, address: str, now: float) -> None:
        self.made.setdefault(address, deque()).append(now)


class AccountError(ValueError):
    """A bot account that cannot be made or found: the message says why."""


class NameTaken(AccountError):
    """The name asked for belongs to an account already (a revoked one too: records name it)."""


def new_token() -> str:
    return secrets.token_urlsafe(32)


# ----- database jobs (on the store's thread, or a CLI's own session) -----


def create_account(session: Session, name: str) -> str:
    """Make the account `name`; its token (shown once: only its hash is kept)."""
    try:
        name = clean_name(name)
    except RoomError as e:
        raise AccountError(e.message) from None
    if session.scalar(select(BotAccountRow.id).where(BotAccountRow.name == name)) is not None:
        raise NameTaken(f"a bot account named {name!r} exists already: choose another name, or revoke it first")
    token = new_token()
    session.add(BotAccountRow(name=name, token_hash=hash_token(token)))
    session.flush()
    return token


def list_accounts(session: Session) -> list[dict[str, Any]]:
    rows = session.scalars(select(BotAccountRow).order_by(BotAccountRow.name)).all()
    return [
        {
            "name": r.name,
            "created": as_utc(r.created_at).isoformat(timespec="seconds"),
            "revoked": as_utc(r.revoked_at).isoformat(timespec="seconds") if r.revoked_at else None,
        }
        for r in rows
    ]


def revoke_account(session: Session, name: str) -> None:
    """Revoke `name`: its token is refused from now on (the name stays taken, for the records)."""
    row = session.scalar(select(BotAccountRow).where(BotAccountRow.name == name))
    if row is None:
        raise AccountError(f"no bot account named {name!r} (`liarsdice bot list` shows them)")
    if row.revoked_at is None:
        row.revoked_at = utcnow()


def account_for_token(session: Session, token: str) -> str | None:
    """The name of the live account whose token this is; None for a wrong or revoked token."""
    wanted = hash_token(token)
    row = session.scalar(select(BotAccountRow).where(BotAccountRow.token_hash == wanted))
    if row is None or row.revoked_at is not None or not hmac.compare_digest(row.token_hash, wanted):
        return None
    return row.name


def revoke_by_token(session: Session, token: str) -> str | None:
    """Revoke the live account whose token this is (whoever holds it may); its name, or None
    for a wrong or already revoked token."""
    name = account_for_token(session, token)
    if name is not None:
        revoke_account(session, name)
    return name


def revoked_among(session: Session, names: set[str]) -> set[str]:
    """Which of `names` are revoked (or gone): the server's check for revocations made by the CLI."""
    rows = session.execute(select(BotAccountRow.name, BotAccountRow.revoked_at).where(BotAccountRow.name.in_(names)))
    live = {name for name, revoked_at in rows if revoked_at is None}
    return names - live


def still_live(session: Session, name: str) -> bool:
    row = session.scalar(select(BotAccountRow).where(BotAccountRow.name == name))
    return row is not None and row.revoked_at is None


# ----- the bots online -----


@dataclass
class Invite:
    id: int
    code: str  # the table's
    seat: int | None  # None: the first seat empty when it is accepted (a table that wants bots)
    host: Any  # what `send`s the host a message: its Connection, or a way to it in another process
    at: datetime
    room: Room | None = None  # the table, when it runs in this process


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
        self._hosts: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()

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
        here = {n: cluster.id for n, c in self.online.items() if not c.closed}
        if here:
            await cluster.redis.hset(key, mapping=here)
        everyone: dict[str, str] = await cluster.redis.hgetall(key)
        alive = await cluster.alive(everyone.values())
        dead = [n for n, p in everyone.items() if p not in alive]
        if dead:
            await cluster.redis.hdel(key, *dead)
        self.elsewhere = {n: p for n, p in everyone.items() if p in alive and p != cluster.id}

    def invite(self, name: str, room: Room, seat: int | None, host: Any) -> None:
        conn = self.online.get(name)
        if conn is None or conn.closed:
            process = self.elsewhere.get(name)
            if process is None or self.cluster is None:
                online = ", ".join(b["name"] for b in self.listing()) or "none"
                raise RoomError("no_bot", f"no bot named {name!r} is online: the bots online are {online}")
            key = self.cluster.new_key()
            self._hosts[key] = host
            details = self._details(room, seat)
            host_at = [self.cluster.id, key]
            self.cluster.post(process, {"op": "invite", "name": name, "details": details, "host": host_at})
            return
        self._invite_here(name, conn, self._details(room, seat), host, room)

    def _details(self, room: Room, seat: int | None) -> dict[str, Any]:
        return {
            "table": room.code,
            "seat": seat,
            "preset": room.preset,
            "options": room.options.to_dict(),
            "turn_seconds": room.turn_seconds,
            "seats": [s.name for s in room.seats],
            "url": f"{room.manager.base_url}/t/{room.code}",
        }

    def _invite_here(self, name: str, conn: Connection, details: dict[str, Any], host: Any, room: Room | None) -> None:
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

    def call_all(self, room: Room, host: Connection) -> int:
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
