"""A trained duel strategy in few bytes: what a shipped strategy is stored as.

The `.npz` of `DuelStrategy.save` keeps every probability as float32 (a 2 vs 2 strategy at k=4 is
2.6 MB). Here, per player:

- each (hand, node) distribution over the liar call and the raises loses its moves under a
  `threshold` (not its most likely one) and is quantised to whole units of 1 / (2^bits - 1) that
  sum to exactly one (largest remainders: every probability within one unit of the thresholded
  one);
- a (hand, node) the player itself never reaches with that hand under the quantised strategy
  (its own reach is zero: some raise of its own on every path there has probability 0) is not
  stored: no play of this strategy can come to it, so any answer there is as good. The loader
  leaves it at zero, which `DuelStrategy.policy` answers with every move alike (and
  `DuelStrategy.play`, what bots play, with no answer);
- nodes with one move only (the top bid: the liar call) are not stored either;
- which (hand, node) are kept is a bitmap (node by node), the units are stored hand by hand,
  and bitmaps and units go through one lzma stream.

The file is MAGIC, the length of a JSON header (4 bytes, little-endian), the header (rules, dice,
k, bits, threshold, how it was trained, the byte lengths of the parts) and the lzma stream.
Measured on the full tree of small games, 8 bits with a threshold of 0.005 change the exact
exploitability by 2 to 4% of itself, as much as 8 bits alone, in a file 15 to 25% smaller (docs/strength.md,
"Packing: bytes against exploitability", has the figures and the sizes).
"""

from __future__ import annotations

import json
import lzma
import os
import struct
import threading
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..rules import Options
from .graph import AbstractGame, Pushed
from .probabilities import Probabilities
from .strategy import DuelStrategy

MAGIC = b"LDDUEL\n"
FORMAT = "liarsdice-duel-packed"
VERSION = 1
BITS = tuple(range(4, 17))
DEFAULT_BITS = 8
DEFAULT_THRESHOLD = 0.005


# A quantised probability: whole units of 1 / (2^bits - 1), in uint8 or uint16 (`unit_type`).
Units = npt.NDArray[np.uint8 | np.uint16]


def unit_type(bits: int) -> np.dtype[np.uint8 | np.uint16]:
    """One byte a probability up to 8 bits, two (little-endian) above."""
    return np.dtype(np.uint8) if bits <= 8 else np.dtype("<u2")


LZMA_PRESET = 9 | lzma.PRESET_EXTREME


