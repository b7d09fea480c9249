"""Many games of one kernel stepped by one jitted call.

``N`` games live in one ``(N, state_size)`` ``int64`` array.  :func:`batch_functions`
builds the jitted loops over that batch, one pair per kernel (compiled once, then loaded
from numba's disk cache: :mod:`kernels.compile_memo`):

``reset(states, config, seeds, players, masks, obs)``
    Start game ``i`` from ``seeds[i]`` and write, for the seat to move in each game, its
    number, legal mask and observation.
``step(states, actions, config, seeds, score_mode, players, masks, obs, rewards,
terminated, final_scores, final_ranks)``
    Apply ``actions[i]`` in game ``i`` (the caller has checked that it is legal), then, for
    a game that ended: its per-seat rewards (as the AEC shell pays them), final scores and
    ranks; the game is then restarted at once from the next seed of its sequence
    (:func:`kernels.rng.next_seed`, the sequence the AEC env follows for unseeded resets),
    so ``players``/``masks``/``obs`` always describe a game in progress.  Returns how many
    games ended (cheaper for the caller than asking numpy whether any did).

Games are independent, so the loop over them runs in parallel threads (numba ``prange``;
``numba.set_num_threads`` picks how many).  Each game's row is handed to the kernel's own
functions -- the same compiled rules as the AEC path, so both give identical games.
Batches where one learning seat plays against opponents run in the same call:
:mod:`kernels.seat_batch`.
"""
import numba
from numba import njit, prange

from kernels import outcome, rng
from kernels.compile_memo import per_kernel, specialise
from kernels.playout import pick_uniform


@per_kernel
def batch_functions(kernel):
    """``(reset, step)`` for ``kernel`` (see the module docstring): each game gets its own
    loops, with the kernel's functions bound as constants (:func:`kernels.compile_memo.specialise`)."""
    kernel_functions = dict(k_init=kernel.init, k_mask=kernel.legal_mask,
                            k_player=kernel.current_player, k_observe=kernel.observe)
    reset = specialise(_reset, dict(parallel=True), **kernel_functions)
    step = specialise(_step, dict(parallel=True), k_step=kernel.step, k_scores=kernel.scores,
                      k_ranks=kernel.ranks, **kernel_functions)
    return (reset, step)


# Specialised per kernel by batch_functions (k_init ... k_ranks: the kernel's functions).
def _reset(states, config, seeds, players, masks, obs):
    for i in prange(states.shape[0]):
        k_init(states[i], config, seeds[i])
        p = k_player(states[i])
        players[i] = p
        k_mask(states[i], masks[i])
        k_observe(states[i], p, obs[i])


def _step(states, actions, config, seeds, score_mode, players, masks, obs, rewards,
          terminated, final_scores, final_ranks):
    n_seats = rewards.shape[1]
    ended = 0
    for i in prange(states.shape[0]):
        state = states[i]
        k_step(state, actions[i])
        p = k_player(state)
        if p < 0:
            ended += 1
            terminated[i] = True
            k_scores(state, final_scores[i])
            k_ranks(state, final_ranks[i])
            outcome.end_rewards(final_ranks[i], final_scores[i], n_seats, score_mode, rewards[i])
            seeds[i] = rng.next_seed(seeds[i])
            k_init(state, config, seeds[i])
            p = k_player(state)
        else:
            terminated[i] = False
            for s in range(n_seats):
                rewards[i, s] = 0.0
        players[i] = p
        k_mask(state, masks[i])
        k_observe(state, p, obs[i])
    return ended


@njit(cache=True)
def first_bad_action(actions, masks):
    """The first game whose action is out of range or not legal in its ``masks`` row; -1
    when every action is legal."""
    n_actions = masks.shape[1]
    for i in range(actions.shape[0]):
        a = actions[i]
        if a < 0 or a >= n_actions or masks[i, a] == 0:
            return i
    return -1


@njit(cache=True, parallel=True)
def random_actions(masks, gens, out):
    """``out[i]``: a uniformly random legal action of game ``i`` (``gens[i]``: its 2-slot
    generator) -- the in-kernel random player, and the benchmarks' batched random play."""
    for i in prange(masks.shape[0]):
        out[i] = pick_uniform(masks[i], gens[i], 0)


def set_threads(n):
    """Run batched loops on ``n`` threads (at most numba's configured maximum)."""
    numba.set_num_threads(int(n))


def max_threads():
    return numba.config.NUMBA_NUM_THREADS
