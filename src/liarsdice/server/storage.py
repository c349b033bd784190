"""The database: tables, seats, games, every step of every game, their analyses, chat, bot accounts,
people's accounts and their sessions, people's ratings, and the ladder.

One thread owns the connection and runs every database job in order. Jobs that arrive while a
transaction is being committed are committed together in the next one (group commit), each in
its own savepoint so that one failing job never undoes another; the steps of games, most of
what a busy server writes, go in one INSERT per batch (`save_steps`). A job's future completes only
after its commit, which is what lets the rooms promise that an accepted action is stored before
anyone is told of it.

SQLite (the default, a file in the data directory) runs in WAL mode with `synchronous=NORMAL`:
a committed transaction survives the server being killed. `postgresql://` URLs work the same.
The schema is made by Alembic migrations, applied when the store opens.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    insert,
    select,
    text,
)
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column, sessionmaker

T = TypeVar("T")

MAX_ID = 2**31 - 1  # the largest id an Integer column holds everywhere (PostgreSQL's integer)


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(moment: datetime) -> datetime:
    """A stored time as UTC (SQLite hands times back without their zone)."""
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "tables"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String(16), unique=True, index=True)
    preset: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    turn_seconds: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), index=True)  # open, playing, finished
    host_seat: Mapped[int] = mapped_column(Integer, default=0)
    game_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    games_played: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    rated: Mapped[bool] = mapped_column(Boolean, default=False)  # its games rate its accounts (ratingrows.py)
    bots_rated: Mapped[bool] = mapped_column(Boolean, default=False)  # the host lets bots sit at it


class SeatRow(Base):
    __tablename__ = "seats"
    __table_args__ = (UniqueConstraint("table_id", "seat_no"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seat_no: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(64))
    kind: Mapped[str] = mapped_column(String(8))  # human, bot, empty
    bot_level: Mapped[str | None] = mapped_column(String(64), nullable=True)  # "operator:NAME", a level
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)


class GameRow(Base):
    __tablename__ = "games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    preset: Mapped[str] = mapped_column(String(32))
    options: Mapped[dict[str, Any]] = mapped_column(JSON)
    seats: Mapped[list[str]] = mapped_column(JSON)
    players: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    seed: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), index=True)  # playing, finished
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    rounds: Mapped[int] = mapped_column(Integer, default=0)
    winners: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    record: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # A game of a rated table: the family it rates (ratingfamily.py), and when it was rated
    # (set once, by the one process that claims it).
    rating_family: Mapped[str | None] = mapped_column(String(32), nullable=True)
    rated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class StepRow(Base):
    __tablename__ = "steps"

    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    idx: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON)


class AnalysisRow(Base):
    """The best bot's analysis of a finished game (liarsdice.review), kept with the game: queued
    when the game ends, claimed by the one process that runs it, then its JSON (`data`, in the
    analysis format `version`) or why it could not be made (`reason`). analysisrows.py."""

    __tablename__ = "analyses"
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    status: Mapped[str] = mapped_column(String(16), index=True)  # queued, running, done, failed
    version: Mapped[int | None] = mapped_column(Integer, nullable=True)  # review.ANALYSIS_VERSION of data
    data: Mapped[str | None] = mapped_column(Text, nullable=True)  # Analysis.to_json() as JSON text
    reason: Mapped[str | None] = mapped_column(Text, nullable=True)  # why it failed
    claimed_by: Mapped[str | None] = mapped_column(String(64), nullable=True)  # the process running it
    claimed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class ChatRow(Base):
    __tablename__ = "chat"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("tables.id", ondelete="CASCADE"), index=True)
    seat_no: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class BotAccountRow(Base):
    """A bot account: a name and the SHA-256 of its secret token (the token itself is shown once)."""

    __tablename__ = "bot_accounts"
    __table_args__ = (UniqueConstraint("token_hash", name="uq_bot_accounts_token_hash"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class PersonRow(Base):
    """A person's account (people.py says what a name and a password may be): the name as typed,
    its key (`name_key`: no two accounts share one, whatever their case) and the argon2id hash of
    the password. A deleted account keeps its row, without name or hash, so the games stay."""

    __tablename__ = "people"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    name_key: Mapped[str] = mapped_column(String(128), unique=True, index=True)
    password_hash: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class PersonSessionRow(Base):
    """A signed-in browser: the SHA-256 of its session cookie (the cookie itself is never kept).
    Revoked on sign-out, and all of a person's on a password change or a deletion."""

    __tablename__ = "person_sessions"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class PersonSeatRow(Base):
    """A seat a signed-in person took (personseats.py): the table's code, the seat and the
    SHA-256 of its seat token then, so that only while it is still theirs can they take it back
    on another device."""

    __tablename__ = "person_seats"
    __table_args__ = (UniqueConstraint("person_id", "table_code", "seat_no", name="uq_person_seats_seat"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), index=True)
    table_code: Mapped[str] = mapped_column(String(16), index=True)  # a game's start looks its seats up
    seat_no: Mapped[int] = mapped_column(Integer)
    token_hash: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class GamePersonRow(Base):
    """Who an account was at a game: the seat whose token its `person_seats` row held when the
    game started (gamepeople.py). Kept when the account is deleted (its row stays, renamed)."""

    __tablename__ = "game_people"
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    seat_no: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), index=True)


