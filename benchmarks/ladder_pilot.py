"""A pilot round robin for choosing a ladder's rungs.

    python -m benchmarks.ladder_pilot --game GAME --games 30 RUNG [RUNG ...]
    python -m benchmarks.ladder_pilot --game GAME --solo --seeds 150 --games-file F.jsonl RUNG ...

A RUNG is ``label=agent`` or ``label=agent:JSON`` (the agent's options), e.g. ``random=random``
``g50=greedy:{"noise":0.5}`` ``m100=mcts:{"simulations":100}``, listed weakest first.  The
candidates play the ladder's first-round schedule at the two-seat table (``--games``
between neighbours, half as many two apart, a quarter beyond; seats rotated), and the fit
(greedy = 1000, a weak prior so that unbeaten candidates stay finite) prints every
candidate's rating, interval, seconds a move and the gap to the one below: rungs for
:data:`agents.rating.ladder.SPECS` are then picked about 200 Elo apart.  ``--solo``: the
candidates play the game's solo mode on the same ``--seeds`` seeds (as a solo build does,
with its seed), compared seed by seed; with ``--games-file`` the build of the chosen rungs
takes their games from the pilot's file.  The pilots behind
the shipped ladders are in ``benchmarks/results/ladder/pilots/``.
"""
from __future__ import annotations

import json
import os
import sys
import time

import numpy as np


def parse_rung(text):
    from agents.rating import ladder as ladders

    label, sep, rest = text.partition("=")
    agent, _, options = rest.partition(":")
    if not sep or not label or not agent:
        raise ValueError(f"a rung is label=agent[:JSON options], got {text!r}")
    try:
        options = json.loads(options) if options else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"rung {label}: options are not JSON ({exc.msg})") from None
    if not isinstance(options, dict):
        raise ValueError(f"rung {label}: options must be a JSON object")
    return ladders.Rung(label, agent, options)


def pilot(game, rungs, games, workers, seed=7):
    from agents.rating import elo, ladder as ladders
    from agents.runner import Runner

    spec = ladders.LadderSpec(game, "table", {"num_players": 2}, tuple(rungs))
    labels = [r.label for r in rungs]
    tally = ladders.Tally(labels)
    start = time.perf_counter()
    with Runner(workers=workers) as runner:
        ladders.play_plan(spec, ladders.initial_schedule(len(rungs), games), tally, runner, seed)
    played = int(tally.games.sum() / 2)
    fit = elo.fit(labels, tally.points, tally.games, {ladders.ANCHOR: ladders.ANCHOR_RATING},
                  prior_sd=1500.0, prior_mean=ladders.ANCHOR_RATING)
    spm = tally.seconds_per_move()
    lines = [f"# pilot {game}: {played} games in {time.perf_counter() - start:.0f} s"]
    previous = None
    for i in np.argsort(fit.ratings):
        lab = labels[i]
        gap = "" if previous is None else f"  (+{fit.ratings[i] - previous:.0f})"
        lines.append(f"{lab:12s} {fit.ratings[i]:7.0f} ±{fit.halfwidths[i]:4.0f}  s/move "
                     f"{spm[lab] or 0:.4f}{gap}")
        previous = fit.ratings[i]
    lines.append("neighbour scores:")
    for a, b in zip(labels, labels[1:]):
        i, j = labels.index(a), labels.index(b)
        lines.append(f"  {b} vs {a}: {tally.points[j, i] / tally.games[i, j]:.3f} ({int(tally.games[i, j])})")
    return "\n".join(lines)


def pilot_solo(game, rungs, seeds, workers, games_file=None):
    from agents.rating import ladder as ladders

    spec = ladders.LadderSpec(game, "solo", {"num_players": 1}, tuple(rungs))
    start = time.perf_counter()
    lad = ladders.build_solo(spec, seeds=seeds, workers=workers, progress=False, log=lambda *_: None,
                             bootstrap=200, games_file=games_file)
    lines = [f"# solo pilot {game}: {seeds} seeds x {len(rungs)} candidates in "
             f"{time.perf_counter() - start:.0f} s"]
    previous = None
    for r in lad.sorted_rungs():
        mean = lad.mean_result(r.label)
        gap = "" if previous is None else f"  (+{lad.rating(r.label) - previous:.0f})"
        lines.append(f"{r.label:12s} {lad.rating(r.label):7.0f} ±{lad.halfwidths[r.label]:4.0f}  mean result "
                     f"{mean:7.2f}  s/move {lad.seconds_per_move[r.label] or 0:.4f}{gap}")
        previous = lad.rating(r.label)
    return "\n".join(lines)


def main(argv=None):
    from envs import cli

    p = cli.ArgumentParser(prog="python -m benchmarks.ladder_pilot", description=__doc__.split("\n\n")[0])
    p.add_argument("--game", required=True, type=cli.game_id)
    p.add_argument("--games", type=cli.positive_int, default=30, help="games between neighbours")
    p.add_argument("--workers", type=cli.positive_int, default=os.cpu_count() or 1)
    p.add_argument("--solo", action="store_true", help="the game's solo mode, compared seed by seed")
    p.add_argument("--seeds", type=cli.positive_int, default=150, help="solo: game seeds every candidate plays")
    p.add_argument("--games-file", default=None, help="solo: keep (and reuse) the games in this .jsonl file")
    p.add_argument("rungs", nargs="+", metavar="RUNG")
    args = p.parse_args(argv)
    try:
        rungs = [parse_rung(r) for r in args.rungs]
    except ValueError as exc:
        cli.fail(exc, p.prog)
    if len({r.label for r in rungs}) != len(rungs) or "greedy" not in {r.label for r in rungs}:
        cli.fail("rung labels must be distinct and include greedy (the anchor)", p.prog)
    if args.solo:
        print(pilot_solo(args.game, rungs, args.seeds, args.workers, args.games_file))
    else:
        print(pilot(args.game, rungs, args.games, args.workers))


if __name__ == "__main__":
    sys.exit(main())
