"""What one seat (or a spectator) may know, and what the player to act may do.

A `PlayerView` is built by the state and holds no other seat's cup: everything the shell shows
to a player, and everything a bot decides on, comes from one of these.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from .actions import Action
from .bids import Bid
from .events import GameResult, RoundOutcome, Turn
from .options import Options


@dataclass(frozen=True, slots=True)
class LegalMoves:
    """The legal moves of the seat to act, in summary.

    `bids` are the legal bids (claims in an economy game) without a push; every one of them may
    also carry any push in `pushes`, and so may a pass. `challenge_targets` lists the seats whose
    action may be challenged, most recent first. In an economy game `owed` is what meeting the
    bet costs, and a raise may go from `raise_min` to `raise_max` (both None when no raise is
    affordable).
    """

    seat: int
    voting: bool
    bids: tuple[Bid, ...]
    can_pass: bool
    pushes: tuple[tuple[int, ...], ...]
    challenge_targets: tuple[int, ...]
    can_exact: bool
    economy: bool
    owed: int | None
    can_meet: bool
    raise_min: int | None
    raise_max: int | None
    can_accuse: bool
    can_all_in: bool
    can_fold: bool

    @property
    def can_bid(self) -> bool:
        return bool(self.bids)


@dataclass(frozen=True, slots=True)
class PlayerView:
    """The game as `seat` sees it (`seat is None`: a spectator).

    `cup` is this seat's dice under the cup (empty for a spectator); `pushed` is public for every
    seat. `dice` is how many dice each seat holds this round (cup and pushed). `history` is this
    round's public actions. `last_outcome` is the reveal of the previous round. `wild` is the face
    that counts for every other face this round (None without wilds and in a one-die round).
    """

    seat: int | None
    seats: tuple[str, ...]
    options: Options
    round_no: int
    phase: str
    to_act: int | None
    starter: int | None
    one_die_round: bool
    wild: int | None
    dice: tuple[int, ...]
    active: tuple[bool, ...]
    out_round: tuple[int | None, ...]
    cup: tuple[int, ...]
    pushed: tuple[tuple[int, ...], ...]
    history: tuple[Turn, ...]
    standing_bid: Bid | None
    standing_bidder: int | None
    passed: tuple[bool, ...]
    exact_used: tuple[bool, ...]
    special_done: tuple[bool, ...]
    voters_left: tuple[int, ...]
    chips: tuple[int, ...] | None
    round_pot: int | None
    running_pot: int | None
    current_bet: int | None
    paid: tuple[int, ...] | None
    folded: tuple[bool, ...]
    dice_in_play: int
    legal: LegalMoves | None
    legal_actions: tuple[Action, ...]
    last_outcome: RoundOutcome | None
    result: GameResult | None

    @property
    def hand(self) -> tuple[int, ...]:
        """All dice of this seat: under the cup and pushed."""
        if self.seat is None:
            return ()
        return self.cup + self.pushed[self.seat]

    @property
    def is_my_turn(self) -> bool:
        return self.seat is not None and self.to_act == self.seat

    @property
    def counted_seats(self) -> tuple[int, ...]:
        """The seats whose dice count at a reveal: the active ones, less those folded where the
        economy says folded dice do not count."""
        economy = self.options.economy
        skip_folded = economy is not None and not economy.folded_dice_count
        return tuple(s for s, active in enumerate(self.active) if active and not (skip_folded and self.folded[s]))


# The slot of each field, in field order. A frozen dataclass's __init__ sets each of its 33 fields
# through object.__setattr__; views are built at every step of an environment, so `build_view`
# fills the slots directly. tests/test_rules_shortcuts.py compares it with the constructor.
_FILL = tuple(PlayerView.__dict__[f.name].__set__ for f in fields(PlayerView))


def build_view(values: tuple[object, ...]) -> PlayerView:
    """`PlayerView(*values)`: the same view, built faster. `values` come in field order."""
    view: PlayerView = object.__new__(PlayerView)
    for fill, value in zip(_FILL, values, strict=True):
        fill(view, value)
    return view
