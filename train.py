"""Masked self-play training of a cityzoo game with sb3-contrib's MaskablePPO.

    python train.py --game kingdomino_duel_v0                      # the game's default budget
    python train.py --game kingdomino_duel_v0 --timesteps 200000 --opponents mix --out runs/kd

One seat of the game is exposed as a Gymnasium env (:class:`envs.SingleAgentEnv`), the
other seats are played inside it by opponents:

``random`` / ``greedy``
    the baseline agents (``agents.make(name)``);
``self``
    frozen snapshots of the learner, saved to ``OUT/pool/`` every ``--snapshot-every``
    steps; each episode draws the newest snapshot or one of the ``--pool-size`` newest
    (:class:`agents.policy.SnapshotPool`; random play until the first snapshot exists);
``mix`` (default, unless the game's defaults say otherwise)
    the snapshot pool plus, with probability ``--baseline-prob``, a random or greedy seat.

Every ``--eval-every`` steps the current policy (deterministic, seats rotating) plays
``--eval-games`` games against RandomAgent and against GreedyAgent; win rates, mean rank
rewards and score margins go to ``OUT/eval.csv``, to TensorBoard (``OUT/tb/`` when the
``tensorboard`` package is installed) and to the console.  A checkpoint is saved at every
evaluation (``OUT/checkpoints/``), the best one by mean win rate as ``OUT/best_model.zip``.
At the end: ``OUT/final_model.zip`` (play it with ``agents.make("policy", path=...)``; the
same actor as ``OUT/final_model.npz`` plays without torch), a
final evaluation over ``--final-eval-games`` games, ``OUT/learning_curve.png`` and
``OUT/summary.json``.

Per-game defaults (network, PPO hyper-parameters, budget) are in ``GAME_DEFAULTS``; every
one can be overridden on the command line.  ``--n-envs`` > 1 runs the games in
``SubprocVecEnv`` worker processes, or all in the training process with ``--vec-env dummy``
(batched policy calls: the better choice when the network costs more than the games).
"""
from __future__ import annotations

import argparse
import csv
import functools
import json
import os
import sys
import time

import numpy as np

