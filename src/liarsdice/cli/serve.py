"""`liarsdice serve`: the game in the browser, with its bots, ladder and accounts."""

from __future__ import annotations

from typing import Annotated

import typer

from .help import at_least, between
from .options import exit_with_error

commands = typer.Typer()


@commands.command(short_help="Serve the game to browsers: tables, bots, spectators, replays.")
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
        exit_with_error(f"--log-level is debug, info, warning or error, not {log_level!r}")
    if not 0 <= reveal_pause <= 600:
        exit_with_error(f"--reveal-pause is 0 (no pause) to 600 seconds, not {reveal_pause:g}")
    try:
        from ..server.run import run_server
    except ImportError as e:
        exit_with_error(
            f"the server needs its extra dependencies ({e.name} is missing): pip install 'liarsdice[server]'"
        )
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
            exit_with_error(str(e))
    elif ladder_anchors or ladder_accounts:
        exit_with_error(
            "--ladder-anchors and --ladder-accounts enter bots in the ladder: turn it on with --ladder PRESETS"
        )
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
        exit_with_error(str(e))


def _operator_bots(assignments: list[str]) -> dict[str, str]:
    """--bot NAME=COMMAND, checked: a name a seat may have, once; a command to run."""
    from ..server.limits import RoomError, clean_name

    out: dict[str, str] = {}
    for item in assignments:
        name, eq, command = item.partition("=")
        if not eq or not command.strip():
            exit_with_error(f"--bot is NAME=COMMAND (e.g. --bot mini='python examples/bots/minimal.py'), not {item!r}")
        try:
            name = clean_name(name)
        except RoomError as e:
            exit_with_error(f"--bot {item!r}: {e.message}")
        if name in out:
            exit_with_error(f"--bot {name!r} is given twice: one command per name")
        out[name] = command.strip()
    return out
