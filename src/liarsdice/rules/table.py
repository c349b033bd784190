"""What a state is made of: the round's fixed table, the parts that change a few times a round,
and the fields and readers every part of the rules works on.

A `GameState` (state.py) is built in layers, one file per part of the game: `_StateCore` here
(its fields, construction, reading), then luck (chance.py), bidding and the legal moves
(bidding.py), challenges, exact, votes and the end of a round (resolution.py), the tavern's
chips (chips.py), and the state itself with `apply` and `view` (state.py). Each layer is a class
without fields of its own, so a state is still one object with nine slots.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Final, Self

from .actions import Action, BidAction, Claim, Roll
from .bids import Bid, BidLadder
from .events import Event, GameOver, GameResult, RoundOutcome, RoundResolved, RoundStarted, Turn
from .options import Options
from .views import LegalMoves

if TYPE_CHECKING:
    from .state import Game

STARTER: Final = "starter"  # chance: luck picks the opener
ROLL: Final = "roll"  # chance: every cup is rolled
REROLL: Final = "reroll"  # chance: a cup is rerolled after a push
TURN: Final = "turn"
VOTE: Final = "vote"
OVER: Final = "over"
_CHANCE_PHASES: Final = frozenset((STARTER, ROLL, REROLL))
_ROLLS_KEPT: Final = 4096  # a table keeps the states its rolls lead to when it has this few outcomes
_ROLLS_LISTED: Final = 256  # a table keeps the Roll values it drew when it has this few outcomes
_NEVER = 1 << 30  # a round number later than any game lasts
_OFF_LADDER = 1 << 62  # the rung of a standing bid above the ladder (max_quantity: unbounded)
_new_tuple = tuple.__new__  # builds a named tuple without its Python-level __new__ (hot paths)


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message says why, in the game's words."""


class SetupError(ValueError):
    """A position that cannot exist under the options (wrong number of dice, unknown seat...)."""


class _Table:
    """What stays fixed for a whole round: dice held, who is out, the round's rules."""

    __slots__ = (
        "round_no",
        "dice",
        "out_round",
        "special",
        "special_done",
        "exact_used",
        "starter",
        "chips",
        "running_pot",
        "q_max",
        "ladder",
        "rung_of",
        "quick_bids",
        "wild",
        "active",
        "next_seat",
        "exact_possible",
        "roll_slices",
        "total_dice",
        "hand_slices",
        "one_die_each",
        "rolled",
        "rolls",
        "no_open_face",
        "opening",
        "after",
        "moves",
        "endings",
        "flags",
        "started",
    )

    round_no: int
    dice: tuple[int, ...]
    out_round: tuple[int | None, ...]
    special: bool
    special_done: int
    exact_used: int
    starter: int
    chips: tuple[int, ...] | None
    running_pot: int
    q_max: int
    ladder: BidLadder
    rung_of: dict[Bid, int]  # ladder.index: the rung of each bid on the ladder
    quick_bids: bool  # not a one-die round, no betting: `apply` settles a plain raise itself
    wild: int | None
    active: tuple[int, ...]
    next_seat: tuple[int, ...]  # the next active seat clockwise of each seat
    exact_possible: bool  # the options and this round allow exact at all
    roll_slices: tuple[tuple[int, int], ...]  # where each seat's hand sits in a flat roll
    total_dice: int  # dice held by everyone, out players' none
    hand_slices: tuple[slice, ...]  # roll_slices as slices
    one_die_each: bool  # every seat holds one die: a roll is one face per seat
    # The states (and events) that rolls of this table's round led to, when the round has few
    # outcomes (at most _ROLLS_KEPT), else None. A table belongs to one chance state, and states
    # are values: repeated playouts from a shared start (a new game's initial state) reuse them.
    rolled: dict[tuple[tuple[int, ...], ...], tuple[_StateCore, tuple[Event, ...]]] | None
    # rolls[i]: the Roll numbered i (its faces read as the digits of i in base `faces`, first die
    # first), made when first drawn (None: not yet), when the round has at most _ROLLS_LISTED
    # outcomes; else None. Rolls are values, so tables share them.
    rolls: list[Roll | None] | None
    no_open_face: int  # the face a round may not open on (the wild without wild_opening), else 0
    opening: tuple[BidAction, ...]  # the legal openings
    # In rules without pass, push or betting, after[seat][rung] caches the legal actions of the
    # next player after `seat` bids ladder rung `rung` (None: not built yet); None in other rules.
    # Per table, not per game, so that the cache goes with the round (a round visits few rungs;
    # repeated playouts from one position share its table).
    after: tuple[list[tuple[Action, ...] | None], ...] | None
    # In the same rules, the LegalMoves of the seat to act by (bidder, rung), (-1, -1) for the
    # opening: views ask for them at every step. None in other rules.
    moves: dict[tuple[int, int], LegalMoves] | None
    # In single-round games without chips, the result and its event by winner * seats + loser
    # (values, so shared by every playout from this table); None in other games.
    endings: dict[int, tuple[GameResult, GameOver]] | None
    # Per seat: holding dice, exact used, one-die round had; built by the first view, else None.
    flags: tuple[tuple[bool, ...], tuple[bool, ...], tuple[bool, ...]] | None
    started: RoundStarted  # the event of this round's roll


