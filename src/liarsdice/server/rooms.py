"""Live tables: seats, connections, the game, bots, timers, and the order of things.

A `Room` is one table. Everything that changes it runs under its lock, in this order: compute the
new state with the rules engine (nothing changes if the rules refuse), store every step in the
database and wait for the commit, then update memory, then tell each connection its own view.
So a client is never told of an action the database does not hold, and after a crash the steps in
the database rebuild every table exactly (same dice, same turn).

Bots play the bot seats, and play for a person whose turn timer ran out or who has been away for
longer than the grace period; the person gets the seat back by acting or reconnecting.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import random
import re
import secrets
import time
import unicodedata
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from ..bots import BOT_LEVELS, Bot, make_bot
from ..record import FORMAT, VERSION, Recorder, replay
from ..rules import (
    Economy,
    Game,
    GameState,
    IllegalAction,
    InvalidText,
    Options,
    OptionsError,
    RoundResolved,
    Turn,
    action_from_list,
    find_preset,
    merge_overrides,
)
from .storage import ChatRow, GameRow, SeatRow, StepRow, Store, TableRow, as_utc, utcnow
from .views import game_view_json, turn_json

log = logging.getLogger("liarsdice.server")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
CODE_LENGTH = 6
_CODE_CHARS = frozenset(CODE_ALPHABET)
NAME_MAX = 24
CHAT_MAX = 300
CHAT_HISTORY = 50
MAX_MESSAGE = 4096
RATE_PER_SECOND = 20.0
RATE_BURST = 40.0
FLOOD_LIMIT = 100  # refused messages in a row before the connection is closed
SEND_QUEUE = 256  # messages waiting for a slow client before it is dropped
SEND_TIMEOUT = 10.0


class RoomError(Exception):
    """A request the table refuses; `code` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


# Characters a name may not hold: they cannot be stored (a lone surrogate), or they hide or
# disguise a name (control characters, zero-width and bidi-override formatting like U+202E).
_HIDDEN = {"Cs": "a lone surrogate", "Cc": "a control character", "Cf": "an invisible formatting character"}
NAME_RULE = f"a name has 1 to {NAME_MAX} letters, digits, punctuation marks, symbols or spaces"


def clean_name(name: object) -> str:
    """`name` with its spaces collapsed, or RoomError saying what a name may hold."""
    if not isinstance(name, str):
        raise RoomError("bad_message", "a name is text")
    name = " ".join(name.split())  # every kind of space and line break becomes one space
    if not 1 <= len(name) <= NAME_MAX:
        raise RoomError("bad_message", NAME_RULE)
    for ch in name:
        what = _HIDDEN.get(unicodedata.category(ch))
        if what is not None:
            raise RoomError("bad_message", f"{NAME_RULE}, not {what} (U+{ord(ch):04X})")
    return name


def clean_chat(text: str) -> str:
    text = _CONTROL.sub(" ", text).strip()
    if not text:
        raise RoomError("bad_message", "an empty chat line")
    if len(text) > CHAT_MAX:
        raise RoomError("bad_message", f"a chat line has at most {CHAT_MAX} characters (this one has {len(text)})")
    return text


# ----- table limits (docs/protocol.md) -----
# Numbers a real table uses. They are checked on the options as sent, before the engine builds
# anything from them: a game's size follows from them, and every view of the seat to act lists
# all its moves, on the event loop that serves every table.
MAX_SEATS = 12
MAX_FACES = 20
MAX_DICE = 20  # a player's dice at the start, and at most (dice_per_player, max_dice)
MAX_CHIPS = 1000  # economy: starting_chips and a constant min_bet
MAX_MOVES = 50_000  # the moves one turn may offer: bids x pushes x raises
OFF_LOOP_MOVES = 2_000  # a table whose turns may offer more has them listed off the event loop


def _shown(value: int) -> str:
    if abs(value) < 10**12:
        return str(value)
    size = abs(value).bit_length()  # str() of more than 4,300 digits is refused: count them another way
    digits = len(str(abs(value))) if size < 14_000 else f"about {int(size * 0.30103):,}"
    return f"a {'negative ' if value < 0 else ''}number of {digits} digits"


