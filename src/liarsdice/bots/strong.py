"""The strong bot: it reads the other cups from what their owners did this round, then plays the
move with the best expected outcome, looking one player ahead.

**Belief.** For every other cup it keeps a distribution over the hands that cup can hold (each
multiset of faces, weighted by its chance under the roll; a fixed sample of hands when there are
too many), and updates it by Bayes' rule with every public action its owner made this round:

* a bid (or claim) is likelier from a hand that makes it look good: the bidder is modelled as
  weighing each face it could bid by the chance its own hand gives its lowest bid on that face
  (a softmax, with a slight preference for the faces it holds most), and as raising rather than
  challenging because the standing bid, or its own best raise, looked good from its hand; plus a
  share of bids that owe nothing to the hand, neither their face nor the choice to raise (a
  raise on the face we showed may simply follow our bid: counting it as the raiser's own dice
  let a reader of our bids draw us into raising a bid it would call);
* a siding vote is likelier from a hand that makes the bid look true (believe) or false (doubt),
  and so is the challenge that started the vote from a hand that makes the bid look false;
* a pass (Soar) is certain from a one-face hand and a bluff otherwise;
* a claim with a raise (Tavern) is likelier from a hand that makes the claim near certain;
* a push shows dice and rerolls the rest of that cup, so what its owner did before says nothing
  of the new cup: the belief over it starts again from the roll.

The share of bids that owe nothing to the hand is learnt per seat over a game: at each reveal the
bot weighs every bid of the round against the cup it came from.

For each face, the distributions of how many dice of each cup count for it are convolved into the
distribution of the count on the table, which gives the chance that any bid is true or exact.

**Decision.** Every legal move is scored in expected dice: a die we lose against one another
player loses (worth less to us at a bigger table), or dice shed in the shedding game.

* A challenge (or accusation) wins if the bid is false; an exact pays per the preset; a vote
  sides with the likelier truth, since only the right side sheds (or keeps its dice).
* A bid is scored by the next player's answer, predicted for each hand that player may hold: it
  challenges when the bid looks likelier false than its own best raise looks true (the bid then
  stands or falls on the dice: its truth is weighed given that hand and our belief over the other
  cups), or it raises on its best face, and the round comes back to us facing that raise (surely
  with two players, at a discount with more), where we will challenge it or raise again, whichever
  is better given what its raise tells us about its cup.
* A pass is scored the same way, with the pass in place of a bid; a push (all our cup dice that
  count for the bid's face: shown, and the rest rerolled) is tried on every candidate bid.
* In Tavern the chips count too: heads-up every move is judged by the chance of winning the game
  after the round, from a model of that chance fitted to past games (chips against the growing
  bet, dice, who opens); at a bigger table a chip has a fixed worth in dice. Details in
  `bots/strong_tavern.py`.

**Mixing.** The bot draws its move from a distribution over its scored moves (close calls
mixed by a softmax over their values, and a share of bids made on a face drawn alike from every
face, where that costs little), so that its bids do not spell out its cup: `bots/strong_mixing.py`.
`policy` gives that distribution and `act` draws from it with the bot's own seeded generator. In
Tavern's chips it instead makes its best move, or now and then its best bid on a face it is short
of if that is nearly as good, more often where bids are seldom challenged. In a duel of bids
alone it mixes in an equilibrium strategy where one is at hand: `bots/strong_duel.py`.

It decides from its `PlayerView` only and always returns one of `view.legal_actions`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ..rules import (
    Action,
    Bid,
    BidAction,
    Challenge,
    Claim,
    Exact,
    Pass,
    PlayerView,
    Vote,
    ladder,
)
from .base import Bot, Limit
from .probability import believed_pass, counted_seats, pass_chance, safest_action
from .strong_counts import (  # noqa: F401 (HandSpace, Matches: part of this module's names)
    HandSpace,
    Matches,
    binomial_pmf,
    hand_space,
    match_vector,
    matches,
    raise_row,
    sigmoid,
    tail_table,
)
from .strong_duel import in_duel
from .strong_mixing import Policy, Scored, draw, mixed

if TYPE_CHECKING:
    from .strong_tavern import ChipModel

# ----- the model of the other players -----

# How sharply a bidder prefers the face its hand makes likeliest (softmax over chances in 0..1),
# and how much it prefers, among equally likely faces, the face it holds more of (per die).
BID_SHARPNESS = 14.0
HELD_PREFERENCE = 0.04
# The share of bids made without regard to the hand (bluffs, mistakes, other reasoning), before
# we have seen a player's cup; the reveals then teach us each player's own share, this prior
# counting as this many bids.
BID_NOISE = 0.12
HONESTY_PRIOR = 8.0
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
# Bids on a face whose chance of being true is below this are not worth scoring (bar the lowest).
CANDIDATE_FLOOR = 0.03
CANDIDATES_PER_FACE = 3
# Soar's exact is one per game: keep it for a clearly good moment.
EXACT_ONCE_MARGIN = 0.2
# Bluffing in Tavern's chips: at most this often, and only with a bid this close to the best in value.
BLUFF_RATE = 0.12
BLUFF_MARGIN = 0.12
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

    def raises(self, seat: int, standing: Bid | None) -> np.ndarray:
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


def lookup(table: np.ndarray, faces: np.ndarray, need: np.ndarray) -> np.ndarray:
    """table[face, need] with `need` clipped into the table (below 0: certain, above: impossible)."""
    width = table.shape[1]
    return np.take(table, faces * width + np.minimum(np.maximum(need, 0), width - 1))


# ----- the belief over the other cups -----


def seat_view_of_bid(
    r: Round, match: np.ndarray, unknown: int, pushed_match: np.ndarray, standing: Bid | None, seat: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
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


def standing_chance(r: Round, match: np.ndarray, unknown: int, pushed_match: np.ndarray, bid: Bid) -> np.ndarray:
    """[hands]: the chance of `bid` as a player holding each hand sees it (the rest unseen)."""
    table = tail_table(unknown, r.faces, r.wild)
    f = bid.face - 1
    return table[f, np.clip(bid.quantity - pushed_match[f] - match[:, f], 0, unknown + 1)]


def challenge_likelihood(p_standing: np.ndarray, p_best: np.ndarray) -> np.ndarray:
    """P(challenge | hand): a player challenges a bid that looks less likely than its best raise
    looks unlikely (the probability bot's rule, softened)."""
    return CHALLENGE_NOISE + (1 - 2 * CHALLENGE_NOISE) * sigmoid(CHALLENGE_SHARPNESS * (1 - p_standing - p_best))


def bid_share(
    r: Round, match: np.ndarray, unknown: int, pushed_match: np.ndarray, standing: Bid | None, seat: int, bid: Bid
) -> tuple[np.ndarray, int, np.ndarray]:
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
    r: Round, match: np.ndarray, unknown: int, pushed_match: np.ndarray, standing: Bid | None, seat: int, bid: Bid
) -> np.ndarray:
    """[hands]: P(seat bids `bid` | its hand), up to a factor that is the same for every hand: a
    bid that owes nothing to the hand (the seat's noise: its face and its choice to raise rather
    than challenge alike), or one reasoned from the hand (`bid_share`)."""
    share, faces_open, _ = bid_share(r, match, unknown, pushed_match, standing, seat, bid)
    noise = r.noise.get(seat, BID_NOISE)
    return noise / faces_open + (1 - noise) * share


