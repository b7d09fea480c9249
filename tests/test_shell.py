"""The shared AEC shell on a toy game: bookkeeping, rewards, bad input, clone, determinize."""
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from envs.shell import CityEnv
from tests.toy_game import ToySpec


def make(**kw):
    return CityEnv(ToySpec(), **kw)


def play(env, actions):
    for a in actions:
        env.step(a)


def test_api_and_seed():
    api_test(make(), num_cycles=200)
    seed_test(lambda: make(num_players=3), num_cycles=100)


def test_use_before_reset_is_refused():
    env = make()
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)
    with pytest.raises(AssertionError, match="reset"):
        env.observe("player_0")


@pytest.mark.parametrize("bad", [3, -1, 1.0, "1", None, np.array([0, 1]), True])
def test_bad_actions_raise_and_change_nothing(bad):
    env = make()
    env.reset(seed=1)
    env.step(0)
    before = env.clone()
    with pytest.raises(ValueError, match="action"):
        env.step(bad)
    assert np.array_equal(env._state, before._state)
    assert env.agent_selection == before.agent_selection


def test_numpy_integer_actions_accepted():
    env = make()
    env.reset(seed=1)
    env.step(np.int64(2))
    env.step(np.array(0, dtype=np.int32))
    assert env._state[4] == 4


def test_illegal_action_message_names_action_and_phase():
    env = make()
    env.reset(seed=0)
    env._mask[1] = 0  # make "add 2" illegal for this decision
    with pytest.raises(ValueError, match=r"illegal action 1 \(add 2\).*phase add"):
        env.step(1)


def test_illegal_terminate_mode_matches_pettingzoo():
    env = make(num_players=3, illegal_action="terminate")
    env.reset(seed=0)
    env.step(0)
    env._mask[2] = 0
    offender = env.agent_selection
    with pytest.warns(UserWarning):
        env.step(2)
    assert all(env.terminations.values()) and all(env.truncations.values())
    assert env._cumulative_rewards[offender] == -1.0
    assert sum(env._cumulative_rewards.values()) == -1.0
    while env.agents:
        env.step(None)


@pytest.mark.parametrize("bad", [dict(reward_mode="elo"), dict(illegal_action="ignore"),
                                 dict(render_mode="svg"), dict(num_players=9), dict(colour="red")])
def test_bad_options_raise(bad):
    with pytest.raises(ValueError):
        make(**bad)


def test_rank_rewards_and_end_infos():
    env = make(num_players=3)
    env.reset(seed=0)
    play(env, [2, 2, 2, 2])  # seat 0 reaches 10+ on the 4th move? 3+3+3=9 then seat 0 adds 3
    assert all(env.terminations.values())
    assert env.infos["player_0"]["winners"] == ["player_0"]
    assert env.infos["player_1"]["scores"] == [1, 0, 0]
    # rank 1 -> +1; the two seats tied at rank 2 share places 2 and 3 -> 1 - 2*1.5/2 = -0.5
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}


def test_score_rewards():
    env = make(num_players=2, reward_mode="score")
    env.reset(seed=0)
    play(env, [2, 2, 2, 2])
    assert env._cumulative_rewards == {"player_0": -1.0, "player_1": 1.0}


def test_lone_player_rewards():
    env = make(num_players=1)
    env.reset(seed=0)
    play(env, [2, 2, 2, 2])
    assert env._cumulative_rewards == {"player_0": 1.0}


def test_step_after_end():
    env = make()
    env.reset(seed=0)
    play(env, [2, 2, 2, 2])
    with pytest.raises(ValueError, match="ended"):
        env.step(0)
    while env.agents:
        env.step(None)
    with pytest.raises(ValueError, match="ended"):
        env.step(None)


def test_clone_is_independent_and_identical():
    env = make(num_players=3)
    env.reset(seed=5)
    env.step(1)
    twin = env.clone()
    for a in [0, 2, 1]:
        env.step(a)
        twin.step(a)
    assert np.array_equal(env._state, twin._state)
    twin.step(2)
    assert not np.array_equal(env._state, twin._state)


def test_stored_observation_never_changes():
    env = make()
    env.reset(seed=3)
    obs = env.observe("player_0")
    kept = {k: v.copy() for k, v in obs.items()}
    env.step(2)
    assert all(np.array_equal(obs[k], kept[k]) for k in kept)


