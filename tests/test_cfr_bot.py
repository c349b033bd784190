"""The cfr bot: it plays the solved strategy, caches solutions, keeps to a time limit, and
hands every other position to the probability bot."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from liarsdice.bots import CfrBot, Limit, ProbabilityBot
from liarsdice.bots import cfr as cfr_module
from liarsdice.bots.cfr import solution_key, solutions_dir
from liarsdice.rules import Bid, BidAction, Challenge, preset_options
from liarsdice.solver import Solution, solve
from positions import play, position


@pytest.fixture(autouse=True)
def fresh_caches(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """Every test starts with no solution in memory or on disk."""
    monkeypatch.setenv("LIARSDICE_DATA", str(tmp_path))
    monkeypatch.setattr(CfrBot, "_cache", {})
    monkeypatch.setattr(CfrBot, "_partial", {})
    yield


def test_plays_the_solved_strategy_with_its_probabilities() -> None:
    state = position("openspiel", [(3,), (5,)], starter=0)
    state = play(state, BidAction(Bid(1, 4)))
    view = state.view(1)
    bot = CfrBot(0)
    solution = bot.solution_for(view.options, (1, 1))
    assert solution is not None and solution.exploitability <= 1e-3
    bids = [t.action.bid for t in view.history if isinstance(t.action, BidAction)]
    policy = solution.policy(view.hand, bids)
    draws: Counter[Bid | None] = Counter()
    for seed in range(3000):
        bot.rng.seed(seed)
        action = bot.act(view)
        assert action in view.legal_actions
        draws[None if isinstance(action, Challenge) else action.bid] += 1  # type: ignore[union-attr]
    assert set(draws) <= {k for k, p in policy.items() if p > 0}
    for choice, p in policy.items():
        assert abs(draws[choice] / 3000 - p) < 0.04, (choice, p, draws[choice])


def test_a_solution_is_cached_on_disk_and_loaded_from_there(monkeypatch: pytest.MonkeyPatch) -> None:
    options = preset_options("openspiel", {"faces": 4})  # six faces' is shipped: nothing to solve
    CfrBot(0).solution_for(options, (1, 1))
    path = solutions_dir() / f"{solution_key(options, (1, 1))}.npz"
    assert path.exists()
    CfrBot._cache.clear()

    def no_solving(*args: object, **kwargs: object) -> None:
        raise AssertionError("solved again instead of loading")

    monkeypatch.setattr("liarsdice.solver.solve", no_solving)
    assert CfrBot(1).solution_for(options, (1, 1)) is not None


def test_a_cached_solution_from_before_float64_is_used_and_a_damaged_one_solved_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    options = preset_options("openspiel", {"faces": 3})
    solution = CfrBot(0).solution_for(options, (1, 1))
    assert solution is not None
    path = solutions_dir() / f"{solution_key(options, (1, 1))}.npz"
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] if k == "meta" else data[k].astype(np.float32) for k in data.files}
    with open(path, "wb") as f:  # as solutions were saved before they were saved in float64
        np.savez_compressed(f, **arrays)
    CfrBot._cache.clear()
    solved: list[int] = []

    def counted(*args: Any, **kwargs: Any) -> Solution:
        solved.append(1)
        return solve(*args, **kwargs)

    monkeypatch.setattr("liarsdice.solver.solve", counted)
    old = CfrBot(1).solution_for(options, (1, 1))
    assert old is not None and not solved
    assert old.policy([2], []) == pytest.approx(solution.policy([2], []), abs=1e-6)
    # a file cut short (a full disk, a copy interrupted) is solved again and written whole
    path.write_bytes(path.read_bytes()[:300])
    CfrBot._cache.clear()
    again = CfrBot(2).solution_for(options, (1, 1))
    assert again is not None and solved == [1]
    assert Solution.load(path).iterations == again.iterations


def test_a_time_limit_cuts_the_first_solve_short_and_nothing_half_done_is_saved() -> None:
    options = preset_options("openspiel", {"faces": 5, "wild_face": "none"})
    state = position("openspiel", [(2,), (4,)], starter=0, options={"faces": 5, "wild_face": "none"})
    view = state.view(0)
    bot = CfrBot(0)
    assert bot.act(view, Limit(time=1e-6)) in view.legal_actions
    key = solution_key(options, (1, 1))
    assert key in CfrBot._partial and key not in CfrBot._cache
    assert not (solutions_dir() / f"{key}.npz").exists()
    assert bot.act(view) in view.legal_actions  # no limit: solved to the target and kept
    assert key in CfrBot._cache and (solutions_dir() / f"{key}.npz").exists()


def test_rounds_it_has_no_solution_for_are_the_probability_bots(monkeypatch: pytest.MonkeyPatch) -> None:
    state = position("perudo", [(1, 2, 3), (4, 5, 6), (2, 2, 6)], starter=0)
    view = state.view(0)
    assert CfrBot(7).act(view) == ProbabilityBot(7).act(view)
    # two players with trees too big to solve on first use: the probability bot too
    monkeypatch.setattr(cfr_module, "SOLVE_ON_THE_FLY_NODES", 1)
    two = position("perudo", [(1, 2, 3), (4, 5, 6)], starter=0)
    assert CfrBot(7).act(two.view(0)) == ProbabilityBot(7).act(two.view(0))
