"""`liarsdice arena`: many games among bots, seats rotated; win rates, head to head and ratings."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Annotated

import typer

from ..levels import names_in_order as level_names
from ..rules import PRESETS, OptionsError, find_preset
from .help import at_least
from .options import BotFallback, BotTime, BotTranscript, build_options, exec_settings, exit_with_error

commands = typer.Typer()

# the arena keeps its bot logs with the rest of its run (arena.BOT_LOGS)
ArenaBotLog = Annotated[
    Path | None, typer.Option("--bot-log", help="folder for the bot programs' stderr (default: OUT/bot-logs)")
]


@commands.command(short_help="Play many games among bots; report win rates and ratings.")
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
        exit_with_error(f"the arena needs its extra dependencies ({e.name} is missing): pip install 'liarsdice[arena]'")
    if bots is None:
        exit_with_error(
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
        exit_with_error(str(e))
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
        exit_with_error(str(e), 1)
    except KeyboardInterrupt:
        progress.stop()
        exit_with_error(f"interrupted: the files so far are in {folder}", 130)
    progress.stop()
    print_report(result, console)
