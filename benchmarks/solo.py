"""The solo games measured against their rulebooks' own yardsticks.

    python -m benchmarks.solo [--games 20] [--slow-games 5] [--workers 2] [--seed 500]
        [--mode tiny_towns between_two_cities smartphone_inc]
        [--agents random greedy mcts_0.1s mcts_1s mcts_200it mcts_400it]
        [--games-of [MODE/]LABEL=N ...]
        [--policy GAME=PATH ...] [--out benchmarks/results/solo.md]

Three games ship a solo mode with a yardstick written by their designers:

* Tiny Towns (``num_players=1``): the final score and its rating title (>= 38 Master
  Architect, 32-37 Town Planner, 25-31 Engineer, 18-24 Carpenter, 10-17 Builder's
  Apprentice, <= 9 Aspiring Architect);
* Between Two Cities (``num_players=1``, full solo mode): the win rate against the two
  automata at every ``difficulty`` 1-5 (the rulebook suggests level 2 for a first game,
  level 4 once level 2 is beaten easily);
* Smartphone Inc. (``num_players=1``): the win rate and the score margin against Steve.

Agents: ``random``, ``greedy``, MCTS with a time budget of 0.1 s (``mcts_0.1s``) and 1 s
(``mcts_1s``) per move or with 200 or its default 400 iterations (``mcts_200it``,
``mcts_400it``: the same games on any machine), and ``policy`` -- a policy saved by
``train.py`` -- for each game given with ``--policy GAME=PATH`` (the report says how it
was trained, from the ``summary.json`` next to it; ``train.py`` evaluates its solo runs
with the same :func:`solo_outcome` and :func:`yardstick`).  Every agent plays the same
game seeds (``--seed``, ``--seed + 1``, ...): ``--games`` per cell, ``--slow-games`` for
``mcts_1s`` and the fixed budgets, or as ``--games-of`` says for one agent in every mode
(``mcts_200it=0``) or in one (``tiny_towns/mcts_200it=100``).  Games run in ``--workers``
processes.  The report (markdown, with the game count of every cell and the command that
made it) goes to ``--out``.  Time-budgeted MCTS depends on the machine's speed and load,
so its figures are not exactly reproducible.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from agents.yardstick import TITLES, solo_outcome, yardstick  # noqa: F401 (re-exported)

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "solo.md"

# mode -> (game id, its solo options, the option sets measured)
MODES = {
    "tiny_towns": ("tiny_towns_v0", {"num_players": 1}, [{}]),
    "between_two_cities": ("between_two_cities_v0", {"num_players": 1},
                           [{"difficulty": d} for d in range(1, 6)]),
    "smartphone_inc": ("smartphone_inc_v0", {"num_players": 1}, [{}]),
}
# label -> (agents.make name, options); the MCTS budgets are per move
AGENTS = {
    "random": ("random", {}),
    "greedy": ("greedy", {}),
    "mcts_0.1s": ("mcts", {"seconds": 0.1}),
    "mcts_1s": ("mcts", {"seconds": 1.0}),
    # fixed budgets (400: the agent's default): reproducible on any machine; in Tiny Towns'
    # solo search, whose playouts are 30 greedy moves, about 0.35 and 0.7 s a move
    "mcts_200it": ("mcts", {"simulations": 200}),
    "mcts_400it": ("mcts", {"simulations": 400}),
}
SLOW_AGENTS = ("mcts_1s", "mcts_200it", "mcts_400it")




def play_one(job):
    """Play one solo game; returns the job with its :func:`solo_outcome` and
    ``seconds_per_move``."""
    import agents
    import envs
    game, options, name, agent_options, seed = (job["game"], job["options"], job["name"],
                                               job["agent_options"], job["seed"])
    env = envs.make(game, **options)
    bot = agents.make(name, seed=seed, **agent_options)
    record = agents.play_game(env, [bot], seed=seed)
    return {**job, **solo_outcome(env, record),
            "seconds_per_move": record.think_seconds[0] / max(record.moves[0], 1)}


def parse_games_of(items, modes, labels):
    """``--games-of`` items ``LABEL=N`` or ``MODE/LABEL=N`` as ``{(mode or None, label): N}``."""
    counts = {}
    for item in items:
        key, sep, n = item.partition("=")
        mode, _, label = key.rpartition("/")
        if not sep or not n.isdigit() or label not in labels or (mode and mode not in modes):
            raise ValueError(f"--games-of expects LABEL=N or MODE/LABEL=N with LABEL one of {labels}, "
                             f"MODE one of {modes} and N >= 0, got {item!r}")
        counts[(mode or None, label)] = int(n)
    return counts


def make_jobs(modes, labels, games, slow_games, seed, policies, games_of=None):
    """One job per game: every agent in ``labels`` (and a ``policies`` entry) plays
    ``games`` games per option set of every mode (``slow_games`` for the slow agents),
    unless ``games_of`` (:func:`parse_games_of`) names its mode and label or its label."""
    games_of = games_of or {}
    jobs = []
    for mode in modes:
        game, base, option_sets = MODES[mode]
        cells = [(label, *AGENTS[label]) for label in labels]
        if game in policies:
            cells.append(("policy", "policy", {"path": policies[game]}))
        for label, name, agent_options in cells:
            n = slow_games if label in SLOW_AGENTS else games
            n = games_of.get((mode, label), games_of.get((None, label), n))
            for extra in option_sets:
                for i in range(n):
                    jobs.append({"mode": mode, "game": game, "options": {**base, **extra},
                                 "label": label, "name": name, "agent_options": agent_options,
                                 "seed": seed + i})
    # the slow games first, so that the workers finish together
    jobs.sort(key=lambda j: j["label"] not in SLOW_AGENTS)
    return jobs


def run(jobs, workers):
    if workers <= 1:
        return [play_one(j) for j in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(play_one, jobs, chunksize=1))


# ------------------------------------------------------------------- report
def _rate(wins, n):
    return f"{wins}/{n} ({100.0 * wins / n:.0f} %)" if n else "--"


def _mean_err(xs):
    xs = np.asarray(xs, dtype=float)
    if xs.size == 0:
        return "--"
    err = xs.std(ddof=1) / math.sqrt(xs.size) if xs.size > 1 else float("nan")
    return f"{xs.mean():.1f} ± {err:.1f}" if xs.size > 1 else f"{xs.mean():.1f}"


def _labels(results):
    order = list(AGENTS) + ["policy"]
    present = {r["label"] for r in results}
    return [label for label in order if label in present]


def tiny_towns_table(results):
    lines = ["| agent | games | mean score ± s.e. | min–max | " + " | ".join(TITLES) + " |",
             "| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in TITLES) + " |"]
    for label in _labels(results):
        rows = [r for r in results if r["label"] == label]
        scores = [r["score"] for r in rows]
        titles = yardstick(rows)["titles"]
        lines.append(f"| {label} | {len(rows)} | {_mean_err(scores)} | {min(scores)}–{max(scores)} | "
                     + " | ".join(str(titles[t]) for t in TITLES) + " |")
    return lines


def between_two_cities_table(results):
    lines = ["Cells: games won (a first place shared with an automaton counts as won) and, "
             "below, the seat's mean score vs the mean score of the Deep Learning City "
             "(difficulty bonus included).  Each automaton scores the lower of the city it shares "
             "with the seat and the Deep Learning City, so the seat wins only with both of its "
             "cities above the Deep Learning City.", "",
             "| agent | " + " | ".join(f"difficulty {d}" for d in range(1, 6)) + " |",
             "| --- | " + " | ".join("---:" for _ in range(5)) + " |"]
    for label in _labels(results):
        cells = []
        for d in range(1, 6):
            rows = [r for r in results if r["label"] == label and r["options"].get("difficulty") == d]
            if not rows:
                cells.append("--")
                continue
            own = np.mean([r["score"] for r in rows])
            best = np.mean([r["deep_learning_city"] for r in rows])
            cells.append(f"{_rate(sum(r['won'] for r in rows), len(rows))}<br>{own:.1f} vs {best:.1f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    bonus = _difficulty_bonus()
    lines += ["", "Break-even difficulty bonus: the seat wins when its lower city reaches the Deep "
              "Learning City with its bonus, so the median over every game of (seat's score "
              "minus the Deep Learning City's score without its bonus) is the bonus at which the "
              "agent would win about half of its games; the data's bonuses by level are "
              + ", ".join(f"{d}: {bonus[d]:+d}" for d in range(1, 6)) + ".", "",
              "| agent | games | Deep Learning City without bonus: mean | seat: mean | break-even bonus |",
              "| --- | ---: | ---: | ---: | ---: |"]
    for label in _labels(results):
        rows = [r for r in results if r["label"] == label and r["deep_learning_city"] is not None]
        if not rows:
            continue
        base = np.array([r["deep_learning_city"] - bonus[r["options"].get("difficulty", bonus["default"])]
                         for r in rows], dtype=float)
        own = np.array([r["score"] for r in rows], dtype=float)
        lines.append(f"| {label} | {len(rows)} | {base.mean():.1f} | {own.mean():.1f} | "
                     f"{np.median(own - base):+.1f} |")
    return lines


def _difficulty_bonus():
    """``{level: points added to the Deep Learning City's final score}`` from the game data,
    and ``"default"``: the level a game without a ``difficulty`` option plays."""
    from kernels import between_two_cities as btc
    return {**{d: int(btc.DIFFICULTY_ADJUSTMENT[d]) for d in range(1, 6)}, "default": btc.DEFAULT_DIFFICULTY}


def smartphone_inc_table(results):
    lines = ["| agent | games | won | mean score | mean Steve | mean margin ± s.e. |",
             "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for label in _labels(results):
        rows = [r for r in results if r["label"] == label]
        margins = [r["score"] - r["automata"][0] for r in rows]
        lines.append(f"| {label} | {len(rows)} | {_rate(sum(r['won'] for r in rows), len(rows))} | "
                     f"{np.mean([r['score'] for r in rows]):.1f} | "
                     f"{np.mean([r['automata'][0] for r in rows]):.1f} | {_mean_err(margins)} |")
    return lines


def think_table(results):
    lines = ["| agent | " + " | ".join(MODES) + " |", "| --- | " + " | ".join("---:" for _ in MODES) + " |"]
    for label in _labels(results):
        cells = []
        for mode in MODES:
            rows = [r["seconds_per_move"] for r in results if r["label"] == label and r["mode"] == mode]
            cells.append(f"{np.mean(rows):.3f}" if rows else "--")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


TABLES = {"tiny_towns": ("Tiny Towns, solo: score and rating title", tiny_towns_table),
          "between_two_cities": ("Between Two Cities, solo (full mode) against the two automata",
                                 between_two_cities_table),
          "smartphone_inc": ("Smartphone Inc., solo against Steve", smartphone_inc_table)}


def policy_notes(policies):
    """A line per ``--policy`` saying how it was trained, from the ``summary.json`` that
    train.py writes next to its model (when there is one)."""
    lines = []
    for game, path in policies.items():
        summary_path = Path(path).parent / "summary.json"
        if not summary_path.exists():
            lines.append(f"* {game}: `{path}` (no training summary next to it)")
            continue
        summary = json.loads(summary_path.read_text())
        cfg = summary.get("config", {})
        settings = ", ".join(f"{k}={cfg[k]}" for k in ("reward_mode", "shaping", "reward_scale")
                             if k in cfg)
        lines.append(f"* {game}: `{path}`, trained by train.py for {summary['timesteps']:,} "
                     f"decisions in {summary['train_seconds'] / 60:.0f} min ({settings}; "
                     f"options {summary.get('options')})")
    return lines


def report(results, command, seconds, seed, policies=None):
    lines = ["# Solo yardsticks", "",
             f"Made by `{command}` in {seconds / 60:.0f} min on {os.cpu_count()} cores; game seeds "
             f"{seed}, {seed + 1}, ... (the same seeds for every agent).  Every cell gives its game "
             "count; MCTS budgets are seconds of search per move, so its figures depend on the "
             "machine and its load.", ""]
    if policies:
        lines += ["Trained policies (agent `policy`, deterministic):", ""] + policy_notes(policies) + [""]
    for mode, (title, table) in TABLES.items():
        rows = [r for r in results if r["mode"] == mode]
        if rows:
            lines += [f"## {title}", ""] + table(rows) + [""]
    lines += ["## Thinking time (mean seconds per move)", ""] + think_table(results) + [""]
    return "\n".join(lines)


def build_parser():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=int, default=20, help="games per cell (default 20)")
    p.add_argument("--slow-games", type=int, default=5,
                   help=f"games per cell for {', '.join(SLOW_AGENTS)} (default 5)")
    p.add_argument("--games-of", nargs="+", default=[], metavar="[MODE/]LABEL=N",
                   help="games per cell of one agent, in every mode or in one (0: not played)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--seed", type=int, default=500, help="seed of the first game (default 500)")
    p.add_argument("--mode", nargs="+", choices=list(MODES), default=list(MODES))
    p.add_argument("--agents", nargs="+", choices=list(AGENTS), default=list(AGENTS))
    p.add_argument("--policy", action="append", default=[], metavar="GAME=PATH",
                   help="a policy saved by train.py, played as agent 'policy' in GAME's solo mode")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    if args.games < 1 or args.slow_games < 0 or args.workers < 1:
        raise ValueError("--games and --workers must be >= 1, --slow-games >= 0")
    policies = {}
    for item in args.policy:
        game, sep, path = item.partition("=")
        if not sep or game not in {g for g, _, _ in MODES.values()}:
            raise ValueError(f"--policy expects GAME=PATH with GAME a solo game id, got {item!r}")
        policies[game] = path
    games_of = parse_games_of(args.games_of, list(MODES), list(AGENTS) + ["policy"])
    jobs = make_jobs(args.mode, args.agents, args.games, args.slow_games, args.seed, policies, games_of)
    start = time.time()
    results = run(jobs, args.workers)
    command = "python -m benchmarks.solo " + " ".join(sys.argv[1:] if argv is None else argv)
    text = report(results, command.strip(), time.time() - start, args.seed, policies)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
