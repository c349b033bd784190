"""What the strong bot believes of one decision: the round as it sees it (`Round`), the weight of
every hand of every other cup from the actions so far (`beliefs`), the counts they make, and the
worth of each bid by the next player's likely answer (`Estimate.score_bids`). The bot itself, its
choices and its learning, is `bots/strong.py` (the module docstring there says the method).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple, cast

import numpy as np
import numpy.typing as npt

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
from .probability import believed_pass, counted_seats, pass_chance
from .strong_counts import (  # noqa: F401 (HandSpace, Matches: part of this module's names)
    Floats,
    HandSpace,
    Ints,
    Matches,
    binomial_pmf,
    hand_space,
    match_vector,
    matches,
    raise_row,
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
# The bids scored, the dice pushed with them, and whether a pass is scored (`Estimate.score_bids`).
BidsKey = tuple[tuple[Bid | None, ...], tuple[int, ...], bool | None]


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
        counted = counted_seats(view)
        self.counted = counted
        self.total = sum(view.dice[s] for s in counted)
        self.cup_size = {s: view.dice[s] - len(view.pushed[s]) for s in counted}
        self.opponents = tuple(s for s in counted if s != self.me and self.cup_size[s] > 0)
        self.pushed_total = sum(len(view.pushed[s]) for s in counted)
        self.pushed_match = match_vector([d for s in counted for d in view.pushed[s]], self.faces, self.wild)
        # What we see that counts: our whole hand and everyone else's pushed dice.
        self.known = match_vector(view.hand, self.faces, self.wild) + match_vector(
            [d for s in counted if s != self.me for d in view.pushed[s]], self.faces, self.wild
        )
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


def beliefs(r: Round) -> dict[int, Floats]:
    """Normalised weights over the hands of every other counted cup, from this round's history."""
    view = r.view
    faces, wild = r.faces, r.wild
    weights = {s: hand_space(r.cup_size[s], faces).prior.copy() for s in r.opponents}
    last_push: dict[int, int] = {}
    for i, turn in enumerate(view.history):
        if getattr(turn.action, "push", ()):
            last_push[turn.seat] = i
    pushed: list[int] = []
    standing: Bid | None = None
    for i, turn in enumerate(view.history):
        seat, action = turn.seat, turn.action
        if seat in weights and i > last_push.get(seat, -1):
            match = matches(r.cup_size[seat], faces, wild).match
            pm = match_vector(pushed, faces, wild)
            unknown = r.total - r.cup_size[seat] - len(pushed)
            likelihood: Floats | None = None
            if isinstance(action, (BidAction, Claim)):
                likelihood = bid_likelihood(r, match, unknown, pm, standing, seat, action.bid)
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
                w = weights[seat] * likelihood
                total = w.sum()
                weights[seat] = w / total if total > 0 else weights[seat]
        push = getattr(action, "push", ())
        if push:
            pushed.extend(push)
        if isinstance(action, (BidAction, Claim)):
            standing = action.bid
    for s, w in weights.items():
        weights[s] = w / w.sum()
    return weights


def count_distribution(dists: Sequence[Floats]) -> Floats:
    """The distribution of a sum of independent counts."""
    out = np.ones(1)
    for d in dists:
        out = np.convolve(out, d)
    return out


def tails(dist: Floats) -> Floats:
    """P(count >= j) for j = 0..len(dist), the last being 0."""
    return np.concatenate([np.cumsum(dist[::-1])[::-1], [0.0]])


# ----- the bot -----


class Facing(NamedTuple):
    """The next player's raises over our bids, whatever the stakes (`Estimate._facing_ahead`)."""

    true: Floats  # [C, M]: its raise is true, per bid and hand of its
    mass: Floats  # [C, M]: the weight of its hands that raise
    cell: npt.NDArray[np.intp]  # (bid, face) of each raise, flattened
    group: Floats  # [C, F]: the weight that raises on each face
    safe: Floats  # group, never zero
    raised: Ints  # [C, F, F]: our lowest raise on each face above each of its raises
    raise_chance: Floats  # [C, F, F]: the chance that raise is true

    def rows(self, picked: Ints) -> Facing:
        """The same for the bids `picked` (indices) alone: each bid's row owes nothing to the others."""
        count, faces = self.group.shape
        hands = len(self.cell) // count
        choice = (self.cell.reshape(count, hands) % faces)[picked]
        cell = (np.arange(len(picked))[:, None] * faces + choice).ravel()
        return Facing(
            self.true[picked],
            self.mass[picked],
            cell,
            self.group[picked],
            self.safe[picked],
            self.raised[picked],
            self.raise_chance[picked],
        )


