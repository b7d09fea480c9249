"""What other RL libraries rely on: the registries, a privileged global state for
centralised critics, and info keys present from reset()."""
import gymnasium
import numpy as np
import pettingzoo
import pytest

import envs
from envs.registry import gymnasium_id, pettingzoo_id


def test_ids_follow_each_library_convention():
    assert pettingzoo_id("kingdomino_duel_v0") == "cityzoo/kingdomino_duel-v0"
    assert gymnasium_id("between_two_cities_v0") == "cityzoo/BetweenTwoCities-v0"


@pytest.mark.skipif(not hasattr(pettingzoo, "aec_registry"), reason="PettingZoo < 1.27 has no registry")
@pytest.mark.parametrize("game", envs.GAMES)
def test_pettingzoo_registry_makes_the_game(game):
    env = pettingzoo.make("aec", pettingzoo_id(game), num_players=envs.make(game).cfg.num_players,
                          render_mode="ansi")
    assert isinstance(env, envs.CityEnv) and env.metadata["name"] == game
    env.reset(seed=5)
    twin = envs.make(game)
    twin.reset(seed=5)
    a = env.agent_selection
    assert np.array_equal(env.observe(a)["observation"], twin.observe(a)["observation"])
    with pytest.raises(ValueError, match="unknown option"):
        pettingzoo.make("aec", pettingzoo_id(game), colour_blind=True)


@pytest.mark.parametrize("game", envs.GAMES)
def test_gymnasium_registry_makes_the_single_seat_env(game):
    import agents
    others = envs.make(game).cfg.num_players - 1
    env = gymnasium.make(gymnasium_id(game), opponents=["greedy"] * others, agent_factory=agents.make)
    obs, info = env.reset(seed=3)
    mask = env.unwrapped.action_masks()
    assert obs.shape == env.observation_space.shape and mask.any()
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(mask)[0]))
    assert np.isfinite(reward) and env.observation_space.contains(obs)


@pytest.mark.parametrize("game", envs.GAMES)
def test_state_is_every_seat_view_and_not_an_observation(game):
    env = envs.make(game)
    with pytest.raises(AssertionError):
        env.state()
    env.reset(seed=11)
    rng = np.random.default_rng(0)
    n, size = env.cfg.num_players, env.cfg.obs_size
    for _ in range(40):
        if not env.agents or env.terminations[env.agent_selection]:
            break
        st = env.state()
        assert st.shape == env.state_space.shape == (n * size,) and env.state_space.contains(st)
        for p, agent in enumerate(env.possible_agents):
            assert np.array_equal(st[p * size:(p + 1) * size], env.observe(agent)["observation"])
        keep = st.copy()
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(rng.choice(np.flatnonzero(mask))))
        assert np.array_equal(st, keep), "a state the user holds never changes under them"
    assert "state" not in env.observe(env.possible_agents[0])


@pytest.mark.parametrize("game", envs.GAMES)
def test_end_info_keys_are_there_from_reset(game):
    env = envs.make(game)
    env.reset(seed=2)
    n = env.cfg.num_players
    for agent in env.possible_agents:
        assert env.infos[agent] == {"scores": [0] * n, "winners": [], "ranks": [0] * n, "end_reason": ""}
    rng = np.random.default_rng(1)
    while not env.terminations[env.agent_selection]:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    info = env.infos[env.possible_agents[0]]
    assert info["end_reason"] == "game_over" and all(r >= 1 for r in info["ranks"])
    assert [type(v) for v in info["scores"]] == [int] * n


@pytest.mark.parametrize("game", ["kingdomino_duel_v0", "between_two_cities_v0"])
def test_numeric_infos_are_fixed_shape_numbers(game):
    """numeric_infos=True: the same keys and shapes from reset to the end, numbers only (for
    libraries that turn every info into a tensor)."""
    env = envs.make(game, numeric_infos=True)
    env.reset(seed=4)
    n = env.cfg.num_players
    start = env.infos[env.possible_agents[0]]
    assert start == {"scores": [0] * n, "ranks": [0] * n, "won": False}
    rng = np.random.default_rng(0)
    while not env.terminations[env.agent_selection]:
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
        for agent in env.possible_agents:
            info = env.infos[agent]
            assert set(info) == set(start) and len(info["scores"]) == len(info["ranks"]) == n
            assert all(isinstance(v, (int, bool)) for v in info["scores"] + info["ranks"] + [info["won"]])
    twin = envs.make(game)
    twin.reset(seed=4)
    rng = np.random.default_rng(0)
    while not twin.terminations[twin.agent_selection]:
        twin.step(int(rng.choice(np.flatnonzero(twin.observe(twin.agent_selection)["action_mask"]))))
    full = twin.infos
    for agent in env.possible_agents:
        assert env.infos[agent]["won"] == (agent in full[agent]["winners"])
        assert env.infos[agent]["scores"] == full[agent]["scores"]
    with pytest.raises(ValueError, match="numeric_infos"):
        envs.make(game, numeric_infos="yes")
