"""Play in the terminal: people at this keyboard against bots, hot-seat, or bots alone as a demo.

The rules engine and `match.play_game` run the game; this module is the shell around them. People
are agents whose `act` shows the table (through their `PlayerView`) and reads a typed move, and
whose `refused` prints the engine's reason before they are asked again. An observer prints every
move as it happens, the reveal at the end of each round and the final ranking, and keeps the
steps so that a game stopped after some moves still leaves a record. Once the people at the
keyboard are out, they may skip the bots' remaining rounds straight to the final ranking.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from .bots.base import Bot, Limit
from .match import BotError, close_all, default_record_path, new_recorder, play_game
from .paths import records_dir
from .players import make_bot
from .record import prepare_record_dir
from .rules import (
    Accuse,
    Action,
    AllIn,
    BidAction,
    Challenge,
    Claim,
    CupRerolled,
    DiceRerolled,
    Event,
    Exact,
    Fold,
    Game,
    GameOver,
    GameState,
    InvalidText,
    Options,
    OptionsError,
    Pass,
    PlayerView,
    RoundOutcome,
    RoundResolved,
    RoundStarted,
    StarterDrawn,
    Turn,
    Vote,
    find_preset,
    format_action,
    ladder,
    parse_action,
    redact,
)
from .text import (
    challenge_word,
    describe_outcome,
    describe_result,
    describe_turn,
    exact_effects,
    exact_word,
    faces_text,
    plural,
    says,
    stop_message,
)

if TYPE_CHECKING:
    from .botproto.driver import ExecSettings

ReadLine = Callable[[str], str]
Sleep = Callable[[float], None]

REVEAL_PROMPT = "Press Enter for the next round. "
SKIP_WORDS = ("skip", "s")
WATCH_DELAY = 2.0
"""Seconds a reveal stays on screen when only bots are left to play (`--delay`): long enough to
read four cups and the count."""

COMMANDS: tuple[str, ...] = (
    "help                these rules and the move syntax",
    "moves               every legal move right now",
    "look                the table again",
    "quit                stop the game (the record of the game so far is still written)",
)


class QuitGame(Exception):
    """A person stopped the game: `quit`, the end of the input, or Ctrl-C (`code` is the exit
    code: 0, as stopping is a person's choice, but 130 for Ctrl-C as shells expect; `seat` is
    the person who stopped it, when it is known)."""

    def __init__(self, reason: str, code: int = 0, seat: int | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.seat = seat


# ----- what the screen says, computed from a view (no I/O) -----


def seat_names(humans: int, names: Sequence[str], num_players: int) -> list[str]:
    """People first (their names, else "You" alone or "Player 1".. for several), then bots."""
    people = [names[i] if i < len(names) else ("You" if humans == 1 else f"Player {i + 1}") for i in range(humans)]
    return people + [f"Bot {i + 1}" for i in range(num_players - humans)]


def challenged_turn(view: PlayerView, target: int) -> Turn:
    """The action a challenge of `target` is about: the last action, or the one behind a pass."""
    history = view.history
    return history[-1] if history[-1].seat == target else history[-2]


def _what(turn: Turn) -> str:
    action = turn.action
    if isinstance(action, BidAction):
        return f"bid {action.bid}"
    if isinstance(action, Pass):
        return "pass"
    return format_action(action, ())


def _accusation(view: PlayerView) -> tuple[int, int] | None:
    """(accuser, accused) of the liar call now being voted on."""
    for turn in reversed(view.history):
        if isinstance(turn.action, Challenge):
            return turn.seat, turn.action.target
    return None


def _plain(action: Action) -> bool:
    """An action without a push or a raise."""
    return not getattr(action, "push", ()) and getattr(action, "raise_to", None) is None


def move_syntax(options: Options, target: str = "NAME") -> list[tuple[str, str]]:
    """The moves of this table as (what to type, what it does), for `help`: each text is typed
    exactly as shown, and a move the table does not have is not shown. `target` names a seat in
    the example of a challenge with a target."""
    o = options
    lines: list[tuple[str, str]] = []
    if o.economy is not None:
        lines.append(("3x5", "claim three fives: at least three dice show 5"))
        if o.push:
            lines.append(("3x5 push 5,5", "claim and push two fives out of your cup (the rest of it is rerolled)"))
        fold = "you keep your dice" if o.goal == "shedding" else "you lose a die at its end"
        lines += [
            ("3x5 raise 4", "claim and raise the bet to 4 chips"),
            ("accuse", "call the standing claim a lie"),
            ("accuse raise 4", "raise the bet to 4 chips and accuse"),
            ("all-in", "bet every chip you hold and accuse (only when you cannot meet the bet)"),
            ("fold", f"leave the round; {fold}"),
        ]
        return lines
    lines.append(("3x5", "bid three fives: at least three dice show 5"))
    if o.push:
        lines.append(("3x5 push 5,5", "bid and push two fives out of your cup (the rest of it is rerolled)"))
    if o.pass_rule != "none":
        lines.append(("pass", "claim every die in your hand shows one face"))
        if o.push:
            lines.append(("pass push 2,2", "pass and push two of your dice"))
    word = challenge_word(o)
    also = f" (also {word})" if word != "challenge" else ""
    then = "; every other player then votes" if o.challenge_mode == "siding_vote" else ""
    lines.append(("challenge", f"call the last bid a lie{also}{then}"))
    if o.pass_rule != "none":
        lines.append((f"challenge {target}", "call that player's last bid or pass a lie (the one behind a pass)"))
    if o.exact != "none":
        word = exact_word(o)
        lines.append((word, "say the bid is exactly right" + (" (also exact)" if word != "exact" else "")))
    if o.challenge_mode == "siding_vote":
        lines += [
            ("believe", "your vote after a liar call: the bid is true"),
            ("doubt", "your vote after a liar call: the bid is a lie"),
        ]
    return lines


def _or(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def table_moves(options: Options) -> str:
    """The moves of this table in a few words, for a message about a move it does not have."""
    o = options
    if o.economy is not None:
        return _or(["a claim like 3x5", "accuse", "all-in", "fold"])
    words = ["a bid like 3x5"]
    if o.pass_rule != "none":
        words.append("pass")
    words.append("challenge")
    if o.exact != "none":
        words.append(exact_word(o))
    if o.challenge_mode == "siding_vote":
        words.append("believe or doubt (after a liar call)")
    return _or(words)


def absent_move(action: Action | tuple[str, Any], options: Options) -> str | None:
    """Why this table has no such move at all (None if it has), naming the moves it has."""
    o = options
    missing: str | None = None
    if isinstance(action, (tuple, Challenge)):
        missing = "challenge (you accuse a claim)" if o.economy is not None else None
    elif isinstance(action, Exact) and o.exact == "none":
        missing = exact_word(o)
    elif isinstance(action, Pass) and o.pass_rule == "none":
        missing = "pass"
    elif isinstance(action, Vote) and o.challenge_mode != "siding_vote":
        missing = "vote"
    elif isinstance(action, (Accuse, AllIn, Fold, Claim)) and o.economy is None:
        missing = "betting"
    if missing is None and isinstance(action, (BidAction, Claim, Pass)) and action.push and not o.push:
        missing = "push"
    if missing is None:
        return None
    return f"there is no {missing} at this table: type {table_moves(o)}"


def read_move(text: str, view: PlayerView) -> Action | tuple[str, Any]:
    """The move typed at this table (as `parse_action` gives it), or InvalidText that says what
    was wrong and which moves this table has."""
    o = view.options
    typed = " ".join(text.split())
    try:
        action = parse_action(typed, view.seats, economy=o.economy is not None)
    except InvalidText as e:
        if str(e).startswith(f"{typed!r} is not an action"):
            # the parser's own hint names every move of every table
            raise InvalidText(f"{typed!r} is not an action: type {table_moves(o)} (help shows them all)") from None
        raise
    missing = absent_move(action, o)
    if missing is not None:
        raise InvalidText(missing)
    return action


def move_summary(view: PlayerView) -> list[str]:
    """The legal moves of the seat to act, in a few lines."""
    legal = view.legal
    if legal is None:
        return []
    seats = view.seats
    lines: list[str] = []
    if legal.voting:
        pair = _accusation(view)
        bid = view.standing_bid
        if pair is not None and bid is not None:
            accuser, accused = pair
            lines.append(
                f"vote: believe (side with {seats[accused]}: the bid {bid} is true) "
                f"or doubt (side with {seats[accuser]}: it is a lie)"
            )
        else:
            lines.append("vote: believe or doubt")
        return lines
    verb = "claim" if legal.economy else "bid"
    if legal.bids:
        # `bids` run lowest first, so the first of each face is its lowest, and listing them in
        # that order shows where each face enters the ladder (soar's 1x1 comes after 2x6)
        lowest: dict[int, str] = {}
        top = max(b.quantity for b in legal.bids)
        for bid in legal.bids:
            lowest.setdefault(bid.face, str(bid))
        first = legal.bids[0]
        if len(lowest) == 1:
            lines.append(f"{verb}: {first} or higher ({first.face}s only, at most {top})")
        else:
            each = ", ".join(lowest.values())
            cap = plural(top, "die", "dice")
            lines.append(f"{verb}: {first} or higher (the lowest on each face, lowest first: {each}; at most {cap})")
    if legal.can_pass:
        lines.append("pass: claim every die in your hand shows one face")
    if legal.pushes:
        most = max(len(p) for p in legal.pushes)
        example = f"{legal.bids[0]}" if legal.bids else "pass"
        lines.append(
            f"push: any {'die' if most == 1 else f'1 to {most} dice'} of your cup ({faces_text(sorted(view.cup))}) "
            f"with a {verb}{' or pass' if legal.can_pass else ''}, e.g. {example} push "
            + ",".join(map(str, legal.pushes[0]))
        )
    for target in legal.challenge_targets:
        lines.append(f"challenge {seats[target]}: call {seats[target]}'s {_what(challenged_turn(view, target))} a lie")
    if legal.can_exact and view.standing_bid is not None:
        o = view.options
        right, wrong = exact_effects(o)
        payoff = f"if right {right}, if wrong {wrong}"
        once = "; once per game" if o.exact_limit == "once_per_game" else ""
        lines.append(f"{exact_word(o)}: the bid {view.standing_bid} is exactly right ({payoff}{once})")
    if legal.raise_min is not None and legal.raise_max is not None:
        to = "a claim or accuse" if legal.can_accuse else "a claim"
        lines.append(f"raise: add 'raise N' to {to}, N from {legal.raise_min} to {legal.raise_max}")
    if legal.can_accuse and view.standing_bid is not None and view.standing_bidder is not None:
        lines.append(f"accuse: call {seats[view.standing_bidder]}'s claim {view.standing_bid} a lie")
    if legal.can_all_in and view.chips is not None and view.standing_bidder is not None:
        lines.append(
            f"all-in: bet all your {plural(view.chips[legal.seat], 'chip')} and accuse "
            f"{seats[view.standing_bidder]}'s claim {view.standing_bid}"
        )
    if legal.can_fold:
        keep = "you keep your dice" if view.options.goal == "shedding" else "you lose a die at its end"
        lines.append(f"fold: leave the round ({keep})")
    return lines


def every_move(view: PlayerView) -> list[str]:
    """Every legal move: the plain ones written out, then the pushes and raises any may carry."""
    legal = view.legal
    if legal is None:
        return []
    plain = [format_action(a, view.seats) for a in view.legal_actions if _plain(a)]
    lines = [f"{plural(len(view.legal_actions), 'legal move')}:"]
    row: list[str] = []
    for text in plain:
        row.append(text)
        if len(row) == 10:
            lines.append("  " + "  ".join(row))
            row = []
    if row:
        lines.append("  " + "  ".join(row))
    if legal.pushes:
        lines.append(
            "each bid"
            + (" or pass" if legal.can_pass else "")
            + " may also push one of: "
            + " | ".join(",".join(map(str, p)) for p in legal.pushes)
        )
    if legal.raise_min is not None and legal.raise_max is not None:
        lines.append(
            "each claim"
            + (" or accuse" if legal.can_accuse else "")
            + f" may also raise the bet to any amount from {legal.raise_min} to {legal.raise_max}"
        )
    return lines


def rules_summary(preset: str, options: Options, one_die_round: bool = False) -> list[str]:
    """The rules of this table in a few lines, for `help`."""
    o = options
    lines: list[str] = []
    try:
        p = find_preset(preset)
        lines.append(f"{p.title}: {p.description}")
    except OptionsError:
        lines.append(f"Custom rules ({preset}).")
    d = o.dice_per_player
    dice = plural(d, "die", "dice") if isinstance(d, int) else "/".join(map(str, d)) + " dice"
    lines.append(f"{o.num_players} players, {dice} each, dice with faces 1 to {o.faces}.")
    wild = o.wild
    if wild is None:
        lines.append("Nothing is wild: a bid on a face counts only dice showing it.")
    else:
        lines.append(f"{wild}s are wild: they count toward every other face; a bid on {wild}s counts only {wild}s.")
        if not o.wild_opening:
            lines.append(f"A round may not open on {wild}s.")
    round_wild = None if one_die_round else wild
    rule = "plain" if one_die_round else o.wild_bid_rule
    order = ladder(o.faces, round_wild, rule, o.bid_order, 1).describe_order()
    lines.append(f"Raising: {order}.")
    if o.max_quantity == "dice_in_play":
        lines.append("No bid may claim more dice than are in play.")
    if o.economy is not None:
        e = o.economy
        start = "the round number" if e.min_bet == "round_number" else plural(e.min_bet, "chip")
        lines.append(
            f"Chips: everyone starts with {e.starting_chips}. Each round the bet starts at {start}; on your turn "
            "meet it (pay up to it), then claim higher or accuse the last claim; you may raise the bet. "
            "If you cannot meet it you may go all-in and accuse; you may always fold (and lose a die)."
        )
        lines.append(
            "The winner of an accusation takes half the round's pot, the rest goes to the running pot, "
            "which the last player with dice takes."
        )
        if not e.folded_dice_count:
            lines.append("Folded players' dice do not count.")
    elif o.challenge_mode == "siding_vote":
        lines.append(
            "Challenge the last bid when you think it is a lie; every other player then votes believe or doubt."
        )
    else:
        through = " (through one pass)" if o.pass_rule != "none" else ""
        lines.append(f"Challenge the last bid{through} when you think it is a lie; the wrong one loses a die.")
    if o.goal == "shedding":
        lines.append("Everyone on the correct side sheds a die. The first to empty their cup wins.")
    elif o.rounds == "single":
        lines.append("One round decides the game: the winner of the challenge scores +1, the loser -1.")
    else:
        lines.append("The last player holding dice wins.")
    if o.exact != "none":
        word = exact_word(o)
        right, wrong = exact_effects(o)
        once = " Once per game for each player." if o.exact_limit == "once_per_game" else ""
        lines.append(f"{word.capitalize()}: say the bid is exactly right; if so {right}, if not {wrong}.{once}")
    if o.pass_rule != "none":
        lines.append(
            "Pass: claim every die in your hand shows one face (ones are not wild for this); "
            "needs two dice, once per set of dice."
        )
    if o.push:
        lines.append(
            "Push: with a bid or pass, show some cup dice and reroll the rest; at least one die stays under the cup."
        )
    if o.one_die_round is not None:
        odr = o.one_die_round
        who = "only players holding one die may" if odr.face_change == "one_die_players" else "nobody may"
        exact_note = "" if odr.exact_allowed or o.exact == "none" else f" No {exact_word(o)} in it."
        lines.append(
            f"One-die round: the first time a player drops to one die (with {odr.min_players} or more players left), "
            f"nothing is wild the next round and {who} change the face of the bid.{exact_note}"
        )
    return lines


def bet_status(view: PlayerView) -> str:
    """The bet as it stands for the seat to act: meeting it is not a move of its own but
    what a claim or an accusation pays first."""
    legal = view.legal
    seat = view.seat
    chips = view.chips[seat] if view.chips is not None and seat is not None else 0
    bet = f"The bet is {view.current_bet}; you hold {plural(chips, 'chip')}"
    if legal is None or legal.voting:
        return bet + "."
    owed = legal.owed or 0
    if not owed:
        return bet + " and have met it."
    if legal.can_meet:
        return bet + f" and owe {owed}: your claim or accusation pays it first."
    return bet + f" and owe {owed}, more than you hold: go all-in or fold."


# ----- the screen -----


class Screen:
    """The console and the keyboard: shows the game to the people at it and reads their moves.

    `viewer` is the seat whose cup may be shown between turns (the one person at a single-person
    table); with several people (hot-seat) or none (a demo) nobody's cup is ever shown outside
    that person's own turn. After each reveal the screen waits for Enter while a person is still
    in the game, else `delay` seconds (through `sleep`), so that a game can be followed.
    """

    def __init__(
        self,
        console: Console,
        game: Game,
        preset: str,
        people: Sequence[int],
        read_line: ReadLine | None,
        delay: float = 0.0,
        sleep: Sleep = time.sleep,
    ) -> None:
        self.console = console
        self.game = game
        self.preset = preset
        self.people = tuple(people)
        self.hot_seat = len(self.people) > 1
        self.viewer: int | None = self.people[0] if len(self.people) == 1 else None
        self.read_line = read_line
        self.delay = delay
        self.sleep = sleep
        self.skipping = False  # the people are out and chose to skip to the final ranking
        self.skipped_rounds = 0

    # ----- input and output -----

    def ask(self, prompt: str, seat: int | None = None) -> str:
        """A line typed by a person (`seat`, if it is known who is typing)."""
        try:
            if self.read_line is not None:
                return self.read_line(prompt)
            return self.console.input(prompt)
        except EOFError:
            raise QuitGame("the input ended", seat=seat) from None
        except KeyboardInterrupt:
            raise QuitGame("interrupted", 130, seat=seat) from None

    def say(self, text: str = "", style: str | None = None) -> None:
        self.console.print(Text(text, style=style or ""), highlight=False)

    def clear(self) -> None:
        """Wipe the screen and the scrollback so the next person cannot read the last one's cup
        (a plain clear leaves it a scroll away)."""
        if self.console.is_terminal and not self.console.is_dumb_terminal:
            self.console.clear()
            # ED 3 (xterm, VTE, tmux, iTerm2, Windows Terminal): erase the saved lines too
            self.console.file.write("\x1b[3J")
            self.console.file.flush()

    def name(self, seat: int) -> str:
        return self.game.seats[seat]

    def cup_label(self, seat: int) -> str:
        return "Your cup" if not self.hot_seat else f"{self.name(seat)}'s cup"

    # ----- a person's turn -----

    def pass_device(self, seat: int) -> None:
        self.clear()
        self.console.rule(style="dim")
        self.say(f"Pass the device to {self.name(seat)}, press Enter.", "bold")
        self.ask("", seat)

    def show_status(self, view: PlayerView) -> None:
        seat = view.seat
        assert seat is not None
        o = view.options
        title = f"Round {view.round_no}: {self.name(seat)} to {'vote' if view.phase == 'vote' else 'act'}"
        if view.one_die_round:
            title += " (one-die round, nothing is wild)"
        self.console.rule(Text(title))
        self.console.print(self._table(view))
        cup = f"{self.cup_label(seat)}: {faces_text(sorted(view.cup))}"
        if view.pushed[seat]:
            cup += f"   (pushed: {faces_text(view.pushed[seat])})"
        self.say(cup, "bold")
        wild = None if view.one_die_round else o.wild
        if wild is not None:
            self.say(f"{wild}s are wild.")
        if o.economy is not None:
            self.say(f"Round pot {view.round_pot}, running pot {view.running_pot}. {bet_status(view)}")
        if view.history:
            self.say("This round:")
            for turn in view.history:
                self.say("  " + describe_turn(turn, view.seats, o))
        else:
            self.say("No bids yet this round.")
        if view.standing_bid is not None and view.standing_bidder is not None:
            word = "claim" if o.economy is not None else "bid"
            self.say(f"Standing {word}: {view.standing_bid} by {self.name(view.standing_bidder)}.")
        legal = view.legal
        # "You" is addressed already; anyone else is named, as hot-seat players share the screen
        named = "" if self.name(seat).lower() == "you" else f", {self.name(seat)}"
        if legal is not None and legal.voting:
            self.say(f"Your vote{named}:", "bold")
        else:
            self.say(f"Your turn{named}. You may:", "bold")
        for line in move_summary(view):
            self.say("  " + line)
        self.say("Type a move, or help, moves, look, quit.", "dim")

    def _table(self, view: PlayerView) -> Table:
        economy = view.chips is not None
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        table.add_column("")
        table.add_column("Player")
        table.add_column("Dice", justify="right")
        pushing = view.options.push
        if pushing:
            table.add_column("Pushed")
        if economy:
            table.add_column("Chips", justify="right")
            table.add_column("Paid", justify="right")
        table.add_column("")
        gone = "finished" if view.options.goal == "shedding" else "out"
        for s, name in enumerate(view.seats):
            notes = []
            if not view.active[s]:
                notes.append(gone)
            if view.folded[s]:
                notes.append("folded")
            if view.passed[s]:
                notes.append("passed")
            if s == view.starter:
                notes.append("opened")
            if view.exact_used[s]:
                notes.append(f"{exact_word(view.options)} used")
            row = [
                "▶" if s == view.to_act else "",
                name,
                str(view.dice[s]) if view.active[s] else "-",
            ]
            if pushing:
                row.append(faces_text(view.pushed[s]) if view.pushed[s] else "")
            if economy:
                assert view.chips is not None
                row += [str(view.chips[s]), str(view.paid[s]) if view.paid is not None else ""]
            row.append(", ".join(notes))
            table.add_row(*(Text(cell) for cell in row))
        return table

    def show_help(self, view: PlayerView) -> None:
        self.console.rule(Text("Rules"))
        for line in rules_summary(self.preset, view.options, view.one_die_round):
            self.say(line)
        self.say("Moves:", "bold")
        seats = view.seats
        me = view.seat if view.seat is not None else 0
        moves = move_syntax(view.options, seats[(me + 1) % len(seats)])
        width = max(19, *(len(typed) for typed, _ in moves))
        for typed, meaning in moves:
            self.say(f"  {typed:<{width}} {meaning}")
        self.say("Commands:", "bold")
        for line in COMMANDS:
            self.say("  " + line)

    def show_moves(self, view: PlayerView) -> None:
        for line in every_move(view):
            self.say(line)

    # ----- what everyone sees -----

    def observe(self, state: GameState, events: tuple[Event, ...]) -> None:
        """Called by `play_game` after every step: keep it, and show what it did."""
        view = state.view(self.viewer)
        seats = self.game.seats
        o = self.game.options
        for event in events:
            shown = redact(event, self.viewer)
            if self.skipping and not isinstance(shown, GameOver):
                self.skipped_rounds += isinstance(shown, RoundResolved)
                continue
            if isinstance(shown, StarterDrawn):
                self.say(f"Luck picks {self.name(shown.seat)} to open.")
            elif isinstance(shown, RoundStarted):
                self._round_started(view, shown)
            elif isinstance(shown, Turn):
                if self.hot_seat and shown.seat in self.people:
                    self.clear()
                self.say(describe_turn(shown, seats, o))
            elif isinstance(shown, DiceRerolled):
                self.say(f"{self.cup_label(shown.seat)} after the reroll: {faces_text(sorted(shown.faces))}", "bold")
            elif isinstance(shown, CupRerolled):
                dice = plural(shown.count, "die", "dice")
                self.say(f"{says(self.name(shown.seat), 'rerolls', dice)} under the cup.")
            elif isinstance(shown, RoundResolved):
                self._reveal(shown)
                self._pause(shown.outcome)
            elif isinstance(shown, GameOver):
                if self.skipping:
                    self.say(f"The bots played {plural(self.skipped_rounds, 'more round')}.")
                self.console.rule(Text("Game over"))
                self.say("Final ranking:", "bold")
                for line in describe_result(shown.result, seats):
                    self.say("  " + line)

    def _round_started(self, view: PlayerView, event: RoundStarted) -> None:
        title = f"Round {event.round_no}"
        if event.one_die_round:
            title += ": one-die round, nothing is wild"
        self.console.rule(Text(title))
        dice = ", ".join(f"{self.name(s)} {d}" for s, d in enumerate(event.dice) if view.active[s])
        self.say(f"{says(self.name(event.starter), 'opens')}. Dice: {dice}.")
        if view.chips is not None:
            chips = ", ".join(f"{self.name(s)} {c}" for s, c in enumerate(view.chips) if view.active[s])
            self.say(f"The bet starts at {view.current_bet}. Chips: {chips}. Running pot {view.running_pot}.")
        if self.viewer is not None and view.active[self.viewer]:
            self.say(f"{self.cup_label(self.viewer)}: {faces_text(sorted(view.cup))}", "bold")

    def _reveal(self, event: RoundResolved) -> None:
        outcome = event.outcome
        self.say("Reveal:", "bold")
        for line in describe_outcome(outcome, self.game.seats, self.game.options):
            self.say(line)
        if not outcome.game_over:
            if outcome.next_starter is not None:
                self.say(says(self.name(outcome.next_starter), "opens", "the next round."))
            if outcome.next_one_die_round:
                self.say("The next round is a one-die round: nothing is wild in it.")

    def _pause(self, outcome: RoundOutcome) -> None:
        """Keep the reveal on screen: until Enter while a person still plays, else `delay`
        seconds (the rounds of bots alone would otherwise scroll past at once)."""
        if outcome.game_over:
            return
        still_in = [s for s in outcome.active if s not in outcome.out]
        if any(seat in still_in for seat in self.people):
            seat = self.viewer
            answer = self.ask(REVEAL_PROMPT, seat)
            if " ".join(answer.lower().split()) in ("quit", "exit"):
                raise QuitGame("quit", seat=seat)
        elif self.delay > 0:
            if any(seat in outcome.out for seat in self.people) and self._offer_skip(outcome):
                return
            self.sleep(self.delay)

    def _offer_skip(self, outcome: RoundOutcome) -> bool:
        """The last person at the keyboard is out: ask whether to watch the bots play on, a
        round every `delay` seconds, or skip to the final ranking. True if skipping."""
        gone = [self.name(s) for s in self.people if s in outcome.out]
        who = " and ".join(gone)
        if self.game.options.goal == "shedding":
            gone_now = says(who, "has" if len(gone) == 1 else "have", "finished")
        else:
            gone_now = says(who, "is" if len(gone) == 1 else "are", "out")
        prompt = (
            f"{gone_now}. Press Enter to watch the bots play on (a round every {self.delay:g} s), "
            "or type skip for the final ranking now. "
        )
        try:
            answer = self.ask(prompt, self.viewer)
        except QuitGame as e:
            if e.code:
                raise
            answer = "skip"  # the input ended: nobody is left to watch
        command = " ".join(answer.lower().split())
        if command in ("quit", "exit"):
            raise QuitGame("quit", seat=self.viewer)
        if command not in SKIP_WORDS:
            return False
        self.skipping = True
        self.say("Skipping to the end of the game...", "dim")
        return True


class Person:
    """An agent for a person at the keyboard."""

    def __init__(self, seat: int, screen: Screen) -> None:
        self.seat = seat
        self.screen = screen
        self.retrying = False

    def __repr__(self) -> str:
        return f"Person({self.screen.name(self.seat)!r})"

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        screen = self.screen
        if self.retrying:
            self.retrying = False
        else:
            if screen.hot_seat:
                screen.pass_device(self.seat)
            screen.show_status(view)
        while True:
            text = screen.ask(f"{screen.name(self.seat)}> ", self.seat)
            command = " ".join(text.lower().split())
            if command in ("help", "?"):
                screen.show_help(view)
                continue
            if command == "moves":
                screen.show_moves(view)
                continue
            if command == "look":
                screen.show_status(view)
                continue
            if command in ("quit", "exit"):
                raise QuitGame("quit", seat=self.seat)
            try:
                parsed = read_move(text, view)
            except InvalidText as e:
                screen.say(str(e), "red")
                continue
            if isinstance(parsed, tuple):
                targets = view.legal.challenge_targets if view.legal is not None else ()
                # With no target the engine itself refuses the challenge and says why.
                return Challenge(targets[0] if targets else self.seat)
            return parsed

    def refused(self, action: Action, reason: str) -> None:
        self.retrying = True
        self.screen.say(f"Not allowed: {reason}", "red")


# ----- the command -----


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
    screen = Screen(console, game, preset, range(humans), read_line, delay, sleep)
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
        play_game(game, agents, seed=seed, observer=screen.observe, recorder=recorder)
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
