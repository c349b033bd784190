"""Several `liarsdice serve` processes as one server, through Redis (docs/scaling.md).

Each table is run by one process at a time: the one holding the table's lease, a Redis key
(`PREFIX:owner:CODE`) that names the process and expires unless renewed. Any process accepts
any table's websocket; one that does not run the table relays the socket's messages to the
process that does, over Redis pub/sub, and that process's answers back. This module is the
link: this process's name and inbox, leases, liveness, and ordered, batched messages.

Messages between processes are JSON lists of small dicts published to the receiver's inbox
channel. One task publishes them all, in the order they were posted, so that two messages from
this process to another arrive in that order (Redis keeps the order of one connection's
publishes). Pub/sub delivers at most once: nothing that must survive a crash travels this way
(moves are in the database before anyone is told of them), and every `state` message is a whole
view, so a lost one is mended by the next.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the redis package comes with the server extra: imported when a cluster starts
    from redis.asyncio import Redis
    from redis.asyncio.client import PubSub

log = logging.getLogger("liarsdice.server")

LEASE_SECONDS = 3.0  # a table whose process stops renewing is free this long after
RENEW_EVERY = 1.0  # seconds between renewals of this process's leases (and other periodic checks)
# A process that has not renewed its leases for this long stops changing its tables: by then
# another process may have taken them (a pause, or Redis out of reach), and only one may write.
SAFE_SECONDS = LEASE_SECONDS - 1.0
CALL_TIMEOUT = 5.0  # seconds a request to another process waits for its answer

_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  else
    table.insert(lost, i)
  end
end
return lost
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


class ClusterError(RuntimeError):
    """Redis cannot be used: the message says what to fix."""


class RemoteError(Exception):
    """Another process answered a request with an error (its code and message)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def redis_client(url: str) -> Redis:
    """A Redis client for `url` (redis://HOST:PORT/DB, rediss:// for TLS, unix://PATH)."""
    try:
        import redis.asyncio as aioredis
    except ImportError as e:  # pragma: no cover - the server extra brings it
        raise ClusterError("--redis-url needs the redis package: pip install 'liarsdice[server]'") from e
    try:
        return aioredis.from_url(url, decode_responses=True, health_check_interval=10)
    except ValueError as e:
        raise ClusterError(f"bad Redis URL {url!r}: {e}; use redis://HOST:PORT/DB") from e


def text_of(value: bytes | str) -> str:
    """A value Redis answered: text, as the client decodes every answer (decode_responses),
    though its types allow bytes too."""
    return value.decode() if isinstance(value, bytes) else value


def check_redis_url(url: str) -> None:
    """Fail with a clear message if `url` is no Redis URL or Redis does not answer there."""
    if not url.startswith(("redis://", "rediss://", "unix://")):
        raise ClusterError(f"bad Redis URL {url!r}: it starts with redis://, rediss:// or unix://")

    async def ping() -> None:
        client = redis_client(url)
        try:
            await asyncio.wait_for(client.ping(), 5)
        except Exception as e:
            raise ClusterError(f"Redis does not answer at {url}: {e}") from e
        finally:
            await client.aclose()

    asyncio.run(ping())


