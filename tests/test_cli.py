"""Every command line refuses nonsense at once: one line on stderr, exit status 2, no
traceback, before any game or compilation starts (envs/cli.py, agents/cli.py)."""
import subprocess
import sys
import time
from pathlib import Path

import pytest

from agents import cli as agent_cli
from agents.apps import tournament as T
from envs import cli

ROOT = Path(__file__).resolve().parent.parent
KD, TT = "kingdomino_duel_v0", "tiny_towns_v0"

REFUSALS = {
    # tournament: counts, agents, labels, player counts, options
    "tournament games -5": (["agents.tournament", "--game", KD, "--games", "-5"], "--games"),
    "tournament games 0": (["agents.tournament", "--game", KD, "--games", "0"], "--games"),
    "tournament workers 0": (["agents.tournament", "--game", KD, "--workers", "0"], "--workers"),
    "tournament unknown agent": (["agents.tournament", "--game", KD, "--agents", "randon"], "unknown agent 'randon'"),
    "tournament unknown game": (["agents.tournament", "--game", "chess"], "unknown game 'chess'"),
    "tournament 9 players": (["agents.tournament", "--game", TT, "--num-players", "9"], "num_players"),
    "tournament option value": (["agents.tournament", "--game", TT, "--env-options", '{"cave_rule": 3}'],
                                "cave_rule"),
    "tournament unknown option": (["agents.tournament", "--game", TT, "--env-options", '{"caverule": true}'],
                                  "unknown option 'caverule'"),
    "tournament bad JSON": (["agents.tournament", "--game", KD, "--agent-options", "{oops"], "bad JSON"),
    "tournament unknown label": (["agents.tournament", "--game", KD, "--agents", "random",
                                  "--agent-options", '{"mcts": {}}'], "unknown agent label"),
    "tournament constructor option": (["agents.tournament", "--game", KD, "--agents", "random", "mcts",
                                       "--agent-options", '{"mcts": {"simulatons": 5}}'], "simulatons"),
    "tournament twice one label": (["agents.tournament", "--game", KD, "--agents", "a=random", "a=greedy"],
                                   "distinct"),
    # terminal play
    "play unknown opponent": (["agents.play", "--game", KD, "--opponents", "randon"], "unknown agent 'randon'"),
    "play seat": (["agents.play", "--game", KD, "--opponents", "random", "--seat", "5"], "seat"),
    "play 9 players": (["agents.play", "--game", TT, "--opponents", "random", "--num-players", "9"], "num_players"),
    "play constructor option": (["agents.play", "--game", KD, "--opponents", "mcts",
                                 "--agent-options", '{"mcts": {"simulations": 0}}'], "simulations"),
    # web app
    "serve port": (["agents.serve", "--port", "70000"], "--port"),
    "serve budget": (["agents.serve", "--mcts-simulations", "0"], "--mcts-simulations"),
    # scorecard
    "scorecard max games": (["agents.scorecard", "--game", KD, "--agent", "greedy", "--max-games", "0"],
                            "--max-games"),
    "scorecard constructor option": (["agents.scorecard", "--game", KD, "--agent", "greedy",
                                      "--options", '{"noise": 5}'], "noise"),
    # viewer
    "view index": (["envs.view", "game.json", "-o", "game.html", "--index", "-1"], "--index"),
    # benchmarks
    "solo games": (["benchmarks.solo", "--games", "0"], "--games"),
    "solo games-of": (["benchmarks.solo", "--games-of", "nobody=2"], "--games-of"),
    "ladder games": (["benchmarks.ladder", "--game", KD, "--games", "0"], "--games"),
    "ladder game": (["benchmarks.ladder", "--game", "chess"], "unknown game"),
    "ladder solo checkpoint": (["benchmarks.ladder", "--game", TT, "--solo", "--checkpoint", "x"], "--checkpoint"),
    "throughput seconds": (["benchmarks.throughput", "--seconds", "-1"], "--seconds"),
    "throughput game": (["benchmarks.throughput", "--games", "chess"], "unknown game"),
    "batched num-envs": (["benchmarks.batched", "--num-envs", "0"], "--num-envs"),
    "steve games": (["benchmarks.steve_strength", "--games", "-1"], "--games"),
    "az workers": (["benchmarks.az", "--workers", "0"], "--workers"),
    "tournament report budget": (["benchmarks.tournament_report", "--mcts-seconds", "0"], "--mcts-seconds"),
    "training throughput": (["benchmarks.training_throughput", "--timesteps", "0"], "--timesteps"),
}


