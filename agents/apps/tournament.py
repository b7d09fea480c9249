"""Self-play tournaments between agents, with seat rotation, ratings and a results table.

    python -m agents.tournament --game kingdomino_duel_v0 --agents random greedy mcts \\
        [--num-players N] [--games G] [--workers W] [--seed S] [--backend process|ray] \\
        [--out DIR] [--agent-options JSON] [--env-options JSON] [--no-progress] \\
        [--save-games DIR] [--trust-pickle]

Tables
    With ``N`` seats and ``K`` listed agents, every combination of ``N`` distinct agents
    sits at one table: for two seats that is a round robin over the agent pairs; for 3+
    seats, free-for-all tables.  With fewer agents than seats (``K < N``) the one table
    repeats the list to fill the seats (``random greedy`` at 4 seats plays
    random/greedy/random/greedy).  ``--games G`` is the number of games *per table*,
    rounded up to a multiple of ``N``: game ``g`` of a table rotates the line-up by
    ``g mod N`` seats, so every agent plays every seat equally often.
Agents
    Names known to :func:`agents.make` (``random``, ``greedy``, ``mcts``, ...).  A token
    ``LABEL=NAME`` enters agent ``NAME`` under the label ``LABEL`` (to compare settings:
    ``--agents mcts mcts_fast=mcts --agent-options '{"mcts_fast": {"simulations": 50}}'``).
    ``--agent-options`` maps a label to the keyword options of its constructor.
    ``policy`` agents load their files without unpickling (docs/security.md);
    ``--trust-pickle`` lets them unpickle files you trust that have no ``policy.json``.
Reproducibility
    Game ``i`` of the schedule draws its environment seed and one seed per seat from
    ``numpy.random.SeedSequence([seed, i])``; agents are built fresh for every game.  The
    results are therefore the same for any ``--workers`` and backend (time-budgeted
    agents such as ``MCTSAgent(seconds=...)`` excepted).
Results
    Per agent (label): games played, win rate with a 95 % Wilson interval (a win shared
    by ``k`` winners counts ``1/k``), mean final score, mean rank, and an openskill
    Plackett-Luce rating (mu, sigma, ordinal = mu - 3 sigma) fed with every game's ranks
    (ties included) in schedule order.  Also a head-to-head matrix: how often the row
    agent finished ahead of the column agent when both sat at a table (ties count 1/2).
    Printed as a table and written to ``--out`` as ``results.json``, ``agents.csv``,
    ``games.csv``, ``head_to_head.csv``, ``table.md`` and ``ratings.png``.
Records
    ``--save-games DIR`` also writes every game as a record (:mod:`envs.records`) into
    ``DIR``: ``<index>-<game>-seed<env seed>-<seat labels in seat order>.json``, which
    ``envs.records.replay`` plays back and ``python -m envs.view`` shows.
"""
from __future__ import annotations

import csv
import itertools
import json
import math
import os
import re
import sys
import time
from pathlib import Path

import numpy as np

from agents.rating.elo import wilson_interval

_MASK63 = (1 << 63) - 1


# --------------------------------------------------------------------- schedule
def parse_agents(tokens):
    """``["random", "fast=mcts"]`` -> ``[("random", "random"), ("fast", "mcts")]`` (label, name)."""
    out = []
    for tok in tokens:
        label, _, name = tok.partition("=") if "=" in tok else (tok, "", tok)
        label, name = label.strip(), name.strip()
        if not label or not name:
            raise ValueError(f"bad agent token {tok!r}; use NAME or LABEL=NAME")
        out.append((label, name))
    labels = [lab for lab, _ in out]
    if len(set(labels)) != len(labels):
        raise ValueError(f"agent labels must be distinct, got {labels}; use LABEL=NAME to enter "
                         "one agent twice")
    return out


def tables_for(num_agents, num_players):
    """Line-ups (tuples of agent indices, one per seat before rotation)."""
    if num_agents < 1:
        raise ValueError("need at least one agent")
    if num_agents >= num_players:
        return list(itertools.combinations(range(num_agents), num_players))
    return [tuple(i % num_agents for i in range(num_players))]


def game_seeds(seed, index, num_players):
    """(env seed, [agent seed per seat]) of game ``index`` of a tournament seeded ``seed``."""
    words = np.random.SeedSequence([int(seed) & _MASK63, int(index)]).generate_state(
        2 * (num_players + 1), dtype=np.uint32)
    vals = [(int(words[2 * i]) << 32 | int(words[2 * i + 1])) & _MASK63
            for i in range(num_players + 1)]
    return vals[0], vals[1:]


