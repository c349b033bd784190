"""Seconds an iteration of the duel trainer, per size of the plan, on one core (or more).

Each size is timed in a process of its own (the graph built and one iteration run first, then
`--iterations` timed), with the plan's k and hands sampled, ones wild:

    python benchmarks/training.py                      # every size of the plan
    python benchmarks/training.py --sizes 3v3 5v5 --iterations 20

With `--against REV`, the trainer of that git revision (its `src/`, from `git archive`) is timed
too, the two in turn (ours, theirs, ours, theirs, ...) `--pairs` times a size, and the median of
the pairs' ratios is printed: how many times faster ours is. With `--threads 2 1`, ours is timed
on two threads and on one, in turn, and the median of the pairs' ratios is how many times faster
two threads train (the machine's other work shows in it: pause what runs beside it):

    python benchmarks/training.py --sizes 3v3 5v5 --threads 2 1 --pairs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]


def child(size: str, iterations: int, threads: int) -> None:
    """Time `iterations` iterations of one size; print the seconds an iteration as JSON."""
    from liarsdice.duel import game_for
    from liarsdice.duel.dcfr import Trainer
    from liarsdice.duel.plan import SIZES
    from liarsdice.rules import preset_options

    a, b = (int(x) for x in size.split("v"))
    k, _, sample, _, _ = SIZES[(min(a, b), max(a, b))]
    game = game_for(preset_options("classic", {"wild_face": 1}), (a, b), k)
    more = {} if threads == 1 else {"threads": threads}  # an older trainer has no threads
    trainer = Trainer(game, sample=sample, seed=1, **more)
    trainer.run(iterations=1)  # compiled and warm
    started = time.perf_counter()
    trainer.run(iterations=iterations)
    print(json.dumps({"seconds": (time.perf_counter() - started) / iterations}))


def timed(src: Path, size: str, iterations: int, threads: int = 1) -> float:
    env = {**os.environ, "PYTHONPATH": str(src)}
    more = [] if threads == 1 else ["--threads", str(threads)]  # an older trainer has one thread only
    done = subprocess.run(
        [sys.executable, __file__, "--child", size, "--iterations", str(iterations), *more],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return float(json.loads(done.stdout.splitlines()[-1])["seconds"])


def archive(rev: str, into: Path) -> Path:
    data = subprocess.run(["git", "archive", rev, "src"], cwd=HERE, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="+", default=None, help="sizes like 3v3 (default: every size of the plan)")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--against", metavar="REV", help="a git revision whose trainer is timed in turn with ours")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument(
        "--threads", nargs="+", type=int, default=[1], help="ours on these many threads (two counts: timed in turn)"
    )
    parser.add_argument("--child", metavar="SIZE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.iterations, args.threads[0])
        return
    if len(args.threads) > 2 or min(args.threads) < 1 or (args.against and len(args.threads) > 1):
        parser.error("--threads takes one count, or two to time against each other (not with --against)")
    from liarsdice.duel.plan import SIZES

    sizes = args.sizes or [f"{a}v{b}" for a, b in SIZES]
    ours = HERE / "src"
    with tempfile.TemporaryDirectory() as tmp:
        theirs = archive(args.against, Path(tmp)) if args.against else None
        mine = args.threads[0]
        if len(args.threads) == 2:
            other = f"{args.threads[1]} threads"
            print(f"| size | {mine} thread(s) (s) | {other} (s) | ratio, median of {args.pairs} pairs |")
            print("|---|---|---|---|")
        elif theirs is None:
            print("| size | seconds an iteration |\n|---|---|")
        else:
            print(f"| size | ours (s) | {args.against} (s) | ratio, median of {args.pairs} pairs |\n|---|---|---|---|")
        for size in sizes:
            if theirs is None and len(args.threads) == 1:
                print(f"| {size} | {timed(ours, size, args.iterations, mine):.3f} |", flush=True)
                continue
            src, threads = (theirs, 1) if theirs is not None else (ours, args.threads[1])
            pairs = []
            for _ in range(args.pairs):  # in turn: a drift of the machine's speed falls on both
                pairs.append((timed(ours, size, args.iterations, mine), timed(src, size, args.iterations, threads)))
            a = statistics.median(p[0] for p in pairs)
            b = statistics.median(p[1] for p in pairs)
            # above 1: the first (ours, or ours on --threads' first count) is faster
            ratio = statistics.median(t / o for o, t in pairs)
            print(f"| {size} | {a:.3f} | {b:.3f} | {ratio:.2f} |", flush=True)


if __name__ == "__main__":
    main()
