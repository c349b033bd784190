"""The `liarsdice` command."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from .rules import PRESETS, Options, OptionsError, find_preset, merge_overrides

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Liar's Dice: play in the terminal, check rules scenarios, replay game records.",
    context_settings={"help_option_names": ["-h", "--help"]},
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
    if counted and (n < p.min_players or (p.max_players is not None and n > p.max_players)):
        most = f" to {p.max_players}" if p.max_players else " or more"
        raise OptionsError(f"{p.name} is played by {p.min_players}{most} players, not {n}")
    return Options.from_dict(merge_overrides(p.options, overrides))


@app.command()
def scenario(
    file: Annotated[Path, typer.Argument(help="YAML or JSON list of scenarios (shared/conformance/FORMAT.md)")],
) -> None:
    """Play conformance scenarios and print one JSON line of observations per scenario."""
    from .scenario import ScenarioFileError, load_scenarios, run_scenario

    try:
        cases = load_scenarios(file)
    except ScenarioFileError as e:
        _fail(str(e), 1)
    for case in cases:
        sys.stdout.write(json.dumps(run_scenario(case)) + "\n")
    sys.stdout.flush()


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="a game record (JSON) written by liarsdice")],
    check: Annotated[bool, typer.Option("--check", help="only validate; print nothing but the verdict")] = False,
) -> None:
    """Validate a game record and print the game round by round, every cup shown."""
    from .record import RecordError, load_record, replay_text

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


@app.command()
def play(
    preset: Annotated[str, typer.Option("--preset", "-p", help=f"one of {', '.join(PRESETS)}")] = "perudo",
    players: Annotated[int | None, typer.Option("--players", "-n", help="seats at the table")] = None,
    dice: Annotated[int | None, typer.Option("--dice", "-d", help="dice per player")] = None,
    faces: Annotated[int | None, typer.Option("--faces", "-f", help="faces per die")] = None,
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="seed for the dice and the bots")] = None,
    bots: Annotated[
        str, typer.Option("--bots", "-b", help="bot level: random, probability, cfr or strong")
    ] = "probability",
    humans: Annotated[int, typer.Option("--humans", help="people at this terminal (hot-seat)")] = 1,
    name: Annotated[list[str] | None, typer.Option("--name", help="a person's name (repeat for hot-seat)")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="any rule option as name=value (repeatable)")
    ] = None,
    record_dir: Annotated[Path | None, typer.Option("--record-dir", help="where the game record is written")] = None,
) -> None:
    """Play a whole game in the terminal against bots, or hot-seat with friends."""
    from .bots import BOT_LEVELS
    from .terminal import run_play

    try:
        options = build_options(preset, players, dice, faces, option)
    except OptionsError as e:
        _fail(str(e))
    if bots not in BOT_LEVELS:
        _fail(f"unknown bot level {bots!r}: the levels are {', '.join(BOT_LEVELS)}")
    if not 0 <= humans <= options.num_players:
        _fail(f"--humans must be between 0 and the {options.num_players} players")
    names = list(name or [])
    if len(names) > humans:
        _fail(f"{len(names)} names given for {humans} people (--humans)")
    if seed is None:
        seed = random.SystemRandom().randrange(1 << 31)
    code = run_play(
        preset=find_preset(preset).name,
        options=options,
        humans=humans,
        names=names,
        bot_level=bots,
        seed=seed,
        record_dir=record_dir,
    )
    raise typer.Exit(code)


@app.command()
def serve(
    host: Annotated[str, typer.Option("--host", help="address to listen on")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="port to listen on (0: any free port)")] = 8000,
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help="sqlite:///PATH or postgresql://USER@HOST/DB (default: a SQLite file in the data directory)",
        ),
    ] = None,
    grace: Annotated[float, typer.Option("--grace", help="seconds an away player's turn waits for a bot")] = 30.0,
    bot_delay: Annotated[float, typer.Option("--bot-delay", help="seconds a bot waits before it moves")] = 0.8,
    log_level: Annotated[str, typer.Option("--log-level", help="debug, info, warning or error")] = "info",
    public_url: Annotated[
        str | None, typer.Option("--public-url", help="the address invitation links give, e.g. https://dice.example")
    ] = None,
    unload_after: Annotated[
        float,
        typer.Option(
            "--unload-after",
            help="seconds before a table not in play, with nobody on it, leaves memory (not the database)",
        ),
    ] = 600.0,
) -> None:
    """Serve the game in the browser: tables, bots, spectators, history and replays."""
    try:
        from .server.run import run_server
    except ImportError as e:
        _fail(f"the server needs its extra dependencies ({e.name} is missing): pip install 'liarsdice[server]'")
    if not 0 <= port <= 65535:
        _fail("--port must be between 0 and 65535")
    if grace < 0 or bot_delay < 0 or unload_after < 0:
        _fail("--grace, --bot-delay and --unload-after cannot be negative")
    if log_level not in ("debug", "info", "warning", "error"):
        _fail(f"--log-level must be debug, info, warning or error, not {log_level!r}")
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
        )
    except ValueError as e:
        _fail(str(e))


@app.command()
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

        from .solver import solve as run_solve
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
        from .solver.tree import GameSpec, Tree

        tree = Tree(GameSpec.from_options(options, dice))
    except (OptionsError, ValueError) as e:
        _fail(str(e))
    typer.echo(
        f"{find_preset(preset).name}: {dice[0]} vs {dice[1]} dice, {options.faces} faces, {tree.num_bids} bids, "
        f"{tree.num_nodes:,} nodes, {tree.infosets():,} information sets; {algorithm.upper()} to {target:g}"
    )
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
        from .bots.cfr import solution_key, solutions_dir

        saved.append(solution.save(solutions_dir() / f"{solution_key(options, dice)}.npz"))
    for path in saved:
        typer.echo(f"strategy: {path}")
    if plots is not None:
        from .solver.plots import convergence_png, opening_png

        typer.echo(f"plot: {convergence_png(solution, plots / 'convergence.png', target)}")
        typer.echo(f"plot: {opening_png(solution, plots / 'opening.png')}")


@app.command()
def arena(
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            "-b",
            help="bot levels, comma-separated, one per seat (cycled to --players), e.g. strong,probability",
        ),
    ],
    preset: Annotated[str, typer.Option("--preset", "-p", help=f"one of {', '.join(PRESETS)}")] = "perudo",
    players: Annotated[
        int | None, typer.Option("--players", "-n", help="seats at the table (default: the bots listed)")
    ] = None,
    dice: Annotated[int | None, typer.Option("--dice", "-d", help="dice per player")] = None,
    faces: Annotated[int | None, typer.Option("--faces", "-f", help="faces per die")] = None,
    option: Annotated[
        list[str] | None, typer.Option("--option", "-o", help="any rule option as name=value (repeatable)")
    ] = None,
    games: Annotated[int, typer.Option("--games", "-g", help="games to play")] = 2000,
    workers: Annotated[
        int | None, typer.Option("--workers", "-w", help="worker processes (default: the CPU count; 1: in process)")
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="seed of the whole run (default: random)")] = None,
    out: Annotated[
        Path | None, typer.Option("--out", help="folder for the results (default: arena/<timestamp>)")
    ] = None,
    records: Annotated[
        bool, typer.Option("--records/--no-records", help="write every game's record under OUT/records")
    ] = True,
) -> None:
    """Play many games among bots, seats rotated, and report win rates, head to head and ratings."""
    try:
        import matplotlib  # noqa: F401
        import openskill  # noqa: F401
        from rich.console import Console

        from .arena import (
            ArenaConfig,
            ArenaError,
            ArenaInputError,
            check_out_dir,
            default_out_dir,
            default_workers,
            make_progress,
            parse_lineup,
            print_report,
            run_arena,
        )
    except ImportError as e:
        _fail(f"the arena needs its extra dependencies ({e.name} is missing): pip install 'liarsdice[arena]'")
    try:
        lineup = parse_lineup(bots, players)
        options = build_options(preset, len(lineup), dice, faces, option)
        if games < 1:
            raise ArenaInputError(f"--games must be at least 1, not {games}")
        if workers is not None and workers < 1:
            raise ArenaInputError(f"--workers must be at least 1, not {workers}")
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
        workers=workers or default_workers(),
        out=folder,
        records=records,
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
        },
    )
    console = Console()
    if not console.is_terminal:  # piped to a file: rich's 80 columns would wrap the tables
        console = Console(width=max(console.width, 140))
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


@app.command()
def presets(
    name: Annotated[str | None, typer.Argument(help="show every option of one preset")] = None,
) -> None:
    """List the rule presets, or every option of one."""
    if name is not None:
        try:
            p = find_preset(name)
        except OptionsError as e:
            _fail(str(e))
        typer.echo(f"{p.name}: {p.description}")
        for key, value in p.build({"num_players": p.default_players}).to_dict().items():
            typer.echo(f"  {key:20} {json.dumps(value)}")
        return
    for p in PRESETS.values():
        typer.echo(f"{p.name:13} {p.description}")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
