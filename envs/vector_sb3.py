"""The batched one-seat games as a Stable-Baselines3 ``VecEnv`` (needs the ``train`` extra).

    from envs.vector_sb3 import SB3SeatVecEnv
    from sb3_contrib import MaskablePPO
    venv = SB3SeatVecEnv("kingdomino_duel_v0", 64, opponents="greedy")
    MaskablePPO("MlpPolicy", venv).learn(100_000)

MaskablePPO reads the masks through ``env_method("action_masks")`` (or ``action_masks()``).
SB3's same-step autoreset convention holds: a game that ended has already restarted, and
its last observation is in ``infos[i]["terminal_observation"]`` (with ``final_scores``,
``final_ranks``, the learner's ``seat`` in it and ``won``: the learner ranked first, ties
included), so ``VecMonitor(venv, info_keywords=("won",))`` logs win rates.
"""
import numpy as np
from stable_baselines3.common.vec_env import VecEnv

from envs.vector import SeatVectorEnv


class SB3SeatVecEnv(VecEnv):
    """``num_envs`` games of ``game_id``, the learner in ``seat``, ``opponents`` played
    inside numba (see :class:`envs.vector.VecSeatGame`)."""

    def __init__(self, game_id, num_envs, *, opponents="random", seat=0, **options):
        self.vector = SeatVectorEnv(game_id, num_envs, opponents=opponents, seat=seat, **options)
        self.render_mode = None
        super().__init__(self.vector.num_envs, self.vector.single_observation_space,
                         self.vector.single_action_space)
        self._actions = None
        self._masks = None

    def reset(self):
        seed = self._seeds[0]
        obs, info = self.vector.reset(seed=seed)
        self._reset_seeds()
        self._masks = info["action_mask"].astype(bool)
        return obs

    def step_async(self, actions):
        self._actions = np.asarray(actions).reshape(self.num_envs)

    def step_wait(self):
        obs, rewards, terminated, truncated, info = self.vector.step(self._actions)
        self._masks = info["action_mask"].astype(bool)
        infos = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(terminated):
            seat = int(info["final_seat"][i])
            ranks = info["final_ranks"][i]
            infos[i] = {"terminal_observation": info["final_obs"][i],
                        "final_scores": info["final_scores"][i].tolist(),
                        "final_ranks": ranks.tolist(), "seat": seat,
                        "won": bool(ranks[seat] == 1), "TimeLimit.truncated": False}
        return obs, rewards.astype(np.float32), terminated | truncated, infos

    def action_masks(self):
        return self._masks

    def seed(self, seed=None):
        self._seeds = [seed] * self.num_envs
        return self._seeds

    def close(self):
        pass

    def get_attr(self, attr_name, indices=None):
        return [getattr(self, attr_name)] * len(self._get_indices(indices))

    def set_attr(self, attr_name, value, indices=None):
        setattr(self, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            return [self._masks[i] for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(idx)

    def has_attr(self, attr_name):
        return hasattr(self, attr_name)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(list(self._get_indices(indices)))