class LookAhead(NamedTuple):
    """The next player's answers to a set of bids, whatever the stakes (`Estimate.score_bids`)."""

    w: Floats  # its hands' weights
    challenged: Floats  # [C, M]: the chance it challenges each bid from each hand
    true: Floats | None  # [C, M]: the bid is true (None: a pass is scored)
    stands: Floats  # [C]: the chance each bid stands
    facing: Facing | None  # its raises, where it may raise and the round comes back to us
    whole: bool  # looked ahead from every hand of the next player's (none left out for time)

    def rows(self, picked: Ints) -> LookAhead:
        """The same for the bids `picked` (indices) alone."""
        true = None if self.true is None else self.true[picked]
        facing = None if self.facing is None else self.facing.rows(picked)
        return LookAhead(self.w, self.challenged[picked], true, self.stands[picked], facing, self.whole)


class Estimate:
    """The belief of one decision: per-cup weights, the count distributions, bid chances."""

    def __init__(self, r: Round, same_cups: Estimate | None = None) -> None:
        self.r = r
        if same_cups is not None:
            # The belief over the other cups owes nothing to our own hand: another hand of ours
            # at the same public position shares it (`StrongBot.policies`).
            self.weights: dict[int, Floats] = same_cups.weights
            self.seat_dists: dict[int, Floats] = same_cups.seat_dists
            self.table_tails: Floats = same_cups.table_tails
            self._without: dict[int, Floats] = same_cups._without
            self._looked_ahead: dict[BidsKey, LookAhead | None] = {}
            return
        self.weights = beliefs(r)
        faces = r.faces
        # [faces, cup + 1] per cup: how many dice of that cup count for each face
        self.seat_dists = {
            s: np.einsum("m,mfk->fk", w, matches(r.cup_size[s], faces, r.wild).onehot) for s, w in self.weights.items()
        }
        self.table_tails = self._tails(r.opponents)
        self._without = {}
        # The look-ahead of each set of bids scored, whatever the stakes: Tavern scores the same
        # bids at every raise it may make, and only the stakes differ.
        self._looked_ahead = {}

    def _tails(self, seats: Sequence[int], extra: Sequence[Floats] | None = None) -> Floats:
        """[faces, L]: P(the cups of `seats` (plus `extra` rerolled dice per face) hold at least
        j dice that count for each face), padded with zeros to one width."""
        rows = []
        for f in range(self.r.faces):
            parts = [self.seat_dists[s][f] for s in seats]
            if extra is not None:
                parts.append(extra[f])
            rows.append(tails(count_distribution(parts)))
        width = max(len(row) for row in rows)
        out = np.zeros((self.r.faces, width))
        for f, row in enumerate(rows):
            out[f, : len(row)] = row
        return out

    def tails_without(self, seat: int) -> Floats:
        """`_tails` of every other cup but `seat`'s (kept: several estimates ask for it)."""
        if seat not in self._without:
            self._without[seat] = self._tails([s for s in self.r.opponents if s != seat])
        return self._without[seat]

    def chance_true(self, bid: Bid) -> float:
        """P(the count on the table for the bid's face is at least its quantity)."""
        t = self.table_tails[bid.face - 1]
        need = bid.quantity - int(self.r.known[bid.face - 1])
        return float(t[min(max(need, 0), len(t) - 1)])

    def chance_exact(self, bid: Bid) -> float:
        """P(the count is exactly the quantity): an exact, spot-on or calza hits."""
        t = self.table_tails[bid.face - 1]
        need = bid.quantity - int(self.r.known[bid.face - 1])
        if need < 0 or need >= len(t) - 1:
            return 0.0
        return float(t[need] - t[need + 1])

    def true_given(self, bid: Bid, seat: int) -> Floats:
        """[hands of `seat`]: the chance that `bid` is true if `seat` holds each hand."""
        r = self.r
        match = matches(r.cup_size[seat], r.faces, r.wild).match
        f = bid.face - 1
        return lookup(self.tails_without(seat), np.array(f), bid.quantity - r.known[f] - match[:, f])

    def pass_valid(self, seat: int, turn_index: int) -> float:
        """The chance that `seat`'s pass (history entry `turn_index`) holds."""
        view = self.r.view
        action = view.history[turn_index].action
        assert isinstance(action, Pass)
        if action.push and view.options.pass_rule == "at_pass":
            # judged on the hand before the reroll, which nobody will see again
            return believed_pass(pass_chance(view, seat))
        pushed = view.pushed[seat]
        if len(set(pushed)) > 1:
            return 0.0
        space = hand_space(self.r.cup_size[seat], self.r.faces)
        valid = space.one_face[:, pushed[0] - 1] if pushed else space.one_face.any(axis=1)
        return float(self.weights[seat][valid].sum())

    # ----- the next player's answer to a bid -----

    def score_bids(
        self,
        bids: Sequence[Bid | None],
        push: tuple[int, ...] = (),
        pass_valid: bool | None = None,
        stakes: tuple[float, float] | None = None,
    ) -> tuple[Floats, Floats]:
        """Expected value of making each of `bids` (with `push`), and the chance the next player
        lets it stand. With `pass_valid` set, score a pass instead: `bids` then holds the standing
        bid that the pass leaves in place (None before any bid). `stakes` are what winning and
        losing a check is worth here, if not the round's usual."""
        r = self.r
        win, lose = stakes if stakes is not None else (r.win, r.lose)
        count = len(bids)
        key = (tuple(bids), push, pass_valid)
        if key not in self._looked_ahead:
            self._looked_ahead[key] = self._subset(key) or self._look_ahead(bids, push, pass_valid)
        ahead = self._looked_ahead[key]
        if ahead is None:
            return np.zeros(count), np.ones(count)
        if ahead.true is not None:
            pay = win * ahead.true - lose * (1 - ahead.true)
        else:
            pay = np.full(ahead.challenged.shape, win if pass_valid else -lose)
        value = (ahead.w[None, :] * ahead.challenged * pay).sum(axis=1)
        if ahead.facing is not None:
            value = value + r.come_back * self._facing(ahead.facing, win, lose)
        return value, ahead.stands.copy()

    def _subset(self, key: BidsKey) -> LookAhead | None:
        """The look-ahead of these bids cut from one already made of more bids (Tavern's best
        claims, scored again with a raise), where both look from every hand of the next player."""
        bids, push, pass_valid = key
        faces = self.r.faces
        for (others, other_push, other_pass), ahead in self._looked_ahead.items():
            if ahead is None or not ahead.whole or (other_push, other_pass) != (push, pass_valid):
                continue
            if len(ahead.w) > max(LOOK_AHEAD_WORK // (len(bids) * faces), 1):
                continue
            where = {b: i for i, b in enumerate(others)}
            if all(b in where for b in bids):
                return ahead.rows(np.array([where[b] for b in bids], dtype=np.int64))
        return None

    def _look_ahead(
        self, bids: Sequence[Bid | None], push: tuple[int, ...], pass_valid: bool | None
    ) -> LookAhead | None:
        """What `score_bids` works out whatever the stakes: the next player's answers to `bids`."""
        r = self.r
        view = r.view
        faces = r.faces
        nxt = r.next_seat(r.me)
        count = len(bids)
        if nxt is None or nxt not in self.weights or count == 0:
            return None
        w = self.weights[nxt]
        match = matches(r.cup_size[nxt], faces, r.wild).match
        keep = max(LOOK_AHEAD_WORK // (count * faces), 1)
        whole = len(w) <= keep
        if not whole:
            # Many faces: look ahead from the next player's likeliest hands only.
            top = np.argpartition(-w, keep - 1)[:keep]
            w, match = w[top] / w[top].sum(), match[top]
        hands = len(w)
        rerolled = Counter(view.cup)
        rerolled.subtract(push)
        rolled = list(rerolled.elements())
        # What the next player sees: our pushed dice join everyone's.
        seen_push = r.pushed_match + match_vector(push, faces, r.wild)
        unknown = r.total - r.cup_size[nxt] - r.pushed_total - len(push)
        table = tail_table(unknown, faces, r.wild)
        # What we know after a push: the rerolled dice become unknown to us too.
        known = r.known - match_vector(rolled, faces, r.wild) if push else r.known
        extra = [binomial_pmf(len(rolled), r.ways[f] / faces) for f in range(faces)] if push else None
        rest = self._tails([s for s in r.opponents if s != nxt], extra) if push else self.tails_without(nxt)

        face_ix = np.arange(faces)
        # the next player's options above each bid, and how it sees them from each hand
        q_next = np.stack([r.raises(nxt, b) for b in bids])  # [C, F]
        valid = q_next > 0
        need = q_next[:, None, :] - seen_push[None, None, :] - match[None, :, :]
        chance = np.where(valid[:, None, :], lookup(table, face_ix[None, None, :], need), -1.0)
        best = chance.max(axis=2).clip(0)  # [C, M]
        choice = np.argmax(chance + HELD_PREFERENCE * match[None, :, :], axis=2)  # [C, M]
        can_raise = cast("npt.NDArray[np.bool_]", valid.any(axis=1))  # numpy: any(axis=...) may be a scalar
        true = None
        if pass_valid is None:
            qs = np.array([b.quantity for b in bids if b is not None])
            fs = np.array([b.face - 1 for b in bids if b is not None])
            p_standing = lookup(table, fs[:, None], qs[:, None] - seen_push[fs][:, None] - match[:, fs].T)
            challenged = np.where(can_raise[:, None], challenge_likelihood(p_standing, best), 1.0)
            # the truth of our bid given each hand of the next player
            true = lookup(rest, fs[:, None], qs[:, None] - known[fs][:, None] - match[:, fs].T)
        else:
            seen_valid = believed_pass(self._our_pass_chance(push))
            challenged = np.where(
                can_raise[:, None], challenge_likelihood(np.full((count, hands), seen_valid), best), 1.0
            )
        stands = 1 - (w[None, :] * challenged).sum(axis=1)
        facing = None
        if r.come_back > 0 and can_raise.any():
            facing = self._facing_ahead(q_next, choice, challenged, w, match, known, rest)
        return LookAhead(w, challenged, true, stands, facing, whole)

    def _our_pass_chance(self, push: tuple[int, ...]) -> float:
        """The chance that our pass holds, as the others see it (only pushed dice shown)."""
        view = self.r.view
        shown = view.pushed[self.r.me] + push
        hidden = view.dice[self.r.me] - len(shown)
        if len(set(shown)) > 1:
            return 0.0
        return float((1 / self.r.faces) ** (hidden if shown else hidden - 1))

    def _facing_ahead(
        self,
        q_next: Ints,
        choice: npt.NDArray[np.intp],
        challenged: Floats,
        w: Floats,
        match: Ints,
        known: Ints,
        rest: Floats,
    ) -> Facing:
        """[C]: the value (weighted by its chance) of facing the next player's raise: we will
        challenge it or raise again, whichever is better given the face it raised on."""
        r = self.r
        faces = r.faces
        count, hands = choice.shape
        rows = np.arange(count)[:, None]
        q_raise = q_next[rows, choice]  # [C, M]
        held = match[np.arange(hands)[None, :], choice]  # [C, M]: its dice on the face it raised
        true = lookup(rest, choice, q_raise - known[choice] - held)
        mass = w[None, :] * (1 - challenged)  # the hands that raise
        # Sums over the hands that raise on each face, by one bincount over (bid, face) cells.
        cell = (rows * faces + choice).ravel()
        # weighted, bincount counts in floats (numpy types it as counting in ints)
        group = cast("Floats", np.bincount(cell, weights=mass.ravel(), minlength=count * faces).reshape(count, faces))
        safe = np.maximum(group, 1e-300)
        # our lowest raise on each face above each of its raises, and its chance per hand
        raised = np.zeros((count, faces, faces), dtype=np.int64)
        cs, gs = np.nonzero((q_next > 0) & (group > 0))
        if len(cs):
            # many of its raises are the same bid: each one's row is worked out once
            distinct, which = np.unique(q_next[cs, gs] * faces + gs, return_inverse=True)
            ours_above = np.stack([r.raises(r.me, Bid(int(u // faces), int(u % faces) + 1)) for u in distinct])
            raised[cs, gs] = ours_above[which.ravel()]
        ours = raised[rows, choice]  # [C, M, H]
        ours_true = lookup(rest, np.arange(faces)[None, None, :], ours - known[None, None, :] - match[None, :, :])
        ours_true = np.where(ours > 0, ours_true, 0.0) * mass[:, :, None]
        cells = (cell[:, None] * faces + np.arange(faces)[None, :]).ravel()
        raise_chance = (
            np.bincount(cells, weights=ours_true.ravel(), minlength=count * faces * faces).reshape(count, faces, faces)
            / safe[:, :, None]
        )
        return Facing(true, mass, cell, group, safe, raised, raise_chance)

    def _facing(self, f: Facing, win: float, lose: float) -> Floats:
        """[C]: the value (weighted by its chance) of facing the next player's raise at these
        stakes: we will challenge it or raise again, whichever is better given its face."""
        count, faces = f.group.shape
        calls = f.mass * (win * (1 - f.true) - lose * f.true)
        challenge_value = (
            np.bincount(f.cell, weights=calls.ravel(), minlength=count * faces).reshape(count, faces) / f.safe
        )
        raise_value = np.where(f.raised > 0, RAISE_LEAF * (win * f.raise_chance - lose * (1 - f.raise_chance)), -np.inf)
        face_value = np.maximum(challenge_value, raise_value.max(axis=2))
        face_value = np.where(f.group > 0, face_value, 0.0)
        value: Floats = (f.group * face_value).sum(axis=1)
        return value
