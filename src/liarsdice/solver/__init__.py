"""Equilibrium strategies for two-player, single-round games of any bidding and counting rules.

    >>> from liarsdice.rules import preset_options
    >>> from liarsdice.solver import solve
    >>> solution = solve(preset_options("openspiel"), (1, 1), target=1e-3)
    >>> round(solution.game_value, 3)       # -7/258 for player 0, who opens
    -0.028

`solve` runs CFR+ or DCFR (the compiled `fast.FastSolver`) until the exploitability, computed
exactly after every iteration, is below the target, or a budget of iterations or seconds runs out.
A `Solution` holds the average strategy with its metadata, saves to and loads from one `.npz`
file, answers "how does a player with this hand act after these bids", and exports itself as an
OpenSpiel tabular policy.

`solve` reads only the bidding and counting rules of `options` (the cfr bot hands it the options
of whatever game it sits in); `scope.unmodelled` names every other rule that makes the game
something else, and the `solve` and `train` commands refuse those.
"""

from __future__ import annotations

import json
import os
import time
import zipfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..rules import Bid, Options
from .cfr import Algorithm, Solver
from .tree import Floats, GameSpec, PerLevel, Tree

if TYPE_CHECKING:
    from .fast import FastSolver

FORMAT = "liarsdice-solution"
VERSION = 1


@dataclass
class Progress:
    iteration: int
    seconds: float
    exploitability: float


@dataclass
class Solution:
    """An average strategy of both players on one tree, with how it was made."""

    options: Options
    dice: tuple[int, int]
    algorithm: str
    iterations: int
    seconds: float
    exploitability: float
    game_value: float
    history: list[Progress]
    liar: PerLevel  # per level: P(liar | node, hand) of the player to act
    bid: PerLevel  # per level (k >= 1): P(this bid | parent, hand) of the parent's player
    tree: Tree = field(repr=False)

    @property
    def infosets(self) -> int:
        return self.tree.infosets()

    def policy(self, hand: Sequence[int], bids: Sequence[Bid]) -> dict[Bid | None, float]:
        """How the player to act after `bids`, holding `hand`, plays: probability by bid, and
        by None for the liar call."""
        tree = self.tree
        spec = tree.spec
        rungs = [spec.ladder.index[b] for b in bids]
        depth, index = tree.node_of(rungs)
        player = depth % 2
        key = tuple(sorted(hand))
        try:
            h = tree.hands[player].index(key)
        except ValueError:
            raise ValueError(f"{list(hand)} is not a hand of {spec.dice[player]} dice for player {player}") from None
        out: dict[Bid | None, float] = {}
        if depth > 0:
            liar = self.liar[depth]
            assert liar is not None
            out[None] = float(liar[index, h])
        if depth + 1 < len(tree.levels):
            level = tree.levels[depth]
            first, count = int(level.first_child[index]), int(level.num_children[index])
            child = self.bid[depth + 1]
            assert child is not None
            for c in range(first, first + count):
                out[spec.bids[int(tree.levels[depth + 1].last[c])]] = float(child[c, h])
        total = sum(out.values())
        return {k: v / total for k, v in out.items()} if total > 0 else out

    # ----- files -----

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "options": self.options.to_dict(),
            "dice": list(self.dice),
            "algorithm": self.algorithm,
            "iterations": self.iterations,
            "seconds": self.seconds,
            "exploitability": self.exploitability,
            "game_value": self.game_value,
            "infosets": self.infosets,
            "bids": [str(b) for b in self.tree.spec.bids],
            "history": [[h.iteration, h.seconds, h.exploitability] for h in self.history],
        }
        arrays: dict[str, Any] = {"meta": np.array(json.dumps(meta))}
        # float64, as solved: float32 moved the exploitability of a strategy read back by ~1e-9.
        for k, a in enumerate(self.liar):
            if a is not None:
                arrays[f"liar{k}"] = np.asarray(a, dtype=np.float64)
        for k, a in enumerate(self.bid):
            if a is not None:
                arrays[f"bid{k}"] = np.asarray(a, dtype=np.float64)
        # Written aside and renamed: a reader (another process's cfr bot) never sees half a file.
        partial = p.with_name(f".{p.name}.{os.getpid()}.partial")
        try:
            with open(partial, "wb") as f:
                np.savez_compressed(f, **arrays)
            os.replace(partial, p)
        finally:
            partial.unlink(missing_ok=True)
        return p

    @classmethod
    def load(cls, path: str | Path) -> Solution:
        """The solution saved at `path`; ValueError if the file is not a whole, readable one."""
        try:
            with np.load(path, allow_pickle=False) as data:
                return cls._read(path, data)
        except (zipfile.BadZipFile, zlib.error, EOFError, KeyError) as e:
            # A damaged file is bad input like any other: the cfr bot solves again on ValueError.
            raise ValueError(f"{path} is not a readable liarsdice solution: {e}") from e

    @classmethod
    def _read(cls, path: str | Path, data: np.lib.npyio.NpzFile) -> Solution:
        if "meta" not in data:
            raise ValueError(f"{path} is not a liarsdice solution: it has no meta")
        meta = json.loads(str(data["meta"]))
        if meta.get("format") != FORMAT or meta.get("version") != VERSION:
            raise ValueError(f"{path} is not a liarsdice solution (version {VERSION})")
        options = Options.from_dict(meta["options"])
        dice = (int(meta["dice"][0]), int(meta["dice"][1]))
        tree = Tree(GameSpec.from_options(options, dice))
        liar = [
            _strategy_array(path, data, f"liar{k}", tree, k, k % 2) if k > 0 else None for k in range(len(tree.levels))
        ]
        bid = [
            _strategy_array(path, data, f"bid{k}", tree, k, (k - 1) % 2) if k > 0 else None
            for k in range(len(tree.levels))
        ]
        return cls(
            options,
            dice,
            meta["algorithm"],
            meta["iterations"],
            meta["seconds"],
            meta["exploitability"],
            meta["game_value"],
            [Progress(int(i), float(s), float(e)) for i, s, e in meta["history"]],
            liar,
            bid,
            tree,
        )


