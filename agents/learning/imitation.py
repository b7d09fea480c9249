"""Imitation warm start: a policy learns a teacher's moves before PPO fine-tunes it.

PPO from a random network spends most of a short budget rediscovering what the one-ply
:class:`agents.GreedyAgent` already knows.  So ``train.py --warm-start greedy`` first

1. plays batched games (:class:`envs.vector.VecGame`, every seat from here) and labels
   every decision with greedy's choice, computed in numba by the same function greedy
   plays (:func:`kernels.greedy.greedy_function`): :func:`greedy_samples`.  A move is the
   labelled one, or with probability ``explore`` a uniformly random legal one, so the
   samples also cover positions greedy would not reach by itself;
2. trains the policy's actor on them by masked cross-entropy and its value head on the
   return the training env would pay from that decision on (terminal reward, shaping,
   reward scale and discount as in :mod:`kernels.seat_batch`): :func:`pretrain`.  A
   value head that already fits keeps PPO's first advantages meaningful, so the first
   updates refine the imitated actor instead of scrambling it.

``train.py --warm-start mcts`` distils the search instead (:func:`search_samples`): games
in which every seat is an :class:`agents.players.mcts.MCTSAgent`, played in worker processes, each
decision labelled with the share of the root's visits every legal move received, and
:func:`pretrain` fits the actor to those shares by cross-entropy (or, ``target="move"``,
to the move the search plays).

A sample is the mover's observation and legal mask, so the policy learns from what its
seat sees; only the teacher looks at the game, through its own determinization.  Search
samples of games made with ``action_values=True`` hold the flat observation
(:func:`envs.shell.flat_observation`: the observation, then the action values), the input
of :class:`agents.players.networks.ActionValuesPolicy`.
"""
from __future__ import annotations

import collections

import numpy as np

from kernels import outcome, rng
from kernels.greedy import Work, greedy_function
from kernels.compile_memo import per_kernel, specialise


@per_kernel
def labelling_function(kernel):
    """The jitted ``label(states, masks, num_seats, gens, labels, movers, margins, det,
    after, det_mask, scores, values, ranks, action_values)`` of ``kernel``: for each game
    ``i``, ``labels[i]`` is greedy's choice for the seat to move (drawing from ``gens[i]``
    as :class:`agents.GreedyAgent` draws from its own generator), ``movers[i]`` that seat
    and ``margins[i]`` its margin (score plus potential over the other participants), the
    shaping potential the training env pays.  The arrays from ``det`` on are per-game
    scratch rows of :class:`kernels.greedy.Work`."""
    return specialise(_label, choose=greedy_function(kernel), values_of=outcome.value_function(kernel),
                      k_player=kernel.current_player)


# Specialised by labelling_function.  One thread: the labels are a once-per-run cost that
# threads on a busy machine can make slower rather than faster.
def _label(states, masks, num_seats, gens, labels, movers, margins, det, after, det_mask,
           scores, values, ranks, action_values):
    for i in range(states.shape[0]):
        seat = k_player(states[i])
        movers[i] = seat
        labels[i] = choose(states[i], masks[i], num_seats, gens[i], det[i], after[i],
                           det_mask[i], scores[i], values[i], ranks[i], action_values[i])
        values_of(states[i], num_seats, scores[i], values[i])
        margins[i] = outcome.margin(values[i], seat)


def _final_margins(kernel, state, action, num_seats, participants):
    """Every seat's margin after ``action`` ends the game from ``state`` (the final
    potential of the shaping; the batch has already restarted the game)."""
    after = state.copy()
    kernel.step(after, int(action))
    scores = np.zeros(participants, dtype=np.int64)
    values = np.zeros(participants)
    outcome.value_function(kernel)(after, num_seats, scores, values)
    return np.array([outcome.margin(values, s) for s in range(num_seats)])


def _check_payment(explore, gamma, shaping, reward_scale):
    """The sample settings both teachers share, checked: ``(explore, gamma, shaping,
    reward_scale)`` as floats."""
    reward_scale = _check_float(reward_scale, "reward_scale", 0.0)
    if reward_scale == 0.0:
        raise ValueError("reward_scale must be > 0, got 0")
    return (_check_float(explore, "explore", 0.0, 1.0), _check_float(gamma, "gamma", 0.0, 1.0),
            _check_float(shaping, "shaping", 0.0), reward_scale)


