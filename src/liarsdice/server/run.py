"""Run the server with uvicorn and say where it listens once it does."""

from __future__ import annotations

import gc
import json
import logging
import sys
from typing import Any

import uvicorn
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import CloseCode
from websockets.protocol import State
from websockets.server import ServerProtocol

from .app import create_app, default_database_url
from .cluster import ClusterError, check_redis_url
from .ladder import LadderConfig
from .rooms import MAX_MESSAGE, Settings
from .storage import make_engine

MAX_FRAME = 64 * 1024  # bytes of a websocket message the server reads at all (MAX_MESSAGE it acts on)
_TOO_LARGE = json.dumps(
    {
        "type": "error",
        "code": "too_large",
        "message": f"a message has at most {MAX_MESSAGE} bytes (UTF-8); this one has more than {MAX_FRAME}, "
        "so the connection is closed (1009)",
        "ref": None,
    }
)


class _SaysTooLarge(ServerProtocol):
    def fail(self, code: int, reason: str = "") -> None:
        # A message over MAX_FRAME is not read (its bytes are not even kept): the connection
        # fails with 1009. Say why first, in the protocol's words, as for any refused message.
        if code == CloseCode.MESSAGE_TOO_BIG and self.state is State.OPEN:
            self.send_text(_TOO_LARGE.encode())
        super().fail(code, reason)


class TableSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websocket (the websockets library), answering a message too big to read with
    an `error` before it closes the connection."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.conn.__class__ = _SaysTooLarge  # the same connection, with `fail` above


def tune_collector() -> None:
    """Keep the cyclic garbage collector from stalling the event loop.

    A busy server holds some 300k long-lived objects (states, views, sockets) and makes almost no
    cyclic garbage, yet with the default thresholds a full collection walks them all every few
    seconds, 130-300 ms each time at 200 tables: those pauses were the whole p99 of
    `benchmarks/server_load.py`. What exists at start-up (modules, the app) is frozen out of every
    collection; young collections run after 50k allocations instead of 700, so objects that die
    young (most messages) are gone before any collection sees them. A shorter switch interval
    hands the GIL from the database thread back to the event loop sooner.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 10)
    sys.setswitchinterval(0.001)


class _Server(uvicorn.Server):
    async def startup(self, sockets: list | None = None) -> None:  # type: ignore[type-arg]
        await super().startup(sockets)
        if self.started:
            tune_collector()
            for server in self.servers:
                for sock in server.sockets:
                    host, port = sock.getsockname()[:2]
                    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
                    print(f"liarsdice serving on http://{shown}:{port}", flush=True)
                    return


def run_server(
    host: str,
    port: int,
    database_url: str | None,
    *,
    grace: float = 30.0,
    bot_delay: float = 0.8,
    log_level: str = "info",
    public_url: str | None = None,
    unload_after: float = 600.0,
    reveal_pause: float = 5.0,
    operator_bots: dict[str, str] | None = None,
    forwarded_allow_ips: str | None = None,
    ladder: LadderConfig | None = None,
    bot_signup: bool = True,
    redis_url: str | None = None,
) -> None:
    url = database_url or default_database_url()
    make_engine(url).dispose()  # a bad URL fails here, with its message, before uvicorn starts
    if redis_url is not None:
        if url.startswith("sqlite") and ":memory:" in url:
            raise ValueError("several processes share one database: --redis-url needs a database file or PostgreSQL")
        try:
            check_redis_url(redis_url)  # likewise for Redis
        except ClusterError as e:
            raise ValueError(str(e)) from None
    logging.basicConfig(level=log_level.upper(), stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    settings = Settings(
        grace=grace,
        bot_delay=bot_delay,
        public_url=public_url,
        unload_after=unload_after,
        reveal_pause=reveal_pause,
        operator_bots=dict(operator_bots or {}),
        ladder=ladder,
        bot_signup=bot_signup,
        redis_url=redis_url,
    )
    app = create_app(url, settings)
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        ws=TableSocketProtocol,
        ws_max_size=MAX_FRAME,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        access_log=log_level == "debug",
        # Behind a reverse proxy: the client's address and scheme (https, hence wss and the
        # invitation links) come from X-Forwarded-* headers sent by these addresses only.
        proxy_headers=True,
        forwarded_allow_ips=forwarded_allow_ips,
    )
    _Server(config).run()