# Per-game defaults.  ``timesteps`` is the short default job: about 10 minutes on 2 CPU
# cores including evaluations (see README / benchmarks/training_report.py).
FALLBACK_DEFAULTS = dict(
    net_arch=[256, 256], n_steps=1024, batch_size=256, learning_rate=3e-4, n_epochs=5,
    gamma=0.995, gae_lambda=0.95, ent_coef=0.01, clip_range=0.2, timesteps=150_000, shaping=0.0,
    n_envs=2, eval_games=50, final_eval_games=200, num_players=None, opponents="mix",
    reward_mode="rank", reward_scale=1.0, policy="mlp", torch_threads=1, vec_env="auto",
)
GAME_DEFAULTS = {
    # ~50 learner decisions per game, 872 observation values, 204 actions.  Measured on
    # 2 shared cores: 340-530 steps/s, so 200k steps take ~6.5-10 min with the evaluations;
    # 30k steps (70 s) already beat Random in 90 % and Greedy in 67 % of 200 games.
    "kingdomino_duel_v0": dict(net_arch=[256, 256], n_steps=1024, batch_size=256,
                               learning_rate=3e-4, n_epochs=5, gamma=0.995, ent_coef=0.01,
                               timesteps=200_000),
    # Large observations (6208 and 8182 values): a narrower first layer and 4 epochs keep a
    # PPO update affordable on one core.  The other games reward the learner only at the
    # end, so they use potential-based shaping (SingleAgentEnv, shaping=c): every step also
    # pays c times the change of greedy's evaluation, with c about half a point of reward
    # per margin_scale points of lead.  Measured (benchmarks/results/<game>/training.md):
    # Smartphone Inc. 100% vs Random and 68% vs Greedy in 6.7 min.
    "smartphone_inc_v0": dict(net_arch=[128, 128], n_epochs=4, shaping=0.05, timesteps=100_000),
    # Self-play and rank rewards left these two at 50-70% vs Random; the score margin as the
    # reward, random opponents and no entropy bonus (large masks make the bonus favour
    # uniform play) make Tiny Towns learn steadily (500k steps, 7.2 min: 91.5% vs Random).
    # Expancity: an MLP (and a convolutional net that also gave pointing actions an
    # index-specific logit) learnt to build and roof but laid its tiles no better than
    # chance, 57-83% vs Random.  The structured policy of agents.networks scores placements
    # by the cell they fill; full-weight shaping (c=1: every step pays the change of
    # greedy's evaluation) with gamma 0.95 credits a placement within a few turns.  The
    # convolutions dominate the cost, so 8 games run in the training process (batched
    # forward passes) and torch takes both cores.  --opponents mix reached the same win
    # rates per step (96-98% vs Random, 46-62% vs Greedy at 150-210k) at half the speed.
    "expancity_v0": dict(policy="expancity", torch_threads=2, vec_env="dummy", n_envs=8,
                         n_steps=256, n_epochs=4, gamma=0.95, gae_lambda=0.9, shaping=1.0,
                         reward_scale=0.05, timesteps=300_000, opponents="random",
                         reward_mode="score", ent_coef=0.0),
    "tiny_towns_v0": dict(net_arch=[128, 128], n_epochs=4, shaping=0.1, timesteps=500_000,
                          opponents="random", reward_mode="score", ent_coef=0.0),
    # Two players (the game's default is 3), as in the baseline tournaments: 86% vs Random
    # in 16.8 min.
    "between_two_cities_v0": dict(net_arch=[128, 128], n_epochs=4, shaping=0.05, num_players=2,
                                  timesteps=150_000),
}
EVAL_OPPONENTS = ("random", "greedy")
# --policy names: "mlp" is sb3's MlpPolicy; the others name a class of agents.networks.
POLICY_CHOICES = {"mlp": None, "expancity": "ExpancityPolicy"}
OPPONENT_MODES = ("random", "greedy", "self", "mix")


def defaults_for(game):
    out = dict(FALLBACK_DEFAULTS)
    out.update(GAME_DEFAULTS.get(game, {}))
    return out


# ------------------------------------------------------------------ arguments
def _parse_option(text):
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    key, value = text.split("=", 1)
    try:
        value = json.loads(value)
    except json.JSONDecodeError:
        pass
    return key, value


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Keeps the description's layout; appends a default only where it says something."""

    def _get_help_string(self, action):
        text = action.help or ""
        if ("default" not in text and action.default not in (None, False, [], argparse.SUPPRESS)
                and action.option_strings):
            text += " (default: %(default)s)"
        return text


