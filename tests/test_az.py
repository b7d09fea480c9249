"""The learned search: its numba network, search, agents, self-play training and shipped
network (agents.players.az*, agents.learning.alphazero)."""
import json
import os

import numpy as np
import pytest

import agents
import envs
from agents.players import az_net
from agents.players.az import AZAgent, AZPolicyAgent
from agents.players.az_search import (SearchParams, Workspace, default_params, root_stats,
                                      search_functions)
from kernels import outcome
from kernels.rng import new_generator

GAME = "kingdomino_duel_v0"


def _kd_positions(n=30, seed=0):
    """Observations, action values and masks of the seat to move in games of greedy play."""
    env = envs.make(GAME)
    raw = env.unwrapped
    rows = []
    env.reset(seed=seed)
    bot = agents.make("greedy", seed=seed)
    for who in env.agent_iter():
        if env.terminations[who] or len(rows) >= n:
            break
        obs = env.observe(who)
        rows.append((obs["observation"].copy(), raw.observe_action_values(who).copy(),
                     obs["action_mask"].copy()))
        env.step(bot.act(env, who))
    return [np.array(x) for x in zip(*rows)]


def _bind(agent, arrays, game=GAME):
    """Give an az agent ``arrays`` as its network (no file)."""
    agent.arrays, agent.record, agent.game = arrays, {}, game
    return agent


def test_numba_forward_matches_numpy_and_torch():
    torch = pytest.importorskip("torch")
    from agents.learning.alphazero.network import AZNet, observation_scale

    raw = envs.make(GAME).unwrapped
    torch.manual_seed(0)
    net = AZNet(raw.cfg.obs_size, raw.spec.num_actions, 2, (32, 16), observation_scale(raw.spec, raw.cfg))
    with torch.no_grad():     # move every weight off its initial zeros
        for p in net.parameters():
            p.add_(0.3 * torch.randn_like(p))
    arrays = net.export_arrays()
    obs, av, masks = _kd_positions()
    with torch.no_grad():
        t_logits, t_values = net(torch.as_tensor(obs), torch.as_tensor(av), torch.as_tensor(masks != 0))
    n_logits, n_values = az_net.batch_forward(arrays, obs, av, masks, net.value_scale)
    legal = masks != 0
    assert np.allclose(n_logits[legal], t_logits.numpy()[legal], atol=1e-4)
    assert np.allclose(n_values, t_values.numpy(), atol=1e-5)
    net_tuple = az_net.as_tuple(arrays)
    h1, h2 = np.zeros(32, np.float32), np.zeros(16, np.float32)
    logits, value = np.zeros(raw.spec.num_actions, np.float32), np.zeros(2, np.float32)
    for i in range(len(obs)):
        az_net.forward(net_tuple, obs[i], av[i], masks[i], net.value_scale, h1, h2, logits, value)
        assert np.all(np.isneginf(logits[~legal[i]]))
        assert np.allclose(logits[legal[i]], n_logits[i][legal[i]], atol=1e-4)
        assert np.allclose(value, n_values[i], atol=1e-5)


def _search_tree(raw, arrays, seat, sims, seed, params=None):
    """The workspace of a PUCT search of ``sims`` simulations, and its node count."""
    fns = search_functions(raw.spec.kernel)
    ws = Workspace(raw.cfg, raw.spec.num_actions, az_net.describe(arrays)[3])
    ws.grow((sims + 2) * (raw.spec.num_actions + 1))
    params = (params or default_params(raw.spec.game_id)).vector()
    n = fns.puct(raw._state, seat, sims, 0, az_net.as_tuple(arrays), params, new_generator(seed), ws.scratch(),
                 ws.work.args(), *ws.tree())
    return ws, n


def _search(raw, arrays, seat, sims, seed, params=None):
    return root_stats(_search_tree(raw, arrays, seat, sims, seed, params)[0])


def _greedy_position(seed, moves):
    """A Kingdomino Duel env after ``moves`` greedy moves, its raw env and the seat to move."""
    env = envs.make(GAME)
    env.reset(seed=seed)
    bot = agents.make("greedy", seed=0)
    for _ in range(moves):
        env.step(bot.act(env, env.agent_selection))
    return env, env.unwrapped, env.unwrapped.possible_agents.index(env.agent_selection)


def test_search_reads_only_the_information_set():
    """Two states that differ only in what the searching seat cannot see (re-drawn by
    determinize) give the same search: it plans on determinizations alone."""
    env, raw, seat = _greedy_position(3, 7)
    other = raw.determinize(seat, 12345)
    assert not np.array_equal(other._state, raw._state)     # the hidden future differs
    assert np.array_equal(other.observe(env.agent_selection)["observation"],
                          env.observe(env.agent_selection)["observation"])
    arrays = az_net.random_arrays(raw.cfg.obs_size, raw.spec.num_actions, 2, seed=1)
    a = _search(raw, arrays, seat, 60, seed=9)
    b = _search(other, arrays, seat, 60, seed=9)
    assert a == b
    legal = set(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))
    # the first simulation evaluates the root; each later one visits one root child
    assert set(a) == legal and sum(n for n, _ in a.values()) == 59


