"""Batched games (envs.make_vec): the same games as the AEC environment, autoreset,
bad input refused without changing any game."""
import numpy as np
import pytest

import envs
from envs.vector import VecGame

CASES = [("kingdomino_duel_v0", {}), ("tiny_towns_v0", {"num_players": 3}),
         ("between_two_cities_v0", {"num_players": 2}), ("between_two_cities_v0", {"num_players": 1}),
         ("expancity_v0", {}), ("smartphone_inc_v0", {"num_players": 2}),
         ("smartphone_inc_v0", {"num_players": 1})]


@pytest.mark.parametrize("game, options", CASES)
def test_batched_games_are_the_aec_games(game, options):
    """Each game of the batch, followed through two autoresets, is the game the AEC env
    plays from the same seed with the same actions."""
    n = 3
    venv = VecGame(game, n, **options)
    obs, info = venv.reset(seed=41)
    assert info["seeds"].tolist() == [41, 42, 43]
    rng = np.random.default_rng(0)
    aec = [envs.make(game, **options) for _ in range(n)]
    for i, e in enumerate(aec):
        e.reset(seed=int(info["seeds"][i]))
    games_done = np.zeros(n, dtype=int)
    steps = 0
    while games_done.min() < 2 and steps < 20_000:
        for i, e in enumerate(aec):
            agent = e.agent_selection
            assert info["current_player"][i] == e.possible_agents.index(agent)
            view = e.observe(agent)
            assert np.array_equal(obs["observation"][i], view["observation"])
            assert np.array_equal(obs["action_mask"][i], view["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, terminated, truncated, info = venv.step(actions)
        steps += 1
        assert not truncated.any()
        assert ("final_scores" in info) == ("final_ranks" in info) == terminated.any()
        for i, e in enumerate(aec):
            e.step(int(actions[i]))
            if terminated[i]:
                assert all(e.terminations.values())
                first = e.infos[e.possible_agents[0]]
                assert rewards[i].tolist() == [e.rewards[a] for a in e.possible_agents]
                assert info["final_scores"][i].tolist() == first["scores"]
                assert info["final_ranks"][i][:e.cfg.num_players].tolist() == first["ranks"]
                games_done[i] += 1
                e.reset()                        # the next seed of the game's sequence
                assert e._next_reset_seed is not None
            else:
                assert not any(e.terminations.values()) and not rewards[i].any()
    assert games_done.min() >= 2


def test_bad_actions_name_the_game_and_change_nothing():
    venv = VecGame("kingdomino_duel_v0", 4)
    obs, info = venv.reset(seed=1)
    before = venv.states()
    legal = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
    illegal = legal.copy()
    illegal[2] = np.flatnonzero(obs["action_mask"][2] == 0)[0]
    for bad, msg in ((illegal, "game 2"), (legal[:3], "shape"), (legal.astype(float), "integers"),
                     (np.where(np.arange(4) == 1, 10**6, legal), "game 1")):
        with pytest.raises(ValueError, match=msg):
            venv.step(bad)
        assert np.array_equal(venv.states(), before)
    venv.step(legal)
    assert not np.array_equal(venv.states(), before)


def test_options_are_checked_and_observations_are_fresh():
    with pytest.raises(ValueError, match="num_envs"):
        VecGame("kingdomino_duel_v0", 0)
    with pytest.raises(ValueError, match="unknown option"):
        VecGame("kingdomino_duel_v0", 2, colour_blind=True)
    with pytest.raises(ValueError, match="reward_mode"):
        VecGame("kingdomino_duel_v0", 2, reward_mode="elo")
    venv = VecGame("kingdomino_duel_v0", 2)
    with pytest.raises(AssertionError, match="reset"):
        venv.step(np.zeros(2, dtype=int))
    obs, _ = venv.reset(seed=0)
    kept = obs["observation"].copy()
    venv.step(np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]]))
    assert np.array_equal(obs["observation"], kept), "a stored observation never changes"


SEAT_CASES = [("tiny_towns_v0", {"num_players": 2}, 1, "greedy"),
              ("between_two_cities_v0", {"num_players": 3}, 0, ["random", "greedy"]),
              ("smartphone_inc_v0", {"num_players": 2}, 0, "greedy"),
              ("expancity_v0", {}, 1, "random")]


