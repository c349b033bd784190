"""Playing the arena's games: a chunk in this process, or all of them in worker processes."""

from __future__ import annotations

import dataclasses
import json
import signal
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..rules import Game, Options
from .config import (
    BOT_LOGS,
    ArenaConfig,
    ArenaError,
    bot_seed,
    entry_labels,
    game_seed,
    record_name,
    rotation,
    seating,
)

if TYPE_CHECKING:
    from ..botproto.driver import ExecBot, ExecSettings


@dataclass(frozen=True)
class GameRow:
    """One played game, per seat where it varies: small, since workers send it back pickled."""

    game: int
    seed: int
    rotation: int
    seating: tuple[int, ...]  # the entry in each seat
    bot_seeds: tuple[int, ...]  # per seat
    places: tuple[int, ...]  # per seat: 1 is best, tied seats share a place
    returns: tuple[float, ...] | None  # per seat, single-round games only
    rounds: int
    steps: int
    play_seconds: float
    write_seconds: float
    failures: dict[int, dict[str, int]] = field(default_factory=dict)  # by seat: what its program did wrong
    forfeit: int | None = None  # the seat that forfeited the game


@dataclass(frozen=True)
class WorkerSpec:
    preset: str | None
    options: dict[str, Any]
    lineup: tuple[str, ...]
    seed: int
    games: int
    records: str | None
    exec_settings: ExecSettings | None = None


_worker_spec: WorkerSpec | None = None
_worker_games: dict[tuple[str, tuple[str, ...]], Game] = {}


def _init_worker(spec: WorkerSpec) -> None:
    # The parent alone answers Ctrl-C: it cancels what is queued and lets running chunks finish,
    # instead of every worker printing its own traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _worker_spec
    _worker_spec = spec


def _worker_chunk(numbers: Sequence[int]) -> list[GameRow]:
    assert _worker_spec is not None, "the worker was not initialised"
    return play_games(_worker_spec, numbers)


RecordSink = Callable[[int, str], None]  # (game, the record as JSON text)


def play_games(spec: WorkerSpec, numbers: Iterable[int]) -> list[GameRow]:
    """Play these games, writing their records under spec.records (if set); the programs of exec:
    entries are started once for all of them."""
    records = Path(spec.records) if spec.records is not None else None

    def write(g: int, text: str) -> None:
        assert records is not None
        (records / record_name(g, spec.games)).write_text(text, encoding="utf-8")

    return _play_with_programs(spec, numbers, write if records is not None else None)


def play_games_keeping_records(spec: WorkerSpec, numbers: Iterable[int]) -> tuple[list[GameRow], list[tuple[int, str]]]:
    """Play these games and hand back their records (game, JSON text) instead of writing them:
    where the games run on other machines, the driver writes them into its own folder."""
    kept: list[tuple[int, str]] = []
    rows = _play_with_programs(spec, numbers, lambda g, text: kept.append((g, text)))
    return rows, kept


def _play_with_programs(spec: WorkerSpec, numbers: Iterable[int], save: RecordSink | None) -> list[GameRow]:
    from ..match import close_all

    programs: dict[int, ExecBot] = {}  # line-up entry -> its running program
    try:
        return _play_games(spec, numbers, programs, save)
    finally:
        close_all(list(programs.values()))


