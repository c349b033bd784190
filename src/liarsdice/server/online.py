"""How many people are online, for the lobby: the table websockets over every process, plus the
people waiting in "Play now" (counted in the database by the caller).

One process counts its own sockets (manager.census). With several processes (docs/scaling.md)
each publishes its count to Redis every two seconds, under a key that expires in five, and the
lobby adds up the keys of the processes alive: a process that dies drops out by itself.
"""

from __future__ import annotations

from .manager import RoomManager

EXPIRES = 5  # seconds a published count stands without being published again


def sockets_here(manager: RoomManager) -> int:
    """The table websockets this process holds: its own tables' (but those relayed from other
    processes, which count there) and those it relays to tables run elsewhere."""
    census = manager.census()
    return census.seats + census.spectators - (census.relayed_in or 0) + (census.relayed_out or 0)


def _key(prefix: str, process: str) -> str:
    return f"{prefix}:online:{process}"


async def publish_online(manager: RoomManager) -> None:
    """Tell the other processes how many sockets this one holds (nothing to do alone)."""
    cluster = manager.cluster
    if cluster is not None:
        await cluster.redis.set(_key(cluster.prefix, cluster.id), sockets_here(manager), ex=EXPIRES)


async def sockets_online(manager: RoomManager) -> int:
    """The table websockets held by every process: this one's now, the others' as published."""
    here = sockets_here(manager)
    cluster = manager.cluster
    if cluster is None:
        return here
    total = here
    async for key in cluster.redis.scan_iter(match=_key(cluster.prefix, "*"), count=100):
        name = key.decode() if isinstance(key, bytes) else str(key)
        if name == _key(cluster.prefix, cluster.id):
            continue
        value = await cluster.redis.get(name)
        if value is not None:
            total += int(value)
    return total
