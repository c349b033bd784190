"""The arena: many games among bots, seats rotated, played in parallel, with the statistics.

A run seats a line-up of bots (one entry per seat; a level may fill several seats) at one table
for a number of games. Game g (counted from 1) uses rotation r = (g - 1) mod N: the line-up's entry
i sits in seat (i + r) mod N, so over any N consecutive games every entry sits in every seat once.
Every game's dealer seed and every bot's seed are derived from the run's seed by hashing, never
by drawing in order, so a game plays out the same whichever worker plays it and in whichever
order: the same seed reproduces the same games, the same tables and the same ratings. The games
run in worker processes here, or as Ray tasks on a cluster (`arena_ray`, docs/scaling.md).

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

The statistics are computed in `arena_stats`, the terminal report and the chart drawn in
`arena_report`.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import math
import os
import platform
import signal
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .rules import Game, Options

if TYPE_CHECKING:
    from .botproto.driver import ExecSettings

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
    from .botproto.spec import check_bot_spec, is_exec, split_bot_list
    from .levels import allowed, is_level, resolve

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
    from .botproto.spec import spec_label

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


# ----- playing (in worker processes) -----


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
class _Spec:
    preset: str | None
    options: dict[str, Any]
    lineup: tuple[str, ...]
    seed: int
    games: int
    records: str | None
    exec_settings: ExecSettings | None = None


_worker_spec: _Spec | None = None
_worker_games: dict[tuple[str, tuple[str, ...]], Game] = {}


def _init_worker(spec: _Spec) -> None:
    # The parent alone answers Ctrl-C: it cancels what is queued and lets running chunks finish,
    # instead of every worker printing its own traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    global _worker_spec
    _worker_spec = spec


def _worker_chunk(numbers: Sequence[int]) -> list[GameRow]:
    assert _worker_spec is not None, "the worker was not initialised"
    return play_games(_worker_spec, numbers)


RecordSink = Callable[[int, str], None]  # (game, the record as JSON text)


def play_games(spec: _Spec, numbers: Iterable[int]) -> list[GameRow]:
    """Play these games, writing their records under spec.records (if set); the programs of exec:
    entries are started once for all of them."""
    records = Path(spec.records) if spec.records is not None else None

    def write(g: int, text: str) -> None:
        assert records is not None
        (records / record_name(g, spec.games)).write_text(text, encoding="utf-8")

    return _play_with_programs(spec, numbers, write if records is not None else None)


def play_games_keeping_records(spec: _Spec, numbers: Iterable[int]) -> tuple[list[GameRow], list[tuple[int, str]]]:
    """Play these games and hand back their records (game, JSON text) instead of writing them:
    where the games run on other machines, the driver writes them into its own folder."""
    kept: list[tuple[int, str]] = []
    rows = _play_with_programs(spec, numbers, lambda g, text: kept.append((g, text)))
    return rows, kept


def _play_with_programs(spec: _Spec, numbers: Iterable[int], save: RecordSink | None) -> list[GameRow]:
    from .match import close_all

    programs: dict[int, Any] = {}  # line-up entry -> its running ExecBot
    try:
        return _play_games(spec, numbers, programs, save)
    finally:
        close_all(list(programs.values()))


def _play_games(
    spec: _Spec, numbers: Iterable[int], programs: dict[int, Any], save: RecordSink | None
) -> list[GameRow]:
    from .botproto.spec import is_exec
    from .bots import Bot
    from .match import Forfeit, new_recorder, play_game
    from .players import make_bot

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
            bot = programs[entry] = make_bot(level, seed, settings=spec.exec_settings)
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
            from .match import forfeit_result

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
    from .botproto.spec import is_exec

    if not any(is_exec(name) for name in config.lineup):
        return None
    from .botproto.driver import ExecSettings

    settings = config.exec_settings or ExecSettings()
    if settings.log_dir is None and config.out is not None:
        settings = dataclasses.replace(settings, log_dir=config.out / BOT_LOGS)
    if config.ray is not None and settings.log_dir is not None:
        # Ray workers run in a folder of their own (the shipped working dir, say): a relative
        # path would land there, not where the run is.
        settings = dataclasses.replace(settings, log_dir=settings.log_dir.absolute())
    return settings


def make_spec(config: ArenaConfig, records: Path | None) -> _Spec:
    """What every worker needs to play any game of the run (small: it is pickled to each)."""
    return _Spec(
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


# ----- files -----


def default_out_dir(base: Path | None = None) -> Path:
    root = base or Path("arena")
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = root / stamp
    k = 2
    while path.exists():  # two runs in one second
        path = root / f"{stamp}-{k}"
        k += 1
    return path


def check_out_dir(path: Path) -> None:
    """Refuse a folder that already holds a run: its files would mix with this one's."""
    if path.exists() and not path.is_dir():
        raise ArenaInputError(f"--out {path} is a file, not a folder")
    if (path / "results.json").exists() or (path / RECORDS).exists():
        raise ArenaInputError(f"--out {path} already holds an arena run: choose another folder")


