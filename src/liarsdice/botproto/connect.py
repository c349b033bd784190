"""`liarsdice bot connect`: a bridge between a server and a bot program, as lichess-bot is for
UCI engines.

Before it goes online it starts the program once and takes its hello: a program that does not
start, does not say hello or speaks another protocol stops the command with the reason. Then it
connects to the server's `/ws/bot` as a bot account (the token goes in an `Authorization: Bearer`
header), accepts the invitations its rules allow (`--accept`, and the presets and options the
program's hello names), and plays each seat it is given over `/ws/{code}`, reconnecting with the
seat token whenever a connection drops.

Each game is played by a program of its own, as in `play`: an `ExecBot` (the driver `play` and
the arena use) started when the game starts and told of it (`new_game`), handed a real
`PlayerView` for each move, decoded from the `bot_view` part of the seat's `state` messages
(docs/protocol.md, "Bot accounts"), told how the game ended (`game_over`) and closed (`quit`,
then killed after a grace), so that no program outlives its game. A move the program fails to
make is made by the fallback bot, or, with `--bot-fallback forfeit`, ends the game for the seat:
the bridge says `forfeit` to the table, which places the seat last, as `play` does.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..bots import Bot, Forfeit, make_builtin
from ..bots.base import Forfeited
from ..match import forfeit_result
from ..rules import Event, Game, GameOver, Options, OptionsError, RoundResolved, action_to_list
from . import messages as m
from .driver import BotStartError, BotUnsupported, ExecBot, ExecSettings, probe
from .messages import decode_view

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

log = logging.getLogger("liarsdice.connect")

RETRY_FIRST = 0.5  # seconds before the first reconnection; doubled up to RETRY_MAX
RETRY_MAX = 30.0
# Seconds a seat is kept after its game ends, for a rematch the host may start; then the bridge
# leaves the table (a ladder's table never plays again), so finished tables hold nothing.
LINGER = 120.0
MAX_REASON = 500  # characters of a forfeit's reason the table takes


class ConnectError(RuntimeError):
    """This bot cannot go on, and retrying cannot help: the server refuses its token (wrong or
    revoked), or its program cannot play."""


@dataclass(frozen=True)
class AcceptRules:
    """Which invitations to accept: every one, or only games of these presets (`--accept`),
    and never one the program's hello excludes (its `presets` and `options`)."""

    presets: frozenset[str] = frozenset()

    def why_not(self, invite: dict[str, Any], hello: dict[str, Any] | None = None) -> str | None:
        if self.presets and invite.get("preset") not in self.presets:
            return f"this bot plays {', '.join(sorted(self.presets))}, not {invite.get('preset')}"
        if hello is None:
            return None
        try:
            options = Options.from_dict(invite.get("options") or {})
        except OptionsError as e:
            return f"cannot read the table's rules: {e}"
        return m.unsupported(hello, invite.get("preset"), options)


