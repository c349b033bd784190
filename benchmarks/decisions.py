"""CPU time of a bot's decisions in seeded games, and whether another revision makes the same moves.

    python benchmarks/decisions.py --level strong --presets soar,tavern --players 2 --games 10
    python benchmarks/decisions.py --level strong --presets soar --against 966165e --pairs 3

Whole games of each preset are played with the level in every seat, `--dice` dice a player, each
game and bot seeded, and every call of `act` timed in CPU time of its process
(`time.process_time`): a busy machine slows a decision's wall time but much less the CPU time it
takes, so these figures are the bot's own cost (`benchmarks/bots.py` gives wall times). The table
gives p50 and p99 in milliseconds per preset.

With `--against REV`, the bots of that git revision (its `src/`, from `git archive`) play the same
games too, the two in turn (ours, theirs, ours, ...) `--pairs` times, each pair on its own games;
printed: each side's p50 and p99 (median over the pairs), the median of the pairs' ratios (theirs
/ ours: how many times less CPU ours takes), and whether both made exactly the same moves (a hash
of every move of every game).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from training import HERE, archive


def child(preset: str, level: str, players: int, dice: int, first: int, games: int) -> None:
    """Play the games; print every decision's CPU seconds and the hash of the moves, as JSON."""
    from liarsdice.match import play_game
    from liarsdice.players import make_bot
    from liarsdice.rules import Game, preset_options

    game = Game(preset_options(preset, {"num_players": players, "dice_per_player": dice}))
    times: list[float] = []
    moves = hashlib.sha256()

    class Timed:
        def __init__(self, bot: object) -> None:
            self.bot = bot

        def act(self, view: object, limit: object = None) -> object:
            started = time.process_time()
            action = self.bot.act(view, limit)  # type: ignore[attr-defined]
            times.append(time.process_time() - started)
            moves.update(repr(action).encode())
            return action

    for g in range(first, first + games):
        play_game(game, [Timed(make_bot(level, 1000 * g + s)) for s in range(players)], seed=g)
    print(json.dumps({"times": times, "moves": moves.hexdigest()}))


def played(src: Path, args: argparse.Namespace, preset: str, first: int) -> tuple[list[float], str]:
    env = {**os.environ, "PYTHONPATH": str(src)}
    command = [sys.executable, __file__, "--child", preset, "--level", args.level, "--players", str(args.players)]
    command += ["--dice", str(args.dice), "--first", str(first), "--games", str(args.games)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    out = json.loads(done.stdout.splitlines()[-1])
    return out["times"], out["moves"]


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--level", default="strong")
    parser.add_argument("--presets", default="soar,tavern,perudo")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--dice", type=int, default=5)
    parser.add_argument("--games", type=int, default=10, help="games a preset (and a pair)")
    parser.add_argument("--against", metavar="REV", help="a git revision whose bots play the same games in turn")
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--child", metavar="PRESET", help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.level, args.players, args.dice, args.first, args.games)
        return
    ours = HERE / "src"
    print(f"$ python {' '.join(sys.argv)}")
    print(f"{args.level}, {args.players} players x {args.dice} dice, {args.games} games a preset; CPU ms a decision")
    with tempfile.TemporaryDirectory() as tmp:
        theirs = archive(args.against, Path(tmp)) if args.against else None
        if theirs is None:
            print("| preset | decisions | p50 | p99 |\n|---|---|---|---|")
            for preset in args.presets.split(","):
                times, _ = played(ours, args, preset, 0)
                p50, p99 = 1000 * percentile(times, 50), 1000 * percentile(times, 99)
                print(f"| {preset} | {len(times)} | {p50:.2f} | {p99:.2f} |")
            return
        print(
            f"| preset | decisions | p50 ours / {args.against} | p99 ours / {args.against} "
            f"| ratio p50, p99 (median of {args.pairs} pairs) | same moves |\n|---|---|---|---|---|---|"
        )
        for preset in args.presets.split(","):
            pairs = []
            for i in range(args.pairs):  # in turn, each pair on games of its own
                pairs.append((played(ours, args, preset, i * args.games), played(theirs, args, preset, i * args.games)))
            cells = []
            for q in (50, 99):
                a = statistics.median(1000 * percentile(o[0], q) for o, _ in pairs)
                b = statistics.median(1000 * percentile(t[0], q) for _, t in pairs)
                cells.append((a, b, statistics.median(percentile(t[0], q) / percentile(o[0], q) for o, t in pairs)))
            same = all(o[1] == t[1] for o, t in pairs)
            count = sum(len(o[0]) for o, _ in pairs)
            print(
                f"| {preset} | {count} | {cells[0][0]:.2f} / {cells[0][1]:.2f} | {cells[1][0]:.2f} / {cells[1][1]:.2f} "
                f"| {cells[0][2]:.2f}, {cells[1][2]:.2f} | {'yes' if same else 'NO'} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
