"""The best bot's judgement of one decision: its own mix of moves (the `duel` level: a trained
duel strategy in a two-player round, the strong bot elsewhere) and the worth of every move, from
the duel strategy where it covers the round (`exact`), else from the multi-seat level (`estimate`).

A `Judge` judges one seat's decisions in order: its strong bot learns from the seat's views as the
bot in that seat would have (each seat's share of bids made regardless of its cup, from the
reveals it saw), so the values it gives are the ones the best bot in that seat would have played
by. `judge(view)` judges one view with a fresh judge (a hint: nothing learnt yet).
"""

from __future__ import annotations

from fractions import Fraction

from ..bots.cfr import duel_dice, duel_exact_left
from ..bots.duel import DuelBot
from ..bots.reader import KeptChances, ReaderBot
from ..bots.strong_belief import Round
from ..odds import bid_odds
from ..rules import Accuse, Action, AllIn, BidAction, Challenge, Claim, Exact, Pass, PlayerView, Vote
from .duel import duel_values, solution_values
from .estimate import estimated_values
from .judgement import ESTIMATE, EXACT, UNIT, JudgedMove, Judgement, move_text

# A move the best bot itself makes here at least this often is part of its best play (an
# equilibrium's bluff with a bid that cannot hold): it keeps its value (`sure_loss`).
PLAYED = 0.02
# Moves shown per decision besides the calls, the move made and the best bot's mix: the best few.
SHOWN = 12


class Judge:
    """The best bot sitting in one seat, judging that seat's decisions in turn (module docstring)."""

    def __init__(self, seed: int = 0, answers: KeptChances | None = None) -> None:
        self.strong = ReaderBot(seed)
        if answers is not None:
            self.strong.answers = answers  # the analysis's own (`ReaderBot.answers`)
        self.strong.ask_budget = None  # an analysis reads every hand worth reading, whatever the time
        self.best = DuelBot(seed)
        self.best.fallback = self.strong  # the duel bot's own reader, kept to learn and value with

    def judge(self, view: PlayerView, made: Action | None = None) -> Judgement:
        """The moves of `view.seat`, whose turn it is, judged; `made` among them if it can be."""
        if view.seat is None or view.legal is None or not view.legal_actions or view.to_act != view.seat:
            raise ValueError("a judgement is of the seat whose turn it is")
        chances: dict[Action, float] = {}
        for action, p in self.best.policy(view):
            chances[action] = chances.get(action, 0.0) + p
        self.strong.learn(view)  # done by the policy already, unless a duel strategy played
        wanted = [a for a in (made, *chances) if a is not None]
        source = EXACT
        values = None
        dice = duel_dice(view)
        trained_dice = duel_dice(view, passes=True)  # the trained duels have Soar's passes
        if dice is not None and self.best.source == "exact":
            # The duel level played the exact solution of a tiny duel: value the moves under it.
            solution = self.best.exact.solution_for(view.options, dice)
            values = None if solution is None else solution_values(view, solution)
        elif trained_dice is not None and self.best.source == "duel":
            # It played the trained strategy of this duel: value the moves under that strategy.
            strategy = self.best.strategy_for(view.options, trained_dice, exact_left=duel_exact_left(view))
            values = None if strategy is None else duel_values(view, strategy)
        if values is None:
            source = ESTIMATE
            values = estimated_values(view, self.strong, wanted)
        odds = {action: holds(view, action) for action in values}
        lost = -1.0 if source == EXACT else -Round(view).lose
        for action, value in values.items():
            if sure_loss(action, odds[action]) and chances.get(action, 0.0) < PLAYED:
                values[action] = min(value, lost)
        ranked = sorted(values, key=lambda a: -values[a])
        shown = set(ranked[:SHOWN]) | {a for a in wanted if a in values}
        shown |= {a for a in values if not isinstance(a, (BidAction, Claim))}
        moves = [
            JudgedMove(
                action,
                values[action],
                chances.get(action, 0.0),
                odds[action],
                move_text(action, view.seats, view.options),
            )
            for action in ranked
            if action in shown
        ]
        moves.sort(key=lambda m: (-m.value, -m.chance))
        return Judgement(tuple(moves), source, UNIT)


def sure_loss(action: Action, chance: float | None) -> bool:
    """Whether the seat's own cup already dooms the move once it is checked: a challenge of a bid
    it makes true, an exact call it rules out, a bid it makes impossible. Such a move is worth no
    more than losing the check: a bid that cannot hold lives only on the next player's mistake,
    and a best bot does not count on one, unless it makes the same bluff itself (PLAYED), as an
    equilibrium of a small duel does (docs/analysis.md)."""
    if chance is None:
        return False
    if isinstance(action, Challenge):
        return chance >= 1.0
    return isinstance(action, (Exact, BidAction, Claim)) and chance <= 0.0


def judge(view: PlayerView) -> Judgement:
    """What the best bot thinks of every move open to `view.seat`, whose turn it is (a hint)."""
    return Judge().judge(view)


def holds(view: PlayerView, action: Action) -> float | None:
    """The chance, from the seat's own knowledge (its hand, the pushed dice, how many dice are in
    play), that the bid this move challenges or makes is true; for an exact call, that the standing
    bid is exactly right. None where the move is about no bid (a pass, a fold, a challenged pass)."""
    bid = None
    exactly = False
    if isinstance(action, (BidAction, Claim)):
        bid = action.bid
    elif isinstance(action, Exact):
        bid, exactly = view.standing_bid, True
    elif isinstance(action, Challenge):
        history = view.history
        target = history[-1] if history[-1].seat == action.target else history[-2]
        bid = target.action.bid if isinstance(target.action, BidAction) else None
    elif isinstance(action, (Accuse, AllIn, Vote)):
        bid = view.standing_bid
    if bid is None or isinstance(action, Pass):
        return None
    odds = bid_odds(view, bid)
    chance: Fraction = odds.exactly if exactly else odds.at_least
    return float(chance)
