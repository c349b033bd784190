"""CPU time of the strong bot's policy over every hand a seat may hold at one position: the hands
scored together (`StrongBot.scored_policies`, bots/strong_hands.py) against one at a time
(`StrongBot.scored_policies_each`, the way it was done before).

    python benchmarks/strong_batch.py
    python benchmarks/strong_batch.py --pairs 9 --positions perudo-5v5,soar-5v5
    python benchmarks/strong_batch.py --chance

With --chance it times what the reader asks instead (bots/reader.py): the chance of one move
from every hand, picked out of the hands' policies scored together (old) against
`StrongBot.hand_chances` (new), which mixes every hand's moves at once from the hands' counts,
without a view a hand (where it cannot, `move_chances` over the views); "same" then means every
chance within 1e-12. The move is the one the first hand's policy makes likeliest.

Each position comes from a seeded game the strong bot plays against itself: the first turn of
the first round after two moves (a push, in Soar, where the game has one soon enough). Its views
are the acting seat's view with every hand it may hold (`strong_counts.hand_space`): views no
player sees, the state copied with only that seat's cup changed. The two ways are timed in turn
(old, new, old, new, ...) `--pairs` times in CPU time of this process (`time.process_time`: a
busy machine slows wall time much more than CPU time); printed per position: the median of
each, the median of the pairs' ratios (old / new: how many times less CPU the new way takes),
and whether the two gave exactly the same policies (every move and every chance).
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence

import numpy as np

from liarsdice.bots.strong import StrongBot
from liarsdice.bots.strong_counts import Ints, hand_space
from liarsdice.rules import Action, Game, GameState, PlayerView, format_action, preset_options

# name: preset, players, dice a player
POSITIONS = {
    "perudo-5v5": ("perudo", 2, 5),
    "perudo-3v3": ("perudo", 2, 3),
    "soar-5v5": ("soar", 2, 5),
    "tavern-5v5": ("tavern", 2, 5),
    "perudo-6x5": ("perudo", 6, 5),
}


def every_hand(state: GameState) -> list[PlayerView]:
    """The view of the seat to act with each hand its cup may hold, in `hand_space` order."""
    seat = state.to_act
    assert seat is not None
    view = state.view(seat)
    faces = view.options.faces
    out = []
    for counts in hand_space(len(view.cup), faces).counts:
        cup = tuple(face + 1 for face in range(faces) for _ in range(int(counts[face])))
        # the state with only this seat's cup changed (its parts are private: no player may do this)
        other = copy.copy(state)
        other._r = state._r.copy()
        other._r.cups = tuple(cup if s == seat else c for s, c in enumerate(state._r.cups))
        other._legal = None  # the legal actions it keeps hold the old cup's pushes
        out.append(other.view(seat))
    return out


def position(preset: str, players: int, dice: int, seed: int = 0) -> GameState:
    """The first turn of the first round after two moves (after a push, where pushes come soon)."""
    game = Game(preset_options(preset, {"num_players": players, "dice_per_player": dice}))
    rng = random.Random(seed)
    bots = [StrongBot(seed * 100 + s) for s in range(players)]
    state = game.new_initial_state()
    fallback = None
    while not state.is_terminal:
        if state.is_chance:
            state, _ = state.apply(state.sample_chance(rng))
            continue
        seat = state.to_act
        assert seat is not None
        view = state.view(seat)
        if view.round_no > 1:
            break
        if len(view.history) >= 2 and view.legal is not None and not view.legal.voting:
            if not view.options.push or any(view.pushed):
                return state
            fallback = fallback or state
        state, _ = state.apply(bots[seat].act(view), seat)
    assert fallback is not None, f"{preset}: no position in the first round"
    return fallback


def timed(score: Callable[[Sequence[PlayerView]], object], views: Sequence[PlayerView]) -> float:
    started = time.process_time()
    score(views)
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--positions", default=",".join(POSITIONS), help=f"of {', '.join(POSITIONS)}")
    parser.add_argument("--pairs", type=int, default=7)
    parser.add_argument("--chance", action="store_true", help="time the chance of one move instead (the reader's)")
    args = parser.parse_args()
    print(f"$ python {' '.join(sys.argv)}")
    what = "the chance of one move from" if args.chance else "the policies of"
    print(f"CPU ms of {what} every hand, {args.pairs} pairs (old, new) in turn")
    print("| position | hands | history | old | new | old / new | same |\n|---|---|---|---|---|---|---|")
    for name in args.positions.split(","):
        preset, players, dice = POSITIONS[name]
        state = position(preset, players, dice)
        views = every_hand(state)
        old_way: Callable[[Sequence[PlayerView]], object] = StrongBot(0).scored_policies_each
        new_way: Callable[[Sequence[PlayerView]], object] = StrongBot(0).scored_policies
        if args.chance:
            move = max(StrongBot(0).scored_policies(views[:1])[0], key=lambda m: m[1])[0]

            def picked(views: Sequence[PlayerView], move: Action = move) -> list[float]:
                return [sum(p for a, p in policy if a == move) for policy in StrongBot(0).scored_policies(views)]

            faces = range(1, views[0].options.faces + 1)
            counts = np.array([[view.hand.count(face) for face in faces] for view in views])

            def mixed(views: Sequence[PlayerView], move: Action = move, counts: Ints = counts) -> list[float]:
                chances = StrongBot(0).hand_chances(views[0], counts, move)  # what the reader asks
                if chances is None:  # not a turn of every hand at once: one view a hand
                    chances = StrongBot(0).move_chances(views, move)
                return [float(p) for p in chances]

            old_way, new_way = picked, mixed
            same = max(abs(a - b) for a, b in zip(picked(views), mixed(views), strict=True)) <= 1e-12
        else:
            same = old_way(views) == new_way(views)
        old, new = [], []
        for _ in range(args.pairs):
            old.append(timed(old_way, views))
            new.append(timed(new_way, views))
        ratio = statistics.median(o / n for o, n in zip(old, new, strict=True))
        history = ", ".join(format_action(t.action, views[0].seats) for t in views[0].history)
        print(
            f"| {name} | {len(views)} | {history} | {1000 * statistics.median(old):.1f} "
            f"| {1000 * statistics.median(new):.1f} | {ratio:.1f} | {'yes' if same else 'NO'} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
