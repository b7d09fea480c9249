"""SingleAgentEnv, the policy agent, the self-play pool and train.py (tiny budgets)."""
import json
import os
import pickle
import warnings

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import agents
import envs
from agents.base import policy_observation
from agents.loop import play_game
from envs.shell import CityEnv
from envs.single_agent import SingleAgentEnv
from tests.toy_game import ToySpec

pytest.importorskip("sb3_contrib")
import train  # noqa: E402
from agents.learning.training.command import build_parser, parse_config  # noqa: E402
from agents.learning.training.config import TrainConfig  # noqa: E402
from agents.learning.training.evaluation import win_interval  # noqa: E402
from agents.learning.training.model import policy_class  # noqa: E402
from agents.learning.training.recipes import GAME_DEFAULTS, defaults_for  # noqa: E402


def toy3(**kw):
    return CityEnv(ToySpec(), num_players=3, target=12, **kw)


def toy1(**kw):
    return CityEnv(ToySpec(), num_players=1, target=5, **kw)


def _check(env):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)


# ----------------------------------------------------------------- wrapper
def test_check_env_toy():
    _check(SingleAgentEnv(toy3, opponents=agents.RandomAgent(seed=1)))
    _check(SingleAgentEnv(toy1))


@pytest.mark.parametrize("game", envs.GAMES)
def test_check_env_games(game):
    # Default options: check_env steps an action sampled before a reset, which may be
    # illegal after it; the wrapper's default ends the game instead of raising.
    _check(SingleAgentEnv(game, opponents="random", agent_factory=agents.make))


def test_toy_episode_semantics():
    env = SingleAgentEnv(toy3, opponents=["random", agents.RandomAgent(seed=3)], agent_factory=agents.make)
    seats, rewards = set(), []
    for ep in range(60):
        obs, info = env.reset(seed=ep)
        assert env.observation_space.contains(obs)
        assert info["seat"] == env.seat and info["action_mask"].dtype == np.int8
        seats.add(env.seat)
        done = False
        while not done:
            assert env.aec_env.agent_selection == env.learner
            mask = env.action_masks()
            assert mask.dtype == bool and mask.any()
            obs, r, term, trunc, info = env.step(int(np.flatnonzero(mask)[0]))
            done = term or trunc
        assert not env.action_masks().any()
        assert info["won"] == (r == 1.0)
        rewards.append(r)
    assert seats == {0, 1, 2}
    assert set(rewards) <= {1.0, -0.5}   # rank reward, 3 seats, losers tied for 2nd place
    with pytest.raises(RuntimeError):
        env.step(0)


def test_fixed_seat_reproducible_and_callable_opponents():
    calls = []

    def factory(rng):
        calls.append(rng)
        return agents.RandomAgent(seed=int(rng.integers(100)))

    env = SingleAgentEnv(toy3, opponents=factory, seat=2)
    traj = []
    for _ in range(2):
        obs, _ = env.reset(seed=5)
        assert env.seat == 2
        t = [obs]
        done = False
        while not done:
            obs, r, term, trunc, _ = env.step(0)
            t.append(obs)
            done = term or trunc
        traj.append(np.array(t))
    assert len(calls) == 2 and np.array_equal(traj[0], traj[1])
    with pytest.raises(ValueError):
        SingleAgentEnv(toy3, seat=3)
    with pytest.raises(ValueError):
        SingleAgentEnv(toy3, opponents=["random"], agent_factory=agents.make).reset(seed=0)


def test_illegal_action_terminates_by_default():
    env = SingleAgentEnv(envs.GAMES[0], opponents="random", agent_factory=agents.make, seat=0)
    env.reset(seed=0)
    bad = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(bad)
    assert terminated and reward == -1.0 and not env.action_masks().any()
    with pytest.raises(RuntimeError, match="finished game"):
        env.step(0)
    with pytest.raises(ValueError, match="out of range"):
        env.reset(seed=0)
        env.step(10**6)


