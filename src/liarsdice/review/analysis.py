"""A finished (or stopped) game walked step by step: every decision of every seat judged by the
best bot from that seat's own view, marked by how much it lost, with the seats' standing over the
game and a summary per seat. `Analysis.to_json` is what `liarsdice analyse --json` prints and
what the replay page shows (docs/analysis.md describes every field)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..bots.reader import KEPT_MOVES, KeptChances
from ..record import VERSION as RECORD_VERSION
from ..record import RecordError, replay
from ..rules import Action, Roll, action_to_list
from .judge import Judge
from .judgement import UNIT, move_text
from .marks import THRESHOLDS, mark
from .standing import Standing, standing_points
from .summary import SeatSummary, summarise

FORMAT = "liarsdice-analysis"
ANALYSIS_VERSION = 1


class AnalysisStopped(Exception):
    """`analyse` was asked to stop (its `stop()` said so) before it was done."""


@dataclass(frozen=True)
class MoveValue:
    """One move of a judged decision, as stored: its words, list form, worth, chance and odds."""

    move: str
    action: list[Any]
    value: float
    chance: float
    holds: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.move,
            "action": self.action,
            "value": self.value,
            "chance": self.chance,
            "holds": self.holds,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MoveValue:
        return cls(
            str(data["move"]), list(data["action"]), float(data["value"]), float(data["chance"]), _opt(data["holds"])
        )


@dataclass(frozen=True)
class Decision:
    """One player step of the record: judged (with values and a mark) or not (with the reason)."""

    step: int  # index in the record's `steps`
    round: int
    seat: str
    move: str
    action: list[Any]
    judged: bool
    reason: str | None = None
    source: str | None = None
    value: float | None = None
    best_value: float | None = None
    loss: float | None = None
    best: str | None = None
    holds: float | None = None
    mark: str | None = None
    moves: tuple[MoveValue, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "step": self.step,
            "round": self.round,
            "seat": self.seat,
            "move": self.move,
            "action": self.action,
            "judged": self.judged,
        }
        if not self.judged:
            out["reason"] = self.reason
            return out
        out.update(
            source=self.source,
            value=self.value,
            best_value=self.best_value,
            loss=self.loss,
            best=self.best,
            holds=self.holds,
            mark=self.mark,
            moves=[m.to_json() for m in self.moves],
        )
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Decision:
        base = dict(
            step=int(data["step"]),
            round=int(data["round"]),
            seat=str(data["seat"]),
            move=str(data["move"]),
            action=list(data["action"]),
            judged=bool(data["judged"]),
        )
        if not base["judged"]:
            return cls(**base, reason=str(data["reason"]))  # type: ignore[arg-type]
        return cls(
            **base,  # type: ignore[arg-type]
            source=str(data["source"]),
            value=float(data["value"]),
            best_value=float(data["best_value"]),
            loss=float(data["loss"]),
            best=str(data["best"]),
            holds=_opt(data["holds"]),
            mark=None if data["mark"] is None else str(data["mark"]),
            moves=tuple(MoveValue.from_json(m) for m in data["moves"]),
        )


@dataclass(frozen=True)
class Analysis:
    """Every decision of a game judged, the standing over the game and each seat's summary."""

    record_version: int
    preset: str | None
    seats: tuple[str, ...]
    decisions: tuple[Decision, ...]
    standing: tuple[Standing, ...]
    summary: tuple[SeatSummary, ...]
    unit: str = UNIT
    thresholds: dict[str, float] = field(default_factory=lambda: dict(THRESHOLDS))
    finished: bool = True  # whether the record plays the game to its end

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": ANALYSIS_VERSION,
            "record_version": self.record_version,
            "preset": self.preset,
            "seats": list(self.seats),
            "finished": self.finished,
            "unit": self.unit,
            "thresholds": dict(self.thresholds),
            "decisions": [d.to_json() for d in self.decisions],
            "standing": [s.to_json() for s in self.standing],
            "summary": [s.to_json() for s in self.summary],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Analysis:
        """The analysis `to_json` gave; ValueError for another format or version, or a broken one."""
        if data.get("format") != FORMAT:
            raise ValueError(f"not a liarsdice analysis (format must be {FORMAT!r})")
        if data.get("version") != ANALYSIS_VERSION:
            raise ValueError(
                f"analysis version {data.get('version')!r} is not supported (this reads {ANALYSIS_VERSION})"
            )
        try:
            return cls(
                record_version=int(data["record_version"]),
                preset=None if data["preset"] is None else str(data["preset"]),
                seats=tuple(str(s) for s in data["seats"]),
                decisions=tuple(Decision.from_json(d) for d in data["decisions"]),
                standing=tuple(Standing.from_json(s) for s in data["standing"]),
                summary=tuple(SeatSummary.from_json(s) for s in data["summary"]),
                unit=str(data["unit"]),
                thresholds={str(k): float(v) for k, v in data["thresholds"].items()},
                finished=bool(data.get("finished", True)),
            )
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"a broken liarsdice analysis: {e!r}") from e


