"""What the PettingZoo and Gymnasium environments share: options from keywords, rewards, text."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from liarsdice.rules import (
    Encoding,
    GameState,
    Options,
    OptionsError,
    RoundOutcome,
    format_action,
    preset_options,
)

REWARDS = ("game", "round")


def options_from_keywords(preset: str, options: Mapping[str, Any]) -> Options:
    """A preset with options named as in RULES.md 2.1 (`players` and `pass_rule` also accepted)."""
    overrides = dict(options)
    if "players" in overrides:
        if "num_players" in overrides:
            raise OptionsError("give players or num_players, not both")
        overrides["num_players"] = overrides.pop("players")
    if "pass_rule" in overrides:
        overrides["pass"] = overrides.pop("pass_rule")
    return preset_options(preset, overrides)


def check_reward(reward: str) -> str:
    if reward not in REWARDS:
        raise ValueError(f"reward must be {' or '.join(REWARDS)} (got {reward!r})")
    return reward


def play_chance(state: GameState, rng: random.Random) -> GameState:
    """`state` after luck has had its say (rolls, rerolls, starter draws)."""
    while state.is_chance:
        state, _ = state.apply(state.sample_chance(rng))
    return state


def round_rewards(options: Options, outcome: RoundOutcome) -> list[float]:
    """One round's rewards: dice towards the goal (a die lost is -1 under elimination, a die shed
    +1 under shedding), or the check's +1/-1 in a single-round game, where no die changes hands."""
    if options.rounds == "single":
        n = len(outcome.dice_after)
        out = [0.0] * n
        if outcome.winner is not None:
            out[outcome.winner] = 1.0
        if outcome.loser is not None:
            out[outcome.loser] = -1.0
        return out
    sign = -1.0 if options.goal == "shedding" else 1.0
    return [sign * (after - before) for before, after in zip(outcome.dice_before, outcome.dice_after, strict=True)]


def game_returns(encoding: Encoding, state: GameState, stopped: bool) -> list[float]:
    """The zero-sum returns of a finished (or `stopped`) game, as OpenSpiel's adapter gives them."""
    result = state.result
    if result is None or stopped:
        return encoding.returns(encoding.provisional_places(state.dice, state.out_round))
    return encoding.returns(result.places, result.returns)


def table_text(state: GameState, names: Sequence[str]) -> str:
    """The public table (no cup), for render modes: round, dice, pushed, bets, this round's moves."""
    view = state.view(None)
    lines = [f"round {view.round_no}{' (one-die round)' if view.one_die_round else ''}: {view.phase}"]
    for seat, name in enumerate(names):
        bits = [f"{view.dice[seat]} dice" if view.active[seat] else "out"]
        if view.pushed[seat]:
            bits.append(f"pushed {','.join(map(str, view.pushed[seat]))}")
        if view.chips is not None:
            bits.append(f"{view.chips[seat]} chips")
        mark = "*" if view.to_act == seat else " "
        lines.append(f" {mark}{name}: {', '.join(bits)}")
    if view.chips is not None:
        lines.append(f"  pot {view.round_pot}, running pot {view.running_pot}, bet {view.current_bet}")
    seats = list(names)
    moves = [f"{seats[t.seat]}: {format_action(t.action, seats)}" for t in view.history]
    if moves:
        lines.append("  " + "; ".join(moves))
    outcome = view.last_outcome
    if outcome is not None:
        shown = " | ".join(f"{seats[s]} {','.join(map(str, h))}" for s, h in enumerate(outcome.hands) if h)
        lines.append(f"  last reveal: {shown}")
    if view.result is not None:
        lines.append(f"  game over: places {', '.join(f'{seats[s]} {p}' for s, p in enumerate(view.result.places))}")
    return "\n".join(lines)
