"""The probability bot: it counts what it can see and plays the odds of the rest.

From its own hand, everyone's pushed dice and the counting rules of the round it works out how
likely each bid is to be true (a binomial tail over the dice it cannot see), then weighs every
move it may make by the dice that move is expected to win or lose if the round ends on it:

* a challenge (or accusation) is worth `1 - 2 P(standing bid true)`,
* a bid is worth `2 P(bid true) - 1`, as if it were the bid that gets challenged,
* an exact is worth `P(count == q) * gain - P(count != q)`, where the gain follows the preset,
* a pass with a one-face hand cannot lose, so it is worth the most a move can be.

It takes the best of these, with a small seeded rate of bluffs so that its bids do not give its
hand away. It decides from its `PlayerView` only and never returns an action outside
`view.legal_actions`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Protocol

from ..rules import Accuse, Action, AllIn, Bid, BidAction, Challenge, Claim, Exact, Fold, Pass, PlayerView, Vote
from .base import Bot, Limit

# A bluff now and then keeps the bot's bids from spelling out its cup; rarely enough that the
# bids stay sound. A bluff is only made on a bid at least this likely to be true anyway.
BLUFF_RATE = 0.05
BLUFF_FLOOR = 0.3
# A pass without a one-face hand loses a die whenever it is challenged: only when every other
# move looks bad, and even then rarely.
PASS_BLUFF_RATE = 0.05
# How often we assume another player passes without a one-face hand. A pass is evidence: the
# odds of a valid pass by chance alone (1 in 1296 with five dice) would make every pass look
# like a lie.
PASS_BLUFF_PRIOR = 0.25
# Soar's exact is one per game: keep it for a clearly good moment.
EXACT_ONCE_MARGIN = 0.15
# Raise the bet with a claim this likely to be true, if the raise costs at most half our chips.
RAISE_CONFIDENCE = 0.9
# Unable to meet the bet: go all-in (accuse) when the claim is more likely false than this.
ALL_IN_BELOW = 0.5
# Probabilities closer than this are a tie.
TIE = 1e-9


# ----- the maths -----


@lru_cache(maxsize=1 << 16)
def binomial_at_least(n: int, k: int, ways: int, faces: int) -> float:
    """P(X >= k) for X ~ Binomial(n, ways/faces), summed in exact integers."""
    if k <= 0:
        return 1.0
    if k > n:
        return 0.0
    other = faces - ways
    total = sum(math.comb(n, i) * ways**i * other ** (n - i) for i in range(k, n + 1))
    return float(total / faces**n)


@lru_cache(maxsize=1 << 16)
def binomial_exactly(n: int, k: int, ways: int, faces: int) -> float:
    """P(X == k) for X ~ Binomial(n, ways/faces)."""
    if not 0 <= k <= n:
        return 0.0
    return float(math.comb(n, k) * ways**k * (faces - ways) ** (n - k) / faces**n)


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat knows of the dice that will be counted: the faces it sees (its own hand and
    everyone's pushed dice) and how many dice it cannot see. `wild` is the wild face of this
    round (None in a one-die round or a game without wilds)."""

    faces: int
    wild: int | None
    seen: tuple[int, ...]
    unknown: int

    def matches(self, die: int, face: int) -> bool:
        """Whether `die` counts toward a bid on `face` (a bid on the wild face counts only wilds)."""
        return die == face or (die == self.wild and self.wild is not None)

    def ways(self, face: int) -> int:
        """How many faces of an unseen die count toward `face`."""
        return 2 if self.wild is not None and face != self.wild else 1

    def seen_count(self, face: int) -> int:
        return sum(1 for d in self.seen if self.matches(d, face))

    def chance_true(self, bid: Bid) -> float:
        """P(count(face) >= quantity)."""
        return binomial_at_least(
            self.unknown, bid.quantity - self.seen_count(bid.face), self.ways(bid.face), self.faces
        )

    def chance_exact(self, bid: Bid) -> float:
        """P(count(face) == quantity): an exact, spot-on or calza hits."""
        return binomial_exactly(self.unknown, bid.quantity - self.seen_count(bid.face), self.ways(bid.face), self.faces)

    def rerolled(self, dice: tuple[int, ...]) -> Knowledge:
        """The same knowledge after `dice` (seen, under our cup) are rerolled unseen."""
        rest = Counter(self.seen)
        rest.subtract(dice)
        seen = tuple(sorted(rest.elements()))
        return Knowledge(self.faces, self.wild, seen, self.unknown + len(dice))


