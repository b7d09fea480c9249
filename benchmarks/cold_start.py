"""Cold and warm start: a fresh process imports cityzoo, makes a game, resets and steps once.

    python -m benchmarks.cold_start [--game kingdomino_duel_v0]

"Cold" runs with an empty numba cache directory (everything compiles), "warm" runs
again with the cache that the cold run filled.
"""
import argparse
import os
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


def timed_run(game, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", PROBE.format(game=game)], check=True, env=env,
                   cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    return time.perf_counter() - start


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--game", default="kingdomino_duel_v0")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as cache:
        cold = timed_run(args.game, cache)
        warm = timed_run(args.game, cache)
    print(f"| {args.game} | cold start {cold:.1f} s | warm start {warm:.2f} s |")


if __name__ == "__main__":
    main()
