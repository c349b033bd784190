"""What an operator watches: Prometheus metrics of one server process, and its health check.

Each app has its own `CollectorRegistry`: the suite makes many apps in one process, and the
global registry would refuse the second app's metrics (and mix them up if it did not).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as package_version
from typing import Any, Protocol

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector
from sqlalchemy import text
from sqlalchemy.engine import Engine
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["CONTENT_TYPE_LATEST", "Census", "Counted", "DatabaseCheck", "ServerMetrics", "server_version"]

# From a move received to its update queued for every connection of the table: most are a
# database commit and a few views, so the buckets are finer below 100 ms.
LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
_ERROR_PREFIX = '{"type":"error"'  # how Connection.send serialises an error (compact JSON, type first)


def server_version() -> str:
    try:
        return package_version("liarsdice")
    except PackageNotFoundError:  # run from a source tree that was never installed
        from .. import __version__

        return __version__


@dataclass(frozen=True)
class Census:
    """What the gauges say of one process, counted by whoever keeps its tables (manager.py)."""

    tables: Mapping[str, int]  # tables in memory, by status: open, playing, finished
    seats: int  # open table websockets of seated players
    spectators: int  # ...and of spectators
    bot_accounts: int  # bot accounts online (/ws/bot)
    # Several processes (docs/scaling.md): table websockets held here whose tables run elsewhere,
    # held elsewhere at tables run here, and the leases held. None: this process is the server.
    relayed_out: int | None = None
    relayed_in: int | None = None
    leases: int | None = None


class Counted(Protocol):
    """Whatever can count a process's tables and connections when the gauges are read."""

    def census(self) -> Census: ...


class _TablesAndConnections(Collector):
    """Gauges read from the live tables when scraped, so they never drift from the truth."""

    def __init__(self, counted: Callable[[], Counted | None]) -> None:
        self._counted = counted

    def collect(self) -> Iterator[GaugeMetricFamily]:
        counted = self._counted()
        census = counted.census() if counted is not None else Census({}, 0, 0, 0)
        tables = GaugeMetricFamily("liarsdice_tables", "tables in this process's memory, by status", labels=["status"])
        for status in ("open", "playing", "finished"):
            tables.add_metric([status], census.tables.get(status, 0))
        yield tables
        connections = GaugeMetricFamily(
            "liarsdice_connections", "open websockets, by kind: seat, spectator, bot_account", labels=["kind"]
        )
        connections.add_metric(["seat"], census.seats)
        connections.add_metric(["spectator"], census.spectators)
        connections.add_metric(["bot_account"], census.bot_accounts)
        yield connections
        if census.relayed_out is not None and census.relayed_in is not None:
            relayed = GaugeMetricFamily(
                "liarsdice_relayed_sockets",
                "table websockets crossing processes: out = held here, the table runs elsewhere; "
                "in = held elsewhere, the table runs here (counted in liarsdice_connections too)",
                labels=["direction"],
            )
            relayed.add_metric(["out"], census.relayed_out)
            relayed.add_metric(["in"], census.relayed_in)
            yield relayed
        if census.leases is not None:
            leases = GaugeMetricFamily("liarsdice_leases", "leases this process holds (tables it runs, the ladder)")
            leases.add_metric([], census.leases)
            yield leases


class ServerMetrics:
    """The metrics of one app: tables, connections, actions, errors, action latency, the process."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.manager: Counted | None = None  # the app's RoomManager, once the app has started
        ProcessCollector(registry=self.registry)
        self.registry.register(_TablesAndConnections(lambda: self.manager))
        self.actions = Counter(
            "liarsdice_actions",
            "moves applied at tables (people's and bots'; dice rolls not counted)",
            registry=self.registry,
        )
        self.errors = Counter(
            "liarsdice_errors",
            "error messages sent to table websockets, by the error's code (docs/protocol.md)",
            ["code"],
            registry=self.registry,
        )
        self.http_errors = Counter(
            "liarsdice_http_errors",
            "HTTP responses with a status of 400 or more, by status",
            ["status"],
            registry=self.registry,
        )
        self.action_latency = Histogram(
            "liarsdice_action_latency_seconds",
            "from a person's move received to its update queued for every connection at the table",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )

    def sent(self, text: str) -> None:
        """Count `text`, about to go to a table websocket, if it is an error."""
        if text.startswith(_ERROR_PREFIX):
            try:
                code = json.loads(text).get("code")
            except ValueError:  # pragma: no cover - Connection.send only queues JSON it made
                code = None
            self.errors.labels(code=str(code)).inc()

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


class HTTPErrorCounter:
    """ASGI middleware counting HTTP responses of 400 and more (websockets pass untouched)."""

    def __init__(self, app: ASGIApp, metrics: ServerMetrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def counting(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] >= 400:
                self.metrics.http_errors.labels(status=str(message["status"])).inc()
            await send(message)

        try:
            await self.app(scope, receive, counting)
        except Exception:
            # Starlette's outermost middleware answers 500 after this one has let the error by.
            self.metrics.http_errors.labels(status="500").inc()
            raise


class DatabaseCheck:
    """`SELECT 1` on its own thread with a time limit. One check at a time: while a check that
    hangs (a database that does not answer) is still waiting, the next ones fail at once rather
    than pile up threads behind it."""

    def __init__(self, timeout: float = 2.0) -> None:
        self.timeout = timeout
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="liarsdice-health")
        self._running: Future[None] | None = None

    async def __call__(self, engine: Engine) -> str | None:
        """None if the database answered, else why not."""
        if self._running is not None and not self._running.done():
            return f"the previous check has not been answered after {self.timeout:g} s or more"
        self._running = self._pool.submit(_select_one, engine)
        try:
            await asyncio.wait_for(asyncio.wrap_future(self._running), self.timeout)
        except TimeoutError:
            return f"no answer within {self.timeout:g} s"
        except Exception as e:
            return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else 'no message'}"
        return None

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)


def _select_one(engine: Engine) -> None:
    with engine.connect() as connection:
        connection.execute(text("SELECT 1"))


def health(
    started: float, problem: str | None, redis_problem: str | None = None, redis: bool = False
) -> tuple[int, dict[str, Any]]:
    """The /healthz answer: its status code and body (with `redis`, how this process stands
    with the Redis it shares tables through)."""
    ok = problem is None and redis_problem is None
    body: dict[str, Any] = {
        "status": "ok" if ok else "unavailable",
        "database": "ok" if problem is None else problem,
        "version": server_version(),
        "uptime_seconds": round(time.monotonic() - started, 3),
    }
    if redis:
        body["redis"] = "ok" if redis_problem is None else redis_problem
    return (200 if ok else 503), body
