"""Baseline agents: legal play on every game, no peeking at hidden information.

This module doubles as the kernel of a tiny hidden-information game ("guess"): each of
two seats holds a secret in 0..3 that only it sees; seat 0 then seat 1 guesses the
other's secret and scores 1 for a right guess.  An agent that read the true state would
always guess right; one planning on determinizations cannot tell the secrets apart.
"""
import sys

import numpy as np
import pytest
from numba import njit

import agents
import envs
from envs.registry import spec_for
from agents.players.greedy import evaluate_state, rank_rewards
from agents.settings import search_settings
from envs.shell import CityEnv
from envs.spec import GameConfig, GameSpec
from kernels import rng
from tests import driver
from tests.toy_game import ToySpec

# ------------------------------------------------------------------ guess game kernel
G_SECRET, G_GUESS, G_TURN = 2, 4, 6   # state: rng(2), secret[2], guess[2], turn
G_SIZE = 7


@njit(cache=True)
def init(state, config, seed):
    state[:] = 0
    rng.seed_rng(state, 0, seed)
    for p in range(2):
        state[G_SECRET + p] = rng.randint(state, 0, 4)
        state[G_GUESS + p] = -1


@njit(cache=True)
def current_player(state):
    return state[G_TURN] if state[G_TURN] < 2 else -1


@njit(cache=True)
def legal_mask(state, mask):
    mask[:] = 1


@njit(cache=True)
def step(state, action):
    state[G_GUESS + state[G_TURN]] = action
    state[G_TURN] += 1


@njit(cache=True)
def observe(state, player, out):
    out[:] = 0.0
    out[state[G_SECRET + player]] = 1.0


@njit(cache=True)
def scores(state, out):
    for p in range(2):
        out[p] = 1 if state[G_GUESS + p] == state[G_SECRET + 1 - p] else 0


@njit(cache=True)
def ranks(state, out):
    sc = np.zeros(2, dtype=np.int64)
    scores(state, sc)
    for p in range(2):
        out[p] = 1 if sc[p] >= sc[1 - p] else 2


@njit(cache=True)
def reseed(state, seed):
    rng.seed_rng(state, 0, seed)


@njit(cache=True)
def determinize(state, observer, seed):
    rng.seed_rng(state, 0, seed)
    state[G_SECRET + 1 - observer] = rng.randint(state, 0, 4)


class GuessSpec(GameSpec):
    game_id = "guess_v0"
    num_actions = 4
    player_counts = (2,)

    def __init__(self):
        self.kernel = sys.modules[__name__]

    def configure(self, num_players=2):
        return GameConfig(2, [2], state_size=G_SIZE, obs_size=4)



# ------------------------------------------------------------------------ helpers
FAST = {"random": {}, "greedy": {}, "mcts": {"simulations": 8}}


def play_checked(env, bots, seed):
    """Play one game with ``bots`` (one per seat), asserting every chosen action is legal;
    return the final infos."""
    seat = {a: i for i, a in enumerate(env.possible_agents)}

    def choose(env, legal, rng):
        agent = env.agent_selection
        action = bots[seat[agent]].act(env, agent)
        assert isinstance(action, int)
        assert action in legal, (agent, action, env.unwrapped.phase)
        return action

    driver.play(env, seed, choose=choose)
    return dict(env.infos[env.possible_agents[0]])


def test_make_by_name():
    assert isinstance(agents.make("random", seed=1), agents.RandomAgent)
    assert isinstance(agents.make("greedy", seed=1), agents.GreedyAgent)
    bot = agents.make("mcts", simulations=10, seed=1)
    assert isinstance(bot, agents.MCTSAgent) and bot.simulations == 10
    with pytest.raises(ValueError, match="unknown agent"):
        agents.make("nobody")
    with pytest.raises(ValueError, match="playout"):
        agents.MCTSAgent(playout="heavy")
    with pytest.raises(ValueError, match="playout_depth"):
        agents.MCTSAgent(playout="heuristic", playout_depth=-1)


