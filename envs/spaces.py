"""The Gymnasium spaces of a game, built in one place for every view of it.

The AEC shell (:class:`envs.CityEnv`), the batch (:mod:`envs.vector`), the single-seat
env (:class:`envs.SingleAgentEnv`) and the Stable-Baselines3 adapter
(:mod:`envs.vector_sb3`) all take their spaces from here, so that an observation that
fits one fits them all:

* :func:`observation_space` -- the AEC observation ``Dict``: ``"observation"`` (a
  ``float32`` ``Box`` with the game's declared bounds), ``"action_mask"`` (``int8`` 0/1)
  and, with the ``action_values`` option, ``"action_values"`` (``float32`` in
  ``[kernels.greedy.VALUE_FLOOR, 0]``);
* :func:`action_space` -- ``Discrete(num_actions)``;
* :func:`flat_observation_space` / :func:`flat_observation` -- the flat ``Box`` of the
  single-seat views: the observation, followed by the action values when there are any;
* :func:`seat_spaces` -- both spaces of a single-seat view at once;
* :func:`state_space` -- the privileged global view (``CityEnv.state()``).
"""
import numpy as np
from gymnasium import spaces

from kernels import greedy


def observation_space(spec, cfg, action_values=False):
    """The AEC observation ``Dict`` of game ``spec`` configured as ``cfg``."""
    low, high = spec.observation_bounds(cfg)
    space = spaces.Dict({
        "observation": spaces.Box(low=low, high=high, shape=(cfg.obs_size,), dtype=np.float32),
        "action_mask": spaces.Box(low=0, high=1, shape=(spec.num_actions,), dtype=np.int8),
    })
    # Added after the others (Dict sorts the keys it is built with): libraries that flatten
    # the Dict in key order then see the same layout with and without the option.
    if action_values:
        space["action_values"] = spaces.Box(low=greedy.VALUE_FLOOR, high=0.0,
                                            shape=(spec.num_actions,), dtype=np.float32)
    return space


def action_space(spec):
    """``Discrete(num_actions)`` of game ``spec``."""
    return spaces.Discrete(spec.num_actions)


def state_space(spec, cfg):
    """The ``Box`` of ``CityEnv.state()``: every seat's observation, in seat order."""
    box = observation_space(spec, cfg)["observation"]
    n = cfg.num_players
    return spaces.Box(low=np.tile(box.low, n), high=np.tile(box.high, n),
                      shape=(n * cfg.obs_size,), dtype=np.float32)


def flat_observation_space(space):
    """The flat ``Box`` that single-seat views (``envs.SingleAgentEnv``, the batched
    adapters, the policy agents) use for an AEC observation ``Dict`` ``space``: its
    ``"observation"``, followed by its ``"action_values"`` when the env has that option."""
    box = space["observation"]
    if "action_values" not in space.spaces:
        return box
    values = space["action_values"]
    low = np.concatenate([np.broadcast_to(box.low, box.shape), np.broadcast_to(values.low, values.shape)])
    high = np.concatenate([np.broadcast_to(box.high, box.shape), np.broadcast_to(values.high, values.shape)])
    return spaces.Box(low=low, high=high, dtype=np.float32)


def flat_observation(obs):
    """``obs["observation"]`` followed by ``obs["action_values"]`` if it has them (one
    observation or a batch, along the last axis); see :func:`flat_observation_space`."""
    values = obs.get("action_values")
    if values is None:
        return obs["observation"]
    return np.concatenate([obs["observation"], values], axis=-1)


def seat_spaces(spec, cfg, action_values=False):
    """``(observation, action)`` spaces of a single-seat view: the flat ``Box`` and
    ``Discrete(num_actions)``."""
    return flat_observation_space(observation_space(spec, cfg, action_values)), action_space(spec)
