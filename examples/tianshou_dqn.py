"""Tianshou: one masked DQN per seat on a cityzoo AEC environment.

    python examples/tianshou_dqn.py --steps 2000 [--game kingdomino_duel_v0] [--envs 4]

What it shows:

* ``tianshou.env.PettingZooEnv`` wraps the AEC env as is: it splits cityzoo's ``Dict``
  observation into ``obs`` (the flat vector), ``mask`` (the legal actions) and ``agent_id``
  (the seat to move), and returns every seat's reward as a list.
* A multi-agent policy manager, ``MultiAgentOffPolicyAlgorithm``, hands each transition to
  the algorithm of the seat that moved.  Each seat gets its own DQN here; Tianshou's DQN
  reads ``obs.mask`` both when acting greedily and when exploring, so only legal moves are
  played.  (Swap a seat's DQN for ``MARLRandomDiscreteMaskedOffPolicyAlgorithm`` to train
  against a random opponent instead.)
* Tianshou's ``DummyVectorEnv`` steps several games; every game has the same seats, so
  the per-seat algorithms work across them.
* The standard off-policy trainer drives collection and updates.

Tianshou stacks every step's ``info`` into arrays of one shape, so the env is made with
``numeric_infos=True``: ``scores``, ``ranks`` and ``won`` only, fixed-shape numbers from
``reset()`` on (the default infos carry the ``winners`` names, a list whose length changes
at the end, and the string ``end_reason``).
"""
import argparse

import numpy as np
import torch
from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import envs


def make_env(game):
    return PettingZooEnv(envs.make(game, numeric_infos=True))


def seat_dqn(env, hidden=128, lr=1e-3):
    """A small DQN for one seat; its policy masks illegal actions through ``obs.mask``."""
    obs_space = env.observation_space["observation"]
    net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n,
              hidden_sizes=[hidden, hidden])
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space,
                                     observation_space=obs_space,
                                     eps_training=0.2, eps_inference=0.0)
    return DQN(policy=policy, optim=AdamOptimizerFactory(lr=lr), gamma=0.99,
               n_step_return_horizon=1, target_update_freq=100)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="environment steps in total")
    parser.add_argument("--game", default="kingdomino_duel_v0", choices=envs.GAMES)
    parser.add_argument("--envs", type=int, default=4, help="games stepped side by side")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)

    probe = make_env(args.game)
    algorithm = MultiAgentOffPolicyAlgorithm(
        algorithms=[seat_dqn(probe) for _ in probe.agents], env=probe)

    train_envs = DummyVectorEnv([lambda: make_env(args.game) for _ in range(args.envs)])
    test_envs = DummyVectorEnv([lambda: make_env(args.game) for _ in range(2)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1)
    buffer = VectorReplayBuffer(max(args.steps, 1000), buffer_num=args.envs)
    train_collector = Collector(algorithm, train_envs, buffer, exploration_noise=True)
    test_collector = Collector(algorithm, test_envs)
    train_collector.reset()
    train_collector.collect(n_step=64 * args.envs)     # warm the buffer before learning

    epoch_steps = max(args.steps // 2, 100)
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=train_collector,
        test_collector=test_collector,
        max_epochs=max(args.steps // epoch_steps, 1),
        epoch_num_steps=epoch_steps,
        collection_step_num_env_steps=10 * args.envs,
        test_step_num_episodes=2,
        batch_size=64,
        update_step_num_gradient_steps_per_sample=0.1,
        # rewards are one per seat: report seat 0's (the game is zero-sum between the seats)
        multi_agent_return_reduction=lambda rew: rew[:, 0],
        show_progress=False,
    ))
    print(result)
    return result


if __name__ == "__main__":
    main()
