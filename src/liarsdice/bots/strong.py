"""The strong bot: it reads the other cups from what their owners did this round, then plays the
move with the best expected outcome, looking one player ahead.

**Belief.** For every other cup it keeps a distribution over the hands that cup can hold (each
multiset of faces, weighted by its chance under the roll; a fixed sample of hands when there are
too many), and updates it by Bayes' rule with every public action its owner made this round:

* a bid (or claim) is likelier from a hand that makes it look good: the bidder is modelled as
  weighing each face it could bid by the chance its own hand gives its lowest bid on that face
  (a softmax, with a slight preference for the faces it holds most), and as raising rather than
  challenging because the standing bid, or its own best raise, looked good from its hand; plus a
  share of bids that owe nothing to the hand, neither their face nor the choice to raise (a
  raise on the face we showed may simply follow our bid: counting it as the raiser's own dice
  let a reader of our bids draw us into raising a bid it would call);
* a siding vote is likelier from a hand that makes the bid look true (believe) or false (doubt),
  and so is the challenge that started the vote from a hand that makes the bid look false;
* a pass (Soar) is certain from a one-face hand and a bluff otherwise;
* a claim with a raise (Tavern) is likelier from a hand that makes the claim near certain;
* a push shows dice and rerolls the rest of that cup, so what its owner did before says nothing
  of the new cup: the belief over it starts again from the roll.

The share of bids that owe nothing to the hand is learnt per seat over a game: at each reveal the
bot weighs every bid of the round against the cup it came from.

For each face, the distributions of how many dice of each cup count for it are convolved into the
distribution of the count on the table, which gives the chance that any bid is true or exact.

**Decision.** Every legal move is scored in expected dice: a die we lose against one another
player loses (worth less to us at a bigger table), or dice shed in the shedding game.

* A challenge (or accusation) wins if the bid is false; an exact pays per the preset; a vote
  sides with the likelier truth, since only the right side sheds (or keeps its dice).
* A bid is scored by the next player's answer, predicted for each hand that player may hold: it
  challenges when the bid looks likelier false than its own best raise looks true (the bid then
  stands or falls on the dice: its truth is weighed given that hand and our belief over the other
  cups), or it raises on its best face, and the round comes back to us facing that raise (surely
  with two players, at a discount with more), where we will challenge it or raise again, whichever
  is better given what its raise tells us about its cup.
* A pass is scored the same way, with the pass in place of a bid; a push (all our cup dice that
  count for the bid's face: shown, and the rest rerolled) is tried on every candidate bid.
* In Tavern the chips count too: heads-up every move is judged by the chance of winning the game
  after the round, from a model of that chance fitted to past games (chips against the growing
  bet, dice, who opens); at a bigger table a chip has a fixed worth in dice. Details in
  `bots/strong_tavern.py`.

**Mixing.** The bot draws its move from a distribution over its scored moves (close calls
mixed by a softmax over their values, and a share of bids made on a face drawn alike from every
face, where that costs little), so that its bids do not spell out its cup: `bots/strong_mixing.py`.
`policy` gives that distribution and `act` draws from it with the bot's own seeded generator. In
Tavern's chips it instead makes its best move, or now and then its best bid on a face it is short
of if that is nearly as good, more often where bids are seldom challenged. In a duel of bids
alone it mixes in an equilibrium strategy where one is at hand: `bots/strong_duel.py`.
`policies` of many views of one position (every hand a seat may hold, as a reader of the bot
asks) scores their moves together, each exactly as alone: `bots/strong_hands.py`.

It decides from its `PlayerView` only and always returns one of `view.legal_actions`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Container, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..rules import (
    Action,
    Bid,
    BidAction,
    Challenge,
    Claim,
    Exact,
    LegalMoves,
    Pass,
    PlayerView,
    Vote,
)
from .base import Bot, Limit
from .probability import safest_action
from .strong_belief import BID_NOISE, Floats, Round, bid_share
from .strong_counts import BoolArray, Ints, counted, match_vector
from .strong_duel import in_duel
from .strong_estimate import Estimate
from .strong_hands import Hands
from .strong_mixing import Policy, Scored, draw, mixed, mixed_chances, picked

if TYPE_CHECKING:
    from .strong_tavern import ChipModel

# ----- our own decisions (the model of the others, and the worth of bids: strong_belief) -----

# The prior of a player's share of bids made without regard to its hand counts as this many bids.
HONESTY_PRIOR = 8.0
# Bids on a face whose chance of being true is below this are not worth scoring (bar the lowest).
CANDIDATE_FLOOR = 0.03
CANDIDATES_PER_FACE = 3
# Soar's exact is one per game: keep it for a clearly good moment.
EXACT_ONCE_MARGIN = 0.2


def new_game(before: PlayerView | None, view: PlayerView) -> bool:
    """Whether `view` is of another game than `before`, the bot's last view: what it learnt of the
    seats from the reveals is then of other players."""
    return before is not None and (
        view.round_no < before.round_no or (view.last_outcome is None and before.round_no > 1)
    )


class StrongBot(Bot):
    """Reads the other cups from the round's actions and plays the best expected move (module
    docstring)."""

    level = "strong"
    description = "reads the other cups from their bids and plays the best expected move, one player ahead"

    def __init__(self, seed: int | None = None) -> None:
        super().__init__(seed)
        # Per seat, Beta pseudo-counts (bids that owed nothing to the hand, bids that did), from
        # the rounds whose cups we saw revealed; a seat we know nothing of gets BID_NOISE.
        self.honesty: dict[int, tuple[float, float]] = {}
        self._last_view: PlayerView | None = None
        # The model of what chips are worth heads-up in Tavern; None: the one shipped in data/.
        self.chip_model: ChipModel | None = None

    def noise(self) -> dict[int, float]:
        return {s: a / (a + b) for s, (a, b) in self.honesty.items()}

    def learn(self, view: PlayerView) -> None:
        """Weigh the bids of the round we last acted in against the cups its reveal showed: a bid
        our model of bidding finds unlikely from the hand it came from counts as noise."""
        before, self._last_view = self._last_view, view
        outcome = view.last_outcome
        if new_game(before, view):
            self.honesty.clear()  # the seats may hold other players
        if before is None or outcome is None or outcome.round_no != before.round_no:
            return
        r = Round(before, self.noise())
        last_push = {t.seat: i for i, t in enumerate(before.history) if getattr(t.action, "push", ())}
        pushed: list[int] = []
        standing: Bid | None = None
        for i, turn in enumerate(before.history):
            seat, action = turn.seat, turn.action
            if isinstance(action, (BidAction, Claim)) and seat in r.opponents and i > last_push.get(seat, -1):
                cup = Counter(outcome.hands[seat])
                cup.subtract(outcome.pushed[seat])
                hand = list(cup.elements())
                if len(hand) == r.cup_size[seat]:
                    match = match_vector(hand, r.faces, r.wild)[None, :]
                    unknown = r.total - len(hand) - len(pushed)
                    pm = match_vector(pushed, r.faces, r.wild)
                    share, faces_open, _ = bid_share(r, match, unknown, pm, standing, seat, action.bid)
                    noise = r.noise.get(seat, BID_NOISE)
                    blind = noise / faces_open
                    odds = blind / (blind + (1 - noise) * float(share[0]))
                    a, b = self.honesty.get(seat, (BID_NOISE * HONESTY_PRIOR, (1 - BID_NOISE) * HONESTY_PRIOR))
                    self.honesty[seat] = (a + odds, b + 1 - odds)
            pushed.extend(getattr(action, "push", ()))
            if isinstance(action, (BidAction, Claim)):
                standing = action.bid

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        return draw(self.policies([view], limit)[0], self.rng.random())

    def policy(self, view: PlayerView) -> Policy:
        """The chance of each move `act` may make in `view` (it draws from this). It learns from
        the view as `act` does, so call one or the other per turn."""
        return self.policies([view])[0]

    def policies(self, views: Sequence[PlayerView], limit: Limit | None = None) -> list[Policy]:
        """`policy` of each of `views`, which differ only in this seat's own hand (every hand a
        seat may hold at one public position, as `liarsdice exploit` asks): the belief over the
        other cups is worked out once for all of them. In a duel an equilibrium's play may be
        mixed in (`bots/strong_duel.py`)."""
        first = views[0]
        public = (first.seat, first.history, first.dice, first.pushed, first.round_no)
        for view in views:
            if view.legal is None or not view.legal_actions or view.seat is None:
                seat = view.seats[view.seat] if view.seat is not None else "a spectator"
                raise ValueError(f"{seat} has no legal action: it is not this seat's turn")
            if (view.seat, view.history, view.dice, view.pushed, view.round_no) != public:
                raise ValueError("policies() takes views of one public position, differing only in the seat's hand")
        self.learn(first)
        own = self.scored_policies(views)
        if not self.hides_in_duel(first):
            return own
        return in_duel(self, views, own, limit.time if limit is not None else None)

    def hides_in_duel(self, view: PlayerView) -> bool:
        """Whether a duel's equilibrium is mixed into this bot's play at `view` where one is at
        hand (`bots/strong_duel.py`): always, so that its bids do not give its cup away."""
        return True

    def scored_policies(self, views: Sequence[PlayerView]) -> list[Policy]:
        """This bot's own policy at each of `views` (checked by `policies`), from its scored moves
        and what it has learnt so far. The moves of many views are scored together, each exactly
        as alone (`bots/strong_hands.py`)."""
        together = len(views) > 1
        return self._policies(views, self._estimates(views, together), together)

    def move_chances(self, views: Sequence[PlayerView], action: Action) -> Floats:
        """[len(views)]: the chance `scored_policies` gives `action` at each of `views` (one public
        position, the hands differing): what a reader of this bot's play asks. Where the turn is
        bids, calls and exact alone, every hand's moves are mixed at once (`hand_chances`)."""
        first = views[0]
        if len(views) > 1:
            faces = first.options.faces
            counts = np.zeros((len(views), faces), dtype=np.int64)
            for h, view in enumerate(views):
                for die in view.hand:
                    counts[h, die - 1] += 1
            chances = self.hand_chances(first, counts, action)
            if chances is not None:
                return chances
        return np.array([sum(p for a, p in policy if a == action) for policy in self.scored_policies(views)])

    def hand_chances(
        self, view: PlayerView, counts: Ints, action: Action, passes: bool = True, pushes: bool = True
    ) -> Floats | None:
        """[H]: the chance `scored_policies` gives `action` at `view`'s public position from each
        hand of `counts` ([H, F]: how many dice of each face, `HandSpace.counts` rows), without a
        view, a round or an estimate per hand: the same chances as each hand's policy, to
        rounding (tests/test_strong_batch.py). None where the turn is not bids, calls, exact, a
        pass and pushes (a vote, chips), the seat has pushed dice, or its bids are too many to
        look ahead from together: ask `move_chances`. `passes=False`, `pushes=False`: the chances
        as if no pass, or no push, were legal (Soar: scoring every hand's pushes is most of the
        work, the pass look-ahead a sixth)."""
        legal = view.legal
        if legal is None or legal.voting or view.seat is None or view.pushed[view.seat]:
            return None
        if not legal.economy:
            found = self.hand_policies(view, counts, passes, pushes)
            if found is None:
                return None
            moves, chances = found
            out: Floats = chances[:, moves.index(action)] if action in moves else np.zeros(len(counts))
            return out
        if sum(view.active) != 2 or legal.pushes or view.options.goal == "shedding":
            return None  # a table's chips (or chips with pushes): one hand at a time
        r = Round(view, self.noise())
        first = Estimate(r, None, self.belief(r))
        match = counted(counts, r.wild)
        known = r.known_with(match)
        # Imported here: the chips build on this module (bots/strong_tavern.py).
        from .strong_tavern import chip_model
        from .strong_tavern_hands import chip_chances

        ordered, keep = self._candidate_table(legal.bids, first, known)
        weighed = np.flatnonzero(keep.any(axis=0))  # the bids some hand weighs
        short = match < counts.sum(axis=1, keepdims=True) * r.ways / r.faces  # `_short_faces`
        model = self.chip_model or chip_model()
        bids = [ordered[i] for i in weighed]
        return chip_chances(self, model, view, first, known, short, bids, keep[:, weighed], action)

    def hand_policies(
        self, view: PlayerView, counts: Ints, passes: bool = True, pushes: bool = True
    ) -> tuple[list[Action], Floats] | None:
        """The moves `scored_policies` may make at `view`'s public position and [H, moves]: the
        chance of each from each hand of `counts` (`hand_chances` of every move at once, for a
        turn of bids, calls, exact, a pass and pushes). None where `hand_chances` of a turn
        without chips is."""
        legal = view.legal
        if legal is None or legal.voting or legal.economy or view.seat is None or view.pushed[view.seat]:
            return None
        r = Round(view, self.noise())
        first = Estimate(r, None, self.belief(r))
        match = counted(counts, r.wild)
        known = r.known_with(match)
        hands = len(known)
        standing = view.standing_bid
        # The moves in `_turn`'s order, whose ranks never rise: the calls, then the bids.
        moves: list[Action] = [Challenge(t) for t in legal.challenge_targets]
        columns: list[Floats] = [self._holds_of_hands(view, first, t, known) for t in legal.challenge_targets]
        columns = [r.win * (1 - holds) - r.lose * holds for holds in columns]
        if legal.can_exact and standing is not None:
            moves.append(Exact())
            columns.append(self._exact_worth(view, r, first.chances_exact(standing, known)))
        ordered, keep = self._candidate_table(legal.bids, first, known)
        weighed = np.flatnonzero(keep.any(axis=0))  # the bids some hand weighs
        bids, keep = [ordered[i] for i in weighed], keep[:, weighed]
        face_of = np.array([b.face for b in bids], dtype=np.int64)
        pushing = _pushes_of_hands(counts, r.wild, sorted(set(face_of.tolist()))) if legal.pushes and pushes else {}
        by_push: dict[tuple[int, ...], dict[Bid, None]] = {}
        for (face, push), _ in pushing.items():
            by_push.setdefault(push, {}).update(dict.fromkeys(b for b in bids if b.face == face))
        passing = legal.can_pass and passes
        together = Hands(first, known, bids, {p: list(b) for p, b in by_push.items()}, passing)
        if passing:
            valid = counts.max(axis=1) == counts.sum(axis=1)  # a pass holds from a hand of one face
            bluffed = together.values([standing], r.win, r.lose, pass_valid=False)
            honest = together.values([standing], r.win, r.lose, pass_valid=True)
            if bluffed is None or honest is None:
                return None
            moves.append(Pass())
            columns.append(np.where(valid, honest[:, 0], bluffed[:, 0]))
        table = together.values(bids, r.win, r.lose) if bids else np.zeros((hands, 0))
        if table is None:
            return None
        values = [np.column_stack(columns) if columns else np.zeros((hands, 0)), np.where(keep, table, -np.inf)]
        moves += [BidAction(b) for b in bids]
        # Each push's bids (on every face it serves) are valued at once; a push is worth the same
        # to every hand that makes it.
        worth_of_push: dict[tuple[int, ...], dict[Bid, float]] = {}
        for push, on_push in by_push.items():
            pushed = together.values(list(on_push), r.win, r.lose, push=push)
            if pushed is None:
                return None
            worth_of_push[push] = dict(zip(on_push, pushed[0].tolist(), strict=True))
        for (face, push), of in pushing.items():
            on_face = np.flatnonzero(face_of == face)
            row = np.array([worth_of_push[push][bids[i]] for i in on_face])
            block = np.full((hands, len(on_face)), -np.inf)
            block[of] = np.where(keep[np.ix_(of, on_face)], row, -np.inf)
            values.append(block)
            moves += [BidAction(bids[i], push) for i in on_face]
        plain = np.array([isinstance(m, Challenge) or (isinstance(m, BidAction) and not m.push) for m in moves])
        faces = np.array([m.bid.face if isinstance(m, BidAction) and not m.push else 0 for m in moves])
        return moves, mixed_chances(np.hstack(values), plain, faces)

    def scored_policies_each(self, views: Sequence[PlayerView]) -> list[Policy]:
        """`scored_policies`, one view at a time (the belief over the other cups still shared):
        what scoring the hands together must give, and what it is measured against
        (tests/test_strong_batch.py, benchmarks/strong_batch.py)."""
        return self._policies(views, self._estimates(views, together=False), together=False)

    def _estimates(self, views: Sequence[PlayerView], together: bool) -> list[Estimate]:
        noise = self.noise()
        r = Round(views[0], noise)
        first = Estimate(r, None, self.belief(r))
        if not together:
            return [first] + [Estimate(Round(view, noise), first) for view in views[1:]]
        estimates = [first] + [Estimate(r.with_hand(view), first) for view in views[1:]]
        self._together(views, estimates)
        return estimates

    def _policies(self, views: Sequence[PlayerView], estimates: Sequence[Estimate], together: bool) -> list[Policy]:
        out = []
        legal_of: LegalMoves | None = None
        legal_now: Container[Action] = ()
        for view, estimate in zip(views, estimates, strict=True):
            legal = view.legal
            assert legal is not None
            if legal.voting:
                chances: Policy = [(self._vote(view, estimate), 1.0)]
            elif legal.economy:
                chances = picked(self.scored_moves(view, estimate))
            else:
                chances = mixed(self.scored_moves(view, estimate))
            if legal != legal_of or not together:  # the same legal moves, the same legal actions
                legal_of = legal
                # a Soar turn has over 1,000 legal actions (pushes): not hashed one by one
                legal_now = _ByLegalMoves(legal) if legal.pushes and not legal.economy else set(view.legal_actions)
            chances = [(a, p) for a, p in chances if a in legal_now]
            out.append(chances or [(self._fallback(view, estimate), 1.0)])
        return out

    def _together(self, views: Sequence[PlayerView], estimates: Sequence[Estimate]) -> None:
        """Set the estimates of `views` (one public position, every hand of ours) to score their
        moves together: each hand's candidate bids, then the next player's answers to all of them
        at once (`strong_hands.Hands`)."""
        legal = views[0].legal
        assert legal is not None
        if legal.voting:
            return
        known = np.stack([e.r.known for e in estimates])
        ordered, keep = self._candidate_table(legal.bids, estimates[0], known)
        planned = [[ordered[i] for i in np.flatnonzero(row)] for row in keep]
        plain: dict[Bid, None] = {}
        pushes: dict[tuple[int, ...], dict[Bid, None]] = {}
        for view, estimate, bids in zip(views, estimates, planned, strict=True):
            assert view.legal is not None
            if view.legal.bids != legal.bids:
                continue  # (never seen) this hand finds its own candidates and scores them alone
            estimate.candidates = bids
            plain.update(dict.fromkeys(bids))
            for on_face, push in self._pushes(view, estimate.r, bids):
                pushes.setdefault(push, {}).update(dict.fromkeys(on_face))
        passing = any(view.legal is not None and view.legal.can_pass for view in views)
        hands = Hands(estimates[0], known, list(plain), {push: list(bids) for push, bids in pushes.items()}, passing)
        for h, estimate in enumerate(estimates):
            estimate.hands, estimate.hand = hands, h

    def belief(self, r: Round) -> dict[int, Floats] | None:
        """The weights over the other cups' hands at this decision, or None for the bot's own
        reading of their actions (`strong_belief.beliefs`); a reader of the others overrides it."""
        return None

    def scored_moves(self, view: PlayerView, estimate: Estimate) -> list[Scored]:
        """Every move this bot weighs at its turn in `view` (not a vote), with its value in
        expected dice: what its policy draws from, and what `liarsdice analyse` shows."""
        legal = view.legal
        assert legal is not None and not legal.voting
        if legal.economy:
            # Imported here: the chips build on this module (bots/strong_tavern.py).
            from .strong_tavern import economy_moves

            return economy_moves(self, view, estimate)
        return self._turn(view, estimate)

    # ----- choosing -----

    def candidates(self, view: PlayerView, estimate: Estimate) -> list[Bid]:
        """The bids worth scoring: on each face the lowest legal bid and the next few while
        they are not far-fetched."""
        if estimate.candidates is not None:
            return list(estimate.candidates)  # found with every other hand's (`_together`)
        legal = view.legal
        assert legal is not None
        per_face: dict[int, list[Bid]] = {}
        for bid in legal.bids:
            got = per_face.setdefault(bid.face, [])
            if len(got) >= CANDIDATES_PER_FACE:
                continue
            if got and estimate.chance_true(bid) < CANDIDATE_FLOOR:
                continue
            got.append(bid)
        return [b for face in sorted(per_face) for b in per_face[face]]

    def _candidate_table(self, bids: Sequence[Bid], estimate: Estimate, known: Ints) -> tuple[list[Bid], BoolArray]:
        """`candidates` of each hand of ours that knows `known` of the dice ([hands, faces],
        `Round.known`), among the legal `bids`, found for all the hands at once: the bids by face
        (in the ladder's order within one), and [hands, bids] whether each hand scores each."""
        if not bids:
            return [], np.zeros((len(known), 0), dtype=bool)
        order = np.argsort([b.face for b in bids], kind="stable")
        ordered = [bids[i] for i in order]
        faces = np.array([b.face - 1 for b in ordered])
        quantities = np.array([b.quantity for b in ordered])
        tails = estimate.table_tails  # `Estimate.chance_true` of every bid for every hand
        need = np.minimum(np.maximum(quantities - known[:, faces], 0), tails.shape[1] - 1)
        likely = tails[faces, need] >= CANDIDATE_FLOOR
        keep = np.zeros_like(likely)
        starts = np.flatnonzero(np.r_[True, faces[1:] != faces[:-1]])
        for start, end in zip(starts, [*starts[1:], len(faces)], strict=True):
            keep[:, start] = CANDIDATES_PER_FACE > 0  # the lowest bid on the face, however unlikely
            more = likely[:, start + 1 : end]
            keep[:, start + 1 : end] = more & (np.cumsum(more, axis=1) < CANDIDATES_PER_FACE)
        return ordered, keep

    def _short_faces(self, r: Round) -> set[int]:
        """The faces we hold fewer of than an unseen cup would on average: bids on them are bluffs."""
        size = max(len(r.view.hand), 1)
        mine = match_vector(r.view.hand, r.faces, r.wild).tolist()
        ways = r.ways.tolist()
        return {f + 1 for f in range(r.faces) if mine[f] < size * ways[f] / r.faces}

    def scored_bids(
        self, view: PlayerView, estimate: Estimate, stakes: tuple[float, float] | None = None
    ) -> list[Scored]:
        """Every candidate bid scored, with a push where pushes are allowed and one helps."""
        bids = self.candidates(view, estimate)
        if not bids:
            return []
        r = estimate.r
        pushed = self._pushes(view, r, bids)
        if pushed:
            estimate.look_ahead_many([(bids, ()), *pushed])
        values, stands = estimate.score_bids(bids, stakes=stakes)
        short = self._short_faces(r)
        out = [
            Scored(v, 0, BidAction(b), s, b.face in short)
            for b, v, s in zip(bids, values.tolist(), stands.tolist(), strict=True)
        ]
        for on_face, push in pushed:
            pv, ps = estimate.score_bids(on_face, push, stakes=stakes)
            out += [
                Scored(v, 0, BidAction(b, push), s, False)
                for b, v, s in zip(on_face, pv.tolist(), ps.tolist(), strict=True)
            ]
        return out

    def _pushes(self, view: PlayerView, r: Round, bids: list[Bid]) -> list[tuple[list[Bid], tuple[int, ...]]]:
        """Where pushes are allowed: on each face, its bids with the dice that count for it pushed."""
        assert view.legal is not None
        pushed: list[tuple[list[Bid], tuple[int, ...]]] = []
        pushes = set(view.legal.pushes)
        if pushes:
            for face in sorted({b.face for b in bids}):
                push = tuple(sorted(d for d in view.cup if d == face or (r.wild is not None and d == r.wild)))
                if push and push in pushes:
                    pushed.append(([b for b in bids if b.face == face], push))
        return pushed

    def _turn(self, view: PlayerView, estimate: Estimate) -> list[Scored]:
        legal = view.legal
        assert legal is not None
        r = estimate.r
        moves: list[Scored] = []
        for target in legal.challenge_targets:
            holds = self._holds(view, estimate, target)
            moves.append(Scored(r.win * (1 - holds) - r.lose * holds, 3, Challenge(target)))
        if legal.can_exact and view.standing_bid is not None:
            moves.append(Scored(self._exact_value(view, estimate, view.standing_bid), 2, Exact()))
        if legal.can_pass:
            valid = len(set(view.hand)) == 1
            value, stands = estimate.score_bids([view.standing_bid], pass_valid=valid)
            moves.append(Scored(float(value[0]), 1, Pass(), float(stands[0]), not valid))
        moves += self.scored_bids(view, estimate)
        return moves

    def _holds(self, view: PlayerView, estimate: Estimate, target: int) -> float:
        """The chance that the action of `target` that a challenge would check is right."""
        history = view.history
        index = len(history) - 1 if history[-1].seat == target else len(history) - 2
        action = history[index].action
        if isinstance(action, Pass):
            return estimate.pass_valid(target, index)
        if isinstance(action, BidAction):
            return estimate.chance_true(action.bid)
        return estimate.chance_true(view.standing_bid) if view.standing_bid is not None else 0.5

    def _holds_of_hands(self, view: PlayerView, estimate: Estimate, target: int, known: Ints) -> Floats:
        """`_holds` for every hand of ours at once ([H]; `known`: [H, F], `Round.known`)."""
        history = view.history
        index = len(history) - 1 if history[-1].seat == target else len(history) - 2
        action = history[index].action
        bid = action.bid if isinstance(action, BidAction) else view.standing_bid
        if isinstance(action, Pass) or bid is None:
            # whether a pass holds is the passer's cup alone: the same whatever our hand
            return np.full(len(known), self._holds(view, estimate, target))
        return estimate.chances_true(bid, known)

    def _exact_value(self, view: PlayerView, estimate: Estimate, bid: Bid) -> float:
        return float(self._exact_worth(view, estimate.r, estimate.chance_exact(bid)))

    def _exact_worth(self, view: PlayerView, r: Round, hit: Any) -> Any:
        """The value of an exact that hits with chance `hit` (a number, or an array of them)."""
        o = view.options
        others = sum(view.active) - 1
        if r.shedding:
            # a hit sheds our die; a miss sheds one for everyone else
            value = hit * 1.0 - (1 - hit) * r.lose * others
        elif o.exact == "others_lose":
            value = hit * r.win * others - (1 - hit)
        else:
            seat = r.me
            gain = 1.0 if view.dice[seat] < o.dice_cap(seat) else 0.0
            value = hit * gain - (1 - hit)
        if o.exact_limit == "once_per_game":
            value -= EXACT_ONCE_MARGIN
        return value

    # ----- a siding vote -----

    def _vote(self, view: PlayerView, estimate: Estimate) -> Action:
        # Our vote only decides whether we are on the right side, and the right side sheds (or,
        # in an elimination game, the wrong side loses): side with the likelier truth.
        bid = view.standing_bid
        return Vote(bid is None or estimate.chance_true(bid) >= 0.5)

    def _fallback(self, view: PlayerView, estimate: Estimate) -> Action:
        return safest_action(view, estimate, lambda target: self._holds(view, estimate, target))


