"""Run the server with uvicorn and say where it listens once it does."""

from __future__ import annotations

import errno
import gc
import json
import logging
import socket
import sys
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.frames import CloseCode
from websockets.protocol import State
from websockets.server import ServerProtocol

from .app import create_app, default_database_url
from .cluster import ClusterError, check_redis_url
from .connection import MAX_MESSAGE
from .ladder import LadderConfig
from .pages import wants_page
from .settings import Settings
from .sizes import raw_refusal, url_too_long
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


# The longest address uvicorn hands to the app, which refuses one over MAX_URL (sizes.py). A
# longer one is refused here as soon as that much of it is read: uvicorn would gather all of it
# and answer a bare 400 from 64 KiB on, and the websockets library leaves the handshake of a
# socket whose address is over about 8 KiB unanswered.
PARSER_URL = 8000


class _AddressTooLong(Exception):
    """Raised in the parser's callback: it stops reading the request."""


class TableHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP (httptools), answering an address too long to read with the API's error
    (sizes.py) rather than a bare 400."""

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > PARSER_URL:
            raise _AddressTooLong

    def send_400_response(self, msg: str) -> None:
        if len(self.url) <= PARSER_URL:
            super().send_400_response(msg)
            return
        method = self.parser.get_method().decode("ascii", "replace")
        path = self.url.split(b"?", 1)[0].decode("ascii", "replace")
        message = url_too_long(len(self.url), more=True)
        page = wants_page(method, path, "")
        extra = self.server_state.default_headers
        self.transport.write(raw_refusal(414, message, page, extra))
        self.transport.close()


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
    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            tune_collector()
            for server in self.servers:
                for sock in server.sockets:
                    host, port = sock.getsockname()[:2]
                    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
                    print(f"liarsdice serving on http://{shown}:{port}", flush=True)
                    return


def listen_sockets(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to `host` and `port`, one for each address the host has (as uvicorn would
    bind them), or a ValueError a person can act on. Bound here, before the app starts, so that
    a port in use is one clear line and not uvicorn's error among the start-up logs."""
    try:
        found = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise ValueError(f"cannot listen on {host!r}: {e.strerror}; choose another address with --host") from None
    sockets: list[socket.socket] = []
    problem: OSError | None = None
    for family, kind, proto, _, address in dict.fromkeys(found):
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind((address[0], port, *address[2:]))  # port 0: the free port the first one found
            # listening now holds the port (Linux lets another SO_REUSEADDR socket bind it until one
            # listens); connections made before the app is ready wait in the backlog
            sock.listen(2048)
        except OSError as e:
            sock.close()
            problem = e
            if e.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
                continue  # an address family this machine lacks (IPv6 off, say): the others will do
            break
        sockets.append(sock)
        port = sock.getsockname()[1]
    if sockets and (problem is None or problem.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT)):
        for sock in sockets:
            sock.set_inheritable(True)
        return sockets
    for sock in sockets:
        sock.close()
    code = problem.errno if problem is not None else None
    if code == errno.EADDRINUSE:
        raise ValueError(f"port {port} on {host} is in use; choose another with --port")
    if code == errno.EACCES:
        raise ValueError(
            f"port {port} on {host} needs privileges (ports below 1024 usually do); choose another with --port"
        )
    if code in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT):
        raise ValueError(f"{host} is not an address of this machine; choose another with --host")
    raise ValueError(f"cannot listen on {host} port {port}: {problem.strerror if problem else 'no address found'}")


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
    sockets = listen_sockets(host, port)
    try:
        make_engine(url).dispose()  # a bad URL fails here, with its message, before uvicorn starts
        if redis_url is not None:
            if url.startswith("sqlite") and ":memory:" in url:
                raise ValueError(
                    "several processes share one database: --redis-url needs a database file or PostgreSQL"
                )
            try:
                check_redis_url(redis_url)  # likewise for Redis
            except ClusterError as e:
                raise ValueError(str(e)) from None
    except BaseException:
        for sock in sockets:
            sock.close()
        raise
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
        http=TableHttpProtocol,
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
    _Server(config).run(sockets=sockets)