def test_delayed_expansion_calls_the_network_at_a_nodes_second_visit():
    """At heuristic_mix 1 the network only gives a node's children their priors, so a node
    visited once is valued by the heuristic and left without children; its second visit
    expands it and goes on down.  Below mix 1 the switch changes nothing."""
    from agents.players.az_search import EXPANDED, FIRST, VISITS
    env, raw, seat = _greedy_position(4, 5)
    arrays = az_net.random_arrays(raw.cfg.obs_size, raw.spec.num_actions, 2, seed=3)

    def tree(sims, **options):
        return _search_tree(raw, arrays, seat, sims, 7, default_params(GAME, **options))

    sims = 300
    (lazy, n_lazy), (eager, n_eager) = (tree(sims, heuristic_mix=1.0, delay_expansion=d) for d in (True, False))
    for ws, n in ((lazy, n_lazy), (eager, n_eager)):
        visits, expanded, first = ws.floats[VISITS, 1:n], ws.ints[EXPANDED, 1:n], ws.ints[FIRST, 1:n]
        assert visits.max() >= 2
        # expanded 1: children made; -1: valued once, no children; 0: unvisited or a finished game
        assert np.array_equal(expanded == 1, first >= 0)
        assert np.all(expanded[visits == 0] == 0)
        assert sum(v for v, _ in root_stats(ws).values()) == sims - 1     # the root is expanded at once
    lazy_visits, lazy_expanded = lazy.floats[VISITS, 1:n_lazy], lazy.ints[EXPANDED, 1:n_lazy]
    once = lazy_visits == 1
    assert np.all(lazy_expanded[once] != 1) and np.any(lazy_expanded[once] == -1)
    assert np.all(lazy_expanded[lazy_visits >= 2] != -1)
    assert not np.any(eager.ints[EXPANDED, 1:n_eager] == -1)
    assert np.all(eager.ints[EXPANDED, 1:n_eager][eager.floats[VISITS, 1:n_eager] == 1] != -1)
    assert n_lazy < n_eager            # children only under nodes visited twice
    # the root is evaluated on the same (first) determinization: the same priors
    assert _root_priors(lazy) == _root_priors(eager)
    (a, n_a), (b, n_b) = (tree(120, heuristic_mix=0.5, delay_expansion=d) for d in (True, False))
    assert n_a == n_b and np.array_equal(a.ints[:, :n_a], b.ints[:, :n_b])
    assert np.array_equal(a.floats[:, :n_a], b.floats[:, :n_b])


@pytest.mark.parametrize("depth", [0, 1, 6])
def test_leaf_playout_is_greedy_play_then_the_heuristic(depth):
    """``playout_depth`` values a leaf after that many moves of each seat's first best one-ply
    move (a plain-Python greedy beside the kernel's), on the simulation's own state."""
    env = envs.make(GAME)
    raw = env.unwrapped
    kernel, n = raw.spec.kernel, raw.cfg.num_players
    fns = search_functions(kernel)
    params = default_params(GAME, playout_depth=depth).vector()
    m = max(int(raw.cfg.num_participants), n)
    for seed in range(4):
        env.reset(seed=seed)
        bot = agents.make("random", seed=seed)
        for _ in range(3 * seed):
            env.step(bot.act(env, env.agent_selection))
        state = raw._state.copy()
        expected = state.copy()
        for _ in range(depth):           # the reference: greedy by margins, first best on ties
            legal = np.zeros(raw.spec.num_actions, np.int8)
            kernel.legal_mask(expected, legal)
            best, best_a = -np.inf, -1
            for a in np.flatnonzero(legal):
                after = expected.copy()
                kernel.step(after, a)
                assert kernel.current_player(after) >= 0     # (early positions: no game ends here)
                v = outcome.evaluate(kernel, after, kernel.current_player(expected), n, raw.cfg.num_participants)
                if v > best:
                    best, best_a = v, a
            kernel.step(expected, best_a)
        want, got = np.zeros(n), np.zeros(n)
        fns.outcome_vector(expected, params, np.zeros(m, np.int64), np.zeros(m), np.zeros(m, np.int64), want)
        fns.heuristic(state, params, np.zeros(raw.spec.num_actions, np.int8), np.zeros_like(state),
                      np.zeros(m, np.int64), np.zeros(m), np.zeros(m, np.int64), got)
        assert np.array_equal(state, expected)           # played on the state it was given
        assert np.allclose(got, want)
    # a search with playouts leaves the position it searched from as it was
    before = raw._state.copy()
    arrays = az_net.random_arrays(raw.cfg.obs_size, raw.spec.num_actions, 2, seed=4)
    seat = raw.possible_agents.index(env.agent_selection)
    stats = _search(raw, arrays, seat, 40, seed=1, params=default_params(GAME, playout_depth=depth,
                                                                           heuristic_mix=1.0))
    assert np.array_equal(raw._state, before) and sum(v for v, _ in stats.values()) == 39


