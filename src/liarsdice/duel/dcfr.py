"""CFR on the abstract graph (`graph.AbstractGame`), compiled with numba.

With imperfect recall a node merges histories that reach it with different opponent ranges, so
the value of a node cannot be carried as one vector per player as on a tree (`solver.cfr`): it is
computed for one hand of the player who updates (the *traverser*) against every hand of the
other at once. One half-iteration, for the traverser:

- the opponent's reach of every node, for every opponent hand, summed over the histories merged
  in the node (a forward pass, once);
- for each traverser hand: its strategy matched from its regrets, its own reach of every node
  (forward), then the values of every node against every opponent hand (backward, a vector per
  node), and its regret and average-strategy updates at its own nodes.

The players alternate, and discounted CFR (alpha 1.5, beta 0, gamma 2) weighs the iterations.
This is CFR on the abstraction, as Lanctot et al. ran it. On big games (`sample` hands per
half-iteration) the traverser's hands are drawn by their chance instead of all taken: the update
is then an unbiased estimate of the full one (Monte Carlo CFR, sampling the traverser's roll); a
traverser with no more hands than the sample takes them all.
"""

from __future__ import annotations

import json
import os
import threading
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .graph import AbstractGame
from .matching import matched_t
from .npz import open_npz
from .probabilities import Probabilities, normalise
from .traversal import Ints, Scratch, in_threads, opp_reach, traverse

# How long an iteration may run on past the deadline or a stop request before it is cut short
# between two hands: short iterations still end whole (and a resumed run equals one long run),
# while one that takes minutes (big games, every hand) ends in about this time.
CUT_AFTER = 1.0


@dataclass
class Progress:
    iteration: int
    seconds: float
    value: float  # player 0's value under the current strategies (the sampled hands' when sampling)


