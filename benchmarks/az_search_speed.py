"""How fast the learned search runs with different search settings, on the same positions.

    python -m benchmarks.az_search_speed --game GAME --simulations N \
        --options '{"heuristic_mix": 1.0}' '{"heuristic_mix": 1.0, "delay_expansion": false}' \
        [--rounds 3]

``az`` (the game's shipped network, at its own table) searches the twelve positions
:func:`benchmarks.az.search_speed` times (greedy games, seed 100) with each JSON object of
``--options`` as its ``search_options``, ``N`` simulations a move; the settings take turns,
``--rounds`` times, and each keeps its fastest round, so a passing load on the machine
touches every setting alike.  Prints one markdown table: seconds a move, simulations a
second, and each setting's speed relative to the first, with the revision, date and machine.
"""
from __future__ import annotations

import json
import time

import numpy as np

from envs import cli


def measure(game, simulations, option_sets, rounds=3):
    """Per setting of ``option_sets``: the fastest round's mean seconds a move."""
    from agents.players.az import AZAgent
    from benchmarks.az import positions

    pos = positions(game, 12, seed=100)
    bots = [AZAgent(game=game, simulations=simulations, seed=0, search_options=o) for o in option_sets]
    for bot in bots:                       # compile and warm before timing
        bot.act(pos[0], pos[0].agent_selection)
    best = [np.inf] * len(bots)
    for _ in range(rounds):
        for i, bot in enumerate(bots):
            t = time.perf_counter()
            for env in pos:
                bot.search(env, env.agent_selection)
            best[i] = min(best[i], (time.perf_counter() - t) / len(pos))
    return best


def build_parser():
    p = cli.ArgumentParser(prog="python -m benchmarks.az_search_speed", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", type=cli.game_id, required=True)
    p.add_argument("--simulations", type=cli.positive_int, required=True)
    p.add_argument("--options", type=cli.json_object, nargs="+", required=True,
                   help="one JSON object of search options per setting to time")
    p.add_argument("--rounds", type=cli.positive_int, default=3)
    return p


def main(argv=None):
    from agents.players.az_search import default_params
    from benchmarks.az import machine, revision

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        for options in args.options:
            default_params(args.game, **options)
    except ValueError as exc:
        parser.error(f"--options: {exc}")
    start, before = time.strftime("%Y-%m-%d %H:%M:%S %Z"), machine()
    seconds = measure(args.game, args.simulations, args.options, args.rounds)
    lines = [f"Revision {revision()}, {start}, {before['cpu']}, {before['cpu_count']} CPUs, load average "
             f"{before['load_average']} before and {machine()['load_average']} after; {args.game}, "
             f"{args.simulations} simulations a move, fastest of {args.rounds} rounds over 12 positions.", "",
             "| search options | s a move | simulations a second | speed against the first |",
             "|---|---|---|---|"]
    for options, s in zip(args.options, seconds):
        lines.append(f"| `{json.dumps(options)}` | {s:.4f} "
                     f"| {args.simulations / s:,.0f} | {seconds[0] / s:.2f} |")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
