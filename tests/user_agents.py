"""Agents written as a user would write them, for the scorecard's ``module:factory`` SPECs."""
import numpy as np


class _NoisyGreedy:
    def __init__(self, seed):
        import agents

        self.inner = agents.make("greedy", seed=seed, noise=0.3)

    def act(self, env, agent):
        return self.inner.act(env, agent)


def noisy_greedy(seed=None):
    """An object with act(env, agent)."""
    return _NoisyGreedy(seed)


class _FirstLegal:
    def act_batch(self, observations, masks):
        return np.argmax(np.asarray(masks) > 0, axis=1)


def batch_only():
    """An object with act_batch(observations, masks) only (takes no seed)."""
    return _FirstLegal()
