"""``train.py``'s command line: the parser generated from :class:`~.config.TrainConfig`, the
checks a command makes before any work (:func:`check`), and the plan it prints (:func:`plan`).

Everything here is light (numpy, the game registry, the agents' registry; no torch):
``train.py`` refuses a bad command in about a second, before torch is imported."""
from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
import textwrap
import typing
from dataclasses import replace

import agents
import agents.learning.training as training_package
from agents.base import known_agents
from agents.learning.training.config import TrainConfig
from agents.learning.training.evaluation import check_solo_settings, solo_automata
from agents.learning.training.recipes import GAME_DEFAULTS, SOLO_DEFAULTS, changes, defaults_for
from envs.registry import GAMES


def _show(value, sep=","):
    if isinstance(value, tuple):
        return sep.join(str(v) for v in value)
    return str(value)


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (exit status 2), without the
    usage text: train.py's usage runs to dozens of lines, ``--help`` shows it."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def build_parser():
    """The command line, generated from the fields of :class:`TrainConfig`.  Every flag
    defaults to "not given" (so that :func:`parse_config` knows what to take from the
    game's defaults); the help shows the defaults of :data:`BASE` and the per-game ones."""
    per_game = {name for table in (GAME_DEFAULTS, SOLO_DEFAULTS) for cfg in table.values()
                for name in changes(cfg)}
    epilog = ["per-game defaults (where they differ from the defaults above; every one can be "
              "overridden):"]
    for game, cfg in GAME_DEFAULTS.items():
        text = ", ".join(f"{k}={_show(v)}" for k, v in changes(cfg).items())
        epilog += textwrap.wrap(text, 92, initial_indent=f"  {game}: ", subsequent_indent=" " * 6)
    epilog += ["solo defaults (--num-players 1):"]
    for game, cfg in SOLO_DEFAULTS.items():
        text = ", ".join(f"{k}={_show(v) or '()'}" for k, v in changes(cfg).items())
        epilog += textwrap.wrap(text, 92, initial_indent=f"  {game}: ", subsequent_indent=" " * 6)
    epilog += ["", "Why these values (with measurements): benchmarks/results/<game>/training.md."]
    p = OneLineParser(prog="train.py", description=training_package.__doc__, epilog="\n".join(epilog),
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                argument_default=argparse.SUPPRESS)
    groups = {}
    hints = typing.get_type_hints(TrainConfig)
    for f in dataclasses.fields(TrainConfig):
        meta = dict(f.metadata)
        group = meta.pop("group")
        if group not in groups:
            groups[group] = p.add_argument_group(group)
        text = meta.pop("help")
        meta.pop("summary", None)
        aliases = meta.pop("flags", ())
        kind = hints[f.name]
        if typing.get_origin(kind) is typing.Union:   # Optional[X]
            kind = next(a for a in typing.get_args(kind) if a is not type(None))
        if kind is bool:   # True by default: a flag --no-x; False: a flag --x
            if f.default is True:
                flags = ["--no-" + f.name.replace("_", "-")]
                meta.update(action="store_false", dest=f.name)
            elif f.default is False:
                flags = ["--" + f.name.replace("_", "-")]
                meta.update(action="store_true", dest=f.name)
            else:
                raise TypeError(f"bool setting {f.name} must default to True or False")
        else:
            flags = ["--" + f.name.replace("_", "-")]
            if "action" not in meta and kind is not tuple:
                meta.setdefault("type", kind)
            if f.default is not None and f.default != ():
                shown = _show(f.default, " " if "nargs" in meta else ",")
                text += f" (default: {shown}{'; per game below' if f.name in per_game else ''})"
        short = [a for a in aliases if not a.startswith("--")]
        groups[group].add_argument(*short, *flags, *[a for a in aliases if a.startswith("--")],
                                   help=text, **meta)
    return p


