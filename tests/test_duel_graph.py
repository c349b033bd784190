"""The abstract game's graph (`duel/graph.py`), built a wave of nodes at a time with numpy, against
the plain walk over tuples of rungs it replaced: the same nodes in the same order, the same edges
and slots, for every kind of bidding and memories from 1 to 5."""

from __future__ import annotations

import numpy as np
import pytest

from liarsdice.duel.graph import AbstractGame
from liarsdice.rules import Bid, preset_options
from liarsdice.solver.tree import GameSpec

Node = tuple[int, tuple[int, ...]]


def walked(spec: GameSpec, k: int) -> dict[str, object]:
    """The graph as the walk over tuples made it: the reference."""
    bids = len(spec.bids)

    def raises(last: tuple[int, ...]) -> range | tuple[int, ...]:
        return spec.openings if not last else range(last[-1] + 1, bids)

    root: Node = (0, ())
    found = {root}
    frontier = [root]
    while frontier:
        nxt = []
        for parity, last in frontier:
            for rung in raises(last):
                child = (1 - parity, (*last, rung)[-k:])
                if child not in found:
                    found.add(child)
                    nxt.append(child)
        frontier = nxt
    nodes = sorted(found, key=lambda n: (n[1][-1] if n[1] else -1, n[0], n[1]))
    index = {n: i for i, n in enumerate(nodes)}
    child, rung, counts = [], [], []
    for parity, last in nodes:
        counts.append(len(raises(last)))
        for r in raises(last):
            child.append(index[(1 - parity, (*last, r)[-k:])])
            rung.append(r)
    slots: list[list[int]] = [[], []]
    node_slot, edge_slot, seen = [], [], [0, 0]
    for (parity, _), count in zip(nodes, counts, strict=True):
        node_slot.append(len(slots[parity]))
        slots[parity].append(0)
        edge_slot.append(seen[parity])
        seen[parity] += count
    return {
        "parity": [n[0] for n in nodes],
        "last": [n[1][-1] if n[1] else -1 for n in nodes],
        "edge_count": counts,
        "edge_child": child,
        "edge_rung": rung,
        "node_slot": node_slot,
        "edge_slot": edge_slot,
        "num_node_slots": [len(s) for s in slots],
        "num_edge_slots": seen,
    }


@pytest.mark.parametrize("preset", ["perudo", "classic", "jokers", "red-dead"])
@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_the_graph_is_the_walk_over_tuples(preset: str, k: int) -> None:
    dice = (2, 1) if k < 5 else (1, 1)
    spec = GameSpec.from_options(preset_options(preset, {"num_players": 2}), dice)
    game = AbstractGame(spec, k)
    want = walked(spec, k)
    for name, value in want.items():
        assert np.array_equal(np.asarray(getattr(game, name)), np.asarray(value)), f"{preset}, k={k}: {name}"
    # a node is found by its bids as it was by its tuple of rungs
    for bids in ([], [spec.bids[spec.openings[0]]], [spec.bids[spec.openings[0]], spec.bids[-1]]):
        rungs = [spec.ladder.index[b] for b in bids]
        node = game.node_of(bids)
        assert game.parity[node] == len(rungs) % 2
        assert game.last[node] == (rungs[-1] if rungs else -1)


@pytest.mark.parametrize(
    ("overrides", "dice", "k"),
    [
        ({"faces": 4}, (2, 2), 16),  # remembering every bid: the whole tree
        ({"faces": 8}, (5, 5), 1),  # 80 bids: keys past 62 bits
    ],
)
def test_the_graph_is_the_walk_over_tuples_at_the_edges(
    overrides: dict[str, int], dice: tuple[int, int], k: int
) -> None:
    spec = GameSpec.from_options(preset_options("classic", {"num_players": 2, **overrides}), dice)
    game = AbstractGame(spec, k)
    for name, value in walked(spec, k).items():
        assert np.array_equal(np.asarray(getattr(game, name)), np.asarray(value)), f"{overrides}, k={k}: {name}"
    top = [spec.bids[spec.openings[0]], spec.bids[-1]]
    assert game.last[game.node_of(top)] == len(spec.bids) - 1


def test_a_sequence_not_of_the_game_is_refused() -> None:
    spec = GameSpec.from_options(preset_options("perudo", {"num_players": 2}), (1, 1))
    game = AbstractGame(spec, 2)
    with pytest.raises(ValueError, match="does not raise"):
        game.node_of([spec.bids[5], spec.bids[3]])
    with pytest.raises(ValueError, match="not a bid of this game"):
        game.node_of([Bid(99, 2)])
