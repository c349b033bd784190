"""The end of a round: challenges, siding votes, exact, the count, the outcome, what comes next
(RULES.md 2.5), and the game's result.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self

from .actions import BidAction, Challenge, Exact, Pass, Vote
from .bidding import _Bidding
from .bids import Bid
from .events import Event, GameOver, GameResult, OutcomeKind, RoundOutcome, RoundResolved, Turn
from .table import (
    _NEVER,
    _OFF_LADDER,
    OVER,
    ROLL,
    STARTER,
    VOTE,
    IllegalAction,
    _mask,
    _new_tuple,
    _Round,
    _Vote,
    _with_exact_used,
)


class _Resolution(_Bidding):
    """How a state's round ends and what follows it."""

    __slots__ = ()

    def _apply_challenge(self, action: Challenge) -> tuple[Self, tuple[Event, ...]]:
        seat = self._to_act
        if self._r.econ is not None:
            raise IllegalAction("in this game you accuse a claim instead of challenging it")
        h = self._history
        g = self._game
        if g._duel and h and action.target == h[-1].seat != seat:
            # The common case: the last bid, by another player, in a duel.
            turn: Turn = _new_tuple(Turn, (seat, action))
            if not g._plain_single:
                return self._resolve_challenge(turn, len(h) - 1, ())
            # One round, no pass, no vote: the bid and the count settle everything. Without
            # pass or betting the last action is a bid.
            target = action.target
            ends = self._r.ends
            if ends is not None and self._rung != _OFF_LADDER:
                key = (self._rung, seat, target)
                end = ends.get(key)
                if end is not None:  # this round ended so before: the same outcome and result
                    s = object.__new__(type(self))
                    s._game = g
                    s._t = self._t
                    s._phase = OVER
                    s._to_act = -1
                    s._history = h + (turn,)  # noqa: RUF005  # faster than unpacking
                    s._standing = s._rung = -1
                    s._legal = ()
                    s._r = end[0]
                    return s, (turn, end[1], end[2])
            bid: Bid = h[-1].action.bid  # type: ignore[union-attr]
            count = self._count(bid[1])
            claim_true = count >= bid[0]
            right, wrong = (target, seat) if claim_true else (seat, target)
            over, events = self._finish_single(
                turn, "challenge", seat, target, bid, count, claim_true, None, None, (), wrong, right, wrong
            )
            if ends is not None and self._rung != _OFF_LADDER:
                resolved, ended = events[1], events[2]
                assert isinstance(resolved, RoundResolved) and isinstance(ended, GameOver)
                ends[(self._rung, seat, target)] = (over._r, resolved, ended)
            return over, events
        targets = self._challenge_targets(seat)
        if action.target not in targets:
            if not targets:
                raise IllegalAction(self._no_target_message())
            if action.target == seat:
                raise IllegalAction("you cannot challenge your own action")
            if not 0 <= action.target < self._game.num_players:
                raise IllegalAction(f"seat {action.target} does not exist")
            names = " or ".join(self._name(x) for x in targets)
            why = (
                "only the last action and, if it is a pass, the one before it can be challenged"
                if self._game.options.pass_rule != "none"
                else "only the last bid can be challenged"
            )
            raise IllegalAction(
                f"{self._name(action.target)}'s action cannot be challenged now: {why} (challenge {names})"
            )
        index = self._target_index(seat, action.target)
        o = self._game.options
        turn = Turn(seat, action)
        if o.challenge_mode == "siding_vote":
            n = self._game.num_players
            voters = []
            s_ = seat
            for _ in range(n - 1):
                s_ = (s_ + 1) % n
                if self._t.out_round[s_] is None and s_ not in (seat, action.target):
                    voters.append(s_)
            if voters:
                s = self._copy()
                s._history = (*self._history, turn)
                s._phase = VOTE
                s._r = s._r.copy()
                s._r.vote = _Vote(seat, action.target, index, tuple(voters), ())
                s._to_act = voters[0]
                return s, (turn,)
        return self._resolve_challenge(turn, index, ())

    def _apply_vote(self, action: Vote) -> tuple[Self, tuple[Event, ...]]:
        v = self._r.vote
        assert v is not None
        seat = self._to_act
        turn = Turn(seat, action)
        votes = (*v.votes, (seat, action.believe))
        if len(votes) < len(v.voters):
            s = self._copy()
            s._history = (*self._history, turn)
            s._r = s._r.copy()
            s._r.vote = _Vote(v.accuser, v.accused, v.target_index, v.voters, votes)
            s._to_act = v.voters[len(votes)]
            return s, (turn,)
        challenge = self._history[-1 - len(v.votes)]
        s = self._copy()
        s._history = (*self._history, turn)
        state, events = s._resolve_challenge(challenge, v.target_index, votes, appended=True)
        return state, (turn, *events)

    def _apply_exact(self) -> tuple[Self, tuple[Event, ...]]:
        seat = self._to_act
        err = self._exact_error(seat)
        if err:
            raise IllegalAction(err)
        o = self._game.options
        t = self._t
        bid = self.standing_bid
        bidder = self._history[self._standing].seat
        assert bid is not None
        count = self._count(bid.face)
        hit = count == bid.quantity
        n = self._game.num_players
        delta = [0] * n
        others = [s for s in t.active if s != seat]
        if o.goal == "shedding":
            # Mirror of elimination: the correct side sheds. A hit makes the caller correct; a
            # miss makes everyone else correct.
            if hit:
                delta[seat] = -1
            else:
                for other in others:
                    delta[other] = -1
        elif hit:
            if o.exact == "gain_die":
                delta[seat] = 1
            else:
                for other in others:
                    delta[other] = -1
        else:
            delta[seat] = -1
        turn = Turn(seat, Exact())
        s = self._copy()
        s._history = (*self._history, turn)
        s._t = _with_exact_used(t, seat) if o.exact_limit == "once_per_game" else t
        winner, loser = (seat, bidder) if hit else (bidder, seat)
        state, events = s._finish_round(
            None, "exact", seat, bidder, bid, count, None, hit, None, (), delta, seat, winner, loser
        )
        return state, (turn, *events)

    def _in_play(self) -> Iterable[int]:
        e = self._r.econ
        o = self._game.options
        if e is not None and o.economy is not None and not o.economy.folded_dice_count:
            return (s for s in self._t.active if not e.folded >> s & 1)
        return self._t.active

    def _count(self, face: int) -> int:
        """How many dice in play count for a bid on `face` (wilds included, unless bid on)."""
        r = self._r
        counts = r.counts
        if counts is not None:
            known = counts[face]
            if known is not None:
                return known
        wild = self._t.wild
        if wild == face:
            wild = None
        total = 0
        cups = r.cups
        if r.pushed is self._game._no_cups and r.econ is None:  # no pushes, nobody folded
            for s in self._t.active:
                cup = cups[s]
                total += cup.count(face) if wild is None else cup.count(face) + cup.count(wild)
            if counts is not None:
                counts[face] = total
            return total
        for s in self._in_play():
            for dice in (cups[s], r.pushed[s]):
                if dice:
                    total += dice.count(face) + (dice.count(wild) if wild is not None else 0)
        return total

    def _resolve_challenge(
        self,
        challenge: Turn,
        index: int,
        votes: tuple[tuple[int, bool], ...],
        appended: bool = False,
    ) -> tuple[Self, tuple[Event, ...]]:
        o = self._game.options
        seat = challenge.seat
        target_turn = self._history[index]
        target = target_turn.seat
        n = self._game.num_players
        delta = [0] * n
        count: int | None = None
        claim_true: bool | None = None
        pass_valid: bool | None = None
        bid: Bid | None = None
        if isinstance(target_turn.action, Pass):
            if o.pass_rule == "at_reveal":
                pass_valid = len(set(self._r.cups[target] + self._r.pushed[target])) == 1
            else:
                pass_valid = not self._r.bad_passes >> index & 1
            target_right = pass_valid
        else:
            assert isinstance(target_turn.action, BidAction)
            bid = target_turn.action.bid
            count = self._count(bid.face)
            claim_true = count >= bid.quantity
            target_right = claim_true
        right, wrong = (target, seat) if target_right else (seat, target)
        shedding = o.goal == "shedding"
        # Elimination: the wrong side loses a die; shedding: the correct side sheds one.
        delta[right if shedding else wrong] = -1
        for voter, believe in votes:
            if (believe == target_right) == shedding:
                delta[voter] = -1
        return self._finish_round(
            None if appended else challenge,
            "challenge",
            seat,
            target,
            bid,
            count,
            claim_true,
            None,
            pass_valid,
            votes,
            delta,
            wrong,
            right,
            wrong,
        )

    def _finish_round(
        self,
        turn: Turn | None,
        kind: OutcomeKind,
        caller: int | None,
        target: int | None,
        bid: Bid | None,
        count: int | None,
        claim_true: bool | None,
        exact_hit: bool | None,
        pass_valid: bool | None,
        votes: tuple[tuple[int, bool], ...],
        delta: list[int],
        round_loser: int,
        winner: int | None,
        loser: int | None,
    ) -> tuple[Self, tuple[Event, ...]]:
        """Steps 1-6 of RULES.md 2.5 after the outcome is known: dice, places, chips, end, next.

        `turn`, if given, is the action that ended the round: it joins the history and leads the
        events (otherwise the caller has done both)."""
        g = self._game
        if g._plain_single:
            return self._finish_single(
                turn,
                kind,
                caller,
                target,
                bid,
                count,
                claim_true,
                exact_hit,
                pass_valid,
                votes,
                round_loser,
                winner,
                loser,
            )
        o = g.options
        t = self._t
        n = g.num_players
        single = o.rounds == "single"
        dice_before = t.dice
        out_round = t.out_round
        out_now: tuple[int, ...] = ()
        if single or not any(delta):
            dice_after = dice_before
        else:
            cap = o.dice_cap
            dice_after = tuple(
                max(0, min(cap(s), dice_before[s] + delta[s])) if out_round[s] is None else 0 for s in range(n)
            )
            out_now = tuple(s for s in t.active if dice_after[s] == 0)
            if out_now:
                out_round = tuple(t.round_no if s in out_now else out_round[s] for s in range(n))
        # chips
        e = self._r.econ
        chips = t.chips
        running = t.running_pot
        pot = share = None
        if e is not None and o.economy is not None:
            pot = e.pot
            share = pot // 2 if o.economy.odd_remainder == "running_pot" else (pot + 1) // 2
            chip_list = list(e.chips)
            if winner is not None:
                chip_list[winner] += share
            running += pot - share
            chips = tuple(chip_list)
        still = len(t.active) - len(out_now)
        game_over = single or still <= 1
        next_starter: int | None = None
        next_special = False
        special_done = t.special_done
        candidates: tuple[int, ...] = ()
        if not game_over:
            next_starter, candidates = self._next_starter(round_loser, dice_after, out_round, chips)
            odr = o.one_die_round
            if odr is not None and still >= odr.min_players:
                newly = [
                    s for s in range(n) if out_round[s] is None and dice_after[s] == 1 and not special_done >> s & 1
                ]
                if newly:
                    next_special = True
                    special_done |= _mask(newly)
        pushed = self._r.pushed
        cups = self._r.cups
        hands = cups if pushed is g._no_cups else tuple(c + p for c, p in zip(cups, pushed, strict=True))
        folded = tuple(s for s in t.active if e.folded >> s & 1) if e is not None else ()
        outcome: RoundOutcome = _new_tuple(  # this runs once a round, in every playout
            RoundOutcome,
            (
                t.round_no,
                kind,
                caller,
                target,
                bid,
                count,
                claim_true,
                exact_hit,
                pass_valid,
                votes,
                hands,
                pushed,
                t.special,
                t.active,
                dice_before,
                dice_after,
                out_now,
                round_loser,
                winner,
                loser,
                folded,
                pot,
                share if winner is not None else None,
                chips if e is not None else None,
                running if e is not None else None,
                game_over,
                next_starter,
                next_special,
            ),
        )
        resolved: RoundResolved = _new_tuple(RoundResolved, (outcome,))
        if game_over:
            result = self._game_result(out_round, dice_after, chips, running, winner, loser, single)
            if dice_after is dice_before and out_round is t.out_round and result.chips == t.chips:
                table = t
            else:
                table = g._table(
                    t.round_no,
                    dice_after,
                    out_round,
                    False,
                    special_done,
                    t.exact_used,
                    t.starter,
                    result.chips,
                    0 if result.running_pot_award else running,
                )
            s = self._chance(g, table, OVER, outcome, ())
            s._r.cups = self._r.cups
            s._r.pushed = pushed
            s._history = self._history if turn is None else (*self._history, turn)
            s._r.result = result
            over: GameOver = _new_tuple(GameOver, (result,))
            return s, (resolved, over) if turn is None else (turn, resolved, over)
        table = g._table(
            t.round_no + 1,
            dice_after,
            out_round,
            next_special,
            special_done,
            t.exact_used,
            next_starter if next_starter is not None else -1,
            chips,
            running,
        )
        phase = STARTER if next_starter is None else ROLL
        return self._chance(g, table, phase, outcome, candidates), (resolved,) if turn is None else (
            turn,
            resolved,
        )

    def _finish_single(
        self,
        turn: Turn | None,
        kind: OutcomeKind,
        caller: int | None,
        target: int | None,
        bid: Bid | None,
        count: int | None,
        claim_true: bool | None,
        exact_hit: bool | None,
        pass_valid: bool | None,
        votes: tuple[tuple[int, bool], ...],
        round_loser: int,
        winner: int | None,
        loser: int | None,
    ) -> tuple[Self, tuple[Event, ...]]:
        """_finish_round for a single-round game without chips: no die changes hands, nothing
        carries over, and the result depends on the two sides of the check alone. Every
        single-round game of the openspiel preset ends here, so it is kept short."""
        g = self._game
        t = self._t
        r = self._r
        pushed = r.pushed
        hands = r.cups if pushed is g._no_cups else tuple(c + p for c, p in zip(r.cups, pushed, strict=True))
        dice = t.dice
        outcome: RoundOutcome = _new_tuple(
            RoundOutcome,
            (
                t.round_no,
                kind,
                caller,
                target,
                bid,
                count,
                claim_true,
                exact_hit,
                pass_valid,
                votes,
                hands,
                pushed,
                t.special,
                t.active,
                dice,
                dice,
                (),
                round_loser,
                winner,
                loser,
                (),
                None,
                None,
                None,
                None,
                True,
                None,
                False,
            ),
        )
        assert winner is not None and loser is not None  # without chips nobody folds
        endings = t.endings
        assert endings is not None  # kept by the tables of such games
        key = winner * g.num_players + loser
        ending = endings.get(key)
        if ending is None:
            result = self._game_result(t.out_round, dice, None, 0, winner, loser, True)
            ending = endings[key] = (result, _new_tuple(GameOver, (result,)))
        s = object.__new__(type(self))
        s._game = g
        s._t = t
        s._phase = OVER
        s._to_act = -1
        s._history = self._history if turn is None else self._history + (turn,)  # noqa: RUF005  # faster
        s._standing = s._rung = -1
        s._legal = ()
        s._r = over = object.__new__(_Round)
        over.cups = r.cups
        over.pushed = pushed
        over.passed = over.bad_passes = 0
        over.vote = over.econ = None
        over.pending = -1
        over.candidates = ()
        over.outcome = outcome
        over.result = ending[0]
        over.counts = over.ends = None
        resolved: RoundResolved = _new_tuple(RoundResolved, (outcome,))
        return s, (resolved, ending[1]) if turn is None else (turn, resolved, ending[1])

    def _next_starter(
        self,
        round_loser: int,
        dice: tuple[int, ...],
        out_round: tuple[int | None, ...],
        chips: tuple[int, ...] | None,
    ) -> tuple[int | None, tuple[int, ...]]:
        o = self._game.options
        n = self._game.num_players

        def step(seat: int, direction: int) -> int:
            s = seat
            for _ in range(n):
                s = (s + direction) % n
                if out_round[s] is None:
                    return s
            raise AssertionError("no active seat")  # pragma: no cover

        if o.next_starter == "opener_ccw":
            return step(self._t.starter, -1), ()
        if out_round[round_loser] is None:
            return round_loser, ()
        if o.eliminated_starter == "next_clockwise":
            return step(round_loser, 1), ()
        alive = [s for s in range(n) if out_round[s] is None]
        fewest = min(dice[s] for s in alive)
        tied = [s for s in alive if dice[s] == fewest]
        if chips is not None and len(tied) > 1:
            poorest = min(chips[s] for s in tied)
            tied = [s for s in tied if chips[s] == poorest]
        if len(tied) == 1:
            return tied[0], ()
        return None, tuple(tied)

    def _game_result(
        self,
        out_round: tuple[int | None, ...],
        dice: tuple[int, ...],
        chips: tuple[int, ...] | None,
        running: int,
        winner: int | None,
        loser: int | None,
        single: bool,
    ) -> GameResult:
        o = self._game.options
        n = self._game.num_players
        holding = (
            self._t.active if out_round is self._t.out_round else tuple(s for s in range(n) if out_round[s] is None)
        )
        returns: tuple[float, ...] | None = None
        if single and chips is None and winner is not None and loser is not None:
            # One round decides it: +1 to the winner of the check, -1 to the loser, 0 to others.
            score = [0.0] * n
            score[winner] = 1.0
            score[loser] = -1.0
            podium = [2] * n
            podium[winner] = 1
            podium[loser] = n
            result: GameResult = _new_tuple(GameResult, (tuple(podium), holding, tuple(score), None, None, None))
            return result
        if single:
            score = [0.0] * n
            if winner is not None:
                score[winner] = 1.0
            if loser is not None:
                score[loser] = -1.0
            returns = tuple(score)
            order: list[float] = [-x for x in score]
        elif o.goal == "shedding":
            # Earlier finishers rank higher; whoever still holds dice is last.
            order = [_NEVER if r is None else r for r in out_round]
        else:
            order = [-_NEVER if r is None else -r for r in out_round]
        places = tuple(1 + sum(1 for x in order if x < mine) for mine in order)
        award = None
        final_chips = chips
        taker = None
        if chips is not None:
            # Who takes the pot is settled before its size is looked at (S4): a pot of 0 still
            # has a taker, and the same one a full pot would have.
            taker = winner if single else (holding[0] if len(holding) == 1 else None)
            if taker is not None and running:
                award = (taker, running)
                cl = list(chips)
                cl[taker] += running
                final_chips = tuple(cl)
        return GameResult(places, holding, returns, award, final_chips, taker)
