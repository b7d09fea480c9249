"""The warm start: the new policy imitates greedy or distils MCTS before PPO takes over."""
from __future__ import annotations

import sys
import time

from agents.learning import imitation


def warm_start(model, cfg, verbose=1):
    """Pre-train ``model``'s policy on a teacher's moves from ``cfg.warm_start_samples``
    decisions, their returns paid as the training env pays them (reward mode, shaping,
    reward scale, gamma); see :mod:`agents.learning.imitation`.  ``cfg.warm_start == "greedy"``:
    greedy's choices in labelled batched games; ``"mcts"``: the visit shares of
    ``MCTSAgent(cfg.warm_start_simulations)`` (expanding in ``cfg.warm_start_expansion`` order)
    in games between such agents, played in
    ``cfg.warm_start_workers`` processes.  Returns the pre-training's statistics
    (accuracies, seconds)."""
    t0 = time.time()
    log = (lambda line: print(line, file=sys.stderr, flush=True)) if verbose else None
    common = dict(explore=cfg.warm_start_explore, gamma=cfg.gamma, shaping=cfg.shaping,
                  reward_scale=cfg.reward_scale, seed=cfg.seed)
    if cfg.warm_start == "mcts":    # the env's options: the values policy's samples carry them
        samples = imitation.search_samples(
            cfg.game, cfg.warm_start_samples, simulations=cfg.warm_start_simulations,
            ordered_expansion=cfg.warm_start_expansion == "ordered",
            workers=cfg.warm_start_workers, log=log, **common, **cfg.env_options)
    else:       # greedy's samples have no visit shares: pretrain fits their labels either way
        samples = imitation.greedy_samples(cfg.game, cfg.warm_start_samples, **common, **cfg.options)
    t_samples = time.time() - t0
    stats = imitation.pretrain(model.policy, samples, epochs=cfg.warm_start_epochs,
                               target=cfg.warm_start_target, seed=cfg.seed, log=log)
    stats.update(sample_seconds=round(t_samples, 1), seconds=round(time.time() - t0, 1))
    if verbose:
        teacher = "MCTS" if cfg.warm_start == "mcts" else "greedy"
        print(f"[train] warm start from {teacher}: {stats['samples']:,} decisions "
              f"({t_samples:.0f}s), actor plays {teacher}'s move in "
              f"{stats.get('holdout_accuracy', stats['train_accuracy']):.1%} of held-out decisions "
              f"({stats['seconds']:.0f}s in all)", file=sys.stderr, flush=True)
    return stats
