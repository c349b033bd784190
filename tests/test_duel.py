"""The duel strategy (liarsdice.duel) and the `duel` bot.

On games small enough for the exact solver's tree, the abstract strategy is played on the full
tree and its exploitability computed exactly; the bot is checked in every two-player round shape
up to 5 dice against 5, in the last duel of a multi-player game, and through its cache."""

from __future__ import annotations

import random
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("numba")

from liarsdice.bots.duel import DuelBot
from liarsdice.bots.strong import StrongBot
from liarsdice.bots.trained import TrainedDuels, strategies_dir, strategy_key
from liarsdice.cli import app
from liarsdice.duel import DuelStrategy, Stopped, TooBig, default_k, game_for, shipped, train
from liarsdice.duel.footprint import estimate, measure
from liarsdice.match import play_game
from liarsdice.players import make_bot
from liarsdice.rules import BidAction, Challenge, Game, preset_options
from liarsdice.solver.memory import check


def duel(dice: tuple[int, int], faces: int = 6, wild: object = 1, preset: str = "openspiel"):  # type: ignore[no-untyped-def]
    return preset_options(
        preset,
        {"num_players": 2, "dice_per_player": list(dice), "faces": faces, "wild_face": wild, "rounds": "single"},
    )


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LIARSDICE_DATA", str(tmp_path))
    monkeypatch.setattr(TrainedDuels, "cache", {})
    monkeypatch.setattr(TrainedDuels, "not_trained", set())
    # none of the package's shipped strategies: these tests train or give their own
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path / "no-shipped-strategies")
    return tmp_path


# ----- the abstraction, measured exactly on the full tree -----


def test_perfect_recall_finds_the_known_game_value() -> None:
    # Remembering every bid (k = 12 of 12 rungs), the graph is the tree: CFR on it must find the
    # equilibrium the exact solver finds (-7/258 for the opener with the top face wild).
    options = duel((1, 1), wild="top")
    strategy = train(options, (1, 1), k=12, iterations=400)
    assert strategy.exact_exploitability() < 1e-3
    assert strategy.meta["value"] == pytest.approx(-7 / 258, abs=2e-3)


@pytest.mark.parametrize(
    ("dice", "faces", "wild"),
    [((2, 1), 6, 1), ((2, 1), 4, "top"), ((2, 2), 4, 1)],
)
def test_abstract_strategy_is_nearly_unexploitable_on_the_full_tree(
    dice: tuple[int, int], faces: int, wild: object
) -> None:
    options = duel(dice, faces, wild)
    strategy = train(options, dice, k=3, iterations=300)
    assert strategy.exact_exploitability() < 0.01


def test_forgetting_too_much_is_exploitable() -> None:
    # The measure can fail: remembering only the last two bids leaves 1 vs 1 far from equilibrium.
    options = duel((1, 1), wild="top")
    assert train(options, (1, 1), k=2, iterations=300).exact_exploitability() > 0.03


def test_sampled_training_converges_too() -> None:
    # 3 of the opener's 10 hands (and of the other's 4) drawn per half-iteration: 0.0092 here.
    options = duel((2, 1), 4, 1)
    strategy = train(options, (2, 1), k=3, iterations=600, sample=3)
    assert "sampled" in strategy.meta["method"]
    assert strategy.exact_exploitability() < 0.015


def test_the_tree_strategy_agrees_with_the_policy() -> None:
    options = duel((2, 1), 4, 1)
    strategy = train(options, (2, 1), k=2, iterations=50)
    from liarsdice.solver.tree import Tree

    tree = Tree(strategy.game.spec)
    liar, bid = strategy.tree_strategy(tree)
    rng = random.Random(3)
    for _ in range(200):
        # A random history, then the probabilities of the player to act, both ways.
        depth = rng.randrange(0, 5)
        rungs: list[int] = []
        low = None
        for _ in range(depth):
            options_now = list(tree.spec.openings) if low is None else list(range(low + 1, tree.num_bids))
            if not options_now:
                break
            low = rng.choice(options_now)
            rungs.append(low)
        d, index = tree.node_of(rungs)
        player = d % 2
        h = rng.randrange(len(tree.hands[player]))
        policy = strategy.policy(tree.hands[player][h], [tree.spec.bids[r] for r in rungs])
        if d > 0:
            assert liar[d] is not None
            assert policy.get(None, 0.0) == pytest.approx(liar[d][index, h])
        if d + 1 < len(tree.levels):
            level = tree.levels[d]
            child = bid[d + 1]
            assert child is not None
            for c in range(int(level.first_child[index]), int(level.first_child[index] + level.num_children[index])):
                b = tree.spec.bids[int(tree.levels[d + 1].last[c])]
                assert policy.get(b, 0.0) == pytest.approx(child[c, h])


