"""The `liarsdice` command."""

from __future__ import annotations

import json
import random
import signal
import sys
import threading
from pathlib import Path
from typing import Annotated, Any

import typer

from .help import Group, at_least, between
from ..levels import DEFAULT as DEFAULT_LEVEL
from ..levels import describe as describe_levels
from ..levels import names_in_order as level_names
from ..rules import PRESETS, Options, OptionsError, find_preset, merge_overrides

app = typer.Typer(
    cls=Group,
    add_completion=False,
    no_args_is_help=True,
    help="Liar's Dice: play it in the terminal or serve it to browsers, pit bots against each other, "
    "solve and train strategies, check rules scenarios and replay game records.",
    context_settings={"help_option_names": ["-h", "--help"]},
    # click's plain help: typer's rich panels print a type after every flag ("--help <bool>")
    rich_markup_mode=None,
)


def _fail(message: str, code: int = 2) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def parse_option_assignments(assignments: list[str]) -> dict[str, Any]:
    """`name=value` pairs; values are read as YAML, so `1`, `true` and `{stake: per_turn}` work."""
    import yaml

    out: dict[str, Any] = {}
    for item in assignments:
        name, sep, raw = item.partition("=")
        if not sep or not name.strip():
            raise OptionsError(f"--option takes name=value (e.g. --option wild_face=1), not {item!r}")
        try:
            value = yaml.safe_load(raw) if raw.strip() else None
        except yaml.YAMLError as e:
            raise OptionsError(f"--option {name}: cannot read {raw!r}: {e}") from e
        out[name.strip()] = value
    return out


def build_options(
    preset: str,
    players: int | None = None,
    dice: int | None = None,
    faces: int | None = None,
    assignments: list[str] | None = None,
) -> Options:
    p = find_preset(preset)
    overrides = parse_option_assignments(assignments or [])
    if players is not None:
        overrides["num_players"] = players
    elif "num_players" not in overrides:
        overrides["num_players"] = p.default_players
    if dice is not None:
        overrides["dice_per_player"] = dice
    if faces is not None:
        overrides["faces"] = faces
    n = overrides["num_players"]
    counted = isinstance(n, int) and not isinstance(n, bool)
    if counted:
        p.check_table_size(n)
    return Options.from_dict(merge_overrides(p.options, overrides))


@app.command(short_help="Play conformance scenarios; print one JSON line for each.")
def scenario(
    file: Annotated[Path, typer.Argument(help="a YAML or JSON list of scenarios (shared/conformance/FORMAT.md)")],
) -> None:
    """Play conformance scenarios and print one JSON line of observations per scenario.

    A scenario that cannot be set up prints its id and an "error" saying why, and the next one is
    played; a FILE that cannot be read, or holds no list of scenarios, exits 1 and says why."""
    from ..scenario import ScenarioFileError, load_scenarios, run_scenario

    try:
        cases = load_scenarios(file)
    except ScenarioFileError as e:
        _fail(str(e), 1)
    failed = 0
    for case in cases:
        line = run_scenario(case)
        failed += "error" in line
        sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()
    if failed:
        # FORMAT.md: still exit 0 (the checker reads these lines); a person reading is told here
        typer.echo(f"{failed} of {len(cases)} scenarios could not be set up: their lines say why", err=True)


@app.command(short_help="Check a game record and print the game round by round.")
def replay(
    file: Annotated[Path, typer.Argument(help="a game record (JSON) written by liarsdice")],
    check: Annotated[bool, typer.Option("--check", help="only validate; print nothing but the verdict")] = False,
) -> None:
    """Validate a game record and print the game round by round, every cup shown."""
    from ..record import RecordError, load_record, replay_text

    try:
        data = load_record(file)
        lines = list(replay_text(data))
    except RecordError as e:
        _fail(f"{file}: invalid record: {e}", 1)
    if check:
        typer.echo(f"{file}: valid record")
        return
    for line in lines:
        typer.echo(line)


# The options of bot programs (exec:COMMAND), shared by play and arena.
BotFallback = Annotated[
    str,
    typer.Option(
        "--bot-fallback",
        help="what plays a move a bot program fails to make (late, illegal, garbage, crashed): "
        "a bot level (any case, as for --bots), or forfeit (it loses the game)",
    ),
]
BotTime = Annotated[float, typer.Option("--bot-time", help="seconds a bot program has for each move")]
BotLog = Annotated[
    Path | None,
    typer.Option(
        "--bot-log",
        help="folder for the bot programs' stderr (default: bot-logs in the data directory, "
        "$LIARSDICE_DATA or ~/.local/share/liarsdice)",
    ),
]
# the arena keeps its bot logs with the rest of its run (arena.BOT_LOGS)
ArenaBotLog = Annotated[
    Path | None, typer.Option("--bot-log", help="folder for the bot programs' stderr (default: OUT/bot-logs)")
]
BotTranscript = Annotated[
    bool, typer.Option("--bot-transcript", help="also write every line to and from each bot program to --bot-log")
]


def exec_settings(fallback: str, move_time: float, log: Path | None, transcript: bool) -> Any:
    """The ExecSettings of --bot-fallback, --bot-time, --bot-log and --bot-transcript (checked)."""
    from ..botproto.driver import ExecSettings
    from ..levels import allowed, is_level, resolve

    fallback = fallback.strip().lower()
    if fallback != "forfeit" and not is_level(fallback):
        _fail(f"--bot-fallback is a bot level, {allowed()}, or forfeit, not {fallback!r}")
    fallback = fallback if fallback == "forfeit" else resolve(fallback)
    if not 0 < move_time <= 3600:
        _fail(f"--bot-time is above 0 and at most 3600 seconds, not {move_time:g}")
    return ExecSettings(move_time=move_time, fallback=fallback, log_dir=log, transcript=transcript)


# Every level with its whole sentence, under the options of `play` (\b: click keeps the lines).
LEVELS_HELP = "\b\n" + "\n".join(describe_levels())


