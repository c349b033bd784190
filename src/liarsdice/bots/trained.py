"""The trained duel strategies a bot can play: found in memory, the data directory (where `liarsdice
train` writes) or among those the package ships, or trained on first use if small.

Below both the `duel` bot and the strong bot's duel mixing (`strong_duel`), which share them.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ..paths import data_dir
from ..rules import Options
from .cfr import bidding_rules

if TYPE_CHECKING:
    from ..duel import DuelStrategy

# Duels trained on first use: hands x hands x edges of the graph at most (1 die each with six
# faces, remembering every bid, is 3e5; 2 dice against 1 remembering 10 bids is 3e7, a minute).
TRAIN_ON_THE_FLY_WORK = 4e6
TRAIN_ITERATIONS = 300


@lru_cache(maxsize=1024)  # every decision asks
def strategy_key(options: Options, dice: tuple[int, int], k: int) -> str:
    """A name for the trained duel of these bidding and counting rules, dice and memory k."""
    rules = {**bidding_rules(options, dice), "k": k}
    if options.exact != "none":  # another game (a key without it is a strategy of bids alone)
        rules.update(exact=options.exact, exact_limit=options.exact_limit, cap=options.dice_cap(0))
    digest = hashlib.sha256(json.dumps(rules, sort_keys=True).encode()).hexdigest()[:16]
    return f"{dice[0]}v{dice[1]}-f{options.faces}-k{k}-{digest}"


def strategies_dir() -> Path:
    return data_dir() / "duel"


def load_strategy(options: Options, dice: tuple[int, int], k: int) -> DuelStrategy | None:
    """The trained strategy of this duel from the data directory; else None."""
    from ..duel import DuelStrategy

    name = f"{strategy_key(options, dice, k)}.npz"
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
    lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def strategy_for(
        cls, options: Options, dice: tuple[int, int], k: int | None = None, *, train_small: bool = True
    ) -> DuelStrategy | None:
        """The strategy of this duel, remembering `k` bids (None: the duel's default memory, or
        another trained here if that one is not): from memory, the data directory or the package's
        shipped strategies, or trained now if small (unless not `train_small`); else None."""
        try:
            from ..duel import default_k, game_for, least_work, train
            from ..duel.shipped import shipped_strategy
        except ImportError:  # the solver's extra (numba) is not installed
            return None
        try:
            memory = default_k(options, dice) if k is None else k
        except ValueError:  # rules the duel cannot be trained for (an unbounded ladder)
            return None
        key = strategy_key(options, dice, memory)
        if key in cls.cache:
            return cls.cache[key]
        if not train_small and key in cls.not_trained:
            return None
        with cls.lock:
            if key in cls.cache:
                return cls.cache[key]
            strategy = load_strategy(options, dice, memory)
            if strategy is None and k is None:
                # Trained with another memory (`liarsdice train --k`): better than none.
                for other in (*range(memory - 1, 1, -1), *range(memory + 1, 13)):
                    strategy = load_strategy(options, dice, other)
                    if strategy is not None:
                        break
            if strategy is None:
                strategy = shipped_strategy(options, dice)
                if strategy is not None and k is not None and strategy.k != k:
                    strategy = None  # another memory was asked for
            if strategy is None and not train_small:
                cls.not_trained.add(key)  # not cached as None: a later call may train it
                return None
            if strategy is None:
                try:
                    small = least_work(options, dice) <= TRAIN_ON_THE_FLY_WORK
                    game = game_for(options, dice, memory) if small else None
                except ValueError:
                    game = None
                if game is not None:
                    work = len(game.players[0].hands) * len(game.players[1].hands) * game.num_edges
                    if work <= TRAIN_ON_THE_FLY_WORK:
                        strategy = train(options, dice, k=memory, iterations=TRAIN_ITERATIONS)
                        with contextlib.suppress(OSError):
                            strategy.save(strategies_dir() / f"{key}.npz")
            cls.cache[key] = strategy
            return strategy

    @classmethod
    def forget(cls) -> None:
        """Drop every strategy looked up (a new data directory, say)."""
        with cls.lock:
            cls.cache.clear()
            cls.not_trained.clear()


__all__ = [
    "TRAIN_ITERATIONS",
    "TRAIN_ON_THE_FLY_WORK",
    "TrainedDuels",
    "load_strategy",
    "strategies_dir",
    "strategy_key",
]
