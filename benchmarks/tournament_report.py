"""Baseline tournaments on every game: random vs greedy vs mcts, tables, charts, MCTS speed.

    python -m benchmarks.tournament_report [--games 200] [--game GAME ...] [--num-players N]
        [--workers W] [--seed 0] [--mcts-simulations N | --mcts-seconds 0.5] [--out benchmarks/results]
        [--ladder [--mcts-large-seconds 1.0]]

For each game (default: every game in ``envs.GAMES``, at its default player count or
``--num-players``):

1. measures MCTS iterations per second (determinize + tree + the game's default playout:
   the greedy evaluation at the leaf, in numba)
   from a few positions of a random game;
2. runs :func:`agents.apps.tournament.run_tournament` with ``random greedy mcts`` and
   ``--games`` games per table (per pairing at two seats), seats rotated;
3. writes ``benchmarks/results/<game>/``: ``table.md`` (results and head-to-head
   tables), ``agents.csv``, ``games.csv``, ``head_to_head.csv``, ``results.json``,
   ``ratings.png`` and ``benchmark.json`` (speed and settings);

then ``benchmarks/results/summary.md``: one row per game reported there so far, with the MCTS speed and the
head-to-head rates behind the baseline bars (greedy ahead of random >= 70 %, mcts ahead
of greedy >= 60 %).

MCTS budget: a fixed number of simulations per move keeps the tournament reproducible.
By default it is chosen per game as the measured iterations/s times ``--mcts-seconds``
(0.5 s of search per move on this machine, rounded, at least 50); ``--mcts-simulations``
fixes it for every game instead.

``--ladder`` measures the ladder random < greedy < trained policy < search: the table adds
the game's shipped policy (``pretrained``, when the package has one for the game and its
options) and
``mcts_large``, an MCTS whose fixed budget aims at ``--mcts-large-seconds`` per move (at
most 1 s).
"""
import json
import os
import time
from pathlib import Path

import numpy as np

import envs
from envs import cli
from agents.apps import tournament as T
from agents.players.mcts import MCTSAgent

DEFAULT_OUT = Path(__file__).resolve().parent / "results"


def measure_mcts_speed(game, seconds=2.0, positions=3, seed=0, env_options=None):
    """MCTS iterations/s averaged over ``positions`` positions of one random game
    (its start and evenly spread later decisions); also the mean playout length."""
    env = envs.make(game, **(env_options or {}))
    rng = np.random.default_rng(seed)
    # One random game to learn its length, then replay it to sample positions.
    env.reset(seed=seed)
    actions = []
    while env.unwrapped.legal_actions():
        legal = env.unwrapped.legal_actions()
        a = int(legal[rng.integers(len(legal))])
        actions.append(a)
        env.step(a)
    length = len(actions)
    stops = sorted({int(length * k / (positions + 1)) for k in range(positions)})
    warm = MCTSAgent(simulations=2, seed=seed)
    env.reset(seed=seed)
    warm.search(env.unwrapped, env.agent_selection)   # compile outside the timing
    rates = []
    done = 0
    for stop in stops:
        while done < stop:
            env.step(actions[done])
            done += 1
        bot = MCTSAgent(simulations=None, seconds=seconds / len(stops), seed=seed + stop)
        bot.search(env.unwrapped, env.agent_selection)
        rates.append(bot.last_simulations / max(bot.total_seconds, 1e-9))
    return {"iterations_per_second": float(np.mean(rates)),
            "per_position": [round(r, 1) for r in rates], "positions_at_step": stops,
            "random_game_decisions": length}


def _playout_text(game):
    from envs.registry import spec_for
    policy, depth, scale = MCTSAgent().playout_settings(spec_for(game))
    if scale == 0:
        return "random playout to the end"
    kind = "greedy" if policy == "greedy" else "random"
    moves = f"{depth} {kind} moves, then " if depth else ""
    return f"{moves}greedy evaluation of the leaf, tanh(margin / {scale:g})"


def report_game(game, args):
    env_options = {}
    if args.num_players:
        env_options["num_players"] = args.num_players
    print(f"== {game}: measuring MCTS speed ...", flush=True)
    speed = measure_mcts_speed(game, seconds=args.speed_seconds, seed=args.seed,
                               env_options=env_options)
    if args.mcts_simulations:
        sims = int(args.mcts_simulations)
    else:
        sims = simulations_for(speed["iterations_per_second"], args.mcts_seconds)
    print(f"   {speed['iterations_per_second']:.0f} MCTS iterations/s; "
          f"tournament with mcts simulations={sims}", flush=True)
    agent_options = {"mcts": {"simulations": sims}}
    names = ["random", "greedy", "mcts"]
    if args.ladder:
        names, large = ladder_agents(game, speed["iterations_per_second"], args.mcts_large_seconds,
                                     env_options)
        agent_options["mcts_large"] = {"simulations": large}
        print(f"   ladder: {' '.join(names)}; mcts_large simulations={large}", flush=True)
    result = T.run_tournament(game, names, games=args.games,
                              workers=args.workers, seed=args.seed, backend=args.backend,
                              env_options=env_options, agent_options=agent_options,
                              progress=not args.no_progress)
    out = T.write_outputs(result, Path(args.out) / game)
    bench = {"game": game, "num_players": result["num_players"], "mcts_speed": speed,
             "mcts_simulations": sims,
             "mcts_large_simulations": agent_options.get("mcts_large", {}).get("simulations"),
             "games_per_table": result["games_per_table"],
             "games": result["games"], "elapsed_seconds": result["elapsed_seconds"],
             "workers": args.workers, "cpu_count": os.cpu_count(), "seed": args.seed,
             "date": time.strftime("%Y-%m-%d %H:%M:%S %Z")}
    (out / "benchmark.json").write_text(json.dumps(bench, indent=1))
    with open(out / "table.md", "a") as f:
        f.write(f"\nMCTS: {sims} simulations per move; "
                f"{speed['iterations_per_second']:.0f} iterations/s measured "
                f"(determinize + tree + {_playout_text(game)}, {os.cpu_count()} CPU machine, "
                f"one core).\n")
    print(T.format_table(result), flush=True)
    return result, bench


