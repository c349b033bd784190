"""Each seat's play in summary: how many decisions, how many judged, its accuracy (marks.py), the
moves marked, and its biggest turning point (the judged decision that lost the most)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .marks import accuracy


class Decision(Protocol):
    """What a summary reads of a decision (analysis.Decision)."""

    @property
    def step(self) -> int: ...
    @property
    def seat(self) -> str: ...
    @property
    def judged(self) -> bool: ...
    @property
    def loss(self) -> float | None: ...
    @property
    def mark(self) -> str | None: ...


@dataclass(frozen=True)
class SeatSummary:
    seat: str
    decisions: int
    judged: int
    accuracy: float | None  # None: no judged decision
    inaccuracies: int
    mistakes: int
    blunders: int
    turning_point: tuple[int, float] | None  # (step, loss) of the costliest judged decision

    def to_json(self) -> dict[str, Any]:
        turn = None if self.turning_point is None else {"step": self.turning_point[0], "loss": self.turning_point[1]}
        return {
            "seat": self.seat,
            "decisions": self.decisions,
            "judged": self.judged,
            "accuracy": self.accuracy,
            "inaccuracies": self.inaccuracies,
            "mistakes": self.mistakes,
            "blunders": self.blunders,
            "turning_point": turn,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatSummary:
        turn = data["turning_point"]
        return cls(
            str(data["seat"]),
            int(data["decisions"]),
            int(data["judged"]),
            None if data["accuracy"] is None else float(data["accuracy"]),
            int(data["inaccuracies"]),
            int(data["mistakes"]),
            int(data["blunders"]),
            None if turn is None else (int(turn["step"]), float(turn["loss"])),
        )


def summarise(seats: Sequence[str], decisions: Sequence[Decision]) -> list[SeatSummary]:
    """One summary per seat, in seat order."""
    out = []
    for name in seats:
        mine = [d for d in decisions if d.seat == name]
        judged = [d for d in mine if d.judged and d.loss is not None]
        worst = max(judged, key=lambda d: d.loss or 0.0, default=None)
        turn = (worst.step, worst.loss) if worst is not None and worst.loss else None
        out.append(
            SeatSummary(
                name,
                len(mine),
                len(judged),
                accuracy(d.loss or 0.0 for d in judged),
                sum(d.mark == "inaccuracy" for d in judged),
                sum(d.mark == "mistake" for d in judged),
                sum(d.mark == "blunder" for d in judged),
                turn,
            )
        )
    return out
