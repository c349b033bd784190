"""The game and its immutable states: legal moves, applying an action, resolving a round.

`Game` holds what never changes (options, seats); `GameState` is one moment of play. A state is
never modified: `apply` returns a new state and the events the action caused, or raises
`IllegalAction` with a message a player can act on. Chance is explicit: at a chance node the
state says what luck must supply (`chance_spec`), and the caller applies a `Roll`, `Reroll` or
`DrawStarter`, drawn with `sample_chance(rng)` from a generator it owns or given outright.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final

from .actions import (
    Accuse,
    Action,
    AllIn,
    AnyAction,
    BidAction,
    Challenge,
    ChanceAction,
    Claim,
    DrawStarter,
    Exact,
    Fold,
    Pass,
    Reroll,
    Roll,
    Vote,
    format_action,
)
from .bids import Bid, BidLadder, ladder
from .events import (
    DiceRerolled,
    Event,
    GameOver,
    GameResult,
    HandsRolled,
    OutcomeKind,
    RoundOutcome,
    RoundResolved,
    RoundStarted,
    StarterDrawn,
    Turn,
)
from .options import Options, OptionsError
from .views import LegalMoves, PlayerView

STARTER: Final = "starter"  # chance: luck picks the opener
ROLL: Final = "roll"  # chance: every cup is rolled
REROLL: Final = "reroll"  # chance: a cup is rerolled after a push
TURN: Final = "turn"
VOTE: Final = "vote"
OVER: Final = "over"
_CHANCE_PHASES: Final = frozenset((STARTER, ROLL, REROLL))
_ROLLS_KEPT: Final = 4096  # a table keeps the states its rolls lead to when it has this few outcomes


class IllegalAction(ValueError):
    """An action the rules do not allow now; the message says why, in the game's words."""


class SetupError(ValueError):
    """A position that cannot exist under the options (wrong number of dice, unknown seat...)."""


@dataclass(frozen=True, slots=True)
class ChanceSpec:
    """What luck must supply at a chance node.

    `kind` is `starter` (one of `candidates`), `roll` (`dice[seat]` dice for every seat) or
    `reroll` (`dice[seat]` dice for `seat`). Faces run from 1 to `faces`.
    """

    kind: str
    faces: int
    dice: tuple[int, ...]
    seat: int | None
    candidates: tuple[int, ...]

    def sample(self, rng: random.Random) -> ChanceAction:
        faces = self.faces
        if self.kind == STARTER:
            return DrawStarter(self.candidates[int(rng.random() * len(self.candidates))])
        rnd = rng.random
        if self.kind == ROLL:
            return Roll(tuple(tuple(int(rnd() * faces) + 1 for _ in range(n)) for n in self.dice))
        assert self.seat is not None
        return Reroll(self.seat, tuple(int(rnd() * faces) + 1 for _ in range(self.dice[self.seat])))

    def outcomes(self, limit: int = 100_000) -> list[tuple[ChanceAction, float]]:
        """Every outcome with its probability (refused above `limit` outcomes)."""
        if self.kind == STARTER:
            p = 1.0 / len(self.candidates)
            return [(DrawStarter(s), p) for s in self.candidates]
        total = sum(self.dice) if self.kind == ROLL else self.dice[self.seat or 0]
        if self.faces**total > limit:
            raise ValueError(f"{self.faces}^{total} outcomes is more than the limit of {limit}")
        p = 1.0 / self.faces**total
        faces = range(1, self.faces + 1)
        out: list[tuple[ChanceAction, float]] = []
        for combo in itertools.product(faces, repeat=total):
            if self.kind == REROLL:
                assert self.seat is not None
                out.append((Reroll(self.seat, combo), p))
                continue
            hands, i = [], 0
            for n in self.dice:
                hands.append(tuple(combo[i : i + n]))
                i += n
            out.append((Roll(tuple(hands)), p))
        return out


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
        "wild",
        "active",
        "next_seat",
        "exact_possible",
        "roll_slices",
        "total_dice",
        "hand_slices",
        "one_die_each",
        "rolled",
        "no_open_face",
        "opening",
        "after",
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
    rolled: dict[tuple[tuple[int, ...], ...], tuple[GameState, tuple[Event, ...]]] | None
    no_open_face: int  # the face a round may not open on (the wild without wild_opening), else 0
    opening: tuple[BidAction, ...]  # the legal openings
    # In rules without pass, push or betting, after[seat][rung] caches the legal actions of the
    # next player after `seat` bids ladder rung `rung` (None: not built yet); None in other rules.
    # Per table, not per game, so that the cache goes with the round (a round visits few rungs;
    # repeated playouts from one position share its table).
    after: tuple[list[tuple[Action, ...] | None], ...] | None
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

    __slots__ = ("cups", "pushed", "passed", "bad_passes", "vote", "econ", "pending", "candidates", "outcome", "result")

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
        return r