@app.command(short_help="Play a game in the terminal against bots, or hot-seat.", epilog=LEVELS_HELP)
def play(
    preset: Annotated[str, typer.Option("--preset", "-p", help=f"one of {', '.join(PRESETS)}")] = "perudo",
    players: Annotated[int | None, typer.Option("--players", "-n", help="seats at the table")] = None,
    dice: Annotated[int | None, typer.Option("--dice", "-d", help="dice per player")] = None,
    faces: Annotated[int | None, typer.Option("--faces", "-f", help="faces per die")] = None,
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="seed for the dice and the bots")] = None,
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            "-b",
            help="the bots, comma-separated, one per bot seat (the last fills the seats left): a level, "
            f"{level_names()} (any case; below), or exec:COMMAND, a program speaking docs/bot-protocol.md "
            '(exec:"./mybot -x")',
        ),
    ] = DEFAULT_LEVEL,
    humans: Annotated[int, typer.Option("--humans", help="people at this terminal (hot-seat; 0: watch bots play)")] = 1,
    name: Annotated[list[str] | None, typer.Option("--name", help="a person's name (repeat for hot-seat)")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="any rule option as name=value (repeatable)")
    ] = None,
    record_dir: Annotated[
        Path | None,
        typer.Option("--record-dir", help="folder for the game's record (default: records in the data directory)"),
    ] = None,
    delay: Annotated[
        float | None,
        typer.Option(
            "--delay",
            help="seconds each reveal stays on screen once only bots play (default 2 on a terminal, "
            "0 when the output is piped); a person presses Enter instead",
        ),
    ] = None,
    bot_fallback: BotFallback = "skilled",
    bot_time: BotTime = 5.0,
    bot_log: BotLog = None,
    bot_transcript: BotTranscript = False,
) -> None:
    """Play a whole game in the terminal against bots, or hot-seat with friends."""
    from ..botproto.spec import parse_bot_list
    from ..terminal import run_play

    try:
        options = build_options(preset, players, dice, faces, option)
    except OptionsError as e:
        _fail(str(e))
    try:
        bot_specs = parse_bot_list(bots)
    except ValueError as e:
        _fail(str(e))
    settings = exec_settings(bot_fallback, bot_time, bot_log, bot_transcript)
    if not 0 <= humans <= options.num_players:
        _fail(f"--humans is 0 to {options.num_players} (the players at the table), not {humans}")
    names = list(name or [])
    if len(names) > humans:
        people = "1 person" if humans == 1 else f"{humans} people"
        _fail(f"{len(names)} names (--name) given for {people} (--humans): at most one name each")
    if delay is not None and not 0 <= delay <= 3600:
        _fail(f"--delay is 0 (no pause) to 3600 seconds, not {delay:g}")
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    code = run_play(
        preset=find_preset(preset).name,
        options=options,
        humans=humans,
        names=names,
        bot_level=bot_specs,
        seed=seed,
        record_dir=record_dir,
        delay=delay,
        bot_settings=settings,
    )
    raise typer.Exit(code)


@app.command(short_help="Serve the game to browsers: tables, bots, spectators, replays.")
def serve(
    host: Annotated[str, typer.Option("--host", help="address to listen on")] = "127.0.0.1",
    port: Annotated[
        int, typer.Option("--port", help="port to listen on (0: any free port)", callback=between(0, 65535))
    ] = 8000,
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            # from the environment too, so a password in the URL stays out of the process list
            envvar="LIARSDICE_DATABASE_URL",
            help="sqlite:///PATH or postgresql://USER@HOST/DB (default: a SQLite file in the data directory)",
        ),
    ] = None,
    redis_url: Annotated[
        str | None,
        typer.Option(
            "--redis-url",
            envvar="LIARSDICE_REDIS_URL",
            help="redis://HOST:PORT/DB: serve as one of several processes sharing this Redis and a "
            "PostgreSQL --database-url (docs/scaling.md); default: this process alone",
        ),
    ] = None,
    grace: Annotated[
        float, typer.Option("--grace", help="seconds an away player's turn waits for a bot", callback=at_least(0))
    ] = 30.0,
    bot_delay: Annotated[
        float, typer.Option("--bot-delay", help="seconds a bot waits before it moves", callback=at_least(0))
    ] = 0.8,
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning or error")] = "info",
    public_url: Annotated[
        str | None, typer.Option("--public-url", help="the address invitation links give, e.g. https://dice.example")
    ] = None,
    unload_after: Annotated[
        float,
        typer.Option(
            "--unload-after",
            help="seconds before a table not in play, with nobody on it, leaves memory (not the database)",
            callback=at_least(0),
        ),
    ] = 600.0,
    reveal_pause: Annotated[
        float,
        typer.Option(
            "--reveal-pause",
            help="seconds a round's reveal is shown before the next round's timer and bots start "
            "(sooner when every player has seen it; 0: no pause)",
        ),
    ] = 5.0,
    bot: Annotated[
        list[str] | None,
        typer.Option(
            "--bot",
            help="a bot program (docs/bot-protocol.md) that hosts may seat as NAME (repeatable)",
        ),
    ] = None,
    forwarded_allow_ips: Annotated[
        str | None,
        typer.Option(
            "--forwarded-allow-ips",
            help="comma-separated addresses of reverse proxies whose X-Forwarded-For/-Proto headers are "
            "believed, or '*' (default: 127.0.0.1,::1, or $FORWARDED_ALLOW_IPS); docs/deploy.md",
        ),
    ] = None,
    ladder: Annotated[
        str | None,
        typer.Option(
            "--ladder",
            help="PRESETS (comma list, e.g. perudo,soar): keep bot-only tables going among the --bot programs "
            "and --ladder-anchors, rate every bot (OpenSkill, per preset) and show the leaderboard at /ladder",
        ),
    ] = None,
    ladder_anchors: Annotated[
        str,
        typer.Option(
            "--ladder-anchors", help="built-in levels entered in the ladder (comma list, e.g. Beginner,Skilled)"
        ),
    ] = "",
    ladder_tables: Annotated[int, typer.Option("--ladder-tables", help="ladder games in play at once")] = 1,
    ladder_seats: Annotated[int, typer.Option("--ladder-seats", help="seats at every ladder table")] = 2,
    ladder_dice: Annotated[
        int | None, typer.Option("--ladder-dice", help="dice per player at ladder tables (default: the preset's)")
    ] = None,
    ladder_accounts: Annotated[
        bool,
        typer.Option(
            "--ladder-accounts",
            help="bot accounts online enter the ladder too (invited; each accepts by its own `bot connect` rules)",
        ),
    ] = False,
    ladder_turn_seconds: Annotated[
        int,
        typer.Option(
            "--ladder-turn-seconds",
            help="seconds an account at a ladder table has for a move before a built-in bot makes it (0: no clock)",
        ),
    ] = 60,
    bot_signup: Annotated[
        bool,
        typer.Option(
            "--bot-signup/--no-bot-signup",
            help="let anyone make a bot account on the /bots page (at most 10 an hour per address); "
            "off: only `liarsdice bot create`",
        ),
    ] = True,
) -> None:
    """Serve the game in the browser: tables, bots, spectators, history and replays."""
    if log_level not in ("debug", "info", "warning", "error"):
        _fail(f"--log-level is debug, info, warning or error, not {log_level!r}")
    if not 0 <= reveal_pause <= 600:
        _fail(f"--reveal-pause is 0 (no pause) to 600 seconds, not {reveal_pause:g}")
    try:
        from ..server.run import run_server
    except ImportError as e:
        _fail(f"the server needs its extra dependencies ({e.name} is missing): pip install 'liarsdice[server]'")
    operator_bots = _operator_bots(bot or [])
    ladder_config = None
    if ladder is not None:
        from ..server.ladder import LadderError, parse_ladder

        try:
            ladder_config = parse_ladder(
                ladder,
                ladder_anchors,
                tables=ladder_tables,
                seats=ladder_seats,
                dice=ladder_dice,
                operator_bots=operator_bots,
                accounts=ladder_accounts,
                turn_seconds=ladder_turn_seconds,
            )
        except LadderError as e:
            _fail(str(e))
    elif ladder_anchors or ladder_accounts:
        _fail("--ladder-anchors and --ladder-accounts enter bots in the ladder: turn it on with --ladder PRESETS")
    try:
        run_server(
            host,
            port,
            database_url,
            grace=grace,
            bot_delay=bot_delay,
            log_level=log_level,
            public_url=public_url,
            unload_after=unload_after,
            reveal_pause=reveal_pause,
            operator_bots=operator_bots,
            forwarded_allow_ips=forwarded_allow_ips,
            ladder=ladder_config,
            bot_signup=bot_signup,
            redis_url=redis_url,
        )
    except ValueError as e:
        _fail(str(e))


