"""Who an account was at each game (storage.GamePersonRow): at a game's start, every seat whose
`person_seats` row (personseats.py) holds the seat's current token hash is that account's. The
rows stay when the account is deleted, so its games show "deleted player" at its seats.

Database jobs (on the store's thread) and a pure rewrite of a stored record's names.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from .people import DELETED_NAME
from .storage import GamePersonRow, GameRow, PersonRow, PersonSeatRow
from .tablerows import Seat


def people_at(session: Session, code: str, seats: Sequence[Seat]) -> dict[int, int]:
    """The person id of each seat of table `code` an account holds now (seat -> person)."""
    held = {i: s.token_hash for i, s in enumerate(seats) if s.kind == "human" and not s.bot_level and s.token_hash}
    if not held:
        return {}
    found: dict[int, int] = {}
    for row in session.scalars(select(PersonSeatRow).where(PersonSeatRow.table_code == code)):
        if held.get(row.seat_no) == row.token_hash:
            found[row.seat_no] = row.person_id
    return found


def note_people(session: Session, game_id: int, people: dict[int, int]) -> None:
    for seat, person_id in sorted(people.items()):
        session.add(GamePersonRow(game_id=game_id, seat_no=seat, person_id=person_id))


def people_of_game(session: Session, game_id: int) -> dict[int, int]:
    """Seat -> person id of the accounts at a stored game."""
    rows = session.scalars(select(GamePersonRow).where(GamePersonRow.game_id == game_id))
    return {r.seat_no: r.person_id for r in rows}


def deleted_seats(session: Session, game_ids: Sequence[int]) -> dict[int, list[int]]:
    """For each of these games with a seat of an account deleted since: those seats, in order."""
    if not game_ids:
        return {}
    rows = session.execute(
        select(GamePersonRow.game_id, GamePersonRow.seat_no)
        .join(PersonRow, PersonRow.id == GamePersonRow.person_id)
        .where(GamePersonRow.game_id.in_(list(game_ids)), PersonRow.deleted_at.is_not(None))
        .order_by(GamePersonRow.game_id, GamePersonRow.seat_no)
    ).all()
    out: dict[int, list[int]] = {}
    for game_id, seat in rows:
        out.setdefault(game_id, []).append(seat)
    return out


def renames_of_game(session: Session, game_id: int) -> dict[str, str]:
    """Old name -> "deleted player" for the seats of game `game_id` whose account was deleted."""
    deleted = deleted_seats(session, [game_id]).get(game_id)
    seats = session.scalar(select(GameRow.seats).where(GameRow.id == game_id)) if deleted else None
    return hidden_names(seats, deleted) if seats and deleted else {}


# ----- a record's names -----

# Where a stored record (record.py) names a seat: a field's value, a list's items, a mapping's keys.
_NAME_FIELDS = frozenset({"seat", "caller", "target", "round_loser", "winner", "loser", "next_starter", "name"})
_NAME_LISTS = frozenset({"seats", "out", "folded", "last_with_dice", "winners"})
_NAME_KEYS = frozenset(
    {"hands", "pushed", "dice_before", "dice_after", "chips_after", "votes", "places", "returns", "chips"}
    | {"running_pot_award"}
)


def hidden_names(seats: Sequence[str], deleted: Sequence[int]) -> dict[str, str]:
    """Old name -> new name for the seats of deleted accounts: "deleted player", then "deleted
    player (2)", ..., never another seat's name."""
    taken = {s.lower() for i, s in enumerate(seats) if i not in deleted}
    renames: dict[str, str] = {}
    k = 1
    for seat in deleted:
        if not 0 <= seat < len(seats):
            continue
        while (new := DELETED_NAME if k == 1 else f"{DELETED_NAME} ({k})").lower() in taken:
            k += 1
        taken.add(new.lower())
        renames[seats[seat]] = new
        k += 1
    return renames


def renamed(value: Any, renames: dict[str, str], key: str | None = None) -> Any:
    """A copy of a stored record (or part) with the seats' names in `renames` replaced, only
    where the record names a seat (so a name that is also a word of the format stays safe)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k, v in value.items():
            name_k = renames.get(str(k), str(k)) if key in _NAME_KEYS else str(k)
            if k in _NAME_FIELDS and isinstance(v, str):
                out[name_k] = renames.get(v, v)
            elif k in _NAME_LISTS and isinstance(v, list):
                out[name_k] = [renames.get(x, x) if isinstance(x, str) else renamed(x, renames) for x in v]
            elif k == "ranking" and isinstance(v, list):
                out[name_k] = [[renames.get(x, x) for x in group] if isinstance(group, list) else group for group in v]
            else:
                out[name_k] = renamed(v, renames, k)
        return out
    if isinstance(value, list):
        return [renamed(x, renames, key) for x in value]
    return value
