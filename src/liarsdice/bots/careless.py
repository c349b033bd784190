"""The careless bots of the Beginner and Casual levels: the probability bot, with slips.

A new player does not bid at random: they raise a little, or call liar when a bid feels too high,
but on a hunch rather than on the odds. These bots play the probability bot's move, except that
at a fixed rate (`rate`, per decision, drawn from the bot's own seeded generator, so a game with
the same seeds plays out the same) they pick uniformly among such hunches instead:

* the smallest legal bid (a claim, in a game with chips) on each face, without a push or a raise,
* a challenge of the latest bid (an accusation, with chips),
* in a vote, either side.

Where no hunch is legal (only a fold or an all-in is left), they play the probability bot's move.
"""

from __future__ import annotations

from typing import ClassVar

from ..rules import Accuse, Action, Bid, BidAction, Challenge, Claim, PlayerView, Vote
from .base import Limit
from .probability import ProbabilityBot


def hunches(view: PlayerView) -> list[Action]:
    """The moves a careless player might make on a hunch here (module docstring), all legal."""
    legal = view.legal
    if legal is None:
        return []
    moves: list[Action]
    if legal.voting:
        moves = [Vote(True), Vote(False)]
    else:
        lowest: dict[int, Bid] = {}
        for bid in legal.bids:  # in the order of the bid ladder: the first of a face is its smallest
            lowest.setdefault(bid.face, bid)
        if legal.economy:
            moves = [Claim(bid) for bid in lowest.values()]
            if legal.can_accuse:
                moves.append(Accuse())
        else:
            moves = [BidAction(bid) for bid in lowest.values()]
            moves += [Challenge(target) for target in legal.challenge_targets[:1]]
    allowed = set(view.legal_actions)
    return [m for m in moves if m in allowed]


class CarelessBot(ProbabilityBot):
    """The probability bot, following a hunch at `rate` (module docstring)."""

    rate: ClassVar[float] = 0.5

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        if view.legal_actions and self.rng.random() < self.rate:
            moves = hunches(view)
            if moves:
                return moves[self.rng.randrange(len(moves))]
        return super().act(view, limit)


class BeginnerBot(CarelessBot):
    level = "beginner"
    description = "plays the odds of its own dice, but half the time a hunch instead: a small raise or a challenge"
    rate = 0.5


class CasualBot(CarelessBot):
    level = "casual"
    description = "plays the odds of its own dice, and a hunch about one move in five"
    rate = 0.2
