"""A table's seats and the database jobs of a table (each runs on the store's thread)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..rules import Options
from .storage import ChatRow, GameRow, SeatRow, StepRow, TableRow, as_utc, utcnow

CHAT_HISTORY = 50


@dataclass
class Seat:
    name: str
    kind: str = "empty"  # human, bot, empty
    bot_level: str | None = None
    token_hash: str | None = None


def chat_history(session: Session, table_id: int) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(ChatRow).where(ChatRow.table_id == table_id).order_by(ChatRow.id.desc()).limit(CHAT_HISTORY)
    ).all()
    return [
        {"from": r.name, "seat": r.seat_no, "text": r.text, "at": int(as_utc(r.created_at).timestamp() * 1000)}
        for r in reversed(rows)
    ]


def save_seat(session: Session, table_id: int, seat_no: int, seat: Seat) -> None:
    row = session.scalar(select(SeatRow).where(SeatRow.table_id == table_id, SeatRow.seat_no == seat_no))
    if row is None:
        row = SeatRow(table_id=table_id, seat_no=seat_no)
        session.add(row)
    row.name, row.kind, row.bot_level, row.token_hash = seat.name, seat.kind, seat.bot_level, seat.token_hash


def save_rules(
    session: Session, table_id: int, preset: str, overrides: dict[str, Any], seconds: int, seats: list[Seat]
) -> None:
    table = session.get(TableRow, table_id)
    assert table is not None
    table.preset, table.options, table.turn_seconds = preset, overrides, seconds
    for row in session.scalars(select(SeatRow).where(SeatRow.table_id == table_id, SeatRow.seat_no >= len(seats))):
        session.delete(row)
    for i, seat in enumerate(seats):
        save_seat(session, table_id, i, seat)


def new_game_row(
    session: Session,
    table_id: int,
    preset: str,
    options: Options,
    names: list[str],
    players: list[dict[str, Any]],
    seed: int,
    rating_family: str | None = None,
) -> int:
    row = GameRow(
        rating_family=rating_family,
        table_id=table_id,
        preset=preset,
        options=options.to_dict(),
        seats=names,
        players=players,
        seed=seed,
        status="playing",
        rounds=0,
    )
    session.add(row)
    session.flush()
    table = session.get(TableRow, table_id)
    assert table is not None
    table.status, table.game_id = "playing", row.id
    table.games_played += 1
    return row.id


def finish_game(
    session: Session, table_id: int, game_id: int, record: dict[str, Any], winners: list[str], rounds: int
) -> None:
    game = session.get(GameRow, game_id)
    table = session.get(TableRow, table_id)
    assert game is not None and table is not None
    game.status, game.record, game.winners, game.rounds = "finished", record, winners, rounds
    game.finished_at = utcnow()
    table.status = "finished"


def load_table(session: Session, code: str) -> dict[str, Any] | None:
    table = session.scalar(select(TableRow).where(TableRow.code == code))
    if table is None:
        return None
    seats = session.scalars(select(SeatRow).where(SeatRow.table_id == table.id).order_by(SeatRow.seat_no)).all()
    out: dict[str, Any] = {
        "id": table.id,
        "code": table.code,
        "preset": table.preset,
        "options": table.options,
        "turn_seconds": table.turn_seconds,
        "status": table.status,
        "host_seat": table.host_seat,
        "games_played": table.games_played,
        "game_id": table.game_id,
        "rated": table.rated,
        "bots_rated": table.bots_rated,
        "seats": [Seat(r.name, r.kind, r.bot_level, r.token_hash) for r in seats],
        "game": None,
    }
    if table.game_id is not None:
        game = session.get(GameRow, table.game_id)
        if game is not None:
            steps = session.scalars(select(StepRow).where(StepRow.game_id == game.id).order_by(StepRow.idx)).all()
            out["game"] = {
                "id": game.id,
                "preset": game.preset,
                "options": game.options,
                "seats": game.seats,
                "players": game.players,
                "seed": game.seed,
                "status": game.status,
                "steps": [s.data for s in steps],
                "started": game.started_at.isoformat(timespec="seconds"),
                "forfeit": recorded_forfeit(game.record),
            }
    return out


def recorded_forfeit(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """Who forfeited a stored game and why (its record's `meta.forfeit`, `{seat, reason}` with
    the seat's name), or None: the record is where a forfeit is kept, so a restarted server
    still knows it."""
    forfeit = ((record or {}).get("meta") or {}).get("forfeit")
    return forfeit if isinstance(forfeit, dict) else None


def create_table(
    session: Session,
    code: str,
    preset: str,
    overrides: dict[str, Any],
    seconds: int,
    seats: list[Seat],
    rated: bool = False,
    bots_rated: bool = False,
) -> int | None:
    if session.scalar(select(TableRow.id).where(TableRow.code == code)) is not None:
        return None
    table = TableRow(
        code=code,
        preset=preset,
        options=overrides,
        turn_seconds=seconds,
        status="open",
        host_seat=0,
        games_played=0,
        rated=rated,
        bots_rated=bots_rated,
    )
    session.add(table)
    session.flush()
    for i, seat in enumerate(seats):
        save_seat(session, table.id, i, seat)
    return table.id
