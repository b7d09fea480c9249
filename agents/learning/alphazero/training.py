"""The training loop: generations of self-play, updates, export, rating, checkpoints.

A run may begin with a warm start (``warm_start="pretrained"``,
:mod:`agents.learning.alphazero.warm_start`): the network first learns the shipped PPO
policy's moves from games that policy plays, and that network is generation 0, rated like
the others.  Then each generation

1. plays ``games_per_generation`` self-play games with the current network (Gumbel root
   search, ``simulations`` a move; :mod:`agents.learning.alphazero.selfplay`, in the
   workers);
2. adds their samples to the replay buffer and trains the torch network on minibatches of
   it: cross-entropy to the search's improved policy plus ``value_weight`` times the squared
   error to the final outcome (with ``value_target_mix`` > 0, blended with the search's
   value of each position);
3. exports the network (``generations/gen_NNN.npz`` + ``.json``, the arrays the numba search
   reads) and rates it: its raw policy (``az_policy``) against greedy and against the
   previous generation's policy (and, with ``eval_pretrained``, against the shipped PPO
   policy), seats rotated, and every ``eval_search_every`` generations
   the search (``az``, Gumbel root, the self-play budget) against ``mcts``; and its rating
   on the game's anchored ladder (:func:`ladder_columns`);
4. writes the checkpoint (network, optimiser, buffer, history, generators) so that
   ``resume=True`` continues where a run stopped, and the curve (``curve.csv``, ``curve.png``).
"""
from __future__ import annotations

import csv
import dataclasses
import json
import os
import time
from dataclasses import dataclass, field

import numpy as np

from agents.learning.alphazero.replay import ReplayBuffer
from agents.learning.alphazero.selfplay import Workers, check_value_target_mix
from agents.players.az_search import default_params


@dataclass
class AZConfig:
    game: str
    num_players: int | None = None
    env_options: dict = field(default_factory=dict)
    generations: int = 20
    games_per_generation: int = 200
    simulations: int = 16              # self-play simulations a move
    gumbel_m: int = 8                  # Gumbel root candidates
    hidden: tuple = (256, 128)
    buffer: int = 60_000               # replay samples kept
    batch_size: int = 256
    epochs: float = 2.0                # passes over each generation's new samples
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    value_weight: float = 1.0
    value_target_mix: float = 0.0      # share of the search's root value in the value targets
    search: dict = field(default_factory=dict)   # SearchParams overrides (heuristic_mix, ...)
    eval_games: int = 100              # per opponent, seats rotated
    eval_search_every: int = 0         # rate the search against mcts every N generations (0: never)
    eval_mcts_simulations: int = 200
    eval_pretrained: bool = False      # also rate the raw policy against the shipped PPO policy
    warm_start: str = "none"           # "pretrained": first learn the shipped PPO policy's moves
    warm_start_games: int = 400
    warm_start_epochs: float = 4.0     # passes over the warm start's samples
    warm_start_explore: float = 0.1    # share of random moves in the warm start's games
    warm_start_temperature: float = 1.0
    ladder_every: int = 1              # solo: the solo scorecard every N generations (0: never)
    ladder_target: float = 50.0        # solo scorecard: stop at this 95 % half-width (Elo)
    workers: int = 2
    backend: str = "process"
    jobs_per_worker: int = 4
    seed: int = 0
    time_limit: float = 0.0            # stop after this many seconds of this run (0: none)
    torch_threads: int = 1

    def __post_init__(self):
        self.hidden = tuple(int(h) for h in self.hidden)
        if len(self.hidden) != 2:
            raise ValueError(f"hidden must be two layer sizes, got {self.hidden!r}")
        for name in ("generations", "games_per_generation", "simulations", "gumbel_m", "buffer",
                     "batch_size", "workers", "jobs_per_worker"):
            value = getattr(self, name)
            low = 0 if name == "generations" and self.warm_start != "none" else 1   # 0: the warm start alone
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
        if isinstance(self.ladder_every, bool) or not isinstance(self.ladder_every, int) or self.ladder_every < 0:
            raise ValueError(f"ladder_every must be an integer >= 0, got {self.ladder_every!r}")
        if isinstance(self.ladder_target, bool) or not isinstance(self.ladder_target, (int, float)) \
                or not self.ladder_target > 0:
            raise ValueError(f"ladder_target must be a number > 0, got {self.ladder_target!r}")
        from agents.learning.alphazero.warm_start import TEACHERS
        if self.warm_start not in TEACHERS:
            raise ValueError(f"warm_start must be one of {TEACHERS}, got {self.warm_start!r}")
        if isinstance(self.warm_start_games, bool) or not isinstance(self.warm_start_games, int) \
                or self.warm_start_games < 1:
            raise ValueError(f"warm_start_games must be an integer >= 1, got {self.warm_start_games!r}")
        for name, ok, what in (("warm_start_epochs", lambda v: v > 0, "> 0"),
                               ("warm_start_temperature", lambda v: v > 0, "> 0"),
                               ("warm_start_explore", lambda v: 0 <= v <= 1, "in [0, 1]")):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not ok(value):
                raise ValueError(f"{name} must be a number {what}, got {value!r}")
        check_value_target_mix(self.value_target_mix, 1, 1)      # the range; seats at Trainer
        if self.backend not in ("process", "ray"):
            raise ValueError(f"backend must be 'process' or 'ray', got {self.backend!r}")
        default_params(self.game, **self.search)     # ValueError on an unknown name

    def summary(self):
        d = dataclasses.asdict(self)
        d["hidden"] = list(self.hidden)
        return d