def build_parser():
    per_game = "\n".join(f"  {g}: " + ", ".join(f"{k}={v}" for k, v in defaults_for(g).items())
                         for g in GAME_DEFAULTS)
    p = argparse.ArgumentParser(
        prog="train.py", description=__doc__,
        epilog="per-game defaults (every one can be overridden):\n" + per_game,
        formatter_class=_HelpFormatter)
    g = p.add_argument_group("game")
    g.add_argument("--game", required=True, help="game id (see envs.GAMES)")
    g.add_argument("--num-players", type=int, default=None,
                   help="player count (default: the per-game default below, else the game's own)")
    g.add_argument("--option", action="append", type=_parse_option, default=[], metavar="KEY=VALUE",
                   help="extra game option passed to envs.make (value parsed as JSON if possible); "
                        "repeatable")
    g.add_argument("--reward-mode", default=None, choices=("rank", "score"),
                   help="learner reward at game end: rank (+1 win .. -1 last) or score margin "
                        "(default: per game, else rank)")
    g.add_argument("--shaping", type=float, default=None,
                   help="weight of potential-based reward shaping by the game's greedy "
                        "evaluation (score margin + positional potential; see "
                        "envs.SingleAgentEnv); 0 = off (default: per game)")
    g.add_argument("--reward-scale", type=float, default=None,
                   help="factor on every training reward, terminal and shaping (score margins of "
                        "tens of points want ~1/20; the logged training rewards are scaled too) "
                        "(default: per game, else 1)")
    t = p.add_argument_group("training")
    t.add_argument("--timesteps", type=int, default=None,
                   help="learner decisions to train on (default: per-game budget)")
    t.add_argument("--n-envs", type=int, default=None,
                   help="parallel games (default 2); >1 uses SubprocVecEnv worker processes unless "
                        "--vec-env dummy")
    t.add_argument("--opponents", default=None, choices=OPPONENT_MODES,
                   help="who plays the other seats during training (default: per game, else mix)")
    t.add_argument("--vec-env", default=None, choices=("auto", "subproc", "dummy"),
                   help="auto: SubprocVecEnv when --n-envs > 1, else DummyVecEnv; dummy runs every "
                        "game in the training process (batched policy calls, no IPC) (default: "
                        "per game, else auto)")
    t.add_argument("--seed", type=int, default=0, help="seed of everything (default 0)")
    t.add_argument("--out", default=None, help="output directory (default runs/GAME)")
    t.add_argument("--snapshot-every", type=int, default=None,
                   help="steps between self-play snapshots (default timesteps/20)")
    t.add_argument("--pool-size", type=int, default=20, help="newest snapshots opponents are drawn from")
    t.add_argument("--latest-prob", type=float, default=0.5,
                   help="probability that a self-play seat gets the newest snapshot")
    t.add_argument("--baseline-prob", type=float, default=0.3,
                   help="--opponents mix: probability that a seat is a random/greedy baseline")
    t.add_argument("--init-model", default=None, help="continue training from this saved model")
    h = p.add_argument_group("PPO hyper-parameters (default: per game)")
    h.add_argument("--policy", default=None, choices=sorted(POLICY_CHOICES),
                   help="network: mlp (flat observation, --net-arch hidden layers) or a game's "
                        "structured network (agents.networks; expancity: per-cell action scores)")
    h.add_argument("--net-arch", type=lambda s: [int(x) for x in s.split(",")], default=None,
                   help="hidden layer sizes, comma separated, e.g. 256,256")
    h.add_argument("--learning-rate", "--lr", type=float, default=None)
    h.add_argument("--n-steps", type=int, default=None, help="rollout length per env")
    h.add_argument("--batch-size", type=int, default=None)
    h.add_argument("--n-epochs", type=int, default=None)
    h.add_argument("--gamma", type=float, default=None)
    h.add_argument("--gae-lambda", type=float, default=None)
    h.add_argument("--ent-coef", type=float, default=None)
    h.add_argument("--clip-range", type=float, default=None)
    e = p.add_argument_group("evaluation and output")
    e.add_argument("--eval-games", type=int, default=None,
                   help="games per baseline at each periodic evaluation (default 50)")
    e.add_argument("--eval-every", type=int, default=None,
                   help="steps between evaluations (default timesteps/10; 0 disables periodic ones)")
    e.add_argument("--final-eval-games", type=int, default=None,
                   help="games per baseline in the final evaluation (default 200)")
    e.add_argument("--eval-opponents", nargs="+", default=list(EVAL_OPPONENTS),
                   help="baseline agent names to evaluate against (unknown names are skipped)")
    e.add_argument("--no-progress", action="store_true", help="no progress bar")
    e.add_argument("--no-tensorboard", action="store_true", help="do not write TensorBoard logs")
    e.add_argument("--no-plot", action="store_true", help="do not draw learning_curve.png")
    e.add_argument("--device", default="cpu", help="torch device")
    e.add_argument("--torch-threads", type=int, default=None,
                   help="torch threads of the training process (default: per game, else 1; the "
                        "env workers idle during PPO updates, so 2 pays off for convolutions)")
    e.add_argument("-v", "--verbose", type=int, default=1, help="0 quiet, 1 evaluations, 2 + PPO logs")
    return p


