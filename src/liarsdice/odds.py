"""The odds at hand: how likely a bid is to hold, for the player who sees only their own cup.

From one seat's `PlayerView`: the dice it sees (its own hand and every seat's pushed dice) are
counted as they are; every other die in play is unknown, uniform over the faces and independent
of the rest. A bid on face `f` holds when the dice that count for `f` number at least its
quantity (RULES.md 0.3: a die showing `f`, or the wild face while wilds count and `f` is not the
wild face). So the chance is a binomial tail over the unknown dice, each counting with chance
`ways / faces` (`ways` 2 with an active wild, else 1).

Exact, not simulated: every sum is taken in whole numbers over all outcomes of the unknown dice
and kept as a `Fraction`; only what is shown is rounded. Standard library only, so the base
install and the terminal have it. The jokers' doubling and Perudo's halving change only the order
of bids, never the count, so they do not enter here; a one-die round has no wild (`view.wild`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from .rules import Bid, PlayerView

# Rows shown above the lowest bid of each face in the table of next bids.
ABOVE = 2
# Faces in the table of next bids, at most: with dice of many faces, those whose lowest bid is
# likeliest to hold (a table of a thousand faces is no help, and too big to send each turn).
MOST_FACES = 12


@lru_cache(maxsize=1 << 14)
def chance_at_least(unseen: int, need: int, ways: int, faces: int) -> Fraction:
    """P(at least `need` of `unseen` dice count), each counting on `ways` of `faces` faces."""
    if need <= 0:
        return Fraction(1)
    if need > unseen:
        return Fraction(0)
    other = faces - ways
    hits = sum(math.comb(unseen, i) * ways**i * other ** (unseen - i) for i in range(need, unseen + 1))
    return Fraction(hits, faces**unseen)


@lru_cache(maxsize=1 << 14)
def chance_exactly(unseen: int, need: int, ways: int, faces: int) -> Fraction:
    """P(exactly `need` of `unseen` dice count)."""
    if not 0 <= need <= unseen:
        return Fraction(0)
    return Fraction(math.comb(unseen, need) * ways**need * (faces - ways) ** (unseen - need), faces**unseen)


@lru_cache(maxsize=1 << 14)  # a server shows the same few chances to every seat at every step
def shown(p: Fraction) -> str:
    """A chance as a player reads it: a percentage to one decimal. Only a certainty reads 0% or
    100%; a chance that rounds to either reads <0.1% or >99.9%."""
    if p == 0:
        return "0%"
    if p == 1:
        return "100%"
    tenths = round(p * 1000)
    if tenths == 0:
        return "<0.1%"
    if tenths == 1000:
        return ">99.9%"
    return f"{tenths // 10}.{tenths % 10}%"


@dataclass(frozen=True, slots=True)
class Sight:
    """What one seat knows of the dice in play: the faces it sees and how many dice it does not."""

    faces: int
    wild: int | None
    seen: tuple[int, ...]
    unseen: int
    pushes: bool  # whether any seen die is a pushed one (so the words say where they are)
    one_die_round: bool

    def counts(self, die: int, face: int) -> bool:
        """Whether `die` counts toward a bid on `face` (a bid on the wild face counts only wilds)."""
        return die == face or (self.wild is not None and die == self.wild)

    def ways(self, face: int) -> int:
        """How many faces of an unseen die count toward a bid on `face`."""
        return 2 if self.wild is not None and face != self.wild else 1


def sight(view: PlayerView) -> Sight:
    """What `view.seat` sees of the dice that count this round."""
    seen: list[int] = []
    unseen = 0
    pushes = False
    for s in view.counted_seats:
        if s == view.seat:
            seen.extend(view.cup)
        else:
            unseen += view.dice[s] - len(view.pushed[s])
        seen.extend(view.pushed[s])
        pushes = pushes or bool(view.pushed[s])
    return Sight(view.options.faces, view.wild, tuple(sorted(seen)), unseen, pushes, view.one_die_round)


@dataclass(frozen=True, slots=True)
class BidOdds:
    """The chance that one bid holds (`at_least`) and that it is exactly right (`exactly`)."""

    bid: Bid
    seen: int  # dice seen that count for the bid
    unseen: int  # dice in play not seen
    ways: int  # faces of an unseen die that count
    faces: int
    wild: int | None
    one_die_round: bool
    pushes: bool
    at_least: Fraction
    exactly: Fraction

    @property
    def need(self) -> int:
        """How many of the unseen dice must count for the bid to hold."""
        return self.bid.quantity - self.seen

    def what_counts(self) -> str:
        f = self.bid.face
        if self.wild is None:
            return f"{f}s only: nothing is wild in a one-die round" if self.one_die_round else f"{f}s only"
        if f == self.wild:
            return f"{f}s only: a bid on the wild face counts only wilds"
        return f"{f}s and wild {self.wild}s"

    def how(self) -> str:
        """One line on how the chance is counted, in a player's words."""
        where = "in your hand and the pushed dice" if self.pushes else "in your cup"
        verb = "counts" if self.seen == 1 else "count"
        head = f"{self.bid}: you see {self.seen} that {verb} {where}"
        if self.need <= 0:
            return f"{head}, already enough: it holds for certain (100%)."
        share = Fraction(self.ways, self.faces)
        dice = "die" if self.unseen == 1 else "dice"
        if self.need > self.unseen:
            return (
                f"{head}; {self.unseen} {dice} unseen, fewer than the {self.need} more it needs: it cannot hold (0%)."
            )
        return (
            f"{head}; {self.unseen} {dice} unseen, each counts with chance {share} ({self.what_counts()}): "
            f"P(at least {self.need} more) = {shown(self.at_least)}."
        )


