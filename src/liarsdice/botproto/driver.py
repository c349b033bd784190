"""Drive a bot program over the protocol: an async core and `ExecBot`, its blocking wrapper.

The shape is python-chess's engine module: `BotSession` speaks the protocol over any line channel
with asyncio (a process's pipes here; a websocket for the server's bot accounts later), and
`ExecBot` runs a session on an event loop of its own, in a thread, so that it is a plain `Bot`
that `match.play_game`, the terminal and the arena call like any other.

Nothing a bot does stops a game. A move that goes wrong (no answer in time, an illegal answer, a
line that is no message, a line longer than `MAX_LINE`, the program gone) is counted and answered
with `refused`, and the move is made by the fallback bot, or the bot forfeits
(`ExecSettings.fallback = "forfeit"`). Late answers and second answers are counted and dropped.
Its stderr goes to a log file, prefixed with its process id. `close()` asks it to quit, kills
its whole process group if it has not exited in time, and leaves no process behind.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import re
import shlex
import signal
import threading
import weakref
from collections import Counter
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

from ..bots.base import Bot, BotError, Forfeit, Forfeited, Limit
from ..paths import data_dir
from ..rules import Action, Event, Game, GameOver, PlayerView
from . import messages as m
from .channel import LineTooLong, ProcessChannel, signal_group
from .spec import program_label

T = TypeVar("T")
GRACE = 0.1  # seconds allowed on top of a move's time for the pipes and the scheduler


class BotStartError(ValueError):
    """A program that cannot be seated: it does not start, does not say hello, or speaks another protocol."""


class BotUnsupported(BotError, ValueError):
    """A bot asked to play a game its hello says it does not play."""


@dataclass(frozen=True)
class ExecSettings:
    """How a bot program is driven. `fallback` is a bot level that makes the moves the program
    fails to make, or "forfeit"; `move_time` is the seconds per move when the game gives none."""

    move_time: float = 5.0
    fallback: str = "probability"
    start_time: float = 10.0
    quit_time: float = 2.0
    log_dir: Path | None = None
    transcript: bool = False
    max_line: int = m.MAX_LINE

    def logs(self) -> Path:
        return self.log_dir if self.log_dir is not None else data_dir() / "bot-logs"


@dataclass(frozen=True)
class Reply:
    """What came back for an act request: the action's list form, or a failure and its reason."""

    items: list[Any] | None
    failure: str | None = None
    reason: str = ""


# ----- the session: the protocol over a channel -----


