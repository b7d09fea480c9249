"""The learner's evaluations: against baseline agents, or its solo game by the rulebook's yardstick."""
from __future__ import annotations

import sys

import numpy as np

import agents
import envs
from agents.loop import play_game
from agents.rating.elo import wilson_interval
from agents.rating.ladder import table_points
from agents.yardstick import solo_outcome, yardstick
from envs import records


def available_agents(names):
    """The names among ``names`` that ``agents.make`` can build (others are reported)."""
    ok = []
    for name in names:
        try:
            agents.make(name)
        except Exception as exc:   # noqa: BLE001 - an agent that cannot be built is skipped
            print(f"[train] evaluation opponent {name!r} unavailable ({exc}); skipped",
                  file=sys.stderr)
        else:
            ok.append(name)
    return ok


def evaluate(learner, opponent_name, game, options, n_games, seed=0, save_to=None):
    """``learner`` (an agent) against ``opponent_name`` on every other seat, seats rotating.

    Returns ``{"games", "win_rate", "mean_reward", "mean_margin", "points"}``: win = the
    learner is among the winners; reward = its rank (or score) reward; margin = its final
    score minus the mean of the others'; ``points`` (two seats only, else None): the
    learner's points in each game as a ladder counts them (1 ahead, 1/2 tied, 0 behind),
    which :mod:`.ladder_rating` fits.  ``save_to``: a ``.jsonl`` path that receives every
    game's :mod:`envs.records` record."""
    env = envs.make(game, **options)
    n = len(env.possible_agents)
    opponent = agents.make(opponent_name, seed=seed)
    wins, rewards, margins = 0, [], []
    points = [] if n == 2 else None
    for i in range(n_games):
        seat = i % n
        seat_agents = [opponent] * n
        seat_agents[seat] = learner
        game_seed = seed * 1_000_003 + i
        log = None
        if save_to is not None:
            players = [opponent_name] * n
            players[seat] = "learner"
            log = records.new_record(game, options, game_seed, players=players)
        record = play_game(env, seat_agents, seed=game_seed, record=log)
        if log is not None:
            records.save(log, save_to)
        info = record.info
        me = env.possible_agents[seat]
        wins += me in info.get("winners", ())
        rewards.append(record.rewards[me])
        scores = info.get("scores", [0] * n)
        others = [s for j, s in enumerate(scores) if j != seat]
        margins.append(scores[seat] - (np.mean(others) if others else 0.0))
        if points is not None:
            points.append(table_points(info, seat))
    return {"games": n_games, "win_rate": wins / max(1, n_games),
            "mean_reward": float(np.mean(rewards)) if rewards else 0.0,
            "mean_margin": float(np.mean(margins)) if margins else 0.0, "points": points}


def solo_automata(cfg):
    """How many automata play ``cfg``'s game when it has a single seat (0 in Tiny Towns'
    solo game, 2 in Between Two Cities', 1 -- Steve -- in Smartphone Inc.'s); None when the
    game has several seats."""
    raw = envs.make(cfg.game, **cfg.options).unwrapped
    if len(raw.possible_agents) != 1:
        return None
    return max(int(raw.cfg.num_participants) - 1, 0)


def check_solo_settings(cfg, automata):
    """``ValueError`` for settings that mean nothing with ``automata`` (see
    :func:`solo_automata`): opponents or baseline evaluations in a solo game, ``none``
    opponents in a game with several seats."""
    if automata is None:
        if cfg.opponents == "none":
            raise ValueError(f"opponents='none' is for solo games (num_players=1); {cfg.game} "
                             f"with {cfg.options} has several seats to fill")
        return
    hint = (f"(the solo defaults: agents.learning.training.recipes.defaults_for({cfg.game!r}, "
            "num_players=1), which train.py --num-players 1 takes)")
    if cfg.opponents != "none":
        raise ValueError(f"opponents={cfg.opponents!r}: the solo game of {cfg.game} has no other "
                         f"seat to play (its automata play inside the game); use 'none' {hint}")
    if cfg.eval_opponents:
        raise ValueError(f"eval_opponents={list(cfg.eval_opponents)}: a solo game has no seat for "
                         f"an opponent; its evaluation plays the solo game itself {hint}")
    if cfg.eval_games < 1 or cfg.final_eval_games < 1:
        raise ValueError("eval_games and final_eval_games must be >= 1 in a solo game, got "
                         f"{cfg.eval_games} and {cfg.final_eval_games}")


def evaluate_solo(learner, game, options, n_games, seed=0, save_to=None):
    """``learner`` plays ``n_games`` of ``game``'s solo mode (``options`` with one seat), the
    automata, if any, inside the game.

    Returns the yardstick of :func:`agents.yardstick.yardstick` -- ``games``, ``mean_score``,
    ``score_se``, ``win_rate`` and ``mean_margin`` over the best automaton (None without
    automata), ``titles`` (Tiny Towns) -- plus ``mean_reward`` (the learner's game reward)
    and ``scores`` (each game's final score, in game order).  Game ``i`` has the seed
    ``seed * 1_000_003 + i``; ``save_to`` as for :func:`evaluate`."""
    env = envs.make(game, **options)
    me = env.possible_agents[0]
    outcomes, rewards = [], []
    for i in range(n_games):
        game_seed = seed * 1_000_003 + i
        log = records.new_record(game, options, game_seed, players=["learner"]) if save_to else None
        record = play_game(env, [learner], seed=game_seed, record=log)
        if log is not None:
            records.save(log, save_to)
        outcomes.append(solo_outcome(env, record))
        rewards.append(record.rewards[me])
    return {**yardstick(outcomes), "mean_reward": float(np.mean(rewards)),
            "scores": [o["score"] for o in outcomes]}


def solo_line(res):
    """The console words of a solo evaluation's yardstick."""
    se = f" ± {res['score_se']:.1f}" if res["score_se"] is not None else ""
    words = [f"score {res['mean_score']:6.1f}{se}"]
    if res["win_rate"] is not None:
        words.append(f"win {res['win_rate']:6.1%}  margin {res['mean_margin']:+.1f}")
    if res["titles"] is not None:
        words.append("titles " + ", ".join(f"{t} {c}" for t, c in res["titles"].items() if c))
    if res.get("highest_level_beaten") is not None:
        words.append(f"highest level beaten {res['highest_level_beaten'] or 'none'}")
    return "  ".join(words)


def win_interval(rate, games):
    """The Wilson 95% interval ``[low, high]`` of a win rate measured over ``games`` games."""
    low, high = wilson_interval(int(round(rate * games)), games)
    return [round(low, 4), round(high, 4)]
