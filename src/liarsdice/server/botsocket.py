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
from dataclasses import dataclass
from typing import get_args

from fastapi import WebSocket, WebSocketDisconnect

from .botaccounts import REVOKED, account_for_token, still_live
from .connection import Connection
from .dispatch import Handlers, dispatch
from .frames import receive
from .limits import RoomError
from .manager import RoomManager
from .messages import BOT_MESSAGE, BOT_MESSAGE_TYPES, Accept, BotHello, BotMessage, BotPing, Decline
from .settings import Settings

HELLO_TIME = 30.0  # seconds a bot has to say who it is when it sent no Authorization header
BAD_TOKEN = REVOKED  # the close code for a wrong or revoked token (1008 is any policy violation)


@dataclass(frozen=True)
class BotSender:
    """Who sent a message on `/ws/bot`: the bot account `name`, online on `conn`."""

    manager: RoomManager
    name: str
    conn: Connection


def _bearer(websocket: WebSocket) -> str | None:
    header = websocket.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


async def serve_bot(manager: RoomManager, websocket: WebSocket, settings: Settings) -> None:
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
                hello = BOT_HANDLERS.read(await asyncio.wait_for(receive(websocket), HELLO_TIME))
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
        sender = BotSender(manager, name, conn)
        try:
            while not conn.closed:
                await dispatch(BOT_HANDLERS, sender, await receive(websocket))
        except WebSocketDisconnect:
            pass
        finally:
            manager.lobby.disconnect(name, conn)
    finally:
        conn.stop()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(pump, 5)


# ----- what each message does -----


async def accept(bot: BotSender, message: Accept) -> None:
    manager, name = bot.manager, bot.name
    invite = manager.lobby.take(name, message.id)
    if not await manager.store.call(lambda s: still_live(s, name)):
        raise RoomError("bad_token", "this bot account was revoked")
    # Wherever the table runs now: here, or in another process (docs/scaling.md).
    seated = await manager.table_call(invite.code, "seat_account", {"name": name, "seat": invite.seat})
    if seated is None:
        raise RoomError("no_table", f"the table {invite.code} is gone")
    bot.conn.send(
        {
            "type": "seated",
            "id": message.id,
            "table": seated["code"],
            "seat": seated["seat"],
            "token": seated["token"],
            "url": f"{manager.base_url}/t/{seated['code']}",
            "ref": message.answer_ref(),
        }
    )


async def decline(bot: BotSender, message: Decline) -> None:
    invite = bot.manager.lobby.take(bot.name, message.id)
    why = f": {message.reason}" if message.reason else ""
    invite.host.send({"type": "error", "code": "declined", "message": f"{bot.name} declined{why}", "ref": None})


async def ping(bot: BotSender, message: BotPing) -> None:
    bot.conn.send({"type": "pong", "t": message.t, "ref": message.ref})


async def hello_again(bot: BotSender, message: BotHello) -> None:
    raise RoomError("bad_message", "hello comes once, first")


BOT_HANDLERS = (
    Handlers[BotSender, BotMessage](BOT_MESSAGE, BOT_MESSAGE_TYPES)
    .on(Accept, accept)
    .on(Decline, decline)
    .on(BotPing, ping)
    .on(BotHello, hello_again)
)
assert BOT_HANDLERS.kinds() == set(get_args(BotMessage))  # every message type has its handler
