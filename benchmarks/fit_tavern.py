"""Fit the strong bot's model of what chips are worth in a two-player `tavern` game.

    python benchmarks/fit_tavern.py --fresh      # how the shipped model was made: 6 passes of 2,000 games
    python benchmarks/fit_tavern.py --games 1000 --passes 1 --out /tmp/tavern.json

Each pass plays `--games` games of `strong` against `probability` (seats alternating, dealt from
`--seed`), with `strong` judging its chips by the model of the pass before (the shipped model
for the first pass, or `--start`'s, or, with `--fresh`, one that knows the dice only). At the start of every
round it notes the state from `strong`'s side (dice, chips, the round's bet, who opens) and, at
the end, whether `strong` won the game; a logistic regression over `chip_features` is then fitted
(Newton's method, a slight L2 penalty) on three quarters of the states and its log-loss measured
on the rest. The weights of the last pass are written to `--out` (the package's
`bots/data/tavern.json` by default), with the log-loss and the games they came from. A weight of
the wrong sign (a chip worth less than nothing) is refused, and nothing is written.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
from collections.abc import Sequence
from multiprocessing import Pool
from pathlib import Path
from typing import Any

import numpy as np

from liarsdice.bots import ProbabilityBot, StrongBot
from liarsdice.bots.strong_tavern import FEATURES, MODEL_PATH, ChipModel, chip_features
from liarsdice.match import play_game
from liarsdice.rules import Game, preset_options

L2 = 1e-3
Row = tuple[int, int, int, int, int, bool, bool]  # my dice, theirs, my chips, theirs, bet, opens, won


def derive(*parts: object) -> int:
    return int.from_bytes(hashlib.blake2b("/".join(map(str, parts)).encode(), digest_size=8).digest(), "big")


_model: ChipModel | None = None


def _init(weights: tuple[float, ...] | None) -> None:
    global _model
    _model = ChipModel(weights) if weights is not None else None


def play(args: tuple[int, int, int]) -> list[Row]:
    """The round-start states of one game, from strong's side, each with the game's result."""
    seed, game_no, pass_no = args
    dealer = derive("fit-tavern", seed, pass_no, game_no)
    strong_seat = game_no % 2
    seats = ["strong", "probability"] if strong_seat == 0 else ["probability", "strong"]
    game = Game(preset_options("tavern", {"num_players": 2}), seats=seats)
    strong = StrongBot(derive("strong", dealer))
    strong.chip_model = _model
    agents = [strong, ProbabilityBot(derive("probability", dealer))]
    if strong_seat == 1:
        agents.reverse()
    _, recorder = play_game(game, agents, seed=dealer)
    data: dict[str, Any] = recorder.data
    economy = game.options.economy
    assert economy is not None
    steps = data["steps"]
    openers = [steps[i + 1].get("seat") for i, s in enumerate(steps[:-1]) if s.get("chance") == "roll"]
    rounds = data["rounds"]
    won = rounds[-1]["dice_after"]["strong"] > 0
    chips = {s: economy.starting_chips for s in seats}
    rows: list[Row] = []
    for outcome, opener in zip(rounds, openers, strict=False):
        dice = outcome["dice_before"]
        bet = economy.min_bet_for(outcome["round"])
        rows.append(
            (dice["strong"], dice["probability"], chips["strong"], chips["probability"], bet, opener == "strong", won)
        )
        chips = outcome["chips_after"]
    return rows


def design(rows: Sequence[Row]) -> tuple[np.ndarray, np.ndarray]:
    x = np.array([chip_features(*row[:6]) for row in rows])
    y = np.array([float(row[6]) for row in rows])
    return x, y


def fit(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Logistic regression by Newton's method with an L2 penalty of `L2`."""
    w = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1 / (1 + np.exp(-np.clip(x @ w, -50, 50)))
        gradient = x.T @ (p - y) + L2 * w
        hessian = (x * (p * (1 - p))[:, None]).T @ x + L2 * np.eye(len(w))
        step = np.linalg.solve(hessian, gradient)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return w


def log_loss(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> float:
    p = np.clip(1 / (1 + np.exp(-np.clip(x @ w, -50, 50))), 1e-9, 1 - 1e-9)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=2000, help="games per pass (default 2000)")
    parser.add_argument("--passes", type=int, default=6, help="fit, play with the fit, fit again... (default 6)")
    parser.add_argument("--seed", type=int, default=11, help="the dealer's seed (default 11)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--fresh", action="store_true", help="start from a model that knows the dice only")
    parser.add_argument("--start", type=Path, default=MODEL_PATH, help="the model of the first pass (default: shipped)")
    parser.add_argument("--out", type=Path, default=MODEL_PATH)
    args = parser.parse_args(argv)
    if args.games < 8 or args.passes < 1:
        parser.error("--games must be at least 8 and --passes at least 1")
    weights: tuple[float, ...] | None
    if args.fresh:
        weights = tuple(1.0 if name == "dice_difference" else 0.0 for name in FEATURES)
    else:
        weights = ChipModel.from_json(json.loads(args.start.read_text())).weights
    result: dict[str, Any] = {}
    for pass_no in range(1, args.passes + 1):
        started = time.perf_counter()
        jobs = [(args.seed, g, pass_no) for g in range(1, args.games + 1)]
        with Pool(args.workers, initializer=_init, initargs=(weights,)) as pool:
            rows = [row for game in pool.imap(play, jobs, chunksize=32) for row in game]
        x, y = design(rows)
        order = np.random.default_rng(derive("split", args.seed, pass_no) % 2**32).permutation(len(y))
        train, test = order[: len(y) * 3 // 4], order[len(y) * 3 // 4 :]
        w = fit(x[train], y[train])
        held_out = log_loss(x[test], y[test], w)
        base = float(np.mean(y[train]))
        constant = -(base * math.log(base) + (1 - base) * math.log(1 - base))
        wins = sum(1 for row in rows if row[4] == 1 and row[6]) / args.games
        try:
            ChipModel(tuple(float(v) for v in w))
        except ValueError as e:
            print(f"pass {pass_no}: {e}; nothing written", file=sys.stderr)
            return 1
        w = fit(x, y)  # the final weights from every state
        weights = tuple(round(float(v), 6) for v in w)
        print(
            f"pass {pass_no}: {args.games} games ({time.perf_counter() - started:.0f} s), strong won {wins:.3f}; "
            f"{len(y)} round starts; held-out log-loss {held_out:.4f} (a constant: {constant:.4f})"
        )
        print("  " + ", ".join(f"{name} {v:+.3f}" for name, v in zip(FEATURES, weights, strict=True)))
        result = {
            "about": "P(strong wins a two-player tavern game) at the start of a round: a logistic curve over "
            "liarsdice.bots.strong_tavern.chip_features, fitted by benchmarks/fit_tavern.py",
            "features": list(FEATURES),
            "weights": list(weights),
            "fitted_on": {
                "preset": "tavern",
                "players": 2,
                "opponent": "probability",
                "games": args.games,
                "passes": args.passes,
                "seed": args.seed,
                "round_starts": len(y),
                "strong_won": round(wins, 4),
                "held_out_log_loss": round(held_out, 4),
            },
        }
    ChipModel(tuple(result["weights"]))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
