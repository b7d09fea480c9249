"""Every registered game, every player count: PettingZoo's own tests plus per-step invariants.

Per step (OpenSpiel-style random simulation): the observation is finite and inside its
space, the mask of the agent to move is non-empty and every other agent's is empty,
observations handed out earlier never change, re-seeding future chance and
determinizing for the mover leave its view unchanged, a clone taken mid-game replays
the rest of the game identically, and the game ends within the spec's step bound.
"""
import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import envs
from envs.registry import spec_for

CASES = [(g, n) for g in envs.GAMES for n in spec_for(g).player_counts]
GAMES_PER_CASE = 4


def make(game, n, **kw):
    spec = spec_for(game)
    if len(spec.player_counts) > 1:
        kw["num_players"] = n
    return envs.make(game, **kw)


@pytest.mark.parametrize("game", envs.GAMES)
def test_pettingzoo_api_seed_render(game):
    api_test(envs.make(game), num_cycles=300)
    seed_test(lambda: envs.make(game), num_cycles=200)
    render_test(lambda render_mode=None: envs.make(game, render_mode=render_mode))


@pytest.mark.parametrize("game", envs.GAMES)
def test_versioned_module_entry_points(game):
    import importlib
    mod = importlib.import_module(f"envs.{game}")
    for ctor in (mod.env, mod.raw_env):
        e = ctor()
        e.reset(seed=0)
        assert e.unwrapped is e and str(e) == game


def play_checked(env, seed):
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    agents = env.possible_agents
    space = env.observation_space(agents[0])
    kept = []
    clone_at = int(rng.integers(0, 40))
    twin, twin_actions = None, []
    steps = 0
    while not all(env.terminations.values()):
        mover = env.agent_selection
        obs = {a: env.observe(a) for a in agents}
        for a in agents:
            o = obs[a]
            assert space.contains(o), f"{a}: observation outside its space"
            assert np.isfinite(o["observation"]).all()
            if a != mover:
                assert not o["action_mask"].any(), f"{a} has legal actions but {mover} is to move"
        mask = obs[mover]["action_mask"]
        legal = np.flatnonzero(mask)
        assert legal.size > 0, f"empty mask for {mover} in phase {env.unwrapped.phase}"
        assert legal.tolist() == env.unwrapped.legal_actions()
        if steps % 7 == 0:
            c = env.unwrapped.clone()
            c.reseed(int(rng.integers(1 << 31)))
            for a in agents:
                assert np.array_equal(c.observe(a)["observation"], obs[a]["observation"]), \
                    f"reseed changed what {a} sees"
            d = env.unwrapped.determinize(mover, int(rng.integers(1 << 31)))
            mine = d.observe(mover)
            assert np.array_equal(mine["observation"], obs[mover]["observation"]), \
                "determinize changed the observer's view"
            assert np.array_equal(mine["action_mask"], mask)
        if steps == clone_at:
            twin = env.unwrapped.clone()
        kept.append((obs[mover], {k: v.copy() for k, v in obs[mover].items()}))
        action = int(legal[rng.integers(legal.size)])
        label = env.unwrapped.action_label(action)
        assert isinstance(label, str) and label
        if twin is not None:
            twin_actions.append(action)
        env.step(action)
        steps += 1
        assert steps <= env.unwrapped.spec.max_steps, "game exceeds its step bound"
    for given, copy in kept:
        assert all(np.array_equal(given[k], copy[k]) for k in copy), "a stored observation changed"
    if twin is not None:
        for a in twin_actions:
            twin.step(a)
        assert np.array_equal(twin.game_state(), env.game_state())
        assert twin._cumulative_rewards == env._cumulative_rewards
        assert twin.infos == env.infos
    return steps


@pytest.mark.parametrize("game,n", CASES)
def test_random_games_keep_invariants(game, n):
    env = make(game, n)
    for g in range(GAMES_PER_CASE):
        play_checked(env, seed=1000 * n + g)
        info = env.infos[env.possible_agents[0]]
        assert info["scores"] == env.unwrapped.scores()
        assert set(info["winners"]) <= set(env.possible_agents)
        rewards = list(env._cumulative_rewards.values())
        assert all(-1.0 <= r <= 1.0 for r in rewards)
        for a in env.possible_agents:
            assert env.infos[a] == info
        while env.agents:
            env.step(None)


@pytest.mark.parametrize("game", envs.GAMES)
def test_bad_input_is_refused_and_changes_nothing(game):
    env = envs.make(game)
    with pytest.raises(AssertionError):
        env.step(0)
    env.reset(seed=3)
    mask = env.observe(env.agent_selection)["action_mask"]
    before = env._state.copy()
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(ValueError, match=rf"illegal action {illegal} .*phase"):
        env.step(illegal)
    for bad in (len(mask), -1, 0.5, "0", [0]):
        with pytest.raises(ValueError):
            env.step(bad)
    assert np.array_equal(env._state, before)
    with pytest.raises(ValueError):
        envs.make(game, no_such_option=1)
    with pytest.raises(ValueError):
        envs.make(game, num_players=99)
    with pytest.raises(ValueError):
        envs.make(game, reward_mode="elo")
    with pytest.raises(ValueError):
        envs.make("no_such_game_v0")


@pytest.mark.parametrize("game", envs.GAMES)
def test_same_seed_same_game_different_seed_different_game(game):
    def trajectory(seed):
        env = envs.make(game)
        env.reset(seed=seed)
        rng = np.random.default_rng(0)
        out = []
        for _ in range(30):
            if all(env.terminations.values()):
                break
            o = env.observe(env.agent_selection)
            out.append(o["observation"].tobytes())
            legal = np.flatnonzero(o["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
        return out

    assert trajectory(5) == trajectory(5)
    assert trajectory(5) != trajectory(6)
