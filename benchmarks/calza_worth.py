"""What calza's shipped strategies give up when a die gained is worth what it does for the game.

A calza hit gains its caller a die. Trained as worth a round won, the strategy of a round at 1
against 4 undervalues it by half and the one at 1 against 1 overvalues it twice
(`duel.graph.die_gained`: by the chance of winning the game, were every later round a coin
toss). This walks the full public tree of small calza duels (`duel/walk.py`: every history, an
exact best response of each player) with the round's payoffs valued by the game, against the
strategies of two shipped directories side by side: this checkout's and another's (an older
checkout, `--against`: `git worktree add /tmp/old 17b3a0e`, the last commit whose calza
strategies valued a die gained as a round won). It prints each one's exploitability (the mean
of the two best responses' winnings a round, in the liar call's unit: a die lost by the other
player).

    python benchmarks/calza_worth.py --against /tmp/old/src/liarsdice/duel/shipped --sizes 1v1,1v2,2v1

A walk visits every history once per player: 1 vs 1 takes a second, 1 vs 2 (2^18 histories)
half a minute; 2 vs 2 (2^24) is out of reach.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from liarsdice.duel import shipped
from liarsdice.duel.walk import best_responses


def exploitability(directory: Path, dice: tuple[int, int]) -> tuple[float, float, str | None]:
    """(player 0's best response, player 1's, how the file's own game values a die gained) for the
    calza strategy of `dice` shipped in `directory`, walked under this checkout's payoffs."""
    for artifact in shipped.read_manifest(directory):
        if artifact.variant == "calza" and artifact.dice == dice:
            strategy = shipped.load_artifact(directory, artifact)
            br0, br1 = best_responses(strategy)
            return br0, br1, artifact.plan.get("worth")
    raise SystemExit(f"{directory} ships no calza strategy of {dice[0]} vs {dice[1]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", type=Path, required=True, help="another checkout's duel/shipped directory")
    parser.add_argument("--sizes", default="1v1", help="calza sizes, the opener's dice first (default 1v1)")
    args = parser.parse_args()
    sizes = []
    for part in args.sizes.split(","):
        a, _, b = part.strip().lower().partition("v")
        sizes.append((int(a), int(b)))
    for dice in sizes:
        print(f"calza {dice[0]}v{dice[1]}, a die gained valued by the game:")
        for label, directory in (("this checkout", shipped.SHIPPED_DIR), ("--against", args.against)):
            started = time.perf_counter()
            br0, br1, trained = exploitability(directory, dice)
            print(
                f"  {label:>13} (trained by the {trained or 'round'}): exploitability {(br0 + br1) / 2:.4f}"
                f" (best responses {br0:+.4f}, {br1:+.4f}; {time.perf_counter() - started:.1f} s)"
            )


if __name__ == "__main__":
    main()