@dataclass
class Bridge:
    url: str
    token: str
    command: Sequence[str]
    rules: AcceptRules = field(default_factory=AcceptRules)
    settings: ExecSettings = field(default_factory=ExecSettings)
    say: Callable[[str], None] = print
    seats: dict[str, asyncio.Task[None]] = field(default_factory=dict)
    hello: dict[str, Any] | None = None  # the program's, taken before going online
    stopped: str | None = None  # why the bridge stops (a seat's program could not start)
    _events: ClientConnection | None = None  # the /ws/bot connection while it is open

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

        if self.hello is None:
            # The program is started once before going online: one that cannot play is never seated.
            try:
                self.hello = await asyncio.to_thread(probe, self.command, self.settings)
            except BotStartError as e:
                raise ConnectError(f"the program cannot play: {e}") from None
        wait = RETRY_FIRST
        while True:
            try:
                async with connect(
                    f"{self.ws_base}/ws/bot", additional_headers={"Authorization": f"Bearer {self.token}"}
                ) as ws:
                    self._events = ws
                    async for frame in ws:
                        message = json.loads(frame)
                        kind = message.get("type")
                        if kind == "welcome":
                            wait = RETRY_FIRST
                            self.say(f"online as {message['bot']} at {self.url}")
                        elif kind == "invite":
                            why = self.rules.why_not(message, self.hello)
                            if why is None and self.stopped is None:
                                await ws.send(json.dumps({"type": "accept", "id": message["id"]}))
                            else:
                                why = why or f"it is going offline: {self.stopped}"
                                self.say(f"declined table {message['table']}: {why}")
                                await ws.send(json.dumps({"type": "decline", "id": message["id"], "reason": why[:200]}))
                        elif kind == "seated":
                            code = message["table"]
                            self.say(f"seated at table {code}, seat {message['seat']}: {message['url']}")
                            task = asyncio.create_task(self.play_seat(code, message["seat"], message["token"]))
                            task.add_done_callback(self._seat_done)
                            self.seats[code] = task
                        elif kind == "error":
                            if message.get("code") in ("bad_token", "revoked"):  # reconnecting cannot help
                                raise ConnectError(f"the server refused the token: {message['message']}")
                            self.say(f"server: {message['message']}")
            except (OSError, ConnectionClosed, InvalidStatus) as e:
                if self.stopped is None:
                    self.say(f"connection lost ({e}); connecting again in {wait:g} s")
            finally:
                self._events = None
            if self.stopped is not None:
                raise ConnectError(self.stopped)
            await asyncio.sleep(wait)
            wait = min(RETRY_MAX, wait * 2)

    async def stop(self, reason: str) -> None:
        """Go offline for good with `reason` (run() raises ConnectError with it)."""
        if self.stopped is None:
            self.stopped = reason
        if self._events is not None:
            with contextlib.suppress(Exception):
                await self._events.close()

    def _seat_done(self, task: asyncio.Task[None]) -> None:
        # A seat that fails in a way nobody planned for is said, never left unretrieved; the
        # bridge goes offline rather than accept seats it may fail the same way.
        if task.cancelled() or task.exception() is None:
            return
        error = task.exception()
        log.error("a seat failed", exc_info=error)
        asyncio.get_running_loop().create_task(self.stop(f"a seat failed: {type(error).__name__}: {error}"))

    async def play_seat(self, code: str, seat: int, seat_token: str) -> None:
        """Play `seat` at table `code` for as long as the seat is this bot's and games go on."""
        from websockets.asyncio.client import connect
        from websockets.exceptions import ConnectionClosed, InvalidStatus

        player = SeatPlayer(self.command, self.settings, seat)
        wait = RETRY_FIRST
        try:
            while True:
                try:
                    async with connect(f"{self.ws_base}/ws/{code}", max_size=None) as ws:
                        await ws.send(json.dumps({"type": "hello", "token": seat_token}))
                        while True:
                            linger = player.linger_left()
                            try:
                                frame = await asyncio.wait_for(ws.recv(), linger)
                            except TimeoutError:
                                self.say(f"table {code}: {player.why_leave()}: left the table")
                                return
                            wait = RETRY_FIRST
                            move = await player.on_message(json.loads(frame))
                            if move is not None:
                                await ws.send(json.dumps(move))
                            if player.gone:
                                self.say(f"table {code}: {player.gone}")
                                if player.broken:
                                    await self.stop(player.gone)
                                return
                except (OSError, ConnectionClosed, InvalidStatus) as e:
                    self.say(f"table {code}: connection lost ({e}); connecting again in {wait:g} s")
                await asyncio.sleep(wait)
                wait = min(RETRY_MAX, wait * 2)
        finally:
            await asyncio.to_thread(player.close)
            self.seats.pop(code, None)


