"""How big an HTTP request may be, and the answer to one that is bigger (docs/protocol.md, "Sizes").

Starlette's own limit answers a bare "413 Content Too Large", and uvicorn a bare "400 Invalid
HTTP request received." to an address too long for its parser. Here every refusal says what was
too big and what is allowed, in the shape of the API's other errors (`{"detail": ...}`), or as
the site's page for a person's browser (a page's address opened, or a form posted). A table's
websocket is answered on the socket, as its other refusals are (`error` `too_large`).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from http import HTTPStatus
from typing import Any

from fastapi import HTTPException
from starlette.datastructures import Headers
from starlette.responses import JSONResponse, Response

from .limits import MAX_BODY, MAX_URL, NAME_RULE
from .pages import site_page, wants_page

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

TITLES = {413: "Too much sent", 414: "That address is too long"}
# Addresses whose body holds a name: the likeliest thing in it to be too long.
_NAMED = re.compile(r"^/api/(tables|tables/[^/]+/join|bot-accounts)/?$")


def url_size(scope: Scope) -> int:
    """The bytes of a request's address as sent: its path and query string."""
    path: bytes = scope.get("raw_path") or scope["path"].encode()
    query: bytes = scope.get("query_string") or b""
    return len(path) + (1 + len(query) if query else 0)


def url_too_long(size: int, more: bool = False) -> str:
    """What is wrong with an address of `size` bytes (`more`: at least that many)."""
    got = f"more than {size:,}" if more else f"{size:,}"
    return f"this address is {got} bytes long: an address (its path and query string) has at most {MAX_URL:,}"


def body_too_large(path: str, size: int | None) -> str:
    """What is wrong with a body of `size` bytes (None: more than MAX_BODY, and still coming)."""
    got = f"{size:,} bytes" if size is not None else f"more than {MAX_BODY:,} bytes"
    message = f"this request's body is {got}: a request's body has at most {MAX_BODY:,} bytes (64 KiB)"
    return f"{message}; {NAME_RULE}" if _NAMED.match(path) else message


def refusal(status: int, message: str, page: bool) -> Response:
    """The answer to a request refused for its size: the site's page, or the API's JSON error."""
    if not page:
        return JSONResponse({"detail": message}, status_code=status)
    title = TITLES.get(status, "Not read")
    body = f"""    <section class="card error-page" aria-labelledby="error-title">
      <h1 id="error-title">{html.escape(title)}</h1>
      <p id="error-text">{html.escape(message[:1].upper() + message[1:])}.</p>
      <p class="row"><a class="button primary" href="/">Back to the tables</a></p>
    </section>"""
    return site_page(title, body, status=status)


def raw_refusal(status: int, message: str, page: bool, extra: list[tuple[bytes, bytes]]) -> bytes:
    """`refusal` as the bytes of a whole HTTP/1.1 response that closes the connection, for an
    answer written before any application sees the request (run.py)."""
    response = refusal(status, message, page)
    lines = [f"HTTP/1.1 {status} {HTTPStatus(status).phrase}".encode()]
    lines += [name + b": " + value for name, value in [*extra, *response.raw_headers]]
    lines += [b"connection: close", b"", bytes(response.body)]
    return b"\r\n".join(lines)


async def _refuse_socket(receive: Receive, send: Send, message: str) -> None:
    """Refuse a websocket as its other refusals are: one `error`, and the socket closed. (Not
    with an HTTP answer to its handshake: uvicorn logs an error after each.)"""
    if (await receive())["type"] != "websocket.connect":
        return
    error = {"type": "error", "code": "too_large", "message": message, "ref": None}
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": json.dumps(error)})
    await send({"type": "websocket.close", "code": 1000, "reason": ""})


class RequestLimits:
    """ASGI middleware refusing an address over MAX_URL, or a body over MAX_BODY, saying so. A
    body whose length is declared is refused before it is read; one sent without its length
    (chunked) once MAX_BODY of it has come."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        size = url_size(scope)
        if kind == "websocket":
            if size > MAX_URL:
                await _refuse_socket(receive, send, url_too_long(size))
            else:
                await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        path = scope["path"]
        page = wants_page(scope["method"], path, headers.get("content-type", ""))
        declared = headers.get("content-length", "")
        if size > MAX_URL:
            await refusal(414, url_too_long(size), page)(scope, receive, send)
            return
        # (more than 18 digits: too many for a body, and for int() to be asked to read)
        if declared.isascii() and declared.isdigit() and (len(declared) > 18 or int(declared) > MAX_BODY):
            told = int(declared) if len(declared) <= 18 else None
            await refusal(413, body_too_large(path, told), page)(scope, receive, send)
            return
        read = 0

        async def limited() -> Message:
            nonlocal read
            message = await receive()
            if message["type"] == "http.request":
                read += len(message.get("body", b""))
                if read > MAX_BODY:
                    # An HTTPException: FastAPI answers it with its handler (an error met while
                    # reading a body would otherwise become "There was an error parsing the body").
                    raise HTTPException(413, body_too_large(path, None))
            return message

        await self.app(scope, limited, send)
