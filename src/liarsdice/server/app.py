"""The web application: the pages (pages.py), the HTTP API and the websockets (routes/, by
concern), and the tables they serve, made and put away with the app (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI

from ..paths import data_dir
from .assets import VersionedStaticFiles
from .botaccounts import SignupLimit
from .cluster import Cluster
from .laddergames import Ladder
from .manager import RoomManager
from .metrics import DatabaseCheck, HTTPErrorCounter, ServerMetrics
from .pages import install as install_pages
from .playnow import PlayNow
from .reviewer import Reviewer
from .routes import bots, games, heldseats, ladder, learn, lobby, operations, people, ratings, tables, tablesocket
from .routes.shared import StrictJSONRoute
from .settings import Settings
from .signedin import SignedInPages
from .sizes import RequestLimits
from .storage import Store

log = logging.getLogger("liarsdice.server")
STATIC = Path(__file__).parent / "static"


def default_database_url() -> str:
    return f"sqlite:///{data_dir() / 'liarsdice.sqlite3'}"


def create_app(
    database_url: str | None = None,
    settings: Settings | None = None,
) -> FastAPI:
    settings = settings or Settings()
    url = database_url or default_database_url()
    metrics = ServerMetrics()
    database_check = DatabaseCheck()
    started = time.monotonic()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = await asyncio.to_thread(Store, url)
        cluster = Cluster(settings.redis_url) if settings.redis_url else None
        if cluster is not None:
            await cluster.start()
        manager = RoomManager(store, settings, metrics, cluster)
        # The analyses of finished games, one at a time in a process of its own (reviewer.py).
        reviewer = Reviewer(store, cluster.id if cluster is not None else uuid.uuid4().hex)
        manager.reviewer = reviewer
        app.state.store = store
        app.state.rooms = manager
        app.state.reviewer = reviewer
        app.state.playnow = playnow = PlayNow(manager)  # the lobby's pairing (docs/lobby.md)
        metrics.manager = manager
        restored = await manager.restore_playing()
        if restored:
            log.info("resumed %d tables in play", restored)
        tasks = [
            asyncio.create_task(manager.sweep()),
            asyncio.create_task(manager.watch_revocations()),
            asyncio.create_task(reviewer.run()),
            asyncio.create_task(playnow.run()),
        ]
        if cluster is not None:
            tasks.append(asyncio.create_task(manager.watch_cluster()))
        if settings.ladder is not None:
            ladder = Ladder(manager, settings.ladder)
            # One ladder for the whole server: with several processes, the one holding its lease runs it.
            job = ladder.run() if cluster is None else manager.lead("~ladder", ladder.run)
            tasks.append(asyncio.create_task(job))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            manager.close()
            await asyncio.to_thread(reviewer.close)
            if cluster is not None:
                await cluster.stop()
            metrics.manager = None
            database_check.close()
            await asyncio.to_thread(store.close)

    app = FastAPI(title="liarsdice", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.router.route_class = StrictJSONRoute
    app.mount("/static", VersionedStaticFiles(directory=STATIC), name="static")
    app.state.settings = settings
    app.state.metrics = metrics
    app.state.database_check = database_check
    app.state.started = started
    app.state.signups = SignupLimit(settings.bot_signups_per_hour)
    app.add_middleware(SignedInPages)  # the navigation's signed-in name (signedin.py)
    app.add_middleware(RequestLimits)  # inside the counter, which counts its refusals
    app.add_middleware(HTTPErrorCounter, metrics=metrics)
    install_pages(app)
    # Each router's routes join the app's own list, in this order (bots' /ws/bot before the
    # table's /ws/{code}, which would take "bot"): not include_router, which newer FastAPI keeps
    # as one opaque entry per router, so the app lists every route it serves, as validation.py
    # and the tests that check each route's parameters read them.
    for router in (
        operations.router,
        tables.router,
        bots.router,
        games.router,
        ladder.router,
        learn.router,
        people.router,
        ratings.router,
        heldseats.router,
        lobby.router,
        tablesocket.router,
    ):
        app.router.routes.extend(router.routes)
    return app
