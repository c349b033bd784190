"""A table as its people see it: its seats, its game and its connections (the `Table`, whose
fields every part of a live table shares), and what each connection is told of it.

A live table is built up a file at a time, each adding one part and calling only the parts below
it: this file, its bots (tablebots.py), its game loop (tableplay.py), its seats and the host's
controls (tableseats.py), and the `Room` with its connections and chat (rooms.py).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias

from ..bots import Bot
from ..record import Recorder
from ..rules import AnyAction, Event, Game, GameState, Options, find_preset
from .botlobby import BotLobby
from .connection import Link
from .limits import RoomError, build_options, clean_name
from .metrics import ServerMetrics
from .reviewer import Reviewer
from .seatkinds import account_of
from .settings import Settings
from .storage import Store
from .tablerows import Seat
from .views import own_view_json, public_view_json

NO_HOST = -1  # the host seat of a table with no host (the lobby's Play now: playnow.py)

# One step of a game: the state before it, the move or the dice, the state after, the events.
Step: TypeAlias = tuple[GameState, AnyAction, GameState, tuple[Event, ...]]


class TableKeeper(Protocol):
    """What a table asks of the manager that keeps it (manager.RoomManager); a protocol, so
    that this module imports no module that imports it back."""

    store: Store
    settings: Settings
    metrics: ServerMetrics
    lobby: BotLobby
    base_url: str  # the site's address, for the links a table gives
    reviewer: Reviewer | None  # analyses the games that end (None: no analyses, as in some tests)

    def runs(self, room: Table) -> bool: ...


@dataclass
class Table:
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
    rated: bool = False  # its games rate its accounts (docs/ratings.md): every person signed in
    bots_rated: bool = False  # a rated table where the host lets bots sit (they are not rated)
    rematch_asked: set[int] = field(default_factory=set)  # at a table with no host: who asked (tableplay.py)

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
            "rated": self.rated,
            "bots_rated": self.bots_rated,
            "rematch_asked": sorted(self.rematch_asked),
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

    def view_json(
        self, seat: int | None, deadline: int | None, reveal_until: int | None, odds: bool = False
    ) -> dict[str, Any]:
        """The GameView of `seat`, with the reveal pause and the moves of the round that ended."""
        assert self.state is not None and self.game_id is not None
        # A bot account's seat is also told its view in the bot protocol's words (the same
        # per-seat view), so `liarsdice bot connect` can hand its program a PlayerView.
        view = self.own_json(seat, odds)
        view.update(
            public_view_json(self.state, self.game_id, deadline, self.steps_done, reveal_until, self.round_moves)
        )
        return view

    def own_json(self, seat: int | None, odds: bool = False) -> dict[str, Any]:
        """`seat`'s own part of its GameView. A game a forfeit ended stops at a turn that nobody
        may take: no seat is offered a move in it."""
        assert self.state is not None
        account = seat is not None and account_of(self.seats[seat].bot_level) is not None
        own = own_view_json(self.state, seat, account, odds)
        if self.status != "playing":
            own["legal"] = None
            own["odds"] = None
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
        cache: dict[tuple[int | None, bool], str] = {}
        for conn in list(self.conns):
            seat = conn.seat
            body = cache.get((seat, conn.odds))
            if body is None:
                own = json.dumps(self.own_json(seat, conn.odds), separators=(",", ":"), allow_nan=False)
                body = cache[(seat, conn.odds)] = f"{own[:-1]},{public[1:]}"
            r = ref[1] if ref is not None and ref[0] is conn else None
            conn.send(f'{{"type":"state","ref":{json.dumps(r)},"state":{body}}}')

    def state_message(self, conn: Link) -> dict[str, Any]:
        if self.state is None or self.game_id is None:
            return {"type": "state", "ref": None, "state": None}
        return {
            "type": "state",
            "ref": None,
            "state": self.view_json(conn.seat, self.deadline_ms(), self.reveal_until_ms(), conn.odds),
        }

    # ----- names and the host -----

    def spectator_name(self, wanted: str | None) -> str:
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

    def host_only(self, conn: Link) -> None:
        if conn.seat != self.host_seat:
            raise RoomError("not_host", "only the host can do that")

    # ----- luck -----

    def dealer(self, step: int) -> random.Random:
        """The luck of step `step`: drawn from the seed and the step number alone, so a restarted
        server deals exactly the dice the old one would have."""
        return random.Random(f"{self.seed}:{step}")
