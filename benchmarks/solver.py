"""How fast the solver reaches exploitability 1e-3, beside OpenSpiel's C++ CFRPlusSolver.

    python benchmarks/solver.py [--pairs N] [--big]

1. One die each, six faces, the top face wild, quantity-major: OpenSpiel's `liars_dice`. N rounds,
   each of three runs from scratch to exploitability <= 1e-3, one straight after the other so that
   both sides meet the same load of the machine: OpenSpiel's `CFRPlusSolver`, then our CFR+, then
   our DCFR. Ours are timed whole (tree, iterations, and the exact exploitability after every
   iteration). OpenSpiel is timed on its `evaluate_and_update_policy` calls alone (in its favour):
   after every iteration its average policy is loaded into our exact best response, untimed, to
   find the first iteration at 1e-3; in the first round OpenSpiel's own `exploitability` confirms
   the figure there. Each round's ratios (OpenSpiel's seconds over ours) are printed, then the
   medians of the ratios: the figures to quote.
2. With --big: two dice against one and one against two (3.5 million information sets), DCFR to
   1e-3, each in a child process: time and peak memory (maximum resident set size). About two
   minutes each, 600 MiB.

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
from dataclasses import dataclass
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


@dataclass
class OpenSpielRun:
    iterations: int
    seconds: float  # its evaluate_and_update_policy calls only
    exploitability: float  # of its average policy, by our exact best response
    confirmed: float | None  # by pyspiel.exploitability, when asked for
    confirm_seconds: float


def openspiel_run(pyspiel: Any, loader: PolicyLoader, confirm: bool) -> OpenSpielRun:
    """OpenSpiel's CFRPlusSolver from scratch to TARGET, its updates timed and nothing else."""
    game = pyspiel.load_game("liars_dice")
    solver = pyspiel.CFRPlusSolver(game)
    timed = 0.0
    iteration = 0
    exploitability = float("inf")
    while exploitability > TARGET and iteration < 5000:
        start = time.perf_counter()
        solver.evaluate_and_update_policy()
        timed += time.perf_counter() - start
        iteration += 1
        exploitability = loader.exploitability(solver.tabular_average_policy().policy_table())
    confirmed, confirm_seconds = None, 0.0
    if confirm:
        start = time.perf_counter()
        confirmed = pyspiel.exploitability(game, solver.average_policy())
        confirm_seconds = time.perf_counter() - start
    return OpenSpielRun(iteration, timed, exploitability, confirmed, confirm_seconds)


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
    parser.add_argument("--pairs", type=int, default=3, help="rounds of OpenSpiel, our CFR+, our DCFR (3)")
    parser.add_argument("--big", action="store_true", help="also two dice against one and one against two")
    args = parser.parse_args(argv)
    if args.pairs < 1:
        parser.error(f"--pairs must be at least 1, not {args.pairs}")
    command = shlex.join([sys.executable, *sys.argv]) if argv is None else shlex.join(argv)
    print(f"command: {command}")
    print(f"python {platform.python_version()}, {platform.machine()}")

    start = time.perf_counter()
    FastSolver(Tree(GameSpec.from_options(preset_options("openspiel", {"faces": 2}), (1, 1))), "cfr+").iterate()
    print(f"numba: compiled or loaded from its cache in {time.perf_counter() - start:.2f} s (not counted below)")

    try:
        import pyspiel
    except ImportError:
        pyspiel = None
    print("\none die each, six faces, top face wild (OpenSpiel's liars_dice), to exploitability 1e-3:")
    if pyspiel is None:
        print("  OpenSpiel is not installed: ours alone")
    loader = PolicyLoader(Tree(GameSpec.from_options(preset_options("openspiel"), (1, 1))))
    theirs: list[OpenSpielRun] = []
    mine: dict[str, list[tuple[int, float, float]]] = {"cfr+": [], "dcfr": []}
    ratios: dict[str, list[float]] = {"cfr+": [], "dcfr": []}
    for n in range(args.pairs):
        line = f"  round {n + 1}:"
        if pyspiel is not None:
            run = openspiel_run(pyspiel, loader, confirm=n == 0)
            theirs.append(run)
            line += f" OpenSpiel CFR+ {run.seconds:6.2f} s ({run.iterations} it)"
        for algorithm in ("cfr+", "dcfr"):
            iterations, seconds, exploitability = ours(algorithm, (1, 1))
            mine[algorithm].append((iterations, seconds, exploitability))
            line += f"  liarsdice {algorithm.upper()} {seconds:5.2f} s ({iterations} it"
            if pyspiel is not None:
                ratios[algorithm].append(theirs[-1].seconds / seconds)
                line += f", {ratios[algorithm][-1]:4.0f}x"
            line += ")"
        print(line, flush=True)

    print(f"  medians of {args.pairs} rounds:")
    if theirs:
        first = theirs[0]
        iterations = sorted({r.iterations for r in theirs})
        print(
            f"    OpenSpiel CFRPlusSolver  {'/'.join(map(str, iterations))} iterations  "
            f"{statistics.median(r.seconds for r in theirs):7.2f} s  (update time only; exploitability "
            f"{first.exploitability:.6f} by ours, {first.confirmed:.6f} by pyspiel.exploitability, "
            f"which took {first.confirm_seconds:.1f} s once)"
        )
    for algorithm, runs in mine.items():
        iterations = sorted({r[0] for r in runs})
        line = (
            f"    liarsdice {algorithm.upper():5}          {'/'.join(map(str, iterations))} iterations  "
            f"{statistics.median(r[1] for r in runs):7.2f} s  (exploitability {runs[0][2]:.6f})"
        )
        if ratios[algorithm]:
            line += (
                f"  speed-up over OpenSpiel: median {statistics.median(ratios[algorithm]):.0f}x "
                f"(rounds {', '.join(f'{r:.0f}x' for r in ratios[algorithm])})"
            )
        print(line)

    if args.big:
        print("\nDCFR to exploitability 1e-3, each in its own process:")
        for dice in ((2, 1), (1, 2)):
            r = big(dice)
            print(
                f"  {dice[0]} vs {dice[1]} dice: {r['infosets']:,} information sets, {r['iterations']} iterations, "
                f"{r['seconds']:.1f} s, exploitability {r['exploitability']:.6f}, value {r['value']:+.5f}, "
                f"peak memory {r['peak_mib']:.0f} MiB",
                flush=True,
            )
    print(f"\nthis process's peak memory: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
