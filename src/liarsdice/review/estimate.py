"""The multi-seat level's worth of every move at a view: the strong bot's own scores, in expected
dice (bots/strong.py, bots/strong_estimate.py, and bots/strong_tavern.py for Tavern's chips), plus
the move actually made where the bot did not weigh it (a bid it would never consider, say)."""

from __future__ import annotations

from collections.abc import Sequence

from ..bots.strong import StrongBot
from ..bots.strong_belief import Round
from ..bots.strong_estimate import Estimate
from ..rules import Action, BidAction, Pass, PlayerView, Vote


def vote_values(view: PlayerView, estimate: Estimate) -> dict[Action, float]:
    """A siding vote decides only whether the voter is on the right side: in the shedding game
    the right side sheds a die (+1), in the elimination game the wrong side loses one (-1)."""
    bid = view.standing_bid
    true = 0.5 if bid is None else estimate.chance_true(bid)
    shedding = view.options.goal == "shedding"
    values: dict[Action, float] = {}
    for believe in (True, False):
        right = true if believe else 1 - true
        values[Vote(believe)] = right if shedding else -(1 - right)
    return values


def estimated_values(view: PlayerView, bot: StrongBot, wanted: Sequence[Action] = ()) -> dict[Action, float]:
    """Each move the strong level weighs at `view` and its value in expected dice, and each of
    `wanted` (the move made, the moves of the best bot's mix) where it can be scored: a move that
    this level cannot score is left out."""
    legal = view.legal
    assert legal is not None
    r = Round(view, bot.noise())
    estimate = Estimate(r, None, bot.belief(r))  # the reader's reading of the others, where it has one
    if legal.voting:
        return vote_values(view, estimate)
    values: dict[Action, float] = {}
    for scored in bot.scored_moves(view, estimate):
        if scored.action not in values or scored.value > values[scored.action]:
            values[scored.action] = scored.value
    for made in wanted:
        if made in values:
            continue
        if isinstance(made, BidAction):
            value, _ = estimate.score_bids([made.bid], made.push)
            values[made] = float(value[0])
        elif isinstance(made, Pass):
            valid = len(set(view.hand)) == 1
            value, _ = estimate.score_bids([view.standing_bid], made.push, pass_valid=valid)
            values[made] = float(value[0])
    return values
