"""Where a batched decision's time goes, per game: step alone, then + legal mask, then
+ observation -- the stages of :func:`kernels.batch.batch_functions`' ``step``.

    python -m benchmarks.profile_batch [--rounds 400] [--num-envs 64] [--repeats 5] [--games ...]

The batch is played by uniformly random legal moves on one thread, in one plain loop (no
``prange``), for ``rounds`` decisions per game -- enough to cover whole games, whose late
positions cost more.  Every variant runs the
same games (same seeds, same moves) and differs only in how many times per decision it
calls ``legal_mask`` / ``observe``: the cost of one call is the difference between
variants.  Variants alternate round after round and each keeps its best round (CPU time
of this thread), so a shared machine's noise mostly cancels out.
"""
import time

import numpy as np

import envs
from envs import cli
from benchmarks.batched import _options
from kernels import rng
from kernels.compile_memo import per_kernel, specialise
from kernels.playout import pick_uniform


@per_kernel
def _profile_loop(kernel):
    return specialise(_run, k_init=kernel.init, k_step=kernel.step, k_mask=kernel.legal_mask,
                      k_player=kernel.current_player, k_observe=kernel.observe)


# Specialised per kernel by _profile_loop (k_init ... k_observe: the kernel's functions).
def _run(states, config, seeds, gens, masks, obs, rounds, extra_masks, observes):
    decisions = 0
    for i in range(states.shape[0]):
        k_init(states[i], config, seeds[i])
    for _ in range(rounds):
        for i in range(states.shape[0]):
            state = states[i]
            p = k_player(state)
            k_mask(state, masks[i])
            for _ in range(extra_masks):
                k_mask(state, masks[i])
            for _ in range(observes):
                k_observe(state, p, obs[i])
            k_step(state, pick_uniform(masks[i], gens[i], 0))
            decisions += 1
            if k_player(state) < 0:
                seeds[i] = rng.next_seed(seeds[i])
                k_init(state, config, seeds[i])
    return decisions


def profile(game_id, num_envs, rounds, repeats):
    env = envs.make(game_id, **_options(game_id))
    cfg, spec = env.cfg, env.spec
    run = _profile_loop(spec.kernel)

    def once(extra_masks, observes):
        states = np.zeros((num_envs, cfg.state_size), dtype=np.int64)
        seeds = np.arange(num_envs, dtype=np.int64)
        gens = np.zeros((num_envs, rng.RNG_SLOTS), dtype=np.int64)
        for i in range(num_envs):
            rng.seed_rng(gens[i], 0, i)
        masks = np.zeros((num_envs, spec.num_actions), dtype=np.int8)
        obs = np.zeros((num_envs, cfg.obs_size), dtype=np.float32)
        start = time.thread_time()
        n = run(states, cfg.config, seeds, gens, masks, obs, rounds, extra_masks, observes)
        return (time.thread_time() - start) / n

    variants = {"base": (0, 0), "mask": (1, 0), "obs": (0, 1)}
    once(0, 1)   # compile
    best = {k: float("inf") for k in variants}
    for _ in range(repeats):
        for name, args in variants.items():
            best[name] = min(best[name], once(*args))
    base = best["base"]
    mask = best["mask"] - base
    obs = best["obs"] - base
    return {"step+advance+pick": base - mask, "mask": mask, "observe": obs,
            "total": base + obs, "obs_size": cfg.obs_size}


def main(argv=None):
    p = cli.ArgumentParser(prog="python -m benchmarks.profile_batch", description=__doc__)
    p.add_argument("--rounds", type=cli.positive_int, default=400,
                   help="decisions per game per run (enough to cover whole games: late positions cost more)")
    p.add_argument("--num-envs", type=cli.positive_int, default=64)
    p.add_argument("--repeats", type=cli.positive_int, default=5)
    p.add_argument("--games", nargs="*", type=cli.game_id, default=list(envs.GAMES))
    args = p.parse_args(argv)
    print("| game | obs size | step + advance + pick (ns) | mask (ns) | observe (ns) | total (ns) | decisions/s |")
    print("|---|---|---|---|---|---|---|")
    for gid in args.games:
        r = profile(gid, args.num_envs, args.rounds, args.repeats)
        print(f"| {gid} | {r['obs_size']} | {r['step+advance+pick'] * 1e9:,.0f} | {r['mask'] * 1e9:,.0f} | "
              f"{r['observe'] * 1e9:,.0f} | {r['total'] * 1e9:,.0f} | {1 / r['total']:,.0f} |", flush=True)


if __name__ == "__main__":
    main()
