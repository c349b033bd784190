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
import time
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from .graph import AbstractGame
from .npz import open_npz
from .probabilities import REGRET_EPSILON, Probabilities, normalise

# How long an iteration may run on past the deadline or a stop request before it is cut short
# between two hands: short iterations still end whole (and a resumed run equals one long run),
# while one that takes minutes (big games, every hand) ends in about this time.
CUT_AFTER = 1.0

# The kernels' arrays: the graph's numbers, and regrets, averages, reaches and values.
Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


@njit(cache=True)
def _opp_reach(
    opp: int,
    parity: Ints,
    edge_start: Ints,
    edge_count: Ints,
    edge_child: Ints,
    edge_slot: Ints,
    s_bid_t: npt.NDArray[np.float32 | np.float64],
    reach: Floats,
) -> None:
    """reach[n, y]: the opponent's reach of node n with hand y (its own raises only)."""
    reach[:, :] = 0.0
    reach[0, :] = 1.0
    for n in range(parity.shape[0]):
        first = edge_start[n]
        es = edge_slot[n]
        mine = parity[n] == opp
        for j in range(edge_count[n]):
            c = edge_child[first + j]
            if mine:
                for y in range(reach.shape[1]):
                    reach[c, y] += reach[n, y] * s_bid_t[es + j, y]
            else:
                for y in range(reach.shape[1]):
                    reach[c, y] += reach[n, y]


