"""Game-independent jitted loops over a kernel's functions.

The kernel functions are passed in as arguments (numba compiles one specialisation per
game), so benchmarks and search agents share one loop instead of one per game.
"""
import numpy as np
from numba import njit

from kernels import rng


_PICK_BLOCK = 64
_BYTE_ONES = np.uint64(0x0101010101010101)


@njit(cache=True)
def pick_uniform(mask, gen, off):
    """A uniformly random index among the entries of the 0/1 ``mask`` that are 1 (-1 if
    none): every legal mask the kernels and environments write.  The index is the
    ``k``-th legal one for ``k = rng.randint(gen, off, count)``, however the mask is
    stored."""
    if mask.itemsize == 1 and mask.strides[0] == 1:
        return _pick_bytes(mask, gen, off)
    return _pick_entries(mask, gen, off)


@njit(cache=True, inline="always")
def _ones_in_word(w):
    """The number of 1 bytes in a word of 0/1 bytes: the multiplication adds every byte
    into the top one (at most 8, so no carry is lost)."""
    return np.int64((w * _BYTE_ONES) >> np.uint64(56))


@njit(cache=True)
def _pick_bytes(mask, gen, off):
    """:func:`pick_uniform` of a contiguous byte mask (the environments' int8 masks), read
    eight entries a word: half the time of :func:`_pick_entries` on a thousand entries."""
    n = mask.shape[0]
    n_words = n >> 3
    words = mask[:n_words * 8].view(np.uint64)
    count = 0
    for j in range(n_words):
        count += _ones_in_word(words[j])
    for i in range(n_words * 8, n):
        count += mask[i]
    if count <= 0:
        return -1
    k = rng.randint(gen, off, count)
    j = 0
    while j < n_words:
        in_word = _ones_in_word(words[j])
        if k < in_word:
            break
        k -= in_word
        j += 1
    for i in range(j * 8, n):   # one exit, not a branch on each entry
        k -= mask[i]
        if k < 0:
            return i
    return -1


@njit(cache=True)
def _pick_entries(mask, gen, off):
    """:func:`pick_uniform` of a mask of any type and layout."""
    # Counted by adding the entries (numba vectorises that loop; comparing each entry with
    # zero first made the count 2.3x dearer): masks run to a thousand entries.
    n = mask.shape[0]
    count = 0
    for i in range(n):
        count += mask[i]
    if count <= 0:
        return -1
    k = rng.randint(gen, off, count)
    # Skip whole blocks by their counts, then count down to the entry.
    start = 0
    while start + _PICK_BLOCK <= n:
        in_block = 0
        for i in range(start, start + _PICK_BLOCK):
            in_block += mask[i]
        if k < in_block:
            break
        k -= in_block
        start += _PICK_BLOCK
    for i in range(start, n):   # one exit, not a branch on each entry
        k -= mask[i]
        if k < 0:
            return i
    return -1


# Not cached: the compiled loop is specialised on the kernel functions it receives, and
# numba's on-disk index would gain an entry per process (and fail to pickle stale ones).
# Compiling it costs about a second per process; the kernels it calls stay cached.
@njit
def random_playout(step, legal_mask, current_player, state, mask, gen, max_steps):
    """Play uniformly random legal actions until the end (or ``max_steps``).

    ``gen`` is a 2-slot generator (see :mod:`kernels.rng`) owned by the caller, separate
    from the game's own.  Returns the number of steps played.
    """
    n = 0
    while n < max_steps and current_player(state) >= 0:
        legal_mask(state, mask)
        step(state, pick_uniform(mask, gen, 0))
        n += 1
    return n
