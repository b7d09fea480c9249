"""The recipes of examples/ run as a user runs them (``python examples/<name>.py --steps N``),
for a few hundred steps each.  Slow (library start-up, worker processes, a Ray cluster):
run by ``.ci/run`` in its ``-m slow`` stage.  A recipe whose library is not installed is
skipped."""
import os
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1200)]


def run_recipe(name, *args, timeout=900):
    env = dict(os.environ)
    # The repository first on the path, as for an installed cityzoo; keep the caller's path.
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH")) if p)
    # Tiny networks on a small machine running other tests too: one torch thread per process
    # (several threads per process spin against each other; this cut Tianshou's run 6x).
    env.setdefault("OMP_NUM_THREADS", "1")
    proc = subprocess.run([sys.executable, str(ROOT / "examples" / f"{name}.py"), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{name} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    return proc.stdout


def test_torchrl_recipe():
    pytest.importorskip("torchrl")
    out = run_recipe("torchrl_ppo", "--steps", "400", "--frames-per-batch", "200", "--workers", "2")
    assert "done: 400 frames" in out, out
    # 400 frames of ~100-move games: at least one game ended and was reset.
    games = int(out.rsplit(",", 1)[1].split()[0])
    assert games >= 1, out


def test_tianshou_recipe():
    pytest.importorskip("tianshou")
    out = run_recipe("tianshou_dqn", "--steps", "400", "--envs", "2")
    assert "train_step=400" in out, out


def test_sb3_recipe():
    pytest.importorskip("sb3_contrib")
    out = run_recipe("sb3_maskable_ppo", "--steps", "300", "--subproc")
    assert "300 steps; mean reward vs random" in out, out


def test_rllib_recipe():
    pytest.importorskip("ray.rllib")
    out = run_recipe("rllib_ppo", "--steps", "400", "--iterations", "2")
    assert "iteration 2: env steps 400" in out, out


def test_agilerl_recipe():
    # AgileRL needs pettingzoo<1.27: it runs in a virtual environment of its own (.ci/run
    # builds one), and is skipped in the main one.
    pytest.importorskip("agilerl")
    out = run_recipe("agilerl_selfplay", "--steps", "300", "--snapshot-every", "100")
    assert "done: " in out, out
    done = out.split("done: ", 1)[1]
    # whole games are played, so the learner makes at least the 300 moves asked for
    moves = int(done.split()[0])
    assert moves >= 300, out
    # the pool holds the random player and at least one frozen copy of the learner
    pool = int(done.split(" pool ", 1)[1].split(";")[0])
    assert pool >= 2 and "greedy vs random" in out, out