def _operator_bots(assignments: list[str]) -> dict[str, str]:
    """--bot NAME=COMMAND, checked: a name a seat may have, once; a command to run."""
    from ..server.limits import RoomError, clean_name

    out: dict[str, str] = {}
    for item in assignments:
        name, eq, command = item.partition("=")
        if not eq or not command.strip():
            _fail(f"--bot is NAME=COMMAND (e.g. --bot mini='python examples/bots/minimal.py'), not {item!r}")
        try:
            name = clean_name(name)
        except RoomError as e:
            _fail(f"--bot {item!r}: {e.message}")
        if name in out:
            _fail(f"--bot {name!r} is given twice: one command per name")
        out[name] = command.strip()
    return out


@app.command(short_help="Solve a two-player, one-round game exactly with CFR+ or DCFR.")
def solve(
    preset: Annotated[
        str, typer.Option("--preset", "-p", help="bidding and counting rules of this preset")
    ] = "openspiel",
    dice: Annotated[tuple[int, int], typer.Option("--dice", "-d", help="dice of player 0 (who opens) and player 1")] = (
        1,
        1,
    ),
    faces: Annotated[int | None, typer.Option("--faces", "-f", help="faces per die")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="a rule option as name=value")] = None,
    algorithm: Annotated[str, typer.Option("--algorithm", "-a", help="cfr+ or dcfr")] = "dcfr",
    target: Annotated[float, typer.Option("--target", help="stop at this exploitability")] = 1e-3,
    iterations: Annotated[int | None, typer.Option("--iterations", help="stop after this many iterations")] = None,
    seconds: Annotated[float | None, typer.Option("--seconds", help="stop after this many seconds")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="save the strategy here (.npz)")] = None,
    plots: Annotated[Path | None, typer.Option("--plots", help="write convergence.png and opening.png here")] = None,
    cache: Annotated[bool, typer.Option("--cache", help="also save it where the cfr bot looks")] = False,
) -> None:
    """Solve a two-player, single-round game (bids and liar calls) with CFR+ or DCFR."""
    try:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        from ..solver import solve as run_solve
    except ImportError as e:
        _fail(f"solving needs the solver's dependencies ({e.name} is missing): pip install 'liarsdice[solver]'")
    if algorithm not in ("cfr+", "dcfr"):
        _fail(f"--algorithm must be cfr+ or dcfr, not {algorithm!r}")
    if target <= 0 or (iterations is not None and iterations < 1) or (seconds is not None and seconds <= 0):
        _fail("--target and --seconds must be above 0, --iterations at least 1")
    if min(dice) < 1:
        _fail("each player needs at least one die (--dice D0 D1)")
    try:
        overrides = parse_option_assignments(option or [])
        if faces is not None:
            overrides["faces"] = faces
        options = build_options(preset, 2, None, None, [f"{k}={json.dumps(v)}" for k, v in overrides.items()])
        from ..solver.memory import check, hand_count, human, solver_bytes
        from ..solver.scope import refusal, same_game_notes, unmodelled
        from ..solver.tree import GameSpec, Tree

        problems = unmodelled(options, overrides)
        if problems:
            _fail(refusal(find_preset(preset).name, problems))
        spec = GameSpec.from_options(options, dice)
        # The tree has 2^bids nodes: one die more can need terabytes; refuse before building it.
        hands = (hand_count(dice[0], spec.faces), hand_count(dice[1], spec.faces))
        fit = check(solver_bytes(len(spec.bids), spec.openings, hands))
        if not fit.ok:
            _fail(
                fit.refusal(f"the exact tree of {dice[0]} vs {dice[1]} dice ({len(spec.bids)} bids)")
                + "; `liarsdice train` solves bigger duels on an abstraction"
            )
        tree = Tree(spec)
    except (OptionsError, ValueError) as e:
        _fail(str(e))
    typer.echo(
        f"{find_preset(preset).name}: {dice[0]} vs {dice[1]} dice, {options.faces} faces, {tree.num_bids} bids, "
        f"{tree.num_nodes:,} nodes, {tree.infosets():,} information sets, about {human(fit.estimate)} of memory; "
        f"{algorithm.upper()} to {target:g}"
    )
    for note in same_game_notes(options):
        typer.echo(f"note: {note}")
    if fit.warning is not None:
        typer.echo(f"warning: {fit.warning}", err=True)
    del tree
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("iteration {task.fields[iteration]}  exploitability {task.fields[exploitability]}"),
        TimeElapsedColumn(),
    ) as bar:
        task = bar.add_task("solving", total=1.0, iteration=0, exploitability="-")
        import math

        start = None

        def show(p: Any) -> None:
            nonlocal start
            if start is None:
                start = math.log(max(p.exploitability, target * 1.0001))
            done = (start - math.log(max(p.exploitability, target))) / max(start - math.log(target), 1e-9)
            bar.update(
                task,
                completed=min(1.0, max(0.0, done)),
                iteration=p.iteration,
                exploitability=f"{p.exploitability:.6f}",
            )

        solution = run_solve(
            options,
            dice,
            algorithm=algorithm,
            target=target,
            max_iterations=iterations,
            max_seconds=seconds,  # type: ignore[arg-type]
            on_progress=show,
        )
    typer.echo(
        f"{solution.iterations} iterations in {solution.seconds:.2f} s: exploitability {solution.exploitability:.6f}, "
        f"value for player 0 {solution.game_value:+.6f}"
    )
    if solution.exploitability > target:
        typer.echo(f"stopped by the budget before the target {target:g}")
    saved = []
    if out is not None:
        saved.append(solution.save(out))
    if cache:
        from ..bots.cfr import solution_key, solutions_dir

        saved.append(solution.save(solutions_dir() / f"{solution_key(options, dice)}.npz"))
    for path in saved:
        typer.echo(f"strategy: {path}")
    if plots is not None:
        from ..solver.plots import convergence_png, opening_png

        typer.echo(f"plot: {convergence_png(solution, plots / 'convergence.png', target)}")
        typer.echo(f"plot: {opening_png(solution, plots / 'opening.png')}")


