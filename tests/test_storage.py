"""The store under the server, on SQLite and on a real PostgreSQL (tests/conftest.py starts it)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from liarsdice.server.manager import RoomManager
from liarsdice.server.settings import Settings
from liarsdice.server.storage import StepRow, Store, TableRow, migrate
from liarsdice.server.wsplayer import random_move


def _newest_revision() -> str:
    """The head of the migrations the package ships, and nothing older, is what a store reaches."""
    from pathlib import Path

    from alembic.script import ScriptDirectory

    import liarsdice.server.storage as storage

    head = ScriptDirectory(str(Path(storage.__file__).parent / "migrations")).get_current_head()
    assert head is not None
    return head


def test_migrations_are_idempotent_and_match_the_models(database_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from liarsdice.server.storage import Base

    store = Store(database_url)
    try:
        migrate(store.engine)  # a second time: nothing to do
        with store.engine.connect() as conn:
            assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
            assert MigrationContext.configure(conn).get_current_revision() == _newest_revision()
    finally:
        store.close()


def test_a_seat_holds_an_operator_bot_with_the_longest_name(database_url: str) -> None:
    from liarsdice.server.limits import NAME_MAX
    from liarsdice.server.storage import SeatRow

    level = "operator:" + "x" * NAME_MAX  # PostgreSQL refuses a value longer than its column
    store = Store(database_url)

    def job(s: Session) -> str | None:
        table = TableRow(
            code="LONGBT", preset="classic", options={}, turn_seconds=0, status="open", host_seat=0, games_played=0
        )
        s.add(table)
        s.flush()
        s.add(SeatRow(table_id=table.id, seat_no=0, name="x" * NAME_MAX, kind="bot", bot_level=level))
        s.flush()
        return s.scalar(select(SeatRow.bot_level).where(SeatRow.table_id == table.id))

    try:
        assert store.call_sync(job) == level
    finally:
        store.close()


def test_concurrent_jobs_are_all_committed_in_groups(database_url: str) -> None:
    store = Store(database_url)

    def add_table(i: int) -> Any:
        def job(s: Session) -> int:
            row = TableRow(
                code=f"T{i:05d}",
                preset="classic",
                options={},
                turn_seconds=0,
                status="open",
                host_seat=0,
                games_played=0,
            )
            s.add(row)
            s.flush()
            return row.id

        return job

    async def many() -> list[int]:
        return await asyncio.gather(*(store.call(add_table(i)) for i in range(300)))

    try:
        ids = asyncio.run(many())
        assert len(set(ids)) == 300
        count = store.call_sync(lambda s: s.scalar(select(func.count()).select_from(TableRow)))
        assert count == 300
        assert store.commits < store.jobs_done, "jobs that wait together are committed together"
    finally:
        store.close()


def test_a_failing_job_undoes_only_itself(database_url: str) -> None:
    store = Store(database_url)

    def good(code: str) -> Any:
        return lambda s: s.add(
            TableRow(
                code=code, preset="classic", options={}, turn_seconds=0, status="open", host_seat=0, games_played=0
            )
        )

    def bad(s: Session) -> None:
        s.add(
            TableRow(
                code="DUP", preset="classic", options={}, turn_seconds=0, status="open", host_seat=0, games_played=0
            )
        )
        s.flush()
        raise RuntimeError("this job fails after writing")

    try:
        futures = [store.submit(good("A")), store.submit(bad), store.submit(good("B"))]
        futures[0].result()
        with pytest.raises(RuntimeError):
            futures[1].result()
        futures[2].result()
        codes = store.call_sync(lambda s: sorted(s.scalars(select(TableRow.code))))
        assert codes == ["A", "B"]
    finally:
        store.close()


def test_a_table_in_play_is_rebuilt_from_the_database(database_url: str) -> None:
    """A second manager on the same database (a restarted server) rebuilds the game exactly."""

    async def play() -> tuple[Any, Any, int]:
        store = await asyncio.to_thread(Store, database_url)
        manager = RoomManager(store, Settings(bot_delay=0.0, grace=1000.0))
        try:
            room, token = await manager.create("soar", "Ann", {"num_players": 3}, 0)

            class Quiet:
                seat: int | None = None
                closed = False
                odds = False  # connection.Link: this socket has not asked for its seat's odds
                view: dict[str, Any] | None = None

                def send(self, message: Any) -> None:
                    if isinstance(message, str):
                        import json

                        message = json.loads(message)
                    if message.get("type") == "state" and message.get("state"):
                        self.view = message["state"]

            conn: Any = Quiet()
            await room.attach(conn, token)
            await room.fill_bots(conn, "probability")
            await room.start(conn)
            import random

            rng = random.Random(4)
            for _ in range(200):
                assert room.state is not None
                if room.state.is_terminal or room.state.round_no >= 3:
                    break
                if room.state.to_act == 0 and conn.view and conn.view["to_act"] == 0:
                    await room.act(conn, random_move(conn.view, rng), None)
                else:
                    await asyncio.sleep(0.001)
            await room.detach(conn)
            before = (room.state, room.recorder.to_json() if room.recorder else None)
            steps = room.steps_done
            room.close()
        finally:
            manager.close()
            await asyncio.to_thread(store.close)

        store = await asyncio.to_thread(Store, database_url)
        again = RoomManager(store, Settings(bot_delay=1000.0, grace=1000.0))
        try:
            restored = await again.get(room.code)
            assert restored is not None and restored.state is not None
            after = (restored.state, restored.recorder.to_json() if restored.recorder else None)
            stored = store.call_sync(lambda s: s.scalar(select(func.count()).select_from(StepRow)))
            restored.close()
        finally:
            again.close()
            await asyncio.to_thread(store.close)
        return before, after, steps if stored == steps else -stored

    before, after, steps = asyncio.run(play())
    assert steps > 0, "every step is stored"
    (state_a, record_a), (state_b, record_b) = before, after
    assert record_a["steps"] == record_b["steps"] and record_a["rounds"] == record_b["rounds"]
    for seat in (None, 0, 1, 2):
        assert state_a.view(seat) == state_b.view(seat)


def test_a_read_then_a_write_waits_for_another_process_writing_to_the_same_sqlite_file(tmp_path: Any) -> None:
    """Two stores on one SQLite file are the server and a `liarsdice bot ...` command beside it.
    A job that reads, then writes after the other committed in between, must wait for the lock,
    not fail at once with "database is locked" (SQLite's stale read snapshot in WAL mode)."""
    import threading

    from liarsdice.server.botaccounts import create_account
    from liarsdice.server.storage import BotAccountRow

    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    server, command = Store(url), Store(url)
    try:
        asked, done = threading.Event(), threading.Event()

        def other_writer() -> None:
            asked.wait(10)
            server.call_sync(lambda s: create_account(s, "Server side"))
            done.set()

        writer = threading.Thread(target=other_writer)
        writer.start()

        def read_then_write(s: Session) -> str:
            s.scalar(select(func.count()).select_from(BotAccountRow))
            asked.set()
            done.wait(0.5)  # the other commits here unless this transaction holds the lock already
            return create_account(s, "Command side")

        assert command.call_sync(read_then_write)
        writer.join(10)
        assert done.is_set()
        names = server.call_sync(lambda s: sorted(s.scalars(select(BotAccountRow.name)).all()))
        assert names == ["Command side", "Server side"]
    finally:
        server.close()
        command.close()
