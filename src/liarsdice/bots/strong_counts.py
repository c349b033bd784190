"""The strong bot's counting: every hand a cup may hold with its chance, how many of its dice
count for a bid on each face, and the chance that enough unseen dice do (`bots/strong.py`)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ..rules import Bid, BidLadder

# More hands than this in one cup (many dice of many faces): a fixed sample of hands instead.
MAX_HANDS = 6000
SAMPLED_HANDS = 4096

# The strong bot's arrays: counts of dice (per hand, per face), and chances, weights and values.
Ints = npt.NDArray[np.int64]
Floats = npt.NDArray[np.float64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class HandSpace:
    """Every hand a cup of `size` dice can hold (or a fixed sample of them when there are too
    many), as counts per face, with the chance of each under the roll."""

    size: int
    counts: Ints  # [hands, faces]: how many dice show each face
    prior: Floats  # [hands]

    @property
    def one_face(self) -> BoolArray:
        """[hands, faces]: the hand is all this face."""
        all_face: BoolArray = self.counts == self.size  # numpy types `==` as Any
        return all_face


@lru_cache(maxsize=256)
def hand_space(size: int, faces: int) -> HandSpace:
    if math.comb(size + faces - 1, size) <= MAX_HANDS:
        hands = list(itertools.combinations_with_replacement(range(faces), size))
        counts = np.zeros((len(hands), faces), dtype=np.int64)
        for i, hand in enumerate(hands):
            for face in hand:
                counts[i, face] += 1
        ways = np.array(
            [math.factorial(size) / math.prod(math.factorial(int(c)) for c in row) for row in counts], dtype=float
        )
        prior = ways / faces**size
    else:
        # A seeded sample: the same hands every time, each as likely as any other.
        rng = np.random.default_rng(size * 1009 + faces)
        rolls = rng.integers(0, faces, size=(SAMPLED_HANDS, size))
        counts = np.zeros((SAMPLED_HANDS, faces), dtype=np.int64)
        for column in rolls.T:
            counts[np.arange(SAMPLED_HANDS), column] += 1
        prior = np.full(SAMPLED_HANDS, 1 / SAMPLED_HANDS)
    counts.setflags(write=False)
    prior.setflags(write=False)
    return HandSpace(size, counts, prior)


@lru_cache(maxsize=64)
def hand_faces(size: int, faces: int) -> list[tuple[int, ...]]:
    """`hand_space(size, faces)` as sorted hands of faces (asked at every decision: kept)."""
    counts = hand_space(size, faces).counts
    return [tuple(f + 1 for f in range(faces) for _ in range(int(row[f]))) for row in counts]


@lru_cache(maxsize=64)
def hand_numbers(size: int, faces: int) -> dict[tuple[int, ...], int]:
    """Each sorted hand's index in `hand_space(size, faces)`."""
    return {hand: i for i, hand in enumerate(hand_faces(size, faces))}


@dataclass(frozen=True)
class Matches:
    """How many dice of each hand count for a bid on each face this round (wilds included), and
    the same as one-hot rows, to turn weights over hands into a distribution of counts."""

    match: Ints  # [hands, faces]
    onehot: Floats  # [hands, faces, size + 1]


@lru_cache(maxsize=256)
def matches(size: int, faces: int, wild: int | None) -> Matches:
    match = counted(hand_space(size, faces).counts, wild)
    onehot = (match[:, :, None] == np.arange(size + 1)[None, None, :]).astype(float)
    match.setflags(write=False)
    onehot.setflags(write=False)
    return Matches(match, onehot)


def counted(counts: Ints, wild: int | None) -> Ints:
    """[hands, faces]: how many dice of each hand count for a bid on each face, from how many
    show each face (`counts`, `HandSpace.counts` rows): the wilds count for every other face."""
    match = counts.copy()
    if wild is not None:
        others = np.arange(counts.shape[1]) != wild - 1
        match[:, others] += counts[:, wild - 1 : wild]
    return match


def match_vector(dice: Sequence[int], faces: int, wild: int | None) -> Ints:
    """[faces]: how many of `dice` count for a bid on each face."""
    # counted in Python: a few dice at a time, many times a decision (numpy's calls cost more)
    counts = [0] * faces
    for die in dice:
        counts[die - 1] += 1
    if wild is not None:
        wilds = counts[wild - 1]
        counts = [n if face == wild - 1 else n + wilds for face, n in enumerate(counts)]
    return np.array(counts, dtype=np.int64)


@lru_cache(maxsize=1024)
def tail_table(unknown: int, faces: int, wild: int | None) -> Floats:
    """[faces, unknown + 2]: P(at least j of `unknown` unseen dice count for each face), j = 0..unknown+1."""
    out = np.zeros((faces, unknown + 2))
    for f in range(faces):
        ways = 2 if wild is not None and f != wild - 1 else 1
        p = ways / faces
        pmf = [math.comb(unknown, i) * p**i * (1 - p) ** (unknown - i) for i in range(unknown + 1)]
        out[f, : unknown + 1] = np.cumsum(pmf[::-1])[::-1]
    out[:, 0] = 1.0
    out.setflags(write=False)
    return out


def binomial_pmf(n: int, p: float) -> Floats:
    return np.array([math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(n + 1)])


def sigmoid(x: Floats) -> Floats:
    return 1.0 / (1.0 + np.exp(-np.clip(x, -50, 50)))


@lru_cache(maxsize=1 << 16)
def raise_row(lad: BidLadder, standing: Bid | None, q_max: int, barred: int | None, only: int | None) -> Ints:
    """[faces]: the lowest legal quantity of each face above `standing` (the opening bid when
    None), 0 where no bid on that face is legal. `barred` is a face that may not open the round;
    `only` the one face a player locked in the one-die round may bid."""
    out = np.zeros(lad.faces, dtype=np.int64)
    for face in range(1, lad.faces + 1):
        if only is not None and face != only:
            continue
        if standing is None:
            q: int | None = None if face == barred else 1
        else:
            q = lad.lowest_raise_on(face, standing)
        if q is not None and q <= q_max:
            out[face - 1] = q
    out.setflags(write=False)
    return out


@lru_cache(maxsize=256)
def raise_table(lad: BidLadder, q_max: int) -> Ints:
    """[bids of the ladder, faces]: `raise_row` above each bid of `lad` (a look-ahead asks it
    for dozens of bids a position)."""
    rows = [raise_row(lad, b, q_max, None, None) for b in lad.bids]
    out = np.stack(rows) if rows else np.zeros((0, lad.faces), dtype=np.int64)
    out.setflags(write=False)
    return out