@app.command(short_help="Train and keep the duel bot's strategy for two cup sizes.")
def train(
    preset: Annotated[
        str, typer.Option("--preset", "-p", help="bidding and counting rules of this preset")
    ] = "openspiel",
    dice: Annotated[tuple[int, int], typer.Option("--dice", "-d", help="dice of player 0 (who opens) and player 1")] = (
        5,
        5,
    ),
    faces: Annotated[int | None, typer.Option("--faces", "-f", help="faces per die")] = None,
    wild: Annotated[
        str | None, typer.Option("--wild", help="the wild face: 1, top or none (the preset's if not given)")
    ] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="a rule option as name=value")] = None,
    k: Annotated[int | None, typer.Option("--k", help="bids remembered (default: by the size of the game)")] = None,
    iterations: Annotated[
        int | None,
        typer.Option("--iterations", help="DCFR iterations (default: 300, or as many as --seconds allows)"),
    ] = None,
    seconds: Annotated[float | None, typer.Option("--seconds", help="stop after this many seconds")] = None,
    sample: Annotated[
        int | None, typer.Option("--sample", help="hands drawn per half-iteration instead of all (big games)")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="also save the strategy here (.npz)")] = None,
    exact: Annotated[
        bool, typer.Option("--exact", help="measure the exact exploitability on the full tree (small games)")
    ] = False,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh", help="start from nothing, not from this duel's checkpoint (which the run then replaces)"
        ),
    ] = False,
    seed: Annotated[int | None, typer.Option("--seed", help="seed of the hands sampled (default 0; --all: 22)")] = None,
    every: Annotated[
        bool,
        typer.Option(
            "--all", help="train every duel of the plan the package ships (liarsdice/duel/plan.py) not shipped yet"
        ),
    ] = False,
    only: Annotated[str | None, typer.Option("--only", help="--all: only these sizes, e.g. 2v2,3v2")] = None,
    variant: Annotated[
        str | None,
        typer.Option("--variant", help="--all: only these variants of ones, top, none, perudo (default) and jokers"),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", help="--all: duels trained at once, one process each")] = 1,
    into: Annotated[
        Path | None, typer.Option("--into", help="--all: the folder of the manifest (default: the package's)")
    ] = None,
) -> None:
    """Train the two-player strategy of the `duel` bot for one round size and cache it.

    Training goes on where the last run of the same duel stopped (its checkpoint is kept beside
    the cached strategy, and saved every 10 minutes): --iterations and --seconds are this run's,
    --seconds counted from the start (building the graph included). Ctrl-C (or SIGTERM) stops it
    after the iteration under way, or cuts one still going a second later short between two
    hands, and saves both, as at the end; a second Ctrl-C quits at once, losing what the
    checkpoint does not hold. A size that does not fit in the memory available is refused before
    anything is allocated, with the estimate and the limit.

    --all trains the strategies the package ships instead (README, "Shipped strategies"): each
    entry of the plan with its iterations from --seed, written with its manifest entry as soon as
    it is done; one already shipped is skipped, so a run stopped goes on."""
    if every or only is not None or variant is not None or jobs != 1 or into is not None:
        single = {"wild": wild, "faces": faces, "option": option, "k": k, "seconds": seconds, "sample": sample}
        train_all(every, only, variant, jobs, into, seed, iterations, **single, out=out, exact=exact, fresh=fresh)
        return
    try:
        from ..bots.trained import strategies_dir, strategy_key
        from ..duel import Stopped, TooBig, default_k, game_for
        from ..duel import train as run_train
        from ..duel.footprint import measure, refuse_if_too_big, too_big_message
        from ..solver.memory import human
        from ..solver.scope import refusal, unmodelled
    except ImportError as e:
        _fail(f"training needs the solver's dependencies ({e.name} is missing): pip install 'liarsdice[solver]'")
    if min(dice) < 1:
        _fail("each player needs at least one die (--dice D0 D1)")
    if iterations is None and seconds is None:
        iterations = 300
    if (
        (iterations is not None and iterations < 1)
        or (seconds is not None and seconds <= 0)
        or (sample is not None and sample < 1)
    ):
        _fail("--iterations and --sample must be at least 1, --seconds above 0")
    if k is not None and k < 1:
        _fail(f"--k is how many bids the players remember: at least 1, not {k}")
    if wild is not None and wild not in ("1", "top", "none"):
        _fail(f"--wild is 1, top or none, not {wild!r}")
    import time

    started = time.perf_counter()
    try:
        overrides = parse_option_assignments(option or [])
        if faces is not None:
            overrides["faces"] = faces
        if wild is not None:
            overrides["wild_face"] = 1 if wild == "1" else wild
        options = build_options(preset, 2, None, None, [f"{key}={json.dumps(v)}" for key, v in overrides.items()])
        problems = unmodelled(options, overrides, trainer=True)
        if problems:
            _fail(refusal(find_preset(preset).name, problems, trainer=True))
        if exact and options.exact != "none":
            _fail("--exact measures on the exact solver's full tree, which has no exact call (spot-on, calza)")
        memory = default_k(options, dice) if k is None else k
        refuse_if_too_big(options, dice, memory)  # before the graph and the tables are allocated
    except (OptionsError, ValueError, TooBig) as e:
        _fail(str(e))

    def show(p: Any) -> None:
        if p.iteration % 10 == 0:
            typer.echo(f"iteration {p.iteration}  {p.seconds:.1f} s  value for player 0 {p.value:+.4f}")

    def resumed(iteration: int, spent: float) -> None:
        typer.echo(f"going on from iteration {iteration} ({spent:.0f} s of training so far): {checkpoint}")

    key = strategy_key(options, dice, memory)
    checkpoint = strategies_dir() / f"{key}.train.npz"
    if fresh:
        checkpoint.unlink(missing_ok=True)
    stopping = threading.Event()

    def ask_to_stop(signum: int, frame: Any) -> None:
        if stopping.is_set():
            raise KeyboardInterrupt
        stopping.set()
        typer.echo(
            "stopping after this iteration (one still going in a second is cut short), then saving "
            "(Ctrl-C again quits at once, unsaved)",
            err=True,
        )

    def time_up() -> bool:
        return stopping.is_set() or (seconds is not None and time.perf_counter() - started > seconds)

    # --seconds and the signals hold from here: a big graph takes a while to build.
    previous = {s: signal.signal(s, ask_to_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        game = game_for(options, dice, memory, stop=time_up)
        footprint = measure(game)
        fit = footprint.fit()
        if not fit.ok:
            _fail(too_big_message(footprint, fit, options, dice, memory))
        typer.echo(
            f"{find_preset(preset).name}: {dice[0]} vs {dice[1]} dice, {options.faces} faces, "
            f"wild {options.wild_face}, {game.num_bids} bids; last {memory} bids remembered: {game.num_nodes:,} "
            f"nodes, {game.num_edges:,} edges, {game.infosets:,} information sets; about "
            f"{human(footprint.bytes)} of memory"
        )
        if fit.warning is not None:
            typer.echo(f"warning: {fit.warning}", err=True)
        strategy = run_train(
            options,
            dice,
            k=memory,
            seed=0 if seed is None else seed,
            iterations=iterations,
            seconds=None if seconds is None else seconds - (time.perf_counter() - started),
            sample=sample,
            on_progress=show,
            checkpoint=checkpoint,
            on_resume=resumed,
            stop=stopping.is_set,
            game=game,
        )
    except Stopped as e:
        why = "Ctrl-C or SIGTERM" if stopping.is_set() else f"--seconds {seconds:g}"
        _fail(f"{e} ({why}, after {time.perf_counter() - started:.1f} s); nothing saved", 1)
    except ValueError as e:
        _fail(f"{e} (--fresh starts over)")
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if "cut_short" in strategy.meta:
        typer.echo(f"{strategy.meta['cut_short']} (the time was up, or a stop was asked, within it)")
    if stopping.is_set():
        typer.echo(f"stopped at iteration {strategy.meta['iterations']}; the checkpoint and the strategy are saved")
    typer.echo(
        f"{strategy.meta['iterations']} iterations in {strategy.meta['seconds']:.1f} s ({strategy.meta['method']})"
    )
    if exact:
        typer.echo(f"exact exploitability on the full tree: {strategy.exact_exploitability():.6f}")
    saved = [strategy.save(strategies_dir() / f"{key}.npz")]
    if out is not None:
        saved.append(strategy.save(out))
    for path in saved:
        typer.echo(f"strategy: {path} ({path.stat().st_size / 1e6:.1f} MB)")


def train_all(
    every: bool,
    only: str | None,
    variant: str | None,
    jobs: int,
    into: Path | None,
    seed: int | None,
    iterations: int | None,
    **single: Any,
) -> None:
    """`train --all`: the plan's duels, trained and shipped (liarsdice.duel.rebuild)."""
    if not every:
        _fail("--only, --variant, --jobs and --into go with --all")
    given = [f"--{name}" for name, value in single.items() if value not in (None, False, [])]
    if given:
        _fail(f"--all trains the plan's own rules, sizes and memory: {', '.join(given)} do not go with it")
    if not 1 <= jobs <= 64:
        _fail(f"--jobs is how many duels train at once: 1 to 64, not {jobs}")
    if iterations is not None and iterations < 1:
        _fail("--iterations must be at least 1")
    try:
        from ..duel import plan, rebuild, shipped
    except ImportError as e:
        _fail(f"training needs the solver's dependencies ({e.name} is missing): pip install 'liarsdice[solver]'")
    try:
        every_variant = tuple(plan.VARIANTS) if variant else plan.PLANNED  # --variant may name jokers
        entries = plan.entries(plan.SEED if seed is None else seed, iterations, every_variant)
        entries = plan.select(entries, only=only, variants=variant)
    except ValueError as e:
        _fail(str(e))
    directory = shipped.SHIPPED_DIR if into is None else into
    typer.echo(f"{len(entries)} duels of the plan into {directory}")
    stopping = threading.Event()

    def ask_to_stop(signum: int, frame: Any) -> None:
        if stopping.is_set():
            raise KeyboardInterrupt
        stopping.set()
        typer.echo("stopping after the iterations under way, then saving (Ctrl-C again quits at once)", err=True)

    previous = {s: signal.signal(s, ask_to_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        rebuild.run(entries, directory, jobs=jobs, echo=typer.echo, stop=stopping)
        shipped_now = shipped.read_manifest(directory)
    except (shipped.ManifestError, ValueError) as e:
        _fail(f"{e} (delete the manifest to train everything again)")
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    typer.echo(f"{directory}: {rebuild.describe(shipped_now)}")
    if stopping.is_set():
        raise typer.Exit(1)


@app.command(short_help="Play many games among bots; report win rates and ratings.")
def arena(
    bots: Annotated[
        str | None,
        typer.Option(
            "--bots",
            "-b",
            help="(required) bot levels, comma-separated, one per seat (cycled to --players), e.g. "
            "Master,Expert (any case; older names too: duel,strong; see liarsdice presets); exec:COMMAND seats "
            'a program that speaks docs/bot-protocol.md (exec:"./mybot --deep")',
        ),
    ] = None,
    preset: Annotated[str, typer.Option("--preset", "-p", help=f"one of {', '.join(PRESETS)}")] = "perudo",
    players: Annotated[
        int | None, typer.Option("--players", "-n", help="seats at the table (default: the bots listed)")
    ] = None,
    dice: Annotated[int | None, typer.Option("--dice", "-d", help="dice per player")] = None,
    faces: Annotated[int | None, typer.Option("--faces", "-f", help="faces per die")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="any rule option as name=value (repeatable)")
    ] = None,
    games: Annotated[int, typer.Option("--games", "-g", help="games to play", callback=at_least(1))] = 2000,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers", "-w", help="worker processes (default: the CPU count; 1: in process)", callback=at_least(1)
        ),
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="seed of the whole run (default: random)")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="folder for the results (default: arena/DATE-TIME)")] = None,
    records: Annotated[
        bool, typer.Option("--records/--no-records", help="write every game's record under OUT/records")
    ] = True,
    bot_fallback: BotFallback = "skilled",
    bot_time: BotTime = 5.0,
    bot_log: ArenaBotLog = None,
    bot_transcript: BotTranscript = False,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            help="play the games as Ray tasks (pip install 'liarsdice[ray]'): local (a Ray of its own; "
            "--workers sets its CPUs), auto (this machine's cluster), HOST:PORT (a cluster's head) or "
            "ray://HOST:PORT (a Ray client server); --workers then caps the tasks at once (docs/scaling.md)",
        ),
    ] = None,
    ray_working_dir: Annotated[
        Path | None,
        typer.Option(
            "--ray-working-dir",
            help="with --ray: a folder shipped to every worker, where the tasks (and exec: programs) run",
        ),
    ] = None,
) -> None:
    """Play many games among bots, seats rotated, and report win rates, head to head and ratings.

    A bot may be a program that speaks the bot protocol: exec:COMMAND (docs/bot-protocol.md); its
    stderr goes to OUT/bot-logs unless --bot-log says otherwise."""
    try:
        import matplotlib  # noqa: F401
        import openskill  # noqa: F401
        from rich.console import Console

        from ..arena import (
            ArenaConfig,
            ArenaError,
            ArenaInputError,
            check_out_dir,
            default_out_dir,
            default_workers,
            parse_lineup,
            run_arena,
        )
        from ..arena.report import make_progress, print_report
    except ImportError as e:
        _fail(f"the arena needs its extra dependencies ({e.name} is missing): pip install 'liarsdice[arena]'")
    if bots is None:
        _fail(
            f"name the bots with --bots: levels ({level_names()}, any case) or exec:COMMAND, e.g. --bots Master,Expert"
        )
    try:
        lineup = parse_lineup(bots, players)
        options = build_options(preset, len(lineup), dice, faces, option)
        if ray is not None:
            from ..arena.ray import check_address, check_working_dir, require_ray

            ray = check_address(ray)
            if ray_working_dir is not None:
                ray_working_dir = check_working_dir(ray_working_dir)
            require_ray()
        elif ray_working_dir is not None:
            raise ArenaInputError("--ray-working-dir goes with --ray: it is shipped to the Ray workers")
        folder = out if out is not None else default_out_dir()
        check_out_dir(folder)
    except (ArenaInputError, OptionsError) as e:
        _fail(str(e))
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    config = ArenaConfig(
        preset=find_preset(preset).name,
        options=options,
        lineup=lineup,
        games=games,
        seed=seed,
        workers=workers or (0 if ray is not None else default_workers()),  # 0: every CPU Ray has
        out=folder,
        records=records,
        exec_settings=exec_settings(bot_fallback, bot_time, bot_log, bot_transcript),
        ray=ray,
        ray_working_dir=ray_working_dir,
        arguments={
            "bots": bots,
            "preset": preset,
            "players": players,
            "dice": dice,
            "faces": faces,
            "option": list(option or []),
            "games": games,
            "workers": workers,
            "seed": seed,
            "out": str(folder),
            "records": records,
            "bot_fallback": bot_fallback,
            "bot_time": bot_time,
            "bot_log": str(bot_log) if bot_log is not None else None,
            "ray": ray,
            "ray_working_dir": str(ray_working_dir) if ray_working_dir is not None else None,
        },
    )
    console = Console()
    if not console.is_terminal:  # piped to a file: rich's 80 columns would wrap the tables
        console = Console(width=max(console.width, 140))
    if ray is not None:  # connecting may take a while (Ray retries an unreachable head for minutes)
        console.print("Starting a local Ray..." if ray == "local" else f"Connecting to Ray at {ray}...")
    progress = make_progress(console)
    task = progress.add_task("games", total=games)
    try:
        result = run_arena(config, on_queued=progress.start, on_done=lambda k: progress.advance(task, k))
    except ArenaError as e:
        progress.stop()
        _fail(str(e), 1)
    except KeyboardInterrupt:
        progress.stop()
        _fail(f"interrupted: the files so far are in {folder}", 130)
    progress.stop()
    print_report(result, console)


