"""The ladder of bot levels, measured: does each level beat the one below it, in every preset?

    python benchmarks/levels.py [--games 500] [--chunk 25] [--seed 1] [--presets perudo,soar,...]
        [--pairs Casual,Skilled,Expert,Master]

For every preset and every level above the weakest (`--pairs` names the upper level of each pair),
the level plays heads-up against the one below it (`liarsdice.levels.LADDER`): whole games of the
preset with two players, seats alternated and every game and bot seeded as the arena seeds them,
so a cell is the same games as

    liarsdice arena --bots UPPER,LOWER --preset PRESET --games N --seed S --no-records --workers 1

The pairs are played side by side, `--chunk` games of each in turn, so that a busy machine slows
them all alike, and in this process (one core). Each cell is the upper level's win rate (a game's
win; openspiel is one round, so there the winner of the liar call) with a Wilson 95% interval,
then whether it beats the level below (the interval above 0.5), loses to it (below) or the games
do not tell them apart. The Master level trains and solves small duels the first time it meets
them (in the data directory: `$LIARSDICE_DATA`), which its first games pay for. Nothing is
asserted; it prints figures.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import sys
import time
from collections import defaultdict

from liarsdice.arena import ArenaConfig, make_spec, play_games
from liarsdice.arena.stats import wilson, win_shares
from liarsdice.levels import LADDER, Level
from liarsdice.rules import PRESETS, preset_options


def pairs_named(names: str) -> list[tuple[Level, Level]]:
    """(upper, lower) for each upper level named, in ladder order."""
    wanted = {n.strip().lower() for n in names.split(",") if n.strip()}
    pairs = [(LADDER[i], LADDER[i - 1]) for i in range(1, len(LADDER))]
    unknown = wanted - {upper.key for upper, _ in pairs}
    if unknown:
        uppers = ", ".join(upper.name for upper, _ in pairs)
        raise SystemExit(f"--pairs names upper levels ({uppers}), not {', '.join(sorted(unknown))}")
    return [(u, lo) for u, lo in pairs if not wanted or u.key in wanted]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=500, help="games per preset and pair")
    parser.add_argument("--chunk", type=int, default=25, help="games of one pair before the next pair's turn")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--pairs", default="", help="upper levels of the pairs to play (default: every one)")
    args = parser.parse_args(argv)
    presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    pairs = pairs_named(args.pairs)

    print("$ python " + " ".join(shlex.quote(a) for a in [sys.argv[0], *(argv or sys.argv[1:])]))
    print(f"python {platform.python_version()} on {platform.machine()}; heads-up, {args.games} games a cell")
    specs = {}
    for preset in presets:
        for upper, lower in pairs:
            config = ArenaConfig(
                preset=preset,
                options=preset_options(preset, {"num_players": 2}),
                lineup=(upper.bot, lower.bot),
                games=args.games,
                seed=args.seed,
                records=False,
            )
            specs[preset, upper.key] = make_spec(config, None)
    wins: dict[tuple[str, str], float] = defaultdict(float)
    played: dict[tuple[str, str], int] = defaultdict(int)
    cpu: dict[tuple[str, str], float] = defaultdict(float)
    for start in range(1, args.games + 1, args.chunk):
        numbers = range(start, min(start + args.chunk, args.games + 1))
        for key, spec in specs.items():
            began = time.process_time()
            for row in play_games(spec, numbers):
                wins[key] += win_shares(row.places)[row.seating.index(0)]  # entry 0: the upper level
                played[key] += 1
            cpu[key] += time.process_time() - began
        print(f"  {numbers[-1]} of {args.games} games a cell", file=sys.stderr, flush=True)

    header = ["preset", *(f"{u.name} vs {lo.name}" for u, lo in pairs)]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    verdicts: list[str] = []
    for preset in presets:
        cells = []
        for upper, lower in pairs:
            key = (preset, upper.key)
            n = played[key]
            low, high = wilson(wins[key], n)
            rate = wins[key] / n
            cells.append(f"{rate:.3f} [{low:.3f}, {high:.3f}]")
            if low <= 0.5:
                told = "loses to" if high < 0.5 else "is not told apart from"
                verdicts.append(f"{preset}: {upper.name} {told} {lower.name} ({rate:.3f} [{low:.3f}, {high:.3f}])")
        print(f"| {preset} | " + " | ".join(cells) + " |")
    total = sum(cpu.values())
    by_pair = ", ".join(f"{u.name} vs {lo.name} {sum(cpu[p, u.key] for p in presets):.0f} s" for u, lo in pairs)
    print(f"CPU: {total:.0f} s ({by_pair})")
    if verdicts:
        print("Not beaten from below:")
        for line in verdicts:
            print("  " + line)
    else:
        print("Every level beats the one below it in every preset measured.")


if __name__ == "__main__":
    main()
