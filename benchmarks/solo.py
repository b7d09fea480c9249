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
  automata at every ``difficulty`` 1-5 (levels 1-5 add -10, -5, 0, +5, +10 points to the
  automata's Deep Learning City; the rulebook suggests level 2 for a first game, level 4
  once level 2 is beaten easily), and the break-even adjustment: the points added to that
  city at which the agent would win half of its games;
* Smartphone Inc. (``num_players=1``): the win rate and the score margin against Steve.

Agents: ``random``, ``greedy``, MCTS with a time budget of 0.1 s (``mcts_0.1s``) and 1 s
(``mcts_1s``) per move or with 200, its default 400, 800 or 4000 iterations
(``mcts_200it`` .. ``mcts_4000it``: the same games on any machine), and ``policy`` -- a
policy saved by ``train.py`` -- for each game given with ``--policy GAME=PATH`` (the report
says how it was trained, from the ``summary.json`` next to it; ``train.py`` evaluates its
solo runs with the same :func:`solo_outcome` and :func:`yardstick`).  Every agent plays the
same game seeds (``--seed``, ``--seed + 1``, ...): ``--games`` per cell, ``--slow-games``
for ``mcts_1s`` and the fixed budgets but 800 iterations, or as ``--games-of`` says for
one agent in every mode (``mcts_200it=0``) or in one (``tiny_towns/mcts_200it=100``).
Games run in ``--workers`` processes.  The report (markdown, with the game count of every cell and the command that
made it) goes to ``--out``.  Time-budgeted MCTS depends on the machine's speed and load,
so its figures are not exactly reproducible.

