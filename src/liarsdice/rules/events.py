"""What applying an action caused: the events, the outcome of a round, and the end of a game.

Events are values (named tuples: immutable and cheap to make, since every action makes some).
Most are public; the two that carry dice under a cup (`HandsRolled`,
`DiceRerolled`) are private, and `redact` turns any event into what one seat (or a spectator)
may be told.
"""

from __future__ import annotations

from typing import Literal, NamedTuple, TypeAlias

from .actions import Action
from .bids import Bid


class Turn(NamedTuple):
    """`seat` did `action`; one entry of a round's public history and the event that reports it."""

    seat: int
    action: Action


class StarterDrawn(NamedTuple):
    """Luck chose `seat` to open the round (first round, or a tie the rules leave to chance)."""

    seat: int


class HandsRolled(NamedTuple):
    """Private: every cup of round `round_no` (an empty tuple for a seat that is out)."""

    round_no: int
    hands: tuple[tuple[int, ...], ...]


class OwnHandRolled(NamedTuple):
    """What one seat learns of a roll: its own cup (None for a spectator)."""

    round_no: int
    seat: int | None
    hand: tuple[int, ...]


class DiceRerolled(NamedTuple):
    """Private: the new faces under `seat`'s cup after a push."""

    seat: int
    faces: tuple[int, ...]


class CupRerolled(NamedTuple):
    """What others learn of a reroll: how many dice were rerolled under `seat`'s cup."""

    seat: int
    count: int  # type: ignore[assignment]  # the game's word; it hides tuple.count, unused here


class RoundStarted(NamedTuple):
    round_no: int
    starter: int
    one_die_round: bool
    dice: tuple[int, ...]


OutcomeKind = Literal["challenge", "exact", "accusation", "folds"]


class RoundOutcome(NamedTuple):
    """How a round ended: the check, the reveal, the dice and chips that changed hands.

    `caller` is the challenger, exact caller or accuser (None when everyone else folded);
    `target` is the seat whose action was checked (the last one in the round after folds).
    `winner`/`loser` are the two sides of the check; `round_loser` is who the rules name to
    open the next round.
    """

    round_no: int
    kind: OutcomeKind
    caller: int | None
    target: int | None
    bid: Bid | None
    count: int | None  # type: ignore[assignment]  # the game's word; it hides tuple.count, unused here
    claim_true: bool | None
    exact_hit: bool | None
    pass_valid: bool | None
    votes: tuple[tuple[int, bool], ...]
    hands: tuple[tuple[int, ...], ...]
    pushed: tuple[tuple[int, ...], ...]
    one_die_round: bool
    active: tuple[int, ...]
    dice_before: tuple[int, ...]
    dice_after: tuple[int, ...]
    out: tuple[int, ...]
    round_loser: int
    winner: int | None
    loser: int | None
    folded: tuple[int, ...]
    pot: int | None
    pot_share: int | None
    chips_after: tuple[int, ...] | None
    running_pot_after: int | None
    game_over: bool
    next_starter: int | None
    next_one_die_round: bool


class RoundResolved(NamedTuple):
    outcome: RoundOutcome


class GameResult(NamedTuple):
    """The end of a game.

    `places[seat]` is 1 for the best; tied seats share a place and the next place skips
    (1, 2, 2, 4). `returns` exist for single-round games (+1 winner, -1 loser, 0 others).
    `running_pot_award` is (seat, chips) when the economy pays a running pot that holds chips.
    `running_pot_taker` is the seat the running pot goes to, whatever its size, 0 included
    (RULES.md 4, S3 and S4); None without an economy or when nobody is left to take it.
    """

    places: tuple[int, ...]
    last_with_dice: tuple[int, ...]
    returns: tuple[float, ...] | None
    running_pot_award: tuple[int, int] | None
    chips: tuple[int, ...] | None
    running_pot_taker: int | None = None

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(s for s, p in enumerate(self.places) if p == 1)

    def ranking(self) -> list[list[int]]:
        """Seats grouped by place, best first."""
        groups: dict[int, list[int]] = {}
        for seat, place in enumerate(self.places):
            groups.setdefault(place, []).append(seat)
        return [groups[p] for p in sorted(groups)]


class GameOver(NamedTuple):
    result: GameResult


Event: TypeAlias = (
    Turn
    | StarterDrawn
    | HandsRolled
    | OwnHandRolled
    | DiceRerolled
    | CupRerolled
    | RoundStarted
    | RoundResolved
    | GameOver
)


def redact(event: Event, seat: int | None) -> Event:
    """The event as `seat` may see it (`None`: a spectator). Only cups are ever hidden."""
    if isinstance(event, HandsRolled):
        hand = event.hands[seat] if seat is not None else ()
        return OwnHandRolled(event.round_no, seat, hand)
    if isinstance(event, DiceRerolled) and event.seat != seat:
        return CupRerolled(event.seat, len(event.faces))
    return event
