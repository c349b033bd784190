"""Tavern's chips heads-up for every hand of ours at once: the chance that the strong bot's policy
(`strong_tavern.HeadsUp`'s moves, `strong_mixing.picked`) makes one move, from each hand a seat
may hold at one public position, as a reader of the bot asks (`StrongBot.hand_chances`). The
numbers are each hand's own policy's, to rounding (tests/test_strong_batch.py).

The moves come as `HeadsUp.moves` lists them, one column each: the fold, the accusation and the
all-in, every candidate claim at the current bet, then at each raise the hand's best three claims
(by their worth at the current bet, best first: a column is the hand's first, second or third).
A hand's best move is the first column of the highest value and rank, as `max` finds it in the
hand's own list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..rules import Accuse, Action, AllIn, Bid, Claim, Fold, PlayerView
from .strong_belief import lookup, standing_chance
from .strong_counts import BoolArray, Floats, Ints, matches
from .strong_estimate import Estimate
from .strong_hands import Hands, Picked
from .strong_mixing import BLUFF_MARGIN, BLUFF_RATE
from .strong_tavern import RAISED_CLAIMS, ChipModel, HeadsUp, StrongBot, owed_by, raise_cost


def chip_chances(
    bot: StrongBot,
    model: ChipModel,
    view: PlayerView,
    first: Estimate,
    known: Ints,
    short: BoolArray,
    bids: Sequence[Bid],
    keep: BoolArray,
    action: Action,
) -> Floats | None:
    """[H]: the chance of `action` from each hand. `known`: [H, F], each hand's `Round.known`;
    `short`: [H, F], the faces each hand holds fewer of than an unseen cup would (its bluffs);
    `bids`, `keep`: the candidate bids and [H, bids] which each hand weighs. None where the bids
    are too many to look ahead from together."""
    legal = view.legal
    assert legal is not None and view.chips is not None
    r = first.r
    hands = len(known)
    game = HeadsUp(bot, view, first, model)
    claiming = legal.can_meet and bool(legal.bids) and bool(bids)
    together = Hands(first, known, bids, {}, False) if claiming else None
    face = np.array([b.face - 1 for b in bids], dtype=np.intp)
    # the columns in blocks of [H, n]: their values, ranks, bluffs, chances of standing, moves
    values: list[Floats] = []
    ranks: list[int] = []
    bluffs: list[BoolArray] = []
    unchallenged: list[Floats] = []
    actions: list[Action | _Raised] = []  # a column's move, or the bid each hand raises with there

    def block(
        value: Floats,
        rank: int,
        moves: Sequence[Action | _Raised],
        bluff: BoolArray | None = None,
        stands: Floats | float = 0.0,
    ) -> Floats:
        """Columns of one rank ([H, n] values before they are divided by a die); their values."""
        shape = (hands, len(moves))
        values.append(np.broadcast_to(value / game.die, shape))
        ranks.extend([rank] * len(moves))
        bluffs.append(bluff if bluff is not None else np.zeros(shape, dtype=bool))
        unchallenged.append(np.broadcast_to(np.asarray(stands, dtype=float), shape))
        actions.extend(moves)
        return values[-1]

    def column(value: Floats | float, rank: int, move: Action) -> None:
        block(np.broadcast_to(np.asarray(value, dtype=float)[..., None], (hands, 1)), rank, [move])

    owed = legal.owed or 0
    column(game.after(False, 0, 0, game.pot), -1, Fold())
    standing, bidder = view.standing_bid, view.standing_bidder
    if standing is not None and bidder is not None:
        holds = first.chances_true(standing, known)
        if legal.can_accuse:
            column(game.check(holds, owed, 0), 3, Accuse())
        if legal.can_all_in:
            column(game.check(holds, view.chips[r.me], 0), 3, AllIn())
    if claiming:
        assert together is not None
        level = view.current_bet or 0
        claims = _Claims(game, together, first, known, bids)
        now = claims.at(owed, level)
        if now is None:
            return None
        worth, stands, forced = now
        # a forced answer's claims are scored as no bluff (`HeadsUp.forced`)
        bluff = None if forced else short[:, face] & keep
        at_now = block(np.where(keep, worth, -np.inf), 0, [Claim(bid) for bid in bids], bluff, stands)
        if legal.raise_min is not None and legal.raise_max is not None:
            # each hand's best claims at the current bet, best first (a stable sort, as `sorted`)
            order = np.argsort(-at_now, axis=1, kind="stable")[:, :RAISED_CLAIMS]
            has = np.take_along_axis(keep, order, axis=1)
            picked = together.picked(bids, order)  # None: some bids not looked ahead from together
            for raised in game.levels(legal.raise_min, legal.raise_max):
                found = claims.at(raise_cost(view, r.me, raised), raised, picked)
                if found is None:
                    return None
                worth, stands, _ = found
                at_picks = worth if picked is not None else np.take_along_axis(worth, order, axis=1)
                moves = [_Raised(order[:, k], raised) for k in range(order.shape[1])]
                block(np.where(has, at_picks, -np.inf), 0, moves, None, stands[order])
    return _chance_of(
        action,
        bids,
        actions,
        np.concatenate(values, axis=1),
        np.array(ranks),
        np.concatenate(bluffs, axis=1),
        np.concatenate(unchallenged, axis=1),
    )


@dataclass(frozen=True, eq=False)
class _Raised:
    """A column of raised claims: the bid each hand claims there ([H], an index into the bids),
    raising the bet to `level`."""

    bid: Ints
    level: int


class _Claims:
    """Our claims of `bids` at any bet level, for every hand: `HeadsUp.claims`. What does not
    depend on the level is worked out once: the look-ahead (`Hands`), and the next player's
    forced answers where it cannot meet the bet."""

    def __init__(self, game: HeadsUp, together: Hands, first: Estimate, known: Ints, bids: Sequence[Bid]) -> None:
        self.game, self.together, self.first, self.known, self.bids = game, together, first, known, bids
        self._forced: tuple[Floats, Floats] | None = None  # [bids] accuses, [H, bids] true if accused

    def at(self, cost: int, level: int, pick: Picked | None = None) -> tuple[Floats, Floats, bool] | None:
        """[H, bids] the worth of claiming each bid at bet `level` (paying `cost`), before it is
        divided by a die ([H, K] at `pick`'s columns alone, if given), [bids] the chance that it
        stands, and whether the next player cannot meet the bet (it must then go all-in or fold).
        None where the bids are too many to look ahead from together."""
        game, bids = self.game, self.bids
        view = game.view
        assert view.chips is not None
        theirs = owed_by(view, game.them, level)
        if view.chips[game.them] < theirs:
            accuses, true_if_accused = self._forced_answers()
            all_in = view.chips[game.them]
            pot = game.pot + cost + all_in
            won, lost = game.after(True, cost, all_in, pot), game.after(False, cost, all_in, pot)
            folded = game.after(True, cost, 0, game.pot + cost)
            worth = accuses * (true_if_accused * won + (1 - true_if_accused) * lost) + (1 - accuses) * folded
            if pick is not None:
                worth = worth[np.arange(len(worth))[:, None], pick.bids]
            return worth, 1 - accuses, True
        pot = game.pot + cost + theirs
        win, lose = game.after(True, cost, theirs, pot), game.after(False, cost, theirs, pot)
        mid = (win + lose) / 2
        if pick is None:
            table = self.together.values(bids, win - mid, mid - lose)
        else:
            table = pick.values(win - mid, mid - lose)
        stood = self.together.stands(bids)
        if table is None or stood is None:
            return None
        return mid + table, stood, False

    def _forced_answers(self) -> tuple[Floats, Floats]:
        if self._forced is None:
            answers = [_forced_answer(self.first, bid, self.game.them, self.known) for bid in self.bids]
            self._forced = np.array([a for a, _ in answers]), np.column_stack([t for _, t in answers])
        return self._forced


def _forced_answer(first: Estimate, bid: Bid, nxt: int, known: Ints) -> tuple[float, Floats]:
    """`strong_tavern.forced_answer` for every hand: the chance that the next player accuses, and
    [H] the chance that our claim is true if it does."""
    r = first.r
    match = matches(r.cup_size[nxt], r.faces, r.wild).match
    unknown = r.total - r.cup_size[nxt] - r.pushed_total
    p = standing_chance(r, match, unknown, r.pushed_match, bid)
    w = first.weights[nxt]
    accusing = w * (p < 0.5)
    accuses = float(accusing.sum())
    if accuses <= 0:
        return 0.0, first.chances_true(bid, known)  # (weighs nothing: nobody accuses)
    f = bid.face - 1
    ours = known[:, f]
    out = np.zeros(len(known))
    for count in np.unique(ours).tolist():
        true = lookup(first.tails_without(nxt), np.array(f), bid.quantity - count - match[:, f])
        out[ours == count] = float((accusing * true).sum()) / accuses
    return accuses, out


def _chance_of(
    action: Action,
    bids: Sequence[Bid],
    actions: Sequence[Action | _Raised],
    values: Floats,
    ranks: Ints,
    bluffs: BoolArray,
    unchallenged: Floats,
) -> Floats:
    """`strong_mixing.picked` for every hand: the chance of `action`."""
    hands = len(values)
    rows = np.arange(hands)
    top = values.max(axis=1)
    tied = values == top[:, None]
    best_rank = np.where(tied, ranks[None, :], np.iinfo(np.int64).min).max(axis=1)
    best = np.argmax(tied & (ranks[None, :] == best_rank[:, None]), axis=1)
    bluff = bluffs & (values >= (top - BLUFF_MARGIN)[:, None])
    has_bluff = bluff.any(axis=1)
    bluff_col = np.argmax(np.where(bluff, values, -np.inf), axis=1)
    rate = BLUFF_RATE * unchallenged[rows, best]
    claims = np.array([isinstance(made, (_Raised, Claim)) for made in actions])
    rate = np.where(claims[best] & has_bluff & (rate > 0), rate, 0.0)
    out = np.zeros(hands)
    for c, made in enumerate(actions):
        if isinstance(made, _Raised):
            if not (
                isinstance(action, Claim) and action.raise_to == made.level and action.bid in bids and not action.push
            ):
                continue
            this = made.bid == bids.index(action.bid)
        elif made != action:
            continue
        else:
            this = np.ones(hands, dtype=bool)
        out += np.where(this & (best == c), 1 - rate, 0.0) + np.where(this & (bluff_col == c), rate, 0.0)
    return out