def _root_priors(ws):
    """``{action: prior}`` of the children of the root of ``ws``'s tree."""
    from agents.players.az_search import ACTION, FIRST, NEXT, PRIOR
    out, ch = {}, ws.ints[FIRST, 0]
    while ch >= 0:
        out[int(ws.ints[ACTION, ch])] = float(ws.floats[PRIOR, ch])
        ch = ws.ints[NEXT, ch]
    return out


def test_gumbel_policy_target_is_a_distribution_over_legal_actions():
    env = envs.make(GAME)
    raw = env.unwrapped
    env.reset(seed=5)
    arrays = az_net.random_arrays(raw.cfg.obs_size, raw.spec.num_actions, 2, seed=2)
    fns = search_functions(raw.spec.kernel)
    ws = Workspace(raw.cfg, raw.spec.num_actions, az_net.describe(arrays)[3])
    ws.grow(20 * (raw.spec.num_actions + 1))
    improved, sig = np.zeros(raw.spec.num_actions), np.zeros(raw.spec.num_actions)
    mask = env.observe(env.agent_selection)["action_mask"]
    seat = raw.possible_agents.index(env.agent_selection)
    action = fns.gumbel(raw._state, seat, 16, 8, az_net.as_tuple(arrays), default_params(GAME).vector(),
                        new_generator(1), ws.scratch(), ws.work.args(), *ws.tree(), improved, sig)
    assert mask[action] == 1
    assert np.isclose(improved.sum(), 1.0) and np.all(improved[mask == 0] == 0)
    # every candidate got simulations (16 over min(8, legal) candidates, halved each round)
    visited = [a for a, (n, _) in root_stats(ws).items() if n > 0]
    assert len(visited) == min(8, int(mask.sum()))


def test_outcome_vector_is_the_rank_and_margin_of_the_final_scores():
    """A finished game's value target: rank_weight * rank reward + (1 - rank_weight) *
    tanh(score margin / margin_scale), from the game's own final scores and ranks."""
    env = envs.make(GAME)
    raw = env.unwrapped
    env.reset(seed=8)
    bot = agents.make("greedy", seed=0)
    for who in env.agent_iter():
        if env.terminations[who]:
            break
        env.step(bot.act(env, who))
    scores = np.array(env.unwrapped.scores(), dtype=float)
    ranks = np.array(env.infos["player_0"]["ranks"])
    params = default_params(GAME)
    out = np.zeros(2)
    m = np.zeros(2, np.int64)
    search_functions(raw.spec.kernel).outcome_vector(raw._state, params.vector(), m, np.zeros(2), m.copy(), out)
    for seat in range(2):
        rank = 1.0 if ranks[seat] < ranks[1 - seat] else -1.0 if ranks[seat] > ranks[1 - seat] else 0.0
        margin = scores[seat] - scores[1 - seat]
        want = params.rank_weight * rank + (1 - params.rank_weight) * np.tanh(margin / params.margin_scale)
        assert out[seat] == pytest.approx(want)


def test_agents_play_legal_moves_and_take_a_budget():
    raw = envs.make(GAME).unwrapped
    arrays = az_net.random_arrays(raw.cfg.obs_size, raw.spec.num_actions, 2, seed=4)
    env = envs.make(GAME)
    search = _bind(AZAgent(simulations=12, seed=0), arrays)
    gumbel = _bind(AZAgent(simulations=8, root="gumbel", seed=0), arrays)
    policy = _bind(AZPolicyAgent(seed=0), arrays)
    record = agents.play_game(env, [search, policy], seed=1)
    assert record.info["ranks"]
    record = agents.play_game(env, [gumbel, policy], seed=2)
    assert record.info["ranks"]
    timed = _bind(AZAgent(seconds=0.05, seed=0), arrays)
    env.reset(seed=3)
    timed.act(env, env.agent_selection)
    assert timed.last_simulations >= AZAgent.CHUNK


@pytest.mark.parametrize("bad", [dict(simulations=0), dict(simulations=1.5), dict(seconds=-1.0),
                                 dict(root="ucb"), dict(root="gumbel", seconds=1.0), dict(gumbel_m=0),
                                 dict(search_options=[1]), dict(path="/nonexistent/net.npz")])
def test_bad_agent_options_raise_value_error(bad):
    with pytest.raises(ValueError):
        AZAgent(**bad)


@pytest.mark.parametrize("name, value, problem", [
    ("heuristic_mix", 1.5, r"\[0, 1\]"), ("rank_weight", -0.1, r"\[0, 1\]"), ("margin_scale", 0.0, "> 0"),
    ("solo_scale", -2.0, "> 0"), ("c_puct", -1.0, ">= 0"), ("c_puct", float("nan"), "finite"),
    ("win_bonus", "10", "finite"), ("use_action_values", 1, "true or false"),
    ("delay_expansion", "yes", "true or false"), ("playout_depth", -1, "whole number"),
    ("playout_depth", 2.5, "whole number"), ("playout_depth", True, "whole number"),
    ("playout_depth", 201, "from 0 to 200")])