@app.command(short_help="Measure how exploitable a bot is, by local best response.")
def exploit(
    bot: Annotated[
        str | None,
        typer.Option(
            "--bot", "-b", help="the bot to exploit: a level (Beginner to Master, or an older name) or exec:COMMAND"
        ),
    ] = None,
    strategy: Annotated[
        Path | None, typer.Option("--strategy", help="exploit a saved strategy (liarsdice solve --out) instead")
    ] = None,
    dice: Annotated[tuple[int, int], typer.Option("--dice", "-d", help="dice of seat 0 (who opens) and seat 1")] = (
        1,
        1,
    ),
    faces: Annotated[int, typer.Option("--faces", "-f", help="faces per die")] = 6,
    wild: Annotated[
        str, typer.Option("--wild", help="the wild face: 1 (dudo.ai's game), top (OpenSpiel's) or none")
    ] = "1",
    rounds: Annotated[
        int, typer.Option("--rounds", "-r", help="rounds to play, half in each seat", callback=at_least(2))
    ] = 2000,
    samples: Annotated[
        int, typer.Option("--samples", help="times the bot is asked per position and hand", callback=at_least(1))
    ] = 8,
    lookahead: Annotated[
        int | None,
        typer.Option(
            "--lookahead",
            help="LBR's later turns it values by raising again too (default: 1; every turn with 2 dice in play)",
            callback=at_least(0),
        ),
    ] = None,
    hands: Annotated[
        int,
        typer.Option("--hands", help="opponent hands drawn from the range to value a raise", callback=at_least(1)),
    ] = 32,
    raises: Annotated[
        int, typer.Option("--raises", help="the lowest legal raises of each face LBR considers", callback=at_least(1))
    ] = 3,
    exact: Annotated[
        bool,
        typer.Option(
            "--exact", help="enumerate every deal instead (random bot or --strategy only); adds the best response"
        ),
    ] = False,
    workers: Annotated[int, typer.Option("--workers", "-w", help="worker processes", callback=at_least(1))] = 1,
    seed: Annotated[int, typer.Option("--seed", "-s", help="seed of the run")] = 1,
) -> None:
    """How exploitable is a bot? Local best response (LBR) against it in a two-player round.

    The round is the openspiel preset with rounds=single, num_players=2, dice_per_player=[A, B],
    faces and wild_face set: with --wild 1 (the default) the game of thomasahle/liars-dice
    (dudo.ai): bids rank by quantity then face, ones count for every other face, a bid on ones
    counts only ones and may open; seat 0 opens; the winner of the liar call +1, the loser -1.
    LBR plays both seats against the bot's real moves; the figure (its mean winnings a round, with
    a 95% interval) is a lower bound of the bot's exploitability. Details: docs/exploit.md."""
    from ..exploit import Duel, Job, Opponent, Settings, duel_options

    if (bot is None) == (strategy is None):
        _fail("name one opponent: --bot LEVEL (or exec:COMMAND), or --strategy FILE")
    try:
        options = duel_options(dice, faces, wild.strip().lower())
        duel = Duel(options, dice)
    except (OptionsError, ValueError) as e:
        _fail(str(e))
    if lookahead is None:
        lookahead = len(duel.ladder.bids) if sum(dice) <= 2 else 1
    settings = Settings(raises_per_face=raises, hands=hands, lookahead=lookahead)
    opponent = Opponent(
        bot=bot.strip().lower() if bot is not None and not bot.startswith("exec:") else bot, strategy=strategy
    )
    job = Job(options.to_dict(), dice, opponent, settings, samples, seed)
    typer.echo(
        f"LBR against {opponent.name}: {dice[0]} vs {dice[1]} dice, {faces} faces, wild face {options.wild_face}, "
        f"one round (openspiel preset, rounds=single)"
    )
    if exact:
        _exploit_exact(job, duel)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    from ..bots import BotError
    from ..exploit import run

    try:
        from ..exploit.run import build

        build(job)  # an unknown bot or an unfit strategy fails here, before any worker starts
    except (ValueError, OSError, BotError) as e:
        _fail(str(e))
    with Progress(MofNCompleteColumn(), BarColumn(), TimeElapsedColumn()) as bar:
        task = bar.add_task("rounds", total=2 * ((rounds + 1) // 2))
        report = run(job, rounds, workers, on_done=lambda k: bar.advance(task, k))
    typer.echo(
        f"LBR wins {report.mean:+.3f} a round [95%: {report.mean - report.half_width:+.3f}, "
        f"{report.mean + report.half_width:+.3f}] over {report.rounds} rounds "
        f"(seat 0: {report.seat_mean(0):+.3f}, seat 1: {report.seat_mean(1):+.3f}); {report.seconds:.0f} s"
    )


def _exploit_exact(job: Any, duel: Any) -> None:
    from ..exploit import Settings, best_response_value, lbr_value
    from ..exploit.run import build

    if job.opponent.bot is not None and job.opponent.bot != "random":
        _fail("--exact needs the opponent's exact probabilities: the random bot or --strategy FILE")
    try:
        table = build(job)
    except (ValueError, OSError) as e:
        _fail(str(e))
    settings = Settings.exhaustive(job.settings.lookahead)
    lbr = lbr_value(duel, table.model, settings)
    typer.echo(f"LBR (exact): {sum(lbr) / 2:+.6f} a round (seat 0: {lbr[0]:+.6f}, seat 1: {lbr[1]:+.6f})")
    try:
        br = best_response_value(duel, table.model)
    except (ImportError, MemoryError) as e:
        typer.echo(f"no exact best response here: {e}")
        return
    typer.echo(f"best response (exact): {sum(br) / 2:+.6f} a round (seat 0: {br[0]:+.6f}, seat 1: {br[1]:+.6f})")


@app.command()
def presets(
    name: Annotated[str | None, typer.Argument(help="show every option of one preset", metavar="PRESET")] = None,
) -> None:
    """List the rule presets, or every option of one; and the bot levels."""
    if name is not None:
        try:
            p = find_preset(name)
        except OptionsError as e:
            _fail(str(e))
        typer.echo(f"{p.name}: {p.description}")
        for key, value in p.build({"num_players": p.default_players}).to_dict().items():
            typer.echo(f"  {key:20} {json.dumps(value)}")
    else:
        for p in PRESETS.values():
            typer.echo(f"{p.name:13} {p.description}")
    typer.echo("")
    typer.echo("\n".join(describe_levels()))


bot_app = typer.Typer(
    cls=Group, help="Bot accounts on a server, and bridging a bot program to one.", no_args_is_help=True
)
app.add_typer(bot_app, name="bot")
DatabaseUrl = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        envvar="LIARSDICE_DATABASE_URL",  # as `serve` reads it
        help="the server's database (default: the SQLite file `serve` uses)",
    ),
]


