"""The worth of each move of one decision, from the strong bot's belief (`bots/strong_belief.py`):
the chance that a bid is true, and what the next player will answer to each bid we might make
(`Estimate.score_bids`): challenge it, or raise, and then what we do facing that raise.

The next player's answers are worked out before our own dice count (`Answers`), then with them
(`LookAhead`): every hand of ours at one position shares the first (`bots/strong_hands.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple, Protocol, TypeVar, cast

import numpy as np
import numpy.typing as npt

from ..rules import Bid, Pass
from .probability import believed_pass, pass_chance
from .strong_belief import (
    HELD_PREFERENCE,
    LOOK_AHEAD_WORK,
    RAISE_LEAF,
    Round,
    Stacked,
    beliefs,
    challenge_likelihood,
    count_distribution,
    lookup,
    tails,
)
from .strong_counts import Floats, Ints, binomial_pmf, hand_space, match_vector, matches, tail_table

# The bids scored, the dice pushed with them, and whether a pass is scored (`Estimate.score_bids`).
BidsKey = tuple[tuple[Bid | None, ...], tuple[int, ...], bool | None]
Rows = TypeVar("Rows", bound=npt.NDArray[np.generic])


class Raises(NamedTuple):
    """How the next player raises each of our bids, from each of its hands: none of it depends on
    our own hand (`Estimate._raises_ahead`)."""

    choice: npt.NDArray[np.intp]  # [C, M]: the face it raises on
    q_raise: Ints  # [C, M]: the quantity of that raise
    held: Ints  # [C, M]: its dice on that face
    mass: Floats  # [C, M]: the weight of its hands that raise
    cell: npt.NDArray[np.intp]  # (bid, face) of each raise, flattened
    group: Floats  # [C, F]: the weight that raises on each face
    safe: Floats  # group, never zero
    raised: Ints  # [C, F, F]: our lowest raise on each face above each of its raises
    by_count: Floats  # [C, F, F, count]: the raising hands' weight by its face and its count on each face

    def tiled(self, copies: int) -> Raises:
        """`copies` copies of all the rows, one after the other (`Hands`)."""
        count, faces = self.group.shape
        choice = _tiled(self.choice, copies)
        cell = (np.arange(count * copies)[:, None] * faces + choice).ravel()
        return Raises(
            choice,
            _tiled(self.q_raise, copies),
            _tiled(self.held, copies),
            _tiled(self.mass, copies),
            cell,
            _tiled(self.group, copies),
            _tiled(self.safe, copies),
            _tiled(self.raised, copies),
            _tiled(self.by_count, copies),
        )


class Facing(NamedTuple):
    """The next player's raises over our bids, whatever the stakes (`Estimate._facing_given`)."""

    true: Floats  # [C, M]: its raise is true, per bid and hand of its
    mass: Floats  # [C, M]: the weight of its hands that raise
    cell: npt.NDArray[np.intp]  # (bid, face) of each raise, flattened
    group: Floats  # [C, F]: the weight that raises on each face
    safe: Floats  # group, never zero
    raised: Ints  # [C, F, F]: our lowest raise on each face above each of its raises
    raise_chance: Floats  # [C, F, F]: the chance that raise is true
    # [C, F]: the weight of its hands that raise on each face falsely, and truly: what
    # `challenge_value` weighs at any stakes (it is linear in them)
    beaten: Floats
    upheld: Floats

    def rows(self, picked: Ints) -> Facing:
        """The same for the bids `picked` (indices) alone: each bid's row owes nothing to the others."""
        count, faces = self.group.shape
        hands = len(self.cell) // count
        choice = (self.cell.reshape(count, hands) % faces)[picked]
        cell = (np.arange(len(picked))[:, None] * faces + choice).ravel()
        return Facing(
            self.true[picked],
            self.mass[picked],
            cell,
            self.group[picked],
            self.safe[picked],
            self.raised[picked],
            self.raise_chance[picked],
            self.beaten[picked],
            self.upheld[picked],
        )