@pytest.mark.parametrize("game, options, seat, opponents", SEAT_CASES)
def test_in_kernel_opponents_play_as_the_agents(game, options, seat, opponents):
    """The batch's in-kernel opponents make the choices agents.GreedyAgent/RandomAgent make
    with the same seed: the learner sees the same observations as in the AEC env."""
    import agents
    from envs.vector import VecSeatGame, opponent_seed
    n = 2
    venv = VecSeatGame(game, n, opponents=opponents, seat=seat, **options)
    obs, info = venv.reset(seed=7)
    names = opponents if isinstance(opponents, list) else [opponents] * (venv.num_players - 1)
    others = [s for s in range(venv.num_players) if s != seat]
    tables = []
    for i in range(n):
        e = envs.make(game, **options)
        e.reset(seed=int(info["seeds"][i]))
        bots = {s: agents.make(name, seed=opponent_seed(info["seeds"][i], s)) for s, name in zip(others, names)}
        tables.append((e, bots))
    rng = np.random.default_rng(3)
    finished = np.zeros(n, dtype=bool)
    for _ in range(5000):
        for i, (e, bots) in enumerate(tables):
            if finished[i]:
                continue
            while e.agent_selection != e.possible_agents[seat] and not e.terminations[e.agent_selection]:
                who = e.possible_agents.index(e.agent_selection)
                e.step(bots[who].act(e, e.agent_selection))
            view = e.observe(e.possible_agents[seat])
            assert np.array_equal(obs["action_mask"][i], view["action_mask"]), (i, e.num_moves)
            assert np.array_equal(obs["observation"][i], view["observation"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, terminated, truncated, info = venv.step(actions)
        for i, (e, bots) in enumerate(tables):
            if finished[i]:
                continue
            e.step(int(actions[i]))
            while not e.terminations[e.agent_selection] and e.agent_selection != e.possible_agents[seat]:
                who = e.possible_agents.index(e.agent_selection)
                e.step(bots[who].act(e, e.agent_selection))
            if e.terminations[e.agent_selection]:
                assert terminated[i] and rewards[i] == e.rewards[e.possible_agents[seat]]
                finished[i] = True
            else:
                assert not terminated[i] and rewards[i] == 0.0
        if finished.all():
            break
    assert finished.all()


def test_gymnasium_vector_env_adapter():
    from envs.vector import SeatVectorEnv
    venv = SeatVectorEnv("tiny_towns_v0", 4, opponents="random", seat=0, num_players=2)
    assert venv.metadata["autoreset_mode"].name == "SAME_STEP"
    obs, info = venv.reset(seed=3)
    assert venv.observation_space.contains(obs) and obs.dtype == np.float32
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        masks = venv.action_masks()
        assert masks.shape == (4, venv.single_action_space.n) and masks.any(axis=1).all()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert venv.observation_space.contains(obs) and rewards.shape == (4,)
        if terminated.any():
            ended += int(terminated.sum())
            assert info["_final_obs"].tolist() == terminated.tolist()
            assert venv.single_observation_space.contains(info["final_obs"][np.flatnonzero(terminated)[0]])
            assert np.all(rewards[~terminated] == 0)
    assert ended > 0


def test_sb3_vec_env_trains_maskable_ppo():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from envs.vector_sb3 import SB3SeatVecEnv
    venv = SB3SeatVecEnv("kingdomino_duel_v0", 8, opponents="random")
    assert is_masking_supported(venv)
    venv.seed(5)
    obs = venv.reset()
    masks = get_action_masks(venv)
    assert obs.shape == (8, venv.observation_space.shape[0]) and masks.shape == (8, venv.action_space.n)
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0, verbose=0)
    model.learn(512)
    obs = venv.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(venv))
    assert all(get_action_masks(venv)[i, a] for i, a in enumerate(actions))


class FirstLegal:
    """A frozen 'policy' for the batch: the first legal action of each row; records its calls."""

    def __init__(self):
        self.calls = []

    def act_batch(self, observations, masks):
        assert observations.shape[0] == masks.shape[0] > 0
        self.calls.append(masks.shape[0])
        return np.argmax(masks != 0, axis=1)

    def act(self, env, agent):
        return int(np.flatnonzero(env.observe(agent)["action_mask"])[0])


@pytest.mark.parametrize("game, options", [("between_two_cities_v0", {"num_players": 3}),
                                           ("tiny_towns_v0", {"num_players": 3})])