class PersonRatingRow(Base):
    """A person's OpenSkill rating in one family of presets (ratingfamily.py, ratingrows.py)."""

    __tablename__ = "person_ratings"
    __table_args__ = (UniqueConstraint("person_id", "family", name="uq_person_ratings_person_family"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), index=True)
    family: Mapped[str] = mapped_column(String(32), index=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class RatingChangeRow(Base):
    """What one rated game did to one person's rating: the profile's chart and a game's summary."""

    __tablename__ = "rating_changes"
    __table_args__ = (UniqueConstraint("game_id", "person_id", name="uq_rating_changes_game_person"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("people.id", ondelete="CASCADE"), index=True)
    seat_no: Mapped[int] = mapped_column(Integer)
    family: Mapped[str] = mapped_column(String(32))
    mu_before: Mapped[float] = mapped_column(Float)
    sigma_before: Mapped[float] = mapped_column(Float)
    mu_after: Mapped[float] = mapped_column(Float)
    sigma_after: Mapped[float] = mapped_column(Float)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class SeekerRow(Base):
    """A browser waiting in the lobby to play (seekrows.py says how it is paired)."""

    __tablename__ = "seekers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, index=True)
    person_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    name: Mapped[str] = mapped_column(String(64))
    preset: Mapped[str | None] = mapped_column(String(32), nullable=True)  # None: any
    seats: Mapped[int] = mapped_column(Integer)
    wait_seconds: Mapped[int] = mapped_column(Integer)
    level: Mapped[str] = mapped_column(String(32))
    rated: Mapped[bool] = mapped_column(Boolean, default=False)
    rating: Mapped[int] = mapped_column(Integer, default=1500)
    status: Mapped[str] = mapped_column(String(16), index=True)
    claim: Mapped[str | None] = mapped_column(String(64), nullable=True)
    table_code: Mapped[str | None] = mapped_column(String(16), nullable=True)
    seat_no: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    seen_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LadderGameRow(Base):
    """A game the ladder started: who sat where (entrants by seat), and when it was rated."""

    __tablename__ = "ladder_games"
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), primary_key=True)
    preset: Mapped[str] = mapped_column(String(32), index=True)
    entrants: Mapped[list[str]] = mapped_column(JSON)  # a seat's bot_level: "probability", "operator:NAME"
    rated_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class LadderRatingRow(Base):
    """One entrant's OpenSkill rating on one preset's ladder."""

    __tablename__ = "ladder_ratings"
    __table_args__ = (UniqueConstraint("preset", "entrant", name="uq_ladder_ratings_preset_entrant"),)
    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    preset: Mapped[str] = mapped_column(String(32))
    entrant: Mapped[str] = mapped_column(String(80))
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer, default=0)
    wins: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


def normalise_url(url: str) -> str:
    """SQLAlchemy URL for a user's URL: `postgresql://` uses psycopg 3."""
    if url.startswith("postgres://"):
        url = "postgresql://" + url[len("postgres://") :]
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    return url


def make_engine(url: str) -> Engine:
    url = normalise_url(url)
    if url.startswith("sqlite"):
        path = url.split("///", 1)[1] if "///" in url else ""
        if path and path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"check_same_thread": False})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA busy_timeout=5000")
            cursor.close()
            # SQLAlchemy's pysqlite recipe: the driver's own BEGIN, deferred until a write, is
            # off; every transaction takes the write lock at its start (below). A deferred one
            # that read before another process (a `liarsdice bot` command beside the server)
            # committed fails its write at once with "database is locked"; an immediate one
            # waits the busy timeout for the lock instead.
            dbapi_connection.isolation_level = None

        @event.listens_for(engine, "begin")
        def _sqlite_begin(connection: Any) -> None:
            connection.exec_driver_sql("BEGIN IMMEDIATE")

        return engine
    if url.startswith("postgresql"):
        return create_engine(url, pool_pre_ping=True)
    raise ValueError(f"unsupported database URL {url!r}: use sqlite:///PATH or postgresql://USER@HOST/DB")


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest migration (Alembic, configured in code)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    with engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            # Several processes starting at once (serve --redis-url): one migrates, the others
            # wait for it here and then find the schema up to date.
            connection.execute(text("SELECT pg_advisory_xact_lock(7170736970)"))
        cfg.attributes["connection"] = connection
        command.upgrade(cfg, "head")