def _play_games(
    spec: WorkerSpec, numbers: Iterable[int], programs: dict[int, ExecBot], save: RecordSink | None
) -> list[GameRow]:
    from ..botproto.spec import is_exec
    from ..bots import Bot
    from ..match import Forfeit, new_recorder, play_game
    from ..players import make_bot

    n = len(spec.lineup)
    labels = entry_labels(spec.lineup)
    rules = json.dumps(spec.options, sort_keys=True)
    rows = []

    def agent(entry: int, seed: int) -> Bot:
        level = spec.lineup[entry]
        if not is_exec(level):
            return make_bot(level, seed)
        bot = programs.get(entry)
        if bot is not None and bot.dead:  # it crashed last game: a fresh process for this one
            bot.close()
            bot = None
        if bot is None:
            from ..botproto.driver import ExecBot  # loaded already: make_bot made one before

            made = make_bot(level, seed, settings=spec.exec_settings)
            assert isinstance(made, ExecBot)  # an exec: level makes a program
            bot = programs[entry] = made
        bot.reseed(seed)  # as if made for this game: the same games whichever worker plays them
        return bot

    for g in numbers:
        seats = seating(g, n)
        names = tuple(labels[e] for e in seats)
        game = _worker_games.get((rules, names))
        if game is None:  # one Game per rules, rotation and process: building one validates the options
            game = _worker_games[rules, names] = Game(Options.from_dict(spec.options), names)
        seed = game_seed(spec.seed, g)
        seeds = tuple(bot_seed(spec.seed, g, e) for e in seats)
        players = [
            {"name": labels[e], "kind": "bot", "level": spec.lineup[e], "seed": s}
            for e, s in zip(seats, seeds, strict=True)
        ]
        started = time.perf_counter()
        forfeit: Forfeit | None = None
        try:
            agents = [agent(e, s) for e, s in zip(seats, seeds, strict=True)]
            recorder = new_recorder(game, seed=seed, preset=spec.preset, players=players)
            try:
                state, recorder = play_game(game, agents, seed=seed, recorder=recorder, close_agents=False)
            except Forfeit as e:
                forfeit = e
        except Exception as e:
            raise ArenaError(f"game {g} (seed {seed}, seats {', '.join(names)}) failed: {type(e).__name__}: {e}") from e
        played = time.perf_counter()
        failures = {s: a.take_failures() for s, a in enumerate(agents) if hasattr(a, "take_failures")}
        failures = {s: f for s, f in failures.items() if f}
        data = recorder.data
        if forfeit is not None:
            from ..match import forfeit_result

            assert forfeit.seat is not None
            result = forfeit_result(n, forfeit.seat, game.options.rounds == "single")
        else:
            assert state.result is not None
            result = state.result
        if save is not None:
            data["meta"]["arena"] = {"game": g, "games": spec.games, "run_seed": spec.seed, "rotation": rotation(g, n)}
            # Compact JSON: with an indent the json module falls back to its pure-Python encoder,
            # several times slower, and a record is as valid either way.
            save(g, json.dumps(data, separators=(",", ":")))
        rows.append(
            GameRow(
                game=g,
                seed=seed,
                rotation=rotation(g, n),
                seating=seats,
                bot_seeds=seeds,
                places=tuple(result.places),
                returns=tuple(result.returns) if result.returns is not None else None,
                rounds=len(data["rounds"]),
                steps=len(data["steps"]),
                play_seconds=played - started,
                write_seconds=time.perf_counter() - played,
                failures=failures,
                forfeit=forfeit.seat if forfeit is not None else None,
            )
        )
    return rows


def exec_settings(config: ArenaConfig) -> ExecSettings | None:
    """How the run drives its programs: as configured, with the logs under the run's folder."""
    from ..botproto.spec import is_exec

    if not any(is_exec(name) for name in config.lineup):
        return None
    from ..botproto.driver import ExecSettings

    settings = config.exec_settings or ExecSettings()
    if settings.log_dir is None and config.out is not None:
        settings = dataclasses.replace(settings, log_dir=config.out / BOT_LOGS)
    if config.ray is not None and settings.log_dir is not None:
        # Ray workers run in a folder of their own (the shipped working dir, say): a relative
        # path would land there, not where the run is.
        settings = dataclasses.replace(settings, log_dir=settings.log_dir.absolute())
    return settings


def make_spec(config: ArenaConfig, records: Path | None) -> WorkerSpec:
    """What every worker needs to play any game of the run (small: it is pickled to each)."""
    return WorkerSpec(
        preset=config.preset,
        options=config.options.to_dict(),
        lineup=config.lineup,
        seed=config.seed,
        games=config.games,
        records=str(records) if records is not None else None,
        exec_settings=exec_settings(config),
    )


def chunks_of(games: int, size: int) -> list[range]:
    return [range(a, min(a + size, games + 1)) for a in range(1, games + 1, size)]


def chunk_size(games: int, workers: int) -> int:
    # Chunks amortise the pickling and hand-over of a task (a fraction of a millisecond, more on a
    # busy machine) over games of a few milliseconds each; several chunks per worker keep the
    # workers evenly busy and the progress bar moving.
    return max(1, min(20, games // max(1, workers * 8)))


def play_all(
    config: ArenaConfig,
    records: Path | None,
    on_queued: Callable[[], None] | None = None,
    on_done: Callable[[int], None] | None = None,
) -> list[GameRow]:
    """Every game of the run, in game order.

    `on_queued()` once the workers exist and every game is queued (the moment to start a progress
    bar: its refresh thread then never sees a fork), `on_done(k)` each time k more games finished.
    """
    spec = make_spec(config, records)
    chunks = chunks_of(config.games, chunk_size(config.games, config.workers))
    rows: list[GameRow] = []
    if config.workers <= 1:
        if on_queued:
            on_queued()
        for chunk in chunks:
            done = play_games(spec, chunk)
            rows.extend(done)
            if on_done:
                on_done(len(done))
    else:
        workers = min(config.workers, len(chunks))
        with ProcessPoolExecutor(workers, initializer=_init_worker, initargs=(spec,)) as pool:
            # A fork pool starts all its workers at the first submit.
            pending: set[Future[list[GameRow]]] = {pool.submit(_worker_chunk, chunk) for chunk in chunks}
            if on_queued:
                on_queued()
            try:
                while pending:
                    finished, pending = wait(pending, return_when=FIRST_COMPLETED)
                    for future in finished:
                        done = future.result()
                        rows.extend(done)
                        if on_done:
                            on_done(len(done))
            except BaseException:
                for future in pending:
                    future.cancel()
                raise
    rows.sort(key=lambda row: row.game)
    return rows