@pytest.mark.parametrize("name", list(REFUSALS))
def test_a_bad_command_line_is_refused_at_once_in_one_line(name, tmp_path):
    argv, needle = REFUSALS[name]
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", *argv], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env=_env(), stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert needle in lines[0] and "error:" in lines[0]
    assert proc.stdout == ""
    # loose: a refusal takes the interpreter's start and the imports (under a second on an
    # idle machine), never a game or a compilation
    assert seconds < 10, f"{name}: {seconds:.1f} s"


def _env():
    import os

    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}


def test_argument_types():
    assert cli.positive_int("3") == 3 and cli.non_negative_int("0") == 0
    assert cli.positive_float("0.5") == 0.5
    assert cli.json_object('{"a": 1}') == {"a": 1}
    for kind, text in ((cli.positive_int, "0"), (cli.positive_int, "-5"), (cli.positive_int, "1.5"),
                       (cli.non_negative_int, "-1"), (cli.positive_float, "0"),
                       (cli.positive_float, "nan"), (cli.positive_float, "inf"),
                       (cli.json_object, "[1]"), (cli.json_object, "{oops"), (cli.game_id, "chess")):
        with pytest.raises(Exception) as info:
            kind(text)
        assert type(info.value).__name__ == "ArgumentTypeError", (kind, text)


def test_game_options_are_checked_without_making_a_game(capsys):
    assert cli.check_game_options(TT, {"num_players": 3}).num_players == 3
    with pytest.raises(SystemExit) as info:
        cli.check_game_options(TT, {"num_players": 9}, "prog")
    assert info.value.code == 2
    assert capsys.readouterr().err == "prog: error: tiny_towns_v0: num_players must be an integer in [1, 6], got 9\n"


# ------------------------------------------------------------------ errors during a run
class _Failing:
    """An agent whose every move fails."""

    name = "failing"

    def __init__(self, seed=None):
        self.seed = seed

    def act(self, env, agent):
        raise RuntimeError("no move today")


@pytest.fixture
def failing_agent():
    import agents.base

    agents.base.register("failing")(_Failing)
    yield "failing"
    agents.base._REGISTRY.pop("failing")


def test_an_agent_error_in_a_game_names_the_agent(failing_agent):
    with pytest.raises(agent_cli.AgentFailure,
                       match=r"agent 'broken' failed in game 0: RuntimeError: no move today"):
        T.run_tournament(KD, ["random", f"broken={failing_agent}"], games=2, workers=1, progress=False)


def test_an_agent_error_in_a_worker_process_names_the_agent(failing_agent):
    """Spawned workers do not know the agent registered here: the build fails there, and the
    failure comes back through the process pool as one line naming the agent."""
    with pytest.raises(agent_cli.AgentFailure, match=r"agent 'broken' could not be built in game \d+: "
                                                     r"ValueError: unknown agent 'failing'"):
        T.run_tournament(KD, ["random", f"broken={failing_agent}"], games=2, workers=2, progress=False)


def test_the_tournament_command_reports_an_agent_error_in_one_line(tmp_path):
    script = ("import agents.base, sys\n"
              "@agents.base.register('failing')\n"
              "class Failing(agents.base.Agent):\n"
              "    def act(self, env, agent):\n"
              "        raise RuntimeError('no move today')\n"
              "from agents import tournament\n"
              f"tournament.main(['--game', '{KD}', '--agents', 'random', 'failing', '--games', '2',"
              " '--workers', '1', '--no-progress'])\n")
    proc = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=_env())
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert lines == ["python -m agents.tournament: error: agent 'failing' failed in game 0: "
                     "RuntimeError: no move today"], proc.stderr


