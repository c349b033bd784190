"""The strong bot in a duel: an equilibrium's play mixed into its own, so that its bids stop
giving its cup away.

Its own play reads the other cup well but is nearly a fixed function of its hand and the bids: a
local best response (`liarsdice exploit`) reads its cup from its bids and draws it into raises it
will call, winning most rounds from two dice up. Mixing worse moves of its own hides the cup only
at a price against players that do not read it (docs/exploit.md, "strong's mixing"). An
equilibrium strategy hides it at no such price.

So in a two-player round that is exactly the game the solvers take (bids and the liar call, and
exact where it may be called any time: no pass, push, chips or siding vote, no one-die round, no
exact once a game), where a strategy of that duel is at
hand, the bot plays, for the whole round, that strategy with chance DUEL_SHARE and its own play
otherwise. The strategy is the exact solution where the cfr bot has it or solves it quickly (1 vs
1), else one `liarsdice train` left in the data directory (the duel bot's cache), else the one
shipped in the package for exactly these rules (`liarsdice.duel.shipped`); none is trained here.
Everywhere else (more players, Soar's pass and push, Jokers' vote, Tavern's chips, an untrained
duel) the bot plays as before.

Mixed per round, not per move, because then what a best response wins against the mixture is at
most the mixture of what it wins against each (the payoff is linear in a mixed strategy), and
what the `duel` bot wins against it is (1 - DUEL_SHARE) times what it wins against the bot's own
play: it still beats `strong`, by less.

The bot does not remember which of the two it drew. At each turn it draws from the mixture of the
two, weighed by Bayes' rule on its own earlier moves of the round (how likely each would have
made them with this hand): the same play (Kuhn's theorem), and `policy(view)` stays a function of
the view, which is what `liarsdice exploit` reads. Its own policy at its earlier turns is kept
per position and hand (computed again from a rebuilt view when not kept).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import fields, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from ..rules import Action, Bid, BidAction, Challenge, Game, Options, PlayerView, Turn
from .cfr import CfrBot, duel_dice, policy_at
from .strong_mixing import Policy
from .trained import TrainedDuels

if TYPE_CHECKING:
    from ..duel import DuelStrategy


class StrongBot(Protocol):
    """What the mixing needs of the strong bot (`bots/strong.py`): its model of how often each
    seat bids regardless of its hand, and its own policies at positions of the round."""

    def noise(self) -> dict[int, float]: ...

    def scored_policies(self, views: Sequence[PlayerView]) -> list[Policy]: ...


# The chance that the bot plays a round of a duel by the equilibrium (module docstring); chosen
# by measurement (docs/exploit.md, "strong in a duel").
DUEL_SHARE = 0.6

# Own policies at earlier turns, per (position, hand): a round of 5 vs 5 asked for every hand
# (`liarsdice exploit`) is about 2,500.
KEPT_POLICIES = 20_000

StrategyPolicy = Callable[[Sequence[int], Sequence[Bid]], Mapping[Bid | None, float] | Mapping[Bid | str | None, float]]
# the rules, seat, dice, starter, round number, turns so far and the noise learnt (`position_key`)
PositionKey = tuple[
    Options, int | None, tuple[int, ...], int | None, int, tuple[Turn, ...], tuple[tuple[int, float], ...]
]


def plain_duel(options: Options) -> bool:
    """Whether a two-player round under `options` is only bids, the liar call and, where it may
    be called any time, exact (spot-on, calza): the rounds a trained strategy covers."""
    return (
        (options.exact == "none" or options.exact_limit == "unlimited")
        and options.pass_rule == "none"
        and not options.push
        and options.challenge_mode == "duel"
        and options.economy is None
    )


def equilibrium_at(view: PlayerView, seconds: float | None, ahead: bool = True) -> StrategyPolicy | None:
    """The equilibrium strategy of this round, if it is a plain duel and one is at hand; else None.
    `ahead`: the next round's strategies are looked up in the background too (a round being
    played; not a round already over, whose next round is not the one to come)."""
    found = equilibrium_of(view, seconds, ahead)
    return None if found is None else found[0]


def equilibrium_of(
    view: PlayerView, seconds: float | None, ahead: bool = True
) -> tuple[StrategyPolicy, DuelStrategy | None] | None:
    """`equilibrium_at`'s policy, with the trained strategy it plays (None: an exact solution),
    which also answers for every hand at once (`DuelStrategy.node_chances`)."""
    if not plain_duel(view.options):
        return None
    dice = duel_dice(view)
    if dice is None:
        return None
    if view.options.exact == "none":  # the exact solutions have no exact call
        solution = exact_solutions().solution_for(view.options, dice, seconds)
        if solution is not None:
            return solution.policy, None
    strategy = TrainedDuels.strategy_for(view.options, dice, train_small=False)
    if ahead:
        TrainedDuels.fetch_ahead(view.options, dice)  # this round's first: it is needed now
    return None if strategy is None else (strategy.play, strategy)


@lru_cache(maxsize=64)
def game_of(options: Options, seats: tuple[str, ...]) -> Game:
    """The game of a view's rules and seats, kept: a Game and its first state refer to each other,
    so one made at every decision is freed only by the cycle collector, whose full passes then
    took 10 to 20 ms inside decisions (a Game never changes, so one serves every caller)."""
    return Game(options, seats)


@lru_cache(maxsize=1)
def exact_solutions() -> CfrBot:
    """The cfr bot's table of exact solutions (kept per process)."""
    return CfrBot(0)


