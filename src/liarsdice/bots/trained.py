"""The trained duel strategies a bot can play: found in memory, the data directory (where `liarsdice
train` writes) or among those the package ships, or trained on first use if small.

Below both the `duel` bot and the strong bot's duel mixing (`strong_duel`), which share them.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import json
import queue
import threading
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ..paths import data_dir
from ..rules import Options
from .cfr import CfrBot, bidding_rules

if TYPE_CHECKING:
    from ..duel import DuelStrategy

# Duels trained on first use: hands x hands x edges of the graph at most (1 die each with six
# faces, remembering every bid, is 3e5; 2 dice against 1 remembering 10 bids is 3e7, a minute).
TRAIN_ON_THE_FLY_WORK = 4e6
TRAIN_ITERATIONS = 300
# The most dice a cup of a shipped duel holds (`duel.plan.MAX_DICE`, not imported: the duel
# package needs the solver's extra): the next rounds fetched ahead go no higher.
MAX_DUEL_DICE = 5
# who may still call an exact allowed once a game, the opener first (None where any time or never)
ExactLeft = tuple[bool, bool] | None


# the dice player 0 showed, for the round after its push (`duel.graph.Pushed`); None: no push
Shown = tuple[int, ...] | None


@lru_cache(maxsize=1024)  # every decision asks
def strategy_key(
    options: Options, dice: tuple[int, int], k: int, exact_left: tuple[bool, bool] | None = None, pushed: Shown = None
) -> str:
    """A name for the trained duel of these bidding and counting rules, dice and memory k (and
    who may still call an exact allowed once a game, the opener first; and for the round after
    player 0's push, the dice it showed)."""
    from ..duel.graph import exact_worth

    rules: dict[str, object] = {**bidding_rules(options, dice), "k": k}
    if options.exact != "none":  # another game (a key without it is a strategy of bids alone)
        rules.update(exact=options.exact, exact_limit=options.exact_limit, cap=options.dice_cap(0))
        if options.exact_limit != "unlimited" and exact_left is not None:
            rules.update(exact_left=list(exact_left))
        elif exact_worth(options, dice) == "game":
            # calza's die valued by the game: not the strategy a training before it left here
            rules.update(worth="game")
    if options.pass_rule != "none":
        rules.update(passes=options.pass_rule)
    if pushed is not None:
        rules.update(pushed=sorted(pushed))
    digest = hashlib.sha256(json.dumps(rules, sort_keys=True).encode()).hexdigest()[:16]
    return f"{dice[0]}v{dice[1]}-f{options.faces}-k{k}-{digest}"


def strategies_dir() -> Path:
    return data_dir() / "duel"


def load_strategy(
    options: Options, dice: tuple[int, int], k: int, exact_left: tuple[bool, bool] | None = None, pushed: Shown = None
) -> DuelStrategy | None:
    """The trained strategy of this duel from the data directory; else None."""
    from ..duel import DuelStrategy

    name = f"{strategy_key(options, dice, k, exact_left, pushed)}.npz"
    path = strategies_dir() / name
    if path.exists():
        with contextlib.suppress(ValueError):
            return DuelStrategy.load(path)
    return None


class TrainedDuels:
    """Every trained duel strategy looked up in this process, by `strategy_key` (one per process:
    a strategy of 5 vs 5 takes seconds to load and tens of MB)."""

    cache: ClassVar[dict[str, DuelStrategy | None]] = {}
    not_trained: ClassVar[set[str]] = set()  # looked for without training, and not found
    lock: ClassVar[threading.Lock] = threading.Lock()  # over the tables, briefly
    # One lock a duel, held while it is loaded or trained: a decision that needs one duel does
    # not wait for another loaded ahead (`fetch_ahead`: 20 to 40 ms each, one took 70 ms of a
    # decision at six seats when it shared one lock with them all).
    _loading: ClassVar[dict[str, threading.Lock]] = {}
    # Duels to look up ahead of need, by one thread in the background (`fetch_ahead`).
    _ahead: ClassVar[
        queue.SimpleQueue[tuple[dict[str, DuelStrategy | None], set[str], Options, tuple[int, int], ExactLeft] | None]
    ] = queue.SimpleQueue()  # None: stop (`stop_fetching`)
    _asked_ahead: ClassVar[set[tuple[int, Options, tuple[int, int], ExactLeft]]] = set()
    _fetcher: ClassVar[threading.Thread | None] = None
    _starting: ClassVar[threading.Lock] = threading.Lock()
    _registered: ClassVar[bool] = False  # stop_fetching is registered to run at exit
    _last_ahead: ClassVar[tuple[int, Options, tuple[int, int], ExactLeft] | None] = None

    @classmethod
    def strategy_for(
        cls,
        options: Options,
        dice: tuple[int, int],
        k: int | None = None,
        *,
        train_small: bool = True,
        exact_left: ExactLeft = None,
        pushed: Shown = None,
    ) -> DuelStrategy | None:
        """The strategy of this duel, remembering `k` bids (None: the duel's default memory, or
        another trained here if that one is not): from memory, the data directory or the package's
        shipped strategies, or trained now if small (unless not `train_small`); else None.
        `exact_left`: who may still call exact (the opener first), where it may be called once a
        game (no strategy is found there without it). `pushed`: of the round after player 0 (the
        pusher, its dice first) showed these dice."""
        return cls._look_up(options, dice, k, train_small, cls.cache, cls.not_trained, exact_left, pushed)

    @classmethod
    def fetch_ahead(cls, options: Options, dice: tuple[int, int], exact_left: ExactLeft = None) -> None:
        """Look up, in the background, the strategies of the duels the next round of this one may
        be (a die fewer for either player, or more where a hit gains one; either may open), so
        that the decision that first needs one does not wait for it: loading one takes 20 to 40
        ms (its graph, its lzma stream), and a game of 5 dice each meets some twenty; and the
        exact solution of one die each, where the rules have no exact call. Nothing is trained
        there; a lookup that finds nothing is kept as such (`not_trained`). With an exact allowed
        once a game, the next round's players may still call it as in this one (`exact_left`) or
        the caller of this round's may not. The rounds after a push are not looked up ahead: up
        to 33 strategies a duel, loaded in the background, had made Soar's slowest decisions
        (p99) a third slower, for the few rounds where one is played (docs/strength.md)."""
        if cls._last_ahead == (id(cls.cache), options, dice, exact_left):
            return  # asked at every decision: most are of the round asked about last
        cls._last_ahead = (id(cls.cache), options, dice, exact_left)
        a, b = dice
        steps = (-1, 1) if options.exact == "gain_die" else (-1,)
        sizes = [(a + d, b) for d in steps] + [(a, b + d) for d in steps]
        lefts = [exact_left]
        if exact_left is not None:
            lefts += [(False, exact_left[1]), (exact_left[0], False)]
        for left in dict.fromkeys(lefts):
            cls.fetch(options, sizes, left)

    @classmethod
    def fetch(cls, options: Options, sizes: Sequence[tuple[int, int]], exact_left: ExactLeft = None) -> None:
        """Look up the strategies of the duels of `sizes`, either player opening, in the
        background (`fetch_ahead`); sizes out of the plan are left alone. `exact_left` is of the
        first player of each size."""
        cache, missing = cls.cache, cls.not_trained
        for x, y in sizes:
            if min(x, y) < 1 or max(x, y) > MAX_DUEL_DICE:
                continue
            swapped = None if exact_left is None else (exact_left[1], exact_left[0])
            for pair, left in (((x, y), exact_left), ((y, x), swapped)):
                if (id(cache), options, pair, left) not in cls._asked_ahead:
                    cls._asked_ahead.add((id(cache), options, pair, left))
                    cls._ahead.put((cache, missing, options, pair, left))
        with cls._starting:
            if cls._fetcher is None:
                cls._fetcher = threading.Thread(target=cls._fetch, name="duel strategies ahead", daemon=True)
                cls._fetcher.start()
                if not cls._registered:
                    atexit.register(cls.stop_fetching)
                    cls._registered = True

    @classmethod
    def stop_fetching(cls) -> None:
        """Drop the lookups still queued (a later `fetch` asks them again) and wait for the one
        under way. Run by `forget` and at the interpreter's exit, where a daemon thread still
        working when Python finalizes is ended wherever it next asks for the interpreter, and
        inside numpy's C++ that aborts the whole process ("terminate called without an active
        exception", exit -6): `liarsdice play` ended so once in CI, its game played and saved."""
        with cls._starting:
            fetcher, cls._fetcher = cls._fetcher, None
        if fetcher is None:
            return
        with contextlib.suppress(queue.Empty):
            while True:
                dropped = cls._ahead.get_nowait()
                if dropped is not None:
                    cache, _, options, dice, left = dropped
                    cls._asked_ahead.discard((id(cache), options, dice, left))
        cls._ahead.put(None)
        fetcher.join()

    @classmethod
    def _fetch(cls) -> None:
        while True:
            asked = cls._ahead.get()
            if asked is None:
                return
            cache, missing, options, dice, left = asked
            # Into the tables of when it was asked: a test that swapped them meanwhile sees nothing.
            with contextlib.suppress(Exception):  # a lookup failed here is made again when needed
                cls._look_up(options, dice, None, False, cache, missing, left)
                if dice == (1, 1) and options.exact == "none":
                    # One die each is played by its exact solution: shipped for the presets'
                    # rules, else solved on first use (1.5 s for Jokers' bids, mid-game).
                    CfrBot(0).solution_for(options, dice)

    @classmethod
    def _look_up(
        cls,
        options: Options,
        dice: tuple[int, int],
        k: int | None,
        train_small: bool,
        cache: dict[str, DuelStrategy | None],
        not_trained: set[str],
        exact_left: ExactLeft = None,
        pushed: Shown = None,
    ) -> DuelStrategy | None:
        try:
            from ..duel import DuelStrategy, Pushed, default_k, game_for, least_work, likely_work, train
            from ..duel.shipped import shipped_strategy
        except ImportError:  # the solver's extra (numba) is not installed
            return None
        try:
            memory = default_k(options, dice) if k is None else k
        except ValueError:  # rules the duel cannot be trained for (an unbounded ladder)
            return None
        key = strategy_key(options, dice, memory, exact_left, pushed)
        if key in cache:
            return cache[key]
        if not train_small and key in not_trained:
            return None
        with cls.lock:
            loading = cls._loading.setdefault(key, threading.Lock())
        with loading:
            if key in cache:
                return cache[key]
            strategy = load_strategy(options, dice, memory, exact_left, pushed)
            if strategy is None and k is None:
                # Trained with another memory (`liarsdice train --k`): better than none.
                for other in (*range(memory - 1, 1, -1), *range(memory + 1, 13)):
                    strategy = load_strategy(options, dice, other, exact_left, pushed)
                    if strategy is not None:
                        break
            if strategy is None:
                strategy = shipped_strategy(options, dice, exact_left=exact_left, pushed=pushed)
                if strategy is not None and k is not None and strategy.k != k:
                    strategy = None  # another memory was asked for
            if strategy is None and not train_small:
                not_trained.add(key)  # not cached as None: a later call may train it
                return None
            if strategy is None:
                try:
                    # Without building the graph where it surely holds more (its work is at
                    # least a quarter of `likely_work`): a graph built in a decision to find it
                    # too big had cost Soar's first turns of a round 50 to 110 ms.
                    likely = likely_work(options, dice, memory) / 4
                    small = max(least_work(options, dice), likely) <= TRAIN_ON_THE_FLY_WORK
                    round_after = None if pushed is None else Pushed(0, pushed)
                    game = game_for(options, dice, memory, exact_left=exact_left, pushed=round_after) if small else None
                except ValueError:
                    game = None
                if game is not None:
                    work = len(game.players[0].hands) * len(game.players[1].hands) * game.num_edges
                    if work <= TRAIN_ON_THE_FLY_WORK:
                        trained = train(
                            options,
                            dice,
                            k=memory,
                            iterations=TRAIN_ITERATIONS,
                            game=game,
                            exact_left=exact_left,
                            pushed=round_after,
                        )
                        # Played as saved, as any other process will load it from the data
                        # directory: saving drops its smallest probabilities (`stored`).
                        try:
                            strategy = DuelStrategy.load(trained.save(strategies_dir() / f"{key}.npz"))
                        except (OSError, ValueError):  # a data directory it cannot write
                            strategy = trained.stored()
            cache[key] = strategy
            return strategy

    @classmethod
    def forget(cls) -> None:
        """Drop every strategy looked up (a new data directory, say), once no lookup is under way
        in the background: one still going would fill the emptied tables from the old directory."""
        cls.stop_fetching()
        with cls.lock:
            cls.cache.clear()
            cls.not_trained.clear()
            cls._asked_ahead.clear()
            cls._last_ahead = None


__all__ = [
    "TRAIN_ITERATIONS",
    "TRAIN_ON_THE_FLY_WORK",
    "TrainedDuels",
    "load_strategy",
    "strategies_dir",
    "strategy_key",
]
