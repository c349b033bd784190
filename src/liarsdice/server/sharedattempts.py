"""The tries counted for the sign-in and sign-up limits (attempts.py), shared by every process of
one server through Redis when it runs with `--redis-url` (docs/accounts.md, "Several processes").

Each key (a client address, an account's name) is a Redis sorted set of its tries' times, in
milliseconds of Redis's own clock (the processes' clocks need not agree), which expires when its
newest try leaves the window. One Lua script drops the tries older than the window, adds this try
if it counts, and answers how many remain with the first and the last: atomic, so two processes
counting at once never lose a try. The wait itself is the rule of attempts.py.

A Redis that fails (down, slow, refusing) must neither lock people out nor fail a sign-in: each
try is also counted in the process's memory, and while Redis does not answer the limits are
this process's own, as with one process; the first failure is logged, and Redis's return.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
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
local window = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
if ARGV[3] == '1' then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
end
local n = redis.call('ZCARD', KEYS[1])
if n == 0 then
  return {0, 0, 0, now}
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
return {n, tonumber(first[2]), tonumber(last[2]), now}
"""


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

    async def _shared(self, key: str, note: bool) -> float | None:
        """Seconds `key` waits after this call, as Redis counts (noting a try first if `note`);
        None when Redis cannot say."""
        if self._script is None:
            return None
        args = ["" if self.now_ms is None else self.now_ms, int(self.local.window * 1000), int(note)]
        try:
            count, first, last, now = await asyncio.wait_for(
                self._script(keys=[f"{self.prefix}:{key}"], args=[*args, secrets.token_hex(8)]), REDIS_TIMEOUT
            )
        except Exception as e:  # any failure at all: count on our own rather than refuse or crash
            self._failed(e)
            return None
        self._answered()
        if not count:
            return 0.0
        return self.local.wait_after(int(count), int(first) / 1000, int(last) / 1000, int(now) / 1000)

    async def wait(self, key: str) -> float:
        """Seconds before `key` may try again (0: now)."""
        shared = await self._shared(key, note=False)
        return shared if shared is not None else self.local.wait(key, time.monotonic())

    async def note(self, key: str) -> None:
        """A try that counts (a failed sign-in; any sign-up that was tried)."""
        self.local.note(key, time.monotonic())
        await self._shared(key, note=True)

    async def forget(self, key: str) -> None:
        """A signed-in key starts again."""
        self.local.forget(key)
        if self.redis is not None:
            try:
                await asyncio.wait_for(self.redis.delete(f"{self.prefix}:{key}"), REDIS_TIMEOUT)
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
