"""The tavern's chips (RULES.md source 004): meeting and raising the bet, claims, accusations,
all-in and folds.
"""

from __future__ import annotations

from typing import Self

from .actions import Accuse, AllIn, Claim, Fold
from .events import Event, Turn
from .resolution import _Resolution
from .table import _OFF_LADDER, IllegalAction, _Economy


class _Chips(_Resolution):
    """A state's betting: what a seat pays, and its claims, accusations, all-ins and folds."""

    __slots__ = ()

    def _payment(self, seat: int, raise_to: int | None) -> tuple[int, int]:
        """What meeting (and raising) costs `seat` now, and the bet afterwards; or IllegalAction."""
        e = self._r.econ
        o = self._game.options
        assert e is not None and o.economy is not None
        owed = self._owed(seat)
        chips = e.chips[seat]
        if chips < owed:
            how = "go all-in (accuse with every chip) or fold" if self._standing >= 0 else "fold"
            raise IllegalAction(f"you cannot meet {owed}: you hold {chips} chips; {how}")
        if raise_to is None:
            return owed, e.bet
        if raise_to <= e.bet:
            raise IllegalAction(f"a raise must go above the current bet of {e.bet}, and {raise_to} does not")
        cost = raise_to - e.paid[seat] if o.economy.stake == "call_to_level" else raise_to
        if cost > chips:
            raise IllegalAction(f"raising to {raise_to} costs {cost} chips but you hold {chips}")
        return cost, raise_to

    def _apply_economy(self, action: Claim | Accuse | AllIn | Fold) -> tuple[Self, tuple[Event, ...]]:
        seat = self._to_act
        e = self._r.econ
        if e is None:
            raise IllegalAction("there is no betting in this game: bid, challenge or call exact instead")
        o = self._game.options
        assert o.economy is not None
        turn = Turn(seat, action)
        if isinstance(action, Fold):
            s = self._copy()
            s._history = (*self._history, turn)
            s._r = s._r.copy()
            s._r.econ = _Economy(e.chips, e.pot, e.bet, e.paid, e.folded | 1 << seat, seat)
            still_in = [x for x in self._t.active if not s._r.econ.folded >> x & 1]
            if len(still_in) == 1:
                last = still_in[0]
                delta = [0] * self._game.num_players
                folders = [x for x in self._t.active if s._r.econ.folded >> x & 1]
                if o.goal == "shedding":
                    delta[last] = -1
                else:
                    for x in folders:
                        delta[x] = -1
                state, events = s._finish_round(
                    None, "folds", None, last, None, None, None, None, None, (), delta, seat, last, seat
                )
                return state, (turn, *events)
            s._to_act = s._next_in_turn(seat)
            return s, (turn,)
        if isinstance(action, AllIn):
            owed = self._owed(seat)
            chips = e.chips[seat]
            if chips >= owed:
                raise IllegalAction(
                    f"you can meet {owed} (you hold {chips} chips), so all-in is not open to you: claim or accuse"
                )
            if self._standing < 0:
                raise IllegalAction("all-in must accuse a claim, and there is none yet: you must fold")
            if chips == 0 and not o.economy.zero_chip_all_in:
                raise IllegalAction("all-in with no chips is not allowed here: you must fold")
            s = self._copy()
            s._history = (*self._history, turn)
            s._r = s._r.copy()
            s._r.econ = e.pay(seat, chips)
            state, events = s._resolve_accusation(seat)
            return state, (turn, *events)
        if isinstance(action, Accuse):
            if self._standing < 0:
                raise IllegalAction("there is no claim to accuse yet: make a claim or fold")
            cost, bet = self._payment(seat, action.raise_to)
            s = self._copy()
            s._history = (*self._history, turn)
            paid = e.pay(seat, cost)
            s._r = s._r.copy()
            s._r.econ = _Economy(paid.chips, paid.pot, bet, paid.paid, paid.folded, paid.last_folder)
            state, events = s._resolve_accusation(seat)
            return state, (turn, *events)
        cost, bet = self._payment(seat, action.raise_to)
        err = self._bid_error(seat, action.bid) or self._push_error(seat, action.push)
        if err:
            raise IllegalAction(err.replace("a bid needs", "a claim needs"))
        s = self._copy()
        s._history = (*self._history, turn)
        s._standing = len(self._history)
        rung = self._t.ladder.index.get(action.bid)
        s._rung = _OFF_LADDER if rung is None else rung
        paid = e.pay(seat, cost)
        s._r = s._r.copy()
        s._r.econ = _Economy(paid.chips, paid.pot, bet, paid.paid, paid.folded, paid.last_folder)
        return self._after_turn(s, seat, action.push)

    def _resolve_accusation(self, seat: int) -> tuple[Self, tuple[Event, ...]]:
        o = self._game.options
        claim_turn = self._history[self._standing]
        target = claim_turn.seat
        bid = self.standing_bid
        assert bid is not None and self._r.econ is not None
        count = self._count(bid.face)
        claim_true = count >= bid.quantity
        right, wrong = (target, seat) if claim_true else (seat, target)
        delta = [0] * self._game.num_players
        folders = [x for x in self._t.active if self._r.econ.folded >> x & 1]
        if o.goal == "shedding":
            delta[right] = -1
        else:
            delta[wrong] = -1
            for x in folders:
                delta[x] -= 1
        return self._finish_round(
            None, "accusation", seat, target, bid, count, claim_true, None, None, (), delta, wrong, right, wrong
        )
