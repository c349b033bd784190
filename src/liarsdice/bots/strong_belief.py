"""What the strong bot believes of one decision: the round as it sees it (`Round`), the weight of
every hand of every other cup from the actions so far (`beliefs`) and the counts they make. What
that belief makes of each bid, by the next player's likely answer, is `bots/strong_estimate.py`;
the bot itself, its choices and its learning, `bots/strong.py` (its docstring says the method).
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np

from ..rules import (
    Bid,
    BidAction,
    Challenge,
    Claim,
    Pass,
    PlayerView,
    Vote,
    ladder,
)
from .strong_counts import Floats as Floats  # re-exported: the strong bot and the reader take it from here
from .strong_counts import (  # noqa: F401 (HandSpace, Matches: part of this module's names)
    HandSpace,
    Ints,
    Matches,
    binomial_pmf,
    hand_space,
    match_vector,
    matches,
    raise_row,
    raise_table,
    sigmoid,
    tail_table,
)

# ----- the model of the other players -----

# How sharply a bidder prefers the face its hand makes likeliest (softmax over chances in 0..1),
# and how much it prefers, among equally likely faces, the face it holds more of (per die).
BID_SHARPNESS = 14.0
HELD_PREFERENCE = 0.04
# The share of bids made without regard to the hand (bluffs, mistakes, other reasoning), before
# we have seen a player's cup; the reveals then teach us each player's own share, this prior
# counting as this many bids.
BID_NOISE = 0.12
# How sharply a player challenges a bid that looks less likely than its own best raise.
CHALLENGE_SHARPNESS = 10.0
CHALLENGE_NOISE = 0.06
# A pass from a hand of several faces (a bluff), as a share of passes.
PASS_NOISE = 0.15
VOTE_SHARPNESS = 10.0
VOTE_NOISE = 0.08
# A Tavern claim with a raise comes from a hand that makes the claim about this likely.
RAISE_CONFIDENCE = 0.85
RAISE_NOISE = 0.2

# ----- our own decisions -----

# What an opponent's lost die is worth to us against one of ours: all of it heads-up, less at a
# bigger table, where another player's loss helps every other survivor as much as us.
OTHERS_DIE = {2: 1.0, 3: 0.6, 4: 0.45}
OTHERS_DIE_MANY = 0.35
# How much of the value of facing the next player's raise we count: with two players the round
# surely comes back to us; with more it may end elsewhere first.
COME_BACK_HEADS_UP = 1.0
COME_BACK_TABLE = 0.25
# Our raise at the end of the look-ahead is worth this share of "as if challenged".
RAISE_LEAF = 0.6
# The look-ahead scores (bids x hands x faces) at most this many cells, from the next player's
# likeliest hands: bounds the time of a decision with many faces.
LOOK_AHEAD_WORK = 400_000


# ----- what one decision knows of the round -----


class Round:
    """The facts of this round that every estimate needs, read once from the view."""

    def __init__(self, view: PlayerView, noise: dict[int, float] | None = None) -> None:
        o = view.options
        assert view.seat is not None
        self.view = view
        # per seat, the share of its bids that owe nothing to its hand (learnt from past reveals)
        self.noise = noise or {}
        self.me = view.seat
        self.faces = o.faces
        self.wild = view.wild
        self.q_max = max(view.dice_in_play, 1)
        self.ladder = ladder(
            o.faces, view.wild, "plain" if view.one_die_round else o.wild_bid_rule, o.bid_order, self.q_max
        )
        counted = view.counted_seats
        self.counted = counted
        self.total = sum(view.dice[s] for s in counted)
        self.cup_size = {s: view.dice[s] - len(view.pushed[s]) for s in counted}
        self.opponents = tuple(s for s in counted if s != self.me and self.cup_size[s] > 0)
        self.pushed_total = sum(len(view.pushed[s]) for s in counted)
        self.pushed_match = match_vector([d for s in counted for d in view.pushed[s]], self.faces, self.wild)
        # What we see that counts: our whole hand and everyone else's pushed dice.
        self._shown = match_vector([d for s in counted if s != self.me for d in view.pushed[s]], self.faces, self.wild)
        self.known = match_vector(view.hand, self.faces, self.wild) + self._shown
        players = sum(view.active)
        other_die = OTHERS_DIE.get(players, OTHERS_DIE_MANY)
        self.shedding = o.goal == "shedding"
        # Being right in a check is worth `win`, being wrong costs `lose`: in the elimination game
        # the wrong side loses dice, in the shedding game the right side sheds them.
        self.win, self.lose = (1.0, other_die) if self.shedding else (other_die, 1.0)
        self.come_back = COME_BACK_HEADS_UP if players == 2 else COME_BACK_TABLE
        self.next_bet = o.economy.min_bet_for(view.round_no + 1) if o.economy is not None else None
        self.ways = np.array([2 if self.wild is not None and f != self.wild - 1 else 1 for f in range(self.faces)])
        self.barred_opening = (
            self.wild if self.wild is not None and not o.wild_opening and not view.one_die_round else None
        )

    def with_hand(self, view: PlayerView) -> Round:
        """This round seen from `view`, the same public position with another hand of ours:
        everything but the view and what we know of the dice is shared."""
        other = copy.copy(self)
        other.view = view
        other.known = match_vector(view.hand, self.faces, self.wild) + self._shown
        return other

    def known_with(self, match: Ints) -> Ints:
        """[hands, faces]: `known` were our hand each of `match`'s rows (how many of its dice
        count for each face): the same public position with every hand of ours at once."""
        known: Ints = match + self._shown
        return known

    def locked_face(self, seat: int, standing: Bid | None) -> int | None:
        """The face `seat` must keep in the one-die round, or None if it may change it."""
        odr = self.view.options.one_die_round
        if not self.view.one_die_round or standing is None or odr is None:
            return None
        if odr.face_change == "nobody" or self.view.dice[seat] != 1:
            return standing.face
        return None

    def raises(self, seat: int, standing: Bid | None) -> Ints:
        return raise_row(
            self.ladder,
            standing,
            self.q_max,
            self.barred_opening if standing is None else None,
            self.locked_face(seat, standing),
        )

    def raises_above(self, seat: int, bids: Sequence[Bid | None]) -> Ints:
        """[len(bids), F]: `raises` above each of `bids`, from one table of the ladder where no
        face is locked (the one-die round) and every bid is on the ladder."""
        if bids and not self.view.one_die_round:  # (`locked_face`: none outside that round)
            index = self.ladder.index
            at = [-1 if b is None else index.get(b, -1) for b in bids]
            if min(at) >= 0:
                out: Ints = raise_table(self.ladder, self.q_max)[at]
                return out
        return np.stack([self.raises(seat, b) for b in bids]).reshape(len(bids), self.faces)

    def next_seat(self, seat: int) -> int | None:
        """Who acts after `seat`: the next active seat still in the round."""
        view = self.view
        n = len(view.active)
        for k in range(1, n):
            s = (seat + k) % n
            if view.active[s] and not view.folded[s]:
                return s
        return None


def lookup(table: Floats, faces: Ints, need: Ints) -> Floats:
    """table[face, need] with `need` clipped into the table (below 0: certain, above: impossible)."""
    width = table.shape[1]
    chances: Floats = np.take(table, faces * width + np.minimum(np.maximum(need, 0), width - 1))
    return chances


class Stacked:
    """A [faces, counts] table for each row (the first axis) of what is looked up: several
    tables padded with zeros to one width, row c reading table `variant[c]` as `lookup` reads
    one. The padding changes nothing: each table's last column is 0 already (more dice than
    there are is impossible), and `lookup` clips to the last column."""

    def __init__(self, tables: Sequence[Floats], variant: Ints) -> None:
        if len(tables) == 1:
            self.flat = tables[0]
        else:
            width = max(t.shape[1] for t in tables)
            out = np.zeros((len(tables), tables[0].shape[0], width))
            for i, t in enumerate(tables):
                out[i, :, : t.shape[1]] = t
            self.flat = out.reshape(-1, width)
        self.variant = variant if len(tables) > 1 else None
        self.faces = tables[0].shape[0]

    def tiled(self, copies: int) -> Stacked:
        """The same tables for `copies` copies of the rows, one after the other."""
        if self.variant is None:
            return self
        out = copy.copy(self)
        out.variant = np.tile(self.variant, copies)
        return out

    def lookup(self, faces: Ints, need: Ints) -> Floats:
        """table_c[face, need] for each row c."""
        if self.variant is None:
            return lookup(self.flat, faces, need)
        ndim = max(np.ndim(faces), np.ndim(need))
        variant = self.variant.reshape((-1,) + (1,) * (ndim - 1))
        return lookup(self.flat, variant * self.faces + faces, need)


# ----- the belief over the other cups -----


def seat_view_of_bid(
    r: Round, match: Ints, unknown: int, pushed_match: Ints, standing: Bid | None, seat: int
) -> tuple[Floats, Floats, Ints]:
    """How `seat` would see its options, for each hand it may hold: the chance of its best bid on
    each face ([hands, faces], -1 where illegal), that chance with its preference for held faces,
    and the lowest quantity it could bid on each face."""
    table = tail_table(unknown, r.faces, r.wild)
    q = r.raises(seat, standing)
    valid = q > 0
    need = q[None, :] - pushed_match[None, :] - match
    chance = lookup(table, np.arange(r.faces)[None, :], need)
    chance = np.where(valid[None, :], chance, -1.0)
    return chance, chance + HELD_PREFERENCE * match, q


def standing_chance(r: Round, match: Ints, unknown: int, pushed_match: Ints, bid: Bid) -> Floats:
    """[hands]: the chance of `bid` as a player holding each hand sees it (the rest unseen)."""
    table = tail_table(unknown, r.faces, r.wild)
    f = bid.face - 1
    chances: Floats = table[f, np.clip(bid.quantity - pushed_match[f] - match[:, f], 0, unknown + 1)]
    return chances


def challenge_likelihood(p_standing: Floats, p_best: Floats) -> Floats:
    """P(challenge | hand): a player challenges a bid that looks less likely than its best raise
    looks unlikely (the probability bot's rule, softened)."""
    return CHALLENGE_NOISE + (1 - 2 * CHALLENGE_NOISE) * sigmoid(CHALLENGE_SHARPNESS * (1 - p_standing - p_best))


def bid_share(
    r: Round, match: Ints, unknown: int, pushed_match: Ints, standing: Bid | None, seat: int, bid: Bid
) -> tuple[Floats, int, Floats]:
    """[hands]: P(seat bids `bid` | its hand) for a bidder who reads its hand as we model it: it
    raises rather than challenges because the standing bid, or its own best raise, looks good, and
    picks the face its hand makes likeliest. Also on how many faces it could have bid, and the
    chance of its best bid on each face from each hand."""
    chance, preferred, _ = seat_view_of_bid(r, match, unknown, pushed_match, standing, seat)
    f = bid.face - 1
    own = standing_chance(r, match, unknown, pushed_match, bid)
    # A jump bid is scored by its own chance: only a hand that makes it likely makes it.
    preferred = preferred.copy()
    preferred[:, f] = own + HELD_PREFERENCE * match[:, f]
    legal = preferred > -0.5
    weights = np.where(legal, np.exp(BID_SHARPNESS * preferred), 0.0)
    share = weights[:, f] / np.maximum(weights.sum(axis=1), 1e-300)
    if standing is not None:
        p_standing = standing_chance(r, match, unknown, pushed_match, standing)
        share = share * (1 - challenge_likelihood(p_standing, chance.max(axis=1).clip(0)))
    return share, max(int(legal[0].sum()), 1), chance


def bid_likelihood(
    r: Round, match: Ints, unknown: int, pushed_match: Ints, standing: Bid | None, seat: int, bid: Bid
) -> Floats:
    """[hands]: P(seat bids `bid` | its hand), up to a factor that is the same for every hand: a
    bid that owes nothing to the hand (the seat's noise: its face and its choice to raise rather
    than challenge alike), or one reasoned from the hand (`bid_share`)."""
    share, faces_open, _ = bid_share(r, match, unknown, pushed_match, standing, seat, bid)
    noise = r.noise.get(seat, BID_NOISE)
    return noise / faces_open + (1 - noise) * share


# A bid's likelihood from each hand of its bidder, kept for the process: every position read
# later in the round works the same moves out again (the reader asks about each earlier turn of
# every other player at each decision, a decision of six seats some 35 moves). Keyed by all
# `bid_likelihood` reads; at most KEPT_LIKELIHOODS, then begun afresh.
KEPT_LIKELIHOODS = 20_000
_likelihoods: dict[tuple[object, ...], Floats] = {}


def kept_bid_likelihood(
    r: Round, match: Ints, unknown: int, pushed: Sequence[int], standing: Bid | None, seat: int, bid: Bid
) -> Floats:
    """`bid_likelihood` with `pushed` the dice pushed before the bid, kept (read-only)."""
    view = r.view
    key = (
        view.options,
        view.one_die_round,
        r.wild,
        r.q_max,
        unknown,
        len(match),
        view.dice[seat],
        tuple(pushed),
        standing,
        bid,
        r.noise.get(seat, BID_NOISE),
    )
    got = _likelihoods.get(key)
    if got is None:
        got = bid_likelihood(r, match, unknown, match_vector(pushed, r.faces, r.wild), standing, seat, bid)
        got.flags.writeable = False
        if len(_likelihoods) >= KEPT_LIKELIHOODS:
            _likelihoods.clear()
        _likelihoods[key] = got
    return got


def beliefs(r: Round, moves: dict[int, Floats] | None = None) -> dict[int, Floats]:
    """Normalised weights over the hands of every other counted cup, from this round's history
    (`moves`: its `move_likelihoods`, if worked out already)."""
    weights = {s: hand_space(r.cup_size[s], r.faces).prior.copy() for s in r.opponents}
    for i, likelihood in (move_likelihoods(r) if moves is None else moves).items():
        seat = r.view.history[i].seat
        w = weights[seat] * likelihood
        total = w.sum()
        weights[seat] = w / total if total > 0 else weights[seat]
    for s, w in weights.items():
        weights[s] = w / w.sum()
    return weights


def move_likelihoods(r: Round) -> dict[int, Floats]:
    """For each move of this round by another counted cup that tells of that cup (by its index in
    the history): the chance of the move from each hand of the cup (`hand_space` order), up to a
    factor that is the same for every hand."""
    view = r.view
    faces, wild = r.faces, r.wild
    opponents = set(r.opponents)
    out: dict[int, Floats] = {}
    last_push: dict[int, int] = {}
    for i, turn in enumerate(view.history):
        if getattr(turn.action, "push", ()):
            last_push[turn.seat] = i
    pushed: list[int] = []
    standing: Bid | None = None
    for i, turn in enumerate(view.history):
        seat, action = turn.seat, turn.action
        if seat in opponents and i > last_push.get(seat, -1):
            match = matches(r.cup_size[seat], faces, wild).match
            pm = match_vector(pushed, faces, wild)
            unknown = r.total - r.cup_size[seat] - len(pushed)
            likelihood: Floats | None = None
            if isinstance(action, (BidAction, Claim)):
                likelihood = kept_bid_likelihood(r, match, unknown, pushed, standing, seat, action.bid)
                if isinstance(action, Claim):
                    own = standing_chance(r, match, unknown, pm, action.bid)
                    sure = sigmoid(VOTE_SHARPNESS * (own - RAISE_CONFIDENCE))
                    raised = sure if action.raise_to is not None else 1 - sure
                    likelihood = likelihood * (RAISE_NOISE + (1 - RAISE_NOISE) * raised)
            elif isinstance(action, Pass):
                own_pushed = view.pushed[seat]
                space = hand_space(r.cup_size[seat], faces)
                if not own_pushed:
                    valid = space.one_face.any(axis=1)
                elif len(set(own_pushed)) == 1:
                    valid = space.one_face[:, own_pushed[0] - 1]
                else:
                    valid = np.zeros(len(space.prior), dtype=bool)
                likelihood = np.where(valid, 1.0, PASS_NOISE)
            elif isinstance(action, Vote) and standing is not None:
                p = standing_chance(r, match, unknown, pm, standing)
                believe = sigmoid(VOTE_SHARPNESS * (p - 0.5))
                likelihood = VOTE_NOISE + (1 - 2 * VOTE_NOISE) * (believe if action.believe else 1 - believe)
            elif (
                isinstance(action, Challenge) and standing is not None and view.options.challenge_mode == "siding_vote"
            ):
                # The round goes on to a vote only in the siding game: the accuser's hand matters.
                p = standing_chance(r, match, unknown, pm, standing)
                chance, _, _ = seat_view_of_bid(r, match, unknown, pm, standing, seat)
                likelihood = challenge_likelihood(p, chance.max(axis=1).clip(0))
            if likelihood is not None:
                out[i] = likelihood
        push = getattr(action, "push", ())
        if push:
            pushed.extend(push)
        if isinstance(action, (BidAction, Claim)):
            standing = action.bid
    return out


def count_distribution(dists: Sequence[Floats]) -> Floats:
    """The distribution of a sum of independent counts."""
    out = np.ones(1)
    for d in dists:
        out = np.convolve(out, d)
    return out


def tails(dist: Floats) -> Floats:
    """P(count >= j) for j = 0..len(dist), the last being 0."""
    return np.concatenate([np.cumsum(dist[::-1])[::-1], [0.0]])
