"""What the best bot thinks of the moves open to one seat at one decision: each move's worth, the
chance the bot itself would play it, and the chance that the bid it challenges or makes is true."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..rules import Action, Exact, Options, action_to_list, format_action
from ..text import exact_word

# Where a judgement's values come from (docs/analysis.md).
EXACT = "exact"  # a two-player round a trained duel strategy covers: values under that strategy
ESTIMATE = "estimate"  # the multi-seat (strong) level's expected dice
UNIT = "dice"  # every value is in expected dice of the seat (Tavern's chips converted: see the doc)


def move_text(action: Action, seats: Sequence[str], options: Options) -> str:
    """The move as a player types it at this table ("3x5", "challenge Bob", "calza", "believe")."""
    if isinstance(action, Exact):
        return exact_word(options)
    return format_action(action, seats)


@dataclass(frozen=True)
class JudgedMove:
    """One move open to the seat, as the best bot sees it."""

    action: Action
    value: float  # expected worth in `Judgement.unit`s (higher is better)
    chance: float  # the best bot's chance of playing it (its mix); 0 for a move it never plays
    holds: float | None  # the chance the bid challenged, called exact or made is true (exact: exactly
    #   right) from the seat's own knowledge; None for a pass, fold or vote on a pass
    text: str = ""  # the move in a player's words (`move_text`)

    def to_json(self, seats: Sequence[str]) -> dict[str, Any]:
        return {
            "move": self.text,
            "action": action_to_list(self.action, seats),
            "value": round(self.value, 4),
            "chance": round(self.chance, 4),
            "holds": None if self.holds is None else round(self.holds, 4),
        }


@dataclass(frozen=True)
class Judgement:
    """Every move worth showing at one decision, best first (and the move made, when analysing)."""

    moves: tuple[JudgedMove, ...]
    source: str  # EXACT or ESTIMATE
    unit: str

    def best(self) -> JudgedMove:
        return self.moves[0]

    def find(self, action: Action) -> JudgedMove | None:
        """The judged move `action`, or None if it was not judged."""
        return next((m for m in self.moves if m.action == action), None)

    def mix(self) -> list[JudgedMove]:
        """The moves the best bot may play here, likeliest first."""
        return sorted((m for m in self.moves if m.chance > 0), key=lambda m: -m.chance)

    def to_json(self, seats: Sequence[str]) -> dict[str, Any]:
        return {
            "source": self.source,
            "unit": self.unit,
            "moves": [m.to_json(seats) for m in self.moves],
            "best": self.best().text,
        }
