"""Every preset as a PettingZoo AEC environment and a Gymnasium environment, checked with the
libraries' own tests (`api_test`, `seed_test`, `check_env`) and a `max_cycles` check."""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="PettingZoo is not installed (pip install liarsdice[research])")
pytest.importorskip("gymnasium", reason="Gymnasium is not installed (pip install liarsdice[research])")

from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, render_test, seed_test

from liarsdice.gym import LiarsDiceEnv
from liarsdice.pettingzoo import env, raw_env

SMALL: dict[str, dict[str, Any]] = {
    "perudo": {"players": 3, "dice_per_player": 2},
    "soar": {"players": 3, "dice_per_player": 2},
    "jokers": {"players": 3, "dice_per_player": 2},
    "tavern": {"players": 3, "dice_per_player": 2},
    "red-dead": {"players": 3, "dice_per_player": 2},
    "classic": {"players": 2, "dice_per_player": 2},
    "openspiel": {"dice_per_player": 2},
}


@pytest.fixture(autouse=True)
def _quiet() -> Any:
    # The checks warn about matters of taste (Dict observations, like PettingZoo's own card games).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        yield


@pytest.mark.parametrize("preset", sorted(SMALL))
def test_api_and_seed_tests(preset: str) -> None:
    api_test(env(preset, **SMALL[preset]), num_cycles=300)
    seed_test(lambda: env(preset, **SMALL[preset]), num_cycles=200)
    api_test(env(preset, reward="round", observation="information_state", **SMALL[preset]), num_cycles=100)


@pytest.mark.parametrize("preset", ["perudo", "tavern"])
def test_render_modes(preset: str, capsys: pytest.CaptureFixture[str]) -> None:
    render_test(lambda render_mode=None: env(preset, render_mode=render_mode, **SMALL[preset]))
    e = env(preset, render_mode="ansi", **SMALL[preset])
    e.reset(seed=1)
    text = e.render()
    assert "round 1" in text and "player_0" in text
    capsys.readouterr()


def play(e: Any, rng: random.Random) -> dict[str, float]:
    """A whole game of random legal moves; the rewards each agent collected."""
    total: dict[str, float] = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, _ = e.last()
        total[agent] += reward
        if terminated or truncated:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return total


@pytest.mark.parametrize("preset", sorted(SMALL))
def test_game_rewards_are_the_zero_sum_returns(preset: str) -> None:
    rng = random.Random(preset)
    e = env(preset, **SMALL[preset])
    for seed in range(5):
        e.reset(seed=seed)
        total = play(e, rng)
        assert sum(total.values()) == pytest.approx(0.0)
        assert max(total.values()) > 0 > min(total.values())  # seats out together share a place


def test_round_rewards_count_the_dice() -> None:
    rng = random.Random(2)
    e = env("perudo", reward="round", players=3, dice_per_player=2)
    e.reset(seed=2)
    total = play(e, rng)
    # every seat but the winner lost its two dice; calza may have given some back, and taken again
    assert sorted(total.values())[:2] == [-2.0, -2.0] and total[max(total, key=total.get)] <= 0  # type: ignore[arg-type]
    shed = env("jokers", reward="round", players=3, dice_per_player=1)
    shed.reset(seed=3)
    assert max(play(shed, rng).values()) == 1.0  # shedding a die is worth +1


def test_max_cycles_truncates_after_that_many_moves_each() -> None:
    max_cycles = 4
    e = env("perudo", max_cycles=max_cycles, players=3, dice_per_player=5)
    e.reset(seed=0)
    counts = {a: 0 for a in e.possible_agents}
    rng = random.Random(0)
    truncated = set()
    for agent in e.agent_iter():
        counts[agent] += 1
        obs, _, terminated, truncated_now, _ = e.last()
        if terminated or truncated_now:
            assert truncated_now and not terminated
            truncated.add(agent)
            e.step(None)
        else:
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert truncated == set(e.possible_agents) and not e.agents
    # max_cycles * 3 moves, then one step with None each
    assert sum(counts.values()) == max_cycles * 3 + 3


def test_an_illegal_action_is_refused_with_the_legal_ones() -> None:
    e = raw_env("perudo", players=3, dice_per_player=2)
    e.reset(seed=0)
    mask = e.observe(e.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=r"is not legal for player_.* the legal actions are"):
        e.step(illegal)
    with pytest.raises(ValueError, match="actions are 0 to"):
        e.step(10_000)
    with pytest.raises(ValueError, match="reward must be game or round"):
        raw_env("perudo", reward="dice")


def test_observations_hold_no_other_cup() -> None:
    # Two games whose rolls differ only in other seats' cups look the same to a seat.
    from liarsdice.rules import Roll

    e1, e2 = raw_env("perudo", players=3, dice_per_player=3), raw_env("perudo", players=3, dice_per_player=3)
    for e in (e1, e2):
        e.reset(seed=5)
    hands = e1.state_.history, e1.state_.view(0).cup
    assert hands[0] == ()
    s = e1.rules.new_initial_state()
    rng = random.Random(0)
    while s.phase == "starter":
        s, _ = s.apply(s.sample_chance(rng))
    a, _ = s.apply(Roll(((1, 2, 3), (4, 4, 4), (5, 5, 6))))
    b, _ = s.apply(Roll(((1, 2, 3), (6, 6, 2), (1, 1, 1))))
    e1.state_, e2.state_ = a, b
    for kind in ("observation", "information_state"):
        e1.observation_kind = e2.observation_kind = kind
        o1, o2 = e1.observe("player_0"), e2.observe("player_0")
        assert np.array_equal(o1["observation"], o2["observation"])
        assert np.array_equal(o1["action_mask"], o2["action_mask"])
        assert not np.array_equal(o1["observation"], e1.observe("player_1")["observation"])


# ----- Gymnasium -----


@pytest.mark.parametrize("preset", sorted(SMALL))
def test_gym_env_passes_check_env(preset: str) -> None:
    check_env(LiarsDiceEnv(preset, opponents="probability", **SMALL[preset]), skip_render_check=True)


def test_gym_env_plays_a_seat_against_bots() -> None:
    e = LiarsDiceEnv("perudo", seat=1, opponents=["random", "probability"], players=3, dice_per_player=2)
    rng = random.Random(1)
    for seed in range(3):
        obs, _ = e.reset(seed=seed)
        done = False
        while not done:
            assert obs["action_mask"].any()
            obs, reward, done, truncated, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            assert not truncated and "illegal" not in info
        assert -1.0 <= reward <= 1.0 and e.state_.is_terminal
    obs, _ = e.reset(seed=9)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, done, _, info = e.step(illegal)
    assert done and reward == -1.0 and "is not legal now" in info["illegal"]
    strict = LiarsDiceEnv("perudo", illegal="raise", players=3, dice_per_player=2)
    obs, _ = strict.reset(seed=0)
    with pytest.raises(ValueError, match="is not legal now"):
        strict.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    with pytest.raises(ValueError, match="unknown bot level"):
        LiarsDiceEnv("perudo", opponents="genius")
    with pytest.raises(ValueError, match="opponents lists 1 bots for the 2 other seats"):
        LiarsDiceEnv("perudo", opponents=["random"], players=3)


def test_selfplay_example_beats_the_random_policy() -> None:
    import re
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "examples" / "research" / "selfplay_pettingzoo.py"
    out = subprocess.run(
        [sys.executable, str(script), "--games", "2000", "--eval", "300"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    before, after = (float(v) for v in re.findall(r"win rate ([0-9.]+)", out))
    assert before < 0.6 and after > 0.7, out
