"""The `liarsdice` command.

One Typer app made of a module per command group, each with its own `commands`: records
(scenario, replay), analyse, play, serve, solve, train, arena, exploit, presets, learn, and the
`bot` sub-app;
options.py holds what several of them share, help.py how the command shows itself. Every heavy
dependency (numpy, numba, the server's, Ray...) is imported inside the command that needs it, so
that `liarsdice --help` and `liarsdice play` start fast.
"""

from __future__ import annotations

import typer

from . import analyse, arena, bot, exploit, learn, play, presets, records, serve, solve, train
from .help import Group

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
# Added without a name, a group's commands join the app's own, in this order (`liarsdice --help`).
for group in (records, analyse, play, serve, solve, train, arena, exploit, presets, learn):
    app.add_typer(group.commands)
app.add_typer(bot.commands, name="bot")


def main() -> None:
    app()
