"""One-ply greedy play in numba: :class:`agents.GreedyAgent`'s choice, and the greedy
opponents of the batched games, are this one function (:func:`greedy_function`); the
one-ply values it compares are :func:`action_values_function`.

The choice, for the seat to move in ``state``:

1. determinize a copy from that seat's point of view (the kernel's ``determinize``, seeded
   by a draw of the caller's generator ``gen``), so hidden information is never used;
2. apply each action legal in the real game (as the seat sees it) to a copy of that
   determinization and value the result with
   :func:`kernels.outcome.position_value_function` (a decided game first, then the margin
   of score plus potential over the other participants);
3. pick uniformly, with ``gen``, among the actions within 1e-9 of the best value (any
   legal action if none could be valued).
"""
import numpy as np
from numba import njit, prange

from kernels import outcome, rng
from kernels.compile_memo import per_kernel, specialise


@per_kernel
def action_values_function(kernel, features=False):
    """The jitted ``values(state, legal, seat, num_seats, det_seed, *Work(...).args()) -> best``
    of ``kernel``: greedy's one-ply value of every action legal in ``legal``, written into
    ``action_values`` (``-inf`` for every other action), and the best of them.  With
    ``features``, the values use the kernel's feature potential instead of greedy's
    (:func:`kernels.outcome.potential_of`).

    The values are read on a determinization of ``state`` from ``seat``'s point of view drawn
    with ``det_seed``, so they depend on nothing ``seat`` cannot see."""
    return specialise(_values, k_step=kernel.step, k_mask=kernel.legal_mask,
                      k_determinize=kernel.determinize,
                      position_value=outcome.position_value_function(kernel, features))


# Specialised by action_values_function: the kernel's step, legal_mask and determinize,
# and its position value.
def _values(state, legal, seat, num_seats, det_seed, det, after, det_mask, scores, values, ranks,
            action_values):
    det[:] = state
    k_determinize(det, seat, det_seed)
    k_mask(det, det_mask)
    best = -np.inf
    for a in range(legal.shape[0]):
        action_values[a] = -np.inf
        if legal[a] == 0 or det_mask[a] == 0:   # det_mask: cannot differ if the seat's own moves are public
            continue
        after[:] = det
        k_step(after, a)
        v = position_value(after, seat, num_seats, scores, values, ranks)
        action_values[a] = v
        if v > best:
            best = v
    return best


VALUE_FLOOR = -1000.0      # features: how far below the best an action may read (a lost game is far below)
_HASH_PRIME = np.uint64(1099511628211)
_HASH_START = np.uint64(14695981039346656037)


@njit(cache=True)
def observation_seed(observation):
    """A determinization seed computed from an observation alone (an FNV-style hash of its
    values to 1/4096): the same information set always gives the same seed."""
    h = _HASH_START
    for i in range(observation.shape[0]):
        h = (h ^ np.uint64(np.int64(round(observation[i] * 4096.0)) & 0xFFFFFFFFFFFF)) * _HASH_PRIME
    return np.int64(h >> np.uint64(2))


@per_kernel
def action_value_features_function(kernel):
    """The jitted ``features(state, legal, seat, num_seats, observation, out, *Work(...).args())``
    of ``kernel``: for the seat to move, how far each legal action's one-ply value
    (:func:`action_values_function`, with the kernel's ``feature_potential`` where it has
    one, else greedy's) lies below the best one's, floored at
    :data:`VALUE_FLOOR` (0 for the best; 0 for every action not legal, and for all when no
    action could be valued).

    The determinization is seeded by :func:`observation_seed` of ``seat``'s observation, so
    the features are a function of what ``seat`` knows: they are part of what that seat
    observes (the environments' ``action_values`` option)."""
    # without a feature potential the features read greedy's own values (one compilation)
    return specialise(_features, action_values_of=action_values_function(
        kernel, hasattr(kernel, "feature_potential")))


# Specialised by action_value_features_function.
def _features(state, legal, seat, num_seats, observation, out, det, after, det_mask, scores, values,
              ranks, action_values):
    out[:] = 0.0
    best = action_values_of(state, legal, seat, num_seats, observation_seed(observation), det, after,
                            det_mask, scores, values, ranks, action_values)
    if best == -np.inf:
        return
    for a in range(legal.shape[0]):
        if legal[a] != 0 and action_values[a] > -np.inf:
            out[a] = max(action_values[a] - best, VALUE_FLOOR)
        elif legal[a] != 0:
            out[a] = VALUE_FLOOR


