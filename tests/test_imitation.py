"""The imitation warm start (agents.learning.imitation): greedy-labelled samples, the supervised
pre-training of a MaskablePPO policy, and its train.py settings."""
import dataclasses

import numpy as np
import pytest

import agents
import envs
from agents.learning import imitation
from agents.players.greedy import evaluate_state
from envs.vector import opponent_seed

GAME = "kingdomino_duel_v0"


@pytest.fixture(scope="module")
def samples():
    """Kingdomino Duel decisions, a third of the moves random so labels and moves differ."""
    return imitation.greedy_samples(GAME, 600, num_envs=4, explore=0.3, seed=11, gamma=1.0,
                                    shaping=0.5, reward_scale=0.1)


def _replay_first_game(samples, check):
    """Replay, in the AEC env, the first game the batch played from ``samples``' first seed,
    calling ``check(env, row)`` before each recorded decision; returns the env at the end."""
    seed = int(samples["game_seed"][0])
    rows = np.flatnonzero(samples["game_seed"] == seed)
    env = envs.make(GAME)
    env.reset(seed=seed)
    for row in rows:
        check(env, row)
        env.step(int(samples["played"][row]))
    assert all(env.terminations.values()), "the first game's decisions are all in the samples"
    return env, rows


def test_labels_are_greedy_agents_choices_in_the_aec_env(samples):
    """Independent check: replayed through the AEC env, every sample is the observation and
    mask of the seat to move, and its label is what agents.GreedyAgent (seeded with the
    game's seed, as the documentation promises) chooses there."""
    teacher = agents.GreedyAgent(seed=int(samples["game_seed"][0]))
    explored = []

    def check(env, row):
        agent = env.agent_selection
        assert env.possible_agents.index(agent) == samples["seat"][row]
        obs = env.observe(agent)
        np.testing.assert_array_equal(obs["observation"], samples["observation"][row])
        np.testing.assert_array_equal(obs["action_mask"], samples["action_mask"][row])
        assert teacher.act(env, agent) == samples["label"][row]
        explored.append(samples["played"][row] != samples["label"][row])

    _, rows = _replay_first_game(samples, check)
    assert len(rows) > 20 and any(explored), "a whole game, with random moves among greedy's"


def test_returns_are_what_the_training_env_pays(samples):
    """gamma=1: a decision's return is reward_scale times (the seat's end reward plus the
    shaping's change of its margin from that decision to the end); margins are recomputed
    here by the greedy agent's evaluation and the final scores."""
    margins = {}

    def check(env, row):
        margins[row] = evaluate_state(env.unwrapped, env.unwrapped._state, samples["seat"][row])

    env, rows = _replay_first_game(samples, check)
    scores = env.infos["player_0"]["scores"]
    for row in rows:
        seat = samples["seat"][row]
        agent = env.possible_agents[seat]
        final_margin = scores[seat] - scores[1 - seat]
        expected = 0.1 * (env.rewards[agent] + 0.5 * (final_margin - margins[row]))
        assert samples["return"][row] == pytest.approx(expected, abs=1e-9)


def test_labels_are_legal_and_samples_come_from_finished_games(samples):
    n = len(samples["label"])
    assert n == 600
    assert samples["action_mask"][np.arange(n), samples["label"]].all()
    assert samples["action_mask"][np.arange(n), samples["played"]].all()
    assert np.isfinite(samples["return"]).all()


def test_discount_counts_the_seats_own_decisions():
    """With gamma < 1 and no shaping the return of a seat's k-th last decision is gamma**k
    times the reward the AEC env pays that seat at the end."""
    s = imitation.greedy_samples(GAME, 300, num_envs=1, seed=3, gamma=0.9)
    env, rows = _replay_first_game(s, lambda env, row: None)
    for seat, agent in enumerate(env.possible_agents):
        mine = rows[s["seat"][rows] == seat]
        k = np.arange(len(mine))[::-1]
        np.testing.assert_allclose(s["return"][mine], env.rewards[agent] * 0.9 ** k)