def test_bad_input_is_refused_clearly() -> None:
    options = duel((1, 1), wild="top")
    strategy = train(options, (1, 1), k=3, iterations=5)
    with pytest.raises(ValueError, match="not a hand of 1 dice"):
        strategy.policy([1, 2], [])
    bids = strategy.game.spec.bids
    with pytest.raises(ValueError, match="does not raise"):
        strategy.policy([3], [bids[5], bids[2]])
    with pytest.raises(ValueError, match="at least the standing bid"):
        game_for(options, (1, 1), 0)


def test_default_memory_by_size() -> None:
    # Everything remembered at 1 vs 1 (12 rungs), most at 2 vs 1, 3 bids to 4 vs 3, 2 above.
    assert default_k(duel((1, 1)), (1, 1)) == 12
    assert default_k(duel((2, 1)), (2, 1)) == 10
    assert default_k(duel((2, 2)), (2, 2)) == 4
    assert default_k(duel((4, 3)), (4, 3)) == 3
    assert default_k(duel((5, 2)), (5, 2)) == 3
    assert default_k(duel((4, 4)), (4, 4)) == 2
    assert default_k(duel((5, 3)), (5, 3)) == 2
    assert default_k(duel((5, 5)), (5, 5)) == 2


# ----- files -----


def test_cache_round_trip(tmp_path: Path) -> None:
    options = duel((2, 1), 6, "top")
    strategy = train(options, (2, 1), k=3, iterations=100)
    path = strategy.save(tmp_path / "s.npz")
    back = DuelStrategy.load(path)
    assert (back.dice, back.k, back.meta["iterations"]) == ((2, 1), 3, 100)
    hand, bids = (2, 6), [strategy.game.spec.bids[3], strategy.game.spec.bids[7]]
    for a, p in strategy.policy(hand, bids).items():
        # Saved in float32, with moves under 1e-4 dropped.
        assert back.policy(hand, bids).get(a, 0.0) == pytest.approx(p, abs=2e-4)
    assert abs(back.exact_exploitability() - strategy.exact_exploitability()) < 1e-3


def test_damaged_files_are_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a readable liarsdice duel strategy"):
        DuelStrategy.load(bad)
    other = tmp_path / "other.npz"
    np.savez(other, meta=np.array('{"format": "something else"}'))
    with pytest.raises(ValueError, match="not a liarsdice duel strategy"):
        DuelStrategy.load(other)


def test_train_command_caches_where_the_bot_looks(data_dir: Path) -> None:
    result = CliRunner().invoke(
        app, ["train", "--dice", "1", "1", "--faces", "4", "--wild", "none", "--iterations", "50", "--exact"]
    )
    assert result.exit_code == 0, result.output
    assert "exact exploitability on the full tree" in result.output
    options = duel((1, 1), 4, "none")
    path = strategies_dir() / f"{strategy_key(options, (1, 1), default_k(options, (1, 1)))}.npz"
    assert path.exists()
    bot = DuelBot(seed=1)
    assert bot.strategy_for(options, (1, 1)) is not None
    bad = CliRunner().invoke(app, ["train", "--dice", "1", "1", "--wild", "2"])
    assert bad.exit_code != 0 and "--wild is 1, top or none" in bad.output


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--preset", "soar"], ["push=true", "rounds=until_one_left"]),  # pass and the exact: test_duel_exact
        (["--preset", "perudo"], ["rounds=until_one_left"]),  # calza is modelled (test_duel_exact)
        (["-o", "num_players=3"], ["num_players=3"]),
    ],
)
def test_train_refuses_rules_it_does_not_model(args: list[str], named: list[str]) -> None:
    result = CliRunner().invoke(app, ["train", "--dice", "1", "1", *args, "--iterations", "1"])
    assert result.exit_code == 2 and "cannot model" in result.output, result.output
    assert all(words in result.output for words in named) and not strategies_dir().exists()


