"""The bot interface: given what one seat may know and a time budget, choose an action.

Besides `act`, a bot may hold something that must be let go (a program it runs: `close()`), and
may want to know when a game starts (`start()`); both do nothing by default. A bot that wants the
public events between its turns defines `observe(events)`, which `match.play_game` calls with the
events of every step as the bot's seat may see them.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, NamedTuple

from ..rules import Action, Game, PlayerView


class BotError(RuntimeError):
    """A bot chose an action the rules refuse, or failed to choose: a bug in the bot, never a player's mistake."""


class Forfeit(BotError):
    """A bot gives up the game (a program that failed, with `fallback=forfeit`).

    `reason` says what went wrong; `seat` is filled in by whoever runs the game.
    """

    def __init__(self, message: str, reason: str = "", seat: int | None = None) -> None:
        super().__init__(message)
        self.reason = reason or message
        self.seat = seat

    def __reduce__(self) -> tuple[type[Forfeit], tuple[str, str, int | None]]:
        # Crosses process boundaries (the arena's workers) with its reason and seat.
        return (type(self), (str(self), self.reason, self.seat))


class Forfeited(NamedTuple):
    """Not a rules event: the shell stopped the game because `seat`'s bot failed (fallback=forfeit)."""

    seat: int
    reason: str


@dataclass(frozen=True)
class Limit:
    """How long a bot may think (seconds); None: its own default."""

    time: float | None = None


class Bot(ABC):
    """A player that decides from a `PlayerView` only, never from the full state.

    Bots draw their randomness from their own seeded generator, so a game with the same seed
    and the same bots plays out the same way.
    """

    level: ClassVar[str]
    description: ClassVar[str] = ""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    @abstractmethod
    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        """A legal action for `view.seat`, which is to act (`view.legal_actions` is non-empty)."""

    def start(self, game: Game, seat: int, preset: str | None = None) -> None:  # noqa: B027 (optional hook)
        """A game begins with this bot at `seat` (BotError if it cannot play it). Default: nothing."""

    def close(self) -> None:  # noqa: B027 (optional hook)
        """The bot plays no more: let go of what it holds (a process). Default: nothing."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
