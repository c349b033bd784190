"""How the strong bot turns its scored moves into a move it makes, without giving its cup away.

A bot that always makes its best-scored move plays a fixed function of its hand and the bids, so
a player who works out that function reads its cup from its bids (local best response did: it
won about 0.7 a round at one die each and every round from two dice up). So the strong bot draws
its move, from its own seeded generator, from a distribution over its scored moves:

* **Close calls are mixed.** Each move is weighed by exp(value / TEMPERATURE), values in expected
  dice: moves far behind the best are almost never made, moves nearly as good often are. The
  choice between challenging and raising, and between bids of about the same worth, then no
  longer flips at a sharp line of its own dice.
* **Bids in disguise.** With chance DISGUISE the bot bids as if its best face were a face drawn
  uniformly from the faces it may bid: it makes its best bid on that face. A face whose best bid
  costs DISGUISE_MARGIN dice or more against the best move is never played this way (the draw
  goes back to the mixed moves), and one costing less is played in proportion to how little it
  costs: bluffs are made where they cost little (low bids on a big table are nearly always
  safe), seldom where a bid is likely called.

A pass, push or exact (Soar, Perudo) is made only where it is the best move, as before: those
are not in the rounds LBR measures, and mixing them in cost games. Tavern's chips keep their
own bluffing (`picked`).

The chances of the faces bid in disguise depend on the hand only through what they cost, so a
bid on a face says less of how many of that face the cup holds. The constants were chosen by
measurement, written down in docs/exploit.md ("strong's mixing").

`StrongBot.policy` gives this distribution and `StrongBot.act` draws from it, so the two agree
exactly: `liarsdice exploit` asks `policy` instead of sampling `act`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..rules import Action, BidAction, Challenge, Claim


@dataclass(frozen=True, slots=True)
class Scored:
    """A move and what the strong bot reckons it is worth: what mixing draws from."""

    value: float
    rank: int  # which to prefer when values tie: settling the round first
    action: Action
    unchallenged: float = 0.0  # the chance the next player lets it stand (bids only)
    bluff: bool = False  # a bid on a face we are short of


# Expected dice: how much worse than the best a move may be and still be made fairly often.
TEMPERATURE = 0.04
# The share of bids made as if another face were our best, and the cost above which a face is
# never bid that way.
DISGUISE = 0.5
DISGUISE_MARGIN = 0.3

# Bluffing in Tavern's chips: at most this often, and only with a bid this close to the best in value.
BLUFF_RATE = 0.12
BLUFF_MARGIN = 0.12

Policy = list[tuple[Action, float]]


def mixed(moves: Sequence[Scored]) -> Policy:
    """The chance of each of `moves` (module docstring), in the order given, zeros left out."""
    best = max(moves, key=lambda m: (m.value, m.rank))
    if not plain(best):
        # A pass, push or exact (Soar, Perudo) is made only where it is the best move: rare and
        # often once a game, mixing them in costs games and hides little.
        return [(best.action, 1.0)]
    moves = [m for m in moves if plain(m)]
    mix = softened(moves, best)
    chance = {id(m): (1 - DISGUISE) * p for m, p in zip(moves, mix, strict=True)}
    # The disguise: one face drawn alike from every face we may bid on.
    by_face: dict[int, Scored] = {}
    for m in moves:
        if isinstance(m.action, BidAction) and not m.action.push:
            face = m.action.bid.face
            if face not in by_face or m.value > by_face[face].value:
                by_face[face] = m
    if by_face and DISGUISE > 0:
        each = DISGUISE / len(by_face)
        kept = 0.0
        for m in by_face.values():
            cost = best.value - m.value
            share = max(0.0, 1 - cost / DISGUISE_MARGIN) if DISGUISE_MARGIN > 0 else float(cost <= 0)
            chance[id(m)] += each * share
            kept += each * share
        # a face too costly to bid in disguise: the draw goes back to the mixed moves
        back = DISGUISE - kept
        for m, p in zip(moves, mix, strict=True):
            chance[id(m)] += back * p
    else:
        for m, p in zip(moves, mix, strict=True):
            chance[id(m)] += DISGUISE * p
    return [(m.action, chance[id(m)]) for m in moves if chance[id(m)] > 0]


def mixed_chances(values: np.ndarray, plain: np.ndarray, faces: np.ndarray) -> np.ndarray:
    """`mixed` for many hands at once: [H, M], the chance each hand makes each of M moves.

    `values` [H, M]: each hand's value of each move it weighs, -inf where it does not weigh the
    move. The moves come in the order `mixed` is given them, which ranks never rise along (the
    calls, then the bids): the first best column is then `mixed`'s best. `plain` [M]: whether
    the move is plain; `faces` [M]: the face of a bid without a push, 0 for any other move. A hand
    whose best move is not plain makes it surely, as in `mixed`."""
    hands = np.arange(len(values))
    weighed = np.isfinite(values)
    best_col = np.argmax(values, axis=1)
    best = values[hands, best_col]
    out = np.zeros(values.shape)
    sure = ~plain[best_col]
    out[hands[sure], best_col[sure]] = 1.0
    rows = hands[~sure]
    if not len(rows):
        return out
    v, top = values[rows], best[rows]
    counted = weighed[rows] & plain[None, :]
    if TEMPERATURE <= 0:
        p = (np.arange(values.shape[1])[None, :] == best_col[rows][:, None]).astype(float)
    else:
        e = np.where(counted, np.exp((np.where(counted, v, top[:, None]) - top[:, None]) / TEMPERATURE), 0.0)
        p = e / e.sum(axis=1, keepdims=True)
    chance = (1 - DISGUISE) * p
    bids = counted & (faces[None, :] > 0)
    kept = np.zeros(len(rows))
    on_faces = np.zeros(len(rows), dtype=int)
    if DISGUISE > 0:
        tops = []
        for face in sorted({int(f) for f in faces if f > 0}):
            cols = np.flatnonzero(faces == face)
            has = bids[:, cols].any(axis=1)
            col = cols[np.argmax(np.where(bids[:, cols], v[:, cols], -np.inf), axis=1)]
            tops.append((has, col))
            on_faces += has
        each = DISGUISE / np.maximum(on_faces, 1)
        for has, col in tops:
            cost = top - v[np.arange(len(rows)), col]
            if DISGUISE_MARGIN > 0:
                share = np.maximum(0.0, 1 - cost / DISGUISE_MARGIN)
            else:
                share = (cost <= 0).astype(float)
            add = np.where(has, each * share, 0.0)
            chance[np.arange(len(rows)), col] += add
            kept += add
    back = np.where(on_faces > 0, DISGUISE - kept, DISGUISE)
    chance += back[:, None] * p
    out[rows] = chance
    return out


def picked(moves: Sequence[Scored]) -> Policy:
    """Tavern's chips: the best move, or now and then the best bluff nearly as good."""
    best = max(moves, key=lambda m: (m.value, m.rank))
    if isinstance(best.action, (BidAction, Claim)):
        # Bluff more where a bid is less likely to be called: the chance that the best bid
        # stands is the game's own measure of that (players, dice, faces).
        bluffs = [m for m in moves if m.bluff and m.value >= best.value - BLUFF_MARGIN]
        rate = BLUFF_RATE * best.unchallenged
        if bluffs and rate > 0:
            return [(best.action, 1 - rate), (max(bluffs, key=lambda m: m.value).action, rate)]
    return [(best.action, 1.0)]


def plain(move: Scored) -> bool:
    """A bid without a push, or a challenge: the moves of every round, mixed."""
    return isinstance(move.action, Challenge) or (isinstance(move.action, BidAction) and not move.action.push)


def softened(moves: Sequence[Scored], best: Scored) -> list[float]:
    """exp(value / TEMPERATURE), normalised; at temperature 0 the best move alone."""
    if TEMPERATURE <= 0:
        return [1.0 if m is best else 0.0 for m in moves]
    weights = [math.exp((m.value - best.value) / TEMPERATURE) for m in moves]
    total = sum(weights)
    return [w / total for w in weights]


def draw(policy: Policy, u: float) -> Action:
    """The move of `policy` at `u` (uniform in [0, 1)) on the cumulative chances."""
    total = sum(p for _, p in policy)
    acc = 0.0
    for action, p in policy:
        acc += p / total
        if u < acc:
            return action
    return policy[-1][0]
