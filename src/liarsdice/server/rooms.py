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
import json
import logging
import random
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..bots import Bot
from ..levels import resolve
from ..players import make_bot
from ..record import Recorder
from ..rules import (
    Game,
    GameOver,
    GameState,
    IllegalAction,
    InvalidText,
    Options,
    OptionsError,
    RoundResolved,
    Turn,
    action_from_list,
    find_preset,
    redact,
)
from .botaccounts import REVOKED, still_live
from .botlobby import BotLobby
from .connection import Link
from .limits import (
    OFF_LOOP_MOVES,
    RoomError,
    build_options,
    check_turn_seconds,
    clean_chat,
    clean_name,
    hash_token,
    moves_bound,
)
from .metrics import ServerMetrics
from .seatkinds import ACCOUNT_LEVEL, OPERATOR_LEVEL, account_of
from .settings import Settings
from .storage import ChatRow, Store, utcnow
from .tablerows import (
    Seat,
    chat_history,
    finish_game,
    new_game_row,
    save_rules,
    save_seat,
)
from .views import own_view_json, public_view_json, turn_json

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

log = logging.getLogger("liarsdice.server")


class TableKeeper(Protocol):
    """What a table asks of the manager that keeps it (manager.RoomManager); a protocol, so
    that this module imports no module that imports it back."""

    store: Store
    settings: Settings
    metrics: ServerMetrics
    lobby: BotLobby
    base_url: str  # the site's address, for the links a table gives

    def runs(self, room: Room) -> bool: ...


