"""The checked engine's shortcuts keep every check.

Playouts take quick paths through `GameState` (rolls kept per table, legal actions cached per
ladder rung, a bid or challenge settled without building the legal actions, a single round
finished in one step, a round of few dice keeping its rolls, counts and endings, legal-move
summaries kept per rung, views filled slot by slot) and `FastRound` draws a deal of few dice at
once. Whatever path an action takes, the rules, the refusals and their messages are those of the
slow path.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from liarsdice.rules import (
    PRESETS,
    AnyAction,
    Bid,
    BidAction,
    Challenge,
    Exact,
    Game,
    GameOver,
    GameState,
    IllegalAction,
    PlayerView,
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


def random_game(game: Game, rng: random.Random) -> list[tuple[AnyAction, GameState, tuple[object, ...]]]:
    """A random game: every action with the state it led to and its events."""
    state = game.new_initial_state()
    steps: list[tuple[AnyAction, GameState, tuple[object, ...]]] = []
    while not state.is_terminal:
        if state.is_chance:
            action: AnyAction = state.sample_chance(rng)
        else:
            legal = state.legal_actions()
            action = legal[int(rng.random() * len(legal))]
        state, events = state.apply(action)
        steps.append((action, state, events))
    return steps


def seen(state: GameState) -> tuple[object, ...]:
    """Everything a state shows: repr, readers, legal moves and actions, every seat's view."""
    views = tuple(state.view(seat) for seat in (None, *range(len(state.seats))))
    return (
        repr(state),
        state.result,
        state.returns(),
        state.last_outcome,
        state.legal_moves(),
        state.legal_actions(),
        views,
    )


@pytest.mark.parametrize(
    "overrides",
    [
        {"dice_per_player": 1},
        {"dice_per_player": 2, "faces": 3},
        {"dice_per_player": 1, "exact": "others_lose"},
        {"dice_per_player": 1, "wild_face": "none", "bid_order": "face_major"},
    ],
)
def test_replayed_rounds_end_as_fresh_ones(overrides: dict[str, object]) -> None:
    """Playouts from one game reuse its kept rolls, counts, endings and legal moves; the same
    actions in a fresh game (nothing kept yet) give the same states, events and views."""
    shared = Game(preset_options("openspiel", overrides))
    rng = random.Random(11)
    for _ in range(300):
        steps = random_game(shared, rng)
        fresh = Game(preset_options("openspiel", overrides)).new_initial_state()
        for action, state, events in steps:
            fresh, fresh_events = fresh.apply(action)
            assert fresh_events == events
            assert seen(fresh) == seen(state)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_kept_legal_moves_are_those_worked_out_afresh(name: str) -> None:
    game = Game(preset_options(name, {"num_players": 2} if name == "openspiel" else {"num_players": 3}))
    rng = random.Random(12)
    for _ in range(20):
        for _action, state, _events in random_game(game, rng):
            if state.phase == "turn":
                assert state.legal_moves() == state._legal_moves()  # worked out, not looked up


def view_from_readers(state: GameState, seat: int | None) -> PlayerView:
    """The view as the constructor builds it from the state's public readers."""
    n = len(state.seats)
    mine = seat is not None and state.to_act == seat and state.phase in ("turn", "vote")
    cups = {s: state.view(s).cup for s in range(n)}
    base = state.view(None)
    return PlayerView(
        seat=seat,
        seats=state.seats,
        options=state.options,
        round_no=state.round_no,
        phase=state.phase,
        to_act=state.to_act,
        starter=state.starter,
        one_die_round=state.one_die_round,
        wild=base.wild,
        dice=state.dice,
        active=tuple(s in state.active_seats for s in range(n)),
        out_round=state.out_round,
        cup=cups[seat] if seat is not None else (),
        pushed=state.pushed,
        history=state.history,
        standing_bid=state.standing_bid,
        standing_bidder=state.standing_bidder,
        passed=base.passed,
        exact_used=state.exact_used,
        special_done=state.special_done,
        voters_left=base.voters_left,
        chips=state.chips,
        round_pot=state.round_pot,
        running_pot=state.running_pot,
        current_bet=state.current_bet,
        paid=base.paid,
        folded=state.folded,
        dice_in_play=state.dice_in_play,
        legal=state.legal_moves() if mine else None,
        legal_actions=state.legal_actions() if mine else (),
        last_outcome=state.last_outcome,
        result=state.result,
    )


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_view_is_the_one_the_constructor_builds(name: str) -> None:
    game = Game(preset_options(name, {} if name == "openspiel" else {"num_players": 3}))
    rng = random.Random(13)
    for _ in range(10):
        for _action, state, _events in random_game(game, rng):
            for seat in (None, *range(len(state.seats))):
                view = state.view(seat)
                assert view == view_from_readers(state, seat)
                assert repr(view) == repr(view_from_readers(state, seat))


@pytest.mark.parametrize(
    "overrides",
    [
        {"dice_per_player": 1},  # 36 rolls: numbered and kept
        {"dice_per_player": 2, "faces": 4},  # 256 rolls: numbered and kept
        {"dice_per_player": 3},  # 46,656 rolls: drawn die by die
    ],
)
def test_a_drawn_roll_is_the_one_the_seed_gives_die_by_die(overrides: dict[str, object]) -> None:
    """The same generator gives the same roll however it is drawn: numbered from a list of few
    outcomes, or die by die (ChanceSpec.sample draws the dice in seat order)."""
    state = Game(preset_options("openspiel", overrides)).new_initial_state()
    for seed in range(400):
        drawn = state.sample_chance(random.Random(seed))
        assert drawn == state.chance_spec().sample(random.Random(seed))
        assert type(drawn) is Roll and all(type(hand) is tuple for hand in drawn.hands)
