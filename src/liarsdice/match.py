"""Play one whole game between agents (bots or people), dealing from a seeded generator and
recording every step."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from .bots.base import Limit
from .paths import records_dir
from .record import Recorder
from .rules import Action, Event, Game, GameState, IllegalAction, PlayerView


class Agent(Protocol):
    def act(self, view: PlayerView, limit: Limit | None = None) -> Action: ...


class RefusalAware(Protocol):
    def refused(self, action: Action, reason: str) -> None: ...


Observer = Callable[[GameState, tuple[Event, ...]], None]


class BotError(RuntimeError):
    """A bot chose an action the rules refuse: a bug in the bot, never a player's mistake."""


def play_game(
    game: Game,
    agents: Sequence[Agent],
    *,
    seed: int,
    preset: str | None = None,
    players: Sequence[Mapping[str, Any]] | None = None,
    observer: Observer | None = None,
    limit: Limit | None = None,
    max_steps: int = 1_000_000,
    recorder: Recorder | None = None,
) -> tuple[GameState, Recorder]:
    """Play to the end. Chance comes from `random.Random(seed)`; each agent sees only its view.

    An agent with a `refused(action, reason)` method (a person) is told why a move was refused
    and asked again; a bot's illegal move raises BotError. Pass your own `recorder` to keep the
    record of a game that an agent stops by raising.
    """
    if len(agents) != game.num_players:
        raise ValueError(f"{len(agents)} agents for {game.num_players} seats")
    rng = random.Random(seed)
    if recorder is None:
        recorder = new_recorder(game, seed=seed, preset=preset, players=players)
    state = game.new_initial_state()
    steps = 0
    while not state.is_terminal:
        steps += 1
        if steps > max_steps:
            raise RuntimeError(f"the game did not end within {max_steps} steps")
        if state.is_chance:
            state, events = recorder.apply(state, state.sample_chance(rng))
        else:
            seat = state.to_act
            assert seat is not None
            agent = agents[seat]
            action = agent.act(state.view(seat), limit)
            try:
                state, events = recorder.apply(state, action)
            except IllegalAction as e:
                refused = getattr(agent, "refused", None)
                if refused is None:
                    raise BotError(f"{game.seats[seat]} ({agent!r}) chose an illegal action {action!r}: {e}") from e
                refused(action, str(e))
                continue
        if observer is not None:
            observer(state, events)
    recorder.data["meta"]["finished"] = datetime.now(UTC).isoformat(timespec="seconds")
    return state, recorder


def new_recorder(
    game: Game,
    *,
    seed: int,
    preset: str | None = None,
    players: Sequence[Mapping[str, Any]] | None = None,
) -> Recorder:
    return Recorder(
        game,
        seed=seed,
        preset=preset,
        players=players,
        meta={"started": datetime.now(UTC).isoformat(timespec="seconds")},
    )


def default_record_path(preset: str | None, seed: int, directory: Path | None = None) -> Path:
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return (directory or records_dir()) / f"{stamp}-{preset or 'custom'}-{seed}.json"