class BotSession:
    """The protocol with one bot: the handshake, requests with ids and deadlines, the answers.

    `notice(kind, reason)` hears of everything that went wrong outside a request (late or second
    answers, garbage between requests); a request's own failure comes back in its `Reply`.
    """

    def __init__(
        self,
        channel: ProcessChannel,
        notice: Callable[[str, str], None],
        transcript: IO[str] | None = None,
    ) -> None:
        self.channel = channel
        self.notice = notice
        self.transcript = transcript
        self.hello: dict[str, Any] = {}
        self.ended: str | None = None  # why the bot is gone, once it is
        self._next = 0
        self._pending: tuple[int, asyncio.Future[Reply]] | None = None
        self._answered: set[int] = set()
        # Requests that got no answer in time, or whose wait a bad line ended: their answers,
        # if they come, are late (dropped), never an answer to the request waiting now.
        self._refused: dict[int, str] = {}
        self._reader: asyncio.Task[None] | None = None

    def _trace(self, direction: str, line: str) -> None:
        if self.transcript is not None:
            with contextlib.suppress(OSError, ValueError):
                self.transcript.write(json.dumps({direction: line.rstrip("\n")}) + "\n")

    async def _write(self, message: dict[str, Any]) -> None:
        line = m.dumps(message)
        self._trace("to_bot", line)
        await self.channel.send(line)

    async def send(self, message: dict[str, Any], wait: float = 1.0) -> None:
        """A message that needs no answer; a bot that is gone or not reading misses it."""
        if self.ended is not None:
            return
        with contextlib.suppress(OSError, RuntimeError, TimeoutError):
            await asyncio.wait_for(self._write(message), wait)

    async def handshake(self, software: str, timeout: float) -> dict[str, Any]:
        try:
            async with asyncio.timeout(timeout):
                await self._write(m.hello_message(software))
                while True:
                    try:
                        line = await self.channel.receive()
                    except LineTooLong:
                        raise BotStartError(f"its hello was longer than {self.channel.max_line} bytes") from None
                    if line is None:
                        raise BotStartError(f"it ended before saying hello: {await self.channel.exit_reason()}")
                    self._trace("from_bot", line)
                    if line.strip():
                        break
        except TimeoutError:
            raise BotStartError(f"it did not say hello within {timeout:g} s") from None
        except OSError as e:
            # Writing the hello to a program that has already exited fails before its end is read
            # (under load, more often than not): say how it ended, as a read of its end would.
            raise BotStartError(
                f"it ended before saying hello: {await self.channel.exit_reason(running=str(e))}"
            ) from None
        try:
            message = m.parse_bot_line(line)
        except m.BadHello as e:
            raise BotStartError(f"its hello is refused: {e}") from None
        except m.BadMessage as e:
            raise BotStartError(f"its first line is no hello: {e}") from None
        if message["type"] != "hello":
            raise BotStartError(f"its first message must be hello, not {message['type']}")
        self.hello = message
        self._reader = asyncio.create_task(self._read_loop())
        return message

    def _fail_pending(self, kind: str, reason: str) -> bool:
        if self._pending is not None and not self._pending[1].done():
            self._refused[self._pending[0]] = kind
            self._pending[1].set_result(Reply(None, kind, reason))
            return True
        return False

    async def _read_loop(self) -> None:
        while True:
            try:
                line = await self.channel.receive()
            except LineTooLong:
                reason = f"a line longer than {self.channel.max_line} bytes"
                if not self._fail_pending("huge_line", reason):
                    self.notice("huge_line", reason)
                continue
            except OSError:
                line = None
            if line is None:
                break
            self._trace("from_bot", line)
            if not line.strip():
                continue
            try:
                message = m.parse_bot_line(line)
            except m.BadMessage as e:
                if not self._fail_pending("garbage", str(e)):
                    self.notice("garbage", str(e))
                continue
            if message["type"] == "hello":
                if not self._fail_pending("garbage", "hello again: a bot says hello once, first"):
                    self.notice("garbage", "hello again: a bot says hello once, first")
                continue
            if message["type"] not in m.BOT_MESSAGE_TYPES:
                # A later version's message: ignored, as bots ignore the types they do not know.
                self.channel.note(f"liarsdice: ignored a message of unknown type {message['type']!r}")
                continue
            request = message["id"]
            pending = self._pending
            if pending is not None and pending[0] == request and not pending[1].done():
                self._answered.add(request)
                pending[1].set_result(Reply(message["action"]))
            elif request in self._answered:
                self.notice("extra", f"a second answer to request {request}, dropped")
            elif 1 <= request <= self._next:  # asked before, and no longer waited for
                why = self._refused.get(request)
                after = "after its time" if why == "timeout" else f"after it was refused ({why or 'not waited for'})"
                self.notice("late", f"an answer to request {request} {after}, dropped")
            else:
                reason = f"an answer to request {request}, which was not asked"
                if not self._fail_pending("garbage", reason):
                    self.notice("garbage", reason)
        self.ended = await self.channel.exit_reason()
        self._fail_pending("crash", self.ended)

    async def request(self, message: dict[str, Any], time: float) -> Reply:
        """Send an act request (its id is set here) and wait `time` seconds for the answer."""
        if self.ended is not None:
            return Reply(None, "crash", self.ended)
        self._next += 1
        request = message["id"] = self._next
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._pending = (request, future)
        try:
            async with asyncio.timeout(time + GRACE):
                # A bot that is gone fails the write; the reader finds its end and fails the request.
                with contextlib.suppress(OSError, RuntimeError):
                    await self._write(message)
                return await future
        except TimeoutError:
            self._refused[request] = "timeout"
            return Reply(None, "timeout", f"no answer within {time:g} s")
        finally:
            self._pending = None

    @property
    def last_request(self) -> int:
        return self._next

    async def quit(self, quit_time: float) -> bool:
        """Say quit and end the program; False if it had to be killed."""
        await self.send(m.QUIT_MESSAGE, wait=0.5)
        exited = await self.channel.close(quit_time)
        if self._reader is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(self._reader), 1.0)
            self._reader.cancel()
        return exited


