"""A finished game's analysis in the database (storage.AnalysisRow): queued when the game ends,
claimed by one process at a time, then stored as JSON text with its format's version, or why it
could not be made.

Several processes share one database (docs/scaling.md): a claim is one conditional UPDATE (or
the INSERT of a row no one has made), which only one of them can win, so the same game is not
analysed twice at once. A claim older than `STALE_SECONDS` belongs to a process that died
mid-analysis: it may be taken again. Each function here is a store job (`Store.call`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .storage import AnalysisRow, GameRow, as_utc, utcnow

STALE_SECONDS = 600.0  # a claim older than this was left by a process that stopped: take it again
QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"


@dataclass(frozen=True)
class AnalysisState:
    """Where a finished game's analysis stands, as the route tells it."""

    status: str  # queued, running, done, failed
    data: dict[str, Any] | None = None  # done: Analysis.to_json()
    reason: str | None = None  # failed: why


def _stale(row: AnalysisRow, now: datetime) -> bool:
    claimed = row.claimed_at
    return claimed is None or as_utc(claimed) < now - timedelta(seconds=STALE_SECONDS)


def analysis_state(session: Session, game_id: int, version: int) -> AnalysisState | None:
    """Game `game_id`'s analysis in format `version`, queueing it if it has none (or one of an
    older format, or a claim a stopped process left); None if there is no such finished game.
    A queued state means the caller should see that this process runs it (`Reviewer.request`)."""
    if session.scalar(select(GameRow.id).where(GameRow.id == game_id, GameRow.status == "finished")) is None:
        return None
    row = session.get(AnalysisRow, game_id)
    now = utcnow()
    if row is None:
        session.add(AnalysisRow(game_id=game_id, status=QUEUED, updated_at=now))
        return AnalysisState(QUEUED)
    if row.status in (DONE, FAILED) and row.version == version:
        if row.status == FAILED:
            return AnalysisState(FAILED, reason=row.reason or "the analysis failed")
        return AnalysisState(DONE, data=json.loads(row.data or "{}"))
    if row.status == RUNNING and not _stale(row, now):
        return AnalysisState(RUNNING)
    # An older format's, or one a stopped process left: made again.
    row.status, row.claimed_by, row.claimed_at, row.updated_at = QUEUED, None, None, now
    return AnalysisState(QUEUED)


def queue_analysis(session: Session, game_id: int) -> None:
    """Mark a game that just finished as waiting for its analysis (so a restart still makes it)."""
    row = session.get(AnalysisRow, game_id)
    if row is None:
        session.add(AnalysisRow(game_id=game_id, status=QUEUED, updated_at=utcnow()))


def waiting_games(session: Session, limit: int = 200) -> list[int]:
    """Games whose analysis waits (queued, or claimed by a process that stopped), oldest first:
    what a server starting up takes on."""
    cutoff = utcnow() - timedelta(seconds=STALE_SECONDS)
    stale = and_(AnalysisRow.status == RUNNING, AnalysisRow.claimed_at < cutoff)
    rows = session.scalars(
        select(AnalysisRow.game_id)
        .where(or_(AnalysisRow.status == QUEUED, stale))
        .order_by(AnalysisRow.game_id)
        .limit(limit)
    )
    return list(rows)


def claim_analysis(session: Session, game_id: int, owner: str) -> dict[str, Any] | None:
    """Take game `game_id`'s analysis for process `owner`: its record if this process is now the
    one to make it; None if another process runs it, it is made already, or there is no record."""
    game = session.get(GameRow, game_id)
    if game is None or game.record is None or game.status != "finished":
        return None
    now = utcnow()
    if session.get(AnalysisRow, game_id) is None:
        try:
            with session.begin_nested():
                session.add(
                    AnalysisRow(game_id=game_id, status=RUNNING, claimed_by=owner, claimed_at=now, updated_at=now)
                )
        except IntegrityError:  # another process made the row first: it has the claim
            return None
        return game.record
    cutoff = now - timedelta(seconds=STALE_SECONDS)
    claimable = or_(AnalysisRow.status == QUEUED, and_(AnalysisRow.status == RUNNING, AnalysisRow.claimed_at < cutoff))
    won = session.execute(
        update(AnalysisRow)
        .where(AnalysisRow.game_id == game_id, claimable)
        .values(status=RUNNING, claimed_by=owner, claimed_at=now, updated_at=now)
        .execution_options(synchronize_session=False)
    )
    return game.record if getattr(won, "rowcount", 0) == 1 else None


def save_analysis(session: Session, game_id: int, version: int, data: dict[str, Any]) -> None:
    """Store the analysis `owner` made (whoever finishes last writes: the same game gives the same one)."""
    _finish(session, game_id, DONE, version, json.dumps(data, separators=(",", ":"), allow_nan=False), None)


def fail_analysis(session: Session, game_id: int, version: int, reason: str) -> None:
    """Store why game `game_id` could not be analysed (asked again, it is not tried again)."""
    _finish(session, game_id, FAILED, version, None, reason)


def release_analysis(session: Session, game_id: int, owner: str) -> None:
    """Give back a claim this process cannot finish (it is stopping): queued for the next one."""
    session.execute(
        update(AnalysisRow)
        .where(AnalysisRow.game_id == game_id, AnalysisRow.claimed_by == owner, AnalysisRow.status == RUNNING)
        .values(status=QUEUED, claimed_by=None, claimed_at=None, updated_at=utcnow())
        .execution_options(synchronize_session=False)
    )


def _finish(session: Session, game_id: int, status: str, version: int, data: str | None, reason: str | None) -> None:
    row = session.get(AnalysisRow, game_id)
    now = utcnow()
    if row is None:
        row = AnalysisRow(game_id=game_id, status=status, updated_at=now)
        session.add(row)
    row.status, row.version, row.data, row.reason = status, version, data, reason
    row.claimed_by, row.claimed_at, row.updated_at = None, None, now