def test_pretraining_learns_greedys_moves():
    """A tiny run (8,000 decisions, 4 epochs, a 64x64 network): on held-out decisions with a
    real choice the actor plays greedy's move clearly more often than a uniform pick among
    the legal moves does (about 28% in Kingdomino Duel) and than the untrained network,
    the value head explains part of the returns' variance, and no move is illegal."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from envs.vector_sb3 import SB3SeatVecEnv

    torch.manual_seed(0)
    torch.set_num_threads(1)
    data = imitation.greedy_samples(GAME, 8_000, num_envs=32, explore=0.2, seed=5)
    venv = SB3SeatVecEnv(GAME, 2, opponents="random")
    model = MaskablePPO("MlpPolicy", venv, policy_kwargs=dict(net_arch=[64, 64]), seed=0)
    held_out = np.arange(7_200, 8_000)          # pretrain's holdout: the last tenth
    legal = data["action_mask"][held_out].astype(bool)
    held_out = held_out[legal.sum(1) >= 2]      # forced moves say nothing
    uniform = np.mean(1.0 / data["action_mask"][held_out].sum(1))

    def accuracy():
        return imitation.masked_accuracy(model.policy, data["observation"][held_out],
                                         data["action_mask"][held_out], data["label"][held_out])

    before = accuracy()
    stats = imitation.pretrain(model.policy, data, epochs=4, learning_rate=2e-3, holdout=0.1)
    after = accuracy()
    assert after >= 0.35 and after >= uniform + 0.05 and after >= before + 0.05, (uniform, before, after)
    assert stats["holdout_value_mse"] < 0.85 * stats["holdout_return_var"]
    with torch.no_grad():
        obs = model.policy.obs_to_tensor(data["observation"][held_out])[0]
        chosen = model.policy.get_distribution(obs, action_masks=legal[legal.sum(1) >= 2]).mode().numpy()
    assert data["action_mask"][held_out, chosen].all()


@pytest.fixture(scope="module")
def searched():
    """Kingdomino Duel decisions of games between MCTS agents (a small budget), a fifth of
    the moves random."""
    return imitation.search_samples(GAME, 250, simulations=60, explore=0.2, seed=7, gamma=0.9,
                                    shaping=0.5, reward_scale=0.1)


def test_search_labels_are_mcts_agents_choices_in_the_aec_env(searched):
    """Independent check: replayed through the AEC env, every sample is the observation and
    mask of the seat to move, its label is what agents.MCTSAgent, seeded as documented,
    plays there, and the target is a distribution over the legal moves whose largest
    share is the label's (the search plays its most visited move)."""
    seed = int(searched["game_seed"][0])
    rows = np.flatnonzero(searched["game_seed"] == seed)
    env = envs.make(GAME)
    env.reset(seed=seed)
    bots = [agents.MCTSAgent(simulations=60, seed=opponent_seed(seed, k))
            for k in range(2)]
    explored = 0
    for row in rows:
        agent = env.agent_selection
        seat = env.possible_agents.index(agent)
        assert seat == searched["seat"][row]
        obs = env.observe(agent)
        np.testing.assert_array_equal(obs["observation"], searched["observation"][row])
        np.testing.assert_array_equal(obs["action_mask"], searched["action_mask"][row])
        assert bots[seat].act(env, agent) == searched["label"][row]
        target = searched["target"][row]
        assert target.sum() == pytest.approx(1.0) and (target[obs["action_mask"] == 0] == 0).all()
        assert target[searched["label"][row]] == target.max()
        explored += searched["played"][row] != searched["label"][row]
        env.step(int(searched["played"][row]))
    assert all(env.terminations.values()) and explored > 0
    # a search spreads its visits: some targets are not one-hot
    assert (searched["target"].max(1) < 0.99).any()


def test_ordered_search_samples_are_ordered_mcts_agents_choices():
    """With ordered_expansion the labels are what MCTSAgent(ordered_expansion=True), seeded
    as documented, plays (and not always what the random-order search plays)."""
    ordered = imitation.search_samples(GAME, 40, simulations=12, ordered_expansion=True, seed=2)
    plain = imitation.search_samples(GAME, 40, simulations=12, seed=2)
    seed = int(ordered["game_seed"][0])
    env = envs.make(GAME)
    env.reset(seed=seed)
    bots = [agents.MCTSAgent(simulations=12, seed=opponent_seed(seed, k), ordered_expansion=True)
            for k in range(2)]
    for row in np.flatnonzero(ordered["game_seed"] == seed):
        agent = env.agent_selection
        assert bots[env.possible_agents.index(agent)].act(env, agent) == ordered["label"][row]
        env.step(int(ordered["played"][row]))
    assert (ordered["label"] != plain["label"]).any()