def ladder_columns(cfg, n_players, path, generation, greedy_points):
    """The generation's rating on its game's anchored ladder (:mod:`agents.rating`), as curve
    columns ``ladder_rating`` and ``ladder_halfwidth`` (95 %), or ``{}`` when it has none.

    Two seats: fitted from the evaluation's games against greedy (the ladder's anchor, so
    no extra games; :mod:`agents.learning.training.ladder_rating`).  Solo: every
    ``ladder_every`` generations the raw policy's solo scorecard (it plays the solo
    ladder's own seeds, compared seed by seed), when the run plays the ladder's options.
    Other tables (3+ seats, other variants) have no ladder."""
    from agents.learning.training import ladder_rating

    options = dict(cfg.env_options, num_players=n_players)
    if n_players == 2:
        scale, _ = ladder_rating.scale_for(cfg.game, options, [("greedy", {})])
        result = ladder_rating.rate(scale, {"greedy": greedy_points}) if scale and greedy_points else None
        if result is None:
            return {}
        return {"ladder_rating": result["rating"], "ladder_halfwidth": result["halfwidth"]}
    if n_players != 1 or not cfg.ladder_every or generation % cfg.ladder_every:
        return {}
    from agents.rating import ladder as ladders, scorecard
    try:
        lad = ladders.load(cfg.game, "solo")
    except (ValueError, KeyError, OSError):
        return {}
    if ladder_rating.game_options(cfg.game, lad.spec.options) != ladder_rating.game_options(cfg.game, options):
        return {}
    card = scorecard.rate(cfg.game, "az_policy", mode="solo", agent_options={"path": os.path.abspath(path)},
                          seed=cfg.seed * 1000 + generation, workers=cfg.workers, backend=cfg.backend,
                          target=cfg.ladder_target, ladder=lad)
    return {"ladder_rating": round(card["rating"], 1), "ladder_halfwidth": round(card["halfwidth"], 1)}


def _env(cfg):
    import envs
    kwargs = dict(cfg.env_options)
    if cfg.num_players is not None:
        kwargs["num_players"] = cfg.num_players
    return envs.make(cfg.game, **kwargs)


def play_points(env, make_a, make_b, games, seed):
    """Agent A's result in each of ``games``: two or more seats, its points against agent B
    (1 ahead, 1/2 tied, 0 behind; A in seat ``g % seats``, B in the others); solo, its
    score (B unused)."""
    from agents.loop import play_game

    names = env.possible_agents
    n = len(names)
    points = []
    for g in range(games):
        a, b = make_a(seed + g), make_b(seed + g) if n > 1 else None
        seat = g % n
        bots = [a if s == seat else b for s in range(n)]
        rec = play_game(env, bots, seed=seed + g)
        if n == 1:
            points.append(float(rec.info["scores"][0]))
            continue
        ranks = rec.info["ranks"]
        others = [ranks[s] for s in range(n) if s != seat]
        points.append(float(np.mean([1.0 if ranks[seat] < r else 0.5 if ranks[seat] == r else 0.0
                                     for r in others])))
    return points


def play_match(env, make_a, make_b, games, seed):
    """Share of ``games`` in which agent A finished ahead of agent B (ties 1/2), seats
    rotated; solo: A's mean score (:func:`play_points`)."""
    points = play_points(env, make_a, make_b, games, seed)
    return float(np.mean(points)) if points else 0.0


