"""The random bot: the baseline every other bot must beat."""

from __future__ import annotations

from ..rules import Action, PlayerView
from .base import Bot, Limit


class RandomBot(Bot):
    """Picks uniformly among the legal actions (pushes and raises included), from its own rng."""

    level = "random"
    description = "any legal move, uniformly at random"

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        if not view.legal_actions:
            raise ValueError(f"{view.seats[view.seat or 0]} has no legal action: it is not this seat's turn")
        return self.rng.choice(view.legal_actions)
