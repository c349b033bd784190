"""How often one client address (or one account's name) may try to sign in or sign up: a few
tries freely, then a growing wait between tries, then none until the window has passed.

A refused try costs nothing but a look-up: no password is hashed, so a flood of wrong
passwords from one address neither slows the tables (hashing runs off the event loop in any
case) nor the sign-ins of anyone else. These counts are one process's, in memory (a restart
forgets them); with several processes sharing a Redis, sharedattempts.py keeps them there, so
the processes together allow what one does, and falls back on these when Redis fails
(docs/accounts.md).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field


@dataclass
class Attempts:
    """At most `free` failed tries a key within `window` seconds at once; then each further try
    waits `base * 2**k` seconds (k: the tries over `free`, at most `longest`) after the last; at
    `most` tries the key is refused until its oldest try leaves the window."""

    free: int
    most: int
    window: float
    base: float = 1.0
    longest: float = 300.0
    tries: dict[str, deque[float]] = field(default_factory=dict)

    def wait(self, key: str, now: float) -> float:
        """Seconds before `key` may try again (0: now)."""
        times = self.tries.get(key)
        if times is None:
            return 0.0
        while times and times[0] <= now - self.window:
            times.popleft()
        if not times:
            del self.tries[key]  # forget quiet keys: the table stays small
            return 0.0
        return self.wait_after(len(times), times[0], times[-1], now)

    def wait_after(self, count: int, first: float, last: float, now: float) -> float:
        """Seconds to wait after `count` tries within the window, the first and the last at
        those times (the rule itself, wherever the tries are kept)."""
        if count >= self.most:
            return max(0.0, first + self.window - now)
        if count < self.free:
            return 0.0
        delay = min(self.longest, self.base * 2.0 ** (count - self.free))
        return max(0.0, last + delay - now)

    def take(self, key: str, now: float) -> float:
        """Seconds `key` must wait; if none, its try is counted at once (given back with
        `give_back` if it turns out not to count), so that tries made together are counted
        one by one rather than all let through before any is noted."""
        wait = self.wait(key, now)
        if wait == 0:
            self.note(key, now)
        return wait

    def give_back(self, key: str, when: float) -> None:
        """Forget the try `take` counted at `when` (it did not count: the password was right)."""
        times = self.tries.get(key)
        if times is not None and when in times:
            times.remove(when)

    def note(self, key: str, now: float) -> None:
        """A try that counts (a failed sign-in; any sign-up that was tried)."""
        self.tries.setdefault(key, deque()).append(now)

    def forget(self, key: str) -> None:
        """A signed-in key starts again."""
        self.tries.pop(key, None)