class _ByLegalMoves:
    """The legal actions of a turn with pushes and without chips, as its `LegalMoves` says they
    are: each legal bid, and the pass where it is legal, with no push or any of `pushes`; a
    challenge of each target; the exact where it is legal. The actions of `view.legal_actions`,
    looked up without hashing every one of them (over a thousand at a Soar opening), for each
    hand of ours (`StrongBot.scored_policies`)."""

    def __init__(self, legal: LegalMoves) -> None:
        self.legal = legal
        self.bids = set(legal.bids)
        self.pushes = {(), *legal.pushes}

    def __contains__(self, action: object) -> bool:
        legal = self.legal
        if isinstance(action, BidAction):
            return action.bid in self.bids and action.push in self.pushes
        if isinstance(action, Pass):
            return legal.can_pass and action.push in self.pushes
        if isinstance(action, Challenge):
            return action.target in legal.challenge_targets
        return isinstance(action, Exact) and legal.can_exact


def _pushes_of_hands(counts: Ints, wild: int | None, faces: Sequence[int]) -> dict[tuple[int, tuple[int, ...]], Ints]:
    """Each hand's push on each of `faces` (`StrongBot._pushes`: its dice that count for the face),
    where one is legal (at least one die, not the whole cup): the hands (rows of `counts`) of
    each (face, push), the faces in order and the pushes by their count of the face's own dice."""
    size = int(counts[0].sum())
    held_wild = counts[:, wild - 1] if wild is not None else np.zeros(len(counts), dtype=np.int64)
    out: dict[tuple[int, tuple[int, ...]], Ints] = {}
    for face in faces:
        own = counts[:, face - 1]
        wilds = held_wild if wild is not None and face != wild else np.zeros_like(own)
        for n_own, n_wild in sorted(set(zip(own.tolist(), wilds.tolist(), strict=True))):
            if 0 < n_own + n_wild < size:
                push = tuple(sorted((face,) * n_own + (wild,) * n_wild)) if wild is not None else (face,) * n_own
                out[(face, push)] = np.flatnonzero((own == n_own) & (wilds == n_wild))
    return out