def _within(name: str, value: Any, low: int, high: int) -> int | None:
    """`value` if it is a whole number from `low` to `high`; None if it is no whole number (the
    engine's parser says what it must be); OptionsError if it is out of range."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    if not low <= value <= high:
        raise OptionsError(f"{name} must be {low} to {high} at a table, not {_shown(value)}")
    return value


def _per_seat(name: str, value: Any, low: int, high: int) -> list[int] | None:
    """A number of dice, or a list of one per seat, checked like `_within`."""
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_SEATS:
            raise OptionsError(f"{name} lists {len(value)} seats: a table has at most {MAX_SEATS}")
        got = [_within(f"{name} (seat {i})", v, low, high) for i, v in enumerate(value)]
        return [g for g in got if g is not None] if None not in got else None
    one = _within(name, value, low, high)
    return None if one is None else [one]


def _push_choices(cup: int, faces: int) -> int:
    """The most pushes (none included) a cup of `cup` dice may offer: its sub-multisets, most
    when its faces are spread evenly, less the whole cup."""
    used = min(cup, faces)
    q, r = divmod(cup, used)
    return int((q + 2) ** r * (q + 1) ** (used - r)) - 1


def _turn_size(cups: list[int], faces: int, push: bool, chips: int | None) -> tuple[int, int, int]:
    """The most bids, pushes (none included) and raises (none included) a turn may offer."""
    pushes = _push_choices(max(cups), faces) if push else 1
    raises = 1 + len(cups) * chips if chips is not None else 1  # any raise up to every chip in play
    return sum(cups) * faces, pushes, raises


def moves_bound(options: Options) -> int:
    """The most moves a turn of a game with these options may offer (MAX_MOVES at a table)."""
    cups = [options.dice_cap(seat) for seat in range(options.num_players)]
    chips = options.economy.starting_chips if options.economy is not None else None
    bids, pushes, raises = _turn_size(cups, options.faces, options.push, chips)
    return (bids + 1) * pushes * raises


def check_table_limits(options: Mapping[str, Any]) -> None:
    """OptionsError, naming the option, the value and the range, for options (by RULES.md 2.1
    names, merged over a preset) beyond the table limits. Cheap: nothing is built."""
    n = _within("num_players", options.get("num_players"), 2, MAX_SEATS)
    faces = _within("faces", options.get("faces"), 2, MAX_FACES)
    start = _per_seat("dice_per_player", options.get("dice_per_player"), 1, MAX_DICE)
    cap_value = options.get("max_dice")
    uncapped = cap_value in (None, "none", "dice_per_player")  # as many as at the start
    cap = None if uncapped else _per_seat("max_dice", cap_value, 1, MAX_DICE)
    first = options.get("first_starter")
    if first != "random":
        _within("first_starter", first, 0, MAX_SEATS - 1)
    one_die = options.get("one_die_round")
    if isinstance(one_die, Mapping) and "min_players" in one_die:
        _within("one_die_round.min_players", one_die["min_players"], 2, MAX_SEATS)
    economy = options.get("economy")
    chips: int | None = None
    if economy is True:
        chips = Economy().starting_chips
    elif isinstance(economy, Mapping):
        chips = _within("economy.starting_chips", economy.get("starting_chips", Economy().starting_chips), 0, MAX_CHIPS)
        bet = economy.get("min_bet")
        if isinstance(bet, Mapping) and set(bet) == {"const"}:
            bet = bet["const"]
        digits = bet[5:].strip(" :=") if isinstance(bet, str) and bet.startswith("const") else ""
        if digits.isdigit():  # "const 3"; digits other than 0 to 9 too, which the engine cannot read
            if not digits.isascii() or len(digits) > 12:
                shown = repr(digits if len(digits) <= 12 else digits[:12] + "...")
                raise OptionsError(f"economy.min_bet must be round_number or 0 to {MAX_CHIPS} chips, not {shown}")
            bet = int(digits)
        _within("economy.min_bet", bet, 0, MAX_CHIPS)
    if n is None or faces is None or start is None or (cap is None and not uncapped):
        return  # not numbers: the engine says what they must be
    caps = cap or start
    if {len(start), len(caps)} - {1, n}:
        return  # lists that do not fit the seats: the engine says so
    cups = [max(start[i % len(start)], caps[i % len(caps)]) for i in range(n)]
    push = options.get("push")
    bids, pushes, raises = _turn_size(cups, faces, push is True or str(push).lower() in ("yes", "true", "on"), chips)
    moves = (bids + 1) * pushes * raises
    if moves > MAX_MOVES:
        parts = [f"{bids:,} bids"] + [f"{pushes:,} pushes"] * (pushes > 1) + [f"{raises:,} raises"] * (raises > 1)
        fewer = "players, dice, faces or chips" if raises > 1 else "players, dice or faces"
        raise OptionsError(
            f"these options give a player up to {moves:,} moves in a turn ({' x '.join(parts)}): "
            f"a table allows at most {MAX_MOVES:,}: choose fewer {fewer}"
        )


def build_options(preset: str, overrides: dict[str, Any], num_players: int | None = None) -> Options:
    """The options of a table; OptionsError with the engine's message if they cannot be."""
    p = find_preset(preset)
    merged = merge_overrides(p.options, overrides)
    if num_players is not None:
        merged["num_players"] = num_players
    elif "num_players" not in overrides:
        merged["num_players"] = p.default_players
    check_table_limits(merged)
    options = Options.from_dict(merged)
    p.check_table_size(options.num_players)
    return options


@dataclass
class Seat:
    name: str
    kind: str = "empty"  # human, bot, empty
    bot_level: str | None = None
    token_hash: str | None = None


class TokenBucket:
    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.at = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class Connection:
    """One websocket: its seat (None: a spectator), its outgoing queue and its rate limit."""

    def __init__(
        self,
        send: Callable[[str], Awaitable[None]],
        close: Callable[[int], Awaitable[None]],
        rate: float = RATE_PER_SECOND,
        burst: float = RATE_BURST,
    ) -> None:
        self._send = send
        self._close = close
        self.seat: int | None = None
        self.queue: asyncio.Queue[str | None] = asyncio.Queue(maxsize=SEND_QUEUE)
        self.bucket = TokenBucket(rate, burst)
        self.refused_in_a_row = 0
        self.closed = False
        self.name: str | None = None  # a spectator's name in the chat (seats chat by their seat's name)

    def send(self, message: dict[str, Any] | str) -> None:
        if self.closed:
            return
        # allow_nan=False: NaN and Infinity are not JSON; better a failure here than a client
        # that cannot read what it is sent
        text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"), allow_nan=False)
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("closing a connection that does not read its messages")
            self.abort(1013)

    async def pump(self) -> None:
        """Send queued messages in order, each with a time limit, until told to stop."""
        try:
            while True:
                text = await self.queue.get()
                if text is None:
                    break
                await asyncio.wait_for(self._send(text), SEND_TIMEOUT)
        except Exception:
            self.closed = True
        with contextlib.suppress(Exception):
            await self._close(1000)

    def stop(self) -> None:
        """Close after what is queued has been sent."""
        self.closed = True
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            self.abort(1001)

    def abort(self, code: int) -> None:
        """Close now, dropping what is queued."""
        self.closed = True
        while not self.queue.empty():
            self.queue.get_nowait()
        self.queue.put_nowait(None)


