"""The game and its immutable states: the table's rules, applying an action, what a seat sees.

`Game` holds what never changes (options, seats); `GameState` is one moment of play. A state is
never modified: `apply` returns a new state and the events the action caused, or raises
`IllegalAction` with a message a player can act on. Chance is explicit: at a chance node the
state says what luck must supply (`chance_spec`), and the caller applies a `Roll`, `Reroll` or
`DrawStarter`, drawn with `sample_chance(rng)` from a generator it owns or given outright.

The state's parts live beside it, one per part of the game: its fields and readers (table.py),
luck (chance.py), legal moves and bids (bidding.py), the end of a round (resolution.py) and the
tavern's chips (chips.py); `GameState` adds `apply`, which sends each action to its part, and
`view`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import cast

from .actions import (
    Accuse,
    Action,
    AllIn,
    AnyAction,
    BidAction,
    Challenge,
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
from .bids import Bid
from .chance import ChanceSpec
from .chips import _Chips
from .events import Event, Turn
from .options import Options
from .table import (
    OVER,
    REROLL,
    ROLL,
    STARTER,
    TURN,
    VOTE,
    GameTable,
    IllegalAction,
    SetupError,
    _mask,
    _new_tuple,
)
from .views import PlayerView, build_view

__all__ = ["ChanceSpec", "Game", "GameState", "IllegalAction", "SetupError"]


class Game(GameTable):
    """The rules of one table: options and seat names. Makes states; never changes."""

    __slots__ = ("_initial",)

    def __init__(self, options: Options, seats: Sequence[str] | None = None) -> None:
        super().__init__(options, seats)
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


class GameState(_Chips):
    """One moment of a game. Immutable: `apply` returns a new state.

    Read it through its properties and `view(seat)`; other seats' cups are reachable only via
    `view` of that seat or the reveal in a `RoundOutcome`.
    """

    @property
    def game(self) -> Game:
        """The game this state is of (its parts know it as the `GameTable` it is)."""
        return cast(Game, self._game)

    __slots__ = ()

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
                i = t.rung_of.get(action.bid)  # type: ignore[union-attr]
                if (
                    i is not None
                    and i > rung
                    and t.quick_bids
                    and not action.push  # type: ignore[union-attr]
                    and (rung >= 0 or action.bid[1] != t.no_open_face)  # type: ignore[union-attr]
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
                    history = self._history
                    s._history = history + (turn,)  # noqa: RUF005  # faster than unpacking (every bid)
                    s._standing = len(history)
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

    def _not_your_turn(self, seat: int) -> str:
        if not 0 <= seat < self._game.num_players:
            return f"seat {seat} does not exist"
        verb = "vote" if self._phase == VOTE else "turn"
        return f"it is {self._name(self._to_act)}'s {verb}, not {self._name(seat)}'s"

    def __repr__(self) -> str:
        seats = self.seats
        history = ", ".join(f"{seats[t.seat]}: {format_action(t.action, seats)}" for t in self._history)
        who = f" seat {seats[self._to_act]}" if self._to_act >= 0 else ""
        return f"<GameState round {self._t.round_no} {self._phase}{who} history [{history}]>"

    # ----- views -----

    def view(self, seat: int | None) -> PlayerView:
        """What `seat` may know now (`None`: a spectator). Never another seat's cup."""
        g = self._game
        t = self._t
        r = self._r
        n = g.num_players
        if seat is not None and not 0 <= seat < n:
            raise ValueError(f"seat {seat} does not exist")
        e = r.econ
        phase = self._phase
        to_act = self._to_act
        mine = seat is not None and to_act == seat and phase in (TURN, VOTE)
        vote = r.vote
        flags = t.flags
        if flags is None:  # once a table: these change only between rounds
            flags = t.flags = (
                tuple([t.out_round[s] is None for s in range(n)]),
                tuple([bool(t.exact_used >> s & 1) for s in range(n)]),
                tuple([bool(t.special_done >> s & 1) for s in range(n)]),
            )
        if self._standing >= 0:
            standing = self._history[self._standing]
            bid: Bid | None = standing.action.bid  # type: ignore[union-attr]  # a bid or a claim
            bidder: int | None = standing.seat
        else:
            bid = bidder = None
        passed = r.passed
        folded = e.folded if e is not None else 0
        return build_view(
            (
                seat,
                g.seats,
                g.options,
                t.round_no,
                phase,
                to_act if to_act >= 0 else None,
                t.starter if t.starter >= 0 else None,
                t.special,
                t.wild,
                t.dice,
                flags[0],
                t.out_round,
                r.cups[seat] if seat is not None else (),
                r.pushed,
                self._history,
                bid,
                bidder,
                tuple([bool(passed >> s & 1) for s in range(n)]) if passed else g._no_flags,
                flags[1],
                flags[2],
                vote.voters[len(vote.votes) :] if vote is not None and phase == VOTE else (),
                e.chips if e is not None else t.chips,
                e.pot if e is not None else None,
                t.running_pot if g.options.economy else None,
                e.bet if e is not None else None,
                e.paid if e is not None else None,
                tuple([bool(folded >> s & 1) for s in range(n)]) if folded else g._no_flags,
                t.q_max,
                self.legal_moves() if mine else None,
                self.legal_actions() if mine else (),
                r.outcome,
                r.result,
            )
        )