def knowledge(view: PlayerView) -> Knowledge:
    """What `view.seat` knows of the dice in play."""
    o = view.options
    wild = view.wild
    seen: list[int] = []
    unknown = 0
    for s in view.counted_seats:
        if s == view.seat:
            seen.extend(view.hand)
        else:
            seen.extend(view.pushed[s])
            unknown += view.dice[s] - len(view.pushed[s])
    return Knowledge(o.faces, wild, tuple(sorted(seen)), unknown)


def pass_chance(view: PlayerView, seat: int) -> float:
    """The chance that `seat`'s hand is all one face, from what we see of it (its pushed dice)
    alone. Ones are never wild for a pass."""
    pushed = view.pushed[seat]
    hidden = view.dice[seat] - len(pushed)
    if len(set(pushed)) > 1:
        return 0.0
    if pushed:
        return float((1 / view.options.faces) ** hidden)
    return float((1 / view.options.faces) ** (hidden - 1))


def believed_pass(chance: float) -> float:
    """The chance a pass is valid once we weigh that the player chose to pass: Bayes with a
    player who always passes a one-face hand and passes other hands at PASS_BLUFF_PRIOR."""
    bluffed = (1 - chance) * PASS_BLUFF_PRIOR
    return chance / (chance + bluffed) if chance + bluffed > 0 else 0.0


# ----- the bot -----


@dataclass(frozen=True, slots=True)
class _Move:
    """A candidate move: its value in expected dice, and which to prefer when values tie
    (higher `rank` first: a challenge settles the round, a bid leaves it open)."""

    value: float
    rank: int
    action: Action


@dataclass(frozen=True, slots=True)
class _BidChoice:
    chance: float
    bid: Bid
    push: tuple[int, ...]


