"""The worth of each move in a two-player round that a trained duel strategy covers, under that
strategy: what the `duel` level plays there, both players playing it from here on.

Each player of the abstract game (duel/graph.py) remembers its hand and the last k bids, so its
play at a node of the graph is the same whichever way the bids came there, and the rest of the
round from a node depends on the node and the two hands alone. With the seat's own hand fixed,
one backward pass over the nodes reachable from here (children come later in the graph's
topological order) gives, for every hand the other cup may hold, the value of every node to the
seat: a liar call pays +1 to whoever is right and -1 to the other, an exact call what the rules
pay (duel/graph.py `exact_hit`), in dice, as the duel was trained. The other cup is weighed by
Bayes' rule: its chance under the roll times the chance that the strategy makes each bid it made
this round from it. The value of a move is then the mean over that posterior of what follows it.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..rules import Action, BidAction, Challenge, Exact, PlayerView

if TYPE_CHECKING:
    from ..duel import DuelStrategy

Floats = npt.NDArray[np.float64]

# The normalised strategy arrays of each strategy looked at, by id (kept alive by TrainedDuels).
_normalised: dict[int, tuple[DuelStrategy, list[tuple[Floats, Floats, Floats]]]] = {}
_lock = threading.Lock()


def probabilities(strategy: DuelStrategy) -> list[tuple[Floats, Floats, Floats]]:
    """Per player, (liar, bid, exact) normalised as `DuelStrategy.policy` reads them (uniform on
    a node never trained), in float64."""
    from ..duel.probabilities import normalise

    with _lock:
        got = _normalised.get(id(strategy))
        if got is not None and got[0] is strategy:
            return got[1]
        out = []
        for p in (0, 1):
            liar, bid, exact = normalise(
                strategy.game, p, strategy.liar[p], strategy.bid[p], positive=False, exact=strategy.exact[p]
            )
            out.append((liar.astype(np.float64), bid.astype(np.float64), exact.astype(np.float64)))
        _normalised[id(strategy)] = (strategy, out)
        return out


def duel_values(view: PlayerView, strategy: DuelStrategy) -> dict[Action, float] | None:
    """The value to `view.seat` of each legal move of the duel (every raise, the liar call,
    exact) under `strategy`, this round's; None where the strategy cannot place the position."""
    from .duel_pass import node_values

    g = strategy.game
    assert view.seat is not None
    me = 0 if view.seat == view.starter else 1
    opp = 1 - me
    bids = [t.action.bid for t in view.history if isinstance(t.action, BidAction)]
    try:
        node = g.node_of(bids)
    except ValueError:
        return None
    x = g.players[me].index.get(tuple(sorted(view.hand)))
    if x is None or int(g.parity[node]) != me:
        return None
    probs = probabilities(strategy)
    # The other cup's posterior: the roll, then each bid it made this round.
    post = g.players[opp].chance.astype(np.float64).copy()
    _, opp_bid, _ = probs[opp]
    for i in range(opp, len(bids), 2):
        before = g.node_of(bids[:i])
        rung = g.spec.ladder.index[bids[i]]
        post = post * opp_bid[:, int(g.edge_slot[before]) + g.edge_offset(before, rung)]
    if post.sum() <= 0:
        post = g.players[opp].chance.astype(np.float64).copy()  # bids the strategy never makes
    post = post / post.sum()
    hit = g.exact_hit or (0.0, 0.0)
    my_liar, my_bid, my_exact = probs[me]
    o_liar, o_bid, o_exact = probs[opp]
    value = node_values(
        node,
        me,
        x,
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
        my_liar,
        my_bid,
        my_exact,
        np.ascontiguousarray(o_liar.T),
        np.ascontiguousarray(o_bid.T),
        np.ascontiguousarray(o_exact.T),
        g.has_exact,
        float(hit[me]),
        float(hit[opp]),
    )
    legal = set(view.legal_actions)
    out: dict[Action, float] = {}
    first = int(g.edge_start[node])
    for j in range(int(g.edge_count[node])):
        rung = int(g.edge_rung[first + j])
        action: Action = BidAction(g.spec.bids[rung])
        if action in legal:
            out[action] = float(post @ value[int(g.edge_child[first + j])])
    if node > 0:
        rung = int(g.last[node])
        face = int(g.bid_face[rung]) - 1
        need = int(g.bid_q[rung]) - int(g.players[me].counts[face, x])
        theirs = g.players[opp].counts[face]
        assert view.standing_bidder is not None
        challenge = Challenge(view.standing_bidder)
        if challenge in legal:
            out[challenge] = float(post @ np.where(theirs >= need, -1.0, 1.0))
        if Exact() in legal and g.has_exact:
            out[Exact()] = float(post @ np.where(theirs == need, hit[me], -1.0))
    return out
