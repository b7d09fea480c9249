"""Masked self-play training of a cityzoo game with sb3-contrib's MaskablePPO.

    python train.py --game kingdomino_duel_v0                      # the game's default budget
    python train.py --game kingdomino_duel_v0 --timesteps 200000 --opponents mix --out runs/kd

One seat of the game learns; the other seats are played by opponents.  By default
(``--env batched``) the ``--n-envs`` games of a rollout are one batch stepped inside numba
(:class:`envs.vector_sb3.SB3SeatVecEnv`): baseline opponents play inside the same call and
self-play snapshots are called once per batch for every game waiting on them; the
learner's seat rotates from game to game.  ``--env aec`` runs one
:class:`envs.SingleAgentEnv` per game over the AEC environment instead (the path the
batched one is measured against).  Opponents:

``random`` / ``greedy``
    the baseline agents (``agents.make(name)``);
``self``
    frozen snapshots of the learner, saved to ``OUT/pool/`` every ``--snapshot-every``
    steps; each episode draws the newest snapshot or one of the ``--pool-size`` newest
    (:class:`agents.players.policy.SnapshotPool`; random play until the first snapshot exists);
``mix`` (default, unless the game's defaults say otherwise)
    the snapshot pool plus, with probability ``--baseline-prob``, a random or greedy seat.

``--warm-start greedy`` first trains the new policy to play greedy's moves, from
``--warm-start-samples`` decisions of batched games labelled in numba with greedy's
choice (and its value head on the returns those games pay), before PPO takes over
(:mod:`agents.learning.imitation`).  ``--warm-start mcts`` distils the search instead: games
between ``MCTSAgent(simulations=--warm-start-simulations)`` seats, played in
``--warm-start-workers`` processes, and the actor fitted to the visit shares at each
decision (``--warm-start-target move``: to the move the search plays).  With ``--policy
values`` the search's samples carry the env's action values, as the policy reads them; a
greedy warm start is refused there, as that policy starts as greedy's choice.

Every ``--eval-every`` steps the current policy (deterministic, seats rotating) plays
``--eval-games`` games against RandomAgent and against GreedyAgent; win rates, mean rank
rewards and score margins go to ``OUT/eval.csv``, to TensorBoard (``OUT/tb/`` when the
``tensorboard`` package is installed) and to the console.  A checkpoint is saved at every
evaluation (``OUT/checkpoints/``), the best one by mean win rate as ``OUT/best_model.zip``.
At the end: ``OUT/final_model.zip`` (play it with ``agents.make("policy", path=...)``; the
same actor as ``OUT/final_model.npz`` plays without torch), a
final evaluation over ``--final-eval-games`` games, ``OUT/learning_curve.png`` and
``OUT/summary.json``.  ``OUT/policy.json`` describes the network (game, options, network
and its arguments), so that every model of the run loads without unpickling
(:mod:`agents.players.policy_files`); ``--init-model`` reads a model that way too, unless
``--trust-pickle`` is given for a trusted file saved without one.

Solo games (``--num-players 1`` in Tiny Towns, Between Two Cities and Smartphone Inc.)
have no other seat: the learner plays alone, the game's automata (Between Two Cities'
two, Steve) inside the game, so ``--opponents`` is ``none`` (any other value is an
error) and there are no baseline opponents to evaluate against.  The evaluation plays
the solo game itself and reports the rulebook's yardstick (:mod:`agents.yardstick`): the
mean score, in Tiny Towns the distribution of rating titles, against automata the win
rate and the margin over the best automaton.  ``defaults_for(game, num_players=1)``
(``SOLO_DEFAULTS``) gives each solo mode its own defaults, rewards included.

Every setting of a run is a field of :class:`TrainConfig` (type, default, help); the
command line is generated from it, and the per-game defaults are ``TrainConfig`` instances
in ``GAME_DEFAULTS`` (every one can be overridden on the command line).  With ``--env aec``,
``--n-envs`` > 1 runs the games in ``SubprocVecEnv`` worker processes, or all in the
training process with ``--vec-env dummy``.
"""
from __future__ import annotations

import argparse
import csv
import dataclasses
import functools
import json
import os
import sys
import textwrap
import time
import typing
from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

EVAL_OPPONENTS = ("random", "greedy")
# --policy names: "mlp" is sb3's MlpPolicy; the others name a class of agents.players.networks.
POLICY_CHOICES = {"mlp": None, "expancity": "ExpancityPolicy", "board": "BoardPolicy",
                  "values": "ActionValuesPolicy"}
OPPONENT_MODES = ("random", "greedy", "self", "mix", "none")   # none: solo games only
ENV_KINDS = ("batched", "aec")
ROLLOUT = 2048          # decisions per rollout when n_steps is not given
DEFAULT_N_ENVS = {"batched": 16, "aec": 2}


# ------------------------------------------------------------------ settings
def _parse_option(text):
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    try:
        value = json.loads(value)
    except json.JSONDecodeError:
        pass
    return key, value


