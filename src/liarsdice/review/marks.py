"""How much a move lost against the best bot's best, named as chess players name it, and the
accuracy of a seat's play: the thresholds were chosen by measurement (docs/analysis.md), so that
the best bot's own moves in self-play are seldom marked at all and almost never blundered."""

from __future__ import annotations

import math
from collections.abc import Iterable

# Loss (best value - value of the move made, in the analysis's unit: expected dice) at or above
# which a move is marked. benchmarks/analysis.py measured the best bot's own moves against them.
THRESHOLDS: dict[str, float] = {"inaccuracy": 0.15, "mistake": 0.3, "blunder": 0.6}
# What a marked move shows beside it, as in annotated chess games.
SYMBOLS = {"inaccuracy": "?!", "mistake": "?", "blunder": "??"}
# Accuracy of one move is 100 * exp(-loss / ACCURACY_SCALE): 100 for the best move, 55 for a loss
# of an inaccuracy's 0.15 dice, 30 for a mistake's 0.3, 9 for a blunder's 0.6.
ACCURACY_SCALE = 0.25


def mark(loss: float, thresholds: dict[str, float] | None = None) -> str | None:
    """The mark a move that lost `loss` earns: "blunder", "mistake", "inaccuracy" or None."""
    t = THRESHOLDS if thresholds is None else thresholds
    for name in ("blunder", "mistake", "inaccuracy"):
        if loss >= t[name]:
            return name
    return None


def move_accuracy(loss: float) -> float:
    """100 for a move as good as the best, falling towards 0 as the loss grows."""
    return 100.0 * math.exp(-max(loss, 0.0) / ACCURACY_SCALE)


def accuracy(losses: Iterable[float]) -> float | None:
    """A seat's accuracy: the mean of `move_accuracy` over its judged moves (None if none)."""
    values = [move_accuracy(loss) for loss in losses]
    return round(sum(values) / len(values), 1) if values else None
