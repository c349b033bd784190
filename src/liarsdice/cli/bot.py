"""`liarsdice bot`: bot accounts on a server (create, list, revoke), and bridging a bot program
to one (connect)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from ..rules import PRESETS
from .help import Group
from .options import BotFallback, BotLog, BotTime, BotTranscript, exec_settings, exit_with_error

commands = typer.Typer(
    cls=Group, help="Bot accounts on a server, and bridging a bot program to one.", no_args_is_help=True
)


DatabaseUrl = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        envvar="LIARSDICE_DATABASE_URL",  # as `serve` reads it
        help="the server's database (default: the SQLite file `serve` uses)",
    ),
]


def _bot_store(database_url: str | None) -> Any:
    try:
        from ..server.app import default_database_url
        from ..server.storage import Store
    except ImportError as e:
        exit_with_error(
            f"bot accounts need the server's dependencies ({e.name} is missing): pip install 'liarsdice[server]'"
        )
    try:
        return Store(database_url or default_database_url())
    except ValueError as e:
        exit_with_error(str(e))


@commands.command("create", short_help="Make a bot account and print its token (shown only once).")
def bot_create(
    name: Annotated[str, typer.Argument(help="the bot's name at the tables")],
    database_url: DatabaseUrl = None,
) -> None:
    """Make a bot account and print its token (shown this once: only its hash is kept)."""
    from ..server.botaccounts import AccountError, create_account

    store = _bot_store(database_url)
    try:
        token = store.call_sync(lambda s: create_account(s, name))
    except AccountError as e:
        exit_with_error(str(e))
    finally:
        store.close()
    typer.echo(f"bot account {' '.join(name.split())!r} made; its token (keep it secret, it is not shown again):")
    typer.echo(token)


@commands.command("list")
def bot_list(database_url: DatabaseUrl = None) -> None:
    """List the bot accounts."""
    from ..server.botaccounts import list_accounts

    store = _bot_store(database_url)
    try:
        rows = store.call_sync(list_accounts)
    finally:
        store.close()
    if not rows:
        typer.echo("no bot accounts (liarsdice bot create NAME makes one)")
    for row in rows:
        state = f"revoked {row['revoked']}" if row["revoked"] else "live"
        typer.echo(f"{row['name']:24} created {row['created']}  {state}")


@commands.command("revoke")
def bot_revoke(
    name: Annotated[str, typer.Argument(help="the bot account to revoke")],
    database_url: DatabaseUrl = None,
) -> None:
    """Revoke a bot account: its token is refused from now on."""
    from ..server.botaccounts import AccountError, revoke_account

    store = _bot_store(database_url)
    try:
        store.call_sync(lambda s: revoke_account(s, name))
    except AccountError as e:
        exit_with_error(str(e))
    finally:
        store.close()
    typer.echo(f"bot account {name!r} revoked")


@commands.command("connect", short_help="Bring a bot program to a server as a bot account.")
def bot_connect(
    url: Annotated[str, typer.Argument(help="the server, e.g. http://127.0.0.1:8000")],
    command: Annotated[list[str], typer.Argument(help="the bot program and its arguments, after --")],
    token: Annotated[str, typer.Option("--token", help="the bot account's token (liarsdice bot create)")],
    accept: Annotated[
        list[str] | None, typer.Option("--accept", help="accept invitations to this preset only (repeatable)")
    ] = None,
    fallback: BotFallback = "skilled",
    move_time: BotTime = 5.0,
    log: BotLog = None,
    transcript: BotTranscript = False,
) -> None:
    """Bring a bot program (docs/bot-protocol.md) to a server as a bot account: it accepts
    invitations and plays each seat it is given, reconnecting when a connection drops."""
    from ..botproto.connect import AcceptRules, Bridge, ConnectError, run_bridge

    if not url.startswith(("http://", "https://", "ws://", "wss://")):
        exit_with_error(f"the server's address starts with http:// or https://, not {url!r}")
    unknown = sorted(set(accept or ()) - set(PRESETS))
    if unknown:
        exit_with_error(f"--accept takes preset names ({', '.join(PRESETS)}), not {', '.join(unknown)}")
    settings = exec_settings(fallback, move_time, log, transcript)
    bridge = Bridge(url, token, list(command), AcceptRules(frozenset(accept or ())), settings, say=typer.echo)
    try:
        run_bridge(bridge)
    except ConnectError as e:
        exit_with_error(str(e), 1)