def test_mcts_playout_settings():
    toy = ToySpec()   # no potential, no preferred playout: random playouts to the end
    assert agents.MCTSAgent().playout_settings(toy) == ("random", toy.max_steps, 0.0)
    assert agents.MCTSAgent(playout="heuristic", playout_depth=3).playout_settings(toy) == ("heuristic", 3, 10.0)
    assert agents.MCTSAgent(playout="greedy", playout_depth=2, margin_scale=4).playout_settings(toy) == ("greedy", 2, 4.0)
    for game in envs.GAMES:
        spec = spec_for(game)
        game_settings = search_settings(game)
        policy, depth, scale = agents.MCTSAgent().playout_settings(spec)
        assert (policy, depth, scale) == (game_settings.playout, game_settings.playout_depth,
                                          game_settings.margin_scale), game
        assert policy in ("heuristic", "greedy") and scale > 0
        assert hasattr(spec.kernel, "potential"), game
        assert agents.MCTSAgent(playout="random").playout_settings(spec)[2] == 0.0
        solo = agents.MCTSAgent().playout_settings(spec, 1)
        if game_settings.solo_playout is None:
            assert solo == (policy, depth, scale)
        else:   # one seat: the game's solo playout, unless the agent names its own
            assert solo == (game_settings.solo_playout, game_settings.solo_playout_depth, scale) != (policy, depth, scale)
            assert agents.MCTSAgent(playout="heuristic").playout_settings(spec, 1) == ("heuristic", depth, scale)
            assert agents.MCTSAgent(playout_depth=5).playout_settings(spec, 1)[1] == 5
        # search settings belong to the agents, not to the environments
        assert not any(hasattr(spec, a) for a in ("mcts_playout", "mcts_playout_depth", "margin_scale",
                                                  "potential_weight")), game


def test_evaluation_is_the_margin_over_every_participant():
    """One evaluation (kernels.outcome) for greedy, MCTS and shaping: a seat's score plus
    potential minus the mean of the other participants' -- automata included."""
    from kernels import outcome
    values = np.array([10.0, 4.0, 1.0])
    assert outcome.margin(values, 0) == pytest.approx(10 - 2.5)
    assert outcome.margin(values[:1], 0) == 10.0
    out = np.zeros(2)
    outcome.margins(values, 2, out)
    assert out.tolist() == pytest.approx([7.5, -1.5])
    ranks = np.zeros(3, dtype=np.int64)
    outcome.ranks_by_value(np.array([3.0, 5.0, 3.0]), ranks)
    assert ranks.tolist() == [2, 1, 2]
    # Smartphone Inc. solo: the shaping margin is taken against Steve
    env = envs.make("smartphone_inc_v0", num_players=1)
    env.reset(seed=3)
    raw = env.unwrapped
    sc = np.zeros(2, dtype=np.int64)
    raw.spec.kernel.scores(raw._state, sc)
    pot = raw.spec.kernel.potential(raw._state, 0)
    weight = getattr(raw.spec.kernel, "POTENTIAL_WEIGHT", 1.0)
    assert raw.spec.evaluate(raw._state, raw.cfg, 0) == pytest.approx(sc[0] + weight * pot - sc[1])
    # greedy and MCTS judge a solo seat by its own value (tests/test_solo.py)
    assert evaluate_state(raw, raw._state, 0) == pytest.approx(sc[0] + weight * pot)


def test_rank_rewards_match_shell():
    assert rank_rewards([1, 2], 2).tolist() == [1.0, -1.0]
    assert rank_rewards([1, 1], 2).tolist() == [0.0, 0.0]
    assert rank_rewards([2, 1, 3], 3).tolist() == [0.0, 1.0, -1.0]
    assert rank_rewards([1], 1).tolist() == [1.0]
    # ranks of every participant, seats first, then automata
    assert rank_rewards([2, 1], 1).tolist() == [-1.0]           # solo seat beaten by an automaton
    assert rank_rewards([1, 1], 1).tolist() == [0.0]            # solo seat tied with an automaton
    assert rank_rewards([1, 3, 1], 2).tolist() == [0.5, -1.0]   # seat 0 tied with Steve for first
    for bad in ([2], [0, 1], [1.0, 2.0], []):
        with pytest.raises(ValueError, match="ranks"):
            rank_rewards(bad, 1)
    with pytest.raises(ValueError, match="num_seats"):
        rank_rewards([1, 2], 3)


@pytest.mark.parametrize("num_players", [1, 2, 3])
@pytest.mark.parametrize("name", ["random", "greedy", "mcts"])
def test_legal_play_toy(name, num_players):
    env = CityEnv(ToySpec(), num_players=num_players, target=12)
    for g in range(3):
        bots = [agents.make(name, seed=g * 10 + i, **FAST[name]) for i in range(num_players)]
        info = play_checked(env, bots, seed=g)
        assert len(info["scores"]) == num_players


@pytest.mark.parametrize("game", envs.GAMES)
def test_legal_play_every_game(game):
    env = envs.make(game)
    n = env.unwrapped.cfg.num_players
    lineup = ["greedy", "mcts", "random"]
    bots = [agents.make(lineup[i % 3], seed=i, **FAST[lineup[i % 3]]) for i in range(n)]
    info = play_checked(env, bots, seed=3)
    assert len(info["scores"]) == n and len(info["ranks"]) == n


@pytest.mark.parametrize("playout,ordered", [("random", False), ("heuristic", False),
                                             ("heuristic", True), ("greedy", False)])
