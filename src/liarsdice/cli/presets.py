"""`liarsdice presets`: the rule presets (or every option of one) and the bot levels."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ..levels import describe as describe_levels
from ..rules import PRESETS, OptionsError, find_preset
from .options import exit_with_error

commands = typer.Typer()


@commands.command()
def presets(
    name: Annotated[str | None, typer.Argument(help="show every option of one preset", metavar="PRESET")] = None,
) -> None:
    """List the rule presets, or every option of one; and the bot levels."""
    if name is not None:
        try:
            p = find_preset(name)
        except OptionsError as e:
            exit_with_error(str(e))
        typer.echo(f"{p.name}: {p.description}")
        for key, value in p.build({"num_players": p.default_players}).to_dict().items():
            typer.echo(f"  {key:20} {json.dumps(value)}")
    else:
        for p in PRESETS.values():
            typer.echo(f"{p.name:13} {p.description}")
    typer.echo("")
    typer.echo("\n".join(describe_levels()))
