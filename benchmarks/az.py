"""Figures of the learned search (``az``, ``az_policy``) of one game.

    python -m benchmarks.az --game kingdomino_duel_v0 [--games 200] [--workers 2]
        [--move-seconds 1.0 | --az-simulations N --mcts-simulations M] [--skip MATCH ...]
        [--only MATCH ...]
        [--out benchmarks/results/az]

1. cost of one network evaluation inside numba (the forward pass alone, and with greedy's
   one-ply action values it reads), over positions of greedy games;
2. the search's simulations per second (``az`` with a time budget) and MCTS's iterations per
   second (:func:`benchmarks.tournament_report.measure_mcts_speed`) from the same positions;
3. matches, seats rotated (:func:`agents.apps.tournament.run_tournament`, ``--games`` games
   each): ``az`` against ``mcts_large`` (an ``mcts`` whose fixed budget takes about
   ``--move-seconds`` a move here; ``az`` gets the simulations that take as long), and
   ``az_policy`` against ``greedy`` and against ``pretrained`` (the shipped PPO policy); and
   the teacher against ``greedy``: ``az`` as self-play ran it (Gumbel root, the run's
   simulations and candidates), whose improved policy the network learns from.

Writes ``benchmarks/results/az/<game>/``: ``figures.json`` and ``report.md`` (with the
revision, date, machine and its load average while measuring: other jobs on a shared
machine slow every time-budgeted figure) and each match's tournament files in a folder of
its own.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import time
from pathlib import Path

import numpy as np

import agents
import envs
from envs import cli
from agents.apps import tournament as T

DEFAULT_OUT = Path(__file__).resolve().parent / "results" / "az"
MATCHES = ("az_vs_mcts_large", "policy_vs_greedy", "policy_vs_pretrained", "teacher_vs_greedy")


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    return {"cpu": model or platform.processor(), "cpu_count": os.cpu_count(), "python": platform.python_version(),
            "load_average": [round(x, 2) for x in os.getloadavg()]}


def revision():
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=Path(__file__).resolve().parent, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def network_options(game):
    """The game options of the shipped network of ``game`` (its seat count)."""
    from agents.players.az import load_network

    return dict(load_network(game)[1].get("options", {}))


def positions(game, count=12, seed=0):
    """``count`` positions (envs at a decision with >1 legal action) of greedy games, at the
    table of the game's shipped network."""
    out = []
    g = 0
    while len(out) < count:
        env = envs.make(game, **network_options(game))
        env.reset(seed=seed + g)
        bot = agents.make("greedy", seed=g)
        step = 0
        for who in env.agent_iter():
            if env.terminations[who]:
                break
            if step % 9 == 4 and env.observe(who)["action_mask"].sum() > 1 and len(out) < count:
                out.append(env.unwrapped.clone())
            env.step(bot.act(env, who))
            step += 1
        g += 1
    return out


