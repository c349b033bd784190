"""Who plays whom: the lobby's "Play now" seekers paired into tables (docs/lobby.md).

Pure: given the seekers waiting now (each with how long it has waited), it says which tables to
make. As at lichess, a seeker accepts opponents whose rating is within a gap that widens the
longer it waits, and the closest groups are made first. A seeker whose chosen wait is over gets a
table at once, with whoever fits among those waiting and bots of its chosen level in the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..rules import PRESETS

ANY_PRESET_DEFAULT = "perudo"  # the rules of a table whose every seeker said "Any"
BASE_GAP = 100  # the rating gap a seeker accepts at once...
GAP_PER_SECOND = 25  # ...widened by this much for every second it has waited
WAITS = (15, 30, 60, 120, 300)  # the waits a seeker may choose, in seconds
MIN_SEATS, MAX_SEATS = 2, 6


@dataclass(frozen=True)
class Seeker:
    """One person waiting to play: what they asked for, and for how long they have waited."""

    id: int
    preset: str | None  # None: any preset
    seats: int
    rating: int
    waited: float  # seconds
    wait: float = 30.0  # seconds before bots fill the rest
    level: str = "master"  # the bots' level then
    rated: bool = False


@dataclass(frozen=True)
class Match:
    """A table to make: its people (in seat order), its preset, and how many bots fill it."""

    seekers: tuple[Seeker, ...]
    preset: str
    bots: int
    level: str


def accepted_gap(seeker: Seeker) -> float:
    """How far from its own rating this seeker accepts another's, after its wait so far."""
    return BASE_GAP + GAP_PER_SECOND * max(0.0, seeker.waited)


def compatible(a: Seeker, b: Seeker) -> bool:
    """Whether `a` and `b` may sit at one table: the same seats, the same rated or casual choice,
    presets that agree (either may say any), and ratings within both their gaps."""
    if a.seats != b.seats or a.rated != b.rated:
        return False
    if a.preset is not None and b.preset is not None and a.preset != b.preset:
        return False
    return abs(a.rating - b.rating) <= min(accepted_gap(a), accepted_gap(b))


def preset_of(group: Sequence[Seeker]) -> str:
    """The preset a group plays: the one anyone chose (they agree), else the default."""
    return next((s.preset for s in group if s.preset is not None), ANY_PRESET_DEFAULT)


def _grow(seed: Seeker, others: Sequence[Seeker], size: int) -> tuple[Seeker, ...]:
    """`seed` with up to `size - 1` others, nearest in rating first, each fitting every one chosen."""
    group = [seed]
    for other in sorted(others, key=lambda o: (abs(o.rating - seed.rating), -o.waited, o.id)):
        if len(group) == size:
            break
        if other.id != seed.id and all(compatible(other, g) for g in group):
            group.append(other)
    return tuple(group)


def _spread(group: Sequence[Seeker]) -> int:
    ratings = [s.rating for s in group]
    return max(ratings) - min(ratings)


def pair(seekers: Sequence[Seeker]) -> list[Match]:
    """The tables to make now from these waiting seekers (none appears twice). First the full
    tables, the closest in rating first (the longest wait breaks a tie); then, for each seeker
    whose chosen wait is over, a table with whoever fits and bots in the rest."""
    used: set[int] = set()
    matches: list[Match] = []
    candidates = []
    for seed in seekers:
        group = _grow(seed, seekers, seed.seats)
        if len(group) == seed.seats:
            candidates.append(group)
    for group in sorted(candidates, key=lambda g: (_spread(g), -max(s.waited for s in g), min(s.id for s in g))):
        if used.isdisjoint(s.id for s in group):
            used.update(s.id for s in group)
            matches.append(Match(_in_order(group), preset_of(group), 0, group[0].level))
    for seed in sorted(seekers, key=lambda s: (-(s.waited - s.wait), s.id)):
        if seed.id in used or seed.waited < seed.wait:
            continue
        group = _grow(seed, [s for s in seekers if s.id not in used], seed.seats)
        used.update(s.id for s in group)
        matches.append(Match(_in_order(group), preset_of(group), seed.seats - len(group), seed.level))
    return matches


def _in_order(group: Sequence[Seeker]) -> tuple[Seeker, ...]:
    """Seats in the order the seekers came (the longest waiting sits first)."""
    return tuple(sorted(group, key=lambda s: (-s.waited, s.id)))


def check_seek(preset: str | None, seats: int, wait: int) -> str | None:
    """What is wrong with a seek (None: nothing), in words that say what is allowed."""
    if preset is not None and preset not in PRESETS:
        return f"unknown preset {preset!r}: choose one of {', '.join(PRESETS)}, or any"
    if not MIN_SEATS <= seats <= MAX_SEATS:
        return f"seats is {MIN_SEATS} to {MAX_SEATS}"
    p = PRESETS[preset or ANY_PRESET_DEFAULT]
    top = p.max_players if p.max_players is not None else MAX_SEATS
    if not p.min_players <= seats <= top:
        return f"{p.title} is played by {p.min_players} to {top}: choose a number of seats in that range"
    if wait not in WAITS:
        return f"the wait is one of {', '.join(str(w) for w in WAITS)} seconds"
    return None
