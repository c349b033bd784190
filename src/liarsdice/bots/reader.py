"""The reader: Expert's play, with the other cups read by a model of each player, learnt from the
reveals.

Expert reads a cup from its owner's bids by a generic model of bidding (`strong_belief.beliefs`:
a bidder likes the faces its hand makes likely). A player whose bids follow a known policy gives
far more away: asked for every hand it may hold, that policy says how likely each hand made each
of its moves, and Bayes' rule then finds its cup almost exactly. Played against Expert itself
this way (its own policy as the model), a local best response wins most rounds (docs/exploit.md).

The reader keeps, for every other seat, how well that seat's play fits the model: at each reveal
it asks the model how likely each move the seat made in the round was from the cup the seat
showed, and keeps the share of moves the model found surprising (under SURPRISE), `misfit`, as
a Beta estimate starting at MISFIT_PRIOR. Its belief over a cup is then the two readings mixed:
the model's with weight 1 - 2 misfit, Expert's generic one with the rest. A seat that plays like
the model is soon read by it; one that does not (a person, an equilibrium strategy, another
program) is read as Expert reads it, so the reader plays as Expert does against it.

The model is Expert's own policy (`StrongBot.scored_policies`), without the equilibrium Expert
mixes into duels where one is at hand, asked at each earlier turn of the round for every hand of
the seat whose weight is not negligible yet. Its answers are kept per position and hand for the
whole process (the first moves of a round recur from game to game). Rounds with a push (Soar),
where the pushing cup is rolled again, and one-die rounds (Perudo's palifico), whose positions
the public facts alone do not set up again, are read as Expert reads them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import cache

import numpy as np

from ..rules import Action, Game, PlayerView
from .strong import StrongBot, new_game
from .strong_belief import Floats, Round, beliefs
from .strong_counts import hand_space
from .strong_duel import OwnPolicies, earlier_view

# The model's chance of a move is mixed with this much of a move drawn alike from the legal ones:
# a move the model never makes from a hand makes that hand unlikely, not impossible.
FLOOR = 0.02
# A move shown at a reveal that the model gives less than this chance from the cup it came from
# surprises it. A seat's misfit is its share of surprising moves (a Beta estimate): about 0.05
# for Expert's own play, 0.2 for Skilled's, 0.3 for Casual's (measured on games of 4 dice a
# player). Before any reveal it is MISFIT_PRIOR, counted as MISFIT_PRIOR_MOVES moves.
SURPRISE = 0.02
MISFIT_PRIOR = 0.25
MISFIT_PRIOR_MOVES = 4.0
# The model's reading weighs 1 - MISFIT_SCALE * misfit in the belief over a cup (none from a
# misfit of 0.5 up), Expert's generic reading the rest.
MISFIT_SCALE = 2.0
# The model is asked about the likeliest hands under its reading so far that hold all but this
# share of the weight; the rest keep the floor's chance (asking the model is most of a decision's
# time, and after a move or two of a player it fits, few hands are left worth asking about).
NEGLIGIBLE = 1e-3
# At most this many hands are asked about at one move (a cup of 5 dice has 252): the likeliest.
# A hand not asked keeps its weight relative to the others (the mean chance of the move among
# the hands asked), so a decision's time stays bounded at big tables.
MAX_ASKED = 96
# Model answers kept per (position, hand), for the whole process.
KEPT_ANSWERS = 200_000

PositionKey = tuple[object, ...]


ANSWERS = OwnPolicies(KEPT_ANSWERS)  # the model's answers, per position and hand, for the process


def _position(view: PlayerView, seat: int, turn: int) -> PositionKey:
    """What the model's policy for `seat` at its turn after the first `turn` actions of the round
    depends on, besides its hand (the round's number only where chips make it count)."""
    return (
        view.options,
        seat,
        view.dice,
        view.starter,
        view.round_no if view.options.economy is not None else None,
        view.chips,
        view.history[:turn],
    )


class ReaderBot(StrongBot):
    level = "reader"
    description = "plays as Expert does, reading each other player by a model of Expert's play where its reveals fit"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        self.model = StrongBot(seed)  # asked for its policy only: its learning stays at the prior
        # per seat, Beta pseudo-counts (moves that surprised the model, moves that did not)
        self.fit: dict[int, tuple[float, float]] = {}
        self._seen: PlayerView | None = None  # the last view of ours, for the reveal after it

    # ----- learning from the reveals -----

    def misfit(self, seat: int) -> float:
        a, b = self.fit.get(seat, (MISFIT_PRIOR * MISFIT_PRIOR_MOVES, (1 - MISFIT_PRIOR) * MISFIT_PRIOR_MOVES))
        return a / (a + b)

    def learn(self, view: PlayerView) -> None:
        super().learn(view)
        before, self._seen = self._seen, view
        outcome = view.last_outcome
        if new_game(before, view):
            self.fit.clear()
        if before is None or outcome is None or outcome.round_no != before.round_no or before.seat is None:
            return
        if not _readable(before):
            return
        game = Game(before.options, before.seats)
        for i, turn in enumerate(before.history):
            seat = turn.seat
            if seat == before.seat or not before.active[seat]:
                continue
            hand = tuple(sorted(outcome.hands[seat]))
            if len(hand) != before.dice[seat]:
                continue
            chances = self._answers(game, before, seat, i, [hand])[0]
            surprised = chances.get(turn.action, 0.0) < SURPRISE
            a, b = self.fit.get(seat, (MISFIT_PRIOR * MISFIT_PRIOR_MOVES, (1 - MISFIT_PRIOR) * MISFIT_PRIOR_MOVES))
            self.fit[seat] = (a + surprised, b + (not surprised))

    # ----- the belief -----

    def belief(self, r: Round) -> dict[int, Floats] | None:
        view = r.view
        if not _readable(view):
            return None
        generic = beliefs(r)
        game = Game(view.options, view.seats)
        out = dict(generic)
        for seat in r.opponents:
            trust = 1.0 - MISFIT_SCALE * self.misfit(seat)
            if trust <= 0 or r.cup_size[seat] != view.dice[seat]:
                continue
            read = self.read(game, view, r, seat)
            out[seat] = trust * read + (1 - trust) * generic[seat]
        return out

    def read(self, game: Game, view: PlayerView, r: Round, seat: int) -> Floats:
        """The weight of every hand of `seat` (`hand_space` order) by the model's reading of its
        moves this round."""
        space = hand_space(r.cup_size[seat], r.faces)
        hands = _hands(r.cup_size[seat], r.faces)
        w = space.prior.copy()
        for i, turn in enumerate(view.history):
            if turn.seat != seat:
                continue
            alive = _likeliest(w, NEGLIGIBLE)
            capped = len(alive) > MAX_ASKED
            if capped:
                alive = np.sort(alive[np.argsort(-w[alive], kind="stable")[:MAX_ASKED]])
            asked = [hands[j] for j in alive]
            chances = self._answers(game, view, seat, i, asked)
            legal = max(len(earlier_view(game, _as_seat(view, seat), i, asked[0]).legal_actions), 1)
            likelihood = np.full(len(w), FLOOR / legal)
            for j, c in zip(alive, chances, strict=True):
                likelihood[j] += (1 - FLOOR) * c.get(turn.action, 0.0)
            if capped:
                rest = np.ones(len(w), dtype=bool)
                rest[alive] = False
                rest &= w > 0
                likelihood[rest] = float(np.average(likelihood[alive], weights=w[alive]))
            w = w * likelihood
            total = w.sum()
            if total <= 0:
                return space.prior.copy()
            w = w / total
        return w

    def _answers(
        self, game: Game, view: PlayerView, seat: int, turn: int, hands: Sequence[tuple[int, ...]]
    ) -> list[dict[Action, float]]:
        """The model's chance of each move of `seat` at its turn after the first `turn` actions,
        for each of `hands`: kept, or asked of the model for all the missing hands at once."""
        key = _position(view, seat, turn)
        got = {h: ANSWERS.get(key, h) for h in dict.fromkeys(hands)}
        missing = [h for h, c in got.items() if c is None]
        if missing:
            as_seat = _as_seat(view, seat)
            views = [earlier_view(game, as_seat, turn, h) for h in missing]
            for h, policy in zip(missing, self.model.scored_policies(views), strict=True):
                got[h] = ANSWERS.put(key, h, policy)
        return [got[h] or {} for h in hands]


def _readable(view: PlayerView) -> bool:
    """Whether the model can be asked about this round: the positions of its moves can be set up
    again from the public facts. Not after a push (the pushing cup is rolled again), nor in a
    one-die round (the table alone does not say that a round is one)."""
    return not view.one_die_round and not any(getattr(t.action, "push", ()) for t in view.history)


def _likeliest(w: Floats, negligible: float) -> np.ndarray:
    """The indices of the likeliest entries of `w` (normalised) that hold all but `negligible` of
    its sum, in index order."""
    order = np.argsort(-w, kind="stable")
    held = np.cumsum(w[order])
    n = int(np.searchsorted(held, 1.0 - negligible)) + 1
    return np.sort(order[: min(n, len(w))])


@cache
def _hands(size: int, faces: int) -> list[tuple[int, ...]]:
    """`hand_space(size, faces)` as sorted hands of faces (asked at every decision: kept)."""
    counts = hand_space(size, faces).counts
    return [tuple(f + 1 for f in range(faces) for _ in range(int(row[f]))) for row in counts]


def _as_seat(view: PlayerView, seat: int) -> PlayerView:
    """`view` with `seat` as its seat: what `earlier_view` needs to set the round up for `seat`
    (it reads only the public facts and the seat)."""
    return replace(view, seat=seat)
