"""Batched random play: ``envs.make_vec`` games stepped by one numba call, against the
AEC path, on 1 and 2 threads.

    python -m benchmarks.batched [--seconds 2] [--rounds 3] [--num-envs 128] [--games ...]
                                 [--batch-sizes 64 128 256 1024]

Every decision of every game is produced as the user gets it: the observation of the
seat to move and its legal mask (``copy=False``: the batch's own buffers, which a
training loop consumes at once).  The random legal actions are drawn inside numba
(:func:`kernels.batch.random_actions`), so the figures measure the environment, not the
action sampling.  Besides: memory per game in the batch and the largest batch that fits
in 4 GB, PettingZoo's connect_four through AEC, and Pgx's connect_four at batch 1,024
(Pgx's own setting; XLA runs it on every core) when the optional ``pgx`` package is
installed.

Each cell is measured ``--rounds`` times, the cells of a game taking turns, and keeps its
best round: a shared machine's slow spells then hit every column alike instead of one.

The default batch is 128 games: a batch whose memory (bytes per game x games) outgrows
the CPU's last-level cache (16 MB on the development machine) streams every observation
through main memory, and two threads then wait on it.  ``--batch-sizes`` adds a table of
batched decisions/s by batch size on 1 and 2 threads.
"""
import functools
import time

import numpy as np

import envs
from envs import cli
from benchmarks.throughput import BENCH_PLAYERS, aec_random_play, best_of
from envs.vector import VecGame
from kernels import batch, rng


def _options(game_id):
    n = BENCH_PLAYERS.get(game_id)
    return {"num_players": n} if n and game_id != "kingdomino_duel_v0" else {}


def batched_random_play(game_id, num_envs, seconds, threads, seed=0):
    """Decisions/s of batched random play on ``threads`` threads."""
    batch.set_threads(threads)
    venv = VecGame(game_id, num_envs, copy=False, **_options(game_id))
    obs, _ = venv.reset(seed=seed)
    gens = np.zeros((num_envs, rng.RNG_SLOTS), dtype=np.int64)
    for i in range(num_envs):
        rng.seed_rng(gens[i], 0, seed + i)
    actions = np.zeros(num_envs, dtype=np.int64)
    for _ in range(3):    # compile and warm up
        batch.random_actions(obs["action_mask"], gens, actions)
        obs, *_ = venv.step(actions)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        batch.random_actions(obs["action_mask"], gens, actions)
        obs, *_ = venv.step(actions)
        steps += 1
    return steps * num_envs / (time.perf_counter() - start)


def bytes_per_game(game_id):
    venv = VecGame(game_id, 1, **_options(game_id))
    cfg, spec = venv.cfg, venv.spec
    participants = max(cfg.num_participants, cfg.num_players)
    return (cfg.state_size * 8 + cfg.obs_size * 4 + spec.num_actions + 8 * 2
            + cfg.num_players * (8 + 8) + participants * 8 + 1)


def batch_size_table(game_ids, sizes, threads, seconds, rounds=1):
    """A markdown table: each game's batched decisions/s at each batch size and thread
    count (best of ``rounds``)."""
    lines = ["| environment | bytes per game | " + " | ".join(
        f"{n:,} games, {t} thread{'s' if t > 1 else ''}" for t in threads for n in sizes) + " |",
        "|---|---|" + "---|" * (len(sizes) * len(threads))]
    for game_id in game_ids:
        per_game = bytes_per_game(game_id)
        cells = best_of(rounds, [functools.partial(batched_random_play, game_id, n, seconds, t)
                                 for t in threads for n in sizes])
        lines.append(f"| {game_id} | {per_game:,} | " + " | ".join(f"{r:,.0f}" for r in cells) + " |")
    return lines


PGX_BATCH = 1024     # Pgx's own benchmark batch


