"""The strong bot's chips (`tavern`): when to meet, raise, claim, accuse, go all-in or fold.

**Heads-up.** The chips are worth what they do for winning the game: a player who opens a round
unable to meet its bet must fold, and the bet grows every round, so the chips decide how many
rounds a player can still afford to lose. The bot judges every move by its chance of winning the
game once the round is over, from a model of that chance at the start of a round (`ChipModel`:
a logistic curve over both players' dice, their chips against the round's bet, whether each is
broke, and who opens), fitted to the games the bot has played against the probability bot by
`benchmarks/fit_tavern.py`, which writes the weights to `data/tavern.json`. The outcome of a
round is the dice one of the two loses and the chips each has paid: the pot goes half to the
winner of the check, half to the running pot, which only the game's winner takes, when chips no
longer matter. So:

* a fold is worth the game after losing a die, the pot (half of it to the other player) left
  behind;
* an accusation or an all-in is worth the game after winning or losing the check, weighted by
  the chance that the claim is false, with what we paid in the pot;
* a claim, at the current bet or raised to any level up to one more than the next player can
  pay, is scored by the next player's predicted answer (as every bid of the strong bot is), with
  the stakes of winning and losing the check at the pot that raise builds once the next player
  meets it; a level it cannot meet is scored by its forced answer: all-in when our claim looks
  false from its cup, else a fold.

The values are divided by what one die is worth in the game now, so that they are in dice like
every other value of the bot (its bluffing margin is in dice).

**More players.** Another player's lost die helps every survivor, and the chips of three cannot be
read off a model of two: the bot scores moves in expected dice, a chip worth `CHIP_VALUE` of the
starting dice per starting chips shared among the other players in, and a loss that leaves a
player short of the next round's bet costs every die it holds (it opens that round and must fold
round after round).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Protocol, TypeVar

from ..rules import Accuse, Action, AllIn, Bid, BidAction, Claim, Fold, PlayerView
from .strong_belief import standing_chance
from .strong_counts import Floats, matches
from .strong_estimate import Estimate
from .strong_mixing import Scored

# A chance, or one for each hand of ours (`bots/strong_tavern_hands.py`)
Chance = TypeVar("Chance", float, Floats)


class StrongBot(Protocol):
    """What the chips need of the strong bot (`bots/strong.py`): its bids scored at given stakes,
    its candidate bids, and a model of the chips' worth it may have been given."""

    chip_model: ChipModel | None

    def scored_bids(
        self, view: PlayerView, estimate: Estimate, stakes: tuple[float, float] | None = None
    ) -> list[Scored]: ...

    def candidates(self, view: PlayerView, estimate: Estimate) -> list[Bid]: ...


# At a table of three or more: the starting chips are worth this many times the starting dice,
# shared among the other players in (with 5 dice and 10 chips, at a table of four, a chip is worth
# 0.25 of a die). A fold costs one die and the bet grows every round, so a chip valued higher makes
# the bot fold the rounds it should play, the sooner the more players there are. Against the
# reference at four seats, 2,000 games (seed 5), the starting chips worth the starting dice times
# 1.0 at every table size (the value before 2026-12-07) won 0.284, times 2.0 won 0.025, times 0.25
# to 0.7 won 0.331 to 0.353 (docs/strength.md, "Tavern's chips at a table").
CHIP_VALUE = 1.5
# How many of our best claims are scored again with a raise.
RAISED_CLAIMS = 3
# The fitted weights of the heads-up model, written by benchmarks/fit_tavern.py.
MODEL_PATH = Path(__file__).parent / "data" / "tavern.json"
FEATURES = (
    "bias",
    "dice_difference",
    "dice_log_ratio",
    "opens",
    "my_chips",
    "their_chips",
    "i_am_broke",
    "they_are_broke",
)


