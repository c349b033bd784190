"""The tries counted for the sign-in and sign-up limits (attempts.py), shared by every process of
one server through Redis when it runs with `--redis-url` (docs/accounts.md, "For operators").

Each key (a client address, an account's name) is a Redis sorted set of its tries' times, in
milliseconds of Redis's own clock (the processes' clocks need not agree), which expires when its
newest try leaves the window. One Lua script drops the tries older than the window, works out the
wait by the rule of attempts.py, and adds this try if it counts (a try about to hash a password
is counted before it hashes, and given back if the password was right): atomic, so tries made at
once, at one process or at several, are counted one by one and none slips through uncounted.

A Redis that fails (down, slow, refusing) must neither lock people out nor fail a sign-in: each
try is also counted in the process's memory, and while Redis does not answer the limits are
this process's own, as with one process; the first failure is logged, and Redis's return.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .attempts import Attempts

if TYPE_CHECKING:  # the redis package comes with the server extra
    from redis.asyncio import Redis
    from redis.commands.core import AsyncScript

log = logging.getLogger("liarsdice.server")

REDIS_TIMEOUT = 1.0  # seconds a limit waits for Redis before counting on its own

_TRIES = """
local now = tonumber(ARGV[1])
if not now then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local window, free, most = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local base, longest, mode = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local n = redis.call('ZCARD', KEYS[1])
local wait = 0
if n >= most then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  wait = tonumber(first[2]) + window - now
elseif n >= free then
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  wait = tonumber(last[2]) + math.min(longest, base * 2 ^ (n - free)) - now
end
if wait < 0 then wait = 0 end
if mode == 'note' or (mode == 'take' and wait == 0) then
  redis.call('ZADD', KEYS[1], now, ARGV[8])
  redis.call('PEXPIRE', KEYS[1], window)
end
return tostring(wait)
"""


@dataclass(frozen=True)
class Ticket:
    """A try counted by `take` before it was known whether it counts."""

    key: str
    local: float  # its time in this process's memory
    member: str  # its name in Redis's sorted set


class SharedAttempts:
    """The tries of one limit: in Redis when there is one (and it answers), in memory always."""

    def __init__(
        self, local: Attempts, redis: Redis | None = None, prefix: str = "liarsdice:tries", now_ms: int | None = None
    ) -> None:
        self.local = local
        self.redis = redis
        self.prefix = prefix
        self.now_ms = now_ms  # a fixed clock for the tests; None: Redis's own
        self.failing = False
        self._script: AsyncScript | None = redis.register_script(_TRIES) if redis is not None else None

    async def _shared(self, key: str, mode: str, member: str = "") -> float | None:
        """Seconds `key` waits, as Redis counts every process's tries; `mode` "note" counts a try
        first, "take" counts one if there is no wait; None when Redis cannot say."""
        if self._script is None:
            return None
        rule = self.local
        args = [
            "" if self.now_ms is None else self.now_ms,
            int(rule.window * 1000),
            rule.free,
            rule.most,
            int(rule.base * 1000),
            int(rule.longest * 1000),
            mode,
            member or secrets.token_hex(8),
        ]
        try:
            wait = await asyncio.wait_for(self._script(keys=[f"{self.prefix}:{key}"], args=args), REDIS_TIMEOUT)
        except Exception as e:  # any failure at all: count on our own rather than refuse or crash
            self._failed(e)
            return None
        self._answered()
        return float(wait) / 1000

    async def wait(self, key: str) -> float:
        """Seconds before `key` may try again (0: now)."""
        shared = await self._shared(key, "peek")
        return shared if shared is not None else self.local.wait(key, time.monotonic())

    async def take(self, key: str) -> tuple[float, Ticket | None]:
        """Seconds `key` must wait, or 0 and its try, counted already (attempts.Attempts.take)."""
        now = time.monotonic()
        local_wait = self.local.take(key, now)
        ticket = Ticket(key, now, secrets.token_hex(8))
        shared = await self._shared(key, "take", ticket.member)
        wait = shared if shared is not None else local_wait
        if wait > 0:
            if local_wait == 0:
                self.local.give_back(key, now)
            return wait, None
        if local_wait > 0:  # Redis lets it through where this process alone would not: count it here too
            self.local.note(key, now)
        return 0.0, ticket

    async def give_back(self, ticket: Ticket) -> None:
        """The try of `ticket` did not count after all."""
        self.local.give_back(ticket.key, ticket.local)
        if self.redis is not None:
            await self._quietly(self.redis.zrem(f"{self.prefix}:{ticket.key}", ticket.member))

    async def note(self, key: str) -> None:
        """A try that counts (a failed sign-in; any sign-up that was tried)."""
        self.local.note(key, time.monotonic())
        await self._shared(key, "note")

    async def forget(self, key: str) -> None:
        """A signed-in key starts again."""
        self.local.forget(key)
        if self.redis is not None:
            await self._quietly(self.redis.delete(f"{self.prefix}:{key}"))

    async def _quietly(self, job: Awaitable[object]) -> None:
        try:
            await asyncio.wait_for(job, REDIS_TIMEOUT)
        except Exception as e:
            self._failed(e)
        else:
            self._answered()

    def _failed(self, e: Exception) -> None:
        if not self.failing:  # once, not at every try
            log.warning("the sign-in limits cannot reach Redis (%s): counting this process's tries only", e or type(e))
        self.failing = True

    def _answered(self) -> None:
        if self.failing:
            log.warning("the sign-in limits reach Redis again: counting every process's tries")
        self.failing = False


class Limits:
    """The sign-in and sign-up limits of docs/accounts.md: sign-ins per address and per name,
    sign-ups per address; shared through `redis` if given."""

    def __init__(self, redis: Redis | None = None, prefix: str = "liarsdice:tries") -> None:
        def limit(free: int, most: int, window: float, name: str) -> SharedAttempts:
            return SharedAttempts(Attempts(free=free, most=most, window=window), redis, f"{prefix}:{name}")

        self.signin_address = limit(5, 20, 900.0, "signin-address")
        self.signin_name = limit(10, 50, 900.0, "signin-name")
        self.signup_address = limit(3, 10, 3600.0, "signup-address")