def test_a_strategy_trained_with_another_memory_plays_where_the_default_is_missing(data_dir: Path) -> None:
    # What keeps strategies trained before a change of default_k (4 vs 4 used k=3) in play.
    options = duel((1, 1), 4, "none")
    assert default_k(options, (1, 1)) > 3
    result = CliRunner().invoke(
        app, ["train", "--dice", "1", "1", "--faces", "4", "--wild", "none", "--k", "3", "--iterations", "20"]
    )
    assert result.exit_code == 0, result.output
    assert (strategies_dir() / f"{strategy_key(options, (1, 1), 3)}.npz").exists()
    assert not (strategies_dir() / f"{strategy_key(options, (1, 1), default_k(options, (1, 1)))}.npz").exists()
    strategy = DuelBot(seed=1).strategy_for(options, (1, 1))
    assert strategy is not None and strategy.k == 3 and strategy.meta["iterations"] == 20


def test_a_small_duel_trained_on_first_use_plays_as_its_saved_file(data_dir: Path) -> None:
    """The process that trains a small duel on first use plays it as every other process will
    load it from the data directory (its smallest probabilities dropped): an analysis made by
    the server's worker and one made here agree (tests/test_server_analysis.py)."""
    options = duel((1, 1), 4, 1)
    trained = TrainedDuels.strategy_for(options, (1, 1))
    assert trained is not None and trained.meta["iterations"] > 0
    TrainedDuels.cache.clear()
    loaded = TrainedDuels.strategy_for(options, (1, 1), train_small=False)  # from the file
    assert loaded is not None and loaded is not trained
    for player in (0, 1):
        assert np.array_equal(trained.liar[player], loaded.liar[player])
        assert np.array_equal(trained.bid[player], loaded.bid[player])


def test_a_duel_looked_up_does_not_wait_for_another_being_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """The strategies of the next rounds are loaded ahead in the background (20 to 40 ms each): a
    decision that needs another duel meanwhile finds it without waiting for them."""
    import threading

    import liarsdice.bots.trained as trained_module

    options = duel((2, 2), 6, 1)
    slow, loading = (2, 2), threading.Event()
    release = threading.Event()
    found = arbitrary(options, (2, 1), 2)

    def load(options_, dice, k, exact_left=None, pushed=None):  # type: ignore[no-untyped-def]
        if dice == slow:
            loading.set()
            release.wait(10)
            return None
        return found if dice == (2, 1) and k == 2 else None

    monkeypatch.setattr(trained_module, "load_strategy", load)
    ahead = threading.Thread(target=TrainedDuels.strategy_for, args=(options, slow, 2), kwargs={"train_small": False})
    ahead.start()
    assert loading.wait(10)
    got: list[DuelStrategy | None] = []
    needed = threading.Thread(target=lambda: got.append(TrainedDuels.strategy_for(options, (2, 1), 2)))
    needed.start()
    needed.join(5)
    done = not needed.is_alive()
    release.set()
    ahead.join(10)
    needed.join(10)
    assert done and got == [found]


