"""The bot ladder (`liarsdice serve --ladder PRESETS`): bot-only tables kept going among the
operator's programs, the built-in levels entered as anchors and (`--ladder-accounts`) the bot
accounts online, every entrant rated by its results with OpenSkill (Plackett-Luce, one rating
per preset), and a leaderboard.

The ladder runs beside the tables in the server process. Now and then it rates every ladder game
that has finished since (in the order the games were started, each in the same transaction that
marks it rated, so a restart neither skips nor repeats one), and opens a new table while fewer
than `tables` ladder games are in play. A table is an ordinary table with bots in every seat
(an account is invited to its seat, as a host would invite it): its games are stored, listed
under History and replayable like any other.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import random
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from ..levels import allowed, is_level, resolve
from ..match import forfeit_places
from ..rules import OptionsError, find_preset
from .botaccounts import ACCOUNT_LEVEL, OPERATOR_LEVEL
from .connection import Connection
from .limits import MAX_TURN_SECONDS, RoomError, build_options
from .storage import GameRow, LadderGameRow, LadderRatingRow, as_utc, utcnow
from .tablerows import Seat

if TYPE_CHECKING:
    from .manager import RoomManager
    from .rooms import Room

log = logging.getLogger("liarsdice.server.ladder")

MODEL = "openskill PlackettLuce (defaults), ranks = places, games in the order they started"
RECENT_GAMES = 20  # games listed per bot on the leaderboard
MAX_TABLES = 64
MAX_SEATS = 12
REST_AFTER_NO_ANSWER = 600.0  # seconds an account that declined or did not answer is not invited to that preset


class LadderError(ValueError):
    """A ladder that cannot be run as asked: the message says what is wrong and what is allowed."""


@dataclass(frozen=True)
class LadderConfig:
    presets: tuple[str, ...]
    entrants: tuple[str, ...]  # bot_levels: anchors ("probability") and "operator:NAME"
    tables: int = 1  # ladder games in play at once
    seats: int = 2  # seats at every ladder table
    overrides: Mapping[str, Any] = field(default_factory=dict)  # options of every ladder table (e.g. dice)
    every: float = 1.0  # seconds between looks for finished games and free places
    accounts: bool = False  # bot accounts online enter too (invited; each accepts by its own rules)
    accept_wait: float = 30.0  # seconds an invited account has to take its seat
    # An account seated and connected but silent would hold its table (and with it the ladder)
    # for ever: past this many seconds on its turn a built-in bot moves for it. 0: no clock.
    turn_seconds: int = 60


def parse_ladder(
    presets: str,
    anchors: str = "",
    *,
    tables: int = 1,
    seats: int = 2,
    dice: int | None = None,
    operator_bots: Mapping[str, str] | None = None,
    accounts: bool = False,
    every: float = 1.0,
    accept_wait: float = 30.0,
    turn_seconds: int = 60,
) -> LadderConfig:
    """The ladder `serve --ladder PRESETS --ladder-anchors LEVELS ...` asks for, checked."""
    names = [p.strip() for p in presets.split(",") if p.strip()]
    if not names:
        raise LadderError("--ladder is a comma list of presets, e.g. --ladder perudo,soar")
    chosen: list[str] = []
    for name in names:
        try:
            chosen.append(find_preset(name).name)
        except OptionsError as e:
            raise LadderError(f"--ladder: {e}") from None
    levels = [a.strip() for a in anchors.split(",") if a.strip()]
    for level in levels:
        if not is_level(level):
            raise LadderError(f"--ladder-anchors: unknown bot level {level!r}: the levels are {allowed()}")
    # Entered as the bot that plays the level ("Skilled" is "probability"): a rating stays its own.
    levels = [resolve(level) for level in levels]
    entrants = list(dict.fromkeys([*levels, *(OPERATOR_LEVEL + n for n in sorted(operator_bots or {}))]))
    if not 1 <= tables <= MAX_TABLES:
        raise LadderError(f"--ladder-tables is 1 to {MAX_TABLES}, not {tables}")
    if not 0 <= turn_seconds <= MAX_TURN_SECONDS:
        raise LadderError(f"--ladder-turn-seconds is 0 (no clock) to {MAX_TURN_SECONDS}, not {turn_seconds}")
    if not 2 <= seats <= MAX_SEATS:
        raise LadderError(f"--ladder-seats is 2 to {MAX_SEATS}, not {seats}")
    if len(entrants) < 2 or len(entrants) < seats:
        raise LadderError(
            f"the ladder needs at least {max(2, seats)} entrants for {seats} seats, and has {len(entrants)}: "
            "enter built-in levels with --ladder-anchors (e.g. Beginner,Skilled) or programs with --bot NAME=COMMAND"
        )
    overrides: dict[str, Any] = {}
    if dice is not None:
        overrides["dice_per_player"] = dice
    for preset in dict.fromkeys(chosen):
        try:
            build_options(preset, overrides, seats)
        except OptionsError as e:
            raise LadderError(f"--ladder {preset} with {seats} seats: {e}") from None
        p = find_preset(preset)
        if seats < p.min_players or (p.max_players is not None and seats > p.max_players):
            most = p.max_players if p.max_players is not None else MAX_SEATS
            raise LadderError(f"--ladder-seats: {preset} seats {p.min_players} to {most}, not {seats}")
    return LadderConfig(
        tuple(dict.fromkeys(chosen)),
        tuple(entrants),
        tables,
        seats,
        overrides,
        every,
        accounts,
        accept_wait,
        turn_seconds,
    )


def entrant_json(entrant: str) -> dict[str, str]:
    """How the leaderboard names an entrant: its name and kind (anchor, operator, account)."""
    if entrant.startswith(OPERATOR_LEVEL):
        return {"entrant": entrant, "name": entrant[len(OPERATOR_LEVEL) :], "kind": "operator"}
    if entrant.startswith(ACCOUNT_LEVEL):
        return {"entrant": entrant, "name": entrant[len(ACCOUNT_LEVEL) :], "kind": "account"}
    return {"entrant": entrant, "name": entrant, "kind": "anchor"}


def record_places(record: Mapping[str, Any] | None, seats: Sequence[str]) -> dict[str, int]:
    """Each seat's place in a stored game, by seat name: its result's, or, in a game a seat
    forfeited (whose record has no result), the forfeit's (that seat last, the others first)."""
    record = record or {}
    places = (record.get("result") or {}).get("places")
    if places:
        return dict(places)
    forfeit = (record.get("meta") or {}).get("forfeit") or {}
    if forfeit.get("seat") in seats:
        return dict(zip(seats, forfeit_places(len(seats), list(seats).index(forfeit["seat"])), strict=True))
    return {}