class _Economy:
    """The betting of the current round (source 004)."""

    __slots__ = ("chips", "pot", "bet", "paid", "folded", "last_folder")

    def __init__(
        self,
        chips: tuple[int, ...],
        pot: int,
        bet: int,
        paid: tuple[int, ...],
        folded: int,
        last_folder: int | None,
    ) -> None:
        self.chips = chips
        self.pot = pot
        self.bet = bet
        self.paid = paid
        self.folded = folded
        self.last_folder = last_folder

    def pay(self, seat: int, amount: int) -> _Economy:
        chips = list(self.chips)
        paid = list(self.paid)
        chips[seat] -= amount
        paid[seat] += amount
        return _Economy(tuple(chips), self.pot + amount, self.bet, tuple(paid), self.folded, self.last_folder)


class _Vote:
    __slots__ = ("accuser", "accused", "target_index", "voters", "votes")

    def __init__(
        self,
        accuser: int,
        accused: int,
        target_index: int,
        voters: tuple[int, ...],
        votes: tuple[tuple[int, bool], ...],
    ) -> None:
        self.accuser = accuser
        self.accused = accused
        self.target_index = target_index
        self.voters = voters
        self.votes = votes


class _Round:
    """What changes only a few times a round: the cups, pushed dice, passes, the vote, the bets,
    what luck owes, and how the last round ended. States of one round share it; an action
    that changes it gives its new state a fresh copy (`copy`), never a modified shared one."""

    __slots__ = (
        "cups",
        "pushed",
        "passed",
        "bad_passes",
        "vote",
        "econ",
        "pending",
        "candidates",
        "outcome",
        "result",
        "counts",
        "ends",
    )

    cups: tuple[tuple[int, ...], ...]
    pushed: tuple[tuple[int, ...], ...]
    passed: int
    bad_passes: int
    vote: _Vote | None
    econ: _Economy | None
    pending: int
    candidates: tuple[int, ...]
    outcome: RoundOutcome | None
    result: GameResult | None
    # counts[face]: the count for a bid on `face`, once asked (None: not yet), for the rounds of
    # rolls a table keeps (their states are played again and again); None elsewhere. A copy
    # starts without: it is made because cups, pushes or folds changed.
    counts: list[int | None] | None
    # In the same rounds of single-round games without chips: how a duel challenge ends it, by
    # (rung of the bid, caller, bidder), as the terminal state's _Round and the events after
    # the challenge. They depend on nothing else, and they are values.
    ends: dict[tuple[int, int, int], tuple[_Round, RoundResolved, GameOver]] | None

    def copy(self) -> _Round:
        r = object.__new__(_Round)
        r.cups = self.cups
        r.pushed = self.pushed
        r.passed = self.passed
        r.bad_passes = self.bad_passes
        r.vote = self.vote
        r.econ = self.econ
        r.pending = self.pending
        r.candidates = self.candidates
        r.outcome = self.outcome
        r.result = self.result
        r.counts = None
        r.ends = None
        return r


def _mask(seats: Iterable[int]) -> int:
    m = 0
    for s in seats:
        m |= 1 << s
    return m


def _with_starter(t: _Table, starter: int) -> _Table:
    new = _Table()
    for name in _Table.__slots__:
        setattr(new, name, getattr(t, name))
    new.starter = starter
    new.started = RoundStarted(t.round_no, starter, t.special, t.dice)
    new.rolled = {} if t.rolled is not None else None  # rolls now lead elsewhere
    new.moves = {} if t.moves is not None else None  # the opener changed
    return new


def _with_exact_used(t: _Table, seat: int) -> _Table:
    new = _with_starter(t, t.starter)
    new.exact_used = t.exact_used | 1 << seat
    if t.after is not None:  # who may call exact changed: the cached legal actions with it
        new.after = tuple([None] * len(t.ladder.bids) for _ in t.after)
    new.flags = None
    return new


