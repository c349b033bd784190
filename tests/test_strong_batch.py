"""The strong bot's policies of every hand at one position, scored together (bots/strong_hands.py),
against each hand scored alone, as the bot did before: the same moves with the same chances, at
positions of real games of every preset and table size."""

from __future__ import annotations

import functools
import importlib.util
import random
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from liarsdice.bots import StrongBot, strong_estimate
from liarsdice.bots.strong_mixing import Policy
from liarsdice.rules import PRESETS, Game, GameState, Pass, PlayerView, find_preset, preset_options


def _benchmark() -> ModuleType:
    """benchmarks/strong_batch.py, whose `every_hand` the positions here are scored over too."""
    path = Path(__file__).resolve().parent.parent / "benchmarks" / "strong_batch.py"
    spec = importlib.util.spec_from_file_location("benchmark_strong_batch", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


every_hand: Callable[[GameState], list[PlayerView]] = _benchmark().every_hand

SIZES = [
    (preset, players)
    for preset in PRESETS
    for players in (2, 3, 6)
    if players <= (find_preset(preset).max_players or 6)
]
# The first position of a game where each of these holds is checked, beside positions drawn at random.
SPECIAL: dict[str, Callable[[PlayerView], bool]] = {
    "after a push": lambda v: any(v.pushed),
    "after our own push": lambda v: v.seat is not None and bool(v.pushed[v.seat]),
    "after a pass": lambda v: any(isinstance(t.action, Pass) for t in v.history),
    "the one-die round": lambda v: v.one_die_round,
    "a vote": lambda v: v.legal is not None and v.legal.voting,
    "chips to raise": lambda v: v.legal is not None and v.legal.raise_max is not None,
    "chips short of the bet": lambda v: v.legal is not None and v.legal.economy and not v.legal.can_meet,
    "a seat out": lambda v: not all(v.active),
}


def game_positions(preset: str, players: int, seed: int, rounds: int) -> list[GameState]:
    """Every turn (and vote) of the first `rounds` rounds of a seeded game of strong bots."""
    game = Game(preset_options(preset, {"num_players": players}))
    rng = random.Random(seed)
    bots = [StrongBot(seed * 10 + s) for s in range(players)]
    state = game.new_initial_state()
    out = []
    while not state.is_terminal:
        if state.is_chance:
            state, _ = state.apply(state.sample_chance(rng))
            continue
        seat = state.to_act
        assert seat is not None
        view = state.view(seat)
        if view.round_no > rounds:
            break
        out.append(state)
        state, _ = state.apply(bots[seat].act(view), seat)
    return out


@functools.cache
def picked(preset: str, players: int) -> list[tuple[str, GameState]]:
    """The first position of each `SPECIAL`, and positions in the middle of a round drawn at
    random to make at least three."""
    rng = random.Random(f"{preset} {players}")
    states = [s for s in game_positions(preset, players, seed=players, rounds=8) if s.view(s.to_act).history]
    out: list[tuple[str, GameState]] = []
    for name, holds in SPECIAL.items():
        found = next((s for s in states if holds(s.view(s.to_act))), None)
        if found is not None and all(found is not s for _, s in out):
            out.append((name, found))
    others = [s for s in states if all(s is not t for _, t in out)]
    return [("drawn", s) for s in rng.sample(others, max(0, min(3 - len(out), len(others))))] + out


def assert_same(together: list[Policy], each: list[Policy], what: str) -> None:
    assert len(together) == len(each)
    for i, (a, b) in enumerate(zip(together, each, strict=True)):
        assert [m for m, _ in a] == [m for m, _ in b], f"{what}, hand {i}: other moves"
        worst = max(abs(p - q) for (_, p), (_, q) in zip(a, b, strict=True))
        assert worst <= 1e-12, f"{what}, hand {i}: chances {worst:.2e} apart"


@pytest.mark.parametrize(("preset", "players"), SIZES)
def test_every_hand_together_is_each_hand_alone(preset: str, players: int) -> None:
    seen = set()
    for name, state in picked(preset, players):
        views = every_hand(state)
        what = f"{preset}, {players} players, {name}: {state.view(state.to_act).history}"
        assert_same(StrongBot(1).scored_policies(views), StrongBot(1).scored_policies_each(views), what)
        seen.add(name)
    # the positions the rules offer are all there: pushes, passes, chips
    if preset == "soar":
        assert {"after a push", "after our own push", "after a pass"} <= seen, seen
    if preset == "tavern":
        assert "chips to raise" in seen, seen
    if preset == "jokers" and players > 2:
        assert "a vote" in seen, seen


def test_one_view_is_scored_as_before() -> None:
    (_, state), *_ = picked("perudo", 3)
    views = every_hand(state)[::25]
    alone = [StrongBot(1).scored_policies([view])[0] for view in views]
    assert alone == StrongBot(1).scored_policies_each(views)


def test_bids_too_many_to_look_at_together_are_looked_at_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    # a little work allowed: the next player's likeliest hands only, a set of bids at a time
    monkeypatch.setattr(strong_estimate, "LOOK_AHEAD_WORK", 2_000)
    for preset in ("perudo", "soar"):
        for _, state in picked(preset, 2)[:2]:
            views = every_hand(state)
            assert_same(StrongBot(1).scored_policies(views), StrongBot(1).scored_policies_each(views), preset)


@pytest.mark.parametrize("stakes", [None, (0.7, 0.2), (0.0, 0.0), (-0.3, 0.5), (0.4, -0.1)])
def test_bids_are_worth_the_same_at_any_stakes(stakes: tuple[float, float] | None) -> None:
    # Tavern's chips value bids at other stakes; a stake below zero takes the long way
    bot = StrongBot(1)
    for preset in ("tavern", "soar"):
        views = every_hand(picked(preset, 2)[0][1])
        together = bot._estimates(views, together=True)
        each = bot._estimates(views, together=False)
        for view, a, b in zip(views, together, each, strict=True):
            bids = bot.candidates(view, b)
            assert a.candidates == bids
            for x, y in zip(a.score_bids(bids, stakes=stakes), b.score_bids(bids, stakes=stakes), strict=True):
                assert abs(x - y).max(initial=0.0) <= 1e-12, (preset, view.hand)


@pytest.mark.parametrize(("preset", "players"), SIZES)
def test_the_chance_of_one_move_from_every_hand_is_its_policys(preset: str, players: int) -> None:
    """`move_chances` (what the reader asks, every hand's moves mixed at once where a turn is
    bids, calls and exact) gives each move the chance each hand's own policy gives it, a move
    no hand makes included."""
    checked = fast = 0
    for name, state in picked(preset, players):
        views = every_hand(state)
        counts = np.array([[view.hand.count(face) for face in range(1, view.options.faces + 1)] for view in views])
        fast += StrongBot(1).hand_chances(views[0], counts, views[0].legal_actions[0]) is not None
        policies = StrongBot(1).scored_policies(views)
        moves = list(dict.fromkeys(a for policy in policies for a, _ in policy))
        moves += [a for a in views[0].legal_actions[:3] if a not in moves]  # likely made by none
        for move in moves:
            want = [sum(p for a, p in policy if a == move) for policy in policies]
            got = StrongBot(1).move_chances(views, move)
            worst = max(abs(g - w) for g, w in zip(got, want, strict=True))
            assert worst <= 1e-12, f"{preset}, {players} players, {name}, {move}: chances {worst:.2e} apart"
            checked += 1
    assert checked
    # the hands mixed at once (`hand_chances`), not one by one, but at a table of chips
    assert fast or (preset == "tavern" and players > 2)


def test_tavern_chips_heads_up_from_every_hand_are_each_hands_policy() -> None:
    """Tavern heads-up, every turn of two seeded games: `hand_chances` (the chips of every hand at
    once, bots/strong_tavern_hands.py) gives each move each hand's own policy's chance: the fold,
    the accusations, the claims at every raise, and the bluffs that come now and then."""
    bluffed = raised = 0
    for seed in (1, 2):
        for state in game_positions("tavern", 2, seed=seed, rounds=6):
            views = every_hand(state)
            faces = range(1, views[0].options.faces + 1)
            counts = np.array([[view.hand.count(face) for face in faces] for view in views])
            policies = StrongBot(1).scored_policies(views)
            moves = list(dict.fromkeys(a for policy in policies for a, _ in policy))
            for move in moves:
                want = np.array([sum(p for a, p in policy if a == move) for policy in policies])
                got = StrongBot(1).hand_chances(views[0], counts, move)
                assert got is not None
                assert np.abs(got - want).max() <= 1e-12, f"seed {seed}, {move}"
            bluffed += sum(len(policy) > 1 for policy in policies)
            raised += any(getattr(a, "raise_to", None) for a in moves)
    assert bluffed and raised  # both kinds of move were checked


def test_the_legal_actions_of_a_turn_with_pushes_are_its_legal_moves() -> None:
    """`_ByLegalMoves`, what the strong bot checks its moves against in a turn with pushes, holds
    every legal action of the turn and none of the illegal ones tried."""
    from liarsdice.bots.strong import _ByLegalMoves
    from liarsdice.rules import Bid, BidAction, Challenge, Exact

    checked = 0
    for state in game_positions("soar", 2, seed=3, rounds=3):
        view = state.view(state.to_act)
        legal = view.legal
        if legal is None or not legal.pushes:
            continue
        moves = _ByLegalMoves(legal)
        legal_actions = set(view.legal_actions)
        assert all(action in moves for action in legal_actions)
        top = max(legal.bids, key=lambda b: (b.quantity, b.face))
        tried = [
            BidAction(Bid(top.quantity + 1, top.face)),  # above the ladder's top
            BidAction(legal.bids[0], tuple(sorted(view.hand))),  # the whole cup pushed
            BidAction(legal.bids[0], (7,)),  # a die not in the cup
            Challenge(view.seat),  # oneself
            Pass((7,)),
        ]
        if not legal.can_exact:
            tried.append(Exact())
        for action in tried:
            assert (action in moves) == (action in legal_actions), action
        checked += 1
    assert checked


@pytest.mark.parametrize("preset", ["perudo", "soar", "jokers", "red-dead", "tavern"])
def test_the_raises_above_many_bids_are_each_bids(preset: str) -> None:
    """`Round.raises_above` (one table of the ladder) is `Round.raises` bid by bid, the one-die
    round and the opening (None) included."""
    from liarsdice.bots.strong_belief import Round

    asked = 0
    for st in game_positions(preset, 3, seed=2, rounds=4):
        for seat in range(3):
            view = st.view(seat)
            if not view.active[seat]:
                continue
            r = Round(view, None)
            bids = [*r.ladder.bids[::2], None]
            for s in range(3):
                alone = np.stack([r.raises(s, b) for b in bids])
                assert (r.raises_above(s, bids) == alone).all()
                assert (r.raises_above(s, bids[:-1]) == alone[:-1]).all()
                asked += 1
    assert asked > 20
