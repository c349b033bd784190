"""The console and the keyboard: a line typed, a line shown, and what a person sees at their turn
(the table, their cup, this round's moves, what they may do; `help`, `moves`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..odds import odds
from ..rules import Game, PlayerView
from ..text import describe_turn, exact_word, faces_text
from .help import COMMANDS, move_syntax, rules_summary
from .hintpanel import hint_lines
from .moves import bet_status, every_move, move_summary
from .oddspanel import odds_lines

ReadLine = Callable[[str], str]


class QuitGame(Exception):
    """A person stopped the game: `quit`, the end of the input, or Ctrl-C (`code` is the exit
    code: 0, as stopping is a person's choice, but 130 for Ctrl-C as shells expect; `seat` is
    the person who stopped it, when it is known)."""

    def __init__(self, reason: str, code: int = 0, seat: int | None = None) -> None:
        super().__init__(reason)
        self.code = code
        self.seat = seat


class Screen:
    """The console and the keyboard: shows the game to the people at it and reads their moves.

    `viewer` is the seat whose cup may be shown between turns (the one person at a single-person
    table); with several people (hot-seat) or none (a demo) nobody's cup is ever shown outside
    that person's own turn. What happens between turns is told by the `Narrator`, through this
    screen.
    """

    def __init__(
        self,
        console: Console,
        game: Game,
        preset: str,
        people: Sequence[int],
        read_line: ReadLine | None,
    ) -> None:
        self.console = console
        self.game = game
        self.preset = preset
        self.people = tuple(people)
        self.hot_seat = len(self.people) > 1
        self.viewer: int | None = self.people[0] if len(self.people) == 1 else None
        self.read_line = read_line
        # The seats that opened the odds panel: off until a person types `odds`.
        self.odds_on: set[int] = set()

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
        if seat in self.odds_on:
            self.show_odds(view)
        legal = view.legal
        # "You" is addressed already; anyone else is named, as hot-seat players share the screen
        named = "" if self.name(seat).lower() == "you" else f", {self.name(seat)}"
        if legal is not None and legal.voting:
            self.say(f"Your vote{named}:", "bold")
        else:
            self.say(f"Your turn{named}. You may:", "bold")
        for line in move_summary(view):
            self.say("  " + line)
        self.say("Type a move, or help, moves, look, odds, hint, quit.", "dim")

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

    def show_odds(self, view: PlayerView) -> None:
        panel = odds(view)
        if panel is None:
            self.say("No odds: you hold no dice in play.")
            return
        for line in odds_lines(panel, view):
            self.say(line)

    def toggle_odds(self, view: PlayerView) -> None:
        """`odds`: open the panel (shown at once and at every turn after) or close it."""
        seat = view.seat
        assert seat is not None
        if seat in self.odds_on:
            self.odds_on.discard(seat)
            self.say("Odds hidden (type odds to show them again).", "dim")
        else:
            self.odds_on.add(seat)
            self.show_odds(view)

    def show_hint(self, view: PlayerView) -> None:
        """`hint`: what the best bot would do here, from this seat's view alone."""
        from ..review import judge  # numpy and the bots: loaded when a person first asks

        if view.legal is None or not view.legal_actions or view.to_act != view.seat:
            self.say("No hint: it is not your turn.")
            return
        for line in hint_lines(judge(view)):
            self.say(line)

    def show_moves(self, view: PlayerView) -> None:
        for line in every_move(view):
            self.say(line)

    def answer(self, command: str, view: PlayerView, *, hints: bool = True) -> bool:
        """Answer a word that asks about the table rather than moving (help, moves, odds, and
        hint where `hints`); False if `command` is none of them."""
        if command in ("help", "?"):
            self.show_help(view)
        elif command == "moves":
            self.show_moves(view)
        elif command in ("odds", "o"):
            self.toggle_odds(view)
        elif hints and command in ("hint", "h"):
            self.show_hint(view)
        else:
            return False
        return True