def beliefs(r: Round) -> dict[int, np.ndarray]:
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
            likelihood: np.ndarray | None = None
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


def count_distribution(dists: Sequence[np.ndarray]) -> np.ndarray:
    """The distribution of a sum of independent counts."""
    out = np.ones(1)
    for d in dists:
        out = np.convolve(out, d)
    return out


def tails(dist: np.ndarray) -> np.ndarray:
    """P(count >= j) for j = 0..len(dist), the last being 0."""
    return np.concatenate([np.cumsum(dist[::-1])[::-1], [0.0]])


# ----- the bot -----


class Estimate:
    """The belief of one decision: per-cup weights, the count distributions, bid chances."""

    def __init__(self, r: Round, same_cups: Estimate | None = None) -> None:
        self.r = r
        if same_cups is not None:
            # The belief over the other cups owes nothing to our own hand: another hand of ours
            # at the same public position shares it (`StrongBot.policies`).
            self.weights = same_cups.weights
            self.seat_dists = same_cups.seat_dists
            self.table_tails = same_cups.table_tails
            self._without = same_cups._without
            return
        self.weights = beliefs(r)
        faces = r.faces
        # [faces, cup + 1] per cup: how many dice of that cup count for each face
        self.seat_dists = {
            s: np.einsum("m,mfk->fk", w, matches(r.cup_size[s], faces, r.wild).onehot) for s, w in self.weights.items()
        }
        self.table_tails = self._tails(r.opponents)
        self._without: dict[int, np.ndarray] = {}

    def _tails(self, seats: Sequence[int], extra: Sequence[np.ndarray] | None = None) -> np.ndarray:
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

    def tails_without(self, seat: int) -> np.ndarray:
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

    def true_given(self, bid: Bid, seat: int) -> np.ndarray:
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
    ) -> tuple[np.ndarray, np.ndarray]:
        """Expected value of making each of `bids` (with `push`), and the chance the next player
        lets it stand. With `pass_valid` set, score a pass instead: `bids` then holds the standing
        bid that the pass leaves in place (None before any bid). `stakes` are what winning and
        losing a check is worth here, if not the round's usual."""
        r = self.r
        win, lose = stakes if stakes is not None else (r.win, r.lose)
        view = r.view
        faces = r.faces
        nxt = r.next_seat(r.me)
        count = len(bids)
        if nxt is None or nxt not in self.weights or count == 0:
            return np.zeros(count), np.ones(count)
        w = self.weights[nxt]
        match = matches(r.cup_size[nxt], faces, r.wild).match
        keep = max(LOOK_AHEAD_WORK // (count * faces), 1)
        if len(w) > keep:
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
        can_raise = valid.any(axis=1)
        if pass_valid is None:
            qs = np.array([b.quantity for b in bids if b is not None])
            fs = np.array([b.face - 1 for b in bids if b is not None])
            p_standing = lookup(table, fs[:, None], qs[:, None] - seen_push[fs][:, None] - match[:, fs].T)
            challenged = np.where(can_raise[:, None], challenge_likelihood(p_standing, best), 1.0)
            # the truth of our bid given each hand of the next player
            true = lookup(rest, fs[:, None], qs[:, None] - known[fs][:, None] - match[:, fs].T)
            pay = win * true - lose * (1 - true)
        else:
            seen_valid = believed_pass(self._our_pass_chance(push))
            challenged = np.where(
                can_raise[:, None], challenge_likelihood(np.full((count, hands), seen_valid), best), 1.0
            )
            pay = np.full((count, hands), win if pass_valid else -lose)
        value = (w[None, :] * challenged * pay).sum(axis=1)
        stands = 1 - (w[None, :] * challenged).sum(axis=1)
        if r.come_back > 0 and can_raise.any():
            facing = self._facing(q_next, choice, challenged, w, match, known, rest, win, lose)
            value = value + r.come_back * facing
        return value, stands

    def _our_pass_chance(self, push: tuple[int, ...]) -> float:
        """The chance that our pass holds, as the others see it (only pushed dice shown)."""
        view = self.r.view
        shown = view.pushed[self.r.me] + push
        hidden = view.dice[self.r.me] - len(shown)
        if len(set(shown)) > 1:
            return 0.0
        return float((1 / self.r.faces) ** (hidden if shown else hidden - 1))

    def _facing(
        self,
        q_next: np.ndarray,
        choice: np.ndarray,
        challenged: np.ndarray,
        w: np.ndarray,
        match: np.ndarray,
        known: np.ndarray,
        rest: np.ndarray,
        win: float,
        lose: float,
    ) -> np.ndarray:
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
        group = np.bincount(cell, weights=mass.ravel(), minlength=count * faces).reshape(count, faces)
        safe = np.maximum(group, 1e-300)
        calls = mass * (win * (1 - true) - lose * true)
        challenge_value = np.bincount(cell, weights=calls.ravel(), minlength=count * faces).reshape(count, faces) / safe
        # our lowest raise on each face above each of its raises, and its chance per hand
        raised = np.zeros((count, faces, faces), dtype=np.int64)
        for c, g in zip(*np.nonzero((q_next > 0) & (group > 0)), strict=True):
            raised[c, g] = r.raises(r.me, Bid(int(q_next[c, g]), int(g) + 1))
        ours = raised[rows, choice]  # [C, M, H]
        ours_true = lookup(rest, np.arange(faces)[None, None, :], ours - known[None, None, :] - match[None, :, :])
        ours_true = np.where(ours > 0, ours_true, 0.0) * mass[:, :, None]
        cells = (cell[:, None] * faces + np.arange(faces)[None, :]).ravel()
        raise_chance = (
            np.bincount(cells, weights=ours_true.ravel(), minlength=count * faces * faces).reshape(count, faces, faces)
            / safe[:, :, None]
        )
        raise_value = np.where(raised > 0, RAISE_LEAF * (win * raise_chance - lose * (1 - raise_chance)), -np.inf)
        face_value = np.maximum(challenge_value, raise_value.max(axis=2))
        face_value = np.where(group > 0, face_value, 0.0)
        return (group * face_value).sum(axis=1)


class StrongBot(Bot):
    """Reads the other cups from the round's actions and plays the best expected move (module
    docstring)."""

    level = "strong"
    description = "reads the other cups from their bids and plays the best expected move, one player ahead"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        # Per seat, Beta pseudo-counts (bids that owed nothing to the hand, bids that did), from
        # the rounds whose cups we saw revealed; a seat we know nothing of gets BID_NOISE.
        self.honesty: dict[int, tuple[float, float]] = {}
        self._last_view: PlayerView | None = None
        # The model of what chips are worth heads-up in Tavern; None: the one shipped in data/.
        self.chip_model: ChipModel | None = None

    def noise(self) -> dict[int, float]:
        return {s: a / (a + b) for s, (a, b) in self.honesty.items()}

    def learn(self, view: PlayerView) -> None:
        """Weigh the bids of the round we last acted in against the cups its reveal showed: a bid
        our model of bidding finds unlikely from the hand it came from counts as noise."""
        before, self._last_view = self._last_view, view
        outcome = view.last_outcome
        if before is not None and (view.round_no < before.round_no or (outcome is None and before.round_no > 1)):
            self.honesty.clear()  # a new game: the seats may hold other players
        if before is None or outcome is None or outcome.round_no != before.round_no:
            return
        r = Round(before, self.noise())
        last_push = {t.seat: i for i, t in enumerate(before.history) if getattr(t.action, "push", ())}
        pushed: list[int] = []
        standing: Bid | None = None
        for i, turn in enumerate(before.history):
            seat, action = turn.seat, turn.action
            if isinstance(action, (BidAction, Claim)) and seat in r.opponents and i > last_push.get(seat, -1):
                cup = Counter(outcome.hands[seat])
                cup.subtract(outcome.pushed[seat])
                hand = list(cup.elements())
                if len(hand) == r.cup_size[seat]:
                    match = match_vector(hand, r.faces, r.wild)[None, :]
                    unknown = r.total - len(hand) - len(pushed)
                    pm = match_vector(pushed, r.faces, r.wild)
                    share, faces_open, _ = bid_share(r, match, unknown, pm, standing, seat, action.bid)
                    noise = r.noise.get(seat, BID_NOISE)
                    blind = noise / faces_open
                    odds = blind / (blind + (1 - noise) * float(share[0]))
                    a, b = self.honesty.get(seat, (BID_NOISE * HONESTY_PRIOR, (1 - BID_NOISE) * HONESTY_PRIOR))
                    self.honesty[seat] = (a + odds, b + 1 - odds)
            pushed.extend(getattr(action, "push", ()))
            if isinstance(action, (BidAction, Claim)):
                standing = action.bid

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        return draw(self.policies([view], limit)[0], self.rng.random())

    def policy(self, view: PlayerView) -> Policy:
        """The chance of each move `act` may make in `view` (it draws from this). It learns from
        the view as `act` does, so call one or the other per turn."""
        return self.policies([view])[0]

    def policies(self, views: Sequence[PlayerView], limit: Limit | None = None) -> list[Policy]:
        """`policy` of each of `views`, which differ only in this seat's own hand (every hand a
        seat may hold at one public position, as `liarsdice exploit` asks): the belief over the
        other cups is worked out once for all of them. In a duel an equilibrium's play may be
        mixed in (`bots/strong_duel.py`)."""
        first = views[0]
        public = (first.seat, first.history, first.dice, first.pushed, first.round_no)
        for view in views:
            if view.legal is None or not view.legal_actions or view.seat is None:
                seat = view.seats[view.seat] if view.seat is not None else "a spectator"
                raise ValueError(f"{seat} has no legal action: it is not this seat's turn")
            if (view.seat, view.history, view.dice, view.pushed, view.round_no) != public:
                raise ValueError("policies() takes views of one public position, differing only in the seat's hand")
        self.learn(first)
        return in_duel(self, views, self.scored_policies(views), limit.time if limit is not None else None)

    def scored_policies(self, views: Sequence[PlayerView]) -> list[Policy]:
        """This bot's own policy at each of `views` (checked by `policies`), from its scored moves
        and what it has learnt so far."""
        shared: Estimate | None = None
        out = []
        for view in views:
            legal = view.legal
            assert legal is not None
            r = Round(view, self.noise())
            estimate = Estimate(r, shared)
            shared = estimate
            if legal.voting:
                chances: Policy = [(self._vote(view, estimate), 1.0)]
            elif legal.economy:
                # Imported here: the chips build on this module (bots/strong_tavern.py).
                from .strong_tavern import economy_moves

                chances = self._pick(economy_moves(self, view, estimate))
            else:
                chances = mixed(self._turn(view, estimate))
            legal_now = set(view.legal_actions)  # a soar opening has over 1,000 (pushes)
            chances = [(a, p) for a, p in chances if a in legal_now]
            out.append(chances or [(self._fallback(view, estimate), 1.0)])
        return out

    # ----- choosing -----

    def _pick(self, moves: list[Scored]) -> Policy:
        """Tavern's chips: the best move, or now and then the best bluff nearly as good."""
        best = max(moves, key=lambda m: (m.value, m.rank))
        if isinstance(best.action, (BidAction, Claim)):
            # Bluff more where a bid is less likely to be called: the chance that the best bid
            # stands is the game's own measure of that (players, dice, faces).
            bluffs = [m for m in moves if m.bluff and m.value >= best.value - BLUFF_MARGIN]
            rate = BLUFF_RATE * best.unchallenged
            if bluffs and rate > 0:
                return [(best.action, 1 - rate), (max(bluffs, key=lambda m: m.value).action, rate)]
        return [(best.action, 1.0)]

    def _candidates(self, view: PlayerView, estimate: Estimate) -> list[Bid]:
        """The bids worth scoring: on each face the lowest legal bid and the next few while
        they are not far-fetched."""
        legal = view.legal
        assert legal is not None
        per_face: dict[int, list[Bid]] = {}
        for bid in legal.bids:
            got = per_face.setdefault(bid.face, [])
            if len(got) >= CANDIDATES_PER_FACE:
                continue
            if got and estimate.chance_true(bid) < CANDIDATE_FLOOR:
                continue
            got.append(bid)
        return [b for face in sorted(per_face) for b in per_face[face]]

    def _short_faces(self, r: Round) -> set[int]:
        """The faces we hold fewer of than an unseen cup would on average: bids on them are bluffs."""
        size = max(len(r.view.hand), 1)
        mine = match_vector(r.view.hand, r.faces, r.wild)
        out = set()
        for f in range(r.faces):
            if mine[f] < size * r.ways[f] / r.faces:
                out.add(f + 1)
        return out

    def _bids(self, view: PlayerView, estimate: Estimate, stakes: tuple[float, float] | None = None) -> list[Scored]:
        """Every candidate bid scored, with a push where pushes are allowed and one helps."""
        legal = view.legal
        assert legal is not None
        bids = self._candidates(view, estimate)
        if not bids:
            return []
        r = estimate.r
        values, stands = estimate.score_bids(bids, stakes=stakes)
        short = self._short_faces(r)
        out = [
            Scored(float(v), 0, BidAction(b), float(s), b.face in short)
            for b, v, s in zip(bids, values, stands, strict=True)
        ]
        pushes = set(legal.pushes)
        if pushes:
            for face in sorted({b.face for b in bids}):
                push = tuple(sorted(d for d in view.cup if d == face or (r.wild is not None and d == r.wild)))
                if not push or push not in pushes:
                    continue
                on_face = [b for b in bids if b.face == face]
                pv, ps = estimate.score_bids(on_face, push, stakes=stakes)
                out += [
                    Scored(float(v), 0, BidAction(b, push), float(s), False)
                    for b, v, s in zip(on_face, pv, ps, strict=True)
                ]
        return out

    def _turn(self, view: PlayerView, estimate: Estimate) -> list[Scored]:
        legal = view.legal
        assert legal is not None
        r = estimate.r
        moves: list[Scored] = []
        for target in legal.challenge_targets:
            holds = self._holds(view, estimate, target)
            moves.append(Scored(r.win * (1 - holds) - r.lose * holds, 3, Challenge(target)))
        if legal.can_exact and view.standing_bid is not None:
            moves.append(Scored(self._exact_value(view, estimate, view.standing_bid), 2, Exact()))
        if legal.can_pass:
            valid = len(set(view.hand)) == 1
            value, stands = estimate.score_bids([view.standing_bid], pass_valid=valid)
            moves.append(Scored(float(value[0]), 1, Pass(), float(stands[0]), not valid))
        moves += self._bids(view, estimate)
        return moves

    def _holds(self, view: PlayerView, estimate: Estimate, target: int) -> float:
        """The chance that the action of `target` that a challenge would check is right."""
        history = view.history
        index = len(history) - 1 if history[-1].seat == target else len(history) - 2
        action = history[index].action
        if isinstance(action, Pass):
            return estimate.pass_valid(target, index)
        if isinstance(action, BidAction):
            return estimate.chance_true(action.bid)
        return estimate.chance_true(view.standing_bid) if view.standing_bid is not None else 0.5

    def _exact_value(self, view: PlayerView, estimate: Estimate, bid: Bid) -> float:
        o = view.options
        r = estimate.r
        hit = estimate.chance_exact(bid)
        others = sum(view.active) - 1
        if r.shedding:
            # a hit sheds our die; a miss sheds one for everyone else
            value = hit * 1.0 - (1 - hit) * r.lose * others
        elif o.exact == "others_lose":
            value = hit * r.win * others - (1 - hit)
        else:
            seat = r.me
            gain = 1.0 if view.dice[seat] < o.dice_cap(seat) else 0.0
            value = hit * gain - (1 - hit)
        if o.exact_limit == "once_per_game":
            value -= EXACT_ONCE_MARGIN
        return value

    # ----- a siding vote -----

    def _vote(self, view: PlayerView, estimate: Estimate) -> Action:
        # Our vote only decides whether we are on the right side, and the right side sheds (or,
        # in an elimination game, the wrong side loses): side with the likelier truth.
        bid = view.standing_bid
        return Vote(bid is None or estimate.chance_true(bid) >= 0.5)

    def _fallback(self, view: PlayerView, estimate: Estimate) -> Action:
        return safest_action(view, estimate, lambda target: self._holds(view, estimate, target))