def test_bad_search_parameter_values_are_refused_before_the_search(name, value, problem):
    """A search option out of its range (a zero scale divides, a share outside [0, 1] turns the
    leaf mix into an extrapolation) is refused by name, at the agent's first move, and the
    game is untouched."""
    with pytest.raises(ValueError, match=f"search parameter {name} must be .*{problem}"):
        default_params(GAME, **{name: value})
    env = envs.make(GAME)
    env.reset(seed=0)
    before = env.unwrapped.kernel_state.copy()
    bot = agents.make("az", game=GAME, simulations=4, search_options={name: value})
    with pytest.raises(ValueError, match=name):
        bot.act(env, env.agent_selection)
    assert np.array_equal(env.unwrapped.kernel_state, before)
    # the ranges' edges are allowed: an optimistic first-play urgency, a heuristic-only leaf
    assert default_params(GAME, fpu_reduction=-0.1, heuristic_mix=1.0, solo_center=-5.0).heuristic_mix == 1.0


@pytest.mark.parametrize("argv, problem", [
    (["--search", "[1"], "--search: bad JSON"), (["--env-options", "3"], "--env-options: must be a JSON object"),
    (["--search", '{"heuristic_mix": 2}'], "heuristic_mix must be in"),
    (["--play-search", '{"c_puct": -1}'], "--play-search: search parameter c_puct must be >= 0"),
    (["--play-search", '{"nope": 1}'], "--play-search: unknown search parameter")])
def test_training_command_refuses_bad_settings_in_one_line_before_training(argv, problem, tmp_path, capsys):
    from agents.learning.alphazero.__main__ import main

    with pytest.raises(SystemExit) as exit_info:
        main(["--game", GAME, "--out", str(tmp_path / "run"), "--generations", "1"] + argv)
    message = str(exit_info.value) + capsys.readouterr().err
    assert problem in message and "Traceback" not in message
    assert not (tmp_path / "run").exists()


def _copied_network(game, tmp_path, **record_changes):
    """The shipped network of ``game`` copied into ``tmp_path`` with its record changed."""
    from agents.pretrained import AZ_PREFIX, MODELS_DIR

    base = os.path.join(MODELS_DIR, AZ_PREFIX + game)
    with np.load(base + ".npz") as data:
        np.savez(tmp_path / "net.npz", **{k: data[k] for k in data.files})
    with open(base + ".json") as f:
        record = json.load(f)
    record.update(record_changes)
    (tmp_path / "net.json").write_text(json.dumps(record))
    return str(tmp_path / "net.npz"), record


def test_play_search_overrides_the_trained_settings_at_the_networks_own_table(tmp_path):
    """A record's play_search (the settings matches after training chose) is played over its
    trained search settings at the seat count the network was trained and measured at, not
    at a solo table; search_options override both."""
    game = "smartphone_inc_v0"
    path, record = _copied_network(game, tmp_path, play_search={"heuristic_mix": 0.9, "c_puct": 2.5})
    assert record["search"]["heuristic_mix"] == 0.5 and record["search"]["c_puct"] == 1.5
    two, solo = envs.make(game, num_players=2), envs.make(game, num_players=1)
    bot = agents.make("az", path=path, simulations=4)
    bot.bind(two)
    assert (bot.network.params.heuristic_mix, bot.network.params.c_puct) == (0.9, 2.5)
    bot.bind(solo)
    assert (bot.network.params.heuristic_mix, bot.network.params.c_puct) == (0.5, 1.5)
    pinned = agents.make("az", path=path, simulations=4, search_options={"heuristic_mix": 0.25})
    pinned.bind(two)
    assert (pinned.network.params.heuristic_mix, pinned.network.params.c_puct) == (0.25, 2.5)
    (tmp_path / "bad").mkdir()
    bad, _ = _copied_network(game, tmp_path / "bad", play_search={"heuristic_mix": 7})
    with pytest.raises(ValueError, match="heuristic_mix"):
        agents.make("az", path=bad, simulations=4).bind(two)
    (tmp_path / "list").mkdir()
    listed, _ = _copied_network(game, tmp_path / "list", play_search=[["heuristic_mix", 1.0]])
    with pytest.raises(ValueError, match="'play_search' must be an object"):
        agents.make("az", path=listed, simulations=4).bind(two)


def test_unknown_search_parameter_and_wrong_game_are_refused():
    raw = envs.make(GAME).unwrapped
    with pytest.raises(ValueError, match="search parameter"):
        default_params(GAME, c_puc=1.0)
    arrays = az_net.random_arrays(raw.cfg.obs_size, raw.spec.num_actions, 2)
    tt = envs.make("tiny_towns_v0", num_players=2)
    tt.reset(seed=0)
    bot = _bind(AZPolicyAgent(seed=0), arrays, game=None)
    bot.game = None
    bot.path = "x"          # a network given by file: bound to whatever game it is handed
    with pytest.raises(ValueError, match="observation values"):
        bot.act(tt, tt.agent_selection)


