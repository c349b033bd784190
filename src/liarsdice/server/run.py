"""Run the server with uvicorn and say where it listens once it does."""

from __future__ import annotations

import logging
import sys

import uvicorn

from .app import create_app, default_database_url
from .rooms import Settings
from .storage import make_engine


class _Server(uvicorn.Server):
    async def startup(self, sockets: list | None = None) -> None:  # type: ignore[type-arg]
        await super().startup(sockets)
        if self.started:
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
) -> None:
    url = database_url or default_database_url()
    make_engine(url).dispose()  # a bad URL fails here, with its message, before uvicorn starts
    logging.basicConfig(level=log_level.upper(), stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    app = create_app(url, Settings(grace=grace, bot_delay=bot_delay, public_url=public_url, unload_after=unload_after))
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        ws_max_size=64 * 1024,
        ws_ping_interval=20,
        ws_ping_timeout=20,
        access_log=log_level == "debug",
    )
    _Server(config).run()
