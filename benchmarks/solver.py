"""How fast the solver reaches exploitability 1e-3, beside OpenSpiel's C++ CFRPlusSolver.

    python benchmarks/solver.py [--runs R] [--skip-big]

1. One die each, six faces, the top face wild, quantity-major: OpenSpiel's `liars_dice`. Our CFR+
   and DCFR (compiled, exploitability computed exactly after every iteration, included in the
   time) until exploitability <= 1e-3, median of R runs; and OpenSpiel's `CFRPlusSolver` in the
   same run, timing only its `evaluate_and_update_policy` calls (in its favour): after every
   iteration its average policy is loaded into our exact best response, untimed, to find the
   first iteration at 1e-3, and there OpenSpiel's own `exploitability` confirms the figure.
2. Two dice against one and one against two (3.5 million information sets), DCFR to 1e-3, each
   in a child process: time and peak memory (maximum resident set size).

Prints figures; asserts nothing. numba compiles once per machine (cached); the time of the first
compile is printed apart.
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import shlex
import statistics
import subprocess
import sys
import time
from typing import Any

from liarsdice.rules import Bid, preset_options
from liarsdice.solver import solve
from liarsdice.solver.fast import FastSolver
from liarsdice.solver.tree import GameSpec, Tree

TARGET = 1e-3


def ours(algorithm: str, dice: tuple[int, int]) -> tuple[int, float, float]:
    solution = solve(preset_options("openspiel"), dice, algorithm=algorithm, target=TARGET)  # type: ignore[arg-type]
    return solution.iterations, solution.seconds, solution.exploitability


class PolicyLoader:
    """Puts an OpenSpiel tabular policy of liars_dice into a FastSolver's average strategy."""

    def __init__(self, tree: Tree) -> None:
        self.solver = FastSolver(tree, "cfr+")
        faces = tree.spec.faces
        q_max = sum(tree.spec.dice)
        self.plan: dict[str, list[tuple[Any, int, int, int]]] = {}
        self.q_max, self.faces = q_max, faces
        self.tree = tree

    def entries(self, info: str) -> list[tuple[Any, int, int, int]]:
        """(array, row, hand, action id) for every action of an information state."""
        plan = self.plan.get(info)
        if plan is not None:
            return plan
        tree, solver = self.tree, self.solver
        dice, *said = info.split(" ")
        hand = tuple(sorted(int(c) for c in dice))
        bids = [Bid(int(q), int(f)) for q, f in (s.split("-") for s in said)]
        depth, index = tree.node_of([tree.spec.ladder.index[b] for b in bids])
        h = tree.hands[depth % 2].index(hand)
        row = int(solver.offsets[depth]) + index
        plan = []
        if depth > 0:
            plan.append((solver.a_liar, row, h, self.q_max * self.faces))
        level = tree.levels[depth]
        if depth + 1 < len(tree.levels):
            first = int(level.first_child[index])
            for c in range(first, first + int(level.num_children[index])):
                b = tree.spec.bids[int(tree.levels[depth + 1].last[c])]
                child_row = int(solver.offsets[depth + 1]) + c
                plan.append((solver.a_bid, child_row, h, (b.quantity - 1) * self.faces + (b.face - 1)))
        self.plan[info] = plan
        return plan

    def exploitability(self, table: dict[str, list[tuple[int, float]]]) -> float:
        for info, pairs in table.items():
            probs = dict(pairs)
            for array, row, h, action in self.entries(info):
                array[row, h] = probs.get(action, 0.0)
        return self.solver.exploitability()


def openspiel_run() -> dict[str, Any] | None:
    try:
        import pyspiel
    except ImportError:
        return None
    game = pyspiel.load_game("liars_dice")
    solver = pyspiel.CFRPlusSolver(game)
    loader = PolicyLoader(Tree(GameSpec.from_options(preset_options("openspiel"), (1, 1))))
    timed = 0.0
    iteration = 0
    exploitability = float("inf")
    while exploitability > TARGET and iteration < 5000:
        start = time.perf_counter()
        solver.evaluate_and_update_policy()
        timed += time.perf_counter() - start
        iteration += 1
        exploitability = loader.exploitability(solver.tabular_average_policy().policy_table())
    start = time.perf_counter()
    confirmed = pyspiel.exploitability(game, solver.average_policy())
    check_seconds = time.perf_counter() - start
    return {
        "iterations": iteration,
        "seconds": timed,
        "ours": exploitability,
        "theirs": confirmed,
        "theirs_seconds": check_seconds,
    }


def big(dice: tuple[int, int]) -> dict[str, Any]:
    """Solve in a child process, for its own peak memory."""
    code = (
        "import json, resource, sys; from liarsdice.rules import preset_options; from liarsdice.solver import solve;"
        f"s = solve(preset_options('openspiel'), {dice!r}, algorithm='dcfr', target={TARGET});"
        "print(json.dumps({'iterations': s.iterations, 'seconds': s.seconds, 'exploitability': s.exploitability,"
        " 'value': s.game_value, 'infosets': s.infosets,"
        " 'peak_mib': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(run.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="runs of ours on one die each; the median is shown (3)")
    parser.add_argument("--skip-big", action="store_true", help="skip two dice against one and one against two")
    args = parser.parse_args(argv)
    command = shlex.join([sys.executable, *sys.argv]) if argv is None else shlex.join(argv)
    print(f"command: {command}")
    print(f"python {platform.python_version()}, {platform.machine()}")

    start = time.perf_counter()
    FastSolver(Tree(GameSpec.from_options(preset_options("openspiel", {"faces": 2}), (1, 1))), "cfr+").iterate()
    print(f"numba: compiled or loaded from its cache in {time.perf_counter() - start:.2f} s (not counted below)")

    print("\none die each, six faces, top face wild (OpenSpiel's liars_dice), to exploitability 1e-3:")
    results: dict[str, tuple[int, float, float]] = {}
    for algorithm in ("cfr+", "dcfr"):
        runs = [ours(algorithm, (1, 1)) for _ in range(args.runs)]
        seconds = statistics.median(r[1] for r in runs)
        results[algorithm] = (runs[0][0], seconds, runs[0][2])
        print(
            f"  liarsdice {algorithm.upper():5} {runs[0][0]:5d} iterations  {seconds:8.2f} s  "
            f"(exploitability {runs[0][2]:.6f}, runs {', '.join(f'{r[1]:.2f}' for r in runs)} s)"
        )
    theirs = openspiel_run()
    if theirs is None:
        print("  OpenSpiel is not installed: no comparison")
    else:
        print(
            f"  OpenSpiel CFRPlusSolver {theirs['iterations']:5d} iterations  {theirs['seconds']:8.2f} s  "
            f"(update time only; exploitability {theirs['ours']:.6f} by ours, {theirs['theirs']:.6f} by "
            f"pyspiel.exploitability, which took {theirs['theirs_seconds']:.1f} s once)"
        )
        for algorithm, (_, seconds, _) in results.items():
            print(f"  speed-up of liarsdice {algorithm.upper()} over OpenSpiel: {theirs['seconds'] / seconds:.1f}x")

    if not args.skip_big:
        print("\nDCFR to exploitability 1e-3, each in its own process:")
        for dice in ((2, 1), (1, 2)):
            r = big(dice)
            print(
                f"  {dice[0]} vs {dice[1]} dice: {r['infosets']:,} information sets, {r['iterations']} iterations, "
                f"{r['seconds']:.1f} s, exploitability {r['exploitability']:.6f}, value {r['value']:+.5f}, "
                f"peak memory {r['peak_mib']:.0f} MiB"
            )
    print(f"\nthis process's peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
