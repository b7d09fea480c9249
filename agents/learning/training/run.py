"""One training run: :func:`train`."""
from __future__ import annotations

import json
import os
import sys
import time

import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.logger import configure

from agents.learning.training.callbacks import SelfPlayCallback
from agents.learning.training.environments import make_vec_env
from agents.learning.training.evaluation import (available_agents, check_solo_settings,
                                                solo_automata, solo_line, win_interval)
from agents.learning.training.ladder_rating import rating_line, scale_for
from agents.learning.training.model import (learning_rate_schedule, load_initial_model,
                                           policy_class, policy_kwargs)
from agents.learning.training.plots import plot_learning_curve
from agents.learning.training.warm_start import warm_start
from agents.players import policy_files
from agents.players.policy import export_numpy_actor


def train(cfg):
    """Run the training job described by ``cfg`` (a :class:`TrainConfig`); returns the summary."""
    torch.set_num_threads(int(cfg.torch_threads))
    # Argument validation of torch distributions costs more than the small networks here.
    torch.distributions.Distribution.set_default_validate_args(False)
    cfg = cfg.resolved()
    automata = solo_automata(cfg)    # None: several seats
    check_solo_settings(cfg, automata)
    out, verbose, init_model = cfg.out, cfg.verbose, cfg.init_model
    os.makedirs(out, exist_ok=True)
    t_start = time.time()
    eval_names = ["solo"] if automata is not None else available_agents(cfg.eval_opponents)
    # the evaluation opponents are built as agents.make(name): no options
    scale, no_rating = scale_for(cfg.game, cfg.options, [(name, {}) for name in eval_names])
    if verbose and eval_names:
        print(f"[train] ladder rating: on {scale.name}, anchored by {scale.describe()}" if scale
              else f"[train] no ladder rating: {no_rating}", file=sys.stderr, flush=True)
    venv = make_vec_env(cfg, out)
    warm_start_stats = None
    try:
        hyper = dict(learning_rate=learning_rate_schedule(cfg), n_steps=cfg.n_steps,
                     batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
                     gae_lambda=cfg.gae_lambda, ent_coef=cfg.ent_coef,
                     clip_range=cfg.clip_range)
        if init_model and cfg.trust_pickle:
            model = MaskablePPO.load(init_model, env=venv, device=cfg.device, **hyper)
        elif init_model:
            model = load_initial_model(init_model, venv, cfg, hyper)
        else:
            model = MaskablePPO(policy_class(cfg.policy), venv, seed=cfg.seed,
                                device=cfg.device, policy_kwargs=policy_kwargs(cfg), verbose=0,
                                **hyper)
            if cfg.warm_start != "none":
                warm_start_stats = warm_start(model, cfg, verbose)
        # What it takes to build the network again without unpickling (agents.players.policy_files):
        # every model this run saves (final, best, checkpoints, pool) loads with it.
        policy_files.write_config(out, policy_files.config_from_model(model, cfg.game, cfg.env_options))
        formats = ["csv"]
        if verbose >= 2:
            formats.append("stdout")
        if cfg.tensorboard:
            try:
                import tensorboard  # noqa: F401
                formats.append("tensorboard")
            except ImportError:
                if verbose:
                    print("[train] tensorboard not installed: TensorBoard logging off "
                          "(pip install tensorboard)", file=sys.stderr)
        model.set_logger(configure(os.path.join(out, "logs"), formats))
        callback = SelfPlayCallback(cfg, out, eval_names, verbose, automata, scale)
        if verbose:
            print(f"[train] {cfg.game} {cfg.options}: {cfg.timesteps:,} steps, "
                  f"{cfg.n_envs} {cfg.env} game(s), opponents={cfg.opponents}, out={out}",
                  file=sys.stderr, flush=True)
        use_bar = cfg.progress
        if use_bar:
            try:
                import rich  # noqa: F401
                import tqdm  # noqa: F401
            except ImportError:
                use_bar = False
        t_train = time.time()
        start_steps = int(model.num_timesteps) if init_model else 0
        model.learn(total_timesteps=cfg.timesteps, callback=callback, progress_bar=use_bar,
                    reset_num_timesteps=not init_model)
        train_s = time.time() - t_train
        model.save(os.path.join(out, "final_model.zip"))
        try:   # the same actor as a numpy file: agents.make("policy", path=...npz) needs no torch
            export_numpy_actor(model, os.path.join(out, "final_model.npz"))
        except ValueError:
            pass
    finally:
        venv.close()
    t_eval = time.time()
    final_rows = callback.run_eval(cfg.final_eval_games, final=True) if eval_names else []
    if final_rows:
        model.logger.dump(model.num_timesteps)
    final_eval_s = time.time() - t_eval
    if cfg.plot and callback.history:
        plot_learning_curve(callback.history, os.path.join(out, "learning_curve.png"), cfg.game)
    versus = final_rows if automata is None else []
    summary = {
        "game": cfg.game, "options": cfg.options, "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_s, 1), "final_eval_seconds": round(final_eval_s, 1),
        "total_seconds": round(time.time() - t_start, 1),
        "steps_per_second": round((model.num_timesteps - start_steps) / max(train_s, 1e-9), 1),
        "final_win_rates": {r["opponent"].replace(" (final)", ""): r["win_rate"] for r in versus},
        "final_mean_rewards": {r["opponent"].replace(" (final)", ""): r["mean_reward"]
                               for r in versus},
        "final_eval_games": cfg.final_eval_games,
        # Wilson 95% interval of each final win rate, over final_eval_games games
        "final_win_intervals": {r["opponent"].replace(" (final)", ""): win_interval(r["win_rate"], r["games"])
                                for r in versus},
        # solo games: the final evaluation's yardstick (evaluate_solo), every game's score too
        "solo_automata": automata,
        "final_solo": callback.solo_results[-1] if automata is not None and final_rows else None,
        # the final evaluation's rating on the game's ladder scale (ladder_rating.rate), or
        # None, with the reason in ladder_rating_note
        "final_ladder_rating": callback.ladder_ratings[-1] if final_rows else None,
        "ladder_rating_note": no_rating,
        "model": os.path.join(out, "final_model.zip"),
        "warm_start": warm_start_stats,
        "config": cfg.summary(),
    }
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, default=str)
    if verbose:
        if summary["final_solo"]:
            result = "final solo " + solo_line(summary["final_solo"])
        else:
            rates = ", ".join(f"{k} {v:.1%}" for k, v in summary["final_win_rates"].items())
            result = f"final win rates: {rates or 'n/a'}"
            if summary["final_ladder_rating"]:
                result += "; final " + rating_line(summary["final_ladder_rating"])
        print(f"[train] done in {summary['total_seconds']:.0f}s "
              f"({summary['steps_per_second']:.0f} steps/s); {result}; "
              f"model: {summary['model']}", file=sys.stderr, flush=True)
    return summary