def test_illegal_action_raises():
    game = envs.GAMES[0]
    env = SingleAgentEnv(game, opponents="random", agent_factory=agents.make, seat=0, illegal_action="raise")
    env.reset(seed=0)
    mask = env.action_masks()
    assert not mask.all(), "need a position with an illegal action"
    bad = int(np.flatnonzero(~mask)[0])
    with pytest.raises(ValueError):
        env.step(bad)
    assert np.array_equal(env.action_masks(), mask)   # nothing changed
    env.step(int(np.flatnonzero(mask)[0]))
    # Sampling without a mask draws legal actions.
    for _ in range(20):
        assert env.action_masks()[env.action_space.sample()]
    assert type(pickle.loads(pickle.dumps(env.action_space))).__name__ == "Discrete"


def test_copied_env_keeps_sampling_legal_actions():
    import copy
    env = SingleAgentEnv(envs.GAMES[0], opponents="random", agent_factory=agents.make, seat=0)
    env.reset(seed=2)
    env.action_space.seed(9)
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert twin.action_space.sample() == copy.deepcopy(env).action_space.sample()
        for _ in range(50):
            a = twin.action_space.sample()
            assert twin.action_masks()[a]
        _, reward, terminated, _, _ = twin.step(twin.action_space.sample())
        assert not (terminated and reward == -1.0), "a copy sampled an illegal action"
        assert env.action_masks().any()        # the original is untouched


@pytest.mark.parametrize("game", ["kingdomino_duel_v0", "tiny_towns_v0"])
def test_shaping_and_reward_scale(game):
    """The same game played twice (same seeds, same learner moves): every step's reward with
    shaping c and scale s is s * (plain reward + c * change of the greedy evaluation), and the
    plain rewards add up to the final score margin (score mode, 2 seats)."""
    c, s = 0.3, 0.05
    plain = SingleAgentEnv(game, opponents="random", agent_factory=agents.make, seat=1, reward_mode="score")
    shaped = SingleAgentEnv(game, opponents="random", agent_factory=agents.make, seat=1, reward_mode="score",
                            shaping=c, reward_scale=s)
    plain.reset(seed=4)
    shaped.reset(seed=4)
    raw = shaped.aec_env.unwrapped

    def phi():
        return float(raw.spec.evaluate(raw._state, raw.cfg, 1))

    before, total, steps, moved = phi(), 0.0, 0, 0.0
    done = False
    while not done:
        mask = plain.action_masks()
        assert np.array_equal(mask, shaped.action_masks())
        action = int(np.flatnonzero(mask)[steps % int(mask.sum())])
        _, r_plain, term, trunc, info = plain.step(action)
        _, r_shaped, term2, _, _ = shaped.step(action)
        after = phi()
        assert term == term2
        assert r_shaped == pytest.approx(s * (r_plain + c * (after - before)), abs=1e-9)
        moved += abs(after - before)
        before, total, steps, done = after, total + r_plain, steps + 1, term or trunc
    assert moved > 0   # the evaluation did move, so the shaping term was exercised
    scores = info["scores"]
    assert total == pytest.approx(scores[1] - scores[0])
    assert before == pytest.approx(scores[1] - scores[0])   # evaluation = margin at the end
    for bad in (0, -1, float("nan")):
        with pytest.raises(ValueError, match="reward_scale"):
            SingleAgentEnv(game, reward_scale=bad)


def test_subproc_vec_env():
    from stable_baselines3.common.vec_env import SubprocVecEnv
    from sb3_contrib.common.maskable.utils import get_action_masks

    game = envs.GAMES[0]
    fns = [lambda: SingleAgentEnv(game, opponents="random", agent_factory=agents.make) for _ in range(2)]
    venv = SubprocVecEnv(fns, start_method="fork")   # fork: fast start for the test
    try:
        venv.seed(0)
        obs = venv.reset()
        assert obs.shape[0] == 2
        for _ in range(30):
            masks = get_action_masks(venv)
            actions = np.array([np.flatnonzero(m)[0] for m in masks])
            obs, rewards, dones, infos = venv.step(actions)
    finally:
        venv.close()