@per_kernel
def batch_action_value_features_function(kernel):
    """:func:`action_value_features_function` over a batch: ``batch_features(states, masks,
    players, num_seats, observations, out, *Work(..., rows=k).args())`` fills row ``i`` of
    ``out`` for the seat ``players[i]`` to move in game ``i``.

    The games are split into ``k`` contiguous chunks, one per scratch row, run in parallel
    threads (numba ``prange``).  A game's features depend on that game alone (the scratch is
    written before it is read), so the result does not depend on ``k`` or on the threads."""
    return specialise(_batch_features, dict(parallel=True),
                      features=action_value_features_function(kernel))


# Specialised by batch_action_value_features_function.
def _batch_features(states, masks, players, num_seats, observations, out, det, after, det_mask, scores,
                    values, ranks, action_values):
    n, chunks = states.shape[0], det.shape[0]
    for c in prange(chunks):
        for i in range(c * n // chunks, (c + 1) * n // chunks):
            features(states[i], masks[i], players[i], num_seats, observations[i], out[i], det[c],
                     after[c], det_mask[c], scores[c], values[c], ranks[c], action_values[c])


@per_kernel
def first_best_function(kernel):
    """The jitted ``first_best(state, mask, scratch, num_seats, scores, values, ranks) -> action``
    of ``kernel``: greedy's move in a playout, on a state that is already a determinization
    (so no determinizing, no draw): the first legal action in ``mask`` whose result has the
    best :func:`kernels.outcome.position_value_function` for the seat to move.  ``scratch``:
    one state of scratch; ``-1`` if no action is legal."""
    return specialise(_first_best, k_step=kernel.step, k_player=kernel.current_player,
                      position_value=outcome.position_value_function(kernel))


# Specialised by first_best_function.
def _first_best(state, mask, scratch, num_seats, scores, values, ranks):
    seat = k_player(state)
    best_a = -1
    best_v = -np.inf
    for a in range(mask.shape[0]):
        if mask[a] == 0:
            continue
        scratch[:] = state
        k_step(scratch, a)
        v = position_value(scratch, seat, num_seats, scores, values, ranks)
        if v > best_v or best_a < 0:
            best_v = v
            best_a = a
    return best_a


@per_kernel
def greedy_function(kernel):
    """The jitted ``choose(state, legal, num_seats, gen, *Work(...).args()) -> action`` of ``kernel``.

    ``legal``: the real game's mask (``int8``); ``gen``: a 2-slot generator
    (:mod:`kernels.rng`) the choice draws from; ``det``, ``after``, ... : scratch arrays (:class:`Work`)."""
    return specialise(_choose, k_player=kernel.current_player,
                      action_values_of=action_values_function(kernel))


# Specialised by greedy_function.
def _choose(state, legal, num_seats, gen, det, after, det_mask, scores, values, ranks, action_values):
    only = -1
    n_legal = 0
    for a in range(legal.shape[0]):
        if legal[a] != 0:
            n_legal += 1
            only = a
    if n_legal <= 1:          # a forced move (or none): no search, no draw
        return only
    seat = k_player(state)
    det_seed = np.int64(rng.next_u64(gen, 0) >> np.uint64(2))
    best = action_values_of(state, legal, seat, num_seats, det_seed, det, after, det_mask, scores,
                            values, ranks, action_values)
    count = 0
    for a in range(legal.shape[0]):
        if legal[a] != 0 and (best == -np.inf or action_values[a] >= best - 1e-9):
            count += 1
    k = rng.randint(gen, 0, count)
    for a in range(legal.shape[0]):
        if legal[a] != 0 and (best == -np.inf or action_values[a] >= best - 1e-9):
            if k == 0:
                return a
            k -= 1
    return -1


class Work:
    """Scratch arrays of one greedy choice (allocated once, reused for every move); with
    ``rows``, one set per chunk of a batch (:func:`batch_action_value_features_function`)."""

    def __init__(self, state_size, num_actions, num_participants, rows=None):
        lead = () if rows is None else (int(rows),)     # rows: one scratch set per batch chunk
        self.det = np.zeros(lead + (state_size,), dtype=np.int64)
        self.after = np.zeros(lead + (state_size,), dtype=np.int64)
        self.det_mask = np.zeros(lead + (num_actions,), dtype=np.int8)
        self.scores = np.zeros(lead + (num_participants,), dtype=np.int64)
        self.values = np.zeros(lead + (num_participants,), dtype=np.float64)
        self.ranks = np.zeros(lead + (num_participants,), dtype=np.int64)
        self.action_values = np.zeros(lead + (num_actions,), dtype=np.float64)

    def args(self):
        return (self.det, self.after, self.det_mask, self.scores, self.values, self.ranks,
                self.action_values)