def chip_features(my_dice: int, their_dice: int, my_chips: int, their_chips: int, bet: int, opens: bool) -> list[float]:
    """The model's inputs at the start of a round whose minimum bet is `bet`, from our side: the
    dice, the chips as log(1 + chips / bet) (a chip counts less as the bets grow), and whether
    each side is broke (cannot meet the bet: the opener must fold). Each input moves one way with
    our chips (and the other way with theirs), so a model whose weights have the signs that
    `ChipModel.check` demands is monotone in the chips."""
    bet = max(bet, 1)
    return [
        1.0,
        float(my_dice - their_dice),
        math.log(my_dice / their_dice),
        float(opens),
        math.log1p(my_chips / bet),
        math.log1p(their_chips / bet),
        float(my_chips < bet),
        float(their_chips < bet),
    ]


@dataclass(frozen=True)
class ChipModel:
    """P(we win the game) at the start of a round of a two-player `tavern` game: a logistic curve
    over `chip_features`."""

    weights: tuple[float, ...]

    def __post_init__(self) -> None:
        self.check()

    def check(self) -> None:
        """Refuse weights that would make a chip worth less than nothing (or a die: see `FEATURES`)."""
        if len(self.weights) != len(FEATURES):
            raise ValueError(f"the chip model has {len(self.weights)} weights; it takes {len(FEATURES)}: {FEATURES}")
        w = dict(zip(FEATURES, self.weights, strict=True))
        wrong = [
            name
            for name, sign in (("my_chips", 1), ("their_chips", -1), ("i_am_broke", -1), ("they_are_broke", 1))
            if w[name] * sign < 0
        ]
        if wrong:
            raise ValueError(f"the chip model's weights {', '.join(wrong)} have the wrong sign: more chips must help")

    def win_chance(
        self, my_dice: int, their_dice: int, my_chips: int, their_chips: int, bet: int, opens: bool
    ) -> float:
        """P(we win the game) at the start of a round, `0` or `1` when one side has no dice."""
        if their_dice <= 0:
            return 1.0
        if my_dice <= 0:
            return 0.0
        x = chip_features(my_dice, their_dice, my_chips, their_chips, bet, opens)
        z = sum(w * f for w, f in zip(self.weights, x, strict=True))
        return 1.0 / (1.0 + math.exp(-max(min(z, 50.0), -50.0)))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ChipModel:
        names = data.get("features")
        if names != list(FEATURES):
            raise ValueError(f"the chip model's features are {names}; this bot reads {list(FEATURES)}")
        return cls(tuple(float(w) for w in data["weights"]))


@cache
def chip_model() -> ChipModel:
    """The fitted model shipped with the package."""
    return ChipModel.from_json(json.loads(MODEL_PATH.read_text()))


def owed_by(view: PlayerView, seat: int, level: int) -> int:
    """What `seat` must pay to stay in at bet `level`."""
    economy = view.options.economy
    assert economy is not None and view.paid is not None
    return level if economy.stake == "per_turn" else max(0, level - view.paid[seat])


def forced_answer(estimate: Estimate, bid: Bid, nxt: int) -> tuple[float, float]:
    """When the next player cannot meet the bet after our claim of `bid`, it goes all-in (accuses)
    when the claim looks false from its cup (the probability bot's rule), else it folds: the
    chance that it accuses, and the chance that our claim is true if it does (its accusation is
    likelier from the hands that make our claim false)."""
    r = estimate.r
    holds = estimate.chance_true(bid)
    match = matches(r.cup_size[nxt], r.faces, r.wild).match
    unknown = r.total - r.cup_size[nxt] - r.pushed_total
    p = standing_chance(r, match, unknown, r.pushed_match, bid)
    w = estimate.weights[nxt]
    accuses = float((w * (p < 0.5)).sum())
    true_if_accused = float((w * (p < 0.5) * estimate.true_given(bid, nxt)).sum()) / accuses if accuses > 0 else holds
    return accuses, true_if_accused


def economy_moves(bot: StrongBot, view: PlayerView, estimate: Estimate) -> list[Scored]:
    """Every move of a turn with chips, scored."""
    r = estimate.r
    if sum(view.active) == 2 and not r.shedding:
        return HeadsUp(bot, view, estimate, bot.chip_model or chip_model()).moves()
    return TableMoves(bot, view, estimate).moves()