def test_replay_buffer_keeps_the_newest_samples():
    from agents.learning.alphazero.replay import ReplayBuffer

    buf = ReplayBuffer(5, 3, 2, 2)

    def batch(start, n):
        return {"obs": np.arange(start, start + n, dtype=np.float32)[:, None].repeat(3, 1),
                "av": np.zeros((n, 2)), "mask": np.ones((n, 2)), "pi": np.full((n, 2), 0.5),
                "z": np.zeros((n, 2))}

    buf.add(batch(0, 4))
    buf.add(batch(4, 4))
    assert buf.size == 5 and buf.added == 8
    assert sorted(buf.obs[:, 0].astype(int).tolist()) == [3, 4, 5, 6, 7]
    with pytest.raises(ValueError):
        ReplayBuffer(0, 3, 2, 2)


def _tiny_config(game, num_players, **kw):
    from agents.learning.alphazero.training import AZConfig

    base = dict(generations=1, games_per_generation=1, simulations=2, gumbel_m=2, hidden=(16, 8),
                buffer=5000, batch_size=32, eval_games=0, workers=1, seed=1, ladder_every=0)
    base.update(kw)
    return AZConfig(game=game, num_players=num_players, **base)


def _run(cfg, out, resume=False):
    from agents.learning.alphazero.training import Trainer

    return Trainer(cfg, str(out), resume=resume, log=lambda s: None).run()


def test_one_generation_then_resume(tmp_path):
    pytest.importorskip("torch")
    history = _run(_tiny_config(GAME, 2, eval_games=2), tmp_path)
    assert len(history) == 1 and history[0]["samples"] > 0 and history[0]["games"] == 1
    assert 0.0 <= history[0]["policy_vs_greedy"] <= 1.0
    assert history[0]["ladder_halfwidth"] > 0          # rated on the ladder from the greedy games
    history = _run(_tiny_config(GAME, 2, generations=2, eval_games=2), tmp_path, resume=True)
    assert [r["generation"] for r in history] == [1, 2]
    assert "policy_vs_previous" in history[1]
    assert sorted(os.listdir(tmp_path / "generations")) == ["gen_001.json", "gen_001.npz", "gen_002.json",
                                                            "gen_002.npz"]
    for name in ("checkpoint.pt", "buffer.npz", "curve.csv", "curve.png", "config.json"):
        assert (tmp_path / name).exists(), name
    # a generation's file plays as an agent (hash-checked against its record)
    bot = agents.make("az", path=str(tmp_path / "generations" / "gen_002.npz"), simulations=4, seed=0)
    record = agents.play_game(envs.make(GAME), [bot, agents.make("random", seed=0)], seed=0)
    assert record.info["ranks"]
    # exported with the settings it is to play with; a bad one is refused before anything is written
    from agents.learning.alphazero.export import export
    from agents.players.az import load_network

    models = tmp_path / "models"
    with pytest.raises(ValueError, match="play_search: .*heuristic_mix"):
        export(str(tmp_path), directory=str(models), check_games=1, play_search={"heuristic_mix": -1})
    assert not models.exists()
    shipped = export(str(tmp_path), directory=str(models), check_games=1, play_search={"heuristic_mix": 1.0})
    assert shipped["play_search"] == {"heuristic_mix": 1.0} and shipped["search"]["heuristic_mix"] == 0.5
    assert load_network(path=str(models / f"az_{GAME}.npz"))[1]["play_search"] == {"heuristic_mix": 1.0}


ALL_COUNTS = {game: envs.make(game).unwrapped.spec.player_counts for game in envs.GAMES}


def test_ladder_rating_follows_the_games_against_greedy():
    """Two seats: the generation's ladder rating is fitted from its points against greedy
    (the anchor, 1000): more points, a higher rating; level play rates about 1000; a run at
    a table the ladder does not rate (three seats) gets no column."""
    from agents.learning.alphazero.training import ladder_columns

    cfg = _tiny_config(GAME, 2)
    even = ladder_columns(cfg, 2, "unused.npz", 1, [1.0, 0.0] * 50)
    ahead = ladder_columns(cfg, 2, "unused.npz", 1, [1.0, 1.0, 1.0, 0.0] * 25)
    assert abs(even["ladder_rating"] - 1000) < 5 and even["ladder_halfwidth"] > 0
    assert ahead["ladder_rating"] > even["ladder_rating"] + 100
    assert ladder_columns(cfg, 2, "unused.npz", 1, []) == {}
    assert ladder_columns(_tiny_config("between_two_cities_v0", 3), 3, "unused.npz", 1, [1.0]) == {}