class Trainer:
    """Discounted CFR on `game`, alternating; every traverser hand each half-iteration, or
    `sample` of them drawn by chance; the hands of a half-iteration traversed on `threads` threads
    at once (the same regrets to the bit as on one)."""

    def __init__(self, game: AbstractGame, sample: int | None = None, seed: int = 0, threads: int = 1) -> None:
        if threads < 1:
            raise ValueError(f"threads is how many hands are traversed at once: at least 1, not {threads}")
        self.game = game
        self.threads = threads
        g = game
        self.hands = (len(g.players[0].hands), len(g.players[1].hands))
        self.sample = sample if sample is not None and sample < max(self.hands) else None
        self.iteration = 0
        self.rng = np.random.default_rng(seed)
        shape_l = [(self.hands[p], g.num_node_slots[p]) for p in (0, 1)]
        shape_b = [(self.hands[p], g.num_edge_slots[p]) for p in (0, 1)]
        # the exact call where the rules have one: a column per node slot, as the liar call
        shape_e = [(self.hands[p], g.num_node_slots[p] if g.has_exact else 0) for p in (0, 1)]
        self.r_liar = [np.zeros(s) for s in shape_l]
        self.r_bid = [np.zeros(s) for s in shape_b]
        self.a_liar = [np.zeros(s) for s in shape_l]
        self.a_bid = [np.zeros(s) for s in shape_b]
        self.r_exact = [np.zeros(s) for s in shape_e]
        self.a_exact = [np.zeros(s) for s in shape_e]
        self.holds = (g.pass_holds(0), g.pass_holds(1))
        self.value = 0.0
        self.seconds = 0.0  # spent training, over every run continued here (`checkpoint`)
        # (player, hands updated, hands of the half-iteration) of the last iteration if it was cut short
        self.cut_short: tuple[int, int, int] | None = None

    # ----- checkpoints: a long training in several runs -----

    def checkpoint(self, path: str | Path, about: dict[str, Any]) -> Path:
        """Save everything training needs to go on (regrets, averages, the iteration, the
        sampler's state) at `path`, with `about` (what game it is) to check when it is resumed.
        Written whole or not at all."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "about": about,
            "iteration": self.iteration,
            "sample": self.sample,
            "value": self.value,
            "seconds": self.seconds,
            "rng": self.rng.bit_generator.state,
        }
        arrays: dict[str, Any] = {"meta": np.array(json.dumps(meta))}
        for player in (0, 1):
            for name in self._arrays():
                arrays[f"{name}{player}"] = getattr(self, name)[player]
        partial = p.with_name(f".{p.name}.{os.getpid()}.partial")
        try:
            with open(partial, "wb") as f:
                np.savez(f, **arrays)  # not compressed: regrets hardly compress, and big ones take minutes
            os.replace(partial, p)
        finally:
            partial.unlink(missing_ok=True)
        return p

    def resume(self, path: str | Path, about: dict[str, Any]) -> None:
        """Go on from the checkpoint at `path`; ValueError if it is unreadable or of another game
        (`about` differs) or another sampling."""
        data = open_npz(path, "training checkpoint")
        try:
            with data:
                meta = json.loads(str(data["meta"]))
                if meta.get("about") != about:
                    raise ValueError(f"{path} is the checkpoint of another training: {meta.get('about')}")
                if meta.get("sample") != self.sample:
                    was = meta.get("sample") or "every hand"
                    now = self.sample or "every hand"
                    raise ValueError(f"{path} was trained with {was} sampled per half-iteration, not {now}")
                loaded = {}
                for player in (0, 1):
                    for name in self._arrays():
                        array = data[f"{name}{player}"]
                        if array.shape != getattr(self, name)[player].shape:
                            raise ValueError(f"{path} does not fit this game: {name}{player} is {array.shape}")
                        loaded[(name, player)] = array
        except (OSError, EOFError, KeyError, zipfile.BadZipFile, json.JSONDecodeError) as e:
            raise ValueError(f"{path} is not a readable training checkpoint: {e}") from e
        for (name, player), array in loaded.items():
            # as read (already a fresh float64 array): a copy would hold the checkpoint twice
            getattr(self, name)[player] = np.ascontiguousarray(array, dtype=np.float64)
        self.iteration = int(meta["iteration"])
        self.value = float(meta["value"])
        self.seconds = float(meta["seconds"])
        self.rng.bit_generator.state = meta["rng"]

    def _arrays(self) -> tuple[str, ...]:
        """The arrays a checkpoint holds per player (a game without exact has none of its own)."""
        calls = ("r_liar", "r_bid", "a_liar", "a_bid")
        return (*calls, "r_exact", "a_exact") if self.game.has_exact else calls

    def current(self, player: int) -> tuple[Probabilities, Probabilities, Probabilities]:
        """The regret-matching strategy of `player`: (liar, bid, exact) arrays of shape (hands,
        slots); exact has no columns where the rules have no exact call."""
        p = player
        return normalise(self.game, p, self.r_liar[p], self.r_bid[p], positive=True, exact=self.r_exact[p])

    def _current_t(
        self, player: int
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """`current(player)` transposed, (slot, hand), in float32: as the traversals read it."""
        g = self.game
        p = player
        h = self.hands[p]
        liar_t = np.empty((self.r_liar[p].shape[1], h), dtype=np.float32)
        bid_t = np.empty((self.r_bid[p].shape[1], h), dtype=np.float32)
        exact_t = np.empty((self.r_exact[p].shape[1], h), dtype=np.float32)

        def rows(share: Ints) -> None:
            matched_t(
                p, g.parity, g.edge_count, g.node_slot, g.edge_slot, g.can_call, g.can_exact,
                self.r_liar[p], self.r_bid[p], self.r_exact[p], share, liar_t, bid_t, exact_t,
            )  # fmt: skip

        shares = np.array_split(np.arange(h), min(self.threads, h))
        threads = [threading.Thread(target=rows, args=(share,), daemon=True) for share in shares[1:]]
        for t in threads:
            t.start()
        rows(shares[0])
        for t in threads:
            t.join()
        return liar_t, bid_t, exact_t

    def average(self, player: int) -> tuple[Probabilities, Probabilities, Probabilities]:
        p = player
        return normalise(self.game, p, self.a_liar[p], self.a_bid[p], positive=False, exact=self.a_exact[p])

    def iterate(self, cut: Callable[[], bool] | None = None) -> bool:
        """One iteration, both half-iterations; True if whole. `cut()`, asked before each hand, may
        end it early: the hands already updated keep their update, discounted, as if only they had
        been sampled, and the iteration counts (`cut_short` says how far it went). An iteration cut
        before any hand is not counted."""
        self.iteration += 1
        self.cut_short = None
        t = self.iteration
        alpha = t**1.5 / (t**1.5 + 1)
        gamma = (t / (t + 1)) ** 2
        for me in (0, 1):
            value, updated, whole = self._half(me, cut)
            if not whole and len(updated) == 0:
                if me == 0:  # nothing done at all
                    self.iteration -= 1
                    self.cut_short = None
                return False
            if whole:
                self.value = value if me == 0 else (self.value - value) / 2
            # Only the regrets of the hands updated are discounted: a hand not drawn this time
            # must not lose half its negative regrets for nothing.
            for r in (self.r_liar[me], self.r_bid[me], self.r_exact[me]):
                if len(updated) == r.shape[0]:
                    r *= np.where(r > 0, alpha, 0.5)
                else:
                    rows = r[updated]
                    rows *= np.where(rows > 0, alpha, 0.5)
                    r[updated] = rows
            for a in (self.a_liar[me], self.a_bid[me], self.a_exact[me]):
                a *= gamma
            if not whole:
                return False
        return True

    def _half(self, me: int, cut: Callable[[], bool] | None = None) -> tuple[float, npt.NDArray[np.int64], bool]:
        g = self.game
        opp = 1 - me
        o_liar_t, o_bid_t, o_exact_t = self._current_t(opp)
        hit = g.exact_hit or (0.0, 0.0)
        h_opp = self.hands[opp]
        reach = np.zeros((g.num_nodes, h_opp))
        opp_reach(opp, g.roots, g.parity, g.edge_start, g.edge_count, g.edge_child, g.edge_slot, o_bid_t, reach)
        chance = g.players[me].chance
        if self.sample is None or self.sample >= self.hands[me]:
            # A player with no more hands than the sample (1 die against 5) takes them all: the
            # exact update, and fewer traversals than drawing the sample with repeats.
            hands = np.arange(self.hands[me])
            weights = chance
        else:
            hands = self.rng.choice(self.hands[me], size=self.sample, p=chance)
            weights = np.full(self.sample, 1.0 / self.sample)
        scratch = [Scratch.of(g, me, h_opp) for _ in range(min(self.threads, len(hands)))]

        def one(position: int, s: Scratch) -> float:
            return traverse(
                me,
                int(hands[position]),
                float(weights[position]),
                g.roots,
                g.parity,
                g.last,
                g.edge_start,
                g.edge_count,
                g.edge_child,
                g.node_slot,
                g.edge_slot,
                g.bid_q,
                g.bid_face,
                g.players[me].counts,
                g.players[opp].counts,
                g.players[opp].chance,
                reach,
                o_liar_t,
                o_bid_t,
                self.r_liar[me],
                self.r_bid[me],
                self.a_liar[me],
                self.a_bid[me],
                s.liar,
                s.bid,
                s.my_reach,
                s.value,
                s.call,
                hit[me],
                hit[opp],
                o_exact_t,
                self.r_exact[me],
                self.a_exact[me],
                s.exact,
                s.spot,
                g.can_call,
                g.can_exact,
                g.pass_call,
                self.holds[me],
                self.holds[opp],
            )

        values = np.zeros(len(hands))
        done = np.zeros(len(hands), dtype=bool)
        if len(scratch) == 1:
            for position in range(len(hands)):
                if cut is not None and cut():
                    break
                values[position] = one(position, scratch[0])
                done[position] = True
        else:
            in_threads(hands, scratch, one, values, done, cut)
        # summed in the order drawn, whatever the threads: the same value as on one thread
        total = 0.0
        for position in range(len(hands)):
            total += weights[position] * values[position]
        if not done.all():
            self.cut_short = (me, int(done.sum()), len(hands))
            return total, np.unique(hands[done]), False
        return total, np.unique(hands), True

    def run(
        self,
        *,
        iterations: int | None = None,
        seconds: float | None = None,
        on_progress: Callable[[Progress], None] | None = None,
        stop: Callable[[], bool] | None = None,
        cut_after: float = CUT_AFTER,
    ) -> None:
        """Train `iterations` more iterations or for `seconds`, whichever comes first, or until
        `stop()` says so. Both are looked at after each iteration, so that what is left is a whole
        one, and between hands within one: an iteration still under way `cut_after` seconds past
        the deadline or the first yes of `stop()` is cut short there (see `iterate`)."""
        if iterations is None and seconds is None:
            raise ValueError("give a budget: iterations or seconds")
        started = time.perf_counter()
        deadline = None if seconds is None else started + seconds
        asked: float | None = None  # when stop() first said yes

        def cut() -> bool:
            nonlocal asked
            now = time.perf_counter()
            if asked is None and stop is not None and stop():
                asked = now
            late = deadline is not None and now > deadline + cut_after
            return late or (asked is not None and now > asked + cut_after)

        before = self.seconds
        done = 0
        while True:
            counted = self.iteration
            whole = self.iterate(cut)
            elapsed = time.perf_counter() - started
            self.seconds = before + elapsed
            if self.iteration == counted:
                break  # cut before its first hand: nothing done, nothing to report
            done += 1
            if on_progress is not None:
                on_progress(Progress(self.iteration, elapsed, self.value))
            if not whole:
                break
            if iterations is not None and done >= iterations:
                break
            if seconds is not None and elapsed >= seconds:
                break
            if asked is not None or (stop is not None and stop()):
                break
