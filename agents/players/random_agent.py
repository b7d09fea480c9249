"""Uniformly random legal play."""
import numpy as np

from agents.base import Agent, action_mask, register
from kernels.playout import pick_uniform


@register("random")
class RandomAgent(Agent):
    """Picks uniformly among the legal actions, from its own seeded generator.

    The draw is :func:`kernels.playout.pick_uniform` on a :mod:`kernels.rng` generator
    seeded with ``seed`` (``self.gen``, see :class:`agents.base.Agent`): the same choice the
    batched games' in-kernel random opponents make (:mod:`envs.vector`)."""

    batch_kind = "random"    # the batched games play it inside numba (envs.vector)

    def act(self, env, agent) -> int:
        # 0/1, as pick_uniform counts it (another library's mask may hold other values)
        mask = np.ascontiguousarray(action_mask(env, agent) != 0, dtype=np.int8)
        a = int(pick_uniform(mask, self.gen, 0))
        if a < 0:
            raise ValueError(f"{agent} has no legal action (is it the agent to move?)")
        return a

    def __repr__(self):
        return f"RandomAgent(seed={self.seed!r})"
