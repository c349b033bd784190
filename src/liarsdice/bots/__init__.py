"""Bots: players that decide from a `PlayerView` alone. `BOT_LEVELS` names them for the shell.

Players choose a level of `liarsdice.levels` (Beginner to Master); `make_builtin` takes its name,
an older name, or the bot's own, in any case. A program that speaks the bot protocol
(`exec:COMMAND`, docs/bot-protocol.md) is seated by `liarsdice.players.make_bot`, which takes
either.
"""

from __future__ import annotations

from .base import Bot, BotError, Forfeit, Limit
from .builtin import BOT_LEVELS, make_builtin
from .careless import BeginnerBot, CasualBot
from .cfr import CfrBot
from .duel import DuelBot
from .probability import ProbabilityBot
from .random_bot import RandomBot
from .strong import StrongBot

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
    "make_builtin",
]
