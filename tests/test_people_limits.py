"""The sign-in limits shared through Redis (sharedattempts.py, docs/accounts.md "For
operators"): two processes' counts are one; a Redis that fails neither locks anyone out nor
fails a sign-in, and is logged."""

from __future__ import annotations

import asyncio
import logging
import secrets
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from fastapi.testclient import TestClient

from conftest import free_port
from liarsdice.server.attempts import Attempts
from liarsdice.server.sharedattempts import Limits, SharedAttempts
from test_people import PASSWORD, post, sign_up
from test_server import serving


def two_processes(url: str, now_ms: int) -> tuple[SharedAttempts, SharedAttempts, aioredis.Redis]:
    """Two processes' counts of one limit (each its own memory) on one Redis, at a fixed clock."""
    client = aioredis.from_url(url, decode_responses=True)
    prefix = f"test:{secrets.token_hex(4)}"
    a = SharedAttempts(Attempts(free=2, most=4, window=100.0), client, prefix, now_ms)
    b = SharedAttempts(Attempts(free=2, most=4, window=100.0), client, prefix, now_ms)
    return a, b, client


def test_two_processes_count_the_tries_of_one_key_together(redis_server: str) -> None:
    async def run() -> None:
        a, b, client = two_processes(redis_server, 1_000_000)
        try:
            await a.note("x")
            await b.note("x")  # two tries, one at each process: the free ones are spent
            assert await a.wait("x") == 1.0 and await b.wait("x") == 1.0
            assert await a.wait("y") == 0.0  # another key is not held
            a.now_ms = b.now_ms = 1_001_000
            await b.note("x")
            assert await a.wait("x") == 2.0
            await a.note("x")  # four tries: none until the first leaves the window
            assert await b.wait("x") == pytest.approx(99.0)
            ttl = await client.pttl(f"{a.prefix}:x")
            assert 0 < ttl <= 100_000  # the key goes by itself when its window has passed
            a.now_ms = b.now_ms = 1_100_500
            assert await b.wait("x") == 0.0  # the first two left the window
            await a.forget("x")
            assert await client.exists(f"{a.prefix}:x") == 0 and await b.wait("x") == 0.0
            assert not a.failing and not b.failing
        finally:
            await client.aclose()

    asyncio.run(run())


def test_tries_sent_at_once_are_counted_one_by_one_at_both_processes(redis_server: str) -> None:
    async def run() -> None:
        a, b, client = two_processes(redis_server, 2_000_000)
        try:
            taken = await asyncio.gather(*(p.take("x") for p in [a, b] * 5))  # ten at once, five at each
            tickets = [ticket for _, ticket in taken if ticket is not None]
            assert len(tickets) == 2  # the two free tries; the others wait
            assert sorted(wait for wait, ticket in taken if ticket is None) == [1.0] * 8
            await a.give_back(tickets[0])  # that password was right: its try does not count
            assert await client.zcard(f"{a.prefix}:x") == 1 and await b.wait("x") == 0.0
        finally:
            await client.aclose()

    asyncio.run(run())


def test_redis_s_own_clock_counts_when_none_is_given(redis_server: str) -> None:
    async def run() -> None:
        client = aioredis.from_url(redis_server, decode_responses=True)
        try:
            limits = Limits(client, f"test:{secrets.token_hex(4)}")
            for _ in range(5):
                assert await limits.signin_address.wait("203.0.113.1") == 0.0
                await limits.signin_address.note("203.0.113.1")
            assert 0.0 < await limits.signin_address.wait("203.0.113.1") <= 1.0  # the sixth waits a second
        finally:
            await client.aclose()

    asyncio.run(run())


def dead_redis() -> aioredis.Redis:
    """A client of a port where nothing listens."""
    return aioredis.from_url(f"redis://127.0.0.1:{free_port()}/0", decode_responses=True, socket_connect_timeout=0.2)


def test_a_failing_redis_falls_back_on_the_process_s_own_counts(caplog: pytest.LogCaptureFixture) -> None:
    async def run() -> None:
        tries = SharedAttempts(Attempts(free=2, most=4, window=100.0), dead_redis(), "test:dead")
        assert await tries.wait("x") == 0.0  # not locked out
        await tries.note("x")
        await tries.note("x")
        assert 0.0 < await tries.wait("x") <= 1.0  # this process's own counts still hold
        await tries.forget("x")
        assert await tries.wait("x") == 0.0 and tries.failing

    with caplog.at_level(logging.WARNING, logger="liarsdice.server"):
        asyncio.run(run())
    said = [r.getMessage() for r in caplog.records if "cannot reach Redis" in r.getMessage()]
    assert len(said) == 1  # said once, not at every try


def test_sign_in_and_sign_up_work_while_the_limits_redis_is_down(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as client:
        limits = Limits(dead_redis(), "test:dead")
        limits.signin_address.local.base = 3600.0  # the sixth try waits an hour: however slow the machine
        client.app.state.people_limits = limits  # type: ignore[attr-defined]
        assert sign_up(client).status_code == 303
        client.cookies.clear()
        assert post(client, "/signin", {"name": "Ana", "password": "wrong password"}).status_code == 401
        assert post(client, "/signin", {"name": "Ana", "password": PASSWORD}).status_code == 303
        other = TestClient(client.app, client=("203.0.113.9", 5000))
        statuses = [
            post(other, "/signin", {"name": "Ana", "password": f"wrong guess {i}"}).status_code for i in range(7)
        ]
        assert statuses == [401] * 5 + [429] * 2  # still limited, by this process alone