def test_search_returns_are_what_the_training_env_pays(searched):
    """The returns of search samples follow the same rule as greedy samples': gamma per own
    decision, reward_scale times the end reward plus the shaping of the margin's change."""
    seed = int(searched["game_seed"][0])
    rows = np.flatnonzero(searched["game_seed"] == seed)
    env = envs.make(GAME)
    env.reset(seed=seed)
    margins = []
    for row in rows:
        margins.append(evaluate_state(env.unwrapped, env.unwrapped._state, searched["seat"][row]))
        env.step(int(searched["played"][row]))
    scores = env.infos["player_0"]["scores"]
    for seat, agent in enumerate(env.possible_agents):
        mine = [k for k, row in enumerate(rows) if searched["seat"][row] == seat]
        value = 0.1 * (env.rewards[agent] + 0.5 * (scores[seat] - scores[1 - seat]))
        for k in reversed(mine):
            value -= 0.1 * 0.5 * margins[k]
            assert searched["return"][rows[k]] == pytest.approx(value, abs=1e-6)
            value = 0.9 * value + 0.1 * 0.5 * margins[k]


def test_search_samples_carry_the_action_values_of_envs_with_that_option():
    """With ``action_values=True`` a sample's observation is the flat one the values policy
    reads: the observation, then each action's one-ply value as the AEC env (made with the
    option) hands it to the seat to move; the moves are the same as without the option."""
    plain = imitation.search_samples(GAME, 40, simulations=10, seed=3)
    valued = imitation.search_samples(GAME, 40, simulations=10, seed=3, action_values=True)
    n_actions = plain["action_mask"].shape[1]
    assert valued["observation"].shape == (40, plain["observation"].shape[1] + n_actions)
    np.testing.assert_array_equal(valued["observation"][:, :-n_actions], plain["observation"])
    for name in ("label", "played", "action_mask", "target"):
        np.testing.assert_array_equal(valued[name], plain[name])
    env = envs.make(GAME, action_values=True)
    env.reset(seed=3)
    for row in range(40):
        obs = env.observe(env.agent_selection)
        np.testing.assert_array_equal(valued["observation"][row, -n_actions:], obs["action_values"])
        env.step(int(valued["played"][row]))
    values = valued["observation"][:, -n_actions:]
    legal = valued["action_mask"].astype(bool)
    assert (values[legal.sum(1) >= 2] < 0).any()      # not all zeros: worse moves are marked


def test_pretraining_on_the_searched_moves_ignores_the_visit_shares(searched):
    """``target="move"``: the actor learns the move the search plays (cross-entropy on the
    label), even where the visit shares are spread; an unknown target is refused."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from envs.vector_sb3 import SB3SeatVecEnv

    torch.manual_seed(0)
    model = MaskablePPO("MlpPolicy", SB3SeatVecEnv(GAME, 1, opponents="random"),
                        policy_kwargs=dict(net_arch=[64]), seed=0)
    spread = searched["target"].max(1) < 0.99
    stats = imitation.pretrain(model.policy, searched, epochs=30, learning_rate=3e-3,
                               holdout=0.0, target="move")
    assert stats["train_accuracy"] > 0.8
    with torch.no_grad():
        obs = model.policy.obs_to_tensor(searched["observation"][spread])[0]
        probs = model.policy.get_distribution(
            obs, action_masks=searched["action_mask"][spread].astype(bool)).distribution.probs.numpy()
    # the label's probability exceeds its visit share: the shares were not the target
    chosen = probs[np.arange(spread.sum()), searched["label"][spread]]
    assert np.mean(chosen > searched["target"][spread, searched["label"][spread]]) > 0.9
    with pytest.raises(ValueError, match="target"):
        imitation.pretrain(model.policy, searched, target="policy")


@pytest.mark.slow
def test_search_samples_do_not_depend_on_workers(searched):
    """Two worker processes give exactly the samples one process gives."""
    two = imitation.search_samples(GAME, 250, simulations=60, explore=0.2, seed=7, gamma=0.9,
                                   shaping=0.5, reward_scale=0.1, workers=2)
    assert set(two) == set(searched)
    for name in searched:
        np.testing.assert_array_equal(two[name], searched[name])


def test_pretraining_on_search_targets_fits_the_visit_shares(searched):
    """Soft targets: pre-training brings the policy close to the visit shares on the
    training rows -- their KL divergence (cross-entropy minus the shares' own entropy,
    which the cross-entropy cannot go below) falls to a fraction -- and a target on an
    illegal move is refused."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO
    from envs.vector_sb3 import SB3SeatVecEnv

    torch.manual_seed(0)
    model = MaskablePPO("MlpPolicy", SB3SeatVecEnv(GAME, 1, opponents="random"),
                        policy_kwargs=dict(net_arch=[64]), seed=0)
    rows = np.arange(200)
    masks = searched["action_mask"][rows].astype(bool)

    def divergence():
        with torch.no_grad():
            obs = model.policy.obs_to_tensor(searched["observation"][rows])[0]
            logp = model.policy.get_distribution(obs, action_masks=masks).distribution.logits
            shares = torch.as_tensor(searched["target"][rows])
            cross = -(shares * logp.clamp(min=-1e4)).sum(1).mean()
            own = -(shares * torch.log(shares.clamp(min=1e-12))).sum(1).mean()
            return float(cross - own)

    before = divergence()
    imitation.pretrain(model.policy, searched, epochs=20, learning_rate=3e-3, holdout=0.2)
    after = divergence()
    assert after < 0.3 * before, (before, after)
    bad = dict(searched, target=searched["target"].copy())
    bad["target"][0, np.flatnonzero(bad["action_mask"][0] == 0)[0]] = 0.5
    with pytest.raises(ValueError, match="target"):
        imitation.pretrain(model.policy, bad)


