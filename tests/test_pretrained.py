"""agents.pretrained: the policies shipped with the package load without torch, play legal
games from their observation alone, are the weights and config their records state, and the
numpy Expancity network computes torch's logits."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import agents
import envs
from agents.learning.training.recipes import GAME_DEFAULTS, changes, defaults_for
from agents import pretrained
from agents.base import policy_observation
from agents.loop import play_game
from agents.pretrained import expancity_numpy
from agents.learning.training import export as export_module
from tests.stored_policy import as_stored

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHIPPED = pretrained.available_games()


def _record_env(game):
    """The environment the shipped policy of ``game`` was trained on (its recorded options)."""
    return envs.make(game, **pretrained.load_record(game)["options"])


def _expancity_observations(steps=60, every=4):
    """Observations of the first ``steps`` moves of a random Expancity game."""
    env = envs.make("expancity_v0")
    bot = agents.RandomAgent(seed=5)
    env.reset(seed=0)
    out = []
    for step in range(steps):
        if step % every == 0:
            out.append(env.observe(env.agent_selection)["observation"])
        env.step(bot.act(env, env.agent_selection))
    return np.asarray(out, dtype=np.float32)


def test_every_game_ships_a_policy():
    assert SHIPPED == sorted(envs.GAMES)


def test_shipped_policies_load_and_play_without_torch():
    """In a fresh interpreter where ``import torch`` fails, every shipped policy loads and
    picks a legal first move."""
    script = (
        "import sys; sys.modules['torch'] = None\n"
        "import envs, agents, numpy as np\n"
        "from agents import pretrained\n"
        "for game in pretrained.available_games():\n"
        "    env = envs.make(game, **pretrained.load_record(game)['options'])\n"
        "    env.reset(seed=1)\n"
        "    a = agents.make('pretrained', game=game).act(env, env.agent_selection)\n"
        "    assert env.observe(env.agent_selection)['action_mask'][a] == 1, game\n"
        "    print(game)\n"
        "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == SHIPPED


@pytest.mark.parametrize("game", SHIPPED)
def test_plays_legal_complete_games(game):
    """Against RandomAgent in every seat order: every move is legal (the env refuses illegal
    ones) and the game reaches its end."""
    env = _record_env(game)
    n = len(env.possible_agents)
    for first in range(n):
        bots = [agents.make("random", seed=s) for s in range(n)]
        bots[first] = agents.make("pretrained", game=game, seed=0)
        record = play_game(env, bots, seed=10 + first)
        assert record.info["end_reason"] == "game_over"
        assert all(env.terminations.values())


@pytest.mark.parametrize("game", SHIPPED)
def test_weights_are_the_recorded_ones(game):
    record = pretrained.load_record(game)
    assert pretrained.weights_sha256(pretrained.load_arrays(game)) == record["weights_sha256"]
    assert record["game"] == game


@pytest.mark.parametrize("game", SHIPPED)
def test_recorded_config_is_the_game_default(game):
    """The run that made the policy used ``GAME_DEFAULTS`` except the fields its record
    lists as overridden.  A setting added to ``train.py`` after the run is acceptable only
    while the game's defaults leave it at the common default (an option the run did not
    have, left off)."""
    record = pretrained.load_record(game)
    defaults = json.loads(json.dumps(defaults_for(game).resolved().summary(), default=list))
    assert set(record["overridden"]) <= set(record["config"]) <= set(defaults)
    newer = set(defaults) - set(record["config"])
    assert not newer & set(changes(defaults_for(game))), (
        f"{game}'s defaults now set {newer}, which the shipped policy was not trained with")
    assert record["config"] == {**{k: defaults[k] for k in record["config"]}, **record["overridden"]}
    assert record["seed"] == record["config"]["seed"]


def test_changed_weights_are_refused(tmp_path):
    game = SHIPPED[0]
    for ext in (".npz", ".json"):
        src = os.path.join(pretrained.MODELS_DIR, game + ext)
        with open(src, "rb") as f, open(tmp_path / (game + ext), "wb") as g:
            g.write(f.read())
    arrays = pretrained.load_arrays(game)
    name = next(k for k, v in arrays.items() if v.dtype.kind == "f")
    arrays[name] = arrays[name] + np.float32(1e-3)
    np.savez(tmp_path / (game + ".npz"), **arrays)
    with pytest.raises(ValueError, match="hash"):
        pretrained.load_actor(game, directory=str(tmp_path))


def test_unknown_game_is_refused_naming_the_shipped_ones():
    with pytest.raises(ValueError, match=r"'no_such_game_v0'.*" + SHIPPED[0]):
        agents.make("pretrained", game="no_such_game_v0")


def test_other_game_or_options_are_refused():
    game = SHIPPED[0]
    bot = agents.make("pretrained", game=game)
    other = next(g for g in envs.GAMES if g != game)
    env = envs.make(other)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=f"not '{other}'"):
        bot.act(env, env.agent_selection)
    with pytest.raises(ValueError, match="trained with the options"):
        bot.batch_logits(np.zeros((1, bot.actor.n_obs + 1)), np.ones((1, bot.actor.n_actions)))


def test_a_values_policy_asks_for_its_action_values():
    """A shipped action-values policy refuses bare observations in act_batch, naming the
    option; through act() it plays the same move with or without the env option."""
    game = next(g for g in SHIPPED if getattr(pretrained.load_actor(g), "needs_action_values", False))
    bot = agents.make("pretrained", game=game)
    options = pretrained.load_record(game)["options"]
    plain, with_values = envs.make(game, **options), envs.make(game, action_values=True, **options)
    for env in (plain, with_values):
        env.reset(seed=6)
    ob = plain.observe(plain.agent_selection)
    with pytest.raises(ValueError, match="action_values"):
        bot.act_batch(ob["observation"][None], ob["action_mask"][None])
    for _ in range(30):
        a, b = bot.act(plain, plain.agent_selection), bot.act(with_values, with_values.agent_selection)
        assert a == b
        plain.step(a)
        with_values.step(b)


def test_without_game_it_plays_the_env_game():
    """How the tournament enters it: by name, with a seed and no game."""
    game = SHIPPED[-1]
    env = _record_env(game)
    env.reset(seed=3)
    bot = agents.make("pretrained", seed=4)
    action = bot.act(env, env.agent_selection)
    assert bot.game == game
    assert action == agents.make("pretrained", game=game).act(env, env.agent_selection)


def test_sampled_play_is_legal_and_seeded():
    game = SHIPPED[0]
    env = _record_env(game)
    env.reset(seed=2)
    observation, mask = policy_observation(env, env.agent_selection, pretrained.load_actor(game).n_obs)
    obs = np.repeat(observation[None], 64, axis=0)
    masks = np.repeat(mask[None], 64, axis=0)
    draws = [agents.make("pretrained", game=game, deterministic=False, temperature=5.0, seed=s)
             .act_batch(obs, masks) for s in (1, 1, 2)]
    assert masks[0][draws[0]].all()
    assert np.array_equal(draws[0], draws[1]) and not np.array_equal(draws[0], draws[2])


def test_tournament_accepts_it():
    from agents.apps import tournament
    game = SHIPPED[0]
    options = dict(pretrained.load_record(game)["options"])
    options.pop("reward_mode", None)   # a training setting: the tournament ranks by score
    res = tournament.run_tournament(game, ["pretrained", "random"], games=2, workers=1, seed=0,
                                    num_players=options.pop("num_players", None),
                                    env_options=options, progress=False)
    assert {row["agent"] for row in res["summary"]} == {"pretrained", "random"}


# ------------------------------------------------------------------ numpy vs torch
torch_needed = pytest.mark.skipif(
    any(__import__("importlib").util.find_spec(m) is None for m in ("torch", "sb3_contrib")),
    reason="needs the training extras (torch, sb3-contrib)")


def _torch_expancity_logits(policy, obs):
    import torch
    with torch.no_grad():
        features = policy.extract_features(torch.as_tensor(obs), policy.pi_features_extractor)
        return policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()


def _expancity_policy(seed):
    import torch
    from agents.players.networks import ExpancityPolicy
    env = envs.make("expancity_v0")
    agent = env.possible_agents[0]
    torch.manual_seed(seed)
    return ExpancityPolicy(env.observation_space(agent)["observation"], env.action_space(agent),
                           lambda _: 3e-4)


@torch_needed
def test_numpy_expancity_network_matches_torch():
    """Same logits on observations of real play and on random observations within the
    space's bounds (any crop centre, any tile coordinates, cells outside the crop)."""
    policy = _expancity_policy(seed=1)
    actor = expancity_numpy.ExpancityActor(expancity_numpy.export_arrays(policy))
    space = envs.make("expancity_v0").observation_space("player_0")["observation"]
    rng = np.random.default_rng(2)
    random_obs = rng.uniform(np.maximum(space.low, -30), np.minimum(space.high, 30),
                             size=(8, space.shape[0])).astype(np.float32)
    for obs in (_expancity_observations(), random_obs):
        expected = _torch_expancity_logits(policy, obs)
        np.testing.assert_allclose(actor.batch_logits(obs), expected, rtol=1e-5, atol=1e-5)


