"""Export a training run's final policy as the package's pretrained policy of its game.

:func:`export` reads a finished ``train.py`` run (``summary.json`` and the final model) and
writes ``<game>.npz`` (the actor's arrays) and ``<game>.json`` (its record, see
:mod:`agents.pretrained`).  A flat MLP actor is taken from the run's ``final_model.npz``
(no torch needed); a structured network (:class:`agents.networks.ExpancityPolicy`,
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

from agents.pretrained import MLP, MODELS_DIR, NUMPY_TWINS, clear_cache, weights_sha256


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


def _versions():
    from importlib import metadata
    out = {}
    for name in ("cityzoo", "numpy", "numba", "torch", "stable-baselines3", "sb3-contrib"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def export(run_dir, directory=MODELS_DIR, note=""):
    """Write ``<game>.npz`` and ``<game>.json`` into ``directory`` from a finished training
    run (its ``summary.json`` and final model); returns the record."""
    with open(os.path.join(run_dir, "summary.json")) as f:
        summary = json.load(f)
    config = dict(summary["config"])
    game = summary["game"]
    config.setdefault("game", game)
    arrays = _actor_arrays(run_dir, {**config, "options": summary.get("options", {})})
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