# ----- the blocking wrapper -----


def _software() -> str:
    from importlib import metadata

    try:
        return f"liarsdice {metadata.version('liarsdice')}"
    except metadata.PackageNotFoundError:
        return "liarsdice"


def _file_name(label: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", label) or "bot"


class ExecBot(Bot):
    """A bot program, seated like any bot: `make_bot("exec:./mybot --deep")`.

    It starts the program at once and shakes hands (BotStartError if that fails), and plays any
    number of games (`start` ... the game's events ... `game_over`) until `close()`. `failures`
    counts what went wrong, by kind (see `messages.FAILURE_KINDS` and `NOTICE_KINDS`).
    """

    level = "exec"
    description = "a program that speaks the bot protocol (docs/bot-protocol.md)"

    def __init__(
        self,
        command: str | Sequence[str],
        seed: int | None = None,
        settings: ExecSettings | None = None,
        label: str | None = None,
    ) -> None:
        super().__init__(seed)
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise BotStartError("no command given")
        self.settings = settings or ExecSettings()
        self.label = label or program_label(self.argv)
        self.failures: Counter[str] = Counter()
        self.seat: int | None = None
        self.game_no = 0
        self.dead = False  # crashed: every move from here on is the fallback's
        self._events: list[dict[str, Any]] = []
        self._closed = False
        fallback = self.settings.fallback
        self.fallback: Bot | None = None
        if fallback != "forfeit":
            from ..bots.builtin import make_builtin

            if fallback.startswith("exec"):
                raise ValueError("the fallback must be a built-in level or forfeit, not another program")
            self.fallback = make_builtin(fallback, seed)
        logs = self.settings.logs()
        logs.mkdir(parents=True, exist_ok=True)
        self._log = (logs / f"{_file_name(self.label)}.log").open("a", encoding="utf-8")
        self._transcript: IO[str] | None = None
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=f"bot {self.label}", daemon=True)
        self._thread.start()
        try:
            self.session = self._call(self._start(), self.settings.start_time + 5)
        except BaseException:
            self._stop_loop()
            raise
        # If the bot is dropped without close(), its process group still goes.
        self._finalizer = weakref.finalize(self, signal_group, self.session.channel.pid, signal.SIGKILL)

    def __repr__(self) -> str:
        return f"ExecBot({shlex.join(self.argv)!r})"

    @property
    def hello(self) -> dict[str, Any]:
        return self.session.hello

    @property
    def pid(self) -> int:
        return self.session.channel.pid

    def _call(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        future: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(coro, self._loop)
        return future.result(timeout)

    async def _start(self) -> BotSession:
        try:
            channel = await ProcessChannel.start(self.argv, self._log, self.settings.max_line)
        except OSError as e:
            raise BotStartError(f"cannot start {shlex.join(self.argv)}: {e.strerror or e}") from None
        self._channel = channel
        if self.settings.transcript:
            path = self.settings.logs() / f"{_file_name(self.label)}-{channel.pid}.jsonl"
            self._transcript = path.open("w", encoding="utf-8")
        session = BotSession(channel, self._notice, self._transcript)
        try:
            await session.handshake(_software(), self.settings.start_time)
        except BotStartError as e:
            channel.note(f"liarsdice: cannot seat it: {e}")
            await session.quit(0.2)
            raise BotStartError(f"{shlex.join(self.argv)}: {e} (its stderr: {self._log.name})") from None
        return session

    def _notice(self, kind: str, reason: str) -> None:
        # Runs on the loop's thread; Counter updates are single operations under the GIL.
        self.failures[kind] += 1
        self._channel.note(f"liarsdice: {kind}: {reason}")

    # ----- the Bot interface -----

    def start(self, game: Game, seat: int, preset: str | None = None) -> None:
        why = m.unsupported(self.hello, preset, game.options)
        if why is not None:
            raise BotUnsupported(f"{self.hello.get('name', self.label)} ({shlex.join(self.argv)}) cannot play: {why}")
        self.game_no += 1
        self.seat = seat
        self._events = []
        message = m.new_game_message(
            game=self.game_no,
            preset=preset,
            options=game.options,
            seats=game.seats,
            seat=seat,
            seed=self.rng.randrange(1 << 31),
            time=self.settings.move_time,
            fallback=self.settings.fallback,
        )
        self._call(self.session.send(message), 5)

    def observe(self, events: Sequence[Event | Forfeited]) -> None:
        """The events of a step as this seat may see them (already redacted by the caller)."""
        assert self.seat is not None, "start() comes before the game's events"
        over: GameOver | None = None
        for event in events:
            self._events.append(m.encode_event(event, self.seat))
            if isinstance(event, GameOver):
                over = event
        if over is not None:
            message = m.game_over_message(self.game_no, self._events, over.result)
            self._events = []
            self._call(self.session.send(message), 5)

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        time = limit.time if limit is not None and limit.time is not None else self.settings.move_time
        if self.dead:
            return self._fall_back(view, limit, None, "crash", self.session.ended or "the program is gone")
        events, self._events = self._events, []
        message = m.act_message(0, self.game_no, view, events, time)
        reply = self._call(self.session.request(message, time), time + 10)
        failure, reason = reply.failure, reply.reason
        if failure is None:
            try:
                return m.decode_answer(reply.items, view)
            except m.IllegalAnswer as e:
                failure, reason = "illegal", str(e)
        assert failure is not None
        self.failures[failure] += 1
        self.session.channel.note(f"liarsdice: {failure} (request {self.session.last_request}): {reason}")
        if failure == "crash":
            self.dead = True
        return self._fall_back(view, limit, self.session.last_request, failure, reason)

    def _fall_back(
        self, view: PlayerView, limit: Limit | None, request: int | None, failure: str, reason: str
    ) -> Action:
        if self.fallback is None:
            if request is not None:
                self._call(self.session.send(m.refused_message(request, failure, reason, None, forfeit=True)), 5)
            raise Forfeit(f"{self.label} forfeits: {failure}: {reason}", f"{failure}: {reason}")
        action = self.fallback.act(view, limit)
        if request is not None:
            self._call(self.session.send(m.refused_message(request, failure, reason, action)), 5)
        return action

    def reseed(self, seed: int | None) -> None:
        """Draw from `seed` from here on, as a bot made with it would (the arena reuses programs)."""
        self.rng.seed(seed)
        if self.fallback is not None:
            from ..bots.builtin import make_builtin

            self.fallback = make_builtin(self.settings.fallback, seed)

    def take_failures(self) -> dict[str, int]:
        """The failures counted since the last call (the arena's per-game counts)."""
        out = dict(self.failures)
        self.failures.clear()
        return out

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            exited = self._call(self.session.quit(self.settings.quit_time), self.settings.quit_time + 5)
            if not exited:
                self.failures["quit_hang"] += 1
                self.session.channel.note(
                    f"liarsdice: quit_hang: still running {self.settings.quit_time:g} s after quit: killed"
                )
        finally:
            self._finalizer()
            self._stop_loop()
            for f in (self._log, self._transcript):
                if f is not None:
                    f.close()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(5)
        if not self._thread.is_alive():
            self._loop.close()


def probe(command: str | Sequence[str], settings: ExecSettings | None = None) -> dict[str, Any]:
    """Start a bot program, take its hello and let it go: BotStartError says why it cannot play."""
    bot = ExecBot(command, None, settings)
    try:
        return dict(bot.hello)
    finally:
        bot.close()
