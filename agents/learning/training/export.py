"""Export a training run's final policy as the package's pretrained policy of its game.

:func:`export` reads a finished ``train.py`` run (``summary.json`` and the final model) and
writes ``<game>.npz`` (the actor's arrays in the smallest :data:`STORAGES` form that still
plays the trained actor's moves, see :func:`store`) and ``<game>.json`` (its record, see
:mod:`agents.pretrained`).  A flat MLP actor is taken from the run's ``final_model.npz`` (no
torch needed); a structured network (:class:`agents.players.networks.ExpancityPolicy`,
:class:`agents.players.networks.BoardPolicy`, :class:`agents.players.networks.ActionValuesPolicy`) from
``final_model.zip`` through its numpy twin (:mod:`agents.pretrained.expancity_numpy`,
:mod:`agents.pretrained.board_numpy`, :mod:`agents.pretrained.values_numpy`), whose logits are
checked against torch's on observations of real play before anything is written.
"""
from __future__ import annotations

import json
import os
import time
from importlib import metadata

import numpy as np

import envs
from agents.base import policy_observation
from agents.learning.training.recipes import defaults_for
from agents.players.greedy import GreedyAgent
from agents.players.policy import export_numpy_actor, load_model
from agents.players.random_agent import RandomAgent
from agents.pretrained import (MLP, MODELS_DIR, NUMPY_TWINS, ROW_SCALE, actor_from_arrays,
                               clear_cache, load_record, weights_sha256)
from envs.shell import flat_observation


def _json_value(value):
    return json.loads(json.dumps(value, default=list))


def overridden_fields(game, config):
    """``{field: value}`` of a run's recorded ``config`` that differ from the game's
    defaults (:func:`~agents.learning.training.recipes.defaults_for`, resolved as a run resolves
    them)."""
    defaults = _json_value(defaults_for(game).resolved().summary())
    config = _json_value(config)
    return {name: value for name, value in config.items() if defaults.get(name, object()) != value}


