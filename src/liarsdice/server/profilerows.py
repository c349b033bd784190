"""A player's profile and the leaderboards (docs/ratings.md), as the database holds them: jobs
run on the store's thread, answering `/api/players/<name>` and `/api/leaderboard`."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..rules import PRESETS
from .gamepeople import deleted_seats, hidden_names
from .ladderratings import record_places
from .people import DELETED_NAME, name_key
from .ratingfamily import families, family_title, provisional, shown, shown_sigma
from .storage import AnalysisRow, GamePersonRow, GameRow, PersonRatingRow, PersonRow, RatingChangeRow, as_utc

LATEST = 20  # games a profile lists
BOARD = 100  # players a leaderboard lists
CHART_POINTS = 200  # the latest rated games each family's chart draws


def rating_json(row: PersonRatingRow) -> dict[str, Any]:
    return {
        "family": row.family,
        "title": family_title(row.family),
        "rating": shown(row.mu),
        "uncertainty": shown_sigma(row.sigma),
        "provisional": provisional(row.sigma),
        "games": row.games,
        "wins": row.wins,
    }


def _stamp(moment: Any) -> str | None:
    return as_utc(moment).isoformat(timespec="seconds") if moment is not None else None


def profile(session: Session, name: str) -> dict[str, Any] | None:
    """The profile of the account named `name` (any case): its ratings, each family's rating
    over time, its games played and won, and its latest games. A deleted account's name is
    "deleted player" (`deleted`: true, nothing else); None if no account has the name."""
    person = session.scalar(select(PersonRow).where(PersonRow.name_key == name_key(name)))
    if person is None:
        if name_key(name) == name_key(DELETED_NAME):
            return {"name": DELETED_NAME, "deleted": True}
        return None
    ratings = session.scalars(
        select(PersonRatingRow).where(PersonRatingRow.person_id == person.id).order_by(PersonRatingRow.family)
    ).all()
    history: dict[str, list[dict[str, Any]]] = {}
    changes = session.scalars(
        select(RatingChangeRow)
        .where(RatingChangeRow.person_id == person.id)
        .order_by(RatingChangeRow.id.desc())
        .limit(CHART_POINTS * 4)
    ).all()
    for change in reversed(changes):
        points = history.setdefault(change.family, [])
        if not points:  # where the line starts: the rating before the first game charted
            points.append({"game": None, "at": None, "rating": shown(change.mu_before)})
        points.append({"game": change.game_id, "at": _stamp(change.at), "rating": shown(change.mu_after)})
    played = session.execute(
        select(GameRow, GamePersonRow.seat_no)
        .join(GamePersonRow, GamePersonRow.game_id == GameRow.id)
        .where(GamePersonRow.person_id == person.id, GameRow.status == "finished")
        .order_by(GameRow.id.desc())
    ).all()
    won = sum(1 for game, seat in played if seat < len(game.seats) and game.seats[seat] in (game.winners or []))
    latest = played[:LATEST]
    ids = [game.id for game, _ in latest]
    deltas = {
        c.game_id: shown(c.mu_after) - shown(c.mu_before)
        for c in session.scalars(
            select(RatingChangeRow).where(RatingChangeRow.person_id == person.id, RatingChangeRow.game_id.in_(ids))
        )
    }
    analysed = set(
        session.scalars(select(AnalysisRow.game_id).where(AnalysisRow.game_id.in_(ids), AnalysisRow.status == "done"))
    )
    hidden = deleted_seats(session, ids)
    games = []
    for game, seat in latest:
        renames = hidden_names(game.seats, hidden.get(game.id, []))
        places = record_places(game.record, game.seats)
        games.append(
            {
                "id": game.id,
                "preset": game.preset,
                "title": PRESETS[game.preset].title if game.preset in PRESETS else game.preset,
                "seat": seat,
                "seats": [renames.get(s, s) for s in game.seats],
                "place": places.get(game.seats[seat]) if seat < len(game.seats) else None,
                "won": seat < len(game.seats) and game.seats[seat] in (game.winners or []),
                "rated": game.rating_family is not None,
                "delta": deltas.get(game.id),
                "analysis": game.id in analysed,
                "finished": _stamp(game.finished_at),
            }
        )
    return {
        "name": person.name,
        "deleted": person.deleted_at is not None,
        "since": _stamp(person.created_at),
        "ratings": [rating_json(r) for r in ratings],
        "history": history,
        "played": len(played),
        "won": won,
        "games": games,
    }


def leaderboard(session: Session, family: str) -> dict[str, Any]:
    """The accounts rated in `family` by shown rating, best first; the provisional ones after
    the others (their number says little yet)."""
    rows = session.execute(
        select(PersonRatingRow, PersonRow.name)
        .join(PersonRow, PersonRow.id == PersonRatingRow.person_id)
        .where(PersonRatingRow.family == family, PersonRow.deleted_at.is_(None))
    ).all()
    ordered = sorted(rows, key=lambda r: (provisional(r[0].sigma), -shown(r[0].mu), name_key(r[1])))[:BOARD]
    counts = dict(session.execute(select(PersonRatingRow.family, func.count()).group_by(PersonRatingRow.family)).all())
    return {
        "family": family,
        "title": family_title(family),
        "families": [{"family": f, "title": family_title(f), "players": counts.get(f, 0)} for f in families()],
        "players": [{"rank": i + 1, "name": name, **rating_json(row)} for i, (row, name) in enumerate(ordered)],
    }
