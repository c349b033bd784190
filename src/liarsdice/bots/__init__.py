"""Bots: players that decide from a `PlayerView` alone. `BOT_LEVELS` names them for the shell."""

from __future__ import annotations

from .base import Bot, Limit
from .cfr import CfrBot
from .probability import ProbabilityBot
from .random_bot import RandomBot
from .strong import StrongBot

BOT_LEVELS: dict[str, type[Bot]] = {
    RandomBot.level: RandomBot,
    ProbabilityBot.level: ProbabilityBot,
    CfrBot.level: CfrBot,
    StrongBot.level: StrongBot,
}


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A bot of the named level, drawing its randomness from `seed`."""
    try:
        cls = BOT_LEVELS[level]
    except KeyError:
        raise ValueError(f"unknown bot level {level!r}: the levels are {', '.join(BOT_LEVELS)}") from None
    return cls(seed)


__all__ = ["BOT_LEVELS", "Bot", "CfrBot", "Limit", "ProbabilityBot", "RandomBot", "StrongBot", "make_bot"]
