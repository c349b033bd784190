"""The public tree of a two-player, single-round game, and everything about private hands.

A node is a sequence of strictly rising bids (ladder rungs); the player to act at a node of depth
k is k % 2 (player 0 opens). Every node but the root may end with a liar call (a terminal), and
every node may be followed by any higher bid. Nodes are numbered level by level (all sequences of
length k, then k+1), and the children of a node are contiguous in the next level, in rung order,
so that every pass over the tree is a handful of numpy operations per level.

Private hands are multisets of faces (sorted tuples); `chance[p][h]` is the probability that
player p rolls hand h.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ..rules import Bid, BidLadder, Options, ladder


def hands_of(dice: int, faces: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations_with_replacement(range(1, faces + 1), dice))


def hand_chance(hand: tuple[int, ...], faces: int) -> float:
    ways = math.factorial(len(hand))
    for f in set(hand):
        ways //= math.factorial(hand.count(f))
    chance: float = ways / faces ** len(hand)  # typeshed types int ** int as Any (a negative power is a float)
    return chance


# The solver's arrays: node numbers (parents, rungs, children, counts), and chances, reaches,
# regrets and probabilities; `PerLevel`, one (nodes, hands) array per level of the tree, None at
# the levels where the player does not act.
Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
PerLevel = list[Floats | None]


@dataclass
class Level:
    """The nodes of one depth: `parent` (index in the level above), `last` (rung of the last bid;
    -1 at the root), and where each node's children start in the level below."""

    parent: Ints
    last: Ints
    first_child: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    num_children: Ints = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    groups: list[tuple[int, npt.NDArray[np.intp]]] = field(default_factory=list)  # (rung, nodes with that last bid)

    @property
    def size(self) -> int:
        return len(self.last)


@dataclass
class GameSpec:
    """What the solver needs of the rules: the ladder, the counting, the dice of both players."""

    options: Options
    dice: tuple[int, int]
    faces: int
    wild: int | None
    ladder: BidLadder
    bids: tuple[Bid, ...]
    openings: tuple[int, ...]  # rungs the first bid may take

    @classmethod
    def from_options(cls, options: Options, dice: tuple[int, int]) -> GameSpec:
        """The bidding and counting game of `options` for two players holding `dice`.

        Only the bidding and counting rules are read (faces, wild face, wild bid rule, bid order,
        wild opening, maximum quantity): the solved game is bids and liar calls, one round, +1 to
        the winner of the call. Exact, pass, push and chips are not part of it.
        """
        if options.max_quantity != "dice_in_play":
            raise ValueError("the solver needs max_quantity=dice_in_play (a finite ladder)")
        if min(dice) < 1:
            raise ValueError("both players need at least one die")
        q_max = sum(dice)
        lad = ladder(options.faces, options.wild, options.wild_bid_rule, options.bid_order, q_max)
        bids = lad.bids
        openings = tuple(
            i for i, b in enumerate(bids) if options.wild_opening or options.wild is None or b.face != options.wild
        )
        return cls(options, dice, options.faces, options.wild, lad, bids, openings)

    def count(self, hand: tuple[int, ...], face: int) -> int:
        n = hand.count(face)
        if self.wild is not None and face != self.wild:
            n += hand.count(self.wild)
        return n


class Tree:
    """The public bid tree with hands, chance and the sign of every liar call's payoff."""

    def __init__(self, spec: GameSpec) -> None:
        self.spec = spec
        B = len(spec.bids)
        self.num_bids = B
        self.hands = [hands_of(spec.dice[0], spec.faces), hands_of(spec.dice[1], spec.faces)]
        self.chance = [np.array([hand_chance(h, spec.faces) for h in hs]) for hs in self.hands]
        faces = spec.faces
        # counts[p][f - 1, h]: dice of hand h of player p that count for a bid on face f
        self.counts = [
            np.array([[spec.count(h, f) for h in hs] for f in range(1, faces + 1)], dtype=np.int64) for hs in self.hands
        ]
        # win[b][h0, h1]: +1 where bid b is true, -1 where it is a lie
        self.win = []
        for b in spec.bids:
            total = self.counts[0][b.face - 1][:, None] + self.counts[1][b.face - 1][None, :]
            self.win.append(np.where(total >= b.quantity, 1.0, -1.0))
        self.levels: list[Level] = [Level(np.array([-1]), np.array([-1]))]
        while True:
            level = self.levels[-1]
            if len(self.levels) == 1:
                children = np.array(spec.openings, dtype=np.int64)
                counts = np.array([len(children)], dtype=np.int64)
                parent = np.zeros(len(children), dtype=np.int64)
                last = children
            else:
                counts = (B - 1 - level.last).astype(np.int64)
                total = int(counts.sum())
                if total == 0:
                    level.first_child = np.zeros(level.size, dtype=np.int64)
                    level.num_children = counts
                    break
                parent = np.repeat(np.arange(level.size, dtype=np.int64), counts)
                starts = np.repeat(np.cumsum(counts) - counts, counts)
                offset = np.arange(total, dtype=np.int64) - starts
                last = level.last[parent] + 1 + offset
            level.num_children = counts
            level.first_child = np.cumsum(counts) - counts
            self.levels.append(Level(parent, last))
        for depth, level in enumerate(self.levels):
            if depth == 0:
                continue
            order = np.argsort(level.last, kind="stable")
            rungs = level.last[order]
            cuts = np.flatnonzero(np.diff(rungs)) + 1
            level.groups = [(int(rungs[g[0]]), order[g]) for g in np.split(np.arange(len(order)), cuts)]
        self.num_nodes = sum(level.size for level in self.levels)

    def infosets(self) -> int:
        """Information sets: every (node, hand) of the player to act at the node."""
        return sum(level.size * len(self.hands[depth % 2]) for depth, level in enumerate(self.levels))

    def node_of(self, rungs: list[int]) -> tuple[int, int]:
        """(depth, index in its level) of the node reached by these bids."""
        index = 0
        for depth, rung in enumerate(rungs):
            level = self.levels[depth]
            if depth == 0:
                if rung not in self.spec.openings:
                    raise ValueError(f"{self.spec.bids[rung]} cannot open")
                index = self.spec.openings.index(rung)
                continue
            low = int(level.last[index]) + 1
            if rung < low:
                raise ValueError(f"{self.spec.bids[rung]} does not raise {self.spec.bids[low - 1]}")
            index = int(level.first_child[index]) + rung - low
        return len(rungs), index
