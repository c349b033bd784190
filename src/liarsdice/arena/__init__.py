"""The arena: many games among bots, seats rotated, played in parallel, with the statistics.

A run seats a line-up of bots (one entry per seat; a level may fill several seats) at one table
for a number of games. Game g (counted from 1) uses rotation r = (g - 1) mod N: the line-up's entry
i sits in seat (i + r) mod N, so over any N consecutive games every entry sits in every seat once.
Every game's dealer seed and every bot's seed are derived from the run's seed by hashing, never
by drawing in order, so a game plays out the same whichever worker plays it and in whichever
order: the same seed reproduces the same games, the same tables and the same ratings. The games
run in worker processes here, or as Ray tasks on a cluster (`arena.ray`, docs/scaling.md).

Statistics, per bot name (the entries of one level are pooled) and per entry:

* wins: a first place shared by k seats counts 1/k of a win for each of them, so the wins of a
  game always add up to one;
* win rate with a Wilson 95% interval over seat-games (a pooled name at k seats has k seat-games
  per game; its seats never win together, which makes the interval a little wider than needed);
* mean place, and for single-round games (openspiel) the mean return, with a normal 95% interval
  over games (a pooled name's value in a game is the mean over its seats, so seats that move
  together are not counted as independent);
* head to head: for two names, how often a seat of A finished ahead of a seat of B at the same
  table (a tie counts half), with a Wilson interval;
* OpenSkill (Plackett-Luce) ratings, one player per entry, updated from each game's places in
  game order; a pooled name's rating is the mean of its entries'.

An entry may be a program that speaks the bot protocol (`exec:COMMAND`). Each worker starts it
once per chunk of games and tells it of each new game; what went wrong (timeouts, illegal
answers, garbage, crashes, ...) is counted per game and per name, and a game it forfeits (with
`fallback=forfeit`) places it last and the others first together.

The settings and seeds are in `arena.config`, the games in `arena.play`, the files and the
result in `arena.results`, a whole run in `arena.run`; the statistics in `arena.stats`, the
terminal report and the chart in `arena.report`, Ray in `arena.ray`.
"""

from __future__ import annotations

from .config import (
    BOT_LOGS,
    RECORDS,
    SEEDING,
    ArenaConfig,
    ArenaError,
    ArenaInputError,
    bot_seed,
    entry_labels,
    game_seed,
    parse_lineup,
    record_name,
    rotation,
    seating,
)
from .play import (
    GameRow,
    WorkerSpec,
    chunk_size,
    chunks_of,
    exec_settings,
    make_spec,
    play_all,
    play_games,
    play_games_keeping_records,
)
from .results import ArenaResult, check_out_dir, default_out_dir, write_csv
from .run import default_workers, run_arena

__all__ = [
    "BOT_LOGS",
    "RECORDS",
    "SEEDING",
    "ArenaConfig",
    "ArenaError",
    "ArenaInputError",
    "ArenaResult",
    "GameRow",
    "WorkerSpec",
    "bot_seed",
    "check_out_dir",
    "chunk_size",
    "chunks_of",
    "default_out_dir",
    "default_workers",
    "entry_labels",
    "exec_settings",
    "game_seed",
    "make_spec",
    "parse_lineup",
    "play_all",
    "play_games",
    "play_games_keeping_records",
    "record_name",
    "rotation",
    "run_arena",
    "seating",
    "write_csv",
]
