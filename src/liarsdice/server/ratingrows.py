"""People's ratings as the database keeps them (docs/ratings.md): a finished game of a rated
table rated once, the ratings a game changed, and one person's shown rating. Jobs run on the
store's thread.

Each (person, family) has one OpenSkill Plackett-Luce rating (the defaults: mu 25, sigma 25/3).
A rated game ranks its accounts by their places in the record (a forfeit's too); bots sitting
at a rated table are not rated, and a game with fewer than two accounts changes nothing. The
game is claimed in the database (`games.rated_at` set where it was empty), so that even with
several server processes a game is rated once.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from .gamepeople import people_of_game
from .ladderratings import record_places
from .placerating import new_rating, rate_by_places
from .ratingfamily import START_SHOWN, family_of, provisional, shown
from .storage import GameRow, PersonRatingRow, PersonRow, RatingChangeRow, utcnow

log = logging.getLogger("liarsdice.server.ratings")

MODEL = "openskill PlackettLuce (defaults), ranks = places, one rating per person and family"


def claim(session: Session, game_id: int) -> bool:
    """Mark a finished rated game as rated; whether this job is the one that did (the others
    find it claimed and leave it)."""
    done = session.execute(
        update(GameRow)
        .where(
            GameRow.id == game_id,
            GameRow.status == "finished",
            GameRow.rating_family.is_not(None),
            GameRow.rated_at.is_(None),
        )
        .values(rated_at=utcnow())
    )
    return bool(getattr(done, "rowcount", 0) == 1)


def rate_game(session: Session, game_id: int) -> int:
    """Rate game `game_id` if it is a finished rated game not rated yet; how many people's
    ratings changed (0: nothing to do, or fewer than two accounts)."""
    if not claim(session, game_id):
        return 0
    game = session.get(GameRow, game_id)
    assert game is not None and game.rating_family is not None
    family = game.rating_family
    people = people_of_game(session, game_id)  # seat -> person
    places = record_places(game.record, game.seats)
    seats = [seat for seat in sorted(people) if 0 <= seat < len(game.seats) and game.seats[seat] in places]
    if len({people[s] for s in seats}) != len(seats) or len(seats) < 2:
        return 0  # one account at two seats, or fewer than two accounts: nothing to rate
    stored = {
        r.person_id: r
        for r in session.scalars(
            select(PersonRatingRow).where(
                PersonRatingRow.family == family, PersonRatingRow.person_id.in_([people[s] for s in seats])
            )
        )
    }
    for seat in seats:
        if people[seat] not in stored:
            mu, sigma = new_rating()
            row = PersonRatingRow(person_id=people[seat], family=family, mu=mu, sigma=sigma, games=0, wins=0)
            session.add(row)
            stored[people[seat]] = row
    before = {seat: (stored[people[seat]].mu, stored[people[seat]].sigma) for seat in seats}
    rate_by_places([stored[people[seat]] for seat in seats], [places[game.seats[seat]] for seat in seats])
    for seat in seats:
        row = stored[people[seat]]
        session.add(
            RatingChangeRow(
                game_id=game_id,
                person_id=people[seat],
                seat_no=seat,
                family=family,
                mu_before=before[seat][0],
                sigma_before=before[seat][1],
                mu_after=row.mu,
                sigma_after=row.sigma,
                at=row.updated_at,
            )
        )
    session.flush()
    return len(seats)


def rate_safely(session: Session, game_id: int) -> None:
    """`rate_game` in a savepoint of its own: a rating that fails is logged and leaves the
    finished game as it is (it is then not rated)."""
    try:
        with session.begin_nested():
            rate_game(session, game_id)
    except Exception:
        log.exception("game %d could not be rated", game_id)


def shown_rating(session: Session, person_id: int, family: str) -> int:
    """The person's shown rating in `family` (START_SHOWN for nobody rated there yet)."""
    mu = session.scalar(
        select(PersonRatingRow.mu).where(PersonRatingRow.person_id == person_id, PersonRatingRow.family == family)
    )
    return START_SHOWN if mu is None else shown(mu)


def game_ratings(session: Session, game_id: int) -> dict[str, Any] | None:
    """`GET /api/games/{id}/ratings`: whether the game is rated, and what it did to each
    account's rating; None for no such game."""
    game = session.get(GameRow, game_id)
    if game is None:
        return None
    family = game.rating_family or family_of(game.preset)
    out: dict[str, Any] = {"game": game_id, "rated": False, "family": family, "pending": False, "changes": []}
    if game.rating_family is None:
        return out  # a casual table's game
    if game.rated_at is None:
        out["rated"], out["pending"] = True, True
        return out
    rows = session.execute(
        select(RatingChangeRow, PersonRow.name)
        .join(PersonRow, PersonRow.id == RatingChangeRow.person_id)
        .where(RatingChangeRow.game_id == game_id)
        .order_by(RatingChangeRow.seat_no)
    ).all()
    out["rated"] = bool(rows)
    out["changes"] = [
        {
            "seat": change.seat_no,
            "name": name,
            "before": shown(change.mu_before),
            "after": shown(change.mu_after),
            "delta": shown(change.mu_after) - shown(change.mu_before),
            "provisional": provisional(change.sigma_after),
        }
        for change, name in rows
    ]
    return out
