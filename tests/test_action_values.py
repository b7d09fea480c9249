"""The ``action_values`` observation option: the one-ply value of every legal action
(greedy's, with the kernel's feature potential where it has one), below the best one's,
for the seat to move -- in the AEC env, the batched games and their adapters, computed
from what the seat knows only, and read by the action-values network."""
import numpy as np
import pytest

import agents
import envs
from envs.registry import spec_for
from envs.shell import flat_observation
from envs.vector import SeatVectorEnv, VecGame
from kernels import outcome
from kernels.greedy import VALUE_FLOOR, observation_seed
from tests import driver

CASES = [("kingdomino_duel_v0", {}), ("tiny_towns_v0", {"num_players": 3}),
         ("between_two_cities_v0", {"num_players": 2}), ("expancity_v0", {"num_players": 2}),
         ("smartphone_inc_v0", {"num_players": 2})]


def _random_positions(game, options, starts=(5, 23, 48)):
    """(env with action_values, the agent to move) after ``start`` random moves, per start."""
    env = envs.make(game, action_values=True, **options)
    for start in starts:
        who = driver.mid_game(env, start)
        if who is not None:
            yield env, who


def _reference_values(env, agent, observation):
    """Plain Python: each legal action's value after it on the agent's determinization
    seeded by its observation (the position value with the kernel's feature potential),
    minus the best, floored; 0 elsewhere."""
    raw = env.unwrapped
    seat = raw.possible_agents.index(agent)
    m = max(raw.cfg.num_participants, raw.cfg.num_players)
    value = outcome.position_value_function(raw.spec.kernel, True)
    mask = env.observe(agent)["action_mask"]
    det = raw._state.copy()
    raw.spec.kernel.determinize(det, seat, observation_seed(observation))
    values = {}
    for a in np.flatnonzero(mask):
        after = det.copy()
        raw.spec.kernel.step(after, a)
        values[a] = value(after, seat, raw.cfg.num_players, np.zeros(m, dtype=np.int64), np.zeros(m),
                          np.zeros(m, dtype=np.int64))
    out = np.zeros(mask.size)
    if len(values) > 0:
        best = max(values.values())
        for a, v in values.items():
            out[a] = max(v - best, VALUE_FLOOR)
    return out


@pytest.mark.parametrize("game, options", CASES)
def test_action_values_are_each_moves_value_below_the_best(game, options):
    seen = 0
    for env, agent in _random_positions(game, options):
        obs = env.observe(agent)
        values = obs["action_values"]
        assert values.dtype == np.float32 and values.shape == obs["action_mask"].shape
        assert env.observation_space(agent).contains(obs)
        np.testing.assert_allclose(values, _reference_values(env, agent, obs["observation"]), atol=1e-3)
        legal = obs["action_mask"] == 1
        assert (values[~legal] == 0).all() and values[legal].max() == 0.0
        seen += int(legal.sum() > 1 and (values[legal] < 0).any())
        # the agents not to move get zeros
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_values"].any()
    assert seen >= 1, "no position where the actions' values differ"


def _fewest_and_most_seats():
    for g in envs.GAMES:
        counts = [n for n in spec_for(g).player_counts if n >= 2]
        for n in sorted({min(counts), max(counts)}):
            yield g, n


@pytest.mark.parametrize("game,num_players", list(_fewest_and_most_seats()))
def test_action_values_are_blind_to_hidden_information(game, num_players):
    """Two states that differ only in what the mover cannot see (other hands, secret
    choices, deck order, future dice) give the same values."""
    differs = 0
    for env, agent in _random_positions(game, {"num_players": num_players}, starts=(9, 40, 95)):
        twin = env.unwrapped.determinize(agent, 10_000)
        differs += bool(np.any(twin._state != env.unwrapped._state))
        assert np.array_equal(twin.observe(agent)["action_values"], env.observe(agent)["action_values"])
    assert differs


def test_values_are_fresh_arrays_and_the_same_without_the_option():
    env = envs.make("kingdomino_duel_v0", action_values=True)
    plain = envs.make("kingdomino_duel_v0")
    env.reset(seed=3)
    plain.reset(seed=3)
    agent = env.agent_selection
    kept = env.observe(agent)["action_values"]
    copy = kept.copy()
    assert "action_values" not in plain.observe(agent)
    assert np.array_equal(plain.unwrapped.observe_action_values(agent), kept)
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))
    assert np.array_equal(kept, copy)


