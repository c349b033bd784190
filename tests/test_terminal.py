"""The terminal shell: demo games, scripted people, hot-seat secrecy, records and the CLI."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from liarsdice.record import load_record, replay
from liarsdice.rules import PRESETS, Bid, BidAction, Game, Options, preset_options
from liarsdice.terminal import (
    REVEAL_PROMPT,
    bet_status,
    every_move,
    move_summary,
    move_syntax,
    read_move,
    rules_summary,
    run_play,
    seat_names,
)

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


def play(
    console: Console,
    record_dir: Path,
    preset: str,
    overrides: dict[str, Any],
    *,
    seed: int,
    humans: int = 1,
    names: Sequence[str] = (),
    bots: str = "random",
    **settings: Any,
) -> int:
    """`run_play` at a preset's table, one person and random bots unless told otherwise."""
    return run_play(
        preset=preset,
        options=preset_options(preset, overrides),
        humans=humans,
        names=list(names),
        bot_level=bots,
        seed=seed,
        record_dir=record_dir,
        console=console,
        **settings,
    )


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
        if prompt in ("", REVEAL_PROMPT) or "type skip" in prompt:
            return ""  # pass-the-device screen, a reveal, or the offer to skip once out: press Enter
        if self.opening:
            return self.opening.pop(0)
        self.moves += 1
        return self.choose(self.offer())

    def offer(self) -> list[str]:
        """The move lines of the last turn screen."""
        text = output(self.console)
        start = max(text.rfind("You may:"), text.rfind("Your vote"))
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
    # in rising order: two ones rank above four sixes
    lowest = "3x5, 3x6, 4x2, 4x3, 4x4, 2x1"
    assert lines[0] == f"bid: 3x5 or higher (the lowest on each face, lowest first: {lowest}; at most 10 dice)"
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
    assert lines[0].startswith("all-in: bet all your 2 chips and accuse Ann's claim")
    assert lines[-1].startswith("fold:")
    # meeting the bet is not a move of its own: the status says what is owed
    assert (
        bet_status(tavern.view(1)) == "The bet is 3; you hold 2 chips and owe 3, more than you hold: go all-in or fold."
    )


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
    code = play(console, tmp_path, preset, {"num_players": players}, seed=seed, read_line=script)
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
    code = play(
        console, tmp_path, "classic", {"num_players": 2, "first_starter": 0}, seed=1, names=["Ann"], read_line=script
    )
    assert code == 0
    assert "Not allowed: there is nothing to challenge yet" in output(console)


