"""Random legal playouts per second: our rules core beside OpenSpiel's `liars_dice`.

    python benchmarks/playouts.py [--seconds S] [--repeats R] [--seed N] [--clock cpu|wall]

Measured, with the same Python loop for both engines (at a chance node sample an outcome,
otherwise pick uniformly among the legal actions, apply; until the game is over):

- whole single-round games of the `openspiel` preset with 1 and with 5 dice each, and
  OpenSpiel's `liars_dice` with `numdice` 1 and 5, and the ratio ours / OpenSpiel. Ours is
  measured twice: the checked path (`GameState`: immutable states, every action validated,
  events built) and the fast path (`FastRound`: dense integer actions, mutable, unchecked, the
  same rules; tests/test_fast.py plays the two side by side);
- whole games of `perudo` with 4 and 6 players (ours only: OpenSpiel has no multi-round perudo);
- the same `openspiel` games through our PettingZoo environment (`liarsdice.pettingzoo.env`),
  driven the way PettingZoo documents (`agent_iter`, `last`, a random legal action from the
  action mask, `step`), if it is importable. Its steps are the agents' actions (chance is inside
  `step`), and `steps/s` is the figure to compare with other environments;
- the loop alone: the fast path's loop driving an engine whose methods do nothing, four steps a
  game. No engine driven from this loop can be faster, so it bounds the ratios (1 die).

Each loop is the one a Python user writes for that engine: ours takes `sample_chance(rng)`, the
API's way to draw luck; OpenSpiel's draws from `chance_outcomes()` by their probabilities in a
few lines of Python, faster than the `np.random.choice` of OpenSpiel's own examples.

The machine is noisy, so the measurements are interleaved: each repetition runs every
measurement once for S seconds, in turn, and the table reports the median over the R
repetitions (with the lowest and highest). Time is the process's CPU time by default: every
engine here runs in this one thread (OpenSpiel's C++ included), and on a shared machine the
wall clock also counts the time other processes hold the CPU, which moved the ratios by a third
between runs; `--clock wall` measures wall time. Nothing here is asserted; it prints figures.
"""

from __future__ import annotations

import argparse
import platform
import random
import shlex
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from importlib import metadata
from typing import Any

from liarsdice.rules import Game, preset_options
from liarsdice.rules.fast import FastRound

try:
    import pyspiel
except ImportError:  # the script still measures ours
    pyspiel = None

try:
    import numpy as np

    from liarsdice.pettingzoo import env as pettingzoo_env
except ImportError:  # pettingzoo (or gymnasium) not installed
    pettingzoo_env = None


def play_ours(game: Game, rng: random.Random) -> int:
    """One random game of ours; returns the number of actions applied (chance included)."""
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal:
        if state.is_chance:
            action: Any = state.sample_chance(rng)
        else:
            legal = state.legal_actions()
            action = legal[int(rng.random() * len(legal))]
        state, _ = state.apply(action)
        steps += 1
    return steps


def play_fast(fast: FastRound, rng: random.Random) -> int:
    """One random game on the fast path; returns the number of actions applied (chance included)."""
    fast.reset()
    steps = 0
    while not fast.is_terminal():
        if fast.is_chance():
            fast.deal_random(rng)
        else:
            legal = fast.legal_actions()
            fast.apply(legal[int(rng.random() * len(legal))])
        steps += 1
    fast.returns()
    return steps


class LoopOnly:
    """FastRound's interface doing nothing: a deal, three actions, over (the loop's own cost)."""

    __slots__ = ("_steps", "_legal")

    def __init__(self) -> None:
        self._steps = 0
        self._legal = (0, 1, 2)

    def reset(self) -> None:
        self._steps = 0

    def is_terminal(self) -> bool:
        return self._steps >= 4

    def is_chance(self) -> bool:
        return self._steps == 0

    def deal_random(self, rng: random.Random) -> None:
        self._steps = 1

    def legal_actions(self) -> tuple[int, ...]:
        return self._legal

    def apply(self, action: int) -> None:
        self._steps += 1

    def returns(self) -> list[float]:
        return [0.0, 0.0]


def play_loop_only(loop: LoopOnly, rng: random.Random) -> int:
    """play_fast's loop, for LoopOnly. A copy, not play_fast itself: CPython specialises each
    call site for the type it sees, and a site that sees two types runs slower for both."""
    loop.reset()
    steps = 0
    while not loop.is_terminal():
        if loop.is_chance():
            loop.deal_random(rng)
        else:
            legal = loop.legal_actions()
            loop.apply(legal[int(rng.random() * len(legal))])
        steps += 1
    loop.returns()
    return steps


def play_pettingzoo(env: Any, rng: random.Random) -> int:
    """One random game through the PettingZoo AEC API; returns the number of actions taken."""
    env.reset(seed=int(rng.random() * 2**31))
    steps = 0
    for _agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)  # PettingZoo steps every finished agent once with None
            continue
        legal = np.flatnonzero(observation["action_mask"])
        env.step(int(legal[int(rng.random() * len(legal))]))
        steps += 1
    return steps


def play_openspiel(game: Any, rng: random.Random) -> int:
    """One random game of OpenSpiel's; returns the number of actions applied (chance included)."""
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            u = rng.random()
            action = outcomes[-1][0]
            for outcome, p in outcomes:
                u -= p
                if u < 0:
                    action = outcome
                    break
        else:
            legal = state.legal_actions()
            action = legal[int(rng.random() * len(legal))]
        state.apply_action(action)
        steps += 1
    return steps