@pytest.mark.slow    # about 1.5-2 minutes: a training run and a scorecard
def test_solo_generation_is_rated_on_the_solo_ladder(tmp_path):
    """Solo: every ``ladder_every`` generations the raw policy plays the solo ladder's seeds
    (its scorecard); a run with other options than the ladder's is not rated."""
    pytest.importorskip("torch")
    history = _run(_tiny_config("tiny_towns_v0", 1, eval_games=1, ladder_every=1, ladder_target=2000.0), tmp_path)
    row = history[0]
    assert row["ladder_halfwidth"] > 0 and np.isfinite(row["ladder_rating"])
    from agents.learning.alphazero.training import ladder_columns
    other = _tiny_config("between_two_cities_v0", 1, env_options={"difficulty": 4}, ladder_every=1)
    assert ladder_columns(other, 1, "unused.npz", 1, []) == {}


def test_one_tiny_generation_solo(tmp_path):
    """One generation of a tiny self-play with one seat (its value head has one output)."""
    pytest.importorskip("torch")
    history = _run(_tiny_config("tiny_towns_v0", 1, eval_games=1), tmp_path)
    assert history[0]["samples"] > 0 and "policy_mean_score" in history[0]


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(ALL_COUNTS))
def test_one_tiny_generation_every_player_count(game, tmp_path):
    """One generation of a tiny self-play runs in every game at every player count it
    allows (solo games included)."""
    pytest.importorskip("torch")
    for n in ALL_COUNTS[game]:
        history = _run(_tiny_config(game, n, eval_games=1), tmp_path / str(n))
        assert history[0]["samples"] > 0, (game, n)


def test_config_refuses_bad_values():
    from agents.learning.alphazero.training import AZConfig

    for bad in (dict(generations=0), dict(simulations=-1), dict(hidden=(8,)), dict(backend="slurm"),
                dict(search={"nope": 1}), dict(ladder_every=-1), dict(ladder_target=0),
                dict(warm_start="greedy"), dict(warm_start_games=0), dict(warm_start_epochs=0.0),
                dict(warm_start_explore=1.5), dict(warm_start_temperature=-1.0),
                dict(generations=-1, warm_start="pretrained"), dict(value_target_mix=1.5),
                dict(value_target_mix=-0.1), dict(value_target_mix="half")):
        with pytest.raises(ValueError):
            AZConfig(game=GAME, **bad)


def _selfplay_job(mix, game=GAME, num_players=2):
    raw = envs.make(game, num_players=num_players).unwrapped
    arrays = az_net.random_arrays(raw.cfg.obs_size, raw.spec.num_actions, num_players, (16, 8), seed=3)
    return {"game": game, "num_players": num_players, "env_options": {}, "arrays": arrays,
            "params": default_params(game)._asdict(), "simulations": 8, "gumbel_m": 4,
            "seeds": [5, 6], "search_seed": 11, "value_target_mix": mix}


def test_value_targets_blend_the_searchs_value_of_each_position():
    """``value_target_mix``: the same games (same moves and policy targets); the value targets
    move from the outcome (mix 0) to the search's value of each position (mix 1), in a
    straight line, the two seats' targets still summing to zero; and the search's value
    differs from position to position, unlike a game's outcome."""
    from agents.learning.alphazero.selfplay import play_selfplay

    results = {mix: play_selfplay(_selfplay_job(mix)) for mix in (0.0, 0.5, 1.0)}
    z0, zh, z1 = (results[m]["samples"]["z"].astype(np.float64) for m in (0.0, 0.5, 1.0))
    for key in ("obs", "mask", "pi"):
        assert np.array_equal(results[0.0]["samples"][key], results[1.0]["samples"][key]), key
    counts = np.cumsum([0] + results[0.0]["counts"])
    for g in range(len(counts) - 1):      # the outcome: one value a game
        assert np.ptp(np.abs(z0[counts[g]:counts[g + 1], 0])) == 0.0
    assert np.ptp(z1[:, 0]) > 0.01 and not np.allclose(z1, z0)
    assert np.all(np.abs(z1) <= 1.0 + 1e-6)
    np.testing.assert_allclose(z1.sum(axis=1), 0.0, atol=1e-6)
    np.testing.assert_allclose(zh, (z0 + z1) / 2, atol=2e-3)     # float32 targets


def test_value_target_mix_needs_a_table_where_the_movers_value_says_it_all(tmp_path):
    """The search's value is the mover's: with three seats (or automata beside two) it cannot
    stand in for the others', and the trainer refuses it before any game."""
    from agents.learning.alphazero.selfplay import check_value_target_mix

    check_value_target_mix(0.5, 1, 1)
    check_value_target_mix(0.5, 2, 2)
    check_value_target_mix(0.0, 3, 3)
    for seats, participants in ((3, 3), (2, 3)):
        with pytest.raises(ValueError, match="value_target_mix"):
            check_value_target_mix(0.5, seats, participants)
    pytest.importorskip("torch")
    from agents.learning.alphazero.training import Trainer
    with pytest.raises(ValueError, match="value_target_mix"):
        Trainer(_tiny_config("between_two_cities_v0", 3, value_target_mix=0.5), str(tmp_path), log=lambda s: None)


