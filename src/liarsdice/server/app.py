"""The web application: pages, the HTTP API and the table websocket (docs/protocol.md)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from ..levels import DEFAULT as DEFAULT_LEVEL
from ..levels import LADDER, STRONGEST_FIRST
from ..paths import data_dir
from ..rules import PRESETS, OptionsError, find_preset
from .botaccounts import (
    AccountError,
    NameTaken,
    SignupLimit,
    create_account,
    list_accounts,
    revoke_by_token,
)
from .botsocket import serve_bot
from .cluster import Cluster
from .connection import Connection
from .dispatch import dispatch, refuse_here
from .frames import BadJSON, parse_json, receive
from .laddergames import Ladder
from .ladderratings import MODEL as LADDER_MODEL
from .ladderratings import leaderboard
from .limits import MAX_TURN_SECONDS, NAME_RULE, OPTIONS_RULE, PRESET_RULE, RoomError, clean_name, shown_number
from .manager import CODE_LENGTH, RoomManager
from .messages import Hello
from .metrics import CONTENT_TYPE_LATEST, DatabaseCheck, HTTPErrorCounter, ServerMetrics, health
from .pages import install as install_pages
from .relay import relay
from .rooms import Room
from .settings import Settings
from .sizes import RequestLimits
from .storage import MAX_ID, GameRow, SeatRow, Store, TableRow, as_utc
from .tablehandlers import TABLE_HANDLERS, AtTable
from .tablerows import recorded_forfeit

log = logging.getLogger("liarsdice.server")
STATIC = Path(__file__).parent / "static"


def default_database_url() -> str:
    return f"sqlite:///{data_dir() / 'liarsdice.sqlite3'}"


# ----- HTTP bodies -----


# Each field's description is what a refusal of it says is allowed (validation.py).
TURN_RULE = f"the turn timer is a whole number of seconds, 0 (none) to {MAX_TURN_SECONDS}"
TOKEN_RULE = "the token shown when the bot account was made (at most 200 characters)"
DOWNLOAD_RULE = "download is 0 (the record to read, the default) or 1 (the record as a file to save)"
GAME_RULE = f"a game id is a whole number, 1 to {MAX_ID}"
CODE_RULE = f"a table's code is {CODE_LENGTH} letters and digits, as in its link (/t/CODE)"
TableCode = Annotated[str, PathParam(description=CODE_RULE)]


class CreateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    preset: str = Field(max_length=100, description=PRESET_RULE)
    name: str = Field(description=NAME_RULE)  # its length is checked with the rest of it (clean_name)
    options: dict[str, Any] = Field(default_factory=dict, description=OPTIONS_RULE)
    turn_seconds: int = Field(default=0, description=TURN_RULE)


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(description=NAME_RULE)


class NewBotAccount(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200, description=NAME_RULE)


class RevokeBotAccount(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str = Field(max_length=200, description=TOKEN_RULE)


def _create_account(session: Session, name: str) -> tuple[str, str]:
    """Make the account `name` (as `create_account` cleans it); its name and token."""
    token = create_account(session, name)
    return clean_name(name), token


def _status(error: RoomError) -> int:
    return {"bad_options": 422, "bad_message": 422, "not_ready": 409}.get(error.code, 400)


class _StrictJSONRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = parse_json(await self.body())
            except BadJSON as e:
                # FastAPI answers a JSONDecodeError as a validation error ("json_invalid", its
                # message in ctx.error), which validation.explain words with what the route reads.
                raise json.JSONDecodeError(str(e), "", 0) from None
        return self._json


class StrictJSONRoute(APIRoute):
    """A route whose JSON body is read by `parse_json`, as the websocket's messages are."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(_StrictJSONRequest(request.scope, request.receive))

        return strict


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
        app.state.store = store
        app.state.rooms = manager
        metrics.manager = manager
        restored = await manager.restore_playing()
        if restored:
            log.info("resumed %d tables in play", restored)
        tasks = [asyncio.create_task(manager.sweep()), asyncio.create_task(manager.watch_revocations())]
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
            if cluster is not None:
                await cluster.stop()
            metrics.manager = None
            database_check.close()
            await asyncio.to_thread(store.close)

    app = FastAPI(title="liarsdice", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.router.route_class = StrictJSONRoute
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.state.metrics = metrics
    app.state.database_check = database_check
    app.add_middleware(RequestLimits)  # inside the counter, which counts its refusals
    app.add_middleware(HTTPErrorCounter, metrics=metrics)
    install_pages(app)

    def rooms(request: Request | WebSocket) -> RoomManager:
        manager: RoomManager = request.app.state.rooms
        if settings.public_url:
            manager.base_url = settings.public_url.rstrip("/")
        elif not manager.base_url:
            base = str(request.base_url).rstrip("/")
            manager.base_url = base.replace("ws://", "http://", 1).replace("wss://", "https://", 1)
        return manager

    # ----- operations: for load balancers, supervisors and Prometheus (docs/deploy.md) -----

    @app.get("/healthz", include_in_schema=False)
    async def healthz(request: Request) -> JSONResponse:
        store: Store | None = getattr(request.app.state, "store", None)
        problem = "the server is starting or stopping" if store is None else await database_check(store.engine)
        manager: RoomManager | None = getattr(request.app.state, "rooms", None)
        cluster = manager.cluster if manager is not None else None
        redis_problem = None
        if cluster is not None and not cluster.safe():
            # It cannot hold a table's lease: a load balancer should send people elsewhere.
            redis_problem = "Redis has not answered for a while: this process runs no table until it does"
        status, body = health(started, problem, redis_problem, redis=settings.redis_url is not None)
        return JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})

    @app.get("/metrics", include_in_schema=False)
    async def prometheus_metrics() -> Response:
        return Response(metrics.exposition(), media_type=CONTENT_TYPE_LATEST)

    # ----- the API -----

    @app.get("/api/presets")
    async def presets() -> list[dict[str, Any]]:
        return [
            {
                "name": p.name,
                "title": p.title,
                "description": p.description,
                "options": p.build({"num_players": p.default_players}).to_dict(),
                "min_players": p.min_players,
                "max_players": p.max_players,
                "default_players": p.default_players,
            }
            for p in PRESETS.values()
        ]

    @app.get("/api/bots")
    async def bots() -> list[dict[str, Any]]:
        """The bot levels a host may seat, strongest (and the default) first; `order` counts up
        from the weakest, 1."""
        return [
            {
                "level": level.key,
                "name": level.name,
                "description": level.sentence,
                "order": LADDER.index(level) + 1,
                "default": level.key == DEFAULT_LEVEL,
                "aliases": list(level.aliases),
                "bot": level.bot,
            }
            for level in STRONGEST_FIRST
        ]

    @app.get("/api/bots/online")
    async def bots_online(request: Request) -> list[dict[str, str]]:
        """The bots a host may invite to an empty seat: the operator's, then the accounts online."""
        return rooms(request).lobby.listing()

    # ----- bot accounts made on the /bots page -----

    signups = SignupLimit(settings.bot_signups_per_hour)

    @app.get("/api/bot-accounts")
    async def bot_accounts(request: Request) -> dict[str, Any]:
        """The live bot accounts (never a token or its hash), each online or not, and whether
        this page may make one."""
        manager = rooms(request)
        accounts = await manager.store.call(list_accounts)
        online = set(manager.lobby.online_names())
        listed = [
            {"name": a["name"], "created": a["created"], "online": a["name"] in online}
            for a in accounts
            if a["revoked"] is None
        ]
        return {"signup": settings.bot_signup, "accounts": listed}

    @app.post("/api/bot-accounts")
    async def make_bot_account(body: NewBotAccount, request: Request) -> dict[str, str]:
        if not settings.bot_signup:
            raise HTTPException(
                403,
                "this server makes no bot accounts on its page: the operator makes them (liarsdice bot create NAME)",
            )
        address = request.client.host if request.client else "unknown"
        now = time.monotonic()
        wait = signups.wait(address, now)
        if wait > 0:
            minutes = math.ceil(wait / 60)
            raise HTTPException(
                429,
                f"at most {settings.bot_signups_per_hour} bot accounts an hour from one address: "
                f"try again in {minutes} minute{'s' if minutes != 1 else ''}",
                headers={"Retry-After": str(math.ceil(wait))},
            )
        try:
            name, token = await rooms(request).store.call(lambda s: _create_account(s, body.name))
        except NameTaken as e:
            raise HTTPException(409, str(e)) from e
        except AccountError as e:
            raise HTTPException(422, str(e)) from e
        signups.note(address, now)
        return {"name": name, "token": token}

    @app.post("/api/bot-accounts/revoke")
    async def revoke_bot_account(body: RevokeBotAccount, request: Request) -> dict[str, Any]:
        """Whoever holds a bot's token may revoke it: the bot is let go at once."""
        manager = rooms(request)
        name = await manager.store.call(lambda s: revoke_by_token(s, body.token))
        if name is None:
            raise HTTPException(403, "this token is no live bot account's: it is wrong, or revoked already")
        await manager.revoked(name)
        return {"name": name, "revoked": True}

    @app.post("/api/tables")
    async def create_table(body: CreateTable, request: Request) -> dict[str, Any]:
        manager = rooms(request)
        try:
            room, token = await manager.create(body.preset, body.name, body.options, body.turn_seconds)
        except RoomError as e:
            raise HTTPException(_status(e), e.message) from e
        except OptionsError as e:
            raise HTTPException(422, str(e)) from e
        return {"code": room.code, "seat": 0, "token": token, "url": f"{manager.base_url}/t/{room.code}"}

    @app.get("/api/tables")
    async def lobby(request: Request) -> list[dict[str, Any]]:
        # From the database, which holds every seat before anyone is told of it: the same
        # answer from every process, whichever runs each table.
        return await rooms(request).store.call(_lobby)

    async def _table_call(request: Request, code: str, method: str, args: dict[str, Any]) -> Any:
        try:
            answer = await rooms(request).table_call(code, method, args)
        except RoomError as e:
            raise HTTPException(_status(e), e.message) from e
        if answer is None:
            raise HTTPException(404, f"no table with the code {code!r}")
        return answer

    @app.get("/api/tables/{code}")
    async def table_info(code: TableCode, request: Request) -> dict[str, Any]:
        answer: dict[str, Any] = await _table_call(request, code, "table", {})
        return answer

    @app.post("/api/tables/{code}/join")
    async def join(code: TableCode, body: JoinTable, request: Request) -> dict[str, Any]:
        answer: dict[str, Any] = await _table_call(request, code, "join", {"name": body.name})
        return answer

    @app.get("/api/games")
    async def games(request: Request) -> list[dict[str, Any]]:
        return await rooms(request).store.call(_finished_games)

    @app.get("/api/games/{game_id}", response_model=None)
    async def game_record(
        request: Request,
        game_id: Annotated[int, PathParam(description=GAME_RULE)],
        download: Annotated[int, Query(ge=0, le=1, description=DOWNLOAD_RULE)] = 0,
    ) -> JSONResponse:
        if not 1 <= game_id <= MAX_ID:  # no such row, and a number the database could not compare
            raise HTTPException(404, f"no finished game {shown_number(game_id)}: game ids are 1 to {MAX_ID}")
        record = await rooms(request).store.call(lambda s: _record(s, game_id))
        if record is None:
            raise HTTPException(404, f"no finished game {game_id}")
        headers = {"Content-Disposition": f'attachment; filename="liarsdice-game-{game_id}.json"'} if download else {}
        return JSONResponse(record, headers=headers)

    @app.get("/api/ladder")
    async def ladder_board(
        request: Request, preset: Annotated[str | None, Query(description=PRESET_RULE)] = None
    ) -> dict[str, Any]:
        """The bot ladder: per preset, the bots by rating (ordinal = mu - 3 sigma), best first."""
        if preset is not None:
            try:
                preset = find_preset(preset).name
            except OptionsError as e:
                raise HTTPException(404, str(e)) from e
        wanted = preset
        boards = await rooms(request).store.call(lambda s: leaderboard(s, wanted))
        config = settings.ladder
        return {
            "running": config is not None,
            "presets": list(config.presets) if config is not None else [],
            "seats": config.seats if config is not None else None,
            "model": LADDER_MODEL,
            "boards": boards,
        }

    # ----- the websockets: a bot account's events (before /ws/{code}, which would take "bot"), a table -----

    @app.websocket("/ws/bot")
    async def bot_socket(websocket: WebSocket) -> None:
        await serve_bot(rooms(websocket), websocket, settings)

    @app.websocket("/ws/{code}")
    async def table_socket(websocket: WebSocket, code: str) -> None:
        manager = rooms(websocket)
        await websocket.accept()

        async def send(text: str) -> None:
            metrics.sent(text)
            await websocket.send_text(text)

        async def close(code: int) -> None:
            await websocket.close(code, conn.close_reason)

        conn = Connection(send, close, settings.rate, settings.burst)
        pump = asyncio.create_task(conn.pump())
        try:
            try:
                room = await manager.locate(code)
            except RoomError as e:
                conn.send({"type": "error", "code": e.code, "message": e.message, "ref": None})
                return
            if room is None:
                conn.send(
                    {"type": "error", "code": "no_table", "message": f"no table with the code {code!r}", "ref": None}
                )
                return
            try:
                first = await asyncio.wait_for(receive(websocket), 30)
                hello = TABLE_HANDLERS.read(first)
                if not isinstance(hello, Hello):
                    raise RoomError("bad_message", "the first message must be hello")
                if not isinstance(room, Room):  # another process runs the table: relay to it
                    assert manager.cluster is not None
                    with contextlib.suppress(WebSocketDisconnect):
                        room = await relay(
                            manager.cluster,
                            manager.gateway,
                            conn,
                            room,
                            {"token": hello.token, "name": hello.name},
                            lambda: receive(websocket),
                            refuse_here,
                            manager.take_over,
                        )
                    if not isinstance(room, Room):  # served there, or told why not
                        return
                await room.attach(conn, hello.token, hello.name)
            except RoomError as e:
                conn.send({"type": "error", "code": e.code, "message": e.message, "ref": None})
                return
            except (TimeoutError, WebSocketDisconnect):
                return
            try:
                while not conn.closed:
                    frame = await receive(websocket)
                    await dispatch(TABLE_HANDLERS, AtTable(room, conn), frame)
            except WebSocketDisconnect:
                pass
            finally:
                await room.detach(conn)
        finally:
            conn.stop()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(pump, 5)

    return app


