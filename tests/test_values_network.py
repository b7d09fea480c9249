"""agents.players.networks.ActionValuesPolicy: it starts as greedy's choice, its numpy twin computes
torch's logits, and train.py trains, exports and plays it -- also in envs made without the
``action_values`` option."""
import numpy as np
import pytest

import agents
import envs
from agents.pretrained import values_numpy
from envs.shell import flat_observation

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")
from agents.players.networks import ActionValuesPolicy  # noqa: E402
from tests.stored_policy import as_stored  # noqa: E402

KD_GAME = "kingdomino_duel_v0"


def _positions(game, options, games=2, every=2):
    """(flat observation with values, mask) of random games, every few decisions."""
    env = envs.make(game, action_values=True, **options)
    out = []
    for g in range(games):
        env.reset(seed=g)
        bot = agents.make("random", seed=g)
        k = 0
        while not env.terminations[env.agent_selection]:
            if k % every == 0:
                obs = env.observe(env.agent_selection)
                out.append((flat_observation(obs), obs["action_mask"].astype(bool)))
            env.step(bot.act(env, env.agent_selection))
            k += 1
    return out


def _policy(game, options, seed=0, tie_break=0.0):
    env = envs.make(game, action_values=True, **options)
    agent = env.possible_agents[0]
    from envs.shell import flat_observation_space
    torch.manual_seed(seed)
    return ActionValuesPolicy(flat_observation_space(env.observation_space(agent)), env.action_space(agent),
                              lambda _: 3e-4, features_extractor_kwargs=dict(hidden=(32, 32),
                                                                             tie_break=tie_break))


def _torch_logits(policy, obs):
    with torch.no_grad():
        features = policy.extract_features(torch.as_tensor(obs), policy.pi_features_extractor)
        return policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()


@pytest.mark.parametrize("game, options", [(KD_GAME, {}), ("tiny_towns_v0", {"num_players": 2}),
                                           ("between_two_cities_v0", {"num_players": 2})])
def test_untrained_policy_plays_a_best_valued_action(game, options):
    policy = _policy(game, options)
    positions = _positions(game, options, games=1)
    obs = np.asarray([o for o, _ in positions], dtype=np.float32)
    masks = np.asarray([m for _, m in positions])
    logits = np.where(masks, _torch_logits(policy, obs), -np.inf)
    n_actions = masks.shape[1]
    values = obs[:, -n_actions:]
    chosen = logits.argmax(axis=1)
    assert (values[np.arange(len(chosen)), chosen] == 0).all()
    assert (values[masks] < 0).any()          # some positions had worse moves to avoid


@pytest.mark.parametrize("tie_break", [0.0, 8.0])
def test_tie_break_orders_equally_valued_actions(tie_break):
    """Among the best-valued legal actions the untrained logits are equal without a tie
    break, and fall with the action id with one; where every legal action is a square or a
    resource (ids 1024 and up, a span of 0.25 logits at lean 8) the policy plays the first
    best one."""
    game, options = "tiny_towns_v0", {"num_players": 2}
    policy = _policy(game, options, tie_break=tie_break)
    positions = _positions(game, options, games=2, every=1)
    obs = np.asarray([o for o, _ in positions], dtype=np.float32)
    masks = np.asarray([m for _, m in positions])
    logits = _torch_logits(policy, obs)
    values = obs[:, -masks.shape[1]:]
    several_best = narrow = 0
    for row, mask, vals in zip(logits, masks, values):
        best = np.flatnonzero(mask & (vals == 0))
        if len(best) < 2:
            continue
        several_best += 1
        steps = np.diff(row[best])
        if tie_break:
            np.testing.assert_allclose(steps, -tie_break * np.diff(best) / (masks.shape[1] - 1), rtol=1e-4)
        else:
            np.testing.assert_allclose(steps, 0.0, atol=1e-6)
        if np.flatnonzero(mask)[0] >= 1024:
            narrow += 1
            assert np.where(mask, row, -np.inf).argmax() == best[0]
    assert several_best > 10 and narrow > 10


def test_tie_break_setting_is_checked():
    from agents.learning.training.command import parse_config
    from agents.learning.training.model import policy_kwargs
    assert policy_kwargs(parse_config(
        ["--game", KD_GAME, "--policy", "values", "--tie-break", "8"]))["features_extractor_kwargs"]["tie_break"] == 8.0
    with pytest.raises(ValueError, match="tie_break must be a finite number >= 0"):
        parse_config(["--game", KD_GAME, "--policy", "values", "--tie-break", "-1"])
    with pytest.raises(ValueError, match="tie_break must be a finite number >= 0"):
        parse_config(["--game", KD_GAME, "--policy", "values", "--tie-break", "nan"])
    with pytest.raises(ValueError, match="tie_break applies to policy 'values' only"):
        parse_config(["--game", KD_GAME, "--policy", "mlp", "--tie-break", "8"])
    with pytest.raises(ValueError, match="tie_break must be a finite number >= 0"):
        _policy(KD_GAME, {}, tie_break=-2.0)


