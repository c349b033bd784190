"""`LiarsDiceEnv`: the agent plays `seat`; `opponents` (bot levels of `liarsdice.players.make_bot`,
`exec:COMMAND` included) play every other seat.

Spaces: `Discrete(A)` actions (ids of `liarsdice.rules.encoding`) and a `Dict` observation with
`observation` (`Box(0, 1, (K,), float32)`) and `action_mask` (`Box(0, 1, (A,), int8)`), as in
`liarsdice.pettingzoo`. An action the rules refuse ends the episode with reward -1 and the
reason in `info["illegal"]` (`illegal="raise"` raises ValueError instead): agents that ignore
the mask learn it, and `gymnasium.utils.env_checker.check_env`'s random actions are answered.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from liarsdice.bots import Bot
from liarsdice.pettingzoo.table import (
    check_reward,
    game_returns,
    options_from_keywords,
    play_chance,
    round_rewards,
    table_text,
)
from liarsdice.players import make_bot
from liarsdice.rules import Encoding, Game, GameState, IllegalAction, RoundResolved

ILLEGAL = ("lose", "raise")


class LiarsDiceEnv(gymnasium.Env):  # type: ignore[misc]
    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"]}

    def __init__(
        self,
        preset: str = "perudo",
        *,
        seat: int = 0,
        opponents: str | Sequence[str] = "random",
        reward: str = "game",
        observation: str = "observation",
        illegal: str = "lose",
        render_mode: str | None = None,
        **options: Any,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {', '.join(self.metadata['render_modes'])} or None")
        if illegal not in ILLEGAL:
            raise ValueError(f"illegal must be {' or '.join(ILLEGAL)} (got {illegal!r})")
        if observation not in ("observation", "information_state"):
            raise ValueError(f"observation must be observation or information_state (got {observation!r})")
        self.rules_options = options_from_keywords(preset, options)
        n = self.rules_options.num_players
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0 to {n - 1} (got {seat})")
        levels = [opponents] * (n - 1) if isinstance(opponents, str) else list(opponents)
        if len(levels) != n - 1:
            raise ValueError(f"opponents lists {len(levels)} bots for the {n - 1} other seats")
        for level in levels:
            if not level.startswith("exec:"):
                make_bot(level)  # an unknown level is refused now, with the levels named
        self.seat = seat
        self.levels = levels
        self.reward_mode = check_reward(reward)
        self.observation_kind = observation
        self.illegal = illegal
        self.render_mode = render_mode
        self.encoding = Encoding(self.rules_options)
        self.rules = Game(self.rules_options)
        size = self.encoding.observation_size if observation == "observation" else self.encoding.information_state_size
        a = self.encoding.num_distinct_actions
        self.observation_space = spaces.Dict(
            {
                "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                "action_mask": spaces.Box(0, 1, (a,), np.int8),
            }
        )
        self.action_space = spaces.Discrete(a)
        self._rng = random.Random()
        self._bots: dict[int, Bot] = {}
        self.state_: GameState = self.rules.new_initial_state()

    # ----- gymnasium API -----

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self._rng = random.Random(seed)
        self._close_bots()
        others = [s for s in range(self.rules_options.num_players) if s != self.seat]
        self._bots = {}
        for seat, level in zip(others, self.levels, strict=True):
            bot = make_bot(level, self._rng.randrange(1 << 30))
            bot.start(self.rules, seat)
            self._bots[seat] = bot
        self.state_ = self.rules.new_initial_state()
        rewards = self._play_others()
        if self.render_mode == "human":
            self.render()
        return self._observe(), {"rewards_before_first_turn": rewards}

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        state = self.state_
        if state.is_terminal or state.to_act != self.seat:
            raise RuntimeError("the episode is over: call reset()")
        try:
            if not 0 <= int(action) < self.encoding.num_distinct_actions:
                raise IllegalAction(
                    f"{action} is not an action id: ids are 0 to {self.encoding.num_distinct_actions - 1}"
                )
            legal = self.encoding.legal_ids(state.legal_actions(), state.history)
            if int(action) not in legal:
                raise IllegalAction(f"action {int(action)} ({self.encoding.describe(int(action))}) is not legal now")
            decoded = self.encoding.decode(int(action), state.history)
            self.state_, events = state.apply(decoded, self.seat)
        except IllegalAction as e:
            if self.illegal == "raise":
                raise ValueError(str(e)) from None
            return self._observe(), -1.0, True, False, {"illegal": str(e)}
        reward = self._round_reward(events)
        reward += self._play_others()
        done = self.state_.is_terminal
        if done and self.reward_mode == "game":
            reward = game_returns(self.encoding, self.state_, False)[self.seat]
        if self.render_mode == "human":
            self.render()
        return self._observe(), float(reward), done, False, {}

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = table_text(self.state_, self.rules.seats)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        self._close_bots()

    # ----- helpers -----

    def _close_bots(self) -> None:
        for bot in self._bots.values():
            bot.close()
        self._bots = {}

    def _round_reward(self, events: Sequence[Any]) -> float:
        if self.reward_mode != "round":
            return 0.0
        return sum(
            round_rewards(self.rules_options, e.outcome)[self.seat] for e in events if isinstance(e, RoundResolved)
        )

    def _play_others(self) -> float:
        """Luck and the bots until the agent is to act or the game is over; the agent's round rewards."""
        reward = 0.0
        state = self.state_
        while not state.is_terminal:
            if state.is_chance:
                state = play_chance(state, self._rng)
                continue
            seat = state.to_act
            if seat == self.seat or seat is None:
                break
            action = self._bots[seat].act(state.view(seat))
            state, events = state.apply(action, seat)
            reward += self._round_reward(events)
        self.state_ = state
        return reward

    def _observe(self) -> dict[str, np.ndarray]:
        enc = self.encoding
        view = self.state_.view(self.seat)
        values = enc.observation(view) if self.observation_kind == "observation" else enc.information_state(view)
        mask = np.zeros(enc.num_distinct_actions, np.int8)
        if self.state_.to_act == self.seat and not self.state_.is_terminal:
            mask[enc.legal_ids(self.state_.legal_actions(), self.state_.history)] = 1
        return {"observation": np.asarray(values, np.float32), "action_mask": mask}