def make_schedule(game, agent_specs, num_players, games_per_table, seed=0, env_options=None,
                  agent_options=None):
    """Every game of the tournament as a picklable job dict, in schedule order."""
    agent_specs = [tuple(a) for a in agent_specs]
    agent_options = dict(agent_options or {})
    unknown = set(agent_options) - {lab for lab, _ in agent_specs}
    if unknown:
        raise ValueError(f"--agent-options names unknown agent label(s) {sorted(unknown)}")
    per_table = int(math.ceil(max(1, int(games_per_table)) / num_players) * num_players)
    jobs = []
    for t, lineup in enumerate(tables_for(len(agent_specs), num_players)):
        for g in range(per_table):
            rot = g % num_players
            seats = [lineup[(s + rot) % num_players] for s in range(num_players)]
            index = len(jobs)
            env_seed, seat_seeds = game_seeds(seed, index, num_players)
            jobs.append({
                "index": index, "table": t, "rotation": rot, "game": game,
                "num_players": num_players, "env_options": dict(env_options or {}),
                "seats": [agent_specs[i][0] for i in seats],
                "names": [agent_specs[i][1] for i in seats],
                "options": [agent_options.get(agent_specs[i][0], {}) for i in seats],
                "env_seed": env_seed, "agent_seeds": seat_seeds,
            })
    return jobs, per_table


# ------------------------------------------------------------------------- play
_ENV_CACHE = {}


def _env_for(game, num_players, env_options):
    import envs

    key = (game, num_players, json.dumps(env_options, sort_keys=True))
    env = _ENV_CACHE.get(key)
    if env is None:
        env = _ENV_CACHE[key] = envs.make(game, num_players=num_players, **env_options)
    return env


def _build_agent(name, seed, options):
    import agents

    return agents.make(name, **{"seed": seed, **options})   # an explicit seed option wins


def play_job(job):
    """Play one scheduled game; return its result (a plain dict).  Top-level, so that
    spawned processes and ray workers can import it.  An agent's error is raised as an
    :class:`agents.cli.AgentFailure` that names the agent's label and the game."""
    from agents.cli import AgentFailure, build_blamed
    from agents.loop import play_game

    env = _env_for(job["game"], job["num_players"], job["env_options"])
    where = f"game {job['index']}"
    bots = [build_blamed(label, where, lambda n=n, s=s, o=o: _build_agent(n, s, o))
            for label, n, s, o in zip(job["seats"], job["names"], job["agent_seeds"], job["options"])]
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    game_record = None
    if job.get("save_games"):
        from envs import records

        game_record = records.new_record(job["game"], {"num_players": job["num_players"],
                                                       **job["env_options"]},
                                         seed=job["env_seed"], players=list(job["seats"]))
    try:
        record = play_game(env, bots, seed=job["env_seed"], record=game_record)
    except AgentFailure:
        raise                      # already names the agent and the game
    except RuntimeError as exc:
        raise RuntimeError(f"game {job['index']}: {exc}") from exc
    n = job["num_players"]
    final = record.info
    scores = [int(x) for x in final.get("scores", [0] * n)]
    ranks = [int(x) for x in final.get("ranks", [1] * n)]
    winners = [seat_of[w] for w in final.get("winners", [])]
    result = {
        "index": job["index"], "table": job["table"], "rotation": job["rotation"],
        "seats": list(job["seats"]), "scores": scores, "ranks": ranks, "winners": winners,
        "moves": record.moves, "think_seconds": [round(t, 6) for t in record.think_seconds],
        "seconds": round(record.seconds, 6),
        "env_seed": job["env_seed"], "agent_seeds": list(job["agent_seeds"]),
    }
    if game_record is not None:
        from envs import records

        path = Path(job["save_games"]) / record_file_name(job)
        records.save(game_record, path)
        result["record"] = path.name
    return result


def record_file_name(job):
    """``0007-tiny_towns_v0-seed123-greedy-random.json``: schedule index, game, environment
    seed and the seat labels in seat order (characters unsafe in file names become ``_``)."""
    seats = "-".join(re.sub(r"[^A-Za-z0-9_.]", "_", label) for label in job["seats"])
    return f"{job['index']:04d}-{job['game']}-seed{job['env_seed']}-{seats}.json"


