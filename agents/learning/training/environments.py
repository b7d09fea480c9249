"""The training VecEnv and who plays the other seats."""
from __future__ import annotations

import functools
import os

import numpy as np
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecEnvWrapper, VecMonitor

import agents
import envs
from agents.learning.training.config import EVAL_OPPONENTS
from agents.learning.training.evaluation import available_agents
from agents.players.policy import SnapshotPool
from envs.vector_sb3 import SB3SeatVecEnv


class VecMaskCache(VecEnvWrapper):
    """Answers MaskablePPO's ``env_method("action_masks")`` from the masks the envs put in
    their step/reset infos, saving a round trip to every worker process per step."""

    def __init__(self, venv):
        super().__init__(venv)
        self._masks = [None] * self.num_envs

    def _take(self, i, info):
        mask = info.get("action_mask") if info else None
        self._masks[i] = None if mask is None else np.asarray(mask, dtype=bool)

    def reset(self):
        obs = self.venv.reset()
        for i, info in enumerate(self.venv.reset_infos):
            self._take(i, info)
        return obs

    def step_wait(self):
        obs, rewards, dones, infos = self.venv.step_wait()
        for i, done in enumerate(dones):
            self._take(i, self.venv.reset_infos[i] if done else infos[i])
        return obs, rewards, dones, infos

    def env_method(self, method_name, *args, indices=None, **kwargs):
        if (method_name == "action_masks" and not args and not kwargs and indices is None
                and all(m is not None for m in self._masks)):
            return list(self._masks)
        return self.venv.env_method(method_name, *args, indices=indices, **kwargs)


def training_opponents(cfg, out):
    """Who plays the other seats: a baseline name, the self-play :class:`SnapshotPool`
    (an opponent factory both kinds of training env call at the start of every game), or
    no one (``none``: a solo game)."""

    mode = cfg.opponents
    if mode == "none":
        return ()
    if mode in ("random", "greedy"):
        return mode
    n_opp = len(envs.make(cfg.game, **cfg.options).possible_agents) - 1
    baselines = tuple(available_agents(EVAL_OPPONENTS)) if mode == "mix" else ()
    return SnapshotPool(os.path.join(out, "pool"), num_opponents=n_opp,
                        latest_prob=cfg.latest_prob, window=cfg.pool_size, baselines=baselines,
                        baseline_prob=cfg.baseline_prob if mode == "mix" else 0.0)


def make_vec_env(cfg, out):
    """The training VecEnv (``cfg`` resolved), wrapped in a VecMonitor that logs win rates:
    ``--env batched``: one :class:`envs.vector_sb3.SB3SeatVecEnv` of ``n_envs`` games, the
    learner's seat rotating from game to game; ``--env aec``: ``n_envs`` SingleAgentEnvs
    (subprocesses when > 1), the learner's seat drawn at random each game."""
    opponents = training_opponents(cfg, out)
    if cfg.env == "batched":
        venv = SB3SeatVecEnv(cfg.game, cfg.n_envs, opponents=opponents, seat="rotate",
                             shaping=cfg.shaping, reward_scale=cfg.reward_scale, **cfg.env_options)
        venv.seed(cfg.seed)
        return VecMonitor(venv, info_keywords=("won",))
    fns = [functools.partial(envs.SingleAgentEnv, cfg.game, opponents=opponents,
                             agent_factory=agents.make,
                             shaping=cfg.shaping, reward_scale=cfg.reward_scale,
                             **cfg.env_options)
           for _ in range(cfg.n_envs)]
    kind = cfg.vec_env
    if kind == "subproc" or (kind == "auto" and cfg.n_envs > 1):
        venv = SubprocVecEnv(fns)
    else:
        venv = DummyVecEnv(fns)
    venv.seed(cfg.seed)
    return VecMonitor(VecMaskCache(venv), info_keywords=("won",))