# ----- queries (on the store's thread) -----


def _lobby(session: Session) -> list[dict[str, Any]]:
    """The newest open tables a person may join (a ladder's table, with no person at it, is not)."""
    tables = list(
        session.scalars(select(TableRow).where(TableRow.status == "open").order_by(TableRow.id.desc()).limit(100))
    )
    seats: dict[int, list[SeatRow]] = {t.id: [] for t in tables}
    if tables:
        for row in session.scalars(
            select(SeatRow).where(SeatRow.table_id.in_(list(seats))).order_by(SeatRow.table_id, SeatRow.seat_no)
        ):
            seats[row.table_id].append(row)
    out = []
    for table in tables:
        rows = seats[table.id]
        if not any(r.kind == "human" and not r.bot_level for r in rows):
            continue
        kinds = [r.kind for r in rows]
        out.append(
            {
                "code": table.code,
                "preset": table.preset,
                "title": PRESETS[table.preset].title if table.preset in PRESETS else table.preset,
                "status": table.status,
                "seats": len(kinds),
                "humans": kinds.count("human"),
                "bots": kinds.count("bot"),
                "empty": kinds.count("empty"),
                "names": [r.name for r in rows if r.kind != "empty"],
            }
        )
    return out


def _finished_games(session: Session) -> list[dict[str, Any]]:
    rows = session.execute(
        select(GameRow, TableRow.code)
        .join(TableRow, TableRow.id == GameRow.table_id)
        .where(GameRow.status == "finished")
        .order_by(GameRow.id.desc())
        .limit(200)
    ).all()
    return [
        {
            "id": game.id,
            "table": code,
            "preset": game.preset,
            "title": PRESETS[game.preset].title if game.preset in PRESETS else game.preset,
            "seats": game.seats,
            "winners": game.winners or [],
            "forfeit": recorded_forfeit(game.record),
            "rounds": game.rounds,
            "started": as_utc(game.started_at).isoformat(timespec="seconds"),
            "finished": as_utc(game.finished_at).isoformat(timespec="seconds") if game.finished_at else None,
        }
        for game, code in rows
    ]


def _record(session: Session, game_id: int) -> dict[str, Any] | None:
    game = session.get(GameRow, game_id)
    if game is None or game.record is None:
        return None
    return game.record