def run_jobs(jobs, workers=1, backend="process", progress=True, desc="games"):
    """Play ``jobs``; results sorted by game index (independent of workers and backend)."""
    from agents.runner import Runner, progress_bar

    bar = progress_bar(len(jobs), desc, progress)
    try:
        with Runner(workers=max(1, min(int(workers), len(jobs) or 1)), backend=backend) as runner:
            results = runner.map(play_job, jobs, bar)
    finally:
        bar.close()
    return sorted(results, key=lambda r: r["index"])


# ---------------------------------------------------------------------- results
def summarize(results, labels):
    """Per-agent statistics, openskill ratings and head-to-head matrix from game results."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {lab: model.rating(name=lab) for lab in labels}
    stats = {lab: {"games": 0, "wins": 0.0, "score_sum": 0.0, "rank_sum": 0.0,
                   "seat_counts": {}} for lab in labels}
    h2h = {a: {b: [0.0, 0] for b in labels} for a in labels}
    for res in results:               # schedule order: ratings do not depend on workers
        seats, ranks, scores, winners = res["seats"], res["ranks"], res["scores"], res["winners"]
        for s, lab in enumerate(seats):
            st = stats[lab]
            st["games"] += 1
            st["score_sum"] += scores[s]
            st["rank_sum"] += ranks[s]
            st["seat_counts"][s] = st["seat_counts"].get(s, 0) + 1
            if s in winners:
                st["wins"] += 1.0 / len(winners)
        for i, j in itertools.permutations(range(len(seats)), 2):
            a, b = seats[i], seats[j]
            if a == b:
                continue
            cell = h2h[a][b]
            cell[1] += 1
            cell[0] += 1.0 if ranks[i] < ranks[j] else (0.5 if ranks[i] == ranks[j] else 0.0)
        if len(seats) > 1:
            teams = [[ratings[lab]] for lab in seats]
            new = model.rate(teams, ranks=[float(r) for r in ranks])
            updated = {}
            for lab, team in zip(seats, new):
                updated.setdefault(lab, []).append(team[0])
            for lab, rs in updated.items():   # a label seated twice: average its updates
                if len(rs) == 1:
                    ratings[lab] = rs[0]
                else:
                    ratings[lab] = model.rating(mu=float(np.mean([r.mu for r in rs])),
                                                sigma=float(np.mean([r.sigma for r in rs])),
                                                name=lab)
    rows = []
    for lab in labels:
        st = stats[lab]
        n = st["games"]
        lo, hi = wilson_interval(st["wins"], n)
        r = ratings[lab]
        rows.append({
            "agent": lab, "games": n, "wins": round(st["wins"], 4),
            "win_rate": st["wins"] / n if n else 0.0, "win_lo": lo, "win_hi": hi,
            "mean_score": st["score_sum"] / n if n else 0.0,
            "mean_rank": st["rank_sum"] / n if n else 0.0,
            "mu": float(r.mu), "sigma": float(r.sigma), "ordinal": float(r.ordinal()),
            "seat_counts": {str(k): v for k, v in sorted(st["seat_counts"].items())},
        })
    head = {a: {b: (h2h[a][b][0] / h2h[a][b][1] if h2h[a][b][1] else None) for b in labels}
            for a in labels}
    head_n = {a: {b: h2h[a][b][1] for b in labels} for a in labels}
    return rows, head, head_n


def run_tournament(game, agents, num_players=None, games=10, workers=1, seed=0,
                   backend="process", env_options=None, agent_options=None, progress=True,
                   save_games=None):
    """Run a tournament and return its results as a JSON-ready dict (see module docstring).

    ``agents``: tokens ``NAME`` or ``LABEL=NAME``.  ``games``: games per table.
    ``save_games``: a directory to write every game's record into (see module docstring)."""
    import envs

    env_options = dict(env_options or {})
    if "num_players" in env_options:
        opt = env_options.pop("num_players")
        num_players = opt if num_players is None else num_players
    if num_players is None:
        num_players = envs.make(game, **env_options).cfg.num_players
    specs = parse_agents(agents)
    jobs, per_table = make_schedule(game, specs, int(num_players), games, seed, env_options,
                                    agent_options)
    if save_games is not None:
        Path(save_games).mkdir(parents=True, exist_ok=True)
        for job in jobs:
            job["save_games"] = str(Path(save_games).resolve())
    start = time.perf_counter()
    results = run_jobs(jobs, workers=workers, backend=backend, progress=progress, desc=game)
    elapsed = time.perf_counter() - start
    labels = [lab for lab, _ in specs]
    rows, head, head_n = summarize(results, labels)
    think = {lab: [0.0, 0] for lab in labels}
    for res in results:
        for lab, t, m in zip(res["seats"], res["think_seconds"], res["moves"]):
            think[lab][0] += t
            think[lab][1] += m
    for row in rows:
        t, m = think[row["agent"]]
        row["seconds_per_move"] = t / m if m else 0.0
    return {
        "game": game, "num_players": int(num_players), "seed": int(seed),
        "games_per_table": per_table, "tables": len(jobs) // per_table if per_table else 0,
        "games": len(results), "workers": int(workers), "backend": backend,
        "env_options": env_options, "agents": [{"label": lab, "name": name,
                                                "options": (agent_options or {}).get(lab, {})}
                                               for lab, name in specs],
        "elapsed_seconds": elapsed, "summary": rows, "head_to_head": head,
        "head_to_head_games": head_n, "results": results,
    }


