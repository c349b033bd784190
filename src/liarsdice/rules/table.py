"""What a state is made of: the round's fixed table, the parts that change a few times a round,
and the fields and readers every part of the rules works on.

A `GameState` (state.py) is built in layers, one file per part of the game: `_StateCore` here
(its fields, construction, reading), then luck (chance.py), bidding and the legal moves
(bidding.py), challenges, exact, votes and the end of a round (resolution.py), the tavern's
chips (chips.py), and the state itself with `apply` and `view` (state.py). Each layer is a class
without fields of its own, so a state is still one object with nine slots.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Final, Self

from .actions import Action, BidAction, Challenge, Claim, Roll, sorted_push_bid
from .bids import Bid, BidLadder, ladder
from .events import Event, GameOver, GameResult, RoundOutcome, RoundResolved, RoundStarted, Turn
from .options import Options, OptionsError
from .views import LegalMoves

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


@lru_cache(maxsize=512)
def bid_actions(lad: BidLadder) -> tuple[BidAction, ...]:
    """Every bid of the ladder as an action, lowest first (shared: made once per ladder)."""
    return tuple(BidAction(b) for b in lad.bids)


@lru_cache(maxsize=4096)
def pushed_bid_actions(lad: BidLadder, push: tuple[int, ...]) -> tuple[BidAction, ...]:
    """Every bid of the ladder with `push` (a sorted push, or none), lowest first (shared: made
    once per ladder and push, for Soar's turns, each of which lists every bid with every push)."""
    return tuple(sorted_push_bid(b, push) for b in lad.bids) if push else bid_actions(lad)


@lru_cache(maxsize=4096)
def claim_actions(lad: BidLadder, raise_to: int | None, push: tuple[int, ...]) -> tuple[Claim, ...]:
    """Every bid of the ladder as a Tavern claim raising to `raise_to` with `push` (sorted),
    lowest first (shared: a turn lists every bid at every raise, hundreds of claims)."""
    return tuple(Claim(b, raise_to, push) for b in lad.bids)


@lru_cache(maxsize=512)
def opening_actions(lad: BidLadder, no_open_face: int) -> tuple[BidAction, ...]:
    """The bids that may open a round: every one, or none on `no_open_face` (0: no such face)."""
    actions = bid_actions(lad)
    return tuple(a for a in actions if a.bid.face != no_open_face) if no_open_face else actions


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message says why, in the game's words."""


class SetupError(ValueError):
    """A position that cannot exist under the options (wrong number of dice, unknown seat...)."""


class GameTable:
    """What every state reads of its game, fixed when the game is made: the options, the seats and
    what follows from them (the `Game` of state.py, which also makes the states, is one)."""

    __slots__ = (
        "options",
        "seats",
        "num_players",
        "_challenges",
        "_no_cups",
        "_no_flags",
        "_faces",
        "_simple",
        "_duel",
        "_plain_single",
    )

    def __init__(self, options: Options, seats: Sequence[str] | None = None) -> None:
        options.validate()
        if seats is None:
            seats = [f"P{i}" for i in range(options.num_players)]
        seats = tuple(str(s) for s in seats)
        if len(seats) != options.num_players:
            raise OptionsError(f"{len(seats)} seat names given for num_players={options.num_players}")
        if len(set(s.lower() for s in seats)) != len(seats):
            raise OptionsError(f"seat names must differ: {', '.join(seats)}")
        self.options = options
        self.seats: tuple[str, ...] = seats
        self.num_players = options.num_players
        self._challenges = tuple(Challenge(s) for s in range(self.num_players))
        self._no_cups: tuple[tuple[int, ...], ...] = ((),) * self.num_players
        self._no_flags = (False,) * self.num_players
        self._faces = frozenset(range(1, options.faces + 1))
        # Bids, challenge and exact only: the legal actions depend on the standing rung and the
        # seats alone, so tables cache them (_Table.after).
        self._simple = options.economy is None and not options.push and options.pass_rule == "none"
        # A challenge can only be of the last bid, and it is settled at once (no vote, no pass).
        self._duel = options.pass_rule == "none" and options.challenge_mode == "duel"
        # One round, no chips: the check alone decides the result (see _finish_single).
        self._plain_single = options.rounds == "single" and options.economy is None

    def _table(
        self,
        round_no: int,
        dice: tuple[int, ...],
        out_round: tuple[int | None, ...],
        special: bool,
        special_done: int,
        exact_used: int,
        starter: int,
        chips: tuple[int, ...] | None,
        running_pot: int,
    ) -> _Table:
        o = self.options
        t = _Table()
        t.round_no = round_no
        t.dice = dice
        t.out_round = out_round
        t.special = special
        t.special_done = special_done
        t.exact_used = exact_used
        t.starter = starter
        t.chips = chips
        t.running_pot = running_pot
        n = self.num_players
        t.active = tuple(s for s in range(n) if out_round[s] is None)
        t.next_seat = tuple(
            next(((s + k) % n for k in range(1, n + 1) if out_round[(s + k) % n] is None), s) for s in range(n)
        )
        bounds, at = [], 0
        for d in dice:
            bounds.append((at, at + d))
            at += d
        t.roll_slices = tuple(bounds)
        t.total_dice = at
        t.hand_slices = tuple(slice(a, b) for a, b in bounds)
        t.one_die_each = all(d == 1 for d in dice)
        t.rolled = {} if o.faces**at <= _ROLLS_KEPT else None
        t.rolls = [None] * o.faces**at if o.faces**at <= _ROLLS_LISTED else None
        t.exact_possible = o.exact != "none" and not (
            special and o.one_die_round is not None and not o.one_die_round.exact_allowed
        )
        t.q_max = sum(dice[s] for s in t.active)
        t.wild = None if special else o.wild
        rule = "plain" if special else o.wild_bid_rule
        t.ladder = ladder(o.faces, t.wild, rule, o.bid_order, max(t.q_max, 1))
        t.rung_of = t.ladder.index
        t.quick_bids = not special and o.economy is None
        t.no_open_face = t.wild if t.wild is not None and not o.wild_opening else 0
        t.opening = opening_actions(t.ladder, t.no_open_face)
        t.after = tuple([None] * len(t.ladder.bids) for _ in range(n)) if self._simple else None
        t.moves = {} if self._simple else None
        t.endings = {} if self._plain_single else None
        t.flags = None
        t.started = RoundStarted(round_no, starter, special, dice)
        return t


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

    _game: GameTable
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
        game: GameTable,
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
    def game(self) -> GameTable:
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