@torch_needed
@pytest.mark.skipif("expancity_v0" not in SHIPPED, reason="no shipped Expancity policy")
def test_shipped_expancity_weights_give_torch_logits():
    """The shipped arrays, loaded back into the torch network, give the numpy logits."""
    import torch
    policy = _expancity_policy(seed=0)
    arrays = pretrained.as_float32(pretrained.load_arrays("expancity_v0"))
    fx = policy.features_extractor
    for prefix in ("cells", "table", "context", "cell_head", "other_logits", "kind_bias"):
        module = getattr(fx, prefix)
        module.load_state_dict({name: torch.as_tensor(arrays[f"{prefix}.{name}"])
                                for name in module.state_dict()})
    obs = _expancity_observations()
    np.testing.assert_allclose(pretrained.load_actor("expancity_v0").batch_logits(obs),
                               _torch_expancity_logits(policy, obs), rtol=1e-5, atol=1e-4)


@torch_needed
def test_export_from_a_run(tmp_path, capsys):
    """A run directory (summary.json + final_model.npz) exports to a policy that computes the
    run's own actor logits, with the changed settings recorded as overridden."""
    from sb3_contrib import MaskablePPO
    from agents.players.policy import PolicyAgent, export_numpy_actor
    from agents.learning.training.export import export

    game = "smartphone_inc_v0"   # its default network is sb3's MLP
    cfg = defaults_for(game).resolved()
    assert cfg.policy == "mlp"
    model = MaskablePPO("MlpPolicy", envs.SingleAgentEnv(game), seed=0,
                        policy_kwargs=dict(net_arch=[16]), n_steps=64, batch_size=64)
    run = tmp_path / "run"
    run.mkdir()
    export_numpy_actor(model, str(run / "final_model.npz"))
    config = dict(cfg.summary(), net_arch=[16])
    summary = {"game": game, "options": cfg.options, "timesteps": 0, "train_seconds": 0.0,
               "total_seconds": 0.0, "steps_per_second": 0.0, "final_eval_games": 0,
               "final_win_rates": {}, "final_mean_rewards": {}, "config": config}
    (run / "summary.json").write_text(json.dumps(summary, default=list))
    out = tmp_path / "models"
    with pytest.raises(ValueError, match="check_games"):
        export(str(run), str(out), check_games=0)
    record = export(str(run), str(out), check_games=1)
    assert record["overridden"] == {"net_arch": [16]}
    assert pretrained.available_games(str(out)) == [game]
    with np.load(run / "final_model.npz") as data:
        trained = {name: data[name] for name in data.files}
    assert record["trained_weights_sha256"] == pretrained.weights_sha256({**trained, "kind": np.array("mlp")})
    _check_storage_choice(record, pretrained.load_arrays(game, directory=str(out)), games=1)
    as_stored(model, record["storage"])   # the run's network with the file's rounded matrices
    env = envs.make(game)
    env.reset(seed=0)
    ob = env.observe(env.agent_selection)
    obs, mask = ob["observation"][None], ob["action_mask"][None].astype(bool)
    expected = PolicyAgent(model=model).batch_logits(obs, mask)
    got = pretrained.load_actor(game, directory=str(out)).batch_logits(obs)
    np.testing.assert_allclose(np.where(mask, got, -np.inf), expected, rtol=1e-5, atol=1e-6)

    # restore: the same policy stored again from its trained arrays, the rest of the record kept
    trained_npz = tmp_path / "trained.npz"
    np.savez(trained_npz, **trained, kind=np.array("mlp"))
    again = export_module.restore(game, str(trained_npz), str(out), check_games=1)
    assert {k: v for k, v in again.items() if k != "restored"} == record
    assert pretrained.load_record(game, str(out)) == again
    np.savez(trained_npz, **{**trained, "b0": trained["b0"] + np.float32(1e-3)}, kind=np.array("mlp"))
    with pytest.raises(ValueError, match="trained_weights_sha256"):
        export_module.restore(game, str(trained_npz), str(out), check_games=1)
    with pytest.raises(ValueError, match="check_games"):
        export_module.restore(game, str(trained_npz), str(out), check_games=0)
    assert pretrained.load_record(game, str(out)) == again
    # the command line: restore from the right arrays, then list
    from agents.pretrained.__main__ import main as cli
    np.savez(trained_npz, **trained, kind=np.array("mlp"))
    assert cli(["restore", game, str(trained_npz), "--to", str(out), "--check-games", "1"]) == 0
    assert f"stored in {again['storage']}" in capsys.readouterr().out
    assert pretrained.load_record(game, str(out))["weights_sha256"] == again["weights_sha256"]


