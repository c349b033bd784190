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
is right, -1 to the other) and, where the rules have it, exact (spot-on, calza): a hit pays its
caller what `exact_hit` says, a miss costs it 1. Both end the round; the payoffs are the round's
dice, as the liar call's. Where exact may be called once a game (Soar), who still may is the
game's, not the round's: the graph is built for one answer (`exact_left`).

After a push (`Pushed`), the round goes on as a game of its own: the pusher's hands are the dice it
showed and every draw of the rest of its cup, the other's as dealt, and it starts at any bid the
push may carry (every shown die counts for it), with the other to act. Its nodes have several
roots (`roots`), each reached with every hand: what came before the push is not remembered, the
chance of the other's hand given its earlier bids included.

With Soar's pass (all my dice show one face, ones not wild), a player with two dice (the rules
say two or more: see PASS_MOST_DICE) may pass once a round instead of raising. A push, which
rerolls a cup, is not part of this game (its hands are fixed), whether the rules have it or
not: a round where someone pushes leaves it. A pass leaves the standing bid standing; the next
player may challenge the pass (the passer loses a die if its hand is not all one face, else the
challenger does), raise the standing bid, pass in turn, or call exact on the standing bid if it
is not its own. A node then also remembers who has passed and how many passes followed the standing
bid (0 to 2); each pass is an edge of its own, after the node's raises, to a node with the same
last bid and one pass more, so that ordering the nodes by last rung, then passes made, is still
a topological order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..rules import Bid, Options
from ..solver.tree import GameSpec, hand_chance, hands_of

Hand = tuple[int, ...]

# The most dice a player may pass with in the abstract game. A pass holds where every die shows one
# face: 1 time in 6 with two dice, 1 in 36 with three, 1 in 216 with four; the next player
# challenges any other and wins. Passes with more dice would multiply the graph (a node per who
# has passed and passes since the bid: 5 vs 5 at k=2 has 7 times the edges) for a move that is
# nearly always a lost die. A round where a player passes with more leaves the trained game.
PASS_MOST_DICE = 2

# A pass in a sequence of moves (`node_of`) and in a policy; the rung of a pass edge
# (`edge_rung`); and the exact call's key in a policy (None is the liar call's, a Bid a raise's).
PASS = "pass"
EXACT = "exact"
PASS_RUNG = -1
Move = Bid | str


@dataclass(frozen=True)
class Pushed:
    """The round after `seat` pushed `dice`: they are shown, the rest of its cup is rerolled."""

    seat: int
    dice: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.seat not in (0, 1):
            raise ValueError(f"the pusher is player 0 or 1, not {self.seat}")
        if not self.dice:
            raise ValueError("a push shows at least one die")
        object.__setattr__(self, "dice", tuple(sorted(self.dice)))

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "dice": list(self.dice)}

    @classmethod
    def from_dict(cls, d: Any) -> Pushed:
        """A push as a file keeps it ({"seat": 0 or 1, "dice": [faces]}); ValueError otherwise."""
        if not isinstance(d, dict) or not isinstance(d.get("seat"), int) or not isinstance(d.get("dice"), list):
            raise ValueError(f'a push is {{"seat": 0 or 1, "dice": [faces]}}, not {d!r}')
        return cls(int(d["seat"]), tuple(int(x) for x in d["dice"]))