class Layout:
    """Player p's moves as one row per hand: for each of its nodes in order, the liar call (not at
    the root), the exact call (where the rules have one), then its raises, each node a contiguous
    segment."""

    def __init__(self, game: AbstractGame, player: int) -> None:
        own = np.flatnonzero(game.parity == player)
        has_liar = game.can_call[own]
        has_exact = game.can_exact[own]  # only where the liar call is too
        self.own = own
        self.width = game.edge_count[own] + has_liar + has_exact
        self.start = np.cumsum(self.width) - self.width
        self.columns = int(self.width.sum())
        self.segment = np.repeat(np.arange(len(own)), self.width)
        self.liar_columns = self.start[has_liar]
        self.exact_columns = self.start[has_exact] + 1
        self.liar_slots = game.node_slot[own[has_liar]]
        self.exact_slots = game.node_slot[own[has_exact]]
        self.has_exact = game.has_exact
        self.has_liar = has_liar
        # The raises of a player's nodes fill its edge slots in node order, so column by column.
        is_call = np.zeros(self.columns, dtype=bool)
        is_call[self.liar_columns] = True
        is_call[self.exact_columns] = True
        self.edge_columns = np.flatnonzero(~is_call)
        self.forced = (self.width == 1) & has_liar  # the liar call alone
        self.hands = len(game.players[player].hands)

    def rows(
        self, liar: Probabilities, bid: Probabilities, exact: Probabilities | None = None
    ) -> npt.NDArray[np.float64]:
        out = np.zeros((self.hands, self.columns))
        out[:, self.liar_columns] = liar[:, self.liar_slots]
        if len(self.exact_columns):
            assert exact is not None and exact.shape[1], "a game with exact calls needs their probabilities"
            out[:, self.exact_columns] = exact[:, self.exact_slots]
        out[:, self.edge_columns] = bid
        return out

    def split(
        self, rows: npt.NDArray[np.float32], num_node_slots: int
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """(liar, bid, exact) of `rows`; exact has no columns where the rules have no exact call."""
        liar = np.zeros((len(rows), num_node_slots), dtype=np.float32)
        liar[:, self.liar_slots] = rows[:, self.liar_columns]
        exact = np.zeros((len(rows), num_node_slots if self.has_exact else 0), dtype=np.float32)
        exact[:, self.exact_slots] = rows[:, self.exact_columns]
        # `take` gathers the many columns of a big strategy several times faster than indexing
        return liar, np.take(rows, self.edge_columns, axis=1).astype(np.float32, copy=False), exact


def thresholded(layout: Layout, rows: npt.NDArray[np.float64], threshold: float = 0.0) -> npt.NDArray[np.float64]:
    """Each (hand, node) of `rows` normalised (every move alike where it is all zero), its moves
    under `threshold` dropped (never its most likely ones) and normalised again."""
    seg, start = layout.segment, layout.start
    total = np.add.reduceat(rows, start, axis=1) if layout.columns else np.zeros((rows.shape[0], 0))
    ok = total > 0
    probs = np.where(ok[:, seg], rows / np.where(ok, total, 1.0)[:, seg], (1.0 / layout.width)[seg][None, :])
    if threshold > 0 and layout.columns:
        best = np.maximum.reduceat(probs, start, axis=1)[:, seg]
        probs = np.where((probs >= threshold) | (probs >= best), probs, 0.0)
        probs /= np.add.reduceat(probs, start, axis=1)[:, seg]
    out: npt.NDArray[np.float64] = probs
    return out


def quantise(layout: Layout, rows: npt.NDArray[np.float64], bits: int, threshold: float = 0.0) -> Units:
    """Units of 1 / (2^bits - 1) per move, summing to 2^bits - 1 in every (hand, node): each within
    one unit of `thresholded` (`rows`, normalised and thresholded)."""
    q = (1 << bits) - 1
    scaled = thresholded(layout, rows, threshold) * q
    seg, start = layout.segment, layout.start
    units = np.floor(scaled)
    short = q - np.add.reduceat(units, start, axis=1)  # units still to hand out per segment
    # Largest remainders first: sort each row by segment, then by remainder descending.
    order = np.argsort(seg[None, :] * 2.0 - (scaled - units), axis=1, kind="stable")
    position = np.empty_like(order)
    np.put_along_axis(position, order, np.arange(layout.columns)[None, :], axis=1)
    units += (position - start[seg][None, :]) < short[:, seg]
    out: Units = units.astype(unit_type(bits))
    return out


def own_reach(game: AbstractGame, player: int, layout: Layout, units: Units, bits: int) -> npt.NDArray[np.bool_]:
    """(hands, own nodes): whether the player reaches each of its nodes with each hand when it
    plays `units` (the opponent's moves all allowed)."""
    from .traversal import opp_reach

    bid = units[:, layout.edge_columns].astype(np.float64) / ((1 << bits) - 1)
    reach = np.zeros((game.num_nodes, layout.hands))
    opp_reach(
        player,
        game.roots,
        game.parity,
        game.edge_start,
        game.edge_count,
        game.edge_child,
        game.edge_slot,
        np.ascontiguousarray(bid.T),
        reach,
    )
    return np.ascontiguousarray((reach[layout.own] > 0).T)


def pack(strategy: DuelStrategy, bits: int = DEFAULT_BITS, threshold: float = DEFAULT_THRESHOLD) -> bytes:
    """The strategy in the packed format (module docstring): its probabilities under `threshold`
    dropped, the others to `bits` bits."""
    if bits not in BITS:
        raise ValueError(f"a packed strategy keeps 4 to 16 bits a probability, not {bits}")
    check_threshold(threshold)
    header = {
        "format": FORMAT,
        "version": VERSION,
        "options": strategy.options.to_dict(),
        "dice": list(strategy.dice),
        "k": strategy.k,
        **({"exact_left": list(strategy.exact_left)} if strategy.exact_left is not None else {}),
        **({"pushed": strategy.pushed.to_dict()} if strategy.pushed is not None else {}),
        "bits": bits,
        "threshold": threshold,
        "meta": strategy.meta,
    }
    return _encode(strategy.game, _quantised(strategy, bits, threshold), bits, header)


def recut(data: bytes, threshold: float, where: str = "the data") -> bytes:
    """The packed strategy `data` with its moves under `threshold` dropped in turn and the rest
    quantised again to its bits (a threshold above the one it was packed with; the header keeps
    that one as `cut_first`). What `train --all` ships where the plan says `recut`: the shipped
    file and a file packed before and recut now are then the same bytes."""
    check_threshold(threshold)
    header, _ = read_header(data, where)
    strategy = unpack(data, where)
    bits = int(header["bits"])
    header = {k: v for k, v in header.items() if k != "players"}
    header["cut_first"] = header.get("cut_first", header["threshold"])
    header["threshold"] = threshold
    # a (hand, node) not stored is zero after unpacking: it stays unreached
    return _encode(strategy.game, _quantised(strategy, bits, threshold), bits, header)


def _quantised(strategy: DuelStrategy, bits: int, threshold: float) -> list[Units]:
    """Each player's units (`quantise`) of `strategy`'s probabilities."""
    units = []
    for p in (0, 1):
        layout = Layout(strategy.game, p)
        units.append(
            quantise(layout, layout.rows(strategy.liar[p], strategy.bid[p], strategy.exact[p]), bits, threshold)
        )
    return units


def check_threshold(threshold: float) -> None:
    if not 0 <= threshold < 0.5:
        raise ValueError(f"the threshold is a probability from 0 to under 0.5, not {threshold}")


def _encode(game: AbstractGame, units: list[Units], bits: int, header: dict[str, Any]) -> bytes:
    """MAGIC, the header (with each player's part's lengths) and the lzma stream of each player's
    map of (hand, node) it reaches and the units it stores there."""
    parts: list[bytes] = []
    players = []
    for p in (0, 1):
        layout = Layout(game, p)
        reached = own_reach(game, p, layout, units[p], bits)
        kept = reached[:, layout.segment] & ~layout.forced[layout.segment][None, :]
        mask = np.packbits(reached.T).tobytes()  # node by node: a third smaller than hand by hand
        values = units[p][kept].tobytes()
        parts += [mask, values]
        players.append({"mask": len(mask), "values": len(values)})
    head = json.dumps({**header, "players": players}, sort_keys=True).encode()
    return MAGIC + struct.pack("<I", len(head)) + head + lzma.compress(b"".join(parts), preset=LZMA_PRESET)


def read_header(data: bytes, where: str = "the data") -> tuple[dict[str, Any], int]:
    """The JSON header of a packed strategy and where its lzma stream starts; ValueError if it is
    not one."""
    if not data.startswith(MAGIC) or len(data) < len(MAGIC) + 4:
        raise ValueError(f"{where} is not a packed liarsdice duel strategy (it does not start with {MAGIC!r})")
    (length,) = struct.unpack_from("<I", data, len(MAGIC))
    begin = len(MAGIC) + 4
    try:
        header = json.loads(data[begin : begin + length])
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ValueError(f"{where} has a damaged header: {e}") from e
    if not isinstance(header, dict) or header.get("format") != FORMAT or header.get("version") != VERSION:
        raise ValueError(f"{where} is not a packed liarsdice duel strategy of version {VERSION}")
    return header, begin + length


def unpack(data: bytes, where: str = "the data", graph: AbstractGame | None = None, lazy: bool = False) -> DuelStrategy:
    """The strategy packed in `data` (dequantised; zero at the nodes it does not store); ValueError
    naming `where` if the data is not a whole packed strategy. `lazy`: a `PackedStrategy`, whose
    tables are decoded a hand at a time as play asks."""
    header, begin = read_header(data, where)
    try:
        options = Options.from_dict(header["options"])
        dice = (int(header["dice"][0]), int(header["dice"][1]))
        k = int(header["k"])
        bits = int(header["bits"])
        sizes = [(int(p["mask"]), int(p["values"])) for p in header["players"]]
        meta = dict(header.get("meta") or {})
        left = header.get("exact_left")
        exact_left = None if left is None else (bool(left[0]), bool(left[1]))
        pushed = Pushed.from_dict(header["pushed"]) if "pushed" in header else None
    except (KeyError, TypeError, ValueError, IndexError) as e:
        raise ValueError(f"{where} has an incomplete header: {e}") from e
    if bits not in BITS or len(sizes) != 2:
        raise ValueError(f"{where} has an impossible header: {bits} bits, {len(sizes)} players")
    try:
        payload = lzma.decompress(data[begin:])
    except lzma.LZMAError as e:
        raise ValueError(f"{where} is damaged: its compressed part does not read ({e})") from e
    if len(payload) != sum(m + v for m, v in sizes):
        raise ValueError(f"{where} is damaged: {len(payload)} bytes where its header says {sum(map(sum, sizes))}")
    game = graph if graph is not None and graph.k == k and graph.spec.dice == dice else None
    if game is not None and ((exact_left is not None and game.exact_left != exact_left) or game.pushed != pushed):
        game = None
    if game is None:
        from ..solver.tree import GameSpec

        try:
            game = AbstractGame(GameSpec.from_options(options, dice), k, exact_left=exact_left, pushed=pushed)
        except ValueError as e:
            raise ValueError(f"{where} has rules no duel is trained for: {e}") from e
    players: list[_Stored] = []
    at = 0
    for p, (mask_bytes, value_bytes) in enumerate(sizes):
        players.append(_Stored(game, p, payload, at, mask_bytes, value_bytes, bits, where))
        at += mask_bytes + value_bytes
    meta["bits"] = bits
    meta["threshold"] = float(header.get("threshold", 0.0))
    if lazy:
        return PackedStrategy(options, dice, k, meta, game, players, exact_left, pushed)
    tables = [player.tables() for player in players]
    return DuelStrategy(
        options,
        dice,
        k,
        [t[0] for t in tables],
        [t[1] for t in tables],
        meta,
        game,
        exact=[t[2] for t in tables],
        exact_left=exact_left,
        pushed=pushed,
    )


Tables = tuple[Probabilities, Probabilities, Probabilities]


class _Stored:
    """One player's part of a packed strategy as stored: which of its (hand, node) are kept, and
    their units, hand by hand; decoded whole (`tables`) or one hand's row (`row`)."""

    def __init__(
        self,
        game: AbstractGame,
        p: int,
        payload: bytes,
        at: int,
        mask_bytes: int,
        value_bytes: int,
        bits: int,
        where: str,
    ) -> None:
        self.layout = layout = Layout(game, p)
        self.q = (1 << bits) - 1
        self.slots = int(game.num_node_slots[p])
        cells = layout.hands * len(layout.own)
        if mask_bytes != (cells + 7) // 8:
            d = game.spec.dice
            raise ValueError(f"{where} does not fit {d[0]} vs {d[1]} dice at k={game.k}: player {p}'s map")
        bitmap = np.frombuffer(payload, dtype=np.uint8, count=mask_bytes, offset=at)
        # [nodes, hands]: whether the hand reaches the node (stored node by node)
        self.reached = np.unpackbits(bitmap, count=cells).astype(bool).reshape(len(layout.own), layout.hands)
        # the units each hand stores: its reached nodes' moves, but where the call is the only one
        per_node = np.where(layout.forced, 0, layout.width)
        per_hand = per_node @ self.reached.astype(np.int64)
        kind = unit_type(bits)
        if int(per_hand.sum()) * kind.itemsize != value_bytes:
            raise ValueError(f"{where} is damaged: player {p} has {value_bytes} bytes of probabilities, not the map's")
        self.start = np.concatenate([[0], np.cumsum(per_hand)])
        self.units = np.frombuffer(payload, dtype=kind, count=value_bytes // kind.itemsize, offset=at + mask_bytes)
        # the top bid's liar call, where it is the only move: stored nowhere, certain where reached
        self.forced_calls = layout.liar_columns[layout.forced[layout.has_liar]]
        self.stored_columns = ~layout.forced[layout.segment]  # the columns a reached node stores

    def tables(self) -> Tables:
        """(liar, bid, exact) of every hand."""
        layout = self.layout
        reached = self.reached.T
        kept = reached[:, layout.segment] & self.stored_columns[None, :]
        # float32, the strategy's own type: a 5 vs 5 strategy has some 17 million cells
        units = np.zeros((layout.hands, layout.columns), dtype=np.float32)
        units[kept] = self.units
        units[:, self.forced_calls] = self.q * reached[:, layout.forced]
        return self._split(units)

    def row(self, hand: int) -> Tables:
        """(liar, bid, exact) of hand number `hand`: its row of each of `tables`, the same numbers."""
        layout = self.layout
        reached = self.reached[:, hand]
        kept = reached[layout.segment] & self.stored_columns
        units = np.zeros((1, layout.columns), dtype=np.float32)
        units[0, kept] = self.units[self.start[hand] : self.start[hand + 1]]
        units[0, self.forced_calls] = self.q * reached[layout.forced]
        liar, bid, exact = self._split(units)
        return liar[0], bid[0], exact[0]

    def node(self, j: int) -> npt.NDArray[np.float32]:
        """The chances of this player's own node number `j` (of `layout.own`) for every hand, its
        columns as `tables` lays them out; zero where a hand does not reach it. A hand's units of
        node j start where its units of the nodes before it end: one product for all hands."""
        layout = self.layout
        width = int(layout.width[j])
        out = np.zeros((layout.hands, width), dtype=np.float32)
        hit = self.reached[j]
        if layout.forced[j]:
            out[hit, 0] = self.q
        else:
            per_node = np.where(layout.forced[:j], 0, layout.width[:j]).astype(np.int64)
            begin = self.start[:-1] + per_node @ self.reached[:j].astype(np.int64)
            out[hit] = self.units[begin[hit][:, None] + np.arange(width)[None, :]]
        np.divide(out, np.float32(self.q), out=out)
        return out

    def _split(self, units: npt.NDArray[np.float32]) -> Tables:
        parts = self.layout.split(units, self.slots)
        for part in parts:
            # (a float32 division of whole units is rounded as the float64 one was)
            np.divide(part, np.float32(self.q), out=part)
        return parts


class PackedStrategy(DuelStrategy):
    """A packed strategy decoded a hand at a time, as play asks (`policy`): the first move of a
    5 vs 5 duel needs one row, not the half second its 17 million cells take. The whole tables
    (`liar`, `bid`, `exact`) are decoded the first time anything reads them."""

    def __init__(
        self,
        options: Options,
        dice: tuple[int, int],
        k: int,
        meta: dict[str, Any],
        game: AbstractGame,
        players: list[_Stored],
        exact_left: tuple[bool, bool] | None = None,
        pushed: Pushed | None = None,
    ) -> None:
        # not the dataclass's __init__: the tables are not made here
        self.options, self.dice, self.k, self.meta = options, dice, k, meta
        self.exact_left = exact_left
        self.pushed = pushed
        self.graph = self.game = game
        self._stored = players
        self._rows_kept: dict[tuple[int, int], Tables] = {}
        self._decoding = threading.Lock()

    def __getattr__(self, name: str) -> Any:
        # Reached only for attributes never set: the tables, decoded whole once (the server's
        # bots act in threads).
        if name not in ("liar", "bid", "exact"):
            raise AttributeError(name)
        with self._decoding:
            if "liar" not in self.__dict__:
                tables = [player.tables() for player in self._stored]
                self.exact = [t[2] for t in tables]
                self.bid = [t[1] for t in tables]
                self.liar = [t[0] for t in tables]
        return self.__dict__[name]

    def __repr__(self) -> str:
        return f"PackedStrategy({self.dice[0]} vs {self.dice[1]} dice, k={self.k})"

    def rows(self, player: int, hand: int) -> Tables:
        if "liar" in self.__dict__:
            return super().rows(player, hand)
        got = self._rows_kept.get((player, hand))
        if got is None:
            got = self._rows_kept[(player, hand)] = self._stored[player].row(hand)
        return got

    def _node_units(self, player: int, node: int) -> npt.NDArray[np.float32]:
        if "liar" in self.__dict__:
            return super()._node_units(player, node)
        stored = self._stored[player]
        return stored.node(int(np.searchsorted(stored.layout.own, node)))


def save_packed(
    strategy: DuelStrategy, path: str | Path, bits: int = DEFAULT_BITS, threshold: float = DEFAULT_THRESHOLD
) -> Path:
    """Write the packed strategy at `path`, whole or not at all."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    partial = p.with_name(f".{p.name}.{os.getpid()}.partial")
    try:
        partial.write_bytes(pack(strategy, bits, threshold))
        os.replace(partial, p)
    finally:
        partial.unlink(missing_ok=True)
    return p


def load_packed(path: str | Path) -> DuelStrategy:
    """The packed strategy at `path`; ValueError if it is not a whole one (OSError if unreadable)."""
    return unpack(Path(path).read_bytes(), str(path))
