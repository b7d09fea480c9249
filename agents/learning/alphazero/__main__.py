"""Command line of the learned search's training; see :mod:`agents.learning.alphazero`.

Reproduce the shipped network of a game (the command its record names):

    python -m agents.learning.alphazero --game kingdomino_duel_v0 --preset shipped --export
"""
from __future__ import annotations

import os
import sys

from envs import cli

# The settings each shipped network was trained with (the record's "config" repeats them).
PRESETS = {
    "kingdomino_duel_v0": {"generations": 20, "games_per_generation": 200, "simulations": 32, "gumbel_m": 8,
                           "hidden": [256, 128], "buffer": 100000, "epochs": 3.0, "eval_games": 400,
                           "eval_search_every": 0, "time_limit": 0.0,
                           "search": {"heuristic_mix": 0.5}}
}
# The other games: two seats, 100 self-play games a generation, each generation rated on 200
# games (the record's curve holds every generation of the run, those after the shipped one
# too).  Expancity: the run's best-rated generation (its 17-minute clock stopped it).
_TWO_SEATS = {"num_players": 2, "games_per_generation": 100, "simulations": 32, "gumbel_m": 8,
              "hidden": [256, 128], "buffer": 100000, "epochs": 3.0, "eval_games": 200, "eval_search_every": 0,
              "time_limit": 0.0, "search": {"heuristic_mix": 0.5}}
# Tiny Towns, Between Two Cities, Smartphone Inc.: warm-started from the shipped PPO policy
# (600 of its games, generation 0), every generation also rated against that policy, the
# generation with the best mean of its shares against greedy and that policy shipped; one
# worker (the number of workers decides how the games are split into jobs, so it is part of
# the settings that reproduce a run).
_WARM = {**_TWO_SEATS, "warm_start": "pretrained", "warm_start_games": 600, "eval_pretrained": True,
         "workers": 1}
PRESETS.update({
    "tiny_towns_v0": {**_WARM, "generations": 0},
    "between_two_cities_v0": {**_WARM, "generations": 0},
    "expancity_v0": {**_TWO_SEATS, "generations": 7, "hidden": [128, 128]},
    "smartphone_inc_v0": {**_WARM, "generations": 4, "hidden": [128, 128]},
})

# The search settings each shipped network plays with where matches against mcts_large
# after training chose others than it trained with (the record's "play_search"; the matches:
# benchmarks/results/az/play_search.md).  Kingdomino Duel: leaves valued by the heuristic
# alone, the network serving as the prior, finished ahead in 0.549 of 400 games against
# 0.455 with the trained half-and-half mix; Tiny Towns in 0.506 of 800 against 0.438, ahead
# at each of four seeds (in both games the value head judges positions worse than a
# constant, benchmarks/results/az/value_head.md).
PLAY_SEARCH = {"kingdomino_duel_v0": {"heuristic_mix": 1.0}, "tiny_towns_v0": {"heuristic_mix": 1.0}}


