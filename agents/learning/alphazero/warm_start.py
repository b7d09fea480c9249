"""Warm start of the learned search from the game's shipped PPO policy (Expert Iteration's
apprentice begins as the expert's copy).

Self-play from a network that knows only greedy's judgement has to rediscover, with a
32-simulation search, what the shipped policy (``"pretrained"``) already plays.  So with
``warm_start="pretrained"`` the trainer first plays ``warm_start_games`` games in which every
seat is that policy (:func:`play_teacher`, in the self-play workers) and labels each decision
with more than one legal action by the policy's move distribution (softmax of its masked
logits at ``warm_start_temperature``); the game's final outcome is the value target, on the
scale self-play uses (the search's ``outcome_vector``).  With probability
``warm_start_explore`` a seat plays a uniformly random legal move instead -- the label stays
the policy's -- so the samples also cover positions the policy would not reach by itself.

The samples have self-play's layout (:mod:`agents.learning.alphazero.replay`): the trainer
fits the network to them (generation 0, rated like every generation) and keeps them in the
replay buffer, which self-play's samples then replace, oldest first.
"""
from __future__ import annotations

import numpy as np

from agents.base import legal_actions, policy_observation
from agents.learning.alphazero.selfplay import MAX_SAMPLES_PER_GAME
from agents.players.az_search import SearchParams, Workspace, search_functions

TEACHERS = ("none", "pretrained")


def _env(game, num_players, options):
    import envs
    return envs.make(game, num_players=num_players, **options)


def play_teacher(job):
    """Play ``job``'s games with the shipped policy in every seat; samples as
    :func:`agents.learning.alphazero.selfplay.play_selfplay` returns them."""
    import agents

    env = _env(job["game"], job["num_players"], job.get("env_options", {}))
    raw = env.unwrapped
    spec, cfg = raw.spec, raw.cfg
    p, a = cfg.num_players, spec.num_actions
    params = SearchParams(**job["params"])
    vector = params.vector()
    fns = search_functions(spec.kernel)
    ws = Workspace(cfg, a, (1, 1), capacity=1)
    teacher = agents.make("pretrained", game=job["game"])
    rng = np.random.default_rng(int(job["search_seed"]))
    explore, temperature = float(job["explore"]), float(job["temperature"])
    parts = {k: [] for k in ("obs", "av", "mask", "pi", "z")}
    scores, finals, counts = [], [], []
    final = np.zeros(p)
    for seed in job["seeds"]:
        env.reset(seed=int(seed))
        obs_rows, av_rows, mask_rows, pi_rows, seats = [], [], [], [], []
        while env.agents:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            legal = legal_actions(env, agent)
            if legal.size == 1:
                env.step(int(legal[0]))
                continue
            flat, mask = policy_observation(env, agent, teacher.actor.n_obs)
            logits = teacher.batch_logits(flat[None], mask[None])[0]
            move = int(np.argmax(logits))
            if len(obs_rows) < MAX_SAMPLES_PER_GAME:
                z = np.exp((logits - logits[move]) / temperature)
                # float16, as the replay buffer keeps them (an observation of Expancity has 8,233 values)
                obs_rows.append(np.asarray(env.observe(agent)["observation"], np.float16))
                av_rows.append(np.asarray(raw.observe_action_values(agent), np.float16)
                               if params.use_action_values else np.zeros(a, np.float16))
                mask_rows.append(np.asarray(mask, np.int8))
                pi_rows.append((z / z.sum()).astype(np.float32))
                seats.append(raw.possible_agents.index(agent))
            if explore and rng.random() < explore:
                move = int(rng.choice(legal))
            env.step(move)
        fns.outcome_vector(raw.kernel_state, vector, ws.sc, ws.vals, ws.rk, final)
        seat = np.asarray(seats, np.int64)
        n = len(seats)
        if n:
            parts["obs"].append(np.stack(obs_rows))
            parts["av"].append(np.stack(av_rows))
            parts["mask"].append(np.stack(mask_rows))
            parts["pi"].append(np.stack(pi_rows))
            parts["z"].append(final[(seat[:, None] + np.arange(p)[None, :]) % p].astype(np.float32))
        sc = np.zeros(max(int(cfg.num_participants), p), np.int64)
        spec.kernel.scores(raw.kernel_state, sc)
        scores.append(sc[:p].tolist())
        finals.append(final.tolist())
        counts.append(n)
    samples = {k: np.concatenate(v) if v else np.zeros((0,)) for k, v in parts.items()}
    return {"samples": samples, "scores": scores, "final": finals, "counts": counts}


def check_teacher(game, num_players, options):
    """``ValueError`` unless the shipped policy of ``game`` reads this table's observations."""
    import agents
    from agents.pretrained import available_games

    if game not in available_games():
        raise ValueError(f"warm_start: {game!r} has no shipped policy to start from")
    env = _env(game, num_players, options)
    env.reset(seed=0)
    agent = env.agent_selection
    teacher = agents.make("pretrained", game=game)
    flat, mask = policy_observation(env, agent, teacher.actor.n_obs)
    teacher.batch_logits(flat[None], mask[None])     # ValueError naming the sizes
