"""One game in the terminal: the seats, the bots, the game played through `match.play_game`, and
its record, also when a person stops it."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.text import Text

from ..bots.base import Bot
from ..match import BotError, close_all, default_record_path, new_recorder, play_game
from ..paths import records_dir
from ..players import make_bot
from ..record import prepare_record_dir
from ..rules import Game, Options, OptionsError, find_preset
from ..text import plural, stop_message
from .narrator import Narrator, Sleep
from .person import Person
from .screen import QuitGame, ReadLine, Screen

if TYPE_CHECKING:
    from ..botproto.driver import ExecSettings

WATCH_DELAY = 2.0
"""Seconds a reveal stays on screen when only bots are left to play (`--delay`): long enough to
read four cups and the count."""


def seat_names(humans: int, names: Sequence[str], num_players: int) -> list[str]:
    """People first (their names, else "You" alone or "Player 1".. for several), then bots."""
    people = [names[i] if i < len(names) else ("You" if humans == 1 else f"Player {i + 1}") for i in range(humans)]
    return people + [f"Bot {i + 1}" for i in range(num_players - humans)]


def _bot_seed(seed: int, seat: int) -> int:
    """Each bot's own stream, apart from the dealer's `Random(seed)`."""
    return seed * 1000 + seat + 1


def run_play(
    *,
    preset: str,
    options: Options,
    humans: int,
    names: list[str],
    bot_level: str | Sequence[str],
    seed: int,
    record_dir: Path | None,
    console: Console | None = None,
    read_line: ReadLine | None = None,
    delay: float | None = None,
    sleep: Sleep = time.sleep,
    bot_settings: ExecSettings | None = None,
) -> int:
    """Play one game in the terminal and write its record; the exit code (0 also when a person
    stops the game, 130 on Ctrl-C, 2 for bad settings, 1 if a bot fails or the record cannot be
    written). `delay` is the pause after a reveal once only bots play (None: WATCH_DELAY when
    the output is a terminal, none when it goes to a file or a pipe)."""
    errors = console or Console(stderr=True)
    console = console or Console()

    def fail(message: str) -> int:
        errors.print(Text(f"error: {message}", style="red"))
        return 2

    n = options.num_players
    if not 0 <= humans <= n:
        return fail(f"the number of people must be between 0 and the {n} players, not {humans}")
    if len(names) > humans:
        return fail(f"{plural(len(names), 'name')} given for {plural(humans, 'person', 'people')}: at most one each")
    # One bot (a level or exec:COMMAND) per bot seat; the last one listed fills the seats left.
    specs = [bot_level] if isinstance(bot_level, str) else list(bot_level)
    if len(specs) > max(1, n - humans):
        return fail(
            f"{plural(len(specs), 'bot')} listed for {plural(n - humans, 'bot seat')}: list at most one per seat"
        )
    levels = [specs[min(i, len(specs) - 1)] for i in range(n - humans)]
    try:
        game = Game(options, seat_names(humans, names, n))
    except OptionsError as e:
        return fail(str(e))
    if delay is None:
        delay = WATCH_DELAY if console.is_terminal else 0.0
    if not delay >= 0:
        return fail(f"the delay after a reveal is a number of seconds, 0 or more, not {delay}")
    directory = record_dir if record_dir is not None else records_dir()
    try:
        prepare_record_dir(directory)
    except OSError as e:
        # found now, not after a game whose record would then be lost
        return fail(f"cannot write game records in {directory}: {e.strerror or e} (--record-dir chooses another)")
    # Made last, after every check: a program started here is closed by play_game (or below).
    bots: list[Bot] = []
    try:
        for seat, level in zip(range(humans, n), levels, strict=True):
            bots.append(make_bot(level, _bot_seed(seed, seat), settings=bot_settings))
    except ValueError as e:
        close_all(bots)
        return fail(str(e))
    screen = Screen(console, game, preset, range(humans), read_line)
    narrator = Narrator(screen, delay, sleep)
    agents = [Person(seat, screen) for seat in range(humans)] + bots
    players: list[dict[str, Any]] = [{"name": game.seats[s], "kind": "person"} for s in range(humans)] + [
        {"name": game.seats[s], "kind": "bot", "level": levels[s - humans]} for s in range(humans, n)
    ]
    title = preset
    with contextlib.suppress(OptionsError):
        title = find_preset(preset).title
    console.rule(Text(f"Liar's Dice: {title}"))
    screen.say(f"At the table: {', '.join(game.seats)}.")
    if humans:
        screen.say("Type help at your turn for the rules and the moves.", "dim")

    code = 0
    stopped: str | None = None
    stopper: int | None = None
    by_person = False
    recorder = new_recorder(game, seed=seed, preset=preset, players=players)
    try:
        play_game(game, agents, seed=seed, observer=narrator.observe, recorder=recorder)
    except QuitGame as e:
        stopped, code, stopper, by_person = str(e), e.code, e.seat, True
    except KeyboardInterrupt:
        stopped, code, by_person = "interrupted", 130, True
    except BotError as e:
        screen.say(f"error: {e}", "red")
        stopped, code = "a bot failed", 1
    moves = sum(1 for step in recorder.data["steps"] if "action" in step)
    if stopped is not None:
        meta = recorder.data["meta"]
        meta["stopped"] = stopped
        if stopper is not None:
            meta["stopped_by"] = game.seats[stopper]
        meta["stopped_at"] = datetime.now(UTC).isoformat(timespec="seconds")
        who = game.seats[stopper] if stopper is not None else None
        screen.say(stop_message(stopped, who, moves), "bold")
    if by_person and not moves:
        # a deal nobody bid on is not worth a file in the records folder (a bot that failed at
        # its first move is: its record says how)
        screen.say("Nobody moved, so no record is written.")
        screen.say(f"Seed: {seed}")
        return code
    path = default_record_path(preset, seed, directory)
    try:
        path = recorder.write_new(path)
    except OSError as e:
        screen.say(f"error: cannot write the record {path}: {e.strerror or e}", "red")
        return 1
    screen.say(f"Seed: {seed}")
    console.print(Text(f"Record: {path}"), soft_wrap=True, highlight=False)
    return code
