"""Thinking on the others' time: work a bot starts after its move, or after another player's,
and that its next decision waits for.

Once a bot has answered, the game goes on without it until its next turn: the other players
think, a person for seconds, a program for milliseconds. Work that a later decision needs and
that the moves made so far already set up is done then, in a background thread, in the order it
was asked for, and the bot's next decision first waits for all of it to end (chess engines call
this pondering). Nothing worked out there decides a move by itself: it is what the later
decision would have worked out on its own, so a game plays the same with it as without, and only
its decisions come sooner. The reader works out its model's answers at the next player's turn
this way (`bots/reader.py`).
"""

from __future__ import annotations

import atexit
import threading
import weakref
from collections import deque
from collections.abc import Callable

# Every Pondering with work under way, for `_stop_all` at the interpreter's exit.
_working: weakref.WeakSet[Pondering] = weakref.WeakSet()


class Pondering:
    """Background work done in order, one piece at a time, and waited for by `settle`.

    One thread does it, and waits LINGER seconds for more before it ends: a bot asks for work
    after each move at the table, and starting a thread each time cost about 2 ms of the caller's
    time on a busy machine (six-seat games: the slowest decisions' profile)."""

    LINGER = 5.0

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._queue: deque[Callable[[], None]] = deque()
        self._worker = False  # a thread is doing the work or waiting for more
        self._ending = False  # it ends once the work asked for has
        self._idle = threading.Event()
        self._idle.set()
        self._error: BaseException | None = None

    def start(self, work: Callable[[], None]) -> None:
        """Do `work` in the background, after the work asked for before it; the caller goes on."""
        with self._lock:
            self._queue.append(work)
            self._idle.clear()
            self._ending = False
            _working.add(self)
            if self._worker:
                self._lock.notify()
                return
            self._worker = True
        threading.Thread(target=self._drain, name="liarsdice-pondering", daemon=True).start()

    def settle(self) -> None:
        """Wait until all the work asked for has ended; raise what it raised (a bug there is the
        bot's, as it would be had the decision that needs it done the work itself)."""
        self._idle.wait()
        error, self._error = self._error, None
        if error is not None:
            raise error

    def close(self) -> None:
        """`settle`, and let the thread end now rather than after LINGER (`start` begins again)."""
        with self._lock:
            self._ending = True
            self._lock.notify()
        self.settle()

    @property
    def busy(self) -> bool:
        """Whether work is waiting or under way."""
        return not self._idle.is_set()

    def _drain(self) -> None:
        while True:
            with self._lock:
                if self._error is not None:
                    self._queue.clear()  # after an error, what follows may build on what failed
                if not self._queue:
                    self._idle.set()
                    _working.discard(self)
                    more = not self._ending and self._lock.wait_for(
                        lambda: bool(self._queue) or self._ending, timeout=self.LINGER
                    )
                    if not more or not self._queue:
                        self._worker = False
                        return
                    continue  # the error check again, for the work asked for since
                work = self._queue.popleft()
            try:
                work()
            except BaseException as error:  # raised again by `settle`, in the bot's own thread
                self._error = error

    def stop(self) -> None:
        """Drop the work not begun and wait for the piece under way (its error is dropped too)."""
        with self._lock:
            self._queue.clear()
            self._ending = True
            self._lock.notify()
        self._idle.wait()
        self._error = None

    def __getstate__(self) -> dict[str, object]:
        # A bot sent to another process (the arena's workers) takes no thread or lock along.
        self.settle()
        return {}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__()  # type: ignore[misc]


@atexit.register
def _stop_all() -> None:
    # A daemon thread still working when Python finalizes is ended wherever it next asks for the
    # interpreter, and inside numpy's C++ that aborts the process (`TrainedDuels.stop_fetching`);
    # a bot nobody closed may leave one.
    for pondering in list(_working):
        pondering.stop()