def test_determinize_keeps_observer_view_and_redraws_others():
    env = make(num_players=3)
    env.reset(seed=4)
    mine = env.observe("player_1")["observation"]
    others = set()
    for s in range(20):
        d = env.determinize("player_1", seed=s)
        assert np.array_equal(d.observe("player_1")["observation"], mine)
        others.add(int(d._state[8]))
    assert len(others) > 1
    assert np.array_equal(env.observe("player_1")["observation"], mine)


def test_reset_sequence_is_reproducible():
    a, b = make(), make()
    a.reset(seed=11)
    b.reset(seed=11)
    a.reset()
    b.reset()
    assert np.array_equal(a._state, b._state)


# ------------------------------------------------------------------ ties with an automaton
@pytest.mark.parametrize("n,automaton,winner_reward,loser_reward", [
    (2, "ties", 0.5, -1.0),    # the winner shares first place with the automaton
    (2, "loses", 1.0, -0.5),   # the loser shares places 2-3 with the automaton
    (1, "ties", 0.0, None),    # solo, tied with the automaton: neither won
    (1, "loses", 1.0, None),
])
def test_ties_with_an_automaton_share_the_place(n, automaton, winner_reward, loser_reward):
    env = make(num_players=n, automaton=automaton)
    env.reset(seed=0)
    while not all(env.terminations.values()):
        env.step(2)
    winner = env.infos["player_0"]["winners"]
    assert len(winner) == 1     # tied with the automaton is still not beaten by it
    rewards = dict(env._cumulative_rewards)
    assert rewards.pop(winner[0]) == winner_reward
    assert all(r == loser_reward for r in rewards.values())


# ----------------------------------------------------------------------------------- seeds
@pytest.mark.parametrize("big", [2**63 + 5, 2**64 + 5, 2**200 + 5, np.uint64(2**63 + 5)])
def test_seeds_beyond_63_bits_map_modulo_2_63(big):
    a, b = make(num_players=3), make(num_players=3)
    a.reset(seed=big)
    b.reset(seed=5)
    assert np.array_equal(a._state, b._state)
    a.reset(seed=-1)
    b.reset(seed=2**63 - 1)
    assert np.array_equal(a._state, b._state)
    for env in (a, b):
        env.reseed(big)
        env.determinize(0, big)
    assert np.array_equal(a._state, b._state)   # the same seed modulo 2**63, the same copies


@pytest.mark.parametrize("bad", [7.9, "7", True, np.float64(7.0), [7], b"7"])
def test_non_integer_seeds_are_refused_and_change_nothing(bad):
    env, twin = make(), make()
    env.reset(seed=3)
    twin.reset(seed=3)
    env.step(1)
    twin.step(1)
    before = env._state.copy()
    for call in (lambda: env.reset(seed=bad), lambda: env.reseed(bad),
                 lambda: env.determinize(0, bad)):
        with pytest.raises(ValueError, match="seed"):
            call()
        assert np.array_equal(env._state, before)
    # a refused reset does not advance the sequence of unseeded resets either
    env.reset()
    twin.reset()
    assert np.array_equal(env._state, twin._state)


@pytest.mark.parametrize("bad", [2, -1, 7, 10**6, True, 1.0, "player_2", "0", None, np.int64(2)])
def test_determinize_refuses_bad_observers(bad):
    env = make(num_players=2)
    env.reset(seed=1)
    before = env._state.copy()
    with pytest.raises(ValueError, match="observer"):
        env.determinize(bad, 0)
    assert np.array_equal(env._state, before)
    assert env.determinize(np.int64(1), 0).agent_selection == env.agent_selection


# ---------------------------------------------------------------------------- before reset
@pytest.mark.parametrize("call", [
    lambda e: e.phase, lambda e: e.scores(), lambda e: e.legal_actions(),
    lambda e: e.action_label(0), lambda e: e.reseed(1), lambda e: e.determinize(0, 1),
    lambda e: e.game_state(), lambda e: e.render(), lambda e: e.observe("player_0"),
])
def test_everything_before_reset_is_refused(call):
    env = make(render_mode="ansi")
    with pytest.raises(AssertionError, match="reset"):
        call(env)
    assert not env._state.any(), "a refused call wrote into the state"


