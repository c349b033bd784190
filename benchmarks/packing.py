"""Bytes and play of a shipped strategy by bits and threshold: what `duel/plan.py` chooses from.

Trains one duel from a seed (the plan's way: DCFR, iterations, hands sampled), then packs it at
each bits x threshold and prints the file's bytes and, for games small enough to walk the full
tree (`--tree`), the exact exploitability of the strategy as packed:

    python benchmarks/packing.py --dice 3 3 --k 2 --iterations 4000
    python benchmarks/packing.py --dice 2 2 --faces 4 --k 3 --iterations 1000 --tree
    python benchmarks/packing.py --preset soar --dice 2 1 --faces 4 --k 12 --iterations 1000 --tree
    python benchmarks/packing.py --dice 3 2 --faces 4 --k 2 --iterations 1000 --tree --bits 6 \
        --thresholds 0.02 --recut 0.03 0.05 0.1

`--recut T ...` packs each bits x threshold, then cuts it again under each T (`packed.recut`, what
the plan ships from six dice in all). Where exact may be called once a game (Soar), the duel is
the one where both players still may.
"""

from __future__ import annotations

import argparse
import time

from liarsdice.duel import game_for
from liarsdice.duel.dcfr import Trainer
from liarsdice.duel.packed import pack, recut, unpack
from liarsdice.duel.strategy import DuelStrategy
from liarsdice.rules import preset_options


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="classic")
    parser.add_argument("--wild", default="1", help="1, top or none")
    parser.add_argument("--dice", type=int, nargs=2, default=(3, 3))
    parser.add_argument("--faces", type=int, default=6)
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=2000)
    parser.add_argument("--sample", type=int, default=None)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--bits", type=int, nargs="+", default=[8, 7, 6, 5])
    parser.add_argument("--thresholds", type=float, nargs="+", default=[0.005, 0.01, 0.02, 0.05])
    parser.add_argument("--recut", type=float, nargs="*", default=[], help="each packing cut again under these")
    parser.add_argument("--tree", action="store_true", help="exact exploitability on the full tree (small games)")
    args = parser.parse_args()
    wild = 1 if args.wild == "1" else args.wild
    options = preset_options(args.preset, {"num_players": 2, "faces": args.faces, "wild_face": wild})
    dice = (args.dice[0], args.dice[1])
    once = options.exact != "none" and options.exact_limit != "unlimited"
    left = (True, True) if once else None
    game = game_for(options, dice, args.k, exact_left=left)
    trainer = Trainer(game, sample=args.sample, seed=args.seed)
    started = time.perf_counter()
    trainer.run(iterations=args.iterations)
    liar0, bid0, exact0 = trainer.average(0)
    liar1, bid1, exact1 = trainer.average(1)
    trained = DuelStrategy(options, dice, args.k, [liar0, liar1], [bid0, bid1], {}, game, [exact0, exact1], left)
    print(
        f"{args.preset} wild {args.wild}, {dice[0]} vs {dice[1]} dice, {args.faces} faces, k={args.k}: "
        f"{args.iterations} iterations in {time.perf_counter() - started:.0f} s"
    )
    if args.tree:
        print(f"as trained (float): exact exploitability {trained.exact_exploitability():.5f}")
    print("| bits | threshold | recut | bytes | exact exploitability |")
    print("|---|---|---|---|---|")
    for bits in args.bits:
        for threshold in args.thresholds:
            data = pack(trained, bits, threshold)
            for cut in [None, *args.recut]:
                packed = data if cut is None else recut(data, cut)
                measured = f"{unpack(packed, graph=game).exact_exploitability():.5f}" if args.tree else ""
                shown = "" if cut is None else cut
                print(f"| {bits} | {threshold} | {shown} | {len(packed):,} | {measured} |", flush=True)


if __name__ == "__main__":
    main()
