"""What `server_load.py` starts around the players: PostgreSQL, Redis, `liarsdice serve`
processes, and the CPU counters it reads from /proc (Linux)."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from liarsdice.server import services

EXE = Path(sys.executable).with_name("liarsdice")
# The command that runs `liarsdice`: $LIARSDICE_BENCH_COMMAND if set (e.g. a build under study
# or a wrapper with probes), else the one beside this Python.
COMMAND = shlex.split(os.environ.get("LIARSDICE_BENCH_COMMAND", "")) or [str(EXE)]
TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system, all threads) a process has used so far; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime (fields 14 and 15 of stat)


def tree_cpu(pid: int) -> float:
    """CPU seconds of a process and its children (PostgreSQL: the postmaster and its backends)."""
    total = process_cpu(pid)
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            ppid = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid:
            total += process_cpu(int(stat.parent.name))
    return total


def machine_busy() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, all cores."""
    values = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    total = sum(values[:8])  # without guest time, already counted in user
    return (total - idle) / TICK, total / TICK


def redis_url_supported() -> bool:
    """Whether `liarsdice serve` takes --redis-url (multi-process serving)."""
    out = subprocess.run([*COMMAND, "serve", "--help"], capture_output=True, text=True, check=False).stdout
    return "--redis-url" in out


@contextmanager
def postgres_cluster() -> Iterator[tuple[str, int]]:
    """A throw-away PostgreSQL server (the one the tests use); yields its URL without a database
    name, and the postmaster's pid. fsync is off: the benchmark measures the server, not the disk."""
    try:
        with services.postgres_server(max_connections=200) as server:
            yield server.url, server.pid
    except services.Unavailable as e:
        raise SystemExit(f"{e}: use --database sqlite") from None


def new_database(cluster: str) -> str:
    return services.new_database(cluster, prefix="load")


@contextmanager
def redis_server() -> Iterator[tuple[str, int]]:
    """A throw-away Redis without persistence; yields its URL and pid."""
    try:
        with services.redis_server() as server:
            yield server.url, server.pid
    except services.Unavailable as e:
        raise SystemExit(str(e)) from None


class Server:
    """One `liarsdice serve` process; `base` is its http:// address once it serves."""

    def __init__(self, database_url: str, redis_url: str | None, log_path: Path) -> None:
        command = [
            *COMMAND,
            "serve",
            "--port",
            "0",
            "--database-url",
            database_url,
            "--log-level",
            "warning",
            "--bot-delay",
            "0",
        ]
        if redis_url is not None:
            command += ["--redis-url", redis_url]
        self.log_path = log_path
        self._log = log_path.open("w+")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self._log, text=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if "serving on" not in line:
            self.stop()
            raise SystemExit(f"the server did not start: {line or self.log()[-2000:]}")
        self.base = line.split("serving on ", 1)[1]
        # anything else it prints goes to the log, so a full pipe never holds the server up
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if self._log.closed:
                return
            self._log.write(line)

    @property
    def pid(self) -> int:
        return self.process.pid

    def log(self) -> str:
        if not self._log.closed:
            self._log.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._log.close()