def _check_storage_choice(record, stored, games):
    """The record's stored form is the first of STORAGES that plays the trained moves often
    enough, the file holds that form, and every form before it was checked and fell short."""
    forms = list(export_module.STORAGES)
    chosen = record["storage"]
    assert record["storage_description"] == export_module.STORAGES[chosen][1]
    checks = record["storage_checks"]
    assert list(checks) == forms[:forms.index(chosen) + (chosen != "float32")]
    for form, check in checks.items():
        assert check["games"] == games and check["opponent"] == "greedy" and check["decisions"] > 0
        passed = check["same_move"] >= export_module.SAME_MOVE_SHARE * check["decisions"]
        assert passed == (form == chosen), (form, check)
    matrices = {n for n, v in stored.items() if v.ndim >= 2 and v.dtype.kind in "fi"}
    dtype = {"int8": np.int8, "float16": np.float16, "float32": np.float32}[chosen]
    assert matrices and all(stored[n].dtype == dtype for n in matrices)
    scales = {n for n in stored if n.endswith(pretrained.ROW_SCALE)}
    assert scales == ({n + pretrained.ROW_SCALE for n in matrices} if chosen == "int8" else set())
    assert all(stored[n].dtype == np.float32 for n in stored
               if stored[n].dtype.kind == "f" and n not in matrices)
    assert (record["trained_weights_sha256"] == record["weights_sha256"]) == (chosen == "float32")