class Trainer:
    """One training run in ``run_dir`` (created, or resumed with ``resume=True``)."""

    def __init__(self, cfg: AZConfig, run_dir, resume=False, log=print):
        import torch
        from agents.learning.alphazero.network import AZNet, observation_scale

        self.cfg = cfg
        self.run_dir = run_dir
        self.log = log
        os.makedirs(os.path.join(run_dir, "generations"), exist_ok=True)
        torch.set_num_threads(cfg.torch_threads)
        torch.manual_seed(cfg.seed)
        env = _env(cfg)
        raw = env.unwrapped
        self.env = env
        self.n_players = raw.cfg.num_players
        check_value_target_mix(cfg.value_target_mix, self.n_players, int(raw.cfg.num_participants))
        self.params = default_params(cfg.game, **cfg.search)
        self.net = AZNet(raw.cfg.obs_size, raw.spec.num_actions, self.n_players, cfg.hidden,
                         observation_scale(raw.spec, raw.cfg), self.params.value_scale)
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=cfg.learning_rate,
                                     weight_decay=cfg.weight_decay)
        self.buffer = ReplayBuffer(cfg.buffer, raw.cfg.obs_size, raw.spec.num_actions, self.n_players)
        self.rng = np.random.default_rng(cfg.seed)
        self.generation = 0
        self.history = []
        self.elapsed = 0.0
        if cfg.warm_start != "none":
            from agents.learning.alphazero.warm_start import check_teacher
            check_teacher(cfg.game, self.n_players, cfg.env_options)
        if resume and os.path.exists(self._path("checkpoint.pt")):
            self._load()
        else:
            with open(self._path("config.json"), "w") as f:
                json.dump(cfg.summary(), f, indent=2)
        self.workers = Workers(cfg.workers, cfg.backend)

    def _path(self, *parts):
        return os.path.join(self.run_dir, *parts)

    # ------------------------------------------------------------------ steps
    def selfplay(self):
        cfg = self.cfg
        arrays = self.net.export_arrays()
        arrays = {k: v for k, v in arrays.items() if k != "kind"}
        n_jobs = max(1, min(cfg.games_per_generation, cfg.workers * cfg.jobs_per_worker))
        base = int(self.rng.integers(1 << 62))
        seeds = [int(s) for s in np.random.SeedSequence([cfg.seed, self.generation]).generate_state(
            cfg.games_per_generation, dtype=np.uint32)]
        jobs = []
        for j in range(n_jobs):
            jobs.append({"game": cfg.game, "num_players": self.n_players, "env_options": cfg.env_options,
                         "arrays": arrays, "params": self.params._asdict(), "simulations": cfg.simulations,
                         "gumbel_m": cfg.gumbel_m, "seeds": seeds[j::n_jobs], "search_seed": base + j,
                         "value_target_mix": cfg.value_target_mix})
        results = self.workers.map(jobs)
        stats = {"games": 0, "samples": 0, "mean_score": 0.0}
        scores = []
        for r in results:
            if len(r["samples"]["obs"]):
                self.buffer.add(r["samples"])
            stats["games"] += len(r["counts"])
            stats["samples"] += int(sum(r["counts"]))
            scores.extend(np.mean(s) for s in r["scores"])
        stats["mean_score"] = float(np.mean(scores)) if scores else 0.0
        return stats

    def warm_start(self):
        """Generation 0: the shipped policy's games (:mod:`.warm_start`) into the buffer, and
        ``warm_start_epochs`` passes over them."""
        from agents.learning.alphazero.warm_start import play_teacher

        cfg = self.cfg
        n_jobs = max(1, min(cfg.warm_start_games, cfg.workers * cfg.jobs_per_worker))
        seeds = [int(s) for s in np.random.SeedSequence([cfg.seed, 0, 1]).generate_state(
            cfg.warm_start_games, dtype=np.uint32)]
        base = int(self.rng.integers(1 << 62))
        jobs = [{"game": cfg.game, "num_players": self.n_players, "env_options": cfg.env_options,
                 "params": self.params._asdict(), "seeds": seeds[j::n_jobs], "search_seed": base + j,
                 "explore": cfg.warm_start_explore, "temperature": cfg.warm_start_temperature}
                for j in range(n_jobs)]
        results = self.workers.map(jobs, play_teacher)
        stats = {"games": 0, "samples": 0}
        for r in results:
            if len(r["samples"]["obs"]):
                self.buffer.add(r["samples"])
            stats["games"] += len(r["counts"])
            stats["samples"] += int(sum(r["counts"]))
        return stats

    def train(self, new_samples, epochs=None):
        import torch

        cfg = self.cfg
        epochs = cfg.epochs if epochs is None else epochs
        steps = max(1, int(np.ceil(epochs * new_samples / cfg.batch_size)))
        self.net.train()
        p_loss = v_loss = 0.0
        for _ in range(steps):
            obs, av, mask, pi, z = (torch.as_tensor(x) for x in self.buffer.sample(self.rng, cfg.batch_size))
            logits, value = self.net(obs, av, mask)
            logp = torch.log_softmax(logits, dim=1)
            lp = -(pi * logp.masked_fill(~mask, 0.0)).sum(dim=1).mean()
            lv = ((value - z) ** 2).mean()
            loss = lp + cfg.value_weight * lv
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            p_loss += lp.item()
            v_loss += lv.item()
        self.net.eval()
        return {"train_steps": steps, "policy_loss": p_loss / steps, "value_loss": v_loss / steps}

    def export_generation(self):
        from agents.pretrained import weights_sha256
        arrays = self.net.export_arrays()
        path = self._path("generations", f"gen_{self.generation:03d}.npz")
        np.savez(path, **arrays)
        record = {"game": self.cfg.game, "generation": self.generation, "options": self._options(),
                  "config": self.cfg.summary(), "search": self.params._asdict(),
                  "weights_sha256": weights_sha256(arrays)}
        with open(path[:-4] + ".json", "w") as f:
            json.dump(record, f, indent=2)
        return path

    def _options(self):
        opts = dict(self.cfg.env_options)
        opts["num_players"] = self.n_players
        return opts

    def rate(self, path, previous):
        import agents

        cfg = self.cfg
        if cfg.eval_games <= 0:
            return {}
        seed = 1_000_000 + 1000 * self.generation
        out = {}
        greedy_points = []

        def policy(p):
            return lambda s: agents.make("az_policy", path=p, seed=s)

        if self.n_players == 1:
            out["policy_mean_score"] = play_match(self.env, policy(path), None, cfg.eval_games, seed)
            out["greedy_mean_score"] = play_match(self.env, lambda s: agents.make("greedy", seed=s), None,
                                                  cfg.eval_games, seed)
        else:
            greedy_points = play_points(self.env, policy(path), lambda s: agents.make("greedy", seed=s),
                                        cfg.eval_games, seed)
            out["policy_vs_greedy"] = float(np.mean(greedy_points))
            if previous is not None:
                out["policy_vs_previous"] = play_match(self.env, policy(path), policy(previous), cfg.eval_games,
                                                       seed)
            if cfg.eval_pretrained:
                out["policy_vs_pretrained"] = play_match(
                    self.env, policy(path), lambda s: agents.make("pretrained", seed=s), cfg.eval_games, seed)
        if cfg.eval_search_every and self.generation % cfg.eval_search_every == 0:
            def search(s):
                return agents.make("az", path=path, simulations=cfg.simulations, root="gumbel",
                                   gumbel_m=cfg.gumbel_m, seed=s)
            mcts = lambda s: agents.make("mcts", simulations=cfg.eval_mcts_simulations, seed=s)  # noqa: E731
            games = max(2, cfg.eval_games // 2)
            key = "search_mean_score" if self.n_players == 1 else "search_vs_mcts"
            out[key] = play_match(self.env, search, mcts, games, seed)
        out.update(ladder_columns(cfg, self.n_players, path, self.generation, greedy_points))
        return out

    def _finish_row(self, row, play_seconds, train_seconds, eval_seconds, start, base_elapsed):
        """Time the generation's row, add it to the history, checkpoint, log."""
        self.elapsed = base_elapsed + (time.perf_counter() - start)
        row.update({"selfplay_seconds": round(play_seconds, 1), "train_seconds": round(train_seconds, 1),
                    "eval_seconds": round(eval_seconds, 1), "elapsed_seconds": round(self.elapsed, 1),
                    "buffer": self.buffer.size})
        row = {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items()}
        self.history.append(row)
        self.save()
        self.log(json.dumps(row))

    # ------------------------------------------------------------ checkpoints
    def save(self):
        import torch
        torch.save({"net": self.net.state_dict(), "opt": self.opt.state_dict(), "generation": self.generation,
                    "history": self.history, "elapsed": self.elapsed,
                    "rng": self.rng.bit_generator.state}, self._path("checkpoint.tmp"))
        os.replace(self._path("checkpoint.tmp"), self._path("checkpoint.pt"))
        self.buffer.save(self._path("buffer.tmp.npz"))
        os.replace(self._path("buffer.tmp.npz"), self._path("buffer.npz"))
        self.write_curve()

    def _load(self):
        import torch
        ck = torch.load(self._path("checkpoint.pt"), weights_only=False)
        self.net.load_state_dict(ck["net"])
        self.opt.load_state_dict(ck["opt"])
        self.generation = int(ck["generation"])
        self.history = list(ck["history"])
        self.elapsed = float(ck.get("elapsed", 0.0))
        self.rng.bit_generator.state = ck["rng"]
        if os.path.exists(self._path("buffer.npz")):
            self.buffer.load(self._path("buffer.npz"))
        self.log(f"resumed {self.run_dir} at generation {self.generation} ({self.buffer.size} samples)")

    def write_curve(self):
        if not self.history:
            return
        keys = []
        for row in self.history:
            keys.extend(k for k in row if k not in keys)
        with open(self._path("curve.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            w.writerows(self.history)
        plot_curve(self.history, self._path("curve.png"), self.cfg.game)

    # ------------------------------------------------------------------- run
    def run(self):
        cfg = self.cfg
        start = time.perf_counter()
        base_elapsed = self.elapsed
        try:
            if cfg.warm_start != "none" and not self.history:
                t0 = time.perf_counter()
                stats = self.warm_start()
                t1 = time.perf_counter()
                tr = self.train(stats["samples"], cfg.warm_start_epochs)
                t2 = time.perf_counter()
                path = self.export_generation()
                row = {"generation": 0, **stats, **tr, **self.rate(path, None)}
                self._finish_row(row, t1 - t0, t2 - t1, time.perf_counter() - t2, start, base_elapsed)
            while self.generation < cfg.generations:
                t0 = time.perf_counter()
                previous = self._path("generations", f"gen_{self.generation:03d}.npz")
                previous = previous if os.path.exists(previous) else None
                self.generation += 1
                sp = self.selfplay()
                t1 = time.perf_counter()
                tr = self.train(sp["samples"])
                t2 = time.perf_counter()
                path = self.export_generation()
                row = {"generation": self.generation, **sp, **tr}
                row.update(self.rate(path, previous))
                self._finish_row(row, t1 - t0, t2 - t1, time.perf_counter() - t2, start, base_elapsed)
                if cfg.time_limit and time.perf_counter() - start >= cfg.time_limit:
                    self.log(f"time limit reached after generation {self.generation}")
                    break
        finally:
            self.workers.close()
        return self.history


def plot_curve(history, path, game):
    """Win rates (or mean scores) of each generation, and the losses."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    gens = [r["generation"] for r in history]
    rated = [(r["generation"], float(r["ladder_rating"]), float(r.get("ladder_halfwidth") or 0.0))
             for r in history if r.get("ladder_rating") not in (None, "")]
    fig, axes = plt.subplots(1, 3 if rated else 2, figsize=(15 if rated else 10, 4))
    ax, bx = axes[0], axes[-1]
    for key in ("policy_vs_greedy", "policy_vs_previous", "policy_vs_pretrained", "search_vs_mcts",
                "policy_mean_score", "greedy_mean_score", "search_mean_score"):
        pts = [(r["generation"], r[key]) for r in history if r.get(key) not in (None, "")]
        if pts:
            ax.plot(*zip(*pts), marker="o", label=key)
    ax.axhline(0.5, color="grey", lw=0.5) if any("vs" in k for r in history for k in r) else None
    ax.set_xlabel("generation")
    ax.set_title(f"{game}: rating per generation")
    ax.legend(fontsize=8)
    if rated:
        cx = axes[1]
        g, r, h = zip(*rated)
        cx.errorbar(g, r, yerr=h, marker="o", capsize=2)
        cx.axhline(1000, color="grey", lw=0.5)
        cx.set_xlabel("generation")
        cx.set_title("raw policy on the ladder (Elo, greedy = 1000, 95 %)")
    bx.plot(gens, [float(r["policy_loss"]) for r in history], label="policy loss")
    bx.plot(gens, [float(r["value_loss"]) for r in history], label="value loss")
    bx.set_xlabel("generation")
    bx.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)
