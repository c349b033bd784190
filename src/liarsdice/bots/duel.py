"""The `duel` bot: an equilibrium-like strategy in every two-player round, the strong bot elsewhere.

Every game ends in a duel. In a two-player round without pass or push (the last two players of
any game too), once the dice are rolled the round is a bidding game of two players: the opener is
player 0. The bot plays, in this order of preference:

1. the exact solution, where the cfr bot has or can quickly compute it (tiny games);
2. the strategy of the abstract game (`liarsdice.duel`: each player remembers its hand and the
   last k bids), looked up in memory, then in the data directory (`<data dir>/duel/`, where
   `liarsdice train` writes: a strategy trained here comes first), then among the strategies
   shipped in the package (`liarsdice.duel.shipped`, for rounds of exactly their rules); small
   games (up to TRAIN_ON_THE_FLY_WORK) are trained on first use and cached there;
3. the strong bot, for everything else: more than two players, a pass or a push in the round, an
   exact allowed once per game (who has called it is the game's, not the round's), a one-die
   round (wilds do not count there: another game), a duel nobody has trained.

Where exact (spot-on, calza) may be called any time, the strategy is one trained with it (the
exact solution of the first step is of bids alone and is not played there).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from functools import lru_cache
from pathlib import Path
from typing import Any, ClassVar

from ..paths import data_dir
from ..rules import Action, Options, PlayerView
from .base import Bot, Limit
from .cfr import CfrBot, duel_dice, policy_at
from .strong import StrongBot
from .strong_mixing import Policy, draw

# Duels trained on first use: hands x hands x edges of the graph at most (1 die each with six
# faces, remembering every bid, is 3e5; 2 dice against 1 remembering 10 bids is 3e7, a minute).
TRAIN_ON_THE_FLY_WORK = 4e6
TRAIN_ITERATIONS = 300


@lru_cache(maxsize=1024)  # every decision asks
def strategy_key(options: Options, dice: tuple[int, int], k: int) -> str:
    """A name for the trained duel of these bidding and counting rules, dice and memory k."""
    rules = {
        "faces": options.faces,
        "wild_face": options.wild_face,
        "wild_bid_rule": options.wild_bid_rule,
        "bid_order": options.bid_order,
        "wild_opening": options.wild_opening,
        "dice": list(dice),
        "k": k,
    }
    if options.exact != "none":  # another game (a key without it is a strategy of bids alone)
        rules.update(exact=options.exact, exact_limit=options.exact_limit, cap=options.dice_cap(0))
    digest = hashlib.sha256(json.dumps(rules, sort_keys=True).encode()).hexdigest()[:16]
    return f"{dice[0]}v{dice[1]}-f{options.faces}-k{k}-{digest}"


def strategies_dir() -> Path:
    return data_dir() / "duel"


def load_strategy(options: Options, dice: tuple[int, int], k: int) -> Any:
    """The trained strategy of this duel from the data directory; else None."""
    from ..duel import DuelStrategy

    name = f"{strategy_key(options, dice, k)}.npz"
    path = strategies_dir() / name
    if path.exists():
        with contextlib.suppress(ValueError):
            return DuelStrategy.load(path)
    return None


class DuelBot(Bot):
    level = "duel"
    description = "plays a trained two-player strategy in every duel, the strong bot elsewhere"

    _cache: ClassVar[dict[str, Any]] = {}
    _not_trained: ClassVar[set[str]] = set()  # looked for without training, and not found
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, seed: int | None = None, k: int | None = None) -> None:
        super().__init__(seed)
        self.k = k  # None: the default memory of each duel (liarsdice.duel.default_k)
        self.exact = CfrBot(seed)
        self.fallback = StrongBot(seed)
        self.source = ""  # what played the last decision: "exact", "duel" or "fallback"

    def strategy_for(self, options: Options, dice: tuple[int, int], *, train_small: bool = True) -> Any:
        """The strategy of this duel: from memory, the data directory or the package's shipped
        strategies, or trained now if small (unless not `train_small`); else None."""
        try:
            from ..duel import default_k, game_for, train
            from ..duel.shipped import shipped_strategy
        except ImportError:  # the solver's extra (numba) is not installed
            return None
        try:
            k = default_k(options, dice) if self.k is None else self.k
        except ValueError:  # rules the duel cannot be trained for (an unbounded ladder)
            return None
        key = name = strategy_key(options, dice, k)
        if key in self._cache:
            return self._cache[key]
        if not train_small and key in self._not_trained:
            return None
        with self._lock:
            if key in self._cache:
                return self._cache[key]
            strategy = load_strategy(options, dice, k)
            if strategy is None and self.k is None:
                # Trained with another memory (`liarsdice train --k`): better than none.
                for other in (*range(k - 1, 1, -1), *range(k + 1, 13)):
                    strategy = load_strategy(options, dice, other)
                    if strategy is not None:
                        break
            if strategy is None:
                strategy = shipped_strategy(options, dice)
                if strategy is not None and self.k is not None and strategy.k != self.k:
                    strategy = None  # this bot was asked for another memory
            if strategy is None and not train_small:
                self._not_trained.add(key)  # not cached as None: a later call may train it
                return None
            if strategy is None:
                try:
                    game = game_for(options, dice, k)
                except ValueError:
                    game = None
                if game is not None:
                    work = len(game.players[0].hands) * len(game.players[1].hands) * game.num_edges
                    if work <= TRAIN_ON_THE_FLY_WORK:
                        strategy = train(options, dice, k=k, iterations=TRAIN_ITERATIONS)
                        with contextlib.suppress(OSError):
                            strategy.save(strategies_dir() / f"{name}.npz")
            self._cache[key] = strategy
            return strategy

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        chances = self._duel_policy(view, limit)
        if chances is not None:
            return draw(chances, self.rng.random())
        self.source = "fallback"
        return self.fallback.act(view, limit)

    def policy(self, view: PlayerView) -> Policy:
        """The chance of each move `act` may make in `view` (it draws from this): what
        `liarsdice exploit` reads instead of sampling the bot."""
        chances = self._duel_policy(view, None)
        if chances is not None:
            return chances
        self.source = "fallback"
        return self.fallback.policy(view)

    def _duel_policy(self, view: PlayerView, limit: Limit | None) -> Policy | None:
        dice = duel_dice(view)
        if dice is None:
            return None
        if view.options.exact == "none":
            # The exact solution is of bids and the liar call alone: where exact or spot-on may be
            # called the round is another game, which only a strategy trained with it covers.
            exact = self.exact.solved_policy(view, limit.time if limit is not None else None)
            if exact is not None:
                self.source = "exact"
                return exact
        strategy = self.strategy_for(view.options, dice)
        if strategy is None:
            return None
        chances = policy_at(strategy.policy, view)
        if chances is not None:
            self.source = "duel"
        return chances
