"""The checked engine's shortcuts keep every check.

Playouts take quick paths through `GameState` (rolls kept per table, legal actions cached per
ladder rung, a bid or challenge settled without building the legal actions, a single round
finished in one step) and `FastRound` draws a deal of few dice at once. Whatever path an action
takes, the rules, the refusals and their messages are those of the slow path.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from liarsdice.rules import (
    Bid,
    BidAction,
    Challenge,
    Exact,
    Game,
    GameOver,
    IllegalAction,
    Roll,
    RoundResolved,
    preset_options,
)
from liarsdice.rules.fast import FastRound


def test_a_kept_roll_is_the_same_state_and_events_as_a_fresh_one() -> None:
    game = Game(preset_options("openspiel", {}))
    start = game.new_initial_state()
    first, events = start.apply(Roll(((3,), (5,))))
    again, events_again = start.apply(Roll(((3,), (5,))))
    listed, events_listed = start.apply(Roll([[3], [5]]))  # type: ignore[list-item]
    for state, evs in ((again, events_again), (listed, events_listed)):
        assert evs == events
        assert [state.view(s).cup for s in (0, 1)] == [(3,), (5,)]
        assert state.legal_actions() == first.legal_actions()
    # A state reached by a kept roll is a value: playing on from it changes nothing in it.
    before = first.legal_actions()
    first.apply(before[3])
    assert first.legal_actions() == before and first.history == ()


@pytest.mark.parametrize(
    ("hands", "message"),
    [
        (((7,), (5,)), "a die cannot show 7: the faces are 1 to 6"),
        (((3, 3), (5,)), "P0 holds 1 dice, but the roll gives 2"),
        (((3,),), "a roll needs a hand for each of the 2 seats"),
    ],
)
def test_a_bad_roll_is_refused_after_good_ones_were_kept(hands: tuple[tuple[int, ...], ...], message: str) -> None:
    game = Game(preset_options("openspiel", {}))
    start = game.new_initial_state()
    rng = random.Random(1)
    for _ in range(50):
        start.apply(start.sample_chance(rng))
    with pytest.raises(IllegalAction) as refused:
        start.apply(Roll(hands))
    assert str(refused.value) == message


def test_quick_bids_are_refused_as_before() -> None:
    game = Game(preset_options("openspiel", {"dice_per_player": 2, "wild_opening": False}))
    state, _ = game.new_initial_state().apply(Roll(((1, 6), (2, 2))))
    with pytest.raises(IllegalAction, match=r"^1x6 opens the round on 6s, and a round may not open on the wild 6s"):
        state.apply(BidAction(Bid(1, 6)))
    with pytest.raises(IllegalAction, match="there is no push in this game"):
        state.apply(BidAction(Bid(1, 2), (2,)))
    state, events = state.apply(BidAction(Bid(2, 3)))
    assert events[0].seat == 0
    for bid in (Bid(2, 3), Bid(1, 5), Bid(2, 1)):
        with pytest.raises(IllegalAction, match=rf"^{bid} does not raise 2x3: a raise needs more dice"):
            state.apply(BidAction(bid))
    with pytest.raises(IllegalAction, match="claims more dice than are in play: there are 4"):
        state.apply(BidAction(Bid(5, 3)))
    with pytest.raises(IllegalAction, match="it is P1's turn, not P0's"):
        state.apply(BidAction(Bid(3, 3)), seat=0)


def test_a_quick_challenge_ends_the_single_round_as_the_rules_say() -> None:
    game = Game(preset_options("openspiel", {"dice_per_player": 2}))
    state, _ = game.new_initial_state().apply(Roll(((1, 6), (2, 6))))
    state, _ = state.apply(BidAction(Bid(3, 2)))  # three 2s: one 2 and two wild 6s
    with pytest.raises(IllegalAction, match="you cannot challenge your own action"):
        state.apply(Challenge(1))
    over, events = state.apply(Challenge(0))
    assert isinstance(events[0].action, Challenge)
    resolved, ended = events[1], events[2]
    assert isinstance(resolved, RoundResolved) and isinstance(ended, GameOver)
    outcome = resolved.outcome
    assert (outcome.count, outcome.claim_true, outcome.winner, outcome.loser) == (3, True, 0, 1)
    assert outcome.hands == ((1, 6), (2, 6)) and outcome.game_over
    assert over.is_terminal and over.returns() == (1.0, -1.0) and over.legal_actions() == ()
    assert over.history == (*state.history, events[0]) and over.result == ended.result
    with pytest.raises(IllegalAction, match="the game is over"):
        over.apply(Exact())


def test_a_fast_deal_of_few_dice_is_uniform() -> None:
    game = Game(preset_options("openspiel", {}))
    fast = FastRound(game)
    rng = random.Random(4)
    seen: Counter[tuple[int, ...]] = Counter()
    for _ in range(36_000):
        fast.reset()
        fast.deal_random(rng)
        seen[tuple(fast._dice)] += 1
    assert len(seen) == 36
    chi2 = sum((c - 1000) ** 2 / 1000 for c in seen.values())
    assert chi2 < 70  # 35 degrees of freedom: p < 1e-4 above this


def test_a_fast_deal_of_many_dice_deals_every_die() -> None:
    game = Game(preset_options("openspiel", {"dice_per_player": 5}))
    fast = FastRound(game)
    rng = random.Random(5)
    faces: Counter[int] = Counter()
    for _ in range(2_000):
        fast.reset()
        fast.deal_random(rng)
        assert len(fast._dice) == 10
        faces.update(fast._dice)
    assert set(faces) == set(range(1, 7)) and min(faces.values()) > 3_000
