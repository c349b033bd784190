"""What several commands share: the rules a table plays by (--preset, --players, --dice, --faces,
--option) read into Options; the options of bot programs (exec:COMMAND) read into ExecSettings;
and how a command stops on what it was given."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from ..rules import Options, OptionsError, find_preset, merge_overrides


def exit_with_error(message: str, code: int = 2) -> NoReturn:
    """Say `error: MESSAGE` on stderr and end the command with `code` (2: what it was given)."""
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
    """The options of `preset` with the table size, cup size, faces and `--option` pairs given."""
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


# The options of bot programs (exec:COMMAND), shared by play, arena and bot connect.
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
BotTranscript = Annotated[
    bool, typer.Option("--bot-transcript", help="also write every line to and from each bot program to --bot-log")
]


def exec_settings(fallback: str, move_time: float, log: Path | None, transcript: bool) -> Any:
    """The ExecSettings of --bot-fallback, --bot-time, --bot-log and --bot-transcript (checked)."""
    from ..botproto.driver import ExecSettings
    from ..levels import allowed, is_level, resolve

    fallback = fallback.strip().lower()
    if fallback != "forfeit" and not is_level(fallback):
        exit_with_error(f"--bot-fallback is a bot level, {allowed()}, or forfeit, not {fallback!r}")
    fallback = fallback if fallback == "forfeit" else resolve(fallback)
    if not 0 < move_time <= 3600:
        exit_with_error(f"--bot-time is above 0 and at most 3600 seconds, not {move_time:g}")
    return ExecSettings(move_time=move_time, fallback=fallback, log_dir=log, transcript=transcript)