def test_warm_start_samples_are_the_shipped_policys_moves_and_the_games_outcome():
    """The warm start's samples: each decision with more than one legal move, labelled with
    the shipped policy's distribution (its move the most likely, nothing off the mask); the
    value target is the finished game's outcome vector from the mover's seat."""
    from agents.learning.alphazero.warm_start import play_teacher

    game = "smartphone_inc_v0"
    params = default_params(game)
    job = {"game": game, "num_players": 2, "env_options": {}, "params": params._asdict(), "seeds": [5],
           "search_seed": 0, "explore": 0.0, "temperature": 1.0}
    out = play_teacher(job)
    s = out["samples"]
    n = out["counts"][0]
    assert n == len(s["obs"]) > 10
    assert np.allclose(s["pi"].sum(axis=1), 1.0, atol=1e-5)
    assert (s["pi"][s["mask"] == 0] == 0).all() and (s["mask"].sum(axis=1) > 1).all()
    # replay the game with the policy alone: the same decisions, each label's argmax its move
    env = envs.make(game, num_players=2)
    env.reset(seed=5)
    teacher = agents.make("pretrained", game=game)
    row, movers = 0, []
    for who in env.agent_iter():
        if env.terminations[who]:
            env.step(None)
            continue
        obs = env.observe(who)
        move = teacher.act(env, who)
        if obs["action_mask"].sum() > 1:
            assert np.array_equal(s["obs"][row], obs["observation"].astype(np.float16))
            assert int(np.argmax(s["pi"][row])) == move
            movers.append(env.possible_agents.index(who))
            row += 1
        env.step(move)
    assert row == n
    final = np.array(out["final"][0])
    assert np.all(np.abs(final) <= 1.0)
    winner = int(np.argmax(out["scores"][0]))
    if out["scores"][0][0] != out["scores"][0][1]:
        assert final[winner] > 0 > final[1 - winner], (out["scores"], final)
    assert set(movers) == {0, 1}
    assert all(np.allclose(z, np.roll(final, -m), atol=1e-6) for z, m in zip(s["z"], movers))


@pytest.mark.slow    # about 1.5 minutes: a warm start, then a resumed generation
def test_warm_start_is_generation_zero_and_learns_the_policys_moves(tmp_path):
    """A run with ``warm_start="pretrained"`` begins with generation 0, fitted to the shipped
    policy's moves: on games it did not see it agrees with them more often than the
    untrained network (greedy's judgement) does.  ``generations=0`` stops there; a resumed run
    goes on with self-play, rated against generation 0, and does not warm-start again; a game
    without a shipped policy is refused."""
    pytest.importorskip("torch")
    from agents.learning.alphazero.network import AZNet
    from agents.learning.alphazero.warm_start import check_teacher, play_teacher

    game = "smartphone_inc_v0"
    warm = dict(warm_start="pretrained", warm_start_games=6, warm_start_epochs=30.0, warm_start_explore=0.0,
                hidden=(64, 64))
    history = _run(_tiny_config(game, 2, generations=0, eval_games=2, eval_pretrained=True, **warm), tmp_path)
    assert [r["generation"] for r in history] == [0]
    assert history[0]["games"] == 6 and "policy_vs_pretrained" in history[0]
    held_out = play_teacher({"game": game, "num_players": 2, "env_options": {}, "seeds": [99, 100],
                             "params": default_params(game)._asdict(), "search_seed": 0, "explore": 0.0,
                             "temperature": 1.0})["samples"]
    raw = envs.make(game, num_players=2).unwrapped
    untrained = AZNet(raw.cfg.obs_size, raw.spec.num_actions, 2, (64, 64)).export_arrays()
    with np.load(tmp_path / "generations" / "gen_000.npz") as data:
        fitted = {k: data[k] for k in data.files}
    scale = default_params(game).value_scale

    def agreement(arrays):
        logits, _ = az_net.batch_forward(arrays, held_out["obs"], held_out["av"], held_out["mask"], scale)
        return float(np.mean(np.argmax(logits, 1) == np.argmax(held_out["pi"], 1)))

    assert agreement(fitted) > agreement(untrained) + 0.1
    history = _run(_tiny_config(game, 2, generations=1, eval_games=2, **warm), tmp_path, resume=True)
    assert [r["generation"] for r in history] == [0, 1]
    assert "policy_vs_previous" in history[1] and history[1]["games"] == 1   # self-play, not the teacher
    with pytest.raises(ValueError, match="no shipped policy"):
        check_teacher("no_such_game_v0", 2, {})


# ------------------------------------------------------------------ shipped network
def _shipped_games():
    from agents.pretrained import AZ_PREFIX, available_games
    return available_games(prefix=AZ_PREFIX)


def test_every_game_has_a_shipped_network():
    assert _shipped_games() == sorted(envs.GAMES)