@pytest.mark.parametrize("bad", [1, "yes", None, 0.0])
def test_bad_action_values_option_is_refused(bad):
    with pytest.raises(ValueError, match="action_values"):
        envs.make("kingdomino_duel_v0", action_values=bad)
    with pytest.raises(ValueError, match="action_values"):
        VecGame("kingdomino_duel_v0", 2, action_values=bad)


@pytest.mark.parametrize("game, options", CASES[:3])
def test_batched_values_are_the_aec_values(game, options):
    n = 3
    venv = VecGame(game, n, action_values=True, **options)
    obs, info = venv.reset(seed=7)
    aec = [envs.make(game, action_values=True, **options) for _ in range(n)]
    for i, e in enumerate(aec):
        e.reset(seed=int(info["seeds"][i]))
    rng = np.random.default_rng(1)
    for _ in range(60):
        for i, e in enumerate(aec):
            view = e.observe(e.agent_selection)
            assert np.array_equal(obs["action_values"][i], view["action_values"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, _, terminated, _, info = venv.step(actions)
        for i, e in enumerate(aec):
            e.step(int(actions[i]))
            if terminated[i]:
                e.reset()


@pytest.mark.parametrize("game, options", CASES[:3])
def test_batched_values_do_not_depend_on_chunks_or_threads(game, options):
    """The batch's values run in chunks (one scratch row each) over threads: 1, 2 or 5
    chunks on 1 or 2 threads give, from mid-game states, the values of each game alone."""
    from kernels import batch, greedy
    n = 7
    venv = VecGame(game, n, **options)
    obs, _ = venv.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(25):
        obs, *_ = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]]))
    fn = greedy.batch_action_value_features_function(venv.spec.kernel)
    participants = max(venv.cfg.num_participants, venv.num_players)

    def values(games, rows, threads):
        out = np.zeros((len(games), venv.num_actions), dtype=np.float32)
        work = greedy.Work(venv.cfg.state_size, venv.num_actions, participants, rows=rows)
        batch.set_threads(min(threads, batch.max_threads()))
        try:
            fn(venv._states[games], venv._masks[games], venv._players[games], venv.num_players,
               venv._obs[games], out, *work.args())
        finally:
            batch.set_threads(batch.max_threads())
        return out

    alone = np.concatenate([values([i], 1, 1) for i in range(n)])
    assert (alone != 0).any()
    for rows, threads in ((1, 1), (2, 1), (2, 2), (5, 2)):
        assert np.array_equal(values(list(range(n)), rows, threads), alone)


def test_seat_adapters_hand_out_the_observation_followed_by_the_values():
    venv = SeatVectorEnv("kingdomino_duel_v0", 4, opponents="greedy", seat="rotate", action_values=True)
    game = venv.game
    obs, info = venv.reset(seed=2)
    n_obs, n_actions = game.obs_size, game.num_actions
    assert venv.single_observation_space.shape == (n_obs + n_actions,)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        assert obs.shape == (4, n_obs + n_actions) and venv.observation_space.contains(obs)
        raw = game._obs
        assert np.array_equal(obs[:, :n_obs], raw)
        assert np.array_equal(obs[:, n_obs:], game._observation()["action_values"])
        masks = venv.action_masks()
        assert (obs[:, n_obs:][~masks] == 0).all()
        obs, _, terminated, _, info = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for i in np.flatnonzero(terminated):   # a finished game asks nothing of anyone
            assert not info["final_obs"][i, n_obs:].any()
            ended += 1
    assert ended >= 1


def test_single_agent_env_hands_out_the_observation_followed_by_the_values():
    env = envs.SingleAgentEnv("kingdomino_duel_v0", opponents="greedy", agent_factory=agents.make,
                              action_values=True)
    obs, info = env.reset(seed=0)
    aec = env.aec_env
    assert env.observation_space.contains(obs)
    assert np.array_equal(obs, flat_observation(aec.observe(env.learner)))
    assert obs.size == aec.unwrapped.cfg.obs_size + aec.unwrapped.spec.num_actions