# ----- database jobs (on the store's thread) -----


def rate_finished(session: Session) -> int:
    """Rate every ladder game finished and not yet rated, oldest first; how many."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rows = session.execute(
        select(LadderGameRow, GameRow)
        .join(GameRow, GameRow.id == LadderGameRow.game_id)
        .where(LadderGameRow.rated_at.is_(None), GameRow.status == "finished")
        .order_by(LadderGameRow.game_id)
    ).all()
    for ladder_game, game in rows:
        places = record_places(game.record, game.seats)
        entrants = list(ladder_game.entrants)
        if len(entrants) != len(game.seats) or set(places) != set(game.seats):
            log.warning("ladder game %d has no result by seat: not rated", game.id)
            ladder_game.rated_at = utcnow()
            continue
        stored = {
            r.entrant: r
            for r in session.scalars(
                select(LadderRatingRow).where(
                    LadderRatingRow.preset == ladder_game.preset, LadderRatingRow.entrant.in_(entrants)
                )
            )
        }
        for entrant in entrants:
            if entrant not in stored:
                fresh = model.rating()
                row = LadderRatingRow(
                    preset=ladder_game.preset, entrant=entrant, mu=fresh.mu, sigma=fresh.sigma, games=0, wins=0
                )
                session.add(row)
                stored[entrant] = row
        teams = [[model.rating(mu=stored[e].mu, sigma=stored[e].sigma)] for e in entrants]
        ranks = [float(places[name]) for name in game.seats]
        rated = model.rate(teams, ranks=ranks)
        for entrant, team, place in zip(entrants, rated, ranks, strict=True):
            row = stored[entrant]
            row.mu, row.sigma = team[0].mu, team[0].sigma
            row.games += 1
            row.wins += place == 1
            row.updated_at = utcnow()
        ladder_game.rated_at = utcnow()
        session.flush()
    return len(rows)


def ladder_in_play(session: Session) -> int:
    """Ladder games not finished yet."""
    return (
        session.scalar(
            select(func.count())
            .select_from(LadderGameRow)
            .join(GameRow, GameRow.id == LadderGameRow.game_id)
            .where(GameRow.status != "finished")
        )
        or 0
    )


def games_per_entrant(session: Session, preset: str) -> dict[str, int]:
    """Ladder games each entrant has sat at on `preset`'s ladder, rated or not."""
    counts: dict[str, int] = {}
    for entrants in session.scalars(select(LadderGameRow.entrants).where(LadderGameRow.preset == preset)):
        for entrant in entrants:
            counts[entrant] = counts.get(entrant, 0) + 1
    return counts


