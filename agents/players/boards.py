"""Where a game's fixed board sits in its observation, and which actions point at it.

The board network (:class:`agents.players.networks.BoardPolicy`) and its numpy twin
(:mod:`agents.pretrained.board_numpy`) both read a game's board through
:func:`board_geometry`; this module needs numpy alone, so a shipped policy plays without
torch.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np
from numba import njit

from kernels.grid import label_components, neighbor_table

__all__ = ["BOARD_SPECS", "BoardGeometry", "BoardSpec", "RegionSpec", "board_geometry",
           "board_planes", "region_planes"]


@dataclass(frozen=True)
class RegionSpec:
    """Connected regions of one map in the observation, whose sizes the network is given.

    Many scores count orthogonally connected cells of one kind (Kingdomino Duel's domains
    score cells x crosses).  A small convolution sees only a few cells away, so the board
    network gets, per cell, the region's own size and weight and, for each kind, the total
    size and weight of the distinct regions of that kind next to the cell: what a piece of
    that kind laid there would join.  ``part``/``index``: the map's planes are
    ``obs[part][index]`` (a (planes, H, W) block); ``kinds``: the one-hot plane of each
    kind (a cell in none is empty); ``weights``: planes summed into the cell's weight."""
    part: str
    index: int
    kinds: tuple
    weights: tuple
    max_size: float
    max_weight: float


@dataclass(frozen=True)
class BoardSpec:
    """Where a game's fixed board sits in its observation and which actions point at it.

    ``planes``: observation parts stacked as input planes over the ``height`` x ``width``
    board, each ``(part, order)`` with ``order`` ``"planes"`` (the part's shape ends in the
    board's two axes) or ``"cells"`` (its shape is (cells, features), cells row-major).
    A part of shape (cells,) is one plane.  ``pointing``: ``(action block, per_cell, major)``
    triples: choice ``j`` at board cell ``cell`` is the block's action ``offset + per_cell *
    cell + j`` (``major="cell"``) or ``offset + cells * j + cell`` (``major="choice"``)."""
    kernel: str
    planes: tuple
    height: int
    width: int
    pointing: tuple
    regions: tuple = ()


BOARD_SPECS = {
    # a kingdom map is 5 x 7; PLACE(cell, dir) puts the domino's first half at cell, CELL(c)
    # names one cell (split halves, add_cross)
    "kingdomino_duel_v0": BoardSpec(
        kernel="kernels.kingdomino_duel",
        planes=(("maps", "planes"), ("castle", "planes"), ("split_first_cell", "planes")),
        height=5, width=7, pointing=(("place", 4, "cell"), ("cell", 1, "cell")),
        # domains of my map and the opponent's: 6 family planes; crosses >= 1 and == 2
        regions=tuple(RegionSpec("maps", m, kinds=tuple(range(6)), weights=(7, 8), max_size=35.0,
                                 max_weight=20.0) for m in (0, 1))),
    # the observer's own 4 x 4 town first, then the others' (empty for absent seats) and the
    # per-square step context; CONSTRUCT(slot, t, anchor) is 128*slot + 16*t + anchor, so its
    # 64 (slot, transform) choices are the major axis; SQUARE q points at square q
    "tiny_towns_v0": BoardSpec(
        kernel="kernels.tiny_towns",
        planes=tuple((f"player{i}_squares", "cells") for i in range(6)) + tuple(
            (name, "cells") for name in ("pending_swap_square", "token_vacated", "guild_replaced",
                                         "resource_cell")),
        height=4, width=4, pointing=(("construct", 64, "choice"), ("square", 1, "cell"))),
}


@dataclass(frozen=True)
class BoardGeometry:
    """:func:`board_geometry`'s index arrays: how observation and actions map to the board."""
    game: str
    n_obs: int
    n_actions: int
    plane_parts: tuple      # (slice, planes, order) per part, in plane order
    n_planes: int
    height: int
    width: int
    point_actions: np.ndarray   # action ids pointing at a cell
    point_channel: np.ndarray   # the cell head's output channel of each
    point_cell: np.ndarray      # the cell (row-major) of each
    point_kind: np.ndarray      # which pointing block each belongs to
    n_kinds: int
    n_channels: int
    other_actions: np.ndarray   # every action that points at no cell
    regions: tuple              # (kind plane offsets, weight plane offsets, max size, max weight)
    neighbors: np.ndarray       # the board's N, E, S, W neighbour table
    n_region_planes: int


