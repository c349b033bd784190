"""The terminal shell: demo games, scripted people, hot-seat secrecy, records and the CLI."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from liarsdice.record import load_record, replay
from liarsdice.rules import PRESETS, Bid, BidAction, Game, Options, preset_options
from liarsdice.terminal import every_move, move_summary, run_play, seat_names

LIARSDICE = Path(sys.executable).parent / "liarsdice"


def make_console() -> Console:
    return Console(file=io.StringIO(), width=200, color_system=None, force_terminal=False, legacy_windows=False)


def output(console: Console) -> str:
    assert isinstance(console.file, io.StringIO)
    return console.file.getvalue()


def only_record(directory: Path) -> Path:
    records = sorted(directory.glob("*.json"))
    assert len(records) == 1, records
    return records[0]


def replays(path: Path) -> dict[str, Any]:
    data = load_record(path)
    steps = list(replay(data))
    assert len(steps) == len(data["steps"]) > 0
    return data


class Script:
    """A person who reads the screen: first an unparseable move, then an illegal one, then
    `help` and `moves`, then legal moves taken from what the screen offers."""

    def __init__(self, console: Console, opening: tuple[str, ...] = ("blah blah", "99x9", "help", "moves")) -> None:
        self.console = console
        self.opening = list(opening)
        self.prompts: list[str] = []
        self.moves = 0

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        assert len(self.prompts) < 5000, "the game does not end"
        if prompt == "":
            return ""  # pass-the-device screen: press Enter
        if self.opening:
            return self.opening.pop(0)
        self.moves += 1
        return self.choose(self.offer())

    def offer(self) -> list[str]:
        """The move lines of the last turn screen."""
        text = output(self.console)
        start = max(text.rfind("You may:"), text.rfind("your vote:"))
        assert start >= 0, "no moves were offered"
        lines = []
        for line in text[start:].splitlines()[1:]:
            if not line.startswith("  "):
                break
            lines.append(line.strip())
        return lines

    def choose(self, offered: list[str]) -> str:
        def find(prefix: str) -> str | None:
            return next((line for line in offered if line.startswith(prefix)), None)

        if find("vote:"):
            return "doubt" if self.moves % 2 else "believe"
        bid = find("bid:") or find("claim:")
        challenge = find("challenge ")
        if challenge and (self.moves % 3 == 0 or bid is None):
            return "challenge"
        if find("accuse:") and (self.moves % 3 == 0 or bid is None):
            return "accuse"
        if bid:
            match = re.search(r"(\d+x\d+) or higher", bid)
            assert match, bid
            return match.group(1)
        if find("pass:"):
            return "pass"
        if find("all-in:"):
            return "all-in"
        assert find("fold:"), offered
        return "fold"


# ----- pure pieces -----


def test_seat_names() -> None:
    assert seat_names(0, [], 3) == ["Bot 1", "Bot 2", "Bot 3"]
    assert seat_names(1, [], 3) == ["You", "Bot 1", "Bot 2"]
    assert seat_names(1, ["Ann"], 2) == ["Ann", "Bot 1"]
    assert seat_names(3, ["Ann"], 4) == ["Ann", "Player 2", "Player 3", "Bot 1"]


def test_move_summary_names_the_lowest_bid_on_each_face() -> None:
    game = Game(preset_options("perudo", {"num_players": 2}), ["Ann", "Bob"])
    state = game.position([(1, 2, 3, 4, 5), (6, 6, 6, 6, 6)], starter=1)
    state, _ = state.apply(BidAction(Bid(3, 4)))
    lines = move_summary(state.view(0))
    assert lines[0] == "bid: 3x5 or higher (lowest on each face: 2x1, 4x2, 4x3, 4x4, 3x5, 3x6; at most 10 dice)"
    assert "challenge Bob: call Bob's bid 3x4 a lie" in lines
    assert any(line.startswith("calza: the bid 3x4 is exactly right") for line in lines)
    assert move_summary(state.view(1)) == []  # not Bob's turn
    everything = every_move(state.view(0))
    assert everything[0] == f"{len(state.view(0).legal_actions)} legal moves:"
    assert "challenge Bob" in " ".join(everything) and "exact" in " ".join(everything)


def test_move_summary_in_soar_and_tavern() -> None:
    soar = Game(preset_options("soar", {"num_players": 2}), ["Ann", "Bob"]).position(
        [(2, 2, 3, 3, 3), (1, 1, 1, 1, 1)], starter=0
    )
    lines = move_summary(soar.view(0))
    assert "pass: claim every die in your hand shows one face" in lines
    assert any(line.startswith("push: any 1 to 4 dice of your cup (2 2 3 3 3)") for line in lines)
    assert any("may also push one of" in line for line in every_move(soar.view(0)))
    tavern = Game(preset_options("tavern", {"num_players": 2}), ["Ann", "Bob"]).position(
        [(1, 2, 3), (4, 5, 6)], starter=0, round_no=3, chips=[10, 2]
    )
    tavern, _ = tavern.apply(tavern.view(0).legal_actions[0])
    lines = move_summary(tavern.view(1))
    assert lines[0] == "you cannot meet the bet of 3: you owe 3 and hold 2 chips"
    assert any(line.startswith("all-in: bet all 2 chips and accuse Ann's claim") for line in lines)
    assert lines[-1].startswith("fold:")


# ----- whole games -----


@pytest.mark.parametrize("preset", list(PRESETS))
def test_bots_alone_play_every_preset_to_the_end(preset: str, tmp_path: Path) -> None:
    console = make_console()
    options = PRESETS[preset].build({"num_players": PRESETS[preset].default_players})
    code = run_play(
        preset=preset,
        options=options,
        humans=0,
        names=[],
        bot_level="probability",
        seed=11,
        record_dir=tmp_path,
        console=console,
    )
    assert code == 0
    text = output(console)
    assert "Reveal:" in text and "Final ranking:" in text
    assert "Seed: 11" in text
    record = only_record(tmp_path)
    assert f"Record: {record}" in text
    data = replays(record)
    assert data["result"] is not None and data["seed"] == 11 and data["preset"] == preset
    assert "'s cup" not in text and "Your cup" not in text  # a demo shows no cup before the reveal


def _scripted_game(preset: str, players: int, tmp_path: Path, seed: int) -> tuple[str, Script, dict[str, Any]]:
    console = make_console()
    script = Script(console)
    code = run_play(
        preset=preset,
        options=preset_options(preset, {"num_players": players}),
        humans=1,
        names=[],
        bot_level="random",
        seed=seed,
        record_dir=tmp_path,
        console=console,
        read_line=script,
    )
    assert code == 0
    return output(console), script, replays(only_record(tmp_path))


@pytest.mark.parametrize(
    ("preset", "players", "seed"),
    [("perudo", 3, 1), ("jokers", 3, 2), ("soar", 3, 3), ("tavern", 3, 4), ("red-dead", 2, 5)],
)
def test_a_scripted_person_plays_a_whole_game(preset: str, players: int, seed: int, tmp_path: Path) -> None:
    text, script, data = _scripted_game(preset, players, tmp_path, seed)
    assert "'blah blah' is not an action" in text  # the parser's message
    assert "Not allowed: " in text  # the engine's reason for the illegal move
    assert re.search(r"Not allowed: (99x9 names face 9|a siding vote is under way)", text)
    assert "Moves:" in text and "legal moves:" in text  # help and moves
    assert "Your cup:" in text
    assert "Reveal:" in text and "Final ranking:" in text
    assert data["result"] is not None
    assert script.moves > 0
    people = [s for s in data["steps"] if isinstance(s, dict) and "action" in s and s["seat"] == "You"]
    assert len(people) == script.moves  # every legal move the script typed was played


def test_a_challenge_without_a_target_is_explained_by_the_rules(tmp_path: Path) -> None:
    console = make_console()
    script = Script(console, opening=("challenge", "quit"))
    options = preset_options("classic", {"num_players": 2, "first_starter": 0})
    code = run_play(
        preset="classic",
        options=options,
        humans=1,
        names=["Ann"],
        bot_level="random",
        seed=1,
        record_dir=tmp_path,
        console=console,
        read_line=script,
    )
    assert code == 0
    assert "Not allowed: there is nothing to challenge yet" in output(console)


def test_hot_seat_hides_each_cup_from_the_others(tmp_path: Path) -> None:
    console = make_console()
    script = Script(console, opening=())
    code = run_play(
        preset="perudo",
        options=preset_options("perudo", {"num_players": 3}),
        humans=2,
        names=["Ann", "Bob"],
        bot_level="probability",
        seed=7,
        record_dir=tmp_path,
        console=console,
        read_line=script,
    )
    assert code == 0
    text = output(console)
    assert "Final ranking:" in text
    assert "Your cup" not in text
    segments = text.split("Pass the device to ")
    assert len(segments) > 2
    assert "'s cup:" not in segments[0]
    for segment in segments[1:]:
        holder = segment.split(",", 1)[0]
        assert holder in ("Ann", "Bob")
        cups = re.findall(r"(\w+)'s cup", segment)
        assert set(cups) <= {holder}, f"{cups} shown while the device is with {holder}"
    # every turn screen comes after the device was passed to that person
    turns = re.findall(r"Pass the device to (\w+), press Enter\.\n.*?Round \d+: (\w+) to act", text, re.S)
    assert turns and all(a == b for a, b in turns)
    assert script.prompts.count("") == len(segments) - 1


@pytest.mark.parametrize("stop", ["quit", "eof", "ctrl-c"])
def test_stopping_early_still_writes_a_record(stop: str, tmp_path: Path) -> None:
    console = make_console()

    def read_line(prompt: str) -> str:
        if stop == "eof":
            raise EOFError
        if stop == "ctrl-c":
            raise KeyboardInterrupt
        return "quit"

    code = run_play(
        preset="soar",
        options=preset_options("soar", {"num_players": 3}),
        humans=1,
        names=[],
        bot_level="probability",
        seed=3,
        record_dir=tmp_path,
        console=console,
        read_line=read_line,
    )
    assert code == (130 if stop == "ctrl-c" else 0)
    text = output(console)
    assert "Game stopped (" in text and "Seed: 3" in text
    data = replays(only_record(tmp_path))
    assert data["result"] is None
    assert data["meta"]["stopped"] == {"quit": "quit", "eof": "the input ended", "ctrl-c": "interrupted"}[stop]


def test_bad_settings_are_refused(tmp_path: Path) -> None:
    options: Options = preset_options("classic", {"num_players": 2})
    for kwargs, message in (
        ({"bot_level": "genius"}, "unknown bot level 'genius'"),
        ({"humans": 3}, "between 0 and the 2 players"),
        ({"humans": 2, "names": ["Ann", "ann"]}, "seat names must differ"),
        ({"humans": 1, "names": ["Ann", "Bob"]}, "2 names given for 1 people"),
    ):
        console = make_console()
        settings = {"humans": 0, "names": [], "bot_level": "random", **kwargs}
        code = run_play(preset="classic", options=options, seed=1, record_dir=tmp_path, console=console, **settings)  # type: ignore[arg-type]
        assert code == 2
        assert message in output(console)
    assert not list(tmp_path.iterdir())


# ----- the command line -----


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LIARSDICE), *args], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def test_cli_plays_and_replays(tmp_path: Path) -> None:
    played = _cli(
        "play", "--preset", "perudo", "--players", "3", "--humans", "0", "--seed", "5", "--record-dir", str(tmp_path)
    )
    assert played.returncode == 0, played.stderr
    assert "Final ranking:" in played.stdout and "Seed: 5" in played.stdout
    record = only_record(tmp_path)
    assert record.name.endswith("-perudo-5.json")
    replayed = _cli("replay", str(record))
    assert replayed.returncode == 0, replayed.stderr
    assert "Final ranking:" in replayed.stdout


@pytest.mark.parametrize("level", ["strong", "cfr"])
def test_cli_plays_against_every_bot_level(level: str, tmp_path: Path) -> None:
    played = _cli(
        "play",
        "--preset",
        "perudo",
        "--players",
        "2",
        "--humans",
        "0",
        "--bots",
        level,
        "--seed",
        "3",
        "--record-dir",
        str(tmp_path),
    )
    assert played.returncode == 0, played.stderr
    assert "Final ranking:" in played.stdout
    assert _cli("replay", "--check", str(only_record(tmp_path))).returncode == 0


def test_play_help_names_every_bot_level() -> None:
    from liarsdice.bots import BOT_LEVELS

    shown = _cli("play", "--help")
    assert shown.returncode == 0
    text = " ".join(shown.stdout.split())
    assert all(level in text for level in BOT_LEVELS), text


def test_cli_person_quits_through_stdin(tmp_path: Path) -> None:
    played = _cli(
        "play",
        "--preset",
        "classic",
        "--players",
        "2",
        "--seed",
        "1",
        "--record-dir",
        str(tmp_path),
        stdin="help\nquit\n",
    )
    assert played.returncode == 0, played.stderr
    assert "Moves:" in played.stdout and "Game stopped (quit)" in played.stdout
    assert _cli("replay", "--check", str(only_record(tmp_path))).returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "nope"], "unknown preset 'nope'"),
        (["--bots", "nope"], "unknown bot level 'nope'"),
        (["--humans", "9"], "--humans must be between 0 and"),
        (["--preset", "perudo", "--players", "9"], "perudo is played by 2 to 6 players"),
    ],
)
def test_cli_refuses_bad_arguments(args: list[str], message: str, tmp_path: Path) -> None:
    result = (
        _cli("play", *args, "--humans", "0", "--record-dir", str(tmp_path))
        if "--humans" not in args
        else _cli("play", *args, "--record-dir", str(tmp_path))
    )
    assert result.returncode != 0
    assert message in result.stderr
    assert not list(tmp_path.iterdir())