def note_game(session: Session, game_id: int, preset: str, entrants: list[str]) -> None:
    session.add(LadderGameRow(game_id=game_id, preset=preset, entrants=entrants))


def leaderboard(session: Session, preset: str | None = None) -> list[dict[str, Any]]:
    """Per preset (every preset with ratings, or only `preset`): the bots by ordinal (mu - 3
    sigma), best first, each with its games, wins and its latest rated games."""
    query = select(LadderRatingRow)
    if preset is not None:
        query = query.where(LadderRatingRow.preset == preset)
    by_preset: dict[str, list[LadderRatingRow]] = {}
    for row in session.scalars(query.order_by(LadderRatingRow.preset)):
        by_preset.setdefault(row.preset, []).append(row)
    boards = []
    for name, rows in by_preset.items():
        games = session.execute(
            select(LadderGameRow, GameRow)
            .join(GameRow, GameRow.id == LadderGameRow.game_id)
            .where(LadderGameRow.preset == name, LadderGameRow.rated_at.is_not(None))
            .order_by(LadderGameRow.game_id.desc())
            .limit(50 * RECENT_GAMES)
        ).all()
        recent: dict[str, list[dict[str, Any]]] = {}
        for ladder_game, game in games:
            places = record_places(game.record, game.seats)
            for entrant, seat in zip(ladder_game.entrants, game.seats, strict=False):
                mine = recent.setdefault(entrant, [])
                if len(mine) < RECENT_GAMES:
                    mine.append(
                        {
                            "id": game.id,
                            "place": places.get(seat),
                            "seats": list(game.seats),
                            "winners": list(game.winners or []),
                            "rounds": game.rounds,
                            "finished": as_utc(game.finished_at).isoformat(timespec="seconds")
                            if game.finished_at
                            else None,
                        }
                    )
        bots = [
            {
                **entrant_json(r.entrant),
                "mu": r.mu,
                "sigma": r.sigma,
                "ordinal": r.mu - 3 * r.sigma,
                "games": r.games,
                "wins": r.wins,
                "recent": recent.get(r.entrant, []),
            }
            for r in sorted(rows, key=lambda r: (-(r.mu - 3 * r.sigma), r.entrant))
        ]
        boards.append({"preset": name, "title": find_preset(name).title, "bots": bots})
    return boards


# ----- the ladder itself -----


async def _nowhere(_text: str) -> None:  # pragma: no cover - the ladder's host sends nothing
    return None


async def _no_close(_code: int) -> None:  # pragma: no cover
    return None


class _LadderHost(Connection):
    """The ladder as the host of one of its tables: invitations go out in its name, and what a
    host would be told (an account declined) is counted and logged, not sent anywhere."""

    def __init__(self, code: str) -> None:
        super().__init__(_nowhere, _no_close)
        self.code = code
        self.declined = 0

    def send(self, message: dict[str, Any] | str) -> None:
        if isinstance(message, dict) and message.get("code") == "declined":
            self.declined += 1
            log.info("ladder table %s: %s", self.code, message.get("message"))