# fastmath lets the sums over the opponent's hands run in SIMD lanes (their order then follows the
# machine's vector width: the same machine gives the same bytes); the opponent's strategy and the
# values against each of its hands are float32, half the memory a traversal streams through. On
# one core: 5 vs 5 at k=2, 32 hands sampled, 1.8 times faster; 3 vs 3 1.6; 2 vs 1 at k=10 1.2
# (docs/performance.md, "Training"). Regrets and averages stay float64.
@njit(cache=True, fastmath=True)
def _hand(
    me: int,
    x: int,
    weight: float,
    parity: Ints,
    last: Ints,
    edge_start: Ints,
    edge_count: Ints,
    edge_child: Ints,
    node_slot: Ints,
    edge_slot: Ints,
    bid_q: Ints,
    bid_face: Ints,
    my_counts: Ints,
    opp_counts: Ints,
    opp_chance: Floats,
    opp_reach: Floats,
    opp_liar_t: npt.NDArray[np.float32],
    opp_bid_t: npt.NDArray[np.float32],
    r_liar: Floats,
    r_bid: Floats,
    a_liar: Floats,
    a_bid: Floats,
    s_liar: Floats,
    s_bid: Floats,
    my_reach: Floats,
    value: npt.NDArray[np.float32],
    call: Floats,
    hit_mine: float,
    hit_theirs: float,
    opp_exact_t: npt.NDArray[np.float32],
    r_exact: Floats,
    a_exact: Floats,
    s_exact: Floats,
    spot: Floats,
    can_call: npt.NDArray[np.bool_],
    can_exact: npt.NDArray[np.bool_],
    pass_call: npt.NDArray[np.bool_],
    my_pass_holds: npt.NDArray[np.bool_],
    opp_pass_holds: npt.NDArray[np.bool_],
) -> float:
    """The traverser `me` holding hand x: match its strategy, then update its regrets and
    average at its nodes (weighted by `weight`); returns its value against the opponent's range.
    The player to act at node n may call the last move a lie where `can_call[n]` (a pass where
    `pass_call[n]`: it holds where `*_pass_holds` says) and call exact where `can_exact[n]`: a
    hit pays the caller `hit_mine` (the traverser) or `hit_theirs` (the opponent), a miss costs
    it 1."""
    n_nodes = parity.shape[0]
    h_opp = opp_chance.shape[0]
    # Strategy of hand x at the traverser's nodes.
    for n in range(n_nodes):
        if parity[n] != me:
            continue
        ls = node_slot[n]
        es = edge_slot[n]
        kids = edge_count[n]
        total = 0.0
        calls = can_call[n]
        if calls and r_liar[x, ls] > REGRET_EPSILON:
            total += r_liar[x, ls]
        for j in range(kids):
            if r_bid[x, es + j] > REGRET_EPSILON:
                total += r_bid[x, es + j]
        calls_exact = can_exact[n]
        if calls_exact and r_exact[x, ls] > REGRET_EPSILON:
            total += r_exact[x, ls]
        if total > 0.0:
            if calls:
                s_liar[ls] = r_liar[x, ls] / total if r_liar[x, ls] > REGRET_EPSILON else 0.0
            for j in range(kids):
                s_bid[es + j] = r_bid[x, es + j] / total if r_bid[x, es + j] > REGRET_EPSILON else 0.0
            if calls_exact:
                s_exact[ls] = r_exact[x, ls] / total if r_exact[x, ls] > REGRET_EPSILON else 0.0
        else:
            u = 1.0 / (kids + (1 if calls else 0) + (1 if calls_exact else 0))
            if calls:
                s_liar[ls] = u
            for j in range(kids):
                s_bid[es + j] = u
            if calls_exact:
                s_exact[ls] = u
    # Own reach.
    for n in range(n_nodes):
        my_reach[n] = 0.0
    my_reach[0] = 1.0
    for n in range(n_nodes):
        r = my_reach[n]
        if r == 0.0:
            continue
        first = edge_start[n]
        es = edge_slot[n]
        if parity[n] == me:
            for j in range(edge_count[n]):
                my_reach[edge_child[first + j]] += r * s_bid[es + j]
        else:
            for j in range(edge_count[n]):
                my_reach[edge_child[first + j]] += r
    # Values against every opponent hand, bottom up; updates at the traverser's nodes.
    weighted = np.empty(h_opp)
    for n in range(n_nodes - 1, -1, -1):
        first = edge_start[n]
        es = edge_slot[n]
        ls = node_slot[n]
        kids = edge_count[n]
        v = value[n]
        v[:] = 0.0
        calls = can_call[n]
        calls_exact = can_exact[n]
        # The last move is the one not to act's: it wins the liar call if its bid is true, or
        # its pass holds.
        mover_is_me = parity[n] != me
        if pass_call[n]:
            if mover_is_me:
                for y in range(h_opp):
                    call[y] = 1.0 if my_pass_holds[x] else -1.0
            else:
                for y in range(h_opp):
                    call[y] = -1.0 if opp_pass_holds[y] else 1.0
        elif calls:
            rung = last[n]
            f = bid_face[rung] - 1
            need = bid_q[rung] - my_counts[f, x]
            for y in range(h_opp):
                true = opp_counts[f, y] >= need
                call[y] = 1.0 if true == mover_is_me else -1.0
        if calls_exact:
            # The caller of an exact is the one to act; the standing bid is the other's.
            rung = last[n]
            f = bid_face[rung] - 1
            need = bid_q[rung] - my_counts[f, x]
            for y in range(h_opp):
                hit = opp_counts[f, y] == need
                if mover_is_me:
                    spot[y] = -hit_theirs if hit else 1.0
                else:
                    spot[y] = hit_mine if hit else -1.0
        if parity[n] == me:
            for y in range(h_opp):
                weighted[y] = opp_chance[y] * opp_reach[n, y]
            base = 0.0
            liar_value = 0.0
            if calls:
                for y in range(h_opp):
                    liar_value += weighted[y] * call[y]
                p = s_liar[ls]
                base += p * liar_value
                if p != 0.0:
                    for y in range(h_opp):
                        v[y] += p * call[y]
            exact_value = 0.0
            if calls_exact:
                for y in range(h_opp):
                    exact_value += weighted[y] * spot[y]
                p = s_exact[ls]
                base += p * exact_value
                if p != 0.0:
                    for y in range(h_opp):
                        v[y] += p * spot[y]
            for j in range(kids):
                child = value[edge_child[first + j]]
                p = s_bid[es + j]
                cv = 0.0
                if p != 0.0:
                    for y in range(h_opp):
                        cv += weighted[y] * child[y]
                        v[y] += p * child[y]
                else:
                    for y in range(h_opp):
                        cv += weighted[y] * child[y]
                base += p * cv
                # The regret of the raise is cv - base; base is known after the last edge.
                r_bid[x, es + j] += weight * cv
            if calls:
                r_liar[x, ls] += weight * (liar_value - base)
            if calls_exact:
                r_exact[x, ls] += weight * (exact_value - base)
            for j in range(kids):
                r_bid[x, es + j] -= weight * base
            mr = my_reach[n] * weight
            if mr != 0.0:
                if calls:
                    a_liar[x, ls] += mr * s_liar[ls]
                if calls_exact:
                    a_exact[x, ls] += mr * s_exact[ls]
                for j in range(kids):
                    a_bid[x, es + j] += mr * s_bid[es + j]
        else:
            if calls:
                for y in range(h_opp):
                    v[y] += opp_liar_t[ls, y] * call[y]
            if calls_exact:
                for y in range(h_opp):
                    v[y] += opp_exact_t[ls, y] * spot[y]
            for j in range(kids):
                child = value[edge_child[first + j]]
                for y in range(h_opp):
                    v[y] += opp_bid_t[es + j, y] * child[y]
    total = 0.0
    for y in range(h_opp):
        total += opp_chance[y] * value[0, y]
    return total


