"""A two-player round after a push, as the game `duel.graph.Pushed` trains: what a bot needs to
look up the strategy of the round that goes on from the push.

The pusher is player 0 of that game (its dice first, and first in who may still call exact); its
moves start with the bid that carried the push. What came before the push is not part of it, so
a player who pushed again is the same game with all the dice it has shown: a reroll leaves
nothing of its cup before, and the other player's range is taken as dealt after either push.
Left to the bot's own play: a round where the other player had passed before the last push (it
may not pass again, which the game after the push does not know), a pass that carried it, and
pushes by both players.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import BidAction, Pass, PlayerView


@dataclass(frozen=True)
class AfterPush:
    """The round after a push: the pusher's dice and the other's, the dice it showed, who may
    still call an exact allowed once a game (the pusher first; None where any time or never),
    and where in the round's history the turn that carried the push is."""

    pusher: int
    dice: tuple[int, int]
    shown: tuple[int, ...]
    exact_left: tuple[bool, bool] | None
    since: int


def after_push(view: PlayerView) -> AfterPush | None:
    """The round after a push when this view is of one a duel strategy may play (module
    docstring); else None."""
    legal = view.legal
    if legal is None or legal.voting or legal.economy or view.seat is None or view.one_die_round:
        return None
    active = [s for s, a in enumerate(view.active) if a]
    if len(active) != 2 or any(not isinstance(t.action, (BidAction, Pass)) for t in view.history):
        return None
    pushes = [i for i, t in enumerate(view.history) if isinstance(t.action, (BidAction, Pass)) and t.action.push]
    if not pushes or len({view.history[i].seat for i in pushes}) != 1:
        return None
    since = pushes[-1]
    turn = view.history[since]
    if not isinstance(turn.action, BidAction):
        return None
    pusher = turn.seat
    other = active[1] if active[0] == pusher else active[0]
    if any(isinstance(t.action, Pass) and t.seat == other for t in view.history[:since]):
        return None
    left = None
    o = view.options
    if o.exact != "none" and o.exact_limit != "unlimited":
        left = (not view.exact_used[pusher], not view.exact_used[other])
    shown = tuple(sorted(view.pushed[pusher]))  # every push of the round, all the pusher's
    return AfterPush(pusher, (view.dice[pusher], view.dice[other]), shown, left, since)