@pytest.mark.parametrize("kwargs, name", [
    (dict(simulations=0), "simulations"), (dict(workers=0), "workers"),
    (dict(num_samples=0), "num_samples"), (dict(explore=2.0), "explore"),
    (dict(seed=-1), "seed"), (dict(reward_scale=0.0), "reward_scale"),
    (dict(ordered_expansion=1), "ordered_expansion"),
])
def test_search_sample_settings_are_checked(kwargs, name):
    args = dict(num_samples=10) | kwargs
    with pytest.raises(ValueError, match=name):
        imitation.search_samples(GAME, args.pop("num_samples"), **args)


@pytest.mark.parametrize("kwargs, name", [
    (dict(num_samples=0), "num_samples"), (dict(num_samples=2.5), "num_samples"),
    (dict(explore=1.5), "explore"), (dict(explore=-0.1), "explore"),
    (dict(gamma=1.2), "gamma"), (dict(shaping=-1.0), "shaping"),
    (dict(reward_scale=0.0), "reward_scale"), (dict(num_envs=0), "num_envs"),
])
def test_sample_settings_are_checked(kwargs, name):
    args = dict(num_samples=10) | kwargs
    with pytest.raises(ValueError, match=name):
        imitation.greedy_samples(GAME, args.pop("num_samples"), **args)


def test_pretrain_refuses_bad_samples_and_settings(samples):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from envs.vector_sb3 import SB3SeatVecEnv

    model = MaskablePPO("MlpPolicy", SB3SeatVecEnv(GAME, 1, opponents="random"),
                        policy_kwargs=dict(net_arch=[8]), seed=0)
    weights = [p.detach().clone() for p in model.policy.parameters()]
    bad = dict(samples, label=samples["label"].copy())
    illegal = np.flatnonzero(bad["action_mask"][0] == 0)[0]
    bad["label"][0] = illegal
    with pytest.raises(ValueError, match="label"):
        imitation.pretrain(model.policy, bad)
    with pytest.raises(ValueError, match="return"):
        imitation.pretrain(model.policy, {k: v for k, v in samples.items() if k != "return"})
    for kwargs, name in ((dict(epochs=0), "epochs"), (dict(holdout=0.9), "holdout"),
                         (dict(learning_rate=-1.0), "learning_rate")):
        with pytest.raises(ValueError, match=name):
            imitation.pretrain(model.policy, samples, **kwargs)
    # nothing was trained by the refused calls
    for before, after in zip(weights, model.policy.parameters()):
        assert (before == after).all()


