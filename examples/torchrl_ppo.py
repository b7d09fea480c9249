"""TorchRL: masked self-play PPO on a cityzoo AEC environment.

    python examples/torchrl_ppo.py --steps 2000 [--game kingdomino_duel_v0] [--workers 2]

What it shows:

* ``PettingZooWrapper`` on the AEC env.  Turn-based games need ``use_mask=True`` (TorchRL
  refuses AEC envs without it): the ``("agents", "mask")`` entry says which seat is to move.
  ``categorical_actions=True`` keeps actions as integers, and ``return_state=True`` adds the
  env's privileged global ``state()`` (every seat's observation) as a top-level ``"state"``
  entry, which feeds a centralised critic here.  The action mask of the ``Dict`` observation
  becomes ``("agents", "action_mask")``; the flat vector is ``("agents", "observation",
  "observation")``.
* All seats share one group (``MarlGroupMapType.ALL_IN_ONE_GROUP``), hence one policy:
  self-play.
* A masked policy: ``MaskedCategorical`` reads ``("agents", "action_mask")``, so it only
  samples legal moves.
* ``ParallelEnv`` runs the games in worker processes (cityzoo envs pickle cheaply and reuse
  numba's cache there), and a collector (``Collector``, called ``SyncDataCollector`` before
  TorchRL 0.14) gathers batches of frames.
* A PPO update (``ClipPPOLoss`` + GAE) whose per-seat terms are weighted by the mover mask:
  in an AEC frame only one seat acts, the other seats' "actions" are ignored by the env and
  must not be trained on.

TorchRL turns every ``infos`` entry into a tensor, so the env is made with
``numeric_infos=True``: ``scores``, ``ranks`` and a ``won`` flag, fixed-shape numbers from
``reset()`` on (the default infos also carry strings: ``end_reason``, the ``winners`` names).
"""
import argparse
import warnings

import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.envs import ParallelEnv
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import MarlGroupMapType
from torchrl.modules import MaskedCategorical, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

try:                                   # TorchRL >= 0.14
    from torchrl.collectors import Collector
except ImportError:                    # older TorchRL
    from torchrl.collectors import SyncDataCollector as Collector

import envs

GROUP = "agents"          # the one group of MarlGroupMapType.ALL_IN_ONE_GROUP


def make_env(game="kingdomino_duel_v0"):
    # PettingZoo's "tested with 1.24.3" notice from TorchRL is harmless here.
    warnings.filterwarnings("ignore", message="PettingZoo in TorchRL is tested")
    return PettingZooWrapper(envs.make(game, numeric_infos=True), use_mask=True,
                             categorical_actions=True, return_state=True,
                             group_map=MarlGroupMapType.ALL_IN_ONE_GROUP)


class Critic(nn.Module):
    """Centralised critic: global state -> one value per seat, shaped (..., n_agents, 1)."""

    def __init__(self, state_size, n_agents, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(state_size, hidden), nn.Tanh(), nn.Linear(hidden, n_agents))

    def forward(self, state):
        return self.net(state).unsqueeze(-1)


def build(env, hidden=128):
    obs_size = env.observation_spec[GROUP, "observation", "observation"].shape[-1]
    n_actions = env.action_spec[GROUP, "action"].space.n
    n_agents = env.observation_spec[GROUP, "mask"].shape[-1]
    state_size = env.observation_spec["state"].shape[-1]
    logits = TensorDictModule(
        nn.Sequential(nn.Linear(obs_size, hidden), nn.Tanh(), nn.Linear(hidden, n_actions)),
        in_keys=[(GROUP, "observation", "observation")], out_keys=[(GROUP, "logits")])
    policy = ProbabilisticActor(
        logits,
        in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},  # the legal moves
        out_keys=[(GROUP, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(GROUP, "sample_log_prob"))
    critic = TensorDictModule(Critic(state_size, n_agents, hidden), in_keys=["state"],
                              out_keys=[(GROUP, "state_value")])
    return policy, critic


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000, help="environment frames in total")
    parser.add_argument("--game", default="kingdomino_duel_v0", choices=envs.GAMES)
    parser.add_argument("--workers", type=int, default=2, help="ParallelEnv worker processes")
    parser.add_argument("--frames-per-batch", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)

    # A throw-away env to read the specs from.
    probe = make_env(args.game)
    policy, critic = build(probe)
    probe.close()

    # ParallelEnv pickles make_env to each worker process.
    env = ParallelEnv(args.workers, make_env, create_env_kwargs={"game": args.game})
    env.set_seed(args.seed)
    # (TorchRL 0.14 suggests an InitTracker transform for some policies; this one has no
    # recurrent state and does not need it.)
    warnings.filterwarnings("ignore", message=".*missing transforms required by the policy")
    collector = Collector(env, policy, frames_per_batch=args.frames_per_batch,
                          total_frames=args.steps)

    loss = ClipPPOLoss(policy, critic, entropy_coeff=0.01, reduction="none")
    loss.set_keys(action=(GROUP, "action"), sample_log_prob=(GROUP, "sample_log_prob"),
                  value=(GROUP, "state_value"), reward=(GROUP, "reward"),
                  done=(GROUP, "done"), terminated=(GROUP, "terminated"))
    gae = GAE(gamma=0.99, lmbda=0.95, value_network=critic)
    gae.set_keys(reward=(GROUP, "reward"), value=(GROUP, "state_value"),
                 done=(GROUP, "done"), terminated=(GROUP, "terminated"))
    optimiser = torch.optim.Adam(loss.parameters(), lr=3e-4)

    frames, games = 0, 0
    for batch in collector:               # batch: [workers, frames_per_batch / workers]
        frames += batch.numel()
        with torch.no_grad():
            gae(batch)                    # advantage and value target per seat
        # Only the seat to move acted in a frame: weight each seat's policy term by the mask.
        # (The critic is trained for every seat: the state value is defined for all.)
        mover = batch[GROUP, "mask"].float()
        for _ in range(4):
            terms = loss(batch)
            actor = (terms["loss_objective"].squeeze(-1) * mover).sum() / mover.sum()
            entropy = (terms["loss_entropy"].squeeze(-1) * mover).sum() / mover.sum()
            total = actor + entropy + terms["loss_critic"].mean()
            optimiser.zero_grad()
            total.backward()
            nn.utils.clip_grad_norm_(loss.parameters(), 1.0)
            optimiser.step()
        collector.update_policy_weights_()
        ended = batch["next", "done"].squeeze(-1)
        games += int(ended.sum())
        print(f"frames {frames:6d}  games ended {games:4d}  loss {total.item():+.3f}")
    collector.shutdown()                  # also closes the ParallelEnv's workers
    print(f"done: {frames} frames, {games} games")
    return frames


if __name__ == "__main__":
    main()
