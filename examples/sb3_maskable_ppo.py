"""Stable-Baselines3 / sb3-contrib: MaskablePPO on one seat of a cityzoo game.

    python examples/sb3_maskable_ppo.py --steps 2000 [--game kingdomino_duel_v0] [--opponent random]

What it shows:

* ``gymnasium.make("cityzoo/KingdominoDuel-v0", ...)`` (registered by ``import envs``;
  ``envs.gymnasium_id(game)`` gives any game's id) builds ``envs.SingleAgentEnv``: the
  learner plays one seat, the other seats are played inside the env by baseline agents
  (named here, built by ``agent_factory=agents.make``).  Its observation is the flat
  ``Box``; the legal moves come from ``action_masks()``, which MaskablePPO calls by itself.
* ``make_vec_env`` + ``SubprocVecEnv`` run the games in worker processes (the env's
  arguments are plain picklable values).
* sb3's ``MlpPolicy`` needs a ``Box`` observation: give it ``SingleAgentEnv`` (or the
  gymnasium id), not the AEC env's ``Dict`` observation.  SuperSuit's
  ``pettingzoo_env_to_vec_env_v1`` / ``concat_vec_envs_v1`` path does not apply: it is for
  Parallel envs with ``Box`` observations, and cityzoo games are turn-based AEC envs.

``train.py`` is the full version of this (self-play pools, evaluation, checkpoints).
"""
import argparse

import gymnasium
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.evaluation import evaluate_policy
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

import agents
import envs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="learner steps in total")
    parser.add_argument("--game", default="kingdomino_duel_v0", choices=envs.GAMES)
    parser.add_argument("--opponent", default="random", help="agent name for every other seat")
    parser.add_argument("--envs", type=int, default=2)
    parser.add_argument("--subproc", action="store_true", help="SubprocVecEnv instead of DummyVecEnv")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    env_id = envs.gymnasium_id(args.game)                # e.g. "cityzoo/KingdominoDuel-v0"
    others = envs.make(args.game).cfg.num_players - 1
    env_kwargs = dict(opponents=[args.opponent] * others, agent_factory=agents.make)
    vec_env = make_vec_env(env_id, n_envs=args.envs, seed=args.seed, env_kwargs=env_kwargs,
                           vec_env_cls=SubprocVecEnv if args.subproc else DummyVecEnv)

    n_steps = max(64, min(512, args.steps // args.envs))
    model = MaskablePPO("MlpPolicy", vec_env, n_steps=n_steps, batch_size=64, n_epochs=4,
                        seed=args.seed, verbose=0)
    model.learn(total_timesteps=args.steps)

    # Evaluation on a plain (non-vectorised) env: the masks come from env.action_masks().
    eval_env = Monitor(gymnasium.make(env_id, **env_kwargs))
    mean, std = evaluate_policy(model, eval_env, n_eval_episodes=4, use_masking=True)
    print(f"{args.steps} steps; mean reward vs {args.opponent}: {mean:+.2f} +- {std:.2f}")
    vec_env.close()
    return mean


if __name__ == "__main__":
    main()
