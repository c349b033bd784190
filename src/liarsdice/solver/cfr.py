"""Counterfactual regret minimisation on the public bid tree, vectorised over private hands.

Every information set is a (node, hand) pair of the player to act, so the regrets and strategies
of a level are arrays of shape (nodes of the level, hands of the player to act). One iteration is
a forward pass (reach probabilities), the payoffs of every liar call (one small matrix product per
ladder rung and level), a backward pass (counterfactual values) and the regret update: numpy
operations per level, never per node.

Two algorithms, both with alternating updates:
- CFR+ (regret matching+, linear averaging), as OpenSpiel's CFRPlusSolver;
- discounted CFR (DCFR, alpha=1.5, beta=0, gamma=2; Brown and Sandholm 2019).

Exploitability is computed exactly: a best response of each player to the other's average
strategy, on the same tree. It is reported as OpenSpiel reports it: (BR0 + BR1) / 2.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from .tree import Floats, Level, PerLevel, Tree

Algorithm = Literal["cfr+", "dcfr"]

# Regrets that are zero in exact arithmetic come out of the subtractions as +-1e-20 or so; regret
# matching would make a pure choice of such noise. Below this, a regret counts as zero.
REGRET_EPSILON = 1e-12


def seg_sum(values: Floats, level: Level) -> Floats:
    """Sum of each node's children rows (children are contiguous in the next level)."""
    out = np.zeros((level.size, values.shape[1]))
    nz = level.num_children > 0
    if values.shape[0] and nz.any():
        out[nz] = np.add.reduceat(values, level.first_child[nz], axis=0)
    return out


def seg_max(values: Floats, level: Level) -> Floats:
    out = np.full((level.size, values.shape[1]), -np.inf)
    nz = level.num_children > 0
    if values.shape[0] and nz.any():
        out[nz] = np.maximum.reduceat(values, level.first_child[nz], axis=0)
    return out