@pytest.mark.parametrize("game", envs.GAMES)
def test_mcts_playouts_every_game(game, playout, ordered):
    env = envs.make(game, num_players=2)
    bots = [agents.make("mcts", simulations=12, seed=1, playout=playout, playout_depth=2,
                        ordered_expansion=ordered),
            agents.make("greedy", seed=2)]
    info = play_checked(env, bots, seed=4)
    assert len(info["scores"]) == 2


@pytest.mark.parametrize("playout", ["heuristic", "greedy"])
def test_mcts_cut_off_playouts_win_the_toy_race(playout):
    # Cut-off playouts (random or greedy moves) scored by the score margin still find
    # the winning line.
    env = CityEnv(ToySpec(), num_players=2, target=10)
    wins = 0
    for g in range(6):
        bots = [agents.make("mcts", simulations=300, seed=g, playout=playout,
                            playout_depth=4), agents.make("random", seed=g)]
        wins += play_checked(env, bots, seed=g)["winners"] == ["player_0"]
    assert wins == 6


def test_mcts_ordered_expansion_tries_the_greedy_move_first():
    # With one simulation the only expanded root edge is the greedy evaluation's favourite:
    # player_1 reaching the target (counter 8 + 2 or 3 = 10) wins at once.
    env = CityEnv(ToySpec(), num_players=2, target=10)
    env.reset(seed=0)
    for a in (2, 2, 1):
        env.step(a)
    bot = agents.make("mcts", simulations=1, seed=0, playout="heuristic", ordered_expansion=True)
    stats = bot.search(env.unwrapped, env.agent_selection)
    assert len(stats) == 1 and next(iter(stats)) in (1, 2)


def test_mcts_wins_the_toy_race():
    # target 10 with steps of 1..3: the first player wins by keeping the counter = 2 mod 4.
    env = CityEnv(ToySpec(), num_players=2, target=10)
    wins = 0
    for g in range(6):
        bots = [agents.make("mcts", simulations=300, seed=g), agents.make("random", seed=g)]
        wins += play_checked(env, bots, seed=g)["winners"] == ["player_0"]
    assert wins == 6


def test_greedy_takes_the_winning_move():
    env = CityEnv(ToySpec(), num_players=2, target=10)
    env.reset(seed=0)
    for a in (2, 2, 1):   # counter 3, 6, 8: player_1 wins with "add 2" or "add 3"
        env.step(a)
    bot = agents.make("greedy", seed=0)
    assert bot.act(env, env.agent_selection) in (1, 2)


@pytest.mark.parametrize("game,num_players", [(g, max(2, min(spec_for(g).player_counts))) for g in envs.GAMES])
def test_greedy_action_values_are_each_moves_value_on_one_determinization(game, num_players):
    """kernels.greedy.action_values_function against a plain-Python reference: each legal
    action's value is evaluate_state after that action on the mover's determinization of
    the given seed; every other action is -inf; the best is returned, and greedy's move
    with a generator whose draw is that seed is one of the best."""
    from kernels import rng
    from kernels.greedy import Work, action_values_function, greedy_function
    env = envs.make(game, num_players=num_players)
    raw = env.unwrapped
    kernel = raw.spec.kernel
    values_of = action_values_function(kernel)
    m = max(raw.cfg.num_participants, raw.cfg.num_players)
    work = Work(raw._state.shape[0], raw.spec.num_actions, m)
    checked = 0
    for start in (7, 30, 61):
        who = driver.mid_game(env, start)
        if who is None or env.observe(who)["action_mask"].sum() < 2:
            continue
        legal = env.observe(who)["action_mask"].astype(np.int8)
        seat = raw.possible_agents.index(who)
        gen = np.zeros(rng.RNG_SLOTS, dtype=np.int64)
        rng.seed_rng(gen, 0, start)
        det_seed = np.int64(rng.next_u64(gen.copy(), 0) >> np.uint64(2))
        before = raw._state.copy()
        best = values_of(raw._state, legal, seat, raw.cfg.num_players, det_seed, *work.args())
        assert np.array_equal(raw._state, before)
        det = before.copy()
        kernel.determinize(det, seat, det_seed)
        expected = np.full(legal.shape[0], -np.inf)
        for a in np.flatnonzero(legal):
            after = det.copy()
            kernel.step(after, a)
            expected[a] = evaluate_state(raw, after, seat)
        assert np.allclose(work.action_values, expected, rtol=0, atol=1e-9)
        assert best == expected.max()
        move = greedy_function(kernel)(raw._state, legal, raw.cfg.num_players, gen, *Work(
            raw._state.shape[0], raw.spec.num_actions, m).args())
        assert expected[move] >= best - 1e-9
        checked += 1
    assert checked >= 2