def test_a_training_resumed_from_its_checkpoint_is_one_longer_run(tmp_path: Path) -> None:
    options = duel((2, 1), 6, "top")
    straight = train(options, (2, 1), k=3, iterations=40, sample=8, seed=3)
    checkpoint = tmp_path / "t.train.npz"
    told: list[tuple[int, float]] = []
    first = train(options, (2, 1), k=3, iterations=25, sample=8, seed=3, checkpoint=checkpoint)
    assert first.meta["iterations"] == 25 and checkpoint.exists()
    second = train(
        options,
        (2, 1),
        k=3,
        iterations=15,
        sample=8,
        seed=3,
        checkpoint=checkpoint,
        on_resume=lambda i, s: told.append((i, s)),
    )
    assert told and told[0][0] == 25
    assert second.meta["iterations"] == 40 and second.meta["seconds"] >= told[0][1]
    for player in (0, 1):  # the same regrets, averages and draws: the same strategy
        assert np.array_equal(second.bid[player], straight.bid[player])
        assert np.array_equal(second.liar[player], straight.liar[player])
    # A checkpoint of another game, or of another sampling, is refused by name.
    with pytest.raises(ValueError, match="checkpoint of another training"):
        train(duel((2, 1), 6, 1), (2, 1), k=3, iterations=1, sample=8, seed=3, checkpoint=checkpoint)
    with pytest.raises(ValueError, match="sampled per half-iteration"):
        train(options, (2, 1), k=3, iterations=1, seed=3, checkpoint=checkpoint)
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a checkpoint")
    with pytest.raises(ValueError, match="not a readable training checkpoint"):
        train(options, (2, 1), k=3, iterations=1, checkpoint=broken)


