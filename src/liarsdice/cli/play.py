"""`liarsdice play`: a game in the terminal against bots, or hot-seat."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Annotated

import typer

from ..levels import DEFAULT as DEFAULT_LEVEL
from ..levels import describe as describe_levels
from ..levels import names_in_order as level_names
from ..rules import PRESETS, OptionsError, find_preset
from .options import BotFallback, BotLog, BotTime, BotTranscript, build_options, exec_settings, exit_with_error

commands = typer.Typer()


# Every level with its whole sentence, under the options of `play` (\b: click keeps the lines).
LEVELS_HELP = "\b\n" + "\n".join(describe_levels())


@commands.command(short_help="Play a game in the terminal against bots, or hot-seat.", epilog=LEVELS_HELP)
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
        exit_with_error(str(e))
    try:
        bot_specs = parse_bot_list(bots)
    except ValueError as e:
        exit_with_error(str(e))
    settings = exec_settings(bot_fallback, bot_time, bot_log, bot_transcript)
    if not 0 <= humans <= options.num_players:
        exit_with_error(f"--humans is 0 to {options.num_players} (the players at the table), not {humans}")
    names = list(name or [])
    if len(names) > humans:
        people = "1 person" if humans == 1 else f"{humans} people"
        exit_with_error(f"{len(names)} names (--name) given for {people} (--humans): at most one name each")
    if delay is not None and not 0 <= delay <= 3600:
        exit_with_error(f"--delay is 0 (no pause) to 3600 seconds, not {delay:g}")
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
