"""Counter-based PRNG stored inside a game's int64 state array.

Two consecutive state slots hold the generator: ``state[off]`` is a 64-bit key and
``state[off + 1]`` a counter.  Draw ``i`` is ``mix(key + i * GOLDEN)`` with the
SplitMix64 finaliser, so the stream is a pure function of (key, counter): copying the
state copies the generator, and re-keying (``reseed``) re-draws every future outcome
without touching anything already seen.
"""
import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S11 = np.uint64(11)
_TWO53 = 1.0 / 9007199254740992.0

RNG_SLOTS = 2  # state slots one generator needs


@njit(cache=True)
def mix64(z):
    """SplitMix64 finaliser (a bijection on uint64)."""
    z = np.uint64(z)
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


@njit(cache=True)
def next_seed(seed):
    """The seed after ``seed`` in a game's sequence of seeds (in ``[0, 2**63)``): what an
    environment reset without a seed, or a batched game restarting, plays next."""
    return np.int64(mix64(np.uint64(seed) + GOLDEN) & np.uint64(0x7FFFFFFFFFFFFFFF))


@njit(cache=True)
def seed_rng(state, off, seed):
    """Key the generator at ``state[off]`` from any integer seed; counter restarts at 0."""
    state[off] = np.int64(mix64(np.uint64(seed) + GOLDEN))
    state[off + 1] = 0


@njit(cache=True)
def next_u64(state, off):
    ctr = np.uint64(state[off + 1])
    state[off + 1] = np.int64(ctr + np.uint64(1))
    return mix64(np.uint64(state[off]) + (ctr + np.uint64(1)) * GOLDEN)


@njit(cache=True)
def randint(state, off, n):
    """Uniform integer in ``[0, n)`` (n >= 1), from the top 53 bits of one draw."""
    u = next_u64(state, off) >> _S11
    return np.int64(np.float64(u) * _TWO53 * n)


@njit(cache=True)
def shuffle(state, off, arr, n):
    """Fisher-Yates shuffle of ``arr[:n]`` in place."""
    for i in range(n - 1, 0, -1):
        j = randint(state, off, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


@njit(cache=True)
def draw_from_counts(state, off, counts, n_kinds):
    """Draw one item from a bag kept as per-kind counts ``state[counts:counts + n_kinds]``.

    Each item is equally likely; its kind's count is decremented and the kind returned
    (-1 when the bag is empty).  Bags, stacks and decks whose order nobody has seen are
    kept this way, so re-keying the generator re-draws them for free.
    """
    total = np.int64(0)     # a bare 0 compiles randint a second time, for a literal n
    for i in range(n_kinds):
        total += state[counts + i]
    if total <= 0:
        return -1
    k = randint(state, off, total)
    for i in range(n_kinds):
        c = state[counts + i]
        if k < c:
            state[counts + i] = c - 1
            return i
        k -= c
    return -1


def new_generator(seed):
    """A generator of its own (``RNG_SLOTS`` int64 slots) keyed from ``seed``: for loops
    and agents that draw apart from a game's generator."""
    gen = np.zeros(RNG_SLOTS, dtype=np.int64)
    seed_rng(gen, 0, seed)
    return gen
