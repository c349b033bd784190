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
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

_DATA = tempfile.TemporaryDirectory(prefix="liarsdice-tests-")
os.environ["LIARSDICE_DATA"] = _DATA.name


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _pg_bindir() -> Path | None:
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    for candidate in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if (Path(candidate) / "initdb").exists() and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    return None


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A PostgreSQL server for this test session; yields a URL without a database name."""
    bindir = _pg_bindir()
    if bindir is None:
        pytest.skip("no PostgreSQL server binaries (initdb, pg_ctl) on this machine: PostgreSQL tests skipped")
    # Under /tmp itself: pytest's own temporary folders are closed to other users, and the
    # server may have to run as the postgres user.
    base = Path(tempfile.mkdtemp(prefix="liarsdice-pg-"))
    data = base / "data"
    prefix: list[str] = []
    if os.geteuid() == 0:
        # initdb refuses to run as root: run the server as the postgres user where it exists
        runuser = shutil.which("runuser")
        try:
            import pwd

            pw = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and there is no postgres user to run PostgreSQL as")
        if runuser is None:
            pytest.skip("running as root without runuser to start PostgreSQL as the postgres user")
        os.chown(base, pw.pw_uid, pw.pw_gid)
        prefix = [runuser, "-u", "postgres", "--"]
    subprocess.run(
        [*prefix, str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
        check=True,
        capture_output=True,
    )
    port = free_port()
    log = base / "server.log"
    options = f"-p {port} -k {base} -h 127.0.0.1 -c fsync=off"
    subprocess.run(
        [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log), "-w", "-t", "60", "start"],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(
            [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], capture_output=True
        )
        shutil.rmtree(base, ignore_errors=True)


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@pytest.fixture(scope="session")
def redis_server() -> Iterator[str]:
    """A Redis server for this test session; yields its URL (database 0)."""
    found = shutil.which("redis-server")
    if found is None and os.path.exists("/usr/bin/redis-server"):  # /usr/bin may be off a narrow PATH
        found = "/usr/bin/redis-server"
    if found is None:
        pytest.skip("no redis-server binary on this machine: the tests of the server on several processes skipped")
    base = Path(tempfile.mkdtemp(prefix="liarsdice-redis-"))
    port = free_port()
    proc = subprocess.Popen(
        [found, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(base)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while not _redis_answers(port):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"redis-server did not answer PING on port {port} (exit code {proc.poll()})")
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        shutil.rmtree(base, ignore_errors=True)


def new_postgres_database(server: str) -> str:
    import psycopg

    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{server}/{name}"


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh, empty database: SQLite, then PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'liarsdice.sqlite3'}"
    server = request.getfixturevalue("postgres_server")
    return new_postgres_database(server)