@dataclass
class Settings:
    grace: float = 30.0  # seconds an away player's turn waits before a bot plays it
    bot_delay: float = 0.8  # seconds a bot waits before it moves (so people can follow)
    rate: float = RATE_PER_SECOND  # messages a second a connection may send...
    burst: float = RATE_BURST  # ...in bursts of at most this many
    public_url: str | None = None  # the address invitations give (else the first request's)
    # A table not in play that nobody has watched or asked for in this many seconds is dropped
    # from memory (it stays in the database and is loaded again when asked for).
    unload_after: float = 600.0
    # Seconds the reveal of a round is shown before the next round's turn timer and bots start,
    # unless every connected player says `seen` first (`liarsdice serve --reveal-pause`: 5).
    reveal_pause: float = 0.0


@dataclass
class Room:
    manager: RoomManager
    table_id: int
    code: str
    preset: str
    overrides: dict[str, Any]
    turn_seconds: int
    status: str
    host_seat: int
    seats: list[Seat]
    games_played: int = 0
    game_id: int | None = None
    seed: int = 0
    game: Game | None = None
    state: GameState | None = None
    recorder: Recorder | None = None
    conns: set[Connection] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    away_since: dict[int, float] = field(default_factory=dict)
    auto: set[int] = field(default_factory=set)
    turn_started: float = 0.0
    turn_key: tuple[int, int] | None = None
    task: asyncio.Task[None] | None = None
    # One bot per seat, kept across moves: the strong bot learns how each seat bids.
    bots: dict[int, Bot] = field(default_factory=dict)
    touched: float = field(default_factory=time.monotonic)  # last asked for or left
    closed: bool = False
    _options: tuple[Any, Options] | None = None
    # The reveal pause: until `reveal_until` (monotonic) the round that just ended is shown and
    # the next one's timer and bots wait, unless every connected player has seen the reveal.
    reveal_until: float = 0.0
    reveal_round: int | None = None
    reveal_seen: set[int] = field(default_factory=set)
    # The moves of the round that ended last (the engine's state keeps only the current round's).
    round_moves: tuple[int, list[dict[str, Any]]] | None = None
    spectators_named: int = 0

    @property
    def store(self) -> Store:
        return self.manager.store

    @property
    def options(self) -> Options:
        key = (self.preset, json.dumps(self.overrides, sort_keys=True), len(self.seats))
        if self._options is None or self._options[0] != key:
            self._options = (key, build_options(self.preset, self.overrides, len(self.seats)))
        return self._options[1]

    @property
    def steps_done(self) -> int:
        return len(self.recorder.data["steps"]) if self.recorder is not None else 0

    # ----- what clients are told -----

    def table_json(self, base_url: str = "") -> dict[str, Any]:
        connected = {c.seat for c in self.conns if c.seat is not None and not c.closed}
        return {
            "code": self.code,
            "url": f"{base_url.rstrip('/')}/t/{self.code}" if base_url else f"/t/{self.code}",
            "preset": self.preset,
            "title": find_preset(self.preset).title,
            "options": self.options.to_dict(),
            "turn_seconds": self.turn_seconds,
            "status": self.status,
            "host_seat": self.host_seat,
            "seats": [
                {
                    "seat": i,
                    "name": s.name,
                    "kind": s.kind,
                    "bot_level": s.bot_level,
                    "connected": s.kind == "bot" or i in connected,
                    "auto": i in self.auto,
                }
                for i, s in enumerate(self.seats)
            ],
            "spectators": sum(1 for c in self.conns if c.seat is None and not c.closed),
            "game_id": self.game_id,
            "games_played": self.games_played,
        }

    def deadline_ms(self) -> int | None:
        if self.state is None or self.turn_seconds <= 0 or self.state.to_act is None:
            return None
        seat = self.state.to_act
        if self.seats[seat].kind != "human":
            return None
        remaining = self.turn_started + self.turn_seconds - time.monotonic()
        return int((time.time() + max(0.0, remaining)) * 1000)

    def reveal_until_ms(self) -> int | None:
        """When the reveal pause ends (ms since epoch), while one runs."""
        remaining = self.reveal_until - time.monotonic()
        return int((time.time() + remaining) * 1000) if remaining > 0 else None

    def view_json(self, seat: int | None, deadline: int | None, reveal_until: int | None) -> dict[str, Any]:
        """The GameView of `seat`, with the reveal pause and the moves of the round that ended."""
        assert self.state is not None and self.game_id is not None
        view = game_view_json(self.state, seat, self.game_id, deadline, self.steps_done)
        last = view["last_round"]
        if last is not None and self.round_moves is not None and self.round_moves[0] == last["round"]:
            last["moves"] = self.round_moves[1]
        view["reveal_until"] = reveal_until
        return view

    def broadcast_table(self) -> None:
        for conn in list(self.conns):
            conn.send({"type": "table", "table": self.table_json(self.manager.base_url)})

    def broadcast_state(self, ref: tuple[Connection, int | None] | None = None) -> None:
        if self.state is None or self.game_id is None:
            return
        deadline = self.deadline_ms()
        reveal_until = self.reveal_until_ms()
        cache: dict[int | None, str] = {}
        for conn in list(self.conns):
            body = cache.get(conn.seat)
            if body is None:
                view = self.view_json(conn.seat, deadline, reveal_until)
                body = json.dumps(view, separators=(",", ":"), allow_nan=False)
                cache[conn.seat] = body
            r = ref[1] if ref is not None and ref[0] is conn else None
            conn.send(f'{{"type":"state","ref":{json.dumps(r)},"state":{body}}}')

    def state_message(self, conn: Connection) -> dict[str, Any]:
        if self.state is None or self.game_id is None:
            return {"type": "state", "ref": None, "state": None}
        return {
            "type": "state",
            "ref": None,
            "state": self.view_json(conn.seat, self.deadline_ms(), self.reveal_until_ms()),
        }

    # ----- connections -----

    async def attach(self, conn: Connection, token: str | None, name: str | None = None) -> None:
        """Seat `conn` by its token, or let it watch (chatting as `name`, else "Spectator N")."""
        async with self.lock:
            if self.closed:  # put away while this connection said hello: the next one loads it again
                raise RoomError("not_ready", "this table was just put away: connect again")
            self.touched = time.monotonic()
            seat = None
            if token:
                wanted = hash_token(token)
                for i, s in enumerate(self.seats):
                    if s.kind == "human" and s.token_hash is not None and secrets.compare_digest(s.token_hash, wanted):
                        seat = i
                        break
                if seat is None:
                    raise RoomError("not_seated", "this token holds no seat at this table: join again or watch")
            conn.seat = seat
            conn.name = self._spectator_name(name) if seat is None else None
            self.conns.add(conn)
            if seat is not None:
                self.away_since.pop(seat, None)
                self.auto.discard(seat)
            chat = await self.store.call(lambda s: _chat_history(s, self.table_id))
            conn.send(
                {
                    "type": "welcome",
                    "role": "player" if seat is not None else "spectator",
                    "seat": seat,
                    "host": seat == self.host_seat,
                    "name": self.seats[seat].name if seat is not None else conn.name,
                    "server_time": int(time.time() * 1000),
                }
            )
            conn.send({"type": "table", "table": self.table_json(self.manager.base_url)})
            conn.send(self.state_message(conn))
            conn.send({"type": "chat_history", "messages": chat})
            self.broadcast_table()
            self._schedule()

    async def detach(self, conn: Connection) -> None:
        async with self.lock:
            self.conns.discard(conn)
            self.touched = time.monotonic()
            seat = conn.seat
            if seat is not None and not any(c.seat == seat for c in self.conns):
                self.away_since[seat] = time.monotonic()
            self.broadcast_table()
            if not self._end_reveal_if_seen():
                self._schedule()

    def _spectator_name(self, wanted: str | None) -> str:
        """A spectator's chat name: the one asked for, else "Spectator N"; never a seat's or
        another spectator's name (a number is added)."""
        if wanted is None:
            self.spectators_named += 1
            wanted = f"Spectator {self.spectators_named}"
        name = clean_name(wanted)
        taken = {s.name.lower() for s in self.seats if s.kind != "empty"}
        taken |= {c.name.lower() for c in self.conns if c.seat is None and c.name}
        k, unique = 2, name
        while unique.lower() in taken:
            unique, k = f"{name} ({k})", k + 1
        return unique

    # ----- seats and the host's controls -----

    async def join(self, name: str) -> tuple[int, str]:
        name = clean_name(name)
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "this table's game has started: watch it, or ask for a rematch")
            empty = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
            if not empty:
                raise RoomError("not_ready", "every seat at this table is taken")
            seat = empty[0]
            name = self._unique_name(name, seat)
            token = secrets.token_urlsafe(24)
            await self._set_seats([(seat, Seat(name, "human", None, hash_token(token)))])
            return seat, token

    def _unique_name(self, name: str, seat: int) -> str:
        taken = {s.name.lower() for i, s in enumerate(self.seats) if i != seat and s.kind != "empty"}
        taken |= {f"seat {i + 1}" for i in range(len(self.seats)) if i != seat}
        if name.lower() not in taken:
            return name
        k = 2
        while f"{name} ({k})".lower() in taken:
            k += 1
        return f"{name} ({k})"

    def _host(self, conn: Connection) -> None:
        if conn.seat != self.host_seat:
            raise RoomError("not_host", "only the host can do that")

    async def leave(self, conn: Connection) -> None:
        """A seated player gives the seat up before the start (the host keeps the table)."""
        seat = conn.seat
        if seat is None:
            raise RoomError("not_seated", "spectators have no seat to leave")
        if seat == self.host_seat:
            raise RoomError("not_host", "the host keeps the table: there is no leaving it")
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "seats can be left only before the game starts")
            former = self.seats[seat].name
            await self._set_seats([(seat, Seat(f"Seat {seat + 1}"))])
            for c in self.conns:
                if c.seat == seat:
                    c.seat = None  # watching from now on, chatting under the same name
                    c.name = self._spectator_name(former)
                    c.send(
                        {
                            "type": "welcome",
                            "role": "spectator",
                            "seat": None,
                            "host": False,
                            "name": c.name,
                            "server_time": int(time.time() * 1000),
                        }
                    )
            self.away_since.pop(seat, None)
            self.broadcast_table()  # the seat's connections now watch

    async def fill_bots(self, conn: Connection, level: str) -> None:
        self._host(conn)
        if level not in BOT_LEVELS:
            raise RoomError("bad_message", f"unknown bot level {level!r}: the levels are {', '.join(BOT_LEVELS)}")
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "bots can be seated only before the game starts")
            changed: list[tuple[int, Seat]] = []
            k = 1
            for i, s in enumerate(self.seats):
                if s.kind == "empty":
                    while f"bot {k}" in {x.name.lower() for x in self.seats}:
                        k += 1
                    changed.append((i, Seat(f"Bot {k}", "bot", level, None)))
                    k += 1
            if not changed:
                raise RoomError("not_ready", "there is no empty seat to fill")
            await self._set_seats(changed)

    async def clear_bots(self, conn: Connection) -> None:
        self._host(conn)
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "bots can leave only before the game starts")
            await self._set_seats([(i, Seat(f"Seat {i + 1}")) for i, s in enumerate(self.seats) if s.kind == "bot"])

    async def _set_seats(self, changed: list[tuple[int, Seat]]) -> None:
        """Store the seats that changed, then hold them and tell everyone (under the lock)."""
        table_id = self.table_id
        await self.store.call(lambda s: [_save_seat(s, table_id, i, seat) for i, seat in changed])
        for i, seat in changed:
            self.seats[i] = seat
        self.broadcast_table()

    async def configure(
        self, conn: Connection, preset: str | None, options: dict[str, Any] | None, turn_seconds: int | None
    ) -> None:
        self._host(conn)
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "the rules can change only before the game starts")
            new_preset = find_preset(preset).name if preset is not None else self.preset
            overrides = dict(options) if options is not None else dict(self.overrides)
            try:
                built = build_options(new_preset, overrides)
            except OptionsError as e:
                raise RoomError("bad_options", str(e)) from e
            n = built.num_players
            if any(s.kind == "human" for s in self.seats[n:]):
                raise RoomError("bad_options", f"seats above {n} are taken by people: they must leave first")
            seconds = self.turn_seconds if turn_seconds is None else turn_seconds
            if not 0 <= seconds <= 3600:
                raise RoomError("bad_options", "the turn timer is 0 (none) to 3600 seconds")
            seats = self.seats[:n] + [Seat(f"Seat {i + 1}") for i in range(len(self.seats), n)]
            overrides["num_players"] = n
            await self.store.call(lambda s: _save_rules(s, self.table_id, new_preset, overrides, seconds, seats))
            self.preset, self.overrides, self.turn_seconds, self.seats = new_preset, overrides, seconds, seats
            self.broadcast_table()

    async def start(self, conn: Connection) -> None:
        self._host(conn)
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "the game has started already")
            await self._new_game()

    async def rematch(self, conn: Connection) -> None:
        self._host(conn)
        async with self.lock:
            if self.status != "finished":
                raise RoomError("not_ready", "a rematch follows a finished game")
            await self._new_game()

    async def _new_game(self) -> None:
        if any(s.kind == "empty" for s in self.seats):
            raise RoomError("not_ready", "every seat must be taken (a person or a bot) before the start")
        options = self.options
        names = [s.name for s in self.seats]
        game = Game(options, names)
        players = [
            {"name": s.name, "kind": "person" if s.kind == "human" else "bot", "level": s.bot_level} for s in self.seats
        ]
        seed = secrets.randbits(62)
        game_id = await self.store.call(
            lambda s: _new_game_row(s, self.table_id, self.preset, options, names, players, seed)
        )
        self.game_id, self.seed, self.game = game_id, seed, game
        self.recorder = Recorder(game, seed=seed, preset=self.preset, players=players, meta={"table": self.code})
        self.state = game.new_initial_state()
        self.status = "playing"
        self.games_played += 1
        self.auto.clear()
        await self._advance(self.state, [])
        self.broadcast_table()

    # ----- play -----

    def dealer(self, step: int) -> random.Random:
        """The luck of step `step`: drawn from the seed and the step number alone, so a restarted
        server deals exactly the dice the old one would have."""
        return random.Random(f"{self.seed}:{step}")

    async def act(self, conn: Connection, raw: list[Any], ref: int | None) -> None:
        async with self.lock:
            if self.state is None or self.status != "playing":
                raise RoomError("no_game", "no game is being played at this table")
            seat = conn.seat
            if seat is None:
                raise RoomError("not_seated", "spectators watch: join a seat to play")
            state = self.state
            if state.to_act != seat:
                who = self.seats[state.to_act].name if state.to_act is not None else "nobody"
                raise RoomError("not_your_turn", f"it is {who}'s turn, not yours")
            try:
                parsed = action_from_list(raw, state.seats)
                if parsed.is_bare_push:
                    raise IllegalAction("push only with a bid or pass")
                if parsed.reroll is not None:
                    raise IllegalAction("the server rolls the dice: a move cannot carry a reroll")
                action = state.default_challenge(seat) if parsed.wants_default_target else parsed.action
                assert action is not None
                after, events = state.apply(action, seat)
            except (IllegalAction, InvalidText) as e:
                raise RoomError("illegal", str(e)) from e
            took_back = seat in self.auto
            self.auto.discard(seat)
            await self._advance(state, [(state, action, after, events)], ref=(conn, ref))
            if took_back:  # every page shows the seat as its person's again
                self.broadcast_table()

    async def _advance(
        self,
        state: GameState,
        pending: list[tuple[GameState, Any, GameState, tuple[Any, ...]]],
        ref: tuple[Connection, int | None] | None = None,
    ) -> None:
        """Deal what luck owes, store every step, then update memory and tell everyone."""
        assert self.recorder is not None and self.game_id is not None
        current = pending[-1][2] if pending else state
        index = self.steps_done + len(pending)
        while current.is_chance:
            chance = current.sample_chance(self.dealer(index))
            after, events = current.apply(chance)
            pending.append((current, chance, after, events))
            current = after
            index += 1
        rows = [self.recorder.step_json(before, action) for before, action, _, _ in pending]
        first = self.steps_done
        game_id = self.game_id
        await self.store.call(lambda s: _save_steps(s, game_id, first, rows))
        ended = False
        for (before, action, after, events), row in zip(pending, rows, strict=True):
            self.recorder.note(before, action, after, events, row)
            ended = self._note_round(before, events) or ended
        if moves_bound(current.options) > OFF_LOOP_MOVES:
            # Every view of the seat to act lists all its moves (the state keeps them): at a big
            # table that takes a while, so list them off the event loop that serves every table.
            await asyncio.to_thread(current.legal_actions)
        self.state = current
        if current.is_terminal:
            await self._finish()
        # A round that ends opens the reveal pause, if a person is there to see it; any other
        # move ends it (the game goes on).
        pause = self.manager.settings.reveal_pause
        watched = any(c.seat is not None and not c.closed for c in self.conns)
        if ended and pause > 0 and watched and not current.is_terminal and self.round_moves is not None:
            self.reveal_until = time.monotonic() + pause
            self.reveal_round = self.round_moves[0]
            self.reveal_seen = set()
        elif pending:
            self.reveal_until, self.reveal_round = 0.0, None
        self._turn_changed()
        self.broadcast_state(ref)
        self._schedule()

    def _note_round(self, before: GameState, events: tuple[Any, ...]) -> bool:
        """Keep the moves of a round that these events end; whether they end one."""
        outcome = next((e.outcome for e in events if isinstance(e, RoundResolved)), None)
        if outcome is None:
            return False
        view = before.view(None)
        turns = (*before.history, *(e for e in events if isinstance(e, Turn)))
        self.round_moves = (outcome.round_no, [turn_json(t, view) for t in turns])
        return True

    async def seen(self, conn: Connection, round_no: int) -> None:
        """`conn` has seen the reveal of round `round_no`: when every connected player has, the
        reveal pause ends early. Late or repeated word is harmless and changes nothing."""
        async with self.lock:
            if conn.seat is None or self.reveal_round != round_no or self.reveal_until <= time.monotonic():
                return
            self.reveal_seen.add(conn.seat)
            self._end_reveal_if_seen()

    def _end_reveal_if_seen(self) -> bool:
        """End the reveal pause if every seat with a person connected has seen it (under the
        lock); whether it ended. Spectators and bots do not hold a table up."""
        now = time.monotonic()
        if self.reveal_until <= now:
            return False
        connected = {c.seat for c in self.conns if c.seat is not None and not c.closed}
        if not connected <= self.reveal_seen:
            return False
        self.reveal_until, self.reveal_round = 0.0, None
        self.turn_started = min(self.turn_started, now)
        self.broadcast_state()
        self._schedule()
        return True

    async def _finish(self) -> None:
        assert self.recorder is not None and self.game_id is not None and self.state is not None
        self.recorder.data["meta"]["finished"] = utcnow().isoformat(timespec="seconds")
        record = self.recorder.to_json()
        result = self.state.result
        winners = [self.state.seats[s] for s in result.winners] if result is not None else []
        rounds = len(record["rounds"])
        game_id = self.game_id
        await self.store.call(lambda s: _finish_game(s, self.table_id, game_id, record, winners, rounds))
        self.status = "finished"
        self.auto.clear()
        self.broadcast_table()

    def _turn_changed(self) -> None:
        state = self.state
        key = (self.steps_done, state.to_act if state is not None and state.to_act is not None else -1)
        if key != self.turn_key:
            self.turn_key = key
            self.turn_started = max(time.monotonic(), self.reveal_until)  # after the reveal pause

    def _schedule(self) -> None:
        """Arrange the next move nobody at a keyboard will make: a bot's, or one for a person
        whose timer runs out or who is away past the grace period."""
        if self.task is not None and not self.task.done() and self.task is not asyncio.current_task():
            self.task.cancel()
        self.task = None
        state = self.state
        if self.closed or state is None or self.status != "playing" or state.to_act is None:
            return
        seat = state.to_act
        kind = self.seats[seat].kind
        now = time.monotonic()
        if kind == "bot":
            wait = self.manager.settings.bot_delay + max(0.0, self.turn_started - now)
        else:
            times = []
            if self.turn_seconds > 0:
                times.append(self.turn_started + self.turn_seconds)
            if seat in self.away_since:
                if seat in self.auto:  # a bot has taken the seat over: it plays at a bot's pace
                    times.append(self.turn_started + self.manager.settings.bot_delay)
                else:
                    times.append(max(self.away_since[seat], self.turn_started) + self.manager.settings.grace)
            if not times:
                return
            wait = max(0.0, min(times) - now)
        self.task = asyncio.get_running_loop().create_task(self._move_for(seat, self.steps_done, wait))

    async def _move_for(self, seat: int, step: int, wait: float) -> None:
        if wait > 0:
            await asyncio.sleep(wait)
        async with self.lock:
            state = self.state
            if state is None or self.steps_done != step or state.to_act != seat or self.status != "playing":
                return
            s = self.seats[seat]
            level = s.bot_level if s.kind == "bot" and s.bot_level else "probability"
            bot = self.bots.get(seat)
            if bot is None or bot.level != level:
                bot = self.bots[seat] = make_bot(level, None)
            bot.rng.seed(f"{self.seed}:{step}:{seat}")
            try:
                # off the event loop: a decision may take a while (a cfr bot solving a new game)
                action = await asyncio.to_thread(bot.act, state.view(seat))
                after, events = state.apply(action, seat)
            except Exception:
                log.exception("bot %s failed at table %s", level, self.code)
                return
            if s.kind == "human":
                self.auto.add(seat)
                self.broadcast_table()
            try:
                await self._advance(state, [(state, action, after, events)])
            except Exception:
                log.exception("could not store a bot move at table %s", self.code)

    # ----- chat -----

    async def chat(self, conn: Connection, text: str) -> None:
        text = clean_chat(text)
        name = self.seats[conn.seat].name if conn.seat is not None else conn.name or "Spectator"
        at = int(time.time() * 1000)
        await self.store.call(lambda s: s.add(ChatRow(table_id=self.table_id, seat_no=conn.seat, name=name, text=text)))
        message = {"type": "chat", "from": name, "seat": conn.seat, "text": text, "at": at}
        for c in list(self.conns):
            c.send(message)

    def close(self) -> None:
        self.closed = True
        if self.task is not None:
            self.task.cancel()
        for conn in list(self.conns):
            conn.stop()


