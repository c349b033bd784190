"""Play one whole game between agents (bots or people), dealing from a seeded generator and
recording every step."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from .bots.base import BotError, Forfeit, Forfeited, Limit
from .paths import records_dir
from .record import Recorder
from .rules import Action, Event, Game, GameOver, GameResult, GameState, IllegalAction, PlayerView, redact


class Agent(Protocol):
    def act(self, view: PlayerView, limit: Limit | None = None) -> Action: ...


class RefusalAware(Protocol):
    def refused(self, action: Action, reason: str) -> None: ...


Observer = Callable[[GameState, tuple[Event, ...]], None]

__all__ = ["Agent", "BotError", "Forfeit", "default_record_path", "forfeit_places", "new_recorder", "play_game"]


def forfeit_places(num_players: int, seat: int) -> tuple[int, ...]:
    """The places of a game a seat forfeited: that seat last, every other seat sharing first."""
    return tuple(num_players if s == seat else 1 for s in range(num_players))


def forfeit_result(num_players: int, seat: int, single_round: bool) -> GameResult:
    """The result of a forfeited game; in a single-round game the others share the +1."""
    places = forfeit_places(num_players, seat)
    returns = None
    if single_round:
        returns = tuple(-1.0 if s == seat else 1.0 / (num_players - 1) for s in range(num_players))
    return GameResult(places=places, last_with_dice=(), returns=returns, running_pot_award=None, chips=None)


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
    close_agents: bool = True,
) -> tuple[GameState, Recorder]:
    """Play to the end. Chance comes from `random.Random(seed)`; each agent sees only its view.

    An agent with a `refused(action, reason)` method (a person) is told why a move was refused
    and asked again; a bot's illegal move raises BotError. Pass your own `recorder` to keep the
    record of a game that an agent stops by raising.

    Optional agent methods: `start(game, seat, preset)` before the first step; `observe(events)`
    after every step, with the events as that seat may see them (`rules.redact`); `close()` at
    the end, however the game ends, unless `close_agents` is False (the caller reuses them).

    An agent that raises `Forfeit` ends the game: it is placed last, the others share first
    place, the observers are told (a `Forfeited` event, then `GameOver`), the record's meta says
    so, and the Forfeit (its `seat` set) propagates to the caller.
    """
    if len(agents) != game.num_players:
        raise ValueError(f"{len(agents)} agents for {game.num_players} seats")
    try:
        return _play(game, agents, seed, preset, players, observer, limit, max_steps, recorder)
    finally:
        if close_agents:
            close_all(agents)


def close_all(agents: Sequence[object]) -> None:
    """Call every agent's `close()`, all of them even if one fails (the first error is raised)."""
    error: BaseException | None = None
    for agent in agents:
        close = getattr(agent, "close", None)
        if close is not None:
            try:
                close()
            except Exception as e:
                error = error or e
    if error is not None:
        raise error


def _play(
    game: Game,
    agents: Sequence[Agent],
    seed: int,
    preset: str | None,
    players: Sequence[Mapping[str, Any]] | None,
    observer: Observer | None,
    limit: Limit | None,
    max_steps: int,
    recorder: Recorder | None,
) -> tuple[GameState, Recorder]:
    rng = random.Random(seed)
    if recorder is None:
        recorder = new_recorder(game, seed=seed, preset=preset, players=players)
    if preset is None:
        preset = recorder.data.get("preset")
    for index, agent in enumerate(agents):
        start = getattr(agent, "start", None)
        if start is not None:
            start(game, index, preset)
    # Only agents that ask for events get them: redacting every event for every seat would cost
    # the arena's built-in bots time for nothing.
    watchers = [(index, agent.observe) for index, agent in enumerate(agents) if hasattr(agent, "observe")]
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
            try:
                action = agent.act(state.view(seat), limit)
            except Forfeit as e:
                e.seat = seat
                result = forfeit_result(game.num_players, seat, game.options.rounds == "single")
                recorder.data["meta"]["forfeit"] = {"seat": game.seats[seat], "reason": e.reason}
                recorder.data["meta"]["stopped"] = f"{game.seats[seat]} forfeited"
                for _, observe in watchers:
                    observe((Forfeited(seat, e.reason), GameOver(result)))
                raise
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
        for watcher_seat, observe in watchers:
            observe(tuple(redact(event, watcher_seat) for event in events))
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
