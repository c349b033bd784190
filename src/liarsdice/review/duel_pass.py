"""The backward pass of review/duel.py, compiled with numba: every node's value to the seat
against every hand of the other cup, under both players' strategies, from one node on."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numba import njit

Floats = npt.NDArray[np.float64]
Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]


@njit(cache=True)
def node_values(
    start: int,
    me: int,
    x: int,
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
    my_liar: Floats,
    my_bid: Floats,
    my_exact: Floats,
    opp_liar_t: Floats,
    opp_bid_t: Floats,
    opp_exact_t: Floats,
    can_call: Bools,
    can_exact: Bools,
    pass_call: Bools,
    my_pass_holds: Bools,
    opp_pass_holds: Bools,
    hit_mine: float,
    hit_theirs: float,
) -> Floats:  # pragma: no cover (compiled; tests/test_review.py checks it against a plain walk)
    """[nodes, other's hands]: the value to player `me` holding hand `x` of each node reachable
    from `start` (zero elsewhere): +1 a die the other loses, -1 one we lose. The player to act at
    a node may call the last move a lie where `can_call` (a pass where `pass_call`: it holds
    where `*_pass_holds` says) and call exact on the standing bid where `can_exact`."""
    n_nodes = len(parity)
    h_opp = opp_counts.shape[1]
    reach = np.zeros(n_nodes, dtype=np.bool_)
    reach[start] = True
    for n in range(start, n_nodes):
        if reach[n]:
            first = edge_start[n]
            for j in range(edge_count[n]):
                reach[edge_child[first + j]] = True
    value = np.zeros((n_nodes, h_opp))
    for n in range(n_nodes - 1, start - 1, -1):
        if not reach[n]:
            continue
        first = edge_start[n]
        es = edge_slot[n]
        ls = node_slot[n]
        v = value[n]
        mine = parity[n] == me
        rung = last[n]
        f = bid_face[rung] - 1 if rung >= 0 else 0
        need = bid_q[rung] - my_counts[f, x] if rung >= 0 else 0
        for y in range(h_opp):
            if can_call[n]:
                # the last move is the one not to act's: it wins the call if its bid is true,
                # or its pass holds
                if pass_call[n]:
                    held = opp_pass_holds[y] if mine else my_pass_holds[x]
                    call = (-1.0 if held else 1.0) if mine else (1.0 if held else -1.0)
                else:
                    true = opp_counts[f, y] >= need
                    call = (-1.0 if true else 1.0) if mine else (1.0 if true else -1.0)
                p = my_liar[x, ls] if mine else opp_liar_t[ls, y]
                v[y] += p * call
            if can_exact[n]:
                # the standing bid is the other's; the one to act calls
                hit = opp_counts[f, y] == need
                if mine:
                    v[y] += my_exact[x, ls] * (hit_mine if hit else -1.0)
                else:
                    v[y] += opp_exact_t[ls, y] * (-hit_theirs if hit else 1.0)
        for j in range(edge_count[n]):
            child = value[edge_child[first + j]]
            if mine:
                p = my_bid[x, es + j]
                if p != 0.0:
                    for y in range(h_opp):
                        v[y] += p * child[y]
            else:
                for y in range(h_opp):
                    v[y] += opp_bid_t[es + j, y] * child[y]
    return value
