"""Ship a training run's network as ``agents/pretrained/models/az_<game>.npz`` + ``.json``.

The file holds the smallest of :data:`agents.learning.training.export.STORAGES` (int8 rows,
float16, float32) whose raw policy plays the trained network's move in at least
:data:`agents.learning.training.export.SAME_MOVE_SHARE` of the decisions of a few games against
greedy (:func:`decision_agreement`); the record holds the run's config, the search
settings it trained with (``search``), the settings it plays with where matches after
training chose others (``play_search``, read over ``search`` by the ``az`` agent), the
curve, the storage checks and ``weights_sha256`` (checked at every load).
"""
from __future__ import annotations

import csv
import json
import os
import time

import numpy as np

from agents.pretrained import AZ_PREFIX, MODELS_DIR, as_float32, weights_sha256
from agents.learning.training.export import SAME_MOVE_SHARE, STORAGES, _versions


def decision_agreement(trained, stored, record, games=6, seed=500):
    """``{"decisions", "same_move"}``: how often the raw policy of the ``stored`` arrays plays
    the ``trained`` arrays' move, over the decisions (more than one legal action) of
    ``games`` games of the trained policy (seat ``g % n``) against greedy."""
    import envs
    from agents.players.greedy import GreedyAgent
    from agents.players.az import AZPolicyAgent

    env = envs.make(record["game"], **record.get("options", {}))
    a, b = AZPolicyAgent(seed=0), AZPolicyAgent(seed=0)
    for agent, arrays in ((a, trained), (b, stored)):
        agent.arrays, agent.record, agent.game = as_float32(arrays), record, record["game"]
        agent.arrays = {k: v for k, v in agent.arrays.items() if k != "kind"}
    decisions = same = 0
    n = len(env.possible_agents)
    for g in range(games):
        env.reset(seed=seed + g)
        greedy = GreedyAgent(seed=g)
        for who in env.agent_iter():
            if env.terminations[who] or env.truncations[who]:
                break
            if n > 1 and env.possible_agents.index(who) != g % n:
                env.step(greedy.act(env, who))
                continue
            mask = env.observe(who)["action_mask"]
            move = int(np.argmax(a.logits(env, who)))
            if mask.sum() > 1:
                decisions += 1
                same += int(np.argmax(b.logits(env, who))) == move
            env.step(move)
    return {"decisions": decisions, "same_move": same}


def read_curve(run_dir):
    path = os.path.join(run_dir, "curve.csv")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(csv.DictReader(f))


def export(run_dir, generation=None, directory=MODELS_DIR, note="", command="", check_games=6, play_search=None):
    """Write ``az_<game>.npz``/``.json`` into ``directory`` from generation ``generation``
    (default: the last) of the run in ``run_dir``; returns the record.  ``play_search``:
    search parameters the ``az`` agent plays the network with in place of the trained ones
    (names of :class:`agents.players.az_search.SearchParams`)."""
    from agents.players.az_search import default_params
    gens = sorted(f for f in os.listdir(os.path.join(run_dir, "generations")) if f.endswith(".npz"))
    if not gens:
        raise ValueError(f"run_dir: {run_dir!r} has no exported generation")
    name = gens[-1] if generation is None else f"gen_{int(generation):03d}.npz"
    if name not in gens:
        raise ValueError(f"generation: {run_dir!r} has no {name}")
    src = os.path.join(run_dir, "generations", name)
    with np.load(src) as data:
        trained = {k: data[k] for k in data.files}
    with open(src[:-4] + ".json") as f:
        gen_record = json.load(f)
    game = gen_record["game"]
    play_search = dict(play_search or {})
    try:
        default_params(game, **play_search)
    except ValueError as exc:
        raise ValueError(f"play_search: {exc}") from None
    checks = {}
    chosen, arrays = "float32", trained
    for form, (convert, _) in STORAGES.items():
        if form == "float32":
            break
        candidate = convert({k: v for k, v in trained.items()})
        checks[form] = decision_agreement(trained, candidate, gen_record, games=check_games)
        if checks[form]["same_move"] >= SAME_MOVE_SHARE * checks[form]["decisions"]:
            chosen, arrays = form, candidate
            break
    record = {
        "game": game, "kind": "az_mlp", "options": gen_record["options"],
        "generation": gen_record["generation"], "config": gen_record["config"],
        "search": gen_record["search"], "play_search": play_search, "storage": chosen, "storage_description": STORAGES[chosen][1],
        "storage_checks": checks, "curve": read_curve(run_dir), "command": command, "note": note,
        "exported": time.strftime("%Y-%m-%d"), "versions": _versions(),
        "trained_weights_sha256": weights_sha256(trained), "weights_sha256": weights_sha256(arrays),
    }
    os.makedirs(directory, exist_ok=True)
    base = os.path.join(directory, AZ_PREFIX + game)
    np.savez_compressed(base + ".npz", **arrays)
    with open(base + ".json", "w") as f:
        json.dump(record, f, indent=2)
    from agents.players import az
    az._NETWORKS.clear()
    return record