def _bot_store(database_url: str | None) -> Any:
    try:
        from ..server.app import default_database_url
        from ..server.storage import Store
    except ImportError as e:
        _fail(f"bot accounts need the server's dependencies ({e.name} is missing): pip install 'liarsdice[server]'")
    try:
        return Store(database_url or default_database_url())
    except ValueError as e:
        _fail(str(e))


@bot_app.command("create", short_help="Make a bot account and print its token (shown only once).")
def bot_create(
    name: Annotated[str, typer.Argument(help="the bot's name at the tables")],
    database_url: DatabaseUrl = None,
) -> None:
    """Make a bot account and print its token (shown this once: only its hash is kept)."""
    from ..server.botaccounts import AccountError, create_account

    store = _bot_store(database_url)
    try:
        token = store.call_sync(lambda s: create_account(s, name))
    except AccountError as e:
        _fail(str(e))
    finally:
        store.close()
    typer.echo(f"bot account {' '.join(name.split())!r} made; its token (keep it secret, it is not shown again):")
    typer.echo(token)


@bot_app.command("list")
def bot_list(database_url: DatabaseUrl = None) -> None:
    """List the bot accounts."""
    from ..server.botaccounts import list_accounts

    store = _bot_store(database_url)
    try:
        rows = store.call_sync(list_accounts)
    finally:
        store.close()
    if not rows:
        typer.echo("no bot accounts (liarsdice bot create NAME makes one)")
    for row in rows:
        state = f"revoked {row['revoked']}" if row["revoked"] else "live"
        typer.echo(f"{row['name']:24} created {row['created']}  {state}")