def pgx_connect_four(seconds, num_envs=PGX_BATCH):
    try:
        import jax
        import pgx
    except ImportError:
        return None
    env = pgx.make("connect_four")
    init, step = jax.jit(jax.vmap(env.init)), jax.jit(jax.vmap(env.step))
    key = jax.random.PRNGKey(0)
    state = init(jax.random.split(key, num_envs))

    @jax.jit
    def act(key, mask):
        logits = jax.numpy.where(mask, 0.0, -1e9)
        return jax.random.categorical(key, logits, axis=-1)

    for _ in range(3):
        key, sub = jax.random.split(key)
        state = step(state, act(sub, state.legal_action_mask))
    state.current_player.block_until_ready()
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        key, sub = jax.random.split(key)
        state = step(state, act(sub, state.legal_action_mask))
        steps += 1
    state.current_player.block_until_ready()
    return steps * num_envs / (time.perf_counter() - start)


def main(argv=None):
    p = cli.ArgumentParser(prog="python -m benchmarks.batched", description=__doc__)
    p.add_argument("--seconds", type=cli.positive_float, default=2.0, help="measuring time per cell and round")
    p.add_argument("--rounds", type=cli.positive_int, default=3, help="rounds per cell (the best one counts)")
    p.add_argument("--num-envs", type=cli.positive_int, default=128, help="games in the batch")
    p.add_argument("--games", nargs="*", type=cli.game_id, default=list(envs.GAMES), help="game ids (default: all)")
    p.add_argument("--batch-sizes", nargs="*", type=int, default=[],
                   help="also measure these batch sizes (a table by batch size and threads)")
    args = p.parse_args(argv)
    if args.num_envs < 1 or any(n < 1 for n in args.batch_sizes):
        p.error("batch sizes must be at least 1")
    if args.rounds < 1:
        p.error("--rounds must be at least 1")
    threads = [t for t in (1, 2) if t <= batch.max_threads()]
    print(f"batch of {args.num_envs} games; numba threads available: {batch.max_threads()}\n")
    head = " | ".join(f"batched, {t} thread{'s' if t > 1 else ''}" for t in threads)
    print(f"| environment | players | AEC decisions/s | {head} | batched / AEC (1 thread) | "
          f"2 threads / 1 thread | bytes per game | games in 4 GB |")
    print("|---|---|---|" + "---|" * len(threads) + "---|---|---|---|")
    from pettingzoo.classic import connect_four_v3
    c4_env = connect_four_v3.env()
    c4, = best_of(args.rounds, [lambda: aec_random_play(c4_env, args.seconds)[0]])
    print(f"| pettingzoo connect_four_v3 | 2 | {c4:,.0f} |" + " — |" * len(threads) + " — | — | — | — |")
    pgx_rate = pgx_connect_four(args.seconds, PGX_BATCH)
    if pgx_rate:
        print(f"| pgx connect_four (CPU, batch {PGX_BATCH}) | 2 | — | {pgx_rate:,.0f} |"
              + " — |" * (len(threads) - 1) + " — | — | — | — |")
    for game_id in args.games:
        env = envs.make(game_id, **_options(game_id))
        aec_random_play(env, 0.2)
        aec, *rates = best_of(args.rounds, [lambda: aec_random_play(env, args.seconds)[0]] + [
            functools.partial(batched_random_play, game_id, args.num_envs, args.seconds, t)
            for t in threads])
        per_game = bytes_per_game(game_id)
        scaling = f"{rates[1] / rates[0]:.2f}x" if len(rates) > 1 else "—"
        print(f"| {game_id} | {env.cfg.num_players} | {aec:,.0f} | "
              + " | ".join(f"{r:,.0f}" for r in rates)
              + f" | {rates[0] / aec:.1f}x | {scaling} | {per_game:,} | {(4 << 30) // per_game:,} |", flush=True)
    if args.batch_sizes:
        print("\nBatched decisions/s by batch size:\n")
        print("\n".join(batch_size_table(args.games, args.batch_sizes, threads, args.seconds,
                                          args.rounds)), flush=True)
    batch.set_threads(batch.max_threads())


if __name__ == "__main__":
    main()
