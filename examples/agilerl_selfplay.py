"""AgileRL: masked DQN self-play against a pool of its own frozen copies on a cityzoo AEC env.

    python examples/agilerl_selfplay.py --steps 2000 [--game kingdomino_duel_v0]

AgileRL 2.58 needs ``pettingzoo<1.27`` and its own ``tensordict``, so it lives in a virtual
environment of its own (docs/libraries.md; ``.ci/run`` builds one the same way).

What it shows, in the manner of AgileRL's self-play tutorial for turn-based PettingZoo games
(connect four):

* The AEC env is driven by hand with ``env.agent_iter()`` / ``env.last()``: no wrapper.
  AgileRL's ``DQN`` takes the flat ``observation`` vector (a ``Box``) as its observation
  space, and ``get_action(obs, epsilon, action_mask)`` reads cityzoo's ``action_mask``, so
  both the greedy and the random (exploring) moves are legal.
* One learner, seated at random each game; every other seat is an opponent drawn from a
  pool.  The pool starts with a uniformly random (masked) player and gets a frozen copy of
  the learner (``DQN.clone()``) every ``--snapshot-every`` learner moves; the oldest copies
  drop out (``--pool-size``).  Opponents play greedily with a little noise.
* The learner's transitions go from one of its moves to its next one: the seats move
  several times in a row, and the opponents' moves in between are part of the
  environment.  ``env.last()`` gives the reward gathered since the learner's last move
  (cityzoo rewards only at the end, by rank), and ``done`` when its game ended.  They go to
  AgileRL's ``ReplayBuffer`` as ``Transition`` tensordicts, and ``DQN.learn()`` trains on
  samples every ``learn_step`` learner moves.
* At the end, a few greedy games against the random player give a win rate.

The env is made with ``numeric_infos=True`` only for its ``won`` flag (AgileRL itself never
reads the infos in this loop).

Limits: DQN's target takes the max over all actions of the next state, legal or not (as in
AgileRL's tutorial); there is no population / evolutionary HPO here (AgileRL's
``create_population`` and ``tournament``/``mutations`` would wrap this same loop).
"""
import argparse
import collections
import time

import numpy as np
import torch
from agilerl.algorithms.dqn import DQN
from agilerl.components.data import Transition, transition_to_tensordict
from agilerl.components.replay_buffer import ReplayBuffer

import envs


class RandomPlayer:
    """A uniformly random legal move: the pool's first opponent."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def act(self, obs):
        return int(self.rng.choice(np.flatnonzero(obs["action_mask"])))


class FrozenCopy:
    """A snapshot of the learner (``DQN.clone()``), never trained again."""

    def __init__(self, agent, epsilon=0.05):
        self.agent = agent.clone()
        self.agent.set_training_mode(False)
        self.epsilon = epsilon

    def act(self, obs):
        return int(dqn_action(self.agent, obs, self.epsilon))


def dqn_action(agent, obs, epsilon):
    """One masked epsilon-greedy move: AgileRL's DQN works on batches, hence the ``[None]``."""
    return agent.get_action(obs["observation"][None], epsilon=epsilon,
                            action_mask=obs["action_mask"][None])[0]


def add_transition(memory, obs, action, reward, next_obs, done):
    transition = transition_to_tensordict(Transition(
        obs=obs["observation"][None], action=np.array([action]),
        reward=np.array([reward], dtype=np.float32),
        next_obs=next_obs["observation"][None], done=np.array([done], dtype=np.float32)))
    transition.batch_size = torch.Size([1])
    memory.add(transition)


def play_game(env, learner_seat, players, agent=None, epsilon=0.0, memory=None, seed=None):
    """One game.  ``players`` maps every other seat to an opponent.  With ``memory``, the
    learner's transitions are stored and returned as a count; returns (learner moves, won)."""
    env.reset(seed=seed)
    pending = None                    # the learner's last (observation, action), not yet stored
    moves = 0
    won = False
    for seat in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        done = termination or truncation
        if seat == learner_seat:
            if pending is not None and memory is not None:
                # reward: what the learner gathered since its last move (the end reward here)
                add_transition(memory, *pending, reward, obs, float(termination))
            pending = None
            if done:
                won = bool(info["won"])
            else:
                action = int(dqn_action(agent, obs, epsilon))
                # a copy: the env may reuse its observation arrays
                pending = ({"observation": obs["observation"].copy()}, action)
                moves += 1
        else:
            action = None if done else players[seat].act(obs)
        env.step(None if done else action)
    return moves, won


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="learner moves in total")
    parser.add_argument("--game", default="kingdomino_duel_v0", choices=envs.GAMES)
    parser.add_argument("--snapshot-every", type=int, default=500,
                        help="learner moves between two frozen copies added to the pool")
    parser.add_argument("--pool-size", type=int, default=4, help="opponents kept in the pool")
    parser.add_argument("--eval-games", type=int, default=4, help="greedy games vs random")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    torch.manual_seed(args.seed)
    start = time.perf_counter()

    env = envs.make(args.game, numeric_infos=True)
    env.reset(seed=args.seed)
    seats = list(env.possible_agents)
    agent = DQN(
        observation_space=env.observation_space(seats[0])["observation"],
        action_space=env.action_space(seats[0]),
        net_config={"encoder_config": {"hidden_size": [128, 128]}},
        batch_size=64, lr=1e-3, learn_step=4, gamma=0.99, tau=0.01,
    )
    memory = ReplayBuffer(max_size=max(args.steps, 1000))
    # The pool: a random player first, then frozen copies of the learner.
    pool = collections.deque([RandomPlayer(args.seed)], maxlen=args.pool_size)

    eps, eps_end = 1.0, 0.1
    eps_decay = (eps - eps_end) / max(args.steps * 0.8, 1)     # linear, over 80% of the run
    steps = games = wins = updates = 0
    next_snapshot = args.snapshot_every
    while steps < args.steps:
        learner_seat = seats[rng.integers(len(seats))]
        players = {s: pool[rng.integers(len(pool))] for s in seats if s != learner_seat}
        before = memory.counter
        moves, won = play_game(env, learner_seat, players, agent, eps, memory,
                               seed=int(rng.integers(2**31)))
        steps += moves
        games += 1
        wins += won
        eps = max(eps_end, eps - eps_decay * moves)
        # learn_step: one update per ``learn_step`` stored transitions, once a batch is there
        if len(memory) >= agent.batch_size:
            for _ in range((memory.counter - before) // agent.learn_step):
                agent.learn(memory.sample(agent.batch_size))
                updates += 1
        if steps >= next_snapshot:
            pool.append(FrozenCopy(agent))
            next_snapshot += args.snapshot_every
            print(f"{steps} moves: snapshot added, pool {len(pool)}, eps {eps:.2f}", flush=True)

    # Greedy games against the random player, the learner in every seat in turn.
    agent.set_training_mode(False)
    eval_wins = 0
    for g in range(args.eval_games):
        learner_seat = seats[g % len(seats)]
        players = {s: RandomPlayer(args.seed + 1 + g) for s in seats if s != learner_seat}
        eval_wins += play_game(env, learner_seat, players, agent, 0.0, seed=10_000 + g)[1]

    print(f"done: {steps} steps, {games} games ({wins} won in training), {updates} updates, "
          f"pool {len(pool)}; greedy vs random: {eval_wins}/{args.eval_games} won "
          f"({time.perf_counter() - start:.0f} s)")
    return agent


if __name__ == "__main__":
    main()
