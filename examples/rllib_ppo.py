"""RLlib (Ray): multi-agent self-play PPO with action masking on a local Ray cluster.

    python examples/rllib_ppo.py --steps 400 [--iterations 2] [--game kingdomino_duel_v0]

What it shows:

* RLlib's own ``PettingZooEnv`` wrapper turns the turn-based AEC env into an RLlib
  ``MultiAgentEnv`` (each step returns the observation of the seat to move next).
* Masking with RLlib's action-masking RLModule, ``ActionMaskingTorchRLModule`` (shipped in
  ``ray.rllib.examples``): a PPO module that adds ``log(mask)`` to the logits.  It expects
  each observation as ``{"observations": ..., "action_mask": ...}``, so the small
  PettingZoo wrapper ``RLlibKeys`` below renames cityzoo's ``"observation"`` key (and gives
  the mask as ``float32``).  (In Ray 2.60 the module still derives from the deprecated
  ``PPOTorchRLModule``, hence RLlib's deprecation notices in the log.)
* All seats map to one shared policy (self-play); PPO on RLlib's new API stack.
* RLlib's env checker steps sampled actions without looking at the mask.  The env is made
  with ``illegal_action="terminate"`` so that such a move ends the game with -1 for the
  offender (PettingZoo's classic semantics) instead of raising; the checker stays on.
  (The alternative is ``config.environment(disable_env_checking=True)`` with the default
  ``illegal_action="raise"``.)  In training the mask keeps every move legal.
* ``ray.init(num_cpus=2)``: a local Ray cluster the size of a small machine.

Installing: ``pip install "ray[rllib]"`` pins ``gymnasium==1.2.2``; see docs/libraries.md
("Use with your library") for running RLlib next to cityzoo's newer gymnasium.
"""
import argparse
import warnings

import numpy as np
import ray
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

import envs


class RLlibKeys(BaseWrapper):
    """cityzoo observations in the layout RLlib's action-masking module reads."""

    def __init__(self, env):
        super().__init__(env)
        self._spaces = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            n = inner["action_mask"].shape[0]
            self._spaces[agent] = spaces.Dict({
                "observations": inner["observation"],
                "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32)})

    def observation_space(self, agent):
        return self._spaces[agent]

    def observe(self, agent):
        obs = self.env.observe(agent)
        return {"observations": obs["observation"],
                "action_mask": obs["action_mask"].astype(np.float32)}


def make_env(config):
    game = config.get("game", "kingdomino_duel_v0")
    # Illegal moves (only the env checker makes them) end the game instead of raising.
    warnings.filterwarnings("ignore", message="illegal move by")
    return PettingZooEnv(RLlibKeys(envs.make(game, illegal_action="terminate")))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400, help="env steps in total")
    parser.add_argument("--iterations", type=int, default=2, help="training iterations")
    parser.add_argument("--game", default="kingdomino_duel_v0", choices=envs.GAMES)
    parser.add_argument("--env-runners", type=int, default=1,
                        help="remote sampling workers (0: sample in the driver)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    batch = max(args.steps // args.iterations, 32)          # env steps per iteration

    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True)
    register_env("cityzoo", make_env)
    config = (
        PPOConfig()
        .environment("cityzoo", env_config={"game": args.game})
        .multi_agent(policies={"shared"},
                     policy_mapping_fn=lambda agent_id, episode, **kwargs: "shared")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
            "shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                   model_config={"head_fcnet_hiddens": [64, 64]})}))
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=1)
        .training(train_batch_size_per_learner=batch, minibatch_size=min(128, batch),
                  num_epochs=2, lr=3e-4)
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    try:
        for i in range(args.iterations):
            result = algo.train()
            runners = result["env_runners"]
            print(f"iteration {i + 1}: env steps {runners['num_env_steps_sampled_lifetime']}, "
                  f"episodes {runners.get('num_episodes_lifetime', 0)}")
    finally:
        algo.stop()
        ray.shutdown()
    return result


if __name__ == "__main__":
    main()
