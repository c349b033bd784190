"""A player's probabilities on the abstract game, from regrets or summed averages: what the
trainer plays and what a strategy keeps."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from .graph import AbstractGame

# Regrets at or under this count as none (regret matching ignores them).
REGRET_EPSILON = 1e-12

# A player's probabilities (or regrets, or summed averages), (hands, slots): float32 as saved and
# shipped, float64 as trained.
Probabilities = npt.NDArray[np.float32 | np.float64]


def normalise(
    game: AbstractGame,
    player: int,
    liar: Probabilities,
    bid: Probabilities,
    positive: bool,
    exact: Probabilities | None = None,
) -> tuple[Probabilities, Probabilities, Probabilities]:
    """Probabilities from regrets (`positive`: their positive parts) or from summed averages, per
    (hand, node) of `player`: uniform where they are all zero. (liar, bid, exact): exact, the
    exact call's column per node slot, has none where the game has no exact call."""
    g = game
    own = np.flatnonzero(g.parity == player)
    liar = np.where(liar > REGRET_EPSILON, liar, 0.0) if positive else liar
    bid = np.where(bid > REGRET_EPSILON, bid, 0.0) if positive else bid
    if exact is None or not g.has_exact:
        exact = np.zeros((liar.shape[0], 0))
    elif positive:
        exact = np.where(exact > REGRET_EPSILON, exact, 0.0)
    # Sum of each node's edges: edges of a node are contiguous in its slots.
    counts = g.edge_count[own]
    starts = g.edge_slot[own]
    total = np.zeros((liar.shape[0], len(own)))
    nz = counts > 0
    if bid.shape[1]:
        total[:, nz] = np.add.reduceat(bid, starts[nz], axis=1)
    has_liar = g.can_call[own]
    has_exact = g.can_exact[own] if exact.shape[1] else np.zeros(len(own), dtype=bool)
    slots = g.node_slot[own]
    total[:, has_liar] += liar[:, slots[has_liar]]
    total[:, has_exact] += exact[:, slots[has_exact]]
    actions = counts + has_liar + has_exact
    uniform = 1.0 / np.maximum(actions, 1)
    ok = total > 0
    safe = np.where(ok, total, 1.0)
    out_liar = np.zeros_like(liar)
    out_liar[:, slots] = np.where(ok, liar[:, slots] / safe, uniform[None, :])
    out_liar[:, slots[~has_liar]] = 0.0
    node_of_edge = np.repeat(np.arange(len(own)), counts)
    out_bid = np.where(ok[:, node_of_edge], bid / safe[:, node_of_edge], uniform[node_of_edge][None, :])
    out_exact = np.zeros_like(exact)
    if exact.shape[1]:
        out_exact[:, slots] = np.where(ok, exact[:, slots] / safe, uniform[None, :])
        out_exact[:, slots[~has_exact]] = 0.0
    return out_liar, out_bid, out_exact
