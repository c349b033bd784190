"""The worth of each move of one decision, from the strong bot's belief (`bots/strong_belief.py`):
the chance that a bid is true, and what the next player will answer to each bid we might make
(`Estimate.score_bids`): challenge it, or raise, and then what we do facing that raise.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import NamedTuple, cast

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


class Facing(NamedTuple):
    """The next player's raises over our bids, whatever the stakes (`Estimate._facing_ahead`)."""

    true: Floats  # [C, M]: its raise is true, per bid and hand of its
    mass: Floats  # [C, M]: the weight of its hands that raise
    cell: npt.NDArray[np.intp]  # (bid, face) of each raise, flattened
    group: Floats  # [C, F]: the weight that raises on each face
    safe: Floats  # group, never zero
    raised: Ints  # [C, F, F]: our lowest raise on each face above each of its raises
    raise_chance: Floats  # [C, F, F]: the chance that raise is true

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
        )


class LookAhead(NamedTuple):
    """The next player's answers to a set of bids, whatever the stakes (`Estimate.score_bids`)."""

    w: Floats  # its hands' weights
    challenged: Floats  # [C, M]: the chance it challenges each bid from each hand
    true: Floats | None  # [C, M]: the bid is true (None: a pass is scored)
    stands: Floats  # [C]: the chance each bid stands
    facing: Facing | None  # its raises, where it may raise and the round comes back to us
    whole: bool  # looked ahead from every hand of the next player's (none left out for time)

    def rows(self, picked: Ints) -> LookAhead:
        """The same for the bids `picked` (indices) alone."""
        true = None if self.true is None else self.true[picked]
        facing = None if self.facing is None else self.facing.rows(picked)
        return LookAhead(self.w, self.challenged[picked], true, self.stands[picked], facing, self.whole)