class OwnPolicies:
    """The bot's own policy at positions of a round, per hand, kept for the Bayes weights (the
    latest `size`; the reader keeps its model's answers in one too)."""

    def __init__(self, size: int = KEPT_POLICIES) -> None:
        self.size = size
        self._kept: OrderedDict[tuple[Hashable, tuple[int, ...]], dict[Action, float]] = OrderedDict()
        self._lock = threading.Lock()  # the server's bots act in threads

    def get(self, key: Hashable, hand: tuple[int, ...]) -> dict[Action, float] | None:
        with self._lock:
            got = self._kept.get((key, hand))
            if got is not None:
                self._kept.move_to_end((key, hand))
            return got

    def put(self, key: Hashable, hand: tuple[int, ...], policy: Policy) -> dict[Action, float]:
        chances: dict[Action, float] = {}
        for action, p in policy:
            chances[action] = chances.get(action, 0.0) + p
        with self._lock:
            self._kept[(key, hand)] = chances
            self._kept.move_to_end((key, hand))
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return chances


KEPT = OwnPolicies()


def position_key(view: PlayerView, turns: int, noise: Mapping[int, float]) -> PositionKey:
    """What the bot's own policy at the seat's turn after the first `turns` of the round depends
    on, besides its hand: the rules, the table, the bids so far and what it has learnt."""
    return (
        view.options,
        view.seat,
        view.dice,
        view.starter,
        view.round_no,
        view.history[:turns],
        tuple(sorted(noise.items())),
    )


def earlier_view(game: Game, view: PlayerView, turns: int, hand: Sequence[int]) -> PlayerView:
    """The seat's view, holding `hand`, at its turn after the first `turns` of this round's
    history: the round set up again with the other cup a placeholder its view never shows."""
    assert view.seat is not None and view.starter is not None
    hands = [tuple(hand) if s == view.seat else (1,) * n if view.active[s] else () for s, n in enumerate(view.dice)]
    chips, running_pot = None, 0
    if view.chips is not None and view.paid is not None:
        # the chips as the round began: what each holds now and what it has paid in this round
        chips = [held + paid for held, paid in zip(view.chips, view.paid, strict=True)]
        running_pot = view.running_pot or 0
    state = game.position(hands, starter=view.starter, round_no=view.round_no, chips=chips, running_pot=running_pot)
    for turn in view.history[:turns]:
        state, _ = state.apply(turn.action, turn.seat)
    return state.view(view.seat)


def earlier_views(game: Game, view: PlayerView, turns: int, hands: Sequence[Sequence[int]]) -> list[PlayerView]:
    """`earlier_view` for each of `hands`. Without pushes a seat's legal moves owe nothing to its
    cup, so the round is set up again once and only the cup differs; with pushes (which the cup
    sets) each hand's round is set up again."""
    if not hands:
        return []
    first = earlier_view(game, view, turns, hands[0])
    if view.options.push:
        return [first] + [earlier_view(game, view, turns, hand) for hand in hands[1:]]
    return [first] + [_with_cup(first, tuple(hand)) for hand in hands[1:]]


