"""Export a training run's final policy as the package's pretrained policy of its game.

:func:`export` reads a finished ``train.py`` run (``summary.json`` and the final model) and
writes ``<game>.npz`` (the actor's arrays, its matrices in float16: :func:`half_precision`)
and ``<game>.json`` (its record, see :mod:`agents.pretrained`).  A flat MLP actor is taken
from the run's ``final_model.npz`` (no torch needed); a structured network (:class:`agents.networks.ExpancityPolicy`,
:class:`agents.networks.BoardPolicy`, :class:`agents.networks.ActionValuesPolicy`) from
``final_model.zip`` through its numpy twin (:mod:`agents.pretrained.expancity_numpy`,
:mod:`agents.pretrained.board_numpy`, :mod:`agents.pretrained.values_numpy`), whose logits are
checked against torch's on observations of real play before anything is written.
"""
from __future__ import annotations

import json
import os
import time

import numpy as np

from agents.pretrained import (MLP, MODELS_DIR, NUMPY_TWINS, actor_from_arrays, clear_cache,
                               weights_sha256)

STORAGE = ("float16 weight matrices and convolution kernels, float32 vectors; computed in "
           "float32 (agents.pretrained.export.half_precision)")


def _json_value(value):
    return json.loads(json.dumps(value, default=list))


def overridden_fields(game, config):
    """``{field: value}`` of a run's recorded ``config`` that differ from the game's
    defaults (``train.defaults_for(game)``, resolved as ``train.train`` resolves them)."""
    import train
    defaults = _json_value(train.defaults_for(game).resolved().summary())
    config = _json_value(config)
    return {name: value for name, value in config.items() if defaults.get(name, object()) != value}


def _actor_arrays(run_dir, config):
    """The actor's arrays of a run, plus its kind, from the run's final model."""
    if config.get("policy", MLP) == MLP:
        npz = os.path.join(run_dir, "final_model.npz")
        if not os.path.exists(npz):   # a run from before train.py wrote it: export from torch
            from agents.policy import export_numpy_actor, load_model
            export_numpy_actor(load_model(os.path.join(run_dir, "final_model.zip")), npz)
        with np.load(npz) as data:
            arrays = {name: data[name] for name in data.files}
        arrays["kind"] = np.array(MLP)
        return arrays
    if config["policy"] not in NUMPY_TWINS:
        raise ValueError(f"no numpy export for policy {config['policy']!r}")
    export_arrays, actor = NUMPY_TWINS[config["policy"]]
    from agents.policy import load_model
    model = load_model(os.path.join(run_dir, "final_model.zip"))
    arrays = export_arrays(model)
    _check_against_torch(model, actor(arrays), config)
    arrays["kind"] = np.array(config["policy"])
    return arrays


def _check_against_torch(model, actor, config, games=2, atol=1e-4):
    """Refuse an export whose numpy logits differ from torch's on observations of real play."""
    import torch
    import envs
    from agents.random_agent import RandomAgent
    from envs.shell import flat_observation

    options = {k: v for k, v in (config.get("options") or {}).items()}
    if getattr(actor, "needs_action_values", False):
        options["action_values"] = True
    env = envs.make(config["game"], **options)
    observations = []
    for g in range(games):
        env.reset(seed=g)
        player = RandomAgent(seed=g)
        while not all(env.terminations.values()) and len(observations) < 40 * (g + 1):
            observations.append(flat_observation(env.observe(env.agent_selection)))
            env.step(player.act(env, env.agent_selection))
    obs = np.asarray(observations, dtype=np.float32)
    policy = model.policy
    with torch.no_grad():
        features = policy.extract_features(torch.as_tensor(obs), policy.pi_features_extractor)
        expected = policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()
    worst = float(np.abs(actor.batch_logits(obs) - expected).max())
    if worst > atol:
        raise ValueError(f"numpy and torch logits differ by {worst:.2e} (> {atol}): not exported")


def half_precision(arrays):
    """The arrays as a policy file stores them: every float32 array of two or more
    dimensions (a weight matrix, a convolution kernel) in float16, which halves the file;
    vectors (biases, observation scales, the tie-break lean of a head's bias) and scalars
    stay as they are.  The actors convert back to float32 when they load."""
    return {name: value.astype(np.float16) if value.dtype == np.float32 and value.ndim >= 2 else value
            for name, value in arrays.items()}


