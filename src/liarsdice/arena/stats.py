"""The arena's statistics: win rates with Wilson intervals, mean places and returns, head to head,
win rates by seat, OpenSkill ratings and the programs' failures, from the rows of a run.

How each figure is counted is in the docstring of `liarsdice.arena`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypedDict

from .config import entry_labels
from .play import GameRow

Z95 = 1.959963984540054


def wilson(successes: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (successes may be fractional: shared wins)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    # min/max: rounding must not put p itself outside its interval at p = 0 or 1
    return (max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)))


def mean_interval(values: Sequence[float], z: float = Z95) -> tuple[float, float | None, float | None]:
    """The mean and its normal-approximation interval (None below two values)."""
    n = len(values)
    if n == 0:
        return (math.nan, None, None)
    mean = math.fsum(values) / n
    if n < 2:
        return (mean, None, None)
    var = math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def win_shares(places: Sequence[int]) -> list[float]:
    """Each seat's share of the win: 1/k for each of k seats sharing first place."""
    first = sum(1 for p in places if p == 1)
    return [1.0 / first if p == 1 else 0.0 for p in places]


def _group_stats(rows: Sequence[GameRow], entries: Sequence[int], single_round: bool) -> dict[str, Any]:
    """Win, place and return statistics of a group of line-up entries (a name or one entry)."""
    wins = 0.0
    seat_games = 0
    places: list[float] = []
    returns: list[float] = []
    for row in rows:
        seats = [s for s, e in enumerate(row.seating) if e in entries]
        if not seats:
            continue
        shares = win_shares(row.places)
        wins += sum(shares[s] for s in seats)
        seat_games += len(seats)
        places.append(sum(row.places[s] for s in seats) / len(seats))
        if row.returns is not None:
            returns.append(sum(row.returns[s] for s in seats) / len(seats))
    lo, hi = wilson(wins, seat_games)
    mean_place, place_lo, place_hi = mean_interval(places)
    out: dict[str, Any] = {
        "games": len(places),
        "seat_games": seat_games,
        "wins": wins,
        "win_rate": wins / seat_games if seat_games else None,
        "win_low": lo,
        "win_high": hi,
        "mean_place": mean_place,
        "place_low": place_lo,
        "place_high": place_hi,
    }
    if single_round:
        mean_return, return_lo, return_hi = mean_interval(returns)
        out.update(mean_return=mean_return, return_low=return_lo, return_high=return_hi)
    return out


def head_to_head(rows: Sequence[GameRow], lineup: Sequence[str]) -> list[dict[str, Any]]:
    """For each pair of names (in line-up order): how often a seat of A finished ahead of B's."""
    names = list(dict.fromkeys(lineup))
    tally = {(a, b): [0, 0, 0] for i, a in enumerate(names) for b in names[i + 1 :]}  # A ahead, B ahead, ties
    for row in rows:
        for s, e in enumerate(row.seating):
            for t, f in enumerate(row.seating):
                a, b = lineup[e], lineup[f]
                if (a, b) not in tally:
                    continue
                pa, pb = row.places[s], row.places[t]
                tally[a, b][0 if pa < pb else 1 if pb < pa else 2] += 1
    out = []
    for (a, b), (ahead, behind, ties) in tally.items():
        n = ahead + behind + ties
        score = ahead + ties / 2
        lo, hi = wilson(score, n)
        out.append(
            {
                "a": a,
                "b": b,
                "comparisons": n,
                "a_ahead": ahead,
                "b_ahead": behind,
                "ties": ties,
                "a_score": score / n if n else None,
                "low": lo,
                "high": hi,
            }
        )
    return out


class EntryRating(TypedDict):
    """One line-up entry's rating, as the summary's JSON holds it."""

    entry: str
    name: str
    mu: float
    sigma: float
    ordinal: float


