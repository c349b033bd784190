"""Decision times of the bots: how long one `act` takes, from real games, per preset.

    python benchmarks/bots.py [--players 6] [--dice 5] [--decisions 1500] [--seed 0]
        [--bots strong,probability] [--presets jokers,soar,...]

For each preset, whole games are played at a table of `--players` seats with `--dice` dice each
(the bots under test take turns at the seats, so each meets the others' bids, pushes and
passes), until every bot has made `--decisions` decisions in that preset. Every call of `act` is
timed with `time.perf_counter` around the call alone (the engine's work to build the view is not
counted). The table gives p50, p99 and the maximum in milliseconds per preset and bot. The
machine may be noisy, so the presets are played in interleaved rounds of a few games each.
Nothing is asserted; it prints figures.

The `duel` bot plays its trained strategy in two-player rounds only; time it there, e.g. in
5 vs 5 rounds of the `openspiel` preset (top wild) after `liarsdice train --dice 5 5 --wild top`:

    python benchmarks/bots.py --bots duel --players 2 --presets openspiel
"""

from __future__ import annotations

import argparse
import platform
import shlex
import sys
import time
from collections import defaultdict

from liarsdice.bots import Bot, Limit
from liarsdice.match import play_game
from liarsdice.players import make_bot
from liarsdice.rules import PRESETS, Action, Game, PlayerView, preset_options


class Timed:
    """A bot whose every decision is timed into `times`."""

    def __init__(self, bot: Bot, times: list[float]) -> None:
        self.bot = bot
        self.times = times

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        started = time.perf_counter()
        action = self.bot.act(view, limit)
        self.times.append(time.perf_counter() - started)
        return action


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=6)
    parser.add_argument("--dice", type=int, default=5)
    parser.add_argument("--decisions", type=int, default=1500, help="decisions per bot and preset, at least")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bots", default="strong,probability")
    parser.add_argument("--presets", default=",".join(PRESETS))
    args = parser.parse_args(argv)
    levels = args.bots.split(",")
    presets = args.presets.split(",")

    print("$ python " + " ".join(shlex.quote(a) for a in [sys.argv[0], *(argv or sys.argv[1:])]))
    print(f"python {platform.python_version()} on {platform.machine()}, {args.players} players x {args.dice} dice")
    times: dict[tuple[str, str], list[float]] = defaultdict(list)
    games = {p: Game(preset_options(p, {"num_players": args.players, "dice_per_player": args.dice})) for p in presets}
    played = dict.fromkeys(presets, 0)

    def done(preset: str) -> bool:
        return all(len(times[(preset, level)]) >= args.decisions for level in levels)

    while not all(done(p) for p in presets):
        for preset in presets:
            if done(preset):
                continue
            for _ in range(2):
                g = played[preset]
                played[preset] += 1
                agents = [
                    Timed(
                        make_bot(levels[(s + g) % len(levels)], 1000 * g + s),
                        times[(preset, levels[(s + g) % len(levels)])],
                    )
                    for s in range(args.players)
                ]
                play_game(games[preset], agents, seed=args.seed + g)

    print(f"{'preset':<14}{'bot':<13}{'decisions':>10}{'p50 ms':>9}{'p99 ms':>9}{'max ms':>9}   games")
    for preset in presets:
        for level in levels:
            t = times[(preset, level)]
            print(
                f"{preset:<14}{level:<13}{len(t):>10}{1000 * percentile(t, 50):>9.2f}"
                f"{1000 * percentile(t, 99):>9.2f}{1000 * max(t):>9.2f}   {played[preset]}"
            )
    for level in levels:
        t = [x for (p, lv), ts in times.items() if lv == level for x in ts]
        print(
            f"{'all':<14}{level:<13}{len(t):>10}{1000 * percentile(t, 50):>9.2f}"
            f"{1000 * percentile(t, 99):>9.2f}{1000 * max(t):>9.2f}"
        )


if __name__ == "__main__":
    main()