class ProbabilityBot(Bot):
    """Plays the odds of the dice it cannot see (module docstring)."""

    level = "probability"
    description = "counts the dice it sees and plays the odds of the rest"

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        legal = view.legal
        if legal is None or not view.legal_actions:
            raise ValueError(f"{view.seats[view.seat or 0]} has no legal action: it is not this seat's turn")
        known = knowledge(view)
        choice: Action | None
        if legal.voting:
            choice = self._vote(view, known)
        elif legal.economy:
            choice = self._bet(view, known)
        else:
            choice = self._turn(view, known)
        if choice is not None and choice in set(view.legal_actions):
            return choice
        return self._safest(view, known)

    # ----- a turn without chips -----

    def _turn(self, view: PlayerView, known: Knowledge) -> Action | None:
        legal = view.legal
        assert legal is not None
        moves: list[_Move] = []
        for target in legal.challenge_targets:
            moves.append(_Move(1 - 2 * self._chance_holds(view, known, target), 3, Challenge(target)))
        if legal.can_exact and view.standing_bid is not None:
            moves.append(_Move(self._exact_value(view, known, view.standing_bid), 2, Exact()))
        one_face = len(set(view.hand)) == 1
        if legal.can_pass and one_face:
            moves.append(_Move(1.0, 1, Pass()))
        bid = self._best_bid(view, known)
        if bid is not None:
            moves.append(_Move(2 * bid.chance - 1, 0, BidAction(bid.bid, bid.push)))
        if not moves:
            return None
        best = max(moves, key=lambda m: (m.value, m.rank))
        if isinstance(best.action, BidAction):
            if legal.can_pass and not one_face and best.value < 0 and self.rng.random() < PASS_BLUFF_RATE:
                return Pass()
            if self.rng.random() < BLUFF_RATE:
                bluff = self._bluff_bid(view, known)
                if bluff is not None:
                    return BidAction(bluff)
        return best.action

    def _chance_holds(self, view: PlayerView, known: Knowledge, target: int) -> float:
        """The chance that the action `target` would be challenged on (bid or pass) is right."""
        history = view.history
        turn = history[-1] if history and history[-1].seat == target else history[-2]
        if isinstance(turn.action, Pass):
            return believed_pass(pass_chance(view, target))
        if isinstance(turn.action, BidAction):
            return known.chance_true(turn.action.bid)
        return known.chance_true(view.standing_bid) if view.standing_bid is not None else 0.5

    def _exact_value(self, view: PlayerView, known: Knowledge, bid: Bid) -> float:
        o = view.options
        hit = known.chance_exact(bid)
        if o.goal == "shedding" or o.exact == "others_lose":
            gain = 1.0
        else:
            # gain_die: a hit is worth a die only below the cap; at the cap it merely ends the
            # round safely.
            seat = view.seat or 0
            gain = 1.0 if view.dice[seat] < o.dice_cap(seat) else 0.0
        value = hit * gain - (1 - hit)
        if o.exact_limit == "once_per_game":
            value -= EXACT_ONCE_MARGIN
        return value

    def _best_bid(self, view: PlayerView, known: Knowledge) -> _BidChoice | None:
        """The legal bid most likely to be true, with the push that helps it most. Ties go to
        the face we hold most of, then to the smallest raise."""
        legal = view.legal
        assert legal is not None
        if not legal.bids:
            return None
        pushes = set(legal.pushes)
        hand = view.hand
        by_face: dict[int, tuple[tuple[int, ...], Knowledge | None, int]] = {}
        best: _BidChoice | None = None
        best_key: tuple[float, int, int] | None = None
        for index, bid in enumerate(legal.bids):
            face = bid.face
            if face not in by_face:
                push, after = self._push_for(view, known, face, pushes)
                by_face[face] = (push, after, sum(1 for d in hand if known.matches(d, face)))
            push, after, held = by_face[face]
            chance = known.chance_true(bid)
            chosen: tuple[int, ...] = ()
            if after is not None:
                pushed_chance = after.chance_true(bid)
                if pushed_chance > chance + TIE:
                    chance, chosen = pushed_chance, push
            key = (round(chance, 9), held, -index)
            if best_key is None or key > best_key:
                best, best_key = _BidChoice(chance, bid, chosen), key
        return best

    @staticmethod
    def _push_for(
        view: PlayerView, known: Knowledge, face: int, pushes: set[tuple[int, ...]]
    ) -> tuple[tuple[int, ...], Knowledge | None]:
        """Pushing the cup dice that count for `face` shows them and rerolls the rest: the push
        and what we would know after it, or no push when the rules do not allow that one."""
        if not pushes:
            return (), None
        push = tuple(sorted(d for d in view.cup if known.matches(d, face)))
        if not push or push not in pushes:
            return (), None
        rest = Counter(view.cup)
        rest.subtract(push)
        return push, known.rerolled(tuple(rest.elements()))

    def _bluff_bid(self, view: PlayerView, known: Knowledge) -> Bid | None:
        """The lowest legal bid on the face we hold fewest of, if it is not far-fetched."""
        legal = view.legal
        assert legal is not None
        lowest: dict[int, Bid] = {}
        for bid in legal.bids:
            lowest.setdefault(bid.face, bid)
        plausible = [b for b in lowest.values() if known.chance_true(b) >= BLUFF_FLOOR]
        if not plausible:
            return None
        return min(plausible, key=lambda b: (sum(1 for d in view.hand if known.matches(d, b.face)), b.face))

    # ----- a siding vote -----

    def _vote(self, view: PlayerView, known: Knowledge) -> Action:
        bid = view.standing_bid
        return Vote(bid is None or known.chance_true(bid) >= 0.5)

    # ----- a turn with chips -----

    def _bet(self, view: PlayerView, known: Knowledge) -> Action | None:
        legal = view.legal
        assert legal is not None
        standing = view.standing_bid
        true_chance = known.chance_true(standing) if standing is not None else None
        if not legal.can_meet:
            # Folding loses a die for sure; all-in risks one on the claim and every chip we hold.
            if legal.can_all_in and true_chance is not None and true_chance < ALL_IN_BELOW:
                return AllIn()
            return Fold()
        moves: list[_Move] = [_Move(-1.0, -1, Fold())]
        if legal.can_accuse and true_chance is not None:
            # Never raise with an accusation: nobody pays after it, so a raise only feeds the pot
            # (of which the winner gets half back).
            moves.append(_Move(1 - 2 * true_chance, 3, Accuse()))
        claim = self._best_bid(view, known)
        if claim is not None:
            moves.append(_Move(2 * claim.chance - 1, 0, Claim(claim.bid, self._raise(view, claim.chance), claim.push)))
        best = max(moves, key=lambda m: (m.value, m.rank))
        if isinstance(best.action, Claim) and self.rng.random() < BLUFF_RATE:
            bluff = self._bluff_bid(view, known)
            if bluff is not None:
                return Claim(bluff)
        return best.action

    def _raise(self, view: PlayerView, chance: float) -> int | None:
        """Raise to the minimum with a claim that is very likely true: everyone after us must pay
        more to stay in or fold (and lose a die). Only if it costs at most half our chips."""
        legal = view.legal
        assert legal is not None
        if chance < RAISE_CONFIDENCE or legal.raise_min is None or view.chips is None:
            return None
        seat = view.seat or 0
        economy = view.options.economy
        paid = view.paid[seat] if view.paid is not None else 0
        cost = legal.raise_min - paid if economy is not None and economy.stake == "call_to_level" else legal.raise_min
        return legal.raise_min if 2 * cost <= view.chips[seat] else None

    def _safest(self, view: PlayerView, known: Knowledge) -> Action:
        return safest_action(view, known, lambda target: self._chance_holds(view, known, target))


