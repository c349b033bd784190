"""The `duel` bot: an equilibrium-like strategy in every two-player round, the strong bot elsewhere.

Every game ends in a duel. In a two-player round without a push (the last two players of any
game too), once the dice are rolled the round is a bidding game of two players: the opener is
player 0. The bot plays, in this order of preference:

1. the exact solution, where the cfr bot has or can quickly compute it (tiny games);
2. the strategy of the abstract game (`liarsdice.duel`: each player remembers its hand and the
   last k bids), looked up in memory, then in the data directory (`<data dir>/duel/`, where
   `liarsdice train` writes: a strategy trained here comes first), then among the strategies
   shipped in the package (`liarsdice.duel.shipped`, for rounds of exactly their rules); small
   games (up to trained.TRAIN_ON_THE_FLY_WORK) are trained on first use and cached there;
3. the reader (`bots/reader.py`: Expert's play, reading each player by a model of Expert's own
   play as far as that player's reveals fit it), for everything else: more than two players, a
   one-die round (wilds do not count there: another game), a duel nobody has trained.

Soar's duel is trained with its passes and its exact allowed once a game: a strategy for each
answer to who may still call it (the game's, not the round's; `cfr.duel_exact_left`). The
strategy never pushes. The round after a push is a game of its own (`duel.graph.Pushed`, found
by `after_push`): where one is shipped or trained here for the pushed dice and cups, it plays the
rest of the round; else the reader does. Nothing is trained for it in a decision.

One exception to that order: against an opponent whose reveals show that it plays as the model
says (`reader_trust.Trust.trusts`), the reader plays the duel too. An equilibrium loses
nothing to any player but wins little from one that gives its cup away by its bids; reading that
cup wins most rounds (docs/strength.md, "The reader"). Until the reveals say so, and against
everyone else, the duel is played by the strategy.

Where exact (spot-on, calza) may be called any time, the strategy is one trained with it (the
exact solution of the first step is of bids alone and is not played there).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..rules import Action, Game, Options, PlayerView
from .after_push import after_push
from .base import Bot, Limit
from .cfr import CfrBot, duel_dice, duel_exact_left, policy_at
from .reader import ReaderBot
from .strong import StrongBot
from .strong_mixing import Policy, draw
from .trained import TrainedDuels

if TYPE_CHECKING:
    from ..duel import DuelStrategy


class DuelBot(Bot):
    level = "duel"
    description = "plays a trained two-player strategy in every duel, the strong bot elsewhere"

    def __init__(self, seed: int | None = None, k: int | None = None) -> None:
        super().__init__(seed)
        self.k = k  # None: the default memory of each duel (liarsdice.duel.default_k)
        self.exact = CfrBot(seed)
        self.fallback: StrongBot = ReaderBot(seed)
        self.source = ""  # what played the last decision: "exact", "duel", "reader" or "fallback"

    def strategy_for(
        self,
        options: Options,
        dice: tuple[int, int],
        *,
        train_small: bool = True,
        exact_left: tuple[bool, bool] | None = None,
    ) -> DuelStrategy | None:
        """The strategy of this duel at this bot's memory (`TrainedDuels.strategy_for`)."""
        return TrainedDuels.strategy_for(options, dice, self.k, train_small=train_small, exact_left=exact_left)

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        chances = self._duel_policy(view, limit)
        if chances is None:
            return self.fallback.act(view, limit)
        action = draw(chances, self.rng.random())
        if isinstance(self.fallback, ReaderBot):
            # the opponent's answer is checked after the reveal, or read once the reader plays
            self.fallback.foresee(view, action)
        return action

    def start(self, game: Game, seat: int, preset: str | None = None) -> None:
        super().start(game, seat, preset)
        self.fallback.start(game, seat, preset)

    def observe(self, events: Sequence[object]) -> None:
        """Each step's events, for the reader to foresee the next player's turn (`ReaderBot.observe`)."""
        if isinstance(self.fallback, ReaderBot):
            self.fallback.observe(events)

    def close(self) -> None:
        self.fallback.close()
        super().close()

    def policy(self, view: PlayerView) -> Policy:
        """The chance of each move `act` may make in `view` (it draws from this): what
        `liarsdice exploit` reads instead of sampling the bot."""
        chances = self._duel_policy(view, None)
        if chances is not None:
            return chances
        return self.fallback.policy(view)

    def _duel_policy(self, view: PlayerView, limit: Limit | None) -> Policy | None:
        self.source = "fallback"
        dice = duel_dice(view, passes=True)
        pushed = after_push(view) if dice is None else None
        if dice is None and pushed is None:
            _fetch_first_duel(view)
            return None
        # Learn from every reveal, also those of rounds the strategy played.
        self.fallback.learn(view)
        if self.reads_the_opponent(view):
            self.source = "reader"
            return None
        if pushed is not None:
            after = TrainedDuels.strategy_for(
                view.options, pushed.dice, self.k, train_small=False, exact_left=pushed.exact_left, pushed=pushed.shown
            )
            chances = None if after is None else policy_at(after.play, view, since=pushed.since)
            if chances is not None:
                self.source = "duel"
            return chances
        assert dice is not None
        if view.options.exact == "none":
            # The exact solution is of bids and the liar call alone: where exact or spot-on may be
            # called the round is another game, which only a strategy trained with it covers.
            exact = self.exact.solved_policy(view, limit.time if limit is not None else None)
            if exact is not None:
                self.source = "exact"
                return exact
        left = duel_exact_left(view)
        strategy = self.strategy_for(view.options, dice, exact_left=left)
        TrainedDuels.fetch_ahead(view.options, dice, left)  # this round's first: it is needed now
        if strategy is None:
            return None
        chances = policy_at(strategy.play, view)
        if chances is not None:
            self.source = "duel"
        return chances

    def reads_the_opponent(self, view: PlayerView) -> bool:
        """Whether the other player of this duel has shown it plays as the reader's model does."""
        reader = self.fallback
        return isinstance(reader, ReaderBot) and reader.trusts_in_duel(view)


def _fetch_first_duel(view: PlayerView) -> None:
    """At a table of three where a cup of one die may leave this round (lost, or shed), the duel
    of the other two that would follow: its strategy looked up in the background, so that the
    game's first duel decision does not wait for it (`TrainedDuels.fetch_ahead`)."""
    seats = [s for s, active in enumerate(view.active) if active]
    if len(seats) != 3:
        return
    sizes = []
    for leaving in seats:
        if view.dice[leaving] == 1:
            a, b = (view.dice[s] for s in seats if s != leaving)
            sizes.append((a, b))
    if sizes:
        TrainedDuels.fetch(view.options, sizes)