# Each field's slot, and where the cup is among them: a view with another cup, made for each of
# many hands (`earlier_views`), without the constructor's 33 keyword arguments.
_SLOTS = [PlayerView.__dict__[f.name] for f in fields(PlayerView)]
_CUP = [f.name for f in fields(PlayerView)].index("cup")


def as_seat(view: PlayerView, seat: int) -> PlayerView:
    """`view` with `seat` as its seat: what `earlier_view` needs to set the round up for `seat`
    (it reads only the public facts and the seat)."""
    return replace(view, seat=seat)


def _with_cup(view: PlayerView, cup: tuple[int, ...]) -> PlayerView:
    """`dataclasses.replace(view, cup=cup)`, made faster (tests/test_strong_duel.py checks the views)."""
    out: PlayerView = object.__new__(PlayerView)
    for i, slot in enumerate(_SLOTS):
        slot.__set__(out, cup if i == _CUP else slot.__get__(view))
    return out


def as_answer(action: Action) -> Bid | None:
    return None if isinstance(action, Challenge) else action.bid if isinstance(action, BidAction) else None


def in_duel(
    bot: StrongBot, views: Sequence[PlayerView], own: list[Policy], seconds: float | None = None
) -> list[Policy]:
    """The bot's policy at each of `views` (one public position, the seat's hand differing): its
    own policy `own`, or in a duel where an equilibrium is at hand the two mixed (module docstring)."""
    first = views[0]
    equilibrium = equilibrium_at(first, seconds)
    if equilibrium is None or DUEL_SHARE <= 0:
        return own
    noise = bot.noise()
    key = position_key(first, len(first.history), noise)
    for view, policy in zip(views, own, strict=True):
        KEPT.put(key, tuple(sorted(view.hand)), policy)
    bids = [t.action.bid for t in first.history if isinstance(t.action, BidAction)]
    ours = [i for i, t in enumerate(first.history) if t.seat == first.seat]
    hands = [tuple(sorted(v.hand)) for v in views]
    # Our own policy at each earlier turn of ours, for every hand asked: kept, or worked out again
    # for all the missing hands at once.
    earlier: dict[int, dict[tuple[int, ...], dict[Action, float]]] = {}
    for i in ours:
        past_key = position_key(first, i, noise)
        got = {h: KEPT.get(past_key, h) for h in dict.fromkeys(hands)}
        missing = [h for h, p in got.items() if p is None]
        if missing:
            game = game_of(first.options, first.seats)
            past_views = earlier_views(game, first, i, missing)
            for h, policy in zip(missing, bot.scored_policies(past_views), strict=True):
                got[h] = KEPT.put(past_key, h, policy)
        earlier[i] = {h: p for h, p in got.items() if p is not None}
    out: list[Policy] = []
    for view, hand, policy in zip(views, hands, own, strict=True):
        played = policy_at(equilibrium, view)
        if played is None:
            out.append(policy)
            continue
        weight_own, weight_eq = 1 - DUEL_SHARE, DUEL_SHARE
        for i in ours:
            action = first.history[i].action
            p_own = earlier[i].get(hand, {}).get(action, 0.0)
            try:
                p_eq = equilibrium(hand, bids[:i]).get(as_answer(action), 0.0)  # a duel's turns are all bids
            except (ValueError, KeyError):
                p_eq = 0.0
            total = weight_own * p_own + weight_eq * p_eq
            if total <= 0:
                continue  # a move neither would make (the seat was played for us): it tells nothing
            weight_own, weight_eq = weight_own * p_own / total, weight_eq * p_eq / total
        chances: dict[Action, float] = {}
        for action, p in policy:
            chances[action] = chances.get(action, 0.0) + weight_own * p
        for action, p in played:
            chances[action] = chances.get(action, 0.0) + weight_eq * p
        out.append([(a, p) for a, p in chances.items() if p > 0])
    return out
