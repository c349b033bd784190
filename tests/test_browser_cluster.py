"""Browsers at a server of two processes (docs/scaling.md) behind a load balancer: the process
running their table is killed mid-game, and the pages reconnect by themselves and finish it.

The load balancer is a small TCP proxy in this file: each new connection goes to the next
process that accepts it (round robin, as nginx's `upstream` does with a dead server), so the
pages' sockets land on either process and are relayed where the table runs. Debian's chromium is
driven by Playwright, PostgreSQL and Redis are the suite's own (tests/conftest.py).
"""

from __future__ import annotations

import contextlib
import itertools
import random
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from test_browser import NEEDS_CHROMIUM, RANKING, _act, _artifacts, _seat_page, _watch_errors, browser
from test_server_cluster import Node, cluster, urls

__all__ = ["browser", "urls"]  # fixtures, used by name

pytestmark = NEEDS_CHROMIUM

GAME_TIME_LIMIT = 120.0


class Balancer:
    """A TCP proxy on a free port sending each new connection to the next live backend."""

    def __init__(self, ports: list[int]) -> None:
        self.ports = ports
        self._turn = itertools.count()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sent: dict[int, int] = dict.fromkeys(ports, 0)  # connections per backend
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        start = next(self._turn)
        for i in range(len(self.ports)):
            port = self.ports[(start + i) % len(self.ports)]
            try:
                upstream = socket.create_connection(("127.0.0.1", port), timeout=2)
            except OSError:
                continue
            upstream.settimeout(None)
            self.sent[port] += 1
            threading.Thread(target=_pipe, args=(upstream, client), daemon=True).start()
            _pipe(client, upstream)
            return
        client.close()

    def close(self) -> None:
        self.listener.close()


def _pipe(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for s in (source, sink):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()


@dataclass
class Site:
    url: str


def _owner(redis_url: str, code: str, nodes: list[Node]) -> Node:
    """The process that runs table `code`: the one whose name (host:pid:...) holds its lease."""
    import redis

    holder = redis.Redis.from_url(redis_url, decode_responses=True).get(f"liarsdice:owner:{code}")
    assert holder is not None, f"no process holds table {code}"
    pid = int(str(holder).split(":")[1])
    return next(n for n in nodes if n.proc.pid == pid)


@pytest.fixture
def two_behind_a_balancer(urls: tuple[str, str]) -> Iterator[tuple[Balancer, list[Node], str]]:
    database_url, redis_url = urls
    with cluster(database_url, redis_url, 2) as nodes:
        balancer = Balancer([n.port for n in nodes])
        try:
            yield balancer, nodes, redis_url
        finally:
            balancer.close()


def test_pages_reconnect_by_themselves_when_their_tables_process_is_killed(
    two_behind_a_balancer: tuple[Balancer, list[Node], str], browser: Any
) -> None:
    balancer, nodes, redis_url = two_behind_a_balancer
    site = Site(balancer.url)
    errors: list[str] = []
    rng = random.Random(7)
    api = browser.new_context().request
    table = api.post(f"{site.url}/api/tables", data={"preset": "perudo", "name": "Ann", "options": {"num_players": 3}})
    assert table.ok, table.text()
    code = table.json()["code"]
    seat = api.post(f"{site.url}/api/tables/{code}/join", data={"name": "Bo"})
    assert seat.ok, seat.text()
    host = _seat_page(browser, site, code, table.json(), "Ann")
    guest = _seat_page(browser, site, code, seat.json(), "Bo", viewport={"width": 390, "height": 844})
    pages = {"host": host, "guest": guest}
    for who, page in pages.items():
        _watch_errors(page, who, errors)
    host.wait_for_selector("#host-controls:not([hidden])")
    host.click("#fill-bots")
    host.wait_for_selector("#start:not([disabled])")
    host.click("#start")
    for page in pages.values():
        page.wait_for_selector("#cup .die")
    assert all(count > 0 for count in balancer.sent.values()), f"every process serves a page: {balancer.sent}"

    moves = {"host": 0, "guest": 0}
    killed: Node | None = None
    banner_seen = set()
    deadline = time.monotonic() + GAME_TIME_LIMIT
    while not all(p.locator("#result-card").is_visible() for p in pages.values()):
        assert time.monotonic() < deadline, f"the game did not end in {GAME_TIME_LIMIT} s ({moves} moves)"
        if killed is None and sum(moves.values()) >= 4:
            killed = _owner(redis_url, code, nodes)
            killed.kill()
        acted = False
        for who, page in pages.items():
            if killed is not None and page.locator("#banner").is_visible():
                banner_seen.add(who)
            if page.locator("#reveal-card").is_visible() and not page.locator("#result-card").is_visible():
                page.click("#reveal-continue")
            if _act(page, rng) is not None:
                moves[who] += 1
                acted = True
                error = page.locator("#action-error")
                assert error.is_hidden(), f"{who}'s move was refused: {error.inner_text()}"
        if not acted:
            time.sleep(0.05)
    assert killed is not None, "the game ended before the kill"
    survivor = next(n for n in nodes if n is not killed)
    assert survivor.alive and not survivor.log_problems(), survivor.log_problems()
    rankings = [p.locator("#ranking li").evaluate_all(RANKING) for p in pages.values()]
    assert rankings[0] == rankings[1] and sorted(n for _, n in rankings[0]) == ["Ann", "Bo", "Bot 1"], rankings
    # The page says it lost the connection while the table moved, then goes on by itself.
    assert banner_seen, "no page ever showed that its connection was lost"
    for page in pages.values():
        assert page.locator("#banner").is_hidden()
    host.screenshot(path=str(_artifacts() / "cluster-finished.png"), full_page=True)
    games = api.get(f"{site.url}/api/games").json()
    assert any(g["table"] == code for g in games)
    real = [e for e in errors if "WebSocket" not in e and "ERR_CONNECTION" not in e]
    assert not real, "\n".join(real)
    for page in pages.values():
        page.context.close()
