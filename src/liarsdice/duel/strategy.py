"""A trained strategy of the abstract game: how each player plays with each hand at each node.

`DuelStrategy.policy(hand, bids)` answers for any history of the full round (the node is its last
k bids), `save`/`load` keep it in one compressed `.npz` file, and `exact_exploitability` plays it
on the full public tree of a small game (`solver.tree.Tree`) and measures it with the exact
solver's best responses.
"""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..rules import Bid, Options
from ..solver.tree import GameSpec, PerLevel, Tree
from .graph import EXACT, PASS, PASS_RUNG, AbstractGame, Move, Pushed
from .npz import open_npz
from .probabilities import Probabilities, normalise

FORMAT = "liarsdice-duel-strategy"
VERSION = 1
# What a saved strategy's meta says of itself, besides how it was made.
HEADER = ("format", "version", "options", "dice", "k", "exact_left", "pushed")
# Probabilities below this are dropped when saving (and the rest renormalised): they cost most of
# the file, and a move played once in ten thousand rounds moves the value by less than that.
KEEP = 1e-4


@dataclass
class DuelStrategy:
    """Both players' average strategies on one abstract game, with how they were made."""

    options: Options
    dice: tuple[int, int]
    k: int
    liar: list[Probabilities]  # per player: P(liar | hand, node slot), shape (hands, node slots)
    bid: list[Probabilities]  # per player: P(raise | hand, edge slot), shape (hands, edge slots)
    meta: dict[str, Any] = field(default_factory=dict)
    # The graph, if the caller has it already (building a big one takes seconds).
    graph: AbstractGame | None = field(default=None, repr=False)
    # per player: P(exact | hand, node slot) where the rules have an exact call; none otherwise
    exact: list[Probabilities] = field(default_factory=list)
    # which players may call exact, where it may be called once a game (`graph.exact_left_of`)
    exact_left: tuple[bool, bool] | None = None
    # the round after this push, where the strategy is of that game (`graph.Pushed`)
    pushed: Pushed | None = None

    def __post_init__(self) -> None:
        g = self.graph
        other_left = g is not None and self.exact_left is not None and g.exact_left != self.exact_left
        if g is None or g.k != self.k or g.spec.dice != self.dice or other_left or g.pushed != self.pushed:
            spec = GameSpec.from_options(self.options, self.dice)
            g = AbstractGame(spec, self.k, exact_left=self.exact_left, pushed=self.pushed)
        self.graph = g
        self.game: AbstractGame = self.graph
        if not self.exact:
            width = self.game.num_node_slots if self.game.has_exact else [0, 0]
            self.exact = [np.zeros((len(self.game.players[p].hands), width[p]), dtype=np.float32) for p in (0, 1)]
        for p in (0, 1):
            want_e = (len(self.game.players[p].hands), self.game.num_node_slots[p] if self.game.has_exact else 0)
            if self.exact[p].shape != want_e:
                raise ValueError(f"player {p}'s exact calls have shape {self.exact[p].shape}, not {want_e}")
            want_l = (len(self.game.players[p].hands), self.game.num_node_slots[p])
            want_b = (len(self.game.players[p].hands), self.game.num_edge_slots[p])
            if self.liar[p].shape != want_l or self.bid[p].shape != want_b:
                raise ValueError(
                    f"player {p}'s strategy has shapes {self.liar[p].shape} and {self.bid[p].shape}; "
                    f"{self.dice[0]} vs {self.dice[1]} dice with k={self.k} needs {want_l} and {want_b}"
                )

    def policy(self, hand: Sequence[int], moves: Sequence[Move]) -> dict[Bid | str | None, float]:
        """How the player to act after `moves` (bids, and PASS where the rules have passes; player
        0 opened; after a push, from the bid that carried it), holding `hand`, plays: probability
        by raise, by None for the liar call (of the last move, a bid or a pass), by EXACT for the
        exact call and by PASS for a pass."""
        return self._policy_at(hand, self.game.node_of(list(moves)))

    def _policy_at(self, hand: Sequence[int], node: int) -> dict[Bid | str | None, float]:
        g = self.game
        player = int(g.parity[node])
        key = tuple(sorted(hand))
        h = g.players[player].index.get(key)
        if h is None:
            raise ValueError(f"{list(hand)} is not a hand of {self.dice[player]} dice for player {player}")
        liar, bid, exact = self.rows(player, h)
        out: dict[Bid | str | None, float] = {}
        if g.can_call[node]:
            out[None] = float(liar[g.node_slot[node]])
        if g.can_exact[node]:
            out[EXACT] = float(exact[g.node_slot[node]])
        first = int(g.edge_slot[node])
        probs = bid[first : first + int(g.edge_count[node])]
        rungs = g.edge_rung[g.edge_start[node] : g.edge_start[node] + g.edge_count[node]]
        for rung, p in zip(rungs, probs, strict=True):
            if p > 0:
                out[self._move(int(rung))] = float(p)
        total = sum(out.values())
        if total <= 0:  # never trained here: every move alike
            moves = [*self._calls(node), *(self._move(int(r)) for r in rungs)]
            return dict.fromkeys(moves, 1.0 / len(moves))
        return {a: p / total for a, p in out.items()}

    def _move(self, rung: int) -> Bid | str:
        return PASS if rung == PASS_RUNG else self.game.spec.bids[rung]

    def _calls(self, node: int) -> list[Bid | str | None]:
        g = self.game
        return [*([None] if g.can_call[node] else []), *([EXACT] if g.can_exact[node] else [])]

    def play(self, hand: Sequence[int], moves: Sequence[Move]) -> dict[Bid | str | None, float]:
        """`policy` where training came to this hand at this node; empty where it never did. There
        the stored moves are all alike (within the file's precision), absurd ones included: the
        average of a (hand, node) no sampled round reached is every move alike. In lopsided duels
        that is up to some 8% of the larger side's hands at a node, where the smaller side's
        equilibrium seldom goes and other players often do; a bot plays its own game there."""
        g = self.game
        node = g.node_of(list(moves))
        policy = self._policy_at(hand, node)
        count = int(g.edge_count[node]) + len(self._calls(node))
        chances = [p for p in policy.values() if p > 0]
        bits = self.meta.get("bits")
        unit = 1.0 / ((1 << int(bits)) - 1) if bits else 0.0
        if count >= 2 and len(chances) == count and max(chances) - min(chances) <= unit * 1.01 + 1e-6:
            return {}
        return policy

    def node_chances(self, moves: Sequence[Move]) -> NodeChances:
        """How every hand of the player to act after `moves` plays there: what `play` answers hand
        by hand, for all of them at once (a reader weighing each hand of a cup by a move needs the
        move's chance from every hand, and one row per hand costs a whole row's decoding)."""
        g = self.game
        node = g.node_of(list(moves))
        player = int(g.parity[node])
        units = self._node_units(player, node).astype(np.float64)
        count = units.shape[1]
        total = units.sum(axis=1)
        unseen = total <= 0
        units[unseen] = 1.0  # never trained here: every move alike, as `policy` answers
        total[unseen] = float(count)
        chances = units / total[:, None]
        bits = self.meta.get("bits")
        unit = 1.0 / ((1 << int(bits)) - 1) if bits else 0.0
        alike = (chances > 0).all(axis=1) & (chances.max(axis=1) - chances.min(axis=1) <= unit * 1.01 + 1e-6)
        trained = ~alike if count >= 2 else np.ones(len(chances), dtype=bool)
        rungs = g.edge_rung[g.edge_start[node] : g.edge_start[node] + g.edge_count[node]]
        named = [*self._calls(node), *(self._move(int(r)) for r in rungs)]
        return NodeChances(player, list(g.players[player].hands), named, chances, trained)

    def _node_units(self, player: int, node: int) -> npt.NDArray[np.float32]:
        """The stored chances of `player`'s moves at `node` for every hand, in `policy`'s order:
        the liar call, the exact call (each where there is one), the raises."""
        g = self.game
        slot, first, count = int(g.node_slot[node]), int(g.edge_slot[node]), int(g.edge_count[node])
        parts = []
        if g.can_call[node]:
            parts.append(self.liar[player][:, slot : slot + 1])
        if g.can_exact[node]:
            parts.append(self.exact[player][:, slot : slot + 1])
        parts.append(self.bid[player][:, first : first + count])
        return np.concatenate(parts, axis=1).astype(np.float32, copy=False)

    def rows(self, player: int, hand: int) -> tuple[Probabilities, Probabilities, Probabilities]:
        """`player`'s liar, raise and exact probabilities with hand number `hand`: its row of each."""
        return self.liar[player][hand], self.bid[player][hand], self.exact[player][hand]

    # ----- files -----

    def save(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": FORMAT,
            "version": VERSION,
            "options": self.options.to_dict(),
            "dice": list(self.dice),
            "k": self.k,
            **({"exact_left": list(self.exact_left)} if self.exact_left is not None else {}),
            **({"pushed": self.pushed.to_dict()} if self.pushed is not None else {}),
            **{k: v for k, v in self.meta.items() if k not in HEADER},
        }
        arrays: dict[str, Any] = {"meta": np.array(json.dumps(meta))}
        stored = self.stored()
        for player in (0, 1):
            arrays[f"liar{player}"] = stored.liar[player]
            arrays[f"bid{player}"] = stored.bid[player]
            if self.game.has_exact:
                arrays[f"exact{player}"] = stored.exact[player]
        partial = p.with_name(f".{p.name}.{os.getpid()}.partial")
        try:
            with open(partial, "wb") as f:
                np.savez_compressed(f, **arrays)
            os.replace(partial, p)  # a reader in another process never sees half a file
        finally:
            partial.unlink(missing_ok=True)
        return p

    def stored(self) -> DuelStrategy:
        """This strategy as `save` stores it and `load` reads it back (its smallest probabilities
        dropped, float32): what a process that loads the file plays, so that the process that
        trained it plays the same (a dropped bid may leave no hand that makes it, which a
        reader of the strategy then treats otherwise)."""
        liar: list[Probabilities] = []
        bid: list[Probabilities] = []
        exact: list[Probabilities] = []
        for player in (0, 1):
            pruned = _pruned(self.game, player, self.liar[player], self.bid[player], self.exact[player])
            liar.append(pruned[0])
            bid.append(pruned[1])
            if self.game.has_exact:
                exact.append(pruned[2])
        left = self.exact_left
        meta = dict(self.meta)
        return type(self)(self.options, self.dice, self.k, liar, bid, meta, self.game, exact, left, self.pushed)

    @classmethod
    def load(cls, path: str | Path) -> DuelStrategy:
        """The strategy saved at `path`; ValueError if the file is not a whole, readable one."""
        opened = open_npz(path, "liarsdice duel strategy")
        try:
            with opened as data:
                if "meta" not in data:
                    raise ValueError(f"{path} is not a liarsdice duel strategy: it has no meta")
                meta = json.loads(str(data["meta"]))
                if meta.get("format") != FORMAT or meta.get("version") != VERSION:
                    raise ValueError(f"{path} is not a liarsdice duel strategy (version {VERSION})")
                arrays = {}
                for name in ("liar0", "bid0", "liar1", "bid1"):
                    if name not in data:
                        raise ValueError(f"{path} is not a whole duel strategy: it lacks {name}")
                    arrays[name] = np.asarray(data[name], dtype=np.float32)
                exact: list[Probabilities] = [
                    np.asarray(data[f"exact{p}"], dtype=np.float32) for p in (0, 1) if f"exact{p}" in data
                ]
        except (zipfile.BadZipFile, zlib.error, EOFError, KeyError, OSError) as e:
            raise ValueError(f"{path} is not a readable liarsdice duel strategy: {e}") from e
        rest = {k: v for k, v in meta.items() if k not in HEADER}
        left = meta.get("exact_left")
        try:
            pushed = Pushed.from_dict(meta["pushed"]) if "pushed" in meta else None
            return cls(
                Options.from_dict(meta["options"]),
                (int(meta["dice"][0]), int(meta["dice"][1])),
                int(meta["k"]),
                [arrays["liar0"], arrays["liar1"]],
                [arrays["bid0"], arrays["bid1"]],
                rest,
                exact=exact,
                exact_left=None if left is None else (bool(left[0]), bool(left[1])),
                pushed=pushed,
            )
        except (ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{path} does not hold a duel strategy of its own rules: {e}") from e

    # ----- measures on the full tree -----

    def tree_strategy(self, tree: Tree) -> tuple[PerLevel, PerLevel]:
        """This strategy on the full public tree `tree` (a `solver.tree.Tree` of the same game):
        per level, P(liar | node, hand) of the player to act and P(bid | parent, hand), in the
        shapes of `solver.Solution`."""
        g = self.game
        levels = tree.levels
        liar: PerLevel = [None] * len(levels)
        bid: PerLevel = [None] * len(levels)
        abstract = np.zeros(1, dtype=np.int64)  # the abstract node of every node of the level
        for depth in range(1, len(levels)):
            level = levels[depth]
            up = abstract[level.parent]
            if depth == 1:  # the openings need not be contiguous rungs (a wild face may not open)
                offsets = np.array([g.edge_offset(0, int(r)) for r in level.last], dtype=np.int64)
            else:
                offsets = level.last - g.last[up] - 1
            edges = g.edge_start[up] + offsets
            mover = (depth - 1) % 2
            bid[depth] = self.bid[mover][:, g.edge_slot[up] + offsets].T.astype(np.float64)
            abstract = g.edge_child[edges]
            actor = depth % 2
            liar[depth] = self.liar[actor][:, g.node_slot[abstract]].T.astype(np.float64)
        return liar, bid

    def exact_exploitability(self) -> float:
        """(BR0 + BR1) / 2 of this strategy on the full tree, exactly (small games only: the tree
        has 2^bids nodes). With exact calls or passes, which the exact solver's tree lacks, by
        walking the tree (`walk.best_responses`)."""
        from ..solver.fast import FastSolver
        from ..solver.tree import Tree

        if self.game.has_exact or self.game.passes:
            from .walk import best_responses

            return sum(best_responses(self)) / 2
        tree = Tree(self.game.spec)
        liar, bid = self.tree_strategy(tree)
        solver = FastSolver(tree, "dcfr")
        for depth in range(1, len(tree.levels)):
            lo, hi = solver.offsets[depth], solver.offsets[depth + 1]
            la, ba = liar[depth], bid[depth]
            assert la is not None and ba is not None
            solver.a_liar[lo:hi, : la.shape[1]] = la
            solver.a_bid[lo:hi, : ba.shape[1]] = ba
        return solver.exploitability()


@dataclass(frozen=True)
class NodeChances:
    """One node of a strategy for every hand of the player to act (`DuelStrategy.node_chances`)."""

    player: int
    hands: list[tuple[int, ...]]  # sorted, in the strategy's order: the rows of `chances`
    moves: list[Bid | str | None]  # the columns: a raise, None for the liar call, EXACT, PASS
    chances: npt.NDArray[np.float64]  # (hands, moves); every move alike where never trained
    trained: npt.NDArray[np.bool_]  # per hand: whether training came there (`play` answers {} if not)


def _pruned(
    game: AbstractGame, player: int, liar: Probabilities, bid: Probabilities, exact: Probabilities
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """float32 probabilities with those under KEEP dropped and each (hand, node) renormalised."""
    liar = np.where(liar >= KEEP, liar, 0.0)
    bid = np.where(bid >= KEEP, bid, 0.0)
    exact = np.where(exact >= KEEP, exact, 0.0)
    out_l, out_b, out_e = normalise(game, player, liar, bid, positive=False, exact=exact)
    return out_l.astype(np.float32), out_b.astype(np.float32), out_e.astype(np.float32)
