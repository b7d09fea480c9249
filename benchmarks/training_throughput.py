"""Training throughput: MaskablePPO end to end (collection + updates), batched env against
the AEC path, same network and PPO hyper-parameters, same run.

    python -m benchmarks.training_throughput [--timesteps 8192] [--games ...] [--opponents random]

For each game, each path gets the game's ``train.py`` defaults (network, epochs, batch
size, rollout of 2,048 decisions) and differs only in ``--env``: ``aec`` (the previous
default: 2 SingleAgentEnvs in SubprocVecEnv workers, or the game's own ``--vec-env``) and
``batched`` (16 games in one numba batch).  Both first learn one rollout (compiling and
warming up), then ``--timesteps`` more are timed.  Opponents are the same in both
(``random`` by default: in-kernel in the batch, RandomAgent in the AEC env).
"""
import argparse
import os
import tempfile
import time
from dataclasses import replace

import envs


def learner_steps_per_second(cfg, timesteps):
    """Learner decisions per second of ``MaskablePPO.learn`` on ``cfg`` (resolved)."""
    import torch
    from sb3_contrib import MaskablePPO

    import train

    torch.set_num_threads(int(cfg.torch_threads))
    torch.distributions.Distribution.set_default_validate_args(False)
    with tempfile.TemporaryDirectory() as out:
        venv = train.make_vec_env(cfg, out)
        try:
            model = MaskablePPO(train.policy_class(cfg.policy), venv, seed=cfg.seed, device="cpu",
                                learning_rate=cfg.learning_rate, n_steps=cfg.n_steps,
                                batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
                                gae_lambda=cfg.gae_lambda, ent_coef=cfg.ent_coef,
                                clip_range=cfg.clip_range,
                                policy_kwargs=dict(net_arch=list(cfg.net_arch)), verbose=0)
            model.learn(cfg.n_steps * cfg.n_envs)             # compile and warm up
            start_steps, start = model.num_timesteps, time.perf_counter()
            model.learn(timesteps, reset_num_timesteps=False)
            return (model.num_timesteps - start_steps) / (time.perf_counter() - start)
        finally:
            venv.close()


def main(argv=None):
    import train

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--timesteps", type=int, default=8192, help="timed learner decisions per cell")
    p.add_argument("--games", nargs="*", default=list(envs.GAMES))
    p.add_argument("--opponents", default="random", choices=("random", "greedy"))
    p.add_argument("--batched-torch-threads", type=int, default=None,
                   help="torch threads on the batched path (default: the game's setting); "
                        "its games run in the training process, so the second core is free")
    args = p.parse_args(argv)
    if args.batched_torch_threads is not None and args.batched_torch_threads < 1:
        p.error("--batched-torch-threads must be at least 1")
    print("| game | AEC path (env steps/s) | batched (env steps/s) | batched / AEC |")
    print("|---|---|---|---|")
    for game in args.games:
        base = replace(train.defaults_for(game), opponents=args.opponents, out=os.devnull)
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
        print(f"| {game} | {rates['aec']:,.0f} | {rates['batched']:,.0f} | "
              f"{rates['batched'] / rates['aec']:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