def build_parser():
    p = cli.ArgumentParser(prog="python -m agents.learning.alphazero",
                           description="Self-play training of the learned search's network.")
    p.add_argument("--game", required=True)
    p.add_argument("--out", default=None, help="run directory (default runs/az/GAME)")
    p.add_argument("--preset", choices=["none", "shipped"], default="none",
                   help="'shipped': the settings the shipped network of GAME was trained with")
    p.add_argument("--num-players", type=int, default=None)
    p.add_argument("--env-options", type=cli.json_object, default="{}", help="JSON: game options")
    p.add_argument("--generations", type=int)
    p.add_argument("--games-per-generation", type=int)
    p.add_argument("--simulations", type=int, help="self-play simulations a move")
    p.add_argument("--gumbel-m", type=int, help="Gumbel root candidates")
    p.add_argument("--value-target-mix", type=float,
                   help="share of the search's value of each position in the value targets (0: the outcome alone)")
    p.add_argument("--hidden", type=int, nargs=2)
    p.add_argument("--buffer", type=int)
    p.add_argument("--batch-size", type=int)
    p.add_argument("--epochs", type=float)
    p.add_argument("--learning-rate", type=float)
    p.add_argument("--eval-games", type=int)
    p.add_argument("--eval-search-every", type=int)
    p.add_argument("--eval-mcts-simulations", type=int)
    p.add_argument("--eval-pretrained", action="store_true", default=None,
                   help="also rate each generation's raw policy against the shipped PPO policy")
    p.add_argument("--warm-start", choices=["none", "pretrained"],
                   help="'pretrained': first learn the shipped PPO policy's moves (generation 0)")
    p.add_argument("--warm-start-games", type=int)
    p.add_argument("--warm-start-epochs", type=float)
    p.add_argument("--warm-start-explore", type=float)
    p.add_argument("--warm-start-temperature", type=float)
    p.add_argument("--ladder-every", type=int, help="solo: the solo scorecard every N generations (0: never)")
    p.add_argument("--search", type=cli.json_object, default=None, help='JSON: search parameter overrides, e.g. \'{"heuristic_mix": 0.3}\'')
    p.add_argument("--workers", type=int)
    p.add_argument("--backend", choices=["process", "ray"])
    p.add_argument("--seed", type=int)
    p.add_argument("--time-limit", type=float, help="stop after this many seconds")
    p.add_argument("--resume", action="store_true", help="continue the run in --out from its checkpoint")
    p.add_argument("--export", action="store_true",
                   help="at the end, ship the last generation as agents/pretrained/models/az_GAME")
    p.add_argument("--play-search", type=cli.json_object, default=None,
                   help="JSON: with --export, the search parameters the shipped network plays with in place of "
                        "the trained ones (default with --preset shipped: the game's entry in PLAY_SEARCH)")
    return p


def config_from_args(args):
    from agents.learning.alphazero.training import AZConfig

    values = dict(PRESETS.get(args.game, {})) if args.preset == "shipped" else {}
    if args.preset == "shipped" and args.game not in PRESETS:
        raise SystemExit(f"no shipped preset for {args.game!r}; presets: {', '.join(PRESETS)}")
    for name in ("generations", "games_per_generation", "simulations", "gumbel_m", "hidden", "buffer",
                 "batch_size", "epochs", "learning_rate", "eval_games", "eval_search_every", "eval_mcts_simulations",
                 "ladder_every", "workers", "eval_pretrained", "warm_start", "warm_start_games",
                 "warm_start_epochs", "warm_start_explore", "warm_start_temperature",
                 "backend", "seed", "time_limit", "num_players", "value_target_mix"):
        value = getattr(args, name)
        if value is not None:
            values[name] = value
    if args.search is not None:
        values["search"] = {**values.get("search", {}), **args.search}
    values["env_options"] = args.env_options
    try:
        return AZConfig(game=args.game, **values)
    except (TypeError, ValueError) as exc:
        raise SystemExit(str(exc)) from exc


def play_search_from_args(args):
    """The ``play_search`` an export writes: ``--play-search``, else the preset's, checked now
    so that a bad value fails before training rather than after it."""
    from agents.players.az_search import default_params

    if args.play_search is None:
        return dict(PLAY_SEARCH.get(args.game, {})) if args.preset == "shipped" else {}
    try:
        default_params(args.game, **args.play_search)
    except ValueError as exc:
        cli.fail(f"--play-search: {exc}", "python -m agents.learning.alphazero")
    return args.play_search


def main(argv=None):
    args = build_parser().parse_args(argv)
    import envs
    if args.game not in envs.GAMES:
        raise SystemExit(f"unknown game {args.game!r}; registered games: {', '.join(envs.GAMES)}")
    cfg = config_from_args(args)
    play_search = play_search_from_args(args)
    out = args.out or os.path.join("runs", "az", args.game)
    from agents.learning.alphazero.training import Trainer

    trainer = Trainer(cfg, out, resume=args.resume, log=lambda s: print(s, flush=True))
    trainer.run()
    if args.export:
        from agents.learning.alphazero.export import export
        command = "python -m agents.learning.alphazero " + " ".join(sys.argv[1:] if argv is None else argv)
        record = export(out, command=command, play_search=play_search)
        print(f"exported generation {record['generation']} ({record['storage']}) as az_{args.game}")


if __name__ == "__main__":
    main()
