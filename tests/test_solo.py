"""Solo games: what greedy and MCTS aim for when one seat plays, and (slow) whether search
actually helps there.

With one seat the rank reward carries no signal (Tiny Towns pays +1 whatever the score;
against automata it ignores by how much), so greedy and MCTS value a solo seat's
positions by its own score (plus potential) and, at the end of a game with automata, a
won game above a lost one.  The expected numbers below are worked out by hand from the
constructed positions.
"""
import numpy as np
import pytest

import agents
import envs
from agents.players.greedy import evaluate_state
from agents.settings import search_settings
from kernels import outcome
from kernels import smartphone_inc as SI
from kernels import tiny_towns as TT
from tests import test_smartphone_inc as si_fixtures
from tests import test_tiny_towns as tt_fixtures


def _scratch(m):
    return np.zeros(m, dtype=np.int64), np.zeros(m), np.zeros(m, dtype=np.int64)


def _position_value(kernel, state, num_seats, num_participants):
    return outcome.position_value_function(kernel)(state, 0, num_seats, *_scratch(num_participants))


def _solo_value(kernel, state, num_participants, win_bonus):
    return outcome.solo_value_function(kernel)(state, *_scratch(num_participants), win_bonus)


# ------------------------------------------------------------------------ Tiny Towns
def _finished_solo_town():
    """A finished solo town: row 1 holds two Cottages fed by a Farm (3 VP each, the Farm
    0) and a cube; the 12 other squares hold cubes or nothing.  13 squares without a
    building cost 1 VP each: 6 - 13 = -7."""
    st = tt_fixtures.new_state(1, seed=0, monuments=0, cards=tt_fixtures.FIRST)
    tt_fixtures.set_board(st, 0, ["Co Co Fa w", "h h h h", "b b b b", "g g g .."])
    st[TT.G_PHASE] = TT.PH_GAME_OVER
    return st


def test_tiny_towns_solo_finished_game_is_worth_its_score():
    st = _finished_solo_town()
    assert TT.current_player(st) < 0
    # No bonus for having finished (the rank reward of a lone player is +1 whatever it
    # scored): greedy would otherwise rush to complete its town.
    assert _position_value(TT, st, 1, 1) == -7.0
    assert _solo_value(TT, st, 1, win_bonus=10.0) == -7.0


def test_tiny_towns_solo_running_game_is_worth_score_plus_potential():
    st = _finished_solo_town()
    st[TT.G_PHASE] = TT.PH_CHOOSE       # the last square is still empty: the game goes on
    st[TT.G_ACTOR] = 0
    assert TT.current_player(st) == 0
    potential = TT.potential(st, 0)
    assert potential > 0               # loose cubes and an empty square promise something
    weight = getattr(TT, "POTENTIAL_WEIGHT", 1.0)
    assert _position_value(TT, st, 1, 1) == pytest.approx(-7 + weight * potential)
    assert _solo_value(TT, st, 1, win_bonus=10.0) == pytest.approx(-7 + weight * potential)


# ------------------------------------------------------------------- Smartphone Inc.
def _steve_game(own_vp, steve_vp, over=True):
    """Solo Smartphone Inc. at its start (no patents, no retailers: a company's score is its
    VP track) with the VP tracks set by hand."""
    st = si_fixtures.game(1, steve=1, seed=3)
    si_fixtures.cset(st, 0, SI.C_VP, own_vp)
    si_fixtures.cset(st, 1, SI.C_VP, steve_vp)
    if over:
        st[SI.OVER] = 1
    return st


@pytest.mark.parametrize("own,steve,rank_reward", [(40, 33, 1.0), (30, 33, -1.0), (33, 33, 0.0)])
def test_smartphone_solo_value_adds_the_win_bonus(own, steve, rank_reward):
    # won: +bonus; lost: -bonus; tied with Steve on VP, technologies and patents: the
    # place is shared, no bonus either way
    st = _steve_game(own, steve)
    assert _solo_value(SI, st, 2, win_bonus=10.0) == own + 10.0 * rank_reward
    assert _position_value(SI, st, 1, 2) == outcome.TERMINAL_WEIGHT * rank_reward + own


def test_smartphone_solo_running_value_is_the_seat_own():
    # Before the end a solo seat is judged by its own score plus potential, not by its
    # lead over Steve.
    ahead, behind = _steve_game(40, 10, over=False), _steve_game(40, 90, over=False)
    weight = getattr(SI, "POTENTIAL_WEIGHT", 1.0)
    for st in (ahead, behind):
        expected = 40 + weight * SI.potential(st, 0)
        assert _solo_value(SI, st, 2, win_bonus=10.0) == pytest.approx(expected)
        assert _position_value(SI, st, 1, 2) == pytest.approx(expected)
    # and the agents' entry point agrees
    env = envs.make("smartphone_inc_v0", num_players=1)
    env.reset(seed=3)
    raw = env.unwrapped
    raw._state[:] = behind
    assert evaluate_state(raw, raw._state, 0) == pytest.approx(40 + weight * SI.potential(behind, 0))


def test_multi_seat_values_are_still_margins():
    # Two seats (Steve absent): the margin over the other seat, as before.
    st = si_fixtures.game(2, steve=0, seed=3)
    si_fixtures.cset(st, 0, SI.C_VP, 40)
    si_fixtures.cset(st, 1, SI.C_VP, 33)
    weight = getattr(SI, "POTENTIAL_WEIGHT", 1.0)
    expected = (40 + weight * SI.potential(st, 0)) - (33 + weight * SI.potential(st, 1))
    assert _position_value(SI, st, 2, 2) == pytest.approx(expected)
    st[SI.OVER] = 1
    assert _position_value(SI, st, 2, 2) == outcome.TERMINAL_WEIGHT + 7


