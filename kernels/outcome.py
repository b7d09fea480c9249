"""How a finished game turns into rewards: one place for the shell, greedy and MCTS.

Ranks come from each kernel's ``ranks(state, out)`` over *all participants* -- the seats
first, then the automata (Smartphone Inc.'s Steve, Between Two Cities' solo automata) --
so a seat tied with an automaton shares its place with it.
"""
import numpy as np
from numba import njit


@njit(cache=True)
def rank_reward(ranks, seat):
    """The ``"rank"`` reward of one seat; see :func:`rank_rewards`."""
    m = ranks.shape[0]
    if m == 1:
        return 1.0
    tied = 0
    for j in range(m):
        if ranks[j] == ranks[seat]:
            tied += 1
    place = ranks[seat] + (tied - 1) / 2.0
    return 1.0 - 2.0 * (place - 1.0) / (m - 1)


@njit(cache=True)
def rank_rewards(ranks, num_seats, out):
    """The ``"rank"`` reward of each seat into ``out[:num_seats]``.

    ``ranks`` holds the 1-based rank of every participant (seats first, then automata;
    tied participants share the better rank).  A participant ranked ``r`` among ``M``
    gets ``1 - 2 (r - 1) / (M - 1)``: +1 for first, -1 for last; participants still tied
    after every tie-break share the average of the places they occupy, counting the
    automata among them.  With a lone participant (``M == 1``) there is no place to
    share: +1 (callers decide what a solo game pays; the shell pays the score).
    """
    for i in range(num_seats):
        out[i] = rank_reward(ranks, i)


def seat_rank_rewards(ranks, num_seats):
    """:func:`rank_rewards` as a new float64 array (Python callers)."""
    ranks = np.asarray(ranks)
    if ranks.ndim != 1 or ranks.size == 0 or not np.issubdtype(ranks.dtype, np.integer):
        raise ValueError(f"ranks must be a non-empty 1-D sequence of integers, got {ranks!r}")
    if ranks.min() < 1 or ranks.max() > ranks.size:
        raise ValueError(f"ranks must lie in [1, {ranks.size}] (one per participant), got {ranks.tolist()}")
    if isinstance(num_seats, (bool, np.bool_)) or not isinstance(num_seats, (int, np.integer)) \
            or not 1 <= num_seats <= ranks.size:
        raise ValueError(f"num_seats must be an integer in [1, {ranks.size}], got {num_seats!r}")
    ranks = np.ascontiguousarray(ranks, dtype=np.int64)
    out = np.zeros(int(num_seats), dtype=np.float64)
    rank_rewards(ranks, num_seats, out)
    return out