Between Two Cities plays each seed once for all five levels where it can (:func:`play_levels`):
the level only adds a constant to the Deep Learning City's final score, so an agent's
moves depend on it only once its look-ahead reaches the end of the game (greedy: the last
decision, which is forced; MCTS: the first search with an iteration that finishes the
game).  Up to that decision the game is played once; from it, each level finishes the game
on its own copy (replaying the shared moves at that level, with a copy of the agent).  A
trained policy observes the level, and the learned search (``az``) values a finished game by
whether it was won, so both play every level from the start.
"""
from __future__ import annotations

import json
import math
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from agents.players.mcts import MCTSAgent
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
    # Between Two Cities' solo search: about 0.3 and 1.5 CPU seconds a move on a loaded
    # machine (its last moves, whose playouts reach the end sooner, cost far less than its first)
    "mcts_800it": ("mcts", {"simulations": 800}),
    "mcts_4000it": ("mcts", {"simulations": 4000}),
    # the learned search with the game's shipped (two-seat) network at its default budget
    # (under 1 s a move here; agents.players.az.DEFAULT_SIMULATIONS), and its raw policy
    "az": ("az", {}),
    "az_policy": ("az_policy", {}),
}
SLOW_AGENTS = ("mcts_1s", "mcts_200it", "mcts_400it", "mcts_4000it", "az")
# Agents whose every move may depend on the level: a trained policy observes it, and the
# learned search values a finished game by whether it was won from its first move on.
SEES_LEVEL = ("policy", "az", "az_policy")
# Modes whose option sets differ only in a level that adds a constant to an automaton's final
# score: one job per seed plays every level (play_levels).
LEVEL_OPTION = {"between_two_cities": "difficulty"}




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


class _EndWatch:
    """The raw env as :meth:`agents.players.mcts.MCTSAgent.search` sees it, noting whether any
    iteration played a determinization to the end of the game (``saw_end``): the search
    mutates the copy ``determinize`` hands it, so the previous copy is checked whenever a
    new one is asked for, and once more by :meth:`check` after the search."""

    def __init__(self, raw):
        self._raw = raw
        self._current_player = raw.spec.kernel.current_player
        self._last = None
        self.saw_end = False

    def __getattr__(self, name):
        return getattr(self._raw, name)

    def check(self):
        if self._last is not None and self._current_player(self._last.kernel_state) < 0:
            self.saw_end = True

    def determinize(self, agent, seed):
        self.check()
        self._last = self._raw.determinize(agent, seed)
        return self._last


class _EndWatchingMCTS(MCTSAgent):
    """MCTS noting in ``saw_end`` whether its last search reached the end of the game in
    some iteration (the search itself is :class:`agents.players.mcts.MCTSAgent`'s)."""

    saw_end = False

    def search(self, raw, agent):
        watch = _EndWatch(raw)
        stats = super().search(watch, agent)
        watch.check()
        self.saw_end = watch.saw_end
        return stats


def _next_move_ends(env):
    """Whether the decision now to be taken ends the game (its first legal action does)."""
    raw = env.unwrapped
    probe = raw.clone()
    probe.step(int(raw.legal_actions()[0]))
    return all(probe.terminations.values())


def play_levels(job):
    """Play one seed at every level of ``job["levels"]`` (the option ``job["level_option"]``);
    returns one :func:`play_one`-like result per level, each with ``shared_moves``: the
    moves played once for every level.

    A level adds a constant to an automaton's final score and changes nothing before the
    end, so an agent's choice depends on it only when it looks at a finished game.  The
    game is played once at the first level until the first decision at which the agent
    may: for MCTS, the first search in which an iteration reached the end (that search is
    thrown away); for other agents, the decision that ends the game (one-ply agents look
    one move ahead; in Between Two Cities that decision is forced).  A trained policy
    observes the level and shares nothing, nor does the learned search (:data:`SEES_LEVEL`).
    From there each level gets its own env (the same seed, the shared moves replayed) and
    its own copy of the agent as it stood before that decision, and finishes the game."""
    import copy

    import agents
    import envs
    game, options, key, seed = job["game"], job["options"], job["level_option"], job["seed"]

    def fresh(level):
        env = envs.make(game, **options, **{key: level})
        env.reset(seed=seed)
        return env

    watched = job["name"] == "mcts"
    bot = (_EndWatchingMCTS if watched else partial(agents.make, job["name"]))(
        seed=seed, **job["agent_options"])
    env = fresh(job["levels"][0])
    warm_up = getattr(bot, "warm_up", None)
    if warm_up is not None:
        warm_up(env)
    shared, think, think_cpu = [], 0.0, 0.0
    if job["name"] not in SEES_LEVEL:
        while True:
            who = env.agent_selection
            if env.terminations[who] or env.truncations[who] or (not watched and _next_move_ends(env)):
                break
            before = copy.deepcopy(bot)
            if watched:
                bot.saw_end = False
            t0, c0 = time.perf_counter(), time.process_time()
            action = int(bot.act(env, who))
            seconds, cpu_seconds = time.perf_counter() - t0, time.process_time() - c0
            if watched and bot.saw_end:
                bot = before
                break
            shared.append(action)
            think += seconds
            think_cpu += cpu_seconds
            env.step(action)
    results = []
    for level in job["levels"]:
        env = fresh(level)
        for action in shared:
            env.step(action)
        player = copy.deepcopy(bot)
        moves, seconds, cpu_seconds = len(shared), think, think_cpu
        while True:
            who = env.agent_selection
            if env.terminations[who] or env.truncations[who]:
                break
            t0, c0 = time.perf_counter(), time.process_time()
            action = int(player.act(env, who))
            seconds += time.perf_counter() - t0
            cpu_seconds += time.process_time() - c0
            moves += 1
            env.step(action)
        record = SimpleNamespace(info=dict(env.infos[who]))
        results.append({**job, "options": {**options, key: level}, **solo_outcome(env, record),
                        "seconds_per_move": seconds / max(moves, 1),
                        "cpu_seconds_per_move": cpu_seconds / max(moves, 1), "moves": moves,
                        "shared_moves": len(shared),
                        "simulations": getattr(player, "total_simulations", None)})
    return results


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


def check_agent_options(agent_options, labels, modes):
    """``ValueError`` naming the problem unless ``agent_options`` maps labels of ``labels``
    to objects of options that each label's agent accepts in every mode of ``modes`` (the
    agent is built once per mode's game, so nothing runs with a bad option)."""
    import agents
    import envs

    for label, options in agent_options.items():
        if label not in labels:
            raise ValueError(f"--agent-options: {label!r} is not one of --agents {labels}")
        if not isinstance(options, dict):
            raise ValueError(f"--agent-options: {label!r} needs an object of options, got {options!r}")
        name, own = AGENTS[label]
        for mode in modes:
            game, base, option_sets = MODES[mode]
            try:
                bot = agents.make(name, seed=0, **{**own, **options})
                bind = getattr(bot, "bind", None)
                if bind is not None:
                    bind(envs.make(game, **base, **option_sets[0]))
            except (TypeError, ValueError) as exc:
                raise ValueError(f"--agent-options: {label!r} in {mode}: {exc}") from None


def make_jobs(modes, labels, games, slow_games, seed, policies, games_of=None, agent_options=None):
    """One job per game: every agent in ``labels`` (and a ``policies`` entry) plays
    ``games`` games per option set of every mode (``slow_games`` for the slow agents),
    unless ``games_of`` (:func:`parse_games_of`) names its mode and label or its label.
    ``agent_options``: ``{label: options}`` laid over :data:`AGENTS`' options of a label."""
    games_of = games_of or {}
    agent_options = agent_options or {}
    jobs = []
    for mode in modes:
        game, base, option_sets = MODES[mode]
        cells = [(label, AGENTS[label][0], {**AGENTS[label][1], **agent_options.get(label, {})})
                 for label in labels]
        if game in policies:
            cells.append(("policy", "policy", {"path": policies[game]}))
        for label, name, agent_options in cells:
            n = slow_games if label in SLOW_AGENTS else games
            n = games_of.get((mode, label), games_of.get((None, label), n))
            if mode in LEVEL_OPTION:
                levels = [extra[LEVEL_OPTION[mode]] for extra in option_sets]
                for i in range(n):
                    jobs.append({"mode": mode, "game": game, "options": dict(base),
                                 "level_option": LEVEL_OPTION[mode], "levels": levels,
                                 "label": label, "name": name, "agent_options": agent_options,
                                 "seed": seed + i})
                continue
            for extra in option_sets:
                for i in range(n):
                    jobs.append({"mode": mode, "game": game, "options": {**base, **extra},
                                 "label": label, "name": name, "agent_options": agent_options,
                                 "seed": seed + i})
    # the slow games first, so that the workers finish together
    jobs.sort(key=lambda j: j["label"] not in SLOW_AGENTS)
    return jobs


def _play(job):
    """The results of one job: one game, or one per level (:func:`play_levels`)."""
    return play_levels(job) if "levels" in job else [play_one(job)]


def _job_key(job):
    """What identifies a job's results in a ``--results`` file (the agent's options only where
    they differ from :data:`AGENTS`', so files written before ``--agent-options`` still resume)."""
    key = [job["mode"], job["label"], job["seed"], job["options"]]
    if job["label"] in AGENTS and job["agent_options"] != AGENTS[job["label"]][1]:
        key.append(job["agent_options"])
    return json.dumps(key, sort_keys=True)


def run(jobs, workers, results_path=None):
    """Play ``jobs`` in ``workers`` processes and return their results.  With ``results_path``
    (JSON lines) each job's results are appended as soon as it finishes, and jobs whose
    results the file already holds are not played again: a long run can be stopped and
    resumed with the same command."""
    done, kept = {}, []
    if results_path is not None and Path(results_path).exists():
        for line in Path(results_path).read_text().splitlines():
            if line.strip():
                entry = json.loads(line)
                done[entry["key"]] = entry["results"]
    todo = [j for j in jobs if _job_key(j) not in done]
    kept = [r for j in jobs if _job_key(j) in done for r in done[_job_key(j)]]
    sink = open(results_path, "a") if results_path is not None else None
    try:
        def finished(job, rs):
            if sink is not None:
                sink.write(json.dumps({"key": _job_key(job), "results": rs}, default=_plain) + "\n")
                sink.flush()
            return rs
        if workers <= 1:
            return kept + [r for j in todo for r in finished(j, _play(j))]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            return kept + [r for j, rs in zip(todo, pool.map(_play, todo, chunksize=1))
                           for r in finished(j, rs)]
    finally:
        if sink is not None:
            sink.close()


def _plain(value):
    """numpy scalars and arrays as JSON."""
    return value.tolist() if hasattr(value, "tolist") else str(value)


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
    adjust = _difficulty_adjustment()

    def level(r):
        return r["options"].get("difficulty", adjust["default"])

    def unadjusted(r):   # the Deep Learning City's score before the difficulty adjustment
        return r["deep_learning_city"] - adjust[level(r)]

    def break_even(rows):
        return float(np.median([r["score"] - unadjusted(r) for r in rows]))

    lines = ["Levels 1-5 add " + ", ".join(f"{adjust[d]:+d}" for d in range(1, 6))
             + " points to the Deep Learning City's final score.  Each automaton scores the lower "
             "of the city it shares with the seat and the Deep Learning City, so the seat wins "
             "only with both of its cities at or above the Deep Learning City (a tie goes to the "
             "tie-breaks).  A game's *margin* is the seat's score minus the Deep Learning City's "
             "unadjusted score: the seat wins when the level's adjustment is below it.  The "
             "*break-even adjustment* is the median margin, the adjustment at which the agent "
             "would win half of its games.", "",
             "Games won (a first place shared with an automaton counts as won) and, below, the "
             "seat's mean score vs the Deep Learning City's mean final score:", "",
             "| agent | " + " | ".join(f"level {d} ({adjust[d]:+d})" for d in range(1, 6)) + " |",
             "| --- | " + " | ".join("---:" for _ in range(5)) + " |"]
    labels = _labels(results)
    for label in labels:
        cells = []
        for d in range(1, 6):
            rows = [r for r in results if r["label"] == label and level(r) == d]
            if not rows:
                cells.append("--")
                continue
            own = np.mean([r["score"] for r in rows])
            city = np.mean([r["deep_learning_city"] for r in rows])
            cells.append(f"{_rate(sum(r['won'] for r in rows), len(rows))}<br>{own:.1f} vs {city:.1f}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    lines += ["", "How far each agent is from winning half of its games at each level: its "
              "break-even adjustment over that level's games minus the level's adjustment "
              "(positive: points to spare; negative: points missing).  `shared` is the mean "
              "number of moves per seed played once for every level (see `play_levels`).", "",
              "| agent | seeds | shared | Deep Learning City unadjusted: mean | seat: mean "
              "| break-even adjustment | " + " | ".join(f"level {d}" for d in range(1, 6)) + " |",
              "| --- | ---: | ---: | ---: | ---: | ---: | " + " | ".join("---:" for _ in range(5)) + " |"]
    for label in labels:
        rows = [r for r in results if r["label"] == label and r["deep_learning_city"] is not None]
        if not rows:
            continue
        gaps = []
        for d in range(1, 6):
            at = [r for r in rows if level(r) == d]
            gaps.append(f"{break_even(at) - adjust[d]:+.1f}" if at else "--")
        shared = [r["shared_moves"] for r in rows if "shared_moves" in r]
        lines.append(f"| {label} | {len({r['seed'] for r in rows})} | "
                     f"{np.mean(shared) if shared else 0:.1f} | "
                     f"{np.mean([unadjusted(r) for r in rows]):.1f} | "
                     f"{np.mean([r['score'] for r in rows]):.1f} | {break_even(rows):+.1f} | "
                     + " | ".join(gaps) + " |")
    searched = [(label, [r for r in results if r["label"] == label and r.get("simulations")])
                for label in labels]
    searched = [(label, rows) for label, rows in searched if rows]
    if searched:
        lines += ["", "MCTS per move (mean over each game's moves, forced moves included): "
                  + "; ".join(f"{label} {np.mean([r['simulations'] / r['moves'] for r in rows]):.0f} "
                              f"iterations, {np.mean([r['cpu_seconds_per_move'] for r in rows]):.3f} "
                              "CPU seconds" for label, rows in searched)
                  + " (CPU time does not depend on the machine's load; the thinking-time table "
                  "below is wall time)."]
    return lines


def _difficulty_adjustment():
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
    from envs import cli

    p = cli.ArgumentParser(prog="python -m benchmarks.solo", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=cli.positive_int, default=20, help="games per cell (default 20)")
    p.add_argument("--slow-games", type=cli.non_negative_int, default=5,
                   help=f"games per cell for {', '.join(SLOW_AGENTS)} (default 5)")
    p.add_argument("--games-of", nargs="+", default=[], metavar="[MODE/]LABEL=N",
                   help="games per cell of one agent, in every mode or in one (0: not played)")
    p.add_argument("--workers", type=cli.positive_int, default=2)
    p.add_argument("--seed", type=int, default=500, help="seed of the first game (default 500)")
    p.add_argument("--mode", nargs="+", choices=list(MODES), default=list(MODES))
    p.add_argument("--agents", nargs="+", choices=list(AGENTS), default=list(AGENTS))
    p.add_argument("--agent-options", type=cli.json_object, default={}, metavar="JSON",
                   help='options laid over an agent\'s own, by label: \'{"az": {"simulations": 100, '
                        '"search_options": {"playout_depth": 16}}}\' (each label one of --agents)')
    p.add_argument("--policy", action="append", default=[], metavar="GAME=PATH",
                   help="a policy saved by train.py, played as agent 'policy' in GAME's solo mode")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument("--results", type=Path, default=None, metavar="FILE.jsonl",
                   help="append each game's results to this file as it finishes, and skip the games "
                        "it already holds (stop and resume a long run with the same command)")
    return p


def main(argv=None):
    from envs.cli import fail

    parser = build_parser()
    args = parser.parse_args(argv)
    policies = {}
    for item in args.policy:
        game, sep, path = item.partition("=")
        if not sep or game not in {g for g, _, _ in MODES.values()}:
            fail(f"--policy expects GAME=PATH with GAME a solo game id, got {item!r}", parser.prog)
        if not os.path.exists(path):
            fail(f"--policy {item!r}: no such file or run directory", parser.prog)
        policies[game] = path
    try:
        games_of = parse_games_of(args.games_of, list(MODES), list(AGENTS) + ["policy"])
        check_agent_options(args.agent_options, args.agents, args.mode)
    except ValueError as exc:
        fail(exc, parser.prog)
    jobs = make_jobs(args.mode, args.agents, args.games, args.slow_games, args.seed, policies, games_of,
                     args.agent_options)
    start = time.time()
    results = run(jobs, args.workers, args.results)
    command = "python -m benchmarks.solo " + " ".join(sys.argv[1:] if argv is None else argv)
    text = report(results, command.strip(), time.time() - start, args.seed, policies)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(text)


if __name__ == "__main__":
    main()
