"""Self-play on the PettingZoo environment: a linear softmax policy trained with REINFORCE, then
played against the uniformly random policy (the `random` bot's play) on both seats.

Both seats share one policy and learn from every game they play against each other; the action
mask keeps every choice legal. Run it from the repository root:

    .venv/bin/python examples/research/selfplay_pettingzoo.py [--games 3000] [--eval 400]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from liarsdice.pettingzoo import env as make_env

OPTIONS = {"preset": "perudo", "players": 2, "dice_per_player": 2}


class LinearPolicy:
    """Softmax over the legal actions of `weights @ observation`."""

    def __init__(self, actions: int, features: int, rng: np.random.Generator) -> None:
        self.weights = np.zeros((actions, features))
        self.rng = rng

    def probabilities(self, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = self.weights @ observation
        logits[mask == 0] = -np.inf
        logits -= logits.max()
        p = np.exp(logits)
        return p / p.sum()

    def act(self, observation: np.ndarray, mask: np.ndarray) -> tuple[int, np.ndarray]:
        p = self.probabilities(observation, mask)
        return int(self.rng.choice(len(p), p=p)), p


def train(games: int, lr: float, rng: np.random.Generator) -> LinearPolicy:
    env = make_env(**OPTIONS)
    env.reset(seed=0)
    agent0 = env.possible_agents[0]
    space = env.observation_space(agent0)["observation"]
    policy = LinearPolicy(env.action_space(agent0).n, space.shape[0], rng)
    for game in range(games):
        env.reset(seed=game)
        steps: dict[str, list[tuple[np.ndarray, int, np.ndarray]]] = {a: [] for a in env.possible_agents}
        final: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            final[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            action, p = policy.act(obs["observation"], obs["action_mask"])
            steps[agent].append((obs["observation"], action, p))
            env.step(action)
        for agent, taken in steps.items():
            for x, a, p in taken:
                grad = -p
                grad[a] += 1.0
                policy.weights += lr * final[agent] * np.outer(grad, x)
    return policy


def evaluate(policy: LinearPolicy, games: int, rng: np.random.Generator) -> float:
    """The learnt policy's win rate against uniformly random legal moves, seats alternating."""
    env = make_env(**OPTIONS)
    wins = 0
    for game in range(games):
        env.reset(seed=100_000 + game)
        learner = env.possible_agents[game % 2]
        final: dict[str, float] = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, _ = env.last()
            final[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            if agent == learner:
                action, _ = policy.act(obs["observation"], mask)
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            env.step(action)
        wins += final[learner] > 0
    return wins / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="self-play games to train on")
    parser.add_argument("--eval", type=int, default=400, help="games against the random policy")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    baseline = evaluate(train(0, args.lr, rng), args.eval, rng)
    print(f"before training: win rate {baseline:.3f} against random ({args.eval} games)")
    policy = train(args.games, args.lr, rng)
    print(f"trained on {args.games} self-play games in {time.perf_counter() - start:.1f} s")
    rate = evaluate(policy, args.eval, rng)
    print(f"after training: win rate {rate:.3f} against random ({args.eval} games)")


if __name__ == "__main__":
    main()