# ----- database jobs (run on the store's thread) -----


def _chat_history(session: Session, table_id: int) -> list[dict[str, Any]]:
    rows = session.scalars(
        select(ChatRow).where(ChatRow.table_id == table_id).order_by(ChatRow.id.desc()).limit(CHAT_HISTORY)
    ).all()
    return [
        {"from": r.name, "seat": r.seat_no, "text": r.text, "at": int(as_utc(r.created_at).timestamp() * 1000)}
        for r in reversed(rows)
    ]


def _save_seat(session: Session, table_id: int, seat_no: int, seat: Seat) -> None:
    row = session.scalar(select(SeatRow).where(SeatRow.table_id == table_id, SeatRow.seat_no == seat_no))
    if row is None:
        row = SeatRow(table_id=table_id, seat_no=seat_no)
        session.add(row)
    row.name, row.kind, row.bot_level, row.token_hash = seat.name, seat.kind, seat.bot_level, seat.token_hash


def _save_rules(
    session: Session, table_id: int, preset: str, overrides: dict[str, Any], seconds: int, seats: list[Seat]
) -> None:
    table = session.get(TableRow, table_id)
    assert table is not None
    table.preset, table.options, table.turn_seconds = preset, overrides, seconds
    for row in session.scalars(select(SeatRow).where(SeatRow.table_id == table_id, SeatRow.seat_no >= len(seats))):
        session.delete(row)
    for i, seat in enumerate(seats):
        _save_seat(session, table_id, i, seat)