def parse_command(argv=None):
    """``(cfg, given, notes)`` of a command line: the :class:`TrainConfig` (the flags given over
    the game's defaults), the names of the settings given on it, and the changes made to the
    game's recipe because of what was given (each a sentence for the plan).

    A run much shorter than its recipe does not pay the recipe's warm start whole: when the
    warm start comes from the game's defaults (neither ``--warm-start`` nor
    ``--warm-start-samples`` given) and ``--timesteps`` is under a tenth of the recipe's, the
    warm start's decisions are scaled down in proportion (``--timesteps 1000`` of Kingdomino
    Duel: 225 decisions, seconds instead of about 14 minutes)."""
    given = vars(build_parser().parse_args(argv))
    for name, value in given.items():
        if isinstance(value, list):
            given[name] = tuple(value)
    num_players = given.get("num_players", dict(given.get("option", ())).get("num_players"))
    recipe = defaults_for(given["game"], num_players)
    cfg = replace(recipe, **given)
    notes = []
    if (cfg.warm_start != "none" and cfg.timesteps * TINY_RUN < recipe.timesteps
            and not {"warm_start", "warm_start_samples"} & set(given)):
        samples = max(1, math.ceil(recipe.warm_start_samples * cfg.timesteps / recipe.timesteps))
        notes.append(f"warm start scaled to the run: {samples:,} decisions instead of the recipe's "
                     f"{recipe.warm_start_samples:,}, as --timesteps {cfg.timesteps:,} is under a "
                     f"tenth of its {recipe.timesteps:,} (--warm-start-samples N sets it)")
        cfg = replace(cfg, warm_start_samples=samples)
    return cfg, frozenset(given), notes


# A run shorter than 1/TINY_RUN of its recipe's timesteps gets a proportionally smaller warm start.
TINY_RUN = 10


def parse_config(argv=None):
    """The :class:`TrainConfig` of a command line (see :func:`parse_command`)."""
    return parse_command(argv)[0]


# ------------------------------------------------------------------ checks
# Settings that count something, each with the least value it may take.
_AT_LEAST = {"timesteps": 1, "n_envs": 1, "n_steps": 1, "batch_size": 1, "n_epochs": 1,
             "pool_size": 1, "snapshot_every": 1, "eval_games": 1, "final_eval_games": 1,
             "eval_every": 0, "torch_threads": 1, "seed": 0, "verbose": 0}
# Settings that are rates or weights: (low, high, low included).
_BETWEEN = {"learning_rate": (0.0, math.inf, False), "gamma": (0.0, 1.0, False),
            "gae_lambda": (0.0, 1.0, True), "ent_coef": (0.0, math.inf, True),
            "clip_range": (0.0, math.inf, False), "latest_prob": (0.0, 1.0, True),
            "baseline_prob": (0.0, 1.0, True), "shaping": (0.0, math.inf, True),
            "reward_scale": (0.0, math.inf, False)}


def _flag(name):
    return "--" + name.replace("_", "-")


def check(cfg):
    """``ValueError`` (one line naming the flag) for a run that cannot start or means
    nothing: counts and budgets below their least value, rates out of range, an unknown
    game, evaluation opponent or option, a player count the game does not allow, settings
    a solo game has no use for, a missing ``--init-model``.  Cheap checks first; the last
    ones build the game once (its option checks) and each evaluation opponent."""
    if cfg.game not in GAMES:
        raise ValueError(f"--game {cfg.game!r} is not a cityzoo game; games: {', '.join(GAMES)}")
    for name, least in _AT_LEAST.items():
        value = getattr(cfg, name)
        if value is not None and not (isinstance(value, int) and value >= least):
            raise ValueError(f"{_flag(name)} must be an integer >= {least}, got {value!r}")
    for name, (low, high, low_ok) in _BETWEEN.items():
        value = getattr(cfg, name)
        if not (math.isfinite(value) and (value >= low if low_ok else value > low) and value <= high):
            span = (f"in {'[' if low_ok else '('}{low:g}, {high:g}]" if high < math.inf
                    else f"{'>=' if low_ok else '>'} {low:g} and finite")
            raise ValueError(f"{_flag(name)} must be {span}, got {value!r}")
    if any(size < 1 for size in cfg.net_arch):
        raise ValueError(f"--net-arch layer sizes must be >= 1, got {','.join(map(str, cfg.net_arch))}")
    if cfg.num_players is not None and cfg.num_players < 1:
        raise ValueError(f"--num-players must be >= 1, got {cfg.num_players}")
    known = known_agents()
    for name in cfg.eval_opponents:
        if name not in known:
            raise ValueError(f"--eval-opponents: unknown agent {name!r}; known agents: "
                             f"{', '.join(known)}")
    if cfg.init_model and not os.path.isfile(cfg.init_model):
        raise ValueError(f"--init-model {cfg.init_model!r}: no such file")
    if cfg.out and os.path.exists(cfg.out) and not os.path.isdir(cfg.out):
        raise ValueError(f"--out {cfg.out!r} is a file, not a directory")
    # the game's own checks (player count, options): build it once
    try:
        automata = solo_automata(cfg)
    except ValueError as exc:
        raise ValueError(f"{cfg.game}: {exc}") from None
    check_solo_settings(cfg, automata)
    for name in cfg.eval_opponents:   # as the evaluation builds them: by name alone
        try:
            agents.make(name)
        except Exception as exc:   # noqa: BLE001 - any failure means it cannot be an opponent
            raise ValueError(f"--eval-opponents: agent {name!r} cannot be built by its name "
                             f"alone ({exc})") from None