def _twin_envs(spec_cls, other_secret_slot, values, **options):
    """Copies of one position that differ only in another seat's hidden secret."""
    base = CityEnv(spec_cls(), **options)
    base.reset(seed=5)
    out = []
    for v in values:
        e = base.clone()
        e._state[other_secret_slot] = v
        out.append(e)
    return out


@pytest.mark.parametrize("name,opts", [("mcts", {"simulations": 60}), ("greedy", {}),
                                       ("mcts", {"simulations": 60, "playout": "heuristic",
                                                 "playout_depth": 1}),
                                       ("mcts", {"simulations": 60, "playout": "heuristic",
                                                 "ordered_expansion": True})])
def test_no_peeking_at_hidden_secrets_guess_game(name, opts):
    twins = _twin_envs(GuessSpec, G_SECRET + 1, [0, 1, 2, 3])
    agent = "player_0"
    for seed in range(6):
        choices = {agents.make(name, seed=seed, **opts).act(e, agent) for e in twins}
        assert len(choices) == 1, f"{name} decision depends on the hidden secret (seed {seed})"


def test_guess_game_cheater_would_be_caught():
    """Sanity check of the test above: searching the true state always finds the secret."""
    twins = _twin_envs(GuessSpec, G_SECRET + 1, [0, 1, 2, 3])
    for secret, e in enumerate(twins):
        e.determinize = lambda observer, seed, _e=e: _e.clone()     # a cheating copy
        assert agents.make("mcts", simulations=60, seed=0).act(e, "player_0") == secret


@pytest.mark.parametrize("name", ["mcts", "greedy"])
def test_no_peeking_toy_game(name):
    from tests.toy_game import SECRET
    twins = _twin_envs(ToySpec, SECRET + 1, [0, 3, 5], num_players=2, target=15)
    for seed in range(4):
        choices = {agents.make(name, seed=seed, **FAST[name]).act(e, "player_0") for e in twins}
        assert len(choices) == 1


def test_mcts_reproducible_and_budget():
    env = CityEnv(ToySpec(), num_players=3, target=20)
    env.reset(seed=1)
    a = agents.make("mcts", simulations=50, seed=7)
    b = agents.make("mcts", simulations=50, seed=7)
    assert a.act(env, env.agent_selection) == b.act(env, env.agent_selection)
    assert a.last_simulations == 50
    timed = agents.make("mcts", seconds=0.05, seed=0)
    timed.act(env, env.agent_selection)
    assert timed.last_simulations >= 1 and timed.total_seconds < 1.0


# ------------------------------------------------- hidden information in the real games
def _positions_with_twins(game, num_players, starts=(9, 40, 95)):
    """Mid-game positions of random play, each with a twin from ``determinize``: the same
    position for the mover, with everything the mover cannot see re-drawn."""
    env = envs.make(game, num_players=num_players)
    for start in starts:
        who = driver.mid_game(env, start)
        if who is None:
            continue
        twin = env.unwrapped.determinize(who, 10_000 + start)
        assert np.array_equal(twin.observe(who)["observation"], env.observe(who)["observation"])
        yield env, twin, who


def _search_pairs(game, num_players, search):
    """(search on the real position, search on its twin, the twins differ) per position."""
    out = []
    for env, twin, who in _positions_with_twins(game, num_players):
        differs = bool(np.any(twin._state != env.unwrapped._state))
        out.append((search(env.unwrapped, who), search(twin, who), differs))
    return out


@pytest.mark.parametrize("game,num_players",
                         [(g, n) for g in envs.GAMES for n in spec_for(g).player_counts])
def test_search_is_blind_to_hidden_information_every_game(game, num_players):
    """MCTS (its root statistics) and greedy (its move) under a fixed seed are the same on two
    states that differ only in what the mover cannot see: other hands and secret cards,
    uncommitted choices, bag / deck order and future dice."""
    def mcts(raw, who):
        return agents.make("mcts", simulations=20, seed=5).search(raw, who)

    def greedy(raw, who):
        return agents.make("greedy", seed=5).act(raw, who)

    pairs = _search_pairs(game, num_players, mcts) + _search_pairs(game, num_players, greedy)
    assert pairs and any(differs for _, _, differs in pairs)
    for real, twin, _ in pairs:
        assert real == twin


def test_search_blindness_test_catches_a_peeking_search():
    """Sanity check of the test above: a search on the true state (a ``determinize`` that
    only copies) tells the twins apart in a game with hidden hands."""
    def peeking_mcts(raw, who):
        raw.determinize = lambda observer, seed, _raw=raw: _raw.clone()
        return agents.make("mcts", simulations=20, seed=5).search(raw, who)

    pairs = _search_pairs("between_two_cities_v0", 3, peeking_mcts)
    assert any(real != twin for real, twin, _ in pairs)

