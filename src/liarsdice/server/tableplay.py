"""A table's game loop: a game started, each move checked by the rules, stored, then told
(rooms.py says in which order, and why); the reveal pause after a round; the moves nobody at a
keyboard makes (a bot's, or one for a person whose timer ran out or who is away), and the end."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import TYPE_CHECKING, Any

from ..record import Recorder
from ..rules import Game, GameState, IllegalAction, InvalidText, RoundResolved, Turn, action_from_list
from .connection import Link
from .gamepeople import note_people, people_at
from .limits import OFF_LOOP_MOVES, RoomError, moves_bound
from .ratingfamily import family_of
from .ratingrows import rate_safely
from .seatkinds import account_of
from .storage import utcnow
from .table import NO_HOST, Step
from .tablebots import BotTable
from .tablerows import Seat, finish_game, new_game_row
from .views import turn_json

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

log = logging.getLogger("liarsdice.server")


def check_rated_seats(seats: list[Seat], people: dict[int, int]) -> None:
    """A rated game starts only with a signed-in account at every person's seat (bots sit there
    only where the host allowed them, which joining checks)."""
    for i, seat in enumerate(seats):
        if seat.kind == "human" and not seat.bot_level and i not in people:
            raise RoomError(
                "not_ready", f"seat {i + 1} ({seat.name}) is not held by a signed-in account: a rated table needs one"
            )


class PlayingTable(BotTable):
    """A table that plays its game."""

    async def start(self, conn: Link) -> None:
        self.host_only(conn)
        async with self.lock:
            if self.status != "open":
                raise RoomError("not_ready", "the game has started already")
            await self.new_game()

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
            await self.new_game()
            assert self.game_id is not None
            return self.game_id

    async def rematch(self, conn: Link) -> None:
        """The host deals a new game; at a table with no host (Play now), each person asks, and
        the new game starts once every person seated has asked (the bots stay)."""
        if self.host_seat != NO_HOST:
            self.host_only(conn)
        elif conn.seat is None:
            raise RoomError("not_seated", "spectators watch: the people seated ask for a rematch")
        async with self.lock:
            if self.status != "finished":
                raise RoomError("not_ready", "a rematch follows a finished game")
            if self.host_seat == NO_HOST:
                assert conn.seat is not None
                self.rematch_asked.add(conn.seat)
                if not {i for i, s in enumerate(self.seats) if s.kind == "human"} <= self.rematch_asked:
                    self.broadcast_table()  # every page shows who has asked
                    return
            await self.new_game()

    async def new_game(self) -> None:
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
        seats, rated, code = list(self.seats), self.rated, self.code
        family = family_of(self.preset) if rated else None

        def store_game(session: Session) -> int:
            people = people_at(session, code, seats)  # who each account is here (gamepeople.py)
            if rated:
                check_rated_seats(seats, people)
            game_id = new_game_row(session, self.table_id, self.preset, options, names, players, seed, family)
            note_people(session, game_id, people)
            return game_id

        game_id = await self.store.call(store_game)
        self.game_id, self.seed, self.game = game_id, seed, game
        self.recorder = Recorder(game, seed=seed, preset=self.preset, players=players, meta={"table": self.code})
        self.state = game.new_initial_state()
        self.status = "playing"
        self.games_played += 1
        self.auto.clear()
        self.forfeited = None
        self.rematch_asked.clear()
        await self.start_programs()
        await self.advance(self.state, [])
        self.broadcast_table()

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
            await self.advance(state, [(state, action, after, events)], ref=(conn, ref))
            if took_back:  # every page shows the seat as its person's again
                self.broadcast_table()

    async def advance(
        self,
        state: GameState,
        pending: list[Step],
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
            ended = self.note_round(before, events) or ended
        self.tell_programs(pending)
        self.manager.metrics.actions.inc(sum(1 for before, _, _, _ in pending if not before.is_chance))
        if moves_bound(current.options) > OFF_LOOP_MOVES:
            # Every view of the seat to act lists all its moves (the state keeps them): at a big
            # table that takes a while, so list them off the event loop that serves every table.
            await asyncio.to_thread(current.legal_actions)
        self.state = current
        if current.is_terminal:
            await self.finish()
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
        self.turn_changed()
        self.broadcast_state(ref)
        self.schedule()

    def note_round(self, before: GameState, events: tuple[Any, ...]) -> bool:
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
            self.end_reveal_if_seen()

    def end_reveal_if_seen(self) -> bool:
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
        self.schedule()
        return True

    async def finish(self) -> None:
        assert self.recorder is not None and self.game_id is not None and self.state is not None
        self.recorder.data["meta"]["finished"] = utcnow().isoformat(timespec="seconds")
        record = self.recorder.to_json()
        result = self.state.result
        winners = [self.state.seats[s] for s in result.winners] if result is not None else []
        if self.forfeited is not None:  # every seat but the one that forfeited shares first place
            winners = [name for i, name in enumerate(self.state.seats) if i != self.forfeited["seat"]]
        rounds = len(record["rounds"])
        game_id = self.game_id
        table_id, rated = self.table_id, self.rated

        def store_end(session: Session) -> None:
            finish_game(session, table_id, game_id, record, winners, rounds)
            if rated:  # in the same commit: a finished rated game is rated, once (ratingrows.py)
                rate_safely(session, game_id)

        await self.store.call(store_end)
        self.status = "finished"
        reviewer = self.manager.reviewer
        if reviewer is not None and not self.bots_only:  # the ladder's games: when someone asks
            await reviewer.game_finished(game_id)
        self.auto.clear()
        self.close_programs()
        self.broadcast_table()

    def turn_changed(self) -> None:
        state = self.state
        key = (self.steps_done, state.to_act if state is not None and state.to_act is not None else -1)
        if key != self.turn_key:
            self.turn_key = key
            self.turn_started = max(time.monotonic(), self.reveal_until)  # after the reveal pause

    def schedule(self) -> None:
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
                bot = await self.bot_for(seat, level)
            except Exception:
                log.exception("bot %s could not start at table %s: a probability bot plays", level, self.code)
                level = "probability"
                bot = await self.bot_for(seat, level)
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
                await self.advance(state, [(state, action, after, events)])
            except Exception:
                log.exception("could not store a bot move at table %s", self.code)
