"""Grid geometry shared by every game: adjacency, connected components, D4 patterns and
the bitboard pattern matcher.

Cells of an ``rows x cols`` grid are numbered ``row * cols + col``.  Neighbour tables
are built once (plain numpy, at import of a game's data) and handed to the jitted
functions, which never allocate: callers pass the scratch arrays.
"""
import numpy as np
from numba import njit

# Orthogonal directions in a fixed order: N, E, S, W.
DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1))


def neighbor_table(rows, cols):
    """``int64[rows*cols, 4]``: the N, E, S, W neighbour of each cell, -1 off the grid."""
    table = np.full((rows * cols, 4), -1, dtype=np.int64)
    for r in range(rows):
        for c in range(cols):
            for d, (dr, dc) in enumerate(DIRS):
                rr, cc = r + dr, c + dc
                if 0 <= rr < rows and 0 <= cc < cols:
                    table[r * cols + c, d] = rr * cols + cc
    return table


@njit(cache=True)
def label_components(keys, nbr, labels, stack):
    """Label the orthogonally connected groups of equal, non-negative ``keys``.

    Cells with ``keys < 0`` get label -1.  Returns the number of components; labels
    are 0..n-1 in order of each component's lowest cell.  ``stack`` needs
    ``len(keys)`` slots.
    """
    n = keys.shape[0]
    for i in range(n):
        labels[i] = -1
    count = 0
    for start in range(n):
        if keys[start] < 0 or labels[start] >= 0:
            continue
        labels[start] = count
        top = 0
        stack[0] = start
        top = 1
        while top > 0:
            top -= 1
            cell = stack[top]
            for d in range(nbr.shape[1]):
                q = nbr[cell, d]
                if q >= 0 and labels[q] < 0 and keys[q] == keys[start]:
                    labels[q] = count
                    stack[top] = q
                    top += 1
        count += 1
    return count


@njit(cache=True)
def flood_fill(start, keys, nbr, seen, stack):
    """Mark (``seen[cell] = 1``) the group of cells connected to ``start`` with its key.

    ``seen`` must be zero on entry for the cells of interest.  Returns the group size.
    """
    return flood_fill_sum(start, keys, keys, nbr, seen, stack)[0]


@njit(cache=True)
def touches(cell, keys, nbr, key):
    """True when an orthogonal neighbour of ``cell`` has ``keys == key``."""
    for d in range(nbr.shape[1]):
        q = nbr[cell, d]
        if q >= 0 and keys[q] == key:
            return True
    return False


# ---------------------------------------------------------------- D4 patterns

def d4_transforms(pattern):
    """The distinct images of a 2-D pattern under the 8 rotations/reflections.

    ``pattern`` is a 2-D int array; entries ``< 0`` are holes (no requirement).
    Each image is returned as an ``int64[k, 3]`` array of ``(dr, dc, value)`` rows,
    normalised so the smallest ``dr`` and ``dc`` are 0, and sorted; duplicates
    (symmetric patterns) appear once.  Order: rotations of the original, then of
    its mirror image.
    """
    base = np.asarray(pattern)
    images, seen = [], set()
    for mirrored in (False, True):
        p = base[:, ::-1] if mirrored else base
        for k in range(4):
            q = np.rot90(p, k)
            cells = sorted((r, c, int(q[r, c])) for r in range(q.shape[0])
                           for c in range(q.shape[1]) if q[r, c] >= 0)
            r0 = min(r for r, _, _ in cells)
            c0 = min(c for _, c, _ in cells)
            key = tuple((r - r0, c - c0, v) for r, c, v in cells)
            if key not in seen:
                seen.add(key)
                images.append(np.array(key, dtype=np.int64).reshape(-1, 3))
    return images


