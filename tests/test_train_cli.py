"""train.py checks before it works: a bad command is refused at once (one line on stderr,
exit status 2, no traceback, before torch is imported), and a good one prints its plan --
recipe, warm start and its expected cost, evaluations, output folder -- before training."""
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest

import train
from agents.learning.training import command

ROOT = Path(__file__).resolve().parent.parent
KD = "kingdomino_duel_v0"

# (arguments, words the one line must hold)
REFUSALS = {
    "negative timesteps": (["--game", KD, "--timesteps", "-5"], "--timesteps must be an integer >= 1"),
    "zero timesteps": (["--game", KD, "--timesteps", "0"], "--timesteps must be an integer >= 1"),
    "unknown evaluation opponent": (["--game", KD, "--eval-opponents", "random", "randon"],
                                    "unknown agent 'randon'"),
    "player count the game does not allow": (["--game", KD, "--num-players", "9"], "num_players"),
    "unknown game": (["--game", "chess_v0"], "--game 'chess_v0' is not a cityzoo game"),
    "missing game": ([], "required: --game"),
    "bad option value": (["--game", "tiny_towns_v0", "--option", "cave_rule=3"], "cave_rule"),
    "unknown option": (["--game", KD, "--option", "cave_rule=true"], "unknown option 'cave_rule'"),
    "no games at a time": (["--game", KD, "--n-envs", "0"], "--n-envs must be an integer >= 1"),
    "no evaluation games": (["--game", KD, "--eval-games", "0"], "--eval-games must be an integer >= 1"),
    "negative evaluation interval": (["--game", KD, "--eval-every", "-1"], "--eval-every must be an integer >= 0"),
    "discount above one": (["--game", KD, "--gamma", "1.5"], "--gamma must be in (0, 1]"),
    "learning rate not a number": (["--game", KD, "--lr", "nan"], "--learning-rate must be > 0"),
    "unknown flag": (["--game", KD, "--bogus"], "unrecognized arguments: --bogus"),
    "unknown network": (["--game", KD, "--policy", "transformer"], "invalid choice: 'transformer'"),
    "not a number": (["--game", KD, "--timesteps", "many"], "invalid int value: 'many'"),
    "no warm start samples": (["--game", KD, "--warm-start-samples", "0"], "warm_start_samples must be an integer >= 1"),
    "no opponents in a game with seats": (["--game", KD, "--opponents", "none"], "opponents='none' is for solo games"),
    "opponents in a solo game": (["--game", "tiny_towns_v0", "--num-players", "1", "--opponents", "greedy"],
                                 "has no other seat"),
    "missing model to continue": (["--game", "tiny_towns_v0", "--init-model", "no/such/model.zip"],
                                  "--init-model 'no/such/model.zip': no such file"),
}


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_refused_at_once(case):
    argv, words = REFUSALS[case]
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "train.py", *argv], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    seconds = time.perf_counter() - start
    lines = run.stderr.splitlines()
    assert run.returncode == 2, (run.returncode, run.stderr)
    assert len(lines) == 1 and "Traceback" not in run.stderr, run.stderr
    assert lines[0].startswith("train.py: error: ") and words in lines[0], lines[0]
    assert run.stdout == ""
    # about a second on an idle machine (no torch, no kernel compiled); loose under load
    assert seconds < 10, f"{case}: refused after {seconds:.1f} s"


def test_refusal_imports_no_torch():
    """The checks run before torch and stable-baselines3 are imported (they take seconds)."""
    code = ("import sys, train\n"
            "try:\n    train.main(['--game', 'kingdomino_duel_v0', '--timesteps', '-5'])\n"
            "except SystemExit as e:\n    assert e.code == 2\n"
            "print(sorted(m for m in ('torch', 'stable_baselines3', 'sb3_contrib') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"


def test_tiny_run_scales_the_recipes_warm_start():
    """Kingdomino Duel's recipe distils MCTS from 90,000 decisions before 400,000 PPO steps;
    ``--timesteps 1000`` (under a tenth of them) gets 90,000 x 1000 / 400,000 = 225, and the
    plan says so; a run of a tenth or more, or an explicit warm start, keeps what was asked."""
    cfg, given, notes = command.parse_command(["--game", KD, "--timesteps", "1000"])
    assert cfg.warm_start == "mcts" and cfg.warm_start_samples == 225
    assert len(notes) == 1 and "225 decisions instead of the recipe's 90,000" in notes[0]
    cfg, _, notes = command.parse_command(["--game", KD, "--timesteps", "40000"])
    assert cfg.warm_start_samples == 90_000 and not notes
    for extra in (["--warm-start", "mcts"], ["--warm-start-samples", "90000"]):
        cfg, _, notes = command.parse_command(["--game", KD, "--timesteps", "1000", *extra])
        assert cfg.warm_start_samples == 90_000 and not notes
    cfg, _, notes = command.parse_command(["--game", KD, "--timesteps", "1000", "--warm-start", "none"])
    assert cfg.warm_start == "none" and not notes


def test_plan_states_the_warm_start_cost_and_how_to_skip_it():
    cfg, given, notes = command.parse_command(["--game", KD])
    text = "\n".join(command.plan(cfg, given, notes))
    assert "the recipe of kingdomino_duel_v0" in text
    assert "MCTS warm start: 90,000 decisions at 1,500 iterations" in text
    assert "about 14 min" in text and "--warm-start none skips it" in text
    assert "every 40,000 steps, 50 games each; final 400 games each" in text   # 400,000 / 10
    assert "against random, greedy" in text and "output: runs/kingdomino_duel_v0/" in text
    cfg, given, notes = command.parse_command(["--game", KD, "--timesteps", "1000"])
    text = "\n".join(command.plan(cfg, given, notes))
    assert "changed on the command line: --timesteps" in text and "225 decisions" in text
    assert "about 14 min" not in text
    cfg, given, notes = command.parse_command(["--game", "tiny_towns_v0", "--num-players", "1",
                                               "--eval-every", "0", "--out", "x"])
    text = "\n".join(command.plan(cfg, given, notes))
    assert "solo recipe" in text and "warm start: none" in text
    assert "by the solo game's yardstick: no periodic evaluation" in text and "output: x/" in text


def test_plan_is_printed_before_training(monkeypatch, capsys):
    """train.main prints the plan, then trains (the run itself replaced here)."""
    calls = []
    fake = types.ModuleType("agents.learning.training.run")
    fake.train = lambda cfg: calls.append((cfg, capsys.readouterr().err)) or "summary"
    monkeypatch.setitem(sys.modules, "agents.learning.training.run", fake)
    assert train.main(["--game", KD, "--timesteps", "1000", "--warm-start", "none"]) == "summary"
    (cfg, printed), = calls
    assert cfg.timesteps == 1000 and cfg.warm_start == "none"
    assert printed.startswith("[train] game kingdomino_duel_v0") and "[train] output: runs/" in printed
    # -v 0: no plan
    assert train.main(["--game", KD, "--timesteps", "1000", "-v", "0"]) == "summary"
    assert calls[1][1] == ""
