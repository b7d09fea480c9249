"""Rate any agent on a game's anchored ladder, in minutes.

    python -m agents.scorecard --game GAME --agent SPEC [--options JSON] [--solo]
        [--seed S] [--workers W] [--backend process|ray] [--target ELO] [--max-games N]
        [--max-minutes M] [--json FILE] [--chart FILE] [--trust-pickle]

SPEC: an agent name (``random``, ``greedy``, ``mcts``, ``pretrained``, ...) with its
constructor options in ``--options``; ``module:factory`` for your own code (an object with
``act(env, agent)`` or ``act_batch(observations, masks)``); or a ``train.py`` run directory
or saved policy file.  The agent plays the ladder's reference agents nearest its strength,
seats rotated, until the 95 % interval of its rating is within ``--target`` Elo either
side (default 50) or a cap is reached, then prints its rating with the interval, its score
against each rung, the games and the time.  ``--solo`` rates the game's solo mode.  The
scale: ``greedy`` = 1000; +200 Elo is an expected score of 0.76 (docs/ratings.md).
"""
from __future__ import annotations

import json
import os
import sys

from agents.rating.scorecard import format_card, plot_card, rate  # noqa: F401  (rate: public API)


def build_parser():
    from envs import cli

    parts = __doc__.split("\n\n")
    p = cli.ArgumentParser(prog="python -m agents.scorecard", description=parts[0],
                           epilog="\n\n".join(parts[2:]))
    p.add_argument("--game", required=True, type=cli.game_id, help="game id (see envs.GAMES)")
    p.add_argument("--agent", required=True, metavar="SPEC", help="the agent to rate (see above)")
    p.add_argument("--options", type=cli.json_object, default={},
                   help="JSON object: the agent's constructor options")
    p.add_argument("--solo", action="store_true", help="rate the game's solo mode")
    p.add_argument("--seed", type=int, default=None, help="seed of the games (default: fresh, printed)")
    p.add_argument("--workers", type=cli.positive_int, default=os.cpu_count() or 1,
                   help="worker processes")
    p.add_argument("--backend", choices=["process", "ray"], default="process")
    p.add_argument("--target", type=cli.positive_float, default=50.0,
                   help="stop at this 95%% half-width (Elo)")
    p.add_argument("--max-games", type=cli.positive_int, default=600,
                   help="stop after this many games")
    p.add_argument("--max-minutes", type=cli.positive_float, default=None,
                   help="stop after this many minutes")
    p.add_argument("--json", metavar="FILE", default=None, help="write the card as JSON")
    p.add_argument("--chart", metavar="FILE", default=None, help="draw the card as a PNG chart")
    p.add_argument("--trust-pickle", action="store_true",
                   help="allow a policy file that needs unpickling (runs code from the file)")
    p.add_argument("--quiet", action="store_true", help="print the card only")
    return p


def _fail(message):
    from envs.cli import fail

    fail(message, "python -m agents.scorecard")


def main(argv=None):
    args = build_parser().parse_args(argv)
    from agents import specs
    from agents.cli import AgentFailure
    from agents.rating import ladder as ladders
    from envs.cli import fail

    options = args.options
    if args.trust_pickle:
        options = {**options, "trust_pickle": True}
    try:
        specs.check(args.agent)
    except ValueError as exc:
        _fail(str(exc))
    try:   # built once now, as the games will: an option it does not take is refused here
        specs.build(args.agent, options, seed=0, game=args.game)
    except Exception as exc:
        _fail(f"agent {args.agent!r} cannot be built with options {options}: "
              f"{type(exc).__name__}: {exc}")
    try:
        lad = ladders.load(args.game, "solo" if args.solo else "table")
    except ValueError as exc:
        _fail(str(exc))
    log = (lambda *_: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr, flush=True))
    if not args.quiet:
        print(f"rating {args.agent} on ladder {lad.spec.name} ({len(lad.spec.rungs)} rungs); the first "
              "games compile the agents' kernels (up to a minute)", file=sys.stderr, flush=True)
    try:
        card = rate(args.game, args.agent, mode=lad.spec.mode, agent_options=options, seed=args.seed,
                    workers=args.workers, backend=args.backend, target=args.target,
                    max_games=args.max_games,
                    max_seconds=None if args.max_minutes is None else 60.0 * args.max_minutes,
                    log=log, ladder=lad)
    except ValueError as exc:
        _fail(str(exc).splitlines()[0])
    except AgentFailure as exc:          # an agent's error in a game: one line naming it
        fail(exc, "python -m agents.scorecard", status=1)
    print(format_card(card))
    if args.json:
        text = json.dumps(card, indent=1)      # whole before the file is opened: no half-written card
        with open(args.json, "w") as f:
            f.write(text + "\n")
    if args.chart:
        plot_card(card, lad, args.chart)
    return card


if __name__ == "__main__":
    main()
