"""One OpenSkill step shared by both kinds of rating the server keeps: the bots' ladder
(ladderratings.py) and people's ratings (ratingrows.py). A game's players, ranked by their
places, move by Plackett-Luce with the library's defaults (a new player: mu 25, sigma 25/3)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from .storage import utcnow


class RatingRow(Protocol):
    """A stored rating (storage.LadderRatingRow, storage.PersonRatingRow)."""

    mu: float
    sigma: float
    games: int
    wins: int
    updated_at: datetime


def new_rating() -> tuple[float, float]:
    """A new player's (mu, sigma)."""
    from openskill.models import PlackettLuce

    fresh = PlackettLuce().rating()
    return fresh.mu, fresh.sigma


def rate_by_places(rows: Sequence[RatingRow], places: Sequence[float]) -> None:
    """Move each row by one game in which its player finished at `places[i]` (1: won): its mu
    and sigma, one more game, one more win for a first place."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    teams = [[model.rating(mu=row.mu, sigma=row.sigma)] for row in rows]
    rated = model.rate(teams, ranks=[float(p) for p in places])
    now = utcnow()
    for row, team, place in zip(rows, rated, places, strict=True):
        row.mu, row.sigma = team[0].mu, team[0].sigma
        row.games += 1
        row.wins += place == 1
        row.updated_at = now
