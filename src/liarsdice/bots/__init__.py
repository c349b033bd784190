"""Bots: players that decide from a `PlayerView` alone. `BOT_LEVELS` names them for the shell.

Players choose a level of `liarsdice.levels` (Beginner to Master); `make_bot` takes its name, an
older name, or the bot's own, in any case. It also seats a program that speaks the bot protocol:
`exec:COMMAND` (docs/bot-protocol.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..levels import resolve
from .base import Bot, BotError, Forfeit, Limit
from .careless import BeginnerBot, CasualBot
from .cfr import CfrBot
from .duel import DuelBot
from .probability import ProbabilityBot
from .random_bot import RandomBot
from .strong import StrongBot

if TYPE_CHECKING:
    from ..botproto.driver import ExecSettings

# Keyed by each bot's own name, which records, seats and ratings store; a level names one of them.
BOT_LEVELS: dict[str, type[Bot]] = {
    RandomBot.level: RandomBot,
    BeginnerBot.level: BeginnerBot,
    CasualBot.level: CasualBot,
    ProbabilityBot.level: ProbabilityBot,
    CfrBot.level: CfrBot,
    StrongBot.level: StrongBot,
    DuelBot.level: DuelBot,
}


def make_bot(level: str, seed: int | None = None, *, settings: ExecSettings | None = None) -> Bot:
    """A bot of the named level (`liarsdice.levels`: any case, older names too), drawing its
    randomness from `seed`; or, for `exec:COMMAND`, the program COMMAND (split like a shell would,
    never run by one), driven as `settings` say."""
    from ..botproto.spec import exec_command, is_exec

    if is_exec(level):
        from ..botproto.driver import ExecBot

        return ExecBot(exec_command(level), seed, settings)
    try:
        cls = BOT_LEVELS[resolve(level)]
    except ValueError as e:
        raise ValueError(f"{e}, or exec:COMMAND") from None
    return cls(seed)


__all__ = [
    "BOT_LEVELS",
    "BeginnerBot",
    "Bot",
    "BotError",
    "CasualBot",
    "CfrBot",
    "DuelBot",
    "Forfeit",
    "Limit",
    "ProbabilityBot",
    "RandomBot",
    "StrongBot",
    "make_bot",
]
