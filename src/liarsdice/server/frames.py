"""A websocket's frames as this server reads them: JSON text with finite numbers, valid Unicode
and a bounded depth (`parse_json`, also the reader of every HTTP body), then one of the typed
messages its socket takes (`parse_frame`); any other frame is refused with the reason."""

from __future__ import annotations

import json
import math
from typing import Any, NoReturn, TypeVar

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import TypeAdapter, ValidationError

from .connection import MAX_MESSAGE
from .limits import RoomError

M = TypeVar("M")

MAX_DEPTH = 16  # levels of nesting in a client's JSON; the deepest real message has 4


class BadJSON(ValueError):
    """Input that is not JSON this server reads; the message says why."""


def _no_constant(name: str) -> NoReturn:
    raise BadJSON(f"{name} is not a number: numbers must be finite")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 24 else f"a number of {len(text):,} characters"
        raise BadJSON(f"{shown} is out of range: numbers must be finite (at most about 1.8e308)")
    return value


def parse_json(text: str | bytes) -> Any:
    """JSON with finite numbers only, valid Unicode text only (no lone surrogates such as
    \\ud800, which no database stores) and at most MAX_DEPTH levels deep; BadJSON if not."""
    try:
        data = json.loads(text, parse_constant=_no_constant, parse_float=_finite)
    except BadJSON:
        raise
    except json.JSONDecodeError as e:
        raise BadJSON(f"not JSON: {e.msg}") from None
    except RecursionError:  # json's own guard against a deep stack: it unwinds cleanly
        raise BadJSON(f"nested more than {MAX_DEPTH} levels deep") from None
    except UnicodeDecodeError:
        raise BadJSON("not JSON: the text is not UTF-8") from None
    except ValueError as e:  # a whole number of more than 4,300 digits
        raise BadJSON(f"not JSON this server reads: {str(e).split(';')[0]}") from None
    # Without recursion: a stack of what is left to look at, with its depth.
    left: list[tuple[Any, int]] = [(data, 0)]
    while left:
        value, depth = left.pop()
        if isinstance(value, str):
            if not value.isascii():
                try:
                    value.encode()
                except UnicodeEncodeError as e:
                    lone = f"U+{ord(value[e.start]):04X}"
                    raise BadJSON(f"text holds a lone surrogate ({lone}), which is no character") from None
        elif isinstance(value, (dict, list)):
            if depth >= MAX_DEPTH:
                raise BadJSON(f"nested more than {MAX_DEPTH} levels deep")
            items = [*value, *value.values()] if isinstance(value, dict) else value
            left.extend((item, depth + 1) for item in items)
    return data


def parse_frame(frame: str | bytes, adapter: TypeAdapter[M], types: str) -> M:
    """The typed message (`adapter` reads one of `types`), or RoomError ("bad_message",
    "too_large") saying what is wrong."""
    if isinstance(frame, bytes):
        raise RoomError("bad_message", "a message is JSON text: binary frames are not read")
    size = len(frame.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE:
        raise RoomError("too_large", f"a message has at most {MAX_MESSAGE} bytes (UTF-8); this one has {size}")
    try:
        data = parse_json(frame)
    except BadJSON as e:
        raise RoomError("bad_message", str(e)) from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise RoomError("bad_message", f"a message is a JSON object with a type: one of {types}")
    try:
        return adapter.validate_python(data)
    except ValidationError as e:
        first = e.errors()[0]
        if first["type"] == "union_tag_invalid":
            raise RoomError("bad_message", f"unknown message type {data['type']!r}: one of {types}") from e
        where = ".".join(str(x) for x in first["loc"][1:]) or "message"
        raise RoomError("bad_message", f"{data['type']}: {where}: {first['msg']}") from e


async def receive(websocket: WebSocket) -> str | bytes:
    """The next message: text, or the bytes of a binary frame (which `parse_frame` refuses, where
    Starlette's receive_text would fail); WebSocketDisconnect once the socket closes."""
    message = await websocket.receive()
    if message["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(message.get("code", 1000), message.get("reason"))
    text = message.get("text")
    return text if text is not None else message.get("bytes") or b""