def bid_odds(view: PlayerView, bid: Bid, seeing: Sight | None = None) -> BidOdds:
    """The chance that `bid` holds, counted over the dice `view.seat` cannot see."""
    s = seeing if seeing is not None else sight(view)
    seen = sum(1 for d in s.seen if s.counts(d, bid.face))
    ways = s.ways(bid.face)
    need = bid.quantity - seen
    return BidOdds(
        bid,
        seen,
        s.unseen,
        ways,
        s.faces,
        s.wild,
        s.one_die_round,
        s.pushes,
        chance_at_least(s.unseen, need, ways, s.faces),
        chance_exactly(s.unseen, need, ways, s.faces),
    )


def exact_calls(view: PlayerView) -> bool:
    """Whether this round has exact calls (exact, spot-on, calza) at all."""
    o = view.options
    if o.exact == "none":
        return False
    return not (view.one_die_round and o.one_die_round is not None and not o.one_die_round.exact_allowed)


def next_bids(view: PlayerView, above: int = ABOVE) -> tuple[Bid, ...]:
    """The bids worth a row: the lowest legal bid on each face and up to `above` more on it,
    faces in the order of their lowest bid on the ladder (lowest first). Empty unless this seat
    is to bid now."""
    legal = view.legal
    if legal is None or legal.voting or not legal.bids:
        return ()
    by_face: dict[int, set[int]] = {}
    for b in legal.bids:  # lowest first, so faces come in the order of their lowest bid
        by_face.setdefault(b.face, set()).add(b.quantity)
    rows: list[Bid] = []
    for face, quantities in by_face.items():
        low = min(quantities)
        rows.extend(Bid(q, face) for q in range(low, low + above + 1) if q in quantities)
    return tuple(rows)


@dataclass(frozen=True, slots=True)
class Odds:
    """The odds panel of one seat: the standing bid and the bids it might make next."""

    standing: BidOdds | None
    bids: tuple[BidOdds, ...]
    exact: bool  # whether exact calls exist this round, so P(exactly) matters

    def how(self) -> str:
        """The one line of how, for the standing bid; with none, for the first bid that may be
        made and is neither sure nor impossible (there the sum has terms to show), else the first."""
        if self.standing is not None:
            return self.standing.how()
        first = next((b for b in self.bids if 0 < b.at_least < 1), self.bids[0] if self.bids else None)
        return first.how() if first is not None else "No bid stands yet."


def odds(view: PlayerView, above: int = ABOVE, most_faces: int = MOST_FACES) -> Odds | None:
    """The odds panel for `view.seat`, or None for a spectator or a seat without dice in play.

    The next bids are those of `next_bids`, on at most `most_faces` faces: when there are more,
    the faces whose lowest bid is likeliest to hold, kept in ladder order."""
    if view.seat is None or not view.active[view.seat] or view.phase == "over":
        return None
    s = sight(view)
    standing = bid_odds(view, view.standing_bid, s) if view.standing_bid is not None else None
    bids = next_bids(view, above)
    lowest: dict[int, Bid] = {}
    for b in bids:  # ladder order: the first bid on a face is its lowest
        lowest.setdefault(b.face, b)
    if len(lowest) > most_faces:
        ranked = sorted(enumerate(lowest.values()), key=lambda ib: (-bid_odds(view, ib[1], s).at_least, ib[0]))
        kept = {b.face for _, b in ranked[:most_faces]}
        bids = tuple(b for b in bids if b.face in kept)
    rows = tuple(bid_odds(view, b, s) for b in bids)
    return Odds(standing, rows, exact_calls(view))
