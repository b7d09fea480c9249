"""Self-play games of the learned search, in worker processes (or on Ray).

A job is a plain dict (picklable): the game and its options, the network's arrays, the
search parameters, simulations and Gumbel candidates a move, and the seeds of its games.
:func:`play_selfplay` plays them: every game and every search in one jitted call a game
(:func:`agents.players.az_search.search_functions`'s ``selfplay``), the network evaluated
inside numba, so a worker runs without torch.  Workers are the tournament's (a spawned
process pool, or ``ray`` with ``backend="ray"``) and stay up between generations, so the
search compiles once per worker.
"""
from __future__ import annotations

import os

import numpy as np

from agents.players import az_net
from agents.players.az_search import SearchParams, Workspace, search_functions
from agents.runner import Runner
from kernels.rng import new_generator

MAX_SAMPLES_PER_GAME = 2000

_ENVS = {}


def _raw_env(game, num_players, options):
    import envs

    key = (game, num_players, tuple(sorted(options.items())))
    if key not in _ENVS:
        _ENVS[key] = envs.make(game, num_players=num_players, **options).unwrapped
    return _ENVS[key]


def check_value_target_mix(mix, num_seats, num_participants):
    """``ValueError`` unless ``mix`` is a share in [0, 1] this table can use: the search's
    value is the mover's alone, so it can stand in for the other seat's value only in a
    two-seat game with no automata, where the two seats' outcomes sum to zero."""
    if isinstance(mix, bool) or not isinstance(mix, (int, float)) or not 0.0 <= mix <= 1.0:
        raise ValueError(f"value_target_mix must be a number in [0, 1], got {mix!r}")
    if mix > 0.0 and not (num_seats == 1 or (num_seats == 2 and num_participants == 2)):
        raise ValueError("value_target_mix > 0 needs a solo game or two seats without automata, "
                         f"got {num_seats} seats and {num_participants} participants")


def mix_search_value(z, q, mix):
    """Blend the search's root value ``q`` (the mover's) into the outcome targets ``z``
    (rows: samples; columns: seats from the mover) in place: ``(1 - mix) z + mix q`` for
    the mover and, with two seats, ``(1 - mix) z - mix q`` for the other."""
    z[:, 0] = (1.0 - mix) * z[:, 0] + mix * q
    if z.shape[1] == 2:
        z[:, 1] = (1.0 - mix) * z[:, 1] - mix * q


def play_selfplay(job):
    """Play ``job``'s games; returns the samples (see :mod:`agents.learning.alphazero.replay`)
    and per-game ``scores``, ``final`` outcome vectors and ``samples`` counts.  With
    ``value_target_mix`` > 0 the value targets blend in the search's value of each position
    (:func:`mix_search_value`)."""
    raw = _raw_env(job["game"], job["num_players"], job.get("env_options", {}))
    spec, cfg = raw.spec, raw.cfg
    p = cfg.num_players
    a = spec.num_actions
    target_mix = float(job.get("value_target_mix", 0.0))
    if target_mix > 0.0:
        check_value_target_mix(target_mix, p, int(cfg.num_participants))
    net = az_net.as_tuple(job["arrays"])
    hidden = az_net.describe(job["arrays"])[3]
    params = SearchParams(**job["params"]).vector()
    fns = search_functions(spec.kernel)
    ws = Workspace(cfg, a, hidden)
    ws.grow((job["simulations"] + 2) * (a + 1) + 1)
    rows = min(MAX_SAMPLES_PER_GAME, spec.max_steps)
    out_obs = np.zeros((rows, cfg.obs_size), np.float32)
    out_av = np.zeros((rows, a), np.float32)
    out_mask = np.zeros((rows, a), np.int8)
    out_pi = np.zeros((rows, a), np.float64)
    out_seat = np.zeros(rows, np.int64)
    out_q = np.zeros(rows, np.float64)
    final = np.zeros(p)
    improved = np.zeros(a)
    sig = np.zeros(a)
    state = np.zeros(cfg.state_size, np.int64)
    gen = new_generator(int(job["search_seed"]))
    parts = {k: [] for k in ("obs", "av", "mask", "pi", "z")}
    scores, finals, counts = [], [], []
    for seed in job["seeds"]:
        n = fns.selfplay(state, cfg.config, np.int64(seed), int(job["simulations"]), int(job["gumbel_m"]),
                         int(spec.max_steps), net, params, gen, ws.scratch(), ws.work.args(), *ws.tree(),
                         improved, sig, out_obs, out_av, out_mask, out_pi, out_seat, out_q, final)
        if n < 0:
            raise RuntimeError(f"self-play game seed {seed} of {job['game']} ran past max_steps")
        seat = out_seat[:n]
        z = final[(seat[:, None] + np.arange(p)[None, :]) % p]
        if target_mix > 0.0:
            mix_search_value(z, out_q[:n], target_mix)
        parts["obs"].append(out_obs[:n].copy())
        parts["av"].append(out_av[:n].copy())
        parts["mask"].append(out_mask[:n].copy())
        parts["pi"].append(out_pi[:n].astype(np.float32))
        parts["z"].append(z.astype(np.float32))
        sc = np.zeros(max(int(cfg.num_participants), p), np.int64)
        spec.kernel.scores(state, sc)
        scores.append(sc[:p].tolist())
        finals.append(final.tolist())
        counts.append(int(n))
    samples = {k: np.concatenate(v) if v else np.zeros((0,)) for k, v in parts.items()}
    return {"samples": samples, "scores": scores, "final": finals, "counts": counts, "pid": os.getpid()}


class Workers(Runner):
    """The tournament's :class:`agents.runner.Runner` playing self-play jobs:
    ``backend="process"`` (spawned processes, kept between calls) or ``"ray"``;
    ``workers <= 1`` plays in this process."""

    def __init__(self, workers=1, backend="process"):
        super().__init__(max(1, int(workers)), backend)

    def map(self, jobs, function=play_selfplay):
        """Results of ``jobs`` (self-play games, or ``function``'s), in order."""
        return super().map(function, jobs)
