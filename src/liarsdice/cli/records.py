"""The commands that read a file back: `scenario` plays conformance scenarios, `replay` checks
and prints a game record."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from .options import exit_with_error

commands = typer.Typer()


@commands.command(short_help="Play conformance scenarios; print one JSON line for each.")
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
        exit_with_error(str(e), 1)
    failed = 0
    for case in cases:
        line = run_scenario(case)
        failed += "error" in line
        sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()
    if failed:
        # FORMAT.md: still exit 0 (the checker reads these lines); a person reading is told here
        typer.echo(f"{failed} of {len(cases)} scenarios could not be set up: their lines say why", err=True)


@commands.command(short_help="Check a game record and print the game round by round.")
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
        exit_with_error(f"{file}: invalid record: {e}", 1)
    if check:
        typer.echo(f"{file}: valid record")
        return
    for line in lines:
        typer.echo(line)
