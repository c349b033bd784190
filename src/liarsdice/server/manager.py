"""Every live table of one server: made, loaded from the database on first use (and after a
restart, every table in play), and put away from memory when idle.

With `--redis-url` the server is several processes (docs/scaling.md): a table is run by the
process holding its lease; this one relays the sockets of tables run elsewhere, runs what other
processes relay to it, and takes over the tables in play that no live process runs."""

from __future__ import annotations

import asyncio
import functools
import logging
import secrets
import time
from collections.abc import Callable, Coroutine
from typing import Any

from sqlalchemy import select

from ..record import FORMAT, VERSION, Recorder, replay
from ..rules import OptionsError, find_preset
from .botaccounts import revoked_among
from .botlobby import BotLobby
from .cluster import LEASE_SECONDS, RENEW_EVERY, Cluster, RemoteError
from .dispatch import dispatch
from .forfeit import restored_forfeit
from .limits import RoomError, build_options, check_turn_seconds, clean_name, hash_token
from .metrics import Census, ServerMetrics
from .relay import MOVED, MOVED_REASON, Gateway, RemoteConnection, RemoteTable
from .reviewer import Reviewer
from .rooms import Room
from .seatkinds import account_of
from .seatnames import join_answer
from .settings import Settings
from .storage import Store, TableRow
from .table import Table
from .tablehandlers import TABLE_HANDLERS, AtTable
from .tablerows import Seat, create_table, load_table

log = logging.getLogger("liarsdice.server")

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
CODE_LENGTH = 6
_CODE_CHARS = frozenset(CODE_ALPHABET)