@dataclass
class Progress:
    iteration: int
    seconds: float
    value: float  # player 0's value under the current strategies (the sampled hands' when sampling)


class Trainer:
    """Discounted CFR on `game`, alternating; every traverser hand each half-iteration, or
    `sample` of them drawn by chance."""

    def __init__(self, game: AbstractGame, sample: int | None = None, seed: int = 0) -> None:
        self.game = game
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
        o_liar, o_bid, o_exact = self.current(opp)
        o_liar_t = np.ascontiguousarray(o_liar.T, dtype=np.float32)
        o_bid_t = np.ascontiguousarray(o_bid.T, dtype=np.float32)
        o_exact_t = np.ascontiguousarray(o_exact.T, dtype=np.float32)
        hit = g.exact_hit or (0.0, 0.0)
        h_opp = self.hands[opp]
        reach = np.zeros((g.num_nodes, h_opp))
        _opp_reach(opp, g.parity, g.edge_start, g.edge_count, g.edge_child, g.edge_slot, o_bid_t, reach)
        chance = g.players[me].chance
        if self.sample is None or self.sample >= self.hands[me]:
            # A player with no more hands than the sample (1 die against 5) takes them all: the
            # exact update, and fewer traversals than drawing the sample with repeats.
            hands = np.arange(self.hands[me])
            weights = chance
        else:
            hands = self.rng.choice(self.hands[me], size=self.sample, p=chance)
            weights = np.full(self.sample, 1.0 / self.sample)
        s_liar = np.zeros(g.num_node_slots[me])
        s_bid = np.zeros(g.num_edge_slots[me])
        my_reach = np.zeros(g.num_nodes)
        value = np.zeros((g.num_nodes, h_opp), dtype=np.float32)
        call = np.zeros(h_opp)
        spot = np.zeros(h_opp)
        s_exact = np.zeros(g.num_node_slots[me] if g.has_exact else 0)
        holds = self.holds
        total = 0.0
        for done, (x, w) in enumerate(zip(hands, weights, strict=True)):
            if cut is not None and cut():
                self.cut_short = (me, done, len(hands))
                return total, np.unique(hands[:done]), False
            v = _hand(
                me,
                int(x),
                float(w),
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
                s_liar,
                s_bid,
                my_reach,
                value,
                call,
                hit[me],
                hit[opp],
                o_exact_t,
                self.r_exact[me],
                self.a_exact[me],
                s_exact,
                spot,
                g.can_call,
                g.can_exact,
                g.pass_call,
                holds[me],
                holds[opp],
            )
            total += w * v
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
