"""The fast path: one round played with dense integer actions, mutable, with undo.

`GameState` is the checked path: immutable, every action validated and explained, events and
views for players. Simulations and solvers need less and more often: `FastRound` plays one round
of the same rules with integer actions in the style of OpenSpiel's `liars_dice`:

    0 .. B-1   the bids of the round's ladder, lowest first (B = len(ladder.bids))
    B          challenge the standing bid (liar, dudo, call bluff)
    B + 1      exact on the standing bid (exact, spot-on, calza), where the rules have it

It does not check what it is given: `apply` trusts that the action is one of `legal_actions()`.
Its rules are exactly those of `GameState` (tests/test_fast.py plays both side by side) for the
rounds it covers: duel challenges (or a siding vote with nobody left to vote), bids, exact, wild
counting and the one-die round; no pass, push or economy (`FastRound.supports` says).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from functools import lru_cache

from .bids import BidLadder
from .options import Options
from .state import Game, GameState


class FastRound:
    """One round of `game`'s rules: deal, bid, challenge or exact, undo.

    `dice[seat]` is how many dice each seat holds (0: out), `starter` opens, `special` makes it a
    one-die round, `exact_used` lists seats whose once-per-game exact is spent.
    """

    __slots__ = (
        "options",
        "n",
        "faces",
        "dice",
        "starter",
        "special",
        "wild",
        "ladder",
        "quantity",
        "face",
        "num_bids",
        "CHALLENGE",
        "EXACT",
        "next_seat",
        "exact_ok",
        "locked",
        "_opening",
        "_after",
        "_dice",
        "_dealt",
        "_total",
        "_deals",
        "_num_deals",
        "_to_act",
        "_standing",
        "_bidder",
        "_stack",
        "_over",
        "_last",
        "_legal",
    )

    @staticmethod
    def supports(options: Options, active_players: int) -> str | None:
        """None if FastRound plays these rules exactly, else why not."""
        if options.pass_rule != "none" or options.push:
            return "pass and push are not in the fast path"
        if options.economy is not None:
            return "the economy is not in the fast path"
        if options.challenge_mode != "duel" and active_players > 2:
            return "a siding vote with voters is not in the fast path"
        if options.max_quantity != "dice_in_play":
            return "unbounded quantities are not in the fast path"
        return None

    def __init__(
        self,
        game: Game,
        dice: Sequence[int] | None = None,
        starter: int = 0,
        special: bool = False,
        exact_used: Sequence[int] = (),
    ) -> None:
        o = game.options
        n = game.num_players
        self.options = o
        self.n = n
        self.faces = o.faces
        self.dice = tuple(dice) if dice is not None else tuple(o.starting_dice(s) for s in range(n))
        active = [s for s in range(n) if self.dice[s] > 0]
        why = self.supports(o, len(active))
        if why is not None:
            raise ValueError(why)
        if len(active) < 2 or not self.dice[starter]:
            raise ValueError("a round needs two seats with dice and a starter holding dice")
        self.starter = starter
        self.special = special
        self.wild = None if special else o.wild
        rule = "plain" if special else o.wild_bid_rule
        self.ladder: BidLadder = _ladder(o, self.wild, rule, sum(self.dice))
        self.quantity = tuple(b.quantity for b in self.ladder.bids)
        self.face = tuple(b.face for b in self.ladder.bids)
        B = self.num_bids = len(self.ladder.bids)
        self.CHALLENGE = B
        self.EXACT = B + 1
        self.next_seat = tuple(
            next((s + k) % n for k in range(1, n + 1) if self.dice[(s + k) % n] > 0) for s in range(n)
        )
        exact_allowed = o.exact != "none" and not (
            special and o.one_die_round is not None and not o.one_die_round.exact_allowed
        )
        used = set(exact_used) if o.exact_limit == "once_per_game" else set()
        self.exact_ok = tuple(exact_allowed and s not in used for s in range(n))
        face_change = o.one_die_round.face_change if o.one_die_round is not None else "one_die_players"
        self.locked = tuple(special and (face_change == "nobody" or self.dice[s] != 1) for s in range(n))
        opening = range(B)
        if self.wild is not None and not o.wild_opening:
            opening = [i for i in range(B) if self.face[i] != self.wild]  # type: ignore[assignment]
        self._opening = tuple(opening)
        self._total = sum(self.dice)
        # Few dice: every deal listed once, and a random deal is one draw from the list.
        self._deals = _deals(self.faces, self._total) if self.faces**self._total <= _DEALS_LISTED else None
        self._num_deals = len(self._deals) if self._deals is not None else 0
        # _after[seat][i]: the legal actions of `seat` answering a bid on rung i, built when
        # first needed and kept (immutable tuples), so that a playout step looks them up.
        self._after: list[list[tuple[int, ...] | None]] = [[None] * B for _ in range(n)]
        self._stack: list[tuple[int, int, int, tuple[int, ...]]] = []  # what undo restores
        self.reset()

    # ----- chance -----

    def reset(self) -> None:
        """Back to the deal: no dice, no bids."""
        self._dice: Sequence[int] = ()
        self._dealt = False
        self._to_act = self.starter
        self._standing = -1
        self._bidder = -1
        self._stack.clear()
        self._over = False
        self._last = -1
        self._legal: tuple[int, ...] = ()

    def is_chance(self) -> bool:
        return not self._dealt

    def deal(self, hands: Sequence[Sequence[int]]) -> None:
        """Set every cup (unchecked: `hands[seat]` has `dice[seat]` faces). Only the dice matter
        to the count, not whose they are, so they are kept in one sequence (never modified)."""
        self._dice = [d for h in hands for d in h]
        self._dealt = True
        self._legal = self._opening

    def deal_random(self, rng: random.Random) -> None:
        """A uniformly random deal: one draw among all deals when they are few, else a draw per die."""
        deals = self._deals
        if deals is not None:
            self._dice = deals[int(rng.random() * self._num_deals)]
        else:
            rnd = rng.random
            faces = self.faces
            self._dice = [int(rnd() * faces) + 1 for _ in range(self._total)]
        self._dealt = True
        self._legal = self._opening

    # ----- play -----

    def is_terminal(self) -> bool:
        return self._over

    def current_player(self) -> int:
        """The seat to act; -1 at the deal or the end."""
        return -1 if self._over or not self._dealt else self._to_act

    def legal_actions(self) -> tuple[int, ...]:
        """The legal actions of the seat to act, ascending (a shared tuple: do not modify)."""
        return self._legal  # kept up to date by deal, apply and undo

    def _answers(self, seat: int, i: int) -> tuple[int, ...]:
        """The legal actions of `seat` answering a bid on rung `i`."""
        if self.locked[seat]:
            f = self.face[i]
            bids = [j for j in range(i + 1, self.num_bids) if self.face[j] == f]
        else:
            bids = list(range(i + 1, self.num_bids))
        calls = [self.CHALLENGE] + ([self.EXACT] if self.exact_ok[seat] else [])
        legal = self._after[seat][i] = tuple(bids + calls)
        return legal

    def apply(self, action: int) -> None:
        """Play `action` for the seat to act (unchecked)."""
        seat = self._to_act
        self._stack.append((seat, self._standing, self._bidder, self._legal))
        if action < self.num_bids:
            self._standing = action
            self._bidder = seat
            seat = self._to_act = self.next_seat[seat]
            self._legal = self._after[seat][action] or self._answers(seat, action)
            return
        self._last = action
        self._over = True
        self._legal = ()

    def undo(self) -> None:
        """Take back the last action."""
        self._to_act, self._standing, self._bidder, self._legal = self._stack.pop()
        self._over = False
        self._last = -1

    # ----- the end of the round -----

    def count(self) -> int:
        """How many dice count for the standing bid."""
        face = self.face[self._standing]
        wild = self.wild
        n = self._dice.count(face)
        return n + self._dice.count(wild) if wild is not None and wild != face else n

    def caller(self) -> int:
        return self._to_act

    def winner_loser(self) -> tuple[int, int]:
        """The winner and loser of the check that ended the round."""
        i = self._standing
        q = self.quantity[i]
        face = self.face[i]
        wild = self.wild
        c = self._dice.count(face)
        if wild is not None and wild != face:  # count(), inlined: every playout ends here
            c += self._dice.count(wild)
        caller, bidder = self._to_act, self._bidder
        right = c == q if self._last == self.EXACT else c < q
        return (caller, bidder) if right else (bidder, caller)

    def returns(self) -> list[float]:
        """+1 to the winner of the check, -1 to the loser, 0 to everyone else."""
        # winner_loser(), inlined: every playout ends here.
        i = self._standing
        face = self.face[i]
        wild = self.wild
        c = self._dice.count(face)
        if wild is not None and wild != face:
            c += self._dice.count(wild)
        q = self.quantity[i]
        out = [0.0] * self.n
        if (c == q) if self._last == self.EXACT else (c < q):  # the caller is right
            out[self._to_act] = 1.0
            out[self._bidder] = -1.0
        else:
            out[self._bidder] = 1.0
            out[self._to_act] = -1.0
        return out

    def dice_change(self) -> list[int]:
        """The die each seat gains or loses by the round's outcome (before the cap at max_dice)."""
        o = self.options
        delta = [0] * self.n
        winner, loser = self.winner_loser()
        caller = self._to_act
        shedding = o.goal == "shedding"
        if self._last == self.CHALLENGE:
            delta[winner if shedding else loser] = -1
            return delta
        hit = winner == caller
        others = [s for s in range(self.n) if self.dice[s] and s != caller]
        if shedding:
            for s in [caller] if hit else others:
                delta[s] = -1
        elif not hit:
            delta[caller] = -1
        elif o.exact == "gain_die":
            delta[caller] = 1
        else:
            for s in others:
                delta[s] = -1
        return delta

    @classmethod
    def from_state(cls, state: GameState) -> FastRound:
        """The fast round at the same point of play as `state` (a dealt round, any bids so far)."""
        if state.phase != "turn":
            raise ValueError("a fast round starts from a state where a player is to bid")
        fast = cls(
            state.game,
            state.dice,
            state.starter or 0,
            state.one_die_round,
            [s for s, used in enumerate(state.exact_used) if used],
        )
        fast.deal([state.view(s).cup for s in range(state.game.num_players)])
        for turn in state.history:
            bid = getattr(turn.action, "bid", None)
            if bid is None:
                raise ValueError("only bids can precede a fast round's position")
            fast.apply(fast.ladder.index[bid])
        return fast


_DEALS_LISTED = 4096


@lru_cache(maxsize=64)
def _deals(faces: int, total: int) -> tuple[tuple[int, ...], ...]:
    """Every deal of `total` dice, each once: equally likely outcomes."""
    return tuple(itertools.product(range(1, faces + 1), repeat=total))


def _ladder(o: Options, wild: int | None, rule: str, q_max: int) -> BidLadder:
    from .bids import ladder

    return ladder(o.faces, wild, rule, o.bid_order, max(q_max, 1))