class Cluster:
    """This process among the others: its name, its inbox, its leases and its messages."""

    def __init__(self, url: str, prefix: str = "liarsdice") -> None:
        self.url = url
        self.prefix = prefix
        self.id = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"
        self._redis: Redis | None = None
        self.on_message: Callable[[dict[str, Any]], None] = lambda message: None
        self.on_lost: Callable[[list[str]], None] = lambda codes: None
        self.leases: set[str] = set()  # the codes (and named jobs) whose lease this process holds
        self.renewed = 0.0  # monotonic time of the last renewal that Redis confirmed
        self._outbox: dict[str, list[dict[str, Any]]] = {}
        self._wake = asyncio.Event()
        self._keys = itertools.count(1)
        self._calls: dict[str, asyncio.Future[Any]] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._pubsub: PubSub | None = None
        self._background: set[asyncio.Future[Any]] = set()
        self.published = 0
        self.received = 0

    # ----- names in Redis -----

    def inbox(self, process: str) -> str:
        return f"{self.prefix}:inbox:{process}"

    def owner_key(self, code: str) -> str:
        return f"{self.prefix}:owner:{code}"

    def alive_key(self, process: str) -> str:
        return f"{self.prefix}:alive:{process}"

    def new_key(self) -> str:
        """A name for a connection or a request, unique among all processes."""
        return f"{self.id}/{next(self._keys)}"

    @property
    def redis(self) -> Redis:
        """The client, once `start` has connected it."""
        if self._redis is None:
            raise RuntimeError("the cluster has not started: no Redis client yet")
        return self._redis

    @property
    def pubsub(self) -> PubSub:
        """The inbox's subscription, once `start` has made it."""
        if self._pubsub is None:
            raise RuntimeError("the cluster has not started: no inbox yet")
        return self._pubsub

    # ----- start and stop -----

    async def start(self) -> None:
        self._redis = redis_client(self.url)
        try:
            await asyncio.wait_for(self.redis.ping(), 5)
        except Exception as e:
            raise ClusterError(f"Redis does not answer at {self.url}: {e}") from e
        self._renew_script = self.redis.register_script(_RENEW)
        self._release_script = self.redis.register_script(_RELEASE)
        await self.redis.set(self.alive_key(self.id), "1", px=int(LEASE_SECONDS * 1000))
        self.renewed = time.monotonic()
        self._pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
        await self.pubsub.subscribe(self.inbox(self.id))
        self._tasks = [
            asyncio.create_task(self._read(), name="cluster inbox"),
            asyncio.create_task(self._publish(), name="cluster outbox"),
            asyncio.create_task(self._renew(), name="cluster leases"),
        ]
        log.info("process %s joined the cluster at %s", self.id, self.url)

    async def stop(self) -> None:
        """Let every lease go at once (another process takes the tables without waiting for
        them to expire) and leave."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(BaseException):
                await task
        if self._redis is None:
            return
        with contextlib.suppress(Exception):
            await self._flush()
            for code in list(self.leases):
                await self._release_script(keys=[self.owner_key(code)], args=[self.id])
            await self.redis.delete(self.alive_key(self.id))
        self.leases.clear()
        with contextlib.suppress(Exception):
            # as a typed callable: older redis-py leaves PubSub.aclose unannotated, 8.2 annotates it
            aclose: Callable[[], Awaitable[None]] = self.pubsub.aclose
            await aclose()
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    # ----- leases -----

    async def claim(self, code: str) -> str | None:
        """The process that runs `code` after this call: this one if the lease was free and is
        now ours, else its holder; None if Redis cannot say (out of reach)."""
        key = self.owner_key(code)
        for _ in range(5):
            if await self.redis.set(key, self.id, nx=True, px=int(LEASE_SECONDS * 1000)):
                self.leases.add(code)
                return self.id
            holder = await self.redis.get(key)
            if holder is not None:
                if holder == self.id:
                    self.leases.add(code)
                return str(holder)
        return None

    async def release(self, code: str) -> None:
        self.leases.discard(code)
        with contextlib.suppress(Exception):
            await self._release_script(keys=[self.owner_key(code)], args=[self.id])

    async def owners(self, codes: list[str]) -> list[str | None]:
        """The process running each of `codes` (None: no process does)."""
        if not codes:
            return []
        found = await self.redis.mget([self.owner_key(c) for c in codes])
        return [None if owner is None else text_of(owner) for owner in found]

    async def alive(self, processes: Iterable[str]) -> set[str]:
        """Which of `processes` still renew their liveness."""
        names = sorted(set(processes))
        if not names:
            return set()
        found = await self.redis.mget([self.alive_key(p) for p in names])
        return {p for p, there in zip(names, found, strict=True) if there is not None}

    async def listening(self, process: str) -> bool:
        """Whether `process` still reads its inbox. Redis drops a subscription as soon as its
        connection closes, so a killed process stops listening at once, while its leases stand
        until they expire. True if Redis cannot say: then `process` is asked as before."""
        try:
            found = await self.redis.pubsub_numsub(self.inbox(process))
        except Exception:
            return True
        return bool(found and found[0][1])

    async def lease_left(self, code: str) -> float:
        """Seconds until the lease of `code` expires unless renewed (0: nobody holds it; a
        second if Redis cannot say)."""
        try:
            left = await self.redis.pttl(self.owner_key(code))
        except Exception:
            return RENEW_EVERY
        return max(0.0, int(left) / 1000)

    def safe(self) -> bool:
        """Whether this process's leases are surely still its own (renewed lately enough)."""
        return time.monotonic() - self.renewed < SAFE_SECONDS

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(RENEW_EVERY)
            started = time.monotonic()
            codes = sorted(self.leases)
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    pipe.set(self.alive_key(self.id), "1", px=int(LEASE_SECONDS * 1000))
                    if codes:
                        await self._renew_script(
                            keys=[self.owner_key(c) for c in codes],
                            args=[self.id, int(LEASE_SECONDS * 1000)],
                            client=pipe,
                        )
                    results = await pipe.execute()
            except Exception as e:
                log.warning("could not renew this process's leases in Redis: %s", e)
                if not self.safe():
                    self._lose(list(self.leases))
                continue
            self.renewed = started
            lost = [codes[i - 1] for i in results[1]] if codes else []
            if lost:
                self._lose(lost)

    def _lose(self, codes: list[str]) -> None:
        if not codes:
            return
        for code in codes:
            self.leases.discard(code)
        log.warning("lost the lease of %d tables (%s): another process runs them now", len(codes), ", ".join(codes))
        self.on_lost(codes)

    # ----- messages -----

    def later(self, job: Awaitable[Any]) -> None:
        """Run `job` (a Redis write) in the background, logging a failure."""
        task = asyncio.ensure_future(job)
        self._background.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Future[Any]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("a Redis write failed: %s", task.exception())

    def post(self, process: str, message: dict[str, Any]) -> None:
        """Send `message` to `process` (after anything posted to it before)."""
        self._outbox.setdefault(process, []).append(message)
        self._wake.set()

    async def _publish(self) -> None:
        while True:
            await self._wake.wait()
            self._wake.clear()
            try:
                await self._flush()
            except Exception as e:
                log.warning("could not publish to other processes: %s", e)

    async def _flush(self) -> None:
        batch, self._outbox = self._outbox, {}
        if not batch:
            return
        async with self.redis.pipeline(transaction=False) as pipe:
            for process, messages in batch.items():
                pipe.publish(self.inbox(process), json.dumps(messages, separators=(",", ":")))
                self.published += len(messages)
            await pipe.execute()

    async def _read(self) -> None:
        while True:
            try:
                async for item in self.pubsub.listen():
                    if item.get("type") != "message":
                        continue
                    for message in json.loads(item["data"]):
                        self.received += 1
                        try:
                            self._dispatch(message)
                        except Exception:
                            log.exception("could not act on a message from another process: %r", message)
            except asyncio.CancelledError:
                raise
            except Exception as e:
                log.warning("lost the inbox subscription (%s): subscribing again", e)
                await asyncio.sleep(0.5)
                with contextlib.suppress(Exception):
                    await self.pubsub.subscribe(self.inbox(self.id))

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("op") == "reply":
            future = self._calls.pop(message["id"], None)
            if future is not None and not future.done():
                if "error" in message:
                    code, text = message["error"]
                    future.set_exception(RemoteError(code, text))
                else:
                    future.set_result(message.get("result"))
            return
        self.on_message(message)

    async def call(self, process: str, method: str, args: dict[str, Any]) -> Any:
        """Ask `process` to do `method` and wait for its answer (RemoteError if it refused,
        TimeoutError if it did not answer in time)."""
        key = self.new_key()
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._calls[key] = future
        self.post(process, {"op": "call", "id": key, "from": self.id, "method": method, "args": args})
        try:
            return await asyncio.wait_for(future, CALL_TIMEOUT)
        finally:
            self._calls.pop(key, None)

    def answer(self, to: dict[str, Any], result: Any = None, error: tuple[str, str] | None = None) -> None:
        """Answer the request `to` (a `call` message from another process)."""
        reply: dict[str, Any] = {"op": "reply", "id": to["id"]}
        if error is not None:
            reply["error"] = list(error)
        else:
            reply["result"] = result
        self.post(to["from"], reply)