# ---------------------------------------------------------------------- output
_COLUMNS = [("agent", "agent", "{}"), ("games", "games", "{}"),
            ("win rate [95% CI]", None, None), ("mean score", "mean_score", "{:.2f}"),
            ("mean rank", "mean_rank", "{:.2f}"), ("mu", "mu", "{:.2f}"),
            ("sigma", "sigma", "{:.2f}"), ("ordinal", "ordinal", "{:.2f}"),
            ("s/move", "seconds_per_move", "{:.4f}")]


def _cells(row):
    out = []
    for _, key, fmt in _COLUMNS:
        if key is None:
            out.append(f"{row['win_rate']:.3f} [{row['win_lo']:.3f}, {row['win_hi']:.3f}]")
        else:
            out.append(fmt.format(row[key]))
    return out


def _sorted_rows(result):
    return sorted(result["summary"], key=lambda r: -r["ordinal"])


def format_table(result):
    """The results table as aligned plain text."""
    header = [c for c, _, _ in _COLUMNS]
    body = [_cells(r) for r in _sorted_rows(result)]
    widths = [max(len(x) for x in col) for col in zip(header, *body)]
    line = lambda cells: "  ".join(c.ljust(w) if i == 0 else c.rjust(w)  # noqa: E731
                                   for i, (c, w) in enumerate(zip(cells, widths)))
    title = (f"{result['game']}: {result['games']} games, {result['num_players']} seats, "
             f"{result['tables']} table(s) x {result['games_per_table']} games, seed {result['seed']}")
    out = [title, line(header), line(["-" * w for w in widths])]
    out += [line(c) for c in body]
    labels = [r["agent"] for r in result["summary"]]
    if len(labels) > 1:
        out.append("")
        out.append("head to head (row finished ahead of column; ties 1/2):")
        w = max(len(x) for x in labels + ["vs"])
        out.append(" " * w + "  " + "  ".join(lab.rjust(max(6, len(lab))) for lab in labels))
        for a in labels:
            cells = []
            for b in labels:
                v = result["head_to_head"][a][b]
                cells.append(("-" if v is None else f"{v:.3f}").rjust(max(6, len(b))))
            out.append(a.ljust(w) + "  " + "  ".join(cells))
    return "\n".join(out)