def test_train_config_warm_start_fields():
    from agents.learning.training.command import parse_config
    from agents.learning.training.config import TrainConfig
    from agents.learning.training.recipes import GAME_DEFAULTS
    base = TrainConfig(game=GAME)
    assert base.warm_start == "none"
    for changes, name in ((dict(warm_start="alphazero"), "warm_start"),
                          (dict(warm_start_samples=0), "warm_start_samples"),
                          (dict(warm_start_simulations=0), "warm_start_simulations"),
                          (dict(warm_start_workers=0), "warm_start_workers"),
                          (dict(warm_start_epochs=0), "warm_start_epochs"),
                          (dict(warm_start_explore=2.0), "warm_start_explore"),
                          (dict(warm_start_target="policy"), "warm_start_target"),
                          (dict(warm_start_expansion="best"), "warm_start_expansion"),
                          (dict(warm_start="greedy", init_model="m.zip"), "warm_start")):
        with pytest.raises(ValueError, match=name):
            dataclasses.replace(base, **changes)
    cfg = parse_config(["--game", GAME, "--policy", "mlp", "--warm-start", "greedy", "--warm-start-samples",
                              "5000", "--warm-start-epochs", "2", "--warm-start-explore", "0.1"])
    assert (cfg.warm_start, cfg.warm_start_samples, cfg.warm_start_epochs,
            cfg.warm_start_explore) == ("greedy", 5000, 2, 0.1)
    cfg = parse_config(["--game", GAME, "--policy", "mlp", "--warm-start", "mcts", "--warm-start-simulations",
                              "50", "--warm-start-workers", "1"])
    assert (cfg.warm_start, cfg.warm_start_simulations, cfg.warm_start_workers) == ("mcts", 50, 1)
    assert base.warm_start_target == "visits"          # the common default
    assert cfg.warm_start_target == GAME_DEFAULTS[GAME].warm_start_target
    cfg = parse_config(["--game", GAME, "--policy", "values", "--warm-start", "mcts",
                              "--warm-start-target", "move"])
    assert (cfg.warm_start, cfg.warm_start_target, cfg.env_options["action_values"]) == ("mcts", "move", True)


@pytest.mark.slow
def test_train_with_warm_start_reports_it(tmp_path):
    """train.py end to end with a tiny warm start: the summary records the pre-training and
    the untrained-network evaluation is replaced by the imitating one."""
    pytest.importorskip("sb3_contrib")
    from agents.learning.training.recipes import defaults_for
    from agents.learning.training.run import train as run_training
    cfg = dataclasses.replace(
        defaults_for(GAME), policy="mlp", warm_start="greedy", warm_start_samples=3000,
        warm_start_epochs=2, timesteps=512, n_envs=4, n_steps=128, eval_every=0,
        final_eval_games=4, out=str(tmp_path), progress=False, plot=False, tensorboard=False,
        verbose=0)
    summary = run_training(cfg)
    stats = summary["warm_start"]
    assert stats["samples"] == 3000 and 0.0 < stats["holdout_accuracy"] <= 1.0
    assert summary["config"]["warm_start"] == "greedy"


@pytest.mark.slow
def test_train_with_mcts_warm_start(tmp_path):
    """train.py distils a small MCTS before PPO: the summary records the search teacher."""
    pytest.importorskip("sb3_contrib")
    from agents.learning.training.recipes import defaults_for
    from agents.learning.training.run import train as run_training
    cfg = dataclasses.replace(
        defaults_for(GAME), policy="mlp", warm_start="mcts", warm_start_samples=400,
        warm_start_simulations=20, warm_start_workers=1, warm_start_epochs=2, timesteps=512,
        n_envs=4, n_steps=128, eval_every=0, final_eval_games=4, out=str(tmp_path),
        progress=False, plot=False, tensorboard=False, verbose=0)
    summary = run_training(cfg)
    assert summary["warm_start"]["samples"] == 400
    assert summary["config"]["warm_start"] == "mcts"
    assert summary["config"]["warm_start_simulations"] == 20


@pytest.mark.slow
def test_train_values_policy_with_mcts_warm_start(tmp_path):
    """train.py distils MCTS into the values policy: the samples carry the env's action
    values (the policy's input size), and the pre-trained actor is what PPO starts from."""
    pytest.importorskip("sb3_contrib")
    from agents.learning.training.recipes import defaults_for
    from agents.learning.training.run import train as run_training
    cfg = dataclasses.replace(
        defaults_for(GAME), policy="values", net_arch=(32, 32), warm_start="mcts",
        warm_start_samples=300, warm_start_simulations=20, warm_start_workers=1,
        warm_start_epochs=2, warm_start_target="move", timesteps=256, n_envs=2, n_steps=64,
        batch_size=64, n_epochs=1, eval_every=0, final_eval_games=2, out=str(tmp_path),
        progress=False, plot=False, tensorboard=False, verbose=0)
    summary = run_training(cfg)
    assert summary["warm_start"]["samples"] == 300
    assert 0.0 < summary["warm_start"]["holdout_accuracy"] <= 1.0
    assert summary["config"]["warm_start_target"] == "move"
