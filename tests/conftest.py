"""Shared fixtures: a data directory of the suite's own, and databases for the storage tests.

Records, solutions the cfr bot caches and server databases go to `$LIARSDICE_DATA`: the suite
points it (for itself and every process it starts) at a temporary directory, so that it neither
reads nor writes the data of whoever runs it.

`database_url` runs a test twice: against a SQLite file and against a real PostgreSQL server that
the suite starts itself (initdb and pg_ctl in a temporary directory). The PostgreSQL half is
skipped, saying so, only where no PostgreSQL server binaries exist.

`redis_server` is a Redis of the suite's own (Debian's `redis-server` on a free port, nothing
saved to disk), for the server on several processes; its tests are skipped, saying so, only where
no `redis-server` binary exists.

`make test` runs every test: it installs what the skipped ones would need (tests/system-deps.sh)
and sets LIARSDICE_EVERY_TEST, under which a skip is reported as a failure with its reason, so a
machine that lacks something says so instead of passing with tests left out.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from liarsdice.server import services

EVERY_TEST = bool(os.environ.get("LIARSDICE_EVERY_TEST"))


def _fail_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    if not (EVERY_TEST and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    report.outcome = "failed"
    report.longrepr = f"skipped, but make test runs every test (LIARSDICE_EVERY_TEST): {reason}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[pytest.TestReport]:
    report: pytest.TestReport = yield
    _fail_skip(report)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[pytest.CollectReport]:
    report: pytest.CollectReport = yield
    _fail_skip(report)
    return report


_DATA = tempfile.TemporaryDirectory(prefix="liarsdice-tests-")
os.environ["LIARSDICE_DATA"] = _DATA.name


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL server for this test session; yields a URL without a database name."""
    try:
        with services.postgres_server() as server:
            yield server.url
    except services.Unavailable as e:
        pytest.skip(f"{e}: PostgreSQL tests skipped")


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    """A Redis server for this test session; yields its URL (database 0)."""
    try:
        with services.redis_server() as server:
            yield server.url
    except services.Unavailable as e:
        pytest.skip(f"{e}: the tests of the server on several processes skipped")


free_port = services.free_port
new_postgres_database = services.new_database


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty data directory of its own (`LIARSDICE_DATA`), and no duel strategy looked up
    before it in this process."""
    from liarsdice.bots.trained import TrainedDuels

    monkeypatch.setenv("LIARSDICE_DATA", str(tmp_path))
    TrainedDuels.forget()
    yield tmp_path
    TrainedDuels.forget()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'liarsdice.sqlite3'}"
    server = request.getfixturevalue("postgres_server")
    return new_postgres_database(server)