class RoomManager:
    """Every live table of one server, loaded from the database on first use."""

    def __init__(
        self, store: Store, settings: Settings, metrics: ServerMetrics | None = None, cluster: Cluster | None = None
    ) -> None:
        self.store = store
        self.settings = settings
        self.metrics = metrics or ServerMetrics()
        self.rooms: dict[str, Room] = {}
        self.base_url = ""
        self._loading = asyncio.Lock()
        self.lobby = BotLobby(settings.operator_bots, cluster)
        self.cluster = cluster
        self.gateway = Gateway()  # sockets here whose tables run elsewhere
        self.remote: dict[str, RemoteConnection] = {}  # sockets elsewhere at tables run here
        self._background: set[asyncio.Task[Any]] = set()
        self.reviewer: Reviewer | None = None  # analyses finished games (app.py sets it)
        if cluster is not None:
            cluster.on_message = self._on_message
            cluster.on_lost = self._lost

    async def create(
        self,
        preset: str,
        name: str,
        overrides: dict[str, Any],
        turn_seconds: int,
        *,
        rated: bool = False,
        bots_rated: bool = False,
    ) -> tuple[Room, str]:
        """A new table with its host in seat 0. A rated one (docs/ratings.md) plays its preset's
        own rules (only the seats may change); its host and people are signed-in accounts."""
        name = clean_name(name)
        if rated and set(overrides) - {"num_players"}:
            raise RoomError("bad_options", "a rated table plays its preset's own rules: only num_players may be set")
        try:
            options = build_options(preset, overrides)
        except OptionsError as e:
            raise RoomError("bad_options", str(e)) from e
        check_turn_seconds(turn_seconds)
        preset = find_preset(preset).name
        overrides = {**overrides, "num_players": options.num_players}
        token = secrets.token_urlsafe(24)
        seats = [Seat(name, "human", None, hash_token(token))] + [
            Seat(f"Seat {i + 1}") for i in range(1, options.num_players)
        ]
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            table_id = await self.store.call(
                functools.partial(
                    create_table,
                    code=code,
                    preset=preset,
                    overrides=overrides,
                    seconds=turn_seconds,
                    seats=seats,
                    rated=rated,
                    bots_rated=rated and bots_rated,
                )
            )
            if table_id is not None:
                room = Room(self, table_id, code, preset, overrides, turn_seconds, "open", 0, seats)
                room.rated, room.bots_rated = rated, rated and bots_rated
                await self._claim_new(code)
                self.rooms[code] = room
                return room, token
        raise RoomError("not_ready", "could not find a free table code")  # pragma: no cover

    async def create_bot_table(
        self, preset: str, overrides: dict[str, Any], seats: list[Seat], turn_seconds: int = 0
    ) -> Room:
        """A table with a bot in every seat and no host (the ladder's): nobody holds a seat token.
        `turn_seconds` is the turn timer of its accounts' seats (built-in bots and programs have none)."""
        options = build_options(preset, overrides, len(seats))
        preset = find_preset(preset).name
        overrides = {**overrides, "num_players": options.num_players}
        for _ in range(20):
            code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
            table_id = await self.store.call(
                functools.partial(
                    create_table, code=code, preset=preset, overrides=overrides, seconds=turn_seconds, seats=seats
                )
            )
            if table_id is not None:
                room = Room(self, table_id, code, preset, overrides, turn_seconds, "open", 0, list(seats))
                await self._claim_new(code)
                room.bots_only = True
                self.rooms[code] = room
                return room
        raise RoomError("not_ready", "could not find a free table code")  # pragma: no cover

    async def _claim_new(self, code: str) -> None:
        """Take the lease of a table just made (its code is new: nobody else holds it)."""
        if self.cluster is not None and await self.cluster.claim(code) != self.cluster.id:
            raise RoomError("not_ready", "could not take a new table's lease: try again")  # pragma: no cover

    async def get(self, code: str) -> Room | None:
        """The table `code` if this process runs it (loaded from the database if need be, and
        taken if no process runs it); None if there is no such table, or another process runs it."""
        found = await self.locate(code)
        return found if isinstance(found, Room) else None

    async def locate(self, code: str) -> Room | RemoteTable | None:
        """Where the table `code` runs: here (its Room, loaded from the database if need be, and
        its lease taken if no process holds it), in another process, or nowhere (no such table)."""
        code = code.strip().upper()
        if len(code) != CODE_LENGTH or not set(code) <= _CODE_CHARS:  # no table: the database need not look
            return None
        room = self.rooms.get(code)
        if room is not None:
            room.touched = time.monotonic()
            return room
        async with self._loading:
            room = self.rooms.get(code)
            if room is not None:
                return room
            if self.cluster is not None:
                # The lease first, then the database: what is loaded after taking the lease is
                # all that any earlier holder stored.
                try:
                    owner = await self.cluster.claim(code)
                except Exception as e:
                    raise RoomError("not_ready", f"this server cannot reach Redis ({e}): try again") from e
                if owner is None:
                    raise RoomError("not_ready", "the table is changing servers: try again")
                if owner != self.cluster.id:
                    return RemoteTable(code, owner)
            data = await self.store.call(lambda s: load_table(s, code))
            if data is None:
                if self.cluster is not None:
                    await self.cluster.release(code)
                return None
            room = self._restore(data)
            self.rooms[code] = room
        if room.state is not None and room.status == "playing":
            async with room.lock:
                if room.state.is_chance:  # stored at a new game, before its first deal
                    await room.advance(room.state, [])
                elif room.state.is_terminal:  # stopped between the last step and the result
                    await room.finish()
                room.turn_changed()
                room.schedule()
        return room

    def runs(self, room: Table) -> bool:
        """Whether this process may still change `room` (with a cluster: it surely holds the
        table's lease; a process that could not renew its leases lately must not write)."""
        return self.cluster is None or (room.code in self.cluster.leases and self.cluster.safe())

    def _restore(self, data: dict[str, Any]) -> Room:
        room = Room(
            self,
            data["id"],
            data["code"],
            data["preset"],
            dict(data["options"]),
            data["turn_seconds"],
            data["status"],
            data["host_seat"],
            list(data["seats"]),
            data["games_played"],
        )
        room.rated, room.bots_rated = bool(data.get("rated")), bool(data.get("bots_rated"))
        g = data["game"]
        if g is not None:
            record = {
                "format": FORMAT,
                "version": VERSION,
                "preset": g["preset"],
                "options": g["options"],
                "seats": g["seats"],
                "players": g["players"],
                "seed": g["seed"],
                "steps": g["steps"],
            }
            game_state = None
            for step in replay(record):
                if room.recorder is None:
                    room.game = step.before.game
                    room.recorder = Recorder(
                        room.game, seed=g["seed"], preset=g["preset"], players=g["players"], meta={"table": room.code}
                    )
                room.recorder.note(step.before, step.action, step.after, step.events, g["steps"][step.index])
                room.note_round(step.before, step.events)
                game_state = step.after
            if room.recorder is None:  # a game stored before its first step
                from ..record import game_from_record

                room.game = game_from_record(record)
                room.recorder = Recorder(room.game, seed=g["seed"], preset=g["preset"], players=g["players"])
                game_state = room.game.new_initial_state()
            room.recorder.data["meta"]["started"] = g["started"]
            room.state = game_state
            room.game_id = g["id"]
            room.seed = g["seed"]
            # A forfeit ends a game whose steps do not: its record says who forfeited and why.
            assert room.game is not None
            room.forfeited = restored_forfeit(g.get("forfeit"), g["seats"], room.game.options)
        # Nobody is connected to a table just loaded: its people are away from now on, so their
        # turns fall to a bot after the grace period, as for anyone who loses the connection.
        now = time.monotonic()
        room.away_since = {i: now for i, s in enumerate(room.seats) if s.kind == "human"}
        return room

    async def restore_playing(self) -> int:
        """Load every table with a game in play that no process runs (after a restart, or when
        the process running it died), so bots and timers go on; how many."""
        codes = await self.store.call(
            lambda s: list(s.scalars(select(TableRow.code).where(TableRow.status == "playing")))
        )
        if self.cluster is not None:
            codes = [c for c, owner in zip(codes, await self.cluster.owners(codes), strict=True) if owner is None]
        taken = 0
        for code in codes:
            if code in self.rooms:
                continue
            try:
                taken += isinstance(await self.locate(code), Room)
            except RoomError as e:
                log.warning("could not take table %s: %s", code, e.message)
        return taken

    def idle(self, room: Room, now: float) -> bool:
        """Whether `room` may leave memory: no game in play, nobody connected, nothing running
        or waiting, and not asked for in `unload_after` seconds."""
        return (
            room.status != "playing"
            and not room.conns
            and not room.lock.locked()
            and (room.task is None or room.task.done())
            and now - room.touched >= self.settings.unload_after
        )

    def unload_idle(self, now: float | None = None) -> int:
        """Drop the idle tables from memory (see `idle`); how many."""
        now = time.monotonic() if now is None else now
        gone = [code for code, room in self.rooms.items() if self.idle(room, now)]
        for code in gone:
            self.rooms.pop(code).close()
            if self.cluster is not None:
                self._later(self.cluster.release(code))
        return len(gone)

    async def sweep(self) -> None:
        """Unload idle tables now and then, for as long as the server runs."""
        every = max(1.0, min(60.0, self.settings.unload_after / 2))
        while True:
            await asyncio.sleep(every)
            gone = self.unload_idle()
            if gone:
                log.info("unloaded %d idle tables; %d in memory", gone, len(self.rooms))

    async def revoked(self, name: str) -> None:
        """The bot account `name` was revoked: let its event socket and every seat it plays here go."""
        self.lobby.revoked(name)
        for room in list(self.rooms.values()):
            await room.revoke_account(name)

    def accounts_here(self) -> set[str]:
        """The bot accounts online or playing a seat at a table in memory."""
        names = set(self.lobby.online)
        for room in self.rooms.values():
            names.update(
                n for c in room.conns if c.seat is not None and (n := account_of(room.seats[c.seat].bot_level))
            )
        return names

    async def watch_revocations(self) -> None:
        """Let go of bot accounts revoked by another process (`liarsdice bot revoke` on the same
        database) every `revocation_check` seconds, for as long as the server runs; a seat token
        of a revoked account is refused at once whatever this check's pace (`Room.attach`)."""
        while True:
            await asyncio.sleep(self.settings.revocation_check)
            here = self.accounts_here()
            if not here:
                continue
            try:
                revoked = await self.store.call(functools.partial(revoked_among, names=here))
            except Exception:
                log.exception("could not check bot accounts for revocations")
                continue
            for name in sorted(revoked):
                log.info("bot account %s was revoked: letting it go", name)
                await self.revoked(name)

    def census(self) -> Census:
        """This process's tables and connections, as its gauges show them (metrics.py)."""
        rooms = list(self.rooms.values())
        conns = [c for r in rooms for c in list(r.conns) if not c.closed]
        cluster = self.cluster
        return Census(
            tables={status: sum(1 for r in rooms if r.status == status) for status in ("open", "playing", "finished")},
            seats=sum(1 for c in conns if c.seat is not None),
            spectators=sum(1 for c in conns if c.seat is None),
            bot_accounts=sum(1 for c in self.lobby.online.values() if not c.closed),
            relayed_out=len(self.gateway.relayed) if cluster is not None else None,
            relayed_in=len(self.remote) if cluster is not None else None,
            leases=len(cluster.leases) if cluster is not None else None,
        )

    def close(self) -> None:
        for room in self.rooms.values():
            if self.cluster is not None:  # another process takes it: its clients connect again
                _moving(room)
            room.close()
        for relayed in self.gateway.relayed.values():
            relayed.conn.close_code, relayed.conn.close_reason = MOVED, MOVED_REASON
            relayed.conn.stop()
            relayed.settled.set()  # a socket still waiting for its owner's first answer: done waiting

    # ----- several processes (docs/scaling.md) -----

    def _later(self, job: Coroutine[Any, Any, Any]) -> None:
        task = asyncio.get_running_loop().create_task(job)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _on_message(self, message: dict[str, Any]) -> None:
        """A message from another process (cluster.py): for a socket relayed from here, or for
        a table run here."""
        op = message.get("op")
        if op in ("out", "close"):
            self.gateway.deliver(message)
        elif op == "frame":
            remote = self.remote.get(message["conn"])
            if remote is not None:
                remote.frames.put_nowait(message["text"])
            else:  # a socket this process does not know (it restarted, or let the table go)
                assert self.cluster is not None
                gateway = message["conn"].rsplit("/", 1)[0]
                self.cluster.post(gateway, {"op": "close", "conn": message["conn"], "code": MOVED})
        elif op == "detach":
            remote = self.remote.get(message["conn"])
            if remote is not None:
                remote.gone()
        elif op == "attach":
            assert self.cluster is not None
            remote = RemoteConnection(
                self.cluster, message["from"], message["conn"], message["code"], self.settings.rate, self.settings.burst
            )
            self.remote[remote.key] = remote
            remote.task = asyncio.get_running_loop().create_task(
                self._serve_remote(remote, message.get("token"), message.get("name"))
            )
        elif op == "call":
            self._later(self._answer(message))
        elif op == "invite":
            self.lobby.invited(message)
        elif op == "tell":
            self.lobby.tell(message)
        elif op == "bot_replaced":
            self.lobby.replaced(message["name"])
        else:
            log.warning("a message from another process with an unknown op: %r", op)

    async def _serve_remote(self, remote: RemoteConnection, token: str | None, name: str | None) -> None:
        """A socket relayed from another process, at a table run here: as routes.tablesocket
        serves a socket of this process."""
        try:
            target = await self.locate(remote.code)
            if not isinstance(target, Room):
                if target is None:
                    message = f"no table with the code {remote.code!r}"
                    remote.send({"type": "error", "code": "no_table", "message": message, "ref": None})
                else:
                    remote.close_code = MOVED
                remote.stop()
                return
            room = target
            try:
                await room.attach(remote, token, name)
            except RoomError as e:
                remote.send({"type": "error", "code": e.code, "message": e.message, "ref": None})
                remote.stop()
                return
            try:
                while not remote.closed:
                    frame = await remote.frames.get()
                    if frame is None:
                        break
                    await dispatch(TABLE_HANDLERS, AtTable(room, remote), frame)
            finally:
                await room.detach(remote)
        except Exception:
            log.exception("a relayed socket at table %s failed", remote.code)
            remote.close_code = 1011
            remote.stop()
        finally:
            self.remote.pop(remote.key, None)

    async def table_call(self, code: str, method: str, args: dict[str, Any]) -> Any:
        """Do `method` at the table `code` wherever it runs (here, or through the process that
        runs it); None if there is no such table. RoomError as the table refuses."""
        target = await self.locate(code)
        for _ in range(3):
            if target is None:
                return None
            if isinstance(target, Room):
                return await self._table_method(target, method, args)
            assert self.cluster is not None
            if not await self.cluster.listening(target.owner):  # gone: wait for its lease to expire
                target = await self.take_over(target)
                continue
            try:
                return await self.cluster.call(target.owner, method, {**args, "code": target.code})
            except RemoteError as e:
                if e.code == "moved":  # it let the table go meanwhile: look again
                    target = await self.locate(code)
                    continue
                if e.code == "no_table":
                    return None
                raise RoomError(e.code, e.message) from None
            except TimeoutError:
                raise RoomError(
                    "not_ready", "the server running this table does not answer: try again in a few seconds"
                ) from None
        raise RoomError("not_ready", "the table is changing servers: try again")

    async def take_over(self, gone: RemoteTable) -> Room | RemoteTable | None:
        """Where the table `gone.code` runs once its lease has left `gone.owner`, a process that
        no longer reads its messages (killed: its lease stands until it expires, within
        LEASE_SECONDS): here if this process takes it, or wherever another took it first. If
        the owner keeps renewing its lease (it was only cut off from Redis for a moment), the
        owner again, after at most a lease's time."""
        assert self.cluster is not None
        deadline = time.monotonic() + LEASE_SECONDS + RENEW_EVERY
        while True:
            found = await self.locate(gone.code)
            if not isinstance(found, RemoteTable) or found.owner != gone.owner or time.monotonic() >= deadline:
                return found
            left = min(await self.cluster.lease_left(gone.code), deadline - time.monotonic())
            await asyncio.sleep(max(0.0, left) + 0.02)  # just after Redis lets the lease go

    async def _table_method(self, room: Room, method: str, args: dict[str, Any]) -> Any:
        if method == "table":
            return room.table_json(self.base_url)
        if method == "join":
            account = args.get("account")  # the signed-in person's name, or None for a guest
            seat, token = await room.join(str(args["name"]), str(account) if account is not None else None)
            return join_answer(room, seat, token, str(args["name"]))
        if method == "seat_account":
            seat, token = await room.seat_account(str(args["name"]), args["seat"])
            return {"seat": seat, "token": token, "code": room.code}
        if method == "hand_over":
            name, token = await room.hand_over(args["seat"], args["token_hash"])
            return {"seat": args["seat"], "token": token, "name": name, "code": room.code}
        raise RoomError("bad_message", f"unknown table request {method!r}")

    async def _answer(self, message: dict[str, Any]) -> None:
        """A request from another process about a table it believes runs here."""
        assert self.cluster is not None
        try:
            target = await self.locate(str(message["args"]["code"]))
            if target is None:
                raise RoomError("no_table", "no such table")
            if not isinstance(target, Room):
                raise RoomError("moved", "that table runs in another process")
            result = await self._table_method(target, message["method"], message["args"])
        except RoomError as e:
            self.cluster.answer(message, error=(e.code, e.message))
        except Exception as e:
            log.exception("could not answer %s from another process", message.get("method"))
            self.cluster.answer(message, error=("server_error", f"the server running this table failed: {e}"))
        else:
            self.cluster.answer(message, result)

    def _lost(self, codes: list[str]) -> None:
        """Another process runs these tables now (this one could not renew their leases): let
        them go; their clients connect again and find the table there."""
        for code in codes:
            room = self.rooms.pop(code, None)
            if room is not None:
                _moving(room)
                room.close()

    async def watch_cluster(self) -> None:
        """Every second: close the relayed sockets whose table changed process, forget sockets
        relayed from processes that died, and take the tables in play that no process runs."""
        assert self.cluster is not None
        cluster = self.cluster
        sweeps = 0
        while True:
            await asyncio.sleep(RENEW_EVERY)
            try:
                relayed = sorted({r.code for r in self.gateway.relayed.values()})
                if relayed:
                    owners = dict(zip(relayed, await cluster.owners(relayed), strict=True))
                    moved = self.gateway.moved(owners)
                    if moved:
                        log.info("%d relayed sockets closed: their tables changed process", moved)
                await self.lobby.refresh()
                gateways = {r.gateway for r in self.remote.values()}
                if gateways:
                    alive = await cluster.alive(gateways)
                    for remote in list(self.remote.values()):
                        if remote.gateway not in alive:
                            remote.gone()
                sweeps += 1
                if sweeps % 2 == 0:
                    taken = await self.restore_playing()
                    if taken:
                        log.info("took over %d tables in play that no process ran", taken)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the cluster check failed: trying again")

    async def lead(self, name: str, job: Callable[[], Coroutine[Any, Any, None]]) -> None:
        """Run `job()` in one process of the cluster at a time: the one holding the lease `name`
        (another takes it over within seconds if that process dies)."""
        assert self.cluster is not None
        while True:
            try:
                holder = await self.cluster.claim(name)
            except Exception as e:
                log.warning("could not ask Redis who runs %s: %s", name, e)
                holder = None
            if holder == self.cluster.id:
                log.info("this process runs %s", name)
                task = asyncio.get_running_loop().create_task(job())
                try:
                    while name in self.cluster.leases and not task.done():
                        await asyncio.sleep(RENEW_EVERY)
                finally:
                    task.cancel()
            await asyncio.sleep(RENEW_EVERY)


def _moving(room: Room) -> None:
    """Close `room`'s sockets saying the table moves (code 1012): clients connect again."""
    for conn in room.conns:
        conn.close_code = MOVED
        if hasattr(conn, "close_reason"):
            conn.close_reason = MOVED_REASON