def test_half_precision_stores_matrices_in_float16():
    arrays = {"w": np.ones((3, 2), np.float32) / 3, "k": np.ones((2, 2, 3, 3), np.float32),
              "b": np.full(2, 1 / 3, np.float32), "n": np.array(5), "kind": np.array("values")}
    half = export_module.half_precision(arrays)
    assert half["w"].dtype == half["k"].dtype == np.float16
    assert half["b"] is arrays["b"] and half["n"] is arrays["n"] and half["kind"] is arrays["kind"]
    np.testing.assert_allclose(half["w"].astype(np.float32), arrays["w"], rtol=1e-3)
    back = pretrained.as_float32(half)
    assert back["w"].dtype == back["k"].dtype == np.float32 and back["b"] is arrays["b"]


def test_int8_rows_round_each_value_to_its_rows_step():
    gen = np.random.default_rng(0)
    w = gen.normal(size=(5, 7)).astype(np.float32)
    w[2] = 0.0                  # an all-zero row keeps a usable scale
    w[3] *= 100.0               # rows have their own scales
    k = gen.normal(size=(4, 3, 3, 3)).astype(np.float32)   # a conv kernel: one scale per output channel
    arrays = {"w": w, "k": k, "b": np.full(5, 0.5, np.float32), "kind": np.array("mlp")}
    stored = export_module.int8_rows(arrays)
    assert stored["w"].dtype == stored["k"].dtype == np.int8 and stored["k"].shape == k.shape
    assert stored["w" + pretrained.ROW_SCALE].shape == (5,) and stored["k" + pretrained.ROW_SCALE].shape == (4,)
    assert stored["b"] is arrays["b"] and stored["kind"] is arrays["kind"]
    for name, value in (("w", w), ("k", k)):
        assert np.abs(stored[name].reshape(len(value), -1)).max(axis=1).tolist() == \
            [0 if not np.any(row) else 127 for row in value.reshape(len(value), -1)]
    back = pretrained.as_float32(stored)
    assert set(back) == set(arrays) and back["w"].dtype == np.float32
    for broken in ({**stored, "w" + pretrained.ROW_SCALE: np.ones(4, np.float32)},
                   {n: v for n, v in stored.items() if n != "k" + pretrained.ROW_SCALE}):
        with pytest.raises(ValueError, match="row scales"):
            pretrained.as_float32(broken)
    for name, value in (("w", w), ("k", k)):
        step = stored[name + pretrained.ROW_SCALE].reshape((-1,) + (1,) * (value.ndim - 1))
        assert np.all(np.abs(back[name] - value) <= step / 2 * (1 + 1e-6))
    assert not back["w"][2].any() and np.abs(back["w"][3]).max() > 50