def _strategy_array(
    path: str | Path, data: np.lib.npyio.NpzFile, name: str, tree: Tree, level: int, player: int
) -> Floats:
    """One level's probabilities from a solution file, as float64, checked against its tree.

    Files written before solutions were saved in float64 hold float32: they load, at that precision."""
    shape = (tree.levels[level].size, len(tree.hands[player]))
    if name not in data:
        raise ValueError(f"{path} is not a whole solution: it lacks {name}, the strategy of level {level}")
    array = data[name]
    if array.dtype not in (np.float32, np.float64):
        raise ValueError(f"{path}: {name} holds {array.dtype}: a solution holds float32 or float64")
    if array.shape != shape:
        raise ValueError(f"{path}: {name} has shape {array.shape}, its tree needs {shape} (nodes, hands)")
    return np.asarray(array, dtype=np.float64)


def solve(
    options: Options,
    dice: tuple[int, int],
    *,
    algorithm: Algorithm = "dcfr",
    target: float = 1e-3,
    max_iterations: int | None = None,
    max_seconds: float | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> Solution:
    """Solve the bidding and counting game of `options` for two players holding `dice`."""
    started = time.perf_counter()
    tree = Tree(GameSpec.from_options(options, dice))
    solver: Solver | FastSolver
    try:
        from .fast import FastSolver

        solver = FastSolver(tree, algorithm)
    except ImportError:  # numba is in the solver extra; numpy alone gives the same strategy, slower
        solver = Solver(tree, algorithm)
    history: list[Progress] = []
    exploitability = float("inf")
    while True:
        solver.iterate()
        exploitability = solver.exploitability()
        elapsed = time.perf_counter() - started
        progress = Progress(solver.iteration, elapsed, exploitability)
        history.append(progress)
        if on_progress is not None:
            on_progress(progress)
        if exploitability <= target:
            break
        if max_iterations is not None and solver.iteration >= max_iterations:
            break
        if max_seconds is not None and elapsed >= max_seconds:
            break
    liar0, bid0 = solver.average_strategy(0)
    liar1, bid1 = solver.average_strategy(1)
    liar = [a if a is not None else b for a, b in zip(liar0, liar1, strict=True)]
    bid = [a if a is not None else b for a, b in zip(bid0, bid1, strict=True)]
    value = solver.game_value()
    return Solution(
        options,
        dice,
        algorithm,
        solver.iteration,
        time.perf_counter() - started,
        exploitability,
        value,
        history,
        liar,
        bid,
        tree,
    )


__all__ = ["Progress", "Solution", "solve"]
