"""The seats a signed-in person takes, kept with their account, so that on another device they
find their tables and take their seat back (the account page's "Your tables").

A seat is remembered with the SHA-256 of its seat token at the time. Taking it back asks the
table to hand the seat over (tableseats.SeatedTable.hand_over): only if the seat still holds
that token (nobody else took it since) does the table make a new token for it, which the new
device keeps; the record then holds the new token's hash. An account can thus act only for the
seats it took itself.

A guest who signs up or signs in keeps the seats their browser holds (the table page keeps each
seat's token in localStorage): the account page offers them (routes/heldseats.py), and
`adopt_seats` remembers each only if its token is the seat's current one, as the database holds
it (every seat is stored there before anyone is told of it, whichever process runs the table):
holding the token is holding the seat, so nobody gains a seat they did not hold.
"""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..rules import PRESETS
from .limits import hash_token
from .storage import PersonSeatRow, SeatRow, TableRow, as_utc

LISTED = 50  # the newest seats the account page lists


def remember_seat(session: Session, person_id: int, code: str, seat: int, token_hash: str) -> bool:
    """Keep the seat with the account (True if it was not kept so already)."""
    row = session.scalar(
        select(PersonSeatRow).where(
            PersonSeatRow.person_id == person_id, PersonSeatRow.table_code == code, PersonSeatRow.seat_no == seat
        )
    )
    if row is None:
        session.add(PersonSeatRow(person_id=person_id, table_code=code, seat_no=seat, token_hash=token_hash))
        return True
    if row.token_hash == token_hash:
        return False
    row.token_hash = token_hash
    return True


def adopt_seats(session: Session, person_id: int, held: list[tuple[str, int, str]]) -> int:
    """Keep with the account each (table code, seat, seat token) whose token is the seat's
    current one at a table not finished; how many were not kept so already."""
    added = 0
    for code, seat_no, token in held:
        row = session.execute(
            select(SeatRow.token_hash)
            .join(TableRow, TableRow.id == SeatRow.table_id)
            .where(
                TableRow.code == code,
                TableRow.status != "finished",
                SeatRow.seat_no == seat_no,
                SeatRow.kind == "human",
                SeatRow.bot_level.is_(None),
            )
        ).first()
        token_hash = hash_token(token)
        if row is not None and row[0] is not None and secrets.compare_digest(row[0], token_hash):
            added += remember_seat(session, person_id, code, seat_no, token_hash)
    return added


def seat_hash(session: Session, person_id: int, code: str, seat: int) -> str | None:
    """The token hash this person's seat had, or None if they never took that seat."""
    return session.scalar(
        select(PersonSeatRow.token_hash).where(
            PersonSeatRow.person_id == person_id, PersonSeatRow.table_code == code, PersonSeatRow.seat_no == seat
        )
    )


def seats_of(session: Session, person_id: int) -> list[dict[str, Any]]:
    """The person's seats at tables not finished, newest first."""
    rows = session.execute(
        select(PersonSeatRow, TableRow)
        .join(TableRow, TableRow.code == PersonSeatRow.table_code)
        .where(PersonSeatRow.person_id == person_id, TableRow.status != "finished")
        .order_by(PersonSeatRow.id.desc())
        .limit(LISTED)
    ).all()
    return [
        {
            "code": seat.table_code,
            "seat": seat.seat_no,
            "title": PRESETS[table.preset].title if table.preset in PRESETS else table.preset,
            "status": table.status,
            "since": as_utc(seat.created_at).strftime("%Y-%m-%d %H:%M UTC"),
        }
        for seat, table in rows
    ]