def anchor_bitboard(height, width, rows, cols):
    """Bitboard (bit ``row * cols + col``) of the anchors at which an image whose bounding
    box is ``height x width`` lies on a ``rows x cols`` grid -- the candidates of
    :func:`fitting_anchors`."""
    bits = 0
    for r in range(rows - height + 1):
        for c in range(cols - width + 1):
            bits |= 1 << (r * cols + c)
    return bits


def span_bitboards(rows, cols):
    """Bitboards of whole-row and whole-column spans: ``rows_span[lo, hi]`` holds every cell
    of rows lo..hi (0 when lo > hi), ``cols_span[lo, hi]`` every cell of columns lo..hi."""
    rows_span = np.zeros((rows, rows), dtype=np.int64)
    cols_span = np.zeros((cols, cols), dtype=np.int64)
    for lo in range(rows):
        for hi in range(lo, rows):
            rows_span[lo, hi] = sum(1 << (r * cols + c) for r in range(lo, hi + 1) for c in range(cols))
    for lo in range(cols):
        for hi in range(lo, cols):
            cols_span[lo, hi] = sum(1 << (r * cols + c) for r in range(rows) for c in range(lo, hi + 1))
    return rows_span, cols_span


@njit(cache=True)
def adjacent_cells(bits, cols, full, not_first_col, not_last_col):
    """Bitboard of the cells orthogonally adjacent to a set cell of ``bits`` on a grid of
    ``cols`` columns (``full``: every cell; ``not_first_col`` / ``not_last_col``: every cell
    but the first / last column's, which keep a shift from wrapping into the next row)."""
    return ((bits >> cols) | ((bits << cols) & full)
            | ((bits >> 1) & not_last_col) | ((bits << 1) & not_first_col))


def image_shifts(image, cols):
    """An image's cells ``(dr, dc, v)`` as the two arrays :func:`fitting_anchors` reads: each
    cell's bit shift ``dr * cols + dc`` on a grid of ``cols`` columns, and its value."""
    image = np.asarray(image, dtype=np.int64).reshape(-1, 3)
    return image[:, 0] * cols + image[:, 1], image[:, 2].copy()


@njit(cache=True, inline="always")   # inlined: a call costs as much as the search
def fitting_anchors(shifts, values, size, stand_for, at, candidates):
    """Bitboard of the anchors, among ``candidates``, at which every cell of an image (the
    first ``size`` of :func:`image_shifts`' ``shifts`` and ``values``) falls on a cell that
    may hold its value ``v``: a set bit of ``stand_for[at + v]`` (the cells holding v, and
    any wildcards).

    One shift and AND per image cell tests every anchor at once.  ``candidates`` must keep
    the image on the grid (:func:`anchor_bitboard`), so no bit wraps into the next row;
    grids of up to 63 cells."""
    fit = candidates
    for i in range(size):
        fit &= stand_for[at + values[i]] >> shifts[i]
        if fit == 0:
            break
    return fit


@njit(cache=True)
def touches_range(cell, keys, nbr, lo, hi):
    """True when an orthogonal neighbour of ``cell`` has ``lo <= keys <= hi`` (e.g. any
    building of a range of kinds, or any occupied cell: ``lo = 0``)."""
    for d in range(nbr.shape[1]):
        q = nbr[cell, d]
        if q >= 0 and lo <= keys[q] <= hi:
            return True
    return False


@njit(cache=True)
def flood_fill_sum(start, keys, values, nbr, seen, stack):
    """:func:`flood_fill` that also adds up ``values`` over the group (e.g. the crosses of
    a domain).  ``seen`` must be zero on entry for the cells of interest.  Returns
    ``(group size, sum of values)``."""
    seen[start] = 1
    stack[0] = start
    top = 1
    size = 0
    total = 0
    key = keys[start]
    while top > 0:
        top -= 1
        cell = stack[top]
        size += 1
        total += values[cell]
        for d in range(nbr.shape[1]):
            q = nbr[cell, d]
            if q >= 0 and seen[q] == 0 and keys[q] == key:
                seen[q] = 1
                stack[top] = q
                top += 1
    return size, total