class SeatPlayer:
    """One seat: the table's messages in, `act` (or `forfeit`) messages out, and a program per
    game in between, started when its game starts and closed when it ends."""

    def __init__(self, command: Sequence[str], settings: ExecSettings, seat: int) -> None:
        self.command = list(command)
        self.settings = settings
        self.seat = seat
        self.bot: ExecBot | None = None  # the program of the game being played
        self.stand_in: Bot | None = None  # plays a game the program's hello excludes
        self.table: dict[str, Any] | None = None
        self.game_id: int | None = None  # the game being played (or last played) at the seat
        self.ended: int | None = None  # the last game whose end the program was told
        self.over_since: float | None = None  # when the last game ended: the seat waits for a rematch
        self.acted: tuple[int, int] | None = None  # (game, version) of the last move sent
        self.ref = 0
        self.programs = 0  # programs started: one per game
        self.gone: str | None = None  # why this seat is no longer played
        self.broken = False  # the program could not start: the bridge goes offline

    def linger_left(self) -> float | None:
        """Seconds left to wait for a new game after the last one ended; None while one is on."""
        if self.over_since is None:
            return None
        wait = LINGER if self._rematch_possible() else 0.0
        return max(0.0, wait - (time.monotonic() - self.over_since))

    def _rematch_possible(self) -> bool:
        """Whether a person hosts the table, who may start another game (a ladder's has none)."""
        if self.table is None:
            return True
        host = self.table["seats"][self.table["host_seat"]]
        return bool(host["kind"] == "human" and host.get("bot_account") is None)

    def why_leave(self) -> str:
        if self._rematch_possible():
            return f"no new game within {LINGER:g} s of the last"
        return "the game is over, and nobody at the table can start another"

    async def on_message(self, message: dict[str, Any]) -> dict[str, Any] | None:
        kind = message.get("type")
        if kind == "table":
            self.table = message["table"]
            forfeit = self.table.get("forfeit")
            # A seat forfeited this game (another bot's program failed): it ends with no result
            # in the state, so the table says it.
            if forfeit is not None and self.table.get("game_id") == self.game_id and self.ended != self.game_id:
                await self._end_game(self._forfeit_events(forfeit["seat"], forfeit["reason"]))
        elif kind == "error":
            if message.get("code") in ("not_seated", "no_table"):
                self.gone = message["message"]
            elif message.get("code") != "not_your_turn":
                log.warning("table refused a move: %s", message.get("message"))
                self.acted = None  # try again with the next state
        elif kind == "state" and message.get("state") is not None:
            return await self._on_state(message["state"])
        return None

    async def _on_state(self, state: dict[str, Any]) -> dict[str, Any] | None:
        bot_view = state.get("bot_view")
        if bot_view is None or self.table is None:
            return None
        game_id = state["game_id"]
        if game_id == self.ended:
            return None  # its end is told (a forfeit): later states change nothing
        if state["result"] is not None:
            if game_id == self.game_id:
                await self._end_game(self._final_events(bot_view["view"]))
            elif self.over_since is None and self.bot is None:
                self.over_since = time.monotonic()  # seated at a finished game: wait for a rematch
            return None
        if game_id != self.game_id:
            refused = await self._new_game(game_id, state)
            if refused is not None:
                return refused
        if state["to_act"] != self.seat or not bot_view["legal"]:
            return None
        key = (game_id, state["version"])
        if key == self.acted:
            return None
        player = self.bot if self.bot is not None else self.stand_in
        if player is None:
            return None
        options = Options.from_dict(self.table["options"])
        view = decode_view(bot_view["view"], options, bot_view["legal"], bot_view["moves"])
        try:
            action = await asyncio.to_thread(player.act, view)
        except Forfeit as e:
            return await self._forfeit(e.reason)
        self.acted = key
        self.ref += 1
        return {"type": "act", "action": action_to_list(action, view.seats), "ref": self.ref}

    async def _new_game(self, game_id: int, state: dict[str, Any]) -> dict[str, Any] | None:
        """Start this game's program and tell it of the game; a forfeit if the seat cannot play."""
        assert self.table is not None
        if self.bot is not None:  # the last game's program, whose end never came: let it go
            await self._end_game(())
        self.game_id, self.over_since, self.acted, self.stand_in = game_id, None, None, None
        options = Options.from_dict(self.table["options"])
        game = Game(options, list(state["seats"]))
        try:
            bot = await asyncio.to_thread(ExecBot, self.command, None, self.settings)
        except BotStartError as e:
            self.gone, self.broken = f"the program cannot start: {e}", True
            return await self._forfeit(self.gone) if self.settings.fallback == "forfeit" else None
        self.programs += 1
        try:
            await asyncio.to_thread(bot.start, game, self.seat, self.table.get("preset"))
        except BotUnsupported as e:
            # The table's rules changed after the invitation was accepted: the fallback plays.
            await asyncio.to_thread(bot.close)
            if self.settings.fallback == "forfeit":
                return await self._forfeit(str(e))
            self.stand_in = make_builtin(self.settings.fallback, None)
            return None
        self.bot = bot
        return None

    async def _forfeit(self, reason: str) -> dict[str, Any]:
        """This seat gives up the game, as in `play`: its program is told, then the table."""
        await self._end_game(self._forfeit_events(self.seat, reason))
        return {"type": "forfeit", "reason": reason[:MAX_REASON]}

    async def _end_game(self, events: tuple[Event | Forfeited, ...]) -> None:
        """The game at the seat is over: its program is told (`game_over`) and closed."""
        bot, self.bot, self.stand_in = self.bot, None, None
        self.ended, self.over_since = self.game_id, time.monotonic()
        if bot is not None:
            await asyncio.to_thread(_tell_and_close, bot, events)

    def _final_events(self, view: dict[str, Any]) -> tuple[Event, ...]:
        """The last events of a game that ended, from the seat's view: the reveal, the result."""
        events: list[Event] = []
        if view.get("last_outcome") is not None:
            events.append(RoundResolved(m.decode_outcome(view["last_outcome"])))
        if view.get("result") is not None:
            events.append(GameOver(m.decode_result(view["result"])))
        return tuple(events)

    def _forfeit_events(self, seat: int, reason: str) -> tuple[Forfeited, GameOver]:
        assert self.table is not None
        options = Options.from_dict(self.table["options"])
        result = forfeit_result(options.num_players, seat, options.rounds == "single")
        return (Forfeited(seat, reason), GameOver(result))

    def close(self) -> None:
        bot, self.bot = self.bot, None
        if bot is not None:
            with contextlib.suppress(Exception):
                bot.close()


def _tell_and_close(bot: ExecBot, events: tuple[Event | Forfeited, ...]) -> None:
    try:
        if events:
            with contextlib.suppress(Exception):
                bot.observe(events)
    finally:
        bot.close()


def run_bridge(bridge: Bridge) -> None:
    """Run until interrupted; ConnectError when the server refuses the token or the program
    cannot play."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(bridge.run())
