"""The built-in bots by name: `BOT_LEVELS` and `make_builtin`, which the bot protocol's stand-ins
and helper use too (a program's own level is seated by `liarsdice.players.make_bot`)."""

from __future__ import annotations

from ..levels import resolve
from .base import Bot
from .careless import BeginnerBot, CasualBot
from .cfr import CfrBot
from .duel import DuelBot
from .probability import ProbabilityBot
from .random_bot import RandomBot
from .reader import ReaderBot
from .strong import StrongBot

# Keyed by each bot's own name, which records, seats and ratings store; a level names one of them.
BOT_LEVELS: dict[str, type[Bot]] = {
    RandomBot.level: RandomBot,
    BeginnerBot.level: BeginnerBot,
    CasualBot.level: CasualBot,
    ProbabilityBot.level: ProbabilityBot,
    CfrBot.level: CfrBot,
    StrongBot.level: StrongBot,
    DuelBot.level: DuelBot,
    ReaderBot.level: ReaderBot,
}


def make_builtin(level: str, seed: int | None = None) -> Bot:
    """A built-in bot of the named level (`liarsdice.levels`: any case, older names too), drawing
    its randomness from `seed`; ValueError naming the levels if there is none of that name."""
    return BOT_LEVELS[resolve(level)](seed)


__all__ = ["BOT_LEVELS", "make_builtin"]