Job = Callable[[Session], Any]


def game_finished(session: Session, game_id: int) -> bool:
    """Whether game `game_id` is stored and finished (its replay page and record exist)."""
    return session.scalar(select(GameRow.id).where(GameRow.id == game_id, GameRow.status == "finished")) is not None


@dataclass(frozen=True, slots=True)
class StepWrite:
    """Steps `first`, `first + 1`, ... of game `game_id` to insert (`Store.save_steps`)."""

    game_id: int
    first: int
    rows: list[dict[str, Any]]


class Store:
    """The database behind one server: a writer thread, group commit, async-friendly calls."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        migrate(self.engine)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)
        self._jobs: queue.SimpleQueue[tuple[Job | StepWrite, Future[Any]] | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="liarsdice-db", daemon=True)
        self.commits = 0
        self.jobs_done = 0
        self._thread.start()

    # ----- the writer thread -----

    def _run(self) -> None:
        session = self._sessions()
        try:
            while True:
                first = self._jobs.get()
                if first is None:
                    return
                batch = [first]
                stop = False
                while True:
                    try:
                        more = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if more is None:
                        stop = True
                        break
                    batch.append(more)
                results: list[tuple[Future[Any], Any, BaseException | None]] = []
                steps: list[tuple[StepWrite, Future[Any]]] = []
                others = False  # whether the transaction holds anything but steps
                for job, future in batch:
                    if not future.set_running_or_notify_cancel():
                        continue
                    if isinstance(job, StepWrite):
                        steps.append((job, future))
                        continue
                    # in the order they came: a job may read the steps written before it
                    self._write_steps(session, steps, results, alone=False)
                    steps = []
                    others = True
                    try:
                        with session.begin_nested():
                            value = job(session)
                        results.append((future, value, None))
                    except BaseException as e:  # one job's failure stays its own
                        results.append((future, None, e))
                self._write_steps(session, steps, results, alone=not others)
                try:
                    session.commit()
                    self.commits += 1
                except BaseException as e:
                    session.rollback()
                    results = [(f, None, e) for f, _, _ in results]
                self.jobs_done += len(results)
                for future, value, error in results:
                    if error is not None:
                        future.set_exception(error)
                    else:
                        future.set_result(value)
                if stop:
                    return
        finally:
            session.close()

    def _write_steps(
        self,
        session: Session,
        writes: list[tuple[StepWrite, Future[Any]]],
        results: list[tuple[Future[Any], Any, BaseException | None]],
        alone: bool,
    ) -> None:
        """Insert the steps of `writes` in one statement: at a busy server they are most of the
        jobs, and each statement makes the writer thread take the GIL back from the event loop
        (up to the switch interval, 5 ms, while the loop is busy). `alone`: nothing else is in
        the transaction, so no savepoint is needed (two statements fewer): a failure rolls it
        back. If it fails, each write is tried alone, so that one bad write never undoes another."""
        if not writes:
            return
        params = [
            {"game_id": w.game_id, "idx": w.first + i, "data": row} for w, _ in writes for i, row in enumerate(w.rows)
        ]
        try:
            if params and alone:
                session.execute(insert(StepRow), params)
            elif params:
                with session.begin_nested():
                    session.execute(insert(StepRow), params)
        except BaseException as e:
            if alone:
                session.rollback()
            if len(writes) == 1:
                results.append((writes[0][1], None, e))
                return
            for write in writes:
                self._write_steps(session, [write], results, alone=False)
            return
        results.extend((future, None, None) for _, future in writes)

    def submit(self, job: Callable[[Session], T]) -> Future[T]:
        future: Future[T] = Future()
        self._jobs.put((job, future))
        return future

    async def call(self, job: Callable[[Session], T]) -> T:
        """Run `job(session)` on the writer thread; returns once it is committed."""
        return await asyncio.wrap_future(self.submit(job))

    async def save_steps(self, game_id: int, first: int, rows: list[dict[str, Any]]) -> None:
        """Insert steps `first`, `first + 1`, ... of a game; returns once they are committed.
        The steps of every game waiting at once go in together (see `_write_steps`)."""
        future: Future[None] = Future()
        self._jobs.put((StepWrite(game_id, first, rows), future))
        await asyncio.wrap_future(future)

    def call_sync(self, job: Callable[[Session], T]) -> T:
        return self.submit(job).result()

    def close(self) -> None:
        self._jobs.put(None)
        self._thread.join(timeout=10)
        self.engine.dispose()
