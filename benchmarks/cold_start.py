"""Cold and warm start: a fresh process imports cityzoo, makes a game, resets and steps once.

    python -m benchmarks.cold_start [--game kingdomino_duel_v0 ...]

"Cold" runs with an empty numba cache directory (everything compiles), "warm" runs
again with the cache that the cold run filled.  Without ``--game`` every registered game
is measured.  Besides wall time, the child's CPU time (user + system) is reported: it
barely changes when other jobs share the machine, so before/after comparisons use it.
"""
import os
import resource
import subprocess
import sys
import tempfile
import time

PROBE = """
import numpy as np, envs
env = envs.make({game!r})
env.reset(seed=0)
mask = env.observe(env.agent_selection)["action_mask"]
env.step(int(np.flatnonzero(mask)[0]))
"""

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed_run(game, cache_dir):
    """(wall seconds, CPU seconds) of one fresh process playing the probe."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    cpu0 = _children_cpu()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", PROBE.format(game=game)], check=True, env=env, cwd=ROOT)
    return time.perf_counter() - start, _children_cpu() - cpu0


def measure(game):
    with tempfile.TemporaryDirectory() as cache:
        cold = timed_run(game, cache)
        warm = timed_run(game, cache)
    return cold, warm


def main(argv=None):
    from envs import cli

    p = cli.ArgumentParser(prog="python -m benchmarks.cold_start", description=__doc__)
    p.add_argument("--game", nargs="*", type=cli.game_id, default=None, help="game ids (default: every game)")
    args = p.parse_args(argv)
    import envs
    games = args.game or list(envs.GAMES)
    print("| game | cold start (wall) | cold start (CPU) | warm start (wall) |")
    print("|---|---|---|---|")
    for game in games:
        (cold_wall, cold_cpu), (warm_wall, _) = measure(game)
        print(f"| {game} | {cold_wall:.1f} s | {cold_cpu:.1f} s | {warm_wall:.2f} s |", flush=True)


if __name__ == "__main__":
    main()