class Odds(Protocol):
    def chance_true(self, bid: Bid) -> float: ...
    def chance_exact(self, bid: Bid) -> float: ...


def safest_action(view: PlayerView, odds: Odds, holds: Callable[[int], float]) -> Action:
    """The legal action with the best plain estimate (`holds(seat)`: the chance that what a
    challenge of `seat` would check is right). A bot plays it only if a choice of its own were
    not legal, so that no bot ever returns an illegal action."""
    standing = view.standing_bid
    standing_chance = odds.chance_true(standing) if standing is not None else 0.5

    def value(action: Action) -> float:
        if isinstance(action, Challenge):
            return 1 - 2 * holds(action.target)
        if isinstance(action, (BidAction, Claim)):
            # plain bids first: a push or a raise is a refinement, never the safe default
            extra = bool(action.push) or (isinstance(action, Claim) and action.raise_to is not None)
            return 2 * odds.chance_true(action.bid) - 1 - 0.01 * extra
        if isinstance(action, Exact) and standing is not None:
            return 2 * odds.chance_exact(standing) - 1
        if isinstance(action, Pass):
            return 1.0 if len(set(view.hand)) == 1 and not action.push else -1.0
        if isinstance(action, Vote):
            return 1.0 if action.believe == (standing_chance >= 0.5) else 0.0
        if isinstance(action, Accuse):
            return 1 - 2 * standing_chance - 0.01 * (action.raise_to is not None)
        if isinstance(action, AllIn):
            return 0.5 - standing_chance
        return -1.0

    return max(view.legal_actions, key=value)