@dataclass
class Room:
    manager: TableKeeper
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
    conns: set[Link] = field(default_factory=set)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    away_since: dict[int, float] = field(default_factory=dict)
    auto: set[int] = field(default_factory=set)
    turn_started: float = 0.0
    turn_key: tuple[int, int] | None = None
    task: asyncio.Task[None] | None = None
    # One bot per seat, kept across moves: the strong bot learns how each seat bids.
    bots: dict[int, Bot] = field(default_factory=dict)
    bot_levels: dict[int, tuple[str, int | None]] = field(default_factory=dict)  # seat -> (level, game)
    # The events that ended the game, per operator's program: told it (game_over) as it is closed.
    program_ends: dict[int, tuple[Any, ...]] = field(default_factory=dict)
    # This game's forfeit, if a bot account's seat forfeited it (forfeit.py): seat, reason, result.
    forfeited: dict[str, Any] | None = None
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
    bots_only: bool = False  # a ladder table: its seats are for the bots the ladder seats or invites

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
                    "bot_account": account_of(s.bot_level) if s.kind == "human" else None,
                }
                for i, s in enumerate(self.seats)
            ],
            "spectators": sum(1 for c in self.conns if c.seat is None and not c.closed),
            "game_id": self.game_id,
            "games_played": self.games_played,
            "forfeit": self.forfeited,
        }

    def invitation(self, seat: int | None) -> dict[str, Any]:
        """What a bot account invited to `seat` (None: the first seat empty when it accepts) is
        told of this table (docs/protocol.md, "Bot accounts")."""
        return {
            "table": self.code,
            "seat": seat,
            "preset": self.preset,
            "options": self.options.to_dict(),
            "turn_seconds": self.turn_seconds,
            "seats": [s.name for s in self.seats],
            "url": f"{self.manager.base_url}/t/{self.code}",
        }

    def deadline_ms(self) -> int | None:
        if self.state is None or self.turn_seconds <= 0 or self.state.to_act is None or self.status != "playing":
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
        # A bot account's seat is also told its view in the bot protocol's words (the same
        # per-seat view), so `liarsdice bot connect` can hand its program a PlayerView.
        view = self.own_json(seat)
        view.update(
            public_view_json(self.state, self.game_id, deadline, self.steps_done, reveal_until, self.round_moves)
        )
        return view

    def own_json(self, seat: int | None) -> dict[str, Any]:
        """`seat`'s own part of its GameView. A game a forfeit ended stops at a turn that nobody
        may take: no seat is offered a move in it."""
        assert self.state is not None
        account = seat is not None and account_of(self.seats[seat].bot_level) is not None
        own = own_view_json(self.state, seat, account)
        if self.status != "playing":
            own["legal"] = None
            if "bot_view" in own:
                own["bot_view"]["legal"] = []
        return own

    def broadcast_table(self) -> None:
        for conn in list(self.conns):
            conn.send({"type": "table", "table": self.table_json(self.manager.base_url)})

    def broadcast_state(self, ref: tuple[Link, int | None] | None = None) -> None:
        if self.state is None or self.game_id is None or not self.conns:
            return
        # The part every seat shares is built and encoded once; each seat's text is its own
        # part followed by it (the same object as view_json gives, in another key order).
        public = json.dumps(
            public_view_json(
                self.state, self.game_id, self.deadline_ms(), self.steps_done, self.reveal_until_ms(), self.round_moves
            ),
            separators=(",", ":"),
            allow_nan=False,
        )
        cache: dict[int | None, str] = {}
        for conn in list(self.conns):
            seat = conn.seat
            body = cache.get(seat)
            if body is None:
                own = json.dumps(self.own_json(seat), separators=(",", ":"), allow_nan=False)
                body = cache[seat] = f"{own[:-1]},{public[1:]}"
            r = ref[1] if ref is not None and ref[0] is conn else None
            conn.send(f'{{"type":"state","ref":{json.dumps(r)},"state":{body}}}')

    def state_message(self, conn: Link) -> dict[str, Any]:
        if self.state is None or self.game_id is None:
            return {"type": "state", "ref": None, "state": None}
        return {
            "type": "state",
            "ref": None,
            "state": self.view_json(conn.seat, self.deadline_ms(), self.reveal_until_ms()),
        }

    # ----- connections -----

    async def attach(self, conn: Link, token: str | None, name: str | None = None) -> None:
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
                account = account_of(self.seats[seat].bot_level)
                if account is not None and not await self.store.call(lambda s: still_live(s, account)):
                    raise RoomError(
                        "revoked", f"the bot account {account!r} was revoked: its seat tokens no longer work"
                    )
            conn.seat = seat
            conn.name = self._spectator_name(name) if seat is None else None
            self.conns.add(conn)
            if seat is not None:
                self.away_since.pop(seat, None)
                self.auto.discard(seat)
            chat = await self.store.call(lambda s: chat_history(s, self.table_id))
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

    async def detach(self, conn: Link) -> None:
        async with self.lock:
            if conn not in self.conns:  # let go already: its bot account was revoked
                return
            self.conns.discard(conn)
            self.touched = time.monotonic()
            seat = conn.seat
            if seat is not None and not any(c.seat == seat for c in self.conns):
                self.away_since[seat] = time.monotonic()
            self.broadcast_table()
            if not self._end_reveal_if_seen():
                self._schedule()

    async def revoke_account(self, name: str) -> None:
        """The bot account `name` was revoked: its seats' connections are closed, and each seat
        it held is away from now on (played by a bot after the grace period); `attach` refuses
        its seat tokens."""
        async with self.lock:
            level = ACCOUNT_LEVEL + name
            gone = [c for c in self.conns if c.seat is not None and self.seats[c.seat].bot_level == level]
            if not gone:
                return
            now = time.monotonic()
            for conn in gone:
                self.conns.discard(conn)
                conn.send(
                    {
                        "type": "error",
                        "code": "revoked",
                        "message": f"the bot account {name!r} was revoked",
                        "ref": None,
                    }
                )
                conn.close_code = REVOKED
                conn.stop()
                assert conn.seat is not None
                if not any(c.seat == conn.seat for c in self.conns):
                    self.away_since.setdefault(conn.seat, now)
            self.broadcast_table()
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
            if self.bots_only:
                raise RoomError("not_ready", "this is a bot ladder table: its seats are for bots; watch it")
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

    def _host(self, conn: Link) -> None:
        if conn.seat != self.host_seat:
            raise RoomError("not_host", "only the host can do that")

    async def leave(self, conn: Link) -> None:
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

    async def fill_bots(self, conn: Link, level: str) -> None:
        self._host(conn)
        try:
            level = resolve(level)  # stored as the bot that plays it: "Master" is "duel"
        except ValueError as e:
            raise RoomError("bad_message", str(e)) from None
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

    async def clear_bots(self, conn: Link) -> None:
        self._host(conn)
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "bots can leave only before the game starts")
            await self._set_seats([(i, Seat(f"Seat {i + 1}")) for i, s in enumerate(self.seats) if s.kind == "bot"])

    def _empty_seat(self, seat: int | None) -> int:
        """`seat` if it is empty (the first empty seat if None), else RoomError saying why not."""
        if self.status != "open":
            raise RoomError("not_ready", "bots can be seated only before the game starts")
        empty = [i for i, s in enumerate(self.seats) if s.kind == "empty"]
        if seat is None:
            if not empty:
                raise RoomError("not_ready", "there is no empty seat to fill")
            return empty[0]
        if seat not in empty:
            free = ", ".join(str(i) for i in empty) or "none"
            raise RoomError("not_ready", f"seat {seat} is not empty: the empty seats are {free}")
        return seat

    async def invite_bot(self, conn: Link, name: str, seat: int | None) -> None:
        """The host invites an operator's bot (seated at once) or an online bot account (which
        is asked, and takes the seat if it accepts while the seat is still empty)."""
        self._host(conn)
        lobby = self.manager.lobby
        async with self.lock:
            seat = self._empty_seat(seat)
            if name in lobby.operator_bots:
                await self._set_seats([(seat, Seat(self._unique_name(name, seat), "bot", OPERATOR_LEVEL + name, None))])
                return
            lobby.invite(name, self, seat, conn)

    async def seat_account(self, name: str, seat: int | None) -> tuple[int, str]:
        """Seat the bot account `name` (it accepted an invitation): the seat and its token."""
        async with self.lock:
            seat = self._empty_seat(seat)
            token = secrets.token_urlsafe(24)
            account = Seat(self._unique_name(name, seat), "human", ACCOUNT_LEVEL + name, hash_token(token))
            await self._set_seats([(seat, account)])
            return seat, token

    async def call_bots(self, conn: Link) -> int:
        """The host says this open table wants bots: every bot account online is invited to the
        first empty seat (the first to accept takes it); how many were told."""
        self._host(conn)
        async with self.lock:
            self._empty_seat(None)
            told = self.manager.lobby.call_all(self, conn)
        if not told:
            raise RoomError("no_bot", "no bot account is online to call")
        return told

    async def _set_seats(self, changed: list[tuple[int, Seat]]) -> None:
        """Store the seats that changed, then hold them and tell everyone (under the lock)."""
        if not self.manager.runs(self):
            raise RoomError("not_ready", "this table is moving to another server: try again")
        table_id = self.table_id

        def save(session: Session) -> None:
            for i, seat in changed:
                save_seat(session, table_id, i, seat)

        await self.store.call(save)
        for i, seat in changed:
            self.seats[i] = seat
        self.broadcast_table()

    async def configure(
        self, conn: Link, preset: str | None, options: dict[str, Any] | None, turn_seconds: int | None
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
            check_turn_seconds(seconds)
            seats = self.seats[:n] + [Seat(f"Seat {i + 1}") for i in range(len(self.seats), n)]
            overrides["num_players"] = n
            await self.store.call(lambda s: save_rules(s, self.table_id, new_preset, overrides, seconds, seats))
            self.preset, self.overrides, self.turn_seconds, self.seats = new_preset, overrides, seconds, seats
            self.broadcast_table()

    async def start(self, conn: Link) -> None:
        self._host(conn)
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "the game has started already")
            await self._new_game()

    async def start_bots_only(self) -> int:
        """Start a table with a bot in every seat and no host (the ladder's); the game's id."""
        async with self.lock:
            if self.status != "open" or any(s.kind != "bot" and account_of(s.bot_level) is None for s in self.seats):
                raise RoomError("not_ready", "only an open table with a bot in every seat starts without a host")
            # An account's seat counts as away until its bot connects: after the grace period a
            # built-in bot plays it, so a bot that never comes holds no ladder table up.
            now = time.monotonic()
            for i, s in enumerate(self.seats):
                if s.kind == "human" and not any(c.seat == i and not c.closed for c in self.conns):
                    self.away_since.setdefault(i, now)
            await self._new_game()
            assert self.game_id is not None
            return self.game_id

    async def rematch(self, conn: Link) -> None:
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
            {"name": s.name, "kind": "person" if s.kind == "human" and not s.bot_level else "bot", "level": s.bot_level}
            for s in self.seats
        ]
        seed = secrets.randbits(62)
        game_id = await self.store.call(
            lambda s: new_game_row(s, self.table_id, self.preset, options, names, players, seed)
        )
        self.game_id, self.seed, self.game = game_id, seed, game
        self.recorder = Recorder(game, seed=seed, preset=self.preset, players=players, meta={"table": self.code})
        self.state = game.new_initial_state()
        self.status = "playing"
        self.games_played += 1
        self.auto.clear()
        self.forfeited = None
        await self._start_programs()
        await self._advance(self.state, [])
        self.broadcast_table()

    # ----- play -----

    def dealer(self, step: int) -> random.Random:
        """The luck of step `step`: drawn from the seed and the step number alone, so a restarted
        server deals exactly the dice the old one would have."""
        return random.Random(f"{self.seed}:{step}")

    async def act(self, conn: Link, raw: list[Any], ref: int | None) -> None:
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
        ref: tuple[Link, int | None] | None = None,
    ) -> None:
        """Deal what luck owes, store every step, then update memory and tell everyone."""
        assert self.recorder is not None and self.game_id is not None
        if not self.manager.runs(self):
            raise RoomError("not_ready", "this table is moving to another server: connect again")
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
        await self.store.save_steps(game_id, first, rows)
        ended = False
        for (before, action, after, events), row in zip(pending, rows, strict=True):
            self.recorder.note(before, action, after, events, row)
            ended = self._note_round(before, events) or ended
        self._tell_programs(pending)
        self.manager.metrics.actions.inc(sum(1 for before, _, _, _ in pending if not before.is_chance))
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

    async def seen(self, conn: Link, round_no: int) -> None:
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
        if self.forfeited is not None:  # every seat but the one that forfeited shares first place
            winners = [name for i, name in enumerate(self.state.seats) if i != self.forfeited["seat"]]
        rounds = len(record["rounds"])
        game_id = self.game_id
        await self.store.call(lambda s: finish_game(s, self.table_id, game_id, record, winners, rounds))
        self.status = "finished"
        self.auto.clear()
        self._close_programs()
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
            try:
                bot = await self._bot_for(seat, level)
            except Exception:
                log.exception("bot %s could not start at table %s: a probability bot plays", level, self.code)
                level = "probability"
                bot = await self._bot_for(seat, level)
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

    async def _bot_for(self, seat: int, level: str) -> Bot:
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

    async def _start_programs(self) -> None:
        """Start this game's operator's programs before its first step, so that each is told all
        of it, as `play` tells a program; a seat whose program cannot start is played by the
        probability bot for the game (not started again at each of its moves)."""
        for seat, s in enumerate(self.seats):
            if s.kind != "bot" or s.bot_level is None or not s.bot_level.startswith(OPERATOR_LEVEL):
                continue
            try:
                await self._bot_for(seat, s.bot_level)
            except Exception:
                log.exception("bot %s could not start at table %s: a probability bot plays", s.bot_level, self.code)
                self.bots[seat] = make_bot("probability", None)
                self.bot_levels[seat] = (s.bot_level, self.game_id)

    def _tell_programs(self, steps: list[tuple[GameState, Any, GameState, tuple[Any, ...]]]) -> None:
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

    def _close_programs(self) -> None:
        """Let the operator's programs go (at the end of a game, or when the table is put away)."""
        for seat, (level, _game) in list(self.bot_levels.items()):
            if level.startswith(OPERATOR_LEVEL):
                bot = self.bots.pop(seat, None)
                if bot is not None:
                    _close_later(bot, self.program_ends.pop(seat, ()))
                del self.bot_levels[seat]
        self.program_ends.clear()

    # ----- chat -----

    async def chat(self, conn: Link, text: str) -> None:
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
        self._close_programs()
        for conn in list(self.conns):
            conn.stop()


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
