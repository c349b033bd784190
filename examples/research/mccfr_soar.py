"""External-sampling MCCFR (OpenSpiel's own) on one small round of Soar, printing exploitability.

The game: two players, two dice against one, two-sided dice (ones wild, and twos), one round
(`rounds=single`), with Soar's wild ones and their halve / double-plus-one bids, the pass, the
challenge through a pass, and exact. The push is left out: its rerolls multiply the chance
nodes that exploitability's exact walk of the whole tree must visit (this Python game runs at
Python speed), and the example is to finish within a minute. Run it from the repository root:

    .venv/bin/python examples/research/mccfr_soar.py [--iterations 1500] [--every 500]
"""

from __future__ import annotations

import argparse
import time

import pyspiel
from open_spiel.python.algorithms import exploitability, external_sampling_mccfr

import liarsdice.openspiel  # noqa: F401  (registers python_liarsdice)

PARAMS = {"preset": "soar", "players": 2, "dice_per_seat": "2;1", "faces": 2, "rounds": "single", "push": "false"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=1500)
    parser.add_argument("--every", type=int, default=500, help="print exploitability every N iterations")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    import numpy as np

    np.random.seed(args.seed)  # the solver samples with numpy's global generator
    game = pyspiel.load_game("python_liarsdice", PARAMS)
    print(f"game: {PARAMS}")
    print(f"actions: {game.num_distinct_actions()}, max length: {game.max_game_length()}")
    solver = external_sampling_mccfr.ExternalSamplingSolver(game, external_sampling_mccfr.AverageType.SIMPLE)
    start = time.perf_counter()
    for i in range(1, args.iterations + 1):
        solver.iteration()
        if i % args.every == 0 or i == args.iterations:
            value = exploitability.exploitability(game, solver.average_policy())
            print(f"iteration {i:6d}  exploitability {value:.5f}  ({time.perf_counter() - start:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