@dataclass
class Measurement:
    label: str
    engine: str
    play: Callable[[random.Random], int]
    rates: list[float] = field(default_factory=list)
    step_rates: list[float] = field(default_factory=list)
    steps: int = 0
    games: int = 0

    def run(self, seconds: float, rng: random.Random, clock: Callable[[], float] = time.process_time) -> None:
        # The clock is read between batches of games, not after each: reading the CPU clock is
        # a system call of about a microsecond, as long as a whole game on the fast path. A
        # batch doubles while it takes under 2 ms, so the reads cost well under 0.1%.
        play = self.play
        games = steps = 0
        batch = 1
        start = clock()
        deadline = start + seconds
        now = start
        while now < deadline or games == 0:
            for _ in range(batch):
                steps += play(rng)
            games += batch
            before, now = now, clock()
            if now - before < 0.002:
                batch *= 2
        self.rates.append(games / (now - start))
        self.step_rates.append(steps / (now - start))
        self.games += games
        self.steps += steps


def measurements() -> list[Measurement]:
    out: list[Measurement] = []
    for dice in (1, 5):
        ours = Game(preset_options("openspiel", {"dice_per_player": dice}))
        label = f"openspiel, {dice} {'die' if dice == 1 else 'dice'} each"
        out.append(Measurement(label, "liarsdice", partial(play_ours, ours)))
        out.append(Measurement(label, "fast path", partial(play_fast, FastRound(ours))))
        if pyspiel is not None:
            theirs = pyspiel.load_game("liars_dice", {"numdice": dice})
            out.append(Measurement(label, "OpenSpiel", partial(play_openspiel, theirs)))
        if pettingzoo_env is not None:
            env = pettingzoo_env(preset="openspiel", dice_per_player=dice)
            out.append(Measurement(label, "PettingZoo", partial(play_pettingzoo, env)))
        if dice == 1:
            out.append(Measurement(label, "loop alone", partial(play_loop_only, LoopOnly())))
    for players in (4, 6):
        ours = Game(preset_options("perudo", {"num_players": players}))
        label = f"perudo, {players} players, whole games"
        out.append(Measurement(label, "liarsdice", partial(play_ours, ours)))
    return out


def version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement and repetition (1.0)")
    parser.add_argument("--repeats", type=int, default=5, help="interleaved repetitions; the median is shown (5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random playouts (0)")
    parser.add_argument(
        "--clock", choices=("cpu", "wall"), default="cpu", help="CPU time of this process (cpu) or wall time"
    )
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeats < 1:
        parser.error("--seconds must be above 0 and --repeats at least 1")

    command = shlex.join([sys.executable, *sys.argv]) if argv is None else shlex.join(argv)
    print(f"command: {command}")
    print(
        f"python {platform.python_version()} ({platform.python_implementation()}), {platform.machine()}, "
        f"liarsdice {version('liarsdice')}, open_spiel {version('open_spiel') if pyspiel else 'not importable'}"
    )
    if pyspiel is None:
        print("OpenSpiel is not installed (import pyspiel failed): measuring ours only.")
    if pettingzoo_env is None:
        print("The PettingZoo environment is not importable (pettingzoo, gymnasium): not measured.")
    todo = measurements()
    total = args.seconds * args.repeats * len(todo)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(
        f"{len(todo)} measurements x {args.repeats} repetitions x {args.seconds:g} s of "
        f"{'CPU' if args.clock == 'cpu' else 'wall'} time, interleaved (~{total:.0f} s or more)",
        flush=True,
    )
    for rep in range(args.repeats):
        for i, m in enumerate(todo):
            m.run(args.seconds, random.Random(args.seed * 1000 + rep * 100 + i), clock)
        print(f"  repetition {rep + 1}/{args.repeats} done", flush=True)

    print()
    header = (
        f"{'benchmark':<34} {'engine':<10} {'games/s (median)':>17} {'min':>10} {'max':>10} {'steps/game':>11} "
        f"{'steps/s (median)':>17}"
    )
    print(header)
    print("-" * len(header))
    medians: dict[tuple[str, str], float] = {}
    for m in todo:
        median = statistics.median(m.rates)
        medians[(m.label, m.engine)] = median
        print(
            f"{m.label:<34} {m.engine:<10} {median:>17,.0f} {min(m.rates):>10,.0f} {max(m.rates):>10,.0f} "
            f"{m.steps / m.games:>11.1f} {statistics.median(m.step_rates):>17,.0f}"
        )
    print("steps/game counts chance steps: OpenSpiel rolls each die as its own chance node, ours one Roll per round.")
    if pettingzoo_env is not None:
        print("PettingZoo's steps are the agents' actions only: its chance happens inside step().")
    if pyspiel is not None:
        print()
        for label in dict.fromkeys(m.label for m in todo):
            if (label, "OpenSpiel") in medians:
                for engine in ("liarsdice", "fast path", "loop alone"):
                    if (label, engine) not in medians:
                        continue
                    ratio = medians[(label, engine)] / medians[(label, "OpenSpiel")]
                    print(f"ratio {engine}/OpenSpiel, {label}: {ratio:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
