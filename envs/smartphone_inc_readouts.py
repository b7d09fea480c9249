"""Smartphone Inc.: a company's plan seen from above (shared by the text table and the picture).

Both presentations import this module, which imports only the kernel: the adapter
(``envs/smartphone_inc.py``) reaches its picture (``envs/pictures/smartphone_inc.py``) only inside
``picture()``, and the picture never imports the adapter, so the two have no import cycle
(``tests/test_envs_imports.py``).
"""
import numpy as np

from kernels import smartphone_inc as K


STEVE_COVERED = -1   # plan_cells' layer of the cell Steve's marker covers this round


def plan_cells(state, c):
    """Company ``c``'s plan of the round seen from above: ``(icon, layer)``, one entry per
    cell of the planning canvas (``K.CANVAS_R`` x ``K.CANVAS_C``, row-major).  ``icon`` is the
    visible icon (-1 none); ``layer`` 0 empty, 1 bottom pad, 2 top pad, 3 + k the k-th tile
    placed, or :data:`STEVE_COVERED` for the cell Steve's marker covers (his one pad)."""
    st = K.STATE.fields(state)
    icon = np.zeros(K.NUM_CELLS, dtype=np.int64)
    src = np.zeros(K.NUM_CELLS, dtype=np.int64)
    if c == st.steve:
        icon[:] = -1
        cov = K.STEVE_CYCLE[(int(st.round) - 1) % len(K.STEVE_CYCLE)]
        for v in range(K.NUM_STEVE_CELLS):
            icon[K.STEVE_CELLS[v]] = K.STEVE_PAD[v]
            src[K.STEVE_CELLS[v]] = STEVE_COVERED if v == cov else 1
        return icon, src
    K.paint(state, c, icon, src, int(K.PLAN.fields(st.plans[c]).count))
    return icon, src
