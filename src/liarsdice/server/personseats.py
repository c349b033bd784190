"""The seats a signed-in person takes, kept with their account, so that on another device they
find their tables and take their seat back (the account page's "Your tables").

A seat is remembered with the SHA-256 of its seat token at the time. Taking it back asks the
table to hand the seat over (tableseats.SeatedTable.hand_over): only if the seat still holds
that token (nobody else took it since) does the table make a new token for it, which the new
device keeps; the record then holds the new token's hash. An account can thus act only for the
seats it took itself.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..rules import PRESETS
from .storage import PersonSeatRow, TableRow, as_utc

LISTED = 50  # the newest seats the account page lists


def remember_seat(session: Session, person_id: int, code: str, seat: int, token_hash: str) -> None:
    row = session.scalar(
        select(PersonSeatRow).where(
            PersonSeatRow.person_id == person_id, PersonSeatRow.table_code == code, PersonSeatRow.seat_no == seat
        )
    )
    if row is None:
        session.add(PersonSeatRow(person_id=person_id, table_code=code, seat_no=seat, token_hash=token_hash))
    else:
        row.token_hash = token_hash


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
