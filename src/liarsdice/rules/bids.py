"""Bids as values, and the orders in which one bid raises another (RULES.md section 0.3)."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import NamedTuple


class InvalidText(ValueError):
    """Text that does not spell an action or a bid at all (as opposed to an illegal one)."""


_UNORDERED = "bids are ordered by the rules of a game: compare them with BidLadder.raises"
_NO_LIMIT = 1 << 40  # a quantity above any table's dice
_BID_RE = re.compile(r"^\s*(\d+)\s*(?:x|\*|×|\s)\s*(\d+)\s*$", re.IGNORECASE)


class Bid(NamedTuple):
    """A claim that at least `quantity` dice in play show `face`. Written `3x5`.

    A named tuple, so that bids hash and compare as fast as the engine looks them up. Bids do not
    order themselves: which bid is higher depends on the rules, so ask a `BidLadder`.
    """

    quantity: int
    face: int

    def __str__(self) -> str:
        return f"{self.quantity}x{self.face}"

    def __repr__(self) -> str:
        return f"Bid({self.quantity}, {self.face})"

    # Tuple order would silently be one rule set's order; the rules decide, so refuse it.
    def __lt__(self, other: object) -> bool:
        raise TypeError(_UNORDERED)

    def __le__(self, other: object) -> bool:
        raise TypeError(_UNORDERED)

    def __gt__(self, other: object) -> bool:
        raise TypeError(_UNORDERED)

    def __ge__(self, other: object) -> bool:
        raise TypeError(_UNORDERED)

    @classmethod
    def parse(cls, text: str) -> Bid:
        """`3x5` (also `3X5`, `3*5`, `3 5`) is three fives."""
        m = _BID_RE.match(text)
        if not m:
            raise InvalidText(f"{text!r} is not a bid: write quantity x face, e.g. 3x5 for three fives")
        return cls(int(m.group(1)), int(m.group(2)))


class BidLadder:
    """Every bid of one round's rules, from lowest to highest.

    A raise is legal iff it stands higher on the ladder, so legality is one index comparison and
    the legal raises are a suffix of the ladder. The ladder holds quantities up to `q_max`; with
    `max_quantity=unbounded` bids above it are still ranked by `key`.
    """

    __slots__ = ("faces", "wild", "rule", "order", "q_max", "bids", "index", "keys")

    def __init__(self, faces: int, wild: int | None, rule: str, order: str, q_max: int) -> None:
        self.faces = faces
        self.wild = wild
        self.rule = rule if wild is not None else "plain"
        self.order = order
        self.q_max = q_max
        everything = [Bid(q, f) for q in range(1, q_max + 1) for f in range(1, faces + 1)]
        everything.sort(key=lambda b: self.key(b.quantity, b.face))
        self.bids: tuple[Bid, ...] = tuple(everything)
        self.index: dict[Bid, int] = {b: i for i, b in enumerate(everything)}
        self.keys: tuple[tuple[int, int], ...] = tuple(self.key(b.quantity, b.face) for b in everything)

    def key(self, quantity: int, face: int) -> tuple[int, int]:
        if face == self.wild:
            if self.rule == "joker_double":
                return (2 * quantity, 0)
            if self.rule == "perudo_half":
                return (2 * quantity, self.faces + 1)
        if self.order == "quantity_major":
            return (quantity, face)
        return (face, quantity)

    def raises(self, new: Bid, standing: Bid) -> bool:
        return self.key(new.quantity, new.face) > self.key(standing.quantity, standing.face)

    def lowest_raise_on(self, face: int, standing: Bid) -> int | None:
        """The smallest quantity of `face` that raises `standing`, or None if no quantity does
        (a lower face under face-major order). Keys grow with quantity, so a search works."""
        target = self.key(standing.quantity, standing.face)
        if self.key(_NO_LIMIT, face) <= target:
            return None
        lo, hi = 1, 1
        while self.key(hi, face) <= target:
            lo, hi = hi + 1, hi * 2 + 1
        while lo < hi:
            mid = (lo + hi) // 2
            if self.key(mid, face) > target:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def describe_order(self) -> str:
        """One sentence on how bids rank, for help screens."""
        if self.order == "quantity_major":
            base = "a raise needs more dice, or as many dice of a higher face"
        else:
            base = "a raise needs a higher face, or more dice of the same face"
        w = self.wild
        if self.rule == "joker_double":
            return f"{base}; a bid on {w}s (jokers) counts double and ranks lowest among bids of the same worth"
        if self.rule == "perudo_half":
            return (
                f"{base}; to bid {w}s you need at least half the count (rounded up), "
                f"and from {w}s at least double plus one"
            )
        return base

    def why_not(self, new: Bid, standing: Bid) -> str:
        """Why `new` does not raise `standing`, in the terms of the rule that decides it."""
        w = self.wild
        q, sq = new.quantity, standing.quantity
        to_wild = new.face == w and standing.face != w
        from_wild = standing.face == w and new.face != w
        if self.rule == "joker_double" and to_wild:
            if 2 * q < sq:
                return f"jokers count double, so {new} is worth {2 * q} dice, fewer than {sq}"
            return (
                f"jokers count double, so {new} is worth {2 * q} dice, as many as {standing}, "
                "and a joker bid ranks below other bids of the same worth"
            )
        if self.rule == "joker_double" and from_wild:
            return f"jokers count double, so {standing} is worth {2 * sq}: bid at least {2 * sq}x{new.face}"
        if self.rule == "perudo_half" and to_wild:
            return f"to go to {w}s you need at least half of {sq}, rounded up: {(sq + 1) // 2}x{w}"
        if self.rule == "perudo_half" and from_wild:
            return f"from {w}s you need double plus one: at least {2 * sq + 1}x{new.face}"
        lowest = self.lowest_raise_on(new.face, standing)
        if self.order == "quantity_major":
            base = "a raise needs more dice, or as many dice of a higher face"
        else:
            base = "a raise needs a higher face, or more dice of the same face"
        if lowest is None:
            return f"{base}; no number of {new.face}s raises it"
        return f"{base}; the lowest bid on {new.face}s that raises it is {lowest}x{new.face}"


@lru_cache(maxsize=512)
def ladder(faces: int, wild: int | None, rule: str, order: str, q_max: int) -> BidLadder:
    return BidLadder(faces, wild, rule, order, q_max)
