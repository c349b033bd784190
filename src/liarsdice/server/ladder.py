"""The bot ladder (`liarsdice serve --ladder PRESETS`): bot-only tables kept going among the
operator's programs, the built-in levels entered as anchors and (`--ladder-accounts`) the bot
accounts online, every entrant rated by its results with OpenSkill (Plackett-Luce, one rating
per preset), and a leaderboard.

The ladder runs beside the tables in the server process. Now and then it rates every ladder game
that has finished since (in the order the games were started, each in the same transaction that
marks it rated, so a restart neither skips nor repeats one), and opens a new table while fewer
than `tables` ladder games are in play. A table is an ordinary table with bots in every seat
(an account is invited to its seat, as a host would invite it): its games are stored, listed
under History and replayable like any other.

Here: the ladder a server is asked to run (`LadderConfig`, checked by `parse_ladder`). Its ratings
and leaderboard are in ladderratings.py, its tables in laddergames.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..levels import allowed, is_level, resolve
from ..rules import OptionsError, find_preset
from .limits import MAX_TURN_SECONDS, build_options
from .seatkinds import OPERATOR_LEVEL

MAX_TABLES = 64
MAX_SEATS = 12


class LadderError(ValueError):
    """A ladder that cannot be run as asked: the message says what is wrong and what is allowed."""


@dataclass(frozen=True)
class LadderConfig:
    presets: tuple[str, ...]
    entrants: tuple[str, ...]  # bot_levels: anchors ("probability") and "operator:NAME"
    tables: int = 1  # ladder games in play at once
    seats: int = 2  # seats at every ladder table
    overrides: Mapping[str, Any] = field(default_factory=dict)  # options of every ladder table (e.g. dice)
    every: float = 1.0  # seconds between looks for finished games and free places
    accounts: bool = False  # bot accounts online enter too (invited; each accepts by its own rules)
    accept_wait: float = 30.0  # seconds an invited account has to take its seat
    # An account seated and connected but silent would hold its table (and with it the ladder)
    # for ever: past this many seconds on its turn a built-in bot moves for it. 0: no clock.
    turn_seconds: int = 60


def parse_ladder(
    presets: str,
    anchors: str = "",
    *,
    tables: int = 1,
    seats: int = 2,
    dice: int | None = None,
    operator_bots: Mapping[str, str] | None = None,
    accounts: bool = False,
    every: float = 1.0,
    accept_wait: float = 30.0,
    turn_seconds: int = 60,
) -> LadderConfig:
    """The ladder `serve --ladder PRESETS --ladder-anchors LEVELS ...` asks for, checked."""
    names = [p.strip() for p in presets.split(",") if p.strip()]
    if not names:
        raise LadderError("--ladder is a comma list of presets, e.g. --ladder perudo,soar")
    chosen: list[str] = []
    for name in names:
        try:
            chosen.append(find_preset(name).name)
        except OptionsError as e:
            raise LadderError(f"--ladder: {e}") from None
    levels = [a.strip() for a in anchors.split(",") if a.strip()]
    for level in levels:
        if not is_level(level):
            raise LadderError(f"--ladder-anchors: unknown bot level {level!r}: the levels are {allowed()}")
    # Entered as the bot that plays the level ("Skilled" is "probability"): a rating stays its own.
    levels = [resolve(level) for level in levels]
    entrants = list(dict.fromkeys([*levels, *(OPERATOR_LEVEL + n for n in sorted(operator_bots or {}))]))
    if not 1 <= tables <= MAX_TABLES:
        raise LadderError(f"--ladder-tables is 1 to {MAX_TABLES}, not {tables}")
    if not 0 <= turn_seconds <= MAX_TURN_SECONDS:
        raise LadderError(f"--ladder-turn-seconds is 0 (no clock) to {MAX_TURN_SECONDS}, not {turn_seconds}")
    if not 2 <= seats <= MAX_SEATS:
        raise LadderError(f"--ladder-seats is 2 to {MAX_SEATS}, not {seats}")
    if len(entrants) < 2 or len(entrants) < seats:
        raise LadderError(
            f"the ladder needs at least {max(2, seats)} entrants for {seats} seats, and has {len(entrants)}: "
            "enter built-in levels with --ladder-anchors (e.g. Beginner,Skilled) or programs with --bot NAME=COMMAND"
        )
    overrides: dict[str, Any] = {}
    if dice is not None:
        overrides["dice_per_player"] = dice
    for preset in dict.fromkeys(chosen):
        try:
            build_options(preset, overrides, seats)
        except OptionsError as e:
            raise LadderError(f"--ladder {preset} with {seats} seats: {e}") from None
        p = find_preset(preset)
        if seats < p.min_players or (p.max_players is not None and seats > p.max_players):
            most = p.max_players if p.max_players is not None else MAX_SEATS
            raise LadderError(f"--ladder-seats: {preset} seats {p.min_players} to {most}, not {seats}")
    return LadderConfig(
        tuple(dict.fromkeys(chosen)),
        tuple(entrants),
        tables,
        seats,
        overrides,
        every,
        accounts,
        accept_wait,
        turn_seconds,
    )
