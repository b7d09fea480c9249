"""Training report: train every game with ``train.py``'s default budget and record the result.

    python -m benchmarks.training_report                         # every game, default budgets
    python -m benchmarks.training_report --games kingdomino_duel_v0 --timesteps 20000

For each game it runs :func:`agents.learning.training.run.train` (per-game defaults of
``agents.learning.training.recipes.GAME_DEFAULTS``,
its default opponents) in ``RUNS/<game>/`` (models, snapshots, logs: not committed) and writes
into ``benchmarks/results/<game>/``:

``training.png``   the learning curve (win rate vs Random and Greedy, mean rewards);
``training.csv``   every evaluation (``eval.csv`` of the run);
``training.json``  the run summary: budget, runtime, steps/s, final win rates vs Random
                   and Greedy over ``final_eval_games`` games, the final rating on the
                   game's ladder scale (when it has one), hyper-parameters;
``training.md``    the same as a short table, followed by the file's own section
                   "## Why these defaults" (the reasons and experiments behind the game's
                   defaults, written by hand), which is kept when the report is rewritten.

A full report takes about ten minutes per game on 2 CPU cores.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from dataclasses import replace

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

import envs  # noqa: E402
from envs import cli  # noqa: E402
from agents.learning.training.config import OPPONENT_MODES  # noqa: E402
from agents.learning.training.evaluation import win_interval  # noqa: E402
from agents.learning.training.recipes import defaults_for  # noqa: E402

RESULTS = os.path.join(ROOT, "benchmarks", "results")
NOTES_HEADING = "## Why these defaults"


def run_game(game, args):
    changes = {name: getattr(args, name) for name in
               ("timesteps", "n_envs", "vec_env", "eval_every", "eval_games", "final_eval_games",
                "opponents")
               if getattr(args, name) is not None}
    cfg = replace(defaults_for(game), seed=args.seed, out=os.path.join(args.runs, game),
                  progress=not args.no_progress, **changes)
    from agents.learning.training.run import train   # torch: only when a game is trained
    summary = train(cfg)
    run = os.path.join(args.runs, game)
    out = os.path.join(args.results, game)
    os.makedirs(out, exist_ok=True)
    for src, dst in (("learning_curve.png", "training.png"), ("eval.csv", "training.csv")):
        if os.path.exists(os.path.join(run, src)):
            shutil.copyfile(os.path.join(run, src), os.path.join(out, dst))
    with open(os.path.join(out, "training.json"), "w") as f:
        json.dump(summary, f, indent=2, default=str)
    path = os.path.join(out, "training.md")
    notes = ""
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        if NOTES_HEADING in old:
            notes = "\n" + old[old.index(NOTES_HEADING):]
    with open(path, "w") as f:
        f.write(markdown(summary) + notes)
    return summary


def markdown(summary):
    lines = [f"# Training report: {summary['game']}", "",
             f"`python train.py --game {summary['game']} --timesteps {summary['config']['timesteps']}` "
             f"(opponents {summary['config']['opponents']}, seed {summary['config']['seed']})", "",
             "| timesteps | train time (s) | total time (s) | steps/s |", "| --- | --- | --- | --- |",
             f"| {summary['timesteps']:,} | {summary['train_seconds']} | {summary['total_seconds']} | "
             f"{summary['steps_per_second']} |", ""]
    warm = summary.get("warm_start")
    if warm:    # the total time includes it; the train time does not
        config = summary["config"]
        teacher = (f"MCTS at {config['warm_start_simulations']:,} iterations a move"
                   if config["warm_start"] == "mcts" else "greedy")
        lines += [f"Warm start from {teacher} (`--warm-start {config['warm_start']}`): "
                  f"{warm['samples']:,} decisions in {warm['sample_seconds']} s, "
                  f"{warm['seconds']} s with the pre-training; the actor then plays the teacher's "
                  f"move in {warm.get('holdout_accuracy', warm['train_accuracy']):.1%} of held-out "
                  "decisions.", ""]
    lines += [f"Final evaluation, {summary['final_eval_games']} games per opponent, seats rotating:", "",
             "| opponent | win rate | 95% interval | mean reward |", "| --- | --- | --- | --- |"]
    intervals = summary.get("final_win_intervals") or {}
    for name, rate in summary["final_win_rates"].items():
        low, high = intervals.get(name) or win_interval(rate, summary["final_eval_games"])
        lines.append(f"| {name} | {rate:.1%} | {low:.1%}–{high:.1%} | "
                     f"{summary['final_mean_rewards'][name]:+.3f} |")
    rating = summary.get("final_ladder_rating")
    if rating:
        bound = "" if rating["bounded"] else " (a bound: the learner won or lost every game)"
        lines += ["", f"Rating on the ladder `{rating['ladder']}` v{rating['ladder_version']} "
                  f"(greedy = 1000): {rating['rating']:.0f} ± {rating['halfwidth']:.0f} Elo{bound}, "
                  f"from the {rating['games']} final games against its rungs."]
    elif summary.get("ladder_rating_note"):
        lines += ["", f"No ladder rating: {summary['ladder_rating_note']}."]
    lines += ["", "![learning curve](training.png)", ""]
    return "\n".join(lines)


def main(argv=None):
    p = cli.ArgumentParser(prog="python -m benchmarks.training_report", description=__doc__.split("\n\n")[0],
                           formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("--games", nargs="+", type=cli.game_id, default=list(envs.GAMES), help="game ids")
    p.add_argument("--timesteps", type=cli.positive_int, default=None, help="override the per-game budget")
    p.add_argument("--n-envs", type=cli.positive_int, default=None)
    p.add_argument("--vec-env", default=None, choices=("auto", "subproc", "dummy"))
    p.add_argument("--eval-every", type=cli.positive_int, default=None)
    p.add_argument("--eval-games", type=cli.positive_int, default=None)
    p.add_argument("--final-eval-games", type=cli.positive_int, default=None)
    p.add_argument("--opponents", default=None, choices=OPPONENT_MODES,
                   help="default: each game's own (the recipes' GAME_DEFAULTS, else mix)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--runs", default=os.path.join(ROOT, "runs", "training_report"),
                   help="where the runs (models, snapshots) go")
    p.add_argument("--results", default=RESULTS, help="where the report files go")
    p.add_argument("--no-progress", action="store_true")
    args = p.parse_args(argv)
    unknown = [g for g in args.games if g not in envs.GAMES]
    if unknown:
        p.error(f"unknown game(s) {unknown}; registered: {list(envs.GAMES)}")
    summaries = {}
    for game in args.games:
        summaries[game] = run_game(game, args)
        rates = ", ".join(f"{k} {v:.1%}" for k, v in summaries[game]["final_win_rates"].items())
        print(f"{game}: {summaries[game]['timesteps']:,} steps in "
              f"{summaries[game]['total_seconds']:.0f}s; final win rates {rates}")
    return summaries


if __name__ == "__main__":
    main()
