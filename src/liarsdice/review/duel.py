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

from ..rules import Action, Bid, BidAction, Challenge, Exact, Pass, PlayerView

if TYPE_CHECKING:
    from ..duel import AbstractGame, DuelStrategy
    from ..solver import Solution

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
    """The value to `view.seat` of each legal move of the duel (every raise, the liar call, exact,
    a pass) under `strategy`, this round's; None where the strategy cannot place the position."""
    from ..duel.graph import PASS, PASS_RUNG
    from .duel_pass import node_values

    g = strategy.game
    assert view.seat is not None
    me = 0 if view.seat == view.starter else 1
    opp = 1 - me
    moves: list[Bid | str] = [t.action.bid if isinstance(t.action, BidAction) else PASS for t in view.history]
    if not g.passes and PASS in moves:
        return None
    try:
        node = g.node_of(moves)
    except ValueError:
        return None
    x = g.players[me].index.get(tuple(sorted(view.hand)))
    if x is None or int(g.parity[node]) != me:
        return None
    probs = probabilities(strategy)
    # The other cup's posterior: the roll, then each move it made this round.
    post = g.players[opp].chance.astype(np.float64).copy()
    _, opp_bid, _ = probs[opp]
    for i in range(opp, len(moves), 2):
        before = g.node_of(moves[:i])
        move = moves[i]
        rung = PASS_RUNG if isinstance(move, str) else g.spec.ladder.index[move]
        post = post * opp_bid[:, int(g.edge_slot[before]) + g.edge_offset(before, rung)]
    if post.sum() <= 0:
        post = g.players[opp].chance.astype(np.float64).copy()  # moves the strategy never makes
    post = post / post.sum()
    hit = g.exact_hit or (0.0, 0.0)
    my_liar, my_bid, my_exact = probs[me]
    o_liar, o_bid, o_exact = probs[opp]
    my_holds, their_holds = g.pass_holds(me), g.pass_holds(opp)
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
        g.can_call,
        g.can_exact,
        g.pass_call,
        my_holds,
        their_holds,
        float(hit[me]),
        float(hit[opp]),
    )
    legal = set(view.legal_actions)
    out: dict[Action, float] = {}
    first = int(g.edge_start[node])
    for j in range(int(g.edge_count[node])):
        rung = int(g.edge_rung[first + j])
        action: Action = Pass() if rung == PASS_RUNG else BidAction(g.spec.bids[rung])
        if action in legal:
            out[action] = float(post @ value[int(g.edge_child[first + j])])
    if g.can_call[node]:
        challenge = Challenge(view.history[-1].seat)  # a duel's challenge is of the last move
        if challenge in legal:
            if g.pass_call[node]:
                out[challenge] = float(post @ np.where(their_holds, -1.0, 1.0))
            else:
                out[challenge] = float(post @ np.where(standing_true(g, node, x, me), -1.0, 1.0))
    if g.can_exact[node] and Exact() in legal:
        rung = int(g.last[node])
        need = int(g.bid_q[rung]) - int(g.players[me].counts[int(g.bid_face[rung]) - 1, x])
        theirs = g.players[opp].counts[int(g.bid_face[rung]) - 1]
        out[Exact()] = float(post @ np.where(theirs == need, hit[me], -1.0))
    return out


def standing_true(g: AbstractGame, node: int, x: int, me: int) -> npt.NDArray[np.bool_]:
    """For every hand of the other cup: whether the standing bid at `node` holds, with hand `x`."""
    rung = int(g.last[node])
    face = int(g.bid_face[rung]) - 1
    need = int(g.bid_q[rung]) - int(g.players[me].counts[face, x])
    out: npt.NDArray[np.bool_] = g.players[1 - me].counts[face] >= need
    return out