# ------------------------------------------------------------------- other entry points
@pytest.mark.parametrize("bad", [-1, 3, 1.5, "0", None, True])
def test_action_label_refuses_bad_actions(bad):
    env = make()
    env.reset(seed=0)
    with pytest.raises(ValueError, match="action"):
        env.action_label(bad)


def test_split_observation_checks_its_input_and_keeps_batches():
    env = make()
    env.reset(seed=0)
    env.spec.observation_layout = lambda cfg: [("counter", (1,)), ("secret", (1,))]
    obs = env.observe("player_0")["observation"]
    parts = env.split_observation(obs)
    assert parts["secret"][0] == obs[1]
    batch = env.split_observation(np.stack([obs] * 4).reshape(2, 2, 2))
    assert batch["counter"].shape == (2, 2, 1)
    for bad in (np.zeros(3), np.zeros((2, 5)), 3.0, "obs", None, [[1, 2, 3]]):
        with pytest.raises(ValueError, match="observation"):
            env.split_observation(bad)


def test_terminate_mode_fills_infos_like_a_normal_end():
    env = make(num_players=3, illegal_action="terminate")
    env.reset(seed=0)
    env.step(0)
    env._mask[2] = 0
    offender = env.agent_selection
    with pytest.warns(UserWarning):
        env.step(2)
    for agent in env.possible_agents:
        info = env.infos[agent]
        assert info["end_reason"] == "illegal_action" and info["offender"] == offender
        assert info["illegal_action"] == 2
        assert info["scores"] == env.scores() and info["winners"] == []
        assert info["ranks"][env.possible_agents.index(offender)] == 3
        assert sorted(info) == sorted(env.infos[env.possible_agents[0]])


def test_normal_end_names_its_reason():
    env = make()
    env.reset(seed=0)
    play(env, [2, 2, 2, 2])
    assert env.infos["player_0"]["end_reason"] == "game_over"


def test_clone_after_the_end_shares_no_infos():
    env = make()
    env.reset(seed=0)
    play(env, [2, 2, 2, 2])
    twin = env.clone()
    twin.infos["player_0"]["scores"].append(99)
    twin.infos["player_0"]["winners"].clear()
    assert env.infos["player_0"]["scores"] == env.scores()
    assert env.infos["player_0"]["winners"] == ["player_1"]


@pytest.mark.parametrize("bad", ["fast", 1, ["num_players"]])
def test_reset_refuses_options_that_are_not_a_dict(bad):
    env = make()
    env.reset(seed=0, options={})
    before = env._state.copy()
    with pytest.raises(ValueError, match="options"):
        env.reset(seed=1, options=bad)
    assert np.array_equal(env._state, before)


def test_benchmark_floor_game_is_a_valid_environment():
    """benchmarks/floor_game.py (the floor of the AEC throughput table) is a real game for
    the shell: it passes PettingZoo's api_test and ends after its fixed length."""
    from benchmarks.floor_game import GAME_LENGTH, FloorSpec
    from tests import driver
    api_test(CityEnv(FloorSpec()), num_cycles=50)
    assert driver.play(CityEnv(FloorSpec()), seed=0) == GAME_LENGTH
    # with a real game's shapes (the floor of that interface): seats in turn, all legal
    env = CityEnv(FloorSpec(num_actions=300, obs_size=1000, num_players=4))
    api_test(env, num_cycles=50)
    env.reset(seed=0)
    assert env.action_space(env.agents[0]).n == 300
    assert env.observation_space(env.agents[0])["observation"].shape == (1000,)
    seen = []
    for agent in env.agent_iter():
        if env.terminations[agent]:
            env.step(None)
            continue
        ob = env.observe(agent)
        assert ob["action_mask"].all() and not ob["observation"].any()
        seen.append(agent)
        env.step(len(seen) % 300)
    assert len(seen) == GAME_LENGTH and seen[:5] == env.possible_agents + env.possible_agents[:1]
    for bad in ({"num_actions": 0}, {"obs_size": 2.0}, {"num_players": 1}, {"num_actions": True}):
        with pytest.raises(ValueError, match=next(iter(bad))):
            FloorSpec(**bad)