def decision_agreement(trained, shipped, game, options, games=10, seed=500):
    """How far the ``shipped`` actor departs from the ``trained`` one in play: over the
    decisions with more than one legal action of ``games`` games between the trained actor
    (seat ``g % 2`` of game ``g``, its masked argmax) and ``GreedyAgent(seed=g)``, from env
    seeds ``seed, seed + 1, ...``: ``{"decisions", "same_move", "max_logit_change"}``
    (the largest change of a legal action's logit)."""
    import envs
    from agents.base import policy_observation
    from agents.greedy import GreedyAgent

    env = envs.make(game, **{k: v for k, v in (options or {}).items() if k != "reward_mode"})
    decisions = same = 0
    worst = 0.0
    for g in range(games):
        env.reset(seed=seed + g)
        greedy = GreedyAgent(seed=g)
        for agent in env.agent_iter():
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            if env.possible_agents.index(agent) != g % 2:
                env.step(greedy.act(env, agent))
                continue
            obs, mask = policy_observation(env, agent, trained.n_obs)
            legal = np.asarray(mask, dtype=bool)
            a = trained.batch_logits(obs[None])[0]
            b = shipped.batch_logits(obs[None])[0]
            move = int(np.argmax(np.where(legal, a, -np.inf)))
            if legal.sum() > 1:
                decisions += 1
                same += int(np.argmax(np.where(legal, b, -np.inf))) == move
                worst = max(worst, float(np.abs(a - b)[legal].max()))
            env.step(move)
    return {"decisions": decisions, "same_move": same, "max_logit_change": round(worst, 6)}


def _versions():
    from importlib import metadata
    out = {}
    for name in ("cityzoo", "numpy", "numba", "torch", "stable-baselines3", "sb3-contrib"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def export(run_dir, directory=MODELS_DIR, note="", check_games=10):
    """Write ``<game>.npz`` and ``<game>.json`` into ``directory`` from a finished training
    run (its ``summary.json`` and final model); returns the record.

    The file holds :func:`half_precision` of the run's actor; the record keeps the hash of
    both (``weights_sha256`` of the file's arrays, ``trained_weights_sha256`` of the run's
    float32 ones) and :func:`decision_agreement` of the two over ``check_games`` games."""
    if isinstance(check_games, bool) or not isinstance(check_games, (int, np.integer)) or check_games < 1:
        raise ValueError(f"check_games must be an integer >= 1, got {check_games!r}")
    with open(os.path.join(run_dir, "summary.json")) as f:
        summary = json.load(f)
    config = dict(summary["config"])
    game = summary["game"]
    config.setdefault("game", game)
    trained = _actor_arrays(run_dir, {**config, "options": summary.get("options", {})})
    arrays = half_precision(trained)
    agreement = decision_agreement(actor_from_arrays(trained), actor_from_arrays(arrays), game,
                                   summary.get("options", {}), games=check_games)
    record = {
        "game": game,
        "options": summary.get("options", {}),
        "config": config,
        "overridden": overridden_fields(game, config),
        "seed": config.get("seed"),
        "timesteps": summary["timesteps"],
        "train_seconds": summary["train_seconds"],
        "total_seconds": summary["total_seconds"],
        "steps_per_second": summary["steps_per_second"],
        "final_evaluation": {"games_per_opponent": summary["final_eval_games"],
                             "win_rates": summary["final_win_rates"],
                             "mean_rewards": summary["final_mean_rewards"],
                             "win_intervals": summary.get("final_win_intervals", {})},
        "weights_sha256": weights_sha256(arrays),
        "trained_weights_sha256": weights_sha256(trained),
        "storage": STORAGE,
        "half_precision_check": {"games": check_games, "opponent": "greedy", **agreement},
        "versions": _versions(),
        "exported": time.strftime("%Y-%m-%d", time.gmtime()),
        "provenance": (f"train.train with train.GAME_DEFAULTS[{game!r}] (fields in 'overridden' "
                       f"changed), seed {config.get('seed')}, run by "
                       f"'python -m benchmarks.training_report --games {game}' and exported by "
                       f"'python -m agents.pretrained export RUN_DIR'. {note}").strip(),
    }
    os.makedirs(directory, exist_ok=True)
    base = os.path.join(directory, game)
    tmp = f"{base}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)
    os.replace(tmp, base + ".npz")
    with open(base + ".json", "w") as f:
        json.dump(record, f, indent=2)
        f.write("\n")
    clear_cache()
    return record