def simulations_for(iterations_per_second, seconds):
    """A fixed budget of about ``seconds`` of search per move (rounded, at least 50)."""
    raw = iterations_per_second * seconds
    return max(50, int(round(raw, -1 if raw < 1000 else -2)))


def ladder_agents(game, iterations_per_second, large_seconds, env_options=None):
    """The ladder's agent tokens for ``game`` and mcts_large's simulations per move.  The
    shipped policy joins when the game has one trained for these options."""
    from agents import pretrained

    names = ["random", "greedy"]
    if game in pretrained.available_games():
        trained = pretrained.load_record(game)["options"]
        trained = {k: v for k, v in trained.items() if k != "reward_mode"}
        if envs.make(game, **trained).cfg.options == envs.make(game, **(env_options or {})).cfg.options:
            names.append("pretrained")
    return names + ["mcts", "mcts_large=mcts"], simulations_for(iterations_per_second, large_seconds)


def summary_markdown(rows):
    h = ["game", "seats", "games", "MCTS it/s", "MCTS sims/move", "MCTS s/move",
         "greedy ahead of random", "mcts ahead of greedy", "mcts ahead of random",
         "pretrained ahead of greedy", "mcts_large ahead of pretrained", "mcts_large ahead of mcts",
         "ladder (ordinal)"]
    out = ["# Baseline tournaments", "",
           "Head-to-head: share of the games where the first agent finished ahead of the second "
           "(ties 1/2). Bars: greedy ahead of random >= 0.70, mcts ahead of greedy >= 0.60. "
           "The ladder columns come from `--ladder` runs (`-`: not in that game's table); "
           "the last column lists the agents by their openskill ordinal, strongest first.", "",
           "| " + " | ".join(h) + " |", "|" + "|".join(["---"] * len(h)) + "|"]
    for result, bench in rows:
        hh = result["head_to_head"]
        spm = {r["agent"]: r["seconds_per_move"] for r in result["summary"]}
        order = " > ".join(r["agent"] for r in sorted(result["summary"], key=lambda r: -r["ordinal"]))

        def rate(a, b):
            v = hh.get(a, {}).get(b)
            return "-" if v is None else f"{v:.3f}"
        out.append("| " + " | ".join([
            result["game"], str(result["num_players"]), str(result["games"]),
            f"{bench['mcts_speed']['iterations_per_second']:.0f}", str(bench["mcts_simulations"]),
            f"{spm.get('mcts', 0):.3f}", rate("greedy", "random"), rate("mcts", "greedy"),
            rate("mcts", "random"), rate("pretrained", "greedy"), rate("mcts_large", "pretrained"),
            rate("mcts_large", "mcts"), order]) + " |")
    return "\n".join(out) + "\n"


def main(argv=None):
    p = cli.ArgumentParser(prog="python -m benchmarks.tournament_report", description=__doc__.split("\n\n")[0])
    p.add_argument("--games", type=cli.positive_int, default=200, help="games per table (default 200)")
    p.add_argument("--game", nargs="+", type=cli.game_id, default=None, help="games (default: all of envs.GAMES)")
    p.add_argument("--num-players", type=cli.positive_int, default=None,
                   help="seats for every game (default: each game's default)")
    p.add_argument("--workers", type=cli.positive_int, default=os.cpu_count() or 1)
    p.add_argument("--backend", choices=["process", "ray"], default="process")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mcts-simulations", type=cli.positive_int, default=None,
                   help="fixed MCTS simulations per move for every game")
    p.add_argument("--mcts-seconds", type=cli.positive_float, default=0.5,
                   help="search time per move the automatic simulation count aims at (default 0.5)")
    p.add_argument("--speed-seconds", type=cli.positive_float, default=2.0,
                   help="time spent measuring MCTS speed per game (default 2)")
    p.add_argument("--out", default=str(DEFAULT_OUT))
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--ladder", action="store_true",
                   help="add the shipped policy and mcts_large (the rating ladder)")
    p.add_argument("--mcts-large-seconds", type=float, default=1.0,
                   help="search time per move mcts_large's budget aims at (0 < s <= 1, default 1)")
    args = p.parse_args(argv)
    if not 0 < args.mcts_large_seconds <= 1.0:
        p.error(f"--mcts-large-seconds must be in (0, 1], got {args.mcts_large_seconds}")
    games = args.game or list(envs.GAMES)
    for g in games:
        if g not in envs.GAMES:
            raise SystemExit(f"unknown game {g!r}; registered games: {', '.join(envs.GAMES)}")
    for g in games:
        report_game(g, args)
    out = Path(args.out)
    # The summary covers every game reported in --out so far (not just this run's).
    rows = []
    for bench_file in sorted(out.glob("*/benchmark.json")):
        result_file = bench_file.parent / "results.json"
        if result_file.exists():
            rows.append((json.loads(result_file.read_text()), json.loads(bench_file.read_text())))
    summary = summary_markdown(rows)
    (out / "summary.md").write_text(summary)
    print()
    print(summary)
    return rows


if __name__ == "__main__":
    main()