class Ladder:
    """Keeps `config.tables` ladder games going and rates them as they finish."""

    def __init__(self, manager: RoomManager, config: LadderConfig) -> None:
        self.manager = manager
        self.config = config
        self._presets = itertools.cycle(config.presets)
        # Seating only: which entrants meet and where they sit (the dice are the tables' own).
        self._rng = random.Random()
        # Tables waiting for invited accounts to sit down: they count as in play.
        self._opening: set[asyncio.Task[None]] = set()
        # (account, preset) -> when it may be invited again, after it declined or did not answer.
        self._resting: dict[tuple[str, str], float] = {}

    async def run(self) -> None:
        """Look after the ladder for as long as the server runs."""
        try:
            while True:
                try:
                    await self.tick()
                except asyncio.CancelledError:
                    raise
                except Exception:  # one bad look must not end the ladder: the next one tries again
                    log.exception("the ladder could not open or rate a game")
                await asyncio.sleep(self.config.every)
        finally:
            for task in self._opening:
                task.cancel()

    async def tick(self) -> None:
        store = self.manager.store
        rated = await store.call(rate_finished)
        if rated:
            log.info("ladder: rated %d games", rated)
        in_play = await store.call(ladder_in_play) + len(self._opening)
        for _ in range(self.config.tables - in_play):
            preset = next(self._presets)
            entrants = self._pick(preset, await store.call(lambda s, p=preset: games_per_entrant(s, p)))  # type: ignore[misc]
            if any(e.startswith(ACCOUNT_LEVEL) for e in entrants):
                # Accounts answer in their own time: the table fills and starts on the side.
                task = asyncio.create_task(self.open_table(preset, entrants))
                self._opening.add(task)
                task.add_done_callback(self._opened)
            else:
                await self.open_table(preset, entrants)

    def _opened(self, task: asyncio.Task[None]) -> None:
        self._opening.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("the ladder could not open a table", exc_info=task.exception())

    def accounts_online(self, preset: str) -> list[str]:
        """The bot accounts online that may be invited to `preset`'s ladder now."""
        if not self.config.accounts:
            return []
        now = time.monotonic()
        lobby = self.manager.lobby
        return [
            ACCOUNT_LEVEL + name
            for name in lobby.online_names()
            if name not in lobby.operator_bots and self._resting.get((name, preset), 0) <= now
        ]

    def _pick(self, preset: str, counts: Mapping[str, int]) -> list[str]:
        """The entrants of a new table of `preset`: those with the fewest games there first
        (ties drawn at random), seated in random order."""
        pool = [*self.config.entrants, *self.accounts_online(preset)]
        self._rng.shuffle(pool)
        pool.sort(key=lambda e: counts.get(e, 0))
        chosen = pool[: self.config.seats]
        self._rng.shuffle(chosen)
        return chosen

    async def open_table(self, preset: str, entrants: list[str]) -> None:
        """Open a table of `preset` for `entrants`, invite its accounts and start it once they
        sit; an account that declines or does not answer within `accept_wait` seconds gives
        its seat to another entrant (the operator's programs and anchors always can play)."""
        seats = [
            Seat(f"Seat {i + 1}") if e.startswith(ACCOUNT_LEVEL) else self._seat(e, entrants)
            for i, e in enumerate(entrants)
        ]
        overrides = {**self.config.overrides, "num_players": self.config.seats}
        room = await self.manager.create_bot_table(preset, overrides, seats, self.config.turn_seconds)
        accounts = {i: e for i, e in enumerate(entrants) if e.startswith(ACCOUNT_LEVEL)}
        if accounts:
            host = _LadderHost(room.code)
            for seat, entrant in accounts.items():
                try:
                    self.manager.lobby.invite(entrant[len(ACCOUNT_LEVEL) :], room, seat, host)
                except RoomError:  # gone offline since: its seat is given to another below
                    host.declined += 1
            deadline = time.monotonic() + self.config.accept_wait
            while time.monotonic() < deadline:
                empty = [i for i in accounts if room.seats[i].kind == "empty"]
                if not empty or host.declined >= len(empty):
                    break
                await asyncio.sleep(min(0.05, self.config.every))
            await self._replace_absent(room, preset, entrants, accounts)
        game_id = await room.start_bots_only()
        store = self.manager.store
        await store.call(lambda s: note_game(s, game_id, preset, entrants))
        log.info("ladder: table %s, %s, %s", room.code, preset, " vs ".join(s.name for s in room.seats))

    def _seat(self, entrant: str, entrants: Sequence[str]) -> Seat:
        """The seat of an operator's program or an anchor, named as the leaderboard names it."""
        base = entrant_json(entrant)["name"]
        same = [e for e in entrants if entrant_json(e)["name"].lower() == base.lower()]
        k = same.index(entrant) + 1
        return Seat(base if k == 1 else f"{base} ({k})", "bot", entrant, None)

    async def _replace_absent(self, room: Room, preset: str, entrants: list[str], accounts: dict[int, str]) -> None:
        """Give the seats of invited accounts that did not sit to entrants who always can."""
        async with room.lock:
            absent = [i for i in accounts if room.seats[i].kind == "empty"]
            if not absent:
                return
            # Under the lock: a late acceptance finds its seat taken and is told so.
            now = time.monotonic()
            for i in absent:
                self._resting[(accounts[i][len(ACCOUNT_LEVEL) :], preset)] = now + REST_AFTER_NO_ANSWER
            counts = await self.manager.store.call(lambda s: games_per_entrant(s, preset))
            spare = [e for e in self.config.entrants if e not in entrants]
            self._rng.shuffle(spare)
            spare.sort(key=lambda e: counts.get(e, 0))
            changed = []
            for i, entrant in zip(absent, spare, strict=False):
                entrants[i] = entrant
                changed.append((i, self._seat(entrant, entrants)))
            await room._set_seats(changed)
