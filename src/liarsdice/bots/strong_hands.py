"""Every hand of ours at one public position, scored at once (`Hands`). The strong bot's policy is
asked for every hand a seat may hold: by a reader of Expert's play (`bots/reader.py`), by
`liarsdice exploit`, by the equilibrium mixed into duels (`bots/strong_duel.py`). Each hand's
moves come out exactly as that hand's own estimate scores them (`bots/strong_estimate.py`), in a
fifth to a tenth of the time (benchmarks/strong_batch.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np

from ..rules import Bid
from .strong_counts import BoolArray, Floats, Ints
from .strong_estimate import Estimate, LookAhead, called_value, challenge_value, facing_value, raise_worth


class _Set(NamedTuple):
    """A look-ahead `Hands` made: of the bids scored without a push, of a pass, or of the bids
    scored with pushes."""

    row: dict[tuple[tuple[int, ...], Bid | None], int]  # each bid's row, by its push and itself
    ahead: LookAhead  # levelled: a copy of the rows for each count of our dice (`Hands`)
    at: Ints | None  # [H, C]: levelled, the row each hand reads the truth of each bid from


class Hands:
    """Every hand of ours at one public position, scored at once: `StrongBot.scored_policies` is
    asked for the policy of every hand a seat may hold (a reader's model, `liarsdice exploit`).

    The next player's answers to our bids owe nothing to our hand (`Answers`): they are worked
    out here once, for every bid any of the hands scores. Our hand enters only through how many
    of our dice count for each face (`Round.known`), and the truth of a bid, or of a raise,
    reads our count on its own face alone. So the rest is worked out once for each count a hand
    of ours may have on a face (a level: `level[h, f]` is hand h's count on face f above the
    fewest of all the hands), and each hand reads its values at its own counts. After a push we
    know of the dice only what everyone sees, whatever the rest of our hand was: one look-ahead
    serves every hand. The numbers come out as each hand's own `Estimate.score_bids` makes them,
    operation for operation; bids left out here (too many to look at from every hand of the
    next player's) are left to it."""

    def __init__(
        self,
        first: Estimate,
        known: Ints,
        bids: Sequence[Bid],
        pushes: dict[tuple[int, ...], list[Bid]],
        passing: bool,
    ) -> None:
        """`first`: the estimate of one hand of ours, whose belief over the other cups every hand
        shares; `known`: [H, F], each hand's `Round.known`; `bids`: every bid any of the hands
        scores without a push; `pushes`: the bids scored with each push; `passing`: whether a
        pass is scored. Hand h's estimate reads its values here as number h (`Estimate.hands`)."""
        self.first = first
        self.base = known.min(axis=0)
        self.level = known - self.base
        self.levels = int(self.level.max()) + 1
        # the set of each push (or the pass); each set's values at each stakes; its likeliest raises
        self._sets: dict[tuple[tuple[int, ...], bool], _Set] = {}
        self._values: dict[tuple[int, bool | None, float, float], Floats] = {}
        self._likeliest: dict[int, Floats] = {}
        self._facing_at: dict[int, Ints] = {}
        self._able: dict[int, BoolArray] = {}
        # the set and rows of each list of bids scored (Tavern scores its best claims at every raise)
        self._rows: dict[tuple[tuple[int, ...], bool, tuple[Bid | None, ...]], tuple[_Set, Ints] | None] = {}
        if bids:
            self._levelled(bids, None)
        if passing:
            self._levelled([first.r.view.standing_bid], True)
        groups = [(pushed, push) for push, pushed in pushes.items() if pushed]
        if groups and first.whole(sum(len(b) for b, _ in groups)):
            self._pushed(groups)
        else:
            for group in groups:
                self._pushed([group])

    def _levelled(self, bids: Sequence[Bid | None], pass_valid: bool | None) -> None:
        """One look-ahead of `bids` without a push (or of the pass), a copy of its rows at each
        level of our counts."""
        first = self.first
        answers = first.answers([(bids, ())], pass_valid)
        if answers is None or not answers.whole:
            return
        count = len(bids)
        # row k * count + c: bid c, our count on every face at level k
        known = np.repeat(self.base[None, :] + np.arange(self.levels)[:, None], count, axis=0)
        ahead = first.given(answers.tiled(self.levels, known))
        if answers.faces is not None:
            # the truth of bid c, for hand h: at its count on the bid's face
            at = self.level[:, answers.faces] * count + np.arange(count)
        else:
            at = np.tile(np.arange(count), (len(self.level), 1))  # a pass: the same at every level
        self._sets[((), pass_valid is not None)] = _Set({((), b): i for i, b in enumerate(bids)}, ahead, at)

    def _pushed(self, groups: Sequence[tuple[Sequence[Bid], tuple[int, ...]]]) -> None:
        """One look-ahead of the bids of `groups`, each with its push."""
        answers = self.first.answers(groups, None)
        if answers is None or not answers.whole:
            return
        rows = [(push, b) for bids, push in groups for b in bids]
        found = _Set({key: i for i, key in enumerate(rows)}, self.first.given(answers), None)
        for _, push in groups:
            self._sets[(push, False)] = found

    def score(
        self,
        hand: int,
        bids: Sequence[Bid | None],
        push: tuple[int, ...],
        pass_valid: bool | None,
        win: float,
        lose: float,
    ) -> tuple[Floats, Floats] | None:
        """`Estimate.score_bids` of hand number `hand`, or None if these bids are not here."""
        found = self._looked_up(bids, push, pass_valid, win, lose)
        if found is None:
            return None
        which, picked, values = found
        if which.at is None:
            return values[picked], which.ahead.stands[picked]
        return values[hand, picked], which.ahead.stands[picked]

    def values(
        self,
        bids: Sequence[Bid | None],
        win: float,
        lose: float,
        push: tuple[int, ...] = (),
        pass_valid: bool | None = None,
    ) -> Floats | None:
        """[H, len(bids)]: `score`'s values of these bids (with `push`, or of a pass), for every
        hand at once, or None if they are not all here."""
        found = self._looked_up(bids, push, pass_valid, win, lose)
        if found is None:
            return None
        which, picked, values = found
        if which.at is None:
            return np.broadcast_to(values[picked], (len(self.level), len(picked)))
        out: Floats = values[:, picked]
        return out

    def picked(self, bids: Sequence[Bid], pick: Ints) -> Picked | None:
        """`values` of `bids` (without a push) at `pick` alone ([H, K]: each hand's K columns of
        the bids), at any stakes: Tavern scores each hand's best claims at every raise level."""
        found = self._rows_of(bids, (), False)
        if found is None:
            return None
        which, rows = found
        return Picked(self, which, rows[pick], pick)

    def stands(self, bids: Sequence[Bid]) -> Floats | None:
        """[len(bids)]: the chance that the next player lets each of these bids (without a push)
        stand, the same whatever our hand, or None if they are not all here."""
        found = self._rows_of(bids, (), False)
        if found is None:
            return None
        which, picked = found
        out: Floats = which.ahead.stands[picked]
        return out

    def _looked_up(
        self, bids: Sequence[Bid | None], push: tuple[int, ...], pass_valid: bool | None, win: float, lose: float
    ) -> tuple[_Set, Ints, Floats] | None:
        """The set that holds these bids, their rows in it, and its values at these stakes."""
        found = self._rows_of(bids, push, pass_valid is not None)
        if found is None:
            return None
        which, picked = found
        values = self._values.get((id(which), pass_valid, win, lose))
        if values is None:
            values = self._values[(id(which), pass_valid, win, lose)] = self._table(which, win, lose, pass_valid)
        return which, picked, values

    def _rows_of(self, bids: Sequence[Bid | None], push: tuple[int, ...], passing: bool) -> tuple[_Set, Ints] | None:
        """`_find`, kept per list of bids (Tavern asks for the same bids at every raise)."""
        key = (push, passing, tuple(bids))
        if key not in self._rows:
            self._rows[key] = self._find(*key)
        return self._rows[key]

    def _find(self, push: tuple[int, ...], passing: bool, bids: tuple[Bid | None, ...]) -> tuple[_Set, Ints] | None:
        """The set that holds these bids with this push, and their rows in it."""
        found = self._sets.get((push, passing))
        if found is None or any((push, b) not in found.row for b in bids):
            return None
        return found, np.array([found.row[(push, b)] for b in bids], dtype=np.intp)

    def _table(self, found: _Set, win: float, lose: float, pass_valid: bool | None) -> Floats:
        """[H, C] (levelled) or [C]: the value of each bid of `found` at these stakes."""
        first, ahead = self.first, found.ahead
        if found.at is None:
            return first.values_at(ahead, win, lose, pass_valid)
        count = len(found.row)
        value = called_value(ahead, win, lose, pass_valid)[found.at]
        f = ahead.facing
        if f is None:
            return value
        faces, level = first.r.faces, self.level
        # facing a raise on face g, hand h reads its challenge at its own count on g: where in the
        # flat [levels * C, F] table, found once for every stakes (Tavern asks at each raise level)
        at = self._facing_at.get(id(found))
        if at is None:
            at = self._facing_at[id(found)] = facing_index(level, count, np.arange(count)[None, :], faces)
        challenge = np.take(challenge_value(f, win, lose), at)
        able = self.able(found)
        if win >= 0 and lose >= 0:
            # Our raise is worth more the likelier it is, in floating point too (`raise_worth`,
            # with stakes that are not negative): the best raise is the likeliest, whatever the
            # stakes, found once.
            best = np.where(able, raise_worth(self._likeliest_raise(found), win, lose), -np.inf)
        else:
            worth = np.where(f.raised > 0, raise_worth(f.raise_chance, win, lose), -np.inf)
            best = self._best_at_levels(worth, count)
        return value + first.r.come_back * facing_value(f.group[:count], challenge, best)

    def _likeliest_raise(self, found: _Set) -> Floats:
        """[H, C, F]: the chance of our likeliest raise above the next player's raise on each face
        (0 where we have none), found once: the best raise at any stakes that are not negative."""
        f = found.ahead.facing
        assert f is not None
        if id(found) not in self._likeliest:
            chance = self._best_at_levels(np.where(f.raised > 0, f.raise_chance, -np.inf), len(found.row))
            # 0: no raise, and no inf to multiply
            self._likeliest[id(found)] = np.where(self.able(found), chance, 0.0)
        return self._likeliest[id(found)]

    def able(self, found: _Set) -> BoolArray:
        """[C, F]: whether we have a raise above the next player's raise on each face, facing
        each bid of `found` (found once per set)."""
        if id(found) not in self._able:
            f = found.ahead.facing
            assert f is not None
            self._able[id(found)] = np.asarray((f.raised[: len(found.row)] > 0).any(axis=2))
        return self._able[id(found)]

    def _best_at_levels(self, table: Floats, count: int) -> Floats:
        """[H, C, F]: the most of `table` ([levels * C, F, F], our raise on the last face) over
        our raise's face, each hand reading it at its own count on that face (one face at a
        time: numpy's max along a short last axis is several times slower)."""
        faces = self.first.r.faces
        by_level = table.reshape(self.levels, count, faces, faces)
        best: Floats = by_level[:, :, :, 0][self.level[:, 0]]
        for face in range(1, faces):
            best = np.maximum(best, by_level[:, :, :, face][self.level[:, face]])
        return best


class Picked:
    """Some columns of a levelled set for each hand ([H, K] rows of the set), scored at any
    stakes: `Hands._table` at those entries alone, operation for operation (a Tavern hand
    weighs its best three claims at each raise level, out of dozens of bids)."""

    def __init__(self, hands: Hands, found: _Set, columns: Ints, bids: Ints) -> None:
        """`columns`: [H, K] rows of `found`; `bids`: the same as indices into the bids asked."""
        self.hands, self.found, self.columns, self.bids = hands, found, columns, bids
        assert found.at is not None
        rows = np.arange(len(columns))[:, None]
        self.called = found.at[rows, columns]  # [H, K]: the row of each entry's called value
        f = found.ahead.facing
        if f is None:
            return
        count, faces, level = len(found.row), hands.first.r.faces, hands.level
        self.facing_at = facing_index(level, count, columns, faces)
        self.group = f.group[columns]  # [H, K, F]
        self.able: BoolArray = hands.able(found)[columns]
        self._likeliest: Floats | None = None

    def values(self, win: float, lose: float) -> Floats:
        """[H, K]: the value of each entry at these stakes (`Hands.values`)."""
        hands, found = self.hands, self.found
        ahead, f = found.ahead, found.ahead.facing
        value: Floats = called_value(ahead, win, lose, None)[self.called]
        if f is None:
            return value
        if not (win >= 0 and lose >= 0):
            full = hands._table(found, win, lose, None)
            out: Floats = full[np.arange(len(self.columns))[:, None], self.columns]
            return out
        if self._likeliest is None:
            rows = np.arange(len(self.columns))[:, None]
            self._likeliest = hands._likeliest_raise(found)[rows, self.columns]
        challenge = np.take(challenge_value(f, win, lose), self.facing_at)
        best = np.where(self.able, raise_worth(self._likeliest, win, lose), -np.inf)
        return value + hands.first.r.come_back * facing_value(self.group, challenge, best)


def facing_index(level: Ints, count: int, columns: Ints, faces: int) -> Ints:
    """[H, K, F]: facing a raise on face g after the bid of column k, where hand h reads its
    challenge, at its own count on g, in the flat [levels * count, F] table of a set's values
    (`level`: [H, F], each hand's count above the lowest; `columns`: [H, K] or [1, K])."""
    out: Ints = (level[:, None, :] * count + columns[:, :, None]) * faces + np.arange(faces)
    return out
