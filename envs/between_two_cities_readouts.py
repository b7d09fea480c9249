"""Between Two Cities: tile names and what a seat remembers (shared by the text table and the picture).

Both presentations import this module, which imports only the kernel: the adapter
(``envs/between_two_cities.py``) reaches its picture (``envs/pictures/between_two_cities.py``) only inside
``picture()``, and the picture never imports the adapter, so the two have no import cycle
(``tests/test_envs_imports.py``).
"""
import numpy as np

from kernels import between_two_cities as K


def tile_name(tile):
    """Name of tile code ``tile``: ``0..8`` a single of that kind, ``9..32`` duplex ``tile - 9``."""
    if isinstance(tile, (bool, np.bool_)) or not isinstance(tile, (int, np.integer)) \
            or not 0 <= int(tile) < K.NUM_TILE_CODES:
        raise ValueError(f"tile must be an integer tile code in [0, {K.NUM_TILE_CODES}), got {tile!r}")
    t = int(tile)
    if t < K.NUM_KINDS:
        return K.KIND_NAMES[t]
    d = t - K.NUM_KINDS
    a, b = K.DUPLEX_HALVES[d]
    sep = "/" if K.DUPLEX_STACKED[d] else "|"
    return f"duplex {d} [{K.KIND_NAMES[a]}{sep}{K.KIND_NAMES[b]}]"


def remembered_tiles(state, seat):
    """What ``seat`` remembers and the table never saw: the tiles it passed last (now in a
    neighbour's hand) and the duplexes it discarded face down.  Empty in solo modes."""
    st = K.STATE.fields(state)
    if int(st.mode) not in (K.MODE_STD, K.MODE_2P):
        return []
    lines = []
    for label, counts in (("passed last", st.passed_last[seat]),
                          ("duplexes discarded face down", st.duplex_discards[seat])):
        if counts.any():
            lines.append(f"{label}: " + ", ".join(f"{tile_name(t)} x{int(counts[t])}"
                                                  for t in range(K.NUM_TILE_CODES) if counts[t]))
    return lines
