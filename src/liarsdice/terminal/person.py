"""A person at the keyboard: the agent that shows them the table at their turn and reads the move
they type (help, moves, look, odds, hint and quit besides), and says why a move was refused."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..bots.base import Limit
from ..rules import (
    Accuse,
    Action,
    AllIn,
    BidAction,
    Challenge,
    Claim,
    Exact,
    Fold,
    InvalidText,
    Options,
    Pass,
    PlayerView,
    Vote,
    parse_action,
)
from ..text import exact_word
from .screen import QuitGame, Screen


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
            if screen.answer(command, view):
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