@pytest.mark.parametrize("learn_head", [True, False])
def test_fixed_head_keeps_the_lean_through_training(tmp_path, learn_head):
    """``--no-learn-head``: PPO leaves the per-action head at its start (zero weights, the
    tie-break lean) and tunes the rest; the saved model reloads with it."""
    import train
    from agents.players.policy import load_model

    run = tmp_path / "run"
    train.main(["--game", KD_GAME, "--policy", "values", "--net-arch", "32,32", "--tie-break", "8",
                "--timesteps", "256", "--n-envs", "2", "--n-steps", "64", "--batch-size", "64",
                "--n-epochs", "2", "--eval-every", "0", "--final-eval-games", "2", "--warm-start", "none",
                "--out", str(run), "--no-progress", "--no-plot", "--verbose", "0"]
               + ([] if learn_head else ["--no-learn-head"]))
    fx = load_model(str(run / "final_model.zip")).policy.features_extractor
    start = _policy(KD_GAME, {}, tie_break=8.0).features_extractor
    head_kept = (torch.equal(fx.head.weight, torch.zeros_like(fx.head.weight))
                 and torch.equal(fx.head.bias, start.head.bias))
    assert head_kept != learn_head
    assert not torch.equal(fx.mix.bias, start.mix.bias)      # the rest did learn
    assert fx.head.weight.requires_grad == learn_head


def test_learn_head_setting_is_checked():
    from agents.learning.training.command import parse_config
    from agents.learning.training.config import TrainConfig
    from agents.learning.training.model import policy_kwargs
    assert policy_kwargs(parse_config(
        ["--game", KD_GAME, "--policy", "values", "--no-learn-head"]))["features_extractor_kwargs"]["learn_head"] is False
    with pytest.raises(ValueError, match="learn_head=False applies to policy 'values' only"):
        parse_config(["--game", KD_GAME, "--policy", "mlp", "--no-learn-head"])
    with pytest.raises(ValueError, match="learn_head must be True or False"):
        TrainConfig(game=KD_GAME, policy="values", learn_head="no")
    env = envs.make(KD_GAME, action_values=True)
    from envs.shell import flat_observation_space
    space = flat_observation_space(env.observation_space(env.possible_agents[0]))
    from agents.players.networks import ActionValuesExtractor
    with pytest.raises(ValueError, match="learn_head must be True or False"):
        ActionValuesExtractor(space, env.action_space(env.possible_agents[0]).n, learn_head=0)


def test_numpy_twin_computes_torch_logits():
    policy = _policy(KD_GAME, {}, seed=1)
    fx = policy.features_extractor
    with torch.no_grad():   # away from the start, so that every term counts
        for p in list(fx.head.parameters()) + list(fx.mix.parameters()):
            p.normal_(0.0, 0.3)
    actor = values_numpy.ActionValuesActor(values_numpy.export_arrays(policy))
    obs = np.asarray([o for o, _ in _positions(KD_GAME, {}, games=1)], dtype=np.float32)
    np.testing.assert_allclose(actor.batch_logits(obs), _torch_logits(policy, obs), rtol=1e-5, atol=1e-4)
    with pytest.raises(ValueError, match="observations must have shape"):
        actor.batch_logits(obs[:, :-1])


def test_greedy_warm_start_is_refused_with_the_values_policy():
    """The values policy starts as greedy's choice: a greedy warm start is refused (by name),
    a search one is not."""
    from agents.learning.training.command import parse_config
    with pytest.raises(ValueError, match="warm_start 'greedy'"):
        parse_config(["--game", KD_GAME, "--policy", "values", "--warm-start", "greedy"])
    assert parse_config(["--game", KD_GAME, "--policy", "values", "--warm-start", "mcts"]).warm_start == "mcts"


def test_train_values_policy_exports_and_plays_in_plain_envs(tmp_path):
    """``train.py --policy values`` trains on the batched games with ``action_values``; the
    run exports to a numpy policy with the model's logits; the pretrained and policy agents
    play it in an env made without the option (asking the env for the same values)."""
    import train
    from agents import pretrained
    from agents.players.policy import load_model
    from agents.learning.training.export import export

    run = tmp_path / "run"
    summary = train.main(["--game", KD_GAME, "--policy", "values", "--net-arch", "32,32",
                          "--timesteps", "256", "--n-envs", "2", "--n-steps", "64", "--batch-size", "64",
                          "--n-epochs", "1", "--eval-every", "0", "--final-eval-games", "2",
                          "--warm-start", "none", "--out", str(run), "--no-progress", "--no-plot",
                          "--verbose", "0"])
    assert summary["config"]["policy"] == "values"
    out = tmp_path / "models"
    storage = export(str(run), str(out), check_games=1)["storage"]
    actor = pretrained.load_actor(KD_GAME, directory=str(out))
    assert isinstance(actor, values_numpy.ActionValuesActor)
    model = as_stored(load_model(str(run / "final_model.zip")), storage)
    obs = np.asarray([o for o, _ in _positions(KD_GAME, {}, games=1)], dtype=np.float32)
    np.testing.assert_allclose(actor.batch_logits(obs), _torch_logits(model.policy, obs), rtol=1e-5, atol=1e-4)

    plain, with_values = envs.make(KD_GAME), envs.make(KD_GAME, action_values=True)
    bot = agents.make("policy", path=str(run / "final_model.zip"))
    as_stored(bot.model, storage)
    for env in (plain, with_values):
        env.reset(seed=4)
        while not env.terminations[env.agent_selection]:
            agent = env.agent_selection
            ob = env.observe(agent)
            expected = np.where(ob["action_mask"].astype(bool), actor.batch_logits(
                np.concatenate([ob["observation"], env.unwrapped.observe_action_values(agent)])[None])[0], -np.inf)
            move = bot.act(env, agent)
            assert expected[move] == expected.max()
            env.step(move)
