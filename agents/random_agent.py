"""Uniformly random legal play."""
import numpy as np

from agents.base import Agent, action_mask, register


@register("random")
class RandomAgent(Agent):
    """Picks uniformly among the legal actions, from its own seeded generator."""

    def __init__(self, seed=None):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self):
        pass

    def act(self, env, agent) -> int:
        legal = np.flatnonzero(action_mask(env, agent))
        if legal.size == 0:
            raise ValueError(f"{agent} has no legal action (is it the agent to move?)")
        return int(legal[self.rng.integers(legal.size)])

    def __repr__(self):
        return f"RandomAgent(seed={self.seed!r})"
