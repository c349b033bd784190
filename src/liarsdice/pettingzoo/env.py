"""The AEC environment: one agent per seat, `player_0` .. `player_{N-1}`.

Spaces (the same for every agent):

- action: `Discrete(A)`, A = `Encoding.num_distinct_actions` (ids as in `liarsdice.rules.encoding`);
- observation: `Dict({"observation": Box(0, 1, (K,), float32), "action_mask": Box(0, 1, (A,), int8)})`,
  K = `Encoding.observation_size` (or `information_state_size` with `observation="information_state"`);
  the mask is all zeros except on the agent's own turn.

Seats that are out stay among `agents`, never selected, until the game ends; then every agent is
terminated (or truncated by `max_cycles`) and must be stepped once with None, as PettingZoo asks.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from liarsdice.rules import Encoding, Game, GameState, RoundResolved

from .table import check_reward, game_returns, options_from_keywords, play_chance, round_rewards, table_text

OBSERVATIONS = ("observation", "information_state")


def env(preset: str = "perudo", **kwargs: Any) -> AECEnv:
    """The environment wrapped as PettingZoo's classic games are (order enforced)."""
    return wrappers.OrderEnforcingWrapper(raw_env(preset, **kwargs))


def raw_env(preset: str = "perudo", **kwargs: Any) -> LiarsDiceAEC:
    return LiarsDiceAEC(preset, **kwargs)


class LiarsDiceAEC(AECEnv):  # type: ignore[misc]
    """Liar's Dice of any preset and options, for PettingZoo.

    `reward="game"` pays the zero-sum returns of OpenSpiel's adapter when the game ends (places:
    +1 first to -1 last; a single round +1/-1 to the check's winner and loser); `reward="round"`
    pays at the end of every round the dice it moved towards the goal (-1 per die lost, +1 per
    die regained, under shedding +1 per die shed; a single round pays +1/-1). `max_cycles`
    truncates a game after `max_cycles * num_players` actions (game rewards then rank the seats
    by the dice they hold). Other keywords are options of RULES.md 2.1 (`players` for
    `num_players`, `pass_rule` for `pass`).
    """

    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["human", "ansi"],
        "name": "liarsdice_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        preset: str = "perudo",
        *,
        render_mode: str | None = None,
        reward: str = "game",
        observation: str = "observation",
        max_cycles: int | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {', '.join(self.metadata['render_modes'])} or None")
        if observation not in OBSERVATIONS:
            raise ValueError(f"observation must be {' or '.join(OBSERVATIONS)} (got {observation!r})")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be at least 1 (got {max_cycles})")
        self.preset = preset
        self.rules_options = options_from_keywords(preset, options)
        self.reward_mode = check_reward(reward)
        self.observation_kind = observation
        self.max_cycles = max_cycles
        self.render_mode = render_mode
        self.encoding = Encoding(self.rules_options)
        n = self.rules_options.num_players
        self.rules = Game(self.rules_options, seats=[f"player_{i}" for i in range(n)])
        self.possible_agents = [f"player_{i}" for i in range(n)]
        size = self.encoding.observation_size if observation == "observation" else self.encoding.information_state_size
        a = self.encoding.num_distinct_actions
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, 1.0, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (a,), np.int8),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(a) for agent in self.possible_agents}
        self._rng = random.Random()
        self.state_: GameState = self.rules.new_initial_state()
        self._moves = 0

    def __str__(self) -> str:
        return f"liarsdice_v0({self.preset})"

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # ----- the AEC API -----

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = random.Random(seed)
        self.state_ = play_chance(self.rules.new_initial_state(), self._rng)
        self._moves = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self._seat_agent()
        if self.render_mode == "human":
            self.render()

    def _seat_agent(self) -> str:
        seat = self.state_.to_act
        return self.possible_agents[seat] if seat is not None else self.agents[0]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        view = self.state_.view(seat)
        enc = self.encoding
        values = enc.observation(view) if self.observation_kind == "observation" else enc.information_state(view)
        mask = np.zeros(enc.num_distinct_actions, np.int8)
        if self.state_.to_act == seat and not self.state_.is_terminal and not self.truncations.get(agent, False):
            mask[enc.legal_ids(self.state_.legal_actions(), self.state_.history)] = 1
        return {"observation": np.asarray(values, np.float32), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.state_
        seat = self.possible_agents.index(agent)
        if action is None or not 0 <= int(action) < self.encoding.num_distinct_actions:
            raise ValueError(
                f"{action!r} is not an action of this game: actions are 0 to {self.encoding.num_distinct_actions - 1}"
            )
        legal = self.encoding.legal_ids(state.legal_actions(), state.history)
        if int(action) not in legal:
            said = self.encoding.describe(int(action))
            raise ValueError(
                f"action {int(action)} ({said}) is not legal for {agent} now: the legal actions are "
                f"{', '.join(f'{i} ({self.encoding.describe(i)})' for i in legal[:20])}"
                + (f" and {len(legal) - 20} more (see the action mask)" if len(legal) > 20 else "")
            )
        decoded = self.encoding.decode(int(action), state.history)
        self._cumulative_rewards[agent] = 0.0
        rewards = [0.0] * len(self.possible_agents)
        state, events = state.apply(decoded, seat)
        events_all = list(events)
        while state.is_chance:
            state, more = state.apply(state.sample_chance(self._rng))
            events_all += more
        self.state_ = state
        self._moves += 1
        if self.reward_mode == "round":
            for e in events_all:
                if isinstance(e, RoundResolved):
                    rewards = [
                        r + x for r, x in zip(rewards, round_rewards(self.rules_options, e.outcome), strict=True)
                    ]
        stopped = (
            not state.is_terminal
            and self.max_cycles is not None
            and self._moves >= self.max_cycles * len(self.possible_agents)
        )
        if state.is_terminal or stopped:
            if self.reward_mode == "game":
                rewards = game_returns(self.encoding, state, stopped)
            for a in self.agents:
                if stopped:
                    self.truncations[a] = True
                else:
                    self.terminations[a] = True
        self.rewards = {a: rewards[self.possible_agents.index(a)] for a in self.agents}
        self.agent_selection = self._seat_agent()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = table_text(self.state_, self.possible_agents)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
