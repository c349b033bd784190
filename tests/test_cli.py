"""The command line as a newcomer meets it: help, usage lines and the errors of bad arguments."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from liarsdice.cli import app

LIARSDICE = Path(sys.executable).parent / "liarsdice"
WIDTHS = ("80", "")  # COLUMNS=80, and the default width (no COLUMNS)


def run(*args: str, columns: str = "") -> tuple[int, str, str]:
    env = {"COLUMNS": columns} if columns else {}
    result = CliRunner().invoke(app, list(args), env=env, prog_name="liarsdice")
    return result.exit_code, result.stdout, result.stderr


def commands() -> list[list[str]]:
    """Every command and subcommand, as typed after `liarsdice`."""
    group = get_command(app)
    out = []
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        subcommands = getattr(command, "commands", None)
        out += [[name, sub] for sub in subcommands] if subcommands else [[name]]
    return out


# ----- help -----


@pytest.mark.parametrize("columns", WIDTHS)
def test_the_top_level_help_lists_every_command_with_its_whole_description(columns: str) -> None:
    code, text, _ = run("--help", columns=columns)
    assert code == 0
    summary, listing = text.split("Commands:")
    assert "..." not in listing  # no description cut short
    assert "serve it to browsers" in " ".join(summary.split())  # the summary names serving too
    listed = re.findall(r"^  (\w+)  +(\S.*)$", listing, re.M)
    assert len(listed) == len(listing.strip().splitlines())  # each on one line, none wrapped
    group = get_command(app)
    assert [name for name, _ in listed] == list(group.commands)  # type: ignore[attr-defined]
    for name, first_line in listed:
        command = group.commands[name]  # type: ignore[attr-defined]
        summary = command.short_help or command.help.split("\n\n")[0]
        assert " ".join(summary.split()).startswith(first_line.strip())
    for line in text.splitlines():
        assert len(line) <= 80, line


@pytest.mark.parametrize("columns", WIDTHS)
def test_usage_and_help_name_what_to_type(columns: str) -> None:
    for command in commands():
        code, text, _ = run(*command, "--help", columns=columns)
        assert code == 0, command
        assert not re.search(r"[{}]|<\w|\[str\]", text), text  # no {file}, <int>, <path> or list[str]
    usages = {
        ("scenario",): "liarsdice scenario [OPTIONS] FILE",
        ("replay",): "liarsdice replay [OPTIONS] FILE",
        ("presets",): "liarsdice presets [OPTIONS] [PRESET]",
        ("bot", "create"): "liarsdice bot create [OPTIONS] NAME",
        ("bot", "connect"): "liarsdice bot connect [OPTIONS] URL COMMAND...",
    }
    for command, usage in usages.items():
        assert f"Usage: {usage}\n" in run(*command, "--help", columns=columns)[1]
    play = " ".join(run("play", "--help", columns=columns)[1].split())
    for shown in ("--preset PRESET", "--players N", "--option NAME=VALUE", "--record-dir FOLDER", "--delay SECONDS"):
        assert shown in play
    assert "--dice A B" in run("exploit", "--help", columns=columns)[1]


def _unwrapped(text: str) -> str:
    """Help text on one line (click may also break a line after a hyphen)."""
    return re.sub(r"(?<=\w)- (?=\w)", "-", " ".join(text.split()))


def test_the_bot_log_help_names_the_folder_each_command_writes_to() -> None:
    arena = _unwrapped(run("arena", "--help")[1])
    assert "--bot-log FOLDER folder for the bot programs' stderr (default: OUT/bot-logs)" in arena
    for command in (["play"], ["bot", "connect"]):
        assert "(default: bot-logs in the data directory" in _unwrapped(run(*command, "--help")[1])


def test_arena_bot_logs_go_where_its_help_says(tmp_path: Path) -> None:
    from liarsdice.arena import ArenaConfig, exec_settings
    from liarsdice.botproto.driver import ExecSettings
    from liarsdice.rules import preset_options

    config = ArenaConfig(
        preset="perudo",
        options=preset_options("perudo", {"num_players": 2}),
        lineup=("exec:true", "random"),
        games=1,
        seed=1,
        workers=1,
        out=tmp_path / "run",
        records=False,
        exec_settings=ExecSettings(),
    )
    settings = exec_settings(config)
    assert settings is not None and settings.log_dir == tmp_path / "run" / "bot-logs"


# ----- bad arguments: what was wrong and what is allowed -----


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["arena", "--games", "-3"], "Invalid value for '--games' / '-g': must be at least 1, not -3"),
        (["arena", "--workers", "0", "--bots", "random"], "'--workers' / '-w': must be at least 1, not 0"),
        (["arena", "--games", "5"], "name the bots with --bots: levels (Beginner, Casual, Skilled, Expert or Master"),
        (["exploit", "--bot", "random", "--rounds", "1"], "'--rounds' / '-r': must be at least 2, not 1"),
        (["exploit", "--bot", "random", "--hands", "0"], "'--hands': must be at least 1, not 0"),
        (["exploit", "--bot", "random", "--lookahead", "-1"], "'--lookahead': must be at least 0, not -1"),
        (["serve", "--port", "70000"], "Invalid value for '--port': must be 0 to 65535, not 70000"),
        (["serve", "--grace", "-1"], "Invalid value for '--grace': must be at least 0, not -1"),
        (["serve", "--reveal-pause", "601"], "--reveal-pause is 0 (no pause) to 600 seconds, not 601"),
        (["serve", "--log-level", "loud"], "--log-level is debug, info, warning or error, not 'loud'"),
        (["play", "--humans", "9"], "--humans is 0 to 4 (the players at the table), not 9"),
        (["play", "--name", "Ann", "--name", "Bo"], "2 names (--name) given for 1 person (--humans): at most one"),
        (["play", "--players", "x"], "Invalid value for '--players' / '-n': must be a whole number, like 3"),
        (["play", "--delay", "soon"], "Invalid value for '--delay': must be a number, like 2.5"),
        (["plya"], "No such command 'plya'. Did you mean 'play'? The commands are scenario, replay, analyse, play"),
        (["bot", "nope"], "No such command 'nope'. The commands are create, list, revoke, connect."),
        (["replay"], "Missing argument 'FILE'. FILE is a game record (JSON) written by liarsdice"),
        (["bot", "connect", "http://x", "--", "mybot"], "Missing option '--token'. --token is the bot account's token"),
    ],
)
def test_a_bad_argument_is_named_with_what_is_allowed(args: list[str], message: str, tmp_path: Path) -> None:
    code, _, err = run(*args, "--record-dir", str(tmp_path)) if args[0] == "play" else run(*args)
    assert code == 2
    assert message in " ".join(err.split()), err
    assert "Missing" in message or "Missing" not in err  # the bad value is named first
    assert not list(tmp_path.iterdir())


# ----- scenario files -----


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"id": "S1", "preset": "perudo"}', "holds one mapping, not a list"),
        ("[1, 2]", "entry 1 of"),
        ("# nothing yet\n", "is empty"),
        ('"perudo"', "holds a string"),
    ],
)
def test_a_scenario_file_that_holds_no_list_of_scenarios_exits_non_zero(
    content: str, message: str, tmp_path: Path
) -> None:
    file = tmp_path / "bad.yaml"  # YAML reads JSON too
    file.write_text(content, encoding="utf-8")
    code, out, err = run("scenario", str(file))
    assert code == 1
    assert out == ""
    assert message in err and "a list of scenarios" in err


def test_a_scenario_that_cannot_be_set_up_is_an_error_line_and_said_on_stderr(tmp_path: Path) -> None:
    # FORMAT.md: the command goes on and exits 0; the line says why
    file = tmp_path / "cases.json"
    file.write_text(json.dumps([{"id": "x", "preset": "nope"}]), encoding="utf-8")
    code, out, err = run("scenario", str(file))
    assert code == 0
    assert json.loads(out)["error"].startswith("unknown preset 'nope'")
    assert "1 of 1 scenarios could not be set up" in err


# ----- serve -----


def test_serve_on_a_port_in_use_says_so_in_one_line(tmp_path: Path) -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        served = subprocess.run(
            [str(LIARSDICE), "serve", "--port", str(port), "--database-url", f"sqlite:///{tmp_path / 'db.sqlite3'}"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert served.returncode == 2
    assert served.stderr == f"error: port {port} on 127.0.0.1 is in use; choose another with --port\n"
    assert served.stdout == ""
    assert not (tmp_path / "db.sqlite3").exists()  # refused before the app started


def test_listen_sockets_names_a_host_that_is_not_here() -> None:
    from liarsdice.server.run import listen_sockets

    with pytest.raises(ValueError, match="choose another address with --host"):
        listen_sockets("no-such-host.invalid", 0)
    sockets = listen_sockets("127.0.0.1", 0)
    try:
        port = sockets[0].getsockname()[1]
        with pytest.raises(ValueError, match=f"port {port} on 127.0.0.1 is in use; choose another with --port"):
            listen_sockets("127.0.0.1", port)
    finally:
        for sock in sockets:
            sock.close()
