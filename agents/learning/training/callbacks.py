"""The callback of a training run: self-play snapshots, periodic evaluations, checkpoints,
the CSV and TensorBoard logs."""
from __future__ import annotations

import csv
import json
import os
import sys
import time

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback

from agents.learning.training import ladder_rating
from agents.learning.training.evaluation import evaluate, evaluate_solo, solo_line
from agents.players.policy import PolicyAgent, export_numpy_actor

# mean_score, score_se and titles (JSON {title: games}) are filled in solo games only,
# where win_rate/mean_margin are against the best automaton (empty without automata).
# ladder_rating/ladder_halfwidth: the learner's rating on the game's ladder scale and its
# 95 % half-width, fitted from all of one evaluation's games against opponents that are
# rungs (the same in each row of that evaluation; empty without a ladder: ladder_rating.py).
EVAL_FIELDS = ["timesteps", "elapsed_s", "opponent", "games", "win_rate", "mean_reward",
               "mean_margin", "train_reward", "train_win_rate", "mean_score", "score_se",
               "titles", "ladder_rating", "ladder_halfwidth"]


class SelfPlayCallback(BaseCallback):
    """Snapshots for the self-play pool, periodic evaluations, checkpoints, CSV/TB logs.

    ``cfg``: the run's resolved :class:`~agents.learning.training.config.TrainConfig`;
    ``out``: its output directory; ``eval_names``: the baseline agents to evaluate against
    (``["solo"]`` in a solo game); ``verbose``: print each evaluation; ``automata``: the
    number of automata of a solo game (None: several seats); ``ladder_scale``: the
    :class:`~agents.learning.training.ladder_rating.LadderScale` the evaluations are rated
    on (None: no rating)."""

    def __init__(self, cfg, out, eval_names, verbose, automata=None, ladder_scale=None):
        super().__init__(verbose=0)
        self.cfg, self.out, self.eval_names = cfg, out, eval_names
        self.print_evaluations, self.automata = verbose, automata
        self.ladder_scale = ladder_scale
        self.ladder_ratings = []   # every evaluation's ladder rating (or None), in order
        self.pool_dir = os.path.join(self.out, "pool")
        self.ckpt_dir = os.path.join(self.out, "checkpoints")
        self.csv_path = os.path.join(self.out, "eval.csv")
        self.next_snapshot = 0
        self.next_eval = self.cfg.eval_every if self.cfg.eval_every else None
        self.last_eval_step = -1
        self.best = None
        self.start = time.time()
        self.history = []
        self.solo_results = []     # every solo evaluation's result, in order

    def _on_training_start(self):
        os.makedirs(self.pool_dir, exist_ok=True)
        os.makedirs(self.ckpt_dir, exist_ok=True)
        with open(self.csv_path, "w", newline="") as f:
            csv.writer(f).writerow(EVAL_FIELDS)
        self.start = time.time()
        if self.next_eval is not None:   # relative to the start (--init-model continues)
            self.next_eval = self.num_timesteps + self.cfg.eval_every
        self.snapshot()
        if self.next_eval is not None and self.eval_names:
            self.run_eval(self.cfg.eval_games)   # the untrained policy: the curve's origin

    def snapshot(self):
        steps = self.num_timesteps
        path = os.path.join(self.pool_dir, f"snapshot_{steps:010d}")
        try:   # a small numpy actor: workers load it fast and without torch
            export_numpy_actor(self.model, path + ".npz")
        except ValueError:   # an architecture the numpy actor does not cover
            tmp = os.path.join(self.pool_dir, f"tmp_{steps}.zip")
            self.model.save(tmp)
            os.replace(tmp, path + ".zip")
        self.next_snapshot = steps + self.cfg.snapshot_every

    def train_stats(self):
        buf = list(self.model.ep_info_buffer or [])
        if not buf:
            return float("nan"), float("nan")
        reward = float(np.mean([e["r"] for e in buf]))
        won = [e["won"] for e in buf if "won" in e]
        if self.automata == 0:   # a lone player always "wins"
            won = []
        return reward, (float(np.mean(won)) if won else float("nan"))

    def run_eval(self, n_games, final=False):
        steps = self.num_timesteps
        learner = PolicyAgent(model=self.model, deterministic=True)
        train_reward, train_win = self.train_stats()
        rows, rates, points = [], [], {}
        for k, name in enumerate(self.eval_names):
            t0 = time.time()
            file = "final-solo.jsonl" if self.automata is not None else f"final-vs-{name}.jsonl"
            save_to = os.path.join(self.cfg.save_games, file) if final and self.cfg.save_games else None
            seed = self.cfg.seed * 7919 + 17 * k + (0 if final else steps % 9973 + 1)
            if self.automata is not None:
                res = evaluate_solo(learner, self.cfg.game, self.cfg.options, n_games, seed=seed,
                                    save_to=save_to)
                self.solo_results.append(res)
                # the best model: by win rate, then margin, against automata; else by score
                rates.append((res["win_rate"] or 0.0, res["mean_score"] if self.automata == 0
                              else res["mean_margin"]))
            else:
                res = evaluate(learner, name, self.cfg.game, self.cfg.options, n_games, seed=seed,
                               save_to=save_to)
                points[name] = res.pop("points")
                rates.append(res["win_rate"])
            row = {"timesteps": steps, "elapsed_s": round(time.time() - self.start, 1),
                   "opponent": name + (" (final)" if final else ""), **res,
                   "train_reward": train_reward, "train_win_rate": train_win}
            if self.automata is not None:
                row["titles"] = json.dumps(res["titles"]) if res["titles"] else None
                self.record_solo(res, steps, n_games, time.time() - t0)
            else:
                self.record_versus(name, res, steps, n_games, time.time() - t0)
            rows.append(row)
        rating = self.record_rating(points, steps)
        for row in rows:
            row["ladder_rating"] = rating["rating"] if rating else None
            row["ladder_halfwidth"] = rating["halfwidth"] if rating else None
        with open(self.csv_path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=EVAL_FIELDS, extrasaction="ignore")
            for row in rows:
                w.writerow(row)
        self.history.extend(rows)
        self.last_eval_step = steps
        if rates and not final:
            self.model.save(os.path.join(self.ckpt_dir, f"model_{steps:010d}.zip"))
            score = rates[0] if self.automata is not None else float(np.mean(rates))
            if self.best is None or score >= self.best:
                self.best = score
                self.model.save(os.path.join(self.out, "best_model.zip"))
        return rows

    def record_versus(self, name, res, steps, n_games, seconds):
        """An evaluation against baseline ``name`` to TensorBoard and the console."""
        self.logger.record(f"eval/win_rate_{name}", res["win_rate"])
        self.logger.record(f"eval/mean_reward_{name}", res["mean_reward"])
        self.logger.record(f"eval/mean_margin_{name}", res["mean_margin"])
        if self.print_evaluations:
            msg = (f"[train] step {steps:>9,}  vs {name:<7} win {res['win_rate']:6.1%}  "
                   f"reward {res['mean_reward']:+.3f}  margin {res['mean_margin']:+.1f}  "
                   f"({n_games} games, {seconds:.1f}s)")
            print(msg, file=sys.stderr, flush=True)

    def record_rating(self, points, steps):
        """The learner's ladder rating from one evaluation's ``points`` (opponent -> the
        learner's points per game) to TensorBoard and the console; returns it (or None)."""
        rating = (ladder_rating.rate(self.ladder_scale, points)
                  if self.ladder_scale is not None and points else None)
        self.ladder_ratings.append(rating)
        if rating is not None:
            self.logger.record("eval/ladder_rating", rating["rating"])
            self.logger.record("eval/ladder_halfwidth", rating["halfwidth"])
            if self.print_evaluations:
                print(f"[train] step {steps:>9,}  {ladder_rating.rating_line(rating)}  "
                      f"({rating['games']} games)", file=sys.stderr, flush=True)
        return rating

    def record_solo(self, res, steps, n_games, seconds):
        """A solo evaluation's yardstick to TensorBoard and the console."""
        self.logger.record("eval/solo_mean_score", res["mean_score"])
        if res["win_rate"] is not None:
            self.logger.record("eval/solo_win_rate", res["win_rate"])
            self.logger.record("eval/solo_mean_margin", res["mean_margin"])
        for title, count in (res["titles"] or {}).items():
            self.logger.record(f"eval/solo_title_share/{title}", count / res["games"])
        if self.print_evaluations:
            print(f"[train] step {steps:>9,}  solo  {solo_line(res)}  ({n_games} games, "
                  f"{seconds:.1f}s)", file=sys.stderr, flush=True)

    def _on_rollout_end(self):
        reward, win = self.train_stats()
        if np.isfinite(win):
            self.logger.record("rollout/win_rate", win)

    def _on_step(self):
        if self.cfg.opponents in ("self", "mix") and self.num_timesteps >= self.next_snapshot:
            self.snapshot()
        if self.next_eval is not None and self.num_timesteps >= self.next_eval:
            self.run_eval(self.cfg.eval_games)
            while self.next_eval <= self.num_timesteps:
                self.next_eval += self.cfg.eval_every
        return True
