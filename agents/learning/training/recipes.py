"""The per-game defaults of a training run (why each value: benchmarks/results/<game>/training.md)."""
from __future__ import annotations

import dataclasses
from dataclasses import replace

from agents.learning.training.config import TrainConfig

BASE = TrainConfig()


def _game(game, **changes):
    return replace(BASE, game=game, **changes)


# The recipe of the games whose policy reads greedy's action values (--policy values): it
# starts as greedy's choice (in Between Two Cities, the choice of a stronger potential:
# kernels.between_two_cities.feature_potential), so it learns against greedy itself, on the
# score margin, with small and shrinking steps that keep it from drifting off that start.
VALUES_RECIPE = dict(policy="values", opponents="greedy", reward_mode="score", learning_rate=1e-4,
                     lr_schedule="linear", ent_coef=0.0, n_epochs=4)

# The warm start of the games where distilling MCTS into the values policy pays: the actor
# learns the move the search plays in games played by the search alone (the budget, in
# decisions and iterations, is per game).
DISTIL_RECIPE = dict(warm_start="mcts", warm_start_target="move", warm_start_epochs=8,
                     warm_start_explore=0.0)

# Per-game defaults; why each value was chosen, with the measurements behind it:
# benchmarks/results/<game>/training.md.
GAME_DEFAULTS = {cfg.game: cfg for cfg in (
    _game("kingdomino_duel_v0", timesteps=400_000, warm_start_samples=90_000,
          warm_start_simulations=1500, **DISTIL_RECIPE, **VALUES_RECIPE),
    _game("smartphone_inc_v0", net_arch=(128, 128), n_epochs=4, shaping=0.05, timesteps=100_000),
    _game("expancity_v0", policy="expancity", torch_threads=2, vec_env="dummy", n_envs=8,
          n_steps=256, n_epochs=4, gamma=0.95, gae_lambda=0.9, shaping=1.0, reward_scale=0.05,
          timesteps=800_000, opponents="random", reward_mode="score", ent_coef=0.0),
    _game("tiny_towns_v0", timesteps=150_000, tie_break=8.0, learn_head=False, **VALUES_RECIPE),
    _game("between_two_cities_v0", num_players=2, timesteps=150_000, **VALUES_RECIPE),
)}


def _solo(game, **changes):
    return _game(game, num_players=1, opponents="none", eval_opponents=(), **changes)


# Solo modes (num_players=1): no opponents; the evaluation plays the solo game.  The
# learner's reward (terminal reward, plus shaping by its margin over the other participants):
# * Tiny Towns, no one to beat: the final score (the shell pays it in either reward_mode);
#   the shaping's margin is the seat's own score plus potential.
# * Smartphone Inc.: win plus margin -- the rank reward (+1 beat Steve, -1 lost) and the
#   shaping by the margin over Steve.
# * Between Two Cities: the score (the seat's lower city).  Win plus margin gives no signal:
#   each automaton scores the lower of a city it shares with the seat and the Deep Learning
#   City, so while the seat trails that city the margin only asks to keep the two cities
#   level, and the rank is second or last in nearly every game.  Measured, 20,000 steps, 40
#   eval games: rank + shaping mean score 42.3 -> 43.0, score 42.3 -> 45.4.
SOLO_DEFAULTS = {cfg.game: cfg for cfg in (
    _solo("tiny_towns_v0", net_arch=(128, 128), n_epochs=4, shaping=0.1, timesteps=500_000,
          reward_mode="score", ent_coef=0.0),
    _solo("between_two_cities_v0", net_arch=(128, 128), n_epochs=4, shaping=0.05,
          reward_mode="score", reward_scale=0.05, timesteps=150_000),
    _solo("smartphone_inc_v0", net_arch=(128, 128), n_epochs=4, shaping=0.05, timesteps=100_000),
)}


def defaults_for(game, num_players=None):
    """The default :class:`TrainConfig` of ``game`` (:data:`BASE` for a game not listed);
    with ``num_players=1`` its solo defaults (:data:`SOLO_DEFAULTS`, or the game's own
    defaults with one seat and no opponents)."""
    if num_players == 1:
        return SOLO_DEFAULTS.get(game) or replace(
            defaults_for(game), num_players=1, opponents="none", eval_opponents=())
    return GAME_DEFAULTS.get(game) or _game(game)


def changes(cfg, base=BASE):
    """``{name: value}`` of the fields where ``cfg`` differs from ``base`` (except game)."""
    return {f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg)
            if f.name != "game" and getattr(cfg, f.name) != getattr(base, f.name)}