# ------------------------------------------------------------------ the plan
# The MCTS warm start of Kingdomino Duel's recipe (90,000 decisions at 1,500 iterations, two
# worker processes) takes about 14 min on two free cores (29.5 min measured with the cores
# shared: benchmarks/results/kingdomino_duel_v0/training.md).  Its cost grows with decisions
# x iterations / workers; other games' search costs are not measured.
MCTS_WARM_START_SECONDS = {"kingdomino_duel_v0": (14 * 60, 90_000 * 1500 / 2)}


def warm_start_cost(cfg):
    """A sentence on what the warm start of ``cfg`` costs, or None without one."""
    if cfg.warm_start == "none":
        return None
    if cfg.warm_start == "greedy":
        return (f"greedy warm start: {cfg.warm_start_samples:,} decisions labelled in numba, "
                f"{cfg.warm_start_epochs} epochs (usually well under the PPO steps' time)")
    work = cfg.warm_start_samples * cfg.warm_start_simulations / cfg.warm_start_workers
    text = (f"MCTS warm start: {cfg.warm_start_samples:,} decisions at "
            f"{cfg.warm_start_simulations:,} iterations, {cfg.warm_start_workers} worker(s)")
    if cfg.game in MCTS_WARM_START_SECONDS:
        seconds, per = MCTS_WARM_START_SECONDS[cfg.game]
        estimate = seconds * work / per
        shown = f"{estimate / 60:.0f} min" if estimate >= 90 else f"{max(estimate, 1):.0f} s"
        text += f", expected about {shown} on two free cores (plus the search's compilation, the first time)"
    else:
        text += ", time not measured for this game (it grows with decisions x iterations)"
    return text + "; --warm-start none skips it"


def plan(cfg, given=frozenset(), notes=()):
    """The lines ``train.py`` prints before it works: the recipe and what the command line
    changed, the warm start and its expected cost, the evaluation schedule, the output."""
    run = cfg.resolved()
    solo = cfg.num_players == 1
    if solo and cfg.game in SOLO_DEFAULTS:
        recipe = f"the solo recipe of {cfg.game}"
    elif cfg.game in GAME_DEFAULTS:
        recipe = f"the recipe of {cfg.game}"
    else:
        recipe = "the base defaults"
    changed = sorted(given - {"game"})
    lines = [f"game {cfg.game} {cfg.options}; {recipe}"
             + (f", changed on the command line: {', '.join(_flag(n) for n in changed)}" if changed else ""),
             f"training: {run.timesteps:,} learner decisions, policy {cfg.policy}, opponents "
             f"{cfg.opponents}, {run.n_envs} {cfg.env} game(s) at a time, seed {cfg.seed}"]
    lines += list(notes)
    lines.append(warm_start_cost(cfg) or "warm start: none")
    against = "by the solo game's yardstick" if solo else (
        "against " + ", ".join(cfg.eval_opponents) if cfg.eval_opponents else None)
    if against is None:
        lines.append("evaluation: none (no --eval-opponents)")
    else:
        every = (f"every {run.eval_every:,} steps, {cfg.eval_games} games each" if run.eval_every
                 else "no periodic evaluation")
        lines.append(f"evaluation {against}: {every}; final {cfg.final_eval_games} games each")
    lines.append(f"output: {run.out}/")
    return lines


def report_plan(cfg, given=frozenset(), notes=(), file=None):
    """Print :func:`plan` (``[train]`` lines on stderr, as the run's other messages)."""
    for line in plan(cfg, given, notes):
        print(f"[train] {line}", file=file or sys.stderr, flush=True)
