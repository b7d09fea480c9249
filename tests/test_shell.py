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
    with pytest.raises(ValueError, match=r"illegal action 1 \(add 2\).*phase ADD"):
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
