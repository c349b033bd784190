"""Regret matching compiled: a player's current strategy, from its regrets, as the trainer's
traversals read it (`dcfr`).

It gives what `probabilities.normalise` gives, to the bit (its sums are numpy's, in numpy's
order), so that a strategy trained by this code is the same file as one trained before it; it
writes the strategy transposed (slot, hand) in float32 without normalise's temporary arrays, and
a thread can take a share of the hands (it runs without the GIL).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

from .probabilities import REGRET_EPSILON

Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]


@njit(cache=True)
def _pairwise(row: Floats, first: int, n: int) -> float:
    """numpy's pairwise sum of row[first:first + n]: one by one under eight numbers, else in
    eight lanes, halved above 128."""
    if n < 8:
        total: float = 0.0
        for i in range(n):
            total += row[first + i]
        return total
    if n <= 128:
        r0 = row[first]
        r1 = row[first + 1]
        r2 = row[first + 2]
        r3 = row[first + 3]
        r4 = row[first + 4]
        r5 = row[first + 5]
        r6 = row[first + 6]
        r7 = row[first + 7]
        i = 8
        while i < n - (n % 8):
            r0 += row[first + i]
            r1 += row[first + i + 1]
            r2 += row[first + i + 2]
            r3 += row[first + i + 3]
            r4 += row[first + i + 4]
            r5 += row[first + i + 5]
            r6 += row[first + i + 6]
            r7 += row[first + i + 7]
            i += 8
        total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            total += row[first + i]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    total = _pairwise(row, first, half) + _pairwise(row, first + half, n - half)
    return total


@njit(cache=True)
def _segment_sum(row: Floats, first: int, n: int) -> float:
    """row[first:first + n] (n at least 1) summed as numpy's add.reduceat sums a segment: its
    first number, plus the pairwise sum of the rest. `matched_t` then gives `normalise`'s
    probabilities to the bit, and a strategy trained today the bytes of one trained before."""
    total: float = row[first] + _pairwise(row, first + 1, n - 1)
    return total


@njit(cache=True, nogil=True)
def matched_t(
    player: int,
    parity: Ints,
    edge_count: Ints,
    node_slot: Ints,
    edge_slot: Ints,
    can_call: npt.NDArray[np.bool_],
    can_exact: npt.NDArray[np.bool_],
    r_liar: Floats,
    r_bid: Floats,
    r_exact: Floats,
    rows: Ints,
    liar_t: npt.NDArray[np.float32],
    bid_t: npt.NDArray[np.float32],
    exact_t: npt.NDArray[np.float32],
) -> None:
    """Regret matching of `player`'s hands `rows`, written transposed (slot, hand) in float32:
    what `normalise(positive=True)` gives, without its temporary arrays, a share of hands per
    thread."""
    has_exact = r_exact.shape[1] > 0
    positive = np.empty(r_bid.shape[1])
    for y in rows:
        for e in range(r_bid.shape[1]):
            b = r_bid[y, e]
            positive[e] = b if b > REGRET_EPSILON else 0.0
        for n in range(parity.shape[0]):
            if parity[n] != player:
                continue
            ls = node_slot[n]
            es = edge_slot[n]
            kids = edge_count[n]
            calls = can_call[n]
            exacts = has_exact and can_exact[n]
            liar = r_liar[y, ls] if calls and r_liar[y, ls] > REGRET_EPSILON else 0.0
            exact = r_exact[y, ls] if exacts and r_exact[y, ls] > REGRET_EPSILON else 0.0
            total = _segment_sum(positive, es, kids) if kids > 0 else 0.0
            if calls:
                total += liar
            if exacts:
                total += exact
            if total > 0.0:
                liar_t[ls, y] = liar / total if calls else 0.0
                for j in range(kids):
                    bid_t[es + j, y] = positive[es + j] / total
                if has_exact:
                    exact_t[ls, y] = exact / total if exacts else 0.0
            else:
                actions = kids + (1 if calls else 0) + (1 if exacts else 0)
                u = 1.0 / (actions if actions > 0 else 1)
                liar_t[ls, y] = u if calls else 0.0
                for j in range(kids):
                    bid_t[es + j, y] = u
                if has_exact:
                    exact_t[ls, y] = u if exacts else 0.0
