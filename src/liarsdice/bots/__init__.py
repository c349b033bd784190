"""Bots: players that decide from a `PlayerView` alone. `BOT_LEVELS` names them for the shell.

`make_bot` also seats a program that speaks the bot protocol: `exec:COMMAND` (docs/bot-protocol.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Bot, BotError, Forfeit, Limit
from .cfr import CfrBot
from .duel import DuelBot
from .probability import ProbabilityBot
from .random_bot import RandomBot
from .strong import StrongBot

if TYPE_CHECKING:
    from ..botproto.driver import ExecSettings

BOT_LEVELS: dict[str, type[Bot]] = {
    RandomBot.level: RandomBot,
    ProbabilityBot.level: ProbabilityBot,
    CfrBot.level: CfrBot,
    StrongBot.level: StrongBot,
    DuelBot.level: DuelBot,
}


def make_bot(level: str, seed: int | None = None, *, settings: ExecSettings | None = None) -> Bot:
    """A bot of the named level, drawing its randomness from `seed`; or, for `exec:COMMAND`, the
    program COMMAND (split like a shell would, never run by one), driven as `settings` say."""
    from ..botproto.spec import exec_command, is_exec

    if is_exec(level):
        from ..botproto.driver import ExecBot

        return ExecBot(exec_command(level), seed, settings)
    try:
        cls = BOT_LEVELS[level]
    except KeyError:
        raise ValueError(
            f"unknown bot level {level!r}: the levels are {', '.join(BOT_LEVELS)}, or exec:COMMAND"
        ) from None
    return cls(seed)


__all__ = [
    "BOT_LEVELS",
    "Bot",
    "BotError",
    "CfrBot",
    "DuelBot",
    "Forfeit",
    "Limit",
    "ProbabilityBot",
    "RandomBot",
    "StrongBot",
    "make_bot",
]
