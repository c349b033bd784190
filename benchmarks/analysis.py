"""The analysis measured: how often the best bot's own moves in self-play are marked, per preset
and table size, and how long one game of six players with five dice each takes to analyse.

    python benchmarks/analysis.py [--games 40] [--presets perudo,classic,...] [--players 2,3,6]
        [--dice 0] [--seed 1] [--timing-games 3]

For each preset and table size, `--games` games are played by the `duel` level (Master, the best
bot) in every seat, each analysed by `liarsdice.review.analyse`; the figures are the decisions,
how many were judged (and how many by the exact duel strategy), how many of the judged were
marked inaccuracy, mistake or blunder, and the blunder rate with its Wilson 95% upper bound (the
target: under 1 in 500). `--dice 0` plays each preset's own dice; another number sets every
cup's. Then `--timing-games` games of six players with five dice each (perudo) are analysed in
this process (one core) and the seconds of each printed (the target: under 10 s). Nothing is
asserted; it prints figures.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections import Counter
from typing import Any

from liarsdice.arena.stats import wilson
from liarsdice.bots import make_builtin
from liarsdice.match import play_game
from liarsdice.review import THRESHOLDS, analyse
from liarsdice.rules import Game, preset_options


def self_play(preset: str, players: int, dice: int, seed: int) -> dict[str, Any]:
    overrides: dict[str, Any] = {"num_players": players}
    if dice:
        overrides["dice_per_player"] = dice
    game = Game(preset_options(preset, overrides))
    bots = [make_builtin("duel", seed=seed * 100 + s) for s in range(players)]
    _, recorder = play_game(game, bots, seed=seed, preset=preset)
    return recorder.to_json()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--presets", default="perudo,classic,openspiel,red-dead,jokers,soar,tavern")
    ap.add_argument("--players", default="2,3,6")
    ap.add_argument("--dice", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timing-games", type=int, default=3)
    args = ap.parse_args()
    print(f"python {platform.python_version()} on {platform.machine()}; thresholds {THRESHOLDS}")
    print(" ".join(sys.argv))
    total: Counter[str] = Counter()
    blunders_seen = []
    for preset in args.presets.split(","):
        for players in (int(p) for p in args.players.split(",")):
            if preset == "openspiel" and players != 2:
                continue  # a one-round game of two
            counts: Counter[str] = Counter()
            for g in range(args.games):
                record = self_play(preset, players, args.dice, args.seed + g)
                analysis = analyse(record)
                for d in analysis.decisions:
                    counts["decisions"] += 1
                    if d.judged:
                        counts["judged"] += 1
                        counts[f"source {d.source}"] += 1
                        if d.mark is not None:
                            counts[d.mark] += 1
                        if d.mark == "blunder":
                            blunders_seen.append((preset, players, args.seed + g, d.step, d.move, d.best, d.loss))
            total.update(counts)
            judged = counts["judged"]
            _, high = wilson(counts["blunder"], judged) if judged else (0.0, 1.0)
            print(
                f"{preset:>9} {players}p: {counts['decisions']:5d} decisions, {judged:5d} judged "
                f"({counts['source exact']} exact), inaccuracy {counts['inaccuracy']}, mistake {counts['mistake']}, "
                f"blunder {counts['blunder']} (rate {counts['blunder'] / max(judged, 1):.4f}, 95% upper {high:.4f})"
            )
    judged = total["judged"]
    _, high = wilson(total["blunder"], judged) if judged else (0.0, 1.0)
    print(
        f"all: {total['decisions']} decisions, {judged} judged ({total['source exact']} exact), "
        f"inaccuracy {total['inaccuracy']}, mistake {total['mistake']}, blunder {total['blunder']} "
        f"(rate {total['blunder'] / max(judged, 1):.5f}, 95% upper {high:.5f}; target < 0.002)"
    )
    for seen in blunders_seen[:20]:
        print("  blunder:", seen)
    for g in range(args.timing_games):
        record = self_play("perudo", 6, 5, 1000 + g)
        started = time.process_time()
        analysis = analyse(record)
        seconds = time.process_time() - started
        print(
            f"6 players x 5 dice (perudo, seed {1000 + g}): "
            f"{len(analysis.decisions)} decisions analysed in {seconds:.2f} s CPU"
        )


if __name__ == "__main__":
    main()