def raise_cost(view: PlayerView, seat: int, level: int) -> int:
    """What raising the bet to `level` costs `seat` now."""
    economy = view.options.economy
    assert economy is not None and view.paid is not None
    return level - view.paid[seat] if economy.stake == "call_to_level" else level


class HeadsUp:
    """One turn with chips against one other player, scored by the chance of winning the game."""

    def __init__(self, bot: StrongBot, view: PlayerView, estimate: Estimate, model: ChipModel) -> None:
        assert view.chips is not None and view.legal is not None
        economy = view.options.economy
        assert economy is not None
        self.bot, self.view, self.estimate, self.model = bot, view, estimate, model
        self.r = estimate.r
        self.me = self.r.me
        self.them = next(s for s, active in enumerate(view.active) if active and s != self.me)
        self.pot = view.round_pot or 0
        self.next_bet = economy.min_bet_for(view.round_no + 1)
        # One die now, in chance of winning the game: the unit of every value returned.
        self.die = max(self.after(True, 0, 0, 0) - self.after(False, 0, 0, 0), 1e-3)

    def after(self, we_win: bool, ours: int, theirs: int, pot: int) -> float:
        """P(we win the game) once the round ends, won or lost by us, each side having paid
        `ours` and `theirs` more and the pot at `pot` (half of it to the winner)."""
        view = self.view
        assert view.chips is not None
        share = pot // 2
        return self.model.win_chance(
            view.dice[self.me] - (not we_win),
            view.dice[self.them] - we_win,
            view.chips[self.me] - ours + (share if we_win else 0),
            view.chips[self.them] - theirs + (0 if we_win else share),
            self.next_bet,
            opens=not we_win,  # the loser opens the next round
        )

    def check(self, holds: Chance, ours: int, theirs: int) -> Chance:
        """A check now of a claim true with chance `holds` that we accuse, having paid `ours`."""
        pot = self.pot + ours + theirs
        return (1 - holds) * self.after(True, ours, theirs, pot) + holds * self.after(False, ours, theirs, pot)

    def scored(self, value: float, rank: int, action: Action, unchallenged: float = 0.0, bluff: bool = False) -> Scored:
        return Scored(value / self.die, rank, action, unchallenged, bluff)

    def moves(self) -> list[Scored]:
        view, legal = self.view, self.view.legal
        assert legal is not None and view.chips is not None
        owed = legal.owed or 0
        moves = [self.scored(self.after(False, 0, 0, self.pot), -1, Fold())]
        standing, bidder = view.standing_bid, view.standing_bidder
        if standing is not None and bidder is not None:
            holds = self.estimate.chance_true(standing)
            if legal.can_accuse:
                moves.append(self.scored(self.check(holds, owed, 0), 3, Accuse()))
            if legal.can_all_in:
                moves.append(self.scored(self.check(holds, view.chips[self.me], 0), 3, AllIn()))
        if legal.can_meet and legal.bids:
            level = view.current_bet or 0
            claims = self.claims(None, owed, level)
            moves += claims
            if legal.raise_min is not None and legal.raise_max is not None:
                best = sorted((m for m in claims if isinstance(m.action, Claim)), key=lambda m: -m.value)
                bids = list(dict.fromkeys(m.action.bid for m in best if isinstance(m.action, Claim)))[:RAISED_CLAIMS]
                for raised in self.levels(legal.raise_min, legal.raise_max):
                    moves += self.claims(bids, raise_cost(view, self.me, raised), raised, raise_to=raised)
        return moves

    def levels(self, low: int, high: int) -> range:
        """Every raise worth scoring: up to one above the most the next player can pay (beyond,
        a raise only costs us more)."""
        view = self.view
        assert view.chips is not None and view.paid is not None
        economy = view.options.economy
        assert economy is not None
        top = view.chips[self.them] + (view.paid[self.them] if economy.stake == "call_to_level" else 0)
        return range(low, min(high, top + 1) + 1)

    def claims(self, bids: list[Bid] | None, cost: int, level: int, raise_to: int | None = None) -> list[Scored]:
        """Our claims at bet `level` (paying `cost`): `bids`, or every candidate (with pushes)."""
        view, estimate = self.view, self.estimate
        assert view.chips is not None
        theirs = owed_by(view, self.them, level)
        if view.chips[self.them] < theirs:
            return [self.forced(bid, cost, raise_to) for bid in bids or self.bot.candidates(view, estimate)]
        pot = self.pot + cost + theirs
        win, lose = self.after(True, cost, theirs, pot), self.after(False, cost, theirs, pot)
        mid = (win + lose) / 2
        stakes = (win - mid, mid - lose)
        if bids is None:
            out = []
            for move in self.bot.scored_bids(view, estimate, stakes):
                assert isinstance(move.action, BidAction)
                claim = Claim(move.action.bid, raise_to, move.action.push)
                out.append(self.scored(mid + move.value, 0, claim, move.unchallenged, move.bluff))
            return out
        values, stands = estimate.score_bids(bids, stakes=stakes)
        return [
            self.scored(mid + float(v), 0, Claim(b, raise_to), float(s))
            for b, v, s in zip(bids, values, stands, strict=True)
        ]

    def forced(self, bid: Bid, cost: int, raise_to: int | None) -> Scored:
        """Our claim of `bid` when the next player cannot meet the bet: it goes all-in or folds."""
        view = self.view
        assert view.chips is not None
        accuses, true_if_accused = forced_answer(self.estimate, bid, self.them)
        all_in = view.chips[self.them]
        pot = self.pot + cost + all_in
        accused = true_if_accused * self.after(True, cost, all_in, pot) + (1 - true_if_accused) * self.after(
            False, cost, all_in, pot
        )
        folded = self.after(True, cost, 0, self.pot + cost)
        return self.scored(accuses * accused + (1 - accuses) * folded, 0, Claim(bid, raise_to), 1 - accuses)