class Game:
    """The rules of one table: options and seat names. Makes states; never changes."""

    __slots__ = (
        "options",
        "seats",
        "num_players",
        "_challenges",
        "_no_cups",
        "_faces",
        "_simple",
        "_duel",
        "_plain_single",
        "_results",
        "_initial",
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
        self.seats = seats
        self.num_players = options.num_players
        self._challenges = tuple(Challenge(s) for s in range(self.num_players))
        self._no_cups: tuple[tuple[int, ...], ...] = ((),) * self.num_players
        self._faces = frozenset(range(1, options.faces + 1))
        # Bids, challenge and exact only: the legal actions depend on the standing rung and the
        # seats alone, so tables cache them (_Table.after).
        self._simple = options.economy is None and not options.push and options.pass_rule == "none"
        # A challenge can only be of the last bid, and it is settled at once (no vote, no pass).
        self._duel = options.pass_rule == "none" and options.challenge_mode == "duel"
        # One round, no chips: the check alone decides the result (see _finish_single).
        self._plain_single = options.rounds == "single" and options.economy is None
        # The results of such games, by (seats holding dice, winner, loser): values, so shared.
        self._results: dict[tuple[tuple[int, ...], int, int], tuple[GameResult, GameOver]] = {}
        self._initial = self._make_initial_state()

    def __repr__(self) -> str:
        return f"Game({self.options!r}, seats={self.seats!r})"

    def new_initial_state(self) -> GameState:
        """The state before anything happened: luck picks the opener or the first roll is due.

        States are immutable, so every call returns the same one."""
        return self._initial

    def _make_initial_state(self) -> GameState:
        o = self.options
        dice = tuple(o.starting_dice(s) for s in range(self.num_players))
        chips = (o.economy.starting_chips,) * self.num_players if o.economy else None
        starter = o.first_starter if isinstance(o.first_starter, int) else -1
        table = self._table(1, dice, (None,) * self.num_players, False, 0, 0, starter, chips, 0)
        if starter < 0:
            return GameState._chance(self, table, STARTER, None, tuple(range(self.num_players)))
        return GameState._chance(self, table, ROLL, None, ())

    def position(
        self,
        hands: Sequence[Sequence[int]],
        *,
        starter: int,
        round_no: int = 1,
        special_round: bool = False,
        special_done: Iterable[int] = (),
        exact_used: Iterable[int] = (),
        chips: Sequence[int] | None = None,
        running_pot: int = 0,
    ) -> GameState:
        """A state at the first turn of a round, set up exactly (a scenario's starting point).

        A seat with an empty hand is out (eliminated or finished before this round).
        """
        o = self.options
        n = self.num_players
        if len(hands) != n:
            raise SetupError(f"{len(hands)} hands given for {n} seats")
        cups: list[tuple[int, ...]] = []
        for seat, hand in enumerate(hands):
            hand = tuple(hand)
            for face in hand:
                if isinstance(face, bool) or not isinstance(face, int) or not 1 <= face <= o.faces:
                    raise SetupError(
                        f"{self.seats[seat]} holds a die showing {face!r}, but dice have faces 1 to {o.faces}"
                    )
            if len(hand) > o.dice_cap(seat):
                raise SetupError(
                    f"{self.seats[seat]} holds {len(hand)} dice, more than the {o.dice_cap(seat)} these options allow"
                )
            cups.append(hand)
        dice = tuple(len(h) for h in cups)
        if sum(1 for d in dice if d) < 2:
            raise SetupError("a round needs at least two players holding dice")
        if not 0 <= starter < n or not dice[starter]:
            raise SetupError(f"the starter must be a seat holding dice, not {starter!r}")
        if round_no < 1:
            raise SetupError(f"round_no must be 1 or more, not {round_no}")
        econ_chips: tuple[int, ...] | None = None
        if o.economy is not None:
            econ_chips = tuple(chips) if chips is not None else (o.economy.starting_chips,) * n
            if len(econ_chips) != n or any(c < 0 for c in econ_chips):
                raise SetupError("chips must give a whole number of at least 0 for every seat")
            if running_pot < 0:
                raise SetupError("the running pot cannot be negative")
        out_round = tuple(None if d else 0 for d in dice)
        table = self._table(
            round_no,
            dice,
            out_round,
            special_round,
            _mask(special_done),
            _mask(exact_used),
            starter,
            econ_chips,
            running_pot,
        )
        return GameState._chance(self, table, ROLL, None, ())._begin_round(tuple(cups))

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
        t.exact_possible = o.exact != "none" and not (
            special and o.one_die_round is not None and not o.one_die_round.exact_allowed
        )
        t.q_max = sum(dice[s] for s in t.active)
        t.wild = None if special else o.wild
        rule = "plain" if special else o.wild_bid_rule
        t.ladder = ladder(o.faces, t.wild, rule, o.bid_order, max(t.q_max, 1))
        t.no_open_face = t.wild if t.wild is not None and not o.wild_opening else 0
        t.opening = _opening_actions(t.ladder, t.no_open_face)
        t.after = tuple([None] * len(t.ladder.bids) for _ in range(n)) if self._simple else None
        t.started = RoundStarted(round_no, starter, special, dice)
        return t


_VOTES: tuple[Action, ...] = (Vote(True), Vote(False))
_NEVER = 1 << 30  # a round number later than any game lasts
_EXACT = Exact()


_OFF_LADDER = 1 << 62  # the rung of a standing bid above the ladder (max_quantity: unbounded)
_new_tuple = tuple.__new__  # builds a named tuple without its Python-level __new__ (hot paths)


@lru_cache(maxsize=512)
def _bid_actions(lad: BidLadder) -> tuple[BidAction, ...]:
    return tuple(BidAction(b) for b in lad.bids)


@lru_cache(maxsize=512)
def _opening_actions(lad: BidLadder, no_open_face: int) -> tuple[BidAction, ...]:
    actions = _bid_actions(lad)
    return tuple(a for a in actions if a.bid.face != no_open_face) if no_open_face else actions


def _mask(seats: Iterable[int]) -> int:
    m = 0
    for s in seats:
        m |= 1 << s
    return m


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


class GameState:
    """One moment of a game. Immutable: `apply` returns a new state.

    Read it through its properties and `view(seat)`; other seats' cups are reachable only via
    `view` of that seat or the reveal in a `RoundOutcome`.
    """

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
    ) -> GameState:
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
        s._legal = None
        return s

    def _copy(self) -> GameState:
        s = object.__new__(GameState)
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

    def _begin_round(self, hands: tuple[tuple[int, ...], ...]) -> GameState:
        """The first turn of the round this roll state's table describes, with these cups."""
        g = self._game
        t = self._t
        s = object.__new__(GameState)
        s._game = g
        s._t = t
        s._phase = TURN
        s._to_act = t.starter
        s._history = ()
        s._standing = s._rung = -1
        s._legal = t.opening if g._simple else None
        s._r = r = object.__new__(_Round)
        r.cups = hands
        r.pushed = g._no_cups
        r.passed = r.bad_passes = 0
        r.vote = None
        r.pending = -1
        r.candidates = ()
        r.outcome = self._r.outcome
        r.result = None
        eco = g.options.economy
        if eco is None:
            r.econ = None
        else:
            assert t.chips is not None
            r.econ = _Economy(t.chips, 0, eco.min_bet_for(t.round_no), (0,) * g.num_players, 0, None)
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

    def __repr__(self) -> str:
        seats = self.seats
        history = ", ".join(f"{seats[t.seat]}: {format_action(t.action, seats)}" for t in self._history)
        who = f" seat {seats[self._to_act]}" if self._to_act >= 0 else ""
        return f"<GameState round {self._t.round_no} {self._phase}{who} history [{history}]>"

    # ----- chance -----

    def chance_spec(self) -> ChanceSpec:
        if self._phase == STARTER:
            return ChanceSpec(STARTER, self.options.faces, (), None, self._r.candidates)
        if self._phase == ROLL:
            return ChanceSpec(ROLL, self.options.faces, self._t.dice, None, ())
        if self._phase == REROLL:
            n = self._game.num_players
            seat = self._r.candidates[0]
            dice = tuple(len(self._r.cups[s]) if s == seat else 0 for s in range(n))
            return ChanceSpec(REROLL, self.options.faces, dice, seat, ())
        raise IllegalAction("this is not a chance node: a player is to act or the game is over")

    def sample_chance(self, rng: random.Random) -> ChanceAction:
        """A chance outcome drawn with `rng` (the caller's generator: the core keeps none)."""
        if self._phase == ROLL:
            # The common case, drawn here without building a ChanceSpec (playouts roll a lot).
            rnd = rng.random
            faces = self._game.options.faces
            t = self._t
            # Dice are drawn in seat order either way, so a seed gives the same roll.
            if t.one_die_each:
                hands = tuple([(int(rnd() * faces) + 1,) for _ in range(t.total_dice)])
            else:
                flat = tuple([int(rnd() * faces) + 1 for _ in range(t.total_dice)])
                # mypy picks the int overload of __getitem__ for map; these are slices.
                hands = tuple(map(flat.__getitem__, t.hand_slices))  # type: ignore[arg-type]
            roll: Roll = _new_tuple(Roll, (hands,))
            return roll
        return self.chance_spec().sample(rng)

    def chance_outcomes(self, limit: int = 100_000) -> list[tuple[ChanceAction, float]]:
        return self.chance_spec().outcomes(limit)

    # ----- legal moves -----

    def legal_moves(self) -> LegalMoves | None:
        """A summary of what the seat to act may do (None at chance nodes and the end)."""
        if self._phase == VOTE:
            return LegalMoves(
                self._to_act, True, (), False, (), (), False, False, None, False, None, None, False, False, False
            )
        if self._phase != TURN:
            return None
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
            bids = _bid_actions(t.ladder)[rung + 1 :]
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
        if moves.economy:
            raises: list[int | None] = [None]
            if moves.raise_min is not None and moves.raise_max is not None:
                raises += list(range(moves.raise_min, moves.raise_max + 1))
            for bid in moves.bids:
                for r in raises:
                    for p in pushes:
                        legal.append(Claim(bid, r, p))
            if moves.can_accuse:
                legal += [Accuse(r) for r in raises]
            if moves.can_all_in:
                legal.append(AllIn())
            legal.append(Fold())
            return tuple(legal)
        for bid in moves.bids:
            for p in pushes:
                legal.append(BidAction(bid, p))
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

    # ----- validation messages -----

    def _name(self, seat: int) -> str:
        return self._game.seats[seat]

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

    # ----- applying -----

    def apply(self, action: AnyAction, seat: int | None = None) -> tuple[GameState, tuple[Event, ...]]:
        """The state after `action` and the events it caused.

        `seat`, when given, is who claims to act; a move by anyone but the seat to act is refused.
        Raises `IllegalAction` (a ValueError) with the reason when the rules forbid the action.
        """
        phase = self._phase
        kind = type(action)
        if phase == TURN:
            if seat is not None and seat != self._to_act:
                raise IllegalAction(self._not_your_turn(seat))
            if kind is BidAction:
                t = self._t
                rung = self._rung
                i = t.ladder.index.get(action.bid)  # type: ignore[union-attr]
                if (
                    i is not None
                    and i > rung
                    and not t.special
                    and (rung >= 0 or action.bid[1] != t.no_open_face)  # type: ignore[union-attr]
                    and not action.push  # type: ignore[union-attr]
                    and self._r.econ is None
                ):
                    # The common case, settled here without a message or the legal actions: a
                    # bid on this round's ladder above the standing one, no push, no betting, no
                    # face lock. _apply_bid decides every other bid, the same way, and explains.
                    to_act = self._to_act
                    s = object.__new__(GameState)
                    s._game = self._game
                    s._t = t
                    s._r = self._r
                    s._phase = TURN
                    s._to_act = t.next_seat[to_act]  # no betting, so nobody has folded
                    turn: Turn = _new_tuple(Turn, (to_act, action))
                    s._history = (*self._history, turn)
                    s._standing = len(self._history)
                    s._rung = i
                    s._legal = t.after[to_act][i] if t.after is not None else None
                    return s, (turn,)
                return self._apply_bid(action)  # type: ignore[arg-type]
            if kind is Challenge:
                return self._apply_challenge(action)  # type: ignore[arg-type]
            if kind is Exact:
                return self._apply_exact()
            if kind is Pass:
                return self._apply_pass(action)  # type: ignore[arg-type]
            if kind in (Claim, Accuse, AllIn, Fold):
                return self._apply_economy(action)  # type: ignore[arg-type]
            if kind is Vote:
                raise IllegalAction("there is no vote under way: votes follow a liar call")
        elif phase == VOTE:
            if seat is not None and seat != self._to_act:
                raise IllegalAction(self._not_your_turn(seat))
            if kind is Vote:
                return self._apply_vote(action)  # type: ignore[arg-type]
            if kind in (BidAction, Pass, Challenge, Exact, Claim, Accuse, AllIn, Fold):
                raise IllegalAction(
                    f"a siding vote is under way: {self._name(self._to_act)} must vote believe or doubt"
                )
        elif phase == OVER:
            raise IllegalAction("the game is over")
        else:
            if seat is not None:
                raise IllegalAction(f"luck decides this ({phase}), not a player: no seat may supply it")
            if kind is Roll and phase == ROLL:
                return self._apply_roll(action)  # type: ignore[arg-type]
            if kind in (Roll, Reroll, DrawStarter):
                return self._apply_chance(action)  # type: ignore[arg-type]
            if phase == REROLL:
                raise IllegalAction(f"{self._name(self._r.candidates[0])}'s pushed cup must be rerolled first")
            raise IllegalAction("the round has not started: the dice must be rolled first")
        if kind in (Roll, Reroll, DrawStarter):
            raise IllegalAction("no chance outcome is due: a player is to act")
        raise IllegalAction(f"{action!r} is not an action of this game")

    def apply_text(self, text: str, seat: int | None = None) -> tuple[GameState, tuple[Event, ...]]:
        """Apply an action typed in its text form (`3x5`, `challenge`, `exact`...)."""
        return self.apply(self.parse(text, seat), seat)

    def parse(self, text: str, seat: int | None = None) -> Action:
        """Read a typed action, completing a bare `challenge` with its default target."""
        from .actions import parse_action

        parsed = parse_action(text, self._game.seats, economy=self._game.options.economy is not None)
        if isinstance(parsed, tuple):
            return self.default_challenge(seat)
        return parsed

    def default_challenge(self, seat: int | None = None) -> Challenge:
        """A challenge of the most recent challengeable action (IllegalAction if none).

        `seat`, when given, is who wants to challenge; anyone but the seat to act is refused.
        """
        if self._phase == VOTE:
            raise IllegalAction(f"a siding vote is under way: {self._name(self._to_act)} must vote believe or doubt")
        if self._phase != TURN:
            raise IllegalAction("there is nothing to challenge now")
        if seat is not None and seat != self._to_act:
            raise IllegalAction(self._not_your_turn(seat))
        if self._r.econ is not None:
            raise IllegalAction("in this game you accuse a claim instead of challenging it")
        targets = self._challenge_targets(self._to_act)
        if not targets:
            raise IllegalAction(self._no_target_message())
        return Challenge(targets[0])

    def _no_target_message(self) -> str:
        o = self._game.options
        if not self._history:
            first = "a bid or a pass" if o.pass_rule != "none" else "a bid"
            return f"there is nothing to challenge yet: the first turn of a round must be {first}"
        return "there is no other player's action to challenge"

    def _not_your_turn(self, seat: int) -> str:
        if not 0 <= seat < self._game.num_players:
            return f"seat {seat} does not exist"
        verb = "vote" if self._phase == VOTE else "turn"
        return f"it is {self._name(self._to_act)}'s {verb}, not {self._name(seat)}'s"

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

    def _after_turn(self, s: GameState, seat: int, push: tuple[int, ...]) -> tuple[GameState, tuple[Event, ...]]:
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

    def _apply_bid(self, action: BidAction) -> tuple[GameState, tuple[Event, ...]]:
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

    def _apply_pass(self, action: Pass) -> tuple[GameState, tuple[Event, ...]]:
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

    def _apply_challenge(self, action: Challenge) -> tuple[GameState, tuple[Event, ...]]:
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
            bid: Bid = h[-1].action.bid  # type: ignore[union-attr]
            count = self._count(bid[1])
            claim_true = count >= bid[0]
            right, wrong = (target, seat) if claim_true else (seat, target)
            return self._finish_single(
                turn, "challenge", seat, target, bid, count, claim_true, None, None, (), wrong, right, wrong
            )
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

    def _apply_vote(self, action: Vote) -> tuple[GameState, tuple[Event, ...]]:
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

    def _apply_exact(self) -> tuple[GameState, tuple[Event, ...]]:
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

    def _apply_economy(self, action: Claim | Accuse | AllIn | Fold) -> tuple[GameState, tuple[Event, ...]]:
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

    def _bad_roll(self, hands: tuple[tuple[int, ...], ...]) -> str:
        t = self._t
        n = self._game.num_players
        if len(hands) != n:
            return f"a roll needs a hand for each of the {n} seats"
        for seat, hand in enumerate(hands):
            if len(hand) != t.dice[seat]:
                return f"{self._name(seat)} holds {t.dice[seat]} dice, but the roll gives {len(hand)}"
        faces = self._game.options.faces
        bad = next(d for hand in hands for d in hand if d not in self._game._faces)
        return f"a die cannot show {bad!r}: the faces are 1 to {faces}"

    def _apply_roll(self, action: Roll) -> tuple[GameState, tuple[Event, ...]]:
        t = self._t
        kept = t.rolled
        if kept is not None:
            try:
                known = kept.get(action.hands)  # only valid rolls are kept, so this is checked
            except TypeError:  # lists for tuples: read below
                known = None
            if known is not None:
                return known
        hands = tuple(map(tuple, action.hands))  # free when they are tuples already
        if tuple(map(len, hands)) != t.dice or not all(map(self._game._faces.issuperset, hands)):
            raise IllegalAction(self._bad_roll(hands))
        rolled: HandsRolled = _new_tuple(HandsRolled, (t.round_no, hands))
        applied = (self._begin_round(hands), (rolled, t.started))
        if kept is not None and len(kept) < _ROLLS_KEPT:
            kept[hands] = applied
        return applied

    def _apply_chance(self, action: ChanceAction) -> tuple[GameState, tuple[Event, ...]]:
        o = self._game.options
        t = self._t
        if self._phase == STARTER:
            if not isinstance(action, DrawStarter):
                raise IllegalAction("luck must first pick who opens the round (a DrawStarter)")
            if action.seat not in self._r.candidates:
                raise IllegalAction(
                    f"seat {action.seat} cannot be drawn to open: the candidates are "
                    f"{', '.join(self._name(c) for c in self._r.candidates)}"
                )
            s = self._copy()
            s._t = _with_starter(t, action.seat)
            s._phase = ROLL
            s._r = s._r.copy()
            s._r.candidates = ()
            return s, (StarterDrawn(action.seat),)
        if self._phase == ROLL:
            if not isinstance(action, Roll):
                raise IllegalAction("the dice of the round must be rolled (a Roll)")
            return self._apply_roll(action)
        if not isinstance(action, Reroll):
            raise IllegalAction(f"{self._name(self._r.candidates[0])}'s pushed cup must be rerolled first (a Reroll)")
        seat = self._r.candidates[0]
        if action.seat != seat:
            raise IllegalAction(f"the reroll due is {self._name(seat)}'s, not {self._name(action.seat)}'s")
        need = len(self._r.cups[seat])
        if len(action.faces) != need:
            raise IllegalAction(
                f"{need} dice stay under {self._name(seat)}'s cup, but the reroll gives {len(action.faces)}"
            )
        for face in action.faces:
            if not 1 <= face <= o.faces:
                raise IllegalAction(f"a die cannot show {face}: the faces are 1 to {o.faces}")
        s = self._copy()
        s._r = r = self._r.copy()
        cups = list(r.cups)
        cups[seat] = tuple(action.faces)
        r.cups = tuple(cups)
        s._phase = TURN
        s._to_act = r.pending
        r.pending = -1
        r.candidates = ()
        return s, (DiceRerolled(seat, tuple(action.faces)),)

    # ----- resolution -----

    def _in_play(self) -> Iterable[int]:
        e = self._r.econ
        o = self._game.options
        if e is not None and o.economy is not None and not o.economy.folded_dice_count:
            return (s for s in self._t.active if not e.folded >> s & 1)
        return self._t.active

    def _count(self, face: int) -> int:
        """How many dice in play count for a bid on `face` (wilds included, unless bid on)."""
        wild = self._t.wild
        if wild == face:
            wild = None
        r = self._r
        total = 0
        cups = r.cups
        if r.pushed is self._game._no_cups and r.econ is None:  # no pushes, nobody folded
            for s in self._t.active:
                cup = cups[s]
                total += cup.count(face) if wild is None else cup.count(face) + cup.count(wild)
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
    ) -> tuple[GameState, tuple[Event, ...]]:
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

    def _resolve_accusation(self, seat: int) -> tuple[GameState, tuple[Event, ...]]:
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
    ) -> tuple[GameState, tuple[Event, ...]]:
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
            s = GameState._chance(g, table, OVER, outcome, ())
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
        return GameState._chance(g, table, phase, outcome, candidates), (resolved,) if turn is None else (
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
    ) -> tuple[GameState, tuple[Event, ...]]:
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
        key = (t.active, winner, loser)
        ending = g._results.get(key)
        if ending is None:
            result = self._game_result(t.out_round, dice, None, 0, winner, loser, True)
            ending = g._results[key] = (result, _new_tuple(GameOver, (result,)))
        s = object.__new__(GameState)
        s._game = g
        s._t = t
        s._phase = OVER
        s._to_act = -1
        s._history = self._history if turn is None else (*self._history, turn)
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

    # ----- views -----

    def view(self, seat: int | None) -> PlayerView:
        """What `seat` may know now (`None`: a spectator). Never another seat's cup."""
        t = self._t
        n = self._game.num_players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat {seat} does not exist")
        e = self._r.econ
        mine = seat is not None and self._to_act == seat and self._phase in (TURN, VOTE)
        vote = self._r.vote
        return PlayerView(
            seat=seat,
            seats=self._game.seats,
            options=self._game.options,
            round_no=t.round_no,
            phase=self._phase,
            to_act=self.to_act,
            starter=self.starter,
            one_die_round=t.special,
            wild=t.wild,
            dice=t.dice,
            active=tuple(t.out_round[s] is None for s in range(n)),
            out_round=t.out_round,
            cup=self._r.cups[seat] if seat is not None else (),
            pushed=self._r.pushed,
            history=self._history,
            standing_bid=self.standing_bid,
            standing_bidder=self.standing_bidder,
            passed=tuple(bool(self._r.passed >> s & 1) for s in range(n)),
            exact_used=self.exact_used,
            special_done=self.special_done,
            voters_left=vote.voters[len(vote.votes) :] if vote is not None and self._phase == VOTE else (),
            chips=self.chips,
            round_pot=e.pot if e is not None else None,
            running_pot=self.running_pot,
            current_bet=e.bet if e is not None else None,
            paid=e.paid if e is not None else None,
            folded=self.folded,
            dice_in_play=t.q_max,
            legal=self.legal_moves() if mine else None,
            legal_actions=tuple(self.legal_actions()) if mine else (),
            last_outcome=self._r.outcome,
            result=self._r.result,
        )


def _with_starter(t: _Table, starter: int) -> _Table:
    new = _Table()
    for name in _Table.__slots__:
        setattr(new, name, getattr(t, name))
    new.starter = starter
    new.started = RoundStarted(t.round_no, starter, t.special, t.dice)
    new.rolled = {} if t.rolled is not None else None  # rolls now lead elsewhere
    return new


def _with_exact_used(t: _Table, seat: int) -> _Table:
    new = _with_starter(t, t.starter)
    new.exact_used = t.exact_used | 1 << seat
    if t.after is not None:  # who may call exact changed: the cached legal actions with it
        new.after = tuple([None] * len(t.ladder.bids) for _ in t.after)
    return new
