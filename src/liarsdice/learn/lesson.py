"""A lesson as data: scripted steps at a table whose dice are all known to the script.

A step is one decision of the player ("You", seat 0): the cups every seat holds, the moves the
other seats made before it (in the list form of scenario files, `("Ana", "bid", 3, 4)`), what the
player is asked to do, the moves that are right, and why each other kind of move is wrong. The
rules engine judges every move (judge.py), and the tests check every script against it: a right
move is legal, a move the step calls illegal is refused, and every count a text claims is the
count the engine makes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

ListMove = tuple[Any, ...]
"""A move in list form without its seat, as scenario files and the table socket write it:
`("bid", 3, 5)`, `("challenge",)`, `("challenge", {"target": "Ana"})`, `("claim", 2, 7, {"raise_to": 3})`."""

SeatMove = tuple[Any, ...]
"""A move in list form with its seat first: `("Ana", "bid", 3, 4)`."""

ME = "You"
"""The seat of the person taking the lesson: seat 0 at every lesson's table."""


@dataclass(frozen=True)
class Count:
    """A claim a text makes about the dice: `number` dice count for `face`, as the rules of the
    step count them (wild dice included, where they are wild). `seat` counts one seat's dice
    alone; None counts every die in play, as a challenge does."""

    face: int
    number: int
    seat: str | None = None


@dataclass(frozen=True)
class Choice:
    """A move the browser offers as a button: the move and its words on the button."""

    move: ListMove
    label: str


@dataclass(frozen=True)
class Step:
    """One decision of the player, at a round set up exactly.

    `dice` maps every seat to its cup; `before` are the other seats' moves up to the player's
    turn; `accept` the right moves; `right` why they are right; `wrong` why a move is not, keyed
    by the move as typed (`"6x6"`, `"challenge Ana"`) or by its kind (`"bid"`, `"challenge"`,
    `"exact"`, `"pass"`, `"vote"`, `"claim"`, `"accuse"`, `"all_in"`, `"fold"`, or `"illegal"`
    for a move the rules refuse); `then` the other seats' answers to a right move (a vote, a
    challenge of the player's bid) played before the reveal; `reroll` the faces a push of the
    right move rerolls to (so the lesson shows the same dice every time); `state` what a scenario
    file's `state` sets (`special_round`, `chips`, `round_no`, ...); `reveal_count` the count the
    reveal after the right move shows, where the dice changed since the deal (a push); `preset`
    the step's own rule set, where it is not the lesson's."""

    title: str
    dice: Mapping[str, tuple[int, ...]]
    starter: str
    instruction: str
    accept: tuple[ListMove, ...]
    right: str
    wrong: Mapping[str, str]
    choices: tuple[Choice, ...]
    before: tuple[SeatMove, ...] = ()
    then: tuple[SeatMove, ...] = ()
    reroll: tuple[int, ...] | None = None
    counts: tuple[Count, ...] = ()
    reveal_count: int | None = None
    state: Mapping[str, Any] = field(default_factory=dict)
    preset: str | None = None

    @property
    def seats(self) -> tuple[str, ...]:
        """The table's seats, in the order of `dice`: the player first."""
        return tuple(self.dice)


@dataclass(frozen=True)
class Lesson:
    """One rule family taught in a few steps, then a short game against an easy bot.

    `preset` is the rule set of the steps (with `overrides`; a step may name its own) and of the game; `presets` are the
    rule sets whose most distinctive rules this lesson teaches (every preset has one lesson);
    `game` the options of the short game that ends it."""

    name: str
    title: str
    teaches: str
    preset: str
    steps: tuple[Step, ...]
    presets: tuple[str, ...]
    overrides: Mapping[str, Any] = field(default_factory=dict)
    game: Mapping[str, Any] = field(default_factory=lambda: {"num_players": 2, "dice_per_player": 3})