def _actor_arrays(run_dir, config):
    """The actor's arrays of a run, plus its kind, from the run's final model."""
    if config.get("policy", MLP) == MLP:
        npz = os.path.join(run_dir, "final_model.npz")
        if not os.path.exists(npz):   # a run from before train.py wrote it: export from torch
            export_numpy_actor(load_model(os.path.join(run_dir, "final_model.zip")), npz)
        with np.load(npz, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
        arrays["kind"] = np.array(MLP)
        return arrays
    if config["policy"] not in NUMPY_TWINS:
        raise ValueError(f"no numpy export for policy {config['policy']!r}")
    export_arrays, actor = NUMPY_TWINS[config["policy"]]
    model = load_model(os.path.join(run_dir, "final_model.zip"))
    arrays = export_arrays(model)
    _check_against_torch(model, actor(arrays), config)
    arrays["kind"] = np.array(config["policy"])
    return arrays


def _check_against_torch(model, actor, config, games=2, atol=1e-4):
    """Refuse an export whose numpy logits differ from torch's on observations of real play."""
    import torch   # here: exporting a flat MLP run (and restoring a file) needs no torch

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
    """Every float32 array of two or more dimensions (a weight matrix, a convolution kernel)
    in float16, which halves the file; vectors (biases, observation scales, the tie-break
    lean of a head's bias) and scalars stay as they are."""
    return {name: value.astype(np.float16) if _is_matrix(value) else value
            for name, value in arrays.items()}


def int8_rows(arrays):
    """Every float32 array of two or more dimensions in int8, with one float32 scale per
    output row (its first index) under ``name + ROW_SCALE``: ``q = round(w / s)``, ``s`` the
    row's largest magnitude / 127, so a quarter of float32's bytes; other arrays as they
    are.  :func:`agents.pretrained.as_float32` reads it back."""
    out = {}
    for name, value in arrays.items():
        if not _is_matrix(value):
            out[name] = value
            continue
        rows = value.reshape(value.shape[0], -1)
        largest = np.abs(rows).max(axis=1)
        scale = np.where(largest > 0, largest / 127, 1).astype(np.float32)
        out[name] = np.rint(rows / scale[:, None]).astype(np.int8).reshape(value.shape)
        out[name + ROW_SCALE] = scale
    return out


def _is_matrix(value):
    return value.dtype == np.float32 and value.ndim >= 2


# How a policy file may store the trained float32 arrays, smallest first: name ->
# (arrays -> stored arrays, description).  :func:`store` takes the first one that passes.
STORAGES = {
    "int8": (int8_rows, "int8 weight matrices and convolution kernels with a float32 scale per "
                        "output row, float32 vectors; computed in float32 (export.int8_rows)"),
    "float16": (half_precision, "float16 weight matrices and convolution kernels, float32 vectors; "
                                "computed in float32 (export.half_precision)"),
    "float32": (dict, "the trained float32 arrays"),
}
# The least share of the trained actor's moves a stored form must play to be chosen.
SAME_MOVE_SHARE = 0.998


def store(trained, game, options, check_games):
    """``(name, stored arrays, checks)``: the first of :data:`STORAGES` whose actor plays the
    trained actor's move in at least :data:`SAME_MOVE_SHARE` of the decisions of
    :func:`decision_agreement` (``check_games`` games); ``checks`` holds the agreement of
    every form tried, by name.  Storing can change a near-tie's move; this bounds how often."""
    reference = actor_from_arrays(trained)
    checks = {}
    for name, (convert, _) in STORAGES.items():
        arrays = convert(trained)
        if name == "float32":     # the trained arrays themselves: nothing to check
            break
        checks[name] = decision_agreement(reference, actor_from_arrays(arrays), game, options,
                                          games=check_games)
        if checks[name]["same_move"] >= SAME_MOVE_SHARE * checks[name]["decisions"]:
            break
    return name, arrays, checks


def decision_agreement(trained, shipped, game, options, games=10, seed=500):
    """How far the ``shipped`` actor departs from the ``trained`` one in play: over the
    decisions with more than one legal action of ``games`` games between the trained actor
    (seat ``g % 2`` of game ``g``, its masked argmax) and ``GreedyAgent(seed=g)``, from env
    seeds ``seed, seed + 1, ...``: ``{"decisions", "same_move", "max_logit_change"}``
    (the largest change of a legal action's logit)."""
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

    The file holds :func:`store`'s form of the run's actor; the record keeps the hash of
    both (``weights_sha256`` of the file's arrays, ``trained_weights_sha256`` of the run's
    float32 ones) and the agreement of each stored form tried (``storage_checks``)."""
    _check_games(check_games)
    with open(os.path.join(run_dir, "summary.json")) as f:
        summary = json.load(f)
    config = dict(summary["config"])
    game = summary["game"]
    config.setdefault("game", game)
    trained = _actor_arrays(run_dir, {**config, "options": summary.get("options", {})})
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
                             "win_intervals": summary.get("final_win_intervals", {}),
                             "ladder_rating": summary.get("final_ladder_rating")},
        "versions": _versions(),
        "exported": time.strftime("%Y-%m-%d", time.gmtime()),
        "provenance": (f"agents.learning.training.run.train with GAME_DEFAULTS[{game!r}] of "
                       f"agents.learning.training.recipes (fields in 'overridden' "
                       f"changed), seed {config.get('seed')}, run by "
                       f"'python -m benchmarks.training_report --games {game}' and exported by "
                       f"'python -m agents.pretrained export RUN_DIR'. {note}").strip(),
    }
    return _write(record, trained, directory, check_games)


def restore(game, trained_npz, directory=MODELS_DIR, check_games=10):
    """Store ``game``'s policy in ``directory`` again from its run's float32 actor arrays
    (an ``.npz`` of them, ``kind`` included, as a float32 policy file holds them), after a
    change of :data:`STORAGES`; every other field of its record stays.  The arrays must
    have the record's ``trained_weights_sha256``.  Returns the new record."""
    _check_games(check_games)
    record = load_record(game, directory)
    with np.load(trained_npz) as data:
        trained = {name: data[name] for name in data.files}
    if weights_sha256(trained) != record["trained_weights_sha256"]:
        raise ValueError(f"{trained_npz} does not hold the trained arrays of {game!r}'s shipped "
                         f"policy (trained_weights_sha256 differs)")
    record.pop("half_precision_check", None)     # the field of files stored in float16 alone
    record["restored"] = time.strftime("%Y-%m-%d", time.gmtime())
    return _write(record, trained, directory, check_games)


def _check_games(check_games):
    if isinstance(check_games, bool) or not isinstance(check_games, (int, np.integer)) or check_games < 1:
        raise ValueError(f"check_games must be an integer >= 1, got {check_games!r}")


def _write(record, trained, directory, check_games):
    """Store ``trained`` (:func:`store`), complete ``record`` with the hashes and checks, and
    write both files."""
    game = record["game"]
    name, arrays, checks = store(trained, game, record.get("options", {}), check_games)
    record.update({
        "weights_sha256": weights_sha256(arrays),
        "trained_weights_sha256": weights_sha256(trained),
        "storage": name,
        "storage_description": STORAGES[name][1],
        "storage_checks": {form: {"games": check_games, "opponent": "greedy", **check}
                           for form, check in checks.items()},
    })
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
