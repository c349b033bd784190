"""`/ws/{code}`: a table's websocket (docs/protocol.md). After its hello, each frame is handed to
dispatch.py, which reads it and calls the handler of its type (tablehandlers.py); a table run by
another process is served through it (relay.py, docs/scaling.md)."""

from __future__ import annotations

import asyncio
import contextlib

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from ..connection import Connection
from ..dispatch import dispatch, refuse_here
from ..frames import receive
from ..limits import RoomError
from ..messages import Hello
from ..relay import relay
from ..rooms import Room
from ..tablehandlers import TABLE_HANDLERS, AtTable
from .shared import StrictJSONRoute, metrics_of, rooms, settings_of

router = APIRouter(route_class=StrictJSONRoute)

HELLO_TIME = 30  # seconds a new socket has to say hello


@router.websocket("/ws/{code}")
async def table_socket(websocket: WebSocket, code: str) -> None:
    manager = rooms(websocket)
    settings, metrics = settings_of(websocket), metrics_of(websocket)
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
            conn.send({"type": "error", "code": "no_table", "message": f"no table with the code {code!r}", "ref": None})
            return
        try:
            first = await asyncio.wait_for(receive(websocket), HELLO_TIME)
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