class TableMoves:
    """One turn with chips at a table of three or more, scored in expected dice."""

    def __init__(self, bot: StrongBot, view: PlayerView, estimate: Estimate) -> None:
        self.bot, self.view, self.estimate = bot, view, estimate
        self.r = estimate.r

    def loss(self, seat: int, chips_after: int) -> float:
        """What losing a check costs `seat` (in our units when it is us): one die, or in an
        elimination game every die it holds if it is left unable to pay the next round's bet,
        since the loser opens that round and a broke opener folds round after round."""
        r = self.r
        if r.shedding:
            return r.lose
        if r.next_bet is not None and chips_after < r.next_bet:
            return float(self.view.dice[seat])
        return r.lose if seat == r.me else 1.0

    def gain(self, seat: int | None, owed: int) -> float:
        """What `seat` losing a check (after paying `owed`) is worth to us."""
        r = self.r
        if seat is None or self.view.chips is None:
            return r.win
        return r.win * (1.0 if r.shedding else self.loss(seat, self.view.chips[seat] - owed))

    def moves(self) -> list[Scored]:
        view, estimate, r = self.view, self.estimate, self.r
        legal = view.legal
        assert legal is not None and view.chips is not None
        economy = view.options.economy
        assert economy is not None
        # A duel scored here (the shedding game's) keeps the value it had before: 1.0, as if 1.5 others.
        others = max(sum(view.active) - 1, 1.5)
        chip = CHIP_VALUE / others * view.options.starting_dice(r.me) / max(economy.starting_chips, 1)
        me = r.me
        chips = view.chips[me]
        pot = view.round_pot or 0
        owed = legal.owed or 0
        # Folding costs a die (nothing in the shedding game), and a broke opener folds again.
        moves: list[Scored] = [Scored(0.0 if r.shedding else -self.loss(me, chips), -1, Fold())]
        standing, bidder = view.standing_bid, view.standing_bidder
        if standing is not None and bidder is not None:
            holds = estimate.chance_true(standing)
            win = self.gain(bidder, 0)
            if legal.can_accuse:
                share = (pot + owed) // 2
                value = win * (1 - holds) - self.loss(me, chips - owed) * holds + chip * ((1 - holds) * share - owed)
                moves.append(Scored(value, 3, Accuse()))
            if legal.can_all_in:
                share = (pot + chips) // 2
                value = win * (1 - holds) - self.loss(me, 0) * holds + chip * ((1 - holds) * share - chips)
                moves.append(Scored(value, 3, AllIn()))
        if legal.can_meet and legal.bids:
            nxt = r.next_seat(me)
            level = view.current_bet or 0
            if nxt is not None and view.chips[nxt] < owed_by(view, nxt, level):
                # The next player must accuse with every chip or fold: score that, not a raise.
                for bid in self.bot.candidates(view, estimate):
                    value, stands = self.forced(bid, nxt, chips - owed)
                    moves.append(Scored(value - chip * owed, 0, Claim(bid), stands))
            else:
                stakes = (
                    self.gain(nxt, owed_by(view, nxt, level)) if nxt is not None else r.win,
                    self.loss(me, chips - owed),
                )
                claims = []
                for move in self.bot.scored_bids(view, estimate, stakes):
                    assert isinstance(move.action, BidAction)
                    claim = Claim(move.action.bid, None, move.action.push)
                    claims.append(Scored(move.value - chip * owed, 0, claim, move.unchallenged, move.bluff))
                moves += claims
                if nxt is not None and not r.shedding:
                    moves += self.raises(nxt, claims, chip)
        return moves

    def forced(self, bid: Bid, nxt: int, chips_after: int) -> tuple[float, float]:
        """The value of claiming `bid` when the next player cannot meet the bet, and the chance
        that it folds (`forced_answer`)."""
        r = self.r
        accuses, true_if_accused = forced_answer(self.estimate, bid, nxt)
        gain = self.gain(nxt, 0)
        value = accuses * (gain * true_if_accused - self.loss(r.me, chips_after) * (1 - true_if_accused))
        return value + (1 - accuses) * (0.0 if r.shedding else gain), 1 - accuses

    def raises(self, nxt: int, claims: list[Scored], chip: float) -> list[Scored]:
        """Our best claims again, with a raise: to the level that would leave the next player
        short of the next round's bet once it pays (so that losing this round costs it every die:
        it would open the next round broke), or to a level it cannot pay at all (it must then
        fold, losing a die, or accuse us with every chip). The chips it costs us count against it."""
        view, estimate, r = self.view, self.estimate, self.r
        legal = view.legal
        economy = view.options.economy
        assert legal is not None and economy is not None and view.chips is not None and view.paid is not None
        if legal.raise_min is None or legal.raise_max is None or r.next_bet is None:
            return []
        call = economy.stake == "call_to_level"
        top = view.chips[nxt] + (view.paid[nxt] if call else 0)  # the highest level it can pay
        levels = {max(top - r.next_bet + 1, legal.raise_min), max(top + 1, legal.raise_min)}
        best = sorted((m for m in claims if isinstance(m.action, Claim) and not m.action.push), key=lambda m: -m.value)
        bids = [m.action.bid for m in best[:RAISED_CLAIMS] if isinstance(m.action, Claim)]
        me = r.me
        out: list[Scored] = []
        for level in sorted(levels):
            cost = raise_cost(view, me, level)
            if level > legal.raise_max or not bids:
                continue
            after = view.chips[me] - cost
            if level > top:
                for bid in bids:
                    value, stands = self.forced(bid, nxt, after)
                    out.append(Scored(value - chip * cost, 0, Claim(bid, level), stands))
            else:
                stakes = (self.gain(nxt, owed_by(view, nxt, level)), self.loss(me, after))
                values, stands_all = estimate.score_bids(bids, stakes=stakes)
                out += [
                    Scored(float(v) - chip * cost, 0, Claim(b, level), float(u))
                    for b, v, u in zip(bids, values, stands_all, strict=True)
                ]
        return out
