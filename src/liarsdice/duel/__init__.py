"""A two-player strategy for every round size: CFR on an imperfect-recall abstraction.

Every game of Liar's Dice ends in a duel, and the exact solver (`liarsdice.solver`) fits only the
smallest (its tree has 2^bids nodes: 2 dice against 1 at most). Here each player remembers only
its hand and the last k bids (Lanctot et al., ICML 2012), the public tree collapses into a graph
of (whose turn, last k bids) (`graph`), and discounted CFR runs on that graph (`train`): every
hand each iteration, or on big games a sample of hands drawn by chance. The average strategy
(`strategy.DuelStrategy`) plays any history of the full round, and on small games is measured
exactly on the full tree.

    >>> from liarsdice.duel import train
    >>> from liarsdice.rules import preset_options
    >>> strategy = train(preset_options("openspiel"), (1, 1), iterations=300)
    >>> strategy.exact_exploitability() < 0.01
    True
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..rules import Options
from .footprint import TooBig, measure, refuse_if_too_big, too_big_message
from .graph import PASS_MOST_DICE, AbstractGame, Pushed, Stopped, game_for, least_work
from .strategy import DuelStrategy

if TYPE_CHECKING:
    from .dcfr import Progress, Trainer


def __getattr__(name: str) -> Any:
    """`Progress` and `Trainer` (`dcfr.py`), imported when first asked for: training needs numba,
    which playing a shipped strategy does not (a first decision 0.26 s sooner)."""
    if name in ("Progress", "Trainer"):
        from . import dcfr

        return getattr(dcfr, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Memory: as many bids as the graph allows. At least 3 (exploitability 0.004 at 2 dice vs 1 with
# ones wild, where k=2 leaves 0.07 at 1 vs 1) while the graph has at most MAX_EDGES edges (5 vs
# 5 with k=3 would hold 8 GB of regrets and averages) and an iteration over every hand at most
# MAX_WORK_3 (hands x hands x edges), else 2: at 4 vs 4, k=3 costs 15 times k=2 an iteration, and
# in less training time k=2 gave LBR +0.05 with the top face wild (2,621 iterations in 25
# minutes) where k=3 gave +0.14 (1,112 iterations); more than 3 while an iteration stays under
# MAX_WORK: with the top face wild, k=3 leaves 0.044 at 2 dice vs 1, k=4 still 0.023 at 1 vs 2.
MAX_EDGES = 500_000
# How many times the edges a graph has where a player may pass (Soar): 2.5 to 7, measured from 1
# vs 2 to 2 vs 4 at k=2 to 4.
PASS_GROWTH = 7
MAX_WORK_3 = 2e9
MAX_WORK = 6e7


def estimated_edges(bids: int, k: int) -> int:
    """About how many edges the graph remembering k of `bids` rungs has."""
    from math import comb

    return 2 * sum(comb(bids, j) for j in range(2, min(k, bids) + 2))


def likely_work(options: Options, dice: tuple[int, int], k: int) -> float:
    """About hands x hands x edges of the graph of this duel at memory k, without building it (a
    tenth of a second at 2 vs 2 with passes): `estimated_edges`, times PASS_GROWTH where a player
    may pass. The graphs measured have 0.5 to 0.9 of it without passes, 0.27 to 0.9 with."""
    from ..solver.tree import GameSpec, hands_of

    spec = GameSpec.from_options(options, dice)
    pairs = len(hands_of(dice[0], spec.faces)) * len(hands_of(dice[1], spec.faces))
    growth = PASS_GROWTH if options.pass_rule != "none" and PASS_MOST_DICE in dice else 1
    return float(pairs * growth * estimated_edges(len(spec.bids), k))


@lru_cache(maxsize=1024)  # the duel bot asks at every decision
def default_k(options: Options, dice: tuple[int, int]) -> int:
    """The memory the duel of these rules and dice is trained with (see MAX_EDGES, MAX_WORK_3, MAX_WORK)."""
    from ..solver.tree import GameSpec, hands_of

    spec = GameSpec.from_options(options, dice)
    bids = len(spec.bids)
    pairs = len(hands_of(dice[0], spec.faces)) * len(hands_of(dice[1], spec.faces))
    # where a player may pass, a node per who has passed and passes since the bid (graph.py)
    growth = PASS_GROWTH if options.pass_rule != "none" and PASS_MOST_DICE in dice else 1
    k = 2
    while k < bids:
        edges = growth * estimated_edges(bids, k + 1)
        if edges > MAX_EDGES or pairs * edges > (MAX_WORK_3 if k + 1 == 3 else MAX_WORK):
            break
        k += 1
    return k


def train(
    options: Options,
    dice: tuple[int, int],
    *,
    k: int | None = None,
    iterations: int | None = None,
    seconds: float | None = None,
    seed: int = 0,
    sample: int | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    checkpoint: str | Path | None = None,
    checkpoint_every: float = 600.0,
    on_resume: Callable[[int, float], None] | None = None,
    stop: Callable[[], bool] | None = None,
    game: AbstractGame | None = None,
    memory: int | None = None,
    exact_left: tuple[bool, bool] | None = None,
    threads: int = 1,
    pushed: Pushed | None = None,
) -> DuelStrategy:
    """Train the abstract game of `options` for two players holding `dice` (player 0 opens),
    remembering the last `k` bids (`default_k` if None): `iterations` more, or for `seconds`
    (counted from this call: building the graph and reading the checkpoint included).

    With `checkpoint`, a long training goes on over several runs: it starts from the checkpoint
    there if one exists (`on_resume(iteration, seconds)` is told), saves one every
    `checkpoint_every` seconds and at the end. Resumed, it does exactly what one longer run
    would have done, unless a run was cut within an iteration (below). `stop()`, asked while the
    graph is built and between iterations, ends the training early (saved as at any end); an
    iteration still under way `train.CUT_AFTER` seconds after the deadline or a stop is cut
    short between two hands (`Trainer.iterate`). Stopped if nothing was trained yet.

    The graph is built here unless `game` is given (then the caller has checked its size). A
    training that would not fit in `memory` bytes (the machine's available memory if None) is
    refused with TooBig before anything is allocated. `exact_left`: which players may still call
    exact, where the rules allow one a game (`graph.exact_left_of`). `threads`: hands traversed
    at once (the same strategy to the bit as on one thread, in less time on as many cores).
    `pushed`: train the round after that push instead (`graph.Pushed`)."""
    started = time.perf_counter()
    deadline = None if seconds is None else started + seconds

    def time_up() -> bool:
        return (deadline is not None and time.perf_counter() > deadline) or (stop is not None and stop())

    if k is None:
        k = default_k(options, dice)
    if game is None:
        refuse_if_too_big(options, dice, k, memory)
        game = game_for(options, dice, k, stop=time_up, exact_left=exact_left, pushed=pushed)
        footprint = measure(game)
        fit = footprint.fit(memory)
        if not fit.ok:
            raise TooBig(too_big_message(footprint, fit, options, dice, k))
    from .dcfr import Trainer

    trainer = Trainer(game, sample=sample, seed=seed, threads=threads)
    about = {"options": options.to_dict(), "dice": list(dice), "k": k, "seed": seed}
    if game.exact_left != (options.exact != "none",) * 2:
        about["exact_left"] = list(game.exact_left)
    if game.pushed is not None:
        about["pushed"] = game.pushed.to_dict()
    about = json.loads(json.dumps(about))
    if checkpoint is not None and Path(checkpoint).exists():
        trainer.resume(checkpoint, about)
        if on_resume is not None:
            on_resume(trainer.iteration, trainer.seconds)
    if time_up():
        raise Stopped("stopped before the first iteration: nothing trained in this run")
    if deadline is not None:
        seconds = deadline - time.perf_counter()
    saved = time.perf_counter()

    def progress(p: Progress) -> None:
        nonlocal saved
        if on_progress is not None:
            on_progress(p)
        if checkpoint is not None and time.perf_counter() - saved >= checkpoint_every:
            trainer.checkpoint(checkpoint, about)
            saved = time.perf_counter()

    before = trainer.iteration
    trainer.run(iterations=iterations, seconds=seconds, on_progress=progress, stop=stop)
    if trainer.iteration == before:
        raise Stopped("stopped before the first hand of the first iteration: nothing trained in this run")
    if checkpoint is not None:
        trainer.checkpoint(checkpoint, about)
    l0, b0, e0 = trainer.average(0)
    l1, b1, e1 = trainer.average(1)
    meta = {
        "method": "DCFR" if trainer.sample is None else f"DCFR, {trainer.sample} hands sampled per half-iteration",
        "iterations": trainer.iteration,
        "seconds": round(trainer.seconds, 3),
        "value": float(trainer.value),
        "seed": seed,
    }
    if trainer.cut_short is not None:
        player, hands_done, hands = trainer.cut_short
        meta["cut_short"] = f"the last iteration was cut short: {hands_done} of {hands} hands of player {player}"
    left = exact_left if options.exact != "none" and options.exact_limit != "unlimited" else None
    return DuelStrategy(options, dice, k, [l0, l1], [b0, b1], meta, trainer.game, [e0, e1], left, game.pushed)


__all__ = [
    "AbstractGame",
    "default_k",
    "DuelStrategy",
    "Progress",
    "Pushed",
    "Stopped",
    "TooBig",
    "Trainer",
    "game_for",
    "least_work",
    "likely_work",
    "train",
]
