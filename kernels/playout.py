"""Game-independent jitted loops over a kernel's functions.

The kernel functions are passed in as arguments (numba compiles one specialisation per
game), so benchmarks and search agents share one loop instead of one per game.
"""
import functools
import inspect

import numpy as np
from numba import njit

from kernels import rng


_PICK_BLOCK = 64


@njit(cache=True)
def pick_uniform(mask, gen, off):
    """A uniformly random index among the entries of the 0/1 ``mask`` that are 1 (-1 if
    none): every legal mask the kernels and environments write."""
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


def per_kernel(build):
    """Decorator: ``build(kernel, *options)`` -- which compiles jitted closures over a
    kernel's functions -- runs once per kernel, options and process; later calls return the
    same result (an option left out and the same option passed at its default are one call)."""
    built = {}
    signature = inspect.signature(build)

    @functools.wraps(build)
    def get(kernel, *options):
        as_called = (kernel.__name__,) + options
        fn = built.get(as_called)          # agents ask once a move: one lookup
        if fn is None:
            bound = signature.bind(kernel, *options)
            bound.apply_defaults()
            key = (kernel.__name__,) + tuple(bound.arguments.values())[1:]
            fn = built.get(key)
            if fn is None:
                fn = build(kernel, *options)
            built[key] = built[as_called] = fn
        return fn

    return get


def new_generator(seed):
    gen = np.zeros(rng.RNG_SLOTS, dtype=np.int64)
    rng.seed_rng(gen, 0, seed)
    return gen