def board_geometry(game):
    """The :class:`BoardGeometry` of ``game`` (a key of :data:`BOARD_SPECS`)."""
    if game not in BOARD_SPECS:
        raise ValueError(f"no board network for game {game!r}; games with one: "
                         f"{sorted(BOARD_SPECS)}")
    spec = BOARD_SPECS[game]
    kernel = importlib.import_module(spec.kernel)
    layout, actions = kernel.OBS, kernel.ACTIONS
    cells = spec.height * spec.width
    parts, n_planes = [], 0
    for name, order in spec.planes:
        shape = layout.shape(name)
        if order == "planes":
            if tuple(shape[-2:]) != (spec.height, spec.width):
                raise ValueError(f"{game}: part {name!r} {shape} does not end in the board's axes")
            planes = int(np.prod(shape[:-2], dtype=int))
        elif order == "cells":
            if len(shape) not in (1, 2) or shape[0] != cells:
                raise ValueError(f"{game}: part {name!r} {shape} is not (cells, features)")
            planes = int(shape[1]) if len(shape) == 2 else 1
        else:
            raise ValueError(f"{game}: plane order must be 'planes' or 'cells', got {order!r}")
        parts.append((layout.slice(name), planes, order))
        n_planes += planes
    ids, channel, cell, kind = [], [], [], []
    first_channel = 0
    for k, (block, per_cell, major) in enumerate(spec.pointing):
        if actions.size(block) != per_cell * cells:
            raise ValueError(f"{game}: action block {block!r} has {actions.size(block)} actions, "
                             f"not {per_cell} per cell")
        if major not in ("cell", "choice"):
            raise ValueError(f"{game}: pointing major axis must be 'cell' or 'choice', "
                             f"got {major!r}")
        for c in range(cells):
            for j in range(per_cell):
                index = per_cell * c + j if major == "cell" else cells * j + c
                ids.append(actions.offset(block) + index)
                channel.append(first_channel + j)
                cell.append(c)
                kind.append(k)
        first_channel += per_cell
    pointing = np.asarray(ids, dtype=np.int64)
    other = np.setdiff1d(np.arange(actions.num_actions), pointing)
    regions, n_region_planes = [], 0
    for r in spec.regions:
        shape = layout.shape(r.part)
        if len(shape) != 4 or tuple(shape[-2:]) != (spec.height, spec.width):
            raise ValueError(f"{game}: region part {r.part!r} {shape} is not (maps, planes, H, W)")
        first = layout.offset(r.part) + r.index * shape[1] * cells
        regions.append((np.asarray([first + k * cells for k in r.kinds], dtype=np.int64),
                        np.asarray([first + k * cells for k in r.weights], dtype=np.int64),
                        float(r.max_size), float(r.max_weight)))
        n_region_planes += 2 + 2 * len(r.kinds)
    return BoardGeometry(game, int(layout.size), int(actions.num_actions), tuple(parts), n_planes,
                         spec.height, spec.width, pointing, np.asarray(channel, dtype=np.int64),
                         np.asarray(cell, dtype=np.int64), np.asarray(kind, dtype=np.int64),
                         len(spec.pointing), first_channel, other, tuple(regions),
                         neighbor_table(spec.height, spec.width), n_region_planes)


def board_planes(obs, geometry, concat):
    """The board input planes ``(B, n_planes, H, W)`` of observations ``obs``, a torch tensor
    or a numpy array (``concat`` is ``torch.cat`` or ``np.concatenate``)."""
    b, h, w = obs.shape[0], geometry.height, geometry.width
    planes = []
    for where, n, order in geometry.plane_parts:
        part = obs[:, where]
        if order == "cells":   # (cells, features) -> (features, cells)
            part = part.reshape(b, h * w, n).swapaxes(1, 2)
        planes.append(part.reshape(b, n, h, w))
    return concat(planes, 1)


@njit(cache=True)
def _region_features(keys, weights, n_kinds, nbr, max_size, max_weight, out):
    """``out[b]`` (2 + 2*n_kinds, cells): each cell's own region size and weight, then per
    kind the size and weight of the distinct regions of that kind next to it (scaled)."""
    cells = keys.shape[1]
    labels = np.empty(cells, dtype=np.int64)
    stack = np.empty(cells, dtype=np.int64)
    size = np.empty(cells)
    weight = np.empty(cells)
    seen = np.empty(4, dtype=np.int64)
    for b in range(keys.shape[0]):
        n = label_components(keys[b], nbr, labels, stack)
        size[:n] = 0.0
        weight[:n] = 0.0
        for c in range(cells):
            if labels[c] >= 0:
                size[labels[c]] += 1.0
                weight[labels[c]] += weights[b, c]
        for c in range(cells):
            if labels[c] >= 0:
                out[b, 0, c] = size[labels[c]] / max_size
                out[b, 1, c] = weight[labels[c]] / max_weight
            k = 0
            for d in range(nbr.shape[1]):
                q = nbr[c, d]
                if q < 0 or labels[q] < 0:
                    continue
                repeat = False
                for j in range(k):
                    repeat = repeat or seen[j] == labels[q]
                if repeat:
                    continue
                seen[k] = labels[q]
                k += 1
                out[b, 2 + 2 * keys[b, q], c] += size[labels[q]] / max_size
                out[b, 3 + 2 * keys[b, q], c] += weight[labels[q]] / max_weight


def region_planes(obs, geometry):
    """The region feature planes ``(B, n_region_planes, H, W)`` (float32 numpy) of
    observations ``obs`` (B, n_obs): for each :class:`RegionSpec` of the game, the planes
    :func:`_region_features` computes.  Plain data from the observation: the torch network
    and its numpy twin both call this."""
    obs = np.asarray(obs, dtype=np.float32)
    b, cells = obs.shape[0], geometry.height * geometry.width
    out = np.zeros((b, geometry.n_region_planes, cells), dtype=np.float32)
    at = 0
    cell_index = np.arange(cells)
    for kinds, weights, max_size, max_weight in geometry.regions:
        onehot = obs[:, kinds[:, None] + cell_index]                  # (B, kinds, cells)
        keys = np.where(onehot.max(axis=1) > 0.5, onehot.argmax(axis=1), -1).astype(np.int64)
        weight = obs[:, weights[:, None] + cell_index].sum(axis=1).astype(np.float64)
        n = 2 + 2 * len(kinds)
        part = np.zeros((b, n, cells), dtype=np.float32)
        _region_features(keys, weight, len(kinds), geometry.neighbors, max_size, max_weight, part)
        out[:, at:at + n] = part
        at += n
    return out.reshape(b, -1, geometry.height, geometry.width)
