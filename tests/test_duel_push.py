"""The round after a push as a game of its own (`duel.graph.Pushed`): the pusher's shown dice
are part of every hand it may hold, the rest of its cup is drawn again, and the round starts at
any bid the push may carry with the other player to act.

Measured by exact best responses over the full public tree (`duel.walk`), on games small enough
to walk: three faces, every bid remembered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("numba")

from liarsdice.bots.after_push import after_push
from liarsdice.bots.duel import DuelBot
from liarsdice.bots.trained import TrainedDuels, strategies_dir, strategy_key
from liarsdice.duel import DuelStrategy, Pushed, default_k, game_for, train
from liarsdice.duel.graph import EXACT, PASS
from liarsdice.duel.packed import pack, unpack
from liarsdice.duel.walk import best_responses
from liarsdice.rules import Bid, BidAction, Challenge, Exact, Game, Options, Pass, Reroll, preset_options


def soar(faces: int = 3, **more: object) -> Options:
    return preset_options("soar", {"num_players": 2, "faces": faces, **more})


BID_12 = (BidAction(Bid(1, 2)), 0)
PUSH_25 = (BidAction(Bid(2, 5), push=(5,)), 1)  # seat 1 shows a 5 with 2x5


def played(state: Any, *steps: Any) -> Any:
    """`state` after each step: a reroll (luck's), or an (action, seat) pair."""
    for step in steps:
        state, _ = state.apply(step) if isinstance(step, Reroll) else state.apply(*step)
    return state


def test_the_round_after_a_push_starts_at_every_bid_the_push_may_carry() -> None:
    g = game_for(soar(), (2, 1), 12, exact_left=(True, True), pushed=Pushed(0, (2,)))
    # a shown 2 counts for a bid on 2s only (ones are wild, a 2 is not)
    assert {g.spec.bids[int(g.last[r])] for r in g.roots} == {Bid(q, 2) for q in (1, 2, 3)}
    assert (g.parity[g.roots] == 1).all()  # the other player to act
    assert g.can_call[g.roots].all()
    # the pusher holds the shown 2 and one die drawn again: three hands, a third each
    assert g.players[0].hands == [(1, 2), (2, 2), (2, 3)]
    assert g.players[0].chance == pytest.approx([1 / 3] * 3)
    assert g.players[1].hands == [(1,), (2,), (3,)]
    assert g.node_of([Bid(2, 2)]) in set(g.roots.tolist())
    after = g.node_of([Bid(2, 2), Bid(3, 3)])
    assert int(g.parity[after]) == 0
    for n in range(g.num_nodes):  # the order is still topological
        children = g.edge_child[g.edge_start[n] : g.edge_start[n] + g.edge_count[n]]
        assert (children > n).all()
    with pytest.raises(ValueError, match="does not go with 1x3"):
        g.node_of([Bid(1, 3)])
    with pytest.raises(ValueError, match="start with the bid"):
        g.node_of([])
    with pytest.raises(ValueError, match="start with the bid"):
        g.node_of([PASS])
    # a shown one counts for every face: the round may start at any bid
    ones = game_for(soar(), (2, 2), 2, exact_left=(True, True), pushed=Pushed(1, (1,)))
    assert len(ones.roots) == len(ones.spec.bids) and (ones.parity[ones.roots] == 0).all()


def test_a_push_keeps_a_die_under_the_cup() -> None:
    with pytest.raises(ValueError, match="a push shows 1 to 1 of them"):
        game_for(soar(), (2, 1), 3, exact_left=(True, True), pushed=Pushed(0, (2, 2)))
    with pytest.raises(ValueError, match="a push shows 1 to 2 of them, each a face from 1 to 3"):
        game_for(soar(), (3, 1), 3, exact_left=(True, True), pushed=Pushed(0, (4,)))
    with pytest.raises(ValueError, match="player 0 or 1"):
        Pushed(2, (1,))
    with pytest.raises(ValueError, match="at least one die"):
        Pushed(0, ())


@pytest.mark.parametrize(
    ("dice", "pushed"),
    [((2, 1), Pushed(0, (2,))), ((3, 1), Pushed(0, (1, 3))), ((1, 2), Pushed(1, (3,)))],
)
def test_cfr_on_the_round_after_a_push_comes_close_to_an_equilibrium(dice: tuple[int, int], pushed: Pushed) -> None:
    early = train(soar(), dice, k=12, iterations=3, exact_left=(True, True), pushed=pushed)
    strategy = train(soar(), dice, k=12, iterations=800, exact_left=(True, True), pushed=pushed)
    # measured: about 0.3 a round after 3 iterations; under 0.001 after 800
    assert sum(best_responses(strategy)) / 2 < 0.005 < 0.1 < sum(best_responses(early)) / 2
    assert strategy.pushed == pushed and strategy.game.pushed == pushed


def test_a_strategy_after_a_push_keeps_its_push_in_its_files(tmp_path: Path) -> None:
    pushed = Pushed(0, (1, 3))
    strategy = train(soar(), (3, 1), k=4, iterations=50, exact_left=(True, True), pushed=pushed)
    hand, moves = (1, 3, 3), [Bid(2, 3), Bid(3, 3)]
    saved = DuelStrategy.load(strategy.save(tmp_path / "pushed.npz"))
    assert saved.pushed == pushed and saved.game.pushed == pushed
    assert saved.policy(hand, moves) == pytest.approx(strategy.stored().policy(hand, moves))
    for lazy in (False, True):
        packed = unpack(pack(strategy, bits=12, threshold=0.0), lazy=lazy)
        assert packed.pushed == pushed and packed.game.pushed == pushed
        got, want = packed.policy(hand, moves), strategy.policy(hand, moves)
        assert got.keys() <= want.keys()
        assert np.allclose([got.get(m, 0.0) for m in want], list(want.values()), atol=1e-3)
    with pytest.raises(ValueError, match="is not a hand of 3 dice"):
        saved.policy((2, 2, 2), moves)  # the shown dice are in every hand of the pusher


def test_a_round_after_a_push_is_seen_from_the_pusher_s_side() -> None:
    options = soar(faces=3, dice_per_player=3)
    game = Game(options, ["A", "B"])
    start = game.position([(1, 2, 3), (2, 3, 3)], starter=1)
    state, _ = start.apply(BidAction(Bid(2, 2)), 1)
    state, _ = state.apply(BidAction(Bid(3, 3), push=(1, 3)), 0)
    state, _ = state.apply(Reroll(0, (2,)))
    view = state.view(1)
    seen = after_push(view)
    assert seen is not None
    assert (seen.pusher, seen.dice, seen.shown, seen.exact_left, seen.since) == (0, (3, 3), (1, 3), (True, True), 1)
    assert after_push(start.view(1)) is None  # no push
    # the other player had passed before the push: it may not again, which the game after it does not know
    passed, _ = game.position([(1, 2, 3), (2, 2, 2)], starter=1).apply(Pass(), 1)
    passed, _ = passed.apply(BidAction(Bid(3, 3), push=(1, 3)), 0)
    passed, _ = passed.apply(Reroll(0, (2,)))
    assert after_push(passed.view(1)) is None


def test_a_second_push_by_the_same_player_is_the_round_after_all_the_dice_it_showed() -> None:
    game = Game(soar(faces=3, dice_per_player=4), ["A", "B"])
    state, _ = game.position([(1, 2, 3, 3), (1, 2, 3, 3)], starter=1).apply(BidAction(Bid(2, 2)), 1)
    state, _ = state.apply(BidAction(Bid(3, 3), push=(3,)), 0)
    state, _ = state.apply(Reroll(0, (1, 2, 2)))
    state, _ = state.apply(BidAction(Bid(4, 3)), 1)
    state, _ = state.apply(BidAction(Bid(5, 3), push=(1,)), 0)
    state, _ = state.apply(Reroll(0, (2, 2)))
    seen = after_push(state.view(1))
    assert seen is not None
    assert (seen.pusher, seen.dice, seen.shown, seen.exact_left, seen.since) == (0, (4, 4), (1, 3), (True, True), 3)
    # the other pushes too: both players' shown dice, which no game after a push holds
    both, _ = state.apply(BidAction(Bid(6, 3), push=(3,)), 1)
    both, _ = both.apply(Reroll(1, (1, 1, 2)))
    assert after_push(both.view(0)) is None


def test_the_duel_bot_plays_the_round_after_the_other_s_push_from_its_strategy(data: Path) -> None:
    options = soar(faces=3, dice_per_player=2)
    game = Game(options, ["A", "B"])
    state, _ = game.position([(2, 2), (2, 3)], starter=0).apply(BidAction(Bid(1, 2)), 0)
    state, _ = state.apply(BidAction(Bid(2, 3), push=(3,)), 1)
    state, _ = state.apply(Reroll(1, (1,)))
    view = state.view(0)
    bot = DuelBot(seed=1)
    bot.start(game, 0)
    # nothing trained for the round after this push: the reader plays, and nothing is trained now
    assert bot.act(view) in view.legal_actions and bot.source == "fallback"
    assert not (data / "duel").exists() or not list((data / "duel").iterdir())
    # trained here, as `liarsdice train` leaves a strategy: it plays the rest of the round
    k = default_k(options, (2, 2))
    strategy = train(options, (2, 2), k=k, iterations=200, exact_left=(True, True), pushed=Pushed(0, (3,)))
    strategy.save(strategies_dir() / f"{strategy_key(options, (2, 2), k, (True, True), (3,))}.npz")
    TrainedDuels.forget()
    assert bot.act(view) in view.legal_actions and bot.source == "duel"
    saved = DuelStrategy.load(strategies_dir() / f"{strategy_key(options, (2, 2), k, (True, True), (3,))}.npz")
    want = saved.play(view.hand, [Bid(2, 3)])
    as_moves = {Challenge(1): None, Exact(): EXACT, Pass(): PASS}
    got = {as_moves.get(a, a.bid if isinstance(a, BidAction) else a): p for a, p in bot.policy(view)}
    assert got == pytest.approx({m: p for m, p in want.items() if p > 0})
    bot.close()


def test_the_rounds_after_a_push_are_shipped_and_played(data: Path) -> None:
    from liarsdice.duel.plan import pushes
    from liarsdice.duel.shipped import SHIPPED_DIR, read_manifest, rules_key

    options = preset_options("soar", {"num_players": 2})  # cups of 5: the shipped strategies' cap
    # every set of dice a cup of two may show by a push of the dice that count for its bid, where
    # both may still call exact
    shipped = {tuple(a.rules["pushed"]) for a in read_manifest(SHIPPED_DIR) if a.dice == (2, 2) and "pushed" in a.rules}
    assert sorted(shipped) == sorted(pushes(options, 2)) == [(face,) for face in range(1, 7)]
    assert all(
        a.rules == rules_key(options, (True, True), a.rules["pushed"])
        for a in read_manifest(SHIPPED_DIR)
        if "pushed" in a.rules
    )
    # the other player pushes its 5 with 2x5: the rest of the round is the shipped strategy's
    game = Game(options, ["A", "B"])
    bot = DuelBot(seed=3)
    bot.start(game, 0)
    view = played(game.position([(2, 3), (5, 6)], starter=0), BID_12, PUSH_25, Reroll(1, (4,))).view(0)
    assert bot.act(view) in view.legal_actions and bot.source == "duel"
    key = strategy_key(options, (2, 2), default_k(options, (2, 2)), (True, True), (5,))
    assert (
        TrainedDuels.cache[key] is not None and TrainedDuels.cache[key].meta["shipped"] == "soar-pushed-2v2-show5.duel"
    )
    # once the other has called its exact, nothing is shipped for the round after a push: the reader plays
    used = game.position([(2, 3), (5, 6)], starter=0, exact_used=[1])
    view = played(used, BID_12, PUSH_25, Reroll(1, (4,))).view(0)
    assert bot.act(view) in view.legal_actions and bot.source == "fallback"
    bot.close()


def test_the_round_after_a_second_push_is_played_from_the_shipped_strategy_of_all_the_dice_shown(data: Path) -> None:
    options = preset_options("soar", {"num_players": 2})
    game = Game(options, ["A", "B"])
    bot = DuelBot(seed=3)
    bot.start(game, 0)
    start = game.position([(2, 3), (5, 5, 6)], starter=0)
    again = ((BidAction(Bid(3, 2)), 0), (BidAction(Bid(3, 5), push=(5,)), 1))
    view = played(start, BID_12, PUSH_25, Reroll(1, (5, 6)), *again, Reroll(1, (4,))).view(0)
    assert bot.act(view) in view.legal_actions and bot.source == "duel"
    key = strategy_key(options, (3, 2), default_k(options, (3, 2)), (True, True), (5, 5))
    assert TrainedDuels.cache[key] is not None
    assert TrainedDuels.cache[key].meta["shipped"] == "soar-pushed-3v2-show55.duel"
    bot.close()
