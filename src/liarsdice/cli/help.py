"""How the `liarsdice` command shows itself: its help, its usage lines and its argument checks.

typer's plain help writes a required argument as `{file}`, an optional one as `[name]` and every
value as its Python type (`--players <int>`, `--option <list[str]>`), and cuts each command's
line in the list of commands with "...". `Group` is the command group of the app: it gives every
argument and option a metavar that says what to type (FILE, PRESET, NAME=VALUE, SECONDS), lists
each command with its whole one-line description, and names the commands when one is unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from difflib import get_close_matches
from typing import Any

import typer
from typer.core import TyperArgument, TyperGroup, TyperOption

# What to type after an option, by its long name; "COMMAND --option" wins over "--option".
METAVARS: dict[str, str] = {
    "--preset": "PRESET",
    "--players": "N",
    "--dice": "N",
    "--faces": "N",
    "--seed": "N",
    "--bots": "BOTS",
    "--humans": "N",
    "--name": "NAME",
    "--option": "NAME=VALUE",
    "--record-dir": "FOLDER",
    "--delay": "SECONDS",
    "--bot-fallback": "LEVEL",
    "--bot-time": "SECONDS",
    "--bot-log": "FOLDER",
    "--host": "HOST",
    "--port": "PORT",
    "--database-url": "URL",
    "--redis-url": "URL",
    "--public-url": "URL",
    "--grace": "SECONDS",
    "--bot-delay": "SECONDS",
    "--log-level": "LEVEL",
    "--unload-after": "SECONDS",
    "--reveal-pause": "SECONDS",
    "serve --bot": "NAME=COMMAND",
    "exploit --bot": "BOT",
    "--forwarded-allow-ips": "ADDRESSES",
    "--ladder": "PRESETS",
    "--ladder-anchors": "LEVELS",
    "--ladder-tables": "N",
    "--ladder-seats": "N",
    "--ladder-dice": "N",
    "--ladder-turn-seconds": "SECONDS",
    "--games": "N",
    "--workers": "N",
    "arena --out": "FOLDER",
    "--out": "FILE",
    "--plots": "FOLDER",
    "--ray": "ADDRESS",
    "--ray-working-dir": "FOLDER",
    "--strategy": "FILE",
    "--wild": "FACE",
    "--rounds": "N",
    "--samples": "N",
    "--lookahead": "N",
    "--hands": "N",
    "--raises": "N",
    "--algorithm": "NAME",
    "--target": "NUMBER",
    "--iterations": "N",
    "--seconds": "SECONDS",
    "--k": "N",
    "--sample": "N",
    "--only": "SIZES",
    "--variant": "VARIANTS",
    "--jobs": "N",
    "--threads": "N",
    "--into": "FOLDER",
    "--token": "TOKEN",
    "--accept": "PRESET",
}

_TYPE_ERRORS = (
    ("Input should be a valid integer", "must be a whole number, like 3"),
    ("Input should be a valid number", "must be a number, like 2.5"),
    ("Input should be a valid boolean", "must be true or false"),
)

# An option not in METAVARS is named by its type.
_TYPE_METAVARS = {"int": "N", "float": "NUMBER", "str": "TEXT", "path": "PATH"}


def _type_metavar(option: TyperOption, ctx: typer.Context) -> str:
    display = getattr(option, "display_type", None)  # "<int>" (typer 0.2x); older typers have none
    if display is None:
        return "VALUE"
    labels = display(ctx).strip("<>").removeprefix("list[").removesuffix("]").split(",")
    names = [_TYPE_METAVARS.get(label, label.upper()) for label in labels]
    return "A B" if names == ["N", "N"] else " ".join(names)


class _Argument(TyperArgument):
    """An argument written as a word to replace: FILE when required, [NAME] when not."""

    def _usage_display_name(self) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")

    def display_type_rich(self, ctx: Any) -> str | None:
        return None  # the metavar says it (typer would add <path> after FILE)


def _name_parameters(command: Any, ctx: typer.Context) -> None:
    for param in command.params:
        if isinstance(param, TyperArgument):
            if param.metavar is None:
                param.metavar = (param.name or "value").upper()
            # the same argument, shown as above (typer has no hook for its usage word)
            param.__class__ = _Argument
        elif isinstance(param, TyperOption) and param.metavar is None and not (param.is_flag or param.count):
            long = max(param.opts, key=len)
            named = (METAVARS.get(f"{command.name} {long}") or METAVARS.get(long)) if param.nargs == 1 else None
            param.metavar = named or _type_metavar(param, ctx)


class Group(TyperGroup):
    """The app's command group: see the module's docstring."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        ctx = typer.Context(self)
        for command in self.commands.values():
            if not isinstance(command, TyperGroup):  # a group of this class names its own
                _name_parameters(command, ctx)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = [
            (name, command.get_short_help_str(limit=1_000))  # the whole first sentence, never "..."
            for name in self.list_commands(ctx)
            if (command := self.get_command(ctx, name)) is not None and not command.hidden
        ]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except typer.BadParameter as e:
            # typer checks types with pydantic, whose words are a programmer's
            for theirs, ours in _TYPE_ERRORS:
                if e.message.startswith(theirs):
                    e.message = ours
            param = e.param
            if not e.message and param is not None and param.help:  # "Missing argument 'FILE'."
                name = param.metavar if isinstance(param, TyperArgument) else max(param.opts, key=len)
                e.message = f"{name} is {param.help}"
            raise

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None and not ctx.resilient_parsing:
            commands = self.list_commands(ctx)
            close = get_close_matches(name, commands, n=1)
            guess = f" Did you mean {close[0]!r}?" if close else ""
            ctx.fail(f"No such command {name!r}.{guess} The commands are {', '.join(commands)}.")
        return super().resolve_command(ctx, args)


def at_least(low: float) -> Callable[[Any], Any]:
    """An option's callback refusing a value under `low`, saying the value and what is allowed.
    Click runs it as it reads the option, so a bad value is reported before an option missing."""

    def check(value: Any) -> Any:
        if value is not None and value < low:
            raise typer.BadParameter(f"must be at least {low:g}, not {value:g}")
        return value

    return check


def between(low: float, high: float) -> Callable[[Any], Any]:
    """As `at_least`, with an upper bound too."""

    def check(value: Any) -> Any:
        if value is not None and not low <= value <= high:
            raise typer.BadParameter(f"must be {low:g} to {high:g}, not {value:g}")
        return value

    return check