def test_the_train_command_goes_on_where_it_stopped(data_dir: Path) -> None:
    args = ["train", "--dice", "1", "1", "--faces", "4", "--wild", "none", "--iterations", "20"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "going on from" not in first.output and "20 iterations" in first.output
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 0, again.output
    assert "going on from iteration 20" in again.output and "40 iterations" in again.output
    fresh = CliRunner().invoke(app, [*args, "--fresh"])
    assert fresh.exit_code == 0 and "going on from" not in fresh.output and "20 iterations" in fresh.output


# ----- the bot -----


def untrained(options, dice: tuple[int, int], k: int) -> DuelStrategy:  # type: ignore[no-untyped-def]
    """A strategy never trained (all zeros: every move alike), cheap for any round size."""
    g = game_for(options, dice, k)
    hands = [len(g.players[p].hands) for p in (0, 1)]
    liar = [np.zeros((hands[p], g.num_node_slots[p]), dtype=np.float32) for p in (0, 1)]
    bid = [np.zeros((hands[p], g.num_edge_slots[p]), dtype=np.float32) for p in (0, 1)]
    return DuelStrategy(options, dice, k, liar, bid, graph=g)


def arbitrary(options, dice: tuple[int, int], k: int, seed: int = 0) -> DuelStrategy:  # type: ignore[no-untyped-def]
    """A strategy with some preference at every hand and node (random weights), cheap for any
    round size."""
    g = game_for(options, dice, k)
    rng = np.random.default_rng(seed)
    hands = [len(g.players[p].hands) for p in (0, 1)]
    liar = [rng.random((hands[p], g.num_node_slots[p]), dtype=np.float32) + 0.1 for p in (0, 1)]
    bid = [rng.random((hands[p], g.num_edge_slots[p]), dtype=np.float32) + 0.1 for p in (0, 1)]
    return DuelStrategy(options, dice, k, liar, bid, graph=g)


@pytest.mark.parametrize(("wild", "k"), [(1, None), ("top", 2), ("none", 2)])
def test_bot_plays_legal_moves_in_every_duel_shape(wild: object, k: int | None) -> None:
    rng = random.Random(7)
    for a in range(1, 6):
        for b in range(1, 6):
            options = duel((a, b), 6, wild)
            memory = default_k(options, (a, b)) if k is None else k
            TrainedDuels.cache[strategy_key(options, (a, b), memory)] = arbitrary(options, (a, b), memory)
            game = Game(options, seats=["A", "B"])
            bots = [DuelBot(seed=rng.randrange(1 << 30), k=k), DuelBot(seed=rng.randrange(1 << 30), k=k)]
            for _ in range(3):
                cups = [tuple(rng.randint(1, 6) for _ in range(n)) for n in (a, b)]
                state = game.position(cups, starter=0)
                sources = set()
                while not state.is_terminal:
                    seat = state.to_act
                    view = state.view(seat)
                    action = bots[seat].act(view)
                    assert action in view.legal_actions
                    assert isinstance(action, BidAction | Challenge)
                    sources.add(bots[seat].source)
                    state, _ = state.apply(action)
                # 1 vs 1 with six faces is the exact solver's; the rest is the duel strategy's.
                assert sources == ({"exact"} if (a, b) == (1, 1) else {"duel"})


def test_where_training_never_came_the_bot_plays_its_own_game() -> None:
    from liarsdice.duel.packed import pack, unpack

    options = duel((2, 2), 6, 1)
    k = default_k(options, (2, 2))
    never, some = untrained(options, (2, 2), k), arbitrary(options, (2, 2), k)
    bids = never.game.spec.bids[:1]
    for strategy in (never, unpack(pack(never, bits=6), lazy=True)):
        # the policy of the strategy is still every move alike, but play has no answer there
        assert len(set(strategy.policy((2, 5), bids).values())) <= 2
        assert strategy.play((2, 5), bids) == {}
    assert some.play((2, 5), bids) == some.policy((2, 5), bids) != {}
    try:
        TrainedDuels.cache[strategy_key(options, (2, 2), k)] = never
        bot = DuelBot(seed=3)
        state = Game(options, seats=["A", "B"]).position([(2, 5), (3, 3)], starter=0)
        assert bot.act(state.view(0)) in state.view(0).legal_actions and bot.source == "fallback"
        TrainedDuels.cache[strategy_key(options, (2, 2), k)] = some
        assert bot.act(state.view(0)) in state.view(0).legal_actions and bot.source == "duel"
    finally:
        TrainedDuels.cache.pop(strategy_key(options, (2, 2), k), None)


def test_bot_plays_the_last_duel_of_a_multi_player_game(monkeypatch: pytest.MonkeyPatch) -> None:
    import liarsdice.bots.trained as duel_module

    # The duels of 2 dice each with 4 faces, trained on first use, briefly.
    monkeypatch.setattr(duel_module, "TRAIN_ITERATIONS", 30)
    monkeypatch.setattr(duel_module, "TRAIN_ON_THE_FLY_WORK", 2e7)
    options = preset_options("classic", {"num_players": 3, "dice_per_player": 2, "faces": 4})
    game = Game(options, seats=["Duel", "P1", "P2"])
    seen: list[tuple[str, int]] = []

    class Spy(DuelBot):
        def __init__(self, seed: int) -> None:
            super().__init__(seed=seed)
            # Expert elsewhere, not the reader: the reader may take a duel over (test_reader.py)
            self.fallback = StrongBot(seed)

        def act(self, view, limit=None):  # type: ignore[no-untyped-def]
            action = super().act(view, limit)
            seen.append((self.source, sum(view.active)))
            return action

    for seed in range(6):
        play_game(game, [Spy(seed=seed), make_bot("probability", seed), make_bot("probability", seed + 1)], seed=seed)
    duels = [source for source, players in seen if players == 2]
    crowds = [source for source, players in seen if players > 2]
    assert duels and all(s in ("duel", "exact") for s in duels)
    assert "duel" in duels
    assert crowds and set(crowds) == {"fallback"}


def test_bot_falls_back_without_a_strategy() -> None:
    options = duel((5, 5), 6, 1)
    game = Game(options, seats=["A", "B"])
    state = game.position([(1, 2, 3, 4, 5), (6, 6, 6, 1, 1)], starter=0)
    bot = DuelBot(seed=0)
    view = state.view(0)
    assert bot.act(view) in view.legal_actions
    assert bot.source == "fallback"


def test_policy_is_what_the_bot_plays_and_what_lbr_reads() -> None:
    from collections import Counter

    from liarsdice.exploit import BotModel, Duel, duel_options

    options = duel((2, 2), 6, 1)
    k = default_k(options, (2, 2))
    g = game_for(options, (2, 2), k)
    rng = np.random.default_rng(3)
    # a strategy of uneven chances, so that drawing from the wrong one shows
    liar = [rng.random((len(g.players[p].hands), g.num_node_slots[p])).astype(np.float32) for p in (0, 1)]
    bid = [rng.random((len(g.players[p].hands), g.num_edge_slots[p])).astype(np.float32) ** 4 for p in (0, 1)]
    TrainedDuels.cache[strategy_key(options, (2, 2), k)] = DuelStrategy(options, (2, 2), k, liar, bid, graph=g)
    state = Game(options, seats=["A", "B"]).position([(2, 5), (1, 6)], starter=0)
    state, _ = state.apply(BidAction(state.view(0).legal.bids[4]))  # type: ignore[union-attr]
    view = state.view(1)
    policy = dict(DuelBot(seed=0).policy(view))
    assert set(policy) <= set(view.legal_actions) and sum(policy.values()) == pytest.approx(1, abs=1e-6)
    assert max(policy.values()) < 0.9  # mixed: the test below can tell draws apart
    drawn = Counter(DuelBot(seed=s).act(view) for s in range(3000))
    for action, p in policy.items():
        assert abs(drawn[action] / 3000 - p) < 4 * (p * (1 - p) / 3000) ** 0.5 + 1e-3, action
    # liarsdice exploit reads the policy itself (exact), not 8 samples of it
    model = BotModel(Duel(duel_options((2, 2), 6, "1"), (2, 2)), lambda seed: DuelBot(seed), samples=8, seed=1)
    assert model.exact
    # no strategy for the round (5 vs 5 untrained here): the strong bot's policy
    state = Game(duel((5, 5), 6, 1), seats=["A", "B"]).position([(1, 2, 3, 4, 5), (6, 6, 6, 1, 1)], starter=0)
    bot = DuelBot(seed=0)
    assert [a for a, _ in bot.policy(state.view(0))] and bot.source == "fallback"


def test_a_training_asked_to_stop_ends_after_a_whole_iteration(tmp_path: Path) -> None:
    # stop() is asked between hands too (see the long iteration below); one this short ends whole.
    done: list[int] = []
    checkpoint = tmp_path / "c.train.npz"
    strategy = train(
        duel((1, 1), 4, "none"),
        (1, 1),
        iterations=1000,
        on_progress=lambda p: done.append(p.iteration),
        stop=lambda: len(done) >= 3,
        checkpoint=checkpoint,
    )
    assert strategy.meta["iterations"] == 3 and checkpoint.exists() and "cut_short" not in strategy.meta


def test_ctrl_c_stops_the_train_command_and_saves(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    env = {**os.environ, "LIARSDICE_DATA": str(tmp_path)}
    args = ["--dice", "2", "1", "--faces", "4", "--wild", "none", "--k", "3", "--seconds", "300"]
    run = subprocess.Popen(
        [sys.executable, "-m", "liarsdice.cli", "train", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert run.stdout is not None
    lines = []
    for line in run.stdout:
        lines.append(line)
        if line.startswith("iteration 10 "):
            run.send_signal(signal.SIGINT)
            break
    rest, _ = run.communicate(timeout=120)
    output = "".join(lines) + rest
    assert run.returncode == 0, output
    assert "stopped at iteration" in output and "strategy: " in output
    assert len(list((tmp_path / "duel").glob("*.train.npz"))) == 1
    saved = [p for p in (tmp_path / "duel").glob("*.npz") if not p.name.endswith(".train.npz")]
    assert len(saved) == 1 and DuelStrategy.load(saved[0]).meta["iterations"] >= 10


# ----- memory, time and signals: a size that does not fit is refused, a long one ends on time -----

# 7 dice against 7 remembering 1 bid: 250 MB, and one iteration over every hand takes ~13 s on the
# 2-core machine, far past the second given plus train.CUT_AFTER.
LONG = ["--dice", "9", "9", "--k", "1"]  # an iteration of 15 s or more (2,002 hands a player)


def test_a_size_that_does_not_fit_is_refused_with_the_estimate(monkeypatch: pytest.MonkeyPatch) -> None:
    from liarsdice.solver import memory

    monkeypatch.setattr(memory, "available_bytes", lambda: 8 * 10**9)
    result = CliRunner().invoke(app, ["train", "--dice", "9", "9", "--seconds", "1"])
    assert result.exit_code == 2, result.output
    assert "needs about 37.9 GB of memory" in result.output and "8.0 GB available" in result.output
    assert "--k 1" in result.output  # what fits instead
    assert not (strategies_dir()).exists()  # nothing built, nothing saved
    # A memory of bids no machine holds is refused on this one as well, unpatched.
    monkeypatch.undo()
    huge = CliRunner().invoke(app, ["train", "--dice", "9", "9", "--k", "6"])
    assert huge.exit_code == 2 and "TB of memory" in huge.output
    with pytest.raises(TooBig, match=r"needs about 37\.9 GB"):
        train(duel((9, 9), 6, "top"), (9, 9), iterations=1, memory=8 * 10**9)


def test_estimates_bound_the_graphs_they_describe() -> None:
    for dice, k in [((1, 1), 12), ((2, 1), 10), ((2, 2), 4), ((4, 3), 3), ((5, 5), 2), ((7, 7), 1)]:
        options = duel(dice, 6, "top")
        before, after = estimate(options, dice, k), measure(game_for(options, dice, k))
        assert before.nodes >= after.nodes and before.edges >= after.edges and before.bytes >= after.bytes
        assert before.bytes < 1.2 * after.bytes, (dice, k, before, after)  # and closely


def test_memory_near_the_limit_warns_and_above_it_refuses() -> None:
    assert check(50, 100).ok and check(50, 100).warning is None
    near = check(90, 100)
    assert near.ok and near.warning is not None and "available" in near.warning
    over = check(150, 100)
    assert not over.ok and "needs about" in over.refusal("this")


def test_seconds_end_a_long_iteration_within_it(data_dir: Path) -> None:
    # --seconds counts the graph's building too (about 1 s, 3 s under load): 5 s leave time to
    # start the first iteration, which takes 15 s or more, whatever the load. Which half it is cut
    # in depends on the machine's speed (player 0's half on a loaded one, player 1's on a quiet one,
    # where it may come right between the halves: 0 of player 1's hands, player 0's all done).
    result = CliRunner().invoke(app, ["train", *LONG, "--seconds", "5"])
    assert result.exit_code == 0, result.output
    cut = re.search(r"cut short: (\d+) of 2002 hands of player ([01])\b", result.output)
    assert cut is not None, result.output
    done, player = int(cut.group(1)), cut.group(2)
    assert (done > 0 if player == "0" else done >= 0) and done < 2002, result.output
    assert "1 iterations in" in result.output
    saved = [p for p in strategies_dir().glob("*.npz") if not p.name.endswith(".train.npz")]
    assert len(saved) == 1 and "cut short" in DuelStrategy.load(saved[0]).meta["cut_short"]


def test_sigterm_ends_a_long_iteration_and_saves(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "LIARSDICE_DATA": str(tmp_path)}
    run = subprocess.Popen(
        [sys.executable, "-m", "liarsdice.cli", "train", *LONG, "--seconds", "600"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert run.stdout is not None
    lines = []
    for line in run.stdout:
        lines.append(line)
        if "information sets" in line:  # the graph is built: training starts next
            time.sleep(1.0)
            run.send_signal(signal.SIGTERM)
            break
    rest, _ = run.communicate(timeout=120)
    output = "".join(lines) + rest
    assert run.returncode == 0, output
    cut = re.search(r"cut short: (\d+) of 2002 hands", output)
    assert cut is not None and int(cut.group(1)) < 2002, output
    assert "stopped at iteration 1;" in output and "strategy: " in output
    assert len(list((tmp_path / "duel").glob("*.train.npz"))) == 1
    saved = [p for p in (tmp_path / "duel").glob("*.npz") if not p.name.endswith(".train.npz")]
    assert len(saved) == 1 and DuelStrategy.load(saved[0]).meta["iterations"] == 1


def test_a_build_or_training_stopped_before_it_starts_keeps_nothing(tmp_path: Path) -> None:
    options = duel((4, 3), 6, "top")
    asked: list[int] = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 2

    with pytest.raises(Stopped, match="while building the graph"):
        game_for(options, (4, 3), 3, stop=stop)
    checkpoint = tmp_path / "c.train.npz"
    with pytest.raises(Stopped, match="while building the graph"):
        train(options, (4, 3), k=3, iterations=5, stop=lambda: True, checkpoint=checkpoint)
    small = duel((2, 1), 6, "top")
    with pytest.raises(Stopped, match="nothing trained"):
        train(
            small, (2, 1), k=3, iterations=5, stop=lambda: True, checkpoint=checkpoint, game=game_for(small, (2, 1), 3)
        )
    assert not checkpoint.exists()