def _versions() -> dict[str, str | None]:
    from importlib import metadata

    out: dict[str, str | None] = {"python": platform.python_version(), "platform": platform.platform()}
    for dist in ("liarsdice", "openskill", "matplotlib", "numpy", "rich"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def _bot_sources(lineup: Sequence[str], settings: ExecSettings | None = None) -> dict[str, dict[str, Any]]:
    # Bots change between runs: the hash of each bot's source file ties the figures to the code.
    import inspect

    from .botproto.spec import exec_command, is_exec
    from .bots import BOT_LEVELS

    out: dict[str, dict[str, Any]] = {}
    for level in dict.fromkeys(lineup):
        if is_exec(level):
            out[level] = _program_source(exec_command(level), settings)
            continue
        cls = BOT_LEVELS[level]
        try:
            source = inspect.getsourcefile(cls)
            digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()[:16] if source else None
        except (OSError, TypeError):
            digest = None
        out[level] = {"class": f"{cls.__module__}.{cls.__qualname__}", "source_sha256": digest}
    return out


def _program_source(argv: list[str], settings: ExecSettings | None) -> dict[str, Any]:
    """A program's hello (it is started once here, so a broken one stops the run before it begins)
    and the hash of its file: the first word of its command that names a file."""
    import shutil

    from .botproto.driver import BotStartError, probe

    try:
        hello = probe(argv, settings)
    except BotStartError as e:
        raise ArenaError(f"a bot program cannot play: {e}") from None
    scripts = [Path(w) for w in argv[1:] if not w.startswith("-") and Path(w).is_file()]
    program = scripts[0] if scripts else Path(shutil.which(argv[0]) or argv[0])
    digest = hashlib.sha256(program.read_bytes()).hexdigest()[:16] if program.is_file() else None
    return {
        "command": argv,
        "name": hello.get("name"),
        "author": hello.get("author"),
        "protocol": hello.get("protocol"),
        "source_sha256": digest,
    }


def write_csv(path: Path, rows: Sequence[GameRow], labels: Sequence[str]) -> Path:
    n = len(labels)
    has_returns = any(row.returns is not None for row in rows)
    header = ["game", "seed", "rotation", "rounds", "steps", "winners"]
    for s in range(n):
        header += [f"seat{s}", f"place{s}"] + ([f"return{s}"] if has_returns else []) + [f"bot_seed{s}"]
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        for row in rows:
            line: list[Any] = [
                row.game,
                row.seed,
                row.rotation,
                row.rounds,
                row.steps,
                ";".join(labels[row.seating[s]] for s, p in enumerate(row.places) if p == 1),
            ]
            for s in range(n):
                line += [labels[row.seating[s]], row.places[s]]
                if has_returns:
                    line.append(row.returns[s] if row.returns is not None else "")
                line.append(row.bot_seeds[s])
            w.writerow(line)
    return path


# ----- a whole run -----


@dataclass
class ArenaResult:
    config: ArenaConfig
    rows: list[GameRow]
    summary: dict[str, Any]
    play_seconds: float  # wall time of the games, start of the pool to the last result
    out: Path | None = None
    files: dict[str, str] = field(default_factory=dict)
    bots: dict[str, dict[str, Any]] = field(default_factory=dict)  # the bots' code, when the run began

    @property
    def games_per_second(self) -> float:
        return len(self.rows) / self.play_seconds if self.play_seconds > 0 else math.inf

    def timing(self) -> dict[str, Any]:
        n = max(1, len(self.rows))
        busy = sum(r.play_seconds + r.write_seconds for r in self.rows)
        return {
            "wall_seconds": self.play_seconds,
            "games_per_second": self.games_per_second,
            "workers": self.config.workers,
            "ray": self.config.ray,
            "play_ms_per_game": 1000 * sum(r.play_seconds for r in self.rows) / n,
            "record_ms_per_game": 1000 * sum(r.write_seconds for r in self.rows) / n,
            # the share of the workers' wall time spent inside games and records; the rest is the
            # arena's own overhead (process start, hand-over) plus whatever else the machine ran
            "busy_fraction": busy / (self.play_seconds * self.config.workers) if self.play_seconds > 0 else None,
        }

    def to_json(self) -> dict[str, Any]:
        c = self.config
        return {
            "format": "liarsdice-arena",
            "version": 1,
            "arguments": c.arguments,
            "preset": c.preset,
            "options": c.options.to_dict(),
            "players": c.players,
            "lineup": [{"entry": label, "name": name} for label, name in zip(c.labels, c.lineup, strict=True)],
            "games": len(self.rows),
            "seed": c.seed,
            "seeding": SEEDING,
            "records": RECORDS if c.records else None,
            "versions": _versions(),
            "bots": self.bots or _bot_sources(c.lineup),
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "timing": self.timing(),
            **self.summary,
            "game_rows": [
                {
                    "game": r.game,
                    "seed": r.seed,
                    "rotation": r.rotation,
                    "seats": [c.labels[e] for e in r.seating],
                    "bot_seeds": list(r.bot_seeds),
                    "places": list(r.places),
                    "returns": list(r.returns) if r.returns is not None else None,
                    "rounds": r.rounds,
                    "steps": r.steps,
                    "failures": {c.labels[r.seating[s]]: f for s, f in r.failures.items()},
                    "forfeit": c.labels[r.seating[r.forfeit]] if r.forfeit is not None else None,
                }
                for r in self.rows
            ],
        }


def run_arena(
    config: ArenaConfig,
    *,
    on_queued: Callable[[], None] | None = None,
    on_done: Callable[[int], None] | None = None,
    write: bool = True,
) -> ArenaResult:
    """Play the run and, if `write` (and config.out is set), write its files under config.out."""
    if config.ray is not None:
        from .arena_ray import connected

        # Ray first: a cluster that cannot be reached leaves no half-made folder behind.
        with connected(config) as cpus:
            return _run_arena(config, on_queued, on_done, write, cpus)
    return _run_arena(config, on_queued, on_done, write, None)


def _run_arena(
    config: ArenaConfig,
    on_queued: Callable[[], None] | None,
    on_done: Callable[[int], None] | None,
    write: bool,
    ray_cpus: int | None,
) -> ArenaResult:
    out = config.out if write else None
    records = None
    if out is not None:
        check_out_dir(out)
        out.mkdir(parents=True, exist_ok=True)
        if config.records:
            records = out / RECORDS
            records.mkdir()
    bots = _bot_sources(config.lineup, exec_settings(config))
    started = time.perf_counter()
    if ray_cpus is not None:
        from .arena_ray import play_on_ray

        rows, workers = play_on_ray(config, ray_cpus, records, on_queued, on_done)
        config = dataclasses.replace(config, workers=workers)  # what the timing is shared over
    else:
        rows = play_all(config, records, on_queued, on_done)
    played = time.perf_counter() - started
    # Imported here: both modules take the rows' and the result's definitions from this one.
    from .arena_report import write_chart
    from .arena_stats import summarize

    single_round = any(r.returns is not None for r in rows)
    result = ArenaResult(config, rows, summarize(rows, config.lineup, single_round), played, out, bots=bots)
    if out is not None:
        result.files["csv"] = str(write_csv(out / "results.csv", rows, config.labels))
        result.files["chart"] = str(write_chart(out / "results.png", result))
        if records is not None:
            result.files["records"] = str(records)
        result.files["json"] = str(out / "results.json")
        data = result.to_json()
        data["files"] = {k: Path(v).name for k, v in result.files.items()}
        (out / "results.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return result


def default_workers() -> int:
    return os.cpu_count() or 1
