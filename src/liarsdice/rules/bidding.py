"""Bidding: the legal moves of the seat to act, why a bid, push or pass is refused, and applying
bids and passes.
"""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Self

from .actions import Accuse, Action, AllIn, BidAction, Challenge, Claim, Exact, Fold, Pass, Vote, sorted_push_bid
from .bids import Bid
from .chance import _Chance
from .events import Event, Turn
from .table import _OFF_LADDER, REROLL, TURN, VOTE, IllegalAction, bid_actions, claim_actions, pushed_bid_actions
from .views import LegalMoves

_VOTES: tuple[Action, ...] = (Vote(True), Vote(False))
_EXACT = Exact()


def _sub_multisets(cup: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every push a cup allows: 1 to len(cup)-1 dice, as sorted faces."""
    counts = sorted(Counter(cup).items())
    out: list[tuple[int, ...]] = []
    for takes in itertools.product(*(range(c + 1) for _, c in counts)):
        k = sum(takes)
        if 1 <= k <= len(cup) - 1:
            out.append(tuple(f for (f, _), t in zip(counts, takes, strict=False) for _ in range(t)))
    out.sort(key=lambda p: (len(p), p))
    return out


class _Bidding(_Chance):
    """A state's legal moves and bids: listing them, checking them, applying bids and passes."""

    __slots__ = ()

    def legal_moves(self) -> LegalMoves | None:
        """A summary of what the seat to act may do (None at chance nodes and the end)."""
        if self._phase == VOTE:
            return LegalMoves(
                self._to_act, True, (), False, (), (), False, False, None, False, None, None, False, False, False
            )
        if self._phase != TURN:
            return None
        kept = self._t.moves
        if kept is not None and self._rung != _OFF_LADDER:
            # Rules without pass, push or betting: the bidder and the rung settle the moves (as
            # they settle the legal actions, see _simple_legal_actions).
            key = (self._history[self._standing].seat if self._standing >= 0 else -1, self._rung)
            moves = kept.get(key)
            if moves is None:
                moves = kept[key] = self._legal_moves()
            return moves
        return self._legal_moves()

    def _legal_moves(self) -> LegalMoves:
        seat = self._to_act
        o = self._game.options
        pushes = tuple(_sub_multisets(self._r.cups[seat])) if o.push else ()
        if self._r.econ is not None:
            e = self._r.econ
            owed = self._owed(seat)
            chips = e.chips[seat]
            can_meet = chips >= owed
            raise_min = raise_max = None
            if can_meet:
                top = chips + e.paid[seat] if o.economy and o.economy.stake == "call_to_level" else chips
                if top >= e.bet + 1:
                    raise_min, raise_max = e.bet + 1, top
            has_claim = self._standing >= 0
            return LegalMoves(
                seat,
                False,
                self._legal_bids(seat) if can_meet else (),
                False,
                pushes if can_meet else (),
                (),
                False,
                True,
                owed,
                can_meet,
                raise_min,
                raise_max,
                can_meet and has_claim,
                (not can_meet) and has_claim and (chips > 0 or (o.economy is not None and o.economy.zero_chip_all_in)),
                True,
            )
        return LegalMoves(
            seat,
            False,
            self._legal_bids(seat),
            self._pass_error(seat) is None,
            pushes,
            self._challenge_targets(seat),
            self._exact_error(seat) is None,
            False,
            None,
            False,
            None,
            None,
            False,
            False,
            False,
        )

    def legal_actions(self) -> tuple[Action, ...]:
        """Every legal action of the seat to act, pushes and raises included (empty at chance
        nodes and the end). Bids come lowest first, in ladder order."""
        if self._legal is not None:
            return self._legal
        legal: tuple[Action, ...]
        if self._phase == VOTE:
            legal = _VOTES
        elif self._phase != TURN:
            legal = ()
        elif self._game._simple:
            legal = self._simple_legal_actions()
        else:
            legal = self._full_legal_actions()
        self._legal = legal
        return legal

    def _simple_legal_actions(self) -> tuple[Action, ...]:
        """Bids, challenge and exact only: the common case, cached by the table per rung.

        Without pass and betting the seat to act is always the next one after the standing
        bidder, and only that bid can be challenged, so (bidder, rung) settles everything."""
        t = self._t
        rung = self._rung
        if rung < 0:
            return t.opening
        bidder = self._history[self._standing].seat
        assert t.after is not None
        on_ladder = rung != _OFF_LADDER
        if on_ladder:
            cached = t.after[bidder][rung]
            if cached is not None:
                return cached
        seat = self._to_act
        exact = t.exact_possible and self._exact_error(seat) is None
        calls: tuple[Action, ...] = (
            (self._game._challenges[bidder], _EXACT) if exact else (self._game._challenges[bidder],)
        )
        bids: tuple[Action, ...]
        if on_ladder and not (t.special and self._face_locked(seat)):
            bids = bid_actions(t.ladder)[rung + 1 :]
        else:
            bids = tuple(BidAction(b) for b in self._legal_bids(seat))
        legal = bids + calls
        if on_ladder:
            t.after[bidder][rung] = legal
        return legal

    def _full_legal_actions(self) -> tuple[Action, ...]:
        moves = self.legal_moves()
        assert moves is not None
        legal: list[Action] = []
        pushes: tuple[tuple[int, ...], ...] = ((), *moves.pushes)
        lad = self._t.ladder
        n = len(moves.bids)
        # the legal bids are the top of the ladder (as they are but in a one-die round)
        on_top = n and moves.bids == lad.bids[len(lad.bids) - n :]
        if moves.economy:
            raises: list[int | None] = [None]
            if moves.raise_min is not None and moves.raise_max is not None:
                raises += list(range(moves.raise_min, moves.raise_max + 1))
            if on_top:
                # each bid at each raise with each push, the claims made once per ladder
                claims = [claim_actions(lad, r, p)[len(lad.bids) - n :] for r in raises for p in pushes]
                legal += itertools.chain.from_iterable(zip(*claims, strict=True))
            else:
                legal += [Claim(bid, r, p) for bid in moves.bids for r in raises for p in pushes]
            if moves.can_accuse:
                legal += [Accuse(r) for r in raises]
            if moves.can_all_in:
                legal.append(AllIn())
            legal.append(Fold())
            return tuple(legal)
        if on_top:
            # each with each push, made once per ladder and push, in the same order
            columns = [pushed_bid_actions(lad, p)[len(lad.bids) - n :] for p in pushes]
            legal += itertools.chain.from_iterable(zip(*columns, strict=True))
        else:
            for bid in moves.bids:  # the pushes are sorted (`_sub_multisets`)
                legal += [sorted_push_bid(bid, p) for p in pushes]
        if moves.can_pass:
            legal += [Pass(p) for p in pushes]
        legal += [Challenge(s) for s in moves.challenge_targets]
        if moves.can_exact:
            legal.append(Exact())
        return tuple(legal)

    def _legal_bids(self, seat: int) -> tuple[Bid, ...]:
        t = self._t
        o = self._game.options
        lad = t.ladder
        if t.q_max > lad.q_max:  # pragma: no cover - ladders are built for q_max
            raise AssertionError("ladder shorter than the dice in play")
        if self._standing < 0:
            bids = lad.bids
            if t.wild is not None and not o.wild_opening and not t.special:
                return tuple(b for b in bids if b.face != t.wild)
            return bids
        standing = self.standing_bid
        assert standing is not None
        rest = lad.bids[lad.index[standing] + 1 :] if standing in lad.index else self._above(standing)
        if t.special and self._face_locked(seat):
            return tuple(b for b in rest if b.face == standing.face)
        return rest

    def _above(self, standing: Bid) -> tuple[Bid, ...]:
        lad = self._t.ladder
        key = lad.key(standing.quantity, standing.face)
        return tuple(b for b, k in zip(lad.bids, lad.keys, strict=False) if k > key)

    def _face_locked(self, seat: int) -> bool:
        odr = self._game.options.one_die_round
        if odr is None:
            return False
        return odr.face_change == "nobody" or self._t.dice[seat] != 1

    def _challenge_targets(self, seat: int) -> tuple[int, ...]:
        h = self._history
        if not h:
            return ()
        targets: list[int] = []
        if h[-1].seat != seat:
            targets.append(h[-1].seat)
        if (
            self._game.options.pass_rule != "none"
            and isinstance(h[-1].action, Pass)
            and len(h) >= 2
            and h[-2].seat != seat
            and h[-2].seat not in targets
        ):
            targets.append(h[-2].seat)
        return tuple(targets)

    def _target_index(self, seat: int, target: int) -> int:
        h = self._history
        if h and h[-1].seat == target:
            return len(h) - 1
        return len(h) - 2

    def _no_target_message(self) -> str:
        o = self._game.options
        if not self._history:
            first = "a bid or a pass" if o.pass_rule != "none" else "a bid"
            return f"there is nothing to challenge yet: the first turn of a round must be {first}"
        return "there is no other player's action to challenge"

    def _bid_error(self, seat: int, bid: Bid) -> str | None:
        t = self._t
        lad = t.ladder
        i = lad.index.get(bid)
        if i is not None:
            # A rung of this round's ladder: face and quantity are in range. The common cases
            # are settled here; everything else, and every message, below.
            if self._rung < 0:
                if bid.face != t.no_open_face:
                    return None
            elif not t.special and i > self._rung:
                return None
        return self._bid_error_slow(seat, bid)

    def _bid_error_slow(self, seat: int, bid: Bid) -> str | None:
        t = self._t
        o = self._game.options
        q, f = bid.quantity, bid.face
        if not 1 <= f <= o.faces:
            return f"{bid} names face {f}, but the dice have faces 1 to {o.faces}"
        if q < 1:
            return f"{bid} bids no dice: a bid needs a quantity of at least 1"
        if q > t.q_max and o.max_quantity == "dice_in_play":
            return f"{bid} claims more dice than are in play: there are {t.q_max}"
        if self._standing < 0:
            if t.wild is not None and not o.wild_opening and f == t.wild and not t.special:
                where = " outside a one-die (palifico) round" if o.one_die_round else ""
                return f"{bid} opens the round on {f}s, and a round may not open on the wild {f}s{where}"
            return None
        standing = self.standing_bid
        assert standing is not None
        if t.special and f != standing.face and self._face_locked(seat):
            odr = o.one_die_round
            who = "nobody may" if odr and odr.face_change == "nobody" else "only a player holding one die may"
            return (
                f"{bid} changes the face from {standing.face}s, but in the one-die round {who} change it: "
                f"bid more {standing.face}s"
            )
        lad = t.ladder
        if lad.key(q, f) <= lad.key(standing.quantity, standing.face):
            msg = f"{bid} does not raise {standing}: {lad.why_not(bid, standing)}"
            lowest = lad.lowest_raise_on(f, standing)
            if lowest is not None and lowest > t.q_max and o.max_quantity == "dice_in_play":
                msg += f" (more than the {t.q_max} dice in play, so no bid on {f}s can raise it)"
            return msg
        return None

    def _push_error(self, seat: int, push: tuple[int, ...]) -> str | None:
        if not push:
            return None
        if not self._game.options.push:
            return "there is no push in this game"
        cup = self._r.cups[seat]
        if len(push) >= len(cup):
            return (
                f"you may push at most {len(cup) - 1} of the {len(cup)} dice under your cup: "
                "at least one die must stay under the cup to reroll"
            )
        if Counter(push) - Counter(cup):
            return f"you cannot push {','.join(map(str, push))}: your cup holds {','.join(map(str, sorted(cup)))}"
        return None

    def _pass_error(self, seat: int) -> str | None:
        o = self._game.options
        if o.pass_rule == "none":
            return "there is no pass in this game"
        if self._t.dice[seat] < 2:
            return "a pass needs at least two dice in your hand"
        if self._r.passed >> seat & 1:
            return "you already passed with these dice: you may pass again only after a push rerolls them"
        return None

    def _exact_error(self, seat: int) -> str | None:
        o = self._game.options
        t = self._t
        if o.exact == "none":
            return "there is no exact (spot-on, calza) in this game"
        if self._standing < 0:
            return "there is no bid yet to call exact on"
        if self._history[self._standing].seat == seat:
            return f"the standing bid {self.standing_bid} is your own: exact needs another player's bid"
        if o.exact_limit == "once_per_game" and t.exact_used >> seat & 1:
            return "you already used your exact this game: each player gets one"
        if t.special and o.one_die_round is not None and not o.one_die_round.exact_allowed:
            return "exact is not allowed in the one-die (palifico) round"
        return None

    def _owed(self, seat: int) -> int:
        e = self._r.econ
        o = self._game.options
        assert e is not None and o.economy is not None
        if o.economy.stake == "per_turn":
            return e.bet
        return max(0, e.bet - e.paid[seat])

    def _next_in_turn(self, seat: int) -> int:
        if self._r.econ is None or not self._r.econ.folded:
            return self._t.next_seat[seat]
        n = self._game.num_players
        out = self._t.out_round
        folded = self._r.econ.folded if self._r.econ is not None else 0
        s = seat
        for _ in range(n):
            s = (s + 1) % n
            if out[s] is None and not folded >> s & 1:
                return s
        return seat  # pragma: no cover - a round always has two players in it

    def _after_turn(self, s: Self, seat: int, push: tuple[int, ...]) -> tuple[Self, tuple[Event, ...]]:
        """Advance to the next player, or to the reroll a push needs."""
        s._to_act = self._next_in_turn(seat)
        if push:
            s._r = r = s._r.copy()
            cup = list(r.cups[seat])
            for face in push:
                cup.remove(face)
            cups = list(r.cups)
            cups[seat] = tuple(cup)
            r.cups = tuple(cups)
            pushed = list(r.pushed)
            pushed[seat] = tuple(sorted(r.pushed[seat] + push))
            r.pushed = tuple(pushed)
            r.passed &= ~(1 << seat)  # the push rerolls: a fresh set of dice may pass again
            r.pending = s._to_act
            s._to_act = -1
            s._phase = REROLL
            r.candidates = (seat,)
        return s, (s._history[-1],)

    def _apply_bid(self, action: BidAction) -> tuple[Self, tuple[Event, ...]]:
        """Every bid but the common case `apply` settles itself: decided, or refused with why."""
        seat = self._to_act
        i = self._t.ladder.index.get(action.bid)
        if self._r.econ is not None:
            raise IllegalAction("in this game you make claims: meet the bet and claim, accuse, go all-in or fold")
        err = self._bid_error(seat, action.bid) or self._push_error(seat, action.push)
        if err:
            raise IllegalAction(err)
        s = self._copy()
        turn = Turn(seat, action)
        s._history = (*self._history, turn)
        s._standing = len(self._history)
        s._rung = _OFF_LADDER if i is None else i
        if action.push:
            return self._after_turn(s, seat, action.push)
        s._to_act = self._t.next_seat[seat]  # no economy here, so nobody has folded
        return s, (turn,)

    def _apply_pass(self, action: Pass) -> tuple[Self, tuple[Event, ...]]:
        seat = self._to_act
        err = self._pass_error(seat) or self._push_error(seat, action.push)
        if err:
            raise IllegalAction(err)
        s = self._copy()
        index = len(self._history)
        s._history = (*self._history, Turn(seat, action))
        s._r = s._r.copy()
        s._r.passed = self._r.passed | 1 << seat
        if self._game.options.pass_rule == "at_pass" and len(set(self._r.cups[seat] + self._r.pushed[seat])) > 1:
            s._r.bad_passes = self._r.bad_passes | 1 << index
        return self._after_turn(s, seat, action.push)
