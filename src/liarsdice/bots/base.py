"""The bot interface: given what one seat may know and a time budget, choose an action."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

from ..rules import Action, PlayerView


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

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
