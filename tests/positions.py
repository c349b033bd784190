"""Set up a round exactly and play moves on it: the helpers the bot tests share."""

from __future__ import annotations

from collections.abc import Sequence

from liarsdice.rules import AnyAction, Game, GameState, preset_options


def position(preset: str, hands: Sequence[Sequence[int]], starter: int = 0, **kwargs: object) -> GameState:
    """A round of `preset` with these cups, `starter` to open; `options` overrides the preset."""
    overrides = kwargs.pop("options", {})
    assert isinstance(overrides, dict)
    game = Game(preset_options(preset, {"num_players": len(hands), **overrides}))
    return game.position(hands, starter=starter, **kwargs)  # type: ignore[arg-type]


def play(state: GameState, *actions: AnyAction) -> GameState:
    for action in actions:
        state, _ = state.apply(action)
    return state