def solution_values(view: PlayerView, solution: Solution) -> dict[Action, float] | None:
    """The value to `view.seat` of each legal move under the exact solution of a tiny duel (the
    one the duel level plays there): one backward pass over the whole public tree (a few
    thousand nodes), level by level, against every hand of the other cup, weighed as above."""
    tree = solution.tree
    spec = tree.spec
    assert view.seat is not None
    me = 0 if view.seat == view.starter else 1
    opp = 1 - me
    key = tuple(sorted(view.hand))
    if key not in tree.hands[me]:
        return None
    x = tree.hands[me].index(key)
    bids = [t.action.bid for t in view.history if isinstance(t.action, BidAction)]
    try:
        rungs = [spec.ladder.index[b] for b in bids]
        depth, index = tree.node_of(rungs)
    except (KeyError, ValueError):
        return None
    if depth % 2 != me:
        return None
    levels = tree.levels
    # Each (node, hand)'s moves normalised as `Solution.policy` reads them.
    totals: list[Floats] = []
    for d, level in enumerate(levels):
        liar = solution.liar[d]
        total = np.zeros((level.size, len(tree.hands[d % 2]))) if liar is None else np.array(liar, dtype=np.float64)
        if d + 1 < len(levels):
            child = solution.bid[d + 1]
            assert child is not None
            np.add.at(total, levels[d + 1].parent, child)
        totals.append(np.where(total > 0, total, 1.0))
    bid_q = np.array([b.quantity for b in spec.bids])
    bid_face = np.array([b.face for b in spec.bids])
    mine, theirs = tree.counts[me], tree.counts[opp]

    def calls(d: int, nodes: npt.NDArray[np.int64]) -> Floats:
        """[nodes, other's hands]: what the liar call at these nodes of depth d pays us."""
        rung = levels[d].last[nodes]
        count = mine[bid_face[rung] - 1, x][:, None] + theirs[bid_face[rung] - 1, :]
        true = count >= bid_q[rung][:, None]
        ours = d % 2 == me  # we call: we win if the bid is a lie
        return np.where(true, -1.0, 1.0) if ours else np.where(true, 1.0, -1.0)

    def chance(d: int, moves: Floats, nodes: npt.NDArray[np.int64]) -> Floats:
        """The actor's normalised chance of `moves` ([rows, actor's hands]) at `nodes`."""
        p = moves / totals[d][nodes]
        return p[:, x][:, None] if d % 2 == me else p

    values: dict[int, Floats] = {}  # per depth from ours down: [nodes, other's hands]
    for d in range(len(levels) - 1, depth - 1, -1):
        level = levels[d]
        nodes = np.arange(level.size)
        v = np.zeros((level.size, len(tree.hands[opp])))
        if d > 0:
            liar = solution.liar[d]
            assert liar is not None
            v += chance(d, np.asarray(liar, dtype=np.float64), nodes) * calls(d, nodes)
        if d + 1 in values:
            child = solution.bid[d + 1]
            assert child is not None
            parent = levels[d + 1].parent
            np.add.at(v, parent, chance(d, np.asarray(child, dtype=np.float64), parent) * values[d + 1])
        values[d] = v
    # the other cup's posterior: the roll, then the solution's chance of each of its bids
    post = tree.chance[opp].astype(np.float64).copy()
    for i in range(opp, len(rungs), 2):
        d, node = tree.node_of(rungs[: i + 1])
        child = solution.bid[d]
        assert child is not None
        post = post * np.asarray(child, dtype=np.float64)[node] / totals[d - 1][levels[d].parent[node]]
    post = post / post.sum() if post.sum() > 0 else tree.chance[opp] / tree.chance[opp].sum()
    legal = set(view.legal_actions)
    out: dict[Action, float] = {}
    if depth + 1 in values:
        nxt = levels[depth + 1]
        first = int(levels[depth].first_child[index])
        for c in range(first, first + int(levels[depth].num_children[index])):
            action: Action = BidAction(spec.bids[int(nxt.last[c])])
            if action in legal:
                out[action] = float(post @ values[depth + 1][c])
    if depth > 0 and view.standing_bidder is not None:
        challenge = Challenge(view.standing_bidder)
        if challenge in legal:
            out[challenge] = float(post @ calls(depth, np.array([index]))[0])
    return out
