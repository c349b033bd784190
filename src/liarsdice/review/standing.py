"""The seats' standing over a game, for the chart: each seat's dice at the start of every round
(and at the end), and, in a two-player round where the values allow it, each seat's expected dice
at the end of the round after every judged decision.

Why only there: in a round of two players where one die changes hands (a challenge decides it:
elimination or shedding, spot-on, no chips, no die won back by calza) a move worth `v` (the
chance the other side loses the die less the chance this seat does) leaves this seat
(1 - v) / 2 dice down in expectation (shedding: (1 + v) / 2 dice shed), the other the rest. At a
bigger table the multi-seat level weighs another player's die below one's own (bots/strong_belief
OTHERS_DIE), so its values do not split into dice, and the chart shows the dice between rounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..record import ReplayStep
from ..rules import Roll


@dataclass(frozen=True)
class Standing:
    """One point of the chart: after `step`, each seat's (expected) dice, in seat order."""

    step: int
    round: int
    values: tuple[float, ...]
    kind: str = "dice"

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "round": self.round, "values": list(self.values), "kind": self.kind}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Standing:
        return cls(int(data["step"]), int(data["round"]), tuple(float(v) for v in data["values"]), str(data["kind"]))


def splits_into_dice(step: ReplayStep) -> bool:
    """Whether a value in this step's round splits into the two seats' expected dice (module doc)."""
    state = step.before
    options = state.game.options
    return len(state.active_seats) == 2 and options.economy is None and options.exact != "gain_die"


def standing_points(steps: Sequence[ReplayStep], values_made: Mapping[int, float]) -> list[Standing]:
    """The chart's points: the dice at each roll, expected dice after each judged decision of a
    two-player round (`splits_into_dice`), and the dice once the last step is played."""
    points: list[Standing] = []
    for step in steps:
        if isinstance(step.action, Roll):
            after = step.after
            points.append(Standing(step.index, after.round_no, tuple(float(d) for d in after.dice)))
        elif step.index in values_made and step.seat is not None and splits_into_dice(step):
            state = step.before
            v = max(-1.0, min(1.0, values_made[step.index]))
            shedding = state.game.options.goal == "shedding"
            down = (1 + v) / 2 if shedding else (1 - v) / 2  # this seat's expected dice lost or shed
            values = [float(d) for d in state.dice]
            other = next(s for s in state.active_seats if s != step.seat)
            values[step.seat] -= down
            values[other] -= 1 - down
            points.append(Standing(step.index, state.round_no, tuple(round(x, 4) for x in values)))
    last = steps[-1]
    if not isinstance(last.action, Roll):
        points.append(Standing(last.index, last.before.round_no, tuple(float(d) for d in last.after.dice)))
    return points
