"""The `cfr` bot: an equilibrium strategy where the round has one, the probability bot elsewhere.

A round with two players left is a two-player, single-round bidding game once its dice are rolled:
the opener is player 0 of the solved game and the other seat player 1. If the bot holds (or can
quickly compute) a solution for these rules and these dice, it plays the solved average strategy:
a bid or the liar call, drawn with the solution's probabilities. Solutions are looked up in memory,
then on disk (`<data dir>/solutions/`, where `liarsdice solve --cache` also writes), and small ones
(up to SOLVE_ON_THE_FLY_NODES tree nodes, a second or so) are solved on first use and kept there.
Everything else (more than two players, a pass or push in the round, bigger trees) is played by
the probability bot.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from ..paths import data_dir
from ..rules import Action, Bid, BidAction, Challenge, Exact, Options, Pass, PlayerView
from .base import Bot, Limit
from .probability import ProbabilityBot

if TYPE_CHECKING:
    from ..solver import Solution

# A pass among the moves a strategy is asked about (`duel.graph.PASS`: the duel package needs
# the solver's extra, which this module does not).
PASS = "pass"

SOLVE_ON_THE_FLY_NODES = 1 << 13
SOLVE_SECONDS = 30.0  # the most a first-use solve may take without a time limit
TARGET = 1e-3


def bidding_rules(options: Options, dice: tuple[int, int]) -> dict[str, object]:
    """The bidding and counting rules and dice a solved or trained duel depends on (its key's)."""
    return {
        "faces": options.faces,
        "wild_face": options.wild_face,
        "wild_bid_rule": options.wild_bid_rule,
        "bid_order": options.bid_order,
        "wild_opening": options.wild_opening,
        "dice": list(dice),
    }


# Every decision asks (the cfr and duel bots): worked out once per rules and dice.
@lru_cache(maxsize=1024)
def solution_key(options: Options, dice: tuple[int, int]) -> str:
    """A name for the solved game of these bidding and counting rules and dice."""
    rules = bidding_rules(options, dice)
    digest = hashlib.sha256(json.dumps(rules, sort_keys=True).encode()).hexdigest()[:16]
    return f"{dice[0]}v{dice[1]}-f{options.faces}-{digest}"


def solutions_dir() -> Path:
    return data_dir() / "solutions"


# The exact solutions the package ships: one die each in every variant without an exact call
# (`liarsdice solve -p PRESET --ship`, all of them by `make strategies`), where solving on first
# use took up to 1.5 s in the middle of a game.
SHIPPED_SOLUTIONS = Path(__file__).parent / "data" / "solutions"


class CfrBot(Bot):
    level = "cfr"
    description = "plays a solved equilibrium in two-player rounds, the odds elsewhere"

    # One table of solutions per process: they are immutable and can be large.
    _cache: ClassVar[dict[str, Solution | None]] = {}
    # The server's bots act in threads: one solves a new game while the others wait for it.
    _lock: ClassVar[threading.Lock] = threading.Lock()
    _partial: ClassVar[dict[str, Solution]] = {}  # solves cut short by a time limit

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.fallback = ProbabilityBot(seed)

    def solution_for(self, options: Options, dice: tuple[int, int], seconds: float | None = None) -> Solution | None:
        """The solution of this game: from memory, the data directory, the package's shipped ones
        (`SHIPPED_SOLUTIONS`), or solved now if small (within `seconds`,
        else SOLVE_SECONDS); else None. A solve cut short by the time is used, and kept in memory
        only, so that a later call with more time may finish it."""
        try:
            from ..solver import Solution, solve
            from ..solver.tree import GameSpec
        except ImportError:  # the solver's extra (numpy, numba) is not installed
            return None

        key = solution_key(options, dice)
        if key in self._cache:
            return self._cache[key]
        with self._lock:
            if key in self._cache:  # solved by another thread while this one waited
                return self._cache[key]
            if key in self._partial and seconds is not None and seconds < SOLVE_SECONDS:
                return self._partial[key]  # no more time now than it had
            path = solutions_dir() / f"{key}.npz"
            solution = None
            for found in (path, SHIPPED_SOLUTIONS / f"{key}.npz"):
                if solution is None and found.exists():
                    try:
                        solution = Solution.load(found)
                    except (OSError, ValueError):
                        solution = None
            if solution is None:
                try:
                    spec = GameSpec.from_options(options, dice)
                except ValueError:
                    spec = None
                if spec is not None and 2 ** len(spec.bids) <= SOLVE_ON_THE_FLY_NODES:
                    budget = SOLVE_SECONDS if seconds is None else min(seconds, SOLVE_SECONDS)
                    solution = solve(options, dice, algorithm="dcfr", target=TARGET, max_seconds=budget)
                    if solution.exploitability > TARGET:
                        self._partial[key] = solution
                        return solution
                    with contextlib.suppress(OSError):
                        solution.save(path)
            self._cache[key] = solution
            self._partial.pop(key, None)
            return solution

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        action = self._solved(view, limit.time if limit is not None else None)
        if action is not None and action in view.legal_actions:
            return action
        return self.fallback.act(view, limit)

    def _solved(self, view: PlayerView, seconds: float | None = None) -> Action | None:
        chances = self.solved_policy(view, seconds)
        if chances is None:
            return None
        return self.rng.choices([a for a, _ in chances], [p for _, p in chances])[0]

    def solved_policy(self, view: PlayerView, seconds: float | None = None) -> list[tuple[Action, float]] | None:
        """The solution's chance of each legal move at this view; None where there is none."""
        dice = duel_dice(view)
        if dice is None:
            return None
        solution = self.solution_for(view.options, dice, seconds)
        if solution is None:
            return None
        return policy_at(solution.policy, view)


def duel_dice(view: PlayerView, passes: bool = False) -> tuple[int, int] | None:
    """(the opener's dice, the other's) when this round is a plain two-player bidding duel, the game
    the solvers take: no votes, chips, pass, push or one-die round (which counts no wilds); else None.
    `passes`: Soar's passes (without a push) may be in it too, as in the trained duels that have them."""
    legal = view.legal
    if legal is None or legal.voting or legal.economy or view.seat is None or view.one_die_round:
        return None
    active = [s for s, a in enumerate(view.active) if a]
    if len(active) != 2 or view.starter is None:
        return None
    allowed = (BidAction, Pass) if passes else (BidAction,)
    if any(not isinstance(t.action, allowed) or t.action.push for t in view.history):
        return None
    opener = view.starter
    other = active[1] if active[0] == opener else active[0]
    return view.dice[opener], view.dice[other]


def duel_exact_left(view: PlayerView) -> tuple[bool, bool] | None:
    """Where exact may be called once a game: whether the opener and the other player of this
    duel still may (the game's, which a duel strategy is trained for); else None."""
    o = view.options
    if o.exact == "none" or o.exact_limit == "unlimited" or view.starter is None:
        return None
    active = [s for s, a in enumerate(view.active) if a]
    other = next(s for s in active if s != view.starter)
    return (not view.exact_used[view.starter], not view.exact_used[other])


def policy_at(
    policy_of: Callable[[Sequence[int], Sequence[Bid]], Mapping[Bid | None, float] | Mapping[Bid | str | None, float]],
    view: PlayerView,
    since: int = 0,
) -> list[tuple[Action, float]] | None:
    """A strategy's policy at this view as legal moves and their chances (None, the liar call, as
    the challenge of the last move, a bid or a pass; "exact" as the exact call; "pass" as a pass);
    None where the strategy has no answer here. The strategy's moves are the round's from turn
    `since` on (after a push, from the bid that carried it)."""
    turns = view.history[since:]
    moves: list[Bid | str] = [t.action.bid if isinstance(t.action, BidAction) else PASS for t in turns]
    try:
        policy = policy_of(view.hand, moves)  # type: ignore[arg-type]  # moves are bids where there are no passes
    except (ValueError, KeyError):
        return None
    legal = set(view.legal_actions)
    chances: list[tuple[Action, float]] = []
    for move, p in policy.items():
        if p <= 0:
            continue
        action: Action
        if move is None:
            if not view.history:
                continue
            action = Challenge(view.history[-1].seat)  # a duel's challenge is of the last move
        elif isinstance(move, Bid):
            action = BidAction(move)
        elif move == PASS:
            action = Pass()
        else:
            action = Exact()
        if action in legal:
            chances.append((action, p))
    return chances or None