def ratings(rows: Sequence[GameRow], lineup: Sequence[str]) -> dict[str, Any]:
    """OpenSkill Plackett-Luce ratings: one player per entry, updated game by game in order."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    labels = entry_labels(lineup)
    players = [model.rating(name=label) for label in labels]
    for row in sorted(rows, key=lambda r: r.game):
        teams = [[players[e]] for e in row.seating]
        rated = model.rate(teams, ranks=list(row.places))
        for e, team in zip(row.seating, rated, strict=True):
            players[e] = team[0]
    entries: list[EntryRating] = [
        {"entry": label, "name": name, "mu": p.mu, "sigma": p.sigma, "ordinal": p.mu - 3 * p.sigma}
        for label, name, p in zip(labels, lineup, players, strict=True)
    ]
    by_name = {}
    for name in dict.fromkeys(lineup):
        mine = [r for r in entries if r["name"] == name]
        mu = sum(r["mu"] for r in mine) / len(mine)
        sigma = sum(r["sigma"] for r in mine) / len(mine)
        by_name[name] = {"mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma}
    return {
        "model": "openskill PlackettLuce (defaults), ranks = places, games in order",
        "entries": entries,
        "names": by_name,
    }


def failure_summary(rows: Sequence[GameRow], lineup: Sequence[str]) -> dict[str, dict[str, int]]:
    """What each program did wrong over the run, by name and kind (forfeits too); only names with any."""
    out: dict[str, dict[str, int]] = {}
    for row in rows:
        for seat, counts in row.failures.items():
            mine = out.setdefault(lineup[row.seating[seat]], {})
            for kind, k in counts.items():
                mine[kind] = mine.get(kind, 0) + k
        if row.forfeit is not None:
            mine = out.setdefault(lineup[row.seating[row.forfeit]], {})
            mine["forfeits"] = mine.get("forfeits", 0) + 1
    return out


def summarize(rows: Sequence[GameRow], lineup: Sequence[str], single_round: bool) -> dict[str, Any]:
    names = list(dict.fromkeys(lineup))
    labels = entry_labels(lineup)
    n = len(lineup)
    rated = ratings(rows, lineup)
    by_name = []
    for name in names:
        entries = [e for e, level in enumerate(lineup) if level == name]
        stats = _group_stats(rows, entries, single_round)
        by_name.append({"name": name, "seats": len(entries), **stats, "rating": rated["names"][name]})
    by_entry = []
    for e, label in enumerate(labels):
        stats = _group_stats(rows, [e], single_round)
        by_entry.append({"entry": label, "name": lineup[e], **stats, "rating": rated["entries"][e]})
    by_seat = []
    for seat in range(n):
        cells = {}
        for name in names:
            wins = 0.0
            count = 0
            for row in rows:
                if lineup[row.seating[seat]] == name:
                    count += 1
                    wins += win_shares(row.places)[seat]
            lo, hi = wilson(wins, count)
            cells[name] = {
                "seat_games": count,
                "wins": wins,
                "win_rate": wins / count if count else None,
                "win_low": lo,
                "win_high": hi,
            }
        seat_wins = sum(win_shares(row.places)[seat] for row in rows)
        lo, hi = wilson(seat_wins, len(rows))
        by_seat.append(
            {
                "seat": seat,
                "games": len(rows),
                "wins": seat_wins,
                "win_rate": seat_wins / len(rows) if rows else None,
                "win_low": lo,
                "win_high": hi,
                "by_name": cells,
            }
        )
    return {
        "failures": failure_summary(rows, lineup),
        "win_rule": "place 1 is a win; a first place shared by k seats counts 1/k of a win for each",
        "fair_win_rate": 1 / n,
        "shared_first_places": sum(1 for row in rows if sum(p == 1 for p in row.places) > 1),
        "mean_rounds": sum(r.rounds for r in rows) / len(rows) if rows else None,
        "names": by_name,
        "entries": by_entry,
        "seats": by_seat,
        "head_to_head": head_to_head(rows, lineup),
        "ratings": rated,
    }
