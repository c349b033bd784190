"""One traversal of the abstract graph for one hand of the traverser, compiled with numba
(`dcfr` says what a half-iteration does with it), and the opponent's reach it needs.

A traversal writes its own hand's regrets and averages and a `Scratch` set of its own: the
hands of a half-iteration can run on threads at once (`in_threads`; numba drops the GIL), and
the result is the same to the bit as one after another.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numba import njit

from .graph import AbstractGame
from .probabilities import REGRET_EPSILON

# The kernels' arrays: the graph's numbers, and regrets, averages, reaches and values.
Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


@njit(cache=True)
def opp_reach(
    opp: int,
    roots: Ints,
    parity: Ints,
    edge_start: Ints,
    edge_count: Ints,
    edge_child: Ints,
    edge_slot: Ints,
    s_bid_t: npt.NDArray[np.float32 | np.float64],
    reach: Floats,
) -> None:
    """reach[n, y]: the opponent's reach of node n with hand y (its own raises only), each root
    reached with every hand."""
    reach[:, :] = 0.0
    for r in roots:
        reach[r, :] = 1.0
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
@njit(cache=True, fastmath=True, nogil=True)
def traverse(
    me: int,
    x: int,
    weight: float,
    roots: Ints,
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
    it 1. Every root is reached with every hand; the value is the roots' mean."""
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
    for r in roots:
        my_reach[r] = 1.0
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
    for r in roots:
        for y in range(h_opp):
            total += opp_chance[y] * value[r, y]
    n_roots: int = len(roots)
    return total / n_roots


@dataclass
class Scratch:
    """What one traversal of a hand writes besides the hand's own regrets and averages: a set per
    thread, so that hands can be traversed at once."""

    liar: Floats
    bid: Floats
    exact: Floats
    my_reach: Floats
    value: npt.NDArray[np.float32]
    call: Floats
    spot: Floats

    @classmethod
    def of(cls, g: AbstractGame, me: int, h_opp: int) -> Scratch:
        return cls(
            np.zeros(g.num_node_slots[me]),
            np.zeros(g.num_edge_slots[me]),
            np.zeros(g.num_node_slots[me] if g.has_exact else 0),
            np.zeros(g.num_nodes),
            np.zeros((g.num_nodes, h_opp), dtype=np.float32),
            np.zeros(h_opp),
            np.zeros(h_opp),
        )


def in_threads(
    hands: Ints,
    scratch: list[Scratch],
    one: Callable[[int, Scratch], float],
    values: Floats,
    done: npt.NDArray[np.bool_],
    cut: Callable[[], bool] | None,
) -> None:
    """Traverse `hands` (positions in the sample) on a thread per scratch set: values[i] and
    done[i] for each position traversed. A hand drawn more than once is traversed by one thread in
    the order drawn, and a traversal touches only its own hand's rows otherwise, so the regrets are
    those of one thread, to the bit. A yes from `cut()` stops every thread before its next hand."""
    groups: dict[int, list[int]] = {}
    for position, x in enumerate(hands.tolist()):
        groups.setdefault(x, []).append(position)
    queue = iter(list(groups.values()))  # next() on it is atomic under the GIL
    stopped = threading.Event()

    def work(s: Scratch) -> None:
        for positions in queue:
            for position in positions:
                if stopped.is_set() or (cut is not None and cut()):
                    stopped.set()
                    return
                values[position] = one(position, s)
                done[position] = True

    threads = [threading.Thread(target=work, args=(s,), daemon=True) for s in scratch]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