# ------------------------------------------------------------------ compile notices
def test_search_agents_announce_their_compilation():
    assert agent_cli.compile_notice(["random", "pretrained"], KD) is None
    text = agent_cli.compile_notice(["random", "mcts", "greedy", "mcts"], KD, workers=2)
    assert text.startswith("compiling the search kernels of greedy, mcts for kingdomino_duel_v0")
    assert "20 s to a minute" in text and "2 worker processes" in text


def test_the_tournament_says_so_before_the_first_game(monkeypatch, capsys):
    said = []

    def run_tournament(*args, **kwargs):
        said.append(capsys.readouterr().err)
        raise KeyboardInterrupt   # stop before any game

    monkeypatch.setattr(T, "run_tournament", run_tournament)
    with pytest.raises(KeyboardInterrupt):
        T.main(["--game", KD, "--agents", "random", "mcts", "--workers", "1"])
    assert said and "compiling the search kernels of mcts for kingdomino_duel_v0: 20 s to a minute" in said[0]
    monkeypatch.setattr(T, "run_tournament", run_tournament)
    with pytest.raises(KeyboardInterrupt):
        T.main(["--game", KD, "--agents", "random", "a=random", "--workers", "1"])
    assert "compiling" not in said[1]


# ------------------------------------------------------------------ import names
@pytest.mark.parametrize("own, argv", [
    ("agents.py", ["-m", "benchmarks.solo", "--games", "1"]),
    ("envs/__init__.py", ["-m", "agents.tournament", "--game", KD]),
    ("kernels.py", ["-m", "envs.view", "game.json", "-o", "game.html"]),
])
def test_a_module_of_the_users_that_hides_ours_is_named_in_one_line(own, argv, tmp_path):
    """The user's project (the current folder, first on sys.path under ``python -m``) has
    its own agents/envs/kernels: the command stops before anything else, in one line."""
    (tmp_path / own).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / own).write_text("x = 1\n")
    name = own.split("/")[0].removesuffix(".py")
    proc = subprocess.run([sys.executable, *argv], cwd=tmp_path, capture_output=True, text=True,
                          timeout=120, env=_env())
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert f"'import {name}' finds '{tmp_path / own.split('/')[0]}'" in lines[0]
    assert f"not cityzoo's {name} package" in lines[0] and "Import names" in lines[0]


def test_our_packages_are_told_from_a_stranger(monkeypatch):
    import types

    from envs import import_names

    assert all(import_names.is_ours(name) for name in ("agents", "envs", "kernels"))
    monkeypatch.setitem(sys.modules, "agents", types.ModuleType("agents"))   # a user's agents.py
    assert not import_names.is_ours("agents")
    with pytest.raises(ImportError, match="not cityzoo's agents package"):
        import_names.check(("envs", "agents"))
    with pytest.raises(SystemExit) as info:           # a script's check (train.py)
        import_names.check(("agents",), command=True)
    assert info.value.code == 2


def test_importing_envs_beside_a_kernels_module_raises_a_clear_import_error(tmp_path):
    (tmp_path / "kernels.py").write_text("x = 1\n")
    proc = subprocess.run([sys.executable, "-c", "import envs"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, env=_env())
    assert proc.returncode == 1
    assert proc.stderr.strip().splitlines()[-1].startswith("ImportError: cityzoo cannot start: "
                                                           "'import kernels' finds")


def test_terminal_play_reports_an_agent_error_in_one_line(failing_agent, capsys):
    from agents.apps import play

    with pytest.raises(SystemExit) as info:
        play.main(["--game", KD, "--opponents", failing_agent, "--seed", "1", "--save", "unused.json"],
                  read=lambda prompt: "1", write=lambda text: None)
    assert info.value.code == 1
    assert capsys.readouterr().err == ("python -m agents.play: error: agent 'failing' failed: "
                                       "RuntimeError: no move today\n")
