"""The ladder's ratings: every finished ladder game rated with OpenSkill (Plackett-Luce, one
rating per preset), in the order the games were started, and the leaderboard (ladder.py)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..match import forfeit_places
from ..rules import find_preset
from .placerating import new_rating, rate_by_places
from .seatkinds import ACCOUNT_LEVEL, OPERATOR_LEVEL
from .storage import GameRow, LadderGameRow, LadderRatingRow, as_utc, utcnow

log = logging.getLogger("liarsdice.server.ladder")

MODEL = "openskill PlackettLuce (defaults), ranks = places, games in the order they started"
RECENT_GAMES = 20  # games listed per bot on the leaderboard


def entrant_json(entrant: str) -> dict[str, str]:
    """How the leaderboard names an entrant: its name and kind (anchor, operator, account)."""
    if entrant.startswith(OPERATOR_LEVEL):
        return {"entrant": entrant, "name": entrant[len(OPERATOR_LEVEL) :], "kind": "operator"}
    if entrant.startswith(ACCOUNT_LEVEL):
        return {"entrant": entrant, "name": entrant[len(ACCOUNT_LEVEL) :], "kind": "account"}
    return {"entrant": entrant, "name": entrant, "kind": "anchor"}


def record_places(record: Mapping[str, Any] | None, seats: Sequence[str]) -> dict[str, int]:
    """Each seat's place in a stored game, by seat name: its result's, or, in a game a seat
    forfeited (whose record has no result), the forfeit's (that seat last, the others first)."""
    record = record or {}
    places = (record.get("result") or {}).get("places")
    if places:
        return dict(places)
    forfeit = (record.get("meta") or {}).get("forfeit") or {}
    if forfeit.get("seat") in seats:
        return dict(zip(seats, forfeit_places(len(seats), list(seats).index(forfeit["seat"])), strict=True))
    return {}


# ----- database jobs (on the store's thread) -----


def rate_finished(session: Session) -> int:
    """Rate every ladder game finished and not yet rated, oldest first; how many."""
    rows = session.execute(
        select(LadderGameRow, GameRow)
        .join(GameRow, GameRow.id == LadderGameRow.game_id)
        .where(LadderGameRow.rated_at.is_(None), GameRow.status == "finished")
        .order_by(LadderGameRow.game_id)
    ).all()
    for ladder_game, game in rows:
        places = record_places(game.record, game.seats)
        entrants = list(ladder_game.entrants)
        if len(entrants) != len(game.seats) or set(places) != set(game.seats):
            log.warning("ladder game %d has no result by seat: not rated", game.id)
            ladder_game.rated_at = utcnow()
            continue
        stored = {
            r.entrant: r
            for r in session.scalars(
                select(LadderRatingRow).where(
                    LadderRatingRow.preset == ladder_game.preset, LadderRatingRow.entrant.in_(entrants)
                )
            )
        }
        for entrant in entrants:
            if entrant not in stored:
                mu, sigma = new_rating()
                row = LadderRatingRow(preset=ladder_game.preset, entrant=entrant, mu=mu, sigma=sigma, games=0, wins=0)
                session.add(row)
                stored[entrant] = row
        rate_by_places([stored[e] for e in entrants], [places[name] for name in game.seats])
        ladder_game.rated_at = utcnow()
        session.flush()
    return len(rows)


def ladder_in_play(session: Session) -> int:
    """Ladder games not finished yet."""
    return (
        session.scalar(
            select(func.count())
            .select_from(LadderGameRow)
            .join(GameRow, GameRow.id == LadderGameRow.game_id)
            .where(GameRow.status != "finished")
        )
        or 0
    )


def games_per_entrant(session: Session, preset: str) -> dict[str, int]:
    """Ladder games each entrant has sat at on `preset`'s ladder, rated or not."""
    counts: dict[str, int] = {}
    for entrants in session.scalars(select(LadderGameRow.entrants).where(LadderGameRow.preset == preset)):
        for entrant in entrants:
            counts[entrant] = counts.get(entrant, 0) + 1
    return counts


def note_game(session: Session, game_id: int, preset: str, entrants: list[str]) -> None:
    session.add(LadderGameRow(game_id=game_id, preset=preset, entrants=entrants))


def leaderboard(session: Session, preset: str | None = None) -> list[dict[str, Any]]:
    """Per preset (every preset with ratings, or only `preset`): the bots by ordinal (mu - 3
    sigma), best first, each with its games, wins and its latest rated games."""
    query = select(LadderRatingRow)
    if preset is not None:
        query = query.where(LadderRatingRow.preset == preset)
    by_preset: dict[str, list[LadderRatingRow]] = {}
    for row in session.scalars(query.order_by(LadderRatingRow.preset)):
        by_preset.setdefault(row.preset, []).append(row)
    boards = []
    for name, rows in by_preset.items():
        games = session.execute(
            select(LadderGameRow, GameRow)
            .join(GameRow, GameRow.id == LadderGameRow.game_id)
            .where(LadderGameRow.preset == name, LadderGameRow.rated_at.is_not(None))
            .order_by(LadderGameRow.game_id.desc())
            .limit(50 * RECENT_GAMES)
        ).all()
        recent: dict[str, list[dict[str, Any]]] = {}
        for ladder_game, game in games:
            places = record_places(game.record, game.seats)
            for entrant, seat in zip(ladder_game.entrants, game.seats, strict=False):
                mine = recent.setdefault(entrant, [])
                if len(mine) < RECENT_GAMES:
                    mine.append(
                        {
                            "id": game.id,
                            "place": places.get(seat),
                            "seats": list(game.seats),
                            "winners": list(game.winners or []),
                            "rounds": game.rounds,
                            "finished": as_utc(game.finished_at).isoformat(timespec="seconds")
                            if game.finished_at
                            else None,
                        }
                    )
        bots = [
            {
                **entrant_json(r.entrant),
                "mu": r.mu,
                "sigma": r.sigma,
                "ordinal": r.mu - 3 * r.sigma,
                "games": r.games,
                "wins": r.wins,
                "recent": recent.get(r.entrant, []),
            }
            for r in sorted(rows, key=lambda r: (-(r.mu - 3 * r.sigma), r.entrant))
        ]
        boards.append({"preset": name, "title": find_preset(name).title, "bots": bots})
    return boards
