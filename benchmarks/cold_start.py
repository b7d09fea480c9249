"""Cold and warm start: a fresh process imports cityzoo and does one thing for the first time.

    python -m benchmarks.cold_start [--game kingdomino_duel_v0 ...] [--probe env agents training]

Probes (each in its own fresh process):

``env``
    make the game, reset and step once (the kernels);
``agents``
    at a two-seat table, the first move of ``greedy``, of ``mcts`` (50 iterations) and of
    ``az`` (16 simulations, the shipped network): the search loops specialised on the game;
``training``
    a batch of 4 training games against greedy opponents (``envs.vector.VecSeatGame``):
    reset and one step, what ``train.py`` compiles before its first update.

"Cold" runs with an empty numba cache directory (everything compiles), "warm" runs
again with the cache that the cold run filled: what every later process pays -- a new
``train.py`` or tournament run, each worker process of one.  Without ``--game`` every
registered game is measured, without ``--probe`` only ``env``.  Besides wall time, the
child's CPU time (user + system) is reported: it barely changes when other jobs share the
machine, so before/after comparisons use it.
"""
import os
import resource
import subprocess
import sys
import tempfile
import time

PROBES = {
    "env": """
import numpy as np, envs
env = envs.make({game!r})
env.reset(seed=0)
mask = env.observe(env.agent_selection)["action_mask"]
env.step(int(np.flatnonzero(mask)[0]))
""",
    "agents": """
import agents, envs
env = envs.make({game!r}, num_players=2)
env.reset(seed=0)
for name, options in (("greedy", {{}}), ("mcts", {{"simulations": 50}}),
                      ("az", {{"game": {game!r}, "simulations": 16}})):
    agents.make(name, seed=0, **options).act(env, env.agent_selection)
""",
    "training": """
import numpy as np
from envs.vector import VecSeatGame
games = VecSeatGame({game!r}, 4, opponents="greedy")
observation, info = games.reset(seed=0)
games.step(np.array([int(np.flatnonzero(m)[0]) for m in observation["action_mask"]]))
""",
}

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(game, cache_dir, probe="env"):
    """(wall seconds, CPU seconds) of one fresh process running ``probe`` on ``game``
    (``cache_dir`` None: numba's usual cache)."""
    env = dict(os.environ) if cache_dir is None else dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    cpu0 = _children_cpu()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", PROBES[probe].format(game=game)], check=True, env=env, cwd=ROOT)
    return time.perf_counter() - start, _children_cpu() - cpu0


def measure(game, probe="env"):
    with tempfile.TemporaryDirectory() as cache:
        cold = timed_run(game, cache, probe)
        warm = timed_run(game, cache, probe)
    return cold, warm


def main(argv=None):
    from envs import cli

    p = cli.ArgumentParser(prog="python -m benchmarks.cold_start", description=__doc__)
    p.add_argument("--game", nargs="*", type=cli.game_id, default=None, help="game ids (default: every game)")
    p.add_argument("--probe", nargs="*", choices=sorted(PROBES), default=["env"],
                   help="what the fresh process does (default: env)")
    args = p.parse_args(argv)
    import envs
    games = args.game or list(envs.GAMES)
    print("| game | probe | cold start (wall) | cold start (CPU) | warm start (wall) | warm start (CPU) |")
    print("|---|---|---|---|---|---|")
    for game in games:
        for probe in args.probe:
            (cold_wall, cold_cpu), (warm_wall, warm_cpu) = measure(game, probe)
            print(f"| {game} | {probe} | {cold_wall:.1f} s | {cold_cpu:.1f} s | {warm_wall:.2f} s "
                  f"| {warm_cpu:.2f} s |", flush=True)


if __name__ == "__main__":
    main()