def test_hot_seat_hides_each_cup_from_the_others(tmp_path: Path) -> None:
    console = make_console()
    script = Script(console, opening=())
    code = play(
        console,
        tmp_path,
        "perudo",
        {"num_players": 3},
        seed=7,
        humans=2,
        names=["Ann", "Bob"],
        bots="probability",
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


class StopsAfterAMove(Script):
    """Plays one move, then stops at its next turn: types quit, ends the input, or presses Ctrl-C."""

    def __init__(self, console: Console, stop: str) -> None:
        super().__init__(console, opening=())
        self.stop = stop

    def __call__(self, prompt: str) -> str:
        if self.moves and prompt == "You> ":
            if self.stop == "eof":
                raise EOFError
            if self.stop == "ctrl-c":
                raise KeyboardInterrupt
            return "quit"
        return super().__call__(prompt)


@pytest.mark.parametrize("stop", ["quit", "eof", "ctrl-c"])
def test_stopping_early_still_writes_a_record(stop: str, tmp_path: Path) -> None:
    console = make_console()
    script = StopsAfterAMove(console, stop)
    code = play(console, tmp_path, "soar", {"num_players": 3}, seed=3, bots="probability", read_line=script)
    assert code == (130 if stop == "ctrl-c" else 0)
    text = output(console)
    assert "Seed: 3" in text
    data = replays(only_record(tmp_path))
    assert data["result"] is None
    assert data["meta"]["stopped"] == {"quit": "quit", "eof": "the input ended", "ctrl-c": "interrupted"}[stop]
    assert data["meta"]["stopped_by"] == "You" and data["meta"]["stopped_at"] >= data["meta"]["started"]
    moves = sum(1 for step in data["steps"] if "action" in step)
    assert moves > 1  # the person's move and the bots'
    said = {
        "quit": f"You quit the game after {moves} moves.",
        "eof": f"The input ended, so the game stopped after {moves} moves.",
        "ctrl-c": f"The game was interrupted (Ctrl-C) after {moves} moves.",
    }[stop]
    assert said in text
    assert "Game stopped (" not in text and " steps" not in text  # the engine's words, not a player's


def test_a_game_stopped_before_any_move_leaves_no_record(tmp_path: Path) -> None:
    console = make_console()
    code = play(
        console, tmp_path, "classic", {"num_players": 2, "first_starter": 0}, seed=1, read_line=lambda p: "quit"
    )
    assert code == 0
    text = output(console)
    assert "You quit the game before anyone moved." in text
    assert "no record is written" in text and "Record:" not in text and "Seed: 1" in text
    assert not list(tmp_path.iterdir())


def test_the_rules_summary_counts_one_die_and_one_chip_in_the_singular() -> None:
    lines = rules_summary("perudo", preset_options("perudo", {"num_players": 2, "dice_per_player": 1}))
    assert "2 players, 1 die each, dice with faces 1 to 6." in lines
    tavern = preset_options("tavern", {"num_players": 2, "economy": {"min_bet": 1}})
    chips = next(line for line in rules_summary("tavern", tavern) if line.startswith("Chips:"))
    assert "the bet starts at 1 chip;" in chips
    assert "2 players, 3 dice each" in " ".join(
        rules_summary("perudo", preset_options("perudo", {"num_players": 2, "dice_per_player": 3}))
    )


def test_bad_settings_are_refused(tmp_path: Path) -> None:
    options: Options = preset_options("classic", {"num_players": 2})
    for kwargs, message in (
        ({"bot_level": "genius"}, "unknown bot level 'genius'"),
        ({"humans": 3}, "between 0 and the 2 players"),
        ({"humans": 2, "names": ["Ann", "ann"]}, "seat names must differ"),
        ({"humans": 1, "names": ["Ann", "Bob"]}, "2 names given for 1 person: at most one each"),
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
        "play",
        "--preset",
        "perudo",
        "--players",
        "3",
        "--humans",
        "0",
        "--delay",
        "0",
        "--seed",
        "5",
        "--record-dir",
        str(tmp_path),
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
        "--delay",
        "0",
        "--seed",
        "3",
        "--record-dir",
        str(tmp_path),
    )
    assert played.returncode == 0, played.stderr
    assert "Final ranking:" in played.stdout
    assert _cli("replay", "--check", str(only_record(tmp_path))).returncode == 0


def test_play_help_and_presets_show_every_level_whole() -> None:
    from liarsdice.levels import LADDER

    for args in (("play", "--help"), ("presets",), ("presets", "soar")):
        shown = _cli(*args)
        assert shown.returncode == 0, shown.stderr
        text = " ".join(shown.stdout.split())
        assert all(level.sentence in text for level in LADDER), (args, text)
        # strongest first, the default said, the older names beside their level
        places = [text.index(f"{level.name} (") if level.aliases else text.index(level.sentence) for level in LADDER]
        assert places == sorted(places, reverse=True), args
        assert "Master (the default; also duel)" in text and "Skilled (also probability)" in text


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
    assert "Moves:" in played.stdout and "You quit the game before anyone moved." in played.stdout
    assert not list(tmp_path.iterdir())  # nothing was played: no record
    played = _cli(
        "play", "--preset", "classic", "--players", "2", "--seed", "1", "--record-dir", str(tmp_path), stdin="1x2\n"
    )
    assert played.returncode == 0, played.stderr
    assert re.search(r"The input ended, so the game stopped after \d+ moves?\.", played.stdout), played.stdout
    assert _cli("replay", "--check", str(only_record(tmp_path))).returncode == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--preset", "nope"], "unknown preset 'nope'"),
        (["--bots", "nope"], "unknown bot level 'nope'"),
        (["--humans", "9"], "--humans is 0 to 4 (the players at the table), not 9"),
        (["--preset", "perudo", "--players", "9"], "perudo is played by 2 to 6 players"),
        (["--delay", "-1"], "--delay is 0 (no pause) to 3600 seconds, not -1"),
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


# ----- issue 7: typing what the screen offers (13), hot-seat scrollback (14), reveals (15), messages (16) -----


def _view_at(preset: str, players: int, *moves: str, seat_count_humans: int = 1) -> Any:
    """The view of the seat to act after `moves`, seats named as `play` names them."""
    options = preset_options(preset, {"num_players": players})
    game = Game(options, seat_names(seat_count_humans, [], players))
    dice = options.dice_per_player if isinstance(options.dice_per_player, int) else options.dice_per_player[0]
    hands = [tuple((seat + i) % options.faces + 1 for i in range(dice)) for seat in range(players)]
    state = game.position(hands, starter=0)
    for move in moves:
        state, _ = state.apply_text(move)
    assert state.to_act is not None
    return state.view(state.to_act)


def _typed_examples(line: str) -> list[str]:
    """What a line of the move list tells a person to type."""
    head = line.split(":", 1)[0]
    bid = re.search(r"\d+x\d+", line)
    if head in ("bid", "claim"):
        assert bid, line
        return [bid.group(0)]
    if head == "raise":
        low = re.search(r"N from (\d+)", line)
        assert low, line
        claim = "1x1"
        return [f"{claim} raise {low.group(1)}"] + ([f"accuse raise {low.group(1)}"] if "accuse" in line else [])
    if head == "push":
        example = re.search(r"e\.g\. (.+)$", line)
        assert example, line
        return [example.group(1)]
    if head == "vote":
        return ["believe", "doubt"]
    return [head]


@pytest.mark.parametrize(
    ("preset", "players", "moves"),
    [
        ("perudo", 3, ("2x3",)),
        ("soar", 3, ("2x3",)),
        ("jokers", 3, ("2x3", "challenge")),
        ("tavern", 3, ()),
        ("tavern", 3, ("1x2",)),
        ("tavern", 3, ("1x2 raise 3",)),
        ("classic", 2, ("1x4",)),
    ],
)
def test_every_entry_of_the_move_list_can_be_typed_as_shown(preset: str, players: int, moves: tuple[str, ...]) -> None:
    view = _view_at(preset, players, *moves)
    lines = move_summary(view)
    assert lines
    for line in lines:
        for typed in _typed_examples(line):
            read_move(typed, view)  # InvalidText if the screen offers what cannot be typed
    assert not any(line.startswith("meet") for line in lines)  # meeting the bet is no move of its own


def test_accuse_with_a_raise_is_typed_as_the_moves_say(tmp_path: Path) -> None:
    view = _view_at("tavern", 3, "1x2")
    raise_line = next(line for line in move_summary(view) if line.startswith("raise:"))
    assert "'raise N' to a claim or accuse" in raise_line
    assert read_move("accuse raise 4", view) == read_move("accuse 4", view)

    console = make_console()

    class RaisingAccuser(Script):
        """Accuses with the lowest raise, typed as the move list says, whenever it may."""

        def __init__(self, console: Console) -> None:
            super().__init__(console, opening=())
            self.raised: list[int] = []

        def choose(self, offered: list[str]) -> str:
            raises = next((line for line in offered if line.startswith("raise:") and "accuse" in line), None)
            low = re.search(r"N from (\d+)", raises or "")
            if low and any(line.startswith("accuse:") for line in offered):
                self.raised.append(int(low.group(1)))
                return f"accuse raise {low.group(1)}"
            return super().choose(offered)

    script = RaisingAccuser(console)
    code = play(console, tmp_path, "tavern", {"num_players": 3}, seed=4, read_line=script)
    assert code == 0
    text = output(console)
    assert script.raised, "the game never offered an accusation with a raise"
    assert "is not an amount" not in text and "is not an action" not in text
    accusations = [
        s["action"] for s in replays(only_record(tmp_path))["steps"] if s.get("seat") == "You" and "action" in s
    ]
    assert [a for a in accusations if a[0] == "accuse"] == [["accuse", {"raise_to": n}] for n in script.raised]


def _help_moves(preset: str, players: int, tmp_path: Path) -> tuple[list[tuple[str, str]], str]:
    """The Moves section of `help`, as (what to type, what it does), and the whole screen."""
    console = make_console()
    code = play(
        console, tmp_path, preset, {"num_players": players}, seed=1, read_line=Script(console, opening=("help", "quit"))
    )
    assert code == 0
    text = output(console)
    section = text[text.index("Moves:\n") + len("Moves:\n") : text.index("Commands:")]
    rows = [re.split(r"\s{2,}", line.strip(), maxsplit=1) for line in section.splitlines() if line.startswith("  ")]
    return [(row[0], row[1]) for row in rows], text


@pytest.mark.parametrize("preset", list(PRESETS))
def test_help_offers_only_the_moves_of_the_table_each_as_typed(preset: str, tmp_path: Path) -> None:
    players = 2 if preset == "openspiel" else 3
    moves, _ = _help_moves(preset, players, tmp_path)
    typed = [t for t, _ in moves]
    assert typed == [t for t, _ in move_syntax(preset_options(preset, {"num_players": players}), "Bot 1")]
    o = preset_options(preset, {"num_players": players})
    words = {w for t in typed for w in t.replace(",", " ").split()}
    lacking: set[str] = set()
    if o.economy is None:
        lacking |= {"accuse", "raise", "all-in", "fold"}
    else:
        lacking |= {"challenge", "bid"}
    if o.pass_rule == "none":
        lacking.add("pass")
    if not o.push:
        lacking.add("push")
    if o.exact == "none":
        lacking |= {"exact", "calza", "spot-on"}
    if o.challenge_mode != "siding_vote":
        lacking |= {"believe", "doubt"}
    assert not words & lacking, f"help offers {words & lacking} at a {preset} table"
    view = _view_at(preset, players)
    for text in typed:
        read_move(text, view)  # InvalidText if help offers what cannot be typed


def test_an_unknown_move_is_answered_with_the_moves_of_the_table(tmp_path: Path) -> None:
    console = make_console()
    code = play(
        console,
        tmp_path / "perudo",
        "perudo",
        {"num_players": 2, "first_starter": 0},
        seed=1,
        read_line=Script(console, opening=("blah blah", "believe", "accuse", "quit")),
    )
    assert code == 0
    text = " ".join(output(console).split())
    assert "'blah blah' is not an action: type a bid like 3x5, challenge or calza (help shows them all)" in text
    assert "there is no vote at this table: type a bid like 3x5, challenge or calza" in text
    assert "there is no betting at this table" in text
    assert "believe/doubt" not in text and " pass" not in text

    console = make_console()
    code = play(
        console,
        tmp_path / "tavern",
        "tavern",
        {"num_players": 2, "first_starter": 0},
        seed=1,
        read_line=Script(console, opening=("blah", "challenge", "quit")),
    )
    assert code == 0
    text = " ".join(output(console).split())
    assert "'blah' is not an action: type a claim like 3x5, accuse, all-in or fold" in text
    assert "there is no challenge (you accuse a claim) at this table" in text


def test_the_bid_hint_lists_the_lowest_bid_of_each_face_in_rising_order() -> None:
    soar = _view_at("soar", 2)
    # the 1s are wild: one 1 ranks above two sixes, so it is no lower than 1x2
    assert move_summary(soar)[0] == (
        "bid: 1x2 or higher (the lowest on each face, lowest first: 1x2, 1x3, 1x4, 1x5, 1x6, 1x1; at most 10 dice)"
    )
    for preset, moves in (("jokers", ("3x5",)), ("perudo", ("3x4",)), ("tavern", ("2x3",)), ("classic", ("2x2",))):
        view = _view_at(preset, 3, *moves)
        line = move_summary(view)[0]
        listed = re.findall(r"\d+x\d+", line.split("lowest first:", 1)[1])
        ladder = [str(b) for b in view.legal.bids]
        assert listed[0] == ladder[0] and line.startswith(("bid: ", "claim: ")) and f"{ladder[0]} or higher" in line
        positions = [ladder.index(b) for b in listed]
        assert positions == sorted(positions), line
        assert listed == [
            next(b for b in ladder if b.endswith(f"x{face}")) for face in (b.split("x")[1] for b in listed)
        ]


def test_hot_seat_clears_the_scrollback_before_the_device_is_passed(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setenv("TERM", "xterm-256color")
    console = Console(file=io.StringIO(), width=200, color_system=None, force_terminal=True, legacy_windows=False)
    script = Script(console, opening=())
    code = play(
        console,
        tmp_path,
        "perudo",
        {"num_players": 3},
        seed=7,
        humans=2,
        names=["Ann", "Bob"],
        bots="probability",
        read_line=script,
    )
    assert code == 0
    text = output(console)
    passes = [m.start() for m in re.finditer("Pass the device to ", text)]
    assert len(passes) > 2
    for at in passes:
        cup = text.rfind("'s cup:", 0, at)
        wiped = text.rfind("\x1b[3J", 0, at)  # ED 3: the saved lines, which a plain clear leaves
        assert wiped > cup, "a cup is still in the scrollback when the device is passed"
        assert text.rfind("\x1b[2J", 0, at) > cup  # and the screen itself


def _outcomes(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in data["rounds"] if not r["game_over"]]


def test_a_reveal_waits_for_enter_while_a_person_plays_then_the_delay(tmp_path: Path) -> None:
    console = make_console()
    script = Script(console, opening=())
    sleeps: list[float] = []
    code = play(
        console,
        tmp_path,
        "perudo",
        {"num_players": 3},
        seed=2,
        bots="probability",
        read_line=script,
        delay=0.5,
        sleep=sleeps.append,
    )
    assert code == 0
    rounds = _outcomes(replays(only_record(tmp_path)))
    with_you = [r for r in rounds if "You" in r["dice_after"] and "You" not in r["out"]]
    assert with_you and len(with_you) < len(rounds), "the test wants You out before the end"
    assert script.prompts.count(REVEAL_PROMPT) == len(with_you)
    assert sleeps == [0.5] * (len(rounds) - len(with_you))
    text = output(console)
    assert text.count("Reveal:") == len(rounds) + 1  # the last reveal ends the game: no pause


class Skips(Script):
    """Plays as Script does, and answers the offer to skip, once out, with `answer`."""

    def __init__(self, console: Console, answer: str) -> None:
        super().__init__(console, opening=())
        self.answer = answer
        self.offers: list[str] = []

    def __call__(self, prompt: str) -> str:
        if "type skip" in prompt:
            self.offers.append(prompt)
            return self.answer
        return super().__call__(prompt)


def test_once_out_a_person_may_skip_the_bots_rounds_to_the_final_ranking(tmp_path: Path) -> None:
    console = make_console()
    script = Skips(console, "skip")
    sleeps: list[float] = []
    code = play(
        console,
        tmp_path / "skip",
        "perudo",
        {"num_players": 3},
        seed=2,
        bots="probability",
        read_line=script,
        delay=0.5,
        sleep=sleeps.append,
    )
    assert code == 0
    assert script.offers == [
        "You are out. Press Enter to watch the bots play on (a round every 0.5 s), "
        "or type skip for the final ranking now. "
    ]
    assert sleeps == []  # the rest is played at once
    data = replays(only_record(tmp_path / "skip"))
    assert data["result"] is not None  # played to the end all the same
    with_you = [r for r in data["rounds"] if "You" in r["dice_after"] and "You" not in r["out"]]
    shown = len(with_you) + 1  # and the round You went out in
    skipped = len(data["rounds"]) - shown
    assert skipped > 1
    text = output(console)
    assert text.count("Reveal:") == shown
    assert f"The bots played {skipped} more rounds." in text and "Final ranking:" in text

    # Enter watches the bots, a round every `delay`; with no delay there is nothing to skip
    for answer, delay in (("", 0.5), (None, 0.0)):
        console = make_console()
        watcher = Skips(console, answer or "")
        sleeps = []
        folder = tmp_path / f"watch-{delay}"
        code = play(
            console,
            folder,
            "perudo",
            {"num_players": 3},
            seed=2,
            bots="probability",
            read_line=watcher,
            delay=delay,
            sleep=sleeps.append,
        )
        assert code == 0
        assert len(watcher.offers) == (1 if delay else 0)
        assert output(console).count("Reveal:") == len(replays(only_record(folder))["rounds"])
        assert sleeps == ([delay] * skipped if delay else [])


def test_bots_alone_wait_the_delay_after_each_reveal(tmp_path: Path) -> None:
    sleeps: list[float] = []
    code = play(make_console(), tmp_path, "soar", {"num_players": 3}, seed=3, humans=0, delay=1.5, sleep=sleeps.append)
    assert code == 0
    assert sleeps == [1.5] * len(_outcomes(replays(only_record(tmp_path))))
    assert sleeps


def test_quit_at_a_reveal_stops_the_game(tmp_path: Path) -> None:
    console = make_console()

    class QuitsAtTheReveal(Script):
        def __call__(self, prompt: str) -> str:
            return "quit" if prompt == REVEAL_PROMPT else super().__call__(prompt)

    code = play(
        console, tmp_path, "classic", {"num_players": 2}, seed=1, read_line=QuitsAtTheReveal(console, opening=())
    )
    assert code == 0
    assert re.search(r"You quit the game after \d+ moves\.", output(console))
    data = replays(only_record(tmp_path))
    assert len(data["rounds"]) == 1 and data["result"] is None


def test_an_unwritable_record_dir_is_refused_before_the_game(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    console = make_console()
    code = play(console, blocker / "records", "classic", {"num_players": 2}, seed=1, humans=0)
    assert code == 2
    text = output(console)
    assert f"error: cannot write game records in {blocker / 'records'}" in " ".join(text.split())
    assert "At the table" not in text and "Reveal:" not in text
    played = _cli("play", "--humans", "0", "--delay", "0", "--record-dir", str(blocker / "records"))
    assert played.returncode == 2
    assert "cannot write game records in" in played.stderr and "Reveal:" not in played.stdout


def test_games_under_the_same_name_keep_their_own_records(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import liarsdice.terminal.play

    # as three games with the same seed ending in the same second would be named
    monkeypatch.setattr(liarsdice.terminal.play, "default_record_path", lambda preset, seed, d: d / "game.json")
    written = []
    for _ in range(3):
        console = make_console()
        code = play(console, tmp_path, "classic", {"num_players": 2}, seed=9, humans=0)
        assert code == 0
        written.append(re.findall(r"Record: (.+)", output(console))[0])
    assert written == [str(tmp_path / name) for name in ("game.json", "game-2.json", "game-3.json")]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game-2.json", "game-3.json", "game.json"]
    for name in written:
        assert replays(Path(name))["result"] is not None


def test_you_is_addressed_in_the_second_person(tmp_path: Path) -> None:
    from liarsdice.record import replay_text
    from liarsdice.rules import Fold
    from liarsdice.text import describe_outcome

    game = Game(preset_options("tavern", {"num_players": 3}), ["You", "Bo", "Cy"])
    state = game.position([(1, 2, 3), (4, 5, 6), (1, 1, 1)], starter=0)
    state, _ = state.apply_text("1x2")
    state, _ = state.apply(Fold())
    state, events = state.apply(Fold())
    outcome = next(e.outcome for e in events if hasattr(e, "outcome"))
    lines = describe_outcome(outcome, game.seats, game.options)
    assert "Everyone else folded: You are the last one in." in lines
    assert "Pot 1: You take 0, 1 to the running pot." in lines

    poor = Game(preset_options("tavern", {"num_players": 2}), ["You", "Bo"]).position(
        [(1, 2, 3), (4, 5, 6)], starter=1, round_no=3, chips=[1, 10]
    )
    poor, _ = poor.apply_text("1x2")
    assert any(line.startswith("all-in: bet all your 1 chip and accuse") for line in move_summary(poor.view(0)))
    assert bet_status(poor.view(0)) == "The bet is 3; you hold 1 chip and owe 3, more than you hold: go all-in or fold."

    console = make_console()
    play(
        console,
        tmp_path,
        "classic",
        {"num_players": 2, "first_starter": 0},
        seed=1,
        read_line=Script(console, opening=("1x2", "quit")),
    )
    text = output(console)
    assert "You open." in text and "Your turn. You may:" in text and "Your turn, You" not in text
    assert "Round 1, You open." in "\n".join(replay_text(load_record(only_record(tmp_path))))


def test_help_shows_no_type_after_a_flag() -> None:
    for command in ([], ["play"], ["replay"]):
        shown = _cli(*command, "--help")
        assert shown.returncode == 0, shown.stderr
        assert "--help" in shown.stdout
        assert "<bool>" not in shown.stdout, shown.stdout
    assert "--check" in _cli("replay", "--help").stdout
    assert "--delay" in _cli("play", "--help").stdout


# ----- the odds panel -----


def test_odds_shows_the_odds_modules_numbers_for_the_view() -> None:
    from liarsdice.odds import odds, shown
    from liarsdice.terminal.screen import Screen

    game = Game(preset_options("perudo", {"num_players": 3}))
    state = game.position([(1, 5, 2, 3, 4), (2, 2, 2, 2, 2), (3, 3, 3, 3, 3)], starter=2)
    state, _ = state.apply(BidAction(Bid(4, 3)))
    view = state.view(0)
    console = make_console()
    screen = Screen(console, game, "perudo", [0], None)
    screen.toggle_odds(view)
    text = output(console)
    panel = odds(view)
    assert panel is not None and panel.standing is not None and panel.bids
    lines = text.splitlines()
    assert lines[0].startswith("Odds (")
    assert lines[1] == (
        f"  Standing bid 4x3 holds: {shown(panel.standing.at_least)}"
        f"   exactly right (calza): {shown(panel.standing.exactly)}"
    )
    cells = re.findall(r"(\d+x\d+) (\S+%)", "\n".join(lines[2:-1]))
    assert cells == [(str(r.bid), shown(r.at_least)) for r in panel.bids]
    assert lines[2].startswith("  Your next bid: 4x4 ") and lines[-1] == "  How: " + panel.standing.how()
    # the lowest bid on each face and two above it, faces in the order of their lowest bid
    lowest_first = "4x4 5x4 6x4 4x5 5x5 6x5 4x6 5x6 6x6 2x1 3x1 4x1 5x2 6x2 7x2 5x3 6x3 7x3"
    assert " ".join(str(r.bid) for r in panel.bids) == lowest_first
    screen.toggle_odds(view)
    assert output(console).endswith("Odds hidden (type odds to show them again).\n")


class OddsScript(Script):
    """A person who opens the odds panel at their first turn and plays on with it open."""

    def __init__(self, console: Console, opening: tuple[str, ...] = ("odds", "help")) -> None:
        super().__init__(console, opening)


@pytest.mark.parametrize(("preset", "players"), [("perudo", 3), ("soar", 3), ("jokers", 3), ("tavern", 3)])
def test_a_person_plays_a_whole_game_with_the_odds_open(preset: str, players: int, tmp_path: Path) -> None:
    console = make_console()
    script = OddsScript(console)
    code = play(console, tmp_path, preset, {"num_players": players}, seed=5, read_line=script)
    assert code == 0
    text = output(console)
    assert "odds                show or hide the odds" in text  # in help
    screens = re.split(r"─+ Round \d+: You to (?:act|vote) ─+", text)[2:]  # the turns after the first
    assert screens and script.moves > 0
    for screen in screens:
        turn = screen.split("You may:")[0].split("Your vote")[0]
        assert "Odds (your cup and the pushed dice are known" in turn and "  How: " in turn, turn


def test_odds_typed_again_hides_the_panel(tmp_path: Path) -> None:
    console = make_console()
    script = OddsScript(console, opening=("odds", "o"))
    assert play(console, tmp_path, "classic", {"num_players": 2}, seed=2, read_line=script) == 0
    text = output(console)
    assert text.count("Odds (your cup") == 1 and "Odds hidden" in text
