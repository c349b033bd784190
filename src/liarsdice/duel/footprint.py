"""The memory a training takes, known before its graph is built and exactly after.

A training holds, for each player p with H_p hands and S_p slots (its nodes and edges), regrets
and averages: U_p = 8 x H_p x S_p bytes each. An iteration makes the opponent's current strategy
from its regrets (about four arrays of its size while `normalise` works, two kept through the
half-iteration), and the end makes both average strategies and saves them. Measured at 5 vs 5
(k=2: 68,559 edges, 252 hands, U_p = 73 MB) the peak was 757 MB above the interpreter; the estimate
below, 3 (U_0 + U_1) + 5 max(U_p) plus the graph and the per-node buffers, gives 815 MB.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import TYPE_CHECKING

from ..rules import Options
from ..solver.memory import Fit, check, hand_count
from ..solver.tree import GameSpec

if TYPE_CHECKING:
    from .graph import AbstractGame

# Python's tuples, set and dict entries for one node of the graph while it is built and kept.
GRAPH_BYTES_PER_NODE = 400
GRAPH_BYTES_PER_EDGE = 16  # its child and its rung, int64 each


@dataclass(frozen=True)
class Footprint:
    """A training's size: nodes and edges of its graph, hands of each player, bytes at the peak."""

    nodes: int
    edges: int
    hands: tuple[int, int]
    bytes: int
    exact: bool  # counted on the built graph (else bounds from the number of bids)

    def fit(self, available: int | None = None) -> Fit:
        return check(self.bytes, available)

    def describe(self) -> str:
        about = "" if self.exact else "at most "
        return f"{about}{self.nodes:,} nodes and {self.edges:,} edges"


def peak_bytes(hands: tuple[int, int], slots: tuple[int, int], nodes: int, edges: int) -> int:
    """The most a training of these sizes holds at once (see the module's note)."""
    units = [8 * hands[p] * slots[p] for p in (0, 1)]
    buffers = 2 * 8 * nodes * max(hands)  # the opponent's reach and the values, per node and hand
    graph = GRAPH_BYTES_PER_NODE * nodes + GRAPH_BYTES_PER_EDGE * edges
    return 3 * sum(units) + 5 * max(units) + buffers + graph


def graph_bounds(num_bids: int, openings: int, k: int) -> tuple[int, int]:
    """Upper bounds on the nodes and edges of the graph remembering k bids, without building it.

    A node is (player to act, the last k rungs, or every rung while fewer than k were bid); with
    k rungs remembered either player may be to act. A node whose highest rung is r has
    B - 1 - r raises, and the subsets of size j together with one rung above their highest number
    C(B, j + 1): so the edges of all nodes remembering j rungs sum to at most that."""
    B = num_bids
    k = min(k, B)
    nodes = 1 + sum(comb(B, j) for j in range(1, k)) + 2 * comb(B, k)
    edges = openings + sum(comb(B, j + 1) for j in range(1, k)) + 2 * comb(B, k + 1)
    return nodes, edges


def estimate(options: Options, dice: tuple[int, int], k: int) -> Footprint:
    """The footprint of training this duel with memory k, before building anything."""
    spec = GameSpec.from_options(options, dice)
    nodes, edges = graph_bounds(len(spec.bids), len(spec.openings), k)
    hands = (hand_count(dice[0], spec.faces), hand_count(dice[1], spec.faces))
    # Each player owns about half the nodes and edges; both halves at the larger bound.
    half = (nodes + edges + 1) // 2
    return Footprint(nodes, edges, hands, peak_bytes(hands, (half, half), nodes, edges), exact=False)


def measure(game: AbstractGame) -> Footprint:
    """The footprint of training on this built graph."""
    hands = (len(game.players[0].hands), len(game.players[1].hands))
    slots = (
        game.num_node_slots[0] + game.num_edge_slots[0],
        game.num_node_slots[1] + game.num_edge_slots[1],
    )
    return Footprint(
        game.num_nodes, game.num_edges, hands, peak_bytes(hands, slots, game.num_nodes, game.num_edges), exact=True
    )


def largest_k_that_fits(options: Options, dice: tuple[int, int], below: int, available: int | None) -> int | None:
    """The most bids remembered, under `below`, whose training fits; None if not even one does."""
    for k in range(below - 1, 0, -1):
        if estimate(options, dice, k).fit(available).ok:
            return k
    return None


class TooBig(Exception):
    """A training that would not fit in the memory available (the message says both)."""


def refuse_if_too_big(options: Options, dice: tuple[int, int], k: int, available: int | None = None) -> Footprint:
    """The estimate of this training; TooBig, with the estimate, the limit and a memory k that
    fits, if it does not fit."""
    footprint = estimate(options, dice, k)
    fit = footprint.fit(available)
    if not fit.ok:
        raise TooBig(too_big_message(footprint, fit, options, dice, k))
    return footprint


def too_big_message(footprint: Footprint, fit: Fit, options: Options, dice: tuple[int, int], k: int) -> str:
    smaller = largest_k_that_fits(options, dice, k, fit.available)
    hint = (
        f"; remembering fewer bids fits: --k {smaller}"
        if smaller is not None
        else "; no memory of bids fits: fewer dice or faces"
    )
    what = f"training {dice[0]} vs {dice[1]} dice remembering {k} bids ({footprint.describe()})"
    return fit.refusal(what) + hint


__all__ = ["Footprint", "TooBig", "estimate", "graph_bounds", "measure", "peak_bytes", "refuse_if_too_big"]
