"""One learning seat per game, in a batch of games stepped by one jitted call.

:func:`seat_functions` builds, once per kernel (:mod:`kernels.compile_memo`), ``advance``: it
applies the action given for each game, then plays the seats that are not the learner's
until one of three things happens in that game, which it reports in ``status[i]``:

``LEARNER_TO_MOVE``
    the learner is to move: ``masks[i]``/``obs[i]`` are its legal mask and observation
    (``players[i]`` is its seat);
``WAITING``
    a seat played from outside the call (a frozen policy: ``kinds[i, seat] == EXTERNAL``)
    is to move: ``players[i]`` is that seat, ``masks[i]``/``obs[i]`` are *its*, and the caller passes its action
    in the next call;
``RESTARTED``
    the game ended (``terminated[i]``; the learner's end reward, final scores, every
    participant's ranks and the learner's last observation are written) and restarted from
    the next seed of its sequence; the caller may change the new game's opponents and
    learner seat before the next call, which passes ``NO_ACTION``.

Random (``RANDOM``) and greedy (``GREEDY``, :func:`kernels.greedy.greedy_function`) seats
play inside the call, from their own generators ``gens[i, seat]``.  ``SKIP`` leaves a game
untouched, so a caller can resume only the games that wait on it.

Reward shaping (``shaping > 0``): the learner is also paid ``shaping * (phi(s') - phi(s))``
between its consecutive decisions and at the end, ``phi`` being its margin
(:func:`kernels.outcome.value_function`, score plus potential, minus the mean of every other
participant's) -- what :class:`envs.SingleAgentEnv` pays.  ``potentials[i]`` is NaN until the
learner's first decision of a game.
"""
import numpy as np
from numba import prange

from kernels import outcome, rng
from kernels.compile_memo import per_kernel, specialise
from kernels.playout import pick_uniform

# status[i] after a call
LEARNER_TO_MOVE, WAITING, RESTARTED = 0, 1, 2
# kinds[i, seat]: who plays a seat that is not the learner's
RANDOM, GREEDY, EXTERNAL = 0, 1, 2
# actions[i] besides a legal action
NO_ACTION, SKIP = -1, -2


@per_kernel
def seat_functions(kernel):
    """``(advance,)`` for ``kernel``; see the module docstring and :func:`_advance`."""
    from kernels.greedy import greedy_function
    advance = specialise(
        _advance, dict(parallel=True),
        k_init=kernel.init, k_step=kernel.step, k_mask=kernel.legal_mask,
        k_player=kernel.current_player, k_observe=kernel.observe, k_scores=kernel.scores,
        k_ranks=kernel.ranks, choose=greedy_function(kernel),
        values_of=outcome.value_function(kernel))
    return (advance,)


# Specialised per kernel by seat_functions: k_init ... k_ranks are the kernel's functions,
# choose its greedy choice, values_of its value function.
def _advance(states, actions, config, seeds, gens, kinds, learners, score_mode, shaping, fresh,
             status, players, masks, obs, rewards, terminated, final_scores, final_ranks, final_obs,
             potentials, seat_rewards, det, after, det_mask, scores, values, ranks, action_values):
    """``advance(states, actions, config, seeds, gens, kinds, learners, score_mode, shaping,
    fresh, status, players, masks, obs, rewards, terminated, final_scores, final_ranks, final_obs,
    potentials, seat_rewards, det, after, det_mask, scores, values, ranks, action_values)``:
    ``fresh`` (the first call of a step) clears ``rewards``/``terminated`` of the games it
    touches; later calls of the same step add to them.  The arrays after ``potentials``
    are per-game scratch.  Returns ``(waiting, restarted)``: how many games this call left
    ``WAITING`` and ``RESTARTED`` (both 0: every game's learner is to move)."""
    n_seats = seat_rewards.shape[1]
    waiting = 0
    restarted = 0
    for i in prange(states.shape[0]):
        if actions[i] == SKIP:
            continue
        state = states[i]
        learner = learners[i]
        if fresh:
            terminated[i] = False
            rewards[i] = 0.0
        if actions[i] >= 0:
            k_step(state, actions[i])
        while True:
            p = k_player(state)
            if p < 0:
                terminated[i] = True
                k_scores(state, final_scores[i])
                k_ranks(state, final_ranks[i])
                outcome.end_rewards(final_ranks[i], final_scores[i], n_seats, score_mode,
                                    seat_rewards[i])
                rewards[i] += seat_rewards[i, learner]
                if shaping != 0.0 and not np.isnan(potentials[i]):
                    values_of(state, n_seats, scores[i], values[i])
                    rewards[i] += shaping * outcome.margin(values[i], learner) - potentials[i]
                potentials[i] = np.nan
                k_observe(state, learner, final_obs[i])
                seeds[i] = rng.next_seed(seeds[i])
                k_init(state, config, seeds[i])
                status[i] = RESTARTED
                restarted += 1
                break
            k_mask(state, masks[i])
            if p == learner:
                if shaping != 0.0:
                    values_of(state, n_seats, scores[i], values[i])
                    phi = shaping * outcome.margin(values[i], learner)
                    if not np.isnan(potentials[i]):
                        rewards[i] += phi - potentials[i]
                    potentials[i] = phi
                k_observe(state, learner, obs[i])
                players[i] = p
                status[i] = LEARNER_TO_MOVE
                break
            kind = kinds[i, p]
            if kind == EXTERNAL:
                k_observe(state, p, obs[i])
                players[i] = p
                status[i] = WAITING
                waiting += 1
                break
            if kind == RANDOM:
                a = pick_uniform(masks[i], gens[i, p], 0)
            else:
                a = choose(state, masks[i], n_seats, gens[i, p], det[i], after[i], det_mask[i],
                           scores[i], values[i], ranks[i], action_values[i])
            k_step(state, a)
    return waiting, restarted
