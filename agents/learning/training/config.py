"""Every setting of a training run: :class:`TrainConfig` (type, default, help text, help
group; the command line is generated from it)."""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
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