# --------------------------------------------------------------- Between Two Cities
def _rank_reward_by_hand(ranks):
    """+1 first ... -1 last among every participant, shared places averaged."""
    m, r = len(ranks), ranks[0]
    tied = sum(1 for x in ranks if x == r)
    place = r + (tied - 1) / 2
    return 1 - 2 * (place - 1) / (m - 1)


def test_between_two_cities_solo_value_is_the_score_and_the_place():
    """A finished solo game against the two automata: the seat's score (the lower of its
    two cities) plus the bonus times its rank reward among the three participants."""
    seen = set()
    for seed in range(6):
        env = envs.make("between_two_cities_v0", num_players=1, difficulty=1)
        env.reset(seed=seed)
        bot = agents.make("random", seed=seed)
        while not env.terminations["player_0"]:
            env.step(bot.act(env, "player_0"))
        info = env.infos["player_0"]
        own = min(info["city_scores"][0], info["city_scores"][2])     # left, right (the DLC is 1)
        assert info["scores"][0] == own
        reward = _rank_reward_by_hand(info["participant_ranks"])
        seen.add(reward)
        raw = env.unwrapped
        assert _solo_value(raw.spec.kernel, raw._state, 3, win_bonus=10.0) == own + 10.0 * reward
    assert len(seen) >= 1


# ----------------------------------------------------------------------------- MCTS
def test_mcts_solo_backs_up_points():
    """With one seat and depth-0 playouts, each root edge's first result is the position's
    value in points after that move (score plus potential), not a squashed rank."""
    env = envs.make("tiny_towns_v0", num_players=1)
    env.reset(seed=4)
    raw = env.unwrapped
    legal = raw.legal_actions()
    assert len(legal) > 1
    bot = agents.make("mcts", simulations=len(legal), seed=0, playout="heuristic", playout_depth=0)
    stats = bot.search(raw, "player_0")
    assert sorted(stats) == sorted(int(a) for a in legal)
    weight = getattr(TT, "POTENTIAL_WEIGHT", 1.0)
    for a, (visits, total) in stats.items():
        after = raw.clone()
        after.step(a)
        sc = np.zeros(1, dtype=np.int64)
        TT.scores(after._state, sc)
        assert visits == 1
        assert total == pytest.approx(sc[0] + weight * TT.potential(after._state, 0))
    assert len({t for _, t in stats.values()}) > 1       # the moves are told apart


def test_mcts_exploration_constant():
    assert search_settings("tiny_towns_v0").solo_c_uct > 0
    with pytest.raises(ValueError, match="c_uct"):
        agents.MCTSAgent(c_uct=-1)
    with pytest.raises(ValueError, match="c_uct"):
        agents.MCTSAgent(c_uct=float("nan"))


# ------------------------------------------------------------ search helps (slow)
def _mean_score(game, options, seeds, make_bot):
    scores = []
    for seed in seeds:
        env = envs.make(game, **options)
        record = agents.play_game(env, [make_bot(seed)], seed=seed)
        scores.append(record.info["scores"][0])
    return float(np.mean(scores))


# (game, solo options, seeds, a smaller simulation budget than the default 400).  Tiny
# Towns' scores spread widely from game to game (s.d. about 6), so over five games only an
# eighth of the budget differs by more than that noise (seeds 510-519: 50 iterations 15.6,
# 200 iterations 20.2)
SOLO_CASES = [
    ("tiny_towns_v0", {"num_players": 1}, range(500, 505), 50),
    ("between_two_cities_v0", {"num_players": 1, "difficulty": 2}, range(500, 508), 100),
    pytest.param("smartphone_inc_v0", {"num_players": 1}, range(500, 505), 100, marks=pytest.mark.xfail(
        strict=True, reason="rules revision 2 (new Steve, one phase-4 action): MCTS at 400 simulations "
        "scores less than greedy (seeds 500-519: 191.2 against 197.2) and its margin over Steve is "
        "below MCTS at 100 (18.7 against 27.4), though it beats Steve more often than greedy (75 "
        "against 56 of 100): the solo search settings of Smartphone Inc. need retuning")),
]


@pytest.mark.slow
@pytest.mark.parametrize("game,options,seeds,smaller", SOLO_CASES,
                         ids=["tiny_towns_v0", "between_two_cities_v0", "smartphone_inc_v0"])
def test_solo_search_beats_greedy_and_more_search_is_not_worse(game, options, seeds, smaller):
    """Over fixed seeds (simulation budgets: reproducible), MCTS at its default budget
    scores more on average than greedy, and no less than at a smaller budget (a quarter,
    an eighth in Tiny Towns).
    The score is what the solo yardsticks judge (Tiny Towns' titles), and the way to
    beat automata that play on their own (Between Two Cities, Smartphone Inc.)."""
    greedy = _mean_score(game, options, seeds, lambda s: agents.make("greedy", seed=s))
    small = _mean_score(game, options, seeds, lambda s: agents.make("mcts", simulations=smaller, seed=s))
    default = _mean_score(game, options, seeds, lambda s: agents.make("mcts", seed=s))
    print(f"{game}: greedy {greedy:.1f}, MCTS {smaller} simulations {small:.1f}, default {default:.1f}")
    assert default > greedy, (default, greedy)
    assert default >= small, (default, small)