class Answers(NamedTuple):
    """The next player's answers to a set of bids before our own dice count: how likely it
    challenges each bid from each of its hands, and how it raises (`Estimate.answers`). Our dice
    enter through `known` alone, in the truth of our bid and of our raise after its raise
    (`Estimate.given`): every hand of ours at one position shares the rest (`Hands`)."""

    w: Floats  # its hands' weights
    challenged: Floats  # [C, M]: the chance it challenges each bid from each hand
    stands: Floats  # [C]: the chance each bid stands
    faces: Ints | None  # [C]: each bid's face, from 0 (None: a pass is scored)
    quantities: Ints | None  # [C]: each bid's quantity
    match: Ints  # [M, F]: its dice that count for each face, per hand
    rest: Stacked  # the count in the other cups (and our rerolled dice), per row
    known: Ints  # [C, F]: what we know of the dice that count, per row
    raises: Raises | None  # its raises, where it may raise and the round comes back to us
    whole: bool  # looked ahead from every hand of the next player's (none left out for time)

    def tiled(self, copies: int, known: Ints) -> Answers:
        """`copies` copies of all the rows, one after the other, knowing `known` instead."""
        return Answers(
            self.w,
            _tiled(self.challenged, copies),
            _tiled(self.stands, copies),
            None if self.faces is None else _tiled(self.faces, copies),
            None if self.quantities is None else _tiled(self.quantities, copies),
            self.match,
            self.rest.tiled(copies),
            known,
            None if self.raises is None else self.raises.tiled(copies),
            self.whole,
        )


class LookAhead(NamedTuple):
    """The next player's answers to a set of bids, whatever the stakes (`Estimate.score_bids`)."""

    # [C]: the weight of its hands that challenge each bid when it is true, and when false (a
    # pass: both the weight that challenges it): what `called_value` weighs at any stakes
    upheld: Floats
    beaten: Floats
    passing: bool  # a pass is scored, not bids
    hands: int  # how many hands of the next player's it looked ahead from
    stands: Floats  # [C]: the chance each bid stands
    facing: Facing | None  # its raises, where it may raise and the round comes back to us
    whole: bool  # looked ahead from every hand of the next player's (none left out for time)

    def rows(self, picked: Ints) -> LookAhead:
        """The same for the bids `picked` (indices) alone."""
        facing = None if self.facing is None else self.facing.rows(picked)
        return LookAhead(
            self.upheld[picked], self.beaten[picked], self.passing, self.hands, self.stands[picked], facing, self.whole
        )


def _tiled(rows: Rows, copies: int) -> Rows:
    return cast("Rows", np.tile(rows, (copies,) + (1,) * (rows.ndim - 1)))


class SharedHands(Protocol):
    """Every hand of ours at one public position scored at once (`bots/strong_hands.py`)."""

    def score(
        self,
        hand: int,
        bids: Sequence[Bid | None],
        push: tuple[int, ...],
        pass_valid: bool | None,
        win: float,
        lose: float,
    ) -> tuple[Floats, Floats] | None: ...

    def values(self, bids: Sequence[Bid], win: float, lose: float) -> Floats | None: ...


