"""Exact best responses to a duel strategy by walking the full public tree move by move.

The exact solver's tree (`solver.tree`) has bids and the liar call only. A round with exact calls
or Soar's passes is measured here instead: every public history is visited once per best
responder, with a vector over its hands (its best answer at each of its own histories, the
other's strategy weighed in at theirs). Its cost grows as the tree does (2^bids and more), so it
is for small games: 2 dice against 1 with three faces has some 1,300 histories and takes a
second. On games both can measure it agrees with the solver to the last digit
(tests/test_duel_pass.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

from ..rules import Bid
from .graph import EXACT, PASS, PASS_RUNG, AbstractGame, Move


class Strategy(Protocol):
    """What is walked: a `strategy.DuelStrategy`."""

    game: AbstractGame

    def policy(self, hand: Sequence[int], moves: Sequence[Move]) -> dict[Bid | str | None, float]: ...


Floats = npt.NDArray[np.float64]
# a move at a history: a raise, PASS, None (the liar call) or EXACT
Key = Bid | str | None


def best_responses(strategy: Strategy) -> tuple[float, float]:
    """What each player wins a round, on average, by its best response to the other's strategy."""
    g = strategy.game
    hands = [g.players[p].hands for p in (0, 1)]
    holds = [g.pass_holds(p) for p in (0, 1)]
    counts = [g.players[p].counts for p in (0, 1)]  # [face - 1, hand]
    hit = g.exact_hit or (0.0, 0.0)
    shape = (len(hands[0]), len(hands[1]))
    # After a push the moves start with the pusher's bid; the roots' bids come by chance, alike.
    start = 0 if g.pushed is None else g.pushed.seat
    roots: list[list[Move]] = [[]]
    if g.pushed is not None:
        roots = [[g.spec.bids[int(g.last[r])]] for r in g.roots]

    def payoff(moves: list[Move], call: Key) -> Floats:
        """[hand 0, hand 1]: what player 0 wins when the player to act after `moves` calls the
        last move a lie (None) or the standing bid exact (EXACT)."""
        actor = (start + len(moves)) % 2
        if call is None:
            mover = 1 - actor
            last = moves[-1]
            if last == PASS:
                ok = np.broadcast_to(holds[0][:, None] if mover == 0 else holds[1][None, :], shape)
            else:
                assert isinstance(last, Bid)
                f = last.face - 1
                ok = counts[0][f][:, None] + counts[1][f][None, :] >= last.quantity
            won = np.where(ok, 1.0, -1.0)
            return won if mover == 0 else -won
        bid = [m for m in moves if m != PASS][-1]
        assert isinstance(bid, Bid)
        f = bid.face - 1
        hits = counts[0][f][:, None] + counts[1][f][None, :] == bid.quantity
        caller = np.where(hits, hit[actor], -1.0)
        out: Floats = caller if actor == 0 else -caller
        return out

    def moves_at(moves: list[Move]) -> list[Key]:
        node = g.node_of(moves)
        first, n = int(g.edge_start[node]), int(g.edge_count[node])
        calls: list[Key] = [*([None] if g.can_call[node] else []), *([EXACT] if g.can_exact[node] else [])]
        rungs = g.edge_rung[first : first + n]
        raises: list[Key] = [PASS if int(r) == PASS_RUNG else g.spec.bids[int(r)] for r in rungs]
        return calls + raises

    def value(me: int, moves: list[Move], reach: Floats) -> Floats:
        """What `me` wins from here with each of its hands, the other's hands weighed by `reach`
        (their chance times the chance its strategy came here), by `me`'s best play."""
        actor = (start + len(moves)) % 2
        keys = moves_at(moves)

        def after(key: Key, r: Floats) -> Floats:
            if key is None or key == EXACT:
                m = payoff(moves, key)
                return m @ r if me == 0 else -(r @ m)
            assert key is not None
            return value(me, [*moves, key], r)

        if actor == me:
            best = np.full(len(hands[me]), -np.inf)
            for key in keys:
                best = np.maximum(best, after(key, reach))
            return best
        chances = np.array([[strategy.policy(hand, moves).get(k, 0.0) for k in keys] for hand in hands[actor]])
        total = np.zeros(len(hands[me]))
        for i, key in enumerate(keys):
            r = reach * chances[:, i]
            if r.any():
                total += after(key, r)
        return total

    chance = [g.players[p].chance for p in (0, 1)]
    br0 = sum(float(chance[0] @ value(0, r, chance[1].astype(np.float64))) for r in roots) / len(roots)
    br1 = sum(float(chance[1] @ value(1, r, chance[0].astype(np.float64))) for r in roots) / len(roots)
    return br0, br1