def format_markdown(result):
    """The results table (and head-to-head matrix) as markdown."""
    header = [c for c, _, _ in _COLUMNS]
    out = [f"### {result['game']}", "",
           f"{result['games']} games, {result['num_players']} seats, {result['tables']} table(s) x "
           f"{result['games_per_table']} games (seats rotated), seed {result['seed']}.", "",
           "| " + " | ".join(header) + " |", "|" + "|".join(["---"] * len(header)) + "|"]
    out += ["| " + " | ".join(_cells(r)) + " |" for r in _sorted_rows(result)]
    labels = [r["agent"] for r in result["summary"]]
    if len(labels) > 1:
        out += ["", "Head to head: how often the row agent finished ahead of the column agent "
                "(ties count 1/2; games in parentheses).", "",
                "| | " + " | ".join(labels) + " |", "|" + "|".join(["---"] * (len(labels) + 1)) + "|"]
        for a in labels:
            cells = []
            for b in labels:
                v = result["head_to_head"][a][b]
                n = result["head_to_head_games"][a][b]
                cells.append("-" if v is None else f"{v:.3f} ({n})")
            out.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def plot_results(result, path):
    """Bar chart: win rate with 95 % Wilson interval and openskill ordinal per agent."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = _sorted_rows(result)
    labels = [r["agent"] for r in rows]
    x = np.arange(len(rows))
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(4 + 1.6 * len(rows), 3.6))
    rate = np.array([r["win_rate"] for r in rows])
    err = np.array([[r["win_rate"] - r["win_lo"] for r in rows],
                    [r["win_hi"] - r["win_rate"] for r in rows]]).clip(min=0.0)  # rounding at 0 and 1
    ax1.bar(x, rate, yerr=err, capsize=4, color="tab:blue")
    ax1.set_xticks(x, labels)
    ax1.set_ylim(0, 1)
    ax1.set_ylabel("win rate (95% Wilson CI)")
    ax1.axhline(1.0 / result["num_players"], color="grey", lw=0.8, ls="--")
    ordv = [r["ordinal"] for r in rows]
    ax2.bar(x, [r["mu"] for r in rows], yerr=[3 * r["sigma"] for r in rows], capsize=4,
            color="tab:orange", alpha=0.5, label="mu ± 3 sigma")
    ax2.plot(x, ordv, "kD", label="ordinal")
    ax2.set_xticks(x, labels)
    ax2.set_ylabel("openskill rating")
    ax2.legend(fontsize=8)
    fig.suptitle(f"{result['game']} ({result['games']} games, {result['num_players']} seats)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def write_outputs(result, out_dir):
    """Write results.json, agents.csv, games.csv, head_to_head.csv, table.md, ratings.png."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(result, indent=1))
    keys = ["agent", "games", "wins", "win_rate", "win_lo", "win_hi", "mean_score", "mean_rank",
            "mu", "sigma", "ordinal", "seconds_per_move"]
    with open(out / "agents.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(keys)
        for r in _sorted_rows(result):
            w.writerow([r[k] for k in keys])
    n = result["num_players"]
    with open(out / "games.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["index", "table", "rotation", "env_seed", "seconds"]
                   + [f"{c}_{s}" for c in ("agent", "score", "rank", "moves") for s in range(n)]
                   + ["winners"])
        for r in result["results"]:
            w.writerow([r["index"], r["table"], r["rotation"], r["env_seed"], r["seconds"]]
                       + r["seats"] + r["scores"] + r["ranks"] + r["moves"]
                       + [" ".join(str(s) for s in r["winners"])])
    labels = [r["agent"] for r in result["summary"]]
    with open(out / "head_to_head.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["row_ahead_of"] + labels)
        for a in labels:
            w.writerow([a] + ["" if result["head_to_head"][a][b] is None else result["head_to_head"][a][b]
                              for b in labels])
    (out / "table.md").write_text(format_markdown(result))
    plot_results(result, out / "ratings.png")
    return out


def ladder_ratings_text(result):
    """The agents' ratings on the game's stored ladder, as text (or why there are none)."""
    from agents.rating import ladder as ladders

    try:
        lad = ladders.load(result["game"])
        rated = ladders.rate_tournament(lad, result)
    except ValueError as exc:
        return f"ladder ratings: none ({exc})"
    lines = [f"ratings on ladder {lad.spec.name} v{lad.spec.version} (greedy = "
             f"{ladders.ANCHOR_RATING:.0f}; rungs keep their published ratings):"]
    for lab, r in sorted(rated.items(), key=lambda kv: -kv[1]["rating"]):
        extra = "  (rung)" if r["rung"] else f"  ± {r['halfwidth']:.0f}"
        lines.append(f"  {lab:<16}{r['rating']:>7.0f}{extra}")
    return "\n".join(lines)


# ------------------------------------------------------------------------- CLI
def build_parser():
    from envs import cli

    parts = __doc__.split("\n\n")
    p = cli.ArgumentParser(prog="python -m agents.tournament", description=parts[0],
                           epilog="\n\n".join(parts[2:]))
    p.add_argument("--game", required=True, type=cli.game_id, help="game id (see envs.GAMES)")
    p.add_argument("--agents", nargs="+", default=["random", "greedy", "mcts"],
                   help="agents: NAME or LABEL=NAME (default: random greedy mcts)")
    p.add_argument("--num-players", type=cli.positive_int, default=None,
                   help="seats (default: the game's default)")
    p.add_argument("--games", type=cli.positive_int, default=10,
                   help="games per table (pairing), rounded up to a multiple of the seats (default 10)")
    p.add_argument("--workers", type=cli.positive_int, default=os.cpu_count() or 1,
                   help="parallel workers (default: CPU count); 1 plays in this process")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--backend", choices=["process", "ray"], default="process")
    p.add_argument("--out", default=None, help="output directory (default runs/tournament/GAME)")
    p.add_argument("--agent-options", type=cli.json_object, default={},
                   help='JSON: label -> constructor options, e.g. \'{"mcts": {"simulations": 200}}\'')
    p.add_argument("--env-options", type=cli.json_object, default={},
                   help="JSON: game options (variants)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--ladder-ratings", action="store_true",
                   help="also print every agent's rating on the game's anchored ladder (two seats; "
                        "agents that are ladder rungs anchor it; docs/ratings.md)")
    p.add_argument("--save-games", metavar="DIR", default=None,
                   help="also write every game's record (JSON, see envs.records) into DIR")
    p.add_argument("--trust-pickle", action="store_true",
                   help="let policy agents load files that need unpickling (SB3 zips without "
                        "their policy.json): only for files you trust, as unpickling runs code")
    return p


def check_arguments(args, prog="python -m agents.tournament"):
    """Everything the command line says, checked before any game: the game's options and
    player count, the agent names, labels and options (each agent is built once).  Returns
    ``(env_options, agent_options, num_players, specs)``; a refusal exits (one line, 2)."""
    from agents import cli as agent_cli
    from envs import cli

    env_options = dict(args.env_options)
    num_players = args.num_players
    if num_players is None:
        num_players = env_options.get("num_players")
    game_options = dict(env_options, **({} if num_players is None else {"num_players": num_players}))
    cfg = cli.check_game_options(args.game, game_options, prog)
    try:
        specs = parse_agents(args.agents)
    except ValueError as exc:
        cli.fail(f"--agents: {exc}", prog)
    agent_cli.check_agent_names([name for _, name in specs], prog)
    agent_options = dict(args.agent_options)
    if args.trust_pickle:
        agent_options = trusting_pickle(agent_options, args.agents)
    unknown = sorted(set(agent_options) - {label for label, _ in specs})
    if unknown:
        cli.fail(f"--agent-options names unknown agent label(s) {unknown}; the labels are "
                 f"{[label for label, _ in specs]}", prog)
    agent_cli.check_agents_build([(label, name, agent_options.get(label, {}))
                                  for label, name in specs], prog)
    return env_options, agent_options, cfg.num_players, specs


def trusting_pickle(agent_options, agent_tokens):
    """``agent_options`` with ``trust_pickle=True`` for every label that enters the
    ``policy`` agent (``--trust-pickle``); an explicit ``trust_pickle`` option is kept."""
    out = {k: dict(v) if isinstance(v, dict) else v for k, v in agent_options.items()}
    for label, name in parse_agents(agent_tokens):
        if name == "policy":
            out[label] = {"trust_pickle": True, **out.get(label, {})}
    return out


def main(argv=None):
    from envs import cli

    prog = "python -m agents.tournament"
    args = build_parser().parse_args(argv)
    # Use the importable module's functions (not __main__'s) so spawned workers find them.
    from agents import cli as agent_cli
    from agents.apps import tournament as mod

    env_options, agent_options, num_players, specs = mod.check_arguments(args, prog)
    workers = args.workers
    agent_cli.say(agent_cli.compile_notice([name for _, name in specs], args.game, workers))
    try:
        result = mod.run_tournament(args.game, args.agents, num_players=num_players,
                                    games=args.games, workers=workers, seed=args.seed,
                                    backend=args.backend, env_options=env_options,
                                    agent_options=agent_options, progress=not args.no_progress,
                                    save_games=args.save_games)
    except agent_cli.AgentFailure as exc:
        cli.fail(exc, prog, status=1)
    print(mod.format_table(result))
    if args.ladder_ratings:
        print("\n" + ladder_ratings_text(result))
    out = mod.write_outputs(result, args.out or Path("runs") / "tournament" / args.game)
    print(f"\n{result['games']} games in {result['elapsed_seconds']:.1f} s; results in {out}/")
    if args.save_games:
        print(f"game records in {args.save_games}/")
    return result


if __name__ == "__main__":
    main()
