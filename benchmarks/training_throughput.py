"""Training throughput: MaskablePPO end to end (collection + updates), batched env against
the AEC path, same network and PPO hyper-parameters, same run.

    python -m benchmarks.training_throughput [--timesteps 8192] [--games ...] [--opponents random]

For each game, each path gets the game's ``train.py`` defaults (network, epochs, batch
size, rollout of 2,048 decisions) and differs only in ``--env``: ``aec`` (the previous
default: 2 SingleAgentEnvs in SubprocVecEnv workers, or the game's own ``--vec-env``) and
``batched`` (16 games in one numba batch).  Both first learn one rollout (compiling and
warming up), then ``--timesteps`` more are timed.  Opponents are the same in both
(``random`` by default: in-kernel in the batch, RandomAgent in the AEC env).

The table also gives the seconds each path spent in PPO's updates (``MaskablePPO.train``:
the gradient epochs over each rollout, the same work on both paths) and what batching
could give at most: the AEC path's whole time over the batched path's update time, the
ratio if collecting the batched rollouts cost nothing.
"""
import os
import tempfile
import time
from dataclasses import replace

import envs
from envs import cli


def learner_steps_per_second(cfg, timesteps):
    """``(learner decisions per second, seconds in all, seconds in updates)`` of
    ``MaskablePPO.learn`` on ``cfg`` (resolved) over ``timesteps`` decisions."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.learning.training import environments, model as training_model

    torch.set_num_threads(int(cfg.torch_threads))
    torch.distributions.Distribution.set_default_validate_args(False)
    with tempfile.TemporaryDirectory() as out:
        venv = environments.make_vec_env(cfg, out)
        try:
            model = MaskablePPO(training_model.policy_class(cfg.policy), venv, seed=cfg.seed, device="cpu",
                                learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
                                batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
                                gae_lambda=cfg.gae_lambda, ent_coef=cfg.ent_coef,
                                clip_range=cfg.clip_range,
                                policy_kwargs=training_model.policy_kwargs(cfg), verbose=0)
            model.learn(cfg.n_steps * cfg.n_envs)             # compile and warm up
            update_seconds = [0.0]
            run_updates = model.train

            def timed_updates():     # learn() calls self.train() once per rollout
                t = time.perf_counter()
                run_updates()
                update_seconds[0] += time.perf_counter() - t

            model.train = timed_updates
            start_steps, start = model.num_timesteps, time.perf_counter()
            model.learn(timesteps, reset_num_timesteps=False)
            seconds = time.perf_counter() - start
            return (model.num_timesteps - start_steps) / seconds, seconds, update_seconds[0]
        finally:
            venv.close()


def main(argv=None):
    from agents.learning.training.recipes import defaults_for

    p = cli.ArgumentParser(prog="python -m benchmarks.training_throughput", description=__doc__)
    p.add_argument("--timesteps", type=cli.positive_int, default=8192, help="timed learner decisions per cell")
    p.add_argument("--games", nargs="*", type=cli.game_id, default=list(envs.GAMES))
    p.add_argument("--opponents", default="random", choices=("random", "greedy"))
    p.add_argument("--batched-torch-threads", type=cli.positive_int, default=None,
                   help="torch threads on the batched path (default: the game's setting); "
                        "its games run in the training process, so the second core is free")
    args = p.parse_args(argv)
    if args.batched_torch_threads is not None and args.batched_torch_threads < 1:
        p.error("--batched-torch-threads must be at least 1")
    print("| game | AEC path (learner steps/s) | batched (learner steps/s) | batched / AEC | "
          "AEC: seconds (updates) | batched: seconds (updates) | at most (AEC seconds / "
          "batched updates) |")
    print("|---|---|---|---|---|---|---|")
    for game in args.games:
        base = replace(defaults_for(game), opponents=args.opponents, out=os.devnull)
        rates = {}
        for kind in ("aec", "batched"):
            cfg = replace(base, env=kind)
            if kind == "batched":
                cfg = replace(cfg, n_envs=None, n_steps=None)   # 16 games x 128 steps
                if args.batched_torch_threads:
                    cfg = replace(cfg, torch_threads=args.batched_torch_threads)
            elif base.env == "batched" and base.n_envs is None:
                cfg = replace(cfg, n_envs=None, n_steps=None)   # 2 workers x 1024 steps
            rates[kind] = learner_steps_per_second(cfg.resolved(), args.timesteps)
        (aec, aec_s, aec_u), (bat, bat_s, bat_u) = rates["aec"], rates["batched"]
        print(f"| {game} | {aec:,.0f} | {bat:,.0f} | {bat / aec:.1f}x | {aec_s:.1f} ({aec_u:.1f}) | "
              f"{bat_s:.1f} ({bat_u:.1f}) | {aec_s / bat_u:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