def eval_cost(game, reps=2000):
    """Microseconds of one network evaluation in numba: the forward pass, and the forward
    pass plus the action values it reads (the network's part of the search's leaf evaluation;
    the heuristic's value and any playout come on top)."""
    from agents.players import az_net
    from agents.players.az import AZPolicyAgent

    bot = AZPolicyAgent(game=game, seed=0)
    forward_us, full_us = [], []
    for env in positions(game, 6):
        who = env.agent_selection
        bot.logits(env, who)             # binds (compiles)
        nw = bot.network
        obs = env.observe(who)
        mask = np.ascontiguousarray(obs["action_mask"], dtype=np.int8)
        o = np.ascontiguousarray(obs["observation"], dtype=np.float32)
        av = np.asarray(env.unwrapped.observe_action_values(who), dtype=np.float32)
        ws = nw.ws
        t = time.perf_counter()
        for _ in range(reps):
            az_net.forward(nw.net, o, av, mask, nw.params.value_scale, ws.h1, ws.h2, ws.logits, ws.value)
        forward_us.append((time.perf_counter() - t) / reps * 1e6)
        raw = env.unwrapped
        seat = raw.possible_agents.index(who)
        scratch, work = ws.scratch(), ws.work.args()
        ws.mask[:] = mask
        nw.fns.evaluate(raw.kernel_state, seat, nw.net, nw.vector, scratch, work)
        t = time.perf_counter()
        for _ in range(reps // 4):
            nw.fns.evaluate(raw.kernel_state, seat, nw.net, nw.vector, scratch, work)
        full_us.append((time.perf_counter() - t) / (reps // 4) * 1e6)
    return {"forward_us": round(float(np.mean(forward_us)), 2),
            "evaluate_with_action_values_us": round(float(np.mean(full_us)), 2),
            "hidden": list(bot.network.ws.h1.shape + bot.network.ws.h2.shape)}


def search_speed(game, seconds=1.0):
    """Simulations per second of ``az`` (time budget) averaged over positions."""
    from agents.players.az import AZAgent

    rates = []
    bot = AZAgent(game=game, seconds=seconds, seed=0)
    pos = positions(game, 4, seed=100)
    warm = AZAgent(game=game, simulations=8, seed=0)
    warm.act(pos[0], pos[0].agent_selection)
    for env in pos:
        t = time.perf_counter()
        bot.search(env, env.agent_selection)
        rates.append(bot.last_simulations / (time.perf_counter() - t))
    return {"simulations_per_second": round(float(np.mean(rates)), 1),
            "per_position": [round(r, 1) for r in rates]}


def teacher_options(game):
    """``az`` options of the search self-play ran for the shipped network of ``game``."""
    from agents.players.az import load_network

    config = load_network(game)[1].get("config", {})
    return {"root": "gumbel", "simulations": int(config.get("simulations", 32)),
            "gumbel_m": int(config.get("gumbel_m", 8))}


def match(game, a, b, options, games, workers, seed, out):
    seats = network_options(game).get("num_players")
    res = T.run_tournament(game, [a, b], num_players=seats, games=games, workers=workers, seed=seed,
                           agent_options=options, progress=False)
    T.write_outputs(res, out)
    la, lb = a.split("=")[0], b.split("=")[0]
    h2h = res["head_to_head"][la][lb] if isinstance(res.get("head_to_head"), dict) else None
    think = {}
    for r in res["results"]:
        for label, moves, secs in zip(r["seats"], r["moves"], r["think_seconds"]):
            m, s = think.get(label, (0, 0.0))
            think[label] = (m + moves, s + secs)
    return {"agents": [la, lb], "games": res["games"], "ahead_share": h2h,
            "seconds_per_move": {k: round(s / max(m, 1), 4) for k, (m, s) in think.items()}}


def build_parser():
    p = cli.ArgumentParser(prog="python -m benchmarks.az", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", type=cli.game_id, default="kingdomino_duel_v0")
    p.add_argument("--games", type=cli.positive_int, default=200)
    p.add_argument("--workers", type=cli.positive_int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--move-seconds", type=cli.positive_float, default=1.0, help="time a move of both searches")
    p.add_argument("--az-simulations", type=cli.positive_int, default=None, help="fix az's budget instead")
    p.add_argument("--mcts-simulations", type=cli.positive_int, default=None, help="fix mcts_large's budget instead")
    p.add_argument("--skip", nargs="*", default=[], choices=MATCHES)
    p.add_argument("--only", nargs="+", default=None, choices=MATCHES,
                   help="play only these matches and add them to the game's existing figures.json "
                        "(each stamped with its revision and date); the other figures are kept")
    p.add_argument("--out", default=str(DEFAULT_OUT))
    return p


def main(argv=None):
    args = build_parser().parse_args(argv)
    from benchmarks.tournament_report import measure_mcts_speed

    out = Path(args.out) / args.game
    out.mkdir(parents=True, exist_ok=True)
    if args.only:
        return add_matches(args, out)
    figures = {"game": args.game, "revision": revision(), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
               "machine_before": machine()}
    print("evaluation cost ...", flush=True)
    figures["eval_cost"] = eval_cost(args.game)
    print(figures["eval_cost"], "\nsearch speed ...", flush=True)
    figures["az_speed"] = search_speed(args.game)
    figures["mcts_speed"] = measure_mcts_speed(args.game, seconds=3.0, env_options=network_options(args.game))
    print(figures["az_speed"], figures["mcts_speed"]["iterations_per_second"], flush=True)
    az_sims = args.az_simulations or max(16, int(figures["az_speed"]["simulations_per_second"] * args.move_seconds))
    mcts_sims = args.mcts_simulations or max(50, int(figures["mcts_speed"]["iterations_per_second"]
                                                     * args.move_seconds))
    figures["budgets"] = {"move_seconds": args.move_seconds, "az_simulations": az_sims,
                          "mcts_large_simulations": mcts_sims,
                          "fixed": bool(args.az_simulations or args.mcts_simulations)}
    figures["matches"] = {}
    plan = match_plan(args.game, az_sims, mcts_sims)
    for name, (a, b, options) in plan.items():
        if name in args.skip:
            continue
        print(f"{name} ({args.games} games) ...", flush=True)
        t = time.perf_counter()
        figures["matches"][name] = match(args.game, a, b, options, args.games, args.workers, args.seed, out / name)
        figures["matches"][name]["elapsed_seconds"] = round(time.perf_counter() - t, 1)
        print(figures["matches"][name], flush=True)
    figures["machine_after"] = machine()
    (out / "figures.json").write_text(json.dumps(figures, indent=1))
    (out / "report.md").write_text(report(figures))
    print(report(figures))


def match_plan(game, az_sims, mcts_sims):
    """Each match: (first agent, second agent, agent options)."""
    return {
        "az_vs_mcts_large": ("az", "mcts_large=mcts", {"az": {"simulations": az_sims},
                                                        "mcts_large": {"simulations": mcts_sims}}),
        "policy_vs_greedy": ("az_policy", "greedy", {}),
        "policy_vs_pretrained": ("az_policy", "pretrained", {}),
        "teacher_vs_greedy": ("teacher=az", "greedy", {"teacher": teacher_options(game)}),
    }


def add_matches(args, out):
    """``--only``: play the named matches at the stored budgets and add them to the figures."""
    path = out / "figures.json"
    if not path.exists():
        raise SystemExit(f"--only adds matches to {path}, which does not exist: run without --only first")
    figures = json.loads(path.read_text())
    budgets = figures["budgets"]
    plan = match_plan(args.game, budgets["az_simulations"], budgets["mcts_large_simulations"])
    for name in args.only:
        a, b, options = plan[name]
        print(f"{name} ({args.games} games) ...", flush=True)
        t = time.perf_counter()
        played = match(args.game, a, b, options, args.games, args.workers, args.seed, out / name)
        played.update(elapsed_seconds=round(time.perf_counter() - t, 1), revision=revision(),
                      date=time.strftime("%Y-%m-%d %H:%M:%S %Z"), load_average_after=machine()["load_average"])
        figures["matches"][name] = played
        print(played, flush=True)
    path.write_text(json.dumps(figures, indent=1))
    (out / "report.md").write_text(report(figures))
    print(report(figures))


def report(f):
    lines = [f"### Learned search: {f['game']}", "",
             f"Revision {f['revision']}, {f['date']}; machine: {f['machine_before']['cpu']}, "
             f"{f['machine_before']['cpu_count']} CPUs, load average {f['machine_before']['load_average']} before "
             f"and {f.get('machine_after', {}).get('load_average')} after (1, 5 and 15 minutes).", "",
             f"- one network evaluation in numba: {f['eval_cost']['forward_us']} us (forward pass, hidden "
             f"{f['eval_cost']['hidden']}); {f['eval_cost']['evaluate_with_action_values_us']} us with the "
             f"action values it reads (the search's leaf evaluation)",
             f"- search: {f['az_speed']['simulations_per_second']} simulations/s (az); MCTS "
             f"{f['mcts_speed']['iterations_per_second']:.0f} iterations/s",
             f"- budgets: az {f['budgets']['az_simulations']} simulations, mcts_large "
             f"{f['budgets']['mcts_large_simulations']} simulations a move "
             + ("(given by the command, not measured here)" if f["budgets"].get("fixed") else
                f"(about {f['budgets']['move_seconds']} s a move each at the speeds above)"), "",
             "| match | games | share of games the first finished ahead (ties 1/2) | s/move |", "|---|---|---|---|"]
    for name, m in f["matches"].items():
        spm = ", ".join(f"{k} {v}" for k, v in m["seconds_per_move"].items())
        added = f" (added at {m['revision']}, {m['date']})" if "revision" in m else ""
        lines.append(f"| {m['agents'][0]} vs {m['agents'][1]}{added} | {m['games']} | {m['ahead_share']} | {spm} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