def test_rotating_seat_policy_opponents_and_shaping_match_the_aec_games(game, options):
    """seat="rotate", a frozen policy called once per batch for the games waiting on it, an
    in-kernel greedy seat, shaping and reward_scale: every game of the batch, through its
    restarts, is the AEC game with those players, and the rewards are the shell's end reward
    plus shaping by spec.evaluate, scaled."""
    import agents
    from envs.vector import VecSeatGame, opponent_seed
    n, shaping, scale = 3, 0.25, 2.0
    policy = FirstLegal()
    venv = VecSeatGame(game, n, opponents=[policy, "greedy"], seat="rotate", shaping=shaping,
                       reward_scale=scale, **options)
    obs, info = venv.reset(seed=11)
    k = venv.num_players

    def start(seed, learner):
        e = envs.make(game, **options)
        e.reset(seed=int(seed))
        others = [s for s in range(k) if s != learner]
        bots = {others[0]: policy, others[1]: agents.make("greedy", seed=opponent_seed(seed, others[1]))}
        return {"env": e, "learner": learner, "bots": bots}

    def play_others(t):
        e, moves = t["env"], 0
        while not e.terminations[e.agent_selection] \
                and e.agent_selection != e.possible_agents[t["learner"]]:
            who = e.possible_agents.index(e.agent_selection)
            if t["bots"][who] is policy:
                moves += 1
                e.step(int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0]))
            else:
                e.step(t["bots"][who].act(e, e.agent_selection))
        return moves

    def phi(t):
        raw = t["env"].unwrapped
        return shaping * raw.spec.evaluate(raw._state, raw.cfg, t["learner"])

    tables = [start(info["seeds"][i], i % k) for i in range(n)]
    for t in tables:
        play_others(t)
        t["phi"] = phi(t)
    policy.calls.clear()
    rng = np.random.default_rng(5)
    ended = np.zeros(n, dtype=int)
    for _ in range(3000):
        for i, t in enumerate(tables):
            view = t["env"].observe(t["env"].possible_agents[t["learner"]])
            assert info["current_player"][i] == t["learner"]
            assert np.array_equal(obs["observation"][i], view["observation"])
            assert np.array_equal(obs["action_mask"][i], view["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, terminated, truncated, info = venv.step(actions)
        assert all((key in info) == terminated.any() for key in ("final_scores", "final_ranks", "final_obs",
                                                                   "final_seat"))
        policy_moves = []
        for i, t in enumerate(tables):
            e = t["env"]
            e.step(int(actions[i]))
            policy_moves.append(play_others(t))
            if e.terminations[e.agent_selection]:
                me = e.possible_agents[t["learner"]]
                final = shaping * e.unwrapped.spec.evaluate(e.unwrapped._state, e.unwrapped.cfg, t["learner"])
                expected = scale * (e.rewards[me] + final - t["phi"])
                assert terminated[i] and info["final_seat"][i] == t["learner"]
                assert rewards[i] == pytest.approx(expected)
                ended[i] += 1
                e.reset()                                     # the next seed of the sequence
                learner = (t["learner"] + 1) % k
                others = [s for s in range(k) if s != learner]
                t2 = {"env": e, "learner": learner,
                      "bots": {others[0]: policy, others[1]: agents.make(
                          "greedy", seed=opponent_seed(info["seeds"][i], others[1]))}}
                tables[i] = t2
                policy_moves[i] += play_others(t2)
                t2["phi"] = phi(t2)
            else:
                new = phi(t)
                assert not terminated[i] and rewards[i] == pytest.approx(scale * (new - t["phi"]))
                t["phi"] = new
        # once per batch: every call answers all the games waiting, so the number of calls
        # is bounded by the busiest game's policy moves, and the rows add up to all of them
        assert sum(policy.calls) == sum(policy_moves)
        assert len(policy.calls) <= max(policy_moves) + int(terminated.any())
        policy.calls.clear()
        if ended.min() >= 2:
            break
    assert ended.min() >= 2


def test_opponent_factory_is_dealt_per_game_and_reproducible():
    from envs.vector import VecSeatGame
    dealt = []

    def factory(rng):
        choice = ["random", "greedy", FirstLegal()][int(rng.integers(3))]
        dealt.append(choice if isinstance(choice, str) else "policy")
        return choice

    def run():
        dealt.clear()
        venv = VecSeatGame("kingdomino_duel_v0", 4, opponents=factory, seat="rotate")
        obs, info = venv.reset(seed=3)
        rng = np.random.default_rng(0)
        trace, games = [], 0
        while games < 10:
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
            obs, rewards, terminated, _, info = venv.step(actions)
            games += int(terminated.sum())
            trace.append(obs["observation"].copy())
        return np.array(trace), list(dealt), games

    a, dealt_a, games = run()
    b, dealt_b, _ = run()
    assert np.array_equal(a, b) and dealt_a == dealt_b
    assert len(dealt_a) == 4 + games                 # one deal per game started
    assert len(set(dealt_a)) > 1


def test_bad_opponents_and_policy_answers_are_refused():
    from envs.vector import VecSeatGame
    for bad, msg in (("mcts", "unknown in-kernel"), (["random", "random"], "one per other seat"),
                     (object(), "neither")):
        with pytest.raises(ValueError, match=msg):
            VecSeatGame("kingdomino_duel_v0", 2, opponents=bad)
    with pytest.raises(ValueError, match="seat"):
        VecSeatGame("kingdomino_duel_v0", 2, seat="left")
    with pytest.raises(ValueError, match="shaping"):
        VecSeatGame("kingdomino_duel_v0", 2, shaping=-1)

    class Illegal(FirstLegal):
        def act_batch(self, observations, masks):
            return np.argmin(masks != 0, axis=1)

    venv = VecSeatGame("kingdomino_duel_v0", 2, opponents=Illegal(), seat=1)
    with pytest.raises(ValueError, match=r"illegal action \d+ in game [01]"):
        venv.reset(seed=0)