class _StateCore:
    """The fields of a `GameState`, how they are made, and what they say (the public readers)."""

    # Few slots: a bid copies all of them. What changes rarely sits in `_r` (see _Round).
    __slots__ = ("_game", "_t", "_r", "_phase", "_to_act", "_history", "_standing", "_rung", "_legal")

    _game: Game
    _t: _Table
    _r: _Round
    _phase: str
    _to_act: int
    _history: tuple[Turn, ...]
    _standing: int  # the history index of the standing bid, -1 if none
    _rung: int  # its rung on the round's ladder: -1 if none, _OFF_LADDER above the ladder
    _legal: tuple[Action, ...] | None

    # ----- construction -----

    @classmethod
    def _chance(
        cls,
        game: Game,
        table: _Table,
        phase: str,
        outcome: RoundOutcome | None,
        candidates: tuple[int, ...],
    ) -> Self:
        s = object.__new__(cls)
        s._game = game
        s._t = table
        s._phase = phase
        s._to_act = -1
        s._r = r = object.__new__(_Round)
        r.cups = r.pushed = game._no_cups
        s._history = ()
        s._standing = s._rung = -1
        r.passed = r.bad_passes = 0
        r.vote = r.econ = None
        r.pending = -1
        r.candidates = candidates
        r.outcome = outcome
        r.result = None
        r.counts = r.ends = None
        s._legal = None
        return s

    def _copy(self) -> Self:
        s = object.__new__(type(self))
        s._game = self._game
        s._t = self._t
        s._phase = self._phase
        s._to_act = self._to_act
        s._r = self._r
        s._history = self._history
        s._standing = self._standing
        s._rung = self._rung
        s._legal = None
        return s

    # ----- reading -----

    @property
    def game(self) -> Game:
        return self._game

    @property
    def options(self) -> Options:
        return self._game.options

    @property
    def seats(self) -> tuple[str, ...]:
        return self._game.seats

    @property
    def phase(self) -> str:
        """`starter`, `roll` or `reroll` (chance), `turn`, `vote`, or `over`."""
        return self._phase

    @property
    def is_chance(self) -> bool:
        return self._phase in _CHANCE_PHASES

    @property
    def is_terminal(self) -> bool:
        return self._phase == OVER

    @property
    def to_act(self) -> int | None:
        """The seat to act or vote, or None at a chance node or the end."""
        return self._to_act if self._to_act >= 0 else None

    @property
    def round_no(self) -> int:
        return self._t.round_no

    @property
    def starter(self) -> int | None:
        """Who opens (or opened) the current round; None while luck has yet to pick."""
        return self._t.starter if self._t.starter >= 0 else None

    @property
    def one_die_round(self) -> bool:
        return self._t.special

    @property
    def dice(self) -> tuple[int, ...]:
        """Dice each seat holds this round (under the cup and pushed)."""
        return self._t.dice

    @property
    def active_seats(self) -> tuple[int, ...]:
        return self._t.active

    @property
    def out_round(self) -> tuple[int | None, ...]:
        """The round in which each seat went out (0: before the position was set up), or None."""
        return self._t.out_round

    @property
    def pushed(self) -> tuple[tuple[int, ...], ...]:
        return self._r.pushed

    @property
    def history(self) -> tuple[Turn, ...]:
        """This round's actions, oldest first (public)."""
        return self._history

    @property
    def standing_bid(self) -> Bid | None:
        if self._standing < 0:
            return None
        action = self._history[self._standing].action
        assert isinstance(action, (BidAction, Claim))
        return action.bid

    @property
    def standing_bidder(self) -> int | None:
        return self._history[self._standing].seat if self._standing >= 0 else None

    @property
    def dice_in_play(self) -> int:
        return self._t.q_max

    @property
    def exact_used(self) -> tuple[bool, ...]:
        return tuple(bool(self._t.exact_used >> s & 1) for s in range(self._game.num_players))

    @property
    def special_done(self) -> tuple[bool, ...]:
        return tuple(bool(self._t.special_done >> s & 1) for s in range(self._game.num_players))

    @property
    def chips(self) -> tuple[int, ...] | None:
        if self._r.econ is not None:
            return self._r.econ.chips
        return self._t.chips

    @property
    def running_pot(self) -> int | None:
        return self._t.running_pot if self._game.options.economy else None

    @property
    def round_pot(self) -> int | None:
        return self._r.econ.pot if self._r.econ is not None else None

    @property
    def current_bet(self) -> int | None:
        return self._r.econ.bet if self._r.econ is not None else None

    @property
    def folded(self) -> tuple[bool, ...]:
        f = self._r.econ.folded if self._r.econ is not None else 0
        return tuple(bool(f >> s & 1) for s in range(self._game.num_players))

    @property
    def last_outcome(self) -> RoundOutcome | None:
        """The outcome of the last round that ended (None before the first one ends)."""
        return self._r.outcome

    @property
    def result(self) -> GameResult | None:
        return self._r.result

    def returns(self) -> tuple[float, ...] | None:
        return self._r.result.returns if self._r.result is not None else None

    def _name(self, seat: int) -> str:
        return self._game.seats[seat]
