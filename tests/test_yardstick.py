"""The solo yardsticks (agents.yardstick): Between Two Cities' levels read off one game."""
import pytest

import envs
from agents import make
from agents.loop import play_game
from agents.yardstick import solo_outcome, yardstick

GAME = "between_two_cities_v0"


@pytest.mark.parametrize("seed", range(6))
def test_levels_won_are_the_games_played_at_each_level(seed):
    """A random agent plays the same moves at every level (the level changes no mask), so
    the game played at each level must be won exactly where one game's ``levels_won``
    (its finished state ranked again) says."""
    def outcome(level):
        env = envs.make(GAME, num_players=1, difficulty=level)
        return solo_outcome(env, play_game(env, [make("random", seed=seed)], seed=seed))

    played = {level: outcome(level) for level in range(1, 6)}
    for level, o in played.items():
        assert o["levels_won"] == played[2]["levels_won"]
        assert o["levels_won"][level] == o["won"]
    wins = [played[2]["levels_won"][level] for level in range(1, 6)]
    assert wins == sorted(wins, reverse=True)       # a harder level is never easier to win


def test_the_highest_level_beaten_is_the_highest_won_in_more_than_half():
    def fake(*won):
        return {"score": 50, "automata": [49, 48], "won": won[1], "margin": 1, "title": None,
                "deep_learning_city": 49, "levels_won": dict(zip(range(1, 6), won))}
    games = [fake(True, True, True, False, False), fake(True, True, False, False, False),
             fake(True, True, True, True, False)]
    ys = yardstick(games)
    assert ys["level_win_rates"] == pytest.approx({1: 1.0, 2: 1.0, 3: 2 / 3, 4: 1 / 3, 5: 0.0})
    assert ys["highest_level_beaten"] == 3
    assert yardstick(games[1:2] * 2 + [fake(*[False] * 5)] * 2)["highest_level_beaten"] == 0
    tt = yardstick([{**fake(*[True] * 5), "automata": [], "won": None, "margin": None, "levels_won": None}])
    assert tt["level_win_rates"] is None and tt["highest_level_beaten"] is None