def _seat_returns(margins, end_reward, final_margin, gamma, shaping, reward_scale):
    """What the training env pays one seat from each of its decisions on (in order), the
    decisions' margins being ``margins``: the end reward plus the shaping of the final
    margin, each decision's own potential taken off, discounted by ``gamma`` per decision
    of the seat.  The shaping pays phi(next decision) - phi(this one), phi = shaping x margin."""
    out = np.zeros(len(margins))
    value = reward_scale * (end_reward + shaping * final_margin)
    for k in range(len(margins) - 1, -1, -1):
        value -= reward_scale * shaping * margins[k]
        out[k] = value
        value = gamma * value + reward_scale * shaping * margins[k]
    return out


def _check_int(value, name, low):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def _check_float(value, name, low, high=np.inf):
    ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))
    if not ok or not np.isfinite(value) or not low <= value <= high:
        raise ValueError(f"{name} must be a number in [{low}, {high}], got {value!r}")
    return float(value)


def greedy_samples(game_id, num_samples, *, explore=0.2, gamma=0.995, shaping=0.0,
                   reward_scale=1.0, num_envs=64, seed=0, reward_mode="rank", **options):
    """``num_samples`` decisions of batched games of ``game_id`` labelled with greedy's choice.

    Game ``i`` of the batch starts from seed ``seed + i`` and restarts from the next seed of
    its sequence (as :class:`envs.vector.VecGame` does); the teacher of each game draws from
    a generator seeded with the game's seed, so ``agents.GreedyAgent(seed=game seed)``,
    asked at the same positions of that game, gives the same labels.  Only decisions of
    games that finished are kept (their returns are known).

    Returns a dict of arrays, one row per decision, in the order they were played per game:
    ``observation`` (float32) and ``action_mask`` (int8) of the seat to move, ``label``
    (greedy's choice), ``played`` (the action played: the label, or with probability
    ``explore`` a uniformly random legal action), ``seat``, ``game_seed`` (the seed the game
    started from), ``return`` (what the training env pays from this decision on, discounted
    by ``gamma`` per decision of the seat: its end reward under ``reward_mode`` plus the
    ``shaping`` of its margin, times ``reward_scale``).
    """
    from envs.vector import VecGame

    num_samples = _check_int(num_samples, "num_samples", 1)
    num_envs = _check_int(num_envs, "num_envs", 1)
    explore, gamma, shaping, reward_scale = _check_payment(explore, gamma, shaping, reward_scale)
    games = VecGame(game_id, num_envs, reward_mode=reward_mode, copy=False, **options)
    cfg, kernel = games.cfg, games.spec.kernel
    n_seats = cfg.num_players
    participants = max(cfg.num_participants, n_seats)
    label = labelling_function(kernel)
    work = Work(cfg.state_size, games.num_actions, participants)
    scratch = [np.zeros((num_envs,) + a.shape, dtype=a.dtype) for a in work.args()]
    gens = np.zeros((num_envs, rng.RNG_SLOTS), dtype=np.int64)
    labels = np.zeros(num_envs, dtype=np.int64)
    movers = np.zeros(num_envs, dtype=np.int64)
    margins = np.zeros(num_envs)
    explorer = np.random.default_rng(seed)

    obs, info = games.reset(seed)
    game_seeds = info["seeds"].copy()
    for i in range(num_envs):
        rng.seed_rng(gens[i], 0, int(game_seeds[i]))
    open_games = [[] for _ in range(num_envs)]      # per game: (step, game, seat, margin) so far
    rows = {k: [] for k in ("observation", "action_mask", "label", "played", "seat", "game_seed")}
    returns = []
    kept = []
    while len(kept) < num_samples:
        before = games.states()
        label(before, obs["action_mask"], n_seats, gens, labels, movers, margins, *scratch)
        played = labels.copy()
        wander = np.flatnonzero(explorer.random(num_envs) < explore)
        for i in wander:
            played[i] = explorer.choice(np.flatnonzero(obs["action_mask"][i]))
        rows["observation"].append(obs["observation"].copy())
        rows["action_mask"].append(obs["action_mask"].copy())
        rows["label"].append(labels.copy())
        rows["played"].append(played.copy())
        rows["seat"].append(movers.copy())
        rows["game_seed"].append(game_seeds.copy())
        returns.append(np.full(num_envs, np.nan))
        for i in range(num_envs):
            open_games[i].append((len(rows["label"]) - 1, i, int(movers[i]), float(margins[i])))
        obs, rewards, terminated, _, info = games.step(played)
        for i in np.flatnonzero(terminated):
            final = _final_margins(kernel, before[i], played[i], n_seats, participants)
            for seat in range(n_seats):
                decisions = [d for d in open_games[i] if d[2] == seat]
                paid = _seat_returns([d[3] for d in decisions], rewards[i, seat], final[seat],
                                     gamma, shaping, reward_scale)
                for (step, col, _, _), value in zip(decisions, paid):
                    returns[step][col] = value
                    kept.append((step, col))
            open_games[i] = []
            game_seeds[i] = info["seeds"][i]
            rng.seed_rng(gens[i], 0, int(game_seeds[i]))
    rows["return"] = returns
    kept.sort()
    return _gather(rows, kept[:num_samples])


