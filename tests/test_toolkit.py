"""The shared numba toolkit against plain-Python references."""
from collections import deque

import numpy as np
import pytest

from kernels import grid, rng
from kernels.playout import pick_uniform
from kernels.rng import new_generator


def test_rng_is_a_pure_function_of_key_and_counter():
    a = np.zeros(2, np.int64)
    rng.seed_rng(a, 0, 12345)
    b = a.copy()
    xs = [rng.randint(a, 0, 1000) for _ in range(50)]
    assert [rng.randint(b, 0, 1000) for _ in range(50)] == xs
    c = np.zeros(2, np.int64)
    rng.seed_rng(c, 0, 12346)
    assert [rng.randint(c, 0, 1000) for _ in range(50)] != xs


def test_randint_is_in_range_and_roughly_uniform():
    s = np.zeros(2, np.int64)
    rng.seed_rng(s, 0, 7)
    counts = np.bincount([rng.randint(s, 0, 6) for _ in range(60000)], minlength=6)
    assert counts.min() > 9400 and counts.max() < 10600  # 6 sigma around 10000


def test_shuffle_is_a_permutation_and_varies():
    s = np.zeros(2, np.int64)
    rng.seed_rng(s, 0, 3)
    seen = set()
    for _ in range(30):
        arr = np.arange(8, dtype=np.int64)
        rng.shuffle(s, 0, arr, 8)
        assert sorted(arr.tolist()) == list(range(8))
        seen.add(tuple(arr))
    assert len(seen) > 25


def test_pick_uniform_only_picks_legal():
    gen = new_generator(1)
    mask = np.zeros(10, np.int8)
    mask[[2, 5, 7]] = 1
    picks = {pick_uniform(mask, gen, 0) for _ in range(200)}
    assert picks == {2, 5, 7}
    assert pick_uniform(np.zeros(3, np.int8), gen, 0) == -1


def test_pick_uniform_is_the_drawn_entry_of_the_legal_ones():
    """For the same draw, the pick is the k-th legal index (k = randint(count)): masks of
    every length around the 64-entry blocks it skips, sparse and dense, rows of a batch."""
    from kernels import rng
    draws = np.random.default_rng(3)
    gen = new_generator(7)
    for n in (1, 5, 63, 64, 65, 127, 128, 129, 204, 616, 1056):
        for density in (0.02, 0.3, 1.0):
            batch = (draws.random((3, n)) < density).astype(np.int8)
            batch[:, draws.integers(n)] = 1
            for mask in batch:
                legal = np.flatnonzero(mask)
                before = gen.copy()
                k = rng.randint(before, 0, legal.size)
                assert pick_uniform(mask, gen, 0) == legal[k]
                assert np.array_equal(gen, before)


def test_pick_uniform_is_the_same_for_every_storage_of_a_mask():
    """Byte masks are read a word at a time, other masks entry by entry: the same draw
    picks the same index from an int8 mask, a bool mask, a strided int8 view, an int64
    mask and an int8 mask that starts off a word boundary."""
    draws = np.random.default_rng(5)
    for n in (1, 7, 8, 9, 63, 64, 65, 131, 204, 616, 715, 1056):
        for density in (0.02, 0.5, 1.0):
            mask = (draws.random(n) < density).astype(np.int8)
            mask[draws.integers(n)] = 1
            wide = np.zeros(2 * n, np.int8)
            wide[::2] = mask
            shifted = np.zeros(n + 3, np.int8)[3:]
            shifted[:] = mask
            forms = [mask.astype(np.bool_), wide[::2], mask.astype(np.int64), shifted]
            for seed in range(4):
                expected = pick_uniform(mask, new_generator(seed), 0)
                assert mask[expected] == 1
                for form in forms:
                    assert pick_uniform(form, new_generator(seed), 0) == expected, (n, form.dtype)


def test_neighbor_table():
    t = grid.neighbor_table(5, 7)
    assert t.shape == (35, 4)
    assert t[0].tolist() == [-1, 1, 7, -1]
    assert t[17].tolist() == [10, 18, 24, 16]
    assert t[34].tolist() == [27, -1, -1, 33]


def reference_components(keys, rows, cols):
    labels = [-1] * (rows * cols)
    n = 0
    for start in range(rows * cols):
        if keys[start] < 0 or labels[start] >= 0:
            continue
        labels[start] = n
        q = deque([start])
        while q:
            c = q.popleft()
            r, k = divmod(c, cols)
            for dr, dc in grid.DIRS:
                rr, kk = r + dr, k + dc
                if 0 <= rr < rows and 0 <= kk < cols:
                    d = rr * cols + kk
                    if labels[d] < 0 and keys[d] == keys[start]:
                        labels[d] = n
                        q.append(d)
        n += 1
    return n, labels


