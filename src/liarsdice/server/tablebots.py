"""A table's bots: one per seat a bot plays (a bot's seat, or a person's while a bot plays for
them), kept across moves; an operator's program (`liarsdice serve --bot NAME=COMMAND`) is
started for a game, told its events as its seat may see them, and closed at its end."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from ..bots import Bot
from ..players import make_bot
from ..rules import GameOver, redact
from .limits import RoomError
from .seatkinds import OPERATOR_LEVEL
from .table import Step, Table

log = logging.getLogger("liarsdice.server")


class BotTable(Table):
    """A table with the bots that play its seats."""

    async def bot_for(self, seat: int, level: str) -> Bot:
        """The bot that plays `seat` at `level`, kept across moves; an operator's program is
        started (off the event loop) and told of the game when it first plays in it."""
        bot = self.bots.get(seat)
        name = level[len(OPERATOR_LEVEL) :] if level.startswith(OPERATOR_LEVEL) else None
        key = (level, self.game_id if name is not None else None)  # a program is told of each game
        if bot is not None and self.bot_levels.get(seat) == key:
            return bot
        if bot is not None and self.bot_levels.get(seat, ("", None))[0].startswith(OPERATOR_LEVEL):
            _close_later(bot)
        if name is None:
            bot = make_bot(level, None)
        else:
            command = self.manager.lobby.operator_bots.get(name)
            if command is None:
                raise RoomError("no_bot", f"this server no longer runs the bot {name!r}")
            assert self.game is not None
            bot = await asyncio.to_thread(make_bot, "exec:" + command, None)
            try:
                await asyncio.to_thread(bot.start, self.game, seat, self.preset)
            except Exception:
                _close_later(bot)
                raise
        self.bots[seat] = bot
        self.bot_levels[seat] = key
        return bot

    async def start_programs(self) -> None:
        """Start this game's operator's programs before its first step, so that each is told all
        of it, as `play` tells a program; a seat whose program cannot start is played by the
        probability bot for the game (not started again at each of its moves)."""
        for seat, s in enumerate(self.seats):
            if s.kind != "bot" or s.bot_level is None or not s.bot_level.startswith(OPERATOR_LEVEL):
                continue
            try:
                await self.bot_for(seat, s.bot_level)
            except Exception:
                log.exception("bot %s could not start at table %s: a probability bot plays", s.bot_level, self.code)
                self.bots[seat] = make_bot("probability", None)
                self.bot_levels[seat] = (s.bot_level, self.game_id)

    def tell_programs(self, steps: list[Step]) -> None:
        """Tell each operator's program of this game the events of these steps as its seat may
        see them (its act requests carry them, as in `play`); the events that end the game are
        kept to go with its close: game_over, then quit."""
        for seat, (level, game_id) in self.bot_levels.items():
            observe = getattr(self.bots.get(seat), "observe", None)
            if observe is None or not level.startswith(OPERATOR_LEVEL) or game_id != self.game_id:
                continue
            events = tuple(redact(e, seat) for _, _, _, step in steps for e in step)
            if any(isinstance(e, GameOver) for e in events):
                self.program_ends[seat] = events
            elif events:
                observe(events)  # kept for its next request: no message is written here

    def close_programs(self) -> None:
        """Let the operator's programs go (at the end of a game, or when the table is put away)."""
        for seat, (level, _game) in list(self.bot_levels.items()):
            if level.startswith(OPERATOR_LEVEL):
                bot = self.bots.pop(seat, None)
                if bot is not None:
                    _close_later(bot, self.program_ends.pop(seat, ()))
                del self.bot_levels[seat]
        self.program_ends.clear()


def _close_later(bot: Bot, last: tuple[Any, ...] = ()) -> None:
    """Close a bot program in a thread of its own (closing waits for it to quit), telling it
    first the `last` events of its game, which end it (its game_over)."""

    def run() -> None:
        try:
            observe = getattr(bot, "observe", None)
            if last and observe is not None:
                observe(last)
        except Exception:
            log.exception("could not tell a bot program its game is over")
        finally:
            bot.close()

    threading.Thread(target=run, name="close bot", daemon=True).start()
