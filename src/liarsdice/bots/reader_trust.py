"""What the reveals teach the reader of each other player: whether it plays as the model says.

At each reveal the reader checks the moves a player made in the round against the model (Expert's
own play) from the cup the player showed (`checkable`): a move the model gives less than SURPRISE
from that cup surprises it. A player's `misfit` is its share of surprising moves, a Beta estimate
that starts at MISFIT_PRIOR. Where Expert would mix an equilibrium into the duel, a move is
checked against the two mixed (`reader_mixture.equilibrium_chance`), and the rounds shown weigh
Expert against that equilibrium alone (`evidence`). A duel is trusted to the reader (`trusts`)
only against a player the model fits and whose rounds say Expert.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

from ..rules import PlayerView
from . import strong_duel

# The model's chance of a move is mixed with this much of a move drawn alike from the legal ones:
# a move the model never makes from a hand makes that hand unlikely, not impossible.
FLOOR = 0.02
# A player whose misfit is under this plays as the model says (the reader starts every seat at
# 0.25, as 2 moves: 3 moves or more, none surprising, bring it under; about 0.05 for Expert's own
# play, 0.2 for Skilled's). Master hands a duel to the reader then (`bots/duel.py`), and the
# reader plays it as Expert's own play, the equilibrium Expert mixes in left out (`hides_in_duel`).
TRUST_MISFIT = 0.12
# A move shown at a reveal that the model gives less than this chance from the cup it came from
# surprises it. A seat's misfit is its share of surprising moves (a Beta estimate): about 0.05
# for Expert's own play, 0.2 for Skilled's, 0.3 for Casual's (measured on games of 4 dice a
# player). Before any reveal it is MISFIT_PRIOR, counted as MISFIT_PRIOR_MOVES moves. A heads-up
# game shows some 7 moves of the other player in all: counted as 4, the prior took 5 of them to
# trust a player who fits, and Master played its equilibrium against Expert most of the game
# (Master against Expert, 500 games, seed 1: `red-dead` 0.516 with 4, 0.562 with 2; `perudo`
# 0.644 and 0.672).
SURPRISE = 0.02
MISFIT_PRIOR = 0.25
MISFIT_PRIOR_MOVES = 2.0
# the prior as Beta pseudo-counts: (moves that surprised the model, moves that did not)
PRIOR_FIT = (MISFIT_PRIOR * MISFIT_PRIOR_MOVES, (1 - MISFIT_PRIOR) * MISFIT_PRIOR_MOVES)
# Where Expert would mix an equilibrium into a duel, a player whose moves the two mixed explain
# may be Expert, or an equilibrium player, which the reader must not play as it plays Expert (it
# loses to one). The rounds shown tell them apart: how much likelier a round's moves are from
# Expert (its own play in 4 rounds of 10) than from the equilibrium alone, a likelihood ratio of
# at least DUEL_SHARE a round. Master trusts such a player only once the log of the ratios
# over the rounds shown comes to EVIDENCE: a round of Expert's own play, whose moves are near
# certain from its cup, brings it there; against an equilibrium player the sum drifts down.
EVIDENCE = math.log(2.0)
# How often a trusted player plays a round by the equilibrium, as the belief weighs it
# (`share`): learnt from the rounds shown, starting at DUEL_SHARE counted as SHARE_PRIOR_ROUNDS
# rounds (Expert's own share; the reference program of the goals, with nothing trained, mixes
# in no equilibrium but one die each). None: DUEL_SHARE always.
SHARE_PRIOR_ROUNDS: float | None = 2.0


class Trust:
    """Per other seat, what the checks of its moves found (`count`), for one game."""

    def __init__(self) -> None:
        # per seat, Beta pseudo-counts (moves that surprised the model, moves that did not)
        self.fit: dict[int, tuple[float, float]] = {}
        # per seat and round shown where Expert would mix in an equilibrium: the logs of the
        # chance of the moves checked from Expert's own play and from the equilibrium (`evidence`)
        self.rounds: dict[int, dict[Hashable, tuple[float, float]]] = {}

    def clear(self) -> None:
        self.fit.clear()
        self.rounds.clear()

    def count(self, view: PlayerView, turn: int, chance: float, equilibrium: tuple[float, int] | None) -> None:
        """The move at `turn` of the round of `view`, checked: the model's `chance` of it from
        the cup shown, and where Expert would mix an equilibrium in, that equilibrium's chance
        and how many moves were legal (`reader_mixture.equilibrium_chance`)."""
        seat = view.history[turn].seat
        if equilibrium is not None:
            eq, legal = equilibrium
            # the round's evidence: each chance floored as the reading floors it
            rounds = self.rounds.setdefault(seat, {})
            key = (view.round_no, view.starter, view.dice)
            own_log, eq_log = rounds.get(key, (0.0, 0.0))
            rounds[key] = (
                own_log + math.log(FLOOR / legal + (1 - FLOOR) * chance),
                eq_log + math.log(FLOOR / legal + (1 - FLOOR) * eq),
            )
            share = strong_duel.DUEL_SHARE
            chance = (1 - share) * chance + share * eq
        surprised = chance < SURPRISE
        a, b = self.fit.get(seat, PRIOR_FIT)
        self.fit[seat] = (a + surprised, b + (not surprised))

    def misfit(self, seat: int) -> float:
        a, b = self.fit.get(seat, PRIOR_FIT)
        return a / (a + b)

    def evidence(self, seat: int) -> float | None:
        """The log of how much likelier the rounds shown of `seat`, where Expert would mix in an
        equilibrium, are from Expert than from that equilibrium alone; None before any."""
        rounds = self.rounds.get(seat)
        if not rounds:
            return None
        share = strong_duel.DUEL_SHARE
        total = 0.0
        for own, eq in rounds.values():
            ratio = min(own - eq, 50.0)  # Expert's own play, against the equilibrium
            total += math.log((1 - share) * math.exp(ratio) + share)
        return total

    def share(self, seat: int) -> float:
        """How often `seat` plays a round by the equilibrium Expert mixes in: each round shown
        weighed by how likely its moves were from either (Bayes' rule, a few steps of EM), with
        DUEL_SHARE as SHARE_PRIOR_ROUNDS rounds before any."""
        prior = strong_duel.DUEL_SHARE
        rounds = list(self.rounds.get(seat, {}).values())
        if SHARE_PRIOR_ROUNDS is None or not rounds or not 0 < prior < 1:
            return prior
        ratios = [min(max(eq - own, -50.0), 50.0) for own, eq in rounds]
        share = prior
        for _ in range(8):
            odds = share / (1 - share)
            equilibrium = sum(odds * math.exp(r) / (1 + odds * math.exp(r)) for r in ratios)
            share = (prior * SHARE_PRIOR_ROUNDS + equilibrium) / (SHARE_PRIOR_ROUNDS + len(ratios))
        return share

    def trusts(self, seat: int) -> bool:
        """Whether `seat` has shown it plays as the model does, and where Expert would mix in an
        equilibrium, that it is Expert rather than the equilibrium alone."""
        if self.misfit(seat) >= TRUST_MISFIT:
            return False
        evidence = self.evidence(seat)
        return evidence is None or evidence >= EVIDENCE


def checkable(view: PlayerView, shown: Sequence[Sequence[int]]) -> list[tuple[int, tuple[int, ...]]]:
    """The moves of this round (`view` our last view of it) the model can be asked about from the
    cups `shown` at its reveal, each its turn and its mover's cup: the others' moves before the
    first push, but a pusher's (its cup shown is not the one it moved from). None in a one-die
    round. In Soar most heads-up rounds hold a push: checking only rounds without one left the
    reader a few moves a game to learn from."""
    if view.one_die_round:
        return []
    pushed_at = [i for i, t in enumerate(view.history) if getattr(t.action, "push", ())]
    before_push = pushed_at[0] if pushed_at else len(view.history)
    pushers = {view.history[i].seat for i in pushed_at}
    out = []
    for i, turn in enumerate(view.history[:before_push]):
        seat = turn.seat
        hand = tuple(sorted(shown[seat]))
        if seat != view.seat and seat not in pushers and view.active[seat] and len(hand) == view.dice[seat]:
            out.append((i, hand))
    return out