def _search_game(job):
    """Every decision of one game of ``game_id`` in which every seat is an
    :class:`agents.players.mcts.MCTSAgent` (``simulations`` per move, ``ordered_expansion``, seat
    ``k`` seeded with :func:`envs.vector.opponent_seed` of the game seed and ``k``), as a
    dict of arrays (see :func:`search_samples`)."""
    import envs
    from agents.players.mcts import MCTSAgent
    from envs.shell import flat_observation
    from envs.vector import opponent_seed

    game_id, game_seed, simulations, ordered, explore, gamma, shaping, reward_scale, options = job
    env = envs.make(game_id, **options)
    env.reset(seed=game_seed)
    raw = env.unwrapped
    kernel, n_seats = raw.spec.kernel, raw.cfg.num_players
    participants = max(raw.cfg.num_participants, n_seats)
    values_of = outcome.value_function(kernel)
    scores, values = np.zeros(participants, dtype=np.int64), np.zeros(participants)
    seats = {agent: k for k, agent in enumerate(env.possible_agents)}
    bots = {agent: MCTSAgent(simulations=simulations, seed=opponent_seed(game_seed, k),
                             ordered_expansion=ordered)
            for agent, k in seats.items()}
    explorer = np.random.default_rng(game_seed)
    rows = {k: [] for k in ("observation", "action_mask", "target", "label", "played", "seat")}
    margins = [[] for _ in range(n_seats)]
    end_rewards = np.zeros(n_seats)
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        end_rewards[seats[agent]] += reward
        if terminated or truncated:
            env.step(None)
            continue
        seen = env.observe(agent)
        mask = seen["action_mask"]
        legal = np.flatnonzero(mask)
        target = np.zeros(mask.shape[0], dtype=np.float32)
        if legal.size == 1:
            label = int(legal[0])
            target[label] = 1.0
        else:
            bot = bots[agent]
            bot.warm_up(env)
            stats = bot.search(raw, agent)
            visits = np.array([stats.get(int(a), (0.0, 0.0))[0] for a in legal])
            means = np.array([stats[int(a)][1] / n if n else -2.0
                              for a, n in zip(legal, visits)])
            # the move MCTSAgent plays: most visits, then the best mean result
            label = int(legal[np.lexsort((-np.arange(legal.size), means, visits))[-1]])
            if visits.sum() > 0:
                target[legal] = visits / visits.sum()
            else:
                target[label] = 1.0
        played = label
        if legal.size > 1 and explorer.random() < explore:
            played = int(explorer.choice(legal))
        seat = seats[agent]
        values_of(raw.kernel_state, n_seats, scores, values)
        margins[seat].append(float(outcome.margin(values, seat)))
        for name, value in (("observation", flat_observation(seen)), ("action_mask", mask),
                            ("target", target), ("label", label), ("played", played),
                            ("seat", seat)):
            rows[name].append(value)
        env.step(played)
    values_of(raw.kernel_state, n_seats, scores, values)
    returns = np.zeros(len(rows["seat"]))
    seat_of = np.array(rows["seat"])
    for seat in range(n_seats):
        paid = _seat_returns(margins[seat], end_rewards[seat],
                             float(outcome.margin(values, seat)), gamma, shaping, reward_scale)
        returns[seat_of == seat] = paid
    out = {name: np.array(parts) for name, parts in rows.items()}
    out["observation"] = out["observation"].astype(np.float32)
    out["action_mask"] = out["action_mask"].astype(np.int8)
    out["return"] = returns.astype(np.float32)
    out["game_seed"] = np.full(len(returns), game_seed, dtype=np.int64)
    return out


