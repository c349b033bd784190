"""The arena's settings, line-up and seeds: what every other part of the arena reads.

Every game's dealer seed and every bot's seed are derived from the run's seed by hashing, never by
drawing in order, so a game plays out the same whichever worker plays it and in whichever order.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..rules import Options

if TYPE_CHECKING:
    from ..botproto.driver import ExecSettings

RECORDS = "records"
BOT_LOGS = "bot-logs"
SEEDING = (
    "game g (from 1) is dealt from blake2b('arena-game/SEED/g') and line-up entry e's bot is seeded "
    "blake2b('arena-bot/SEED/g/e'), each 8 bytes big-endian shifted right by one; rotation (g - 1) mod N "
    "puts entry i in seat (i + rotation) mod N"
)


class ArenaError(RuntimeError):
    """A game could not be played (a bot's illegal move, a crash); names the game and its seed."""


class ArenaInputError(ValueError):
    """Arena settings that make no sense: the shell reports them as a usage error."""


# ----- settings and seeds -----


@dataclass(frozen=True)
class ArenaConfig:
    preset: str | None
    options: Options
    lineup: tuple[str, ...]  # bot level of each entry; entry i sits in seat i in game 1
    games: int
    seed: int
    workers: int = 1
    out: Path | None = None
    records: bool = True
    arguments: dict[str, Any] = field(default_factory=dict)  # as given on the command line
    exec_settings: ExecSettings | None = None  # how exec: entries are driven (None: the defaults, logs under out)
    ray: str | None = None  # play the games as Ray tasks: "local", "auto", "ray://host:port" or "host:port"
    ray_working_dir: Path | None = None  # a folder Ray ships to every worker and runs the tasks in

    @property
    def players(self) -> int:
        return len(self.lineup)

    @property
    def labels(self) -> tuple[str, ...]:
        return entry_labels(self.lineup)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.lineup))


def parse_lineup(bots: str | Sequence[str], players: int | None = None) -> tuple[str, ...]:
    """The bot of each seat: the levels (or exec:COMMAND programs) given, cycled to `players` seats."""
    from ..botproto.spec import check_bot_spec, is_exec, split_bot_list
    from ..levels import allowed, is_level, resolve

    items = split_bot_list(bots) if isinstance(bots, str) else list(bots)
    names = [b.strip() if is_exec(b) else b.strip().lower() for b in items if b.strip()]
    if not names:
        raise ArenaInputError(f"--bots names at least one bot level: {allowed()}")
    try:
        names = [check_bot_spec(b) if is_exec(b) else b for b in names]
    except ValueError as e:
        raise ArenaInputError(str(e)) from None
    unknown = [b for b in dict.fromkeys(names) if not is_exec(b) and not is_level(b)]
    if unknown:
        which = ", ".join(map(repr, unknown))
        raise ArenaInputError(f"unknown bot level{'s' if len(unknown) > 1 else ''} {which}: the levels are {allowed()}")
    # A level by the bot that plays it (Master is duel): results, records and sources name bots.
    names = [b if is_exec(b) else resolve(b) for b in names]
    n = len(names) if players is None else players
    if n < 2:
        raise ArenaInputError(f"an arena needs at least 2 players, not {n} (list more bots or raise --players)")
    if n < len(names):
        raise ArenaInputError(f"{len(names)} bots listed for {n} seats (--players): list at most one bot per seat")
    return tuple(names[i % len(names)] for i in range(n))


def entry_labels(lineup: Sequence[str]) -> tuple[str, ...]:
    """Seat names: the level (a program's file name), numbered where one fills several seats."""
    from ..botproto.spec import spec_label

    short = {name: spec_label(name) for name in dict.fromkeys(lineup)}
    if len(set(short.values())) < len(short):  # two programs of one file name: show the commands
        short = {name: name for name in short}
    total = {name: lineup.count(name) for name in lineup}
    seen: dict[str, int] = {}
    labels = []
    for name in lineup:
        seen[name] = seen.get(name, 0) + 1
        labels.append(short[name] if total[name] == 1 else f"{short[name]}-{seen[name]}")
    return tuple(labels)


def _derive(*parts: object) -> int:
    # A hash, not a generator drawn in order: a game's seeds depend on nothing but (seed, game).
    digest = hashlib.blake2b("/".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1  # 63 bits: a plain non-negative int everywhere


def game_seed(seed: int, game: int) -> int:
    """The dealer's seed of game `game` (from 1) in a run seeded `seed`."""
    return _derive("arena-game", seed, game)


def bot_seed(seed: int, game: int, entry: int) -> int:
    """The seed of line-up entry `entry` in game `game`, wherever it sits."""
    return _derive("arena-bot", seed, game, entry)


def rotation(game: int, players: int) -> int:
    return (game - 1) % players


def seating(game: int, players: int) -> tuple[int, ...]:
    """The line-up entry in each seat of game `game`."""
    r = rotation(game, players)
    return tuple((seat - r) % players for seat in range(players))


def record_name(game: int, games: int) -> str:
    return f"game-{game:0{max(5, len(str(games)))}d}.json"
