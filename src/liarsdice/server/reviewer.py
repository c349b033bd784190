"""The analyses of finished games, made in the background (docs/replay.md): one game at a time,
in a process of its own, so the tables are never kept waiting.

A game is queued when it ends (a game with a person at it: the ladder's bot-only games are
analysed when someone opens their replay), and whenever its replay asks for an analysis it does
not have. The analysis runs in a child process (spawned once, kept, run at a lower priority): it
is seconds of pure Python, which in a thread would hold the interpreter's lock against the event
loop that plays every table. What waits is in the database (analysisrows.py), so a server that
restarts takes it up again; with several processes, each game's claim goes to one of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
from multiprocessing.connection import Connection
from typing import Any

from ..record import RecordError
from ..review import ANALYSIS_VERSION, analyse
from .analysisrows import claim_analysis, fail_analysis, queue_analysis, release_analysis, save_analysis, waiting_games
from .storage import Store

log = logging.getLogger("liarsdice.server")

TIME_LIMIT = 300.0  # seconds one game's analysis may take before it is given up (a 6x5 game takes under 10)


def serve_analyses(conn: Connection) -> None:
    """The child process: analyse each record it is sent, answer (status, analysis or reason)."""
    with contextlib.suppress(OSError, AttributeError):
        os.nice(5)  # behind the server's own work on a busy machine
    while True:
        try:
            record = conn.recv()
        except (EOFError, OSError):
            return
        try:
            conn.send(("done", analyse(record).to_json()))
        except RecordError as e:
            conn.send(("failed", f"its record does not replay: {e}"))
        except Exception as e:  # the reason is stored and shown: the server goes on
            log.exception("could not analyse a game")
            conn.send(("failed", f"the analysis stopped: {type(e).__name__}: {e}"))


class AnalysisProcess:
    """The child process that analyses, started when first needed and again if it dies."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process: Any = None
        self._conn: Connection | None = None
        self.closed = False

    def analyse(self, record: dict[str, Any], limit: float = TIME_LIMIT) -> tuple[str, Any]:
        """("done", Analysis JSON) or ("failed", why); blocks, so it runs in a thread."""
        with self._lock:
            if self.closed:
                return "stopped", "the server is stopping"
            if self._process is None or not self._process.is_alive():
                context = multiprocessing.get_context("spawn")  # not fork: the server has threads
                ours, theirs = context.Pipe()
                self._process = context.Process(
                    target=serve_analyses, args=(theirs,), name="liarsdice-analysis", daemon=True
                )
                self._process.start()
                theirs.close()
                self._conn = ours
            conn = self._conn
        assert conn is not None
        try:
            conn.send(record)
            if not conn.poll(limit):
                self.stop_process()
                return "failed", f"the analysis took longer than {limit:.0f} s"
            status, payload = conn.recv()
            return str(status), payload
        except (EOFError, OSError):
            self.stop_process()
            return "stopped", "the analysis process stopped"

    def stop_process(self) -> None:
        with self._lock:
            process, self._process = self._process, None
            conn, self._conn = self._conn, None
        if conn is not None:
            conn.close()
        if process is not None and process.is_alive():
            process.kill()
            process.join(5)

    def close(self) -> None:
        self.closed = True
        self.stop_process()


class Reviewer:
    """This process's queue of games to analyse, run one at a time by `run`."""

    def __init__(self, store: Store, owner: str) -> None:
        self.store = store
        self.owner = owner  # this process, in the claims it makes
        self.queue: asyncio.Queue[int] = asyncio.Queue()
        self.waiting: set[int] = set()
        self.current: int | None = None
        self.process = AnalysisProcess()
        self.done = 0  # analyses this process made (for tests and logs)

    def request(self, game_id: int) -> None:
        """Analyse game `game_id` when its turn comes, unless it is queued here already."""
        if game_id not in self.waiting:
            self.waiting.add(game_id)
            self.queue.put_nowait(game_id)

    async def game_finished(self, game_id: int) -> None:
        """A game ended: it waits for its analysis in the database too, so a restart still makes it."""
        await self.store.call(lambda s: queue_analysis(s, game_id))
        self.request(game_id)

    async def run(self) -> None:
        """Take up what waited when the server stopped, then analyse each game as it comes."""
        for game_id in await self.store.call(waiting_games):
            self.request(game_id)
        while True:
            game_id = await self.queue.get()
            try:
                await self.analyse(game_id)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("the analysis of game %d failed", game_id)
            finally:
                self.waiting.discard(game_id)

    async def analyse(self, game_id: int) -> None:
        record = await self.store.call(lambda s: claim_analysis(s, game_id, self.owner))
        if record is None:  # another process has it, it is made, or there is no such game
            return
        self.current = game_id  # kept if this is cancelled (the server stopping): `close` gives it back
        status, payload = await asyncio.to_thread(self.process.analyse, record)
        self.current = None
        if status == "done":
            await self.store.call(lambda s: save_analysis(s, game_id, ANALYSIS_VERSION, payload))
            self.done += 1
        elif status == "failed" or not self.process.closed:
            await self.store.call(lambda s: fail_analysis(s, game_id, ANALYSIS_VERSION, str(payload)))
        else:
            await self.store.call(lambda s: release_analysis(s, game_id, self.owner))

    def close(self) -> None:
        """Stop the child process; a game it was analysing goes back to the queue in the database."""
        current = self.current
        self.process.close()
        if current is not None:
            with contextlib.suppress(Exception):
                self.store.call_sync(lambda s: release_analysis(s, current, self.owner))
