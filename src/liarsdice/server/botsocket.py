"""`/ws/bot`: a bot account's event socket (docs/protocol.md, "Bot accounts").

Shaped like the lichess Bot API's event stream: the bot authenticates with its token (an
`Authorization: Bearer` header, or a first `hello` message carrying it), is online while the
socket is open, hears `invite` events, and answers `accept` or `decline`. An accepted invitation
seats it and gives it a seat token; it then plays that seat over `/ws/{code}` like a browser.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Annotated, Any, Literal

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from .botaccounts import REVOKED, account_for_token, still_live
from .connection import FLOOD_LIMIT, Connection
from .frames import parse_frame, receive
from .limits import RoomError
from .manager import RoomManager
from .settings import Settings

HELLO_TIME = 30.0  # seconds a bot has to say who it is when it sent no Authorization header
BAD_TOKEN = REVOKED  # the close code for a wrong or revoked token (1008 is any policy violation)


class _BotMessage(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ref: int | None = None


class BotHello(_BotMessage):
    type: Literal["hello"]
    token: str = Field(max_length=200)


class Accept(_BotMessage):
    type: Literal["accept"]
    id: int


class Decline(_BotMessage):
    type: Literal["decline"]
    id: int
    reason: str = Field(default="", max_length=200)


class BotPing(_BotMessage):
    type: Literal["ping"]
    t: Any = None


BOT_MESSAGE: TypeAdapter[Any] = TypeAdapter(
    Annotated[BotHello | Accept | Decline | BotPing, Field(discriminator="type")]
)
BOT_MESSAGE_TYPES = "hello (first, without an Authorization header), accept, decline, ping"


def _bearer(websocket: WebSocket) -> str | None:
    header = websocket.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


async def serve_bot(manager: RoomManager, websocket: WebSocket, settings: Settings) -> None:
    def parse(frame: str | bytes) -> Any:
        return parse_frame(frame, BOT_MESSAGE, BOT_MESSAGE_TYPES)

    await websocket.accept()

    async def send(text: str) -> None:
        await websocket.send_text(text)

    async def close(code: int) -> None:
        await websocket.close(code)

    conn = Connection(send, close, settings.rate, settings.burst)
    pump = asyncio.create_task(conn.pump())
    name: str | None = None
    try:
        try:
            token = _bearer(websocket)
            if token is None:
                hello = parse(await asyncio.wait_for(receive(websocket), HELLO_TIME))
                if not isinstance(hello, BotHello):
                    raise RoomError("bad_message", "say who you are first: hello with your token, or send the header")
                token = hello.token
            name = await manager.store.call(lambda s: account_for_token(s, token))
            if name is None:
                refused = "this token is wrong or revoked: ask the operator for a new one"
                conn.send({"type": "error", "code": "bad_token", "message": refused, "ref": None})
                conn.close_code = BAD_TOKEN
                return
        except RoomError as e:
            conn.send({"type": "error", "code": e.code, "message": e.message, "ref": None})
            return
        except (TimeoutError, WebSocketDisconnect):
            return
        manager.lobby.connect(name, conn)
        conn.send({"type": "welcome", "bot": name, "server_time": int(time.time() * 1000)})
        try:
            while not conn.closed:
                await _handle(manager, name, conn, parse, await receive(websocket))
        except WebSocketDisconnect:
            pass
        finally:
            manager.lobby.disconnect(name, conn)
    finally:
        conn.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(pump, 5)


async def _handle(manager: RoomManager, name: str, conn: Connection, parse: Any, frame: str | bytes) -> None:
    ref = None
    try:
        if not conn.bucket.take():
            raise RoomError("rate_limited", "too many messages: slow down")
        message = parse(frame)
        ref = message.ref
        if isinstance(message, Accept):
            ref = message.id if ref is None else ref
            invite = manager.lobby.take(name, message.id)
            if not await manager.store.call(lambda s: still_live(s, name)):
                raise RoomError("bad_token", "this bot account was revoked")
            # Wherever the table runs now: here, or in another process (docs/scaling.md).
            seated = await manager.table_call(invite.code, "seat_account", {"name": name, "seat": invite.seat})
            if seated is None:
                raise RoomError("no_table", f"the table {invite.code} is gone")
            conn.send(
                {
                    "type": "seated",
                    "id": message.id,
                    "table": seated["code"],
                    "seat": seated["seat"],
                    "token": seated["token"],
                    "url": f"{manager.base_url}/t/{seated['code']}",
                    "ref": ref,
                }
            )
        elif isinstance(message, Decline):
            invite = manager.lobby.take(name, message.id)
            why = f": {message.reason}" if message.reason else ""
            invite.host.send({"type": "error", "code": "declined", "message": f"{name} declined{why}", "ref": None})
        elif isinstance(message, BotPing):
            conn.send({"type": "pong", "t": message.t, "ref": message.ref})
        elif isinstance(message, BotHello):
            raise RoomError("bad_message", "hello comes once, first")
        conn.refused_in_a_row = 0
    except RoomError as e:
        conn.refused_in_a_row += 1
        conn.send({"type": "error", "code": e.code, "message": e.message, "ref": ref})
        if conn.refused_in_a_row >= FLOOD_LIMIT:
            conn.stop()
