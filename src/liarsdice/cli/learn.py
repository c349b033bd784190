"""`liarsdice learn`: short lessons with scripted dice, one per rule family, in the terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .options import exit_with_error

commands = typer.Typer()


@commands.command(short_help="Learn the game: short lessons with scripted dice, then a game.")
def learn(
    lesson: Annotated[
        str | None,
        typer.Argument(help="core, wilds, exact, soar, jokers or tavern (none: the list, then ask)", metavar="LESSON"),
    ] = None,
    seed: Annotated[int | None, typer.Option("--seed", "-s", help="seed for the short game at the end")] = None,
    record_dir: Annotated[
        Path | None,
        typer.Option("--record-dir", help="folder for the short game's record (default: the data directory's records)"),
    ] = None,
) -> None:
    """Take a lesson: each step shows the table with scripted dice, asks for a move, and explains
    why it was right or what went wrong; at the end, a short game against the easiest bot."""
    from rich.console import Console

    from ..learn import UnknownLesson, find_lesson
    from ..terminal.lesson import choose_lesson, run_lesson
    from ..terminal.screen import QuitGame

    console = Console()
    if lesson is not None:
        try:
            chosen = find_lesson(lesson)
        except UnknownLesson as e:
            exit_with_error(str(e))
    else:
        try:
            chosen = choose_lesson(console, None)
        except QuitGame as e:
            raise typer.Exit(e.code) from None
    raise typer.Exit(run_lesson(chosen, console=console, record_dir=record_dir, seed=seed))