def test_store_takes_the_first_form_that_plays_the_trained_moves(monkeypatch):
    """store() keeps a smaller form only when it plays the trained move often enough."""
    arrays = {"w0": np.ones((3, 4), np.float32), "b0": np.zeros(3, np.float32), "kind": np.array("mlp")}
    outcome = {}

    def agreement(reference, actor, game, options, games):   # actors are their arrays here
        assert reference is arrays and games == 3
        form = {np.int8: "int8", np.float16: "float16"}[actor["w0"].dtype.type]
        return {"decisions": 1000, "same_move": outcome[form], "max_logit_change": 0.1}

    monkeypatch.setattr(export_module, "actor_from_arrays", lambda a: a)
    monkeypatch.setattr(export_module, "decision_agreement", agreement)
    for int8, half, expected, tried in ((998, 0, "int8", ["int8"]),
                                        (997, 1000, "float16", ["int8", "float16"]),
                                        (997, 997, "float32", ["int8", "float16"])):
        outcome.update(int8=int8, float16=half)
        name, stored, checks = export_module.store(arrays, "smartphone_inc_v0", {}, check_games=3)
        assert (name, list(checks)) == (expected, tried)
        assert stored["w0"].dtype == {"int8": np.int8, "float16": np.float16, "float32": np.float32}[name]


@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_files_store_a_form_that_plays_the_trained_moves(game):
    """What storing the file changed, as its record measured it against the trained float32
    actor: the move of at most 1 in 500 decisions."""
    record = pretrained.load_record(game)
    _check_storage_choice(record, pretrained.load_arrays(game), games=20)
    if record["storage"] != "float32":
        check = record["storage_checks"][record["storage"]]
        assert check["decisions"] >= 500 and 0 < check["max_logit_change"] < 0.05