class Solver:
    """CFR+ or DCFR on one tree; `iterate()` runs one iteration (both players, alternating)."""

    def __init__(self, tree: Tree, algorithm: Algorithm = "cfr+") -> None:
        if algorithm not in ("cfr+", "dcfr"):
            raise ValueError(f"unknown algorithm {algorithm!r}: cfr+ or dcfr")
        self.tree = tree
        self.algorithm = algorithm
        self.iteration = 0
        levels = tree.levels
        hands = [len(tree.hands[0]), len(tree.hands[1])]
        # liar[k] (k >= 1): the player to act at level k; bid[k] (k >= 1): the player who acted at k-1
        self.regret_liar: PerLevel = [None] + [
            np.zeros((lv.size, hands[k % 2])) for k, lv in enumerate(levels) if k > 0
        ]
        self.regret_bid: PerLevel = [None] + [
            np.zeros((lv.size, hands[(k - 1) % 2])) for k, lv in enumerate(levels) if k > 0
        ]
        self.avg_liar = [None if r is None else np.zeros_like(r) for r in self.regret_liar]
        self.avg_bid = [None if r is None else np.zeros_like(r) for r in self.regret_bid]

    # ----- strategies -----

    def _strategy(
        self,
        liar: PerLevel,
        bid: PerLevel,
        player: int,
        positive: bool,
    ) -> tuple[PerLevel, PerLevel]:
        """Regret matching (or normalising an average) at the levels where `player` acts:
        (liar probability per level, bid probability per child level)."""
        levels = self.tree.levels
        s_liar: PerLevel = [None] * len(levels)
        s_bid: PerLevel = [None] * len(levels)
        for k in range(player, len(levels), 2):
            level = levels[k]
            h = len(self.tree.hands[player])
            lw = liar[k]
            pos_l = np.where(lw > REGRET_EPSILON, lw, 0.0) if (lw is not None and positive) else lw
            child = bid[k + 1] if k + 1 < len(levels) else None
            pos_b = np.where(child > REGRET_EPSILON, child, 0.0) if (child is not None and positive) else child
            total = np.zeros((level.size, h))
            if pos_l is not None:
                total += pos_l
            if pos_b is not None:
                total += seg_sum(pos_b, level)
            n_actions = level.num_children + (1 if k > 0 else 0)
            uniform = 1.0 / np.maximum(n_actions, 1)
            safe = np.where(total > 0, total, 1.0)
            has = total > 0
            if pos_l is not None:
                s_liar[k] = np.where(has, pos_l / safe, uniform[:, None])
            if pos_b is not None:
                parent = levels[k + 1].parent
                s_bid[k + 1] = np.where(has[parent], pos_b / safe[parent], uniform[parent][:, None])
        return s_liar, s_bid

    def current_strategy(self, player: int) -> tuple[PerLevel, PerLevel]:
        return self._strategy(self.regret_liar, self.regret_bid, player, positive=True)

    def average_strategy(self, player: int) -> tuple[PerLevel, PerLevel]:
        return self._strategy(self.avg_liar, self.avg_bid, player, positive=False)

    # ----- passes -----

    def _reach(self, player: int, s_bid: PerLevel) -> list[Floats]:
        """Reach probabilities of `player`'s hands at every level under its strategy."""
        levels = self.tree.levels
        reach = [np.ones((1, len(self.tree.hands[player])))]
        for k in range(1, len(levels)):
            parent = levels[k].parent
            r = reach[k - 1][parent]
            if (k - 1) % 2 == player:
                child = s_bid[k]
                assert child is not None
                r = r * child
            reach.append(r)
        return reach

    def _terminal(self, player: int, k: int, opp_reach: Floats) -> Floats:
        """Counterfactual values for `player` of the liar calls at level k (k >= 1), given the
        opponent's reach at the calls (its liar probability included if it is the caller)."""
        tree = self.tree
        level = tree.levels[k]
        caller = k % 2
        bidder = 1 - caller
        sign = 1.0 if bidder == player else -1.0
        c_me, c_opp = tree.chance[player], tree.chance[1 - player]
        weighted = opp_reach * c_opp
        out = np.empty((level.size, len(tree.hands[player])))
        for rung, nodes in level.groups:
            win = tree.win[rung]  # [h0, h1]
            if player == 0:
                out[nodes] = weighted[nodes] @ win.T
            else:
                out[nodes] = weighted[nodes] @ win
        out *= c_me * sign
        return out

    def _values(
        self,
        player: int,
        own_liar: PerLevel,
        own_bid: PerLevel,
        opp_liar: PerLevel,
        opp_reach: list[Floats],
        best_response: bool = False,
    ) -> tuple[list[Floats], PerLevel]:
        """Counterfactual values of `player` at every level (and of its liar calls), bottom up.
        With `best_response`, the player takes the best action everywhere instead of its own."""
        levels = self.tree.levels
        depth = len(levels)
        values: list[Floats] = [np.empty(0)] * depth
        terminal: PerLevel = [None] * depth
        for k in range(depth - 1, -1, -1):
            level = levels[k]
            if k > 0:
                r = opp_reach[k]
                if k % 2 != player:
                    liar = opp_liar[k]
                    assert liar is not None
                    r = r * liar
                terminal[k] = self._terminal(player, k, r)
            term = terminal[k]  # named once: mypy narrows a name, not terminal[k]
            below = values[k + 1] if k + 1 < depth else None
            if k % 2 == player:
                if best_response:
                    v = (
                        seg_max(below, level)
                        if below is not None
                        else np.full((level.size, len(self.tree.hands[player])), -np.inf)
                    )
                    if term is not None:
                        v = np.maximum(v, term)
                else:
                    v = np.zeros((level.size, len(self.tree.hands[player])))
                    if below is not None:
                        child = own_bid[k + 1]
                        assert child is not None
                        v += seg_sum(child * below, level)
                    if term is not None:
                        liar = own_liar[k]
                        assert liar is not None
                        v += liar * term
            else:
                v = seg_sum(below, level) if below is not None else np.zeros((level.size, len(self.tree.hands[player])))
                if term is not None:
                    v = v + term
            values[k] = v
        return values, terminal

    # ----- iterations -----

    def iterate(self) -> None:
        self.iteration += 1
        for player in (0, 1):
            self._update(player)

    def _update(self, player: int) -> None:
        t = self.iteration
        opp = 1 - player
        own_liar, own_bid = self.current_strategy(player)
        opp_liar, opp_bid = self.current_strategy(opp)
        opp_reach = self._reach(opp, opp_bid)
        own_reach = self._reach(player, own_bid)
        values, terminal = self._values(player, own_liar, own_bid, opp_liar, opp_reach)
        levels = self.tree.levels
        if self.algorithm == "cfr+":
            weight = float(t)
        else:
            weight = (t / (t + 1)) ** 2.0  # gamma = 2: discount the average so far
            alpha = t**1.5 / (t**1.5 + 1)
        for k in range(player, len(levels), 2):
            v = values[k]
            reach = own_reach[k]
            if k > 0:
                rl = self.regret_liar[k]
                term = terminal[k]
                liar = own_liar[k]
                assert rl is not None and term is not None and liar is not None
                rl += term - v
                al = self.avg_liar[k]
                assert al is not None
                if self.algorithm == "cfr+":
                    np.maximum(rl, 0.0, out=rl)
                    al += weight * reach * liar
                else:
                    rl *= np.where(rl > 0, alpha, 0.5)
                    al *= weight
                    al += reach * liar
            if k + 1 < len(levels):
                parent = levels[k + 1].parent
                rb = self.regret_bid[k + 1]
                child = own_bid[k + 1]
                ab = self.avg_bid[k + 1]
                assert rb is not None and child is not None and ab is not None
                rb += values[k + 1] - v[parent]
                if self.algorithm == "cfr+":
                    np.maximum(rb, 0.0, out=rb)
                    ab += weight * reach[parent] * child
                else:
                    rb *= np.where(rb > 0, alpha, 0.5)
                    ab *= weight
                    ab += reach[parent] * child

    # ----- measures -----

    def best_response_value(self, player: int) -> float:
        """What `player` wins against the opponent's average strategy, playing a best response."""
        opp = 1 - player
        opp_liar, opp_bid = self.average_strategy(opp)
        opp_reach = self._reach(opp, opp_bid)
        values, _ = self._values(player, [], [], opp_liar, opp_reach, best_response=True)
        return float(values[0].sum())

    def exploitability(self) -> float:
        """(BR0 + BR1) / 2 against the average strategies: OpenSpiel's `exploitability`."""
        return (self.best_response_value(0) + self.best_response_value(1)) / 2

    def game_value(self) -> float:
        """Player 0's expected payoff when both play their average strategies."""
        own_liar, own_bid = self.average_strategy(0)
        opp_liar, opp_bid = self.average_strategy(1)
        opp_reach = self._reach(1, opp_bid)
        values, _ = self._values(0, own_liar, own_bid, opp_liar, opp_reach)
        return float(values[0].sum())