def _new_game_row(
    session: Session,
    table_id: int,
    preset: str,
    options: Options,
    names: list[str],
    players: list[dict[str, Any]],
    seed: int,
) -> int:
    row = GameRow(
        table_id=table_id,
        preset=preset,
        options=options.to_dict(),
        seats=names,
        players=players,
        seed=seed,
        status="playing",
        rounds=0,
    )
    session.add(row)
    session.flush()
    table = session.get(TableRow, table_id)
    assert table is not None
    table.status, table.game_id = "playing", row.id
    table.games_played += 1
    return row.id


def _save_steps(session: Session, game_id: int, first: int, rows: list[dict[str, Any]]) -> None:
    session.add_all(StepRow(game_id=game_id, idx=first + i, data=row) for i, row in enumerate(rows))


def _finish_game(
    session: Session, table_id: int, game_id: int, record: dict[str, Any], winners: list[str], rounds: int
) -> None:
    game = session.get(GameRow, game_id)
    table = session.get(TableRow, table_id)
    assert game is not None and table is not None
    game.status, game.record, game.winners, game.rounds = "finished", record, winners, rounds
    game.finished_at = utcnow()
    table.status = "finished"


def _load_table(session: Session, code: str) -> dict[str, Any] | None:
    table = session.scalar(select(TableRow).where(TableRow.code == code))
    if table is None:
        return None
    seats = session.scalars(select(SeatRow).where(SeatRow.table_id == table.id).order_by(SeatRow.seat_no)).all()
    out: dict[str, Any] = {
        "id": table.id,
        "code": table.code,
        "preset": table.preset,
        "options": table.options,
        "turn_seconds": table.turn_seconds,
        "status": table.status,
        "host_seat": table.host_seat,
        "games_played": table.games_played,
        "game_id": table.game_id,
        "seats": [Seat(r.name, r.kind, r.bot_level, r.token_hash) for r in seats],
        "game": None,
    }
    if table.game_id is not None:
        game = session.get(GameRow, table.game_id)
        if game is not None:
            steps = session.scalars(select(StepRow).where(StepRow.game_id == game.id).order_by(StepRow.idx)).all()
            out["game"] = {
                "id": game.id,
                "preset": game.preset,
                "options": game.options,
                "seats": game.seats,
                "players": game.players,
                "seed": game.seed,
                "status": game.status,
                "steps": [s.data for s in steps],
                "started": game.started_at.isoformat(timespec="seconds"),
            }
    return out


