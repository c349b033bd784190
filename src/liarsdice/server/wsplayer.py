"""A player that speaks the table protocol: it picks a random legal move from a `GameView`.

It sees only what a browser sees (the `legal` part of its own view), so it exercises the same
path as a person: tests and the load benchmark play whole games with it.
"""

from __future__ import annotations

import random
from typing import Any


def random_move(view: dict[str, Any], rng: random.Random, challenge_rate: float = 0.3) -> list[Any] | None:
    """A legal move (list form) for the seat of `view`, or None if it is not to act.

    Low bids are preferred so rounds last a few turns; challenges and the rarer moves come
    often enough that every kind of action is played.
    """
    legal = view.get("legal")
    if not legal or view.get("to_act") != view.get("seat"):
        return None
    if legal["voting"]:
        return ["vote", "believe" if rng.random() < 0.5 else "doubt"]
    economy = legal.get("economy")
    choices: list[str] = []
    if legal["bids"]:
        choices += ["bid"] * 3
    if legal["challenge"]:
        choices += ["challenge"] * (3 if rng.random() < challenge_rate else 1)
    if legal["pass"]:
        choices.append("pass")
    if legal["exact"]:
        choices.append("exact")
    if economy:
        if economy["accuse"]:
            choices += ["accuse"] * 2
        if economy["all_in"]:
            choices += ["all_in"] * 3
        if economy["fold"]:
            choices.append("fold")
    if not choices:
        return None
    kind = rng.choice(choices)
    if kind == "bid":
        face, low, high = rng.choice(legal["bids"])
        quantity = low if rng.random() < 0.7 else rng.randint(low, high)
        extra: dict[str, Any] = {}
        if legal.get("push") and rng.random() < 0.2:
            cup = list(legal["push"]["cup"])
            rng.shuffle(cup)
            extra["push"] = sorted(cup[: rng.randint(1, legal["push"]["max"])])
        if economy:
            if economy["raise_min"] is not None and rng.random() < 0.2:
                extra["raise_to"] = economy["raise_min"]
            return ["claim", quantity, face] + ([extra] if extra else [])
        return ["bid", quantity, face] + ([extra] if extra else [])
    if kind == "challenge":
        target = rng.choice(legal["challenge"])["seat"]
        return ["challenge", {"target": view["seats"][target]}]
    if kind == "pass":
        if legal.get("push") and rng.random() < 0.2:
            return ["pass", {"push": [rng.choice(legal["push"]["cup"])]}]
        return ["pass"]
    return [kind]
