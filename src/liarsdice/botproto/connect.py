"""`liarsdice bot connect`: a bridge between a server and a bot program, as lichess-bot is for
UCI engines.

It connects to the server's `/ws/bot` as a bot account (the token goes in an `Authorization:
Bearer` header), accepts the invitations its rules allow, and plays each seat it is given over
`/ws/{code}`, reconnecting with the seat token whenever a connection drops. The program is an
`ExecBot` (the same driver `play` and the arena use), started once per seat and told of every
game there; it is handed a real `PlayerView`, decoded from the `bot_view` part of the seat's
`state` messages (docs/protocol.md, "Bot accounts"), and its answer goes back as an `act`.
A move the program fails to make is made by the fallback bot, as in the arena.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..rules import Game, Options, action_to_list
from .driver import ExecBot, ExecSettings
from .messages import decode_view

log = logging.getLogger("liarsdice.connect")

RETRY_FIRST = 0.5  # seconds before the first reconnection; doubled up to RETRY_MAX
RETRY_MAX = 30.0


class ConnectError(RuntimeError):
    """The server refuses this bot for good (a wrong or revoked token): retrying cannot help."""


@dataclass(frozen=True)
class AcceptRules:
    """Which invitations to accept: every one, or only games of these presets."""

    presets: frozenset[str] = frozenset()

    def why_not(self, invite: dict[str, Any]) -> str | None:
        if self.presets and invite.get("preset") not in self.presets:
            return f"this bot plays {', '.join(sorted(self.presets))}, not {invite.get('preset')}"
        return None


@dataclass
class Bridge:
    url: str
    token: str
    command: Sequence[str]
    rules: AcceptRules = field(default_factory=AcceptRules)
    settings: ExecSettings = field(default_factory=ExecSettings)
    say: Callable[[str], None] = print
    seats: dict[str, asyncio.Task[None]] = field(default_factory=dict)

    @property
    def ws_base(self) -> str:
        base = self.url.rstrip("/")
        if base.startswith("https://"):
            return "wss://" + base[len("https://") :]
        if base.startswith("http://"):
            return "ws://" + base[len("http://") :]
        return base

    async def run(self) -> None:
        """Stay online until stopped (or refused for good), reconnecting when the link drops."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidStatus

        wait = RETRY_FIRST
        while True:
            try:
                async with connect(
                    f"{self.ws_base}/ws/bot", additional_headers={"Authorization": f"Bearer {self.token}"}
                ) as ws:
                    async for frame in ws:
                        message = json.loads(frame)
                        kind = message.get("type")
                        if kind == "welcome":
                            wait = RETRY_FIRST
                            self.say(f"online as {message['bot']} at {self.url}")
                        elif kind == "invite":
                            why = self.rules.why_not(message)
                            if why is None:
                                await ws.send(json.dumps({"type": "accept", "id": message["id"]}))
                            else:
                                self.say(f"declined table {message['table']}: {why}")
                                await ws.send(json.dumps({"type": "decline", "id": message["id"], "reason": why}))
                        elif kind == "seated":
                            code = message["table"]
                            self.say(f"seated at table {code}, seat {message['seat']}: {message['url']}")
                            self.seats[code] = asyncio.create_task(
                                self.play_seat(code, message["seat"], message["token"])
                            )
                        elif kind == "error":
                            if message.get("code") in ("bad_token", "revoked"):  # reconnecting cannot help
                                raise ConnectError(f"the server refused the token: {message['message']}")
                            self.say(f"server: {message['message']}")
            except (OSError, ConnectionClosed, InvalidStatus) as e:
                self.say(f"connection lost ({e}); connecting again in {wait:g} s")
            await asyncio.sleep(wait)
            wait = min(RETRY_MAX, wait * 2)

    async def play_seat(self, code: str, seat: int, seat_token: str) -> None:
        """Play `seat` at table `code` for as long as the seat is this bot's."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidStatus

        player = SeatPlayer(self.command, self.settings, seat)
        wait = RETRY_FIRST
        try:
            while True:
                try:
                    async with connect(f"{self.ws_base}/ws/{code}", max_size=None) as ws:
                        await ws.send(json.dumps({"type": "hello", "token": seat_token}))
                        async for frame in ws:
                            wait = RETRY_FIRST
                            move = await player.on_message(json.loads(frame))
                            if move is not None:
                                await ws.send(json.dumps(move))
                            if player.gone:
                                self.say(f"table {code}: {player.gone}")
                                return
                except (OSError, ConnectionClosed, InvalidStatus) as e:
                    self.say(f"table {code}: connection lost ({e}); connecting again in {wait:g} s")
                await asyncio.sleep(wait)
                wait = min(RETRY_MAX, wait * 2)
        finally:
            await asyncio.to_thread(player.close)
            self.seats.pop(code, None)


class SeatPlayer:
    """One seat: the table's messages in, `act` messages out, the program in between."""

    def __init__(self, command: Sequence[str], settings: ExecSettings, seat: int) -> None:
        self.command = list(command)
        self.settings = settings
        self.seat = seat
        self.bot: ExecBot | None = None
        self.table: dict[str, Any] | None = None
        self.game_told: int | None = None  # the game the program was told of (new_game)
        self.acted: tuple[int, int] | None = None  # (game, version) of the last move sent
        self.ref = 0
        self.gone: str | None = None  # why this seat is no longer played

    async def on_message(self, message: dict[str, Any]) -> dict[str, Any] | None:
        kind = message.get("type")
        if kind == "table":
            self.table = message["table"]
        elif kind == "error":
            if message.get("code") in ("not_seated", "no_table"):
                self.gone = message["message"]
            elif message.get("code") != "not_your_turn":
                log.warning("table refused a move: %s", message.get("message"))
                self.acted = None  # try again with the next state
        elif kind == "state" and message.get("state") is not None:
            return await self._maybe_act(message["state"])
        return None

    async def _maybe_act(self, state: dict[str, Any]) -> dict[str, Any] | None:
        bot_view = state.get("bot_view")
        if bot_view is None or state.get("to_act") != self.seat or not bot_view["legal"] or self.table is None:
            return None
        key = (state["game_id"], state["version"])
        if key == self.acted:
            return None
        options = Options.from_dict(self.table["options"])
        if self.bot is None:
            self.bot = await asyncio.to_thread(ExecBot, self.command, None, self.settings)
        if self.game_told != state["game_id"]:
            game = Game(options, list(state["seats"]))
            await asyncio.to_thread(self.bot.start, game, self.seat, self.table.get("preset"))
            self.game_told = state["game_id"]
        view = decode_view(bot_view["view"], options, bot_view["legal"], bot_view["moves"])
        action = await asyncio.to_thread(self.bot.act, view)
        self.acted = key
        self.ref += 1
        return {"type": "act", "action": action_to_list(action, view.seats), "ref": self.ref}

    def close(self) -> None:
        if self.bot is not None:
            with contextlib.suppress(Exception):
                self.bot.close()
            self.bot = None


def run_bridge(bridge: Bridge) -> None:
    """Run until interrupted; ConnectError when the server refuses the token."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(bridge.run())