def _create_table(
    session: Session, code: str, preset: str, overrides: dict[str, Any], seconds: int, seats: list[Seat]
) -> int | None:
    if session.scalar(select(TableRow.id).where(TableRow.code == code)) is not None:
        return None
    table = TableRow(
        code=code, preset=preset, options=overrides, turn_seconds=seconds, status="open", host_seat=0, games_played=0
    )
    session.add(table)
    session.flush()
    for i, seat in enumerate(seats):
        _save_seat(session, table.id, i, seat)
    return table.id


class RoomManager:
    """Every live table of one server, loaded from the database on first use."""

    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings
        self.rooms: dict[str, Room] = {}
        self.base_url = ""
        self._loading = asyncio.Lock()

    async def create(self, preset: str, name: str, overrides: dict[str, Any], turn_seconds: int) -> tuple[Room, str]:
        name = clean_name(name)
        try:
            options = build_options(preset, overrides)
        except OptionsError as e:
            raise RoomError("bad_options", str(e)) from e
        if not 0 <= turn_seconds <= 3600:
            raise RoomError("bad_options", "the turn timer is 0 (none) to 3600 seconds")
        preset = find_preset(preset).name
        overrides = {**overrides, "num_players": options.num_players}
        token = secrets.token_urlsafe(24)
        seats = [Seat(name, "human", None, hash_token(token))] + [
            Seat(f"Seat {i + 1}") for i in range(1, options.num_players)
        ]
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            table_id = await self.store.call(
                lambda s, code=code: _create_table(s, code, preset, overrides, turn_seconds, seats)  # type: ignore[misc]
            )
            if table_id is not None:
                room = Room(self, table_id, code, preset, overrides, turn_seconds, "open", 0, seats)
                self.rooms[code] = room
                return room, token
        raise RoomError("not_ready", "could not find a free table code")  # pragma: no cover

    async def get(self, code: str) -> Room | None:
        code = code.strip().upper()
        if len(code) != CODE_LENGTH or not set(code) <= _CODE_CHARS:  # no table: the database need not look
            return None
        room = self.rooms.get(code)
        if room is not None:
            room.touched = time.monotonic()
            return room
        async with self._loading:
            room = self.rooms.get(code)
            if room is not None:
                return room
            data = await self.store.call(lambda s: _load_table(s, code))
            if data is None:
                return None
            room = self._restore(data)
            self.rooms[code] = room
        if room.state is not None and room.status == "playing":
            async with room.lock:
                if room.state.is_chance:  # stored at a new game, before its first deal
                    await room._advance(room.state, [])
                elif room.state.is_terminal:  # stopped between the last step and the result
                    await room._finish()
                room._turn_changed()
                room._schedule()
        return room

    def _restore(self, data: dict[str, Any]) -> Room:
        room = Room(
            self,
            data["id"],
            data["code"],
            data["preset"],
            dict(data["options"]),
            data["turn_seconds"],
            data["status"],
            data["host_seat"],
            list(data["seats"]),
            data["games_played"],
        )
        g = data["game"]
        if g is not None:
            record = {
                "format": FORMAT,
                "version": VERSION,
                "preset": g["preset"],
                "options": g["options"],
                "seats": g["seats"],
                "players": g["players"],
                "seed": g["seed"],
                "steps": g["steps"],
            }
            game_state = None
            for step in replay(record):
                if room.recorder is None:
                    room.game = step.before.game
                    room.recorder = Recorder(
                        room.game, seed=g["seed"], preset=g["preset"], players=g["players"], meta={"table": room.code}
                    )
                room.recorder.note(step.before, step.action, step.after, step.events, g["steps"][step.index])
                room._note_round(step.before, step.events)
                game_state = step.after
            if room.recorder is None:  # a game stored before its first step
                from ..record import game_from_record

                room.game = game_from_record(record)
                room.recorder = Recorder(room.game, seed=g["seed"], preset=g["preset"], players=g["players"])
                game_state = room.game.new_initial_state()
            room.recorder.data["meta"]["started"] = g["started"]
            room.state = game_state
            room.game_id = g["id"]
            room.seed = g["seed"]
        # Nobody is connected to a table just loaded: its people are away from now on, so their
        # turns fall to a bot after the grace period, as for anyone who loses the connection.
        now = time.monotonic()
        room.away_since = {i: now for i, s in enumerate(room.seats) if s.kind == "human"}
        return room

    async def restore_playing(self) -> int:
        """Load every table with a game in play (after a restart), so bots and timers go on."""
        codes = await self.store.call(
            lambda s: list(s.scalars(select(TableRow.code).where(TableRow.status == "playing")))
        )
        for code in codes:
            await self.get(code)
        return len(codes)

    def idle(self, room: Room, now: float) -> bool:
        """Whether `room` may leave memory: no game in play, nobody connected, nothing running
        or waiting, and not asked for in `unload_after` seconds."""
        return (
            room.status != "playing"
            and not room.conns
            and not room.lock.locked()
            and (room.task is None or room.task.done())
            and now - room.touched >= self.settings.unload_after
        )

    def unload_idle(self, now: float | None = None) -> int:
        """Drop the idle tables from memory (see `idle`); how many."""
        now = time.monotonic() if now is None else now
        gone = [code for code, room in self.rooms.items() if self.idle(room, now)]
        for code in gone:
            self.rooms.pop(code).close()
        return len(gone)

    async def sweep(self) -> None:
        """Unload idle tables now and then, for as long as the server runs."""
        every = max(1.0, min(60.0, self.settings.unload_after / 2))
        while True:
            await asyncio.sleep(every)
            gone = self.unload_idle()
            if gone:
                log.info("unloaded %d idle tables; %d in memory", gone, len(self.rooms))

    def close(self) -> None:
        for room in self.rooms.values():
            room.close()
