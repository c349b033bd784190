"""Bot accounts: a name and a secret token, and the bots online on this server.

An account is made by the operator (`liarsdice bot create NAME`); its token is shown once and
only its SHA-256 is stored. With the token a bot opens `/ws/bot` and is online: hosts may invite
it to an empty seat, it accepts or declines, and a seat it accepts is its own, with a seat token,
played over `/ws/{code}` exactly as a browser plays a seat (docs/protocol.md, "Bot accounts").

Operator bots (`liarsdice serve --bot NAME=COMMAND`) are programs the server runs itself, through
`ExecBot`; they are listed beside the online accounts and seated at once when invited.

Here: the accounts, as the database keeps them. The bots online, and the invitations they are
sent, are in botlobby.py.
"""

from __future__ import annotations

import hmac
import secrets
from collections import deque
from typing import Any

from sqlalchemy import CursorResult, select, update
from sqlalchemy.orm import Session

from .limits import RoomError, clean_name, hash_token
from .storage import BotAccountRow, as_utc, utcnow

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
    # One statement for a live account; the look-up only tells a missing name from a revoked one.
    revoked: CursorResult[Any] = session.execute(  # type: ignore[assignment]  # an UPDATE's result is a cursor's
        update(BotAccountRow)
        .where(BotAccountRow.name == name, BotAccountRow.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )
    if revoked.rowcount == 0 and session.scalar(select(BotAccountRow.id).where(BotAccountRow.name == name)) is None:
        raise AccountError(f"no bot account named {name!r} (`liarsdice bot list` shows them)")


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
