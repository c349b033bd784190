"""The lobby's seekers in the database (migration 0008), so that every process sees them, and the
database jobs on them (each runs on the store's thread).

A seeker is a browser waiting to play: the SHA-256 of its secret, which becomes its seat token
when it is seated (so nothing secret is stored, and the browser holds its seat the moment it
hears where it sits). Pairing claims the seekers of a table atomically: a conditional update
that takes only rows still waiting, all or none, so two processes never seat one seeker twice.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from .pairing import ANY_PRESET_DEFAULT, Seeker
from .personseats import remember_seat
from .ratingfamily import START_SHOWN, family_of
from .ratingrows import shown_rating
from .storage import SeekerRow, TableRow, as_utc, utcnow

WAITING, CLAIMED, SEATED, CANCELLED, GONE = "waiting", "claimed", "seated", "cancelled", "gone"
STALE_SECONDS = 10.0  # a seeker whose page has not asked for news in this long has left
KEPT_FOR = timedelta(hours=1)  # a seeker done with (seated, cancelled, gone) is deleted after this


class Taken(Exception):
    """Another process claimed one of these seekers first (or it left): the claim is undone."""


def pairing_rating(session: Session, person_id: int | None, preset: str | None) -> int:
    """The rating a seeker is paired by (preset None: any, played as ANY_PRESET_DEFAULT): an
    account's shown rating in the preset's family; a guest's is a new player's."""
    if person_id is None:
        return START_SHOWN
    return shown_rating(session, person_id, family_of(preset or ANY_PRESET_DEFAULT))


def add_seeker(session: Session, **fields: Any) -> int:
    row = SeekerRow(status=WAITING, **fields)
    session.add(row)
    session.flush()
    return row.id


def seeker_news(session: Session, token_hash: str) -> dict[str, Any] | None:
    """What a seeker's page is told (and that it is still there): None if no such seeker."""
    row = session.scalar(select(SeekerRow).where(SeekerRow.token_hash == token_hash))
    if row is None:
        return None
    now = utcnow()
    if row.status == WAITING:  # a claim's age is read from seen_at: see waiting_seekers
        row.seen_at = now
    return {
        "id": row.id,
        "status": row.status if row.status != CLAIMED else WAITING,
        "code": row.table_code,
        "seat": row.seat_no,
        "name": row.name,
        "preset": row.preset,
        "seats": row.seats,
        "wait": row.wait_seconds,
        "waited": round((now - as_utc(row.created_at)).total_seconds(), 1),
        "person_id": row.person_id,
    }


def cancel_seeker(session: Session, token_hash: str) -> str | None:
    """Stop waiting (only a seeker still waiting can): its status after, None if no such seeker."""
    row = session.scalar(select(SeekerRow).where(SeekerRow.token_hash == token_hash))
    if row is None:
        return None
    if row.status == WAITING:
        row.status = CANCELLED
    return row.status


def waiting_seekers(session: Session) -> list[tuple[Seeker, str, str]]:
    """Every seeker still waiting, with its name and token hash; those whose page went quiet
    are let go first."""
    now = utcnow()
    stale = now - timedelta(seconds=STALE_SECONDS)
    # A claim that made no table in that long lost its process (it died between the claim and
    # the table): its seekers wait again.
    session.execute(
        update(SeekerRow)
        .where(SeekerRow.status == CLAIMED, SeekerRow.seen_at < stale)
        .values(status=WAITING, claim=None, seen_at=now)
    )
    session.execute(update(SeekerRow).where(SeekerRow.status == WAITING, SeekerRow.seen_at < stale).values(status=GONE))
    rows = session.scalars(select(SeekerRow).where(SeekerRow.status == WAITING).order_by(SeekerRow.id))
    return [
        (
            Seeker(
                id=r.id,
                preset=r.preset,
                seats=r.seats,
                rating=r.rating,
                waited=(now - as_utc(r.created_at)).total_seconds(),
                wait=r.wait_seconds,
                level=r.level,
                rated=r.rated,
            ),
            r.name,
            r.token_hash,
        )
        for r in rows
    ]


def claim_seekers(session: Session, ids: list[int], claim: str) -> None:
    """Take these seekers for one table, all or none (Taken: someone else has one of them)."""
    done = session.execute(
        update(SeekerRow).where(SeekerRow.id.in_(ids), SeekerRow.status == WAITING).values(status=CLAIMED, claim=claim)
    )
    if done.rowcount != len(ids):  # type: ignore[attr-defined]
        raise Taken(f"{len(ids) - done.rowcount} of these seekers were taken or left")  # type: ignore[attr-defined]


def seat_seekers(session: Session, code: str, seats: dict[int, int]) -> None:
    """The claimed seekers sit at table `code` (seeker id -> seat). A signed-in seeker's seat is
    kept with the account at once, as a seat joined is (accounts.md): it is how a rated game
    knows the account at each seat when it starts, even before the seeker's page hears."""
    for seeker_id, seat in seats.items():
        session.execute(
            update(SeekerRow).where(SeekerRow.id == seeker_id).values(status=SEATED, table_code=code, seat_no=seat)
        )
        row = session.get(SeekerRow, seeker_id)
        if row is not None and row.person_id is not None:
            remember_seat(session, row.person_id, code, seat, row.token_hash)


def forget_old_seekers(session: Session) -> int:
    """Delete the seekers done with (seated, cancelled or gone) and not heard from for KEPT_FOR,
    so the table holds only the lobby's recent past; how many went."""
    done = session.execute(
        delete(SeekerRow).where(
            SeekerRow.status.in_([SEATED, CANCELLED, GONE]), SeekerRow.seen_at < utcnow() - KEPT_FOR
        )
    )
    return int(getattr(done, "rowcount", 0) or 0)


def release_seekers(session: Session, ids: list[int], claim: str) -> None:
    """A table could not be made: these seekers wait again."""
    session.execute(
        update(SeekerRow)
        .where(SeekerRow.id.in_(ids), SeekerRow.claim == claim, SeekerRow.status == CLAIMED)
        .values(status=WAITING, claim=None)
    )


def seeking_count(session: Session) -> int:
    """How many are waiting in the lobby now (pages heard from lately)."""
    fresh = utcnow() - timedelta(seconds=STALE_SECONDS)
    count = session.scalar(
        select(func.count()).select_from(SeekerRow).where(SeekerRow.status == WAITING, SeekerRow.seen_at >= fresh)
    )
    return int(count or 0)


def without_host(session: Session, table_id: int) -> None:
    """A Play now table has no host (table.NO_HOST): its game starts by itself, and its people
    all ask for a rematch. Kept in the table's row, so a table loaded again still has none."""
    session.execute(update(TableRow).where(TableRow.id == table_id).values(host_seat=-1))