@bot_app.command("revoke")
def bot_revoke(
    name: Annotated[str, typer.Argument(help="the bot account to revoke")],
    database_url: DatabaseUrl = None,
) -> None:
    """Revoke a bot account: its token is refused from now on."""
    from ..server.botaccounts import AccountError, revoke_account

    store = _bot_store(database_url)
    try:
        store.call_sync(lambda s: revoke_account(s, name))
    except AccountError as e:
        _fail(str(e))
    finally:
        store.close()
    typer.echo(f"bot account {name!r} revoked")


@bot_app.command("connect", short_help="Bring a bot program to a server as a bot account.")
def bot_connect(
    url: Annotated[str, typer.Argument(help="the server, e.g. http://127.0.0.1:8000")],
    command: Annotated[list[str], typer.Argument(help="the bot program and its arguments, after --")],
    token: Annotated[str, typer.Option("--token", help="the bot account's token (liarsdice bot create)")],
    accept: Annotated[
        list[str] | None, typer.Option("--accept", help="accept invitations to this preset only (repeatable)")
    ] = None,
    fallback: BotFallback = "skilled",
    move_time: BotTime = 5.0,
    log: BotLog = None,
    transcript: BotTranscript = False,
) -> None:
    """Bring a bot program (docs/bot-protocol.md) to a server as a bot account: it accepts
    invitations and plays each seat it is given, reconnecting when a connection drops."""
    from ..botproto.connect import AcceptRules, Bridge, ConnectError, run_bridge

    if not url.startswith(("http://", "https://", "ws://", "wss://")):
        _fail(f"the server's address starts with http:// or https://, not {url!r}")
    unknown = sorted(set(accept or ()) - set(PRESETS))
    if unknown:
        _fail(f"--accept takes preset names ({', '.join(PRESETS)}), not {', '.join(unknown)}")
    settings = exec_settings(fallback, move_time, log, transcript)
    bridge = Bridge(url, token, list(command), AcceptRules(frozenset(accept or ())), settings, say=typer.echo)
    try:
        run_bridge(bridge)
    except ConnectError as e:
        _fail(str(e), 1)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