class Estimate:
    """The belief of one decision: per-cup weights, the count distributions, bid chances."""

    def __init__(self, r: Round, same_cups: Estimate | None = None) -> None:
        self.r = r
        if same_cups is not None:
            # The belief over the other cups owes nothing to our own hand: another hand of ours
            # at the same public position shares it (`StrongBot.policies`).
            self.weights: dict[int, Floats] = same_cups.weights
            self.seat_dists: dict[int, Floats] = same_cups.seat_dists
            self.table_tails: Floats = same_cups.table_tails
            self._without: dict[int, Floats] = same_cups._without
            self._looked_ahead: dict[BidsKey, LookAhead | None] = {}
            return
        self.weights = beliefs(r)
        faces = r.faces
        # [faces, cup + 1] per cup: how many dice of that cup count for each face
        self.seat_dists = {
            s: np.einsum("m,mfk->fk", w, matches(r.cup_size[s], faces, r.wild).onehot) for s, w in self.weights.items()
        }
        self.table_tails = self._tails(r.opponents)
        self._without = {}
        # The look-ahead of each set of bids scored, whatever the stakes: Tavern scores the same
        # bids at every raise it may make, and only the stakes differ.
        self._looked_ahead = {}

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
        count = len(bids)
        key = (tuple(bids), push, pass_valid)
        if key not in self._looked_ahead:
            self._looked_ahead[key] = self._subset(key) or self._look_ahead(bids, push, pass_valid)
        ahead = self._looked_ahead[key]
        if ahead is None:
            return np.zeros(count), np.ones(count)
        if ahead.true is not None:
            pay = win * ahead.true - lose * (1 - ahead.true)
        else:
            pay = np.full(ahead.challenged.shape, win if pass_valid else -lose)
        value = (ahead.w[None, :] * ahead.challenged * pay).sum(axis=1)
        if ahead.facing is not None:
            value = value + r.come_back * self._facing(ahead.facing, win, lose)
        return value, ahead.stands.copy()

    def _subset(self, key: BidsKey) -> LookAhead | None:
        """The look-ahead of these bids cut from one already made of more bids (Tavern's best
        claims, scored again with a raise), where both look from every hand of the next player."""
        bids, push, pass_valid = key
        faces = self.r.faces
        for (others, other_push, other_pass), ahead in self._looked_ahead.items():
            if ahead is None or not ahead.whole or (other_push, other_pass) != (push, pass_valid):
                continue
            if len(ahead.w) > max(LOOK_AHEAD_WORK // (len(bids) * faces), 1):
                continue
            where = {b: i for i, b in enumerate(others)}
            if all(b in where for b in bids):
                return ahead.rows(np.array([where[b] for b in bids], dtype=np.int64))
        return None

    def _look_ahead(
        self, bids: Sequence[Bid | None], push: tuple[int, ...], pass_valid: bool | None
    ) -> LookAhead | None:
        """What `score_bids` works out whatever the stakes: the next player's answers to `bids`."""
        looked = self._look_ahead_groups([(bids, push)], pass_valid)
        return None if looked is None else looked[0]

    def look_ahead_many(self, groups: Sequence[tuple[Sequence[Bid], tuple[int, ...]]]) -> None:
        """Work out at once what `score_bids` will be asked of several sets of bids, each with its
        push (Soar: the bids on each face with that face's dice pushed): one pass over the next
        player's hands, not one a push. Each set comes out as a call of its own makes it, so the
        moves do not change; sets too many to look from every hand at once are left to their own
        calls."""
        todo = [(tuple(b), p) for b, p in groups if b and (tuple(b), p, None) not in self._looked_ahead]
        r = self.r
        nxt = r.next_seat(r.me)
        if len(todo) < 2 or nxt is None or nxt not in self.weights:
            return
        if len(self.weights[nxt]) > max(LOOK_AHEAD_WORK // (sum(len(b) for b, _ in todo) * r.faces), 1):
            return
        looked = self._look_ahead_groups(todo, None)
        assert looked is not None
        for (bids, push), ahead in zip(todo, looked, strict=True):
            self._looked_ahead[(bids, push, None)] = ahead

    def _look_ahead_groups(
        self, groups: Sequence[tuple[Sequence[Bid | None], tuple[int, ...]]], pass_valid: bool | None
    ) -> list[LookAhead] | None:
        """`_look_ahead` of each of `groups` (bids and a push) in one pass: each bid's row sees the
        dice as its own push leaves them."""
        r = self.r
        view = r.view
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
            rerolled = Counter(view.cup)
            rerolled.subtract(push)
            rolled = list(rerolled.elements())
            # What the next player sees: our pushed dice join everyone's.
            seen_rows.append(r.pushed_match + match_vector(push, faces, r.wild))
            tables.append(tail_table(r.total - r.cup_size[nxt] - r.pushed_total - len(push), faces, r.wild))
            # What we know after a push: the rerolled dice become unknown to us too.
            known_rows.append(r.known - match_vector(rolled, faces, r.wild) if push else r.known)
            extra = [binomial_pmf(len(rolled), r.ways[f] / faces) for f in range(faces)] if push else None
            rests.append(self._tails([s for s in r.opponents if s != nxt], extra) if push else self.tails_without(nxt))
        variant = np.repeat(np.arange(len(groups)), [len(bids) for bids, _ in groups])  # each row's push
        seen = np.stack(seen_rows)[variant]  # [C, F]
        known = np.stack(known_rows)[variant]  # [C, F]
        table = Stacked(tables, variant)
        rest = Stacked(rests, variant)
        bids = [b for group, _ in groups for b in group]

        face_ix = np.arange(faces)
        rows = np.arange(count)
        # the next player's options above each bid, and how it sees them from each hand
        q_next = np.stack([r.raises(nxt, b) for b in bids])  # [C, F]
        valid = q_next > 0
        # Its chance of each raise from each hand, read from a [C, F, count held] table: a hand
        # holding j dice for face f sees the raise on f as every hand holding j does.
        sizes = onehot.shape[2]
        by_held = table.lookup(face_ix[None, :, None], (q_next - seen)[:, :, None] - np.arange(sizes))
        by_held = np.where(valid[:, :, None], by_held, -1.0).reshape(count, faces * sizes)
        chance = by_held[:, face_ix[None, :] * sizes + match]  # [C, M, F]
        best = chance.max(axis=2).clip(0)  # [C, M]
        choice = np.argmax(chance + HELD_PREFERENCE * match[None, :, :], axis=2)  # [C, M]
        can_raise = cast("npt.NDArray[np.bool_]", valid.any(axis=1))  # numpy: any(axis=...) may be a scalar
        true = None
        if pass_valid is None:
            qs = np.array([b.quantity for b in bids if b is not None])
            fs = np.array([b.face - 1 for b in bids if b is not None])
            p_standing = table.lookup(fs[:, None], qs[:, None] - seen[rows, fs][:, None] - match[:, fs].T)
            challenged = np.where(can_raise[:, None], challenge_likelihood(p_standing, best), 1.0)
            # the truth of our bid given each hand of the next player
            true = rest.lookup(fs[:, None], qs[:, None] - known[rows, fs][:, None] - match[:, fs].T)
        else:
            ((_, push),) = groups
            seen_valid = believed_pass(self._our_pass_chance(push))
            challenged = np.where(
                can_raise[:, None], challenge_likelihood(np.full((count, hands), seen_valid), best), 1.0
            )
        stands = 1 - (w[None, :] * challenged).sum(axis=1)
        facing = None
        if r.come_back > 0 and can_raise.any():
            facing = self._facing_ahead(q_next, choice, challenged, w, match, onehot, known, rest)
        ahead = LookAhead(w, challenged, true, stands, facing, whole)
        if len(groups) == 1:
            return [ahead]
        ends = np.cumsum([len(group) for group, _ in groups])
        return [ahead.rows(np.arange(end - len(group), end)) for (group, _), end in zip(groups, ends, strict=True)]

    def _our_pass_chance(self, push: tuple[int, ...]) -> float:
        """The chance that our pass holds, as the others see it (only pushed dice shown)."""
        view = self.r.view
        shown = view.pushed[self.r.me] + push
        hidden = view.dice[self.r.me] - len(shown)
        if len(set(shown)) > 1:
            return 0.0
        return float((1 / self.r.faces) ** (hidden if shown else hidden - 1))

    def _facing_ahead(
        self,
        q_next: Ints,
        choice: npt.NDArray[np.intp],
        challenged: Floats,
        w: Floats,
        match: Ints,
        onehot: Floats,
        known: Ints,
        rest: Stacked,
    ) -> Facing:
        """[C]: the value (weighted by its chance) of facing the next player's raise: we will
        challenge it or raise again, whichever is better given the face it raised on."""
        r = self.r
        faces = r.faces
        count, hands = choice.shape
        rows = np.arange(count)[:, None]
        q_raise = q_next[rows, choice]  # [C, M]
        held = match[np.arange(hands)[None, :], choice]  # [C, M]: its dice on the face it raised
        true = rest.lookup(choice, q_raise - known[rows, choice] - held)
        mass = w[None, :] * (1 - challenged)  # the hands that raise
        # Sums over the hands that raise on each face, by one bincount over (bid, face) cells.
        cell = (rows * faces + choice).ravel()
        # weighted, bincount counts in floats (numpy types it as counting in ints)
        group = cast("Floats", np.bincount(cell, weights=mass.ravel(), minlength=count * faces).reshape(count, faces))
        safe = np.maximum(group, 1e-300)
        # our lowest raise on each face above each of its raises, and its chance per hand
        raised = np.zeros((count, faces, faces), dtype=np.int64)
        cs, gs = np.nonzero((q_next > 0) & (group > 0))
        if len(cs):
            # many of its raises are the same bid: each one's row is worked out once
            distinct, which = np.unique(q_next[cs, gs] * faces + gs, return_inverse=True)
            ours_above = np.stack([r.raises(r.me, Bid(int(u // faces), int(u % faces) + 1)) for u in distinct])
            raised[cs, gs] = ours_above[which.ravel()]
        # The chance of our raise on face h is the same for every hand that holds as many dice
        # for h: so sum the raising hands' weight by (its face g, its count j on each face h)
        # first, one product of matrices, and look the chance up once per (g, h, j).
        spread = np.zeros((count, faces, hands))
        spread[rows, choice, np.arange(hands)[None, :]] = mass
        sizes = onehot.shape[2]
        by_count = (spread @ onehot.reshape(hands, faces * sizes)).reshape(count, faces, faces, sizes)
        need = raised[:, :, :, None] - known[:, None, :, None] - np.arange(sizes)[None, None, None, :]
        chance = rest.lookup(np.arange(faces)[None, None, :, None], need)
        chance = np.where(raised[:, :, :, None] > 0, chance, 0.0)
        raise_chance = (by_count * chance).sum(axis=3) / safe[:, :, None]
        return Facing(true, mass, cell, group, safe, raised, raise_chance)

    def _facing(self, f: Facing, win: float, lose: float) -> Floats:
        """[C]: the value (weighted by its chance) of facing the next player's raise at these
        stakes: we will challenge it or raise again, whichever is better given its face."""
        count, faces = f.group.shape
        calls = f.mass * (win * (1 - f.true) - lose * f.true)
        challenge_value = (
            np.bincount(f.cell, weights=calls.ravel(), minlength=count * faces).reshape(count, faces) / f.safe
        )
        raise_value = np.where(f.raised > 0, RAISE_LEAF * (win * f.raise_chance - lose * (1 - f.raise_chance)), -np.inf)
        face_value = np.maximum(challenge_value, raise_value.max(axis=2))
        face_value = np.where(f.group > 0, face_value, 0.0)
        value: Floats = (f.group * face_value).sum(axis=1)
        return value