def resolve_config(args):
    """All settings of a run as one dict (command line over per-game defaults)."""
    d = defaults_for(args.game)
    cfg = {k: d[k] for k in d}
    for key in ("policy", "net_arch", "learning_rate", "n_steps", "batch_size", "n_epochs", "gamma",
                "gae_lambda", "ent_coef", "clip_range", "timesteps", "n_envs", "eval_games", "shaping",
                "reward_scale", "final_eval_games", "torch_threads", "vec_env"):
        value = getattr(args, key, None)
        if value is not None:
            cfg[key] = value
    cfg["timesteps"] = int(cfg["timesteps"])
    cfg["eval_every"] = (args.eval_every if args.eval_every is not None
                         else max(1, cfg["timesteps"] // 10))
    cfg["snapshot_every"] = (args.snapshot_every if args.snapshot_every is not None
                             else max(1, cfg["timesteps"] // 20))
    # A batch larger than a rollout would make PPO warn and truncate.
    cfg["batch_size"] = int(min(cfg["batch_size"], cfg["n_steps"] * cfg["n_envs"]))
    options = dict(args.option)
    num_players = args.num_players if args.num_players is not None else d["num_players"]
    if num_players is not None:      # None: the game's own default
        options["num_players"] = num_players
    options["reward_mode"] = args.reward_mode or d["reward_mode"]
    cfg.update(num_players=num_players, reward_mode=options["reward_mode"])
    cfg.update(game=args.game, options=options, opponents=args.opponents or d["opponents"], seed=args.seed,
               pool_size=args.pool_size, latest_prob=args.latest_prob,
               baseline_prob=args.baseline_prob, eval_opponents=list(args.eval_opponents),
               device=args.device)
    return cfg


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


def play_game(env, seat_agents, seed):
    """One game on the AEC ``env``; ``seat_agents[i]`` plays seat ``i``.  Returns the final infos."""
    env.reset(seed=seed)
    for agent in {id(a): a for a in seat_agents}.values():
        if hasattr(agent, "reset"):
            agent.reset()
    names = env.possible_agents
    index = {a: i for i, a in enumerate(names)}
    limit = getattr(getattr(env, "spec", None), "max_steps", 100_000)
    for _ in range(limit * max(1, len(names))):
        who = env.agent_selection
        if env.terminations[who] or env.truncations[who]:
            break
        env.step(int(seat_agents[index[who]].act(env, who)))
    else:
        raise RuntimeError("game did not end within the step limit")
    return env.infos[names[0]], {a: float(env.rewards[a]) for a in names}


def evaluate(learner, opponent_name, game, options, n_games, seed=0):
    """``learner`` (an agent) against ``opponent_name`` on every other seat, seats rotating.

    Returns ``{"games", "win_rate", "mean_reward", "mean_margin"}``: win = the learner is
    among the winners; reward = its rank (or score) reward; margin = its final score minus
    the mean of the others'."""
    import agents
    import envs

    env = envs.make(game, **options)
    n = len(env.possible_agents)
    try:
        opponent = agents.make(opponent_name, seed=seed)
    except TypeError:   # an agent without a seed option
        opponent = agents.make(opponent_name)
    wins, rewards, margins = 0, [], []
    for i in range(n_games):
        seat = i % n
        seat_agents = [opponent] * n
        seat_agents[seat] = learner
        info, reward = play_game(env, seat_agents, seed=seed * 1_000_003 + i)
        me = env.possible_agents[seat]
        wins += me in info.get("winners", ())
        rewards.append(reward[me])
        scores = info.get("scores", [0] * n)
        others = [s for j, s in enumerate(scores) if j != seat]
        margins.append(scores[seat] - (np.mean(others) if others else 0.0))
    return {"games": n_games, "win_rate": wins / max(1, n_games),
            "mean_reward": float(np.mean(rewards)) if rewards else 0.0,
            "mean_margin": float(np.mean(margins)) if margins else 0.0}


# ------------------------------------------------------------------ training
EVAL_FIELDS = ["timesteps", "elapsed_s", "opponent", "games", "win_rate", "mean_reward",
               "mean_margin", "train_reward", "train_win_rate"]


def _make_callback(cfg, out, eval_names, verbose):
    from stable_baselines3.common.callbacks import BaseCallback

    from agents.policy import PolicyAgent, export_numpy_actor

    class SelfPlayCallback(BaseCallback):
        """Snapshots for the self-play pool, periodic evaluations, checkpoints, CSV/TB logs."""

        def __init__(self):
            super().__init__(verbose=0)
            self.pool_dir = os.path.join(out, "pool")
            self.ckpt_dir = os.path.join(out, "checkpoints")
            self.csv_path = os.path.join(out, "eval.csv")
            self.next_snapshot = 0
            self.next_eval = cfg["eval_every"] if cfg["eval_every"] else None
            self.last_eval_step = -1
            self.best = -1.0
            self.start = time.time()
            self.history = []

        def _on_training_start(self):
            os.makedirs(self.pool_dir, exist_ok=True)
            os.makedirs(self.ckpt_dir, exist_ok=True)
            with open(self.csv_path, "w", newline="") as f:
                csv.writer(f).writerow(EVAL_FIELDS)
            self.start = time.time()
            if self.next_eval is not None:   # relative to the start (--init-model continues)
                self.next_eval = self.num_timesteps + cfg["eval_every"]
            self.snapshot()
            if self.next_eval is not None and eval_names:
                self.run_eval(cfg["eval_games"])   # the untrained policy: the curve's origin

        def snapshot(self):
            steps = self.num_timesteps
            path = os.path.join(self.pool_dir, f"snapshot_{steps:010d}")
            try:   # a small numpy actor: workers load it fast and without torch
                export_numpy_actor(self.model, path + ".npz")
            except ValueError:   # an architecture the numpy actor does not cover
                tmp = os.path.join(self.pool_dir, f"tmp_{steps}.zip")
                self.model.save(tmp)
                os.replace(tmp, path + ".zip")
            self.next_snapshot = steps + cfg["snapshot_every"]

        def train_stats(self):
            buf = list(self.model.ep_info_buffer or [])
            if not buf:
                return float("nan"), float("nan")
            reward = float(np.mean([e["r"] for e in buf]))
            won = [e["won"] for e in buf if "won" in e]
            return reward, (float(np.mean(won)) if won else float("nan"))

        def run_eval(self, n_games, final=False):
            steps = self.num_timesteps
            learner = PolicyAgent(model=self.model, deterministic=True)
            train_reward, train_win = self.train_stats()
            rows, rates = [], []
            for k, name in enumerate(eval_names):
                t0 = time.time()
                res = evaluate(learner, name, cfg["game"], cfg["options"], n_games,
                               seed=cfg["seed"] * 7919 + 17 * k + (0 if final else steps % 9973 + 1))
                rates.append(res["win_rate"])
                row = {"timesteps": steps, "elapsed_s": round(time.time() - self.start, 1),
                       "opponent": name + (" (final)" if final else ""), **res,
                       "train_reward": train_reward, "train_win_rate": train_win}
                rows.append(row)
                self.logger.record(f"eval/win_rate_{name}", res["win_rate"])
                self.logger.record(f"eval/mean_reward_{name}", res["mean_reward"])
                self.logger.record(f"eval/mean_margin_{name}", res["mean_margin"])
                if verbose:
                    msg = (f"[train] step {steps:>9,}  vs {name:<7} win {res['win_rate']:6.1%}  "
                           f"reward {res['mean_reward']:+.3f}  margin {res['mean_margin']:+.1f}  "
                           f"({n_games} games, {time.time() - t0:.1f}s)")
                    print(msg, file=sys.stderr, flush=True)
            with open(self.csv_path, "a", newline="") as f:
                w = csv.DictWriter(f, fieldnames=EVAL_FIELDS)
                for row in rows:
                    w.writerow(row)
            self.history.extend(rows)
            self.last_eval_step = steps
            if rates and not final:
                self.model.save(os.path.join(self.ckpt_dir, f"model_{steps:010d}.zip"))
                score = float(np.mean(rates))
                if score >= self.best:
                    self.best = score
                    self.model.save(os.path.join(out, "best_model.zip"))
            return rows

        def _on_rollout_end(self):
            reward, win = self.train_stats()
            if np.isfinite(win):
                self.logger.record("rollout/win_rate", win)

        def _on_step(self):
            if cfg["opponents"] in ("self", "mix") and self.num_timesteps >= self.next_snapshot:
                self.snapshot()
            if self.next_eval is not None and self.num_timesteps >= self.next_eval:
                self.run_eval(cfg["eval_games"])
                while self.next_eval <= self.num_timesteps:
                    self.next_eval += cfg["eval_every"]
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


def make_vec_env(cfg, out):
    """The training VecEnv: ``n_envs`` SingleAgentEnvs (subprocesses when > 1) + VecMonitor."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    import envs
    from agents.policy import SnapshotPool
    import agents

    probe = envs.make(cfg["game"], **cfg["options"])
    n_opp = len(probe.possible_agents) - 1
    mode = cfg["opponents"]
    if mode in ("random", "greedy"):
        opponents = mode
    else:
        baselines = tuple(available_agents(EVAL_OPPONENTS)) if mode == "mix" else ()
        opponents = SnapshotPool(os.path.join(out, "pool"), num_opponents=n_opp,
                                 latest_prob=cfg["latest_prob"], window=cfg["pool_size"],
                                 baselines=baselines,
                                 baseline_prob=cfg["baseline_prob"] if mode == "mix" else 0.0)
    fns = [functools.partial(envs.SingleAgentEnv, cfg["game"], opponents=opponents,
                             agent_factory=agents.make,
                             shaping=cfg["shaping"], reward_scale=cfg["reward_scale"],
                             **cfg["options"])
           for _ in range(cfg["n_envs"])]
    kind = cfg.get("vec_env", "auto")
    if kind == "subproc" or (kind == "auto" and cfg["n_envs"] > 1):
        venv = SubprocVecEnv(fns)
    else:
        venv = DummyVecEnv(fns)
    venv.seed(cfg["seed"])
    return VecMonitor(_mask_cache_wrapper()(venv), info_keywords=("won",))


def plot_learning_curve(history, path, title):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
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


def policy_class(name):
    """The MaskablePPO policy for a ``--policy`` name."""
    if name not in POLICY_CHOICES:
        raise ValueError(f"policy must be one of {sorted(POLICY_CHOICES)}, got {name!r}")
    if POLICY_CHOICES[name] is None:
        return "MlpPolicy"
    from agents import networks
    return getattr(networks, POLICY_CHOICES[name])


def train(cfg, out, progress=True, tensorboard=True, plot=True, verbose=1, init_model=None):
    """Run one training job described by ``cfg`` (see :func:`resolve_config`); returns the summary."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    torch.set_num_threads(int(cfg.get("torch_threads", 1)))
    # Argument validation of torch distributions costs more than the small networks here.
    torch.distributions.Distribution.set_default_validate_args(False)
    os.makedirs(out, exist_ok=True)
    t_start = time.time()
    eval_names = available_agents(cfg["eval_opponents"])
    venv = make_vec_env(cfg, out)
    try:
        hyper = dict(learning_rate=cfg["learning_rate"], n_steps=cfg["n_steps"],
                     batch_size=cfg["batch_size"], n_epochs=cfg["n_epochs"], gamma=cfg["gamma"],
                     gae_lambda=cfg["gae_lambda"], ent_coef=cfg["ent_coef"],
                     clip_range=cfg["clip_range"])
        if init_model:
            model = MaskablePPO.load(init_model, env=venv, device=cfg["device"], **hyper)
        else:
            model = MaskablePPO(policy_class(cfg["policy"]), venv, seed=cfg["seed"],
                                device=cfg["device"],
                                policy_kwargs=dict(net_arch=list(cfg["net_arch"])), verbose=0,
                                **hyper)
        formats = ["csv"]
        if verbose >= 2:
            formats.append("stdout")
        if tensorboard:
            try:
                import tensorboard  # noqa: F401
                formats.append("tensorboard")
            except ImportError:
                if verbose:
                    print("[train] tensorboard not installed: TensorBoard logging off "
                          "(pip install tensorboard)", file=sys.stderr)
        model.set_logger(configure(os.path.join(out, "logs"), formats))
        callback = _make_callback(cfg, out, eval_names, verbose)
        if verbose:
            print(f"[train] {cfg['game']} {cfg['options']}: {cfg['timesteps']:,} steps, "
                  f"{cfg['n_envs']} env(s), opponents={cfg['opponents']}, out={out}",
                  file=sys.stderr, flush=True)
        use_bar = progress
        if use_bar:
            try:
                import rich  # noqa: F401
                import tqdm  # noqa: F401
            except ImportError:
                use_bar = False
        t_train = time.time()
        start_steps = int(model.num_timesteps) if init_model else 0
        model.learn(total_timesteps=cfg["timesteps"], callback=callback, progress_bar=use_bar,
                    reset_num_timesteps=not init_model)
        train_s = time.time() - t_train
        model.save(os.path.join(out, "final_model.zip"))
        try:   # the same actor as a numpy file: agents.make("policy", path=...npz) needs no torch
            from agents.policy import export_numpy_actor
            export_numpy_actor(model, os.path.join(out, "final_model.npz"))
        except ValueError:
            pass
    finally:
        venv.close()
    t_eval = time.time()
    final_rows = callback.run_eval(cfg["final_eval_games"], final=True) if eval_names else []
    if final_rows:
        model.logger.dump(model.num_timesteps)
    final_eval_s = time.time() - t_eval
    if plot and callback.history:
        plot_learning_curve(callback.history, os.path.join(out, "learning_curve.png"), cfg["game"])
    summary = {
        "game": cfg["game"], "options": cfg["options"], "timesteps": int(model.num_timesteps),
        "train_seconds": round(train_s, 1), "final_eval_seconds": round(final_eval_s, 1),
        "total_seconds": round(time.time() - t_start, 1),
        "steps_per_second": round((model.num_timesteps - start_steps) / max(train_s, 1e-9), 1),
        "final_win_rates": {r["opponent"].replace(" (final)", ""): r["win_rate"] for r in final_rows},
        "final_mean_rewards": {r["opponent"].replace(" (final)", ""): r["mean_reward"]
                               for r in final_rows},
        "final_eval_games": cfg["final_eval_games"],
        "model": os.path.join(out, "final_model.zip"),
        "config": {k: v for k, v in cfg.items() if k != "options"},
    }
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2, default=str)
    if verbose:
        rates = ", ".join(f"{k} {v:.1%}" for k, v in summary["final_win_rates"].items())
        print(f"[train] done in {summary['total_seconds']:.0f}s "
              f"({summary['steps_per_second']:.0f} steps/s); final win rates: {rates or 'n/a'}; "
              f"model: {summary['model']}", file=sys.stderr, flush=True)
    return summary


def main(argv=None):
    args = build_parser().parse_args(argv)
    import envs
    if args.game not in envs.GAMES:
        raise SystemExit(f"unknown game {args.game!r}; registered games: {', '.join(envs.GAMES)}")
    cfg = resolve_config(args)
    out = args.out or os.path.join("runs", args.game)
    return train(cfg, out, progress=not args.no_progress, tensorboard=not args.no_tensorboard,
                 plot=not args.no_plot, verbose=args.verbose, init_model=args.init_model)


if __name__ == "__main__":
    main()