def search_samples(game_id, num_samples, *, simulations=400, ordered_expansion=False, explore=0.0,
                   gamma=0.995, shaping=0.0, reward_scale=1.0, seed=0, workers=1, reward_mode="rank",
                   log=None, **options):
    """``num_samples`` decisions of games of ``game_id`` in which
    every seat is an :class:`agents.players.mcts.MCTSAgent` with ``simulations`` iterations per
    move (and ``ordered_expansion``: untried moves expanded best first by greedy's
    evaluation), each labelled with the search's visit shares at the root -- the
    distillation target of :func:`pretrain`.

    Games start from seeds ``seed, seed + 1, ...`` and are played in ``workers`` processes;
    seat ``k`` of the game from seed ``s`` is ``MCTSAgent(simulations, seed=
    envs.vector.opponent_seed(s, k))``, so the samples do not depend on ``workers``.  Whole
    games are kept in seed order and the last one is cut at ``num_samples``.  The workers
    are started with ``spawn``, so a script that calls this with ``workers > 1`` needs the
    ``if __name__ == "__main__":`` guard.

    Returns the dict of :func:`greedy_samples` (``label`` is the move the search plays;
    ``played`` that move, or with probability ``explore`` a uniformly random legal one)
    plus ``target``: ``(num_samples, num_actions)`` float32, the share of the root's visits
    each legal action received (one-hot on forced moves).  ``log``: an optional
    ``print``-like callable told of the progress, about ten times."""
    import multiprocessing

    num_samples = _check_int(num_samples, "num_samples", 1)
    simulations = _check_int(simulations, "simulations", 1)
    if not isinstance(ordered_expansion, (bool, np.bool_)):
        raise ValueError(f"ordered_expansion must be True or False, got {ordered_expansion!r}")
    workers = _check_int(workers, "workers", 1)
    seed = _check_int(seed, "seed", 0)
    explore, gamma, shaping, reward_scale = _check_payment(explore, gamma, shaping, reward_scale)
    import envs
    envs.make(game_id, reward_mode=reward_mode, **options)     # options are checked here
    options = dict(options, reward_mode=reward_mode)

    def job(game_seed):
        return (game_id, game_seed, simulations, bool(ordered_expansion), explore, gamma, shaping,
                reward_scale, options)

    out, total, games, next_seed = None, 0, 0, seed
    pool = multiprocessing.get_context("spawn").Pool(workers) if workers > 1 else None
    pending = collections.deque()       # games in seed order, at most 2 per worker ahead
    try:
        while total < num_samples:
            if pool is None:
                game = _search_game(job(next_seed))
                next_seed += 1
            else:
                while len(pending) < 2 * workers:
                    pending.append(pool.apply_async(_search_game, (job(next_seed),)))
                    next_seed += 1
                game = pending.popleft().get()
            if out is None:     # filled game by game: no second copy of every sample
                out = {name: np.empty((num_samples,) + a.shape[1:], dtype=a.dtype)
                       for name, a in game.items()}
            take = min(len(game["label"]), num_samples - total)
            for name, a in game.items():
                out[name][total:total + take] = a[:take]
            before, total, games = total, total + take, games + 1
            if log is not None and (10 * total) // num_samples > (10 * before) // num_samples:
                log(f"[imitation] {games} search games: {total:,}/{num_samples:,} decisions")
    finally:
        if pool is not None:
            pool.terminate()
    return out


def _gather(rows, kept):
    """``{name: array}`` of the ``(step, game)`` entries ``kept`` (sorted by step) of the
    per-step batches ``rows[name]``, copied step by step (no stack of every batch)."""
    steps = np.array([k[0] for k in kept])
    games = np.array([k[1] for k in kept])
    bounds = np.searchsorted(steps, np.arange(len(rows["label"]) + 1))
    out = {}
    for name, parts in rows.items():
        out[name] = np.empty((len(kept),) + parts[0].shape[1:], dtype=parts[0].dtype)
        for step in np.flatnonzero(bounds[1:] > bounds[:-1]):
            a, b = bounds[step], bounds[step + 1]
            out[name][a:b] = parts[step][games[a:b]]
    return out


def masked_accuracy(policy, observations, masks, labels, batch_size=4096):
    """Share of ``labels`` that ``policy`` (a MaskablePPO policy) plays deterministically."""
    import torch

    hits = 0
    with torch.no_grad():
        for start in range(0, len(labels), batch_size):
            part = slice(start, start + batch_size)
            obs = policy.obs_to_tensor(observations[part])[0]
            dist = policy.get_distribution(obs, action_masks=masks[part].astype(bool))
            hits += int((dist.mode().cpu().numpy() == labels[part]).sum())
    return hits / max(1, len(labels))