def _parse_net_arch(text):
    try:
        return tuple(int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected layer sizes like 256,256, got {text!r}") from None


def _setting(default, help, group, **cli):
    """A :class:`TrainConfig` field: its default, its ``--help`` text, its help group and
    any argparse details (``flags``, ``choices``, ``type``, ``nargs``, ``action``,
    ``metavar``, ``required``).  ``summary=False`` keeps it out of ``summary.json``."""
    return field(default=default, metadata={"help": help, "group": group, **cli})


GAME, TRAINING, PPO, OUTPUT = "game", "training", "PPO hyper-parameters", "evaluation and output"


@dataclass(frozen=True)
class TrainConfig:
    """Every setting of one training run.  The command line (:func:`build_parser`) is
    generated from these fields: flag ``--name-with-dashes`` (plus ``flags`` aliases), a
    bool ``x`` that defaults to True becomes ``--no-x``.  Values left at ``None`` are
    derived by :meth:`resolved`."""

    # game
    game: Optional[str] = _setting(None, "game id (see envs.GAMES)", GAME, required=True)
    num_players: Optional[int] = _setting(
        None, "player count (default: the game's own, unless its defaults below set one)", GAME)
    option: tuple = _setting(
        (), "extra game option passed to envs.make (value parsed as JSON if possible); repeatable",
        GAME, action="append", type=_parse_option, metavar="KEY=VALUE")
    reward_mode: str = _setting(
        "rank", "learner reward at game end: rank (+1 win .. -1 last) or score margin", GAME,
        choices=("rank", "score"))
    shaping: float = _setting(
        0.0, "weight of potential-based reward shaping by the game's greedy evaluation (score "
        "margin + positional potential; see envs.SingleAgentEnv); 0 = off", GAME)
    reward_scale: float = _setting(
        1.0, "factor on every training reward, terminal and shaping (score margins of tens of "
        "points want ~1/20; the logged training rewards are scaled too)", GAME)
    # training
    timesteps: int = _setting(150_000, "learner decisions to train on", TRAINING)
    env: str = _setting(
        "batched", "batched: the games of a rollout in one numba batch (envs.vector_sb3), the other "
        "seats played inside it (baselines in numba, self-play snapshots called once per batch); "
        "aec: one SingleAgentEnv per game over the AEC env, as before (for comparison)", TRAINING,
        choices=ENV_KINDS)
    n_envs: Optional[int] = _setting(
        None, "games played in parallel (default 16 batched, 2 aec); aec: >1 uses SubprocVecEnv "
        "worker processes unless --vec-env dummy", TRAINING)
    opponents: str = _setting("mix", "who plays the other seats during training (none: a solo "
                              "game, which has no other seat)", TRAINING, choices=OPPONENT_MODES)
    vec_env: str = _setting(
        "auto", "--env aec only. auto: SubprocVecEnv when --n-envs > 1, else DummyVecEnv; dummy runs every game "
        "in the training process (batched policy calls, no IPC)", TRAINING,
        choices=("auto", "subproc", "dummy"))
    seed: int = _setting(0, "seed of everything", TRAINING)
    out: Optional[str] = _setting(None, "output directory (default runs/GAME)", TRAINING,
                                  summary=False)
    snapshot_every: Optional[int] = _setting(
        None, "steps between self-play snapshots (default timesteps/20)", TRAINING)
    pool_size: int = _setting(20, "newest snapshots opponents are drawn from", TRAINING)
    latest_prob: float = _setting(
        0.5, "probability that a self-play seat gets the newest snapshot", TRAINING)
    baseline_prob: float = _setting(
        0.3, "--opponents mix: probability that a seat is a random/greedy baseline", TRAINING)
    init_model: Optional[str] = _setting(
        None, "continue training from this saved model (a .zip of train.py, read with its run's "
        "policy.json and without unpickling)", TRAINING, summary=False)
    trust_pickle: bool = _setting(
        False, "--init-model: load a .zip without policy.json with MaskablePPO.load, which "
        "unpickles it and so runs any code a crafted file holds (only for files you trust)",
        TRAINING, summary=False)
    warm_start: str = _setting(
        "none", "greedy: before PPO, train the policy to play greedy's moves (and its value head on "
        "the returns) from labelled batched games (agents.learning.imitation); mcts: to play like MCTS, "
        "from the visit shares of games between MCTS agents (distillation); none: start from "
        "scratch", TRAINING, choices=("none", "greedy", "mcts"))
    warm_start_samples: int = _setting(
        200_000, "--warm-start: labelled decisions to imitate (held in memory: about samples x "
        "observation size x 4 bytes, with mcts plus samples x actions x 4 bytes)", TRAINING)
    warm_start_epochs: int = _setting(5, "--warm-start: passes over the labelled decisions", TRAINING)
    warm_start_explore: float = _setting(
        0.2, "--warm-start: share of the sample games' moves played at random instead of the "
        "teacher's (positions the teacher alone would not reach)", TRAINING)
    warm_start_simulations: int = _setting(
        400, "--warm-start mcts: MCTS iterations per move of the teacher", TRAINING)
    warm_start_expansion: str = _setting(
        "random", "--warm-start mcts: the order in which the teacher's search expands untried "
        "moves: random, or ordered (best first by greedy's evaluation, MCTSAgent(ordered_expansion="
        "True): stronger at small budgets, at the cost of valuing every move once)", TRAINING,
        choices=("random", "ordered"))
    warm_start_workers: int = _setting(
        2, "--warm-start mcts: processes playing the teacher's games", TRAINING, summary=False)
    warm_start_target: str = _setting(
        "visits", "--warm-start mcts: what the actor learns, the share of the root's visits "
        "every move received (visits) or the move the search plays (move)", TRAINING,
        choices=("visits", "move"))
    # PPO
    policy: str = _setting(
        "mlp", "network: mlp (flat observation, --net-arch hidden layers) or a game's structured "
        "network (agents.players.networks; expancity: per-cell action scores on its crop; board: per-cell "
        "action scores on a fixed board, the games of agents.players.boards.BOARD_SPECS; values: greedy's "
        "one-ply value of each action, read from the env's action_values, plus learned logits)", PPO,
        choices=tuple(sorted(POLICY_CHOICES)))
    net_arch: tuple = _setting((256, 256), "hidden layer sizes, comma separated, e.g. 256,256", PPO,
                               type=_parse_net_arch)
    tie_break: float = _setting(
        0.0, "--policy values: the actor's bias starts falling by this many logits from the first "
        "action id to the last, so that among moves greedy values alike the untrained policy "
        "leans to the lower ids (in the grid games the first square in reading order); 0: "
        "equally valued moves are drawn alike", PPO)
    learn_head: bool = _setting(
        True, "--policy values: keep the actor's per-action head (the --tie-break lean) as it "
        "starts, so that training tunes only the state-dependent weights of greedy's values, "
        "which cannot reorder moves greedy values alike", PPO)
    learning_rate: float = _setting(3e-4, "Adam learning rate", PPO, flags=("--lr",))
    lr_schedule: str = _setting(
        "constant", "constant: --lr throughout; linear: from --lr down to 0 at the last step, "
        "so that the final policy moves less from update to update", PPO,
        choices=("constant", "linear"))
    n_steps: Optional[int] = _setting(
        None, "rollout length per game (default: 2048 decisions per rollout over the n_envs games)", PPO)
    batch_size: int = _setting(256, "minibatch size (at most n_steps x n_envs)", PPO)
    n_epochs: int = _setting(5, "passes over each rollout", PPO)
    gamma: float = _setting(0.995, "discount factor", PPO)
    gae_lambda: float = _setting(0.95, "GAE lambda", PPO)
    ent_coef: float = _setting(0.01, "entropy bonus coefficient", PPO)
    clip_range: float = _setting(0.2, "PPO clipping range", PPO)
    # evaluation and output
    eval_games: int = _setting(50, "games per baseline at each periodic evaluation", OUTPUT)
    eval_every: Optional[int] = _setting(
        None, "steps between evaluations (default timesteps/10; 0 disables periodic ones)", OUTPUT)
    final_eval_games: int = _setting(400, "games per baseline in the final evaluation", OUTPUT)
    eval_opponents: tuple = _setting(
        EVAL_OPPONENTS, "baseline agent names to evaluate against (unknown names are skipped)",
        OUTPUT, nargs="+")
    save_games: Optional[str] = _setting(
        None, "write every game of the final evaluation into this directory as an envs.records "
        "JSON Lines file per opponent (watch one with python -m envs.view)", OUTPUT, summary=False)
    progress: bool = _setting(True, "no progress bar", OUTPUT, summary=False)
    tensorboard: bool = _setting(True, "do not write TensorBoard logs", OUTPUT, summary=False)
    plot: bool = _setting(True, "do not draw learning_curve.png", OUTPUT, summary=False)
    device: str = _setting("cpu", "torch device", OUTPUT)
    torch_threads: int = _setting(
        1, "torch threads of the training process (the env workers idle during PPO updates, so "
        "2 pays off for convolutions)", OUTPUT)
    verbose: int = _setting(1, "0 quiet, 1 evaluations, 2 + PPO logs", OUTPUT, flags=("-v",),
                            summary=False)

    def __post_init__(self):
        for f in dataclasses.fields(self):
            choices = f.metadata.get("choices")
            value = getattr(self, f.name)
            if choices and value is not None and value not in choices:
                raise ValueError(f"{f.name} must be one of {list(choices)}, got {value!r}")
            if f.type in (bool, "bool") and not isinstance(value, (bool, np.bool_)):
                raise ValueError(f"{f.name} must be True or False, got {value!r}")
        for name in ("warm_start_samples", "warm_start_epochs", "warm_start_simulations",
                     "warm_start_workers"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be an integer >= 1, got {getattr(self, name)!r}")
        if not (np.isfinite(self.tie_break) and self.tie_break >= 0.0):
            raise ValueError(f"tie_break must be a finite number >= 0, got {self.tie_break!r}")
        if self.tie_break and self.policy != "values":
            raise ValueError(f"tie_break applies to policy 'values' only, not {self.policy!r}")
        if not self.learn_head and self.policy != "values":
            raise ValueError(f"learn_head=False applies to policy 'values' only, not {self.policy!r}")
        if not 0.0 <= self.warm_start_explore <= 1.0:
            raise ValueError(f"warm_start_explore must be in [0, 1], got {self.warm_start_explore!r}")
        if self.warm_start != "none" and self.init_model:
            raise ValueError("warm_start starts a new policy; it cannot be combined with init_model")
        if self.warm_start == "greedy" and self.policy == "values":
            raise ValueError("warm_start 'greedy' cannot be combined with policy 'values': that "
                             "policy starts as greedy's choice already (use warm_start 'mcts')")

    @property
    def options(self):
        """The game options for ``envs.make``: ``--option``s, num_players and reward_mode."""
        options = dict(self.option)
        if self.num_players is not None:   # None: the game's own default
            options["num_players"] = self.num_players
        options["reward_mode"] = self.reward_mode
        return options

    @property
    def env_options(self):
        """:attr:`options` for the training env: the ``values`` policy reads the env's
        ``action_values`` after the observation."""
        options = self.options
        if self.policy == "values":
            options["action_values"] = True
        return options

    def resolved(self):
        """This config with the derived values filled in: ``n_envs`` (16 batched, 2 aec),
        ``n_steps`` (a rollout of 2048 decisions), ``eval_every`` (timesteps/10),
        ``snapshot_every`` (timesteps/20), ``out`` (runs/GAME), and ``batch_size`` capped at
        one rollout (a larger batch makes PPO warn and truncate)."""
        steps = int(self.timesteps)
        n_envs = int(self.n_envs if self.n_envs is not None else DEFAULT_N_ENVS[self.env])
        n_steps = int(self.n_steps if self.n_steps is not None else max(1, ROLLOUT // n_envs))
        return replace(
            self, timesteps=steps, n_envs=n_envs, n_steps=n_steps,
            eval_every=self.eval_every if self.eval_every is not None else max(1, steps // 10),
            snapshot_every=(self.snapshot_every if self.snapshot_every is not None
                            else max(1, steps // 20)),
            out=self.out or os.path.join("runs", self.game),
            batch_size=int(min(self.batch_size, n_steps * n_envs)))

    def summary(self):
        """The settings recorded in ``summary.json`` (not the output switches)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                if f.metadata.get("summary", True) and f.name != "option"}


BASE = TrainConfig()


def _game(game, **changes):
    return replace(BASE, game=game, **changes)


# The recipe of the games whose policy reads greedy's action values (--policy values): it
# starts as greedy's choice (in Between Two Cities, the choice of a stronger potential:
# kernels.between_two_cities.feature_potential), so it learns against greedy itself, on the
# score margin, with small and shrinking steps that keep it from drifting off that start.
VALUES_RECIPE = dict(policy="values", opponents="greedy", reward_mode="score", learning_rate=1e-4,
                     lr_schedule="linear", ent_coef=0.0, n_epochs=4)

# The warm start of the games where distilling MCTS into the values policy pays: the actor
# learns the move the search plays in games played by the search alone (the budget, in
# decisions and iterations, is per game).
DISTIL_RECIPE = dict(warm_start="mcts", warm_start_target="move", warm_start_epochs=8,
                     warm_start_explore=0.0)

# Per-game defaults; why each value was chosen, with the measurements behind it:
# benchmarks/results/<game>/training.md.
GAME_DEFAULTS = {cfg.game: cfg for cfg in (
    _game("kingdomino_duel_v0", timesteps=400_000, warm_start_samples=90_000,
          warm_start_simulations=1500, **DISTIL_RECIPE, **VALUES_RECIPE),
    _game("smartphone_inc_v0", net_arch=(128, 128), n_epochs=4, shaping=0.05, timesteps=100_000),
    _game("expancity_v0", policy="expancity", torch_threads=2, vec_env="dummy", n_envs=8,
          n_steps=256, n_epochs=4, gamma=0.95, gae_lambda=0.9, shaping=1.0, reward_scale=0.05,
          timesteps=800_000, opponents="random", reward_mode="score", ent_coef=0.0),
    _game("tiny_towns_v0", timesteps=150_000, tie_break=8.0, learn_head=False, **VALUES_RECIPE),
    _game("between_two_cities_v0", num_players=2, timesteps=150_000, **VALUES_RECIPE),
)}


def _solo(game, **changes):
    return _game(game, num_players=1, opponents="none", eval_opponents=(), **changes)


# Solo modes (num_players=1): no opponents; the evaluation plays the solo game.  The
# learner's reward (terminal reward, plus shaping by its margin over the other participants):
# * Tiny Towns, no one to beat: the final score (the shell pays it in either reward_mode);
#   the shaping's margin is the seat's own score plus potential.
# * Smartphone Inc.: win plus margin -- the rank reward (+1 beat Steve, -1 lost) and the
#   shaping by the margin over Steve.
# * Between Two Cities: the score (the seat's lower city).  Win plus margin gives no signal:
#   each automaton scores the lower of a city it shares with the seat and the Deep Learning
#   City, so while the seat trails that city the margin only asks to keep the two cities
#   level, and the rank is second or last in nearly every game.  Measured, 20,000 steps, 40
#   eval games: rank + shaping mean score 42.3 -> 43.0, score 42.3 -> 45.4.
SOLO_DEFAULTS = {cfg.game: cfg for cfg in (
    _solo("tiny_towns_v0", net_arch=(128, 128), n_epochs=4, shaping=0.1, timesteps=500_000,
          reward_mode="score", ent_coef=0.0),
    _solo("between_two_cities_v0", net_arch=(128, 128), n_epochs=4, shaping=0.05,
          reward_mode="score", reward_scale=0.05, timesteps=150_000),
    _solo("smartphone_inc_v0", net_arch=(128, 128), n_epochs=4, shaping=0.05, timesteps=100_000),
)}


def defaults_for(game, num_players=None):
    """The default :class:`TrainConfig` of ``game`` (:data:`BASE` for a game not listed);
    with ``num_players=1`` its solo defaults (:data:`SOLO_DEFAULTS`, or the game's own
    defaults with one seat and no opponents)."""
    if num_players == 1:
        return SOLO_DEFAULTS.get(game) or replace(
            defaults_for(game), num_players=1, opponents="none", eval_opponents=())
    return GAME_DEFAULTS.get(game) or _game(game)


def _changes(cfg, base=BASE):
    """``{name: value}`` of the fields where ``cfg`` differs from ``base`` (except game)."""
    return {f.name: getattr(cfg, f.name) for f in dataclasses.fields(cfg)
            if f.name != "game" and getattr(cfg, f.name) != getattr(base, f.name)}


def _show(value, sep=","):
    if isinstance(value, tuple):
        return sep.join(str(v) for v in value)
    return str(value)


# ------------------------------------------------------------------ command line
def build_parser():
    """The command line, generated from the fields of :class:`TrainConfig`.  Every flag
    defaults to "not given" (so that :func:`parse_config` knows what to take from the
    game's defaults); the help shows the defaults of :data:`BASE` and the per-game ones."""
    per_game = {name for table in (GAME_DEFAULTS, SOLO_DEFAULTS) for cfg in table.values()
                for name in _changes(cfg)}
    epilog = ["per-game defaults (where they differ from the defaults above; every one can be "
              "overridden):"]
    for game, cfg in GAME_DEFAULTS.items():
        text = ", ".join(f"{k}={_show(v)}" for k, v in _changes(cfg).items())
        epilog += textwrap.wrap(text, 92, initial_indent=f"  {game}: ", subsequent_indent=" " * 6)
    epilog += ["solo defaults (--num-players 1):"]
    for game, cfg in SOLO_DEFAULTS.items():
        text = ", ".join(f"{k}={_show(v) or '()'}" for k, v in _changes(cfg).items())
        epilog += textwrap.wrap(text, 92, initial_indent=f"  {game}: ", subsequent_indent=" " * 6)
    epilog += ["", "Why these values (with measurements): benchmarks/results/<game>/training.md."]
    p = argparse.ArgumentParser(prog="train.py", description=__doc__, epilog="\n".join(epilog),
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


def parse_config(argv=None):
    """The :class:`TrainConfig` of a command line: the flags given over the game's defaults."""
    given = vars(build_parser().parse_args(argv))
    for name, value in given.items():
        if isinstance(value, list):
            given[name] = tuple(value)
    num_players = given.get("num_players", dict(given.get("option", ())).get("num_players"))
    return replace(defaults_for(given["game"], num_players), **given)


# ---------------------------------------------------------------- evaluation
def available_agents(names):
    """The names among ``names`` that ``agents.make`` can build (others are reported)."""
    import agents
    ok = []
    for name in names:
        try:
            agents.make(name)
        except Exception as exc:   # noqa: BLE001 - an agent that cannot be built is skipped
            print(f"[train] evaluation opponent {name!r} unavailable ({exc}); skipped",
                  file=sys.stderr)
        else:
            ok.append(name)
    return ok


def evaluate(learner, opponent_name, game, options, n_games, seed=0, save_to=None):
    """``learner`` (an agent) against ``opponent_name`` on every other seat, seats rotating.

    Returns ``{"games", "win_rate", "mean_reward", "mean_margin"}``: win = the learner is
    among the winners; reward = its rank (or score) reward; margin = its final score minus
    the mean of the others'.  ``save_to``: a ``.jsonl`` path that receives every game's
    :mod:`envs.records` record."""
    import agents
    import envs
    from agents.loop import play_game
    from envs import records

    env = envs.make(game, **options)
    n = len(env.possible_agents)
    opponent = agents.make(opponent_name, seed=seed)
    wins, rewards, margins = 0, [], []
    for i in range(n_games):
        seat = i % n
        seat_agents = [opponent] * n
        seat_agents[seat] = learner
        game_seed = seed * 1_000_003 + i
        log = None
        if save_to is not None:
            players = [opponent_name] * n
            players[seat] = "learner"
            log = records.new_record(game, options, game_seed, players=players)
        record = play_game(env, seat_agents, seed=game_seed, record=log)
        if log is not None:
            records.save(log, save_to)
        info = record.info
        me = env.possible_agents[seat]
        wins += me in info.get("winners", ())
        rewards.append(record.rewards[me])
        scores = info.get("scores", [0] * n)
        others = [s for j, s in enumerate(scores) if j != seat]
        margins.append(scores[seat] - (np.mean(others) if others else 0.0))
    return {"games": n_games, "win_rate": wins / max(1, n_games),
            "mean_reward": float(np.mean(rewards)) if rewards else 0.0,
            "mean_margin": float(np.mean(margins)) if margins else 0.0}


def solo_automata(cfg):
    """How many automata play ``cfg``'s game when it has a single seat (0 in Tiny Towns'
    solo game, 2 in Between Two Cities', 1 -- Steve -- in Smartphone Inc.'s); None when the
    game has several seats."""
    import envs
    raw = envs.make(cfg.game, **cfg.options).unwrapped
    if len(raw.possible_agents) != 1:
        return None
    return max(int(raw.cfg.num_participants) - 1, 0)


def check_solo_settings(cfg, automata):
    """``ValueError`` for settings that mean nothing with ``automata`` (see
    :func:`solo_automata`): opponents or baseline evaluations in a solo game, ``none``
    opponents in a game with several seats."""
    if automata is None:
        if cfg.opponents == "none":
            raise ValueError(f"opponents='none' is for solo games (num_players=1); {cfg.game} "
                             f"with {cfg.options} has several seats to fill")
        return
    hint = f"(the solo defaults: train.defaults_for({cfg.game!r}, num_players=1))"
    if cfg.opponents != "none":
        raise ValueError(f"opponents={cfg.opponents!r}: the solo game of {cfg.game} has no other "
                         f"seat to play (its automata play inside the game); use 'none' {hint}")
    if cfg.eval_opponents:
        raise ValueError(f"eval_opponents={list(cfg.eval_opponents)}: a solo game has no seat for "
                         f"an opponent; its evaluation plays the solo game itself {hint}")
    if cfg.eval_games < 1 or cfg.final_eval_games < 1:
        raise ValueError("eval_games and final_eval_games must be >= 1 in a solo game, got "
                         f"{cfg.eval_games} and {cfg.final_eval_games}")


def evaluate_solo(learner, game, options, n_games, seed=0, save_to=None):
    """``learner`` plays ``n_games`` of ``game``'s solo mode (``options`` with one seat), the
    automata, if any, inside the game.

    Returns the yardstick of :func:`agents.yardstick.yardstick` -- ``games``, ``mean_score``,
    ``score_se``, ``win_rate`` and ``mean_margin`` over the best automaton (None without
    automata), ``titles`` (Tiny Towns) -- plus ``mean_reward`` (the learner's game reward)
    and ``scores`` (each game's final score, in game order).  Game ``i`` has the seed
    ``seed * 1_000_003 + i``; ``save_to`` as for :func:`evaluate`."""
    import envs
    from agents.loop import play_game
    from agents.yardstick import solo_outcome, yardstick
    from envs import records

    env = envs.make(game, **options)
    me = env.possible_agents[0]
    outcomes, rewards = [], []
    for i in range(n_games):
        game_seed = seed * 1_000_003 + i
        log = records.new_record(game, options, game_seed, players=["learner"]) if save_to else None
        record = play_game(env, [learner], seed=game_seed, record=log)
        if log is not None:
            records.save(log, save_to)
        outcomes.append(solo_outcome(env, record))
        rewards.append(record.rewards[me])
    return {**yardstick(outcomes), "mean_reward": float(np.mean(rewards)),
            "scores": [o["score"] for o in outcomes]}


def _solo_line(res):
    """The console words of a solo evaluation's yardstick."""
    se = f" ± {res['score_se']:.1f}" if res["score_se"] is not None else ""
    words = [f"score {res['mean_score']:6.1f}{se}"]
    if res["win_rate"] is not None:
        words.append(f"win {res['win_rate']:6.1%}  margin {res['mean_margin']:+.1f}")
    if res["titles"] is not None:
        words.append("titles " + ", ".join(f"{t} {c}" for t, c in res["titles"].items() if c))
    return "  ".join(words)


# ------------------------------------------------------------------ training
# mean_score, score_se and titles (JSON {title: games}) are filled in solo games only,
# where win_rate/mean_margin are against the best automaton (empty without automata).
EVAL_FIELDS = ["timesteps", "elapsed_s", "opponent", "games", "win_rate", "mean_reward",
               "mean_margin", "train_reward", "train_win_rate", "mean_score", "score_se",
               "titles"]


def _make_callback(cfg, out, eval_names, verbose, automata=None):
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.players.policy import PolicyAgent, export_numpy_actor

    class SelfPlayCallback(BaseCallback):
        """Snapshots for the self-play pool, periodic evaluations, checkpoints, CSV/TB logs."""

        def __init__(self):
            super().__init__(verbose=0)
            self.pool_dir = os.path.join(out, "pool")
            self.ckpt_dir = os.path.join(out, "checkpoints")
            self.csv_path = os.path.join(out, "eval.csv")
            self.next_snapshot = 0
            self.next_eval = cfg.eval_every if cfg.eval_every else None
            self.last_eval_step = -1
            self.best = None
            self.start = time.time()
            self.history = []
            self.solo_results = []     # every solo evaluation's result, in order

        def _on_training_start(self):
            os.makedirs(self.pool_dir, exist_ok=True)
            os.makedirs(self.ckpt_dir, exist_ok=True)
            with open(self.csv_path, "w", newline="") as f:
                csv.writer(f).writerow(EVAL_FIELDS)
            self.start = time.time()
            if self.next_eval is not None:   # relative to the start (--init-model continues)
                self.next_eval = self.num_timesteps + cfg.eval_every
            self.snapshot()
            if self.next_eval is not None and eval_names:
                self.run_eval(cfg.eval_games)   # the untrained policy: the curve's origin

        def snapshot(self):
            steps = self.num_timesteps
            path = os.path.join(self.pool_dir, f"snapshot_{steps:010d}")
            try:   # a small numpy actor: workers load it fast and without torch
                export_numpy_actor(self.model, path + ".npz")
            except ValueError:   # an architecture the numpy actor does not cover
                tmp = os.path.join(self.pool_dir, f"tmp_{steps}.zip")
                self.model.save(tmp)
                os.replace(tmp, path + ".zip")
            self.next_snapshot = steps + cfg.snapshot_every

        def train_stats(self):
            buf = list(self.model.ep_info_buffer or [])
            if not buf:
                return float("nan"), float("nan")
            reward = float(np.mean([e["r"] for e in buf]))
            won = [e["won"] for e in buf if "won" in e]
            if automata == 0:   # a lone player always "wins"
                won = []
            return reward, (float(np.mean(won)) if won else float("nan"))

        def run_eval(self, n_games, final=False):
            steps = self.num_timesteps
            learner = PolicyAgent(model=self.model, deterministic=True)
            train_reward, train_win = self.train_stats()
            rows, rates = [], []
            for k, name in enumerate(eval_names):
                t0 = time.time()
                file = "final-solo.jsonl" if automata is not None else f"final-vs-{name}.jsonl"
                save_to = os.path.join(cfg.save_games, file) if final and cfg.save_games else None
                seed = cfg.seed * 7919 + 17 * k + (0 if final else steps % 9973 + 1)
                if automata is not None:
                    res = evaluate_solo(learner, cfg.game, cfg.options, n_games, seed=seed,
                                        save_to=save_to)
                    self.solo_results.append(res)
                    # the best model: by win rate, then margin, against automata; else by score
                    rates.append((res["win_rate"] or 0.0, res["mean_score"] if automata == 0
                                  else res["mean_margin"]))
                else:
                    res = evaluate(learner, name, cfg.game, cfg.options, n_games, seed=seed,
                                   save_to=save_to)
                    rates.append(res["win_rate"])
                row = {"timesteps": steps, "elapsed_s": round(time.time() - self.start, 1),
                       "opponent": name + (" (final)" if final else ""), **res,
                       "train_reward": train_reward, "train_win_rate": train_win}
                if automata is not None:
                    row["titles"] = json.dumps(res["titles"]) if res["titles"] else None
                    self.record_solo(res, steps, n_games, time.time() - t0)
                else:
                    self.record_versus(name, res, steps, n_games, time.time() - t0)
                rows.append(row)
            with open(self.csv_path, "a", newline="") as f:
                w = csv.DictWriter(f, fieldnames=EVAL_FIELDS, extrasaction="ignore")
                for row in rows:
                    w.writerow(row)
            self.history.extend(rows)
            self.last_eval_step = steps
            if rates and not final:
                self.model.save(os.path.join(self.ckpt_dir, f"model_{steps:010d}.zip"))
                score = rates[0] if automata is not None else float(np.mean(rates))
                if self.best is None or score >= self.best:
                    self.best = score
                    self.model.save(os.path.join(out, "best_model.zip"))
            return rows

        def record_versus(self, name, res, steps, n_games, seconds):
            """An evaluation against baseline ``name`` to TensorBoard and the console."""
            self.logger.record(f"eval/win_rate_{name}", res["win_rate"])
            self.logger.record(f"eval/mean_reward_{name}", res["mean_reward"])
            self.logger.record(f"eval/mean_margin_{name}", res["mean_margin"])
            if verbose:
                msg = (f"[train] step {steps:>9,}  vs {name:<7} win {res['win_rate']:6.1%}  "
                       f"reward {res['mean_reward']:+.3f}  margin {res['mean_margin']:+.1f}  "
                       f"({n_games} games, {seconds:.1f}s)")
                print(msg, file=sys.stderr, flush=True)

        def record_solo(self, res, steps, n_games, seconds):
            """A solo evaluation's yardstick to TensorBoard and the console."""
            self.logger.record("eval/solo_mean_score", res["mean_score"])
            if res["win_rate"] is not None:
                self.logger.record("eval/solo_win_rate", res["win_rate"])
                self.logger.record("eval/solo_mean_margin", res["mean_margin"])
            for title, count in (res["titles"] or {}).items():
                self.logger.record(f"eval/solo_title_share/{title}", count / res["games"])
            if verbose:
                print(f"[train] step {steps:>9,}  solo  {_solo_line(res)}  ({n_games} games, "
                      f"{seconds:.1f}s)", file=sys.stderr, flush=True)

        def _on_rollout_end(self):
            reward, win = self.train_stats()
            if np.isfinite(win):
                self.logger.record("rollout/win_rate", win)

        def _on_step(self):
            if cfg.opponents in ("self", "mix") and self.num_timesteps >= self.next_snapshot:
                self.snapshot()
            if self.next_eval is not None and self.num_timesteps >= self.next_eval:
                self.run_eval(cfg.eval_games)
                while self.next_eval <= self.num_timesteps:
                    self.next_eval += cfg.eval_every
            return True

    return SelfPlayCallback()


def _mask_cache_wrapper():
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class VecMaskCache(VecEnvWrapper):
        """Answers MaskablePPO's ``env_method("action_masks")`` from the masks the envs put in
        their step/reset infos, saving a round trip to every worker process per step."""

        def __init__(self, venv):
            super().__init__(venv)
            self._masks = [None] * self.num_envs

        def _take(self, i, info):
            mask = info.get("action_mask") if info else None
            self._masks[i] = None if mask is None else np.asarray(mask, dtype=bool)

        def reset(self):
            obs = self.venv.reset()
            for i, info in enumerate(self.venv.reset_infos):
                self._take(i, info)
            return obs

        def step_wait(self):
            obs, rewards, dones, infos = self.venv.step_wait()
            for i, done in enumerate(dones):
                self._take(i, self.venv.reset_infos[i] if done else infos[i])
            return obs, rewards, dones, infos

        def env_method(self, method_name, *args, indices=None, **kwargs):
            if (method_name == "action_masks" and not args and not kwargs and indices is None
                    and all(m is not None for m in self._masks)):
                return list(self._masks)
            return self.venv.env_method(method_name, *args, indices=indices, **kwargs)

    return VecMaskCache


def training_opponents(cfg, out):
    """Who plays the other seats: a baseline name, the self-play :class:`SnapshotPool`
    (an opponent factory both kinds of training env call at the start of every game), or
    no one (``none``: a solo game)."""
    import envs
    from agents.players.policy import SnapshotPool

    mode = cfg.opponents
    if mode == "none":
        return ()
    if mode in ("random", "greedy"):
        return mode
    n_opp = len(envs.make(cfg.game, **cfg.options).possible_agents) - 1
    baselines = tuple(available_agents(EVAL_OPPONENTS)) if mode == "mix" else ()
    return SnapshotPool(os.path.join(out, "pool"), num_opponents=n_opp,
                        latest_prob=cfg.latest_prob, window=cfg.pool_size, baselines=baselines,
                        baseline_prob=cfg.baseline_prob if mode == "mix" else 0.0)


def make_vec_env(cfg, out):
    """The training VecEnv (``cfg`` resolved), wrapped in a VecMonitor that logs win rates:
    ``--env batched``: one :class:`envs.vector_sb3.SB3SeatVecEnv` of ``n_envs`` games, the
    learner's seat rotating from game to game; ``--env aec``: ``n_envs`` SingleAgentEnvs
    (subprocesses when > 1), the learner's seat drawn at random each game."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    import envs
    import agents

    opponents = training_opponents(cfg, out)
    if cfg.env == "batched":
        from envs.vector_sb3 import SB3SeatVecEnv
        venv = SB3SeatVecEnv(cfg.game, cfg.n_envs, opponents=opponents, seat="rotate",
                             shaping=cfg.shaping, reward_scale=cfg.reward_scale, **cfg.env_options)
        venv.seed(cfg.seed)
        return VecMonitor(venv, info_keywords=("won",))
    fns = [functools.partial(envs.SingleAgentEnv, cfg.game, opponents=opponents,
                             agent_factory=agents.make,
                             shaping=cfg.shaping, reward_scale=cfg.reward_scale,
                             **cfg.env_options)
           for _ in range(cfg.n_envs)]
    kind = cfg.vec_env
    if kind == "subproc" or (kind == "auto" and cfg.n_envs > 1):
        venv = SubprocVecEnv(fns)
    else:
        venv = DummyVecEnv(fns)
    venv.seed(cfg.seed)
    return VecMonitor(_mask_cache_wrapper()(venv), info_keywords=("won",))


def plot_learning_curve(history, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    if history and history[0]["opponent"].startswith("solo"):
        _plot_solo_curve(history, ax1, ax2, title)
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        return
    periodic = [r for r in history if "(final)" not in r["opponent"]]
    names = list(dict.fromkeys(r["opponent"].replace(" (final)", "") for r in history))
    colors = {name: f"C{i}" for i, name in enumerate(names)}
    for name in names:
        rows = [r for r in periodic if r["opponent"] == name]
        if not rows:
            continue
        ax1.plot([r["timesteps"] for r in rows], [r["win_rate"] for r in rows], "o-",
                 color=colors[name], label=f"vs {name}")
        ax2.plot([r["timesteps"] for r in rows], [r["mean_reward"] for r in rows], "o-",
                 color=colors[name], label=f"eval vs {name}")
    first = list(dict.fromkeys(r["opponent"] for r in periodic))[:1]
    rows = [r for r in periodic if r["opponent"] in first and np.isfinite(r["train_reward"])]
    if rows:
        ax2.plot([r["timesteps"] for r in rows], [r["train_reward"] for r in rows], "k--",
                 label="training episodes")
    for r in history:
        if "(final)" in r["opponent"]:
            name = r["opponent"].replace(" (final)", "")
            ax1.plot([r["timesteps"]], [r["win_rate"]], "*", markersize=13, color=colors[name],
                     markeredgecolor="k", label=f"final vs {name} ({r['games']} games)")
    ax1.set(xlabel="timesteps", ylabel="win rate", ylim=(-0.02, 1.02), title=f"{title}: win rate")
    ax2.set(xlabel="timesteps", ylabel="mean reward", title="mean reward")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _plot_solo_curve(history, ax1, ax2, title):
    """A solo run's curve: the mean eval score (left); the win rate and margin against the
    automata, or without automata the share of each rating title (right)."""
    periodic = [r for r in history if "(final)" not in r["opponent"]]
    final = [r for r in history if "(final)" in r["opponent"]]
    steps = [r["timesteps"] for r in periodic]
    ax1.errorbar(steps, [r["mean_score"] for r in periodic],
                 yerr=[r["score_se"] or 0.0 for r in periodic], fmt="o-", color="C0", capsize=3,
                 label="eval (deterministic)")
    for r in final:
        ax1.plot([r["timesteps"]], [r["mean_score"]], "*", markersize=13, color="C0",
                 markeredgecolor="k", label=f"final ({r['games']} games)")
    ax1.set(xlabel="timesteps", ylabel="mean score", title=f"{title} solo: mean score")
    if periodic and periodic[0]["win_rate"] is not None:
        ax2.plot(steps, [r["win_rate"] for r in periodic], "o-", color="C1", label="win rate")
        for r in final:
            ax2.plot([r["timesteps"]], [r["win_rate"]], "*", markersize=13, color="C1",
                     markeredgecolor="k", label="final win rate")
        ax2.set(xlabel="timesteps", ylabel="win rate", ylim=(-0.02, 1.02),
                title="against the automata")
        twin = ax2.twinx()
        twin.plot(steps, [r["mean_margin"] for r in periodic], "s--", color="C2",
                  label="margin over the best automaton")
        twin.axhline(0.0, color="C2", lw=0.8, alpha=0.5)
        twin.set_ylabel("mean margin")
        twin.legend(fontsize=8, loc="lower right")
    elif periodic and periodic[0]["titles"]:
        counts = [json.loads(r["titles"]) for r in periodic]
        names = list(counts[0])
        shares = [[c[t] / r["games"] for c, r in zip(counts, periodic)] for t in names]
        ax2.stackplot(steps, shares, labels=names, alpha=0.8)
        ax2.set(xlabel="timesteps", ylabel="share of games", ylim=(0, 1),
                title="rating titles (best first)")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="upper left")


def warm_start(model, cfg, verbose=1):
    """Pre-train ``model``'s policy on a teacher's moves from ``cfg.warm_start_samples``
    decisions, their returns paid as the training env pays them (reward mode, shaping,
    reward scale, gamma); see :mod:`agents.learning.imitation`.  ``cfg.warm_start == "greedy"``:
    greedy's choices in labelled batched games; ``"mcts"``: the visit shares of
    ``MCTSAgent(cfg.warm_start_simulations)`` (expanding in ``cfg.warm_start_expansion`` order)
    in games between such agents, played in
    ``cfg.warm_start_workers`` processes.  Returns the pre-training's statistics
    (accuracies, seconds)."""
    from agents.learning import imitation

    t0 = time.time()
    log = (lambda line: print(line, file=sys.stderr, flush=True)) if verbose else None
    common = dict(explore=cfg.warm_start_explore, gamma=cfg.gamma, shaping=cfg.shaping,
                  reward_scale=cfg.reward_scale, seed=cfg.seed)
    if cfg.warm_start == "mcts":    # the env's options: the values policy's samples carry them
        samples = imitation.search_samples(
            cfg.game, cfg.warm_start_samples, simulations=cfg.warm_start_simulations,
            ordered_expansion=cfg.warm_start_expansion == "ordered",
            workers=cfg.warm_start_workers, log=log, **common, **cfg.env_options)
    else:       # greedy's samples have no visit shares: pretrain fits their labels either way
        samples = imitation.greedy_samples(cfg.game, cfg.warm_start_samples, **common, **cfg.options)
    t_samples = time.time() - t0
    stats = imitation.pretrain(model.policy, samples, epochs=cfg.warm_start_epochs,
                               target=cfg.warm_start_target, seed=cfg.seed, log=log)
    stats.update(sample_seconds=round(t_samples, 1), seconds=round(time.time() - t0, 1))
    if verbose:
        teacher = "MCTS" if cfg.warm_start == "mcts" else "greedy"
        print(f"[train] warm start from {teacher}: {stats['samples']:,} decisions "
              f"({t_samples:.0f}s), actor plays {teacher}'s move in "
              f"{stats.get('holdout_accuracy', stats['train_accuracy']):.1%} of held-out decisions "
              f"({stats['seconds']:.0f}s in all)", file=sys.stderr, flush=True)
    return stats


def learning_rate_schedule(cfg):
    """PPO's ``learning_rate``: the number ``cfg.learning_rate``, or with ``lr_schedule ==
    "linear"`` a function of sb3's remaining progress (1 at the first update, 0 at the
    end of this ``learn`` call) going from it down to 0."""
    if cfg.lr_schedule == "constant":
        return cfg.learning_rate
    from stable_baselines3.common.utils import LinearSchedule
    return LinearSchedule(cfg.learning_rate, 0.0, 1.0)


def policy_class(name):
    """The MaskablePPO policy for a ``--policy`` name."""
    if name not in POLICY_CHOICES:
        raise ValueError(f"policy must be one of {sorted(POLICY_CHOICES)}, got {name!r}")
    if POLICY_CHOICES[name] is None:
        return "MlpPolicy"
    from agents.players import networks
    return getattr(networks, POLICY_CHOICES[name])


def win_interval(rate, games):
    """The Wilson 95% interval ``[low, high]`` of a win rate measured over ``games`` games."""
    from agents.rating.elo import wilson_interval
    low, high = wilson_interval(int(round(rate * games)), games)
    return [round(low, 4), round(high, 4)]


def policy_kwargs(cfg):
    """The policy's constructor arguments: the MLP's layer sizes; the board network is told
    its game (it reads the board's planes and pointing actions from agents.players.boards); the
    values network gets them as its body's."""
    kwargs = dict(net_arch=list(cfg.net_arch))
    if cfg.policy == "board":
        kwargs["features_extractor_kwargs"] = dict(game=cfg.game)
    if cfg.policy == "values":   # its MLP is the extractor's body
        kwargs["features_extractor_kwargs"] = dict(hidden=tuple(cfg.net_arch),
                                                   tie_break=float(cfg.tie_break),
                                                   learn_head=bool(cfg.learn_head))
    return kwargs


def load_initial_model(path, venv, cfg, hyper):
    """``--init-model`` without unpickling: a new MaskablePPO of the network in the model's
    ``policy.json``, given the zip's weights, optimiser state and step counts
    (:func:`agents.players.policy_files.load_zip`)."""
    from sb3_contrib import MaskablePPO

    from agents.players import policy_files

    loaded = policy_files.load_zip(path, device=cfg.device)
    config = loaded.config
    if config["game"] != cfg.game:
        raise ValueError(f"--init-model {path!r} was trained on {config['game']}, not {cfg.game}")
    if loaded.policy.observation_space.shape != venv.observation_space.shape:
        raise ValueError(f"--init-model {path!r} reads {loaded.policy.observation_space.shape[0]} "
                         f"observation values, the training env gives {venv.observation_space.shape[0]}: "
                         f"train with the model's options {config['options']}")
    model = MaskablePPO(policy_files.network_class(config["network"]), venv, seed=cfg.seed,
                        device=cfg.device, policy_kwargs=dict(config["policy_kwargs"]), verbose=0,
                        **hyper)
    model.policy.load_state_dict(loaded.policy.state_dict())
    if loaded.optimizer_state is not None:
        model.policy.optimizer.load_state_dict(loaded.optimizer_state)
    model.num_timesteps = loaded.num_timesteps
    model._n_updates = loaded.n_updates
    return model


def train(cfg):
    """Run the training job described by ``cfg`` (a :class:`TrainConfig`); returns the summary."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    torch.set_num_threads(int(cfg.torch_threads))
    # Argument validation of torch distributions costs more than the small networks here.
    torch.distributions.Distribution.set_default_validate_args(False)
    cfg = cfg.resolved()
    automata = solo_automata(cfg)    # None: several seats
    check_solo_settings(cfg, automata)
    out, verbose, init_model = cfg.out, cfg.verbose, cfg.init_model
    os.makedirs(out, exist_ok=True)
    t_start = time.time()
    eval_names = ["solo"] if automata is not None else available_agents(cfg.eval_opponents)
    venv = make_vec_env(cfg, out)
    warm_start_stats = None
    try:
        hyper = dict(learning_rate=learning_rate_schedule(cfg), n_steps=cfg.n_steps,
                     batch_size=cfg.batch_size, n_epochs=cfg.n_epochs, gamma=cfg.gamma,
                     gae_lambda=cfg.gae_lambda, ent_coef=cfg.ent_coef,
                     clip_range=cfg.clip_range)
        if init_model and cfg.trust_pickle:
            model = MaskablePPO.load(init_model, env=venv, device=cfg.device, **hyper)
        elif init_model:
            model = load_initial_model(init_model, venv, cfg, hyper)
        else:
            model = MaskablePPO(policy_class(cfg.policy), venv, seed=cfg.seed,
                                device=cfg.device, policy_kwargs=policy_kwargs(cfg), verbose=0,
                                **hyper)
            if cfg.warm_start != "none":
                warm_start_stats = warm_start(model, cfg, verbose)
        # What it takes to build the network again without unpickling (agents.players.policy_files):
        # every model this run saves (final, best, checkpoints, pool) loads with it.
        from agents.players import policy_files
        policy_files.write_config(out, policy_files.config_from_model(model, cfg.game, cfg.env_options))
        formats = ["csv"]
        if verbose >= 2:
            formats.append("stdout")
        if cfg.tensorboard:
            try:
                import tensorboard  # noqa: F401
                formats.append("tensorboard")
            except ImportError:
                if verbose:
                    print("[train] tensorboard not installed: TensorBoard logging off "
                          "(pip install tensorboard)", file=sys.stderr)
        model.set_logger(configure(os.path.join(out, "logs"), formats))
        callback = _make_callback(cfg, out, eval_names, verbose, automata)
        if verbose:
            print(f"[train] {cfg.game} {cfg.options}: {cfg.timesteps:,} steps, "
                  f"{cfg.n_envs} {cfg.env} game(s), opponents={cfg.opponents}, out={out}",
                  file=sys.stderr, flush=True)
        use_bar = cfg.progress
        if use_bar:
            try:
                import rich  # noqa: F401
                import tqdm  # noqa: F401
            except ImportError:
                use_bar = False
        t_train = time.time()
        start_steps = int(model.num_timesteps) if init_model else 0
        model.learn(total_timesteps=cfg.timesteps, callback=callback, progress_bar=use_bar,
                    reset_num_timesteps=not init_model)
        train_s = time.time() - t_train
        model.save(os.path.join(out, "final_model.zip"))
        try:   # the same actor as a numpy file: agents.make("policy", path=...npz) needs no torch
            from agents.players.policy import export_numpy_actor
            export_numpy_actor(model, os.path.join(out, "final_model.npz"))
        except ValueError:
            pass
    finally:
        venv.close()
    t_eval = time.time()
    final_rows = callback.run_eval(cfg.final_eval_games, final=True) if eval_names else []
    if final_rows:
        model.logger.dump(model.num_timesteps)
    final_eval_s = time.time() - t_eval
    if cfg.plot and callback.history:
        plot_learning_curve(callback.history, os.path.join(out, "learning_curve.png"), cfg.game)
    versus = final_rows if automata is None else []
    summary = {
        "game": cfg.game, "options": cfg.options, "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_s, 1), "final_eval_seconds": round(final_eval_s, 1),
        "total_seconds": round(time.time() - t_start, 1),
        "steps_per_second": round((model.num_timesteps - start_steps) / max(train_s, 1e-9), 1),
        "final_win_rates": {r["opponent"].replace(" (final)", ""): r["win_rate"] for r in versus},
        "final_mean_rewards": {r["opponent"].replace(" (final)", ""): r["mean_reward"]
                               for r in versus},
        "final_eval_games": cfg.final_eval_games,
        # Wilson 95% interval of each final win rate, over final_eval_games games
        "final_win_intervals": {r["opponent"].replace(" (final)", ""): win_interval(r["win_rate"], r["games"])
                                for r in versus},
        # solo games: the final evaluation's yardstick (evaluate_solo), every game's score too
        "solo_automata": automata,
        "final_solo": callback.solo_results[-1] if automata is not None and final_rows else None,
        "model": os.path.join(out, "final_model.zip"),
        "warm_start": warm_start_stats,
        "config": cfg.summary(),
    }
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, default=str)
    if verbose:
        if summary["final_solo"]:
            result = "final solo " + _solo_line(summary["final_solo"])
        else:
            rates = ", ".join(f"{k} {v:.1%}" for k, v in summary["final_win_rates"].items())
            result = f"final win rates: {rates or 'n/a'}"
        print(f"[train] done in {summary['total_seconds']:.0f}s "
              f"({summary['steps_per_second']:.0f} steps/s); {result}; "
              f"model: {summary['model']}", file=sys.stderr, flush=True)
    return summary


def main(argv=None):
    cfg = parse_config(argv)
    import envs
    if cfg.game not in envs.GAMES:
        raise SystemExit(f"unknown game {cfg.game!r}; registered games: {', '.join(envs.GAMES)}")
    return train(cfg)


if __name__ == "__main__":
    main()