# ---------------------------------------------------------------- training
@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A tiny run of every registered game: {game: output directory}."""
    out = {}
    for game in envs.GAMES:
        d = str(tmp_path_factory.mktemp(game))
        train.main(["--game", game, "--timesteps", "256", "--n-envs", "1", "--n-steps", "128",
                    "--batch-size", "64", "--n-epochs", "1", "--opponents", "mix",
                    "--snapshot-every", "128", "--eval-every", "128", "--eval-games", "2",
                    "--final-eval-games", "2", "--warm-start", "none", "--out", d, "--no-progress",
                    "--verbose", "0"])
        out[game] = d
    return out


def test_aec_training_path_still_trains(tmp_path):
    """--env aec (SingleAgentEnv over the AEC env) remains a working path, for comparison."""
    summary = train.main(["--game", "kingdomino_duel_v0", "--env", "aec", "--timesteps", "256",
                          "--n-envs", "1", "--n-steps", "128", "--batch-size", "64", "--n-epochs", "1",
                          "--opponents", "greedy", "--eval-every", "0", "--final-eval-games", "2",
                          "--warm-start", "none", "--out", str(tmp_path), "--no-progress", "--no-plot",
                          "--verbose", "0",
                          "--save-games", str(tmp_path / "games")])
    assert summary["config"]["env"] == "aec" and summary["timesteps"] >= 256
    # the game's default network reads the action values: SingleAgentEnv appends them
    assert summary["config"]["policy"] == "values"
    assert os.path.exists(os.path.join(tmp_path, "final_model.zip"))
    # the final evaluation's games were recorded, and each replays to its recorded scores
    from envs import records
    games = records.load_all(str(tmp_path / "games" / "final-vs-random.jsonl"))
    assert len(games) == 2 and {g["players"].index("learner") for g in games} == {0, 1}
    for game in games:
        assert records.replay(game).scores() == game["scores"]


@pytest.mark.parametrize("game", envs.GAMES)
def test_tiny_training_outputs(trained, game):
    d = trained[game]
    for name in ("final_model.zip", "eval.csv", "summary.json", "learning_curve.png",
                 "best_model.zip", "policy.json"):
        assert os.path.exists(os.path.join(d, name)), name
    config = json.load(open(os.path.join(d, "policy.json")))   # the network, to load it safely
    assert config["game"] == game and config["network"] == defaults_for(game).policy
    # the torch-free copy exists exactly for flat MLP actors (agents.players.networks ones need torch)
    flat_mlp = defaults_for(game).policy == "mlp"
    assert os.path.exists(os.path.join(d, "final_model.npz")) == flat_mlp
    assert os.listdir(os.path.join(d, "pool"))
    summary = json.load(open(os.path.join(d, "summary.json")))
    assert summary["timesteps"] >= 256 and "random" in summary["final_win_rates"]
    assert summary["config"]["env"] == "batched"      # the default path
    for name, rate in summary["final_win_rates"].items():   # each rate inside its interval
        low, high = summary["final_win_intervals"][name]
        assert 0.0 <= low <= rate <= high <= 1.0 and high - low > 0.1   # 2 games: a wide one


def test_win_interval_is_wilson():
    """win_interval: the Wilson 95% interval of the rate's wins, as the training
    report prints it (400 games at 55% lie about +-4.9 points wide)."""
    assert win_interval(0.55, 400) == [0.501, 0.598]
    assert win_interval(0.0, 400)[0] == 0.0 and win_interval(1.0, 50)[1] == 1.0
    from benchmarks.training_report import markdown
    summary = {"game": "g", "config": {"timesteps": 1, "opponents": "mix", "seed": 0}, "timesteps": 1,
               "train_seconds": 1, "total_seconds": 1, "steps_per_second": 1, "final_eval_games": 400,
               "final_win_rates": {"greedy": 0.55}, "final_mean_rewards": {"greedy": 0.1}}
    assert "| greedy | 55.0% | 50.1%–59.8% | +0.100 |" in markdown(summary)
    assert "Warm start" not in markdown(summary)
    summary["config"].update(warm_start="mcts", warm_start_simulations=1500)
    summary["warm_start"] = {"samples": 90000, "sample_seconds": 10.5, "seconds": 12.0,
                             "train_accuracy": 0.8, "holdout_accuracy": 0.61}
    assert ("Warm start from MCTS at 1,500 iterations a move (`--warm-start mcts`): 90,000 decisions "
            "in 10.5 s, 12.0 s with the pre-training; the actor then plays the teacher's move in "
            "61.0% of held-out decisions.") in markdown(summary)


@pytest.mark.parametrize("game", envs.GAMES)
def test_policy_agent_plays_legal_games(trained, game):
    path = os.path.join(trained[game], "final_model.zip")
    for deterministic in (True, False):
        bot = agents.make("policy", path=path, deterministic=deterministic, seed=1)
        env = envs.make(game)   # illegal actions raise
        n = len(env.possible_agents)
        for g in range(2):
            seat_agents = [agents.RandomAgent(seed=g)] * n
            seat_agents[g % n] = bot
            record = play_game(env, seat_agents, seed=g)
            assert "winners" in record.info and sum(record.moves) > 0
    env = envs.make(game)
    env.reset(seed=3)
    observation, mask = policy_observation(env, env.agent_selection, bot.n_obs)
    obs = {"observation": observation, "action_mask": mask}
    mask = mask.astype(bool)
    fast = bot.logits(observation, mask)
    assert np.all(np.isneginf(fast[~mask])) and np.all(np.isfinite(fast[mask]))
    # flat MLP actors play through the numpy copy of the actor; agents.players.networks ones need torch
    flat_mlp = defaults_for(game).policy == "mlp"
    assert (bot._layers is not None) == flat_mlp
    if not flat_mlp:
        return
    # numpy forward pass == the torch policy
    layers, bot._layers = bot._layers, None
    slow = bot.logits(obs["observation"], mask)
    bot._layers = layers
    assert np.allclose(fast[mask], slow[mask], atol=1e-4)
    # the torch-free export plays the same policy; int8 masks are accepted
    npz = agents.make("policy", path=os.path.join(trained[game], "final_model.npz"))
    assert npz.model is None
    assert np.allclose(npz.logits(obs["observation"], obs["action_mask"])[mask], fast[mask],
                       atol=1e-4)
    assert npz.act(env, env.agent_selection) == int(np.argmax(fast))


@pytest.mark.parametrize("game", envs.GAMES)
def test_every_saved_model_loads_without_unpickling(trained, game, monkeypatch):
    """The run's policy.json rebuilds each network (flat MLP and agents.players.networks alike), and
    the weights alone are read: the final, best and checkpoint models play exactly as
    MaskablePPO.load's copies, with unpickling made impossible."""
    import pickle

    import cloudpickle

    d = trained[game]
    paths = [os.path.join(d, "final_model.zip"), os.path.join(d, "best_model.zip")]
    paths += [os.path.join(d, "checkpoints", n) for n in sorted(os.listdir(os.path.join(d, "checkpoints")))][:1]
    trusted = [agents.make("policy", path=p, trust_pickle=True) for p in paths]

    def refuse(*args, **kwargs):
        raise AssertionError("unpickled")
    monkeypatch.setattr(cloudpickle, "loads", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    from agents.players import policy
    monkeypatch.setattr(policy, "_MODEL_CACHE", {})
    env = envs.make(game)
    env.reset(seed=5)
    for path, reference in zip(paths, trusted):
        bot = agents.make("policy", path=path)
        observation, mask = policy_observation(env, env.agent_selection, bot.n_obs)
        assert np.array_equal(bot.logits(observation, mask), reference.logits(observation, mask)), path


def test_init_model_continues_without_unpickling(trained, tmp_path):
    game = "smartphone_inc_v0"   # a flat MLP; kingdomino_duel_v0's network is the values one
    for g in (game, "kingdomino_duel_v0"):
        start = json.load(open(os.path.join(trained[g], "summary.json")))["timesteps"]
        summary = train.main(["--game", g, "--timesteps", "128", "--n-envs", "1", "--n-steps", "128",
                              "--batch-size", "64", "--n-epochs", "1", "--opponents", "random",
                              "--eval-every", "0", "--final-eval-games", "2", "--warm-start", "none",
                              "--out", str(tmp_path / g), "--no-progress", "--no-plot", "--verbose", "0",
                              "--init-model", os.path.join(trained[g], "final_model.zip")])
        assert summary["timesteps"] == start + 128
        assert json.load(open(tmp_path / g / "policy.json")) == \
            json.load(open(os.path.join(trained[g], "policy.json")))
    with pytest.raises(ValueError, match="trained on kingdomino_duel_v0, not smartphone_inc_v0"):
        train.main(["--game", game, "--timesteps", "128", "--out", str(tmp_path / "x"),
                    "--init-model", os.path.join(trained["kingdomino_duel_v0"], "final_model.zip"),
                    "--no-progress", "--no-plot", "--verbose", "0", "--warm-start", "none"])


def test_policy_in_tournament(trained):
    game = envs.GAMES[0]
    path = os.path.join(trained[game], "final_model.zip")
    from agents.apps.tournament import run_tournament

    result = run_tournament(game, ["policy", "random"], games=4, progress=False,
                            agent_options={"policy": {"path": path}})
    assert result["games"] >= 4
    assert {row["agent"] for row in result["summary"]} == {"policy", "random"}


def test_snapshot_pool(tmp_path, trained):
    from agents.players.policy import PolicyAgent, SnapshotPool

    pool = SnapshotPool(str(tmp_path), num_opponents=2, latest_prob=0.5)
    rng = np.random.default_rng(0)
    assert all(isinstance(a, agents.RandomAgent) for a in pool(rng))   # empty pool: fallback
    src = os.path.join(trained[envs.GAMES[0]], "final_model.zip")
    for steps in (0, 100):
        os.link(src, tmp_path / f"snapshot_{steps:010d}.zip")
    os.link(os.path.join(trained[envs.GAMES[0]], "policy.json"), tmp_path / "policy.json")
    pool = pickle.loads(pickle.dumps(pool))
    drawn = [a for _ in range(5) for a in pool(rng)]
    assert all(isinstance(a, PolicyAgent) for a in drawn)
    # a loaded snapshot's sampling is seeded (by its step count): runs are reproducible
    again = SnapshotPool(str(tmp_path), num_opponents=2, latest_prob=0.5)
    first, second = pool._load(pool.snapshots()[-1]), again._load(again.snapshots()[-1])
    assert first is not second
    assert np.array_equal(first.rng.random(4), second.rng.random(4))
    mix = SnapshotPool(str(tmp_path), baselines=("random",), baseline_prob=1.0)
    assert isinstance(mix(rng)[0], agents.RandomAgent)


def test_help_lists_options(capsys):
    with pytest.raises(SystemExit):
        train.main(["--help"])
    text = capsys.readouterr().out
    for flag in ("--game", "--num-players", "--timesteps", "--n-envs", "--opponents", "--seed",
                 "--out", "--eval-games", "--eval-every", "--lr", "--no-progress", "-v"):
        assert flag in text
    assert all(g in GAME_DEFAULTS for g in envs.GAMES)


def test_every_setting_has_a_flag_and_help():
    """The command line is generated from TrainConfig: every field has a help text and a flag
    that sets it, and every flag sets a field."""
    import dataclasses
    parser = build_parser()
    by_dest = {a.dest: a for a in parser._actions if a.dest != "help"}
    fields = {f.name: f for f in dataclasses.fields(TrainConfig)}
    assert set(by_dest) == set(fields)
    for name, f in fields.items():
        action = by_dest[name]
        assert f.metadata["help"] and action.help.startswith(f.metadata["help"]), name
        flag = ("--no-" if f.default is True else "--") + name.replace("_", "-")
        assert flag in action.option_strings, name
    # each game's defaults are TrainConfig instances under their own name
    for game, cfg in GAME_DEFAULTS.items():
        assert isinstance(cfg, TrainConfig) and cfg.game == game
        assert parse_config(["--game", game]) == cfg
    with pytest.raises(ValueError, match="opponents"):
        TrainConfig(game="kingdomino_duel_v0", opponents="nobody")


def test_per_game_defaults_and_overrides():
    def parse(*argv):
        return parse_config(list(argv)).resolved()

    cfg = parse("--game", "between_two_cities_v0")
    assert cfg.options["num_players"] == 2          # per-game default, not the game's 3
    assert cfg.shaping == GAME_DEFAULTS["between_two_cities_v0"].shaping == 0.0
    cfg = parse("--game", "between_two_cities_v0", "--num-players", "3", "--shaping", "0.2")
    assert cfg.options["num_players"] == 3 and cfg.shaping == 0.2
    cfg = parse("--game", "kingdomino_duel_v0")
    assert "num_players" not in cfg.options          # the game's own default
    assert cfg.opponents == "greedy" and cfg.options["reward_mode"] == "score"
    assert cfg.policy == "values" and cfg.env_options == dict(cfg.options, action_values=True)
    assert policy_class(cfg.policy).__name__ == "ActionValuesPolicy"
    assert cfg.timesteps == 400_000 and cfg.eval_every == 40_000 and cfg.snapshot_every == 20_000
    # its warm start distils MCTS into the values policy (samples carry the action values)
    assert (cfg.warm_start, cfg.warm_start_target, cfg.warm_start_simulations) == ("mcts", "move", 1500)
    assert cfg.out == os.path.join("runs", "kingdomino_duel_v0") and cfg.progress and cfg.plot
    cfg = parse("--game", "kingdomino_duel_v0", "--timesteps", "1000", "--lr", "0.001",
                "--net-arch", "64,32", "--option", "foo=3", "--eval-opponents", "random", "mcts",
                "--no-progress", "--no-plot", "--eval-every", "0", "-v", "0", "--out", "x")
    assert cfg.timesteps == 1000 and cfg.eval_every == 0 and cfg.snapshot_every == 50
    assert cfg.learning_rate == 0.001 and cfg.net_arch == (64, 32)
    assert cfg.options == {"foo": 3, "reward_mode": "score"}
    assert cfg.eval_opponents == ("random", "mcts")
    assert not cfg.progress and not cfg.plot and cfg.tensorboard and cfg.verbose == 0
    assert cfg.out == "x"
    cfg = parse("--game", "tiny_towns_v0")
    tt = GAME_DEFAULTS["tiny_towns_v0"]
    assert cfg.opponents == tt.opponents and cfg.options["reward_mode"] == tt.reward_mode
    cfg = parse("--game", "tiny_towns_v0", "--opponents", "self", "--reward-mode", "rank")
    assert cfg.opponents == "self" and cfg.options["reward_mode"] == cfg.reward_mode == "rank"
    cfg = parse("--game", "expancity_v0")
    assert cfg.policy == "expancity" and cfg.reward_scale == 0.05 and cfg.torch_threads == 2
    assert cfg.vec_env == "dummy" and cfg.n_envs == 8 and cfg.batch_size <= 8 * cfg.n_steps
    assert policy_class(cfg.policy).__name__ == "ExpancityPolicy"
    cfg = parse("--game", "expancity_v0", "--policy", "mlp", "--reward-scale", "1",
                "--torch-threads", "1", "--vec-env", "subproc")
    assert cfg.policy == "mlp" and cfg.reward_scale == 1.0 and cfg.torch_threads == 1
    assert cfg.vec_env == "subproc"
    assert parse("--game", "kingdomino_duel_v0").vec_env == "auto"
    cfg = parse("--game", "kingdomino_duel_v0")
    assert cfg.env == "batched" and (cfg.n_envs, cfg.n_steps) == (16, 128)
    cfg = parse("--game", "kingdomino_duel_v0", "--env", "aec")
    assert (cfg.n_envs, cfg.n_steps) == (2, 1024)
    assert parse("--game", "kingdomino_duel_v0", "--n-envs", "64").n_steps == 32
    # a batch larger than one rollout is capped
    assert parse("--game", "kingdomino_duel_v0", "--n-steps", "16", "--n-envs", "2").batch_size == 32
    # the summary records the settings, not the output switches
    summary = parse("--game", "kingdomino_duel_v0").summary()
    assert summary["timesteps"] == 400_000 and "progress" not in summary and "option" not in summary
    assert policy_class("mlp") == "MlpPolicy"
    with pytest.raises(ValueError, match="policy"):
        policy_class("transformer")
    with pytest.raises(SystemExit):
        parse("--game", "expancity_v0", "--policy", "transformer")
    with pytest.raises(SystemExit):
        parse("--timesteps", "5")       # --game is required


def test_envs_never_import_agents():
    """Environments do not depend on the agents that play them: agent names need a factory."""
    import subprocess
    import sys
    probe = """
import sys, envs
env = envs.SingleAgentEnv("kingdomino_duel_v0", opponents=None)
envs.SingleAgentEnv("kingdomino_duel_v0", opponents="random").reset(seed=0)   # the default, built in
try:
    envs.SingleAgentEnv("kingdomino_duel_v0", opponents="greedy").reset(seed=0)
except ValueError as err:
    assert "agent_factory" in str(err), err
else:
    raise AssertionError("a name without agent_factory was accepted")
assert "agents" not in sys.modules, "envs imported agents"
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stdout + out.stderr


def test_a_run_is_reproduced_by_its_config_and_seed(tmp_path):
    """Two batched runs with the same settings and seed, self-play snapshots sampling among
    the opponents, end with identical weights: what a shipped policy's recorded config and
    seed promise (its record holds the weights' hash)."""
    from agents.players.policy import load_model
    from agents.pretrained import weights_sha256

    hashes = []
    for run in ("a", "b"):
        out = str(tmp_path / run)
        train.main(["--game", "kingdomino_duel_v0", "--timesteps", "768", "--n-envs", "4",
                    "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--opponents", "mix",
                    "--snapshot-every", "256", "--eval-every", "0", "--final-eval-games", "2",
                    "--seed", "3", "--warm-start", "none", "--out", out, "--no-progress", "--no-plot",
                    "--verbose", "0"])
        assert len([n for n in os.listdir(os.path.join(out, "pool")) if n.startswith("snapshot_")]) >= 2
        model = load_model(os.path.join(out, "final_model.zip"))
        hashes.append(weights_sha256({k: v.cpu().numpy() for k, v in model.policy.state_dict().items()}))
    assert hashes[0] == hashes[1]


def test_linear_learning_rate_falls_to_zero(tmp_path):
    """--lr-schedule linear: the rate goes from --lr at the start to 0 at the end (sb3 sets
    it from the progress after each rollout, so the optimiser ends at 0); the constant
    default keeps --lr; both saved models reload with their schedule."""
    from sb3_contrib import MaskablePPO

    rates = {}
    for schedule in ("constant", "linear"):
        out = str(tmp_path / schedule)
        train.main(["--game", "kingdomino_duel_v0", "--timesteps", "1024", "--n-envs", "4",
                    "--n-steps", "64", "--batch-size", "64", "--n-epochs", "1", "--lr", "0.001",
                    "--lr-schedule", schedule, "--opponents", "random", "--eval-every", "0",
                    "--final-eval-games", "2", "--warm-start", "none", "--out", out, "--no-progress",
                    "--no-plot", "--verbose", "0"])
        model = MaskablePPO.load(os.path.join(out, "final_model.zip"), device="cpu")
        rates[schedule] = model.policy.optimizer.param_groups[0]["lr"]
        assert model.lr_schedule(1.0) == pytest.approx(0.001)
        halfway = model.lr_schedule(0.5)
        assert halfway == pytest.approx(0.001 if schedule == "constant" else 0.0005)
    assert rates["constant"] == pytest.approx(0.001)
    assert rates["linear"] == pytest.approx(0.0)