class Estimate:
    """The belief of one decision: per-cup weights, the count distributions, bid chances."""

    def __init__(self, r: Round, same_cups: Estimate | None = None, weights: dict[int, Floats] | None = None) -> None:
        self.r = r
        if same_cups is not None:
            # The belief over the other cups owes nothing to our own hand: another hand of ours
            # at the same public position shares it (`StrongBot.policies`).
            self.weights: dict[int, Floats] = same_cups.weights
            self.seat_dists: dict[int, Floats] = same_cups.seat_dists
            self.table_tails: Floats = same_cups.table_tails
            self._without: dict[int, Floats] = same_cups._without
            self._rerolled: dict[tuple[int, int], Floats] = same_cups._rerolled
            self._looked_ahead: dict[BidsKey, LookAhead | None] = {}
            self.hands: SharedHands | None = None
            self.hand = 0
            self.candidates: list[Bid] | None = None
            return
        # `weights`: a belief worked out elsewhere (a reader's model of the other players)
        self.weights = beliefs(r) if weights is None else weights
        faces = r.faces
        # [faces, cup + 1] per cup: how many dice of that cup count for each face
        self.seat_dists = {
            s: np.einsum("m,mfk->fk", w, matches(r.cup_size[s], faces, r.wild).onehot) for s, w in self.weights.items()
        }
        self.table_tails = self._tails(r.opponents)
        self._without = {}
        self._rerolled = {}
        # The look-ahead of each set of bids scored, whatever the stakes: Tavern scores the same
        # bids at every raise it may make, and only the stakes differ.
        self._looked_ahead = {}
        # Where every hand of ours at this position is scored at once (`strong_hands.Hands`):
        # they, this hand's number among them, and the bids it scores (`StrongBot.candidates`).
        self.hands = None
        self.hand = 0
        self.candidates = None

    def _tails(self, seats: Sequence[int], extra: Sequence[Floats] | None = None) -> Floats:
        """[faces, L]: P(the cups of `seats` (plus `extra` rerolled dice per face) hold at least
        j dice that count for each face), padded with zeros to one width."""
        rows = []
        for f in range(self.r.faces):
            parts = [self.seat_dists[s][f] for s in seats]
            if extra is not None:
                parts.append(extra[f])
            rows.append(tails(count_distribution(parts)))
        width = max(len(row) for row in rows)
        out = np.zeros((self.r.faces, width))
        for f, row in enumerate(rows):
            out[f, : len(row)] = row
        return out

    def tails_without(self, seat: int) -> Floats:
        """`_tails` of every other cup but `seat`'s (kept: several estimates ask for it)."""
        if seat not in self._without:
            self._without[seat] = self._tails([s for s in self.r.opponents if s != seat])
        return self._without[seat]

    def tails_rerolled(self, seat: int, rolled: int) -> Floats:
        """`tails_without(seat)` with `rolled` of our dice rerolled after a push: what a push
        leaves unknown owes nothing to which dice were pushed, only to how many were not (kept:
        Soar scores the pushes of every face and count)."""
        if (seat, rolled) not in self._rerolled:
            r = self.r
            extra = [binomial_pmf(rolled, r.ways[f] / r.faces) for f in range(r.faces)]
            self._rerolled[(seat, rolled)] = self._tails([s for s in r.opponents if s != seat], extra)
        return self._rerolled[(seat, rolled)]

    def chance_true(self, bid: Bid) -> float:
        """P(the count on the table for the bid's face is at least its quantity)."""
        t = self.table_tails[bid.face - 1]
        need = bid.quantity - int(self.r.known[bid.face - 1])
        return float(t[min(max(need, 0), len(t) - 1)])

    def chance_exact(self, bid: Bid) -> float:
        """P(the count is exactly the quantity): an exact, spot-on or calza hits."""
        t = self.table_tails[bid.face - 1]
        need = bid.quantity - int(self.r.known[bid.face - 1])
        if need < 0 or need >= len(t) - 1:
            return 0.0
        return float(t[need] - t[need + 1])

    def chances_true(self, bid: Bid, known: Ints) -> Floats:
        """[hands]: `chance_true` were our hand each of `known`'s rows (`Round.known_with`)."""
        t = self.table_tails[bid.face - 1]
        chances: Floats = t[np.clip(bid.quantity - known[:, bid.face - 1], 0, len(t) - 1)]
        return chances

    def chances_exact(self, bid: Bid, known: Ints) -> Floats:
        """[hands]: `chance_exact` were our hand each of `known`'s rows (`Round.known_with`)."""
        t = self.table_tails[bid.face - 1]
        need = bid.quantity - known[:, bid.face - 1]
        inside = (need >= 0) & (need < len(t) - 1)
        at = np.clip(need, 0, len(t) - 2)
        chances: Floats = np.where(inside, t[at] - t[at + 1], 0.0)
        return chances

    def true_given(self, bid: Bid, seat: int) -> Floats:
        """[hands of `seat`]: the chance that `bid` is true if `seat` holds each hand."""
        r = self.r
        match = matches(r.cup_size[seat], r.faces, r.wild).match
        f = bid.face - 1
        return lookup(self.tails_without(seat), np.array(f), bid.quantity - r.known[f] - match[:, f])

    def pass_valid(self, seat: int, turn_index: int) -> float:
        """The chance that `seat`'s pass (history entry `turn_index`) holds."""
        view = self.r.view
        action = view.history[turn_index].action
        assert isinstance(action, Pass)
        if action.push and view.options.pass_rule == "at_pass":
            # judged on the hand before the reroll, which nobody will see again
            return believed_pass(pass_chance(view, seat))
        pushed = view.pushed[seat]
        if len(set(pushed)) > 1:
            return 0.0
        space = hand_space(self.r.cup_size[seat], self.r.faces)
        valid = space.one_face[:, pushed[0] - 1] if pushed else space.one_face.any(axis=1)
        return float(self.weights[seat][valid].sum())

    # ----- the next player's answer to a bid -----

    def score_bids(
        self,
        bids: Sequence[Bid | None],
        push: tuple[int, ...] = (),
        pass_valid: bool | None = None,
        stakes: tuple[float, float] | None = None,
    ) -> tuple[Floats, Floats]:
        """Expected value of making each of `bids` (with `push`), and the chance the next player
        lets it stand. With `pass_valid` set, score a pass instead: `bids` then holds the standing
        bid that the pass leaves in place (None before any bid). `stakes` are what winning and
        losing a check is worth here, if not the round's usual."""
        r = self.r
        win, lose = stakes if stakes is not None else (r.win, r.lose)
        if self.hands is not None:
            scored = self.hands.score(self.hand, bids, push, pass_valid, win, lose)
            if scored is not None:
                return scored
        count = len(bids)
        key = (tuple(bids), push, pass_valid)
        if key not in self._looked_ahead:
            self._looked_ahead[key] = self._subset(key) or self.look_ahead(bids, push, pass_valid)
        ahead = self._looked_ahead[key]
        if ahead is None:
            return np.zeros(count), np.ones(count)
        return self.values_at(ahead, win, lose, pass_valid), ahead.stands.copy()

    def values_at(self, ahead: LookAhead, win: float, lose: float, pass_valid: bool | None) -> Floats:
        """[C]: the value of each bid of `ahead` at these stakes."""
        value = called_value(ahead, win, lose, pass_valid)
        if ahead.facing is not None:
            value = value + self.r.come_back * self._facing(ahead.facing, win, lose)
        return value

    def _subset(self, key: BidsKey) -> LookAhead | None:
        """The look-ahead of these bids cut from one already made of more bids (Tavern's best
        claims, scored again with a raise), where both look from every hand of the next player."""
        bids, push, pass_valid = key
        faces = self.r.faces
        for (others, other_push, other_pass), ahead in self._looked_ahead.items():
            if ahead is None or not ahead.whole or (other_push, other_pass) != (push, pass_valid):
                continue
            if ahead.hands > max(LOOK_AHEAD_WORK // (len(bids) * faces), 1):
                continue
            where = {b: i for i, b in enumerate(others)}
            if all(b in where for b in bids):
                return ahead.rows(np.array([where[b] for b in bids], dtype=np.int64))
        return None

    def whole(self, count: int) -> bool:
        """Whether `count` bids are looked ahead from every hand of the next player's (many
        faces: from its likeliest hands only, `LOOK_AHEAD_WORK`)."""
        r = self.r
        nxt = r.next_seat(r.me)
        hands = len(self.weights[nxt]) if nxt is not None and nxt in self.weights else 0
        return hands <= max(LOOK_AHEAD_WORK // (count * r.faces), 1)

    def look_ahead(
        self, bids: Sequence[Bid | None], push: tuple[int, ...], pass_valid: bool | None
    ) -> LookAhead | None:
        """What `score_bids` works out whatever the stakes: the next player's answers to `bids`."""
        looked = self.look_ahead_groups([(bids, push)], pass_valid)
        return None if looked is None else looked[0]

    def look_ahead_many(self, groups: Sequence[tuple[Sequence[Bid], tuple[int, ...]]]) -> None:
        """Work out at once what `score_bids` will be asked of several sets of bids, each with its
        push (Soar: the bids on each face with that face's dice pushed): one pass over the next
        player's hands, not one a push. Each set comes out as a call of its own makes it, so the
        moves do not change; sets too many to look from every hand at once are left to their own
        calls."""
        if self.hands is not None:
            return  # worked out for every hand at once; a set it left out is looked ahead alone
        todo = [(tuple(b), p) for b, p in groups if b and (tuple(b), p, None) not in self._looked_ahead]
        r = self.r
        nxt = r.next_seat(r.me)
        if len(todo) < 2 or nxt is None or nxt not in self.weights:
            return
        if not self.whole(sum(len(b) for b, _ in todo)):
            return
        looked = self.look_ahead_groups(todo, None)
        assert looked is not None
        for (bids, push), ahead in zip(todo, looked, strict=True):
            self._looked_ahead[(bids, push, None)] = ahead

    def look_ahead_groups(
        self, groups: Sequence[tuple[Sequence[Bid | None], tuple[int, ...]]], pass_valid: bool | None
    ) -> list[LookAhead] | None:
        """`look_ahead` of each of `groups` (bids and a push) in one pass: each bid's row sees the
        dice as its own push leaves them."""
        answers = self.answers(groups, pass_valid)
        if answers is None:
            return None
        ahead = self.given(answers)
        if len(groups) == 1:
            return [ahead]
        ends = np.cumsum([len(group) for group, _ in groups])
        return [ahead.rows(np.arange(end - len(group), end)) for (group, _), end in zip(groups, ends, strict=True)]

    def answers(
        self, groups: Sequence[tuple[Sequence[Bid | None], tuple[int, ...]]], pass_valid: bool | None
    ) -> Answers | None:
        """The next player's answers to the bids of `groups`, each with its push, before our own
        dice count (`Answers`); None where nobody answers."""
        r = self.r
        faces = r.faces
        nxt = r.next_seat(r.me)
        count = sum(len(bids) for bids, _ in groups)
        if nxt is None or nxt not in self.weights or count == 0:
            return None
        w = self.weights[nxt]
        hands_of_next = matches(r.cup_size[nxt], faces, r.wild)
        match, onehot = hands_of_next.match, hands_of_next.onehot
        keep = max(LOOK_AHEAD_WORK // (count * faces), 1)
        whole = len(w) <= keep
        if not whole:
            # Many faces: look ahead from the next player's likeliest hands only.
            top = np.argpartition(-w, keep - 1)[:keep]
            w, match, onehot = w[top] / w[top].sum(), match[top], onehot[top]
        hands = len(w)
        seen_rows, tables, known_rows, rests = [], [], [], []
        for _, push in groups:
            # What the next player sees: our pushed dice join everyone's.
            seen_rows.append(r.pushed_match + match_vector(push, faces, r.wild))
            tables.append(tail_table(r.total - r.cup_size[nxt] - r.pushed_total - len(push), faces, r.wild))
            # What we know after a push: what everyone sees, the rest of our cup rerolled. It
            # depends on the push alone, not on the rest of our hand (`Hands`).
            known_rows.append(seen_rows[-1] if push else r.known)
            rests.append(self.tails_rerolled(nxt, len(r.view.cup) - len(push)) if push else self.tails_without(nxt))
        variant = np.repeat(np.arange(len(groups)), [len(bids) for bids, _ in groups])  # each row's push
        seen = np.stack(seen_rows)[variant]  # [C, F]
        known = np.stack(known_rows)[variant]  # [C, F]
        table = Stacked(tables, variant)
        rest = Stacked(rests, variant)
        bids = [b for group, _ in groups for b in group]

        face_ix = np.arange(faces)
        rows = np.arange(count)
        # the next player's options above each bid, and how it sees them from each hand
        q_next = r.raises_above(nxt, bids)  # [C, F]
        valid = q_next > 0
        # Its chance of each raise from each hand, read from a [C, F, count held] table: a hand
        # holding j dice for face f sees the raise on f as every hand holding j does.
        sizes = onehot.shape[2]
        by_held = table.lookup(face_ix[None, :, None], (q_next - seen)[:, :, None] - np.arange(sizes))
        by_held = np.where(valid[:, :, None], by_held, -1.0).reshape(count, faces * sizes)
        # Its best chance and the face it raises on ([C, M]: the first best, held dice preferred),
        # face by face: numpy's max and argmax along a short last axis are several times slower.
        best = most = np.zeros((count, hands))
        choice = np.zeros((count, hands), dtype=np.intp)
        for f in range(faces):
            chance = by_held[:, f * sizes + match[:, f]]  # [C, M]
            preferred = chance + HELD_PREFERENCE * match[:, f]
            if f == 0:
                best, most = chance, preferred
                continue
            best = np.maximum(best, chance)
            better = preferred > most
            choice = np.where(better, f, choice)
            most = np.where(better, preferred, most)
        best = best.clip(0)
        can_raise = cast("npt.NDArray[np.bool_]", valid.any(axis=1))  # numpy: any(axis=...) may be a scalar
        fs = qs = None
        if pass_valid is None:
            qs = np.array([b.quantity for b in bids if b is not None])
            fs = np.array([b.face - 1 for b in bids if b is not None])
            p_standing = table.lookup(fs[:, None], qs[:, None] - seen[rows, fs][:, None] - match[:, fs].T)
            challenged = np.where(can_raise[:, None], challenge_likelihood(p_standing, best), 1.0)
        else:
            ((_, push),) = groups
            seen_valid = believed_pass(self._our_pass_chance(push))
            challenged = np.where(
                can_raise[:, None], challenge_likelihood(np.full((count, hands), seen_valid), best), 1.0
            )
        stands = 1 - (w[None, :] * challenged).sum(axis=1)
        raises = None
        if r.come_back > 0 and can_raise.any():
            raises = self._raises_ahead(q_next, choice, challenged, w, match, onehot)
        return Answers(w, challenged, stands, fs, qs, match, rest, known, raises, whole)

    def given(self, answers: Answers) -> LookAhead:
        """`answers` with our own dice counted (`answers.known`): the truth of our bids given each
        hand of the next player, and of our raise after its raise."""
        a = answers
        true = None
        if a.faces is not None and a.quantities is not None:
            fs, qs = a.faces, a.quantities
            rows = np.arange(len(fs))
            true = a.rest.lookup(fs[:, None], qs[:, None] - a.known[rows, fs][:, None] - a.match[:, fs].T)
        facing = None if a.raises is None else self._facing_given(a.raises, a.known, a.rest)
        calling = a.w[None, :] * a.challenged
        if true is None:
            weight = calling.sum(axis=1)
            return LookAhead(weight, weight, True, len(a.w), a.stands, facing, a.whole)
        upheld = (calling * true).sum(axis=1)
        beaten = (calling * (1 - true)).sum(axis=1)
        return LookAhead(upheld, beaten, False, len(a.w), a.stands, facing, a.whole)

    def _our_pass_chance(self, push: tuple[int, ...]) -> float:
        """The chance that our pass holds, as the others see it (only pushed dice shown)."""
        view = self.r.view
        shown = view.pushed[self.r.me] + push
        hidden = view.dice[self.r.me] - len(shown)
        if len(set(shown)) > 1:
            return 0.0
        return float((1 / self.r.faces) ** (hidden if shown else hidden - 1))

    def _raises_ahead(
        self, q_next: Ints, choice: npt.NDArray[np.intp], challenged: Floats, w: Floats, match: Ints, onehot: Floats
    ) -> Raises:
        """How the next player raises each bid from each hand, and which hands do."""
        r = self.r
        faces = r.faces
        count, hands = choice.shape
        rows = np.arange(count)[:, None]
        q_raise = q_next[rows, choice]  # [C, M]
        held = match[np.arange(hands)[None, :], choice]  # [C, M]: its dice on the face it raised
        mass = w[None, :] * (1 - challenged)  # the hands that raise
        # Sums over the hands that raise on each face, by one bincount over (bid, face) cells.
        cell = (rows * faces + choice).ravel()
        # weighted, bincount counts in floats (numpy types it as counting in ints)
        group = cast("Floats", np.bincount(cell, weights=mass.ravel(), minlength=count * faces).reshape(count, faces))
        safe = np.maximum(group, 1e-300)
        # our lowest raise on each face above each of its raises
        raised = np.zeros((count, faces, faces), dtype=np.int64)
        cs, gs = np.nonzero((q_next > 0) & (group > 0))
        if len(cs):
            # many of its raises are the same bid: each one's row is worked out once
            distinct, which = np.unique(q_next[cs, gs] * faces + gs, return_inverse=True)
            ours_above = r.raises_above(r.me, [Bid(int(u // faces), int(u % faces) + 1) for u in distinct])
            raised[cs, gs] = ours_above[which.ravel()]
        # The chance of our raise on face h is the same for every hand that holds as many dice
        # for h: so sum the raising hands' weight by (its face g, its count j on each face h)
        # first, one product of matrices, and look the chance up once per (g, h, j).
        spread = np.zeros((count, faces, hands))
        spread[rows, choice, np.arange(hands)[None, :]] = mass
        sizes = onehot.shape[2]
        by_count = (spread @ onehot.reshape(hands, faces * sizes)).reshape(count, faces, faces, sizes)
        return Raises(choice, q_raise, held, mass, cell, group, safe, raised, by_count)

    def _facing_given(self, raises: Raises, known: Ints, rest: Stacked) -> Facing:
        """The next player's raises with our own dice counted: is its raise true, and how likely
        is our raise above it."""
        faces = self.r.faces
        count = len(raises.choice)
        rows = np.arange(count)[:, None]
        choice = raises.choice
        true = rest.lookup(choice, raises.q_raise - known[rows, choice] - raises.held)
        sizes = raises.by_count.shape[3]
        raised = raises.raised
        need = raised[:, :, :, None] - known[:, None, :, None] - np.arange(sizes)[None, None, None, :]
        chance = rest.lookup(np.arange(faces)[None, None, :, None], need)
        chance = np.where(raised[:, :, :, None] > 0, chance, 0.0)
        raise_chance = (raises.by_count * chance).sum(axis=3) / raises.safe[:, :, None]
        cells = count * faces
        beaten = np.bincount(raises.cell, weights=(raises.mass * (1 - true)).ravel(), minlength=cells)
        upheld = np.bincount(raises.cell, weights=(raises.mass * true).ravel(), minlength=cells)
        return Facing(
            true,
            raises.mass,
            raises.cell,
            raises.group,
            raises.safe,
            raised,
            raise_chance,
            cast("Floats", beaten.reshape(count, faces)),
            cast("Floats", upheld.reshape(count, faces)),
        )

    def _facing(self, f: Facing, win: float, lose: float) -> Floats:
        """[C]: the value (weighted by its chance) of facing the next player's raise at these
        stakes: we will challenge it or raise again, whichever is better given its face."""
        raise_value = np.where(f.raised > 0, raise_worth(f.raise_chance, win, lose), -np.inf)
        return facing_value(f.group, challenge_value(f, win, lose), raise_value.max(axis=2))


def called_value(ahead: LookAhead, win: float, lose: float, pass_valid: bool | None) -> Floats:
    """[C]: what each bid of `ahead` wins or loses when the next player challenges it, weighted
    by the chance it does."""
    if ahead.passing:
        return (win if pass_valid else -lose) * ahead.upheld
    value: Floats = win * ahead.upheld - lose * ahead.beaten
    return value


def challenge_value(f: Facing, win: float, lose: float) -> Floats:
    """[C, F]: the value of challenging the next player's raise on each face, over the hands
    that raise on it."""
    value: Floats = (win * f.beaten - lose * f.upheld) / f.safe
    return value


def raise_worth(chance: Floats, win: float, lose: float) -> Floats:
    """Our raise at the end of the look-ahead, true with `chance`: a share of "as if challenged"."""
    worth: Floats = RAISE_LEAF * (win * chance - lose * (1 - chance))
    return worth


def facing_value(group: Floats, challenge: Floats, best_raise: Floats) -> Floats:
    """[...]: facing the next player's raise on each face (last axis), the better of challenging
    it and our best raise above it, weighted by the chance of that face."""
    face_value = np.maximum(challenge, best_raise)
    face_value = np.where(group > 0, face_value, 0.0)
    value: Floats = (group * face_value).sum(axis=-1)
    return value