def _opt(value: Any) -> float | None:
    return None if value is None else float(value)


def analyse(record: Mapping[str, Any], *, stop: Callable[[], bool] | None = None) -> Analysis:
    """Every decision of every seat in a game record (as `record.load_record` returns it; an
    unfinished game is analysed as far as it was played), judged by the best bot from that seat's
    own view. RecordError on a record that does not replay; AnalysisStopped when `stop()` says so
    (asked before each decision)."""
    steps = list(replay(record))  # every step checked before anything is judged
    if not steps:
        raise RecordError(None, "the record has no steps: there is nothing to analyse")
    game = steps[0].before.game
    seats = game.seats
    options = game.options
    judges: dict[int, Judge] = {}
    # The model's answers read by every judge of this game, and by nothing else: the analysis of
    # a record is then the same in any process (`ReaderBot.answers`).
    answers = KeptChances(KEPT_MOVES)
    decisions: list[Decision] = []
    values_made: dict[int, float] = {}  # step -> the value of the move made (for the standing)
    for step in steps:
        if step.seat is None or isinstance(step.action, Roll) or not isinstance(step.action, Action):
            continue
        if stop is not None and stop():
            raise AnalysisStopped(f"stopped at step {step.index} of {len(steps)}")
        seat, action = step.seat, step.action
        view = step.before.view(seat)
        base = dict(
            step=step.index,
            round=step.before.round_no,
            seat=seats[seat],
            move=move_text(action, seats, options),
            action=action_to_list(action, seats),
        )
        judge = judges.setdefault(seat, Judge(seat, answers))
        if len(view.legal_actions) == 1:
            judge.strong.learn(view)  # as the bot in that seat would have, asked to move
            decisions.append(Decision(**base, judged=False, reason="only one move was legal"))  # type: ignore[arg-type]
            continue
        judgement = judge.judge(view, made=action)
        made = judgement.find(action)
        if made is None:
            reason = "the best bot cannot weigh this move (a claim, raise or push of a kind it never scores)"
            decisions.append(Decision(**base, judged=False, reason=reason))  # type: ignore[arg-type]
            continue
        best = judgement.best()
        loss = max(best.value - made.value, 0.0)
        values_made[step.index] = made.value
        decisions.append(
            Decision(
                **base,  # type: ignore[arg-type]
                judged=True,
                source=judgement.source,
                value=round(made.value, 4),
                best_value=round(best.value, 4),
                loss=round(loss, 4),
                best=best.text,
                holds=None if made.holds is None else round(made.holds, 4),
                mark=mark(loss),
                moves=tuple(MoveValue(**m.to_json(seats)) for m in judgement.moves),
            )
        )
    data_version = record.get("version")
    return Analysis(
        record_version=int(data_version) if isinstance(data_version, int) else RECORD_VERSION,
        preset=record.get("preset") if isinstance(record.get("preset"), str) else None,
        seats=tuple(seats),
        decisions=tuple(decisions),
        standing=tuple(standing_points(steps, values_made)),
        summary=tuple(summarise(seats, decisions)),
        finished=steps[-1].after.result is not None,
    )


def player_steps(record: Mapping[str, Any]) -> Sequence[int]:
    """The indices of the record's player steps (what an analysis names its decisions by)."""
    raw = record.get("steps")
    return (
        [i for i, s in enumerate(raw) if isinstance(s, Mapping) and "chance" not in s] if isinstance(raw, list) else []
    )
