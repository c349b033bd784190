"""The equilibrium Expert mixes into a duel, as the reader weighs it.

In a heads-up round whose equilibrium is at hand, Expert plays the whole round by it with chance
DUEL_SHARE and by its own play otherwise (`bots/strong_duel.py`). The reader's model is Expert's
own play; these are the equilibrium's side of it: its chance of a move shown at a reveal from
the cup shown (`equilibrium_chance`, for the checks of `bots/reader_trust.py`), and of a move
made this round from every hand at once (`equilibrium_column`, for the belief), and the two
readings of a cup mixed by how likely each made the round's moves (`mixed`).
"""

from __future__ import annotations

import math

import numpy as np

from ..rules import BidAction, Exact, Game, PlayerView
from . import strong_duel
from .cfr import policy_at
from .strong_counts import Floats, hand_faces, hand_numbers
from .strong_duel import as_answer, as_seat, earlier_view, equilibrium_at, equilibrium_of


def equilibrium_chance(game: Game, view: PlayerView, turn: int, hand: tuple[int, ...]) -> tuple[float, int] | None:
    """Where Expert plays the round by an equilibrium with chance DUEL_SHARE (`bots/strong_duel.py`):
    the equilibrium's chance of the move at `turn` from `hand`, and how many moves were legal
    there; else None. A move is checked against Expert's own chance and this one mixed, each
    move weighed alike: without it, Expert's rounds played by the equilibrium surprised the model
    at one move in five or so, and Master, never trusting Expert, played it the equilibrium, which
    beats it by little (the ladder's top rung)."""
    if strong_duel.DUEL_SHARE <= 0 or sum(view.active) != 2:
        return None
    seat_view = earlier_view(game, as_seat(view, view.history[turn].seat), turn, hand)
    played = equilibrium_at(seat_view, None, ahead=False)  # a round shown: over
    chances = policy_at(played, seat_view) if played is not None else None
    if chances is None:
        return None
    made = view.history[turn].action
    return sum(p for action, p in chances if action == made), max(len(seat_view.legal_actions), 1)


def mixes_in(game: Game, view: PlayerView, seat: int) -> bool:
    """Whether Expert, at `seat`, would play this round by an equilibrium with chance
    DUEL_SHARE (`strong_duel.in_duel`): a heads-up round whose equilibrium is at hand."""
    if strong_duel.DUEL_SHARE <= 0 or sum(view.active) != 2:
        return False
    turn = next((i for i, t in enumerate(view.history) if t.seat == seat), None)
    if turn is None:
        return False  # no move of its to read
    first = earlier_view(game, as_seat(view, seat), turn, hand_faces(view.dice[seat], view.options.faces)[0])
    return equilibrium_of(first, None, ahead=False) is not None


def equilibrium_column(game: Game, view: PlayerView, turn: int) -> Floats | None:
    """The equilibrium's chance of the move at `turn` from every hand of the seat that made it
    (`hand_space` order); NaN where it has no answer for a hand (Expert plays its own there), and
    None where it has none at all."""
    made = view.history[turn]
    size, faces = view.dice[made.seat], view.options.faces
    hands = hand_faces(size, faces)
    seat_view = earlier_view(game, as_seat(view, made.seat), turn, hands[0])
    found = equilibrium_of(seat_view, None, ahead=False)
    if found is None:
        return None
    policy, strategy = found
    bids = [t.action.bid for t in view.history[:turn] if isinstance(t.action, BidAction)]
    answer: object = as_answer(made.action)
    if isinstance(made.action, Exact):
        from ..duel.graph import EXACT  # loaded with the strategy already

        answer = EXACT
    out = np.full(len(hands), np.nan)
    try:
        if strategy is not None:
            node = strategy.node_chances(bids)
            where = node.moves.index(answer) if answer in node.moves else None
            index = hand_numbers(size, faces)
            rows = np.array([index.get(h, -1) for h in node.hands])
            fits = (rows >= 0) & node.trained
            out[rows[fits]] = node.chances[fits, where] if where is not None else 0.0
            return out
        for j, hand in enumerate(hands):
            out[j] = policy(hand, bids).get(answer, 0.0)  # type: ignore[call-overload]
    except (ValueError, KeyError):
        return None
    return out


def mixed(own: Floats, log_own: float, eq: Floats, log_eq: float, share: float) -> Floats:
    """The hands' weights where the round is Expert's own play with chance 1 - `share` and the
    equilibrium's with `share`: each chain by the chance it gave the moves."""
    a = math.log(1 - share) + log_own if share < 1 else -math.inf
    b = math.log(share) + log_eq if share > 0 else -math.inf
    top = max(a, b)
    if top == -math.inf:
        return own
    w = math.exp(a - top) * own + math.exp(b - top) * eq
    out: Floats = w / w.sum()
    return out