def pretrain(policy, samples, *, epochs=10, batch_size=512, learning_rate=1e-3,
             value_weight=0.5, holdout=0.1, target="visits", seed=0, log=None):
    """Fit ``policy`` (a MaskablePPO policy, e.g. ``model.policy``) to ``samples`` (from
    :func:`greedy_samples` or :func:`search_samples`): the actor by masked cross-entropy on
    ``label``, or, when the samples have one and ``target`` is ``"visits"``, on the
    distribution ``target`` (``"move"``: on ``label`` all the same), the value head
    by squared error on ``return`` (divided by the returns' variance, weighted
    ``value_weight``), with Adam for ``epochs``
    passes.  The last ``holdout`` share of the samples (whole games, as they are ordered) is
    kept out of training and measures what the actor learnt.

    Returns ``{"train_accuracy", "holdout_accuracy", "holdout_value_mse", "samples",
    "epochs"}``; accuracy is the share of labels the deterministic policy plays.  ``log``:
    an optional ``print``-like callable that receives one line per epoch."""
    import torch

    epochs = _check_int(epochs, "epochs", 1)
    batch_size = _check_int(batch_size, "batch_size", 1)
    learning_rate = _check_float(learning_rate, "learning_rate", 0.0)
    value_weight = _check_float(value_weight, "value_weight", 0.0)
    holdout = _check_float(holdout, "holdout", 0.0, 0.5)
    if target not in ("visits", "move"):
        raise ValueError(f"target must be 'visits' or 'move', got {target!r}")
    missing = {"observation", "action_mask", "label", "return"} - set(samples)
    if missing:
        raise ValueError(f"samples lack {sorted(missing)} (make them with greedy_samples)")
    n = len(samples["label"])
    n_test = int(round(n * holdout))
    if n - n_test < 1:
        raise ValueError(f"samples: {n} are too few to train on with holdout={holdout}")
    obs, masks = samples["observation"], samples["action_mask"].astype(bool)
    labels = samples["label"].astype(np.int64)
    if not masks[np.arange(n), labels].all():
        raise ValueError("samples: a label is not legal under its action_mask")
    targets = samples.get("target") if target == "visits" else None
    if targets is not None:
        targets = np.asarray(targets, dtype=np.float32)
        if targets.shape != masks.shape or (targets[~masks] != 0).any():
            raise ValueError("samples: target must have action_mask's shape and be 0 on "
                             "illegal actions")
    returns = samples["return"].astype(np.float32)
    train_rows = np.arange(n - n_test)
    return_var = max(float(np.var(returns[train_rows])), 1e-6)
    test_rows = np.arange(n - n_test, n)
    shuffler = np.random.default_rng(seed)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    policy.set_training_mode(True)
    for epoch in range(epochs):
        order = shuffler.permutation(train_rows)
        total = 0.0
        for start in range(0, len(order), batch_size):
            rows = order[start:start + batch_size]
            x = policy.obs_to_tensor(obs[rows])[0]
            if targets is None:
                values, log_prob, _ = policy.evaluate_actions(
                    x, torch.as_tensor(labels[rows]), action_masks=masks[rows])
                actor_loss = -log_prob.mean()
            else:       # cross-entropy against the search's visit shares
                dist = policy.get_distribution(x, action_masks=masks[rows])
                log_probs = dist.distribution.logits        # normalised; masked ones ~ -1e8
                values = policy.predict_values(x)
                shares = torch.as_tensor(targets[rows])
                actor_loss = -(shares * log_probs.clamp(min=-1e4)).sum(dim=1).mean()
            target = torch.as_tensor(returns[rows])
            # the value error in units of the returns' variance, so that score-sized returns
            # do not crowd the actor out of the shared gradient clipping
            value_loss = torch.mean((values.flatten() - target) ** 2) / return_var
            loss = actor_loss + value_weight * value_loss
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            total += loss.item() * len(rows)
        if log is not None:
            log(f"[imitation] epoch {epoch + 1}/{epochs}: loss {total / len(order):.4f}")
    policy.set_training_mode(False)
    stats = {"samples": n, "epochs": epochs,
             "train_accuracy": masked_accuracy(policy, obs[train_rows], masks[train_rows],
                                               labels[train_rows])}
    if n_test:
        stats["holdout_accuracy"] = masked_accuracy(policy, obs[test_rows], masks[test_rows],
                                                    labels[test_rows])
        with torch.no_grad():
            v = policy.predict_values(policy.obs_to_tensor(obs[test_rows])[0]).flatten().numpy()
        stats["holdout_value_mse"] = float(np.mean((v - returns[test_rows]) ** 2))
        stats["holdout_return_var"] = float(np.var(returns[test_rows]))
    return stats
