"""The abstract game of a two-player round: each player remembers its hand and the last k bids.

A full two-player round of B bids has 2^B public histories (any strictly rising sequence of
rungs); 5 dice against 5 with six faces has B = 60. Lanctot et al. (ICML 2012) played Liar's Dice
with imperfect recall instead: an information set is (own hand, the last k bids, whose turn). The
histories that end in the same k bids with the same player to act merge into one *abstract node*,
and the public tree collapses into a small graph (2 x C(B, k) nodes or so).

Bids only rise, so a node's children all end in a higher rung than the node: ordering the nodes
by their last rung (the root, with none, first) is a topological order, and every pass over the
graph is one loop up or down the node array.

Nodes are numbered in that order; the edges (raises) of a node are contiguous and in rung order.
Each player owns the nodes where it acts (parity 0: the opener, player 0) and numbers them, and
their edges, in its own *slots*, so that its strategy is an array (hands, slots).

Besides raising, the player to act may call the standing bid a lie (the liar call: +1 to whoever
is right, -1 to the other) and, where the rules have it any time, exact (spot-on, calza): a hit
pays its caller what `exact_hit` says, a miss costs it 1. Both end the round; the payoffs are the
round's dice, as the liar call's.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..rules import Bid, Options
from ..solver.tree import GameSpec, hand_chance, hands_of

Hand = tuple[int, ...]


class Stopped(Exception):
    """A build or a training asked to stop (its time is up, or Ctrl-C or SIGTERM) before it had
    anything worth keeping."""


@dataclass
class Player:
    """One player's side: its hands (sorted tuples), their chances, and how many dice of each hand
    count for each face (`counts[face - 1, hand]`)."""

    hands: list[Hand]
    chance: npt.NDArray[np.float64]
    counts: npt.NDArray[np.int64]
    index: dict[Hand, int]


class AbstractGame:
    """The graph of (player to act, last k bids) for the bidding and counting game of `spec`."""

    def __init__(self, spec: GameSpec, k: int, stop: Callable[[], bool] | None = None) -> None:
        """`stop()`, asked at every wave of new nodes, ends a long build early (Stopped)."""
        if k < 1:
            raise ValueError(f"the players must remember at least the standing bid (k >= 1), not k={k}")
        self.spec = spec
        self.k = k
        self.num_bids = len(spec.bids)
        self.players = [self._player(spec.dice[p]) for p in (0, 1)]
        self.bid_q = np.array([b.quantity for b in spec.bids], dtype=np.int64)
        self.bid_face = np.array([b.face for b in spec.bids], dtype=np.int64)
        self.exact_hit = exact_hit(spec)

        # A node is (parity, the last k rungs) as one number, its key: parity above B bits, a bit
        # for each rung remembered. Bids only rise, so the set of rungs is the sequence, and the
        # first remembered is the lowest. Past 62 bits the keys are Python's integers.
        B = self.num_bids
        self._dtype = np.dtype(np.int64) if B <= 61 else np.dtype(object)
        self._openings = np.array(spec.openings, dtype=np.int64)

        # Every node reachable from the root, found by walking the rungs upwards, a wave at a time.
        found = np.zeros(1, dtype=self._dtype)  # the root: player 0 to act, no bid
        frontier = found
        while len(frontier):
            if stop is not None and stop():
                raise Stopped(f"stopped while building the graph, {len(found):,} nodes in")
            children, _, _ = self._children(frontier)
            children = np.unique(children)
            frontier = children[~np.isin(children, found, assume_unique=True)]
            found = np.union1d(found, frontier)
        parity, rungs = self._decode(found)
        last = np.max(rungs, axis=1, initial=-1)
        # Nodes in order of their last rung (the root, with none, first), then parity and rungs.
        order = np.lexsort((*rungs.T[::-1], parity, last))
        self._keys = found  # sorted
        self._index = np.empty(len(found), dtype=np.int64)
        self._index[order] = np.arange(len(found))
        keys = found[order]
        N = len(keys)
        self.parity = parity[order]
        self.last = last[order]
        children, to, source = self._children(keys)
        counts = np.bincount(source, minlength=N).astype(np.int64)
        self.edge_start = np.cumsum(counts) - counts
        self.edge_count = counts
        self.edge_child = self._index[np.searchsorted(found, children)]
        self.edge_rung = to
        # Slots: player p's nodes (the liar call there) and edges (its raises), in node order.
        self.node_slot = np.zeros(N, dtype=np.int64)
        self.edge_slot = np.zeros(N, dtype=np.int64)  # the slot of the node's first edge
        self.num_node_slots = [0, 0]
        self.num_edge_slots = [0, 0]
        for p in (0, 1):
            own = self.parity == p
            self.node_slot[own] = np.arange(int(own.sum()))
            self.edge_slot[own] = np.cumsum(counts[own]) - counts[own]
            self.num_node_slots[p] = int(own.sum())
            self.num_edge_slots[p] = int(counts[own].sum())
        self.num_nodes = N
        self.num_edges = int(counts.sum())

    def _decode(self, keys: npt.NDArray[Any]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Each key's parity, and [keys, k] the rungs it remembers, rising, then -1 where fewer."""
        B = self.num_bids
        parity = (keys >> B).astype(np.int64)
        bits = ((keys[:, None] >> np.arange(B).astype(self._dtype)) & 1).astype(bool)
        at = np.argsort(~bits, axis=1, kind="stable")[:, : self.k]  # the set bits first, rising
        held = np.take_along_axis(bits, at, axis=1)
        return parity, np.where(held, at, -1).astype(np.int64)

    def _children(
        self, keys: npt.NDArray[Any]
    ) -> tuple[npt.NDArray[Any], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Every raise of the nodes of `keys`, node by node and rung by rung: the child's key, the
        rung, and the number of its node among `keys`."""
        B, openings = self.num_bids, self._openings
        parity, rungs = self._decode(keys)
        length = (rungs >= 0).sum(axis=1)
        last = np.max(rungs, axis=1, initial=-1)
        count = np.where(length == 0, len(openings), np.maximum(B - 1 - last, 0))
        source = np.repeat(np.arange(len(keys)), count)
        offset = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
        at_root = length[source] == 0
        rung = np.where(at_root, openings[np.minimum(offset, max(len(openings) - 1, 0))], last[source] + 1 + offset)
        one = np.ones(1, dtype=self._dtype)
        mask = keys[source] & ((one << B) - 1)
        # The rung joins those remembered; with k of them, the first (the lowest) is forgotten.
        mask = np.where(length[source] < self.k, mask, mask & (mask - 1)) | (one << rung.astype(self._dtype))
        child = ((1 - parity[source]).astype(self._dtype) << B) | mask
        return child, rung, source

    def _player(self, dice: int) -> Player:
        spec = self.spec
        hands = hands_of(dice, spec.faces)
        chance = np.array([hand_chance(h, spec.faces) for h in hands])
        counts = np.array([[spec.count(h, f) for h in hands] for f in range(1, spec.faces + 1)], dtype=np.int64)
        return Player(hands, chance, counts, {h: i for i, h in enumerate(hands)})

    @property
    def has_exact(self) -> bool:
        """Whether the player to act may call exact (spot-on, calza) on the standing bid."""
        return self.exact_hit is not None

    @property
    def infosets(self) -> int:
        """(node, hand) pairs of the player to act."""
        return sum(self.num_node_slots[p] * len(self.players[p].hands) for p in (0, 1))

    def node_of(self, bids: list[Bid] | tuple[Bid, ...]) -> int:
        """The abstract node after these bids (player 0 opened); ValueError if they are not a
        legal sequence of this game."""
        ladder = self.spec.ladder
        rungs = []
        for b in bids:
            if b not in ladder.index:
                raise ValueError(f"{b} is not a bid of this game (its ladder: {ladder.bids[0]} to {ladder.bids[-1]})")
            rungs.append(ladder.index[b])
        if rungs and rungs[0] not in self.spec.openings:
            raise ValueError(f"{bids[0]} cannot open")
        for lower, upper in itertools.pairwise(rungs):
            if upper <= lower:
                raise ValueError(f"{ladder.bids[upper]} does not raise {ladder.bids[lower]}")
        kept = rungs[-self.k :]
        key = (len(rungs) % 2) << self.num_bids | sum(1 << r for r in kept)
        at = int(np.searchsorted(self._keys, key))
        if at == len(self._keys) or self._keys[at] != key:
            raise KeyError(f"no node after {len(rungs)} bids ending {kept} in this graph")
        return int(self._index[at])

    def edge_offset(self, node: int, rung: int) -> int:
        """The position of the raise to `rung` among the edges of `node`."""
        if node == 0:
            return self.spec.openings.index(rung)
        return rung - int(self.last[node]) - 1


def exact_hit(spec: GameSpec) -> tuple[float, float] | None:
    """What an exact call that hits is worth to its caller, player 0 calling and player 1, in the
    round's dice (the same unit as the liar call's +1 and -1): the opponent's die (others_lose),
    or a die of its own (gain_die), which a full cup cannot take (0); a miss costs the caller its
    die, -1. None where exact may not be called."""
    options = spec.options
    if options.exact == "none":
        return None
    if options.exact_limit != "unlimited":
        # Who has called already is the game's, not the round's: the round cannot say it.
        raise ValueError(f"an exact limited to {options.exact_limit.replace('_', ' ')} is not part of a duel's round")
    if options.exact == "others_lose":
        return (1.0, 1.0)
    cap = exact_cap(options)
    if cap is None:
        raise ValueError("a die gained by exact up to a cap that differs by seat is not part of a duel's round")
    return (0.0 if spec.dice[0] >= cap else 1.0, 0.0 if spec.dice[1] >= cap else 1.0)


def exact_cap(options: Options) -> int | None:
    """The most dice a cup may hold where an exact gains a die, if every seat's is the same; None
    where exact gains none or the caps differ."""
    if options.exact != "gain_die":
        return None
    caps = {options.dice_cap(seat) for seat in range(options.num_players)}
    return caps.pop() if len(caps) == 1 else None


def least_work(options: Options, dice: tuple[int, int]) -> int:
    """A lower bound of hands x hands x edges of the graph of this duel at any memory, without
    building it: the first bid's nodes alone have every higher rung as an edge. It rules out
    training a big duel on first use without the seconds its graph takes to build."""
    spec = GameSpec.from_options(options, dice)
    edges = sum(len(spec.bids) - 1 - rung for rung in spec.openings)
    hands = math.comb(dice[0] + spec.faces - 1, dice[0]) * math.comb(dice[1] + spec.faces - 1, dice[1])
    return hands * edges


def game_for(options: Options, dice: tuple[int, int], k: int, stop: Callable[[], bool] | None = None) -> AbstractGame:
    return AbstractGame(GameSpec.from_options(options, dice), k, stop)
