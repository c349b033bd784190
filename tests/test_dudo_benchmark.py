"""benchmarks/dudo.py without dudo.ai's networks: the action map, the call's winner, rounds with a stand-in.

The script plays Master against the networks of thomasahle/liars-dice, which are not in this
repository; what it adds to them is tested here: its map between dudo's action ids and our moves,
its re-implementation of dudo's `evaluate_call` against our engine, and its rounds, played with a
small numpy function in the network's place.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from liarsdice.exploit.duel import duel_options as exploit_duel_options
from liarsdice.rules import Bid, BidAction, Challenge, Game, ladder

SCRIPT = Path(__file__).resolve().parent.parent / "benchmarks" / "dudo.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("benchmark_dudo", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


dudo = load_script()


def stand_in_net(d1: int, d2: int, seed: int = 0) -> Callable[[np.ndarray, np.ndarray], float]:
    """A value network of the same interface: tanh of a fixed random bilinear form, and, as dudo's
    networks do, the worst value for a liar call before any bid (player 0's only call there)."""
    codec = dudo.DudoCodec(d1, d2)
    rng = np.random.default_rng(seed)
    a = rng.normal(size=(codec.d_pri, 8)).astype(np.float32)
    b = rng.normal(size=(codec.d_pub, 8)).astype(np.float32)

    def net(priv: np.ndarray, pub: np.ndarray) -> float:
        assert priv.shape == (codec.d_pri,) and pub.shape == (codec.d_pub,)
        if pub[codec.lie] and not pub[: codec.lie].any():
            return -1.0 if priv[codec.pri_index] else 1.0
        return 0.9 * float(np.tanh((priv @ a) @ (pub @ b) / 8))

    return net


def test_our_rules_are_the_exploit_duel_with_ones_wild() -> None:
    for dice in ((1, 1), (2, 2), (3, 2), (5, 5)):
        assert dudo.duel_options(dice) == exploit_duel_options(dice, wild="1")


def test_every_bid_of_2v2_maps_both_ways_and_the_legal_moves_are_the_higher_ids() -> None:
    codec = dudo.DudoCodec(2, 2)
    options = dudo.duel_options((2, 2))
    bids = ladder(options.faces, options.wild, options.wild_bid_rule, options.bid_order, 4).bids
    assert len(bids) == codec.lie == 24
    game = Game(options, seats=["a", "b"])
    opening = game.position([(1, 2), (3, 4)], starter=0)
    # Before any bid: every bid (dudo also has the liar call here, which ours lacks; see the script).
    assert [codec.action_id(a) for a in opening.legal_actions()] == list(range(codec.lie))
    for i, bid in enumerate(bids):
        assert codec.bid_id(bid) == i == (bid.quantity - 1) * 6 + (bid.face - 1)
        for seat in (0, 1):
            assert codec.action_of(i, seat) == BidAction(bid)
        assert codec.action_id(BidAction(bid)) == i
        state, _ = opening.apply(BidAction(bid))  # seat 0 bids; seat 1 to act
        legal = [codec.action_id(a) for a in state.legal_actions()]
        assert sorted(legal) == list(range(i + 1, codec.lie + 1))
        assert all(codec.action_of(x, 1) in state.legal_actions() for x in legal)
    assert codec.action_id(Challenge(0)) == codec.lie
    assert codec.action_of(codec.lie, 1) == Challenge(0)
    assert codec.action_of(codec.lie, 0) == Challenge(1)
    with pytest.raises(ValueError):
        codec.action_of(codec.lie + 1, 0)
    with pytest.raises(ValueError):
        codec.bid_id(Bid(5, 2))


def test_dudos_evaluate_call_names_the_winner_our_engine_names() -> None:
    rng = random.Random(5)
    for _ in range(400):
        d1, d2 = rng.randint(1, 5), rng.randint(1, 5)
        codec = dudo.DudoCodec(d1, d2)
        r1 = tuple(rng.randint(1, 6) for _ in range(d1))
        r2 = tuple(rng.randint(1, 6) for _ in range(d2))
        called = rng.randrange(codec.lie)
        bidder = 0 if called == 0 else rng.randint(0, 1)  # seat 1 bids after a lower opening
        state = Game(dudo.duel_options((d1, d2)), seats=["a", "b"]).position([r1, r2], starter=0)
        if bidder == 1:
            state, _ = state.apply(codec.action_of(rng.randrange(called), 0))
        state, _ = state.apply(codec.action_of(called, bidder))
        caller = 1 - bidder
        state, _ = state.apply(codec.action_of(codec.lie, caller))
        assert state.is_terminal
        returns = state.returns()
        assert returns is not None
        caller_wins = returns[caller] > 0
        assert caller_wins == (not codec.call_is_good(r1, r2, called)), (r1, r2, called)
    assert dudo.DudoCodec(2, 2).call_is_good((2, 3), (4, 5), -1)  # a call before any bid loses


def test_the_page_policy_and_draw() -> None:
    codec = dudo.DudoCodec(1, 1)
    priv, pub = codec.priv((3,), 0), codec.initial_pub()
    flat = dudo.page_policy(lambda p, q: 0.0, codec, priv, pub, -1)
    assert flat == [1 / codec.n_actions] * codec.n_actions  # no regret: uniform, the liar call too
    assert dudo.weighted_choice([0.25, 0.0, 0.75], 0.2) == 0
    assert dudo.weighted_choice([0.25, 0.0, 0.75], 0.25) == 2
    assert dudo.weighted_choice([0.5, 0.5 - 1e-12, 0.0], 1 - 1e-13) == 1
    assert dudo.opening_call_chance(lambda p, q: 0.0, codec) == pytest.approx(1 / codec.n_actions)


def test_rounds_against_a_stand_in_network() -> None:
    net = stand_in_net(2, 2)
    assert dudo.opening_call_chance(net, dudo.DudoCodec(2, 2)) == 0
    result = dudo.play_size((2, 2), net, rounds=6, seed=3)
    assert [r.master_seat for r in result.rounds] == [0, 1, 0, 1, 0, 1]
    assert all(r.master_return in (-1.0, 1.0) for r in result.rounds)
    assert all(r.moves == len(r.master_times) + len(r.dudo_times) >= 2 for r in result.rounds)
    assert {s for r in result.rounds for s in r.master_sources} == {"duel"}  # the shipped 2v2
    again = dudo.play_size((2, 2), net, rounds=6, seed=3)
    assert [r.master_return for r in again.rounds] == [r.master_return for r in result.rounds]
    assert any(line.startswith("  Master's mean return a round:") for line in dudo.report(result))


def test_a_liar_call_before_any_bid_stops_the_benchmark() -> None:
    codec = dudo.DudoCodec(2, 2)

    def calls_at_once(priv: np.ndarray, pub: np.ndarray) -> float:
        return float(pub[codec.lie])  # only the state after player 0's liar call is worth anything

    assert dudo.opening_call_chance(calls_at_once, codec) == 1
    game = Game(dudo.duel_options((2, 2)), seats=["a", "b"])
    from liarsdice.bots.random_bot import RandomBot

    with pytest.raises(dudo.IllegalMove):
        dudo.play_round(game, codec, calls_at_once, RandomBot(1), 1, dudo.round_seeds(1, (2, 2), 1))