@pytest.mark.parametrize("game", _shipped_games())
def test_shipped_network_is_hash_checked_and_apart_from_the_policies(game, tmp_path):
    from agents.learning.alphazero.__main__ import PLAY_SEARCH, PRESETS
    from agents.players.az import load_network
    from agents.pretrained import AZ_PREFIX, MODELS_DIR, available_games

    assert all(not g.startswith(AZ_PREFIX) for g in available_games())
    arrays, record = load_network(game)
    assert record["weights_sha256"] and record["storage"] in ("int8", "float16", "float32")
    for form, check in record["storage_checks"].items():
        if form == record["storage"]:
            assert check["same_move"] >= 0.998 * check["decisions"]
    assert record["curve"] and record["command"].startswith("python -m agents.learning.alphazero")
    # the preset the record's command names reproduces the shipped generation's settings,
    # and the settings it plays with
    assert f"--game {game} --preset shipped" in record["command"]
    assert record.get("play_search", {}) == PLAY_SEARCH.get(game, {})
    bot = agents.make("az", game=game, simulations=4)
    bot.bind(envs.make(game, **record["options"]))
    played = {**record["search"], **record.get("play_search", {})}
    assert bot.network.params._asdict() == default_params(game, **played)._asdict()
    preset = PRESETS[game]
    assert preset["generations"] == record["generation"]
    for key, value in preset.items():     # a run may have gone on past it, or stopped by the clock
        if key in ("generations", "time_limit"):
            continue
        assert record["config"][key] == (list(value) if isinstance(value, tuple) else value), key
    # a tampered copy is refused
    for ext in (".npz", ".json"):
        src = os.path.join(MODELS_DIR, AZ_PREFIX + game + ext)
        with open(src, "rb") as f, open(tmp_path / (AZ_PREFIX + game + ext), "wb") as g:
            g.write(f.read())
    with np.load(tmp_path / (AZ_PREFIX + game + ".npz")) as data:
        changed = {k: data[k] for k in data.files}
    changed["bv"] = changed["bv"] + 1
    np.savez(tmp_path / (AZ_PREFIX + game + ".npz"), **changed)
    with pytest.raises(ValueError, match="hash"):
        load_network(game, directory=str(tmp_path))


@pytest.mark.parametrize("game", _shipped_games())
def test_shipped_agents_in_a_tournament(game):
    """Both agents play the shipped network of every game in a tournament, at the seat
    count it was trained for; more seats than its value head has are refused with the sizes
    named, and a solo table (fewer seats) is played to the end."""
    from agents.apps import tournament as T
    from agents.players.az import load_network

    seats = load_network(game)[1]["options"]["num_players"]
    res = T.run_tournament(game, ["az", "az_policy", "greedy"], num_players=seats, games=2, workers=1, seed=0,
                           progress=False, agent_options={"az": {"simulations": 8}})
    assert res["games"] == 6
    counts = envs.make(game).unwrapped.spec.player_counts
    more = [n for n in counts if n > seats]
    if more:                    # Kingdomino Duel has two seats only
        with pytest.raises(ValueError, match="up to 2 seats"):
            agents.make("az", game=game).bind(envs.make(game, num_players=more[0]))
    if 1 in counts:
        for name, options in (("az", {"simulations": 8}), ("az_policy", {})):
            env = envs.make(game, num_players=1)
            record = agents.play_game(env, [agents.make(name, game=game, seed=0, **options)], seed=3)
            assert record.moves[0] > 0 and all(env.terminations.values())


def test_a_two_seat_network_at_a_solo_table_takes_the_games_solo_scale():
    """The record's solo constants were never trained on by a two-seat network: at a solo
    table the game's own (SOLO_SCALES) value the leaves, at two seats the record's stay, and
    search_options override both."""
    from agents.players.az import load_network
    from agents.players.az_search import SOLO_SCALES

    game = "smartphone_inc_v0"
    record = load_network(game)[1]
    assert record["options"]["num_players"] == 2
    assert (record["search"]["solo_center"], record["search"]["solo_scale"]) != SOLO_SCALES[game]
    solo, two = envs.make(game, num_players=1), envs.make(game, num_players=2)
    bot = agents.make("az", game=game, simulations=4)
    bot.bind(solo)
    assert (bot.network.params.solo_center, bot.network.params.solo_scale) == SOLO_SCALES[game]
    bot.bind(two)
    assert bot.network.params.solo_center == record["search"]["solo_center"]
    pinned = agents.make("az", game=game, simulations=4, search_options={"solo_center": 150.0})
    pinned.bind(solo)
    assert pinned.network.params.solo_center == 150.0


def test_default_budget_is_the_games_own():
    """Without simulations or seconds, az runs its game's default budget (the table fitted
    to 1 s a move here); every shipped network has its entry."""
    from agents.players.az import DEFAULT_SIMULATIONS, FALLBACK_SIMULATIONS, default_simulations

    assert set(_shipped_games()) <= set(DEFAULT_SIMULATIONS)
    assert default_simulations("no_such_game") == FALLBACK_SIMULATIONS
    env = envs.make(GAME)
    env.reset(seed=2)
    bot = agents.make("az", game=GAME, seed=0)
    while env.observe(env.agent_selection)["action_mask"].sum() < 2:
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    bot.act(env, env.agent_selection)
    assert bot.last_simulations == DEFAULT_SIMULATIONS[GAME]