@pytest.mark.parametrize("rows,cols", [(5, 7), (4, 4), (9, 9)])
def test_components_match_reference(rows, cols):
    r = np.random.default_rng(rows * cols)
    nbr = grid.neighbor_table(rows, cols)
    labels = np.zeros(rows * cols, np.int64)
    stack = np.zeros(rows * cols, np.int64)
    seen = np.zeros(rows * cols, np.int64)
    for _ in range(200):
        keys = r.integers(-1, 3, rows * cols).astype(np.int64)
        n = grid.label_components(keys, nbr, labels, stack)
        ref_n, ref = reference_components(keys.tolist(), rows, cols)
        assert n == ref_n and labels.tolist() == ref
        start = int(r.integers(rows * cols))
        if keys[start] >= 0:
            seen[:] = 0
            size = grid.flood_fill(start, keys, nbr, seen, stack)
            assert size == ref.count(ref[start])
            assert seen.tolist() == [int(x == ref[start]) for x in ref]


def test_d4_image_counts():
    square = [[1, 1], [1, 1]]
    line = [[1, 1, 1]]
    l_tromino = [[1, -1], [1, 1]]
    l_tetromino = [[1, -1], [1, -1], [1, 1]]
    two_colour = [[1, 2]]
    counts = [len(grid.d4_transforms(p)) for p in (square, line, l_tromino, l_tetromino, two_colour)]
    assert counts == [1, 2, 4, 8, 4]


def test_fitting_anchors_match_a_walk_over_the_cells():
    """The bitboard matcher against the plain rule: at the anchor, every image cell lies on
    the grid and holds its value or the wildcard (4 here)."""
    r = np.random.default_rng(0)
    pattern = [[2, 1, -1], [-1, 1, 3]]
    images = grid.d4_transforms(pattern)
    assert len(images) == 8
    rows, cols = 4, 5
    checked = fits = 0
    for _ in range(300):
        board = r.integers(0, 5, rows * cols).astype(np.int64)
        wild = sum(1 << q for q in range(rows * cols) if board[q] == 4)
        stand_for = np.array([7, 7] + [sum(1 << q for q in range(rows * cols) if board[q] == v) | wild
                                       for v in range(4)], np.int64)     # values from slot 2
        for im in images:
            height, width = im[:, 0].max() + 1, im[:, 1].max() + 1
            candidates = grid.anchor_bitboard(height, width, rows, cols)
            shifts, values = grid.image_shifts(im, cols)
            got = grid.fitting_anchors(shifts, values, im.shape[0], stand_for, 2, candidates)
            for r0 in range(rows):
                for c0 in range(cols):
                    want = all(0 <= r0 + dr < rows and 0 <= c0 + dc < cols
                               and board[(r0 + dr) * cols + c0 + dc] in (v, 4) for dr, dc, v in im)
                    assert (got >> (r0 * cols + c0)) & 1 == want, (im.tolist(), r0, c0)
                    checked += 1
                    fits += want
    assert checked > 1000 and 0 < fits < checked


@pytest.mark.parametrize("rows,cols", [(7, 7), (4, 5), (8, 3)])
def test_adjacent_cells_and_spans_match_the_neighbour_table(rows, cols):
    """The bitboard neighbourhood against grid.neighbor_table, and the row / column spans
    against their definition, on random sets of cells."""
    r = np.random.default_rng(1)
    n = rows * cols
    nbr = grid.neighbor_table(rows, cols)
    full = (1 << n) - 1
    not_first = sum(1 << q for q in range(n) if q % cols != 0)
    not_last = sum(1 << q for q in range(n) if q % cols != cols - 1)
    seen = 0
    for _ in range(200):
        cells = np.flatnonzero(r.random(n) < 0.2)
        bits = sum(1 << int(q) for q in cells)
        want = sum(1 << q for q in range(n) if any(nbr[q, d] in cells for d in range(nbr.shape[1])))
        assert grid.adjacent_cells(bits, cols, full, not_first, not_last) == want
        seen += want != 0
    assert seen > 100
    rows_span, cols_span = grid.span_bitboards(rows, cols)
    for lo in range(rows):
        for hi in range(rows):
            assert rows_span[lo, hi] == sum(1 << q for q in range(n) if lo <= q // cols <= hi)
    for lo in range(cols):
        for hi in range(cols):
            assert cols_span[lo, hi] == sum(1 << q for q in range(n) if lo <= q % cols <= hi)


def test_draw_from_counts_empties_the_bag_in_proportion():
    s = np.zeros(2 + 3, np.int64)
    rng.seed_rng(s, 0, 9)
    first = np.zeros(3, np.int64)
    for _ in range(3000):
        s[2:] = [6, 3, 1]
        first[rng.draw_from_counts(s, 0, 2, 3)] += 1
    assert abs(first[0] / 3000 - 0.6) < 0.04 and abs(first[2] / 3000 - 0.1) < 0.03
    s[2:] = [2, 0, 1]
    drawn = sorted(rng.draw_from_counts(s, 0, 2, 3) for _ in range(3))
    assert drawn == [0, 0, 2] and s[2:].tolist() == [0, 0, 0]
    assert rng.draw_from_counts(s, 0, 2, 3) == -1
