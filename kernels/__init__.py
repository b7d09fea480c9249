"""Numba kernels: every game's rules as pure functions on a flat ``np.int64`` state array.

Shared toolkit modules:

* :mod:`kernels.rng`  -- counter-based PRNG whose state lives inside the game state;
* :mod:`kernels.grid` -- grid adjacency, flood fill / connected components, and
  pattern matching under the 8 rotations/reflections.

Per-game modules (``kernels.kingdomino_duel`` ...) follow the contract documented in
:mod:`envs.spec`.
"""