def push_goes_with(spec: GameSpec, shown: Hand, face: int) -> bool:
    """Whether a push of `shown` may carry a bid on `face`: every shown die counts for it (the
    dice that count for a bid are what a push shows)."""
    return spec.count(shown, face) == len(shown)


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

    def __init__(
        self,
        spec: GameSpec,
        k: int,
        stop: Callable[[], bool] | None = None,
        exact_left: tuple[bool, bool] | None = None,
        pushed: Pushed | None = None,
    ) -> None:
        """`stop()`, asked at every wave of new nodes, ends a long build early (Stopped).
        `exact_left`: which players may still call exact, where it may be called once a game
        (required there; `exact_left_of` reads it from the rules otherwise). `pushed`: the round
        after that push (module docstring)."""
        if k < 1:
            raise ValueError(f"the players must remember at least the standing bid (k >= 1), not k={k}")
        self.spec = spec
        self.k = k
        self.num_bids = len(spec.bids)
        self.pushed = pushed
        if pushed is not None:
            cup = spec.dice[pushed.seat]
            if len(pushed.dice) >= cup or not all(1 <= d <= spec.faces for d in pushed.dice):
                raise ValueError(
                    f"player {pushed.seat} holds {cup} dice: a push shows 1 to {cup - 1} of them, "
                    f"each a face from 1 to {spec.faces}, not {list(pushed.dice)}"
                )
        self.players = [
            self._player(spec.dice[p], pushed.dice if pushed is not None and pushed.seat == p else ()) for p in (0, 1)
        ]
        self.bid_q = np.array([b.quantity for b in spec.bids], dtype=np.int64)
        self.bid_face = np.array([b.face for b in spec.bids], dtype=np.int64)
        self.exact_left = exact_left_of(spec.options, exact_left)
        self.exact_hit = exact_hit(spec) if any(self.exact_left) else None
        self.passes = spec.options.pass_rule != "none"
        # Who may pass: two dice or more (`rules.html`: "A player with two or more dice can pass"),
        # up to PASS_MOST_DICE here.
        self.can_pass = np.array([self.passes and 2 <= spec.dice[p] <= PASS_MOST_DICE for p in (0, 1)])

        # A node is (passes, parity, the last k rungs) as one number, its key: a bit for each rung
        # remembered, parity above those B bits, and above it, with passes, the passes since the
        # standing bid (2 bits) and who has passed (a bit each). Bids only rise, so the set of rungs
        # is the sequence, and the first remembered is the lowest. Past 62 bits the keys are
        # Python's integers.
        B = self.num_bids
        self._dtype = np.dtype(np.int64) if B + (5 if self.passes else 1) <= 62 else np.dtype(object)
        self._openings = np.array(spec.openings, dtype=np.int64)

        # Every node reachable from the roots, found by walking the rungs upwards, a wave at a time.
        roots = self._root_keys()
        found = roots
        frontier = found
        while len(frontier):
            if stop is not None and stop():
                raise Stopped(f"stopped while building the graph, {len(found):,} nodes in")
            children, _, _ = self._children(frontier)
            children = np.unique(children)
            frontier = children[~np.isin(children, found, assume_unique=True)]
            found = np.union1d(found, frontier)
        parity, rungs, flags = self._decode(found)
        last = np.max(rungs, axis=1, initial=-1)
        passed = ((flags >> 1) & 1) + (flags & 1)
        # Nodes in order of their last rung (the root, with none, first), then the passes made,
        # then the rest of the key (without passes: parity and rungs).
        order = np.lexsort((*rungs.T[::-1], parity, flags, passed, last))
        self._keys = found  # sorted
        self._index = np.empty(len(found), dtype=np.int64)
        self._index[order] = np.arange(len(found))
        keys = found[order]
        N = len(keys)
        self.parity = parity[order]
        self.last = last[order]
        flags = flags[order]
        since = flags >> 2
        # What the player to act may call: the liar call on the last move (a bid or a pass), if
        # any; exact on the standing bid where it is the other player's (no pass, or two since)
        # and the player to act still may.
        self.can_call = (self.last >= 0) | (since > 0)
        self.pass_call = since > 0
        left = np.array(self.exact_left)
        self.can_exact = (self.exact_hit is not None) & (self.last >= 0) & (since != 1) & left[self.parity]
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
        self.roots = np.sort(self._index[np.searchsorted(found, roots)])

    def _root_keys(self) -> npt.NDArray[Any]:
        """The root: player 0 to act, no bid. After a push: each bid it may carry (every shown die
        counts for its face) standing, the other player to act."""
        if self.pushed is None:
            return np.zeros(1, dtype=self._dtype)
        shown = self.pushed.dice
        rungs = [r for r, b in enumerate(self.spec.bids) if push_goes_with(self.spec, shown, b.face)]
        one = np.ones(1, dtype=self._dtype)[0]
        keys = [self._key(0, 1 - self.pushed.seat, one << r) for r in rungs]
        return np.unique(np.array(keys, dtype=self._dtype))

    def _decode(
        self, keys: npt.NDArray[Any]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Each key's parity, [keys, k] the rungs it remembers, rising, then -1 where fewer, and
        its pass flags: passes since the standing bid x 4 + player 0 passed x 2 + player 1 passed."""
        B = self.num_bids
        parity = ((keys >> B) & 1).astype(np.int64)
        flags = (keys >> (B + 1)).astype(np.int64)
        bits = ((keys[:, None] >> np.arange(B).astype(self._dtype)) & 1).astype(bool)
        at = np.argsort(~bits, axis=1, kind="stable")[:, : self.k]  # the set bits first, rising
        held = np.take_along_axis(bits, at, axis=1)
        return parity, np.where(held, at, -1).astype(np.int64), flags

    def _key(self, flags: Any, parity: Any, mask: Any) -> Any:
        return (((flags * 2) + parity) << self.num_bids) | mask

    def _children(
        self, keys: npt.NDArray[Any]
    ) -> tuple[npt.NDArray[Any], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """Every raise and pass of the nodes of `keys`, node by node, rung by rung and the pass
        last: the child's key, the rung (PASS_RUNG for a pass), and the number of its node among
        `keys`."""
        B, openings = self.num_bids, self._openings
        parity, rungs, flags = self._decode(keys)
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
        # a raise keeps who has passed; no pass has followed it
        child = self._key((flags[source] & 3).astype(self._dtype), (1 - parity[source]).astype(self._dtype), mask)
        if not self.passes:
            return child, rung, source
        # A pass: by a player who may and has not yet; the same bids, one pass more.
        own_bit = np.where(parity == 0, 2, 1)
        passing = np.flatnonzero(self.can_pass[parity] & ((flags & own_bit) == 0))
        p_flags = ((flags[passing] >> 2) + 1) * 4 + ((flags[passing] & 3) | own_bit[passing])
        p_child = self._key(
            p_flags.astype(self._dtype), (1 - parity[passing]).astype(self._dtype), keys[passing] & ((one << B) - 1)
        )
        children = np.concatenate([child, p_child])
        rungs_to = np.concatenate([rung, np.full(len(passing), PASS_RUNG, dtype=np.int64)])
        sources = np.concatenate([source, passing])
        order = np.argsort(sources, kind="stable")  # a node's raises, then its pass
        return children[order], rungs_to[order], sources[order]

    def _player(self, dice: int, shown: Hand = ()) -> Player:
        """A player of `dice` dice, `shown` of them known to both (a push's) and the rest drawn."""
        spec = self.spec
        drawn = hands_of(dice - len(shown), spec.faces)
        hands = [tuple(sorted(shown + h)) for h in drawn]
        chance = np.array([hand_chance(h, spec.faces) for h in drawn])
        counts = np.array([[spec.count(h, f) for h in hands] for f in range(1, spec.faces + 1)], dtype=np.int64)
        return Player(hands, chance, counts, {h: i for i, h in enumerate(hands)})

    @property
    def has_exact(self) -> bool:
        """Whether exact (spot-on, calza) may be called in this game (`can_exact` says where)."""
        return self.exact_hit is not None

    def pass_holds(self, player: int) -> npt.NDArray[np.bool_]:
        """For each hand of `player`: whether a pass with it holds (two dice or more, all one face;
        ones are not wild for a pass)."""
        return np.array([len(h) >= 2 and len(set(h)) == 1 for h in self.players[player].hands], dtype=np.bool_)

    @property
    def infosets(self) -> int:
        """(node, hand) pairs of the player to act."""
        return sum(self.num_node_slots[p] * len(self.players[p].hands) for p in (0, 1))

    def node_of(self, moves: Sequence[Move]) -> int:
        """The abstract node after these moves, bids and PASS (player 0 opened; after a push, the
        moves from the bid that carried it); ValueError if they are not a legal sequence of this
        game."""
        ladder = self.spec.ladder
        rungs: list[int] = []
        passed = [False, False]
        since = 0
        start = 0 if self.pushed is None else self.pushed.seat
        if self.pushed is not None and not moves:
            raise ValueError("the moves after a push start with the bid that carried it")
        for turn, move in enumerate(moves):
            if move == PASS:
                if self.pushed is not None and turn == 0:
                    raise ValueError("the moves after a push start with the bid that carried it")
                player = (start + turn) % 2
                if not self.can_pass[player]:
                    raise ValueError(f"player {player} cannot pass in this game")
                if passed[player]:
                    raise ValueError(f"player {player} has passed already this round")
                passed[player] = True
                since += 1
                continue
            if not isinstance(move, Bid) or move not in ladder.index:
                raise ValueError(
                    f"{move} is not a bid of this game (its ladder: {ladder.bids[0]} to {ladder.bids[-1]})"
                )
            rung = ladder.index[move]
            if not rungs and self.pushed is not None:
                if not push_goes_with(self.spec, self.pushed.dice, move.face):
                    shown = list(self.pushed.dice)
                    raise ValueError(f"a push of {shown} does not go with {move}: not all of it counts for it")
            elif not rungs and rung not in self.spec.openings:
                raise ValueError(f"{move} cannot open")
            if rungs and rung <= rungs[-1]:
                raise ValueError(f"{move} does not raise {ladder.bids[rungs[-1]]}")
            rungs.append(rung)
            since = 0
        kept = rungs[-self.k :]
        flags = since * 4 + passed[0] * 2 + passed[1]
        key = self._key(flags, (start + len(moves)) % 2, sum(1 << r for r in kept))
        at = int(np.searchsorted(self._keys, key))
        if at == len(self._keys) or self._keys[at] != key:
            raise KeyError(f"no node after {len(rungs)} bids ending {kept} in this graph")
        return int(self._index[at])

    def edge_offset(self, node: int, rung: int) -> int:
        """The position of the raise to `rung` (or of the pass, PASS_RUNG) among the edges of `node`."""
        if rung == PASS_RUNG:
            last = int(self.edge_start[node] + self.edge_count[node] - 1)
            if self.edge_count[node] == 0 or self.edge_rung[last] != PASS_RUNG:
                raise ValueError("the player to act at this node cannot pass")
            return int(self.edge_count[node]) - 1
        if self.last[node] < 0:
            return self.spec.openings.index(rung)
        return rung - int(self.last[node]) - 1


# Where exact may be called any time and a hit gains a die (calza), the rounds of up to this many
# dice in all value a die gained by what it does for winning the game, as Soar's do; above it (5 vs
# 5, 5 vs 4, 4 vs 5 in cups of 5) that worth and a round won's agree. A bigger cap would ask for
# more: rounds above the bound where the two differ are valued as a round won (docs/solving.md,
# "The exact call").
GAME_WORTH_MOST_DICE = 8


def exact_worth(options: Options, dice: tuple[int, int]) -> str | None:
    """How a die gained by an exact hit is valued in a round of `dice`: "game", by what it does for
    winning the game (`die_gained`), or "round", as a round won; None where a hit gains no die."""
    if options.exact != "gain_die":
        return None
    cap = exact_cap(options)
    if (
        options.exact_limit == "unlimited"
        and sum(dice) > GAME_WORTH_MOST_DICE
        and cap is not None
        and _by_the_round(dice, cap) != _by_the_game(dice, cap)
    ):
        return "round"
    return "game"


def _by_the_round(dice: tuple[int, int], cap: int) -> tuple[float, float]:
    a, b = dice
    return (0.0 if a >= cap else 1.0, 0.0 if b >= cap else 1.0)


def _by_the_game(dice: tuple[int, int], cap: int) -> tuple[float, float]:
    a, b = dice
    return (die_gained(a, b, cap), die_gained(b, a, cap))


def exact_hit(spec: GameSpec) -> tuple[float, float] | None:
    """What an exact call that hits is worth to its caller, player 0 calling and player 1, in the
    unit of the liar call's +1 and -1 (a die lost by the other player, a die lost by oneself): the
    opponent's die (others_lose, the same outcome as a liar call won), or a die of its own
    (gain_die). A die gained is another outcome than a die lost by the other, worth what it does
    for winning the game (`die_gained`: nothing in a full cup, half a round won at 1 against 1,
    twice one at 1 against 4) where `exact_worth` says so, else a round won. A miss costs the
    caller its die, -1. None where exact may not be called."""
    options = spec.options
    if options.exact == "none":
        return None
    if options.exact == "others_lose":
        return (1.0, 1.0)
    cap = exact_cap(options)
    if cap is None:
        raise ValueError("a die gained by exact up to a cap that differs by seat is not part of a duel's round")
    if exact_worth(options, spec.dice) == "round":
        return _by_the_round(spec.dice, cap)
    return _by_the_game(spec.dice, cap)


def die_gained(mine: int, theirs: int, cap: int) -> float:
    """What a die gained is worth, holding `mine` dice against `theirs`, in dice lost by the other
    player: by the chance of winning the game were every later round a coin toss (the player to
    lose `theirs` rounds before `mine` wins). Gaining one then moves that chance by (theirs + mine
    - 1) / (2 mine) times what a die the other loses does: half as much at 1 against 1, twice as
    much at 1 against 4, as much where theirs = mine + 1; nothing in a full cup."""
    if mine >= cap:
        return 0.0
    return (theirs + mine - 1) / (2 * mine)


def exact_left_of(options: Options, exact_left: tuple[bool, bool] | None) -> tuple[bool, bool]:
    """Which players may call exact in a round of `options`: `exact_left` where exact may be called
    once a game (who has called is the game's, not the round's: the caller says), else both or
    neither, as the rules say. ValueError where the answer is missing or does not fit the rules."""
    if options.exact == "none":
        if exact_left is not None and any(exact_left):
            raise ValueError("these rules have no exact call: nobody may call it")
        return (False, False)
    if options.exact_limit == "unlimited":
        if exact_left is not None and not all(exact_left):
            raise ValueError("exact may be called any time under these rules: both players may")
        return (True, True)
    if exact_left is None:
        raise ValueError(
            f"an exact limited to {options.exact_limit.replace('_', ' ')} is the game's: "
            "say which players may still call it (exact_left)"
        )
    return (bool(exact_left[0]), bool(exact_left[1]))


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


def game_for(
    options: Options,
    dice: tuple[int, int],
    k: int,
    stop: Callable[[], bool] | None = None,
    exact_left: tuple[bool, bool] | None = None,
    pushed: Pushed | None = None,
) -> AbstractGame:
    return AbstractGame(GameSpec.from_options(options, dice), k, stop, exact_left, pushed)
